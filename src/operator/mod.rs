//! cluster-api-operator as a consumer of releases (`docs/clusterctl-behaviour.md` §7): the
//! ConfigMaps it reads providers from ([`configmap`]) and its OCI reference parsing and layer
//! selection ([`oci`]). The operator's type strings are
//! [`crate::provider::ProviderType::operator_name`].

pub mod configmap;
pub mod oci;
