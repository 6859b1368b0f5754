//! What a kustomize tree says about its provider, read without running kustomize: the
//! `cluster.x-k8s.io/provider` label any kustomization in it sets (`labels`, `commonLabels`),
//! the namespace of the top kustomization, and the image each Deployment container ends up with
//! (the resource's `image:`, replaced by a patch that sets the same container's image, then by
//! the kustomizations' `images:` entries).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::makefile::strip_tag;
use super::repository::Repository;
use crate::provider::PROVIDER_LABEL;
use crate::yaml::{self, Limits, Node, Source};

const KUSTOMIZATION_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const MAX_DEPTH: usize = 16;
/// The most files one tree reads: a kustomization listing one manifest thousands of times reads
/// it once, and a tree of thousands of kustomizations stops here.
const MAX_FILES: usize = 2000;

/// What one kustomize tree holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Tree {
    /// Each provider label value, with the kustomization that sets it (relative to the root)
    /// and the line.
    pub labels: Vec<(String, String, usize)>,
    /// `namespace:` of the top kustomization.
    pub namespace: Option<String>,
    /// Containers of the tree's workloads with their final images.
    pub containers: Vec<Container>,
    /// Files a kustomization lists that are not in the repository (a make step may write
    /// them first): the path from the root, and the kustomization listing it.
    pub absent: Vec<(String, String)>,
}

/// A workload container and the image the build gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Container {
    pub workload: String,
    pub name: String,
    pub image: String,
    /// Where that image is written (relative to the root), and the line.
    pub file: String,
    pub line: usize,
}

/// The kustomization file of `dir` (relative to the root), if it has one inside the repository.
pub(super) fn kustomization_file(repo: &Repository, dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| repo.is_file(path, ""))
}

/// Reads the tree whose top kustomization is in `dir` (relative to the root).
pub(super) fn read(repo: &Repository, dir: &str) -> Tree {
    let mut tree = Tree::default();
    let top = PathBuf::from(dir);
    if let Some(text) = kustomization_file(repo, &top).and_then(|p| repo.read(&p, ""))
        && let Some(node) = documents(&text, dir).into_iter().next()
    {
        tree.namespace = node
            .get("namespace")
            .and_then(Node::as_str)
            .map(str::to_string);
    }
    let mut walker = Walker {
        repo,
        visited: HashSet::new(),
        labels: Vec::new(),
        absent: Vec::new(),
    };
    tree.containers = walker.walk(&top, 0);
    tree.labels = walker.labels;
    tree.absent = walker.absent;
    tree
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

struct Walker<'a> {
    repo: &'a Repository,
    /// Real paths of the folders and files read: each once.
    visited: HashSet<PathBuf>,
    labels: Vec<(String, String, usize)>,
    absent: Vec<(String, String)>,
}

impl Walker<'_> {
    /// Notes a listed file that is not there (inside the repository only).
    fn note_absent(&mut self, path: &Path, listed_in: &str) {
        let inside = !path.is_absolute()
            && !path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir));
        if inside && !self.repo.exists(path) {
            let shown = path.display().to_string();
            if !self.absent.iter().any(|(p, _)| *p == shown) {
                self.absent.push((shown, listed_in.to_string()));
            }
        }
    }

    /// The text of a file the tree lists, once: `None` the second time, outside the repository
    /// or past [`MAX_FILES`].
    fn read_once(&mut self, path: &Path, why: &str) -> Option<String> {
        let real = self.repo.inside(path, why)?;
        if self.visited.len() >= MAX_FILES || !self.visited.insert(real) {
            return None;
        }
        self.repo.read(path, why)
    }

    fn walk(&mut self, dir: &Path, depth: usize) -> Vec<Container> {
        let mut containers = Vec::new();
        if depth > MAX_DEPTH {
            return containers;
        }
        let Some(file) = kustomization_file(self.repo, dir) else {
            return containers;
        };
        let Some(text) = self.read_once(&file, "") else {
            return containers;
        };
        let name = self.repo.shown(&file);
        let listed = format!("listed in {name}");
        let Some(kustomization) = documents(&text, &name).into_iter().next() else {
            return containers;
        };
        for (value, offset) in provider_labels(&kustomization) {
            self.labels
                .push((value, name.clone(), line_of(&text, offset)));
        }
        for key in ["resources", "bases", "components"] {
            for entry in list(&kustomization, key) {
                let Some(path) = entry.as_str() else { continue };
                // A remote resource (`https://…`, `github.com/…?ref=`) is not read.
                if path.contains("://") || path.contains('?') {
                    continue;
                }
                let path = dir.join(path);
                self.note_absent(&path, &name);
                if self.repo.is_dir(&path, &listed) {
                    containers.extend(self.walk(&path, depth + 1));
                } else if let Some(text) = self.read_once(&path, &listed) {
                    containers.extend(workload_containers(&text, &self.repo.shown(&path)));
                }
            }
        }
        let mut patches: Vec<(String, String)> = Vec::new();
        let patch_files = list(&kustomization, "patchesStrategicMerge")
            .into_iter()
            .filter_map(Node::as_str)
            .chain(
                list(&kustomization, "patches")
                    .into_iter()
                    .filter_map(|entry| entry.get("path").and_then(Node::as_str)),
            );
        let patch_files: Vec<&str> = patch_files.collect();
        for path in patch_files {
            let path = dir.join(path);
            self.note_absent(&path, &name);
            if let Some(text) = self.read_once(&path, &listed) {
                patches.push((text, self.repo.shown(&path)));
            }
        }
        for entry in list(&kustomization, "patches") {
            if let Some(inline) = entry.get("patch").and_then(Node::as_str) {
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
                    container.line = patch.line;
                }
            }
        }
        for entry in list(&kustomization, "images") {
            let Some(matched) = entry.get("name").and_then(Node::as_str) else {
                continue;
            };
            let field = |key: &str| entry.get(key).and_then(Node::as_str).map(str::to_string);
            for container in containers
                .iter_mut()
                .filter(|c| strip_tag(&c.image) == matched)
            {
                let name = field("newName").unwrap_or_else(|| matched.to_string());
                container.image = match (field("digest"), field("newTag")) {
                    (Some(digest), _) => format!("{name}@{digest}"),
                    (None, Some(tag)) => format!("{name}:{tag}"),
                    (None, None) => format!("{name}{}", &container.image[matched.len()..]),
                };
                container.file = self.repo.shown(&file);
                container.line = line_of(&text, entry.span().start);
            }
        }
        containers
    }
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |head| head.matches('\n').count())
        + 1
}

/// Values of the provider label in `labels[].pairs` and `commonLabels`, with their offsets.
fn provider_labels(kustomization: &Node) -> Vec<(String, usize)> {
    let mut values = Vec::new();
    let mut take = |pairs: Option<&Node>| {
        if let Some(node) = pairs.and_then(|p| p.get(PROVIDER_LABEL))
            && let Some(value) = node.as_str()
            && !value.is_empty()
        {
            values.push((value.to_string(), node.span().start));
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
                if let (Some(name), Some(image_node)) = (
                    container.get("name").and_then(Node::as_str),
                    container.get("image"),
                ) && let Some(image) = image_node.as_str()
                {
                    out.push(Container {
                        workload: workload.to_string(),
                        name: name.to_string(),
                        image: image.to_string(),
                        file: file.to_string(),
                        line: line_of(text, image_node.span().start),
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
        let tree = read(&Repository::new(root).unwrap(), "config/default");
        assert_eq!(tree.namespace.as_deref(), Some("x-system"));
        assert_eq!(
            tree.labels,
            [(
                "infrastructure-x".to_string(),
                "config/default/kustomization.yaml".to_string(),
                3
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

    #[test]
    fn a_manifest_listed_thousands_of_times_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config/default")).unwrap();
        std::fs::write(
            root.join("config/default/manager.yaml"),
            "kind: Deployment\nmetadata: {name: m}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: manager, image: 'x/manager:v1'}\n",
        )
        .unwrap();
        let mut kustomization = "resources:\n".to_string();
        let mut patches = "patches:\n".to_string();
        for _ in 0..5000 {
            kustomization.push_str("- manager.yaml\n- ../default\n");
            patches.push_str("- path: manager.yaml\n");
        }
        kustomization.push_str(&patches);
        std::fs::write(
            root.join("config/default/kustomization.yaml"),
            kustomization,
        )
        .unwrap();
        let tree = read(&Repository::new(root).unwrap(), "config/default");
        assert_eq!(tree.containers.len(), 1, "{:?}", tree.containers.len());
    }
}
