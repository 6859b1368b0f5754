//! Provider types, names and manifest labels, and the roles files play in a release.
//!
//! clusterctl identifies a provider by its type and name and labels everything it installs with
//! the provider's *manifest label*: the type's prefix plus the name (`infrastructure-aws`), except
//! for the core provider, which is plain `cluster-api`. Release files are recognised by name, as
//! clusterctl fetches them by name.

use std::fmt;
use std::str::FromStr;

use crate::k8s::Object;
use crate::yaml::Node;

/// The seven provider types clusterctl knows, in its install order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProviderType {
    Core,
    Bootstrap,
    ControlPlane,
    Infrastructure,
    Ipam,
    RuntimeExtension,
    Addon,
}

impl ProviderType {
    pub const ALL: [ProviderType; 7] = [
        ProviderType::Core,
        ProviderType::Bootstrap,
        ProviderType::ControlPlane,
        ProviderType::Infrastructure,
        ProviderType::Ipam,
        ProviderType::RuntimeExtension,
        ProviderType::Addon,
    ];

    /// clusterctl's name for the type (`InfrastructureProvider`).
    pub fn clusterctl_name(self) -> &'static str {
        match self {
            ProviderType::Core => "CoreProvider",
            ProviderType::Bootstrap => "BootstrapProvider",
            ProviderType::ControlPlane => "ControlPlaneProvider",
            ProviderType::Infrastructure => "InfrastructureProvider",
            ProviderType::Ipam => "IPAMProvider",
            ProviderType::RuntimeExtension => "RuntimeExtensionProvider",
            ProviderType::Addon => "AddonProvider",
        }
    }

    /// The short form used in file names and on the command line (`control-plane`).
    pub fn short_name(self) -> &'static str {
        match self {
            ProviderType::Core => "core",
            ProviderType::Bootstrap => "bootstrap",
            ProviderType::ControlPlane => "control-plane",
            ProviderType::Infrastructure => "infrastructure",
            ProviderType::Ipam => "ipam",
            ProviderType::RuntimeExtension => "runtime-extension",
            ProviderType::Addon => "addon",
        }
    }

    /// cluster-api-operator's name for the type (`GetType()`): it names the operator's ConfigMaps
    /// (`<type>-<name>-<version>`) and the files of an OCI artifact. Same as [`Self::short_name`]
    /// but for the runtime extension, which the operator spells without a dash.
    pub fn operator_name(self) -> &'static str {
        match self {
            ProviderType::RuntimeExtension => "runtimeextension",
            other => other.short_name(),
        }
    }

    /// The components file name capkg writes (`infrastructure-components.yaml`).
    pub fn components_file_name(self) -> String {
        format!("{}-components.yaml", self.short_name())
    }

    /// The manifest label of a provider of this type named `name` (clusterctl's `ManifestLabel`).
    pub fn manifest_label(self, name: &str) -> String {
        match self {
            ProviderType::Core => name.to_string(),
            other => format!("{}-{}", other.short_name(), name),
        }
    }

    /// Splits a manifest label into type and name, when the label has a known prefix.
    /// `cluster-api` is the core provider.
    pub fn split_label(label: &str) -> Option<(ProviderType, &str)> {
        if label == CORE_PROVIDER_NAME {
            return Some((ProviderType::Core, label));
        }
        // Longest prefix first, so `runtime-extension-x` is not read as something shorter.
        let mut types: Vec<ProviderType> = ProviderType::ALL[1..].to_vec();
        types.sort_by_key(|t| std::cmp::Reverse(t.short_name().len()));
        types.into_iter().find_map(|t| {
            let name = label.strip_prefix(t.short_name())?.strip_prefix('-')?;
            (!name.is_empty()).then_some((t, name))
        })
    }
}

/// The provider name the `cluster.x-k8s.io/provider` labels give: the one rule lint, assemble,
/// render and publish all follow when no name is given.
///
/// - A label with the type's prefix (`infrastructure-aws`) gives the name after it.
/// - A bare label that is a valid name (`kubevirt` where clusterctl writes
///   `infrastructure-kubevirt`) is the name itself.
/// - A label with another type's prefix, or one that is not a valid name (a `${VAR}`
///   placeholder, say), is ignored. Without a type, every prefixed label counts.
/// - The name given most often wins; on a tie, the first seen in file and document order.
///
/// Mixed labels are not refused here: lint reports them (`provider-label`), and every command
/// still agrees on which provider the folder is.
pub fn name_from_labels<'a>(
    provider_type: Option<ProviderType>,
    labels: impl Iterator<Item = &'a str>,
) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for label in labels {
        let name = match (provider_type, ProviderType::split_label(label)) {
            (Some(t), Some((label_type, name))) if t == label_type => name,
            (None, Some((_, name))) => name,
            (_, Some(_)) => continue,
            (_, None) if validate_name(provider_type, label).is_ok() => label,
            (_, None) => continue,
        };
        if name.contains("${") {
            continue;
        }
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name, 1)),
        }
    }
    most_common(counts).map(str::to_string)
}

/// [`name_from_labels`] over the `cluster.x-k8s.io/provider` labels of these document roots
/// (labels a YAML 1.1 reader sees as strings).
pub fn name_from_objects<'a>(
    provider_type: Option<ProviderType>,
    roots: impl Iterator<Item = &'a Node>,
) -> Option<String> {
    name_from_labels(provider_type, provider_labels(roots))
}

/// The `cluster.x-k8s.io/provider` label of each of these document roots that has one.
pub fn provider_labels<'a>(roots: impl Iterator<Item = &'a Node>) -> impl Iterator<Item = &'a str> {
    roots.filter_map(|root| {
        Object::new(root)?
            .label(PROVIDER_LABEL)
            .and_then(Node::as_str)
    })
}

/// The item counted most often; the first seen on ties.
pub fn most_common<T>(counts: Vec<(T, usize)>) -> Option<T> {
    let best = counts.iter().map(|(_, c)| *c).max()?;
    counts.into_iter().find(|(_, c)| *c == best).map(|(n, _)| n)
}

/// The only valid name of the core provider.
pub const CORE_PROVIDER_NAME: &str = "cluster-api";

/// The label clusterctl sets on every installed object to name its provider.
pub const PROVIDER_LABEL: &str = "cluster.x-k8s.io/provider";

/// The label clusterctl sets on every installed object.
pub const CLUSTERCTL_LABEL: &str = "clusterctl.cluster.x-k8s.io";

impl fmt::Display for ProviderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider type `{0}`: use one of core, bootstrap, control-plane, infrastructure, ipam, runtime-extension, addon (or clusterctl's names such as InfrastructureProvider)"
)]
pub struct UnknownProviderType(pub String);

impl FromStr for ProviderType {
    type Err = UnknownProviderType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProviderType::ALL
            .into_iter()
            .find(|t| {
                s == t.short_name()
                    || s.eq_ignore_ascii_case(t.clusterctl_name())
                    || (*t == ProviderType::RuntimeExtension && s == "runtime-extensions")
            })
            .ok_or_else(|| UnknownProviderType(s.to_string()))
    }
}

/// Why a provider name is not acceptable to clusterctl.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("provider name is empty")]
    Empty,
    #[error("provider name `{0}` is longer than 253 characters")]
    TooLong(String),
    #[error(
        "provider name `{0}` must be a DNS-1123 subdomain: lower case alphanumeric characters, `-` or `.`, each dot-separated part starting and ending with an alphanumeric character"
    )]
    Invalid(String),
    /// clusterctl's `validateProvider` (`cmd/clusterctl/client/config/providers_client.go`):
    /// the core provider and only it is named `cluster-api`.
    #[error(
        "name cluster-api must be used with the CoreProvider type (name: {0}, type: CoreProvider); the core provider must be named `cluster-api`"
    )]
    CoreName(String),
    #[error(
        "name cluster-api must be used with the CoreProvider type (name: cluster-api, type: {}); only the core provider may be named `cluster-api`",
        .0.clusterctl_name()
    )]
    NotCore(ProviderType),
}

/// Checks a provider name as clusterctl's configuration does (`validateProvider`): a DNS-1123
/// subdomain, so dotted names (`my.provider`) are accepted; the core provider must be
/// `cluster-api`, and no other type may take that name.
pub fn validate_name(provider_type: Option<ProviderType>, name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > 253 {
        return Err(NameError::TooLong(name.to_string()));
    }
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        bytes.len() <= 63
            && bytes.iter().all(|b| alnum(b) || *b == b'-')
            && bytes.first().is_some_and(alnum)
            && bytes.last().is_some_and(alnum)
    };
    if !name.split('.').all(label_ok) {
        return Err(NameError::Invalid(name.to_string()));
    }
    match provider_type {
        Some(ProviderType::Core) if name != CORE_PROVIDER_NAME => {
            Err(NameError::CoreName(name.to_string()))
        }
        Some(other) if other != ProviderType::Core && name == CORE_PROVIDER_NAME => {
            Err(NameError::NotCore(other))
        }
        _ => Ok(()),
    }
}

/// What a file is in a release, from its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileRole {
    /// `{type}-components.yaml`, or `{type}-components-{suffix}.yaml` (vSphere ships
    /// `infrastructure-components-supervisor.yaml`).
    Components {
        provider_type: ProviderType,
        suffix: Option<String>,
    },
    /// `metadata.yaml`.
    Metadata,
    /// `cluster-template.yaml` (flavor `None`) or `cluster-template-{flavor}.yaml`.
    ClusterTemplate { flavor: Option<String> },
    /// `clusterclass-{name}.yaml`.
    ClusterClass { name: String },
}

impl FileRole {
    /// The role of a file called `file_name` (no directories), if it has one.
    pub fn from_file_name(file_name: &str) -> Option<FileRole> {
        let stem = file_name.strip_suffix(".yaml")?;
        if stem == "metadata" {
            return Some(FileRole::Metadata);
        }
        if stem == "cluster-template" {
            return Some(FileRole::ClusterTemplate { flavor: None });
        }
        if let Some(flavor) = stem.strip_prefix("cluster-template-") {
            return (!flavor.is_empty()).then(|| FileRole::ClusterTemplate {
                flavor: Some(flavor.to_string()),
            });
        }
        if let Some(name) = stem.strip_prefix("clusterclass-") {
            return (!name.is_empty()).then(|| FileRole::ClusterClass {
                name: name.to_string(),
            });
        }
        let (prefix, suffix) = match stem.split_once("-components") {
            Some((prefix, "")) => (prefix, None),
            Some((prefix, rest)) => (prefix, Some(rest.strip_prefix('-')?.to_string())),
            None => return None,
        };
        if suffix.as_deref() == Some("") {
            return None;
        }
        let provider_type = match prefix {
            "runtime-extensions" => ProviderType::RuntimeExtension,
            other => ProviderType::ALL
                .into_iter()
                .find(|t| t.short_name() == other)?,
        };
        Some(FileRole::Components {
            provider_type,
            suffix,
        })
    }

    /// A short description for messages (`components`, `cluster template`).
    pub fn describe(&self) -> &'static str {
        match self {
            FileRole::Components { .. } => "components",
            FileRole::Metadata => "metadata",
            FileRole::ClusterTemplate { .. } => "cluster template",
            FileRole::ClusterClass { .. } => "ClusterClass",
        }
    }

    pub fn is_template(&self) -> bool {
        matches!(
            self,
            FileRole::ClusterTemplate { .. } | FileRole::ClusterClass { .. }
        )
    }
}

/// The provider a set of files belongs to, as far as it is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provider {
    pub provider_type: Option<ProviderType>,
    pub name: Option<String>,
}

impl Provider {
    /// The manifest label, when both type and name are known.
    pub fn label(&self) -> Option<String> {
        Some(self.provider_type?.manifest_label(self.name.as_deref()?))
    }
}

/// One provider of a release and its components files: a release published under one tag may
/// hold several (a bootstrap and a control-plane provider), each with its own clusterctl URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseProvider {
    pub provider_type: ProviderType,
    pub name: String,
    /// Its components file names, the one clusterctl's URL points at first.
    pub components: Vec<String>,
}

impl ReleaseProvider {
    /// clusterctl's label (`bootstrap-kubeadm`): the folder of a local repository.
    pub fn label(&self) -> String {
        self.provider_type.manifest_label(&self.name)
    }

    /// The components file clusterctl's provider URL names.
    pub fn components_name(&self) -> String {
        self.components
            .first()
            .cloned()
            .unwrap_or_else(|| self.provider_type.components_file_name())
    }

    /// True for a components file of this provider.
    pub fn owns_components(&self, file_name: &str) -> bool {
        self.components.iter().any(|c| c == file_name)
    }
}

/// Which provider the templates of a release belong to: clusterctl reads templates only from
/// infrastructure providers, so the first infrastructure provider; a release without one keeps
/// them with its first provider, so that they are still published once.
pub fn templates_owner(providers: &[ReleaseProvider]) -> Option<usize> {
    providers
        .iter()
        .position(|p| p.provider_type == ProviderType::Infrastructure)
        .or((!providers.is_empty()).then_some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_type_names_follow_the_operators_get_type() {
        let names: Vec<&str> = ProviderType::ALL
            .iter()
            .map(|t| t.operator_name())
            .collect();
        assert_eq!(
            names,
            [
                "core",
                "bootstrap",
                "control-plane",
                "infrastructure",
                "ipam",
                "runtimeextension",
                "addon"
            ]
        );
    }

    #[test]
    fn templates_belong_to_the_first_infrastructure_provider_else_the_first() {
        let provider = |provider_type| ReleaseProvider {
            provider_type,
            name: "x".into(),
            components: vec![],
        };
        let pair = [
            provider(ProviderType::Bootstrap),
            provider(ProviderType::ControlPlane),
        ];
        assert_eq!(templates_owner(&pair), Some(0));
        let with_infrastructure = [
            provider(ProviderType::Core),
            provider(ProviderType::Infrastructure),
        ];
        assert_eq!(templates_owner(&with_infrastructure), Some(1));
        assert_eq!(templates_owner(&[]), None);
        assert_eq!(pair[1].label(), "control-plane-x");
        assert_eq!(pair[1].components_name(), "control-plane-components.yaml");
    }

    #[test]
    fn names_from_labels_take_bare_labels_and_skip_other_types() {
        let infra = Some(ProviderType::Infrastructure);
        let labels = [
            "kubevirt",
            "kubevirt",
            "bootstrap-x",
            "bootstrap-x",
            "bootstrap-x",
        ];
        assert_eq!(
            name_from_labels(infra, labels.into_iter()).as_deref(),
            Some("kubevirt")
        );
        let labels = ["infrastructure-a", "b", "infrastructure-a", "Not A Name"];
        assert_eq!(
            name_from_labels(infra, labels.into_iter()).as_deref(),
            Some("a")
        );
        assert_eq!(
            name_from_labels(None, ["bootstrap-x"].into_iter()).as_deref(),
            Some("x")
        );
        assert_eq!(name_from_labels(infra, std::iter::empty()), None);
    }

    #[test]
    fn placeholders_name_nothing_and_ties_go_to_the_first_seen() {
        let infra = Some(ProviderType::Infrastructure);
        let labels = [
            "infrastructure-${NAME}",
            "${NAME}",
            "infrastructure-${NAME}",
        ];
        assert_eq!(name_from_labels(infra, labels.into_iter()), None);
        let labels = [
            "infrastructure-b",
            "infrastructure-a",
            "infrastructure-a",
            "b",
        ];
        assert_eq!(
            name_from_labels(infra, labels.into_iter()).as_deref(),
            Some("b")
        );
    }

    #[test]
    fn names_come_from_the_labels_of_mapping_roots_read_as_strings() {
        let file = crate::files::load_text(
            "c.yaml",
            "kind: A\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-a\n---\n- not an object\n---\nkind: B\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: 123\n".to_string(),
            FileRole::Metadata,
        );
        let roots = || file.yaml.roots();
        assert_eq!(
            provider_labels(roots()).collect::<Vec<_>>(),
            ["infrastructure-a"]
        );
        assert_eq!(
            name_from_objects(Some(ProviderType::Infrastructure), roots()).as_deref(),
            Some("a")
        );
    }

    #[test]
    fn types_parse_from_both_spellings() {
        assert_eq!("infrastructure".parse(), Ok(ProviderType::Infrastructure));
        assert_eq!(
            "InfrastructureProvider".parse(),
            Ok(ProviderType::Infrastructure)
        );
        assert_eq!("IPAMProvider".parse(), Ok(ProviderType::Ipam));
        assert_eq!("control-plane".parse(), Ok(ProviderType::ControlPlane));
        assert_eq!(
            "runtime-extension".parse(),
            Ok(ProviderType::RuntimeExtension)
        );
        let err = "infra".parse::<ProviderType>().unwrap_err();
        assert!(err.to_string().contains("`infra`"));
    }

    #[test]
    fn manifest_labels() {
        assert_eq!(
            ProviderType::Core.manifest_label("cluster-api"),
            "cluster-api"
        );
        assert_eq!(
            ProviderType::Infrastructure.manifest_label("aws"),
            "infrastructure-aws"
        );
        assert_eq!(
            ProviderType::RuntimeExtension.manifest_label("nutanix"),
            "runtime-extension-nutanix"
        );
        assert_eq!(
            ProviderType::split_label("control-plane-k0sproject-k0smotron"),
            Some((ProviderType::ControlPlane, "k0sproject-k0smotron"))
        );
        assert_eq!(
            ProviderType::split_label("cluster-api"),
            Some((ProviderType::Core, "cluster-api"))
        );
        assert_eq!(ProviderType::split_label("foo-bar"), None);
    }

    #[test]
    fn file_roles_by_name() {
        use FileRole::*;
        assert_eq!(
            FileRole::from_file_name("infrastructure-components.yaml"),
            Some(Components {
                provider_type: ProviderType::Infrastructure,
                suffix: None
            })
        );
        assert_eq!(
            FileRole::from_file_name("infrastructure-components-supervisor.yaml"),
            Some(Components {
                provider_type: ProviderType::Infrastructure,
                suffix: Some("supervisor".into())
            })
        );
        assert_eq!(
            FileRole::from_file_name("runtime-extensions-components.yaml"),
            Some(Components {
                provider_type: ProviderType::RuntimeExtension,
                suffix: None
            })
        );
        assert_eq!(FileRole::from_file_name("metadata.yaml"), Some(Metadata));
        assert_eq!(
            FileRole::from_file_name("cluster-template.yaml"),
            Some(ClusterTemplate { flavor: None })
        );
        assert_eq!(
            FileRole::from_file_name("cluster-template-eks.yaml"),
            Some(ClusterTemplate {
                flavor: Some("eks".into())
            })
        );
        assert_eq!(
            FileRole::from_file_name("clusterclass-quick-start.yaml"),
            Some(ClusterClass {
                name: "quick-start".into()
            })
        );
        for other in [
            "rosa-network.yaml",
            "foo-components.yaml",
            "metadata.yml",
            "cluster-template-.yaml",
            "infrastructure-components-.yaml",
        ] {
            assert_eq!(FileRole::from_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn names_follow_clusterctl() {
        assert!(validate_name(Some(ProviderType::Infrastructure), "aws").is_ok());
        assert!(validate_name(None, "k0sproject-k0smotron").is_ok());
        assert_eq!(
            validate_name(None, "AWS"),
            Err(NameError::Invalid("AWS".into()))
        );
        assert_eq!(
            validate_name(None, "-aws"),
            Err(NameError::Invalid("-aws".into()))
        );
        assert_eq!(
            validate_name(Some(ProviderType::Core), "core"),
            Err(NameError::CoreName("core".into()))
        );
        assert_eq!(
            validate_name(Some(ProviderType::Bootstrap), "cluster-api"),
            Err(NameError::NotCore(ProviderType::Bootstrap))
        );
        assert!(validate_name(None, "cluster-api").is_ok());
        // A DNS-1123 subdomain, as clusterctl's configuration takes it: dots between labels of
        // at most 63 characters, 253 in all.
        assert!(validate_name(Some(ProviderType::Infrastructure), "my.provider").is_ok());
        assert!(validate_name(None, &format!("{0}.{0}", "a".repeat(63))).is_ok());
        for bad in ["a..b", ".a", "a.", "a.-b", "a-.b"] {
            assert_eq!(
                validate_name(None, bad),
                Err(NameError::Invalid(bad.into()))
            );
        }
        assert_eq!(
            validate_name(None, &"a".repeat(64)),
            Err(NameError::Invalid("a".repeat(64)))
        );
        assert!(matches!(
            validate_name(None, &["a"; 128].join(".")),
            Err(NameError::TooLong(_))
        ));
    }
}
