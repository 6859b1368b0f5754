//! `build/…`: what the maintainer's build (kustomize, in nearly every provider) left in the
//! release that should have been replaced.
//!
//! - `build/kustomize-var`: a `$(NAME)` kustomize var the build never substituted. `capkg lint`
//!   finds those in the files; `capkg assemble` and `capkg release` also look at the sources
//!   before the release transformations ([`kustomize_vars_in`]), because those rewrite some of
//!   the very fields kubebuilder's vars fill (`inject-ca-from`'s namespace, webhook service
//!   namespaces, a Certificate's `dnsNames`), and a var they replace would otherwise vanish
//!   from the findings with the evidence that the build is broken ([`rewritten_kustomize_vars`]).
//! - `build/dev-image-value`: a value kustomize copied from the development image (CAPZ's
//!   `replacements` write the manager image's tag into a Secret) that `images:` pinning left
//!   behind. Only `assemble` and `release` know the pins ([`dev_image_values`]).

use super::{Findings, Reference, Rule, Severity};
use crate::diagnostic::Diagnostic;
use crate::files::ReleaseFile;
use crate::image_ref::Parts;
use crate::k8s::Object;
use crate::provider::FileRole;
use crate::yaml::{Node, Value};

pub(super) const RULES: &[&Rule] = &[&KUSTOMIZE_VAR, &DEV_IMAGE_VALUE];

const KUSTOMIZE_VARS: Reference = Reference {
    title: "kustomize, \"vars\" (deprecated; replaced by \"replacements\")",
    url: "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/vars/",
};

const REPLACEMENTS: Reference = Reference {
    title: "kustomize, \"replacements\" (values copied from one field to another at build time)",
    url: "https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/replacements/",
};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Segment {
    Key(String),
    Index(usize),
}

/// `spec.template.spec.volumes[0].secret.secretName`; keys holding `.` or `/` in brackets
/// (`metadata.annotations["cert-manager.io/inject-ca-from"]`).
fn path_text(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) if key.contains(['.', '/', '[', ']', '"']) => {
                out.push_str(&format!("[{key:?}]"));
            }
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

/// The `$(NAME)` kustomize vars in a value: `NAME` upper case, digits and `_` (kustomize's
/// own scaffolds and kubebuilder's); `$$(` is Kubernetes' escape and not a var.
fn kustomize_vars(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut vars = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("$(") {
        let at = from + found;
        from = at + 2;
        if at > 0 && bytes[at - 1] == b'$' {
            continue;
        }
        let name_len = bytes[at + 2..]
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        let end = at + 2 + name_len;
        if name_len > 0 && bytes.get(end) == Some(&b')') && !bytes[at + 2].is_ascii_digit() {
            vars.push(&text[at..=end]);
        }
    }
    vars
}

const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

/// True for a field of a container entry named one of `fields`.
fn in_container_field(path: &[Segment], fields: &[&str]) -> bool {
    path.windows(3).any(|w| {
        matches!(
            w,
            [Segment::Key(list), Segment::Index(_), Segment::Key(field)]
                if CONTAINER_LISTS.contains(&list.as_str()) && fields.contains(&field.as_str())
        )
    })
}

/// Every scalar value of an object (keys left out) with its path, in document order, except
/// where `skip` says a subtree holds nothing of interest.
fn each_value<'a>(
    root: &'a Node,
    skip: impl Fn(&[Segment]) -> bool,
    mut visit: impl FnMut(&[Segment], &'a Node),
) {
    // An explicit stack: input depth never becomes native stack depth.
    let mut stack: Vec<(&'a Node, usize, Option<Segment>)> = vec![(root, 0, None)];
    let mut path: Vec<Segment> = Vec::new();
    while let Some((node, depth, segment)) = stack.pop() {
        path.truncate(depth);
        if let Some(segment) = segment {
            path.push(segment);
        }
        if skip(&path) {
            continue;
        }
        let depth = path.len();
        match node.value() {
            Value::Scalar { .. } => visit(&path, node),
            Value::Sequence(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, depth, Some(Segment::Index(index))));
                }
            }
            Value::Mapping(map) => {
                for (key, value) in map.entries.iter().rev() {
                    let Some(key) = key.scalar_text() else {
                        continue;
                    };
                    stack.push((value, depth, Some(Segment::Key(key.to_string()))));
                }
            }
        }
    }
}

/// Where a kustomize var left in an object is not one: Kubernetes itself expands `$(VAR)` in a
/// container's `command`, `args` and `env` values (and an image is `components/image-…`'s), a
/// CRD's schema describes that syntax, and a ConfigMap's or Secret's data holds scripts.
fn not_a_var_place(kind: Option<&str>, path: &[Segment]) -> bool {
    let key = |i: usize| match path.get(i) {
        Some(Segment::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    match kind {
        Some("CustomResourceDefinition") => {
            (key(0) == Some("spec") && key(1) == Some("validation"))
                || (key(0) == Some("spec")
                    && key(1) == Some("versions")
                    && key(3) == Some("schema"))
        }
        Some("ConfigMap" | "Secret") => {
            path.len() == 1 && matches!(key(0), Some("data" | "stringData" | "binaryData"))
        }
        _ => in_container_field(path, &["command", "args", "env", "image"]),
    }
}

/// Each value of an object that holds a kustomize var, with its path and the vars.
fn vars_of(object: &Node) -> Vec<(Vec<Segment>, &Node, Vec<String>)> {
    let kind = object.get("kind").and_then(Node::scalar_text);
    let mut found = Vec::new();
    each_value(
        object,
        |path| not_a_var_place(kind, path),
        |path, node| {
            let Some(text) = node.scalar_text() else {
                return;
            };
            let vars = kustomize_vars(text);
            if !vars.is_empty() {
                found.push((
                    path.to_vec(),
                    node,
                    vars.into_iter().map(str::to_string).collect(),
                ));
            }
        },
    );
    found
}

pub(super) static KUSTOMIZE_VAR: Rule = Rule {
    id: "build/kustomize-var",
    severity: Severity::Error,
    summary: "a value still holds a `$(NAME)` kustomize var the build never substituted",
    explanation: "kubebuilder's scaffold wires webhooks with kustomize vars: \
        `cert-manager.io/inject-ca-from: $(CERTIFICATE_NAMESPACE)/$(CERTIFICATE_NAME)`, a \
        Certificate's `dnsNames: [$(SERVICE_NAME).$(SERVICE_NAMESPACE).svc]`. kustomize \
        substitutes a var only in the fields its `varReference` configuration lists, and only \
        when the var's object is found (after `namePrefix`), and otherwise leaves `$(NAME)` \
        in the output without a word. A release that ships one points cert-manager at a \
        Certificate called `$(CERTIFICATE_NAME)` and the API server at a host that does not \
        exist: every webhook call fails. `capkg assemble` and `capkg release` look at the \
        sources before their transformations too: a var in a field they rewrite (the \
        namespace of `inject-ca-from`, of a webhook's service, of `dnsNames`) is reported as \
        a warning at the rewritten value, since the release is right there but the build is \
        not. Container `command`, `args` and `env` are left alone (Kubernetes expands \
        `$(VAR)` there itself), as are CRD schemas and ConfigMap and Secret data.",
    help: "make kustomize substitute it (add the field to `varReference` in the \
        kustomization's `configurations:`, check the var's `objref` name after `namePrefix`), \
        or move to `replacements:`",
    reference: KUSTOMIZE_VARS,
    check: |cx, findings| {
        for file in cx
            .release
            .files
            .iter()
            .filter(|f| f.role != FileRole::Metadata)
        {
            for root in file.yaml.roots() {
                let Some(object) = Object::new(root) else {
                    continue;
                };
                for (path, node, vars) in vars_of(root) {
                    findings.at_node(
                        file,
                        node,
                        format!(
                            "`{}` of {} holds {}, never substituted by the kustomize build",
                            path_text(&path),
                            object.display(),
                            super::backticked(&vars)
                        ),
                    );
                }
            }
        }
    },
};

/// A value holding kustomize vars in the sources, before assemble's transformations.
#[derive(Debug, Clone)]
pub struct SourceVar {
    /// The object: kind, name, and which of the objects with that kind and name.
    kind: String,
    name: String,
    nth: usize,
    path: Vec<Segment>,
    /// The value as the sources have it.
    value: String,
    vars: Vec<String>,
}

/// The (kind, name) of an object, as transformations leave them.
fn identity(root: &Node) -> (String, String) {
    let text = |path: &[&str]| root.path_str(path).unwrap_or_default().to_string();
    (text(&["kind"]), text(&["metadata", "name"]))
}

/// The kustomize vars of components objects as the sources give them (before the release
/// transformations), for [`rewritten_kustomize_vars`].
pub fn kustomize_vars_in(objects: &[Node]) -> Vec<SourceVar> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut found = Vec::new();
    for root in objects {
        let id = identity(root);
        let nth = seen.iter().filter(|s| **s == id).count();
        seen.push(id.clone());
        for (path, node, vars) in vars_of(root) {
            found.push(SourceVar {
                kind: id.0.clone(),
                name: id.1.clone(),
                nth,
                path,
                value: node.scalar_text().unwrap_or_default().to_string(),
                vars,
            });
        }
    }
    found
}

/// The node at `path` under `root`.
fn node_at<'a>(root: &'a Node, path: &[Segment]) -> Option<&'a Node> {
    path.iter().try_fold(root, |node, segment| match segment {
        Segment::Key(key) => node.get(key),
        Segment::Index(index) => node.as_sequence()?.get(*index),
    })
}

/// Findings for the kustomize vars of the sources (`found`) that the assembled file no longer
/// holds because a transformation rewrote their value; those it still holds are lint's.
pub fn rewritten_kustomize_vars(file: &ReleaseFile, found: &[SourceVar]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut findings = Findings::new(&KUSTOMIZE_VAR, &mut out);
    let roots: Vec<&Node> = file.yaml.roots().collect();
    for var in found {
        let object = roots
            .iter()
            .filter(|root| identity(root) == (var.kind.clone(), var.name.clone()))
            .nth(var.nth);
        let Some(node) = object.and_then(|root| node_at(root, &var.path)) else {
            continue;
        };
        let Some(now) = node.scalar_text() else {
            continue;
        };
        if !kustomize_vars(now).is_empty() {
            continue; // still there: `build/kustomize-var` reports it in the assembled file
        }
        let display = object
            .and_then(|root| Object::new(root))
            .map_or_else(String::new, |o| o.display());
        findings
            .at_node(
                file,
                node,
                format!(
                    "`{}` of {display} was `{}` in the sources: {} never substituted by the \
                     kustomize build; assemble wrote `{now}` here, as clusterctl would, so this \
                     release is right but the build output is not",
                    path_text(&var.path),
                    var.value,
                    super::backticked(&var.vars)
                ),
            )
            .with_severity(Severity::Warning);
    }
    out
}

pub(super) static DEV_IMAGE_VALUE: Rule = Rule {
    id: "build/dev-image-value",
    severity: Severity::Warning,
    summary: "a value derived from the development image survives the image pin",
    explanation: "kustomize `replacements` (and `vars`) copy a piece of one field into another \
        at build time: CAPZ writes the manager image's tag into the ASO Secret's \
        `AZURE_USER_AGENT_SUFFIX` (`cluster-api-provider-azure/main`), and other providers \
        copy the whole image into an init container's argument or an environment value. \
        When the components command is `kubectl kustomize DIR` or `kustomize build DIR`, \
        capkg.yaml's `images:` are written into DIR's kustomization (in a copy of the \
        repository) before the build, so the replacements there copy the release image; any \
        other command gets its images pinned after the build, and then every such copy keeps \
        the development image's tag, name or reference, and the release reports itself as \
        `main` (or pulls the development image) although it runs the pinned one. A replacement \
        in a kustomization the build includes from elsewhere runs before DIR's images too. \
        `capkg assemble` and \
        `capkg release` compare every value outside the images they pinned with what they \
        replaced: a value holding the replaced image, its name when the pin renamed it, or \
        ending in its tag (`…/main`, `…:main`, `…=main`, or the tag alone) is reported. \
        `capkg lint` alone does not know the pins and does not run this rule.",
    help: "build the components with `kubectl kustomize DIR` (or `kustomize build DIR`) so \
        that capkg pins the image before the build, with the `replacements` in DIR's \
        kustomization; or set the value in the sources",
    reference: REPLACEMENTS,
    check: |_, _| {},
};

/// An image `capkg assemble` replaced by an `images:` pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedImage {
    /// The image as the sources had it.
    pub from: String,
    /// The image the release runs.
    pub to: String,
    /// Where the pin is written (`capkg.yaml:12:5`).
    pub at: String,
}

/// What in `value` comes from the replaced image `from` (pinned to `to`), in words.
fn derived_from(value: &str, from: &Parts<'_>, from_text: &str, to: &Parts<'_>) -> Option<String> {
    if value.contains(from_text) {
        return Some(format!("holds the development image `{from_text}`"));
    }
    if let Some(tag) = from.tag
        && Some(tag) != to.tag
    {
        let ends = value == tag
            || ["/", ":", "=", "@"].iter().any(|sep| {
                value
                    .strip_suffix(tag)
                    .is_some_and(|rest| rest.ends_with(sep))
            });
        if ends {
            return Some(format!(
                "ends in `{tag}`, the tag of the development image `{from_text}`"
            ));
        }
    }
    if from.name != to.name {
        let at = value.find(from.name)?;
        let after = value[at + from.name.len()..].chars().next();
        if after.is_none_or(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')))
        {
            return Some(format!(
                "holds `{}`, the name of the development image `{from_text}`",
                from.name
            ));
        }
    }
    None
}

/// Findings for values of an assembled components file derived from images the pins replaced.
pub fn dev_image_values(file: &ReleaseFile, pins: &[PinnedImage]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let pins: Vec<(&PinnedImage, Parts<'_>, Parts<'_>)> = pins
        .iter()
        .filter_map(|p| Some((p, Parts::parse(&p.from).ok()?, Parts::parse(&p.to).ok()?)))
        .collect();
    if pins.is_empty() {
        return out;
    }
    let mut findings = Findings::new(&DEV_IMAGE_VALUE, &mut out);
    for root in file.yaml.roots() {
        let Some(object) = Object::new(root) else {
            continue;
        };
        // A CRD's schema and descriptions are not built from images.
        if object.is_kind("CustomResourceDefinition") {
            continue;
        }
        let skip = |path: &[Segment]| {
            in_container_field(path, &["image"])
                || matches!(path.last(), Some(Segment::Key(k)) if k == "description")
        };
        each_value(root, skip, |path, node| {
            let Some(value) = node.scalar_text().map(str::trim) else {
                return;
            };
            for (pin, from, to) in &pins {
                if value.contains(pin.to.as_str()) {
                    continue;
                }
                let Some(reason) = derived_from(value, from, &pin.from, to) else {
                    continue;
                };
                findings.at_node(
                    file,
                    node,
                    format!(
                        "`{}` of {} is `{value}`, which {reason}; the release runs `{}` instead \
                         (pinned at {}), and this value was not pinned with it",
                        path_text(path),
                        object.display(),
                        pin.to,
                        pin.at
                    ),
                );
                break;
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files, release};

    const FILE: &str = "infrastructure-components.yaml";

    #[test]
    fn vars_are_found_where_kustomize_substitutes_them() {
        assert_eq!(
            kustomize_vars("$(CERTIFICATE_NAMESPACE)/$(CERTIFICATE_NAME)"),
            ["$(CERTIFICATE_NAMESPACE)", "$(CERTIFICATE_NAME)"]
        );
        for not_a_var in [
            "$$(ESCAPED)",
            "$(lower)",
            "$(1X)",
            "$(NAME",
            "$()",
            "$(A B)",
        ] {
            assert!(kustomize_vars(not_a_var).is_empty(), "{not_a_var}");
        }
        assert_eq!(
            path_text(&[
                Segment::Key("metadata".into()),
                Segment::Key("annotations".into()),
                Segment::Key("cert-manager.io/inject-ca-from".into()),
            ]),
            "metadata.annotations[\"cert-manager.io/inject-ca-from\"]"
        );
        assert_eq!(
            path_text(&[
                Segment::Key("spec".into()),
                Segment::Key("dnsNames".into()),
                Segment::Index(1),
            ]),
            "spec.dnsNames[1]"
        );
    }

    #[test]
    fn kustomize_var() {
        let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b\n  annotations:\n    cert-manager.io/inject-ca-from: capt-system/$(CERTIFICATE_NAME)\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        description: Variable references $(VAR_NAME) are expanded\n---\nkind: Deployment\nmetadata:\n  name: m\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        args: [--x=$(POD_NAME)]\n        env:\n        - name: A\n          value: $(POD_NAME)\n---\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  run.sh: echo $(DATE)\n";
        let found = check_files(&KUSTOMIZE_VAR, &[(FILE, text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "build/kustomize-var");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (6, 37));
        assert_eq!(
            found[0].message,
            "`metadata.annotations[\"cert-manager.io/inject-ca-from\"]` of CustomResourceDefinition `a.b` holds `$(CERTIFICATE_NAME)`, never substituted by the kustomize build"
        );
        // metadata.yaml is not built by kustomize.
        assert!(check_files(&KUSTOMIZE_VAR, &[("metadata.yaml", "a: $(X)\n")]).is_empty());
    }

    #[test]
    fn vars_a_transformation_rewrote_are_reported_at_the_assembled_value() {
        let source = "kind: Certificate\nmetadata:\n  name: serving-cert\n  namespace: $(NS)\nspec:\n  dnsNames:\n  - $(SERVICE_NAME).$(NS).svc\n";
        let sources = release(&[(FILE, source)]);
        let objects: Vec<Node> = sources.files[0].yaml.roots().cloned().collect();
        let found = kustomize_vars_in(&objects);
        assert_eq!(found.len(), 2);
        let assembled = "kind: Certificate\nmetadata:\n  name: serving-cert\n  namespace: capt-system\nspec:\n  dnsNames:\n  - $(SERVICE_NAME).capt-system.svc\n";
        let release = release(&[(FILE, assembled)]);
        let diagnostics = rewritten_kustomize_vars(&release.files[0], &found);
        // The dnsNames entry still holds a var: lint reports it there, not this.
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].severity, Severity::Warning);
        assert_eq!(at(&diagnostics[0]), (4, 14));
        assert!(
            diagnostics[0]
                .message
                .contains("was `$(NS)` in the sources"),
            "{}",
            diagnostics[0].message
        );
    }

    #[test]
    fn values_copied_from_a_pinned_image_are_reported() {
        let text = "kind: Secret\nmetadata:\n  name: aso-controller-settings\nstringData:\n  AZURE_USER_AGENT_SUFFIX: cluster-api-provider-azure/main\n  OTHER: main-branch\n---\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: reg.io/capz/controller:v1.2.0\n        env:\n        - name: SELF\n          value: gcr.io/staging/controller:main\n        - name: REPO\n          value: gcr.io/staging/controller\n        - name: OK\n          value: reg.io/capz/controller:v1.2.0\n";
        let release = release(&[(FILE, text)]);
        let pins = [PinnedImage {
            from: "gcr.io/staging/controller:main".into(),
            to: "reg.io/capz/controller:v1.2.0".into(),
            at: "capkg.yaml:7:5".into(),
        }];
        let found = dev_image_values(&release.files[0], &pins);
        let summary: Vec<((usize, usize), &str)> =
            found.iter().map(|d| (at(d), d.message.as_str())).collect();
        assert_eq!(found.len(), 3, "{summary:#?}");
        assert_eq!(found[0].rule, "build/dev-image-value");
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (5, 28));
        assert_eq!(
            found[0].message,
            "`stringData.AZURE_USER_AGENT_SUFFIX` of Secret `aso-controller-settings` is `cluster-api-provider-azure/main`, which ends in `main`, the tag of the development image `gcr.io/staging/controller:main`; the release runs `reg.io/capz/controller:v1.2.0` instead (pinned at capkg.yaml:7:5), and this value was not pinned with it"
        );
        assert!(found[1].message.contains("holds the development image"));
        assert!(
            found[1]
                .message
                .contains("spec.template.spec.containers[0].env[0].value")
        );
        assert!(
            found[2]
                .message
                .contains("the name of the development image")
        );
        // Lint alone does not know the pins.
        assert!(check_files(&DEV_IMAGE_VALUE, &[(FILE, text)]).is_empty());
    }
}
