//! clusterctl's own install-time pipeline, for `capkg render`: what `clusterctl generate provider`
//! prints for a components file, and what `clusterctl generate cluster` prints for a template.
//!
//! Components (`NewComponents`, see `docs/clusterctl-behaviour.md` §1): substitute, split
//! and decode each document as `sigs.k8s.io/yaml` does ([`JsonValue`]), round-trip Deployments and
//! DaemonSets through their Go types and check their images are canonical, find the target
//! namespace (the flag, else the one Namespace), add a Namespace when there is none, move every
//! object into it (`fixTargetNamespace`), set the two common labels, order the objects with Go's
//! `sort.SliceStable` and clusterctl's comparator (Namespace first, cert-manager objects next in
//! reverse, the rest as written), and print each with sigs.k8s.io/yaml, joined by `---`.
//!
//! Templates (`NewTemplate`, §3): substitute, decode, move every object into the target
//! namespace; no labels, no sorting. ClusterClass discovery (§3.3) finds the classes a template's
//! Clusters use; the caller reads their files and renders them first.
//!
//! Typed round trips ([`super::typed`]) reproduce what converting to Go types does to the bytes.
//! Not reproduced: image overrides from a clusterctl config's `images:` (capkg applies none) and
//! a management cluster's view (which ClusterClasses already exist).

use std::sync::Arc;

use crate::go_sort;
use crate::image_ref as image_reference;
use crate::k8s::{INJECT_CA_FROM, is_namespaced};
use crate::provider::{CLUSTERCTL_LABEL, PROVIDER_LABEL, ProviderType};
use crate::subst::{self, Lookup};
use crate::yaml::json_value::{JsonValue, ToJsonError};
use crate::yaml::write_clusterctl::{self, WriteError};
use crate::yaml::{self, Limits, Source, YamlFile};

use super::typed::{self, TypedError};

mod unstructured;

use unstructured::{
    api_version, get, get_mut, group, kind, name, set_at, set_string_map, string_at, string_map,
    version_part,
};

/// Why clusterctl would fail; messages follow clusterctl's where it has one.
#[derive(Debug, thiserror::Error)]
pub enum ClusterctlError {
    #[error("{0}")]
    Subst(subst::Error),
    #[error("failed to perform variable substitution: {0}")]
    SubstComponents(subst::Error),
    #[error("the substituted text is not UTF-8")]
    NotText,
    /// `what` is clusterctl's words (`failed to unmarshal the 2nd yaml document`, `failed to
    /// read yaml: invalid Yaml document separator: foo`), then capkg's position and message.
    #[error("failed to parse yaml: {what}: {name}:{line}:{column}: {message}")]
    Yaml {
        what: String,
        name: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("failed to parse yaml: failed to unmarshal the {ordinal} yaml document: {reason}")]
    NotAnObject { ordinal: String, reason: String },
    #[error("failed to parse yaml: {0}")]
    Json(ToJsonError),
    #[error("failed to convert {kind} {name}: {error}")]
    Typed {
        kind: String,
        name: String,
        error: TypedError,
    },
    #[error("no kind \"{kind}\" is registered for version \"{api_version}\" in scheme")]
    NotRegistered { kind: String, api_version: String },
    #[error(
        "failed to apply image overrides: failed to fix containers in {what} {name}: failed to fix containers: failed to fix image for container {container}: couldn't parse image name: {reason}"
    )]
    Image {
        what: &'static str,
        name: String,
        container: String,
        reason: String,
    },
    #[error(
        "failed to detect default target namespace: Invalid manifest. There should be no more than one resource with Kind Namespace in the provider components yaml"
    )]
    Namespaces,
    #[error("target namespace can't be defaulted. Please specify a target namespace")]
    NoTargetNamespace,
    #[error(
        "failed to set the TargetNamespace on the components: object {kind} {name} does not have a correct value for {INJECT_CA_FROM}"
    )]
    InjectCaFrom { kind: String, name: String },
    #[error(
        "failed to set the TargetNamespace on the components: failed to patch {version} {kind}"
    )]
    PatchVersion { version: String, kind: String },
    #[error(
        "failed to set the TargetNamespace on the components: failed to get .spec.dnsNames from Certificate {namespace}/{name}"
    )]
    DnsNames { namespace: String, name: String },
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// `util.Ordinalize`, including its bug for 11-13 (`11st`).
fn ordinalize(n: usize) -> String {
    let suffix = match n % 10 {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Splits and decodes YAML as clusterctl's `ToUnstructured` does: one JSON object per non-empty
/// document. A repeated key is no error: sigs.k8s.io/yaml keeps its last value, and so does
/// [`JsonValue::from_node`] ([`duplicate_keys`] lists them for a warning).
pub fn decode(name: &str, text: &str) -> Result<Vec<JsonValue>, ClusterctlError> {
    // Both cores for large files; the same documents and errors as one thread.
    let file = super::parallel::parse(Arc::new(Source::new(name, text)));
    Ok(objects_of(file)?.0)
}

/// [`decode`] of a loaded file, with the length of each object's text (what sharing work on
/// objects between threads goes by).
fn objects_of(file: YamlFile) -> Result<(Vec<JsonValue>, Vec<usize>), ClusterctlError> {
    let source = file.source.clone();
    let name = source.name();
    // clusterctl reads documents in order and stops at the first it cannot read.
    let first_error = file
        .errors
        .iter()
        .filter(|e| e.kind != yaml::ErrorKind::DuplicateKey)
        .min_by_key(|e| e.span.start);
    if let Some(error) = first_error {
        let position = source.position(error.span.start);
        let what = match error.kind {
            // apimachinery's YAMLReader: the text after `---`, trimmed.
            yaml::ErrorKind::Separator => format!(
                "failed to read yaml: invalid Yaml document separator: {}",
                source.slice(error.span).trim()
            ),
            _ => {
                // clusterctl counts the documents it decoded into objects, plus this one.
                let decoded_before = file
                    .documents
                    .iter()
                    .filter(|d| d.span.end <= error.span.start && d.root.is_some())
                    .count();
                format!(
                    "failed to unmarshal the {} yaml document",
                    ordinalize(decoded_before + 1)
                )
            }
        };
        return Err(ClusterctlError::Yaml {
            what,
            name: name.to_string(),
            line: position.line,
            column: position.column,
            message: error.message.clone(),
        });
    }
    // The documents' conversions on two threads for large texts; their results, errors
    // included, are then taken in order as one loop would.
    let large = source.text().len() >= super::parallel::PARALLEL_FROM;
    let lengths: Vec<usize> = file.documents.iter().map(|d| d.span.len()).collect();
    let converted =
        super::parallel::map_owned_in_order(file.documents, large, &lengths, |document| {
            (document.span, document.root.map(JsonValue::from_node_owned))
        });
    let mut objects = Vec::new();
    let mut weights = Vec::new();
    for (count, (span, value)) in converted.into_iter().enumerate() {
        let Some(value) = value else { continue };
        let value = value.map_err(ClusterctlError::Json)?;
        match value {
            JsonValue::Object(_) => {
                objects.push(value);
                weights.push(span.len());
            }
            JsonValue::Null => {}
            other => {
                return Err(ClusterctlError::NotAnObject {
                    ordinal: ordinalize(count + 1),
                    reason: format!(
                        "{:?}: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                        source.slice(span),
                        match other {
                            JsonValue::Array(_) => "array",
                            JsonValue::String(_) => "string",
                            JsonValue::Number(_) => "number",
                            _ => "bool",
                        }
                    ),
                });
            }
        }
    }
    Ok((objects, weights))
}

/// The keys a mapping repeats, as `name:line:column: message` lines: clusterctl keeps the last
/// value without a word, capkg keeps it too and says so (`capkg lint` reports them as errors).
pub fn duplicate_keys(name: &str, text: &str) -> Vec<String> {
    let source = Arc::new(Source::new(name, text));
    let file = super::parallel::parse(source.clone());
    let errors = file
        .errors
        .into_iter()
        .filter(|e| e.kind == yaml::ErrorKind::DuplicateKey);
    duplicate_key_lines(&source, errors)
}

fn duplicate_key_lines(source: &Source, errors: impl Iterator<Item = yaml::Error>) -> Vec<String> {
    errors
        .map(|e| {
            let position = source.position(e.span.start);
            format!(
                "{}:{}:{}: {}; clusterctl keeps the last value, and so does this output",
                source.name(),
                position.line,
                position.column,
                e.message
            )
        })
        .collect()
}

/// Converts `object` to its Go type and back in place (it is left as it is when its type is not
/// registered, and is of no further use after any other error).
fn convert_typed(object: &mut JsonValue) -> Result<(), ClusterctlError> {
    let kind = kind(object);
    let api_version = api_version(object);
    let Some(go_type) = typed::go_type(&api_version, &kind) else {
        return Err(ClusterctlError::NotRegistered { kind, api_version });
    };
    round_trip_in_place(object, go_type, &api_version, &kind)
}

/// [`typed::round_trip_owned`] of `object`, which the result replaces; on error the object's name
/// (read before the trip) is in the message.
fn round_trip_in_place(
    object: &mut JsonValue,
    go_type: &str,
    api_version: &str,
    kind: &str,
) -> Result<(), ClusterctlError> {
    let object_name = name(object);
    let taken = std::mem::replace(object, JsonValue::Null);
    *object = typed::round_trip_owned(taken, go_type, api_version, kind).map_err(|error| {
        ClusterctlError::Typed {
            kind: kind.to_string(),
            name: object_name,
            error,
        }
    })?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The components pipeline.

/// What `generate provider` needs besides the file.
#[derive(Debug, Clone)]
pub struct ComponentsOptions {
    /// `--target-namespace`; default: the file's one Namespace.
    pub target_namespace: Option<String>,
    /// The provider's manifest label (`infrastructure-aws`).
    pub provider_label: String,
}

/// A components file substituted and loaded, and, when asked for, the file as written where it
/// differs ([`load_components`]).
#[derive(Debug)]
pub struct LoadedComponents {
    file: YamlFile,
    as_written: Option<yaml::AsWritten>,
}

impl LoadedComponents {
    /// [`duplicate_keys`] of the file as written (none unless it was kept).
    pub fn repeated_keys(&self) -> Vec<String> {
        self.as_written.as_ref().map_or_else(Vec::new, |written| {
            duplicate_key_lines(written.source(), written.repeated_keys().iter().cloned())
        })
    }

    /// The provider name the `cluster.x-k8s.io/provider` labels of the file as written give
    /// ([`crate::provider::name_from_objects`]; `None` unless it was kept).
    pub fn provider_name_as_written(&self, provider_type: ProviderType) -> Option<String> {
        let written = self.as_written.as_ref()?;
        crate::provider::name_from_objects(Some(provider_type), written.roots(&self.file))
    }
}

/// A components file as read: its text (nearly always), which the load of the file as written
/// shares rather than copies (on a file of megabytes a copy is a fresh huge page and a pass over
/// the file), or its bytes when they are not UTF-8 (substitution reads bytes, and clusterctl
/// then refuses what it gives).
pub enum FileText {
    Text(Arc<Source>),
    Bytes { name: String, bytes: Vec<u8> },
}

impl FileText {
    /// `name` is how messages name the file.
    pub fn new(name: String, bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => FileText::Text(Arc::new(Source::new(name, text))),
            Err(error) => FileText::Bytes {
                name,
                bytes: error.into_bytes(),
            },
        }
    }

    pub fn name(&self) -> &str {
        match self {
            FileText::Text(source) => source.name(),
            FileText::Bytes { name, .. } => name,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            FileText::Text(source) => source.text().as_bytes(),
            FileText::Bytes { bytes, .. } => bytes,
        }
    }

    /// The file as written, as a source to load.
    fn as_written(&self) -> Arc<Source> {
        match self {
            FileText::Text(source) => source.clone(),
            FileText::Bytes { name, bytes } => {
                Arc::new(Source::new(name.as_str(), yaml::text_lossy(bytes)))
            }
        }
    }
}

/// Substitutes (unless `skip_substitution`, `--raw`: clusterctl still parses, moves, labels and
/// sorts) and loads a components file. With
/// `keep_as_written`, the file as written is loaded too, beside the substituted load
/// ([`yaml::load_beside`]: only the documents substitution changed are loaded again).
pub fn load_components(
    file: &FileText,
    values: &dyn Lookup,
    skip_substitution: bool,
    keep_as_written: bool,
) -> Result<LoadedComponents, ClusterctlError> {
    let (name, bytes) = (file.name(), file.bytes());
    let substituted = if skip_substitution {
        bytes.to_vec()
    } else {
        subst::process(bytes, values).map_err(ClusterctlError::SubstComponents)?
    };
    let text = String::from_utf8(substituted).map_err(|_| ClusterctlError::NotText)?;
    let source = Arc::new(Source::new(name, text));
    if !keep_as_written {
        let file = super::parallel::parse(source);
        return Ok(LoadedComponents {
            file,
            as_written: None,
        });
    }
    let written = file.as_written();
    // The documents substitution changed are loaded as written while the substituted text is.
    let (file, differing) = match crate::threads::both(
        || super::parallel::parse(source.clone()),
        || yaml::load_differing(written, source.text(), Limits::default()),
    ) {
        (file, Ok(differing)) => (file, differing),
        (_, Err(panic)) => std::panic::resume_unwind(panic),
    };
    let as_written = Some(yaml::load_beside(differing, &file));
    Ok(LoadedComponents { file, as_written })
}

/// What `clusterctl generate provider` prints for a loaded components file (with its final line
/// break).
pub fn generate_provider_from(
    loaded: LoadedComponents,
    options: &ComponentsOptions,
) -> Result<String, ClusterctlError> {
    Ok(write_clusterctl::printed_documents(
        &generate_provider_documents(loaded, options)?,
    ))
}

/// [`generate_provider_from`]'s documents, each as clusterctl prints it, in its order, not yet
/// joined ([`write_clusterctl::write_joined_documents`] prints them without the joined copy).
pub fn generate_provider_documents(
    loaded: LoadedComponents,
    options: &ComponentsOptions,
) -> Result<Vec<String>, ClusterctlError> {
    let file = loaded.file;
    let large = file.source.text().len() >= super::parallel::PARALLEL_FROM;
    let (mut objects, mut weights) = objects_of(file)?;
    fix_images(&mut objects)?;
    let namespaces: Vec<String> = objects
        .iter()
        .filter(|o| kind(o) == "Namespace")
        .map(name_of)
        .collect();
    if namespaces.len() > 1 {
        return Err(ClusterctlError::Namespaces);
    }
    let target = options
        .target_namespace
        .clone()
        .filter(|t| !t.is_empty())
        .or_else(|| namespaces.first().cloned().filter(|n| !n.is_empty()))
        .ok_or(ClusterctlError::NoTargetNamespace)?;
    if namespaces.is_empty() {
        weights.push(0);
        objects.push(JsonValue::Object(vec![
            ("apiVersion".into(), JsonValue::String("v1".into())),
            ("kind".into(), JsonValue::String("Namespace".into())),
            (
                "metadata".into(),
                JsonValue::Object(vec![("name".into(), JsonValue::String(target.clone()))]),
            ),
        ]));
    }
    // Each object on its own (the CRDs' typed round trips are most of the work), so two threads
    // share them; the first error in the objects' order is the one returned, as with one loop.
    super::parallel::try_for_each_in_order(&mut objects, large, &weights, |object| {
        fix_target_namespace(object, &target)
    })?;
    for object in &mut objects {
        add_common_labels(object, &options.provider_label);
    }
    let order = sorted_order(&objects);
    let sorted: Vec<&JsonValue> = order.iter().map(|&i| &objects[i]).collect();
    let sorted_weights: Vec<usize> = order.iter().map(|&i| weights[i]).collect();
    write_weighted_parts(&sorted, &sorted_weights)
}

fn name_of(object: &JsonValue) -> String {
    name(object)
}

/// `FixImages`: every Deployment and DaemonSet (by kind) through its Go type, and every image
/// parsed as a canonical reference (capkg applies no overrides, so canonical images stay as they
/// are).
pub fn fix_images(objects: &mut [JsonValue]) -> Result<(), ClusterctlError> {
    for object in objects.iter_mut() {
        let what = match kind(object).as_str() {
            "Deployment" => "deployment",
            "DaemonSet" => "deamonSet",
            _ => continue,
        };
        // Named before the trip, which leaves the name as it is (a string, or absent and empty).
        let object_name = name(object);
        convert_typed(object)?;
        let converted = &*object;
        let spec = get(converted, &["spec", "template", "spec"]);
        for list in ["containers", "initContainers"] {
            let containers = spec
                .and_then(|s| s.get(list))
                .map(|c| match c {
                    JsonValue::Array(items) => items.as_slice(),
                    _ => &[],
                })
                .unwrap_or(&[]);
            for container in containers {
                let image = string_at(container, &["image"]);
                if let Err(problem) = image_reference::check_canonical(&image) {
                    let reason = if problem.contains("no registry")
                        || problem.contains("library/")
                        || problem.contains("index.docker.io")
                    {
                        "repository name must be canonical".to_string()
                    } else {
                        problem
                    };
                    return Err(ClusterctlError::Image {
                        what,
                        name: object_name,
                        container: string_at(container, &["name"]),
                        reason,
                    });
                }
            }
        }
    }
    Ok(())
}

/// `fixTargetNamespace` for one object.
pub fn fix_target_namespace(object: &mut JsonValue, target: &str) -> Result<(), ClusterctlError> {
    let object_kind = kind(object);
    if object_kind == "Namespace" {
        set_at(
            object,
            &["metadata", "name"],
            JsonValue::String(target.into()),
        );
    }
    let original = string_at(object, &["metadata", "namespace"]);
    if is_namespaced(&object_kind) {
        set_at(
            object,
            &["metadata", "namespace"],
            JsonValue::String(target.into()),
        );
    }
    match object_kind.as_str() {
        "MutatingWebhookConfiguration"
        | "ValidatingWebhookConfiguration"
        | "CustomResourceDefinition" => {
            if let Some(mut annotations) = string_map(object, &["metadata", "annotations"])
                && let Some((_, value)) = annotations.iter_mut().find(|(k, _)| k == INJECT_CA_FROM)
            {
                let parts: Vec<&str> = value.split('/').collect();
                let [_, certificate] = parts.as_slice() else {
                    return Err(ClusterctlError::InjectCaFrom {
                        kind: object_kind,
                        name: name(object),
                    });
                };
                *value = format!("{target}/{certificate}");
                set_string_map(object, &["metadata", "annotations"], annotations);
            }
            let version = version_part(object);
            // Only the version part is checked, as clusterctl's switch does.
            if !["v1beta1", "v1"].contains(&version.as_str()) {
                return Err(ClusterctlError::PatchVersion {
                    version,
                    kind: object_kind,
                });
            }
            let group = if object_kind == "CustomResourceDefinition" {
                "apiextensions.k8s.io"
            } else {
                "admissionregistration.k8s.io"
            };
            let api_version = format!("{group}/{version}");
            let go_type = typed::go_type(&api_version, &object_kind).ok_or_else(|| {
                ClusterctlError::NotRegistered {
                    kind: object_kind.clone(),
                    api_version: api_version.clone(),
                }
            })?;
            round_trip_in_place(object, go_type, &api_version, &object_kind)?;
            if object_kind == "CustomResourceDefinition" {
                let path: &[&str] = if version == "v1" {
                    &["spec", "conversion", "webhook", "clientConfig", "service"]
                } else {
                    &["spec", "conversion", "webhookClientConfig", "service"]
                };
                if let Some(service @ JsonValue::Object(_)) = get_mut(object, path) {
                    set_at(service, &["namespace"], JsonValue::String(target.into()));
                }
            } else if let Some(JsonValue::Array(webhooks)) = get_mut(object, &["webhooks"]) {
                for webhook in webhooks {
                    if let Some(service @ JsonValue::Object(_)) =
                        get_mut(webhook, &["clientConfig", "service"])
                    {
                        set_at(service, &["namespace"], JsonValue::String(target.into()));
                    }
                }
            }
        }
        "RoleBinding" | "ClusterRoleBinding" => {
            convert_typed(object)?;
            if let Some(JsonValue::Array(subjects)) = get_mut(object, &["subjects"]) {
                for subject in subjects {
                    if !string_at(subject, &["namespace"]).is_empty() {
                        set_at(subject, &["namespace"], JsonValue::String(target.into()));
                    }
                }
            }
        }
        "Certificate" => {
            let bad = || ClusterctlError::DnsNames {
                namespace: string_at(object, &["metadata", "namespace"]),
                name: name(object),
            };
            let names = match get(object, &["spec", "dnsNames"]) {
                None => return Ok(()),
                Some(JsonValue::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
                    .ok_or_else(bad)?,
                Some(_) => return Err(bad()),
            };
            let from = format!(".{original}.");
            let to = format!(".{target}.");
            let replaced = names
                .into_iter()
                .map(|n| JsonValue::String(n.replacen(&from, &to, 1)))
                .collect();
            set_at(object, &["spec", "dnsNames"], JsonValue::Array(replaced));
        }
        _ => {}
    }
    Ok(())
}

/// `addCommonLabels`: the two labels, over whatever labels a null-coercing read finds (a
/// non-string label value makes that read find none).
pub fn add_common_labels(object: &mut JsonValue, provider_label: &str) {
    let mut labels = string_map(object, &["metadata", "labels"]).unwrap_or_default();
    for (key, value) in [(CLUSTERCTL_LABEL, ""), (PROVIDER_LABEL, provider_label)] {
        match labels.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.to_string(),
            None => labels.push((key.to_string(), value.to_string())),
        }
    }
    set_string_map(object, &["metadata", "labels"], labels);
}

/// clusterctl's `sort.SliceStable` with its comparator (not a strict weak order; see
/// [`crate::go_sort`]), as the objects' indices in their new order: what goes with each object
/// (its weight) follows it.
fn sorted_order(objects: &[JsonValue]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..objects.len()).collect();
    go_sort::slice_stable(&mut order, |&a, &b| sorts_first(&objects[a], &objects[b]));
    order
}

/// clusterctl's comparator: Namespaces first, then cert-manager's objects.
fn sorts_first(a: &JsonValue, b: &JsonValue) -> bool {
    if kind(a) == "Namespace" {
        return true;
    }
    if kind(b) == "Namespace" {
        return false;
    }
    group(a) == "cert-manager.io"
}

/// `FromUnstructured` + `JoinYaml`: each object printed by sigs.k8s.io/yaml, joined by `---`,
/// without a final line break.
pub fn write_objects(objects: &[JsonValue]) -> Result<String, ClusterctlError> {
    let objects: Vec<&JsonValue> = objects.iter().collect();
    let weights: Vec<usize> = if is_large(&objects) {
        objects.iter().map(|o| o.weight()).collect()
    } else {
        Vec::new()
    };
    write_weighted(&objects, &weights)
}

/// [`write_objects`], the objects shared between threads by `weights` (empty for a few small
/// objects), which also size each object's text.
fn write_weighted(objects: &[&JsonValue], weights: &[usize]) -> Result<String, ClusterctlError> {
    Ok(write_clusterctl::join_documents(&write_weighted_parts(
        objects, weights,
    )?))
}

/// [`write_weighted`]'s documents, not yet joined.
fn write_weighted_parts(
    objects: &[&JsonValue],
    weights: &[usize],
) -> Result<Vec<String>, ClusterctlError> {
    let sized: Vec<(&JsonValue, usize)> = objects
        .iter()
        .enumerate()
        .map(|(i, &object)| (object, weights.get(i).copied().unwrap_or(0)))
        .collect();
    super::parallel::map_in_order(&sized, is_large(objects), weights, |&(object, size)| {
        write_clusterctl::write_value_sized(object, size)
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()
    .map_err(ClusterctlError::from)
}

/// Whether writing `objects` is worth a second thread: a components file has a few dozen
/// objects, CRDs of tens or hundreds of KB among them; a template has a handful of small ones.
fn is_large(objects: &[&JsonValue]) -> bool {
    objects.len() >= 8
}

// ---------------------------------------------------------------------------------------------
// Templates.

/// `NewTemplate`: substitution (missing variables are an error, not wrapped), decoding, and the
/// target namespace on every object when one is given.
pub fn process_template(
    name: &str,
    bytes: &[u8],
    values: &dyn Lookup,
    target_namespace: Option<&str>,
) -> Result<Vec<JsonValue>, ClusterctlError> {
    let substituted = subst::process(bytes, values).map_err(ClusterctlError::Subst)?;
    let text = String::from_utf8(substituted).map_err(|_| ClusterctlError::NotText)?;
    let large = text.len() >= super::parallel::PARALLEL_FROM;
    let file = super::parallel::parse(Arc::new(Source::new(name, text)));
    let (mut objects, weights) = objects_of(file)?;
    if let Some(target) = target_namespace.filter(|t| !t.is_empty()) {
        super::parallel::try_for_each_in_order(&mut objects, large, &weights, |object| {
            fix_target_namespace(object, target)
        })?;
    }
    Ok(objects)
}

/// The ClusterClasses a template's Clusters use, as `(name, namespace)` in first-use order:
/// `cluster.x-k8s.io/v1beta2` Clusters by `spec.topology.classRef`, `v1beta1` ones by
/// `spec.topology.class`; the namespace defaults to the Cluster's.
pub fn cluster_classes(objects: &[JsonValue]) -> Vec<(String, String)> {
    let mut classes: Vec<(String, String)> = Vec::new();
    for object in objects {
        if kind(object) != "Cluster" || group(object) != "cluster.x-k8s.io" {
            continue;
        }
        let cluster_namespace = string_at(object, &["metadata", "namespace"]);
        let (class, namespace) = match version_part(object).as_str() {
            "v1beta2" => (
                string_at(object, &["spec", "topology", "classRef", "name"]),
                string_at(object, &["spec", "topology", "classRef", "namespace"]),
            ),
            "v1beta1" => (
                string_at(object, &["spec", "topology", "class"]),
                string_at(object, &["spec", "topology", "classNamespace"]),
            ),
            _ => continue,
        };
        if class.is_empty() {
            continue;
        }
        let namespace = if namespace.is_empty() {
            cluster_namespace
        } else {
            namespace
        };
        if !classes.iter().any(|(c, n)| *c == class && *n == namespace) {
            classes.push((class, namespace));
        }
    }
    classes
}

#[cfg(test)]
mod tests;
