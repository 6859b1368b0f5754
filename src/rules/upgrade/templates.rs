//! `upgrade/…` rules for cluster templates and ClusterClass files: what `clusterctl generate
//! cluster` users and Cluster API's ClusterClass webhook meet when a release changes them
//! ([`crate::diff::templates`], [`crate::diff::clusterclass`] compare them).

use super::super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};
use super::compared_not_linted;

const TEMPLATES: Reference = Reference {
    title: "clusterctl provider contract, \"Workload cluster templates\"; clusterctl generate cluster",
    url: CLUSTERCTL_CONTRACT,
};

const GENERATE: Reference = Reference {
    title: "clusterctl book, \"clusterctl generate cluster\" (variables and flavors)",
    url: "https://cluster-api.sigs.k8s.io/clusterctl/commands/generate-cluster",
};

const CHANGE_CLUSTERCLASS: Reference = Reference {
    title: "Cluster API book, \"Changing a ClusterClass\" (compatibility checks, rebase)",
    url: "https://cluster-api.sigs.k8s.io/tasks/experimental-features/cluster-class/change-clusterclass",
};

pub(crate) static FLAVOR_REMOVED: Rule = Rule {
    id: "upgrade/flavor-removed",
    severity: Severity::Warning,
    summary: "a `cluster-template[-{flavor}].yaml` of the previous release is gone",
    explanation: "`clusterctl generate cluster --flavor X` reads `cluster-template-X.yaml` (without \
        `--flavor`, `cluster-template.yaml`) from the release it installs, the newest by \
        default, and fails with `failed to read \"cluster-template-X.yaml\" from provider's \
        repository` once the flavor is gone: users' scripts and docs that name it stop working. \
        A warning, not an error: `clusterctl upgrade` never reads templates, Clusters created \
        from the flavor keep running, the previous release still serves it \
        (`--infrastructure name:vX.Y.Z`), and maintainers retire flavors on purpose (CAPO \
        v0.8.0 dropped `external-cloud-provider` when it became the default, v0.14.0 replaced \
        `development` with `topology`). The release notes should say so.",
    help: "keep the flavor for a release with a deprecation note, or name its replacement in \
        the release notes (and waive this with that reason)",
    reference: TEMPLATES,
    check: compared_not_linted,
};

pub(crate) static TEMPLATE_VARIABLE_REQUIRED: Rule = Rule {
    id: "upgrade/template-variable-required",
    severity: Severity::Error,
    summary: "a template or ClusterClass file needs a variable (`${VAR}` without a default) its \
        previous version did not need",
    explanation: "clusterctl refuses to render a file while a variable used without a default \
        is unset (`value for variables [VAR] is not set`), so every `clusterctl generate \
        cluster` invocation that worked with the previous release fails until users find and \
        set the new variable (CAPO v0.5.0's `cluster-template.yaml` started needing \
        `OPENSTACK_EXTERNAL_NETWORK_ID`). A variable that lost its default counts too. \
        `CLUSTER_NAME`, `NAMESPACE`, `CONTROL_PLANE_MACHINE_COUNT` and \
        `WORKER_MACHINE_COUNT` are not reported: `generate cluster` always sets them. Names \
        are compared as clusterctl looks them up (case-insensitively).",
    help: "give the variable a default (`${VAR:=value}`), or waive this with the release note \
        that tells users to set it",
    reference: GENERATE,
    check: compared_not_linted,
};

pub(crate) static TEMPLATE_CLUSTERCLASS_CHANGED: Rule = Rule {
    id: "upgrade/template-clusterclass-changed",
    severity: Severity::Warning,
    summary: "a template's Cluster uses another ClusterClass than before (or none)",
    explanation: "The Cluster's `spec.topology.class` (`classRef.name` in v1beta2) decides which \
        `clusterclass-<name>.yaml` clusterctl adds and which class the Cluster follows. Clusters \
        generated before keep the old class; a manifest regenerated from the new template and \
        applied to an existing Cluster rebases it, which Cluster API allows only between \
        compatible classes and which rolls out its machines.",
    help: "say in the release notes how existing Clusters move to the new class (or that they \
        stay), then waive this",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_REMOVED: Rule = Rule {
    id: "upgrade/clusterclass-removed",
    severity: Severity::Warning,
    summary: "a ClusterClass (a `clusterclass-<name>.yaml`, or a ClusterClass in a template) of \
        the previous release is gone",
    explanation: "Clusters using the class keep it (the ClusterClass webhook refuses to delete a \
        class in use), but the new release no longer ships it: templates and users' manifests \
        that name it fail in a management cluster that does not have it yet, and the class gets \
        no fixes any more.",
    help: "keep the class for a release with a deprecation note, or name its replacement in \
        the release notes (and waive this with that reason)",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_VARIABLE_REMOVED: Rule = Rule {
    id: "upgrade/clusterclass-variable-removed",
    severity: Severity::Error,
    summary: "a variable of a ClusterClass's `spec.variables` is gone",
    explanation: "Cluster API validates every Cluster's `spec.topology.variables` against its \
        class on each reconcile: once the updated class is applied (since Cluster API v1.4 the \
        ClusterClass webhook accepts it; before, it refused it while Clusters used the \
        variable), the topology controller stops reconciling every Cluster that sets the \
        variable (`variable is not defined`): no upgrade, no scaling, and the Cluster webhook \
        refuses edits to it, as it refuses manifests that set the variable.",
    help: "keep the variable (deprecated in its description, ignored by the patches), or ship \
        the change as a new ClusterClass users rebase onto",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_VARIABLE_REQUIRED: Rule = Rule {
    id: "upgrade/clusterclass-variable-required",
    severity: Severity::Error,
    summary: "a ClusterClass variable became `required: true`, or a new one is required",
    explanation: "Once the updated class is applied, the topology controller stops reconciling \
        every Cluster using it that does not set the variable (`required variable \"X\" must \
        be set`), and Clusters created from manifests written for the previous release are \
        refused (CAPV v1.10.0 added the required `controlPlanePort`). Before Cluster API v1.4 \
        the ClusterClass webhook refused the update instead.",
    help: "make the variable optional with a `default` in its schema, or ship the change as a \
        new ClusterClass",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_VARIABLE_NARROWED: Rule = Rule {
    id: "upgrade/clusterclass-variable-narrowed",
    severity: Severity::Error,
    summary: "a ClusterClass variable's `schema.openAPIV3Schema` accepts less than before",
    explanation: "The same checks as CRD schemas (`upgrade/crd-…`: a field removed, a type \
        changed, enum values removed, a maximum lowered, a minimum raised, a pattern added or \
        changed, a field made required, `nullable` or `oneOf` changed, any other validating \
        keyword changed). Cluster API validates every Cluster's values against the schema on \
        each reconcile: a Cluster whose value the new schema refuses is no longer reconciled \
        (no upgrade, no scaling) and cannot be edited until the value is fixed, and manifests \
        that set such values are refused (before Cluster API v1.4 the ClusterClass webhook \
        refused the update). A changed `default` is listed, not reported: Clusters store their values, so \
        only new Clusters get the new default. Descriptions, `example` and `x-metadata` do \
        not validate.",
    help: "keep the schema as permissive as before, or ship the change as a new ClusterClass",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_WORKER_CLASS_REMOVED: Rule = Rule {
    id: "upgrade/clusterclass-worker-class-removed",
    severity: Severity::Error,
    summary: "a MachineDeployment or MachinePool class of a ClusterClass is gone (or renamed)",
    explanation: "Clusters name worker classes in `spec.topology.workers` (`class: \
        default-worker`): the ClusterClass webhook refuses an update that removes a class in \
        use, and the Cluster webhook refuses manifests that name it (`MachineDeploymentClass \
        with name X does not exist`).",
    help: "keep the class (its templates may change), and add the new one beside it",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};

pub(crate) static CLUSTERCLASS_TEMPLATE_INCOMPATIBLE: Rule = Rule {
    id: "upgrade/clusterclass-template-incompatible",
    severity: Severity::Error,
    summary: "a template a ClusterClass references changed API group or kind, or is no longer \
        referenced",
    explanation: "Cluster API's compatibility checks refuse an updated ClusterClass whose \
        infrastructure, control plane, control plane machine infrastructure or worker \
        infrastructure template changes its API group or kind (`apiVersion.kind cannot be \
        changed from \"DockerClusterTemplate\" to \"DevClusterTemplate\"`, CAPD v1.14.0), since \
        the Clusters' existing objects cannot become another kind. A reference the class no \
        longer has leaves its Clusters without that part. A new name for a template of the same \
        kind is listed, not reported: template rotation is how Cluster API says templates \
        change. Bootstrap templates may change kind.",
    help: "keep the kind and group; a template of another kind needs a new ClusterClass for \
        new Clusters (the same checks refuse a rebase onto it)",
    reference: CHANGE_CLUSTERCLASS,
    check: compared_not_linted,
};
