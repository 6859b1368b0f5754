//! `upgrade/…`: what breaks between the previous release and this one. These rules compare two
//! releases, so `capkg lint` (one release) never runs them: `capkg diff` and `capkg release` do
//! ([`crate::diff`]). They are listed, explained and waived like every other rule.
//!
//! The schema rules are kubernetes-sigs/crdify's checks with the defaults OLM v1's upgrade
//! preflight uses (description changes and added enum values are not findings, any other change
//! crdify does not understand is an error); the others are what Cluster API and clusterctl add.

use super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};

mod templates;
pub(crate) use templates::{
    CLUSTERCLASS_REMOVED, CLUSTERCLASS_TEMPLATE_INCOMPATIBLE, CLUSTERCLASS_VARIABLE_NARROWED,
    CLUSTERCLASS_VARIABLE_REMOVED, CLUSTERCLASS_VARIABLE_REQUIRED,
    CLUSTERCLASS_WORKER_CLASS_REMOVED, FLAVOR_REMOVED, TEMPLATE_CLUSTERCLASS_CHANGED,
    TEMPLATE_VARIABLE_REQUIRED,
};

pub(super) const RULES: &[&Rule] = &[
    &SERVED_VERSION_REMOVED,
    &SERVED_VERSIONS_INCOMPATIBLE,
    &STORAGE_WITHOUT_MIGRATOR,
    &VERSION_REMOVED_WITHOUT_MIGRATOR,
    &STORED_VERSION_REMOVED,
    &SCOPE_CHANGED,
    &FIELD_REMOVED,
    &TYPE_CHANGED,
    &REQUIRED_ADDED,
    &ENUM_NARROWED,
    &DEFAULT_CHANGED,
    &MAXIMUM_LOWERED,
    &MINIMUM_RAISED,
    &PATTERN_CHANGED,
    &NULLABLE_CHANGED,
    &ONE_OF_CHANGED,
    &SCHEMA_CHANGED,
    &CONTRACT_DROPPED,
    &SERIES_DROPPED,
    &SERIES_MISSING,
    &CRD_REMOVED,
    &RBAC_REMOVED,
    // Templates and ClusterClass files.
    &FLAVOR_REMOVED,
    &TEMPLATE_VARIABLE_REQUIRED,
    &TEMPLATE_CLUSTERCLASS_CHANGED,
    &CLUSTERCLASS_REMOVED,
    &CLUSTERCLASS_VARIABLE_REMOVED,
    &CLUSTERCLASS_VARIABLE_REQUIRED,
    &CLUSTERCLASS_VARIABLE_NARROWED,
    &CLUSTERCLASS_WORKER_CLASS_REMOVED,
    &CLUSTERCLASS_TEMPLATE_INCOMPATIBLE,
];

/// What a waiver of each rule can be narrowed to: the object its findings are in (where they
/// point into one) and the field they carry, as `capkg diff` names them (`crate::diff::crd`).
/// A rule not here names neither: its findings are about a file or a release series file.
const NARROWING: &[(&str, Option<&str>, Option<&str>)] = &[
    (
        SERVED_VERSION_REMOVED.id,
        Some(CRD_OBJECT),
        Some("spec.versions[v1beta1]"),
    ),
    (
        SERVED_VERSIONS_INCOMPATIBLE.id,
        Some(CRD_OBJECT),
        Some("spec.versions[v1beta2]"),
    ),
    (
        STORAGE_WITHOUT_MIGRATOR.id,
        Some(CRD_OBJECT),
        Some("spec.versions[v1beta2]"),
    ),
    (
        VERSION_REMOVED_WITHOUT_MIGRATOR.id,
        Some(CRD_OBJECT),
        Some("spec.versions[v1alpha6]"),
    ),
    (
        STORED_VERSION_REMOVED.id,
        Some(CRD_OBJECT),
        Some("spec.versions[v1alpha4]"),
    ),
    (SCOPE_CHANGED.id, Some(CRD_OBJECT), Some("spec.scope")),
    (FIELD_REMOVED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (TYPE_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (REQUIRED_ADDED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (ENUM_NARROWED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (DEFAULT_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (MAXIMUM_LOWERED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (MINIMUM_RAISED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (PATTERN_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (NULLABLE_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (ONE_OF_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (SCHEMA_CHANGED.id, Some(CRD_OBJECT), Some(SCHEMA_FIELD)),
    (
        CONTRACT_DROPPED.id,
        Some(CRD_OBJECT),
        Some("metadata.labels[cluster.x-k8s.io/v1beta1]"),
    ),
    (SERIES_DROPPED.id, None, Some("releaseSeries[1.14]")),
    (SERIES_MISSING.id, None, Some("releaseSeries[1.15]")),
    (RBAC_REMOVED.id, None, Some("rules[core/secrets]")),
    (
        TEMPLATE_VARIABLE_REQUIRED.id,
        None,
        Some("variables[AZURE_CLIENT_ID]"),
    ),
    (
        CLUSTERCLASS_VARIABLE_REMOVED.id,
        Some(CLASS_OBJECT),
        Some("spec.variables[coreDNSImageTag]"),
    ),
    (
        CLUSTERCLASS_VARIABLE_REQUIRED.id,
        Some(CLASS_OBJECT),
        Some("spec.variables[controlPlanePort]"),
    ),
    (
        CLUSTERCLASS_VARIABLE_NARROWED.id,
        Some(CLASS_OBJECT),
        Some("spec.variables[podSecurityStandard].schema.openAPIV3Schema.enforce"),
    ),
    (
        CLUSTERCLASS_WORKER_CLASS_REMOVED.id,
        Some(CLASS_OBJECT),
        Some("spec.workers.machinePools[default-worker]"),
    ),
    (
        CLUSTERCLASS_TEMPLATE_INCOMPATIBLE.id,
        Some(CLASS_OBJECT),
        None,
    ),
    (TEMPLATE_CLUSTERCLASS_CHANGED.id, None, None),
];

const CRD_OBJECT: &str = "CustomResourceDefinition/devclusters.infrastructure.cluster.x-k8s.io";
const CLASS_OBJECT: &str = "ClusterClass/quick-start";
const SCHEMA_FIELD: &str = "spec.versions[v1beta1].schema.openAPIV3Schema.status";

/// The object and field a waiver of `rule` can name, each an example ([`NARROWING`]).
pub(crate) fn waiver_narrowing(rule: &str) -> (Option<&'static str>, Option<&'static str>) {
    NARROWING
        .iter()
        .find(|(id, _, _)| *id == rule)
        .map_or((None, None), |(_, object, field)| (*object, *field))
}

const CRDIFY: Reference = Reference {
    title: "kubernetes-sigs/crdify, \"Validations\" (OLM v1's upgrade preflight)",
    url: "https://github.com/kubernetes-sigs/crdify",
};

const VERSIONING: Reference = Reference {
    title: "Kubernetes, \"Versions in CustomResourceDefinitions\"",
    url: "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/",
};

const CONTRACT: Reference = Reference {
    title: "clusterctl provider contract, \"Metadata YAML\" and \"Labels\"",
    url: CLUSTERCTL_CONTRACT,
};

/// Run by `capkg diff`, never by lint (which sees one release).
fn compared_not_linted(_: &super::Context<'_>, _: &mut super::Findings<'_>) {}

pub(crate) static SERVED_VERSION_REMOVED: Rule = Rule {
    id: "upgrade/served-version-removed",
    severity: Severity::Error,
    summary: "a CRD version the previous release served is gone or no longer served",
    explanation: "Users' manifests, GitOps repositories and other controllers name the API \
        version. `clusterctl upgrade apply` deletes the old provider and applies the new CRD: \
        from then on every request for the removed version fails, and the API server refuses \
        the CRD outright when the version is still in `status.storedVersions` (cluster-api \
        #6691, CAPO #2134). Stop serving a version in one release (deprecated first), remove it \
        in a later one, after the stored objects have moved.",
    help: "keep serving the version (mark it `deprecated: true`), or waive this with the \
        release notes that announce the removal",
    reference: VERSIONING,
    check: compared_not_linted,
};

pub(crate) static SERVED_VERSIONS_INCOMPATIBLE: Rule = Rule {
    id: "upgrade/served-versions-incompatible",
    severity: Severity::Error,
    summary: "two served versions of a CRD have incompatible schemas and no conversion webhook",
    explanation: "With `conversion.strategy: None` the API server converts between served \
        versions by changing `apiVersion` only, so an object written in one version must be \
        valid in the other. A schema change between served versions (a new `minLength: 1`, a \
        new required field) makes existing objects unreadable or unpatchable through the other \
        version (CAPV #4105). A removed conversion webhook exposes incompatibilities that were \
        there before, behind the webhook, which crdify does not report.",
    help: "keep (or add) the conversion webhook, or make the versions' schemas compatible",
    reference: VERSIONING,
    check: compared_not_linted,
};

pub(crate) static STORAGE_WITHOUT_MIGRATOR: Rule = Rule {
    id: "upgrade/storage-version-without-migrator",
    severity: Severity::Warning,
    summary: "the storage version moved, and the manager does not run Cluster API's CRD migrator",
    explanation: "Objects stay stored in the old version until something rewrites them, and the \
        old version cannot be removed from the CRD while it is in `status.storedVersions`. \
        clusterctl v1.1.5 to v1.9 rewrote provider CRDs' objects itself during `upgrade apply`; \
        v1.10 made that opt-in (`--enable-crd-storage-version-migration`) and v1.13 removed it. \
        Since then it is the provider's job: Cluster API's CRD migrator in the manager \
        (`controllers/crdmigrator`), which needs `patch`/`update` on the CRD and \
        `customresourcedefinitions/status` and its StorageVersionMigration phase not skipped \
        (`--skip-crd-migration-phases`). A move to a version with the same schema and no \
        webhook is not reported.",
    help: "run the CRD migrator in the manager (and grant it the CRDs), or waive this when the \
        old version will stay in the CRD",
    reference: VERSIONING,
    check: compared_not_linted,
};

pub(crate) static VERSION_REMOVED_WITHOUT_MIGRATOR: Rule = Rule {
    id: "upgrade/version-removed-without-migrator",
    severity: Severity::Error,
    summary: "a CRD version objects may still be stored in was removed, and nothing migrated them",
    explanation: "The API server refuses a CRD whose `spec.versions` lacks a version listed in \
        its `status.storedVersions`, and that list keeps every version objects were ever stored \
        in until something rewrites the objects and trims it. Release files carry no `status`, \
        so every version of the previous CRD counts, an unserved one too: CAPO v0.12.0 dropped \
        `v1alpha6`, already unserved, and `clusterctl upgrade` failed with `status.storedVersions[0]: \
        Invalid value: \"v1alpha6\": must appear in spec.versions` (CAPO #2863). What \
        clusterctl does: v1.1.5 to v1.9 migrated provider CRDs during `upgrade apply` (before \
        scaling the old providers down, it rewrote every object of a CRD whose storedVersions \
        held more than the storage version, then set storedVersions to the storage version, \
        and refused a new CRD without the current storage version); v1.10 made that opt-in \
        (`--enable-crd-storage-version-migration`, deprecated) and v1.13 removed it, keeping \
        it for cert-manager's CRDs only. Since v1.10 the provider's manager migrates: Cluster \
        API's CRD migrator (`controllers/crdmigrator`) rewrites the objects and sets \
        storedVersions to the storage version for each CRD it may `patch`/`update` (the CRD \
        and `customresourcedefinitions/status`) unless `--skip-crd-migration-phases` skips \
        StorageVersionMigration. It has to have run before the upgrade, in the previous \
        release's manager: the new manager starts only once the new CRD was accepted. So a \
        removed version is an error unless the previous release's manager runs the migrator, \
        and always when it was the previous storage version (every object is stored in it). \
        Only the previous release is judged: users upgrading from older releases rely on those \
        having run it too.",
    help: "keep the version in `spec.versions` (`served: false`, `storage: false`) until a \
        release whose manager runs Cluster API's CRD migrator has been out; or tell users in the \
        release notes to migrate storage before upgrading (rewrite every object in the storage \
        version, e.g. `kubectl get KIND -A -o json | kubectl replace -f -`, then `kubectl patch \
        crd NAME --subresource=status --type=merge -p '{\"status\":{\"storedVersions\":[\"STORAGE\"]}}'`) \
        and waive this with that note",
    reference: VERSIONING,
    check: compared_not_linted,
};

pub(crate) static STORED_VERSION_REMOVED: Rule = Rule {
    id: "upgrade/stored-version-removed",
    severity: Severity::Error,
    summary: "a version in the old CRD's `status.storedVersions` is not in the new CRD",
    explanation: "The API server refuses a CRD that drops a version objects may still be stored \
        in; the upgrade stops after the old controllers are gone (CAPO #2863). Only a CRD read \
        from a cluster carries `status.storedVersions`.",
    help: "keep the version in `spec.versions` (unserved if you like) until every object is \
        stored in another and `status.storedVersions` no longer lists it",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static SCOPE_CHANGED: Rule = Rule {
    id: "upgrade/crd-scope-changed",
    severity: Severity::Error,
    summary: "a CRD changed between `Namespaced` and `Cluster` scope",
    explanation: "`spec.scope` is immutable: the API server refuses the new CRD.",
    help: "keep the scope; a new scope needs a new group or kind",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static FIELD_REMOVED: Rule = Rule {
    id: "upgrade/crd-field-removed",
    severity: Severity::Error,
    summary: "a field in a version's schema is gone",
    explanation: "Existing objects lose the field's data when they are next written (pruning), \
        and clients that set it are refused or silently ignored.",
    help: "keep the field (deprecated in its description) in the versions that had it",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static TYPE_CHANGED: Rule = Rule {
    id: "upgrade/crd-type-changed",
    severity: Severity::Error,
    summary: "a field's `type` changed",
    explanation: "Stored objects hold the old type and fail validation on their next update.",
    help: "add a field with the new type and deprecate the old one",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static REQUIRED_ADDED: Rule = Rule {
    id: "upgrade/crd-required-added",
    severity: Severity::Error,
    summary: "a field became required",
    explanation: "Existing objects and manifests that lack it cannot be updated any more.",
    help: "make the field optional with a default, or add it in a new API version",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static ENUM_NARROWED: Rule = Rule {
    id: "upgrade/crd-enum-narrowed",
    severity: Severity::Error,
    summary: "an enum lost values, or a field without an enum got one",
    explanation: "Objects holding a value no longer allowed fail validation on their next \
        update. Adding values is allowed (OLM v1's default).",
    help: "keep the values allowed",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static DEFAULT_CHANGED: Rule = Rule {
    id: "upgrade/crd-default-changed",
    severity: Severity::Error,
    summary: "a field's `default` was added, removed or changed",
    explanation: "Defaults are applied when objects are read and written: a new or changed \
        default silently changes what existing objects mean.",
    help: "keep the default; introduce new behaviour behind a new field",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static MAXIMUM_LOWERED: Rule = Rule {
    id: "upgrade/crd-maximum-lowered",
    severity: Severity::Error,
    summary: "`maximum`, `maxItems`, `maxLength` or `maxProperties` was added or lowered",
    explanation: "Existing objects above the new limit fail validation on their next update.",
    help: "keep the limit, or raise it",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static MINIMUM_RAISED: Rule = Rule {
    id: "upgrade/crd-minimum-raised",
    severity: Severity::Error,
    summary: "`minimum`, `minItems`, `minLength` or `minProperties` was added or raised",
    explanation: "Existing objects below the new limit fail validation on their next update \
        (CAPV #4106: a new `minLength: 1`).",
    help: "keep the limit, or lower it",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static PATTERN_CHANGED: Rule = Rule {
    id: "upgrade/crd-pattern-changed",
    severity: Severity::Error,
    summary: "a `pattern` was added or changed",
    explanation: "Existing values that do not match the new expression fail validation on \
        their next update. Removing a pattern is allowed.",
    help: "keep the pattern",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static NULLABLE_CHANGED: Rule = Rule {
    id: "upgrade/crd-nullable-changed",
    severity: Severity::Error,
    summary: "`nullable` changed",
    explanation: "Removing it refuses nulls existing objects may hold; adding it changes what \
        clients read for a missing value.",
    help: "keep `nullable` as it was",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static ONE_OF_CHANGED: Rule = Rule {
    id: "upgrade/crd-one-of-changed",
    severity: Severity::Error,
    summary: "a `oneOf` changed",
    explanation: "`oneOf` decides which combinations of fields are valid: a change can make \
        existing objects invalid.",
    help: "keep the `oneOf` constraints",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static SCHEMA_CHANGED: Rule = Rule {
    id: "upgrade/crd-schema-changed",
    severity: Severity::Error,
    summary: "a schema change no other check understands (`x-kubernetes-validations`, `format`…)",
    explanation: "As in OLM v1's preflight, a change capkg cannot judge is an error: a reviewer \
        decides whether existing objects stay valid, and waives it with the reason.",
    help: "check that existing objects stay valid, then waive this with the reason",
    reference: CRDIFY,
    check: compared_not_linted,
};

pub(crate) static CONTRACT_DROPPED: Rule = Rule {
    id: "upgrade/contract-dropped",
    severity: Severity::Error,
    summary: "a CRD lost its contract label, or the version it names is not served, while \
        `metadata.yaml` says this release implements the contract",
    explanation: "Cluster API finds a provider's API version for a contract through the \
        `cluster.x-k8s.io/<contract>` label of its CRDs; the highest version listed there must \
        be served. Without it, Clusters referencing the provider's objects stop reconciling. \
        The contract is the one of the new version's own release series (any series' when the \
        version is unknown).",
    help: "keep the label and serve the version it names, or stop claiming the contract in \
        `metadata.yaml`",
    reference: CONTRACT,
    check: compared_not_linted,
};

pub(crate) static SERIES_DROPPED: Rule = Rule {
    id: "upgrade/release-series-dropped",
    severity: Severity::Error,
    summary: "a release series of the previous `metadata.yaml` is gone or names another contract",
    explanation: "clusterctl reads the newest release's `metadata.yaml` for every installed \
        version: a dropped series makes installed releases unknown to `clusterctl upgrade` \
        (CAPC #404), a changed contract makes clusterctl pick the wrong releases.",
    help: "keep every released series with its contract, newest last",
    reference: CONTRACT,
    check: compared_not_linted,
};

pub(crate) static SERIES_MISSING: Rule = Rule {
    id: "upgrade/release-series-missing",
    severity: Severity::Error,
    summary: "the new version's own major.minor has no release series",
    explanation: "clusterctl refuses to install or upgrade to a version without a series \
        (k0smotron #1104, ipam-in-cluster #286, rke2 #374), pre-releases included.",
    help: "add `{major, minor, contract}` for this version to `metadata.yaml`",
    reference: CONTRACT,
    check: compared_not_linted,
};

pub(crate) static CRD_REMOVED: Rule = Rule {
    id: "upgrade/crd-removed",
    severity: Severity::Warning,
    summary: "a CRD of the previous release is gone",
    explanation: "`clusterctl upgrade` keeps CRDs: the removed one stays in every cluster, \
        orphaned, with its objects and nothing reconciling them.",
    help: "say in the release notes how to remove its objects and the CRD",
    reference: CONTRACT,
    check: compared_not_linted,
};

pub(crate) static RBAC_REMOVED: Rule = Rule {
    id: "upgrade/rbac-rule-removed",
    severity: Severity::Warning,
    summary: "an RBAC permission (apiGroup, resource, verb) of the previous release is gone",
    explanation: "A controller that still needs it fails at run time with `forbidden`, usually \
        only on the code path that uses it.",
    help: "check that no controller uses the permission any more",
    reference: CONTRACT,
    check: compared_not_linted,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_narrowing_is_of_an_upgrade_rule_and_said_once() {
        for (index, (id, object, _)) in NARROWING.iter().enumerate() {
            assert!(RULES.iter().any(|rule| rule.id == *id), "{id}");
            assert!(
                NARROWING[index + 1..]
                    .iter()
                    .all(|(other, _, _)| other != id),
                "{id} twice"
            );
            assert!(object.is_none_or(|o| o.contains('/')), "{id}");
        }
    }
}
