//! What cluster-api-operator reads and how (`../shared/docs/clusterctl-behaviour.md` section 7):
//! its OCI reference parsing and layer selection ([`oci`]). The operator's type strings are
//! [`crate::provider::ProviderType::operator_name`].
pub mod oci;
