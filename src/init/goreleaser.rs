//! goreleaser's configuration (`.goreleaser.yaml`/`.yml`): the images it pushes (`dockers:`
//! `image_templates`, `docker_manifests:` `name_template`, `kos:` `repository` and `tags`), how
//! it tags them (`{{ .Tag }}` is the git tag, `{{ .Version }}` the tag without its `v`), and
//! whether it publishes the GitHub release of the tag, which capkg's release would race.

use std::path::Path;
use std::sync::Arc;

use super::repository::Repository;
use crate::yaml::{self, Limits, Node, Source};

const FILES: [&str; 2] = [".goreleaser.yaml", ".goreleaser.yml"];

/// What goreleaser's configuration says.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Goreleaser {
    /// The file read.
    pub file: String,
    /// Images it pushes (`registry/path`, no tag), each with its line.
    pub images: Vec<(String, usize)>,
    /// The line of an image tag made of `{{ .Version }}` (no `v`) when none is `{{ .Tag }}`.
    pub tag_without_v: Option<usize>,
    /// Release files a `before:` hook writes: `(file, name published, line of the hook)`.
    pub made_at_release: Vec<(String, String, usize)>,
    /// Whether it creates the GitHub release of the tag (its default; `release: disable: true`
    /// turns it off).
    pub publishes: bool,
}

/// Strings of an image template as goreleaser writes them, each with its offset.
fn strings<'a>(node: Option<&'a Node>, out: &mut Vec<(&'a str, usize)>) {
    let Some(node) = node else { return };
    match node.as_str() {
        Some(text) => out.push((text, node.span().start)),
        None => {
            for item in node.items() {
                if let Some(text) = item.as_str() {
                    out.push((text, item.span().start));
                }
            }
        }
    }
}

/// The template without spaces inside `{{ }}`, so `{{ .Tag }}` and `{{.Tag}}` read alike.
fn compact(template: &str) -> String {
    template.chars().filter(|c| !c.is_whitespace()).collect()
}

/// goreleaser's configuration at the repository root, when there is one.
pub(super) fn read(repo: &Repository) -> Option<Goreleaser> {
    let file = FILES.iter().find(|f| repo.is_file(Path::new(f), ""))?;
    let text = repo.read(Path::new(file), "")?;
    let source = Arc::new(Source::new(*file, text.as_str()));
    let parsed = yaml::parse_str(source.clone(), Limits::default());
    let root = parsed.documents.into_iter().find_map(|d| d.root)?;
    let mut templates: Vec<(&str, usize)> = Vec::new();
    let mut tags: Vec<(&str, usize)> = Vec::new();
    for docker in root.get("dockers").map(Node::items).unwrap_or_default() {
        strings(docker.get("image_templates"), &mut templates);
    }
    for manifest in root
        .get("docker_manifests")
        .map(Node::items)
        .unwrap_or_default()
    {
        strings(manifest.get("name_template"), &mut templates);
    }
    let mut repositories: Vec<(&str, usize)> = Vec::new();
    for ko in root.get("kos").map(Node::items).unwrap_or_default() {
        strings(ko.get("repository"), &mut repositories);
        strings(ko.get("tags"), &mut tags);
    }
    let line = |offset: usize| source.position(offset).line;
    let mut images: Vec<(String, usize)> = Vec::new();
    for (template, at) in templates.iter().chain(&repositories) {
        // The image name is what precedes the tag; a name made of templates is not known.
        let name = match template.find("{{") {
            None => super::makefile::strip_tag(template),
            Some(at) => match template[..at].strip_suffix(':') {
                Some(name) => name.to_string(),
                None => continue,
            },
        };
        if name.contains('/')
            && crate::image_ref::check_name(&name).is_ok()
            && !images.iter().any(|(i, _)| *i == name)
        {
            images.push((name, line(*at)));
        }
    }
    let tag_parts: Vec<(String, usize)> = templates
        .iter()
        .filter_map(|(t, at)| {
            let after = &t[t.find("{{")?..];
            Some((compact(after), *at))
        })
        .chain(tags.iter().map(|(t, at)| (compact(t), *at)))
        .collect();
    // `v{{ trimprefix .Version "v" }}` and `{{ .Tag }}` keep the `v`; a bare `{{ .Version }}`
    // drops it.
    let keeps_tag = tag_parts
        .iter()
        .any(|(t, _)| t.contains("{{.Tag}}") || t.starts_with("v{{"));
    let tag_without_v = (!keeps_tag)
        .then(|| {
            tag_parts
                .iter()
                .find(|(t, _)| t.starts_with("{{.Version}}"))
        })
        .flatten()
        .map(|(_, at)| line(*at));
    // Release files its `before:` hooks write (`… >release-metadata.yaml`), published under a
    // clusterctl name (`name_template: metadata.yaml`).
    let mut made_at_release = Vec::new();
    for extra in root
        .path(&["release", "extra_files"])
        .map(Node::items)
        .unwrap_or_default()
    {
        let Some(glob) = extra.get("glob").and_then(Node::scalar_text) else {
            continue;
        };
        let glob = glob.trim_start_matches("./");
        let published = extra
            .get("name_template")
            .and_then(Node::scalar_text)
            .unwrap_or(glob);
        let clusterctl_file = published == "metadata.yaml"
            || matches!(
                crate::provider::FileRole::from_file_name(published),
                Some(crate::provider::FileRole::Components { .. })
            );
        if !clusterctl_file || glob.contains(['*', '{']) {
            continue;
        }
        let hook = text.lines().position(|l| {
            let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            compact.contains(&format!(">{glob}"))
        });
        if let Some(at) = hook {
            made_at_release.push((glob.to_string(), published.to_string(), at + 1));
        }
    }
    let publishes = root
        .path(&["release", "disable"])
        .and_then(Node::scalar_text)
        .is_none_or(|v| v != "true");
    Some(Goreleaser {
        file: (*file).to_string(),
        images,
        tag_without_v,
        made_at_release,
        publishes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Goreleaser {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".goreleaser.yaml"), text).unwrap();
        read(&Repository::new(dir.path()).unwrap()).unwrap()
    }

    #[test]
    fn images_and_their_tags_are_read_from_dockers_and_kos() {
        let read = read_text(
            "dockers:\n  - image_templates:\n      - \"ghcr.io/acme/manager:{{ .Version }}-amd64\"\ndocker_manifests:\n  - name_template: ghcr.io/acme/manager:{{ .Version }}\n",
        );
        assert_eq!(read.images, [("ghcr.io/acme/manager".to_string(), 3)]);
        assert_eq!(read.tag_without_v, Some(3));
        assert!(read.publishes);
        assert!(read.made_at_release.is_empty());

        let ko = read_text(
            "kos:\n  - repository: ghcr.io/acme/extension\n    tags: ['{{.Tag}}', latest]\nrelease:\n  disable: true\n",
        );
        assert_eq!(ko.images, [("ghcr.io/acme/extension".to_string(), 2)]);
        assert_eq!(ko.tag_without_v, None, "{{{{.Tag}}}} keeps the v");
        assert!(!ko.publishes);
    }

    #[test]
    fn an_image_name_made_of_templates_is_not_proposed() {
        let read = read_text(
            "dockers:\n  - image_templates: [\"{{ .Env.REGISTRY }}/manager:{{ .Tag }}\", \"ghcr.io/{{ .ProjectName }}:{{ .Tag }}\"]\n",
        );
        assert!(read.images.is_empty(), "{:?}", read.images);
    }
}
