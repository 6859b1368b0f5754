//! cluster-api-operator as a consumer of releases: the ConfigMaps it reads providers from.

pub mod configmap;
