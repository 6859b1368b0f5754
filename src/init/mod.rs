//! `capkg init`: what a provider repository holds, read as its maintainer would, and the
//! `capkg.yaml` and CI files that fit it, rendered from the templates embedded in the binary
//! (`templates/`).
//!
//! Detection reads, never runs anything. From the repository root (the folder holding `.git`):
//! - the providers: the kustomizations the Makefile's release targets build ([`makefile`]) and
//!   those at `config/default`, `*/config/default` and `*/*/config/default` (never under `test/`,
//!   `e2e/`, `examples/`, `hack/`); each tree's `cluster.x-k8s.io/provider` label
//!   ([`kustomize`]) names the provider, the components file the Makefile writes
//!   (`infrastructure-components-supervisor.yaml`) gives its type and suffix, and a bare label
//!   (`kubevirt`) takes its type from the repository name (`cluster-api-provider-X`, ...);
//!   clusterctl's built-in provider list (`builtin`) names a repository it holds
//!   (`linode-linode`), whatever the labels say;
//! - the manager images of each tree, proposed as `images:` pins with `newTag: "{version}"` and
//!   the registry the release writes (`MANIFEST_IMG`, `PROD_REGISTRY`);
//! - `metadata.yaml`, cluster templates and ClusterClasses (a root `templates/` folder, any
//!   `cluster-template*.yaml`/`clusterclass-*.yaml` outside test folders, what the release copies,
//!   with the make target that writes git-ignored ones first as a step of the CI file);
//! - the forge from the `origin` remote (GitHub; GitLab, self-hosted included) or `.gitlab-ci.yml`.
//!
//! Every read stays inside the repository and is bounded ([`repository`]): what lies outside it
//! (a `..` resource, a linked folder, a Makefile building another checkout) is said in the notes
//! and never proposed; a remote's user, password, query and fragment are dropped unprinted.
//!
//! What cannot be found is written as a `TODO` placeholder that capkg refuses to assemble
//! ([`crate::config::Config::refuse_placeholders`]). Writing (and refusing to overwrite) is the
//! caller's.

mod builtin;
mod kustomize;
mod makefile;
mod render;
pub mod repository;
mod workflows;

pub use render::{ActionPin, render, render_pinned};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::provider::{CORE_PROVIDER_NAME, FileRole, ProviderType};
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
    detect_forge(&repo, &mut detected, in_git);
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
    detect_providers(&repo, &mut detected, &recipe, &release);
    detect_metadata(&repo, &mut detected, &recipe);
    detect_templates(&repo, &mut detected, &recipe);
    detected.notes.splice(0..0, pipelines.notes);
    detected.notes.extend(repo.notes());
    Ok(detected)
}

fn detect_forge(repo: &Repository, detected: &mut Detected, in_git: bool) {
    let remote = in_git
        .then(|| repo.read(Path::new(".git/config"), ""))
        .flatten()
        .and_then(|config| origin_url(&config));
    let mut remote_name = None;
    match remote.as_deref().map(split_remote) {
        Some(Ok((host, path))) => {
            remote_name = path.rsplit('/').next().map(str::to_string);
            if host == "github.com" {
                detected.forge = Forge::GitHub(path.clone());
            } else if host == "gitlab.com" || host.starts_with("gitlab.") {
                detected.forge = Forge::GitLab(Some(path.clone()));
            }
            detected.found.push(format!("git remote: {host}/{path}"));
        }
        Some(Err(refused)) => detected.missing.push(format!(
            "git remote `origin`: {refused}; the publish target is left for you"
        )),
        None => detected
            .missing
            .push("no git remote `origin`: the publish target is left for you".to_string()),
    }
    if detected.forge == Forge::Unknown && detected.gitlab_ci_exists {
        detected.forge = Forge::GitLab(None);
        detected
            .found
            .push(".gitlab-ci.yml: publishing from GitLab CI".to_string());
    }
    match &detected.forge {
        Forge::GitHub(repo) => detected.found.push(format!("forge: GitHub ({repo})")),
        Forge::GitLab(project) => detected.found.push(format!(
            "forge: GitLab ({})",
            project.as_deref().unwrap_or("the project running the pipeline")
        )),
        Forge::Unknown => detected.missing.push(
            "forge: neither GitHub nor GitLab; no CI files written (`capkg release` runs in any CI)"
                .to_string(),
        ),
    }
    detected.repository = remote_name
        .or_else(|| kubebuilder_repository(repo))
        .or_else(|| {
            detected
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        });
}

/// The URL of `[remote "origin"]`, else of the first remote.
fn origin_url(config: &str) -> Option<String> {
    let mut section = String::new();
    let mut first = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some(url) = line
            .strip_prefix("url")
            .and_then(|rest| rest.trim_start().strip_prefix('='))
        else {
            continue;
        };
        let url = url.trim().to_string();
        if section == "[remote \"origin\"]" {
            return Some(url);
        }
        first.get_or_insert(url);
    }
    first
}

/// `(host, path)` of `https://host/path(.git)`, `ssh://git@host/path` or `git@host:path`: the
/// user and password (up to the last `@` before the path: a password may hold a raw `@`), a
/// port, a query and a fragment are dropped, and never printed. A path with an empty part, a `.`
/// or `..` part, or a character a project name cannot hold is refused (the reason names no part
/// of the URL).
fn split_remote(url: &str) -> Result<(String, String), &'static str> {
    let rest = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .unwrap_or(url);
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let rest = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let not_a_remote = "not a URL of a forge's project";
    let (host, path) = rest.split_once(['/', ':']).ok_or(not_a_remote)?;
    // `ssh://git@host:2222/path`: a port is not part of the path.
    let path = match path.split_once('/') {
        Some((port, tail)) if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => tail,
        _ => path,
    };
    let path = path.strip_suffix('/').unwrap_or(path);
    let path = path.strip_suffix(".git").unwrap_or(path);
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    if !host_ok {
        return Err(not_a_remote);
    }
    let name_chars = |c: char| c.is_ascii_alphanumeric() || "._-/".contains(c);
    if !path.contains('/')
        || !path.chars().all(name_chars)
        || crate::forge::url::dot_or_empty_part(path).is_some()
    {
        return Err(
            "its path is not a project path (OWNER/NAME: no empty, `.` or `..` part, letters, digits, `.`, `_` and `-` only)",
        );
    }
    Ok((host.to_ascii_lowercase(), path.to_string()))
}

/// The repository name of kubebuilder's `PROJECT` (`repo: sigs.k8s.io/cluster-api-provider-aws`).
fn kubebuilder_repository(repo: &Repository) -> Option<String> {
    let text = repo.read(Path::new("PROJECT"), "")?;
    text.lines().find_map(|line| {
        let repo = line.strip_prefix("repo:")?.trim().trim_matches(['"', '\'']);
        repo.rsplit('/').next().map(str::to_string)
    })
}

/// The provider a repository name announces (`cluster-api-provider-aws`: infrastructure `aws`).
pub fn from_repository_name(name: &str) -> Option<(ProviderType, String)> {
    if name == CORE_PROVIDER_NAME {
        return Some((ProviderType::Core, name.to_string()));
    }
    let conventions = [
        ("cluster-api-provider-", ProviderType::Infrastructure),
        ("cluster-api-bootstrap-provider-", ProviderType::Bootstrap),
        (
            "cluster-api-control-plane-provider-",
            ProviderType::ControlPlane,
        ),
        (
            "cluster-api-controlplane-provider-",
            ProviderType::ControlPlane,
        ),
        ("cluster-api-ipam-provider-", ProviderType::Ipam),
        ("cluster-api-addon-provider-", ProviderType::Addon),
    ];
    conventions.into_iter().find_map(|(prefix, provider_type)| {
        let rest = name.strip_prefix(prefix)?;
        (!rest.is_empty()).then(|| (provider_type, rest.to_string()))
    })
}

fn not_released(path: &str) -> bool {
    path.split('/').any(|part| NOT_RELEASED.contains(&part))
}

/// `config/default`, `*/config/default` and `*/*/config/default` outside test folders.
fn conventional_kustomizations(repo: &Repository) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut level = vec![String::new()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for prefix in &level {
            let candidate = format!("{prefix}config/default");
            if !not_released(&candidate)
                && kustomize::kustomization_file(repo, Path::new(&candidate)).is_some()
            {
                found.insert(candidate);
            }
            let folder = if prefix.is_empty() {
                "."
            } else {
                prefix.as_str()
            };
            for name in repo.subfolders(Path::new(folder)) {
                if !name.starts_with('.') && !NOT_RELEASED.contains(&name.as_str()) {
                    next.push(format!("{prefix}{name}/"));
                }
            }
        }
        level = next;
    }
    found.into_iter().collect()
}

/// A folder the Makefile builds, as it is in the repository: the release may build a copy
/// (`cp -R config .build; kustomize build .build/config/default`), so leading folders that do
/// not exist are dropped. A folder named outside the repository (`..`, an absolute path) is
/// noted and not used.
fn existing_kustomization(repo: &Repository, dir: &str) -> Option<String> {
    let why = "the Makefile's release builds it";
    if dir.starts_with('/') || dir.split('/').any(|part| part == "..") {
        repo.inside(Path::new(dir), why)?;
        return kustomize::kustomization_file(repo, Path::new(dir))
            .map(|_| repo.shown(Path::new(dir)));
    }
    let parts: Vec<&str> = dir.split('/').collect();
    (0..parts.len()).find_map(|skip| {
        let candidate = parts[skip..].join("/");
        kustomize::kustomization_file(repo, Path::new(&candidate)).map(|_| candidate)
    })
}

struct Candidate {
    dir: String,
    /// Type and suffix from the components file the Makefile writes.
    output: Option<(ProviderType, Option<String>, String)>,
    origin: String,
}

fn detect_providers(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    release: &ReleaseImages,
) {
    let mut candidates: Vec<Candidate> = Vec::new();
    for build in &recipe.builds {
        let Some(dir) = existing_kustomization(repo, &build.dir) else {
            let inside = !(build.dir.starts_with('/') || build.dir.split('/').any(|p| p == ".."));
            let components = build.output.as_deref().is_some_and(|file| {
                matches!(
                    FileRole::from_file_name(file),
                    Some(FileRole::Components { .. })
                )
            });
            if inside && components {
                detected.notes.push(format!(
                    "components: the Makefile's release also builds `{}` (Makefile:{}), a kustomization it generates first (not in the repository); capkg builds the committed kustomization instead: what the generated one changes (an image, a pull policy) belongs in `images:`; compare `capkg assemble` with an upstream release once",
                    build.dir, build.line
                ));
            }
            continue;
        };
        let output =
            build
                .output
                .as_deref()
                .and_then(|file| match FileRole::from_file_name(file) {
                    Some(FileRole::Components {
                        provider_type,
                        suffix,
                    }) => Some((provider_type, suffix, file.to_string())),
                    _ => None,
                });
        // A build whose output is not a components file (an intermediate file, a template) is
        // only a provider when the folder is a conventional one.
        if output.is_none() && !dir.ends_with("config/default") {
            continue;
        }
        if candidates.iter().any(|c| c.dir == dir) {
            continue;
        }
        let origin = match &output {
            Some((_, _, file)) => format!(
                "the Makefile's release builds it into {file}, Makefile:{}",
                build.line
            ),
            None => format!("the Makefile's release builds it, Makefile:{}", build.line),
        };
        candidates.push(Candidate {
            dir,
            output,
            origin,
        });
    }
    for dir in conventional_kustomizations(repo) {
        if !candidates.iter().any(|c| c.dir == dir) {
            candidates.push(Candidate {
                dir,
                output: None,
                origin: "kustomization at a conventional place".to_string(),
            });
        }
    }
    if candidates.is_empty() {
        detected.missing.push(
            "components: no kustomization at config/default, */config/default or */*/config/default, and none built by the Makefile's release target".to_string(),
        );
        detected.providers.push(Provider::default());
        return;
    }
    let convention = detected
        .repository
        .as_deref()
        .and_then(from_repository_name);
    let owner_name = match &detected.forge {
        Forge::GitHub(path) => Some(path.clone()),
        _ => None,
    };
    let owner_name = owner_name.as_deref();
    let mut manager_images: Vec<kustomize::Container> = Vec::new();
    for candidate in candidates {
        let tree = kustomize::read(repo, &candidate.dir);
        let mut provider_type = candidate.output.as_ref().map(|(t, _, _)| *t);
        let mut name = None;
        let mut identity = candidate.origin.clone();
        match tree.labels.first() {
            Some((label, file, line)) => match ProviderType::split_label(label) {
                Some((label_type, label_name)) => {
                    if let Some(made) = provider_type
                        && made != label_type
                    {
                        detected.missing.push(format!(
                            "{}: the label `{label}` ({file}:{line}) says {label_type}, the Makefile writes {made} components; using the label",
                            candidate.dir
                        ));
                    }
                    provider_type = Some(label_type);
                    name = Some(label_name.to_string());
                    identity = format!("label `{label}` in {file}:{line}; {identity}");
                }
                None => {
                    name = Some(label.clone());
                    let by_name = convention.as_ref().map(|(t, _)| *t);
                    provider_type = provider_type.or(by_name);
                    identity = match (provider_type, &detected.repository) {
                        (Some(t), _) if candidate.output.is_some() => format!(
                            "bare label `{label}` in {file}:{line}, type {t} from the file the Makefile writes; {identity}"
                        ),
                        (Some(t), Some(repo)) => format!(
                            "bare label `{label}` in {file}:{line}, type {t} from the repository name `{repo}`; {identity}"
                        ),
                        _ => format!("bare label `{label}` in {file}:{line}; {identity}"),
                    };
                }
            },
            None => {
                if let Some((t, n)) = &convention
                    && provider_type.is_none_or(|made| made == *t)
                {
                    provider_type = Some(*t);
                    name = Some(n.clone());
                    identity = format!(
                        "no `cluster.x-k8s.io/provider` label; named after the repository `{}`; {identity}",
                        detected.repository.as_deref().unwrap_or_default()
                    );
                }
            }
        }
        if let Some(t) = provider_type
            && let Some(repository) = detected.repository.as_deref()
            && let Some((listed, built_in_name, line)) =
                builtin::built_in(owner_name, repository, t)
        {
            let evidence = format!(
                "clusterctl's built-in provider list names {listed} `{built_in_name}`, {}:{line}",
                builtin::SOURCE
            );
            if name.as_deref() == Some(built_in_name) {
                identity = format!("{identity}; {evidence}");
            } else {
                if let Some((label, file, line)) = tree.labels.first() {
                    detected.notes.push(format!(
                    "{}: clusterctl names this provider `{built_in_name}`, its label `{label}` ({file}:{line}) says otherwise; capkg releases it as `{}` and refuses sources labelled otherwise: change that label to it",
                    candidate.dir,
                    t.manifest_label(built_in_name)
                ));
                }
                name = Some(built_in_name.to_string());
                identity = format!("{evidence}; {identity}");
            }
        }
        if let Some(bad) = &name
            && crate::provider::validate_name(provider_type, bad).is_err()
        {
            detected.missing.push(format!(
                "{}: `{bad}` is not a provider name clusterctl accepts",
                candidate.dir
            ));
            name = None;
        }
        let suffix = candidate.output.as_ref().and_then(|(_, s, _)| s.clone());
        let components = Components {
            dir: candidate.dir.clone(),
            suffix,
        };
        let provider = Provider {
            name,
            provider_type,
            components: vec![components.clone()],
        };
        let shown = provider.label().unwrap_or_else(|| "a provider".to_string());
        detected.found.push(format!(
            "{shown}: components `kubectl kustomize {}`{} ({identity})",
            candidate.dir,
            components
                .suffix
                .as_deref()
                .map(|s| format!(", suffix `{s}`"))
                .unwrap_or_default()
        ));
        if provider.name.is_none() || provider.provider_type.is_none() {
            detected.missing.push(format!(
                "{}: no provider {} (no `cluster.x-k8s.io/provider` label, and the repository name follows no convention): fill the TODO in capkg.yaml",
                candidate.dir,
                if provider.name.is_none() { "name" } else { "type" }
            ));
        }
        let managers: Vec<&kustomize::Container> = {
            let named: Vec<_> = tree
                .containers
                .iter()
                .filter(|c| c.name == "manager")
                .collect();
            if named.is_empty() {
                tree.containers.iter().collect()
            } else {
                named
            }
        };
        if managers.is_empty() {
            detected.missing.push(format!(
                "{}: no manager image found in the kustomize tree",
                candidate.dir
            ));
        }
        manager_images.extend(managers.into_iter().cloned());
        // Same provider, another components file (vSphere's `supervisor`).
        match detected.providers.iter_mut().find(|p| {
            p.name.is_some() && p.name == provider.name && p.provider_type == provider.provider_type
        }) {
            Some(existing)
                if existing
                    .components
                    .iter()
                    .all(|c| c.suffix != components.suffix) =>
            {
                existing.components.push(components)
            }
            Some(_) => detected.missing.push(format!(
                "{}: a second components file for {shown} without its own suffix; left out",
                candidate.dir
            )),
            None => detected.providers.push(provider),
        }
    }
    detected
        .providers
        .sort_by_key(|p| (p.provider_type.is_none(), p.provider_type, p.name.clone()));
    propose_images(detected, recipe, &manager_images, release);
}

/// What the release pipelines say about images.
struct ReleaseImages {
    /// `file:line` where the release tags images without the `v`.
    tag_without_v: Option<String>,
    /// Images a release pipeline pushes, with their `file:line`.
    pushed: Vec<(String, String)>,
}

/// An image named for development: a bare name (`controller`, Docker Hub's library, where no
/// provider publishes), or one on a loopback registry (`localhost:5000/x`), which no cluster pulls
/// a release from.
fn development_name(image: &str) -> bool {
    let Some((first, _)) = image.split_once('/') else {
        return true;
    };
    let host = first.rsplit_once(':').map_or(first, |(host, _)| host);
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}

/// An image name without a trailing architecture (`manager-amd64`: `manager`), for matching the
/// development image with the multi-arch name the release sets.
fn without_arch(base: &str) -> &str {
    ["-amd64", "-arm64", "-arm", "-ppc64le", "-s390x"]
        .iter()
        .find_map(|arch| base.strip_suffix(arch))
        .unwrap_or(base)
}

/// `images:` pins for the manager images: the name the Makefile's release sets (matched by the
/// image's last path part, architecture dropped; the only one when there is one of each), else
/// `PROD_REGISTRY` with the image's last part (a guess, said so); `{semver}` when the release
/// tags without the `v`. Each with its evidence (file:line).
fn propose_images(
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    managers: &[kustomize::Container],
    release: &ReleaseImages,
) {
    let names: BTreeSet<String> = managers
        .iter()
        .map(|c| makefile::strip_tag(&c.image))
        .collect();
    let (new_tag, tag_note) = match &release.tag_without_v {
        Some(evidence) => (
            "{semver}",
            format!("; tagged without `v` ({evidence}): newTag \"{{semver}}\""),
        ),
        None => ("{version}", String::new()),
    };
    let policy_note = recipe
        .pull_policy
        .as_ref()
        .map(|(policy, line)| {
            format!("; pull policy {policy} (the Makefile's release sets it, Makefile:{line})")
        })
        .unwrap_or_default();
    for container in managers {
        let name = makefile::strip_tag(&container.image);
        if detected.images.iter().any(|i| i.name == name) {
            continue;
        }
        // capkg.yaml gets only a name an image can have: a line break in one would write keys.
        if crate::image_ref::check_name(&name).is_err() {
            detected.notes.push(format!(
                "manager image `{}` ({}:{}) is not an image name docker accepts (an optional registry host, then lower-case letters, digits and separators): not written under `images:`; fix it in the manifest, or pin the release's image there by hand (`- name: IMAGE`, `newTag: \"{{version}}\"`)",
                container.image.escape_debug(),
                container.file.escape_debug(),
                container.line
            ));
            continue;
        }
        let last = |image: &str| image.rsplit('/').next().unwrap_or(image).to_string();
        let base = last(&name);
        let mut matched = recipe
            .images
            .iter()
            .find(|(i, _)| without_arch(&last(i)) == without_arch(&base))
            .or(match (&recipe.images[..], names.len()) {
                ([only], 1) => Some(only),
                _ => None,
            });
        let (mut new_name, mut evidence) = match matched {
            Some((released, line)) => (
                (released != &name).then(|| released.clone()),
                format!("the Makefile's release sets it, Makefile:{line}"),
            ),
            None => match &recipe.prod_registry {
                Some((prod, line)) if !name.starts_with(&format!("{prod}/")) => (
                    Some(format!("{prod}/{base}")),
                    format!(
                        "a guess: PROD_REGISTRY (Makefile:{line}) and the image's name; check it"
                    ),
                ),
                _ => (None, String::new()),
            },
        };
        if let Some(bad) = new_name.as_deref()
            && crate::image_ref::check_name(bad).is_err()
        {
            detected.notes.push(format!(
                "manager image {name} ({}:{}): the name the release gives it, `{}` ({evidence}), is not an image name docker accepts: `newName` not written; set it by hand under `images:`",
                container.file.escape_debug(),
                container.line,
                bad.escape_debug()
            ));
            (new_name, evidence, matched) = (None, String::new(), None);
        }
        detected.found.push(format!(
            "manager image {} ({}:{}){}{tag_note}{policy_note}",
            container.image,
            container.file,
            container.line,
            match (&new_name, matched) {
                (Some(n), _) => format!(", released as {n} ({evidence})"),
                (None, Some(_)) => format!(", released under that name ({evidence})"),
                (None, None) => String::new(),
            }
        ));
        if new_name.is_none() && development_name(&name) {
            let pushed = match &release.pushed[..] {
                [] => String::new(),
                pushed => format!(
                    "; the release pipelines push {}: set `newName` to the manager's",
                    pushed
                        .iter()
                        .map(|(image, at)| format!("{image} ({at})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            detected.missing.push(format!(
                "manager image {name} ({}:{}) is a development name (no registry, or a loopback one) and the Makefile's release names no other: set `newName` in its `images:` entry to the registry the release pushes to{pushed}",
                container.file, container.line
            ));
        }
        detected.images.push(Image {
            name,
            new_name,
            file: container.file.clone(),
            new_tag,
            pull_policy: recipe.pull_policy.as_ref().map(|(p, _)| p.clone()),
        });
    }
}

fn detect_metadata(repo: &Repository, detected: &mut Detected, recipe: &makefile::ReleaseRecipe) {
    let copied = recipe.copies.iter().find(|c| {
        c.to.rsplit('/').next() == Some("metadata.yaml")
            && repo.is_file(Path::new(&c.from), "the Makefile's release copies it")
    });
    if let Some(copy) = copied {
        detected.found.push(format!(
            "metadata: {} (the Makefile's release copies it, Makefile:{})",
            copy.from, copy.line
        ));
        detected.metadata = Some(copy.from.clone());
    } else if repo.is_file(Path::new("metadata.yaml"), "") {
        detected.found.push("metadata: metadata.yaml".to_string());
        detected.metadata = Some("metadata.yaml".to_string());
    } else {
        detected.missing.push(
            "metadata: no metadata.yaml at the repository root (clusterctl needs one per release)"
                .to_string(),
        );
    }
}

fn template_patterns(names: &BTreeSet<String>) -> Vec<&'static str> {
    let mut patterns = Vec::new();
    if names
        .iter()
        .any(|n| n.starts_with("cluster-template") && n.ends_with(".yaml"))
    {
        patterns.push("cluster-template*.yaml");
    }
    if names
        .iter()
        .any(|n| n.starts_with("clusterclass-") && n.ends_with(".yaml"))
    {
        patterns.push("clusterclass-*.yaml");
    }
    patterns
}

fn detect_templates(repo: &Repository, detected: &mut Detected, recipe: &makefile::ReleaseRecipe) {
    let root = repo.root().to_path_buf();
    // Folders holding templates, as found by looking, and as the release copies them.
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut copied: BTreeMap<String, usize> = BTreeMap::new();
    // The release copies a template under another name (no folder to propose, but evidence).
    let mut copies_templates = false;
    for entry in walkdir::WalkDir::new(&root)
        .max_depth(6)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.')
                    || NOT_RELEASED.contains(&name.as_ref())
                    || ["vendor", "node_modules", OUTPUT_DIR, "_artifacts"]
                        .contains(&name.as_ref()))
        })
        .flatten()
    {
        let name = entry.file_name().to_string_lossy();
        let template = (name.starts_with("cluster-template") || name.starts_with("clusterclass-"))
            && name.ends_with(".yaml");
        // Kustomize sources of templates (`cluster-template-x/kustomization.yaml`) are folders.
        if !template || !entry.file_type().is_file() {
            continue;
        }
        let folder = entry
            .path()
            .parent()
            .and_then(|p| p.strip_prefix(&root).ok())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        found.insert(folder);
    }
    // Globs the release copies that capkg can publish, with their evidence.
    let mut globbed: Vec<(String, String)> = Vec::new();
    for copy in &recipe.copies {
        let to_name = copy.to.rsplit('/').next().unwrap_or_default();
        if let Some((folder, pattern)) = copy.from.rsplit_once('/')
            && pattern.contains('*')
            && pattern != "*"
        {
            copies_templates = true;
            copied_globs(repo, detected, recipe, copy, folder, pattern, &mut globbed);
            continue;
        }
        if let Some(folder) = copy.from.strip_suffix("/*") {
            if repo.is_dir(Path::new(folder), "the Makefile's release copies it")
                && !template_patterns(&repo.file_names(Path::new(folder))).is_empty()
            {
                copied.entry(folder.to_string()).or_insert(copy.line);
            }
            continue;
        }
        let from_name = copy.from.rsplit('/').next().unwrap_or_default();
        let role = FileRole::from_file_name(to_name);
        let is_template = matches!(
            role,
            Some(FileRole::ClusterTemplate { .. } | FileRole::ClusterClass { .. })
        );
        if !is_template || !repo.is_file(Path::new(&copy.from), "the Makefile's release copies it")
        {
            continue;
        }
        copies_templates = true;
        if from_name == to_name {
            copied
                .entry(
                    copy.from
                        .rsplit_once('/')
                        .map_or(String::new(), |(folder, _)| folder.to_string()),
                )
                .or_insert(copy.line);
        } else {
            detected.missing.push(format!(
                "templates: the Makefile's release copies {} as {to_name}; capkg publishes templates under their own names: rename the file (git mv) and list it under `templates:`",
                copy.from
            ));
        }
    }
    copies_templates |= !copied.is_empty();
    // A bootstrap or control-plane provider ships templates only when its release copies them.
    let ships_templates = detected.providers.iter().any(|p| {
        matches!(
            p.provider_type,
            None | Some(ProviderType::Infrastructure | ProviderType::Core)
        )
    });
    let handled: BTreeSet<String> = globbed
        .iter()
        .filter_map(|(glob, _)| glob.rsplit_once('/').map(|(f, _)| f.to_string()))
        .collect();
    let mut folders: Vec<(String, String)> = copied
        .iter()
        .map(|(folder, line)| {
            (
                folder.clone(),
                format!("the Makefile's release copies them, Makefile:{line}"),
            )
        })
        .collect();
    for folder in found
        .iter()
        .filter(|f| !copied.contains_key(*f) && !handled.contains(*f))
    {
        let shown = if folder.is_empty() { "." } else { folder };
        let skipped = if copies_templates {
            Some("the Makefile's release copies its templates from elsewhere")
        } else if !(folder.is_empty() || folder == "templates" || folder.starts_with("templates/"))
        {
            Some(
                "outside the repository's `templates/` folder, and the Makefile's release copies none (another provider's samples?)",
            )
        } else if !ships_templates {
            Some(
                "a bootstrap or control-plane provider's release ships templates only when it copies them, and the Makefile's release copies none",
            )
        } else {
            None
        };
        match skipped {
            Some(why) => detected.notes.push(format!(
                "templates in `{shown}` not proposed: {why}; list them under `templates:` if the release ships them"
            )),
            None => folders.push((folder.clone(), "found".to_string())),
        }
    }
    folders.sort();
    for (folder, why) in folders {
        let names = repo.file_names(Path::new(if folder.is_empty() { "." } else { &folder }));
        for pattern in template_patterns(&names) {
            let glob = if folder.is_empty() {
                pattern.to_string()
            } else {
                format!("{folder}/{pattern}")
            };
            detected.found.push(format!("templates: {glob} ({why})"));
            detected.templates.push(glob);
        }
    }
    for (glob, why) in globbed {
        if !detected.templates.contains(&glob) {
            detected.found.push(format!("templates: {glob} ({why})"));
            detected.templates.push(glob);
        }
    }
    if detected.templates.is_empty() {
        detected.missing.push(
            "templates: no cluster-template*.yaml or clusterclass-*.yaml outside test folders"
                .to_string(),
        );
    }
}

/// A release copy of a glob (`cp generated/cluster-template* $(RELEASE_DIR)/`): proposed as a
/// `templates:` glob when its names are clusterctl's (`cluster-template*.yaml`,
/// `clusterclass-*.yaml`), with what makes the files first when none is in the repository (a
/// git-ignored folder a target or script fills); said in the notes otherwise, since capkg
/// publishes no other file.
fn copied_globs(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    copy: &makefile::Copy,
    folder: &str,
    pattern: &str,
    globbed: &mut Vec<(String, String)>,
) {
    let proposed = if pattern.starts_with("cluster-template") {
        "cluster-template*.yaml"
    } else if pattern.starts_with("clusterclass") {
        "clusterclass-*.yaml"
    } else {
        let names: Vec<String> = repo
            .file_names(Path::new(folder))
            .into_iter()
            .filter(|name| glob_matches(pattern, name))
            .collect();
        let shown = match &names[..] {
            [] => String::new(),
            names => format!(" ({})", names.join(", ")),
        };
        detected.notes.push(format!(
            "templates: the Makefile's release also ships {}{shown}, Makefile:{}; capkg publishes only components, metadata.yaml, cluster-template*.yaml and clusterclass-*.yaml: rename them to those names (git mv) to release them, or attach them to the release another way",
            copy.from, copy.line
        ));
        return;
    };
    let glob = format!("{folder}/{proposed}");
    let present = repo
        .file_names(Path::new(folder))
        .iter()
        .any(|name| glob_matches(proposed, name));
    let mut why = format!(
        "the Makefile's release copies {}, Makefile:{}",
        copy.from, copy.line
    );
    if !present {
        let built: Vec<&makefile::Build> = recipe
            .builds
            .iter()
            .filter(|b| {
                b.output_dir == folder
                    && b.output
                        .as_deref()
                        .is_some_and(|o| glob_matches(proposed, o))
            })
            .collect();
        let (target, maker) = match (built.first(), recipe.scripts.first()) {
            (Some(build), _) => (
                Some((&build.target, build.line)),
                format!(
                    "`make {}` builds them with kustomize, Makefile:{}",
                    build.target, build.line
                ),
            ),
            (None, Some(script)) => (
                Some((&script.target, script.line)),
                format!(
                    "`make {}` runs `{}`, Makefile:{}",
                    script.target, script.command, script.line
                ),
            ),
            (None, None) => (None, "the release makes them before copying".to_string()),
        };
        let refused = target.and_then(|(target, line)| {
            let reason = workflow_safe_target(target).err()?;
            Some(format!(
                "templates: {glob} is made by the make target `{}` (Makefile:{line}), whose name holds {reason}: capkg writes no such name into a workflow (GitHub expands `${{{{ }}}}` in it, the shell `$(...)`), so no step runs it; add one that makes {glob} before `capkg release` by hand",
                target.escape_debug()
            ))
        });
        match (target, refused) {
            (_, Some(refused)) => detected.notes.push(refused),
            (Some((target, _)), None) => {
                match detected.prepare.iter_mut().find(|(t, _)| t == target) {
                    Some((_, what)) => what.push_str(&format!(", {glob}")),
                    None => detected.prepare.push((target.clone(), glob.clone())),
                }
                detected.notes.push(format!(
                    "templates: {glob} matches nothing in the repository yet: {maker}; the release job runs it before `capkg release` (which refuses a glob matching nothing)"
                ));
            }
            (None, None) => detected.notes.push(format!(
                "templates: {glob} matches nothing in the repository yet: {maker}; make them before `capkg release` (which refuses a glob matching nothing)"
            )),
        }
        detected
            .template_comments
            .insert(glob.clone(), format!("made by the release first: {maker}"));
        why.push_str("; made first");
    }
    globbed.push((glob, why));
}

/// Whether a make target can be written into the generated GitHub workflow (as an `env:` value
/// its step passes to `make "$MAKE_TARGET"`): ASCII letters, digits and `._/+-`, not starting
/// with `-` (which make reads as an option). Anything else, `$` above all (GitHub expands
/// `${{ }}` anywhere in a workflow, before any quoting), is refused with what it holds.
pub(super) fn workflow_safe_target(target: &str) -> Result<(), String> {
    if target.is_empty() {
        return Err("nothing".to_string());
    }
    if let Some(c) = target
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._/+-".contains(*c)))
    {
        return Err(crate::files::describe_char(c));
    }
    if target.starts_with('-') {
        return Err("a leading `-` (an option to make)".to_string());
    }
    Ok(())
}

/// Whether a file name matches a shell pattern of `*`s (`cluster-template*`).
fn glob_matches(pattern: &str, name: &str) -> bool {
    globset::Glob::new(pattern)
        .map(|glob| glob.compile_matcher().is_match(name))
        .unwrap_or(false)
}

/// The folders `capkg assemble` writes beside the sources: the release, and the release it
/// refused (`out.rejected/`, for reading the findings); git should ignore both.
pub const IGNORED_DIRS: [&str; 2] = [OUTPUT_DIR, "out.rejected"];

/// `.gitignore` with the folders of [`IGNORED_DIRS`] it does not ignore yet added, and which
/// they were; `None` when it ignores them all.
pub fn gitignore_with_output(existing: Option<&str>) -> Option<(String, Vec<&'static str>)> {
    let existing = existing.unwrap_or_default();
    let ignores = |dir: &str| {
        existing.lines().any(|line| {
            let line = line.trim().trim_start_matches('/').trim_end_matches("/*");
            line.trim_end_matches('/') == dir
        })
    };
    let missing: Vec<&'static str> = IGNORED_DIRS
        .into_iter()
        .filter(|dir| !ignores(dir))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut text = existing.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# capkg assemble's release folder (and the release it refused)\n");
    for dir in &missing {
        text.push_str(&format!("/{dir}/\n"));
    }
    Some((text, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_name_their_host_and_project() {
        let ok = |host: &str, path: &str| Ok((host.to_string(), path.to_string()));
        assert_eq!(
            split_remote("git@github.com:acme/cluster-api-provider-x.git"),
            ok("github.com", "acme/cluster-api-provider-x")
        );
        assert_eq!(
            split_remote("https://gitlab.example.com/group/sub/proj.git"),
            ok("gitlab.example.com", "group/sub/proj")
        );
        assert_eq!(
            split_remote("ssh://git@gitlab.corp:2222/g/p.git"),
            ok("gitlab.corp", "g/p")
        );
        assert!(split_remote("/srv/git/repo").is_err());
        assert_eq!(
            origin_url("[remote \"fork\"]\n\turl = a\n[remote \"origin\"]\n\turl = b\n"),
            Some("b".into())
        );
    }

    #[test]
    fn remotes_lose_their_credentials_and_queries_and_refuse_dot_segments() {
        let ok = |host: &str, path: &str| Ok((host.to_string(), path.to_string()));
        // A raw `@` in the password: the user information ends at the last `@`.
        assert_eq!(
            split_remote("https://ci:p@ss@w0rd@github.com/o/r.git"),
            ok("github.com", "o/r")
        );
        assert_eq!(
            split_remote("https://github.com/o/r.git?access_token=abc#frag"),
            ok("github.com", "o/r")
        );
        assert_eq!(
            split_remote("https://oauth2:t@gitlab.com:443/g/p?private_token=x"),
            ok("gitlab.com", "g/p")
        );
        for crafted in [
            "https://github.com/o/..",
            "https://github.com/o/.",
            "https://github.com/../r",
            "git@github.com:o//r.git",
            "https://github.com/o/%2e%2e",
            "https://github.com//r",
            "https://github.com/o",
            "https://gith ub.com/o/r",
        ] {
            let refused = split_remote(crafted);
            assert!(refused.is_err(), "{crafted}: {refused:?}");
        }
    }

    #[test]
    fn only_plain_make_targets_are_written_into_a_workflow() {
        for safe in [
            "cluster-templates",
            "generate-flavors",
            "templates/all",
            "v1.2+x",
        ] {
            assert_eq!(workflow_safe_target(safe), Ok(()), "{safe}");
        }
        for (unsafe_target, reason) in [
            ("gen${{github.token}}x$(id)", "`$`"),
            ("a b", "a space"),
            ("a\nb", "a newline"),
            ("-x", "a leading `-`"),
            ("a;b", "`;`"),
            ("", "nothing"),
        ] {
            let refused = workflow_safe_target(unsafe_target).unwrap_err();
            assert!(refused.contains(reason), "{unsafe_target:?}: {refused}");
        }
    }

    #[test]
    fn development_image_names_are_bare_or_on_loopback() {
        for development in ["controller", "localhost:5000/x/manager", "127.0.0.1:5001/m"] {
            assert!(development_name(development), "{development}");
        }
        for released in [
            "acme/manager",
            "ghcr.io/acme/manager",
            "registry.example.com:443/m",
        ] {
            assert!(!development_name(released), "{released}");
        }
    }

    #[test]
    fn repository_names_follow_the_conventions() {
        assert_eq!(
            from_repository_name("cluster-api-provider-kubevirt"),
            Some((ProviderType::Infrastructure, "kubevirt".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api-bootstrap-provider-k3s"),
            Some((ProviderType::Bootstrap, "k3s".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api-control-plane-provider-k3s"),
            Some((ProviderType::ControlPlane, "k3s".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api"),
            Some((ProviderType::Core, "cluster-api".into()))
        );
        assert_eq!(from_repository_name("my-operator"), None);
    }

    #[test]
    fn gitignore_gains_the_output_folders_once() {
        let text = |existing| gitignore_with_output(existing).map(|(text, _)| text);
        assert_eq!(
            text(Some("target")).as_deref(),
            Some(
                "target\n# capkg assemble's release folder (and the release it refused)\n/out/\n/out.rejected/\n"
            )
        );
        for ignored in [
            "out\nout.rejected",
            "/out\n/out.rejected/",
            "out/\nout.rejected/*\n",
        ] {
            assert_eq!(gitignore_with_output(Some(ignored)), None, "{ignored}");
        }
        // Only what is missing is added.
        assert_eq!(
            gitignore_with_output(Some("/out/\n")).map(|(_, added)| added),
            Some(vec!["out.rejected"])
        );
        assert!(gitignore_with_output(None).is_some());
        assert_eq!(
            IGNORED_DIRS[1],
            format!("{OUTPUT_DIR}{}", crate::release_dir::REJECTED_SUFFIX)
        );
    }
}
