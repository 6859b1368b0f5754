//! `rbac/…`: the permissions the contracts ask a provider to ship: core Cluster API's access to
//! resources outside the groups core's own ClusterRole covers, and a bootstrap provider's access
//! to the Secrets it writes.
//!
//! Permissions are read from the `rules` of the Roles and ClusterRoles in the same components
//! file (vSphere ships two alternative components files); a rule counts only when it names the
//! group (or `*`), the resource (or `*`; `foos/status` is another resource) and no
//! `resourceNames`.

use super::cite;
use super::resource::{
    BOOTSTRAP_CONFIG_CONTRACT, CONTROL_PLANE_CONTRACT, Crd, GROUPS_CORE_CAN_ACCESS, Role,
    file_provider_type, has_variable,
};
use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::provider::ProviderType;
use crate::rules::{Reference, Rule, Severity};
use crate::yaml::Node;

/// The label that aggregates a ClusterRole into core Cluster API's manager role.
pub(super) const AGGREGATE_LABEL: &str = "cluster.x-k8s.io/aggregate-to-manager";

/// "Full read/write", as the contracts' example ClusterRoles grant on resources.
const READ_WRITE: [&str; 7] = [
    "get", "list", "watch", "create", "update", "patch", "delete",
];

/// What the ControlPlane contract's example grants on templates (core reads them and, with
/// ClusterClass, patches them).
const TEMPLATE_ACCESS: [&str; 5] = ["get", "list", "watch", "patch", "update"];

pub(super) static AGGREGATE_TO_MANAGER: Rule = Rule {
    id: "rbac/aggregate-to-manager",
    severity: Severity::Error,
    summary: "core Cluster API is not granted access to contract resources outside its own API groups",
    explanation: "Core Cluster API's manager ClusterRole grants every verb on all resources of \
        `infrastructure.`, `bootstrap.`, `controlplane.` and `addons.cluster.x-k8s.io`, and \
        nothing else. A provider whose contract resources live in another group (its own \
        domain, or a subgroup such as `vmware.infrastructure.cluster.x-k8s.io`) MUST ship a \
        ClusterRole labelled `cluster.x-k8s.io/aggregate-to-manager: \"true\"` that grants core \
        full read/write access to them (get, list, watch, create, update, patch, delete; on \
        templates at least get, list, watch, patch, update). Without it core's controllers are \
        forbidden from reading the provider's objects and Clusters never provision.",
    help: "ship a ClusterRole labelled `cluster.x-k8s.io/aggregate-to-manager: \"true\"` that \
        grants those verbs on the resources (\"All resources: API group\" in the provider \
        contract)",
    reference: Reference {
        title: "provider contracts, \"All resources: API group\" (grant full read/write RBAC \
            permissions via a ClusterRole with the aggregation label)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        let crds = Crd::all(cx);
        for file in cx.release.components() {
            let aggregated: Vec<Object<'_>> = cluster_roles(file)
                .filter(|role| {
                    role.label(AGGREGATE_LABEL)
                        .and_then(Node::scalar_text)
                        .is_some_and(|v| v == "true")
                })
                .collect();
            for crd in crds.iter().filter(|c| std::ptr::eq(c.file, file)) {
                let (Some(resource), Some(group), Some(plural)) =
                    (crd.contract_resource(), crd.group, crd.plural())
                else {
                    continue;
                };
                if GROUPS_CORE_CAN_ACCESS.contains(&group) || has_variable(group) {
                    continue;
                }
                let required: &[&str] = if resource.template {
                    &TEMPLATE_ACCESS
                } else {
                    &READ_WRITE
                };
                let grants: Vec<(&Object<'_>, &Node)> = aggregated
                    .iter()
                    .flat_map(|role| role_rules(role).map(move |rule| (role, rule)))
                    .filter(|(_, rule)| covers(rule, group, plural))
                    .collect();
                let granted: Vec<&str> = required
                    .iter()
                    .copied()
                    .filter(|verb| grants.iter().any(|(_, rule)| grants_verb(rule, verb)))
                    .collect();
                let missing: Vec<&str> = required
                    .iter()
                    .copied()
                    .filter(|verb| !granted.contains(verb))
                    .collect();
                if missing.is_empty() {
                    continue;
                }
                let help = format!(
                    "grant `{}` on `{plural}` in group `{group}` in a ClusterRole labelled \
                     `{AGGREGATE_LABEL}: \"true\"` ({})",
                    required.join(", "),
                    cite(resource.role, "All resources: API group")
                );
                let diagnostic = match (grants.first(), aggregated.first()) {
                    (Some((role, rule)), _) => findings.at_node(
                        file,
                        rule,
                        format!(
                            "aggregated ClusterRole `{}` grants core Cluster API `{}` on \
                             `{plural}` ({} `{}`) but not `{}`",
                            role.name().unwrap_or("(unnamed)"),
                            granted.join(", "),
                            resource.describe(),
                            crd.kind.unwrap_or("?"),
                            missing.join(", ")
                        ),
                    ),
                    (None, Some(role)) => findings.at_node(
                        file,
                        role.root.get("rules").unwrap_or(role.anchor()),
                        format!(
                            "aggregated ClusterRole `{}` grants core Cluster API nothing on \
                             `{plural}` in group `{group}` ({} `{}`), which core's own role does \
                             not cover",
                            role.name().unwrap_or("(unnamed)"),
                            resource.describe(),
                            crd.kind.unwrap_or("?")
                        ),
                    ),
                    (None, None) => findings.at_node(
                        file,
                        crd.anchor(),
                        format!(
                            "no ClusterRole labelled `{AGGREGATE_LABEL}: \"true\"` grants \
                             core Cluster API access to `{plural}` in group `{group}` ({} `{}`), \
                             which core's own role does not cover",
                            resource.describe(),
                            crd.kind.unwrap_or("?")
                        ),
                    ),
                };
                diagnostic.with_help(help);
                if !grants.is_empty() || !aggregated.is_empty() {
                    diagnostic.with_label(crd.anchor().span(), "the CRD");
                }
            }
        }
    },
};

pub(super) static BOOTSTRAP_SECRETS: Rule = Rule {
    id: "rbac/bootstrap-secrets",
    severity: Severity::Error,
    summary: "a bootstrap provider cannot manage the Secrets that hold bootstrap data",
    explanation: "A bootstrap provider writes each Machine's bootstrap data into a Secret named \
        by `status.dataSecretName`, and must be able to get, list, watch, create, update, patch \
        and delete Secrets (`+kubebuilder:rbac:groups=\"\",resources=secrets,...`). Without \
        those verbs the controller fails at its first Machine. Checked for bootstrap providers \
        and for any components that ship a BootstrapConfig (EKS's and GKE's configs come with \
        infrastructure providers), across all Roles and ClusterRoles of the file.",
    help: "grant get, list, watch, create, update, patch and delete on `secrets` (API group \
        `\"\"`) to the provider's controller (bootstrap provider contract, \"RBAC\" > \"Provider \
        controller\")",
    reference: Reference {
        title: "bootstrap provider contract, \"RBAC\" > \"Provider controller\"",
        url: BOOTSTRAP_CONFIG_CONTRACT.url,
    },
    check: |cx, findings| {
        let crds = Crd::all(cx);
        for file in cx.release.components() {
            let ships_config = crds.iter().any(|crd| {
                std::ptr::eq(crd.file, file)
                    && crd
                        .contract_resource()
                        .is_some_and(|r| r.role == Role::BootstrapConfig && !r.template)
            });
            if file_provider_type(cx, file) != Some(ProviderType::Bootstrap) && !ships_config {
                continue;
            }
            let roles: Vec<Object<'_>> = file
                .yaml
                .roots()
                .filter_map(Object::new)
                .filter(|o| o.is_kind("ClusterRole") || o.is_kind("Role"))
                .collect();
            let grants: Vec<&Node> = roles
                .iter()
                .flat_map(role_rules)
                .filter(|rule| covers(rule, "", "secrets"))
                .collect();
            let missing: Vec<&str> = READ_WRITE
                .iter()
                .copied()
                .filter(|verb| !grants.iter().any(|rule| grants_verb(rule, verb)))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let message = format!(
                "no Role or ClusterRole in the components grants `{}` on `secrets`, which a \
                 bootstrap provider needs to write bootstrap data",
                missing.join(", ")
            );
            match grants
                .first()
                .copied()
                .or_else(|| roles.first().map(|r| r.anchor()))
            {
                Some(node) => findings.at_node(file, node, message),
                None => findings.on_file(file, message),
            };
        }
    },
};

fn cluster_roles(file: &ReleaseFile) -> impl Iterator<Item = Object<'_>> {
    file.yaml
        .roots()
        .filter_map(Object::new)
        .filter(|o| o.is_kind("ClusterRole") && o.group() == "rbac.authorization.k8s.io")
}

/// The entries of a Role's `rules`.
fn role_rules<'a>(role: &Object<'a>) -> impl Iterator<Item = &'a Node> + use<'a> {
    role.root
        .get("rules")
        .map(Node::items)
        .unwrap_or_default()
        .iter()
}

/// The strings of a list field of an RBAC rule.
fn strings<'a>(rule: &'a Node, key: &str) -> impl Iterator<Item = &'a str> {
    rule.get(key)
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::scalar_text)
}

/// True when the rule applies to every object of `resource` in `group`.
fn covers(rule: &Node, group: &str, resource: &str) -> bool {
    let restricted = rule
        .get("resourceNames")
        .is_some_and(|names| !names.items().is_empty());
    !restricted
        && strings(rule, "apiGroups").any(|g| g == group || g == "*")
        && strings(rule, "resources").any(|r| r == resource || r == "*")
}

fn grants_verb(rule: &Node, verb: &str) -> bool {
    strings(rule, "verbs").any(|v| v == verb || v == "*")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const INFRA: &str = "infrastructure-components.yaml";
    const BOOTSTRAP: &str = "bootstrap-components.yaml";

    fn crd(group: &str, kind: &str, plural: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  group: {group}\n  names:\n    kind: {kind}\n    plural: {plural}\n  scope: Namespaced\n"
        )
    }

    fn cluster_role(labels: &str, rules: &str) -> String {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: capi-foo\n  labels:\n{labels}rules:\n{rules}"
        )
    }

    const AGGREGATE: &str = "    cluster.x-k8s.io/aggregate-to-manager: \"true\"\n";

    #[test]
    fn aggregated_role_grants_core_access() {
        let crds = [
            crd("infrastructure.foo.com", "FooCluster", "fooclusters"),
            crd(
                "infrastructure.foo.com",
                "FooClusterTemplate",
                "fooclustertemplates",
            ),
        ]
        .join("---\n");
        let full = "- apiGroups: [infrastructure.foo.com]\n  resources: [fooclusters]\n  verbs: [create, delete, get, list, patch, update, watch]\n- apiGroups: [infrastructure.foo.com]\n  resources: [fooclustertemplates]\n  verbs: [get, list, patch, update, watch]\n";
        let good = format!("{crds}---\n{}", cluster_role(AGGREGATE, full));
        assert!(check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &good)]).is_empty());
        let wildcard = format!(
            "{crds}---\n{}",
            cluster_role(
                AGGREGATE,
                "- apiGroups: ['*']\n  resources: ['*']\n  verbs: ['*']\n"
            )
        );
        assert!(check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &wildcard)]).is_empty());

        // No aggregated ClusterRole at all: two findings, at the CRDs.
        let found = check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &crds)]);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].rule, "rbac/aggregate-to-manager");
        assert_eq!(at(&found[0]), (4, 9));
        assert!(
            found[0]
                .message
                .contains("`fooclusters` in group `infrastructure.foo.com`")
        );
        assert!(found[0].help.contains("infra-cluster"));

        // The label missing: the role does not count.
        let unlabelled = format!("{crds}---\n{}", cluster_role("    a: b\n", full));
        assert_eq!(
            check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &unlabelled)]).len(),
            2
        );

        // Partial verbs: pointed at the rule entry.
        let partial = full.replace("create, delete, get", "get");
        let text = format!("{crds}---\n{}", cluster_role(AGGREGATE, &partial));
        let found = check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (30, 3));
        assert!(found[0].message.contains("`capi-foo`"));
        assert!(found[0].message.contains("but not `create, delete`"));
        assert_eq!(found[0].labels.len(), 1);
    }

    #[test]
    fn core_groups_need_no_aggregated_role() {
        let text = crd(
            "infrastructure.cluster.x-k8s.io",
            "FooCluster",
            "fooclusters",
        );
        assert!(check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &text)]).is_empty());
        // A subgroup is not covered by core's role (vSphere's supervisor CRDs).
        let sub = crd(
            "vmware.infrastructure.cluster.x-k8s.io",
            "FooCluster",
            "fooclusters",
        );
        assert_eq!(
            check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &sub)]).len(),
            1
        );
        // Helper CRDs are not checked.
        let helper = crd("infrastructure.foo.com", "FooIdentity", "fooidentities");
        assert!(check_files(&AGGREGATE_TO_MANAGER, &[(INFRA, &helper)]).is_empty());
    }

    #[test]
    fn bootstrap_secrets() {
        let config = crd("bootstrap.cluster.x-k8s.io", "FooConfig", "fooconfigs");
        let role = |verbs: &str| {
            cluster_role(
                "    a: b\n",
                &format!("- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [{verbs}]\n"),
            )
        };
        let good = format!(
            "{config}---\n{}",
            role("create, delete, get, list, patch, update, watch")
        );
        assert!(check_files(&BOOTSTRAP_SECRETS, &[(BOOTSTRAP, &good)]).is_empty());
        let bad = format!("{config}---\n{}", role("get, list, watch"));
        let found = check_files(&BOOTSTRAP_SECRETS, &[(BOOTSTRAP, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "rbac/bootstrap-secrets");
        assert_eq!(at(&found[0]), (19, 3));
        assert!(
            found[0]
                .message
                .contains("`create, update, patch, delete` on `secrets`")
        );
        // Infrastructure providers shipping no BootstrapConfig are not checked.
        assert!(check_files(&BOOTSTRAP_SECRETS, &[(INFRA, &role("get"))]).is_empty());
        // ... but those shipping one are.
        assert_eq!(check_files(&BOOTSTRAP_SECRETS, &[(INFRA, &bad)]).len(), 1);
    }
}
