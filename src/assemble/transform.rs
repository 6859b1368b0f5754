//! The release transformations, applied to the maintainer's components in the maintainer's
//! layout: what clusterctl will do at install time anyway, written into the release so that the
//! file says what gets installed, plus the provider label clusterctl expects to find.
//!
//! - exactly one Namespace: the one the file has (renamed when `namespace:` asks for another), or
//!   one added when the file has none and a namespace is configured; two or more are an error;
//! - every object of a namespaced kind (clusterctl's list: every kind but its 16 cluster-scoped
//!   ones) in that namespace;
//! - RoleBinding and ClusterRoleBinding subjects: those with a namespace, and every
//!   ServiceAccount subject, point into it (User and Group subjects have no namespace);
//! - webhook configurations' `clientConfig.service.namespace`, CRD conversion webhook services,
//!   and `cert-manager.io/inject-ca-from` (`<namespace>/<certificate>`) point into it;
//! - a cert-manager `Certificate`'s `spec.dnsNames` follow the move (`svc.old.svc` becomes
//!   `svc.new.svc`, first occurrence per name, as clusterctl does);
//! - `cluster.x-k8s.io/provider: <label>` on every object.
//!
//! Order: the Namespace first (so `kubectl apply -f` can create it before anything that lives in
//! it), then every other object in the order the maintainer's source has them. Keys keep their
//! order; a key capkg adds goes where a person would put it (`namespace` after `name`, `labels`
//! and new label keys at the end). Values capkg writes are quoted when YAML 1.1 would read them as
//! something other than a string. Comments are not kept (the YAML tree has none).

use std::sync::Arc;

use crate::k8s::{INJECT_CA_FROM, is_namespaced};
use crate::provider::PROVIDER_LABEL;
use crate::yaml::{self, Mapping, Node, Position, Source, Span};

/// What the transformations need to know.
#[derive(Debug, Clone, Copy)]
pub struct TransformOptions<'a> {
    /// The namespace to install into; `None`: the file's one Namespace.
    pub namespace: Option<&'a str>,
    /// The provider's manifest label (`infrastructure-aws`).
    pub provider_label: &'a str,
    /// Whether to write down what was changed ([`Transformed::changes`]).
    pub record_changes: bool,
}

/// What a transformation changed, one line each, written only when they are kept: `capkg
/// assemble -v` prints them, and nothing else reads them. Every object of a large file can change
/// (its namespace, its label), so the lines are megabytes of a large file's peak
/// (benches/README.md, "Memory and density").
#[derive(Debug, Default)]
pub struct ChangeLog {
    lines: Option<Vec<String>>,
}

impl ChangeLog {
    /// A log that keeps its lines when `record` is true, and otherwise drops them unwritten.
    pub fn new(record: bool) -> Self {
        Self {
            lines: record.then(Vec::new),
        }
    }

    /// Writes down the line `line` makes, if lines are kept.
    pub fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(lines) = &mut self.lines {
            lines.push(line());
        }
    }

    /// The lines written down, in order (none when they were not kept).
    pub fn into_lines(self) -> Vec<String> {
        self.lines.unwrap_or_default()
    }
}

/// The transformed objects.
#[derive(Debug, Clone)]
pub struct Transformed {
    pub namespace: String,
    /// In output order.
    pub objects: Vec<Node>,
    /// What was changed, one line each (`Deployment \`m\`: namespace \`a\` -> \`b\``); none
    /// unless [`TransformOptions::record_changes`].
    pub changes: Vec<String>,
}

impl Transformed {
    /// The objects in the maintainer's layout.
    pub fn to_yaml(&self) -> String {
        yaml::write_layout::write_documents(&self.objects)
    }
}

/// Why the components cannot be transformed. Every variant names the input (a path or a
/// command) and, where there is one, the place in it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformError {
    #[error("{origin}:{position}: {message}")]
    Yaml {
        origin: String,
        position: Position,
        message: String,
    },
    #[error(
        "{origin}:{position}: document {index} is not a mapping; every document of a components file must be one Kubernetes object"
    )]
    NotAnObject {
        origin: String,
        position: Position,
        index: usize,
    },
    #[error("{origin}: no objects")]
    Empty { origin: String },
    #[error(
        "{origin}: {} Namespace objects ({}); a provider installs into exactly one",
        names.len(),
        names.iter().map(|(n, p)| format!("`{n}` at {p}")).collect::<Vec<_>>().join(", ")
    )]
    Namespaces {
        origin: String,
        names: Vec<(String, Position)>,
    },
    #[error(
        "{origin}: no Namespace object, and no namespace configured; add a Namespace to the components or set `namespace:` in capkg.yaml"
    )]
    NoNamespace { origin: String },
    #[error(
        "{origin}:{position}: `{name}` cannot be a namespace: {reason}; rename the Namespace or set `namespace:` in capkg.yaml"
    )]
    BadNamespace {
        origin: String,
        position: Position,
        name: String,
        reason: String,
    },
    #[error(
        "{origin}:{position}: {object}: `{INJECT_CA_FROM}: {value}` is not `<namespace>/<certificate>`"
    )]
    InjectCaFrom {
        origin: String,
        position: Position,
        object: String,
        value: String,
    },
    #[error("{origin}:{position}: {object}: `spec.dnsNames` must be a list of strings")]
    DnsNames {
        origin: String,
        position: Position,
        object: String,
    },
}

/// Parses components YAML and applies the release transformations.
pub fn transform_text(
    origin: &str,
    text: &str,
    options: &TransformOptions<'_>,
) -> Result<Transformed, TransformError> {
    let (source, objects) = parse_objects(origin, text)?;
    transform(origin, &source, objects, options)
}

impl TransformError {
    /// The error with its file and position mapped by `locate` (the file of `files:` it is in).
    pub fn relocated(self, locate: impl Fn(String, Position) -> (String, Position)) -> Self {
        match self {
            TransformError::Yaml {
                origin,
                position,
                message,
            } => {
                let (origin, position) = locate(origin, position);
                TransformError::Yaml {
                    origin,
                    position,
                    message,
                }
            }
            TransformError::NotAnObject {
                origin,
                position,
                index,
            } => {
                let (origin, position) = locate(origin, position);
                TransformError::NotAnObject {
                    origin,
                    position,
                    index,
                }
            }
            other => other,
        }
    }
}

/// Parses components YAML into its objects (every document a mapping; empty and `null`
/// documents skipped, as clusterctl skips them).
pub fn parse_objects(
    origin: &str,
    text: impl Into<String>,
) -> Result<(Arc<Source>, Vec<Node>), TransformError> {
    let source = Arc::new(Source::new(origin, text));
    let file = super::parallel::parse(source.clone());
    if let Some(error) = file.errors.first() {
        return Err(TransformError::Yaml {
            origin: origin.to_string(),
            position: source.position(error.span.start),
            message: error.message.clone(),
        });
    }
    let mut objects = Vec::new();
    for document in file.documents {
        let Some(root) = document.root else { continue };
        if root.as_mapping().is_none() {
            return Err(TransformError::NotAnObject {
                origin: origin.to_string(),
                position: source.position(root.span().start),
                index: document.index + 1,
            });
        }
        objects.push(root);
    }
    Ok((source, objects))
}

/// Applies the release transformations to parsed objects (mappings); `source` locates errors.
pub fn transform(
    origin: &str,
    source: &Source,
    objects: Vec<Node>,
    options: &TransformOptions<'_>,
) -> Result<Transformed, TransformError> {
    if objects.is_empty() {
        return Err(TransformError::Empty {
            origin: origin.to_string(),
        });
    }
    let namespaces: Vec<(String, Span)> = objects
        .iter()
        .filter(|o| kind(o) == Some("Namespace"))
        .map(|o| {
            let name = o.path(&["metadata", "name"]);
            (
                name.and_then(Node::scalar_text)
                    .unwrap_or_default()
                    .to_string(),
                name.map_or(o.span(), |n| n.span()),
            )
        })
        .collect();
    if namespaces.len() > 1 {
        // Positions only for the message: finding them reads the whole source.
        return Err(TransformError::Namespaces {
            origin: origin.to_string(),
            names: namespaces
                .into_iter()
                .map(|(name, span)| (name, source.position(span.start)))
                .collect(),
        });
    }
    let target = match (options.namespace, namespaces.first()) {
        (Some(configured), _) => configured.to_string(),
        (None, Some((name, span))) if !name.is_empty() => {
            if let Err(reason) = crate::k8s::dns1123_label(name) {
                return Err(TransformError::BadNamespace {
                    origin: origin.to_string(),
                    position: source.position(span.start),
                    name: name.clone(),
                    reason,
                });
            }
            name.clone()
        }
        _ => {
            return Err(TransformError::NoNamespace {
                origin: origin.to_string(),
            });
        }
    };
    let mut changes = ChangeLog::new(options.record_changes);
    let mut out = Vec::with_capacity(objects.len() + 1);
    if namespaces.is_empty() {
        changes.note(|| format!("added Namespace `{target}`"));
        out.push(namespace_object(&target));
    }
    for mut object in objects {
        fix_namespace(origin, source, &mut object, &target, &mut changes)?;
        out.push(object);
    }
    for object in &mut out {
        // Described only for a line that is kept (a label does not change the description).
        if set_label(object, PROVIDER_LABEL, options.provider_label) {
            changes.note(|| {
                format!(
                    "{}: label `{PROVIDER_LABEL}: {}`",
                    describe(object),
                    options.provider_label
                )
            });
        }
    }
    // The Namespace first, everything else as written (a stable partition).
    let (mut first, rest): (Vec<Node>, Vec<Node>) =
        out.into_iter().partition(|o| kind(o) == Some("Namespace"));
    first.extend(rest);
    Ok(Transformed {
        namespace: target,
        objects: first,
        changes: changes.into_lines(),
    })
}

fn kind(object: &Node) -> Option<&str> {
    object.get("kind")?.scalar_text()
}

fn describe(object: &Node) -> String {
    crate::k8s::Object::new(object).map_or_else(|| "object".to_string(), |o| o.display())
}

fn namespace_object(name: &str) -> Node {
    map(vec![
        ("apiVersion", Node::plain("v1")),
        ("kind", Node::plain("Namespace")),
        ("metadata", map(vec![("name", Node::string(name))])),
    ])
}

fn map(entries: Vec<(&str, Node)>) -> Node {
    Node::mapping(
        entries
            .into_iter()
            .map(|(k, v)| (Node::plain(k), v))
            .collect(),
        Span::default(),
    )
}

/// clusterctl's `fixTargetNamespace`, on the maintainer's tree (see the module documentation).
fn fix_namespace(
    origin: &str,
    source: &Source,
    object: &mut Node,
    target: &str,
    changes: &mut ChangeLog,
) -> Result<(), TransformError> {
    let what = describe(object);
    let kind = kind(object).unwrap_or_default().to_string();
    let original = object
        .path(&["metadata", "namespace"])
        .filter(|n| !n.is_null())
        .and_then(Node::scalar_text)
        .unwrap_or_default()
        .to_string();
    if kind == "Namespace"
        && let Some(metadata) = metadata_mut(object)
        && set_string(metadata, "name", target, None)
    {
        changes.note(|| format!("{what}: renamed to `{target}`"));
    }
    if is_namespaced(&kind)
        && let Some(metadata) = metadata_mut(object)
        && set_string(metadata, "namespace", target, Some("name"))
    {
        changes.note(|| format!("{what}: namespace `{original}` -> `{target}`"));
    }
    match kind.as_str() {
        "RoleBinding" | "ClusterRoleBinding" => {
            if let Some(subjects) = object.get_mut("subjects").and_then(Node::as_sequence_mut) {
                for subject in subjects.iter_mut() {
                    let Some(subject) = subject.as_mapping_mut() else {
                        continue;
                    };
                    let has_namespace = subject
                        .get("namespace")
                        .is_some_and(|n| !n.is_null() && n.scalar_text() != Some(""));
                    let service_account =
                        subject.get("kind").and_then(Node::scalar_text) == Some("ServiceAccount");
                    if (has_namespace || service_account)
                        && set_string(subject, "namespace", target, Some("name"))
                    {
                        changes.note(|| format!("{what}: subject namespace -> `{target}`"));
                    }
                }
            }
        }
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => {
            fix_inject_ca_from(origin, source, object, target, &what, changes)?;
            if let Some(webhooks) = object.get_mut("webhooks").and_then(Node::as_sequence_mut) {
                for webhook in webhooks.iter_mut() {
                    if let Some(service) = webhook
                        .get_mut("clientConfig")
                        .and_then(|c| c.get_mut("service"))
                        .and_then(Node::as_mapping_mut)
                        && set_string(service, "namespace", target, Some("name"))
                    {
                        changes.note(|| format!("{what}: webhook service namespace -> `{target}`"));
                    }
                }
            }
        }
        "CustomResourceDefinition" => {
            fix_inject_ca_from(origin, source, object, target, &what, changes)?;
            for path in [
                &["spec", "conversion", "webhook", "clientConfig", "service"][..],
                &["spec", "conversion", "webhookClientConfig", "service"][..],
            ] {
                if let Some(service) = path_mut(object, path).and_then(Node::as_mapping_mut)
                    && set_string(service, "namespace", target, Some("name"))
                {
                    changes.note(|| format!("{what}: conversion service namespace -> `{target}`"));
                }
            }
        }
        "Certificate" => {
            let Some(dns_names) = path_mut(object, &["spec", "dnsNames"]) else {
                return Ok(());
            };
            if dns_names.is_null() {
                return Ok(());
            }
            let at = dns_names.span().start;
            let bad = || TransformError::DnsNames {
                origin: origin.to_string(),
                position: source.position(at),
                object: what.clone(),
            };
            let items = dns_names.as_sequence_mut().ok_or_else(bad)?;
            let from = format!(".{original}.");
            let to = format!(".{target}.");
            for item in items.iter_mut() {
                let text = item.as_str().ok_or_else(bad)?.to_string();
                if original.is_empty() || from == to {
                    continue;
                }
                let replaced = text.replacen(&from, &to, 1);
                if replaced != text {
                    changes.note(|| format!("{what}: dnsName `{text}` -> `{replaced}`"));
                    *item = Node::string(replaced);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn fix_inject_ca_from(
    origin: &str,
    source: &Source,
    object: &mut Node,
    target: &str,
    what: &str,
    changes: &mut ChangeLog,
) -> Result<(), TransformError> {
    let Some(annotations) =
        path_mut(object, &["metadata", "annotations"]).and_then(Node::as_mapping_mut)
    else {
        return Ok(());
    };
    let Some(value) = annotations.get(INJECT_CA_FROM) else {
        return Ok(());
    };
    let text = value.scalar_text().unwrap_or_default().to_string();
    let parts: Vec<&str> = text.split('/').collect();
    let [_, name] = parts.as_slice() else {
        return Err(TransformError::InjectCaFrom {
            origin: origin.to_string(),
            position: source.position(value.span().start),
            object: what.to_string(),
            value: text,
        });
    };
    let wanted = format!("{target}/{name}");
    if set_string(annotations, INJECT_CA_FROM, &wanted, None) {
        changes.note(|| format!("{what}: `{INJECT_CA_FROM}` -> `{wanted}`"));
    }
    Ok(())
}

fn path_mut<'n>(node: &'n mut Node, keys: &[&str]) -> Option<&'n mut Node> {
    keys.iter().try_fold(node, |node, key| node.get_mut(key))
}

/// `metadata` as a mapping, created (after `kind`) or replaced (when it is not a mapping);
/// `None` only when the object itself is not a mapping.
fn metadata_mut(object: &mut Node) -> Option<&mut Mapping> {
    child_mapping(object.as_mapping_mut()?, "metadata", Some("kind"))
}

/// The mapping under `key`, created (after `after`, else at the end) when absent or not a
/// mapping.
fn child_mapping<'m>(
    mapping: &'m mut Mapping,
    key: &str,
    after: Option<&str>,
) -> Option<&'m mut Mapping> {
    let existing = mapping
        .entries
        .iter()
        .rposition(|(k, _)| k.scalar_text() == Some(key));
    let index = match existing {
        Some(index) => index,
        None => {
            let position = after
                .and_then(|a| {
                    mapping
                        .entries
                        .iter()
                        .rposition(|(k, _)| k.scalar_text() == Some(a))
                })
                .map_or(mapping.entries.len(), |i| i + 1);
            mapping.insert(
                position,
                (Node::plain(key), Node::mapping(Vec::new(), Span::default())),
            );
            position
        }
    };
    let (_, value) = mapping.entries.get_mut(index)?;
    if value.as_mapping().is_none() {
        *value = Node::mapping(Vec::new(), Span::default());
    }
    value.as_mapping_mut()
}

/// Sets `key` to the string `value`: in place when the key exists, else after `after` (or at the
/// end). Returns whether anything changed (an equal string, however quoted, is kept as written).
fn set_string(mapping: &mut Mapping, key: &str, value: &str, after: Option<&str>) -> bool {
    let index = mapping
        .entries
        .iter()
        .rposition(|(k, _)| k.scalar_text() == Some(key));
    match index {
        Some(index) => {
            if mapping.entries[index].1.as_str() == Some(value) {
                return false;
            }
            mapping.entries[index].1 = Node::string(value);
        }
        None => {
            let position = after
                .and_then(|a| {
                    mapping
                        .entries
                        .iter()
                        .rposition(|(k, _)| k.scalar_text() == Some(a))
                })
                .map_or(mapping.entries.len(), |i| i + 1);
            mapping.insert(position, (Node::plain(key), Node::string(value)));
        }
    }
    true
}

/// Sets one label; returns whether anything changed.
fn set_label(object: &mut Node, key: &str, value: &str) -> bool {
    metadata_mut(object)
        .and_then(|metadata| child_mapping(metadata, "labels", None))
        .is_some_and(|labels| set_string(labels, key, value, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, namespace: Option<&str>) -> Result<Transformed, TransformError> {
        transform_text(
            "in.yaml",
            text,
            &TransformOptions {
                namespace,
                provider_label: "infrastructure-foo",
                record_changes: true,
            },
        )
    }

    #[test]
    fn changes_are_written_down_only_when_kept() {
        let text = "kind: Namespace\nmetadata:\n  name: a\n---\nkind: ServiceAccount\nmetadata:\n  name: sa\n";
        let transform = |record_changes| {
            transform_text(
                "in.yaml",
                text,
                &TransformOptions {
                    namespace: Some("b"),
                    provider_label: "infrastructure-foo",
                    record_changes,
                },
            )
            .expect("transforms")
        };
        let (kept, dropped) = (transform(true), transform(false));
        assert_eq!(kept.changes.len(), 4, "{:?}", kept.changes);
        assert!(dropped.changes.is_empty());
        // The same objects either way.
        assert_eq!(kept.to_yaml(), dropped.to_yaml());
        let mut log = ChangeLog::new(false);
        log.note(|| unreachable!("a line that is not kept is not written"));
        assert!(log.into_lines().is_empty());
    }

    #[test]
    fn keys_keep_their_order_and_new_keys_go_where_people_put_them() {
        let out = run(
            "kind: Namespace\nmetadata:\n  name: foo-system\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n    a: b\n",
            None,
        )
        .unwrap();
        assert_eq!(
            out.to_yaml(),
            "kind: Namespace\nmetadata:\n  name: foo-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  namespace: foo-system\n  annotations:\n    a: b\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n"
        );
    }

    #[test]
    fn a_missing_namespace_is_added_first_when_configured() {
        let out = run("kind: ConfigMap\nmetadata:\n  name: c\n", Some("on")).unwrap();
        // `on` is a boolean to YAML 1.1 readers, so it is quoted.
        assert_eq!(
            out.to_yaml(),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"on\"\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n---\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: \"on\"\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n"
        );
        assert_eq!(
            run("kind: ConfigMap\nmetadata:\n  name: c\n", None).unwrap_err(),
            TransformError::NoNamespace {
                origin: "in.yaml".into()
            }
        );
    }

    #[test]
    fn two_namespaces_are_an_error_naming_both() {
        let err = run(
            "kind: Namespace\nmetadata:\n  name: a\n---\nkind: Namespace\nmetadata:\n  name: b\n",
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "in.yaml: 2 Namespace objects (`a` at 3:9, `b` at 7:9); a provider installs into exactly one"
        );
    }

    #[test]
    fn the_components_namespace_must_be_a_dns_label() {
        let err = run("kind: Namespace\nmetadata:\n  name: Capx_System\n", None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("in.yaml:3:9: `Capx_System` cannot be a namespace: "),
            "{err}"
        );
        // A configured namespace replaces the file's (and capkg.yaml's is checked when read).
        assert!(
            run(
                "kind: Namespace\nmetadata:\n  name: Capx_System\n",
                Some("capx-system")
            )
            .is_ok()
        );
    }

    #[test]
    fn non_objects_and_bad_annotations_are_positioned_errors() {
        assert_eq!(
            run("kind: Namespace\nmetadata: {name: a}\n---\n- x\n", None)
                .unwrap_err()
                .to_string(),
            "in.yaml:4:1: document 2 is not a mapping; every document of a components file must be one Kubernetes object"
        );
        assert_eq!(
            run(
                "kind: Namespace\nmetadata: {name: a}\n---\nkind: CustomResourceDefinition\nmetadata:\n  name: x\n  annotations:\n    cert-manager.io/inject-ca-from: a/b/c\n",
                None
            )
            .unwrap_err()
            .to_string(),
            "in.yaml:8:37: CustomResourceDefinition `x`: `cert-manager.io/inject-ca-from: a/b/c` is not `<namespace>/<certificate>`"
        );
        assert!(matches!(
            run(
                "kind: Namespace\nmetadata: {name: a}\n---\nkind: Certificate\nmetadata: {name: c}\nspec:\n  dnsNames: x\n",
                None
            ),
            Err(TransformError::DnsNames { .. })
        ));
    }

    #[test]
    fn yaml_1_1_values_and_block_strings_survive() {
        let text = "kind: Namespace\nmetadata:\n  name: a\n---\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: a\ndata:\n  enabled: 'on'\n  mode: \"0755\"\n  plain: yes\n  script: |\n    #!/bin/sh\n    echo \"${HOME}\"\n\n    exit 0\n";
        let out = run(text, None).unwrap().to_yaml();
        assert!(out.contains("  enabled: 'on'\n"), "{out}");
        assert!(out.contains("  mode: \"0755\"\n"), "{out}");
        assert!(out.contains("  plain: yes\n"), "{out}");
        assert!(
            out.contains("  script: |\n    #!/bin/sh\n    echo \"${HOME}\"\n\n    exit 0\n"),
            "{out}"
        );
    }
}
