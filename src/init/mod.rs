//! `capkg init`: what a provider repository holds, read as its maintainer would, and the
//! `capkg.yaml` and CI files that fit it, rendered from the templates embedded in the binary
//! (`templates/`).
//!
//! Detection reads, never runs anything. From the repository root (the folder holding `.git`):
//! - the providers (`providers`): the kustomizations the Makefile's release targets build
//!   (`makefile`) and those at `config/default`, `*/config/default` and `*/*/config/default`
//!   (never under `test/`, `e2e/`, `examples/`, `hack/`); each tree's
//!   `cluster.x-k8s.io/provider` label (`kustomize`) names the provider, the components file the
//!   Makefile writes (`infrastructure-components-supervisor.yaml`) gives its type and suffix, and
//!   a bare label (`kubevirt`) takes its type from the repository name (`cluster-api-provider-X`,
//!   ...);
//!   clusterctl's built-in provider list (`builtin`) names a repository it holds
//!   (`linode-linode`), whatever the labels say;
//! - the manager images of each tree, proposed as `images:` pins with `newTag: "{version}"` and
//!   the registry the release writes (`MANIFEST_IMG`, `PROD_REGISTRY`; `images`), tagged as
//!   the release pipelines already running on tags tag them (`workflows`);
//! - `metadata.yaml`, cluster templates and ClusterClasses (`templates`: a root `templates/`
//!   folder, any `cluster-template*.yaml`/`clusterclass-*.yaml` outside test folders, what the
//!   release copies, with the make target that writes git-ignored ones first as a step of the CI
//!   file);
//! - the forge from the `origin` remote (GitHub; GitLab, self-hosted included) or `.gitlab-ci.yml`
//!   (`remote`).
//!
//! Every read stays inside the repository and is bounded ([`repository`]): what lies outside it
//! (a `..` resource, a linked folder, a Makefile building another checkout) is said in the notes
//! and never proposed; a remote's user, password, query and fragment are dropped unprinted.
//!
//! The files are rendered from what was found (`render`; the `.gitignore` lines in
//! [`gitignore`]). What cannot be found is written as a `TODO` placeholder that capkg refuses to
//! assemble ([`crate::config::Config::refuse_placeholders`]). Writing (and refusing to overwrite)
//! is the caller's.

mod builtin;
pub mod gitignore;
mod images;
mod kustomize;
mod makefile;
mod providers;
mod remote;
mod render;
pub mod repository;
mod templates;
mod workflows;

pub use render::{ActionPin, render, render_pinned};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::provider::ProviderType;
use images::ReleaseImages;
use repository::Repository;

/// Where the GitHub workflow is written.
pub const GITHUB_WORKFLOW_PATH: &str = ".github/workflows/capkg-release.yaml";
/// Where the GitLab job is written; `.gitlab-ci.yml` includes it when the repository has none.
pub const GITLAB_JOB_PATH: &str = ".gitlab/capkg-release.gitlab-ci.yml";
/// The release folder `capkg assemble` writes, which git should not track.
pub const OUTPUT_DIR: &str = "out";

/// Folders whose kustomizations and templates are tests or examples, not the release.
const NOT_RELEASED: [&str; 4] = ["test", "e2e", "examples", "hack"];

/// Where the repository is published.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Forge {
    /// `OWNER/NAME` on GitHub.
    GitHub(String),
    /// A GitLab project path (gitlab.com or a self-hosted `gitlab.*` host), when the remote says.
    GitLab(Option<String>),
    #[default]
    Unknown,
}

/// What `init` found in a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    /// The repository root: where the files are written.
    pub root: PathBuf,
    /// The repository name (`cluster-api-provider-aws`), from the remote or the folder.
    pub repository: Option<String>,
    pub forge: Forge,
    /// The repository already has a `.gitlab-ci.yml`.
    pub gitlab_ci_exists: bool,
    pub providers: Vec<Provider>,
    /// `metadata.yaml` of the release, relative to the root.
    pub metadata: Option<String>,
    /// Globs (relative to the root) of the release's templates.
    pub templates: Vec<String>,
    /// A comment for a template glob in capkg.yaml (what makes its files first).
    pub template_comments: BTreeMap<String, String>,
    /// Make targets the release runs first to write files capkg publishes (git-ignored
    /// templates), with what they make: steps of the CI file before `capkg release`.
    pub prepare: Vec<(String, String)>,
    /// Proposed `images:` pins.
    pub images: Vec<Image>,
    /// What was found and where, one line each.
    pub found: Vec<String>,
    /// What was not found, or found but not usable as it is, one line each.
    pub missing: Vec<String>,
    /// What was skipped: outside the repository, not a regular file, too large; one line each.
    pub notes: Vec<String>,
}

/// One provider of the release.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provider {
    pub name: Option<String>,
    pub provider_type: Option<ProviderType>,
    /// Its components files: a kustomization folder each, the second and later with a suffix.
    pub components: Vec<Components>,
}

/// One components file: `kubectl kustomize DIR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Components {
    pub dir: String,
    pub suffix: Option<String>,
}

/// A proposed `images:` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The image as the manifests name it, without its tag.
    pub name: String,
    pub new_name: Option<String>,
    /// Where the image is written (relative to the root).
    pub file: String,
    /// `{version}`, or `{semver}` when the release tags its images without the `v`.
    pub new_tag: &'static str,
    /// The `imagePullPolicy` the release sets.
    pub pull_policy: Option<String>,
}

impl Provider {
    /// `{type}-{name}` when both are known.
    pub fn label(&self) -> Option<String> {
        Some(self.provider_type?.manifest_label(self.name.as_deref()?))
    }
}

/// The repository root for a command run in `start`: the nearest folder holding `.git`.
pub fn repository_root(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().ok()?;
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Looks at the repository holding `start` (or at `start` when it is in none); an error when
/// that folder cannot be resolved.
pub fn detect(start: &Path) -> std::io::Result<Detected> {
    let (root, in_git) = match repository_root(start) {
        Some(root) => (root, true),
        None => (start.to_path_buf(), false),
    };
    let repo = Repository::new(&root)?;
    let mut detected = Detected {
        gitlab_ci_exists: repo.exists(Path::new(".gitlab-ci.yml")),
        root: repo.root().to_path_buf(),
        ..Detected::default()
    };
    if !in_git {
        detected.missing.push(format!(
            "no git repository (no `.git` in `{}` or above it): writing there",
            start.display()
        ));
    }
    remote::detect_forge(&repo, &mut detected, in_git);
    let recipe = repo
        .read(Path::new("Makefile"), "")
        .map(|text| makefile::release_recipe(&text))
        .unwrap_or_default();
    let pipelines = workflows::existing_releases(&repo, GITHUB_WORKFLOW_PATH);
    let tag_without_v = recipe
        .tag_without_v
        .map(|line| format!("Makefile:{line}"))
        .or(pipelines.tag_without_v);
    let release = ReleaseImages {
        tag_without_v,
        pushed: pipelines.pushed_images.clone(),
    };
    providers::detect_providers(&repo, &mut detected, &recipe, &release);
    templates::detect_metadata(&repo, &mut detected, &recipe);
    templates::detect_templates(&repo, &mut detected, &recipe);
    detected.notes.splice(0..0, pipelines.notes);
    detected.notes.extend(repo.notes());
    Ok(detected)
}
