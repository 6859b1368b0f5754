//! `capkg init`: what a provider repository looks like, and the `capkg.yaml` and CI files that
//! fit it, rendered from the templates embedded in the binary (`templates/`).
//!
//! Detection reads, never runs anything: `metadata.yaml` at the root, a kustomize tree at
//! `config/default` (the components then come from `kubectl kustomize config/default`), a
//! `templates/` folder of cluster templates and ClusterClasses, the provider's type and name from
//! the `cluster.x-k8s.io/provider` label the kustomization sets, and the repository host and path
//! from `.git/config` for the publish target. Writing (and refusing to overwrite) is the caller's.

use std::path::{Path, PathBuf};

use crate::provider::{PROVIDER_LABEL, ProviderType};

const CAPKG_YAML: &str = include_str!("../../templates/capkg.yaml");
const GITHUB_WORKFLOW: &str = include_str!("../../templates/github-release.yaml");
const GITLAB_JOB: &str = include_str!("../../templates/gitlab-ci.yml");

/// Where the GitLab job is written; `.gitlab-ci.yml` includes it when the repository has none.
pub const GITLAB_JOB_PATH: &str = ".gitlab/capkg-release.gitlab-ci.yml";

/// What `init` found in a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    pub provider_type: Option<ProviderType>,
    pub provider_name: Option<String>,
    /// `config/default/kustomization.yaml` exists.
    pub kustomize: bool,
    /// `metadata.yaml` at the root.
    pub metadata: bool,
    /// Globs under `templates/` that match at least one file.
    pub templates: Vec<String>,
    /// `OWNER/NAME` of a GitHub remote.
    pub github: Option<String>,
    /// The project path of a GitLab remote.
    pub gitlab: Option<String>,
    /// The repository already has a `.gitlab-ci.yml`.
    pub gitlab_ci_exists: bool,
}

/// Looks at the repository in `dir`.
pub fn detect(dir: &Path) -> Detected {
    let mut detected = Detected {
        kustomize: dir.join("config/default/kustomization.yaml").is_file(),
        metadata: dir.join("metadata.yaml").is_file(),
        gitlab_ci_exists: dir.join(".gitlab-ci.yml").exists(),
        ..Detected::default()
    };
    if let Ok(text) = std::fs::read_to_string(dir.join("config/default/kustomization.yaml"))
        && let Some(label) = provider_label(&text)
    {
        match ProviderType::split_label(&label) {
            Some((provider_type, name)) => {
                detected.provider_type = Some(provider_type);
                detected.provider_name = Some(name.to_string());
            }
            None => detected.provider_name = Some(label),
        }
    }
    let templates = dir.join("templates");
    if let Ok(entries) = std::fs::read_dir(&templates) {
        let names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        for (prefix, glob) in [
            ("cluster-template", "templates/cluster-template*.yaml"),
            ("clusterclass-", "templates/clusterclass-*.yaml"),
        ] {
            if names
                .iter()
                .any(|n| n.starts_with(prefix) && n.ends_with(".yaml"))
            {
                detected.templates.push(glob.to_string());
            }
        }
    }
    if let Ok(config) = std::fs::read_to_string(dir.join(".git/config")) {
        for line in config.lines() {
            let Some(url) = line.trim().strip_prefix("url = ") else {
                continue;
            };
            if let Some(path) = remote_path(url, "github.com") {
                detected.github.get_or_insert(path);
            } else if let Some(path) = remote_path(url, "gitlab.") {
                detected.gitlab.get_or_insert(path);
            }
        }
    }
    detected
}

/// The value of the `cluster.x-k8s.io/provider` label a kustomization sets (`labels:` or
/// `commonLabels:`), read line by line: any line `cluster.x-k8s.io/provider: VALUE`.
fn provider_label(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix(&format!("{PROVIDER_LABEL}:"))?;
        let value = value.trim().trim_matches(['"', '\'']);
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// `owner/name` from `https://host/owner/name(.git)` or `git@host:owner/name(.git)` when the
/// host starts with `host_prefix`.
fn remote_path(url: &str, host_prefix: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("ssh://git@"))
        .or_else(|| url.strip_prefix("git@"))?;
    let (host, path) = rest.split_once(['/', ':'])?;
    if !host.starts_with(host_prefix) {
        return None;
    }
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    (path.contains('/') && !path.is_empty()).then(|| path.to_string())
}

/// The files `init` writes, with their content, relative to the repository.
pub fn render(detected: &Detected) -> Vec<(PathBuf, String)> {
    let provider_type = detected
        .provider_type
        .unwrap_or(ProviderType::Infrastructure);
    let name = detected
        .provider_name
        .clone()
        .unwrap_or_else(|| "my-provider".to_string());
    let label = provider_type.manifest_label(&name);
    let components = if detected.kustomize {
        "  command: [kubectl, kustomize, config/default]".to_string()
    } else {
        "  # command: [kubectl, kustomize, config/default]\n  files: [config]".to_string()
    };
    let templates = if detected.templates.is_empty() {
        "# templates:\n#   - templates/cluster-template*.yaml\n#   - templates/clusterclass-*.yaml"
            .to_string()
    } else {
        let mut text = "templates:".to_string();
        for glob in &detected.templates {
            text.push_str(&format!("\n  - {glob}"));
        }
        text
    };
    let mut targets = Vec::new();
    match &detected.github {
        Some(repo) => targets.push(format!("  github:\n    repo: {repo}")),
        None => targets.push("  # github:\n  #   repo: OWNER/NAME".to_string()),
    }
    match &detected.gitlab {
        Some(project) => targets.push(format!("  gitlab:\n    project: {project}")),
        None => targets.push("  # gitlab:\n  #   project: GROUP/PROJECT".to_string()),
    }
    targets.push("  # local:\n  #   repository: ../clusterctl-repository".to_string());
    let fill = |template: &str| {
        template
            .replace("{{{label}}}", &label)
            .replace("{{{name}}}", &name)
            .replace("{{{type}}}", provider_type.short_name())
            .replace("{{{components}}}", &components)
            .replace("{{{metadata}}}", "metadata.yaml")
            .replace("{{{templates}}}", &templates)
            .replace("{{{targets}}}", &targets.join("\n"))
    };
    let mut files = vec![
        (PathBuf::from(crate::config::FILE_NAME), fill(CAPKG_YAML)),
        (
            PathBuf::from(".github/workflows/capkg-release.yaml"),
            fill(GITHUB_WORKFLOW),
        ),
        (PathBuf::from(GITLAB_JOB_PATH), fill(GITLAB_JOB)),
    ];
    if !detected.gitlab_ci_exists {
        files.push((
            PathBuf::from(".gitlab-ci.yml"),
            format!("include:\n  - local: {GITLAB_JOB_PATH}\n"),
        ));
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_name_their_project() {
        assert_eq!(
            remote_path(
                "git@github.com:acme/cluster-api-provider-x.git",
                "github.com"
            ),
            Some("acme/cluster-api-provider-x".into())
        );
        assert_eq!(
            remote_path("https://gitlab.example.com/group/sub/proj.git", "gitlab."),
            Some("group/sub/proj".into())
        );
        assert_eq!(remote_path("https://example.com/a/b", "github.com"), None);
    }

    #[test]
    fn rendered_configuration_loads() {
        let detected = Detected {
            provider_type: Some(ProviderType::Infrastructure),
            provider_name: Some("acme".into()),
            kustomize: true,
            metadata: true,
            templates: vec!["templates/cluster-template*.yaml".into()],
            github: Some("acme/capa".into()),
            ..Detected::default()
        };
        let files = render(&detected);
        let (_, text) = &files[0];
        let config =
            crate::config::Config::parse(Path::new("capkg.yaml"), text, PathBuf::from("."))
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(config.providers[0].name.as_deref(), Some("acme"));
        assert_eq!(config.templates, ["templates/cluster-template*.yaml"]);
        assert_eq!(
            config.targets.github.map(|g| g.repo).as_deref(),
            Some("acme/capa")
        );
        assert!(files[1].1.contains("infrastructure-acme"));
        assert!(files[1].1.contains("${{ secrets.GITHUB_TOKEN }}"));
        assert_eq!(files.len(), 4);
    }
}
