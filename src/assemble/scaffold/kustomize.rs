//! What a kustomize tree says about its provider, read without running kustomize: the
//! `cluster.x-k8s.io/provider` label any kustomization in it sets (`labels`, `commonLabels`),
//! the namespace of the top kustomization, and the image each Deployment container ends up with
//! (the resource's `image:`, replaced by a patch that sets the same container's image, then by
//! the kustomizations' `images:` entries).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::makefile::strip_tag;
use crate::provider::PROVIDER_LABEL;
use crate::yaml::{self, Limits, Node, Source};

const KUSTOMIZATION_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const MAX_DEPTH: usize = 16;

/// What one kustomize tree holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Tree {
    /// Each provider label value, with the kustomization that sets it (relative to the root).
    pub labels: Vec<(String, String)>,
    /// `namespace:` of the top kustomization.
    pub namespace: Option<String>,
    /// Containers of the tree's workloads with their final images.
    pub containers: Vec<Container>,
}

/// A workload container and the image the build gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Container {
    pub workload: String,
    pub name: String,
    pub image: String,
    /// Where that image is written (relative to the root).
    pub file: String,
}

/// The kustomization file of `dir`, if it has one.
pub(super) fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Reads the tree whose top kustomization is in `root/dir`.
pub(super) fn read(root: &Path, dir: &str) -> Tree {
    let mut tree = Tree::default();
    let mut visited = HashSet::new();
    let top = root.join(dir);
    if let Some(text) = kustomization_file(&top).and_then(|p| std::fs::read_to_string(p).ok())
        && let Some(node) = documents(&text, dir).into_iter().next()
    {
        tree.namespace = node
            .get("namespace")
            .and_then(Node::as_str)
            .map(str::to_string);
    }
    tree.containers = walk(root, &top, 0, &mut visited, &mut tree.labels);
    tree
}

/// `path` relative to `root`, `..` resolved lexically (`config/default/../base/x.yaml` is
/// `config/base/x.yaml`).
fn relative(root: &Path, path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.strip_prefix(root).unwrap_or(path).components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

fn documents(text: &str, name: &str) -> Vec<Node> {
    let file = yaml::parse_str(Arc::new(Source::new(name, text)), Limits::default());
    file.documents.into_iter().filter_map(|d| d.root).collect()
}

/// Strings of a list field.
fn list<'a>(node: &'a Node, key: &str) -> Vec<&'a Node> {
    node.get(key)
        .map(|n| n.items().iter().collect())
        .unwrap_or_default()
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    visited: &mut HashSet<PathBuf>,
    labels: &mut Vec<(String, String)>,
) -> Vec<Container> {
    let mut containers = Vec::new();
    let Some(file) = kustomization_file(dir) else {
        return containers;
    };
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if depth > MAX_DEPTH || !visited.insert(canonical) {
        return containers;
    }
    let Ok(text) = std::fs::read_to_string(&file) else {
        return containers;
    };
    let name = relative(root, &file);
    let Some(kustomization) = documents(&text, &name).into_iter().next() else {
        return containers;
    };
    for value in provider_labels(&kustomization) {
        labels.push((value, name.clone()));
    }
    for key in ["resources", "bases", "components"] {
        for entry in list(&kustomization, key) {
            let Some(path) = entry.as_str() else { continue };
            let path = dir.join(path);
            if path.is_dir() {
                containers.extend(walk(root, &path, depth + 1, visited, labels));
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                containers.extend(workload_containers(&text, &relative(root, &path)));
            }
        }
    }
    let mut patches: Vec<(String, String)> = Vec::new();
    for entry in list(&kustomization, "patchesStrategicMerge") {
        if let Some(path) = entry.as_str() {
            let path = dir.join(path);
            if let Ok(text) = std::fs::read_to_string(&path) {
                patches.push((text, relative(root, &path)));
            }
        }
    }
    for entry in list(&kustomization, "patches") {
        if let Some(path) = entry.get("path").and_then(Node::as_str) {
            let path = dir.join(path);
            if let Ok(text) = std::fs::read_to_string(&path) {
                patches.push((text, relative(root, &path)));
            }
        } else if let Some(inline) = entry.get("patch").and_then(Node::as_str) {
            patches.push((inline.to_string(), name.clone()));
        }
    }
    for (text, file) in patches {
        for patch in workload_containers(&text, &file) {
            for container in containers.iter_mut().filter(|c| {
                c.name == patch.name
                    && (c.workload == patch.workload || c.workload.ends_with(&patch.workload))
            }) {
                container.image = patch.image.clone();
                container.file = patch.file.clone();
            }
        }
    }
    for entry in list(&kustomization, "images") {
        let Some(matched) = entry.get("name").and_then(Node::as_str) else {
            continue;
        };
        let text = |key: &str| entry.get(key).and_then(Node::as_str).map(str::to_string);
        for container in containers
            .iter_mut()
            .filter(|c| strip_tag(&c.image) == matched)
        {
            let name = text("newName").unwrap_or_else(|| matched.to_string());
            container.image = match (text("digest"), text("newTag")) {
                (Some(digest), _) => format!("{name}@{digest}"),
                (None, Some(tag)) => format!("{name}:{tag}"),
                (None, None) => format!("{name}{}", &container.image[matched.len()..]),
            };
            container.file = relative(root, &file);
        }
    }
    containers
}

/// Values of the provider label in `labels[].pairs` and `commonLabels`.
fn provider_labels(kustomization: &Node) -> Vec<String> {
    let mut values = Vec::new();
    let mut take = |pairs: Option<&Node>| {
        if let Some(value) = pairs
            .and_then(|p| p.get(PROVIDER_LABEL))
            .and_then(Node::as_str)
            && !value.is_empty()
        {
            values.push(value.to_string());
        }
    };
    take(kustomization.get("commonLabels"));
    for entry in list(kustomization, "labels") {
        take(entry.get("pairs"));
    }
    values
}

/// Containers (with an image) of the Pod templates in a manifest file.
fn workload_containers(text: &str, file: &str) -> Vec<Container> {
    let mut out = Vec::new();
    for document in documents(text, file) {
        let Some(workload) = document.path_str(&["metadata", "name"]) else {
            continue;
        };
        let spec = match document.path(&["spec", "template", "spec"]) {
            Some(spec) => spec,
            None => continue,
        };
        for key in ["containers", "initContainers"] {
            for container in list(spec, key) {
                if let (Some(name), Some(image)) = (
                    container.get("name").and_then(Node::as_str),
                    container.get("image").and_then(Node::as_str),
                ) {
                    out.push(Container {
                        workload: workload.to_string(),
                        name: name.to_string(),
                        image: image.to_string(),
                        file: file.to_string(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_and_images_entries_decide_the_image() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config/manager")).unwrap();
        std::fs::create_dir_all(root.join("config/default")).unwrap();
        std::fs::write(
            root.join("config/manager/kustomization.yaml"),
            "resources: [manager.yaml]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("config/manager/manager.yaml"),
            "kind: Deployment\nmetadata: {name: controller-manager}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: manager, image: controller:latest}\n      - {name: proxy, image: proxy:v1}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("config/default/kustomization.yaml"),
            "namespace: x-system\ncommonLabels:\n  cluster.x-k8s.io/provider: infrastructure-x\nresources: [../manager]\npatches:\n- path: image.yaml\nimages:\n- name: proxy\n  newTag: v2\n",
        )
        .unwrap();
        std::fs::write(
            root.join("config/default/image.yaml"),
            "kind: Deployment\nmetadata: {name: controller-manager}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: manager, image: 'gcr.io/x/manager:main'}\n",
        )
        .unwrap();
        let tree = read(root, "config/default");
        assert_eq!(tree.namespace.as_deref(), Some("x-system"));
        assert_eq!(
            tree.labels,
            [(
                "infrastructure-x".to_string(),
                "config/default/kustomization.yaml".to_string()
            )]
        );
        let images: Vec<(&str, &str)> = tree
            .containers
            .iter()
            .map(|c| (c.image.as_str(), c.file.as_str()))
            .collect();
        assert_eq!(
            images,
            [
                ("gcr.io/x/manager:main", "config/default/image.yaml"),
                ("proxy:v2", "config/default/kustomization.yaml")
            ]
        );
    }
}
