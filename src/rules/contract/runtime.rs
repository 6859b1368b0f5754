//! `runtime/…`: runtime extension providers (`runtime-extension-components.yaml`) and the
//! `ExtensionConfig` objects that register an extension server with core Cluster API.
//!
//! A runtime extension is an HTTPS server core calls; the Runtime SDK expects it to run in a
//! Deployment (the `manager` container, which `components/manager-container` checks), behind a
//! Service, registered by an `ExtensionConfig` whose client config core uses to call it. The
//! Deployment and Service rules apply to runtime extension providers; the `ExtensionConfig`
//! rules to any components file that ships one.

use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::provider::ProviderType;
use crate::rules::{Context, Findings, Reference, Rule, Severity};
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

use super::resource::{file_provider_type, has_variable};

/// The annotation by which core Cluster API copies `ca.crt` of a Secret (`<namespace>/<name>`)
/// into an ExtensionConfig's `caBundle`.
pub(super) const INJECT_CA_FROM_SECRET: &str = "runtime.cluster.x-k8s.io/inject-ca-from-secret";

const DEPLOY_URL: &str = "https://cluster-api.sigs.k8s.io/tasks/experimental-features/runtime-sdk/deploy-runtime-extension";
const REGISTER_URL: &str =
    "https://cluster-api.sigs.k8s.io/tasks/experimental-features/runtime-sdk/implement-extensions";

const DEPLOY: Reference = Reference {
    title: "Runtime SDK, \"Runtime Extensions developer guide\" > \"Deploy Runtime Extensions\"",
    url: DEPLOY_URL,
};

const REGISTER: Reference = Reference {
    title: "Runtime SDK, \"Runtime Extensions developer guide\" > \"Registering Runtime Extensions\"",
    url: REGISTER_URL,
};

pub(super) static DEPLOYMENT: Rule = Rule {
    id: "runtime/deployment",
    severity: Severity::Error,
    summary: "a runtime extension provider's components have no Deployment",
    explanation: "The clusterctl contract expects every provider, runtime extensions included, to \
        deploy its controllers or extension server with a Deployment whose container is named \
        `manager`, and the Runtime SDK's deployment model is a Deployment behind a Service. A \
        runtime extension components file without any Deployment installs nothing that can \
        answer core's calls. (A Deployment without a `manager` container is reported by \
        `components/manager-container`.)",
    help: "add the Deployment that runs the extension server, with its container named `manager` \
        (Runtime SDK, \"Deploy Runtime Extensions\")",
    reference: DEPLOY,
    check: |cx, findings| {
        for file in runtime_extension_files(cx) {
            if objects(file).any(|o| o.is_kind("Deployment")) {
                continue;
            }
            findings.on_file(
                file,
                format!(
                    "`{}` has no Deployment to run the extension server",
                    file.file_name()
                ),
            );
        }
    },
};

pub(super) static SERVICE: Rule = Rule {
    id: "runtime/service",
    severity: Severity::Error,
    summary: "no Service exposes a runtime extension provider's extension server",
    explanation: "Core Cluster API calls a runtime extension over HTTPS, normally through a \
        ClusterIP Service named in the ExtensionConfig (`clientConfig.service`). A runtime \
        extension provider whose components ship no Service selecting the pods of its `manager` \
        Deployment leaves the extension unreachable from core.",
    help: "ship a Service whose `spec.selector` matches the labels of the extension server's pod \
        template (Runtime SDK, \"Deploy Runtime Extensions\": a Cluster IP service makes the \
        extension accessible via a stable DNS name)",
    reference: DEPLOY,
    check: |cx, findings| {
        for file in runtime_extension_files(cx) {
            let services: Vec<Object<'_>> =
                objects(file).filter(|o| o.is_kind("Service")).collect();
            for deployment in objects(file).filter(|o| o.is_kind("Deployment")) {
                if !deployment
                    .containers()
                    .any(|c| !c.init && c.name() == Some("manager"))
                {
                    continue;
                }
                let pod_labels = deployment
                    .root
                    .path(&["spec", "template", "metadata", "labels"]);
                if services.iter().any(|service| selects(service, pod_labels)) {
                    continue;
                }
                findings.at_node(
                    file,
                    deployment.anchor(),
                    format!(
                        "no Service in `{}` selects the pods of {}, so core Cluster API cannot \
                         reach the extension server",
                        file.file_name(),
                        deployment.display()
                    ),
                );
            }
        }
    },
};

pub(super) static CLIENT_CONFIG: Rule = Rule {
    id: "runtime/client-config",
    severity: Severity::Error,
    summary: "an ExtensionConfig's client config does not give exactly one of `url` or `service`",
    explanation: "`spec.clientConfig` tells core Cluster API how to call the extension server: \
        \"Exactly one of `url` or `service` must be specified\". With neither or both the \
        ExtensionConfig is rejected or discovery fails, and no hook of the extension is ever \
        called. A `service` that names a Service the components do not ship is a warning: it \
        may be installed by other means, but usually it is a typo.",
    help: "give `spec.clientConfig.service` (in-cluster: name, namespace, optional port and \
        path) or `spec.clientConfig.url`, not both (Runtime SDK, \"Registering Runtime \
        Extensions\")",
    reference: REGISTER,
    check: |cx, findings| {
        for (file, config) in extension_configs(cx) {
            let client = config.root.path_entry(&["spec", "clientConfig"]);
            let url = client.and_then(|(_, v)| v.as_mapping()?.entry("url"));
            let service = client.and_then(|(_, v)| v.as_mapping()?.entry("service"));
            match (
                url.filter(|(_, v)| !v.is_null()),
                service.filter(|(_, v)| !v.is_null()),
            ) {
                (Some(_), Some((service_key, _))) => {
                    let diagnostic = findings.at_node(
                        file,
                        service_key,
                        format!(
                            "{} gives both `url` and `service` in `spec.clientConfig`; exactly one \
                             is allowed",
                            config.display()
                        ),
                    );
                    if let Some((url_key, _)) = url {
                        diagnostic.with_label(url_key.span(), "`url` given here");
                    }
                }
                (None, None) => {
                    let anchor = client
                        .map(|(key, _)| key)
                        .or_else(|| config.root.path_entry(&["spec"]).map(|(key, _)| key))
                        .unwrap_or(config.anchor());
                    findings.at_node(
                        file,
                        anchor,
                        format!(
                            "{} gives neither `url` nor `service` in `spec.clientConfig`, so core \
                             Cluster API cannot call the extension",
                            config.display()
                        ),
                    );
                }
                (None, Some((_, service))) => {
                    check_service_shipped(file, &config, service, findings)
                }
                (Some(_), None) => {}
            }
        }
    },
};

/// Warns when `clientConfig.service.name` names no Service in the same components file.
fn check_service_shipped(
    file: &ReleaseFile,
    config: &Object<'_>,
    service: &Node,
    findings: &mut Findings<'_>,
) {
    let Some(name_node) = service.get("name") else {
        return;
    };
    let Some(name) = name_node.as_str().filter(|n| !has_variable(n)) else {
        return;
    };
    if objects(file).any(|o| o.is_kind("Service") && o.name() == Some(name)) {
        return;
    }
    findings
        .at_node(
            file,
            name_node,
            format!(
                "{} calls Service `{name}`, which `{}` does not ship",
                config.display(),
                file.file_name()
            ),
        )
        .with_severity(Severity::Warning);
}

pub(super) static SERVICE_PORT: Rule = Rule {
    id: "runtime/service-port",
    severity: Severity::Error,
    summary: "an ExtensionConfig's service port is not a port number",
    explanation: "`spec.clientConfig.service.port` is the Service port core Cluster API calls \
        (443 when left out) and \"should be a valid port number (1-65535, inclusive)\"; the API \
        server rejects the ExtensionConfig otherwise, and a quoted number is a string, which \
        does not decode into the integer field.",
    help: "set `port` to the Service's port, a number from 1 to 65535, or leave it out for 443 \
        (Runtime SDK, \"Registering Runtime Extensions\")",
    reference: REGISTER,
    check: |cx, findings| {
        for (file, config) in extension_configs(cx) {
            let Some(port) = config
                .root
                .path(&["spec", "clientConfig", "service", "port"])
            else {
                continue;
            };
            let problem = match port.resolve() {
                Some(Resolved::Int(n)) if (1..=65535).contains(&n) => continue,
                Some(Resolved::Null) => continue,
                Some(Resolved::Int(n)) => format!("`{n}` is outside 1..65535"),
                _ if port.scalar_text().is_some_and(has_variable) => continue,
                _ => format!(
                    "`{}` is not a number",
                    port.scalar_text().unwrap_or("this value")
                ),
            };
            findings.at_node(
                file,
                port,
                format!("the service port of {}: {problem}", config.display()),
            );
        }
    },
};

pub(super) static CA_BUNDLE: Rule = Rule {
    id: "runtime/ca-bundle",
    severity: Severity::Error,
    summary: "an in-cluster ExtensionConfig has neither a CA bundle nor CA injection",
    explanation: "Core Cluster API calls extensions over HTTPS and verifies the server's \
        certificate against `spec.clientConfig.caBundle`. An extension behind a Service has a \
        certificate from the cluster's own CA (usually a cert-manager Certificate), so without a \
        CA bundle every call fails TLS verification. Core fills `caBundle` itself from the \
        `ca.crt` of the Secret named by the annotation \
        `runtime.cluster.x-k8s.io/inject-ca-from-secret: <namespace>/<secret>`; cert-manager's \
        own `cert-manager.io/inject-ca-from` does nothing here (its CA injector only handles \
        webhook configurations, CRDs and APIServices). ExtensionConfigs with a `url` may rely on \
        publicly trusted certificates and are not checked.",
    help: "annotate the ExtensionConfig `runtime.cluster.x-k8s.io/inject-ca-from-secret: \
        <namespace>/<certificate secret>` or set `spec.clientConfig.caBundle` (Runtime SDK, \
        \"Deploy Runtime Extensions\": a cert-manager generated Certificate protects the endpoint)",
    reference: DEPLOY,
    check: |cx, findings| {
        for (file, config) in extension_configs(cx) {
            let Some((client_key, client)) = config.root.path_entry(&["spec", "clientConfig"])
            else {
                continue;
            };
            if client.get("service").is_none_or(Node::is_null) {
                continue;
            }
            let has_bundle = client
                .get("caBundle")
                .and_then(Node::scalar_text)
                .is_some_and(|b| !b.is_empty());
            if has_bundle {
                continue;
            }
            match config.annotation(INJECT_CA_FROM_SECRET) {
                Some(value) => {
                    let text = value.scalar_text().unwrap_or_default();
                    let well_formed = text.split_once('/').is_some_and(|(namespace, name)| {
                        !namespace.is_empty() && !name.is_empty() && !name.contains('/')
                    });
                    if !well_formed {
                        findings.at_node(
                            file,
                            value,
                            format!(
                                "`{INJECT_CA_FROM_SECRET}` of {} is `{text}`, not \
                                 `<namespace>/<secret>`",
                                config.display()
                            ),
                        );
                    }
                }
                None => {
                    let cert_manager = config.annotation(crate::k8s::INJECT_CA_FROM);
                    let message = match cert_manager {
                        Some(_) => format!(
                            "{} has no `caBundle` and relies on `{}`, which cert-manager does not \
                             apply to ExtensionConfigs; use `{INJECT_CA_FROM_SECRET}`",
                            config.display(),
                            crate::k8s::INJECT_CA_FROM
                        ),
                        None => format!(
                            "{} calls a Service but has no `caBundle` and no \
                             `{INJECT_CA_FROM_SECRET}` annotation, so core Cluster API cannot \
                             verify the extension's certificate",
                            config.display()
                        ),
                    };
                    let anchor = cert_manager.unwrap_or(client_key);
                    findings.at_node(file, anchor, message);
                }
            }
        }
    },
};

/// The components files of a runtime extension provider.
fn runtime_extension_files<'a>(cx: &'a Context<'_>) -> impl Iterator<Item = &'a ReleaseFile> {
    cx.release
        .components()
        .filter(move |file| file_provider_type(cx, file) == Some(ProviderType::RuntimeExtension))
}

fn objects(file: &ReleaseFile) -> impl Iterator<Item = Object<'_>> {
    file.yaml.roots().filter_map(Object::new)
}

/// Every `ExtensionConfig` of every components file.
fn extension_configs<'a>(
    cx: &'a Context<'_>,
) -> impl Iterator<Item = (&'a ReleaseFile, Object<'a>)> {
    cx.release.components().flat_map(|file| {
        objects(file)
            .filter(|o| o.is_kind("ExtensionConfig") && o.group() == "runtime.cluster.x-k8s.io")
            .map(move |o| (file, o))
    })
}

/// True when the Service's non-empty selector matches the pod labels.
pub(in crate::rules) fn selects(service: &Object<'_>, pod_labels: Option<&Node>) -> bool {
    let Some(selector) = service
        .root
        .path(&["spec", "selector"])
        .and_then(Node::as_mapping)
        .filter(|m| !m.is_empty())
    else {
        return false;
    };
    let Some(pod_labels) = pod_labels.and_then(Node::as_mapping) else {
        return false;
    };
    selector.iter().all(|(key, _, value)| {
        pod_labels
            .get(key)
            .and_then(Node::scalar_text)
            .is_some_and(|v| Some(v) == value.scalar_text())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const RUNTIME: &str = "runtime-extension-components.yaml";

    const DEPLOYMENT_YAML: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ext-manager\n  namespace: ext-system\nspec:\n  template:\n    metadata:\n      labels:\n        app: ext\n    spec:\n      containers:\n      - name: manager\n        image: registry.example.com/ext:v1.0.0\n";

    fn service(selector: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: ext-webhook-service\n  namespace: ext-system\nspec:\n  ports:\n  - port: 443\n  selector:\n    app: {selector}\n"
        )
    }

    fn extension_config(annotations: &str, client_config: &str) -> String {
        format!(
            "apiVersion: runtime.cluster.x-k8s.io/v1alpha1\nkind: ExtensionConfig\nmetadata:\n  name: ext\n  annotations:\n{annotations}spec:\n  clientConfig:\n{client_config}"
        )
    }

    const INJECT: &str =
        "    runtime.cluster.x-k8s.io/inject-ca-from-secret: ext-system/ext-webhook-service-cert\n";
    const BY_SERVICE: &str = "    service:\n      name: ext-webhook-service\n      namespace: ext-system\n      port: 443\n";

    #[test]
    fn deployment() {
        assert!(check_files(&DEPLOYMENT, &[(RUNTIME, DEPLOYMENT_YAML)]).is_empty());
        let found = check_files(&DEPLOYMENT, &[(RUNTIME, &service("ext"))]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "runtime/deployment");
        assert!(found[0].position().is_none());
        assert!(
            found[0]
                .message
                .contains("`runtime-extension-components.yaml`")
        );
        // Other provider types are not runtime extensions.
        assert!(check_files(&DEPLOYMENT, &[("addon-components.yaml", &service("ext"))]).is_empty());
    }

    #[test]
    fn service_selects_the_manager_pods() {
        let good = format!("{DEPLOYMENT_YAML}---\n{}", service("ext"));
        assert!(check_files(&SERVICE, &[(RUNTIME, &good)]).is_empty());
        let bad = format!("{DEPLOYMENT_YAML}---\n{}", service("other"));
        let found = check_files(&SERVICE, &[(RUNTIME, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "runtime/service");
        assert_eq!(at(&found[0]), (4, 9));
        assert!(found[0].message.contains("Deployment `ext-manager`"));
    }

    #[test]
    fn client_config_exactly_one() {
        let svc = service("ext");
        let good = format!("{svc}---\n{}", extension_config(INJECT, BY_SERVICE));
        assert!(check_files(&CLIENT_CONFIG, &[(RUNTIME, &good)]).is_empty());
        let by_url = extension_config("    a: b\n", "    url: https://ext.example.com/hooks\n");
        assert!(check_files(&CLIENT_CONFIG, &[(RUNTIME, &by_url)]).is_empty());

        let both = format!(
            "{svc}---\n{}",
            extension_config(
                INJECT,
                &format!("    url: https://ext.example.com\n{BY_SERVICE}")
            )
        );
        let found = check_files(&CLIENT_CONFIG, &[(RUNTIME, &both)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "runtime/client-config");
        assert_eq!(at(&found[0]), (21, 5));
        assert!(
            found[0]
                .message
                .contains("ExtensionConfig `ext` gives both")
        );
        assert_eq!(found[0].labels.len(), 1);

        let neither = extension_config(INJECT, "    caBundle: Zm9v\n");
        let found = check_files(&CLIENT_CONFIG, &[(RUNTIME, &neither)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (8, 3));
        assert!(found[0].message.contains("neither"));

        // A Service the components do not ship: a warning at its name.
        let found = check_files(
            &CLIENT_CONFIG,
            &[(RUNTIME, &extension_config(INJECT, BY_SERVICE))],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (10, 13));
        assert!(found[0].message.contains("Service `ext-webhook-service`"));
    }

    #[test]
    fn service_port() {
        let good = extension_config(INJECT, BY_SERVICE);
        assert!(check_files(&SERVICE_PORT, &[(RUNTIME, &good)]).is_empty());
        for (port, what) in [
            ("0", "outside"),
            ("70000", "outside"),
            ("\"443\"", "not a number"),
        ] {
            let bad = good.replace("port: 443", &format!("port: {port}"));
            let found = check_files(&SERVICE_PORT, &[(RUNTIME, &bad)]);
            assert_eq!(found.len(), 1, "{port}");
            assert_eq!(found[0].rule, "runtime/service-port");
            assert_eq!(at(&found[0]), (12, 13));
            assert!(found[0].message.contains(what), "{}", found[0].message);
        }
    }

    #[test]
    fn ca_bundle() {
        let good = extension_config(INJECT, BY_SERVICE);
        assert!(check_files(&CA_BUNDLE, &[(RUNTIME, &good)]).is_empty());
        let bundle = extension_config("    a: b\n", &format!("{BY_SERVICE}    caBundle: Zm9v\n"));
        assert!(check_files(&CA_BUNDLE, &[(RUNTIME, &bundle)]).is_empty());

        let none = extension_config("    a: b\n", BY_SERVICE);
        let found = check_files(&CA_BUNDLE, &[(RUNTIME, &none)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "runtime/ca-bundle");
        assert_eq!(at(&found[0]), (8, 3));
        assert!(found[0].message.contains("no `caBundle`"));

        let cert_manager = extension_config(
            "    cert-manager.io/inject-ca-from: ext-system/ext-serving-cert\n",
            BY_SERVICE,
        );
        let found = check_files(&CA_BUNDLE, &[(RUNTIME, &cert_manager)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (6, 37));
        assert!(found[0].message.contains("cert-manager does not apply"));

        let malformed = extension_config(
            "    runtime.cluster.x-k8s.io/inject-ca-from-secret: just-a-name\n",
            BY_SERVICE,
        );
        let found = check_files(&CA_BUNDLE, &[(RUNTIME, &malformed)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`just-a-name`"));
        // A `url` may use a publicly trusted certificate.
        let by_url = extension_config("    a: b\n", "    url: https://ext.example.com\n");
        assert!(check_files(&CA_BUNDLE, &[(RUNTIME, &by_url)]).is_empty());
    }
}
