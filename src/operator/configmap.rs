//! The ConfigMaps cluster-api-operator reads a provider from, built from a release folder.
//!
//! The operator keeps every provider version it installs in a ConfigMap (`TemplateManifestsConfigMap`
//! in its `internal/controller/manifests_downloader.go`) and can read user-supplied ones instead of
//! downloading (`spec.fetchConfig.selector`, `phase_load.go`). Its `preload` plugin command prints
//! such ConfigMaps for air-gapped sites. This module builds the same object for each provider of a
//! release and prints it as `preload` does, so a maintainer can attach the file to a release and a
//! user can `kubectl apply` it:
//!
//! - name `<type>-<name>-<version>` with the operator's type strings
//!   ([`ProviderType::operator_name`]), in the provider's namespace;
//! - labels `provider.cluster.x-k8s.io/{name,type,version}` and
//!   `managed-by.operator.cluster.x-k8s.io: "true"` (the set the operator looks for before it
//!   downloads, so the ConfigMap also works as a preload without a selector); no owner reference,
//!   as `preload` writes none for a provider that does not exist yet;
//! - `data.metadata` and `data.components`, the release files as they are (unsubstituted); or,
//!   when the two together are larger than 1 MiB (strictly), the components gzipped in
//!   `binaryData.components` and the annotation `provider.cluster.x-k8s.io/compressed: "true"`;
//! - serialised as `preload` prints it: `---\n` then `sigs.k8s.io/yaml.Marshal` of the typed
//!   ConfigMap ([`crate::yaml::write_clusterctl`]). With k8s.io/apimachinery 0.34 and later (the
//!   operator's since its Kubernetes 1.34 update) an unset `creationTimestamp` is left out.
//!
//! The version must be one the operator accepts (`ParseSemantic`; it refuses the ConfigMap with
//! its own message otherwise) and must also fit a label value and a ConfigMap name, which the API
//! server checks when the file is applied. `metadata.yaml` must have a series for the version
//! with contract `v1beta1` or `v1beta2`, which the operator checks after loading the ConfigMap
//! ([`check_metadata`]). A release whose components stay over 1 MiB even
//! gzipped is refused: the API server would refuse the ConfigMap (its data may not exceed 1 MiB).
//!
//! [`load`] reads a ConfigMap back as the operator does for `fetchConfig.selector`, with its
//! error texts; the tests run capkg's output through it.
//!
//! gzip is reproducible: no file name, modification time 0, a fixed compression level, so the
//! same release gives the same bytes on every run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;

use crate::error::{Classified, ErrorClass};
use crate::k8s;
use crate::provider::{ProviderType, ReleaseProvider};
use crate::release_dir::{self, ReleaseDir};
use crate::version::{self, Version};
use crate::yaml;
use crate::yaml::json_value::JsonValue;
use crate::yaml::resolve::Resolved;
use crate::yaml::write_clusterctl::{self, WriteError};

/// The namespace `capioperator preload` puts a provider in when none is given
/// (`--target-namespace`); the operator reads a provider's ConfigMaps from the provider's own
/// namespace.
pub const DEFAULT_NAMESPACE: &str = "capi-operator-system";

/// Above this many bytes of metadata plus components the operator gzips the components
/// (`maxConfigMapSize`); exactly this many stay plain.
pub const COMPRESSION_THRESHOLD: usize = 1024 * 1024;

pub const VERSION_LABEL: &str = "provider.cluster.x-k8s.io/version";
pub const TYPE_LABEL: &str = "provider.cluster.x-k8s.io/type";
pub const NAME_LABEL: &str = "provider.cluster.x-k8s.io/name";
pub const MANAGED_LABEL: &str = "managed-by.operator.cluster.x-k8s.io";
pub const COMPRESSED_ANNOTATION: &str = "provider.cluster.x-k8s.io/compressed";
pub const METADATA_KEY: &str = "metadata";
pub const COMPONENTS_KEY: &str = "components";

/// Why the ConfigMaps cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operator's own words (`phase_load.go`): it refuses a ConfigMap whose version is not
    /// a Kubernetes semantic version.
    #[error(
        "ConfigMap {namespace}/{name} has invalid version:{version} (from the Label {VERSION_LABEL})"
    )]
    InvalidVersion {
        namespace: String,
        name: String,
        version: String,
    },
    #[error("the version `{version}` cannot be the value of the label {VERSION_LABEL}: {reason}")]
    VersionNotALabel { version: String, reason: String },
    #[error("`{name}` cannot be a ConfigMap name: {reason}")]
    InvalidName { name: String, reason: String },
    #[error("`{namespace}` cannot be a namespace: {reason}")]
    InvalidNamespace { namespace: String, reason: String },
    #[error("`{}` is not UTF-8 text, which a ConfigMap's data cannot hold", path.display())]
    NotText { path: PathBuf },
    #[error("the release has no `{name}` for the provider {label}")]
    MissingFile { name: String, label: String },
    /// The operator's own words (`validateRepoCAPIVersion`): it loads the ConfigMap, then
    /// refuses a version `metadata.yaml` has no series for.
    #[error(
        "invalid provider metadata: version {version} for the provider {name} does not match any release series"
    )]
    NoSeries { version: String, name: String },
    /// The operator's own words (`capiVersionIncompatibilityMessage`).
    #[error(
        "CAPI operator is only compatible with v1beta2 providers, detected {contract} for provider {name}."
    )]
    Contract { contract: String, name: String },
    #[error(
        "the ConfigMap {name} would hold {size} bytes even with its components gzipped; the API server refuses a ConfigMap whose data exceeds {COMPRESSION_THRESHOLD} bytes"
    )]
    TooLarge { name: String, size: usize },
    #[error(
        "`metadata.yaml` holds U+0085 (NEL), which a ConfigMap's YAML cannot carry: a YAML reader turns it into a space"
    )]
    NextLineInMetadata,
    #[error("cannot print the ConfigMap {name}")]
    Write {
        name: String,
        #[source]
        source: WriteError,
    },
    #[error(transparent)]
    Release(#[from] release_dir::Error),
}

impl Classified for Error {
    fn class(&self) -> ErrorClass {
        match self {
            Error::Release(e) if !e.is_refusal() => ErrorClass::Fault,
            _ => ErrorClass::Refusal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::InvalidVersion { .. } | Error::VersionNotALabel { .. } => Some(
                "give the release's tag as --version, a semantic version such as v1.2.3 or v1.2.3-rc.1 (lower case, no `+build` part)".into(),
            ),
            Error::InvalidName { .. } => Some(
                "the name is `<type>-<provider>-<version>`: use a lower-case version without `+` (v1.2.3-rc.1)".into(),
            ),
            Error::InvalidNamespace { .. } => {
                Some("give --namespace the namespace of the provider's custom resource".into())
            }
            Error::NoSeries { .. } => Some(
                "add the version's major.minor to `releaseSeries` in metadata.yaml (`capkg lint` checks it too)".into(),
            ),
            Error::Contract { .. } => Some(
                "the operator installs providers of contract v1beta1 or v1beta2: give the series one of them".into(),
            ),
            Error::TooLarge { .. } => Some(
                "the operator cannot read this release from a ConfigMap: use `fetchConfig.oci` or `fetchConfig.url` instead".into(),
            ),
            Error::NotText { .. } => {
                Some("release files are YAML; `capkg lint` shows what is wrong with it".into())
            }
            Error::Release(e) => e.hint(),
            _ => None,
        }
    }
}

/// The components as the ConfigMap holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Components {
    /// `data.components`.
    Text(String),
    /// `binaryData.components`: gzip of the components file.
    Gzip(Vec<u8>),
}

/// One provider's ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfigMap {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub metadata: String,
    pub components: Components,
}

/// `<type>-<name>-<version>`, the operator's ConfigMap name.
pub fn config_map_name(provider_type: ProviderType, name: &str, version: &str) -> String {
    format!("{}-{}-{}", provider_type.operator_name(), name, version)
}

/// U+0085, NEL: a line break in YAML 1.1.
const NEXT_LINE: char = '\u{85}';

/// The operator's `needToCompress`: strictly more than 1 MiB together.
pub fn needs_compression(metadata_len: usize, components_len: usize) -> bool {
    metadata_len.saturating_add(components_len) > COMPRESSION_THRESHOLD
}

/// The checks the operator and the API server make on the version, the name and the namespace
/// (empty: none, see [`build`]).
pub fn check_names(namespace: &str, name: &str, version: &str) -> Result<(), Error> {
    // No namespace leaves the choice to `kubectl create -n`: a file attached to a release then
    // serves users whatever namespace their provider lives in.
    if !namespace.is_empty() {
        k8s::dns1123_label(namespace).map_err(|reason| Error::InvalidNamespace {
            namespace: namespace.to_string(),
            reason,
        })?;
    }
    if version::parse_semantic(version).is_err() {
        return Err(Error::InvalidVersion {
            namespace: namespace.to_string(),
            name: name.to_string(),
            version: version.to_string(),
        });
    }
    k8s::label_value(version).map_err(|reason| Error::VersionNotALabel {
        version: version.to_string(),
        reason,
    })?;
    k8s::dns1123_subdomain(name).map_err(|reason| Error::InvalidName {
        name: name.to_string(),
        reason,
    })
}

/// The ConfigMap of one provider at `version`, from its metadata and components files. An empty
/// `namespace` leaves `metadata.namespace` out.
pub fn build(
    provider_type: ProviderType,
    provider_name: &str,
    version: &str,
    namespace: &str,
    metadata: &str,
    components: &str,
) -> Result<ProviderConfigMap, Error> {
    let name = config_map_name(provider_type, provider_name, version);
    check_names(namespace, &name, version)?;
    let labels = BTreeMap::from([
        (VERSION_LABEL.to_string(), version.to_string()),
        (
            TYPE_LABEL.to_string(),
            provider_type.operator_name().to_string(),
        ),
        (NAME_LABEL.to_string(), provider_name.to_string()),
        (MANAGED_LABEL.to_string(), "true".to_string()),
    ]);
    if metadata.contains(NEXT_LINE) {
        return Err(Error::NextLineInMetadata);
    }
    // A raw U+0085 in a data string is a line break to the YAML reader (kubectl's, the
    // operator's): gzipped into binaryData, the components keep it.
    let components =
        if needs_compression(metadata.len(), components.len()) || components.contains(NEXT_LINE) {
            let gzipped = gzip(components.as_bytes());
            // The API server's ConfigMap validation counts data values and binaryData bytes (not
            // their base64) against the same 1 MiB.
            let size = metadata.len() + gzipped.len();
            if size > COMPRESSION_THRESHOLD {
                return Err(Error::TooLarge { name, size });
            }
            Components::Gzip(gzipped)
        } else {
            Components::Text(components.to_string())
        };
    Ok(ProviderConfigMap {
        name,
        namespace: namespace.to_string(),
        labels,
        metadata: metadata.to_string(),
        components,
    })
}

/// One ConfigMap per provider of the release, in the release's provider order. Each holds
/// `metadata.yaml` and the components file clusterctl's URL names for that provider.
pub fn for_release(
    release: &ReleaseDir,
    version: &str,
    namespace: &str,
) -> Result<Vec<ProviderConfigMap>, Error> {
    release
        .providers
        .iter()
        .map(|provider| {
            let metadata = text_of(release, provider, "metadata.yaml")?;
            let components = text_of(release, provider, &provider.components_name())?;
            if let Ok(parsed) = version::parse_semantic(version) {
                check_metadata(metadata, &parsed, version, &provider.name)?;
            }
            build(
                provider.provider_type,
                &provider.name,
                version,
                namespace,
                metadata,
                components,
            )
        })
        .collect()
}

/// Reads the release folder `dir` as `capkg publish` does (one provider, or one per components
/// file type) and builds each provider's ConfigMap at `version` in `namespace`.
pub fn from_folder(
    dir: &Path,
    version: &str,
    namespace: &str,
    provider_type: Option<ProviderType>,
    provider_name: Option<&str>,
) -> Result<Vec<ProviderConfigMap>, Error> {
    // The version names nothing in the folder: reading the folder with a placeholder first lets
    // a bad version be reported in the operator's words, with each ConfigMap's name.
    let parsed = match Version::parse(version) {
        Ok(parsed) => parsed,
        Err(_) => Version::parse("v0.0.0").map_err(|_| Error::InvalidVersion {
            namespace: namespace.to_string(),
            name: String::new(),
            version: version.to_string(),
        })?,
    };
    let release = ReleaseDir::load(dir, parsed, provider_type, provider_name)?;
    for_release(&release, version, namespace)
}

/// What the operator checks in `metadata.yaml` once it has read the ConfigMap: a release series
/// for the version's major.minor (the first one listed, as clusterctl picks it) whose contract is
/// `v1beta1` or `v1beta2`. A file that cannot be read as YAML has no series here; `capkg lint`
/// says what is wrong with it.
pub fn check_metadata(
    metadata: &str,
    parsed: &Version,
    version: &str,
    provider_name: &str,
) -> Result<(), Error> {
    let file = yaml::parse_str(
        std::sync::Arc::new(yaml::Source::new("metadata.yaml", metadata)),
        yaml::Limits::default(),
    );
    let integer = |node: Option<&yaml::Node>| match node.and_then(yaml::Node::resolve) {
        Some(Resolved::Int(i)) => Some(i),
        _ => None,
    };
    let wanted = (
        Some(i128::from(parsed.major())),
        Some(i128::from(parsed.minor())),
    );
    let series = file
        .roots()
        .next()
        .and_then(|root| root.get("releaseSeries"))
        .and_then(|list| {
            list.items()
                .iter()
                .find(|entry| (integer(entry.get("major")), integer(entry.get("minor"))) == wanted)
        })
        .ok_or_else(|| Error::NoSeries {
            version: version.to_string(),
            name: provider_name.to_string(),
        })?;
    let contract = series
        .get("contract")
        .and_then(yaml::Node::as_str)
        .unwrap_or("");
    if contract != "v1beta1" && contract != "v1beta2" {
        return Err(Error::Contract {
            contract: contract.to_string(),
            name: provider_name.to_string(),
        });
    }
    Ok(())
}

fn text_of<'a>(
    release: &'a ReleaseDir,
    provider: &ReleaseProvider,
    name: &str,
) -> Result<&'a str, Error> {
    let file = release.file(name).ok_or_else(|| Error::MissingFile {
        name: name.to_string(),
        label: provider.label(),
    })?;
    std::str::from_utf8(&file.contents).map_err(|_| Error::NotText {
        path: file.path.clone(),
    })
}

impl ProviderConfigMap {
    /// The typed ConfigMap as `encoding/json` writes it (the writer sorts the keys).
    pub fn to_json(&self) -> JsonValue {
        let text = |s: &str| JsonValue::String(s.to_string());
        let object = |pairs: Vec<(&str, JsonValue)>| {
            JsonValue::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        };
        let labels = JsonValue::Object(
            self.labels
                .iter()
                .map(|(k, v)| (k.clone(), text(v)))
                .collect(),
        );
        let mut metadata = vec![("name", text(&self.name)), ("labels", labels)];
        // `omitempty`, as in ObjectMeta.
        if !self.namespace.is_empty() {
            metadata.push(("namespace", text(&self.namespace)));
        }
        let mut data = vec![(METADATA_KEY, text(&self.metadata))];
        let mut binary_data = None;
        match &self.components {
            Components::Text(components) => data.push((COMPONENTS_KEY, text(components))),
            Components::Gzip(gzipped) => {
                metadata.push((
                    "annotations",
                    object(vec![(COMPRESSED_ANNOTATION, text("true"))]),
                ));
                // encoding/json writes []byte as standard base64 with padding.
                let encoded = base64::engine::general_purpose::STANDARD.encode(gzipped);
                binary_data = Some(object(vec![(COMPONENTS_KEY, JsonValue::String(encoded))]));
            }
        }
        let mut top = vec![
            ("apiVersion", text("v1")),
            ("kind", text("ConfigMap")),
            ("metadata", object(metadata)),
            ("data", object(data)),
        ];
        if let Some(binary_data) = binary_data {
            top.push(("binaryData", binary_data));
        }
        object(top)
    }

    /// `sigs.k8s.io/yaml.Marshal` of the ConfigMap.
    pub fn to_yaml(&self) -> Result<String, Error> {
        write_clusterctl::write_value(&self.to_json()).map_err(|source| Error::Write {
            name: self.name.clone(),
            source,
        })
    }

    /// The components file's bytes, decompressed when they are gzipped.
    pub fn components_bytes(&self) -> Result<Vec<u8>, GunzipError> {
        match &self.components {
            Components::Text(text) => Ok(text.as_bytes().to_vec()),
            Components::Gzip(gzipped) => gunzip(gzipped, usize::MAX),
        }
    }
}

/// A provider version as the operator loads it from a ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub version: String,
    pub metadata: String,
    pub components: Vec<u8>,
}

/// Why the operator cannot load a provider version from a ConfigMap; the messages are its own
/// (`configmapRepository` and `getComponentsData` in `phase_load.go`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("ConfigMap {namespace}/{name} has invalid version:{version} ({from})")]
    InvalidVersion {
        namespace: String,
        name: String,
        version: String,
        /// `from the Name` or `from the Label provider.cluster.x-k8s.io/version`.
        from: String,
    },
    #[error("ConfigMap {namespace}/{name} has no metadata")]
    NoMetadata { namespace: String, name: String },
    #[error("ConfigMap {namespace}/{name} Data has no components")]
    NoDataComponents { namespace: String, name: String },
    #[error("ConfigMap {namespace}/{name} BinaryData has no components")]
    NoBinaryComponents { namespace: String, name: String },
    #[error("cannot decompress data from ConfigMap {namespace}/{name}")]
    Decompress { namespace: String, name: String },
}

/// Reads one ConfigMap (as a YAML reader gives it) the way the operator does for
/// `fetchConfig.selector`: the version from the version label, else the name; `data.metadata`;
/// the components from `data.components`, or gunzipped from `binaryData.components` when the
/// compressed annotation is exactly `"true"`. At most `limit` bytes of components are unpacked.
pub fn load(config_map: &JsonValue, limit: usize) -> Result<Loaded, LoadError> {
    let at = |path: &[&str]| {
        path.iter()
            .try_fold(config_map, |value, key| value.get(key))
            .and_then(JsonValue::as_str)
    };
    let namespace = at(&["metadata", "namespace"]).unwrap_or("").to_string();
    let name = at(&["metadata", "name"]).unwrap_or("").to_string();
    let (version, from) = match at(&["metadata", "labels", VERSION_LABEL]) {
        Some(label) => (label, format!("from the Label {VERSION_LABEL}")),
        None => (name.as_str(), "from the Name".to_string()),
    };
    if version::parse_semantic(version).is_err() {
        return Err(LoadError::InvalidVersion {
            version: version.to_string(),
            namespace,
            name,
            from,
        });
    }
    let version = version.to_string();
    let Some(metadata) = at(&["data", METADATA_KEY]) else {
        return Err(LoadError::NoMetadata { namespace, name });
    };
    let metadata = metadata.to_string();
    let components = if at(&["metadata", "annotations", COMPRESSED_ANNOTATION]) == Some("true") {
        let Some(encoded) = at(&["binaryData", COMPONENTS_KEY]) else {
            return Err(LoadError::NoBinaryComponents { namespace, name });
        };
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|gzipped| gunzip(&gzipped, limit).ok())
            .ok_or(LoadError::Decompress { namespace, name })?
    } else {
        let Some(components) = at(&["data", COMPONENTS_KEY]) else {
            return Err(LoadError::NoDataComponents { namespace, name });
        };
        components.as_bytes().to_vec()
    };
    Ok(Loaded {
        version,
        metadata,
        components,
    })
}

/// What `capioperator preload` prints: each ConfigMap as `---\n` and its YAML.
pub fn write_all(config_maps: &[ProviderConfigMap]) -> Result<String, Error> {
    let mut out = String::new();
    for config_map in config_maps {
        out.push_str("---\n");
        out.push_str(&config_map.to_yaml()?);
    }
    Ok(out)
}

/// What Go's `gzip.NewWriter` writes: no name, no comment, modification time 0, XFL 0, OS
/// "unknown", the deflate stream at level 6 (zlib's and Go's default).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::new(6));
    // Writing to a `Vec` cannot fail.
    match encoder.write_all(data).and_then(|()| encoder.finish()) {
        Ok(gzipped) => gzipped,
        Err(_) => unreachable!("a Vec takes every byte"),
    }
}

/// Why gzip data cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GunzipError {
    #[error("not gzip data (no gzip header)")]
    NotGzip,
    #[error("the gzip data is cut short")]
    Truncated,
    #[error("the gzip data is damaged ({0})")]
    Damaged(String),
    #[error("the gzip data holds more than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the gzip data's checksum does not match its contents")]
    Checksum,
}

/// Reads gzip data (RFC 1952) as the operator's `decompressData` does with Go's `gzip.Reader`:
/// every member of a multi-member stream, one after another; more than `limit` bytes of output
/// are refused.
pub fn gunzip(data: &[u8], limit: usize) -> Result<Vec<u8>, GunzipError> {
    use std::io::Read;
    if !data.starts_with(&[0x1f, 0x8b]) {
        return Err(GunzipError::NotGzip);
    }
    let decoder = flate2::read::MultiGzDecoder::new(data);
    let mut out = Vec::new();
    // One byte past the limit tells "exactly the limit" from "more".
    let mut bounded = decoder.take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1));
    bounded.read_to_end(&mut out).map_err(|err| {
        let message = err.to_string();
        match err.kind() {
            std::io::ErrorKind::UnexpectedEof => GunzipError::Truncated,
            _ if message.contains("CRC") || message.contains("checksum") => GunzipError::Checksum,
            std::io::ErrorKind::InvalidInput if message.contains("header") => GunzipError::NotGzip,
            _ => GunzipError::Damaged(message),
        }
    })?;
    if out.len() > limit {
        return Err(GunzipError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "configmap_tests.rs"]
mod tests;
