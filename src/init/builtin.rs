//! clusterctl's built-in provider list (`clusterctl config repositories`): the name clusterctl
//! gives each provider repository it knows, which may differ from the repository's own labels
//! (`linode/cluster-api-provider-linode` is `linode-linode`). The list and its source are in
//! docs/clusterctl-builtin-providers.md; a provider released under another name is installed
//! twice by users who follow clusterctl's defaults.

use crate::provider::ProviderType;
use crate::provider::ProviderType::*;

/// Where the list is read from, for evidence lines.
pub(super) const SOURCE: &str = "cluster-api cmd/clusterctl/client/config/providers_client.go";

/// `(GitHub OWNER/NAME, type, clusterctl's name, line of the entry's name in SOURCE)`.
const BUILT_IN: [(&str, ProviderType, &str, usize); 66] = [
    ("kubernetes-sigs/cluster-api", Core, "cluster-api", 169),
    (
        "linode/cluster-api-provider-linode",
        Infrastructure,
        "linode-linode",
        176,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-aws",
        Infrastructure,
        "aws",
        181,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-azure",
        Infrastructure,
        "azure",
        186,
    ),
    ("kubernetes-sigs/cluster-api", Infrastructure, "docker", 192),
    (
        "cloudscale-ch/cluster-api-provider-cloudscale",
        Infrastructure,
        "cloudscale-ch-cloudscale",
        197,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-cloudstack",
        Infrastructure,
        "cloudstack",
        202,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-digitalocean",
        Infrastructure,
        "digitalocean",
        207,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-gcp",
        Infrastructure,
        "gcp",
        212,
    ),
    (
        "tinkerbell/cluster-api-provider-tinkerbell",
        Infrastructure,
        "tinkerbell-tinkerbell",
        217,
    ),
    (
        "metal3-io/cluster-api-provider-metal3",
        Infrastructure,
        "metal3",
        222,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-nested",
        Infrastructure,
        "nested",
        227,
    ),
    (
        "oracle/cluster-api-provider-oci",
        Infrastructure,
        "oci",
        232,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-openstack",
        Infrastructure,
        "openstack",
        237,
    ),
    ("siderolabs/sidero", Infrastructure, "sidero", 242),
    (
        "vmware/cluster-api-provider-cloud-director",
        Infrastructure,
        "vcd",
        247,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-vsphere",
        Infrastructure,
        "vsphere",
        252,
    ),
    (
        "spectrocloud/cluster-api-provider-maas",
        Infrastructure,
        "maas",
        257,
    ),
    (
        "coxedge/cluster-api-provider-coxedge",
        Infrastructure,
        "coxedge",
        262,
    ),
    (
        "vmware-tanzu/cluster-api-provider-bringyourownhost",
        Infrastructure,
        "byoh",
        267,
    ),
    (
        "rancher-sandbox/cluster-api-provider-harvester",
        Infrastructure,
        "harvester-harvester",
        272,
    ),
    (
        "syself/cluster-api-provider-hetzner",
        Infrastructure,
        "hetzner",
        277,
    ),
    (
        "HuaweiCloudDeveloper/cluster-api-provider-huawei",
        Infrastructure,
        "huawei",
        282,
    ),
    (
        "outscale/cluster-api-provider-outscale",
        Infrastructure,
        "outscale",
        287,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-ibmcloud",
        Infrastructure,
        "ibmcloud",
        292,
    ),
    (
        "nutanix-cloud-native/cluster-api-provider-nutanix",
        Infrastructure,
        "nutanix",
        297,
    ),
    ("kubesphere/kubekey", Infrastructure, "kubekey", 302),
    (
        "kubernetes-sigs/cluster-api-provider-kubevirt",
        Infrastructure,
        "kubevirt",
        307,
    ),
    (
        "loft-sh/cluster-api-provider-vcluster",
        Infrastructure,
        "vcluster",
        312,
    ),
    (
        "smartxworks/cluster-api-provider-virtink",
        Infrastructure,
        "virtink",
        317,
    ),
    (
        "ionos-cloud/cluster-api-provider-proxmox",
        Infrastructure,
        "proxmox",
        322,
    ),
    (
        "k0sproject/k0smotron",
        Infrastructure,
        "k0sproject-k0smotron",
        327,
    ),
    (
        "ionos-cloud/cluster-api-provider-ionoscloud",
        Infrastructure,
        "ionoscloud-ionoscloud",
        332,
    ),
    (
        "vultr/cluster-api-provider-vultr",
        Infrastructure,
        "vultr-vultr",
        337,
    ),
    (
        "OpenNebula/cluster-api-provider-opennebula",
        Infrastructure,
        "opennebula",
        342,
    ),
    (
        "scaleway/cluster-api-provider-scaleway",
        Infrastructure,
        "scaleway",
        347,
    ),
    (
        "metal-stack/cluster-api-provider-metal-stack",
        Infrastructure,
        "metal-stack",
        352,
    ),
    (
        "oxidecomputer/cluster-api-provider-oxide",
        Infrastructure,
        "oxide",
        357,
    ),
    (
        "kubeswift-io/cluster-api-provider-kubeswift",
        Infrastructure,
        "kubeswift-io",
        362,
    ),
    (
        "kairos-io/cluster-api-provider-kairos-fleet",
        Infrastructure,
        "kairos-io-fleet",
        367,
    ),
    ("kubernetes-sigs/cluster-api", Bootstrap, "kubeadm", 374),
    ("kubesphere/kubekey", Bootstrap, "kubekey-k3s", 379),
    (
        "siderolabs/cluster-api-bootstrap-provider-talos",
        Bootstrap,
        "talos",
        384,
    ),
    (
        "canonical/cluster-api-bootstrap-provider-microk8s",
        Bootstrap,
        "microk8s",
        389,
    ),
    ("rancher/cluster-api-provider-rke2", Bootstrap, "rke2", 394),
    (
        "k0sproject/k0smotron",
        Bootstrap,
        "k0sproject-k0smotron",
        399,
    ),
    (
        "canonical/cluster-api-k8s",
        Bootstrap,
        "canonical-kubernetes",
        404,
    ),
    (
        "kairos-io/cluster-api-provider-kairos",
        Bootstrap,
        "kairos-io",
        409,
    ),
    ("kubernetes-sigs/cluster-api", ControlPlane, "kubeadm", 416),
    ("kubesphere/kubekey", ControlPlane, "kubekey-k3s", 421),
    (
        "siderolabs/cluster-api-control-plane-provider-talos",
        ControlPlane,
        "talos",
        426,
    ),
    (
        "canonical/cluster-api-control-plane-provider-microk8s",
        ControlPlane,
        "microk8s",
        431,
    ),
    (
        "kubernetes-sigs/cluster-api-provider-nested",
        ControlPlane,
        "nested",
        436,
    ),
    (
        "clastix/cluster-api-control-plane-provider-kamaji",
        ControlPlane,
        "kamaji",
        441,
    ),
    (
        "rancher/cluster-api-provider-rke2",
        ControlPlane,
        "rke2",
        446,
    ),
    (
        "k0sproject/k0smotron",
        ControlPlane,
        "k0sproject-k0smotron",
        451,
    ),
    (
        "canonical/cluster-api-k8s",
        ControlPlane,
        "canonical-kubernetes",
        456,
    ),
    (
        "teutonet/cluster-api-provider-hosted-control-plane",
        ControlPlane,
        "hosted-control-plane",
        461,
    ),
    (
        "kairos-io/cluster-api-provider-kairos",
        ControlPlane,
        "kairos-io",
        466,
    ),
    (
        "kubernetes-sigs/cluster-api-ipam-provider-in-cluster",
        Ipam,
        "in-cluster",
        473,
    ),
    ("metal3-io/ip-address-manager", Ipam, "metal3", 478),
    (
        "nutanix-cloud-native/cluster-api-ipam-provider-nutanix",
        Ipam,
        "nutanix",
        483,
    ),
    (
        "rancher/cluster-api-addon-provider-fleet",
        Addon,
        "rancher-fleet",
        490,
    ),
    (
        "kubernetes-sigs/cluster-api-addon-provider-helm",
        Addon,
        "helm",
        495,
    ),
    (
        "eitco/cluster-api-addon-provider-cdk8s",
        Addon,
        "eitco-cdk8s",
        500,
    ),
    (
        "nutanix-cloud-native/cluster-api-runtime-extensions-nutanix",
        RuntimeExtension,
        "nutanix",
        507,
    ),
];

/// clusterctl's built-in entry of a repository for a provider type: `(name, line)`. The
/// repository is matched by its name (`cluster-api-provider-linode`), so a fork matches too;
/// `owner_name` (`OWNER/NAME` of the remote) picks the entry when names are shared.
pub(super) fn built_in(
    owner_name: Option<&str>,
    repository: &str,
    provider_type: ProviderType,
) -> Option<(&'static str, &'static str, usize)> {
    let matches = |entry: &&(&str, ProviderType, &str, usize)| {
        entry.1 == provider_type
            && entry
                .0
                .rsplit('/')
                .next()
                .is_some_and(|name| name.eq_ignore_ascii_case(repository))
    };
    let candidates: Vec<_> = BUILT_IN.iter().filter(matches).collect();
    let chosen = match owner_name {
        Some(full) => candidates
            .iter()
            .find(|e| e.0.eq_ignore_ascii_case(full))
            .or(candidates.first()),
        None => candidates.first(),
    }?;
    Some((chosen.0, chosen.2, chosen.3))
}

/// The provider type clusterctl's built-in list gives a repository, when it lists that
/// repository (matched as [`built_in`] matches it) under one type only: a repository whose name
/// follows no convention (`cluster-api-runtime-extensions-nutanix`, `ip-address-manager`) and
/// whose labels give no type.
pub(super) fn only_type(owner_name: Option<&str>, repository: &str) -> Option<ProviderType> {
    let named = |entry: &&(&str, ProviderType, &str, usize)| {
        entry
            .0
            .rsplit('/')
            .next()
            .is_some_and(|name| name.eq_ignore_ascii_case(repository))
    };
    let mut entries: Vec<_> = BUILT_IN.iter().filter(named).collect();
    if let Some(full) = owner_name
        && entries.iter().any(|e| e.0.eq_ignore_ascii_case(full))
    {
        entries.retain(|e| e.0.eq_ignore_ascii_case(full));
    }
    match entries[..] {
        [only] => Some(only.1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_from_labels_where_clusterctl_says() {
        assert_eq!(
            built_in(None, "cluster-api-provider-linode", Infrastructure),
            Some(("linode/cluster-api-provider-linode", "linode-linode", 176))
        );
        for t in [Bootstrap, ControlPlane, Infrastructure] {
            assert_eq!(
                built_in(Some("k0sproject/k0smotron"), "k0smotron", t).map(|e| e.1),
                Some("k0sproject-k0smotron")
            );
        }
        assert_eq!(
            built_in(None, "cluster-api", Infrastructure).map(|e| e.1),
            Some("docker")
        );
        // A name following no convention takes its type from the list, when the list has one.
        assert_eq!(
            only_type(None, "cluster-api-runtime-extensions-nutanix"),
            Some(RuntimeExtension)
        );
        assert_eq!(
            only_type(Some("metal3-io/ip-address-manager"), "ip-address-manager"),
            Some(Ipam)
        );
        assert_eq!(
            only_type(None, "cluster-api-addon-provider-fleet"),
            Some(Addon)
        );
        assert_eq!(only_type(None, "kubekey"), None, "three types");
        assert_eq!(only_type(None, "my-operator"), None);
        // Not in the list for that type, or not in the list at all.
        assert_eq!(built_in(None, "k0smotron", Addon), None);
        assert_eq!(
            built_in(None, "cluster-api-provider-mine", Infrastructure),
            None
        );
    }
}
