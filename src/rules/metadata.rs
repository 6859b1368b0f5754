//! `metadata/…`: `metadata.yaml`, which tells clusterctl which release series exist and which
//! contract each implements.
//!
//! clusterctl decodes the file strictly by type (integers must be integers), validates
//! `apiVersion`, `kind` and a non-empty `releaseSeries`, then needs the series of the version
//! being installed, and a contract it supports, for `init`, `upgrade` and "latest" resolution.

use super::{CLUSTERCTL_CONTRACT, Findings, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

pub(super) const RULES: &[&Rule] = &[
    &MISSING,
    &API_VERSION,
    &KIND,
    &RELEASE_SERIES,
    &CONTRACT,
    &DUPLICATE_SERIES,
    &VERSION_SERIES,
    &SERIES_ORDER,
    &TAG_SERIES,
];

/// The id of [`TAG_SERIES`], for the check that reports it (`release::tags`).
pub const TAG_SERIES_ID: &str = "metadata/tag-series";

pub(super) static TAG_SERIES: Rule = Rule {
    id: TAG_SERIES_ID,
    severity: Severity::Error,
    summary: "a git tag of a supported series has no release series in `metadata.yaml`",
    explanation: "`clusterctl upgrade plan` reads the `metadata.yaml` of the newest release and \
        fails for every version newer than the installed one that has no release series there \
        (`version … does not match any release series`). So the metadata being released needs a \
        series for every semver git tag from the oldest series current clusterctl supports \
        (contract `v1beta1` or `v1beta2`) up to the version released; older tags do not count, \
        and tags of a newer series than a patch being released are only noted. The tags are \
        those of the git checkout, so `capkg assemble` and `capkg release` (its dry run too) \
        check them there; `capkg lint` of a folder has no tags and does not.",
    help: "add the release series the message names to metadata.yaml (`- major: …`, `minor: …`, \
        `contract: …`); a tag that was never a release (a mistake, deleted upstream) can be \
        waived with its reason",
    reference: METADATA,
    // The tags come from git, not from the release's files: `release::tags` reports it.
    check: |_, _| {},
};

const METADATA: Reference = Reference {
    title: "clusterctl provider contract, \"Metadata YAML\"",
    url: CLUSTERCTL_CONTRACT,
};

pub(super) const API_VERSION_VALUE: &str = "clusterctl.cluster.x-k8s.io/v1alpha3";

/// Contracts current clusterctl installs.
pub const SUPPORTED_CONTRACTS: [&str; 2] = ["v1beta1", "v1beta2"];

/// Contracts Cluster API used before; valid history in a `metadata.yaml`, not installable today.
pub(super) const HISTORIC_CONTRACTS: [&str; 4] = ["v1alpha1", "v1alpha2", "v1alpha3", "v1alpha4"];

/// One `releaseSeries` entry as far as it could be read.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    pub node: &'a Node,
    pub major: Option<i128>,
    pub minor: Option<i128>,
    pub contract: Option<&'a str>,
}

impl Series<'_> {
    pub fn major_minor(&self) -> Option<(i128, i128)> {
        Some((self.major?, self.minor?))
    }
}

/// The root object of a `metadata.yaml`.
fn root(file: &ReleaseFile) -> Option<&Node> {
    file.yaml.roots().next()
}

fn integer(node: Option<&Node>) -> Option<i128> {
    match node?.resolve()? {
        Resolved::Int(i) => Some(i),
        _ => None,
    }
}

/// The readable entries of `releaseSeries`.
pub fn release_series(file: &ReleaseFile) -> Vec<Series<'_>> {
    let Some(series) = root(file).and_then(|r| r.get("releaseSeries")) else {
        return Vec::new();
    };
    series
        .items()
        .iter()
        .map(|node| Series {
            node,
            major: integer(node.get("major")),
            minor: integer(node.get("minor")),
            contract: node.get("contract").and_then(Node::as_str),
        })
        .collect()
}

/// The series clusterctl picks for a version: the first entry with its major.minor.
fn series_for<'s, 'a>(series: &'s [Series<'a>], major: u64, minor: u64) -> Option<&'s Series<'a>> {
    series
        .iter()
        .find(|s| s.major_minor() == Some((major as i128, minor as i128)))
}

fn list_series(series: &[Series<'_>]) -> String {
    let listed: Vec<String> = series
        .iter()
        .filter_map(|s| s.major_minor())
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect();
    if listed.is_empty() {
        "none".to_string()
    } else {
        listed.join(", ")
    }
}

pub(super) static MISSING: Rule = Rule {
    id: "metadata/missing",
    severity: Severity::Error,
    summary: "a release with a components YAML has no `metadata.yaml`",
    explanation: "clusterctl reads `metadata.yaml` from every release it installs or considers as \
        \"latest\": without it `clusterctl init` fails, and on GitHub a release lacking it aborts \
        the search for the latest version. Releases of CAPI, CAPA, CAPZ, CAPV and k0smotron have \
        shipped without it.",
    help: "add `metadata.yaml` beside the components YAML",
    reference: METADATA,
    check: |cx, findings| {
        if cx.release.metadata().is_none() && cx.release.components().next().is_some() {
            findings.on_path(
                &cx.release.dir.join("metadata.yaml"),
                "no `metadata.yaml` beside the components YAML",
            );
        }
    },
};

pub(super) static API_VERSION: Rule = Rule {
    id: "metadata/api-version",
    severity: Severity::Error,
    summary: "`metadata.yaml` has the wrong or no `apiVersion`",
    explanation: "clusterctl v1.11 and later reject metadata whose `apiVersion` is not \
        `clusterctl.cluster.x-k8s.io/v1alpha3`; other versions of the group are not registered \
        and fail to decode.",
    help: "set `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3`",
    reference: METADATA,
    check: |cx, findings| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let Some(root) = root(file) else { return };
        match root.get("apiVersion") {
            Some(node) if node.as_str() == Some(API_VERSION_VALUE) => {}
            Some(node) => {
                findings.at_node(
                    file,
                    node,
                    format!(
                        "`apiVersion: {}`; clusterctl expects `{API_VERSION_VALUE}`",
                        node.scalar_text().unwrap_or("?")
                    ),
                );
            }
            None => {
                findings.at_node(
                    file,
                    root,
                    format!("no `apiVersion`; clusterctl expects `{API_VERSION_VALUE}`"),
                );
            }
        }
    },
};

pub(super) static KIND: Rule = Rule {
    id: "metadata/kind",
    severity: Severity::Error,
    summary: "`metadata.yaml` lacks `kind: Metadata`",
    explanation: "The contract requires `kind: Metadata`. clusterctl v1.11.0 rejected files \
        without it and broke installs of CAPZ, CAPA, CAPH and OCI releases; later versions accept \
        an empty kind again, but users still run v1.11.0, and any other kind fails to decode.",
    help: "add `kind: Metadata`",
    reference: METADATA,
    check: |cx, findings| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let Some(root) = root(file) else { return };
        match root.get("kind") {
            Some(node) if node.as_str() == Some("Metadata") => {}
            Some(node) => {
                findings.at_node(
                    file,
                    node,
                    format!(
                        "`kind: {}`; clusterctl expects `Metadata`",
                        node.scalar_text().unwrap_or("?")
                    ),
                );
            }
            None => {
                let anchor = root.get("apiVersion").unwrap_or(root);
                findings.at_node(
                    file,
                    anchor,
                    "no `kind: Metadata` (clusterctl v1.11.0 rejects the file)",
                );
            }
        }
    },
};

pub(super) static RELEASE_SERIES: Rule = Rule {
    id: "metadata/release-series",
    severity: Severity::Error,
    summary: "`releaseSeries` is missing, empty or has entries clusterctl cannot decode",
    explanation: "clusterctl refuses metadata with no release series (`releaseSeries is empty in \
        metadata.yaml`), and decodes each entry strictly: `major` and `minor` must be integers \
        (`\"1\"` fails) and field names are case-sensitive (`releaseseries` is ignored, leaving \
        the list empty).",
    help: "list each release series as `- major: 1`, `minor: 2`, `contract: v1beta2`",
    reference: METADATA,
    check: |cx, findings| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let Some(root) = root(file) else { return };
        let Some(series) = root.get("releaseSeries") else {
            let near = root
                .as_mapping()
                .into_iter()
                .flat_map(|m| m.iter())
                .find(|(key, _, _)| key.eq_ignore_ascii_case("releaseSeries"));
            match near {
                Some((key, node, _)) => {
                    findings.at_node(
                        file,
                        node,
                        format!("`{key}` is not `releaseSeries`: field names are case-sensitive, so clusterctl sees no release series"),
                    );
                }
                None => {
                    findings.at_node(
                        file,
                        root,
                        "no `releaseSeries`: clusterctl refuses metadata without release series",
                    );
                }
            }
            return;
        };
        let Some(items) = series.as_sequence() else {
            findings.at_node(file, series, "`releaseSeries` must be a list");
            return;
        };
        if items.is_empty() {
            findings.at_node(
                file,
                series,
                "`releaseSeries` is empty: clusterctl refuses it",
            );
        }
        for item in items {
            if item.as_mapping().is_none() {
                findings.at_node(
                    file,
                    item,
                    "a release series must be a mapping with `major`, `minor` and `contract`",
                );
                continue;
            }
            for field in ["major", "minor"] {
                match item.get(field) {
                    None => {
                        findings.at_node(file, item, format!("release series without `{field}`"));
                    }
                    Some(node) => match node.resolve() {
                        Some(Resolved::Int(i)) if (0..=i32::MAX as i128).contains(&i) => {}
                        _ => {
                            findings.at_node(
                                file,
                                node,
                                format!(
                                    "`{field}: {}` is not a non-negative integer; clusterctl fails to decode it",
                                    node.scalar_text().unwrap_or("…")
                                ),
                            );
                        }
                    },
                }
            }
        }
    },
};

pub(super) static CONTRACT: Rule = Rule {
    id: "metadata/contract",
    severity: Severity::Error,
    summary: "a release series has no contract, or one current clusterctl cannot install",
    explanation: "Each series names the Cluster API contract it implements. Current clusterctl \
        installs only `v1beta1` and `v1beta2` providers. Older contracts (`v1alpha3`, `v1alpha4`) \
        are normal history for old series, but the series being released (or, without \
        `--version`, the newest one) must use a supported contract; any other value is a typo.",
    help: "set `contract: v1beta2` (or `v1beta1`) on the current series",
    reference: METADATA,
    check: |cx, findings| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let series = release_series(file);
        let current = match cx.version {
            Some(v) => series_for(&series, v.major(), v.minor()),
            None => series
                .iter()
                .filter(|s| s.major_minor().is_some())
                .max_by_key(|s| s.major_minor()),
        };
        for entry in &series {
            let is_current = current.is_some_and(|c| std::ptr::eq(c.node, entry.node));
            let name = entry
                .major_minor()
                .map_or("a release series".to_string(), |(a, b)| {
                    format!("series {a}.{b}")
                });
            let Some(contract) = entry.contract else {
                let node = entry.node.get("contract").unwrap_or(entry.node);
                findings.at_node(file, node, format!("{name} has no `contract`"));
                continue;
            };
            let node = entry.node.get("contract").unwrap_or(entry.node);
            if SUPPORTED_CONTRACTS.contains(&contract) {
                continue;
            }
            if HISTORIC_CONTRACTS.contains(&contract) {
                if is_current {
                    let which = if cx.version.is_some() {
                        "the series being released"
                    } else {
                        "the newest series"
                    };
                    findings
                        .at_node(
                            file,
                            node,
                            format!(
                                "{name} ({which}) implements contract `{contract}`; current clusterctl installs only {}",
                                SUPPORTED_CONTRACTS.join(" and ")
                            ),
                        )
                        .with_severity(Severity::Warning);
                }
                continue;
            }
            findings.at_node(
                file,
                node,
                format!(
                    "{name} names contract `{contract}`, which Cluster API does not define (expected {})",
                    SUPPORTED_CONTRACTS.join(" or ")
                ),
            );
        }
    },
};

pub(super) static DUPLICATE_SERIES: Rule = Rule {
    id: "metadata/duplicate-series",
    severity: Severity::Error,
    summary: "two release series have the same major.minor",
    explanation: "clusterctl uses the first series whose major.minor matches a version, so a \
        second entry is silently ignored, usually with the contract the maintainer meant.",
    help: "keep one entry per major.minor",
    reference: METADATA,
    check: |cx, findings| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let series = release_series(file);
        for (i, entry) in series.iter().enumerate() {
            let Some(key) = entry.major_minor() else {
                continue;
            };
            if let Some(first) = series[..i].iter().find(|s| s.major_minor() == Some(key)) {
                findings
                    .at_node(
                        file,
                        entry.node,
                        format!(
                            "series {}.{} is listed twice; clusterctl uses the first",
                            key.0, key.1
                        ),
                    )
                    .with_label(first.node.span(), "first listed here");
            }
        }
    },
};

pub(super) static VERSION_SERIES: Rule = Rule {
    id: "metadata/version-series",
    severity: Severity::Error,
    summary: "the version being released has no release series",
    explanation: "`clusterctl init` and `upgrade` look up the series of the version they install \
        by major.minor and fail with `version … does not match any release series` when it is \
        missing; a pre-release tag without its series breaks `clusterctl upgrade plan` for every \
        user. This is the most common release mistake (CAPV v1.1.0, CAPM3 v1.2.0-rc.0, \
        k0smotron v1.6.0).",
    help: "add a series for the version's major.minor to `metadata.yaml` before tagging",
    reference: METADATA,
    check: |cx, findings| {
        let Some(version) = cx.version else { return };
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let Some(root) = root(file) else { return };
        let series = release_series(file);
        if series_for(&series, version.major(), version.minor()).is_some() {
            return;
        }
        let anchor = root
            .as_mapping()
            .and_then(|m| m.entry("releaseSeries"))
            .map_or(root, |(key, _)| key);
        findings
            .at_node(
                file,
                anchor,
                format!(
                    "version {version} has no release series {}.{} (series listed: {})",
                    version.major(),
                    version.minor(),
                    list_series(&series)
                ),
            )
            .with_help(format!(
                "add `- major: {}`, `minor: {}`, `contract: v1beta2` to `releaseSeries`",
                version.major(),
                version.minor()
            ));
    },
};

pub(super) static SERIES_ORDER: Rule = Rule {
    id: "metadata/series-order",
    severity: Severity::Info,
    summary: "release series are listed in no consistent order",
    explanation: "Order does not matter to clusterctl, but a list sorted one way (Cluster API \
        lists newest first, many providers oldest first) makes a missing or duplicated series easy \
        to spot; a list that changes direction usually means a series was pasted in the wrong place.",
    help: "sort the series, newest first or oldest first",
    reference: METADATA,
    check: |cx, findings: &mut Findings<'_>| {
        let Some(file) = cx.release.metadata() else {
            return;
        };
        let series = release_series(file);
        let keys: Vec<(&Series<'_>, (i128, i128))> = series
            .iter()
            .filter_map(|s| Some((s, s.major_minor()?)))
            .collect();
        let ascending = keys.windows(2).all(|w| w[0].1 <= w[1].1);
        let descending = keys.windows(2).all(|w| w[0].1 >= w[1].1);
        if ascending || descending {
            return;
        }
        // The first entry that breaks the direction the list starts with.
        let starts_ascending = keys
            .windows(2)
            .find(|w| w[0].1 != w[1].1)
            .is_some_and(|w| w[0].1 < w[1].1);
        if let Some(pair) = keys.windows(2).find(|w| {
            if starts_ascending {
                w[1].1 < w[0].1
            } else {
                w[1].1 > w[0].1
            }
        }) {
            findings.at_node(
                file,
                pair[1].0.node,
                format!(
                    "series {}.{} comes after {}.{}, against the order of the rest of the list",
                    pair[1].1.0, pair[1].1.1, pair[0].1.0, pair[0].1.1
                ),
            );
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check, check_files, release, with_version};

    const GOOD: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 4\n  contract: v1alpha4\n- major: 1\n  minor: 0\n  contract: v1beta1\n- major: 1\n  minor: 1\n  contract: v1beta2\n";

    fn meta(text: &str) -> Vec<(&'static str, String)> {
        vec![("metadata.yaml", text.to_string())]
    }

    fn run(rule: &'static Rule, text: &str) -> Vec<crate::rules::Diagnostic> {
        let files = meta(text);
        let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
        check_files(rule, &refs)
    }

    #[test]
    fn good_metadata_passes_every_rule() {
        for rule in RULES {
            assert!(run(rule, GOOD).is_empty(), "{}", rule.id);
        }
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "Windows gap: paths shown and matched with backslashes"
    )]
    fn missing() {
        let components = "kind: Namespace\nmetadata:\n  name: a\n";
        let found = check_files(&MISSING, &[("core-components.yaml", components)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].file_name(), Some("rel/metadata.yaml"));
        assert!(
            check_files(
                &MISSING,
                &[
                    ("core-components.yaml", components),
                    ("metadata.yaml", GOOD)
                ]
            )
            .is_empty()
        );
        assert!(check_files(&MISSING, &[("cluster-template.yaml", "kind: Cluster\n")]).is_empty());
    }

    #[test]
    fn api_version() {
        let found = run(
            &API_VERSION,
            &GOOD.replace("v1alpha3\nkind", "v1alpha4\nkind"),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 13));
        assert!(
            found[0]
                .message
                .contains("clusterctl.cluster.x-k8s.io/v1alpha4")
        );
    }

    #[test]
    fn kind() {
        let found = run(&KIND, &GOOD.replace("kind: Metadata\n", ""));
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 13));
        assert!(found[0].message.contains("kind: Metadata"));
        let found = run(&KIND, &GOOD.replace("kind: Metadata", "kind: Meta"));
        assert_eq!(at(&found[0]), (2, 7));
    }

    #[test]
    fn release_series() {
        let found = run(
            &RELEASE_SERIES,
            "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseseries:\n- major: 1\n",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (3, 1));
        assert!(found[0].message.contains("case-sensitive"));
        let found = run(&RELEASE_SERIES, "kind: Metadata\nreleaseSeries: []\n");
        assert!(found[0].message.contains("empty"));
        let found = run(
            &RELEASE_SERIES,
            &GOOD.replace("minor: 1\n", "minor: \"1\"\n"),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (11, 10));
        assert!(found[0].message.contains("`minor: 1`"));
    }

    #[test]
    fn contract() {
        let found = run(
            &CONTRACT,
            &GOOD.replace("contract: v1beta2", "contract: v1beta3"),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (12, 13));
        assert!(found[0].message.contains("`v1beta3`"));
        assert_eq!(found[0].severity, Severity::Error);
        // The newest series on an old contract is a warning; old series on old contracts are history.
        let old = GOOD.replace("contract: v1beta2", "contract: v1alpha4");
        let found = run(&CONTRACT, &old);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("series 1.1"));
        // With --version, the released series decides.
        let found = check(
            &CONTRACT,
            &release(&[("metadata.yaml", &old)]),
            &with_version("v1.0.3"),
        );
        assert!(found.is_empty());
        let found = run(&CONTRACT, &GOOD.replace("  contract: v1beta1\n", ""));
        assert!(found[0].message.contains("series 1.0 has no `contract`"));
    }

    #[test]
    fn duplicate_series() {
        let text = format!("{GOOD}- major: 1\n  minor: 0\n  contract: v1beta2\n");
        let found = run(&DUPLICATE_SERIES, &text);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (13, 3));
        assert!(found[0].message.contains("1.0"));
        assert_eq!(found[0].labels.len(), 1);
    }

    #[test]
    fn version_series() {
        let rel = release(&[("metadata.yaml", GOOD)]);
        assert!(check(&VERSION_SERIES, &rel, &with_version("v1.1.0-rc.0")).is_empty());
        let found = check(&VERSION_SERIES, &rel, &with_version("v1.2.0"));
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (3, 1));
        assert!(found[0].message.contains("v1.2.0"));
        assert!(found[0].message.contains("0.4, 1.0, 1.1"));
        assert!(found[0].help.contains("minor: 2"));
    }

    #[test]
    fn series_order() {
        let entry = |minor: u32| format!("- major: 1\n  minor: {minor}\n  contract: v1beta2\n");
        let descending = format!("kind: Metadata\nreleaseSeries:\n{}{}", entry(1), entry(0));
        assert!(run(&SERIES_ORDER, &descending).is_empty());
        let mixed = format!(
            "kind: Metadata\nreleaseSeries:\n{}{}{}",
            entry(0),
            entry(2),
            entry(1)
        );
        let found = run(&SERIES_ORDER, &mixed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Info);
        assert_eq!(at(&found[0]), (9, 3));
        assert!(found[0].message.contains("1.1 comes after 1.2"));
    }
}
