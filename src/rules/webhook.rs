//! `webhook/…`: the wiring of admission and CRD conversion webhooks, as the API server follows
//! it once clusterctl has installed the components.
//!
//! A webhook configuration (or a CRD with a conversion webhook) names a Service in
//! `clientConfig.service`; the API server calls `https://<service>.<namespace>.svc:<port>` and
//! verifies the certificate it is shown against the `caBundle` cert-manager's CA injector copies
//! from the Certificate named by `cert-manager.io/inject-ca-from`. That Certificate must name
//! the host called, and its Secret must be what the pods behind the Service serve with. Every
//! link is checked after the transformation clusterctl applies (every namespaced object and
//! every reference moved into the target namespace, a Certificate's `dnsNames` following it;
//! `src/assemble/clusterctl.rs`), within one components file. Whether the Certificate exists is
//! `components/inject-ca-from`'s, and a value still holding a kustomize var
//! (`$(SERVICE_NAME)`) is `build/kustomize-var`'s: these rules skip such values.

use std::collections::BTreeSet;

use super::contract::selects;
use super::{Context, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::k8s::{INJECT_CA_FROM, Object};
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

pub(super) const RULES: &[&Rule] = &[&SERVICE, &CERTIFICATE_DNS_NAMES, &CERTIFICATE_SECRET];

const CONTACTING: Reference = Reference {
    title: "Kubernetes, \"Dynamic Admission Control\" > \"Contacting the webhook\" (CRD conversion webhooks alike)",
    url: "https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#contacting-the-webhook",
};

const CA_INJECTOR: Reference = Reference {
    title: "cert-manager, \"CA Injector\" (and kubebuilder's webhook certificate setup)",
    url: "https://cert-manager.io/docs/concepts/ca-injector/",
};

/// The Service port the API server calls when `clientConfig.service.port` is not given.
const DEFAULT_PORT: i128 = 443;

/// True when a value is written as it will be installed: no clusterctl variable and no
/// kustomize var left in it.
pub(super) fn is_literal(text: &str) -> bool {
    !text.contains("${") && !text.contains("$(")
}

/// One components file's objects, as clusterctl installs them.
struct Wiring<'a> {
    file: &'a ReleaseFile,
    objects: Vec<Object<'a>>,
    /// The target namespace: the single Namespace's name, when it is written out.
    target: Option<&'a str>,
}

/// A webhook and the Service it calls.
struct Caller<'a> {
    object: Object<'a>,
    /// `webhook `name`` or `conversion webhook`.
    what: String,
    /// `clientConfig.service`.
    service: &'a Node,
}

impl Caller<'_> {
    fn describe(&self) -> String {
        format!("{} {}", self.object.display(), self.what)
    }

    /// The Service's name, when it is written out.
    fn service_name(&self) -> Option<(&Node, &str)> {
        let node = self.service.get("name")?;
        Some((node, node.scalar_text().filter(|n| is_literal(n))?))
    }

    /// The port called: `None` when it is a variable or not a number (the API server rejects
    /// the latter, which is not this rule's to say).
    fn port(&self) -> Option<(Option<&Node>, i128)> {
        match self.service.get("port").filter(|n| !n.is_null()) {
            None => Some((None, DEFAULT_PORT)),
            Some(node) => match node.resolve() {
                Some(Resolved::Int(port)) => Some((Some(node), port)),
                _ => None,
            },
        }
    }
}

impl<'a> Wiring<'a> {
    fn all(cx: &'a Context<'_>) -> impl Iterator<Item = Wiring<'a>> {
        cx.release.components().map(|file| {
            let objects: Vec<Object<'a>> = file.yaml.roots().filter_map(Object::new).collect();
            let mut namespaces = objects.iter().filter(|o| o.is_kind("Namespace"));
            let target = match (namespaces.next(), namespaces.next()) {
                (Some(only), None) => only.name().filter(|n| is_literal(n)),
                _ => None,
            };
            Wiring {
                file,
                objects,
                target,
            }
        })
    }

    /// Every admission webhook and CRD conversion webhook that calls a Service.
    fn callers(&self) -> Vec<Caller<'a>> {
        let mut callers = Vec::new();
        for object in &self.objects {
            match object.kind() {
                Some("MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration") => {
                    for webhook in object.root.get("webhooks").map_or(&[][..], Node::items) {
                        if let Some(service) = webhook.path(&["clientConfig", "service"]) {
                            let name = webhook.get("name").and_then(Node::scalar_text);
                            callers.push(Caller {
                                object: *object,
                                what: format!("webhook `{}`", name.unwrap_or("?")),
                                service,
                            });
                        }
                    }
                }
                Some("CustomResourceDefinition") => {
                    let conversion = object.root.path(&["spec", "conversion"]);
                    let service = conversion.and_then(|c| {
                        c.path(&["webhook", "clientConfig", "service"])
                            .or_else(|| c.path(&["webhookClientConfig", "service"]))
                    });
                    if let Some(service) = service {
                        callers.push(Caller {
                            object: *object,
                            what: "conversion webhook".to_string(),
                            service,
                        });
                    }
                }
                _ => {}
            }
        }
        callers
    }

    fn named(&self, kind: &str, group: &str, name: &str) -> Option<Object<'a>> {
        self.objects
            .iter()
            .find(|o| o.is_kind(kind) && o.group() == group && o.name() == Some(name))
            .copied()
    }

    fn service(&self, name: &str) -> Option<Object<'a>> {
        self.named("Service", "", name)
    }

    /// The Certificate `cert-manager.io/inject-ca-from` names on `object`, when it exists.
    fn injected_certificate(&self, object: &Object<'_>) -> Option<Object<'a>> {
        let value = object.annotation(INJECT_CA_FROM)?.scalar_text()?;
        let (_, name) = value.split_once('/')?;
        if !is_literal(name) || name.contains('/') {
            return None;
        }
        self.named("Certificate", "cert-manager.io", name)
    }

    /// The workloads whose pods a Service selects.
    fn selected_by(&self, service: &Object<'_>) -> Vec<Object<'a>> {
        self.objects
            .iter()
            .filter(|o| matches!(o.kind(), Some("Deployment" | "DaemonSet" | "StatefulSet")))
            .filter(|o| {
                selects(
                    service,
                    o.root.path(&["spec", "template", "metadata", "labels"]),
                )
            })
            .copied()
            .collect()
    }

    /// Each caller whose Service exists, with it, once per (Service, `what` of `key`).
    fn served<K: Ord>(
        &self,
        key: impl Fn(&Caller<'a>, &Object<'a>) -> Option<K>,
    ) -> Vec<(Caller<'a>, Object<'a>)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for caller in self.callers() {
            let Some((_, name)) = caller.service_name() else {
                continue;
            };
            let Some(service) = self.service(name) else {
                continue;
            };
            if let Some(k) = key(&caller, &service)
                && seen.insert(k)
            {
                out.push((caller, service));
            }
        }
        out
    }
}

/// The `spec.ports` entry of a Service that exposes `port`.
fn service_port<'a>(service: &Object<'a>, port: i128) -> Option<&'a Node> {
    service
        .root
        .path(&["spec", "ports"])
        .map_or(&[][..], Node::items)
        .iter()
        .find(|p| matches!(p.get("port").and_then(Node::resolve), Some(Resolved::Int(n)) if n == port))
}

/// Values for a message, each in backticks: `` `a`, `b` ``, or `none`.
fn listed(items: impl IntoIterator<Item = String>) -> String {
    match super::backticked(items) {
        none if none.is_empty() => "none".to_string(),
        some => some,
    }
}

/// Descriptions for a message (`Deployment `a`, Deployment `b``), or `none`.
fn joined(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

pub(super) static SERVICE: Rule = Rule {
    id: "webhook/service",
    severity: Severity::Error,
    summary: "a webhook calls a Service the components do not hold, a port it does not expose, or one no pod serves",
    explanation: "The API server calls an admission or conversion webhook through the Service \
        named in `clientConfig.service`, on `port` (443 when left out), which the Service \
        forwards to the `targetPort` of the pods it selects. A Service the components do not \
        ship (a name prefix kustomize did not apply, a renamed Service), a port it does not \
        expose, a selector that matches no pod template, or a `targetPort` name no container \
        declares each make every call fail: objects of a kind with a failing validating or \
        mutating webhook cannot be created (`failurePolicy: Fail`), and a CRD whose \
        conversion webhook fails cannot be read in its other versions. A numeric `targetPort` \
        that no container declares is a warning (declaring container ports is optional).",
    help: "point `clientConfig.service` at the webhook Service of the components, on a port it \
        exposes, and make the Service select the manager's pods and forward to the port the \
        webhook server listens on",
    reference: CONTACTING,
    check: |cx, findings| {
        for wiring in Wiring::all(cx) {
            // One finding per object and Service: a configuration holds dozens of webhooks.
            let mut reported: BTreeSet<(usize, String)> = BTreeSet::new();
            let mut called: Vec<(Object<'_>, &Node, String)> = Vec::new();
            let callers = wiring.callers();
            for caller in &callers {
                let Some((name_node, name)) = caller.service_name() else {
                    continue;
                };
                let key = (caller.object.root.span().start, name.to_string());
                let Some(service) = wiring.service(name) else {
                    if reported.insert(key) {
                        let services = wiring
                            .objects
                            .iter()
                            .filter(|o| o.is_kind("Service"))
                            .filter_map(|o| o.name().map(str::to_string));
                        findings.at_node(
                            wiring.file,
                            name_node,
                            format!(
                                "{} calls Service `{name}`, which the components do not hold \
                                 (Services: {})",
                                caller.describe(),
                                listed(services)
                            ),
                        );
                    }
                    continue;
                };
                let Some((port_node, port)) = caller.port() else {
                    continue;
                };
                let seen = |entry: &Node| {
                    called.iter().any(|(s, e, _)| {
                        s.root.span() == service.root.span() && e.span() == entry.span()
                    })
                };
                match service_port(&service, port) {
                    Some(entry) if !seen(entry) => {
                        called.push((service, entry, caller.describe()));
                    }
                    Some(_) => {}
                    None if reported.insert(key) => {
                        let exposed = service
                            .root
                            .path(&["spec", "ports"])
                            .map_or(&[][..], Node::items)
                            .iter()
                            .filter_map(|p| p.get("port").and_then(Node::scalar_text))
                            .map(str::to_string);
                        findings.at_node(
                            wiring.file,
                            port_node.unwrap_or(name_node),
                            format!(
                                "{} calls port {port} of Service `{name}`, which exposes {}",
                                caller.describe(),
                                listed(exposed)
                            ),
                        );
                    }
                    None => {}
                }
            }
            for (service, entry, caller) in called {
                check_served(&wiring, &service, entry, &caller, findings);
            }
        }
    },
};

/// The pods behind a called Service port: selected, and listening where it forwards.
fn check_served(
    wiring: &Wiring<'_>,
    service: &Object<'_>,
    entry: &Node,
    caller: &str,
    findings: &mut super::Findings<'_>,
) {
    let selector = service.root.path(&["spec", "selector"]);
    let literal_selector = selector.and_then(Node::as_mapping).is_some_and(|m| {
        m.iter()
            .all(|(k, _, v)| is_literal(k) && v.scalar_text().is_none_or(is_literal))
    });
    if !literal_selector {
        return;
    }
    let workloads = wiring.selected_by(service);
    if workloads.is_empty() {
        let anchor = service
            .root
            .path_entry(&["spec", "selector"])
            .map_or(service.anchor(), |(k, _)| k);
        findings.at_node(
            wiring.file,
            anchor,
            format!(
                "{} (called by {caller}) selects the pods of no workload in the components, so \
                 no pod answers the webhook",
                service.display()
            ),
        );
        return;
    }
    let target = entry.get("targetPort").filter(|n| !n.is_null());
    let containers: Vec<&Node> = workloads
        .iter()
        .flat_map(|w| w.containers().filter(|c| !c.init).map(|c| c.node))
        .collect();
    let ports: Vec<&Node> = containers
        .iter()
        .flat_map(|c| c.get("ports").map_or(&[][..], Node::items))
        .collect();
    let workload_names = joined(workloads.iter().map(Object::display));
    match target.map(|t| (t, t.resolve())) {
        Some((node, Some(Resolved::Str))) => {
            let Some(name) = node.scalar_text().filter(|n| is_literal(n)) else {
                return;
            };
            let declared: Vec<&str> = ports
                .iter()
                .filter_map(|p| p.get("name").and_then(Node::scalar_text))
                .collect();
            if !declared.contains(&name) {
                findings.at_node(
                    wiring.file,
                    node,
                    format!(
                        "{} forwards the webhook calls of {caller} to the container port named \
                         `{name}`, which no container of {workload_names} declares (port names: \
                         {})",
                        service.display(),
                        listed(declared.iter().map(|d| d.to_string()))
                    ),
                );
            }
        }
        other => {
            let number = match other {
                Some((_, Some(Resolved::Int(n)))) => n,
                None => match entry.get("port").and_then(Node::resolve) {
                    Some(Resolved::Int(n)) => n,
                    _ => return,
                },
                _ => return,
            };
            let declared: Vec<i128> = ports
                .iter()
                .filter_map(|p| match p.get("containerPort").and_then(Node::resolve) {
                    Some(Resolved::Int(n)) => Some(n),
                    _ => None,
                })
                .collect();
            if !declared.is_empty() && !declared.contains(&number) {
                findings
                    .at_node(
                        wiring.file,
                        target.unwrap_or(entry),
                        format!(
                            "{} forwards the webhook calls of {caller} to port {number}, which no \
                             container of {workload_names} declares (ports: {})",
                            service.display(),
                            listed(declared.iter().map(i128::to_string))
                        ),
                    )
                    .with_severity(Severity::Warning);
            }
        }
    }
}

/// A Certificate's `dnsNames` as clusterctl leaves them: the first `.<namespace>.` of each name
/// (the Certificate's own namespace) becomes `.<target>.` (`fixTargetNamespace`).
fn dns_names_installed<'a>(
    certificate: &Object<'a>,
    target: &str,
) -> Option<Vec<(String, &'a str)>> {
    let names = certificate.root.path(&["spec", "dnsNames"])?;
    let from = format!(".{}.", certificate.namespace().unwrap_or_default());
    let to = format!(".{target}.");
    names
        .items()
        .iter()
        .map(|n| {
            let written = n.scalar_text()?;
            Some((written.replacen(&from, &to, 1), written))
        })
        .collect()
}

pub(super) static CERTIFICATE_DNS_NAMES: Rule = Rule {
    id: "webhook/certificate-dns-names",
    severity: Severity::Error,
    summary: "the Certificate a webhook's CA comes from does not name the Service the webhook calls",
    explanation: "The API server calls a webhook Service as `<service>.<namespace>.svc` and \
        checks that name against the serving certificate, whose CA it trusts through the \
        `caBundle` cert-manager injects from the Certificate named by \
        `cert-manager.io/inject-ca-from`. When that Certificate's `dnsNames` do not hold \
        `<service>.<namespace>.svc` (after clusterctl moved them into the target namespace: \
        it rewrites the Certificate's own `.<namespace>.` in each name), every call fails with \
        `x509: certificate is valid for …, not …` (a Service renamed without its Certificate, \
        a namePrefix applied to one and not the other). `<service>.<namespace>.svc.cluster.local` \
        is customary beside it but is not what the API server asks for; a wildcard \
        `*.<namespace>.svc` covers it.",
    help: "add `<service>.<namespace>.svc` (and `<service>.<namespace>.svc.cluster.local`) to \
        the Certificate's `dnsNames`",
    reference: CA_INJECTOR,
    check: |cx, findings| {
        for wiring in Wiring::all(cx) {
            let Some(target) = wiring.target else {
                continue;
            };
            let pairs = wiring.served(|caller, service| {
                let certificate = wiring.injected_certificate(&caller.object)?;
                Some((certificate.root.span().start, service.root.span().start))
            });
            for (caller, service) in pairs {
                let Some(certificate) = wiring.injected_certificate(&caller.object) else {
                    continue;
                };
                let Some(names) = dns_names_installed(&certificate, target) else {
                    continue;
                };
                if names.iter().any(|(_, written)| !is_literal(written)) {
                    continue;
                }
                let Some(service_name) = service.name() else {
                    continue;
                };
                let host = format!("{service_name}.{target}.svc");
                let wildcard = format!("*.{target}.svc");
                if names.iter().any(|(n, _)| *n == host || *n == wildcard) {
                    continue;
                }
                let anchor = certificate
                    .root
                    .path_entry(&["spec", "dnsNames"])
                    .map_or(certificate.anchor(), |(k, _)| k);
                findings.at_node(
                    wiring.file,
                    anchor,
                    format!(
                        "{} does not name `{host}`, the host the API server calls for {}: once \
                         installed its dnsNames are {}",
                        certificate.display(),
                        caller.describe(),
                        listed(names.into_iter().map(|(n, _)| n))
                    ),
                );
            }
        }
    },
};

/// The Secrets a workload's containers mount (by `secret.secretName` of a mounted volume).
fn mounted_secrets<'a>(workload: &Object<'a>) -> Vec<&'a str> {
    let volumes = workload
        .pod_spec()
        .and_then(|s| s.get("volumes"))
        .map_or(&[][..], Node::items);
    let mounts: Vec<&str> = workload
        .containers()
        .flat_map(|c| c.node.get("volumeMounts").map_or(&[][..], Node::items))
        .filter_map(|m| m.get("name").and_then(Node::scalar_text))
        .collect();
    volumes
        .iter()
        .filter(|v| {
            v.get("name")
                .and_then(Node::scalar_text)
                .is_some_and(|n| mounts.contains(&n))
        })
        .filter_map(|v| {
            v.path(&["secret", "secretName"])
                .and_then(Node::scalar_text)
        })
        .collect()
}

pub(super) static CERTIFICATE_SECRET: Rule = Rule {
    id: "webhook/certificate-secret",
    severity: Severity::Error,
    summary: "the pods behind a webhook's Service do not mount the Secret of the webhook's Certificate",
    explanation: "cert-manager writes the Certificate's key pair into the Secret named by \
        `spec.secretName`; the webhook server (controller-runtime reads \
        `/tmp/k8s-webhook-server/serving-certs`) serves with whatever Secret its Deployment \
        mounts there. When the pods the webhook's Service selects mount another Secret (or \
        none), they either never start (`secret not found`) or serve a certificate whose CA is \
        not the injected `caBundle`, and every call fails TLS verification.",
    help: "mount the Certificate's `secretName` in the manager Deployment (kubebuilder: the \
        `cert` volume of `manager_webhook_patch.yaml`), or make `secretName` the Secret it \
        mounts",
    reference: CA_INJECTOR,
    check: |cx, findings| {
        for wiring in Wiring::all(cx) {
            let pairs = wiring.served(|caller, service| {
                let certificate = wiring.injected_certificate(&caller.object)?;
                Some((certificate.root.span().start, service.root.span().start))
            });
            for (caller, service) in pairs {
                let Some(certificate) = wiring.injected_certificate(&caller.object) else {
                    continue;
                };
                let Some(secret_node) = certificate.root.path(&["spec", "secretName"]) else {
                    continue;
                };
                let Some(secret) = secret_node.scalar_text().filter(|s| is_literal(s)) else {
                    continue;
                };
                let workloads = wiring.selected_by(&service);
                if workloads.is_empty() {
                    continue; // `webhook/service`
                }
                let mounted: Vec<&str> = workloads.iter().flat_map(mounted_secrets).collect();
                if mounted.contains(&secret) {
                    continue;
                }
                findings.at_node(
                    wiring.file,
                    secret_node,
                    format!(
                        "{} writes its key pair to Secret `{secret}`, but {} behind {} (called by \
                         {}) mount{} {}",
                        certificate.display(),
                        joined(workloads.iter().map(Object::display)),
                        service.display(),
                        caller.describe(),
                        if workloads.len() == 1 { "s" } else { "" },
                        match mounted.as_slice() {
                            [] => "no Secret".to_string(),
                            some =>
                                format!("Secret {}", listed(some.iter().map(|s| s.to_string()))),
                        }
                    ),
                );
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const FILE: &str = "infrastructure-components.yaml";

    /// CAPD's webhook wiring, trimmed: one conversion webhook, one admission webhook, their
    /// Service, the manager behind it, its Certificate.
    const WIRED: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: capd-system
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    cert-manager.io/inject-ca-from: capd-system/capd-serving-cert
  name: devclusters.infrastructure.cluster.x-k8s.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: capd-webhook-service
          namespace: capd-system
          path: /convert
---
apiVersion: v1
kind: Service
metadata:
  name: capd-webhook-service
  namespace: capd-system
spec:
  ports:
  - port: 443
    targetPort: webhook-server
  selector:
    cluster.x-k8s.io/provider: infrastructure-docker
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capd-controller-manager
  namespace: capd-system
spec:
  template:
    metadata:
      labels:
        cluster.x-k8s.io/provider: infrastructure-docker
        control-plane: controller-manager
    spec:
      containers:
      - name: manager
        image: gcr.io/k8s-staging-cluster-api/capd-manager:main
        ports:
        - containerPort: 9443
          name: webhook-server
          protocol: TCP
        volumeMounts:
        - mountPath: /tmp/k8s-webhook-server/serving-certs
          name: cert
          readOnly: true
      volumes:
      - name: cert
        secret:
          secretName: capd-webhook-service-cert
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: capd-serving-cert
  namespace: capd-system
spec:
  dnsNames:
  - capd-webhook-service.capd-system.svc
  - capd-webhook-service.capd-system.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: capd-selfsigned-issuer
  secretName: capd-webhook-service-cert
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  annotations:
    cert-manager.io/inject-ca-from: capd-system/capd-serving-cert
  name: capd-validating-webhook-configuration
webhooks:
- clientConfig:
    service:
      name: capd-webhook-service
      namespace: capd-system
      path: /validate-a
  name: validation.devcluster.infrastructure.cluster.x-k8s.io
- clientConfig:
    service:
      name: capd-webhook-service
      namespace: capd-system
      path: /validate-b
  name: validation.devmachine.infrastructure.cluster.x-k8s.io
";

    fn with(from: &str, to: &str) -> String {
        assert!(WIRED.contains(from), "{from}");
        WIRED.replace(from, to)
    }

    fn all(text: &str) -> Vec<crate::rules::Diagnostic> {
        let mut found = Vec::new();
        for rule in RULES {
            found.extend(check_files(rule, &[(FILE, text)]));
        }
        found
    }

    #[test]
    fn the_wiring_of_a_real_provider_is_clean() {
        assert!(all(WIRED).is_empty(), "{:?}", all(WIRED));
        // As clusterctl installs it elsewhere: the Certificate's own namespace is rewritten.
        let moved = WIRED.replace("capd-system", "capx-system");
        assert!(all(&moved).is_empty());
        // A wildcard covers every Service of the namespace.
        let wildcard = with(
            "  - capd-webhook-service.capd-system.svc\n",
            "  - '*.capd-system.svc'\n",
        );
        assert!(all(&wildcard).is_empty(), "{:?}", all(&wildcard));
    }

    #[test]
    fn a_missing_service_is_reported_once_per_object() {
        let text = WIRED.replace(
            "  name: capd-webhook-service\n  namespace",
            "  name: capd-webhook\n  namespace",
        );
        let found = check_files(&SERVICE, &[(FILE, &text)]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].rule, "webhook/service");
        assert_eq!(at(&found[0]), (18, 17));
        assert_eq!(
            found[0].message,
            "CustomResourceDefinition `devclusters.infrastructure.cluster.x-k8s.io` conversion webhook calls Service `capd-webhook-service`, which the components do not hold (Services: `capd-webhook`)"
        );
        assert!(found[1].message.contains("webhook `validation.devcluster"));
    }

    #[test]
    fn ports_selectors_and_target_ports_are_followed() {
        let text = with("  - port: 443\n", "  - port: 9443\n");
        let found = check_files(&SERVICE, &[(FILE, &text)]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0]
                .message
                .contains("calls port 443 of Service `capd-webhook-service`, which exposes `9443`")
        );
        let text = with(
            "    cluster.x-k8s.io/provider: infrastructure-docker\n---\napiVersion: apps/v1",
            "    cluster.x-k8s.io/provider: docker\n---\napiVersion: apps/v1",
        );
        let found = check_files(&SERVICE, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(at(&found[0]), (31, 3));
        assert!(found[0].message.contains("selects the pods of no workload"));
        let text = with(
            "    targetPort: webhook-server\n",
            "    targetPort: webhook\n",
        );
        let found = check_files(&SERVICE, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(at(&found[0]), (30, 17));
        assert!(found[0].message.contains("container port named `webhook`, which no container of Deployment `capd-controller-manager` declares (port names: `webhook-server`)"), "{}", found[0].message);
        let text = with("    targetPort: webhook-server\n", "    targetPort: 9444\n");
        let found = check_files(&SERVICE, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("to port 9444"));
    }

    #[test]
    fn the_certificate_names_the_service_host() {
        let text = with(
            "  - capd-webhook-service.capd-system.svc\n",
            "  - capd-webhook.capd-system.svc\n",
        );
        let found = check_files(&CERTIFICATE_DNS_NAMES, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "webhook/certificate-dns-names");
        assert_eq!(at(&found[0]), (68, 3));
        assert_eq!(
            found[0].message,
            "Certificate `capd-serving-cert` does not name `capd-webhook-service.capd-system.svc`, the host the API server calls for CustomResourceDefinition `devclusters.infrastructure.cluster.x-k8s.io` conversion webhook: once installed its dnsNames are `capd-webhook.capd-system.svc`, `capd-webhook-service.capd-system.svc.cluster.local`"
        );
        // Written for another namespace than the Certificate's own: clusterctl does not move it.
        let text = with(
            "  - capd-webhook-service.capd-system.svc\n",
            "  - capd-webhook-service.system.svc\n",
        );
        let found = check_files(&CERTIFICATE_DNS_NAMES, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        // A kustomize var is `build/kustomize-var`'s.
        let text = with(
            "  - capd-webhook-service.capd-system.svc\n",
            "  - $(SERVICE_NAME).$(SERVICE_NAMESPACE).svc\n",
        );
        assert!(check_files(&CERTIFICATE_DNS_NAMES, &[(FILE, &text)]).is_empty());
    }

    #[test]
    fn the_manager_mounts_the_certificate_secret() {
        let text = with(
            "  secretName: capd-webhook-service-cert\n---\napiVersion: admission",
            "  secretName: capd-webhook-tls\n---\napiVersion: admission",
        );
        let found = check_files(&CERTIFICATE_SECRET, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "webhook/certificate-secret");
        assert_eq!(at(&found[0]), (74, 15));
        assert_eq!(
            found[0].message,
            "Certificate `capd-serving-cert` writes its key pair to Secret `capd-webhook-tls`, but Deployment `capd-controller-manager` behind Service `capd-webhook-service` (called by CustomResourceDefinition `devclusters.infrastructure.cluster.x-k8s.io` conversion webhook) mounts Secret `capd-webhook-service-cert`"
        );
        // A volume that no container mounts serves nothing.
        let text = with(
            "          name: cert\n          readOnly",
            "          name: certs\n          readOnly",
        );
        let found = check_files(&CERTIFICATE_SECRET, &[(FILE, &text)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.ends_with("mounts no Secret"));
    }
}
