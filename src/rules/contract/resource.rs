//! What the contract rules read: CRDs with their versions, the contract role a CRD plays for core
//! Cluster API, and the release series of `metadata.yaml`.
//!
//! Recognising a *contract resource* (a CRD whose objects core Cluster API reads or writes) from
//! a components file is the crux of these rules; the decision is written down in the parent
//! module's comment and implemented by [`ContractResource::of`].

use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::provider::{FileRole, ProviderType};
use crate::rules::Context;
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

/// The label prefix of contract labels (`cluster.x-k8s.io/v1beta2: v1beta1_v1beta2`).
pub(super) const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

/// The API groups core Cluster API's own manager ClusterRole grants on every resource (`*`), as
/// in `core-components.yaml`: a provider in one of these needs no aggregated ClusterRole. Note
/// that subgroups (`vmware.infrastructure.cluster.x-k8s.io`) are *not* covered.
pub(super) const GROUPS_CORE_CAN_ACCESS: [&str; 4] = [
    "addons.cluster.x-k8s.io",
    "bootstrap.cluster.x-k8s.io",
    "controlplane.cluster.x-k8s.io",
    "infrastructure.cluster.x-k8s.io",
];

/// Core Cluster API's own groups: CRDs in them are core's, never a provider's contract resource.
const CORE_GROUPS: [&str; 4] = [
    "cluster.x-k8s.io",
    "addons.cluster.x-k8s.io",
    "ipam.cluster.x-k8s.io",
    "runtime.cluster.x-k8s.io",
];

/// A provider contract page in the Cluster API book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ContractPage {
    /// `InfraMachinePool contract`.
    pub name: &'static str,
    pub url: &'static str,
}

pub(super) const INFRA_CLUSTER_CONTRACT: ContractPage = ContractPage {
    name: "InfraCluster contract",
    url: "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-cluster",
};
pub(super) const INFRA_MACHINE_CONTRACT: ContractPage = ContractPage {
    name: "InfraMachine contract",
    url: "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-machine",
};
pub(super) const INFRA_MACHINE_POOL_CONTRACT: ContractPage = ContractPage {
    name: "InfraMachinePool contract",
    url: "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-machinepool",
};
pub(super) const CONTROL_PLANE_CONTRACT: ContractPage = ContractPage {
    name: "ControlPlane contract",
    url: "https://cluster-api.sigs.k8s.io/developer/providers/contracts/control-plane",
};
pub(super) const BOOTSTRAP_CONFIG_CONTRACT: ContractPage = ContractPage {
    name: "BootstrapConfig contract",
    url: "https://cluster-api.sigs.k8s.io/developer/providers/contracts/bootstrap-config",
};

/// The resource a CRD implements for core Cluster API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Referenced by `Cluster.spec.infrastructureRef`.
    InfraCluster,
    /// Referenced by `Machine.spec.infrastructureRef`.
    InfraMachine,
    /// Referenced by `MachinePool.spec.template.spec.infrastructureRef`.
    InfraMachinePool,
    /// The per-replica machines of a pool with MachinePool Machines (Azure's
    /// `AzureMachinePoolMachine`): referenced by Machines, created by the pool, no template.
    InfraMachinePoolMachine,
    /// Referenced by `Cluster.spec.controlPlaneRef`.
    ControlPlane,
    /// Referenced by `Machine.spec.bootstrap.configRef`.
    BootstrapConfig,
}

impl Role {
    /// The contract's name for the resource (`InfraMachinePool`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Role::InfraCluster => "InfraCluster",
            Role::InfraMachine => "InfraMachine",
            Role::InfraMachinePool => "InfraMachinePool",
            Role::InfraMachinePoolMachine => "InfraMachine (MachinePool Machine)",
            Role::ControlPlane => "ControlPlane",
            Role::BootstrapConfig => "BootstrapConfig",
        }
    }

    /// The name the contract's section titles use (`InfraMachine` for pool machines too).
    pub(super) fn section_name(self) -> &'static str {
        match self {
            Role::InfraMachinePoolMachine => "InfraMachine",
            other => other.name(),
        }
    }

    /// The book page whose rules the resource follows.
    pub(super) fn contract(self) -> ContractPage {
        match self {
            Role::InfraCluster => INFRA_CLUSTER_CONTRACT,
            Role::InfraMachine | Role::InfraMachinePoolMachine => INFRA_MACHINE_CONTRACT,
            Role::InfraMachinePool => INFRA_MACHINE_POOL_CONTRACT,
            Role::ControlPlane => CONTROL_PLANE_CONTRACT,
            Role::BootstrapConfig => BOOTSTRAP_CONFIG_CONTRACT,
        }
    }

    /// Whether the contract asks for a `<Kind>Template` CRD beside this resource, and how
    /// strongly: `Some(true)` when mandatory (MachineDeployments and MachineSets clone machine and
    /// bootstrap templates), `Some(false)` when only ClusterClass needs it.
    pub(super) fn template_mandatory(self) -> Option<bool> {
        match self {
            Role::InfraMachine | Role::BootstrapConfig => Some(true),
            Role::InfraCluster | Role::InfraMachinePool | Role::ControlPlane => Some(false),
            Role::InfraMachinePoolMachine => None,
        }
    }
}

/// A CRD's contract role, and whether it is the role's `…Template`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ContractResource {
    pub role: Role,
    pub template: bool,
}

impl ContractResource {
    /// The role a CRD of `kind` in `group` plays, shipped by a provider of `provider_type`. See
    /// the parent module's comment for the reasoning.
    pub(super) fn of(provider_type: Option<ProviderType>, group: &str, kind: &str) -> Option<Self> {
        match provider_type {
            Some(
                ProviderType::Core
                | ProviderType::Ipam
                | ProviderType::Addon
                | ProviderType::RuntimeExtension,
            ) => return None,
            Some(
                ProviderType::Bootstrap | ProviderType::ControlPlane | ProviderType::Infrastructure,
            )
            | None => {}
        }
        if CORE_GROUPS.contains(&group) {
            return None;
        }
        let (base, template) = match kind.strip_suffix("Template") {
            Some(base) if !base.is_empty() => (base, true),
            _ => (kind, false),
        };
        let has_prefix = |suffix: &str| base.len() > suffix.len() && base.ends_with(suffix);
        let in_group = |word: &str| group.split('.').any(|label| label == word);
        let infrastructure =
            provider_type == Some(ProviderType::Infrastructure) || in_group("infrastructure");
        let bootstrap = provider_type == Some(ProviderType::Bootstrap) || in_group("bootstrap");
        let role = if has_prefix("ControlPlane") {
            Role::ControlPlane
        } else if bootstrap && has_prefix("Config") {
            Role::BootstrapConfig
        } else if infrastructure && has_prefix("MachinePoolMachine") {
            if template {
                return None;
            }
            Role::InfraMachinePoolMachine
        } else if infrastructure && has_prefix("MachinePool") {
            Role::InfraMachinePool
        } else if infrastructure && has_prefix("Machine") {
            Role::InfraMachine
        } else if infrastructure && has_prefix("Cluster") {
            Role::InfraCluster
        } else {
            return None;
        };
        Some(Self { role, template })
    }

    /// `InfraMachinePoolTemplate`, `ControlPlane`, for messages.
    pub(super) fn describe(self) -> String {
        match (self.role, self.template) {
            (role, false) => role.name().to_string(),
            (role, true) => format!("{}Template", role.name()),
        }
    }
}

/// One entry of a CRD's `spec.versions`.
#[derive(Debug, Clone, Copy)]
pub(super) struct CrdVersion<'a> {
    pub node: &'a Node,
    pub name: Option<&'a str>,
    pub served: bool,
    pub storage: bool,
}

impl<'a> CrdVersion<'a> {
    /// The node that best stands for the version: its `name` value.
    pub(super) fn anchor(&self) -> &'a Node {
        self.node.get("name").unwrap_or(self.node)
    }

    pub(super) fn subresource(&self, name: &str) -> Option<&'a Node> {
        self.node.path(&["subresources", name])
    }

    /// True when the version's schema declares `spec.replicas`.
    pub(super) fn declares_spec_replicas(&self) -> bool {
        self.node
            .path(&[
                "schema",
                "openAPIV3Schema",
                "properties",
                "spec",
                "properties",
                "replicas",
            ])
            .is_some()
    }

    /// True when the version has no structural schema to read fields from.
    pub(super) fn has_schema(&self) -> bool {
        self.node.path(&["schema", "openAPIV3Schema"]).is_some()
    }
}

/// A CustomResourceDefinition in a components file.
#[derive(Debug, Clone)]
pub(super) struct Crd<'a> {
    pub file: &'a ReleaseFile,
    pub object: Object<'a>,
    pub provider_type: Option<ProviderType>,
    /// `spec.group`.
    pub group: Option<&'a str>,
    /// `spec.names.kind`.
    pub kind: Option<&'a str>,
    pub versions: Vec<CrdVersion<'a>>,
}

impl<'a> Crd<'a> {
    /// Every CRD of every components file, in file then document order.
    pub(super) fn all(cx: &'a Context<'_>) -> Vec<Crd<'a>> {
        let mut crds = Vec::new();
        for file in cx.release.components() {
            let provider_type = file_provider_type(cx, file);
            for object in file.yaml.roots().filter_map(Object::new) {
                if object.is_kind("CustomResourceDefinition")
                    && object.group() == "apiextensions.k8s.io"
                {
                    crds.push(Crd::new(file, object, provider_type));
                }
            }
        }
        crds
    }

    fn new(file: &'a ReleaseFile, object: Object<'a>, provider_type: Option<ProviderType>) -> Self {
        let spec = object.root.get("spec");
        let text = |keys: &[&str]| spec.and_then(|s| s.path(keys)).and_then(Node::as_str);
        let versions = spec
            .and_then(|s| s.get("versions"))
            .map(Node::items)
            .unwrap_or_default()
            .iter()
            .map(|node| CrdVersion {
                node,
                name: node.get("name").and_then(Node::as_str),
                served: is_true(node.get("served")),
                storage: is_true(node.get("storage")),
            })
            .collect();
        Crd {
            file,
            object,
            provider_type,
            group: text(&["group"]),
            kind: text(&["names", "kind"]),
            versions,
        }
    }

    /// The contract role of this CRD, if it plays one.
    pub(super) fn contract_resource(&self) -> Option<ContractResource> {
        ContractResource::of(self.provider_type, self.group?, self.kind?)
    }

    /// The CRD's name, or `(unnamed)`.
    pub(super) fn name(&self) -> &'a str {
        self.object.name().unwrap_or("(unnamed)")
    }

    /// The node a finding about the CRD as a whole points at (its `metadata.name`).
    pub(super) fn anchor(&self) -> &'a Node {
        self.object.anchor()
    }

    pub(super) fn spec(&self, keys: &[&str]) -> Option<&'a Node> {
        self.object.root.get("spec")?.path(keys)
    }

    /// `spec.names.plural`.
    pub(super) fn plural(&self) -> Option<&'a str> {
        self.spec(&["names", "plural"])?.as_str()
    }

    pub(super) fn served_versions(&self) -> impl Iterator<Item = &CrdVersion<'a>> {
        self.versions.iter().filter(|v| v.served)
    }

    /// The version called `name`.
    pub(super) fn version(&self, name: &str) -> Option<&CrdVersion<'a>> {
        self.versions.iter().find(|v| v.name == Some(name))
    }
}

/// True for a scalar a YAML 1.1 reader takes as `true`.
pub(super) fn is_true(node: Option<&Node>) -> bool {
    matches!(node.and_then(Node::resolve), Some(Resolved::Bool(true)))
}

/// The provider type for one components file: the run's (flags, or file names when they agree),
/// else the file's own name.
pub(super) fn file_provider_type(cx: &Context<'_>, file: &ReleaseFile) -> Option<ProviderType> {
    cx.provider.provider_type.or(match file.role {
        FileRole::Components { provider_type, .. } => Some(provider_type),
        _ => None,
    })
}

/// True when `text` holds a `${…}` placeholder, so only substitution tells what it is.
pub(super) fn has_variable(text: &str) -> bool {
    text.contains("${")
}

/// One entry of `metadata.yaml`'s `releaseSeries`.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReleaseSeries<'a> {
    pub major: i128,
    pub minor: i128,
    pub contract: &'a str,
}

impl ReleaseSeries<'_> {
    pub(super) fn display(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
}

/// The release series of the release's `metadata.yaml`, skipping entries that do not decode
/// (the metadata rules report those).
pub(super) fn release_series<'a>(cx: &'a Context<'_>) -> Vec<ReleaseSeries<'a>> {
    let Some(root) = cx.release.metadata().and_then(|f| f.yaml.roots().next()) else {
        return Vec::new();
    };
    let int = |node: &Node, key: &str| match node.get(key).and_then(Node::resolve) {
        Some(Resolved::Int(value)) => Some(value),
        _ => None,
    };
    root.get("releaseSeries")
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|entry| {
            Some(ReleaseSeries {
                major: int(entry, "major")?,
                minor: int(entry, "minor")?,
                contract: entry.get("contract")?.as_str()?,
            })
        })
        .collect()
}

/// The contract the components being linted must implement, and why: the release series of
/// `--version` (clusterctl's `GetReleaseSeriesForVersion`: the first entry with the same major
/// and minor), else the newest series in `metadata.yaml`.
pub(super) fn current_contract<'a>(cx: &'a Context<'_>) -> Option<(&'a str, String)> {
    let series = release_series(cx);
    if let Some(version) = cx.version {
        let matching = series.iter().find(|s| {
            i128::from(version.major()) == s.major && i128::from(version.minor()) == s.minor
        });
        if let Some(found) = matching {
            return Some((
                found.contract,
                format!(
                    "release series {} of `--version {version}` in `metadata.yaml`",
                    found.display()
                ),
            ));
        }
    }
    // The newest series; on ties the later entry, as clusterctl's contract look-up does.
    let newest = series
        .iter()
        .fold(None::<&ReleaseSeries<'_>>, |best, s| match best {
            Some(b) if (b.major, b.minor) > (s.major, s.minor) => Some(b),
            _ => Some(s),
        })?;
    Some((
        newest.contract,
        format!(
            "newest release series {} in `metadata.yaml`",
            newest.display()
        ),
    ))
}

/// Orders API version names as Kubernetes does (`CompareKubeAwareVersionStrings`): names of the
/// form `v<major>[alpha|beta<minor>]` above all others; among those GA above beta above alpha,
/// then by major, then by minor; other names reverse-alphabetically. Used to tell which
/// version of a contract label core picks: the greatest.
pub(super) fn compare_kube_versions(a: &str, b: &str) -> std::cmp::Ordering {
    match (kube_version_key(a), kube_version_key(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Greater,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

/// `(stability, major, minor)` with stability 0 alpha, 1 beta, 2 GA, for names matching
/// `^v(\d+)(?:(alpha|beta)(\d+))?$`.
fn kube_version_key(version: &str) -> Option<(u8, u64, u64)> {
    let rest = version.strip_prefix('v')?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (major, rest) = rest.split_at(digits);
    let major: u64 = major.parse().ok()?;
    if rest.is_empty() {
        return Some((2, major, 0));
    }
    let (stability, minor) = if let Some(minor) = rest.strip_prefix("beta") {
        (1, minor)
    } else if let Some(minor) = rest.strip_prefix("alpha") {
        (0, minor)
    } else {
        return None;
    };
    if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((stability, major, minor.parse().ok()?))
}

/// True for a label key of the form `cluster.x-k8s.io/v1beta2` (a contract label).
pub(super) fn is_contract_label(key: &str) -> bool {
    key.strip_prefix(CONTRACT_LABEL_PREFIX)
        .is_some_and(|version| kube_version_key(version).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn roles_of_corpus_kinds() {
        let infra = Some(ProviderType::Infrastructure);
        let group = "infrastructure.cluster.x-k8s.io";
        let role = |t, g, k| ContractResource::of(t, g, k).map(|r| (r.role, r.template));
        assert_eq!(
            role(infra, group, "AWSCluster"),
            Some((Role::InfraCluster, false))
        );
        assert_eq!(
            role(infra, group, "AWSManagedClusterTemplate"),
            Some((Role::InfraCluster, true))
        );
        assert_eq!(
            role(infra, group, "HetznerBareMetalMachine"),
            Some((Role::InfraMachine, false))
        );
        assert_eq!(
            role(infra, group, "AzureMachinePoolMachine"),
            Some((Role::InfraMachinePoolMachine, false))
        );
        assert_eq!(
            role(infra, group, "AWSManagedMachinePool"),
            Some((Role::InfraMachinePool, false))
        );
        // Managed control planes shipped by infrastructure providers are ControlPlanes.
        assert_eq!(
            role(infra, group, "AzureManagedControlPlane"),
            Some((Role::ControlPlane, false))
        );
        assert_eq!(
            role(infra, "bootstrap.cluster.x-k8s.io", "EKSConfigTemplate"),
            Some((Role::BootstrapConfig, true))
        );
        assert_eq!(
            role(
                infra,
                "vmware.infrastructure.cluster.x-k8s.io",
                "VSphereMachine"
            ),
            Some((Role::InfraMachine, false))
        );
        // Helper CRDs are not contract resources.
        for kind in [
            "AWSClusterControllerIdentity",
            "AWSClusterStaticIdentity",
            "AzureClusterIdentity",
            "ROSARoleConfig",
            "ROSANetwork",
            "Metal3DataTemplate",
            "Metal3RemediationTemplate",
            "HetznerBareMetalHost",
            "LinodeFirewall",
            "OpenStackServer",
            "VSphereVM",
            "VSphereDeploymentZone",
            "ProviderServiceAccount",
            "Cluster",
            "Machine",
        ] {
            assert_eq!(role(infra, group, kind), None, "{kind}");
        }
        // k0smotron's own CRDs in a control plane provider.
        let cp = Some(ProviderType::ControlPlane);
        assert_eq!(role(cp, "k0smotron.io", "Cluster"), None);
        assert_eq!(role(cp, "k0smotron.io", "JoinTokenRequest"), None);
        assert_eq!(
            role(
                cp,
                "controlplane.cluster.x-k8s.io",
                "K0smotronControlPlaneTemplate"
            ),
            Some((Role::ControlPlane, true))
        );
        // Core, IPAM and add-on providers have no contract resources.
        for t in [ProviderType::Core, ProviderType::Ipam, ProviderType::Addon] {
            assert_eq!(role(Some(t), group, "FooCluster"), None);
        }
        assert_eq!(role(infra, "cluster.x-k8s.io", "MachinePool"), None);
    }

    #[test]
    fn kube_aware_version_order() {
        let mut versions = vec![
            "v1beta1",
            "foo",
            "v1",
            "v1alpha2",
            "v2",
            "v1beta2",
            "v11alpha1",
            "bar",
        ];
        versions.sort_by(|a, b| compare_kube_versions(a, b));
        assert_eq!(
            versions,
            vec![
                "foo",
                "bar",
                "v1alpha2",
                "v11alpha1",
                "v1beta1",
                "v1beta2",
                "v1",
                "v2"
            ]
        );
        assert_eq!(compare_kube_versions("v1beta2", "v1beta10"), Ordering::Less);
        assert!(is_contract_label("cluster.x-k8s.io/v1beta2"));
        assert!(!is_contract_label("cluster.x-k8s.io/provider"));
        assert!(!is_contract_label("cluster.x-k8s.io/aggregate-to-manager"));
    }
}
