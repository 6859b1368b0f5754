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
mod goreleaser;
mod images;
mod kustomize;
mod makefile;
mod providers;
mod release_flow;
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
/// Where the job that calls capkg's release from a workflow pushing its own tag is written, to
/// be pasted into that workflow by its maintainer (init never edits a workflow).
pub const CALL_SNIPPET_PATH: &str = ".github/capkg-release-call.yaml";
/// Where the workflow promoting a draft release is written, for a repository that drafts.
pub const GITHUB_PROMOTE_PATH: &str = ".github/workflows/capkg-promote.yaml";
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
    /// How the release starts (a tag push, or a workflow pushing its own tag), whether it drafts
    /// and whether its images are built beside it.
    pub release: ReleaseProcess,
    /// What was found and where, one line each.
    pub found: Vec<String>,
    /// What was not found, or found but not usable as it is, one line each.
    pub missing: Vec<String>,
    /// What was skipped: outside the repository, not a regular file, too large; one line each.
    pub notes: Vec<String>,
}

/// What the repository's workflows say about its release process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReleaseProcess {
    /// The workflow that pushes the release tag itself, which calls capkg's release.
    pub caller: Option<Caller>,
    /// `file:line` where a release is created as a draft: capkg offers draft-then-promote.
    pub draft: Option<String>,
    /// Where images are built beside the release (`file:line`, or why): capkg waits for them.
    pub images_beside: Option<String>,
}

/// A workflow that pushes the release tag itself (not triggered by it): capkg's release is a
/// job of it, calling the reusable workflow init writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The workflow, relative to the root (`.github/workflows/release.yaml`).
    pub file: String,
    /// The id of the job that pushes the tag, and the line where it does.
    pub tag_job: String,
    pub tag_line: usize,
    /// The expression naming the tag (`needs.push_release_tags.outputs.release_tag`), when the
    /// tag job has an output for it.
    pub version: Option<String>,
    /// Jobs of the workflow that build or push images: capkg's job `needs:` them.
    pub image_jobs: Vec<String>,
    /// Columns before that workflow's job keys.
    pub indent: usize,
    /// The id for capkg's job, one the workflow does not use yet.
    pub job_id: String,
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
    let owner_name = match &detected.forge {
        Forge::GitHub(path) => Some(path.clone()),
        _ => None,
    };
    let pipelines = workflows::existing_releases(
        &repo,
        &[GITHUB_WORKFLOW_PATH, GITHUB_PROMOTE_PATH],
        owner_name.as_deref(),
    );
    let recipe = repo
        .read(Path::new("Makefile"), "")
        .map(|text| makefile::release_recipe_in(&text, &pipelines.environment))
        .unwrap_or_default();
    for (name, value, evidence, line) in &recipe.from_environment {
        detected.found.push(format!(
            "{name}={value} from the release workflow's env ({evidence}), over the Makefile's default (Makefile:{line})"
        ));
    }
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
    let mut notes = pipelines.notes;
    release_flow::describe(&pipelines.process, &mut notes);
    detected.release = pipelines.process;
    detected.notes.splice(0..0, notes);
    detected.notes.extend(repo.notes());
    Ok(detected)
}
