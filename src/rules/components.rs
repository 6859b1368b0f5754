//! `components/…`: the components YAML as clusterctl installs it.
//!
//! clusterctl reads the components file, takes the name of its single Namespace as the default
//! target namespace, moves every namespaced object and every reference (RBAC subjects, webhook
//! services, CRD conversion services, cert-manager CA injection) into the target namespace,
//! converts some kinds to typed objects, parses every workload image, and labels everything with
//! the provider's manifest label. Each rule here catches a way a file breaks one of those steps,
//! or survives them only because clusterctl papers over it.

mod images;
mod labels;

use super::{CLUSTERCTL_CONTRACT, Context, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::k8s::{self, INJECT_CA_FROM, Object};
use crate::yaml::Node;

use images::{IMAGE_PLACEHOLDER, IMAGE_REFERENCE, IMAGE_REGISTRY, IMAGE_TAG};
use labels::{LABEL_VALUES, PROVIDER_IDENTITY, PROVIDER_LABEL_RULE, PROVIDER_NAME_CLI};
pub use labels::{LabelIdentity, label_identity, source_identity};

pub(super) const RULES: &[&Rule] = &[
    &EMPTY,
    &SINGLE_NAMESPACE,
    &NO_NAMESPACE,
    &OBJECT_NAMESPACE,
    &SUBJECT_NAMESPACE,
    &WEBHOOK_NAMESPACE,
    &INJECT_CA,
    &MANAGER_CONTAINER,
    &IMAGE_REFERENCE,
    &API_VERSION,
    &LABEL_VALUES,
    &PROVIDER_LABEL_RULE,
    &PROVIDER_IDENTITY,
    &PROVIDER_NAME_CLI,
    &IMAGE_TAG,
    &IMAGE_REGISTRY,
    &IMAGE_PLACEHOLDER,
];

const COMPONENTS: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\"",
    url: CLUSTERCTL_CONTRACT,
};

const TARGET_NAMESPACE: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\" > \"Target namespace\"",
    url: CLUSTERCTL_CONTRACT,
};

const TRANSFORMATIONS: Reference = Reference {
    title: "clusterctl provider contract, \"Additional notes\" > \"Components YAML transformations\"",
    url: CLUSTERCTL_CONTRACT,
};

const LABELS: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\" > \"Labels\"",
    url: CLUSTERCTL_CONTRACT,
};

const CONTROLLERS: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\" > \"Controllers & Watching namespace\"",
    url: CLUSTERCTL_CONTRACT,
};

/// A components file with its objects and the target namespace its Namespace gives.
struct Components<'a> {
    file: &'a ReleaseFile,
    objects: Vec<Object<'a>>,
}

impl<'a> Components<'a> {
    fn all(cx: &'a Context<'_>) -> impl Iterator<Item = Components<'a>> {
        cx.release.components().map(|file| Components {
            file,
            objects: file.yaml.roots().filter_map(Object::new).collect(),
        })
    }

    fn namespaces(&self) -> impl Iterator<Item = &Object<'a>> {
        self.objects.iter().filter(|o| o.is_kind("Namespace"))
    }

    /// The name of the single Namespace object, as clusterctl defaults the target namespace.
    fn target_namespace(&self) -> Option<&'a str> {
        let mut namespaces = self.namespaces();
        let only = namespaces.next()?;
        match namespaces.next() {
            Some(_) => None,
            None => only.name(),
        }
    }

    fn objects_of_kind<'s>(&'s self, kinds: &'s [&str]) -> impl Iterator<Item = &'s Object<'a>> {
        self.objects
            .iter()
            .filter(|o| o.kind().is_some_and(|k| kinds.contains(&k)))
    }
}

/// True when a value is written with a `${…}` placeholder, so only substitution tells what it is.
fn has_variable(text: &str) -> bool {
    text.contains("${")
}

pub(super) static EMPTY: Rule = Rule {
    id: "components/empty",
    severity: Severity::Error,
    summary: "a components file holds no objects",
    explanation: "A components file that is empty, or holds only comments and empty documents, \
        gives clusterctl nothing to install: no CRDs, no controller, no Namespace to default the \
        target namespace from. It is almost always a build step that failed quietly (a \
        kustomize build redirected into the file after an error, a file truncated by a failed \
        copy).",
    help: "rebuild the components file and check that the command writing it succeeded",
    reference: COMPONENTS,
    check: |cx, findings| {
        for file in cx.release.components() {
            // A file that did not load is reported by the `yaml/` rules.
            let empty =
                file.yaml.errors.is_empty() && file.yaml.documents.iter().all(|d| d.root.is_none());
            if empty {
                let what = match file.yaml.documents.len() {
                    0 => "nothing but comments and whitespace".to_string(),
                    n => format!("{n} empty or `null` document(s)"),
                };
                findings.on_file(
                    file,
                    format!("the components file holds no objects ({what})"),
                );
            }
        }
    },
};

pub(super) static SINGLE_NAMESPACE: Rule = Rule {
    id: "components/single-namespace",
    severity: Severity::Error,
    summary: "the components YAML holds more than one Namespace",
    explanation: "clusterctl takes the name of the single `kind: Namespace` object as the \
        provider's default target namespace. With two or more, `clusterctl init` stops with \
        `Invalid manifest. There should be no more than one resource with Kind Namespace in the \
        provider components yaml` (CAPV shipped `capv-system` and `capv-webhook-system` once).",
    help: "keep one Namespace and move every namespaced object into it",
    reference: TARGET_NAMESPACE,
    check: |cx, findings| {
        for components in Components::all(cx) {
            let namespaces: Vec<_> = components.namespaces().collect();
            if namespaces.len() < 2 {
                continue;
            }
            let names: Vec<String> = namespaces
                .iter()
                .map(|n| format!("`{}`", n.name().unwrap_or("(unnamed)")))
                .collect();
            for extra in &namespaces[1..] {
                findings
                    .at_node(
                        components.file,
                        extra.anchor(),
                        format!(
                            "{} Namespace objects ({}); clusterctl accepts at most one",
                            namespaces.len(),
                            names.join(", ")
                        ),
                    )
                    .with_label(namespaces[0].anchor().span(), "first Namespace");
            }
        }
    },
};

pub(super) static NO_NAMESPACE: Rule = Rule {
    id: "components/no-namespace",
    severity: Severity::Warning,
    summary: "the components YAML has no Namespace object",
    explanation: "Without a `kind: Namespace` object clusterctl cannot default the target \
        namespace: every user must pass `--target-namespace` to `clusterctl init`, or it fails \
        with `target namespace can't be defaulted. Please specify a target namespace`.",
    help: "add a Namespace object (for example `<provider>-system`) and put the namespaced objects in it",
    reference: TARGET_NAMESPACE,
    check: |cx, findings| {
        for components in Components::all(cx) {
            if components.namespaces().next().is_none() && !components.objects.is_empty() {
                findings.on_file(
                    components.file,
                    "no Namespace object: users must pass `--target-namespace` to `clusterctl init`",
                );
            }
        }
    },
};

pub(super) static OBJECT_NAMESPACE: Rule = Rule {
    id: "components/object-namespace",
    severity: Severity::Warning,
    summary: "a namespaced object is outside the components' Namespace",
    explanation: "Every namespaced object of a provider belongs in its target namespace. clusterctl \
        moves them there when it installs (deciding what is namespaced by kind alone, from its \
        list of 16 cluster-scoped kinds), so `clusterctl init` works; `kubectl apply` and other \
        installers do not move them, and an object written for another namespace usually means a \
        kustomize overlay was missed. A warning: it breaks only users who install the file \
        without clusterctl (`capkg assemble` moves them as clusterctl would).",
    help: "set `metadata.namespace` to the components' Namespace (kustomize: `namespace:` in the kustomization)",
    reference: TARGET_NAMESPACE,
    check: |cx, findings| {
        for components in Components::all(cx) {
            let Some(target) = components.target_namespace() else {
                continue;
            };
            if has_variable(target) {
                continue;
            }
            for object in &components.objects {
                let Some(kind) = object.kind() else { continue };
                if !k8s::is_namespaced(kind) {
                    continue;
                }
                match object.namespace_entry() {
                    Some((_, value)) => {
                        let Some(namespace) = value.scalar_text() else {
                            continue;
                        };
                        if namespace != target && !has_variable(namespace) {
                            findings.at_node(
                                components.file,
                                value,
                                format!(
                                    "{} is in namespace `{namespace}`, expected `{target}` (the components' Namespace)",
                                    object.display()
                                ),
                            );
                        }
                    }
                    None => {
                        findings
                            .at_node(
                                components.file,
                                object.anchor(),
                                format!(
                                    "{} has no namespace, expected `{target}` (the components' Namespace)",
                                    object.display()
                                ),
                            )
                            .with_severity(Severity::Warning)
                            .with_help(format!(
                                "add `namespace: {target}`; clusterctl sets it on install, `kubectl apply` would use `default`"
                            ));
                    }
                }
            }
        }
    },
};

pub(super) static SUBJECT_NAMESPACE: Rule = Rule {
    id: "components/subject-namespace",
    severity: Severity::Warning,
    summary: "an RBAC binding's subject points outside the components' Namespace",
    explanation: "clusterctl rewrites the namespace of every RoleBinding and ClusterRoleBinding \
        subject that has one to the target namespace, so a subject written for another namespace \
        ends up bound to an account that does not exist there. A ServiceAccount subject of a \
        ClusterRoleBinding without a namespace is rejected by the API server. clusterctl sets \
        every ServiceAccount subject's namespace itself, so `clusterctl init` works: a warning, as \
        it breaks only installers other than clusterctl (`capkg assemble` fixes it).",
    help: "set the subject's `namespace` to the components' Namespace",
    reference: TRANSFORMATIONS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            let target = components.target_namespace();
            for object in components.objects_of_kind(&["RoleBinding", "ClusterRoleBinding"]) {
                let Some(subjects) = object.root.get("subjects") else {
                    continue;
                };
                for subject in subjects.items() {
                    let kind = subject.get("kind").and_then(Node::scalar_text);
                    let name = subject
                        .get("name")
                        .and_then(Node::scalar_text)
                        .unwrap_or("(unnamed)");
                    match subject.get("namespace").filter(|n| !n.is_null()) {
                        Some(value) => {
                            let Some(namespace) = value.scalar_text() else {
                                continue;
                            };
                            if let Some(target) = target
                                && namespace != target
                                && !has_variable(namespace)
                                && !has_variable(target)
                            {
                                findings.at_node(
                                    components.file,
                                    value,
                                    format!(
                                        "{} binds {} `{name}` in namespace `{namespace}`, expected `{target}`; clusterctl will rewrite it to the target namespace",
                                        object.display(),
                                        kind.unwrap_or("subject")
                                    ),
                                );
                            }
                        }
                        None if kind == Some("ServiceAccount")
                            && object.is_kind("ClusterRoleBinding") =>
                        {
                            findings.at_node(
                                components.file,
                                subject,
                                format!(
                                    "{} binds ServiceAccount `{name}` without a namespace; the API server rejects it",
                                    object.display()
                                ),
                            );
                        }
                        None => {}
                    }
                }
            }
        }
    },
};

pub(super) static WEBHOOK_NAMESPACE: Rule = Rule {
    id: "components/webhook-namespace",
    severity: Severity::Warning,
    summary: "a webhook or CRD conversion service is outside the components' Namespace",
    explanation: "clusterctl points every webhook's `clientConfig.service.namespace` and every \
        CRD conversion webhook service at the target namespace. A service written for another \
        namespace means the manifests were built from a mismatched overlay, and any installer but \
        clusterctl sends admission requests to a service that does not exist. A warning: \
        clusterctl itself fixes it (`capkg assemble` too).",
    help: "set the service's `namespace` to the components' Namespace",
    reference: TRANSFORMATIONS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            let Some(target) = components.target_namespace().filter(|t| !has_variable(t)) else {
                continue;
            };
            let mut check = |object: &Object<'_>, service: &Node, what: &str| {
                let Some(value) = service.get("namespace") else {
                    return;
                };
                let Some(namespace) = value.scalar_text() else {
                    return;
                };
                if namespace != target && !has_variable(namespace) {
                    findings.at_node(
                        components.file,
                        value,
                        format!(
                            "{} {what} service is in namespace `{namespace}`, expected `{target}`",
                            object.display()
                        ),
                    );
                }
            };
            for object in components.objects_of_kind(&[
                "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration",
            ]) {
                let webhooks = object.root.get("webhooks").map(Node::items).unwrap_or(&[]);
                for webhook in webhooks {
                    if let Some(service) = webhook.path(&["clientConfig", "service"]) {
                        let name = webhook
                            .get("name")
                            .and_then(Node::scalar_text)
                            .unwrap_or("?");
                        check(object, service, &format!("webhook `{name}`"));
                    }
                }
            }
            for object in components.objects_of_kind(&["CustomResourceDefinition"]) {
                let service = object
                    .root
                    .path(&["spec", "conversion", "webhook", "clientConfig", "service"])
                    .or_else(|| {
                        object
                            .root
                            .path(&["spec", "conversion", "webhookClientConfig", "service"])
                    });
                if let Some(service) = service {
                    check(object, service, "conversion webhook");
                }
            }
        }
    },
};

pub(super) static INJECT_CA: Rule = Rule {
    id: "components/inject-ca-from",
    severity: Severity::Error,
    summary: "a `cert-manager.io/inject-ca-from` annotation is malformed, names a Certificate the components do not hold, or points outside the Namespace",
    explanation: "On webhook configurations and CRDs clusterctl rewrites \
        `cert-manager.io/inject-ca-from: <namespace>/<certificate>` to the target namespace; a \
        value that is not exactly `<namespace>/<name>` stops `clusterctl init` with `does not have \
        a correct value for cert-manager.io/inject-ca-from` (an error). cert-manager's CA \
        injector then copies the CA of that Certificate, in the target namespace, into the \
        `caBundle`: a Certificate the components do not hold (a name kustomize prefixed on \
        one side only, a Certificate renamed or dropped) leaves the `caBundle` empty, and the \
        API server refuses every call to the webhook (an error). A namespace pointing \
        elsewhere leaves the webhook without a CA bundle for every other installer (a \
        warning: clusterctl rewrites it). A value holding a kustomize var (`$(CERTIFICATE_NAME)`) \
        is `build/kustomize-var`'s to report.",
    help: "write the annotation as `<components namespace>/<certificate name>`, naming a Certificate of the components",
    reference: TRANSFORMATIONS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            let target = components.target_namespace();
            let certificates: Vec<&str> = components
                .objects
                .iter()
                .filter(|o| o.is_kind("Certificate") && o.group() == "cert-manager.io")
                .filter_map(Object::name)
                .collect();
            for object in components.objects_of_kind(&[
                "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration",
                "CustomResourceDefinition",
            ]) {
                let Some(value) = object.annotation(INJECT_CA_FROM) else {
                    continue;
                };
                let text = value.scalar_text().unwrap_or_default();
                let parts: Vec<&str> = text.split('/').collect();
                if parts.len() != 2 {
                    findings.at_node(
                        components.file,
                        value,
                        format!(
                            "{} has `{INJECT_CA_FROM}: {text}`; clusterctl requires `<namespace>/<name>`",
                            object.display()
                        ),
                    );
                    continue;
                }
                let certificate = parts[1];
                if super::webhook::is_literal(certificate) && !certificates.contains(&certificate) {
                    let held = match certificates.as_slice() {
                        [] => "it holds none".to_string(),
                        some => format!("it holds {}", super::backticked(some)),
                    };
                    findings.at_node(
                        components.file,
                        value,
                        format!(
                            "{} injects its CA from Certificate `{certificate}`, which the components do not hold ({held}): its `caBundle` stays empty and every call to it fails",
                            object.display()
                        ),
                    );
                    continue;
                }
                if let Some(target) = target
                    && parts[0] != target
                    && !has_variable(parts[0])
                    && !has_variable(target)
                    && !parts[0].contains("$(")
                {
                    findings
                        .at_node(
                            components.file,
                            value,
                            format!(
                                "{} injects its CA from namespace `{}`, expected `{target}`",
                                object.display(),
                                parts[0]
                            ),
                        )
                        .with_severity(Severity::Warning);
                }
            }
        }
    },
};

pub(super) static MANAGER_CONTAINER: Rule = Rule {
    id: "components/manager-container",
    severity: Severity::Error,
    summary: "a controller Deployment has no container named `manager`",
    explanation: "The contract says the controller container MUST be named `manager`. clusterctl \
        relies on it: `clusterctl init --wait-providers` waits only for Deployments with a \
        `manager` container, and tooling such as image overrides and `clusterctl describe` \
        expect it.",
    help: "name the controller container `manager`",
    reference: CONTROLLERS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            for object in components.objects_of_kind(&["Deployment"]) {
                let names: Vec<&str> = object
                    .containers()
                    .filter(|c| !c.init)
                    .filter_map(|c| c.name())
                    .collect();
                if names.contains(&"manager") {
                    continue;
                }
                let listed = if names.is_empty() {
                    "no containers".to_string()
                } else {
                    format!("containers {}", super::backticked(&names))
                };
                let anchor = object
                    .pod_spec()
                    .and_then(|s| s.get("containers"))
                    .and_then(|c| c.items().first())
                    .map_or(object.anchor(), |c| c.get("name").unwrap_or(c));
                findings.at_node(
                    components.file,
                    anchor,
                    format!("{} has {listed} but none named `manager`", object.display()),
                );
            }
        }
    },
};

pub(super) static API_VERSION: Rule = Rule {
    id: "components/api-version",
    severity: Severity::Error,
    summary: "a kind clusterctl converts to a typed object has an apiVersion it cannot convert",
    explanation: "clusterctl converts Deployments and DaemonSets (to fix images), RoleBindings \
        and ClusterRoleBindings (to fix subjects), webhook configurations and CRDs (to fix \
        services) into Go types, by kind alone. Deployments and DaemonSets must be `apps/v1`, \
        bindings `rbac.authorization.k8s.io/v1`, webhook configurations \
        `admissionregistration.k8s.io/v1` (or v1beta1) and CRDs `apiextensions.k8s.io/v1` (or \
        v1beta1); anything else fails `clusterctl init`.",
    help: "use the apiVersion shown",
    reference: TRANSFORMATIONS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            for object in &components.objects {
                let Some(kind) = object.kind() else { continue };
                let allowed: &[&str] = match kind {
                    "Deployment" | "DaemonSet" => &["apps/v1"],
                    "RoleBinding" | "ClusterRoleBinding" => &["rbac.authorization.k8s.io/v1"],
                    "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => &[
                        "admissionregistration.k8s.io/v1",
                        "admissionregistration.k8s.io/v1beta1",
                    ],
                    "CustomResourceDefinition" => {
                        &["apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"]
                    }
                    _ => continue,
                };
                let version = object.api_version().unwrap_or("");
                if allowed.contains(&version) {
                    continue;
                }
                let node = object.root.get("apiVersion").unwrap_or(object.anchor());
                let shown = if version.is_empty() {
                    "no apiVersion".to_string()
                } else {
                    format!("`{version}`")
                };
                findings
                    .at_node(
                        components.file,
                        node,
                        format!(
                            "{} has {shown}; clusterctl can only convert {kind} from `{}`",
                            object.display(),
                            allowed.join("` or `")
                        ),
                    )
                    .with_help(format!("set `apiVersion: {}`", allowed[0]));
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check, check_files, release, with_version};

    const FILE: &str = "infrastructure-components.yaml";

    fn lines(docs: &[&str]) -> String {
        docs.join("---\n")
    }

    const NS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n";

    #[test]
    fn single_namespace() {
        assert!(check_files(&SINGLE_NAMESPACE, &[(FILE, NS)]).is_empty());
        let text = lines(&[
            NS,
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-webhook-system\n",
        ]);
        let found = check_files(&SINGLE_NAMESPACE, &[(FILE, &text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "components/single-namespace");
        assert_eq!(at(&found[0]), (9, 9));
        assert!(found[0].message.contains("`capx-system`"));
        assert!(found[0].message.contains("`capx-webhook-system`"));
        assert_eq!(found[0].labels.len(), 1);
    }

    #[test]
    fn no_namespace() {
        assert!(check_files(&NO_NAMESPACE, &[(FILE, NS)]).is_empty());
        let found = check_files(
            &NO_NAMESPACE,
            &[(FILE, "kind: ServiceAccount\nmetadata:\n  name: a\n")],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].span.is_none());
        assert!(found[0].message.contains("--target-namespace"));
    }

    #[test]
    fn object_namespace() {
        let good = lines(&[
            NS,
            "kind: ServiceAccount\nmetadata:\n  name: a\n  namespace: capx-system\n",
            "kind: ClusterRole\nmetadata:\n  name: r\n",
        ]);
        assert!(check_files(&OBJECT_NAMESPACE, &[(FILE, &good)]).is_empty());
        let bad = lines(&[
            NS,
            "kind: ServiceAccount\nmetadata:\n  name: a\n  namespace: default\n",
            "kind: ConfigMap\nmetadata:\n  name: c\n",
        ]);
        let found = check_files(&OBJECT_NAMESPACE, &[(FILE, &bad)]);
        assert_eq!(found.len(), 2);
        assert_eq!(at(&found[0]), (9, 14));
        assert!(found[0].message.contains("ServiceAccount `a`"));
        assert!(found[0].message.contains("`default`"));
        assert!(found[0].message.contains("`capx-system`"));
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[1].message.contains("ConfigMap `c` has no namespace"));
        assert_eq!(found[1].severity, Severity::Warning);
    }

    #[test]
    fn subject_namespace() {
        let binding = |ns: &str| {
            format!(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\nsubjects:\n- kind: ServiceAccount\n  name: manager\n{ns}"
            )
        };
        let good = lines(&[NS, &binding("  namespace: capx-system\n")]);
        assert!(check_files(&SUBJECT_NAMESPACE, &[(FILE, &good)]).is_empty());
        let bad = lines(&[NS, &binding("  namespace: system\n")]);
        let found = check_files(&SUBJECT_NAMESPACE, &[(FILE, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (13, 14));
        assert!(found[0].message.contains("ServiceAccount `manager`"));
        assert!(found[0].message.contains("`system`"));
        let missing = lines(&[NS, &binding("")]);
        let found = check_files(&SUBJECT_NAMESPACE, &[(FILE, &missing)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("without a namespace"));
    }

    #[test]
    fn webhook_namespace() {
        let webhook = |ns: &str| {
            format!(
                "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: v\nwebhooks:\n- name: w.x.io\n  clientConfig:\n    service:\n      name: webhook-service\n      namespace: {ns}\n"
            )
        };
        assert!(
            check_files(
                &WEBHOOK_NAMESPACE,
                &[(FILE, &lines(&[NS, &webhook("capx-system")]))]
            )
            .is_empty()
        );
        let found = check_files(
            &WEBHOOK_NAMESPACE,
            &[(FILE, &lines(&[NS, &webhook("system")]))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (15, 18));
        assert!(found[0].message.contains("webhook `w.x.io`"));
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b\nspec:\n  conversion:\n    webhook:\n      clientConfig:\n        service:\n          name: s\n          namespace: other\n";
        let found = check_files(&WEBHOOK_NAMESPACE, &[(FILE, &lines(&[NS, crd]))]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("conversion webhook"));
        assert!(found[0].message.contains("`other`"));
    }

    #[test]
    fn inject_ca_from() {
        let crd = |value: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b\n  annotations:\n    cert-manager.io/inject-ca-from: {value}\n"
            )
        };
        const CERT: &str = "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: serving-cert\n  namespace: capx-system\n";
        assert!(
            check_files(
                &INJECT_CA,
                &[(FILE, &lines(&[NS, CERT, &crd("capx-system/serving-cert")]))]
            )
            .is_empty()
        );
        let found = check_files(
            &INJECT_CA,
            &[(FILE, &lines(&[NS, CERT, &crd("serving-cert")]))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (17, 37));
        assert!(found[0].message.contains("`<namespace>/<name>`"));
        let found = check_files(
            &INJECT_CA,
            &[(FILE, &lines(&[NS, CERT, &crd("system/serving-cert")]))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("namespace `system`"));
        // A Certificate the components do not hold: the `caBundle` is never filled.
        let found = check_files(
            &INJECT_CA,
            &[(
                FILE,
                &lines(&[NS, CERT, &crd("capx-system/capx-serving-cert")]),
            )],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (17, 37));
        assert_eq!(
            found[0].message,
            "CustomResourceDefinition `a.b` injects its CA from Certificate `capx-serving-cert`, which the components do not hold (it holds `serving-cert`): its `caBundle` stays empty and every call to it fails"
        );
        // A kustomize var is `build/kustomize-var`'s, in either part.
        let var = lines(&[
            NS,
            CERT,
            &crd("$(CERTIFICATE_NAMESPACE)/$(CERTIFICATE_NAME)"),
        ]);
        assert!(check_files(&INJECT_CA, &[(FILE, &var)]).is_empty());
    }

    fn deployment(container: &str, image: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: {container}\n        image: {image}\n"
        )
    }

    #[test]
    fn manager_container() {
        let good = deployment("manager", "gcr.io/a/b:v1");
        assert!(check_files(&MANAGER_CONTAINER, &[(FILE, &good)]).is_empty());
        let found = check_files(
            &MANAGER_CONTAINER,
            &[(FILE, &deployment("controller", "gcr.io/a/b:v1"))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (9, 15));
        assert!(found[0].message.contains("Deployment `controller`"));
        assert!(found[0].message.contains("`controller`"));
    }

    #[test]
    fn image_reference() {
        let good = deployment("manager", "registry.k8s.io/capi/manager:v1.0.0");
        assert!(check_files(&IMAGE_REFERENCE, &[(FILE, &good)]).is_empty());
        let found = check_files(
            &IMAGE_REFERENCE,
            &[(FILE, &deployment("manager", "nginx:1.2"))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (10, 16));
        assert!(found[0].message.contains("`nginx:1.2`"));
        assert!(found[0].message.contains("docker.io/library/nginx:1.2"));
        // Placeholders are clusterctl's to substitute first.
        assert!(
            check_files(
                &IMAGE_REFERENCE,
                &[(FILE, &deployment("manager", "${IMG}"))]
            )
            .is_empty()
        );
    }

    #[test]
    fn api_version() {
        let good = deployment("manager", "a.io/b:v1");
        assert!(check_files(&API_VERSION, &[(FILE, &good)]).is_empty());
        let bad = good.replace("apps/v1", "extensions/v1beta1");
        let found = check_files(&API_VERSION, &[(FILE, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 13));
        assert!(found[0].message.contains("`extensions/v1beta1`"));
        assert!(found[0].help.contains("apps/v1"));
        let binding = "apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: RoleBinding\nmetadata:\n  name: b\n";
        assert_eq!(check_files(&API_VERSION, &[(FILE, binding)]).len(), 1);
    }

    #[test]
    fn label_values() {
        let good = "kind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    a: \"true\"\n    b: text\n  annotations:\n    c: \"1\"\n";
        assert!(check_files(&LABEL_VALUES, &[(FILE, good)]).is_empty());
        let bad = "kind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    a: true\n    b: text\n  annotations:\n    c: 0755\n";
        let found = check_files(&LABEL_VALUES, &[(FILE, bad)]);
        assert_eq!(found.len(), 2);
        assert_eq!(at(&found[0]), (5, 8));
        assert!(found[0].message.contains("label `a`"));
        assert!(found[0].message.contains("bool"));
        assert!(found[1].message.contains("annotation `c`"));
        assert!(found[1].message.contains("int"));
    }

    #[test]
    fn provider_label() {
        let labelled = |value: &str| {
            format!(
                "kind: Namespace\nmetadata:\n  name: capx-system\n  labels:\n    cluster.x-k8s.io/provider: {value}\n"
            )
        };
        let good = labelled("infrastructure-capx");
        assert!(check_files(&PROVIDER_LABEL_RULE, &[(FILE, &good)]).is_empty());
        let options = crate::rules::Options {
            provider_name: Some("capx".into()),
            ..Default::default()
        };
        let found = check(
            &PROVIDER_LABEL_RULE,
            &release(&[(FILE, &labelled("infrastructure-other"))]),
            &options,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (5, 32));
        assert!(found[0].message.contains("`infrastructure-capx`"));
        // One missing among labelled objects: reported on the object.
        let mixed = lines(&[
            &good,
            "kind: ConfigMap\nmetadata:\n  name: c\n  namespace: capx-system\n",
        ]);
        let found = check_files(&PROVIDER_LABEL_RULE, &[(FILE, &mixed)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("ConfigMap `c`"));
        // None labelled: one finding for the file.
        let found = check_files(&PROVIDER_LABEL_RULE, &[(FILE, NS)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].span.is_none());
        assert!(found[0].message.contains("none of the 1 objects"));
    }

    #[test]
    fn bare_provider_labels_are_reported_without_provider_once_per_file() {
        let bare = lines(&[
            "kind: Namespace\nmetadata:\n  name: capx-system\n  labels:\n    cluster.x-k8s.io/provider: kubevirt\n",
            "kind: ConfigMap\nmetadata:\n  name: c\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: kubevirt\n",
        ]);
        let found = check_files(&PROVIDER_LABEL_RULE, &[(FILE, &bare)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(at(&found[0]), (5, 32));
        assert!(found[0].message.contains("without its type prefix"));
        assert!(found[0].message.contains("`infrastructure-kubevirt`"));
        // The bare label is not a provider mismatch.
        assert!(check_files(&PROVIDER_IDENTITY, &[(FILE, &bare)]).is_empty());
    }

    #[test]
    fn provider_identity() {
        let labelled = |value: &str| {
            lines(&[
                &format!(
                    "kind: Namespace\nmetadata:\n  name: x-system\n  labels:\n    cluster.x-k8s.io/provider: {value}\n"
                ),
                &format!(
                    "kind: ConfigMap\nmetadata:\n  name: c\n  namespace: x-system\n  labels:\n    cluster.x-k8s.io/provider: {value}\n"
                ),
            ])
        };
        let foo = labelled("infrastructure-foo");
        assert!(check_files(&PROVIDER_IDENTITY, &[(FILE, &foo)]).is_empty());
        let given = |name: Option<&str>, provider_type: Option<crate::provider::ProviderType>| {
            crate::rules::Options {
                provider_name: name.map(str::to_string),
                provider_type,
                ..Default::default()
            }
        };
        let same = check(
            &PROVIDER_IDENTITY,
            &release(&[(FILE, &foo)]),
            &given(Some("foo"), None),
        );
        assert!(same.is_empty());
        let found = check(
            &PROVIDER_IDENTITY,
            &release(&[(FILE, &foo)]),
            &given(Some("bar"), None),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (5, 32));
        assert!(
            found[0].message.contains("`--provider bar`"),
            "{}",
            found[0].message
        );
        assert!(found[0].message.contains("`infrastructure-bar`"));
        let found = check(
            &PROVIDER_IDENTITY,
            &release(&[(FILE, &foo)]),
            &given(None, Some(crate::provider::ProviderType::Bootstrap)),
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`--type bootstrap`"));
        // Labels of another type than the file name says.
        let found = check_files(&PROVIDER_IDENTITY, &[(FILE, &labelled("bootstrap-foo"))]);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn label_identity_tells_an_alias_from_another_provider() {
        use crate::provider::ProviderType::{Addon, Bootstrap, Infrastructure};
        use crate::rules::{LabelIdentity::*, label_identity};
        let addon = Some(Addon);
        let fleet = Some("rancher-fleet");
        assert_eq!(label_identity(addon, fleet, "addon-rancher-fleet"), Same);
        assert_eq!(label_identity(addon, fleet, "rancher-fleet"), Same);
        // clusterctl's built-in name prefixes the organisation; the sources do not.
        assert_eq!(label_identity(addon, fleet, "fleet"), Alias);
        assert_eq!(label_identity(addon, fleet, "addon-fleet"), Alias);
        // A suffix that is not a whole part, or the other way round, is another provider.
        assert_eq!(label_identity(addon, fleet, "eet"), OtherName);
        assert_eq!(
            label_identity(addon, Some("fleet"), "rancher-fleet"),
            OtherName
        );
        assert_eq!(label_identity(addon, fleet, "addon-helm"), OtherName);
        // A wrong type stays wrong whatever the name.
        assert_eq!(label_identity(addon, fleet, "bootstrap-fleet"), OtherType);
        assert_eq!(
            label_identity(Some(Infrastructure), Some("foo"), "bootstrap-foo"),
            OtherType
        );
        assert_eq!(label_identity(Some(Bootstrap), None, "bootstrap-x"), Same);
    }

    #[test]
    fn a_dotted_provider_name_is_refused_by_clusterctls_command_line() {
        let named = |name: &str| {
            let text = lines(&[&format!(
                "kind: Namespace\nmetadata:\n  name: x-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-{name}\n"
            )]);
            let options = crate::rules::Options {
                provider_name: Some(name.into()),
                provider_type: Some(crate::provider::ProviderType::Infrastructure),
                ..Default::default()
            };
            check(&PROVIDER_NAME_CLI, &release(&[(FILE, &text)]), &options)
        };
        let found = named("my.provider");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].message.contains("`clusterctl init --infrastructure my.provider` refuses it")
                && found[0].message.contains(
                    "invalid provider name \"my.provider\". Provider name should be in the form name[:version] and the name should be valid"
                ),
            "{}",
            found[0].message
        );
        assert!(named("my-provider").is_empty());
        // A name the configuration file refuses too is not this rule's.
        assert!(named("My.Provider").is_empty());
    }

    #[test]
    fn an_alias_label_is_a_note() {
        let fleet = lines(&[
            "kind: Namespace\nmetadata:\n  name: caapf-system\n  labels:\n    cluster.x-k8s.io/provider: fleet\n",
            "kind: ConfigMap\nmetadata:\n  name: c\n  namespace: caapf-system\n  labels:\n    cluster.x-k8s.io/provider: fleet\n",
        ]);
        let options = crate::rules::Options {
            provider_name: Some("rancher-fleet".into()),
            provider_type: Some(crate::provider::ProviderType::Addon),
            ..Default::default()
        };
        let found = check(&PROVIDER_IDENTITY, &release(&[(FILE, &fleet)]), &options);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Info);
        assert!(
            found[0].message.contains("`rancher-fleet`"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn empty() {
        assert!(check_files(&EMPTY, &[(FILE, NS)]).is_empty());
        for text in [
            "",
            "# only a comment\n",
            "---\n---\n",
            "---\nnull\n---\n~\n",
        ] {
            let found = check_files(&EMPTY, &[(FILE, text)]);
            assert_eq!(found.len(), 1, "{text:?}");
            assert!(found[0].message.contains("no objects"));
        }
        // A file that does not load is the `yaml/` rules' to report.
        assert!(check_files(&EMPTY, &[(FILE, "a: [\n")]).is_empty());
    }

    #[test]
    fn image_tag() {
        let good = deployment("manager", "gcr.io/a/b:v1.2.0");
        assert!(
            check(
                &IMAGE_TAG,
                &release(&[(FILE, &good)]),
                &with_version("v1.2.0")
            )
            .is_empty()
        );
        let found = check_files(
            &IMAGE_TAG,
            &[(FILE, &deployment("manager", "gcr.io/a/b:main"))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (10, 16));
        assert!(found[0].message.contains("moving tag `main`"));
        let found = check_files(&IMAGE_TAG, &[(FILE, &deployment("manager", "gcr.io/a/b"))]);
        assert!(found[0].message.contains("no tag"));
        let found = check(
            &IMAGE_TAG,
            &release(&[(FILE, &deployment("manager", "gcr.io/a/b:v1.1.0"))]),
            &with_version("v1.2.0"),
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`v1.2.0`"));
    }
}
