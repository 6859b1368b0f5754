//! `components/image-…`: every workload image parses as clusterctl parses it, and is one a
//! release can ship (a tag, a registry, no placeholder left by a scaffold).

use super::{COMPONENTS, Components, TRANSFORMATIONS, has_variable};
use crate::image_ref as image_reference;
use crate::k8s::Object;
use crate::rules::{Context, Rule, Severity};
use crate::yaml::Node;

pub(super) static IMAGE_REFERENCE: Rule = Rule {
    id: "components/image-reference",
    severity: Severity::Error,
    summary: "a Deployment or DaemonSet image is not a canonical reference",
    explanation: "`clusterctl init` parses every container and init-container image of every \
        Deployment and DaemonSet to apply image overrides, and accepts only canonical references \
        (registry, full path, tag or digest: `registry.k8s.io/capi/manager:v1.2.3`, \
        `docker.io/library/nginx:1.25`). `nginx:1.25` or `docker.io/nginx` fail with \
        `couldn't parse image name: repository name must be canonical`.",
    help: "write the image with its registry and full path, e.g. `docker.io/library/nginx:1.25`",
    reference: TRANSFORMATIONS,
    check: |cx, findings| {
        for components in Components::all(cx) {
            for object in components.objects_of_kind(&["Deployment", "DaemonSet"]) {
                for container in object.containers() {
                    let Some(node) = container.image() else {
                        continue;
                    };
                    let Some(image) = node.scalar_text() else {
                        continue;
                    };
                    if has_variable(image) {
                        continue;
                    }
                    if let Err(problem) = image_reference::check_canonical(image) {
                        let mut message = format!(
                            "image `{image}` of container `{}` in {} is not canonical: {problem}",
                            container.name().unwrap_or("?"),
                            object.display()
                        );
                        if let Some(canonical) = image_reference::canonical_form(image) {
                            message.push_str(&format!(" (canonical form: `{canonical}`)"));
                        }
                        findings.at_node(components.file, node, message);
                    }
                }
            }
        }
    },
};

/// Every container image of every workload in a components file, with the object and the
/// container name ([`Object::workload_images`]).
fn workload_images<'s, 'a>(
    components: &'s Components<'a>,
) -> Vec<(&'s Object<'a>, &'a Node, &'a str)> {
    components
        .objects
        .iter()
        .flat_map(|object| {
            object
                .workload_images()
                .into_iter()
                .map(move |(node, name)| (object, node, name))
        })
        .collect()
}

/// The `images:` entry that pins an image for the release, as flow YAML for a hint.
fn pin_hint(image: &str, problem: &image_reference::Unreleasable) -> String {
    use image_reference::Unreleasable;
    let parts = image_reference::Parts::parse(image).ok();
    let name = parts.map_or(image, |p| p.name);
    let path = parts
        .and_then(|p| p.registry().map(|r| &p.name[r.len() + 1..]))
        .unwrap_or(name);
    let entry = match problem {
        Unreleasable::NoTag | Unreleasable::MovingTag(_) => {
            format!("{{name: {name}, newTag: \"{{version}}\"}}")
        }
        Unreleasable::LocalRegistry { .. } => {
            format!("{{name: {name}, newName: <registry>/{path}, newTag: \"{{version}}\"}}")
        }
        Unreleasable::Placeholder(_) => {
            format!("{{name: \"{name}\", newName: <registry>/<image>, newTag: \"{{version}}\"}}")
        }
    };
    format!(
        "pin the image the release runs in capkg.yaml: `images: [{entry}]` (`{{version}}` is the release tag)"
    )
}

/// Reports each workload image `select` picks: a warning, an error when a version is being
/// released (the image cannot be what that release runs).
fn check_unreleasable(
    cx: &Context<'_>,
    findings: &mut crate::rules::Findings<'_>,
    select: fn(&image_reference::Unreleasable) -> bool,
) {
    for components in Components::all(cx) {
        for (object, node, container) in workload_images(&components) {
            let Some(image) = node.scalar_text() else {
                continue;
            };
            let Some(problem) = image_reference::unreleasable(image) else {
                continue;
            };
            if !select(&problem) {
                continue;
            }
            let mut message = format!(
                "{} (container `{container}` of {})",
                problem.describe(image),
                object.display()
            );
            if let Some(version) = cx.version {
                message.push_str(&format!("; release {version} cannot run it"));
            }
            let diagnostic = findings
                .at_node(components.file, node, message)
                .with_help(pin_hint(image, &problem));
            if cx.version.is_some() {
                diagnostic.with_severity(Severity::Error);
            }
        }
    }
}

pub(super) static IMAGE_TAG: Rule = Rule {
    id: "components/image-tag",
    severity: Severity::Warning,
    summary: "an image is untagged or uses a moving tag, or the manager image does not carry the version being released",
    explanation: "A release whose components point at `:latest`, `:main`, `:dev`, `:edge` or \
        `:nightly` (or no tag, which means `latest`) installs whatever was built last, not the \
        release (CAPV once shipped `:latest`, CAPM3 a release whose image was never updated to \
        the tag). Every container, init container and ephemeral container of every Pod \
        template is checked; an image pinned by digest is not moving. When a version is being \
        released (`--version`, `release`) a moving tag is an error, otherwise a warning. With a \
        version, the `manager` containers' images are also expected to carry it as their tag \
        (a warning); bundled third-party images are left alone as long as one manager image \
        carries it.",
    help: "pin the image in capkg.yaml's `images:` with `newTag: \"{version}\"` (kustomize: `images:` with `newTag`)",
    reference: COMPONENTS,
    check: |cx, findings| {
        use image_reference::Unreleasable;
        check_unreleasable(cx, findings, |p| {
            matches!(p, Unreleasable::NoTag | Unreleasable::MovingTag(_))
        });
        for components in Components::all(cx) {
            let Some(version) = cx.version else { continue };
            let mut managers = Vec::new();
            for object in components.objects_of_kind(&["Deployment", "DaemonSet"]) {
                for container in object.containers() {
                    let Some(node) = container.image() else {
                        continue;
                    };
                    let Some(image) = node.scalar_text() else {
                        continue;
                    };
                    if has_variable(image) || image.contains('@') {
                        continue;
                    }
                    if container.name() == Some("manager") && !container.init {
                        managers.push((node, image, image_reference::tag(image)));
                    }
                }
            }
            let version = version.to_string();
            let bare = version.trim_start_matches('v');
            let carries = |tag: Option<&str>| {
                tag.is_some_and(|t| t == version || t.trim_start_matches('v') == bare)
            };
            if managers.iter().any(|(_, _, tag)| carries(*tag)) {
                continue;
            }
            for (node, image, _) in managers {
                if image_reference::unreleasable(image).is_some() {
                    continue; // already reported, by this rule or another image rule
                }
                findings.at_node(
                    components.file,
                    node,
                    format!(
                        "manager image `{image}` does not carry the release version `{version}`"
                    ),
                );
            }
        }
    },
};

pub(super) static IMAGE_REGISTRY: Rule = Rule {
    id: "components/image-registry",
    severity: Severity::Warning,
    summary: "an image comes from a registry only the builder can reach (localhost, a kind registry, *.local)",
    explanation: "Development setups push the controller image to a registry on the builder's \
        machine or cluster (`localhost:5000`, `127.0.0.1`, `[::1]`, `kind-registry:5000`, \
        `host.docker.internal`, `*.local`, `*.svc`, a private address) and point the manifests \
        at it. A release that keeps such an image installs a controller no user's cluster can \
        pull: the Pods stay in `ImagePullBackOff` and the provider never becomes ready. When a \
        version is being released (`--version`, `release`) this is an error, otherwise a \
        warning.",
    help: "pin the published image in capkg.yaml's `images:` with `newName` and `newTag`",
    reference: COMPONENTS,
    check: |cx, findings| {
        check_unreleasable(cx, findings, |p| {
            matches!(p, image_reference::Unreleasable::LocalRegistry { .. })
        });
    },
};

pub(super) static IMAGE_PLACEHOLDER: Rule = Rule {
    id: "components/image-placeholder",
    severity: Severity::Warning,
    summary: "an image is a placeholder a build step was meant to replace (`${IMG}`, `IMAGE`, `controller:latest`, `example.com/...`)",
    explanation: "Scaffolds and Makefiles write a stand-in where the controller image goes and \
        replace it at release time: kubebuilder's `controller:latest`, an upper-case `IMAGE`, \
        an unsubstituted `${IMG}` or `$(IMG)`, an `example.com` registry. A release that still \
        holds one installs nothing that runs (`ImagePullBackOff`, or clusterctl stops on a \
        variable nobody sets). When a version is being released (`--version`, `release`) this \
        is an error, otherwise a warning. A clusterctl variable with a default \
        (`${IMG:=registry.k8s.io/x:v1}`) is not a placeholder.",
    help: "pin the published image in capkg.yaml's `images:` with `newName` and `newTag`",
    reference: COMPONENTS,
    check: |cx, findings| {
        check_unreleasable(cx, findings, |p| {
            matches!(p, image_reference::Unreleasable::Placeholder(_))
        });
    },
};
