//! `components/label-values`, `components/provider-label`, `components/provider-identity`: the
//! labels clusterctl sets and reads, and the provider they name; `components/provider-name-cli`:
//! a name clusterctl's configuration file accepts and its command line refuses.

use super::{Components, LABELS, has_variable};
use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::provider::{PROVIDER_LABEL, ProviderType};
use crate::rules::{Context, Diagnostic, Findings, Rule, Severity};
use crate::yaml::Node;

pub(super) static LABEL_VALUES: Rule = Rule {
    id: "components/label-values",
    severity: Severity::Error,
    summary: "a label or annotation value is not a string",
    explanation: "Label and annotation values must be strings. Unquoted `true`, `yes`, `on`, \
        numbers or `0755` are read as booleans or numbers by Kubernetes' YAML 1.1 reader; the API \
        server rejects such objects, and clusterctl, when it adds its own labels, reads the \
        existing ones as a string map, fails, and silently drops all of the object's other \
        labels.",
    help: "quote the value (`\"true\"`)",
    reference: LABELS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            for object in &components.objects {
                for (what, map) in [
                    ("label", object.labels()),
                    ("annotation", object.annotations()),
                ] {
                    let Some(map) = map else { continue };
                    for (key, _, value) in map.iter() {
                        let Some(resolved) = value.resolve() else {
                            findings.at_node(
                                components.file,
                                value,
                                format!(
                                    "{what} `{key}` of {} is not a plain value",
                                    object.display()
                                ),
                            );
                            continue;
                        };
                        if resolved.is_string() || resolved == crate::yaml::resolve::Resolved::Null
                        {
                            continue;
                        }
                        let text = value.scalar_text().unwrap_or_default();
                        findings
                            .at_node(
                                components.file,
                                value,
                                format!(
                                    "{what} `{key}` of {} is the {} `{text}`, not a string",
                                    object.display(),
                                    resolved.type_name()
                                ),
                            )
                            .with_help(format!("quote it: `{key}: \"{text}\"`"));
                    }
                }
            }
        }
    },
};

pub(super) static PROVIDER_LABEL_RULE: Rule = Rule {
    id: "components/provider-label",
    severity: Severity::Warning,
    summary: "an object lacks the `cluster.x-k8s.io/provider` label, or it names another provider",
    explanation: "Every object of a provider should carry `cluster.x-k8s.io/provider: \
        <type>-<name>` (`infrastructure-aws`; plain `cluster-api` for core). clusterctl adds it \
        when it installs, but `kubectl apply` users, `clusterctl move`, `clusterctl delete` and \
        Cluster API's Tilt setup rely on it, and several providers have shipped without it.",
    help: "add the label to every object (kustomize: `labels:` with `includeSelectors: false` in config/default)",
    reference: LABELS,
    check: |cx, findings| {
        let expected = cx.provider.label();
        for components in Components::all(cx) {
            let missing: Vec<&Object<'_>> = components
                .objects
                .iter()
                .filter(|o| o.label(PROVIDER_LABEL).is_none())
                .collect();
            let shown = expected
                .clone()
                .unwrap_or_else(|| match cx.provider.provider_type {
                    Some(t) => format!("{}-<name>", t.short_name()),
                    None => "<type>-<name>".to_string(),
                });
            if !missing.is_empty() && missing.len() == components.objects.len() {
                findings.on_file(
                    components.file,
                    format!(
                        "none of the {} objects carries `{PROVIDER_LABEL}: {shown}`",
                        components.objects.len()
                    ),
                );
            } else {
                for object in missing {
                    findings.at_node(
                        components.file,
                        object.anchor(),
                        format!(
                            "{} has no `{PROVIDER_LABEL}` label (expected `{shown}`)",
                            object.display()
                        ),
                    );
                }
            }
            let Some(expected) = &expected else { continue };
            let wrong: Vec<(&Object<'_>, &Node, &str)> = components
                .objects
                .iter()
                .filter_map(|object| {
                    let value = object.label(PROVIDER_LABEL)?;
                    let text = value.scalar_text()?;
                    (text != expected && !has_variable(text)).then_some((object, value, text))
                })
                .collect();
            let Some(&(_, first_value, first_text)) = wrong.first() else {
                continue;
            };
            let bare = |text: &str| {
                cx.provider.name.as_deref() == Some(text)
                    && ProviderType::split_label(text).is_none()
            };
            let labelled = components
                .objects
                .iter()
                .filter(|o| o.label(PROVIDER_LABEL).is_some())
                .count();
            // One defect, one finding: every labelled object carries the same wrong value.
            if wrong.len() > 1
                && wrong.len() == labelled
                && wrong.iter().all(|(_, _, text)| *text == first_text)
            {
                // Another provider on every object is `components/provider-identity`'s finding.
                if bare(first_text) {
                    findings.at_node(
                        components.file,
                        first_value,
                        format!(
                            "all {labelled} labelled objects are labelled `{PROVIDER_LABEL}: {first_text}`, without its type prefix; clusterctl labels them `{expected}`"
                        ),
                    );
                }
                continue;
            }
            for (object, value, text) in wrong {
                let message = match bare(text) {
                    true => format!(
                        "{} is labelled `{PROVIDER_LABEL}: {text}`, without its type prefix; clusterctl labels it `{expected}`",
                        object.display()
                    ),
                    false => format!(
                        "{} is labelled `{PROVIDER_LABEL}: {text}`, expected `{expected}`",
                        object.display()
                    ),
                };
                findings.at_node(components.file, value, message);
            }
        }
    },
};

pub(super) static PROVIDER_IDENTITY: Rule = Rule {
    id: "components/provider-identity",
    severity: Severity::Error,
    summary: "the components' provider labels name another provider than the release is for",
    explanation: "The provider a release is for comes from `--provider` and `--type` (or \
        capkg.yaml), else from the components file name and the `cluster.x-k8s.io/provider` \
        labels. When most labelled objects name another provider (`infrastructure-bar` in a \
        release of `infrastructure-foo`, or a bootstrap label in an \
        `infrastructure-components.yaml`), either the flags or the manifests are wrong: published \
        as it is, clusterctl would install the objects under the wrong provider name or type, and \
        `clusterctl delete` and `move` would then miss or take the wrong objects. A label that \
        is the last part of the release's name (`fleet` in a release of clusterctl's built-in \
        `rancher-fleet`, whose names prefix the organisation) is the same provider: a note, as \
        clusterctl relabels every object at install. `capkg assemble` and `release` read the \
        labels of the sources, before relabelling; accept a finding you have judged with \
        `lint: allow:`.",
    help: "check `--provider`/`--type` (or `provider:` in capkg.yaml) against the manifests' `cluster.x-k8s.io/provider` labels, and fix whichever is wrong",
    reference: LABELS,
    check: |cx, findings| {
        let Some((label, count, labelled)) = crate::rules::most_common_label(cx.release) else {
            return;
        };
        let identity = label_identity(
            cx.provider.provider_type,
            cx.provider.name.as_deref(),
            &label,
        );
        if identity == LabelIdentity::Same {
            return;
        }
        let expected = cx
            .provider
            .label()
            .or_else(|| {
                Some(format!(
                    "{}-<name>",
                    cx.provider.provider_type?.short_name()
                ))
            })
            .unwrap_or_else(|| "<type>-<name>".to_string());
        let mut given = Vec::new();
        if let Some(name) = &cx.given.name {
            given.push(format!("`--provider {name}`"));
        }
        if let Some(t) = cx.given.provider_type {
            given.push(format!("`--type {t}`"));
        }
        let source = match given.is_empty() {
            true => "the components file name and the other labels".to_string(),
            false => given.join(" and "),
        };
        let found = Context::objects_in(cx.release.components()).find(|(_, object)| {
            object.label(PROVIDER_LABEL).and_then(Node::as_str) == Some(label.as_str())
        });
        let message = match identity {
            LabelIdentity::Alias => alias_message(&label, (count, labelled), &expected),
            _ => format!(
                "{count} of the {labelled} labelled objects are labelled `{PROVIDER_LABEL}: {label}`, but the release is `{expected}` (from {source})"
            ),
        };
        let finding = match found {
            Some((file, object)) => match object.label(PROVIDER_LABEL) {
                Some(value) => findings.at_node(file, value, message),
                None => findings.on_file(file, message),
            },
            None => return,
        };
        if identity == LabelIdentity::Alias {
            finding.with_severity(Severity::Info).with_help(ALIAS_HELP);
        }
    },
};

pub(super) static PROVIDER_NAME_CLI: Rule = Rule {
    id: "components/provider-name-cli",
    severity: Severity::Warning,
    summary: "clusterctl's command line refuses the provider's name (a dotted name)",
    explanation: "clusterctl's configuration file accepts a provider name that is a DNS-1123 \
        subdomain (`my.provider`, dots allowed, up to 253 characters), so such a release is \
        published and registered without complaint. But `clusterctl init --infrastructure \
        my.provider` (and `upgrade`, `delete`, `generate provider`) parses the name as a DNS-1123 \
        label (lower-case letters, digits and `-`, at most 63 characters) and refuses it: \
        `invalid provider name \"my.provider\". Provider name should be in the form \
        name[:version] and the name should be valid` (cmd/clusterctl/client/common.go, \
        `parseProviderName`). Users could register the provider and never install it.",
    help: "name the provider with lower-case letters, digits and `-` only (at most 63 characters), as clusterctl's command line requires (`my-provider`)",
    reference: LABELS,
    check: |cx, findings| {
        let (Some(provider_type), Some(name)) = (cx.provider.provider_type, &cx.provider.name)
        else {
            return;
        };
        // `parseProviderName` takes a DNS-1123 label; the configuration file, a subdomain.
        if crate::k8s::dns1123_label(name).is_ok()
            || crate::provider::validate_name(Some(provider_type), name).is_err()
        {
            return;
        }
        let Some(components) = Components::all(cx).next() else {
            return;
        };
        findings.on_file(
            components.file,
            format!(
                "the provider name `{name}` is valid in clusterctl's configuration file, but `clusterctl init --{} {name}` refuses it: `invalid provider name \"{name}\". Provider name should be in the form name[:version] and the name should be valid`",
                provider_type.short_name()
            ),
        );
    },
};

/// How the `cluster.x-k8s.io/provider` label most objects carry relates to the provider they
/// are released as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelIdentity {
    /// The released provider's label, or its bare name (clusterctl writes the type at install).
    Same,
    /// The last part of the released name (`fleet` for clusterctl's built-in `rancher-fleet`):
    /// clusterctl's built-in names prefix the organisation (`linode-linode`, `eitco-cdk8s`), the
    /// repositories' own labels often do not, and clusterctl relabels every object at install.
    Alias,
    /// Another name of the same type: the name in capkg.yaml (or `--provider`) or the manifests
    /// are wrong.
    OtherName,
    /// Another provider type: a bootstrap provider's manifests released as infrastructure.
    OtherType,
}

/// The one reading of a source label against the release, for lint and for assembly.
pub fn label_identity(
    released_type: Option<ProviderType>,
    released_name: Option<&str>,
    label: &str,
) -> LabelIdentity {
    let (label_type, label_name) = match ProviderType::split_label(label) {
        Some((t, name)) => (Some(t), name),
        None => (None, label),
    };
    if let (Some(expected), Some(found)) = (released_type, label_type)
        && expected != found
    {
        return LabelIdentity::OtherType;
    }
    match released_name {
        None => LabelIdentity::Same,
        Some(name) if name == label_name => LabelIdentity::Same,
        Some(name)
            if name
                .strip_suffix(label_name)
                .is_some_and(|prefix| prefix.len() > 1 && prefix.ends_with('-')) =>
        {
            LabelIdentity::Alias
        }
        Some(_) => LabelIdentity::OtherName,
    }
}

/// What an [`LabelIdentity::Alias`] note says: accepted, and why.
fn alias_message(label: &str, (count, labelled): (usize, usize), released: &str) -> String {
    let name = ProviderType::split_label(released).map_or(released, |(_, name)| name);
    format!(
        "{count} of the {labelled} labelled objects are labelled `{PROVIDER_LABEL}: {label}`, the last part of the release's name `{name}` (clusterctl's built-in names prefix the organisation); accepted: clusterctl labels every object `{released}` at install"
    )
}

/// The help of an [`LabelIdentity::Alias`] note: nothing is needed.
const ALIAS_HELP: &str = "nothing to do; labelling the objects as clusterctl does makes `kubectl apply` of the release match `clusterctl init`";

/// The identity finding of a release's sources, which assembly reads before it relabels every
/// object (after that, lint cannot tell): `found` is the label most of the `labelled` objects
/// carry (`count` of them), first at `at` (`file:line:column` of the sources). `None` when the
/// label is the release's own. An error for another provider or type, waivable like every
/// finding; a note for an [`LabelIdentity::Alias`].
pub fn source_identity(
    file: &ReleaseFile,
    released: (ProviderType, &str),
    found: &str,
    (count, labelled): (usize, usize),
    at: &str,
) -> Option<Diagnostic> {
    let (released_type, released_name) = released;
    let label = released_type.manifest_label(released_name);
    let identity = label_identity(Some(released_type), Some(released_name), found);
    let message = match identity {
        LabelIdentity::Same => return None,
        LabelIdentity::Alias => {
            format!("{at}: {}", alias_message(found, (count, labelled), &label))
        }
        LabelIdentity::OtherName | LabelIdentity::OtherType => format!(
            "{at}: {count} of the {labelled} labelled objects are labelled `{PROVIDER_LABEL}: {found}`, but capkg.yaml releases them as `{label}`"
        ),
    };
    let mut out = Vec::new();
    let mut findings = Findings::new(&PROVIDER_IDENTITY, &mut out);
    let finding = findings.on_file(file, message);
    match identity {
        LabelIdentity::Alias => {
            finding.with_severity(Severity::Info).with_help(ALIAS_HELP);
        }
        _ => {
            finding.with_help("fix `name`/`type` of the provider in capkg.yaml, or the labels in the sources; or, when both are right, accept the finding with a reason in capkg.yaml `lint: allow:`");
        }
    }
    out.pop()
}
