//! The versions of the tools a components command runs, as the tools report them: what the
//! statement's `internalParameters.tools` records. capkg asks only the tools it knows the version
//! flags of (kubectl, which carries kustomize, and kustomize); a tool that cannot answer is left
//! out rather than guessed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The versions of the known tools among `programs` (each command's first word), run in `root`
/// as the components commands are.
pub(crate) fn versions<'a>(
    programs: impl IntoIterator<Item = &'a str>,
    root: &Path,
) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for program in programs {
        let name = Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(program);
        match name {
            "kubectl" if !found.contains_key("kubectl") => {
                let answer = run(program, &["version", "--client", "-o", "json"], root);
                if let Some((kubectl, kustomize)) = answer.as_deref().and_then(kubectl_versions) {
                    found.insert("kubectl".to_string(), kubectl);
                    if let Some(kustomize) = kustomize {
                        found.entry("kustomize".to_string()).or_insert(kustomize);
                    }
                }
            }
            "kustomize" => {
                if let Some(version) = run(program, &["version"], root)
                    .as_deref()
                    .and_then(kustomize_version)
                {
                    found.insert("kustomize".to_string(), version);
                }
            }
            _ => {}
        }
    }
    found
}

fn run(program: &str, args: &[&str], root: &Path) -> Option<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `kubectl version --client -o json`: `clientVersion.gitVersion` and `kustomizeVersion`.
fn kubectl_versions(json: &str) -> Option<(String, Option<String>)> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let kubectl = value["clientVersion"]["gitVersion"].as_str()?.to_string();
    let kustomize = value["kustomizeVersion"].as_str().map(str::to_string);
    Some((kubectl, kustomize))
}

/// `kustomize version`: `v5.4.2`, or the older `{Version:kustomize/v4.5.7 …}`.
fn kustomize_version(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let version = match line.split_once("kustomize/") {
        Some((_, rest)) => rest.split_whitespace().next()?,
        None => line,
    };
    (!version.is_empty() && version.len() < 64).then(|| version.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_versions_are_read_from_their_own_answers() {
        let json = r#"{"clientVersion":{"gitVersion":"v1.31.0"},"kustomizeVersion":"v5.4.2"}"#;
        assert_eq!(
            kubectl_versions(json),
            Some(("v1.31.0".to_string(), Some("v5.4.2".to_string())))
        );
        assert_eq!(kustomize_version("v5.4.2\n").as_deref(), Some("v5.4.2"));
        assert_eq!(
            kustomize_version("{Version:kustomize/v4.5.7 GitCommit:abc}").as_deref(),
            Some("v4.5.7")
        );
        assert_eq!(kubectl_versions("not json"), None);
    }

    #[test]
    fn unknown_or_missing_tools_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let found = versions(["sh", "/nonexistent/kustomize"], dir.path());
        assert!(found.is_empty(), "{found:?}");
    }
}
