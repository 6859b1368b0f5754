//! `crd/…`, `rbac/…` and `runtime/…`: the contracts between providers and core Cluster API, as
//! far as a components YAML shows them.
//!
//! Breaking these contracts rarely stops `clusterctl init` (only `crd/name` does); it breaks
//! clusters later: core cannot convert a reference because a CRD lacks its contract label,
//! ClusterClass cannot use a provider without template CRDs, `kubectl scale` cannot reach a
//! control plane, core controllers are forbidden from reading resources in a provider's own API
//! group. The files here:
//!
//! - `crd.rs`: name, storage version, scope, list kind, status and scale subresources, templates;
//! - `labels.rs`: the `cluster.x-k8s.io/<contract>` labels against `metadata.yaml`;
//! - `rbac.rs`: the aggregated ClusterRole core needs, the bootstrap Secret permissions;
//! - `runtime.rs`: runtime extension providers and `ExtensionConfig` registrations;
//! - `resource.rs`: the CRD view, contract roles and release series the rules share.
//!
//! The pluralisation behind `crd/name` is [`crate::flect`], tested there against flect's own
//! table, irregular kinds (`…y`, `…s`, `…x`, `…ch`, `Proxy`, `Policy`, `Status`) and every CRD of
//! the corpus; `crd.rs` adds the CRD-level cases (the skip annotation, `<plural>.<group>`).
//!
//! # Which CRDs are contract resources
//!
//! The contracts' rules on scope, list kinds, status, labels and RBAC apply to "all the provider's
//! resources core Cluster API interacts with", not to every CRD a provider ships. A components
//! file does not say which CRDs core references, so capkg decides from the provider type, the
//! API group and the kind, following the naming the contracts prescribe ("`${env}MachinePool`",
//! "the template resource MUST be named `<Resource>Template`"):
//!
//! - Core, IPAM, add-on and runtime extension providers have none: core's own CRDs are core's,
//!   and the IPAM and add-on contracts need no labels or templates. CRDs in core's groups
//!   (`cluster.x-k8s.io`, `addons.`, `ipam.`, `runtime.cluster.x-k8s.io`) are never a provider's.
//! - A kind ending in `Template` is the template of the resource its stem names.
//! - `…ControlPlane` is a ControlPlane in any group: infrastructure providers ship managed control
//!   planes (`AWSManagedControlPlane` in `controlplane.cluster.x-k8s.io`,
//!   `AzureManagedControlPlane` in `infrastructure.cluster.x-k8s.io`).
//! - `…Config` is a BootstrapConfig when the provider is a bootstrap provider or the group has a
//!   `bootstrap` label (`EKSConfig` and `GKEConfig` ship with infrastructure providers); other
//!   `…Config` kinds (`ROSARoleConfig`) are helpers.
//! - For infrastructure providers, or groups with an `infrastructure` label (vSphere's
//!   `vmware.infrastructure.cluster.x-k8s.io`): `…MachinePoolMachine` is a MachinePool Machine
//!   (an InfraMachine created by its pool, without a template), `…MachinePool` an
//!   InfraMachinePool, `…Machine` an InfraMachine, `…Cluster` an InfraCluster. The kind must have
//!   something before the suffix.
//!
//! Everything else is a helper and only meets the rules every CRD must meet (`crd/name`,
//! `crd/storage-version`): identities (`AWSClusterControllerIdentity`, cluster-scoped on
//! purpose), `Metal3Data`, `OpenStackServer`, `VSphereVM`, Azure's ASO resources, vSphere's
//! `ProviderServiceAccount`, k0smotron's `k0smotron.io` CRDs in a control plane provider. A
//! contract label on a helper is still checked for pointing at real versions, as a warning, since
//! core never reads it.

mod crd;
mod labels;
mod rbac;
mod resource;
mod runtime;

use resource::{ContractResource, Role};
pub(super) use runtime::selects;

use super::Rule;

pub(super) const RULES: &[&Rule] = &[
    &crd::NAME,
    &crd::STORAGE_VERSION,
    &crd::NAMESPACED,
    &crd::LIST_KIND,
    &crd::STATUS_SUBRESOURCE,
    &crd::SCALE_SUBRESOURCE,
    &crd::TEMPLATE,
    &labels::CONTRACT_LABEL,
    &labels::CONTRACT_LABEL_VERSIONS,
    &rbac::AGGREGATE_TO_MANAGER,
    &rbac::BOOTSTRAP_SECRETS,
    &runtime::DEPLOYMENT,
    &runtime::SERVICE,
    &runtime::CLIENT_CONFIG,
    &runtime::SERVICE_PORT,
    &runtime::CA_BUNDLE,
];

/// A contract section for a help line: `ControlPlane contract "All resources: scope": <url>`.
fn cite(role: Role, section: &str) -> String {
    let page = role.contract();
    format!("{} \"{section}\": {}", page.name, page.url)
}

/// The title of a resource's section about `topic`, as the contracts word it:
/// `section(FooMachineTemplate, "resource definition")` is
/// `InfraMachineTemplate, InfraMachineTemplateList resource definition`.
fn section(resource: ContractResource, topic: &str) -> String {
    let name = resource.role.section_name();
    if resource.template {
        format!("{name}Template, {name}TemplateList {topic}")
    } else {
        format!("{name}, {name}List {topic}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_cites_a_contract_section_in_its_help() {
        for rule in RULES {
            assert!(
                rule.help.contains('"') && rule.reference.title.contains('"'),
                "{} cites no section",
                rule.id
            );
            assert!(
                rule.reference
                    .url
                    .starts_with("https://cluster-api.sigs.k8s.io/"),
                "{}",
                rule.id
            );
            let group = rule.id.split('/').next().unwrap_or_default();
            assert!(["crd", "rbac", "runtime"].contains(&group), "{}", rule.id);
        }
    }

    #[test]
    fn section_titles() {
        let resource = ContractResource {
            role: Role::InfraMachinePoolMachine,
            template: false,
        };
        assert_eq!(
            section(resource, "resource definition"),
            "InfraMachine, InfraMachineList resource definition"
        );
        assert_eq!(
            cite(Role::ControlPlane, "All resources: scope"),
            "ControlPlane contract \"All resources: scope\": https://cluster-api.sigs.k8s.io/developer/providers/contracts/control-plane"
        );
    }
}
