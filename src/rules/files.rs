//! `files/…`: release files clusterctl would never find.

use super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};

pub(super) const RULES: &[&Rule] = &[&NAME];

pub static NAME: Rule = Rule {
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
}
