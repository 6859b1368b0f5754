//! `files/…`: release files clusterctl would never find.

use super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};

pub(super) const RULES: &[&Rule] = &[&NAME, &UNFETCHABLE_NAME];

pub(super) static NAME: Rule = Rule {
    id: "files/name",
    severity: Severity::Warning,
    summary: "a file is named almost, but not exactly, like a release file",
    explanation: "clusterctl fetches release files by exact name: `metadata.yaml`, \
        `<type>-components.yaml`, `cluster-template.yaml`, `cluster-template-<flavor>.yaml` and \
        `clusterclass-<name>.yaml`. A `.yml` extension, an underscore or a missing `s` means the \
        file is published but never used; releases have shipped flavors users could not find.",
    help: "rename the file to the name shown",
    reference: Reference {
        title: "clusterctl provider contract, \"Provider repositories\" and the naming conventions of each file",
        url: CLUSTERCTL_CONTRACT,
    },
    check: |cx, findings| {
        for near in &cx.release.near_misses {
            findings
                .on_path(
                    &near.path,
                    format!(
                        "clusterctl will never fetch `{}`; did you mean `{}`?",
                        near.path
                            .file_name()
                            .and_then(|n| n.to_str())
                            .unwrap_or("?"),
                        near.suggestion
                    ),
                )
                .with_help(format!("rename it to `{}`", near.suggestion));
        }
    },
};

pub(super) static UNFETCHABLE_NAME: Rule = Rule {
    id: "files/unfetchable-name",
    severity: Severity::Error,
    summary: "a release file name or flavor holds characters clusterctl cannot fetch",
    explanation: "clusterctl builds the URL of a release file from its name (`cluster-template-{flavor}.yaml` \
        for `--flavor`), and `checksums.txt` lists one name per line. A `#`, `?`, `%`, `/`, a space, a \
        newline or another control character changes the URL clusterctl requests or injects a line into \
        `checksums.txt`; and GitHub renames an uploaded asset whose name holds a space or another \
        special character (a space becomes `.`), so the file clusterctl asks for is not there. capkg \
        accepts ASCII letters, digits, `-`, `.` and `_`, starting with a letter or a \
        digit (Kubernetes object names plus `.` and `_`).",
    help: "rename the file (the flavor) using ASCII letters, digits, `-`, `.` and `_`",
    reference: Reference {
        title: "clusterctl provider contract, \"Provider repositories\" and the naming conventions of each file",
        url: CLUSTERCTL_CONTRACT,
    },
    check: |cx, findings| {
        for file in &cx.release.files {
            let name = file
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Err(bad) = crate::files::check_release_name(&name) {
                findings.on_file(file, bad.to_string());
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::NearMiss;
    use crate::rules::testing::{check, release};

    #[test]
    fn near_misses_are_reported() {
        let mut rel = release(&[("metadata.yaml", "kind: Metadata\n")]);
        assert!(check(&NAME, &rel, &Default::default()).is_empty());
        rel.near_misses.push(NearMiss {
            path: "rel/cluster-template.yml".into(),
            suggestion: "cluster-template.yaml".into(),
        });
        let found = check(&NAME, &rel, &Default::default());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "files/name");
        assert_eq!(found[0].file_name(), Some("rel/cluster-template.yml"));
        assert!(found[0].message.contains("`cluster-template.yaml`"));
    }

    #[test]
    fn names_clusterctl_cannot_fetch_are_errors() {
        let rel = release(&[
            ("cluster-template-a#b.yaml", "kind: Cluster\n"),
            ("cluster-template-ok_1.2.yaml", "kind: Cluster\n"),
        ]);
        let found = check(&UNFETCHABLE_NAME, &rel, &Default::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("`#`"), "{}", found[0].message);
    }
}
