//! Flavors, template variables and a template's ClusterClass: a pair of releases that fires each
//! rule and a near pair that does not. The files are CAPD's (`testdata/diff/templates`).

use crate::diff::{ChangeKind, DiffReport, compare};
use crate::files::{self, Release};
use crate::provider::{FileRole, ProviderType};
use crate::rules::Options;
use crate::verify::ReadRelease;
use crate::version::Version;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta2
- major: 1
  minor: 1
  contract: v1beta2
";

/// CAPD v1.14.0's development flavor and quick-start ClusterClass.
pub(crate) const TEMPLATE: &str = include_str!(
    "../../../testdata/diff/templates/infrastructure-docker/v1.14.0/cluster-template-development.yaml"
);
pub(crate) const CLASS: &str = include_str!(
    "../../../testdata/diff/templates/infrastructure-docker/v1.14.0/clusterclass-quick-start.yaml"
);

/// An infrastructure provider's release of `version` holding `metadata.yaml` and these files.
pub(crate) fn read(
    version: &str,
    files: &[(&str, &str)],
    provider_type: ProviderType,
) -> ReadRelease {
    let mut loaded = vec![files::load_text(
        "metadata.yaml",
        METADATA.to_string(),
        FileRole::Metadata,
    )];
    for (name, text) in files {
        let role = FileRole::from_file_name(name).expect("a release file name");
        loaded.push(files::load_text(name, text.to_string(), role));
    }
    ReadRelease {
        release: Release {
            dir: format!("infrastructure-test/{version}").into(),
            files: loaded,
            near_misses: Vec::new(),
        },
        options: Options {
            provider_type: Some(provider_type),
            provider_name: Some("test".into()),
            version: Version::parse(version).ok(),
        },
    }
}

/// `old` as v1.0.0 against `new` as v1.1.0.
pub(crate) fn report(old: &[(&str, &str)], new: &[(&str, &str)]) -> DiffReport {
    compare(
        &[read("v1.0.0", old, ProviderType::Infrastructure)],
        &[read("v1.1.0", new, ProviderType::Infrastructure)],
    )
}

/// Each finding as `rule: message`.
pub(crate) fn findings(report: &DiffReport) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.rule, d.message))
        .collect()
}

/// Each change as the human renderer writes it, without the provider.
pub(crate) fn changes(report: &DiffReport) -> Vec<String> {
    report
        .changes
        .iter()
        .map(|c| {
            let mark = match c.change {
                ChangeKind::Added => "+",
                ChangeKind::Removed => "-",
                ChangeKind::Changed => "~",
            };
            match (&c.old, &c.new) {
                (Some(old), Some(new)) => format!("{mark} {}: {old} -> {new}", c.subject),
                (None, Some(new)) => format!("{mark} {}: {new}", c.subject),
                (Some(old), None) => format!("{mark} {} (was {old})", c.subject),
                (None, None) => format!("{mark} {}", c.subject),
            }
        })
        .collect()
}

/// `text` with `from` replaced once; fails when `from` is not there exactly once.
pub(crate) fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    text.replacen(from, to, 1)
}

#[test]
fn the_same_templates_have_no_changes() {
    let files = [
        ("cluster-template-development.yaml", TEMPLATE),
        ("clusterclass-quick-start.yaml", CLASS),
    ];
    let r = report(&files, &files);
    assert!(r.changes.is_empty(), "{:?}", r.changes);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn a_removed_flavor_warns_on_the_missing_file_and_an_added_one_is_listed() {
    let r = report(
        &[
            ("cluster-template.yaml", TEMPLATE),
            ("cluster-template-development.yaml", TEMPLATE),
        ],
        &[
            ("cluster-template.yaml", TEMPLATE),
            ("cluster-template-topology.yaml", TEMPLATE),
        ],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/flavor-removed: flavor `development` is gone: `clusterctl generate cluster --flavor development` fails with this release (`cluster-template-development.yaml` is not in it)"
        ]
    );
    assert_eq!(
        r.diagnostics[0].file_name(),
        Some("infrastructure-test/v1.1.0/cluster-template-development.yaml")
    );
    assert_eq!(
        changes(&r),
        [
            "- flavor development (cluster-template-development.yaml)",
            "+ flavor topology (cluster-template-topology.yaml)"
        ]
    );
    assert!(r.ok, "a warning does not break the upgrade");

    let r = report(&[("cluster-template.yaml", TEMPLATE)], &[]);
    assert_eq!(
        findings(&r),
        [
            "upgrade/flavor-removed: the default flavor is gone: `clusterctl generate cluster` without `--flavor` fails with this release (`cluster-template.yaml` is not in it)"
        ]
    );
}

#[test]
fn a_new_variable_without_a_default_is_an_error_at_its_first_use() {
    let new = edit(
        TEMPLATE,
        "    serviceDomain: ${SERVICE_DOMAIN:=\"cluster.local\"}\n",
        "    serviceDomain: ${SERVICE_DOMAIN:=\"cluster.local\"}\n    apiServerPort: ${API_SERVER_PORT}\n",
    );
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &new)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/template-variable-required: `cluster-template.yaml` now needs `API_SERVER_PORT` (no default), which v1.0.0's did not use: `clusterctl generate cluster` fails with \"value for variables [API_SERVER_PORT] is not set\" until users set it"
        ]
    );
    let at = r.diagnostics[0].position().expect("a position");
    assert_eq!((at.line, at.column), (13, 20));
    assert_eq!(
        changes(&r),
        ["+ cluster-template.yaml variable API_SERVER_PORT: required"]
    );
    assert!(!r.ok);

    // With a default it is listed only.
    let defaulted = new.replace("${API_SERVER_PORT}", "${API_SERVER_PORT:=6443}");
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &defaulted)],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", findings(&r));
    assert_eq!(
        changes(&r),
        ["+ cluster-template.yaml variable API_SERVER_PORT: default \"6443\""]
    );
}

#[test]
fn a_lost_default_is_an_error_and_a_gained_or_changed_one_is_listed() {
    let lost = edit(
        TEMPLATE,
        "${SERVICE_DOMAIN:=\"cluster.local\"}",
        "${SERVICE_DOMAIN}",
    );
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &lost)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/template-variable-required: `cluster-template.yaml` now needs `SERVICE_DOMAIN` (no default), which had a default \"cluster.local\" in v1.0.0: `clusterctl generate cluster` fails with \"value for variables [SERVICE_DOMAIN] is not set\" until users set it"
        ]
    );
    assert_eq!(
        changes(&r),
        ["~ cluster-template.yaml variable SERVICE_DOMAIN: default \"cluster.local\" -> required"]
    );
    // The other way round, and a changed default: listed, not findings.
    let r = report(
        &[("cluster-template.yaml", &lost)],
        &[("cluster-template.yaml", TEMPLATE)],
    );
    assert!(r.diagnostics.is_empty());
    assert_eq!(
        changes(&r),
        ["~ cluster-template.yaml variable SERVICE_DOMAIN: required -> default \"cluster.local\""]
    );
    let changed = edit(TEMPLATE, "\"cluster.local\"", "\"cluster.example\"");
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &changed)],
    );
    assert!(r.diagnostics.is_empty());
    assert_eq!(changes(&r).len(), 1, "{:?}", changes(&r));
}

#[test]
fn variables_generate_cluster_sets_and_other_spellings_are_not_new_needs() {
    // `generate cluster` always sets the machine counts, the name and the namespace.
    let new = edit(
        TEMPLATE,
        "    serviceDomain: ${SERVICE_DOMAIN:=\"cluster.local\"}\n",
        "    serviceDomain: ${SERVICE_DOMAIN:=\"cluster.local\"}\n    name: ${CLUSTER_NAME}-${NAMESPACE}\n",
    );
    let without = TEMPLATE
        .replace("${CONTROL_PLANE_MACHINE_COUNT}", "1")
        .replace("${WORKER_MACHINE_COUNT}", "1")
        .replace("${CLUSTER_NAME}", "c")
        .replace("${NAMESPACE}", "ns");
    let r = report(
        &[("cluster-template.yaml", &without)],
        &[("cluster-template.yaml", &new)],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", findings(&r));
    assert_eq!(changes(&r).len(), 4, "{:?}", changes(&r));
    // clusterctl looks `${kubernetes_version}` up as KUBERNETES_VERSION.
    let lower = edit(TEMPLATE, "${KUBERNETES_VERSION}", "${kubernetes_version}");
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &lower)],
    );
    assert!(
        r.changes.is_empty() && r.diagnostics.is_empty(),
        "{:?}",
        changes(&r)
    );
}

#[test]
fn a_clusterclass_file_needing_a_new_variable_is_an_error_too() {
    let new = edit(
        CLASS,
        "  name: quick-start-cluster\nspec:",
        "  name: quick-start-cluster\n  namespace: ${CLASS_NAMESPACE}\nspec:",
    );
    let r = report(
        &[("clusterclass-quick-start.yaml", CLASS)],
        &[("clusterclass-quick-start.yaml", &new)],
    );
    assert_eq!(r.diagnostics.len(), 1, "{:?}", findings(&r));
    assert_eq!(r.diagnostics[0].rule, "upgrade/template-variable-required");
}

#[test]
fn a_file_that_does_not_parse_is_said_not_compared() {
    let broken = edit(TEMPLATE, "${KUBERNETES_VERSION}", "${KUBERNETES_VERSION");
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &broken)],
    );
    assert_eq!(
        changes(&r),
        [
            "~ cluster-template.yaml variables: not compared: a file does not parse (missing closing brace)"
        ]
    );
}

#[test]
fn a_cluster_that_uses_another_class_warns_in_both_shapes() {
    let renamed = edit(
        TEMPLATE,
        "      name: quick-start\n",
        "      name: quick-start-v2\n",
    );
    let r = report(
        &[("cluster-template.yaml", TEMPLATE)],
        &[("cluster-template.yaml", &renamed)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/template-clusterclass-changed: `cluster-template.yaml`'s Cluster now uses ClusterClass `quick-start-v2` instead of `quick-start`: existing Clusters keep `quick-start`, and applying a regenerated manifest rebases them"
        ]
    );
    assert_eq!(
        changes(&r),
        [
            "~ cluster-template.yaml Cluster ${CLUSTER_NAME} ClusterClass: quick-start -> quick-start-v2"
        ]
    );
    // v1beta1's `class`, and a template that no longer uses a class.
    let v1beta1 = edit(
        &TEMPLATE.replace("cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"),
        "    classRef:\n      name: quick-start\n",
        "    class: quick-start\n",
    );
    let r = report(
        &[("cluster-template.yaml", &v1beta1)],
        &[("cluster-template.yaml", TEMPLATE)],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", findings(&r));
    let classless = edit(TEMPLATE, "    classRef:\n      name: quick-start\n", "");
    let r = report(
        &[("cluster-template.yaml", &v1beta1)],
        &[("cluster-template.yaml", &classless)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/template-clusterclass-changed: `cluster-template.yaml`'s Cluster no longer uses ClusterClass `quick-start`"
        ]
    );
}

#[test]
fn a_removed_clusterclass_file_warns_and_an_added_one_is_listed() {
    let r = report(
        &[("clusterclass-quick-start.yaml", CLASS)],
        &[("clusterclass-quick-start-v2.yaml", CLASS)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/clusterclass-removed: ClusterClass `quick-start` is gone (`clusterclass-quick-start.yaml`): Clusters using it keep it, but templates and manifests that name it fail where it is not installed yet"
        ]
    );
    assert_eq!(
        changes(&r),
        [
            "+ ClusterClass quick-start-v2 (clusterclass-quick-start-v2.yaml)",
            "- ClusterClass quick-start (clusterclass-quick-start.yaml)"
        ]
    );
}

#[test]
fn a_clusterclass_inside_a_template_is_compared_too() {
    let in_template = format!("{TEMPLATE}{CLASS}");
    let without_variable = edit(
        &in_template,
        "  - name: coreDNSImageTag\n    required: true\n",
        "  - name: coreDNSImageTagRenamed\n    required: false\n",
    );
    let r = report(
        &[("cluster-template.yaml", &in_template)],
        &[("cluster-template.yaml", &without_variable)],
    );
    assert_eq!(
        findings(&r),
        [
            "upgrade/clusterclass-variable-removed: ClusterClass quick-start in cluster-template.yaml variable coreDNSImageTag is gone: Clusters that set it are no longer reconciled, and manifests that set it are refused"
        ]
    );
}

/// clusterctl reads templates from infrastructure providers; a release keeps them with one
/// provider, while a GitHub read gives them to every provider it reads.
#[test]
fn a_provider_whose_new_release_holds_no_templates_is_compared_only_if_infrastructure() {
    let old = read(
        "v1.0.0",
        &[("cluster-template.yaml", TEMPLATE)],
        ProviderType::Bootstrap,
    );
    let bootstrap = read("v1.1.0", &[], ProviderType::Bootstrap);
    let r = compare(std::slice::from_ref(&old), &[bootstrap]);
    assert!(
        r.changes.is_empty() && r.diagnostics.is_empty(),
        "{:?}",
        changes(&r)
    );
    let infrastructure = read("v1.1.0", &[], ProviderType::Infrastructure);
    let r = compare(&[old], &[infrastructure]);
    assert_eq!(r.diagnostics.len(), 1, "{:?}", findings(&r));
}
