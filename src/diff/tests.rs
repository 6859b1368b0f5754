//! Each `upgrade/…` rule: a pair of releases that fires it and a near pair that does not.

use super::*;
use crate::files::{self, Release};
use crate::provider::FileRole;
use crate::version::Version;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta1
- major: 1
  minor: 1
  contract: v1beta1
";

const SCHEMA: &str = "      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name:
                type: string
";

/// A provider: one CRD served in v1alpha1 and v1beta1 (storage), no webhook, RBAC, a manager.
fn components() -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.infrastructure.cluster.x-k8s.io
  labels:
    cluster.x-k8s.io/provider: infrastructure-test
    cluster.x-k8s.io/v1beta1: v1alpha1_v1beta1
spec:
  group: infrastructure.cluster.x-k8s.io
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
{SCHEMA}  - name: v1beta1
    served: true
    storage: true
    schema:
{SCHEMA}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capt-manager-role
  labels:
    cluster.x-k8s.io/provider: infrastructure-test
rules:
- apiGroups: [\"\"]
  resources: [secrets]
  verbs: [get, list, watch]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capt-controller-manager
  namespace: capt-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-test
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.example.com/capt:v1.0.0
        args: [--leader-elect]
"
    )
}

fn read(components: &str, metadata: &str, version: &str) -> ReadRelease {
    let release = Release {
        dir: format!("infrastructure-test/{version}").into(),
        files: vec![
            files::load_text("metadata.yaml", metadata.to_string(), FileRole::Metadata),
            files::load_text(
                "infrastructure-components.yaml",
                components.to_string(),
                FileRole::Components {
                    provider_type: ProviderType::Infrastructure,
                    suffix: None,
                },
            ),
        ],
        near_misses: Vec::new(),
    };
    ReadRelease {
        release,
        options: lint_rules::Options {
            version: Version::parse(version).ok(),
            ..lint_rules::Options::default()
        },
    }
}

fn report(old: &str, new: &str) -> DiffReport {
    compare(
        &[read(old, METADATA, "v1.0.0")],
        &[read(new, METADATA, "v1.1.0")],
    )
}

/// The rules that fired from the base components to `new`.
fn fired(new: &str) -> Vec<&'static str> {
    let mut ids: Vec<&str> = report(&components(), new)
        .diagnostics
        .iter()
        .map(|d| d.rule)
        .collect();
    ids.dedup();
    ids
}

/// The base with `from` replaced by `to` exactly once (so a typo in a test cannot pass).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    text.replacen(from, to, 1)
}

/// The v1beta1 version's block, for edits to it alone.
fn beta_schema_edit(from: &str, to: &str) -> String {
    let base = components();
    let (head, tail) = base.split_at(base.find("  - name: v1beta1").expect("v1beta1"));
    format!("{head}{}", edit(tail, from, to))
}

#[test]
fn an_unchanged_release_has_no_changes_and_no_findings() {
    let r = report(&components(), &components());
    assert!(r.changes.is_empty(), "{:?}", r.changes);
    assert!(r.diagnostics.is_empty());
    assert!(r.ok);
}

#[test]
fn a_served_version_unserved_or_removed_fires_a_deprecated_one_does_not() {
    let unserved = edit(
        &components(),
        "  - name: v1alpha1\n    served: true",
        "  - name: v1alpha1\n    served: false",
    );
    assert!(fired(&unserved).contains(&"upgrade/served-version-removed"));
    let deprecated = edit(
        &components(),
        "  - name: v1alpha1\n    served: true",
        "  - name: v1alpha1\n    served: true\n    deprecated: true",
    );
    assert!(fired(&deprecated).is_empty(), "{:?}", fired(&deprecated));
    // Already unserved in the old release: removing it breaks nothing more.
    let r = compare(
        &[read(&unserved, METADATA, "v1.0.0")],
        &[read(
            &unserved.replace(
                "  - name: v1alpha1\n    served: false\n    storage: false\n    schema:\n",
                "  - name: v1alpha0\n    served: false\n    storage: false\n    schema:\n",
            ),
            METADATA,
            "v1.1.0",
        )],
    );
    assert!(
        !r.diagnostics
            .iter()
            .any(|d| d.rule == "upgrade/served-version-removed"),
        "{:?}",
        r.diagnostics
    );
}

#[test]
fn a_changed_schema_between_served_versions_fires_without_a_webhook_only() {
    // CAPV #4105: a new minLength in one served version, no webhook.
    let new = beta_schema_edit(
        "                type: string\n",
        "                type: string\n                minLength: 1\n",
    );
    let ids = fired(&new);
    assert!(ids.contains(&"upgrade/crd-minimum-raised"), "{ids:?}");
    assert!(
        ids.contains(&"upgrade/served-versions-incompatible"),
        "{ids:?}"
    );
    let webhook = edit(
        &new,
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n",
    );
    let ids = fired(&webhook);
    assert!(
        !ids.contains(&"upgrade/served-versions-incompatible"),
        "{ids:?}"
    );
}

#[test]
fn a_removed_webhook_exposes_old_incompatibilities() {
    let differing = beta_schema_edit(
        "                type: string\n",
        "                type: string\n                maxLength: 5\n",
    );
    let with_webhook = edit(
        &differing,
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n",
    );
    let r = compare(
        &[read(&with_webhook, METADATA, "v1.0.0")],
        &[read(&differing, METADATA, "v1.1.0")],
    );
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(
        ids,
        ["upgrade/served-versions-incompatible"],
        "{:?}",
        r.diagnostics
    );
    assert!(
        r.diagnostics[0]
            .message
            .contains("converted them with a webhook")
    );
    // The same incompatibility, without a webhook before or after: nothing new.
    let r = compare(
        &[read(&differing, METADATA, "v1.0.0")],
        &[read(&differing, METADATA, "v1.1.0")],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

fn move_storage(text: &str) -> String {
    let moved = edit(
        text,
        "  - name: v1alpha1\n    served: true\n    storage: false",
        "  - name: v1alpha1\n    served: true\n    storage: true",
    );
    edit(
        &moved,
        "  - name: v1beta1\n    served: true\n    storage: true",
        "  - name: v1beta1\n    served: true\n    storage: false",
    )
}

#[test]
fn a_storage_move_needs_the_migrator_unless_the_schemas_agree_without_a_webhook() {
    let webhook = |t: &str| {
        edit(
            t,
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n",
        )
    };
    let old = webhook(&components());
    let moved = webhook(&move_storage(&components()));
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&moved, METADATA, "v1.1.0")],
    );
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(ids, ["upgrade/storage-version-without-migrator"]);
    // The CRD migrator's RBAC, as Cluster API's providers grant it.
    let migrating = edit(
        &moved,
        "  verbs: [get, list, watch]\n",
        "  verbs: [get, list, watch]\n- apiGroups: [apiextensions.k8s.io]\n  resources: [customresourcedefinitions, customresourcedefinitions/status]\n  resourceNames: [widgets.infrastructure.cluster.x-k8s.io]\n  verbs: [patch, update]\n",
    );
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&migrating, METADATA, "v1.1.0")],
    );
    assert!(
        !r.diagnostics
            .iter()
            .any(|d| d.rule == "upgrade/storage-version-without-migrator"),
        "{:?}",
        r.diagnostics
    );
    // The status alone is not enough: the migrator rewrites the objects through the CRD too.
    let status_only = edit(
        &moved,
        "  verbs: [get, list, watch]\n",
        "  verbs: [get, list, watch]\n- apiGroups: [apiextensions.k8s.io]\n  resources: [customresourcedefinitions/status]\n  verbs: [patch, update]\n",
    );
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&status_only, METADATA, "v1.1.0")],
    );
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.rule == "upgrade/storage-version-without-migrator"),
        "{:?}",
        r.diagnostics
    );
    // ... unless its storage phase is switched off.
    let skipped = edit(
        &migrating,
        "args: [--leader-elect]",
        "args: [--leader-elect, --skip-crd-migration-phases=StorageVersionMigration]",
    );
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&skipped, METADATA, "v1.1.0")],
    );
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.message.contains("skip-crd-migration-phases"))
    );
    // Same schema, no webhook: objects read back fine.
    assert!(fired(&move_storage(&components())).is_empty());
}

#[test]
fn stored_versions_removed_fire_and_kept_ones_do_not() {
    let old = components().replacen(
        "---\napiVersion: rbac",
        "status:\n  storedVersions: [v1alpha1, v1beta1]\n---\napiVersion: rbac",
        1,
    );
    let without_alpha = {
        let base = components();
        let start = base.find("  - name: v1alpha1").expect("v1alpha1");
        let end = base.find("  - name: v1beta1").expect("v1beta1");
        format!("{}{}", &base[..start], &base[end..])
    };
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&without_alpha, METADATA, "v1.1.0")],
    );
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
    assert!(ids.contains(&"upgrade/stored-version-removed"), "{ids:?}");
    let r = compare(
        &[read(&old, METADATA, "v1.0.0")],
        &[read(&components(), METADATA, "v1.1.0")],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn a_scope_change_fires() {
    assert_eq!(
        fired(&edit(&components(), "scope: Namespaced", "scope: Cluster")),
        ["upgrade/crd-scope-changed"]
    );
}

#[test]
fn schema_rules_fire_per_version_present_in_both() {
    // Each edit applied to both versions, so only the per-version check can fire.
    let both = |from: &str, to: &str| components().replace(from, to);
    let cases = [
        (
            "                type: string\n",
            "                type: integer\n",
            "upgrade/crd-type-changed",
        ),
        (
            "              name:\n                type: string\n",
            "",
            "upgrade/crd-field-removed",
        ),
        (
            "            type: object\n            properties:\n",
            "            type: object\n            required: [name]\n            properties:\n",
            "upgrade/crd-required-added",
        ),
        (
            "                type: string\n",
            "                type: string\n                enum: [a]\n",
            "upgrade/crd-enum-narrowed",
        ),
        (
            "                type: string\n",
            "                type: string\n                default: a\n",
            "upgrade/crd-default-changed",
        ),
        (
            "                type: string\n",
            "                type: string\n                maxLength: 63\n",
            "upgrade/crd-maximum-lowered",
        ),
        (
            "                type: string\n",
            "                type: string\n                minLength: 1\n",
            "upgrade/crd-minimum-raised",
        ),
        (
            "                type: string\n",
            "                type: string\n                pattern: ^[a-z]+$\n",
            "upgrade/crd-pattern-changed",
        ),
        (
            "                type: string\n",
            "                type: string\n                nullable: true\n",
            "upgrade/crd-nullable-changed",
        ),
        (
            "            type: object\n            properties:\n",
            "            type: object\n            oneOf:\n            - required: [name]\n            properties:\n",
            "upgrade/crd-one-of-changed",
        ),
        (
            "                type: string\n",
            "                type: string\n                format: date-time\n",
            "upgrade/crd-schema-changed",
        ),
    ];
    for (from, to, rule) in cases {
        let ids = fired(&both(from, to));
        assert_eq!(ids, [rule], "{rule}");
    }
    // The near misses: compatible changes, reported as changes only.
    let compatible = [
        (
            "                type: string\n",
            "                type: string\n                description: the name\n",
        ),
        (
            "              name:\n",
            "              extra:\n                type: string\n              name:\n",
        ),
    ];
    for (from, to) in compatible {
        let r = report(&components(), &both(from, to));
        assert!(r.diagnostics.is_empty(), "{to}: {:?}", r.diagnostics);
    }
    let added = report(
        &components(),
        &both(
            "              name:\n",
            "              extra:\n                type: string\n              name:\n",
        ),
    );
    assert!(
        added
            .changes
            .iter()
            .any(|c| c.subject.ends_with("^.spec.extra"))
    );
}

#[test]
fn a_contract_label_removed_or_pointing_at_an_unserved_version_fires() {
    let no_label = edit(
        &components(),
        "    cluster.x-k8s.io/v1beta1: v1alpha1_v1beta1\n",
        "",
    );
    assert_eq!(fired(&no_label), ["upgrade/contract-dropped"]);
    let unserved_highest = edit(
        &components(),
        "  - name: v1beta1\n    served: true",
        "  - name: v1beta1\n    served: false",
    );
    let ids = fired(&unserved_highest);
    assert!(ids.contains(&"upgrade/contract-dropped"), "{ids:?}");
    // A release implementing another contract may drop the old label.
    let v1beta2 = METADATA.to_string() + "- major: 1\n  minor: 2\n  contract: v1beta2\n";
    let r = compare(
        &[read(&components(), METADATA, "v1.0.0")],
        &[read(&no_label, &v1beta2, "v1.2.0")],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn release_series_dropped_or_recontracted_fire_and_added_do_not() {
    let run = |new_metadata: &str, version: &str| -> Vec<&'static str> {
        compare(
            &[read(&components(), METADATA, "v1.0.0")],
            &[read(&components(), new_metadata, version)],
        )
        .diagnostics
        .iter()
        .map(|d| d.rule)
        .collect()
    };
    // CAPC #404: a series dropped.
    let dropped = METADATA.replace("- major: 1\n  minor: 0\n  contract: v1beta1\n", "");
    assert_eq!(run(&dropped, "v1.1.0"), ["upgrade/release-series-dropped"]);
    let recontracted = METADATA.replacen("contract: v1beta1", "contract: v1beta2", 1);
    assert_eq!(
        run(&recontracted, "v1.1.0"),
        ["upgrade/release-series-dropped"]
    );
    let added = METADATA.to_string() + "- major: 1\n  minor: 2\n  contract: v1beta1\n";
    assert!(run(&added, "v1.2.0").is_empty());
    // k0smotron #1104: the new version's own series missing, pre-releases too.
    assert_eq!(
        run(METADATA, "v1.2.0-rc.0"),
        ["upgrade/release-series-missing"]
    );
    assert!(run(METADATA, "v1.1.3").is_empty());
}

#[test]
fn a_removed_crd_warns() {
    let without_crd = components()
        .split_once("---\n")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_default();
    let r = report(&components(), &without_crd);
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(ids, ["upgrade/crd-removed"]);
    assert!(r.ok, "a warning does not fail the diff");
}

#[test]
fn removed_permissions_warn_and_wildcards_cover_them() {
    let narrowed = edit(&components(), "verbs: [get, list, watch]", "verbs: [get]");
    let r = report(&components(), &narrowed);
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(ids, ["upgrade/rbac-rule-removed"]);
    assert!(
        r.diagnostics[0].message.contains("list, watch secrets"),
        "{}",
        r.diagnostics[0].message
    );
    let wildcard = edit(&components(), "verbs: [get, list, watch]", "verbs: [\"*\"]");
    assert!(fired(&wildcard).is_empty());
}

#[test]
fn images_and_objects_are_listed_as_changes() {
    let new = edit(
        &components(),
        "image: registry.example.com/capt:v1.0.0",
        "image: registry.example.com/capt:v1.1.0",
    ) + "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: capt-manager\n  namespace: capt-system\n";
    let r = report(&components(), &new);
    let image = r
        .changes
        .iter()
        .find(|c| c.section == Section::Images)
        .expect("an image change");
    assert_eq!(
        image.old.as_deref(),
        Some("registry.example.com/capt:v1.0.0")
    );
    assert_eq!(
        image.new.as_deref(),
        Some("registry.example.com/capt:v1.1.0")
    );
    assert!(
        r.changes.iter().any(|c| c.change == ChangeKind::Added
            && c.subject == "ServiceAccount capt-system/capt-manager")
    );
    assert!(r.ok);
}

#[test]
fn waivers_of_upgrade_rules_mark_findings_and_lint_waivers_are_left_alone() {
    let unserved = edit(
        &components(),
        "  - name: v1alpha1\n    served: true",
        "  - name: v1alpha1\n    served: false",
    );
    let r = report(&components(), &unserved);
    assert!(!r.ok);
    let waivers = [
        crate::rules::Waiver::from_flag("upgrade/served-version-removed=announced in v1.0")
            .expect("waiver"),
        crate::rules::Waiver::from_flag("components/single-namespace=not this run's")
            .expect("waiver"),
    ];
    let r = r.waive(&crate::rules::Waivers::new(
        waivers.to_vec(),
        Path::new(".").into(),
    ));
    assert!(r.ok);
    assert!(
        r.diagnostics.iter().all(|d| d.rule != "lint/unused-waiver"),
        "{:?}",
        r.diagnostics
    );
    assert_eq!(
        r.diagnostics
            .iter()
            .find(|d| d.rule == "upgrade/served-version-removed")
            .and_then(|d| d.waived.as_deref()),
        Some("announced in v1.0")
    );
}

/// The base without v1alpha1 in `spec.versions`.
fn without_alpha(text: &str) -> String {
    let start = text.find("  - name: v1alpha1").expect("v1alpha1");
    let end = text.find("  - name: v1beta1").expect("v1beta1");
    format!("{}{}", &text[..start], &text[end..])
}

/// Cluster API's CRD migrator's permissions on the widgets CRD, as providers grant them.
fn with_migrator(text: &str) -> String {
    edit(
        text,
        "  verbs: [get, list, watch]\n",
        "  verbs: [get, list, watch]\n- apiGroups: [apiextensions.k8s.io]\n  resources: [customresourcedefinitions, customresourcedefinitions/status]\n  resourceNames: [widgets.infrastructure.cluster.x-k8s.io]\n  verbs: [patch, update]\n",
    )
}

fn ids(r: &DiffReport) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.rule).collect()
}

#[test]
fn an_unserved_version_removed_needs_the_previous_releases_migrator() {
    // CAPO #2863's shape: v1alpha1 unserved in the old release, gone in the new one.
    let unserved = edit(
        &components(),
        "  - name: v1alpha1\n    served: true",
        "  - name: v1alpha1\n    served: false",
    );
    let rule = "upgrade/version-removed-without-migrator";
    let r = compare(
        &[read(&unserved, METADATA, "v1.0.0")],
        &[read(&without_alpha(&unserved), METADATA, "v1.1.0")],
    );
    assert_eq!(ids(&r), [rule], "{:?}", r.diagnostics);
    let message = &r.diagnostics[0].message;
    for words in [
        "version v1alpha1 (unserved but present in the previous release)",
        "CRD migrator",
        "Keep v1alpha1 in spec.versions (`served: false`)",
        "kubectl",
    ] {
        assert!(message.contains(words), "{words}: {message}");
    }
    // The previous release's manager ran the migrator: storedVersions holds the storage version
    // only, and the API server accepts the new CRD.
    let r = compare(
        &[read(&with_migrator(&unserved), METADATA, "v1.0.0")],
        &[read(
            &with_migrator(&without_alpha(&unserved)),
            METADATA,
            "v1.1.0",
        )],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    // A migrator in the new release only comes too late: the new CRD is refused before the new
    // manager starts.
    let r = compare(
        &[read(&unserved, METADATA, "v1.0.0")],
        &[read(
            &with_migrator(&without_alpha(&unserved)),
            METADATA,
            "v1.1.0",
        )],
    );
    assert_eq!(ids(&r), [rule]);
    // ... and one whose storage phase is skipped does not migrate.
    let skipped = edit(
        &with_migrator(&unserved),
        "args: [--leader-elect]",
        "args: [--leader-elect, --skip-crd-migration-phases=StorageVersionMigration]",
    );
    let r = compare(
        &[read(&skipped, METADATA, "v1.0.0")],
        &[read(
            &with_migrator(&without_alpha(&unserved)),
            METADATA,
            "v1.1.0",
        )],
    );
    assert_eq!(ids(&r), [rule]);
    assert!(
        r.diagnostics[0]
            .message
            .contains("skip-crd-migration-phases")
    );
    // A served version removed is both: users' manifests break, and its objects are stranded.
    let r = report(&components(), &without_alpha(&components()));
    assert_eq!(
        ids(&r),
        [rule, "upgrade/served-version-removed"],
        "{:?}",
        r.diagnostics
    );
}

#[test]
fn the_previous_storage_version_removed_fires_even_with_a_migrator() {
    let without_beta = {
        let base = with_migrator(&components());
        let start = base.find("  - name: v1beta1").expect("v1beta1");
        let end = base.find("---\napiVersion: rbac").expect("rbac");
        let alpha_storage = edit(
            &base[..start],
            "    served: true\n    storage: false",
            "    served: true\n    storage: true",
        );
        format!("{alpha_storage}{}", &base[end..])
    };
    let r = compare(
        &[read(&with_migrator(&components()), METADATA, "v1.0.0")],
        &[read(&without_beta, METADATA, "v1.1.0")],
    );
    let finding = r
        .diagnostics
        .iter()
        .find(|d| d.rule == "upgrade/version-removed-without-migrator")
        .expect("the removed storage version");
    assert!(
        finding
            .message
            .contains("v1beta1, the previous release's storage version"),
        "{}",
        finding.message
    );
}

#[test]
fn a_crd_read_from_a_cluster_is_judged_by_its_stored_versions_alone() {
    let old = components().replacen(
        "---\napiVersion: rbac",
        "status:\n  storedVersions: [v1beta1]\n---\napiVersion: rbac",
        1,
    );
    let unserved = |t: &str| {
        edit(
            t,
            "  - name: v1alpha1\n    served: true",
            "  - name: v1alpha1\n    served: false",
        )
    };
    // v1alpha1 holds no object: removing it is safe.
    let r = compare(
        &[read(&unserved(&old), METADATA, "v1.0.0")],
        &[read(
            &without_alpha(&unserved(&components())),
            METADATA,
            "v1.1.0",
        )],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

/// `count` served versions `v1alpha1`… with the base schema, the last the storage version.
fn many_versions(count: usize, edit_version: Option<(usize, &str, &str)>) -> String {
    let base = components();
    let start = base.find("  - name: v1alpha1").expect("v1alpha1");
    let end = base.find("---\napiVersion: rbac").expect("rbac");
    let mut versions = String::new();
    for i in 1..=count {
        let mut schema = SCHEMA.to_string();
        if let Some((at, from, to)) = edit_version
            && at == i
        {
            schema = schema.replacen(from, to, 1);
        }
        versions.push_str(&format!(
            "  - name: v1alpha{i}\n    served: true\n    storage: {}\n    schema:\n{schema}",
            i == count
        ));
    }
    format!("{}{versions}{}", &base[..start], &base[end..]).replace("v1alpha1_v1beta1", "v1alpha1")
}

#[test]
fn served_versions_are_compared_with_their_neighbours_in_one_finding_per_pair() {
    // v1alpha2 of five gets two new limits: v1alpha1 -> v1alpha2 and v1alpha2 -> v1alpha3 differ,
    // one finding each, the two differences in it, most specific first.
    let limited = "                type: string\n                maxLength: 5\n                minLength: 2\n";
    let r = compare(
        &[read(&many_versions(5, None), METADATA, "v1.0.0")],
        &[read(
            &many_versions(5, Some((2, "                type: string\n", limited))),
            METADATA,
            "v1.1.0",
        )],
    );
    let pairs: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule == "upgrade/served-versions-incompatible")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(pairs.len(), 1, "{pairs:#?}");
    assert!(
        pairs[0].contains("served versions v1alpha1 -> v1alpha2 differ")
            && pairs[0].contains(
                "in 2 places: ^.spec.name (minLength: (none) -> 2, upgrade/crd-minimum-raised); ^.spec.name (maxLength: (none) -> 5, upgrade/crd-maximum-lowered)"
            ),
        "{}",
        pairs[0]
    );
    // The limits' removal between v1alpha2 and v1alpha3 breaks nothing: only the lowering side
    // of a pair is incompatible. Each difference also has its own finding, first.
    assert_eq!(
        ids(&r),
        [
            "upgrade/crd-minimum-raised",
            "upgrade/crd-maximum-lowered",
            "upgrade/served-versions-incompatible"
        ]
    );
    let incompatible = r
        .diagnostics
        .iter()
        .find(|d| d.rule == "upgrade/served-versions-incompatible")
        .expect("the pair");
    assert_eq!(
        incompatible.labels.len(),
        1,
        "the second difference's place"
    );
}

#[test]
fn a_crds_findings_stay_together_in_the_order_an_upgrade_meets_them() {
    // Two CRDs, each with a removed served version and a new limit; RBAC loses a permission.
    let second = components()
        .split("---\n")
        .next()
        .expect("the CRD")
        .replace("widgets", "gadgets")
        .replace("Widget", "Gadget");
    let old = format!("{}---\n{second}", components());
    let broken = |t: &str| {
        without_alpha(t).replacen(
            "                type: string\n",
            "                type: string\n                minLength: 1\n",
            1,
        )
    };
    let new = format!(
        "{}---\n{}",
        broken(&components()).replace("verbs: [get, list, watch]", "verbs: [get]"),
        broken(&second)
    );
    let r = report(&old, &new);
    let found: Vec<(&str, &str)> = r
        .diagnostics
        .iter()
        .map(|d| {
            let crd = if d.message.starts_with("gadgets") {
                "gadgets"
            } else if d.message.contains("widgets") {
                "widgets"
            } else {
                "-"
            };
            (crd, d.rule)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("-", "upgrade/rbac-rule-removed"),
            ("widgets", "upgrade/version-removed-without-migrator"),
            ("widgets", "upgrade/served-version-removed"),
            ("widgets", "upgrade/crd-minimum-raised"),
            ("gadgets", "upgrade/version-removed-without-migrator"),
            ("gadgets", "upgrade/served-version-removed"),
            ("gadgets", "upgrade/crd-minimum-raised"),
        ],
        "{:#?}",
        r.diagnostics
    );
    // Waivers keep that order; a waiver that matched nothing is said first.
    let before: Vec<String> = r.diagnostics.iter().map(|d| d.message.clone()).collect();
    let waivers = [
        crate::rules::Waiver::from_flag("upgrade/crd-minimum-raised=checked: no object is empty")
            .expect("waiver"),
        crate::rules::Waiver::from_flag("upgrade/crd-scope-changed=nothing to waive")
            .expect("waiver"),
    ];
    let r = r.waive(&crate::rules::Waivers::new(
        waivers.to_vec(),
        Path::new(".").into(),
    ));
    let after: Vec<String> = r.diagnostics.iter().map(|d| d.message.clone()).collect();
    assert_eq!(r.diagnostics[0].rule, "lint/unused-waiver");
    assert_eq!(after[1..], before[..]);
}

#[test]
fn a_cluster_scoped_object_is_matched_without_its_namespace() {
    // A CRD that gained a `metadata.namespace` (an overlay applied to it), and lost a field.
    let new = edit(
        &components(),
        "  name: widgets.infrastructure.cluster.x-k8s.io\n",
        "  name: widgets.infrastructure.cluster.x-k8s.io\n  namespace: capt-system\n",
    )
    .replace("              name:\n                type: string\n", "");
    let r = report(&components(), &new);
    assert_eq!(
        ids(&r),
        ["upgrade/crd-field-removed", "upgrade/crd-field-removed"],
        "{:?}",
        r.diagnostics
    );
    let namespace: Vec<&Change> = r
        .changes
        .iter()
        .filter(|c| c.field.as_deref() == Some("metadata.namespace"))
        .collect();
    assert_eq!(namespace.len(), 1, "{:?}", r.changes);
    assert_eq!(
        namespace[0].new.as_deref(),
        Some("capt-system (ignored: CustomResourceDefinition is cluster-scoped)")
    );
    assert!(
        !r.changes
            .iter()
            .any(|c| c.section == Section::Objects && c.change != ChangeKind::Changed),
        "neither removed nor added: {:?}",
        r.changes
    );
    // A namespaced object in another namespace is another object.
    let moved = edit(
        &components(),
        "  namespace: capt-system\n",
        "  namespace: capt-other\n",
    );
    let r = report(&components(), &moved);
    assert!(r.changes.iter().any(|c| c.change == ChangeKind::Removed
        && c.subject == "Deployment capt-system/capt-controller-manager"));
}

#[test]
fn a_kind_a_crd_declares_cluster_scoped_is_matched_without_its_namespace() {
    let crd = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: issuers.example.io\nspec:\n  group: example.io\n  scope: Cluster\n  names: {kind: GlobalIssuer, plural: globalissuers}\n  versions: []\n";
    let issuer = |ns: &str| {
        format!(
            "---\napiVersion: example.io/v1\nkind: GlobalIssuer\nmetadata:\n  name: root\n{ns}spec: {{}}\n"
        )
    };
    let old = format!("{}{crd}{}", components(), issuer(""));
    let new = format!(
        "{}{crd}{}",
        components(),
        issuer("  namespace: capt-system\n")
    );
    let r = report(&old, &new);
    assert!(
        r.changes.iter().all(|c| c.change == ChangeKind::Changed),
        "{:?}",
        r.changes
    );
}

#[test]
fn an_unknown_new_version_is_said_with_the_check_it_skipped() {
    let mut new = read(&components(), METADATA, "v1.1.0");
    new.options.version = None;
    let r = compare(&[read(&components(), METADATA, "v1.0.0")], &[new]);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("`upgrade/release-series-missing` was not checked")
            && r.warnings[0].contains("--version"),
        "{}",
        r.warnings[0]
    );
}

#[test]
fn the_core_group_is_named_never_empty_backticks() {
    let narrowed = edit(&components(), "verbs: [get, list, watch]", "verbs: [get]");
    let r = report(&components(), &narrowed);
    let message = &r.diagnostics[0].message;
    assert!(message.contains("the core group"), "{message}");
    assert!(!message.contains("``"), "{message}");
    let change = r
        .changes
        .iter()
        .find(|c| c.section == Section::Rbac)
        .expect("the RBAC change");
    assert_eq!(change.subject, "core secrets");
}

#[test]
fn a_schema_whose_descriptions_alone_changed_says_so() {
    let new = beta_schema_edit(
        "                type: string\n",
        "                type: string\n                description: the widget's name\n",
    );
    let r = report(&components(), &new);
    assert!(r.diagnostics.is_empty());
    let lines: Vec<(&str, Option<&str>)> = r
        .changes
        .iter()
        .map(|c| (c.subject.as_str(), c.new.as_deref()))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "CustomResourceDefinition widgets.infrastructure.cluster.x-k8s.io",
                Some("versions and schemas under CRDs")
            ),
            (
                "CRD widgets.infrastructure.cluster.x-k8s.io v1beta1 schema",
                Some("descriptions only")
            )
        ]
    );
}

#[test]
fn a_deployment_change_is_listed_by_field_under_the_object() {
    let new = edit(
        &components(),
        "args: [--leader-elect]",
        "args: [--leader-elect, --v=4]",
    );
    let r = report(&components(), &new);
    let fields: Vec<(&str, Option<&str>, Option<&str>)> = r
        .changes
        .iter()
        .filter(|c| c.subject == "Deployment capt-system/capt-controller-manager")
        .map(|c| {
            (
                c.field.as_deref().unwrap_or(""),
                c.old.as_deref(),
                c.new.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("", None, None),
            ("containers[manager].args", None, Some("--v=4"))
        ]
    );
}

#[test]
fn findings_carry_their_field_and_the_previous_release_for_waivers() {
    let unserved = components().replacen("served: true", "served: false", 1);
    let r = report(&components(), &unserved);
    let finding = r
        .diagnostics
        .iter()
        .find(|d| d.rule == "upgrade/served-version-removed")
        .expect("a finding");
    assert!(
        finding
            .field
            .as_deref()
            .is_some_and(|f| f.starts_with("spec.versions[")),
        "{finding:?}"
    );
    assert_eq!(finding.previous.as_deref(), Some("v1.0.0"));
}

#[test]
fn upgrade_waivers_are_reported_unused_only_when_something_was_compared() {
    let waivers = crate::rules::Waivers::new(
        vec![
            crate::rules::Waiver::from_flag("upgrade/crd-field-removed=announced").expect("waiver"),
        ],
        Path::new(".").into(),
    );
    let unused = |r: DiffReport| {
        r.waive(&waivers)
            .diagnostics
            .iter()
            .filter(|d| d.rule == "lint/unused-waiver")
            .count()
    };
    assert_eq!(unused(report(&components(), &components())), 1);
    // A provider the old release does not have: nothing compared, nothing to judge.
    let first = compare(&[], &[read(&components(), METADATA, "v1.1.0")]);
    assert_eq!(first.compared, 0);
    assert_eq!(unused(first), 0);
}
