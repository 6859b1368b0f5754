//! Release pipelines the repository already runs on version tags: a second one on the same tag
//! races capkg's (both create the GitHub release, or upload the same files). Each is named with
//! the line of its tag trigger and what in it to retire (publishing release files) or keep (building
//! and pushing images, which capkg does not do). Read as text: a workflow is not run or resolved.

use std::path::Path;

use super::repository::Repository;

const WORKFLOWS: &str = ".github/workflows";

/// Steps that publish the release capkg now publishes.
const PUBLISHES: [&str; 7] = [
    "softprops/action-gh-release",
    "actions/create-release",
    "actions/upload-release-asset",
    "ncipollo/release-action",
    "gh release create",
    "gh release upload",
    "goreleaser",
];

/// Steps that build or push images, which capkg leaves to the existing pipeline.
const BUILDS_IMAGES: [&str; 6] = [
    "docker/build-push-action",
    "docker push",
    "docker buildx",
    "make docker-push",
    "make docker-build",
    "ko build",
];

/// The release pipelines found.
#[derive(Debug, Default)]
pub(super) struct Pipelines {
    /// One note per existing pipeline triggered by version tags.
    pub notes: Vec<String>,
    /// `file:line` where one writes the version without its `v` (`${VERSION//v}`), as image tags.
    pub tag_without_v: Option<String>,
    /// Images (`registry.host/path`, no tag) the pipelines name on a line about images, with
    /// their `file:line`: where the release pushes, for a manager image with a development name.
    pub pushed_images: Vec<(String, String)>,
}

/// The pipelines of the repository triggered by version tags, other than `own`.
pub(super) fn existing_releases(repo: &Repository, own: &str) -> Pipelines {
    let mut pipelines = Pipelines::default();
    let mut files: Vec<String> = repo
        .file_names(Path::new(WORKFLOWS))
        .into_iter()
        .filter(|name| name.ends_with(".yaml") || name.ends_with(".yml"))
        .map(|name| format!("{WORKFLOWS}/{name}"))
        .filter(|path| path != own)
        .collect();
    files.push(".gitlab-ci.yml".to_string());
    for file in files {
        let Some(text) = repo.read(Path::new(&file), "") else {
            continue;
        };
        let Some(line) = tag_trigger(&text) else {
            // OpenStack's: publishes on another trigger and pushes the tag itself, with the
            // workflow's token, which starts no other workflow (capkg's on tags never runs).
            if let Some((word, at)) = found_in(&text, &PUBLISHES).first()
                && let Some((_, tag_at)) = found_in(&text, &["git tag"]).first()
            {
                pipelines.notes.push(format!(
                    "existing release pipeline {file} creates the tag itself (`git tag`, line {tag_at}) and publishes ({word}, line {at}) on another trigger: a tag it pushes with the workflow's token starts no other workflow, so capkg's tag-triggered workflow would not run; call `capkg release --version <tag>` in that workflow in place of its publishing step"
                ));
            }
            continue;
        };
        if pipelines.tag_without_v.is_none()
            && let Some(at) = image_tag_without_v(&text)
        {
            pipelines.tag_without_v = Some(format!("{file}:{}", at + 1));
        }
        for (at, line) in text.lines().enumerate() {
            let lower = line.to_ascii_lowercase();
            if line.trim_start().starts_with('#')
                || !(lower.contains("image") || line.contains("IMG"))
            {
                continue;
            }
            for image in registry_images(line) {
                if !pipelines.pushed_images.iter().any(|(i, _)| *i == image) {
                    pipelines
                        .pushed_images
                        .push((image, format!("{file}:{}", at + 1)));
                }
            }
        }
        let publishes = found_in(&text, &PUBLISHES);
        let images = found_in(&text, &BUILDS_IMAGES);
        let retire = match publishes.first() {
            Some((word, at)) => format!(
                "retire its release publishing ({word}, line {at}) once capkg releases, or the two race on the tag"
            ),
            None => "check it does not publish the same release files, or the two race on the tag"
                .to_string(),
        };
        let keep = match images.first() {
            Some((word, at)) => {
                format!("; keep its image build ({word}, line {at}): capkg does not build images")
            }
            None => String::new(),
        };
        pipelines.notes.push(format!(
            "existing release pipeline {file}:{line} runs on version tags: {retire}{keep}"
        ));
    }
    pipelines
}

/// The 1-based line of a version-tag trigger: GitHub's `tags:` with a `v…` pattern (inline or
/// in the list under it), or GitLab's `$CI_COMMIT_TAG` rule.
fn tag_trigger(text: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.contains("$CI_COMMIT_TAG") && !trimmed.starts_with('#') {
            return Some(index + 1);
        }
        let Some(value) = trimmed.strip_prefix("tags:") else {
            continue;
        };
        if versionish(value) {
            return Some(index + 1);
        }
        let indent = line.len() - line.trim_start().len();
        for item in lines[index + 1..].iter().take_while(|next| {
            let next_indent = next.len() - next.trim_start().len();
            next.trim().is_empty() || next_indent > indent || next.trim_start().starts_with('-')
        }) {
            if let Some(pattern) = item.trim().strip_prefix('-')
                && versionish(pattern)
            {
                return Some(index + 1);
            }
        }
    }
    None
}

/// A tag pattern starting with `v` (`v*`, `"v[0-9]+.*"`, `['v*.*.*']`) or a bare `*`.
fn versionish(pattern: &str) -> bool {
    pattern
        .split(',')
        .map(|p| p.trim().trim_matches(['[', ']', '"', '\'', ' ']))
        .any(|p| p.starts_with('v') || p == "*" || p == "**")
}

/// Image names with a registry host (`ghcr.io/acme/manager`, `quay.io/x/y:v1` without its tag)
/// in a line; names built from expressions (`${{ … }}`, `$(…)`) are left out.
fn registry_images(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || "\"',=[]".contains(c))
        .filter(|word| !word.contains('$') && !word.contains("://"))
        .filter_map(|word| {
            let (host, path) = word.split_once('/')?;
            let registry = host.contains('.')
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:".contains(c))
                && !host.starts_with('.');
            let path_ok = !path.is_empty()
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-/:@".contains(c));
            (registry && path_ok).then(|| super::makefile::strip_tag(word))
        })
        .filter(|image| {
            image
                .rsplit('/')
                .next()
                .is_some_and(|last| !last.is_empty())
        })
        .collect()
}

/// Each needle found, with the 1-based line of its first occurrence outside comments.
fn found_in(text: &str, needles: &[&'static str]) -> Vec<(&'static str, usize)> {
    needles
        .iter()
        .filter_map(|needle| {
            text.lines()
                .position(|line| !line.trim_start().starts_with('#') && line.contains(needle))
                .map(|at| (*needle, at + 1))
        })
        .collect()
}

/// A line about images (`docker`, `image`, `IMG`, `push`, `tags`), in lower case.
fn about_images(lower: &str) -> bool {
    ["image", "img", "docker", "push", "tags"]
        .iter()
        .any(|word| lower.contains(word))
}

/// Whether `line` reads the shell variable `name` (`$NAME`, `${NAME}`, `${NAME//+/-}`).
fn reads_variable(line: &str, name: &str) -> bool {
    [format!("${name}"), format!("${{{name}")]
        .iter()
        .any(|reference| {
            line.match_indices(reference.as_str()).any(|(at, _)| {
                !line[at + reference.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}

/// The 0-based line where a pipeline drops the tag's `v` for an image: on a line about images
/// (`make docker-push TAG=${GITHUB_REF_NAME//v}`), or into a variable a line about images
/// reads. A `v` dropped only to compare with metadata.yaml's release series is not the image's.
fn image_tag_without_v(text: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    lines.iter().position(|line| {
        if line.trim_start().starts_with('#') || !super::makefile::strips_v(line) {
            return false;
        }
        if about_images(&line.to_ascii_lowercase()) {
            return true;
        }
        let assigned = line
            .trim_start()
            .trim_start_matches("export ")
            .split_once('=')
            .map(|(name, _)| name.trim())
            .filter(|name| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        assigned.is_some_and(|name| {
            lines.iter().any(|other| {
                about_images(&other.to_ascii_lowercase()) && reads_variable(other, name)
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_triggers_are_found_with_their_line() {
        assert_eq!(
            tag_trigger("on:\n  push:\n    tags:\n      - 'v*'\n"),
            Some(3)
        );
        assert_eq!(
            tag_trigger("on:\n  push:\n    tags: [\"v*.*.*\"]\n"),
            Some(3)
        );
        assert_eq!(
            tag_trigger("on:\n  push:\n    branches: [main]\n    tags-ignore: ['v*']\n"),
            None
        );
        assert_eq!(
            tag_trigger("release:\n  rules:\n    - if: $CI_COMMIT_TAG\n"),
            Some(3)
        );
        assert_eq!(tag_trigger("on: [pull_request]\n"), None);
    }

    #[test]
    fn a_pipeline_pushing_its_own_tag_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(WORKFLOWS)).unwrap();
        std::fs::write(
            dir.path().join(WORKFLOWS).join("release.yaml"),
            "on:\n  push:\n    branches: [main]\njobs:\n  r:\n    steps:\n      - run: git tag -a v1 && git push origin v1\n      - run: gh release create v1 out/*\n",
        )
        .unwrap();
        let repo = Repository::new(dir.path()).unwrap();
        let notes = existing_releases(&repo, "x").notes;
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("(`git tag`, line 7) and publishes (gh release create, line 8)"),
            "{notes:?}"
        );
    }

    #[test]
    fn only_a_v_dropped_for_an_image_tag_counts() {
        assert_eq!(
            image_tag_without_v("jobs:\n  - run: make docker-push TAG=${GITHUB_REF_NAME//v}\n"),
            Some(1)
        );
        let image = "run: |\n  VERSION=${GITHUB_REF_NAME#v}\n  docker push x/y:$VERSION\n";
        assert_eq!(image_tag_without_v(image), Some(1));
        // k0smotron: the `v` is dropped to read metadata.yaml; the image tag keeps it.
        let series = "run: |\n  TAG=\"${TAG#v}\"\n  read major minor <<< \"$TAG\"\n  echo IMAGE_TAGS=\"${TAGS//+/-}\"\n";
        assert_eq!(image_tag_without_v(series), None);
    }

    #[test]
    fn images_with_a_registry_are_read_from_a_line() {
        assert_eq!(
            registry_images("          images: ghcr.io/acme/manager,quay.io/x/y:v1"),
            ["ghcr.io/acme/manager", "quay.io/x/y"]
        );
        assert!(registry_images("images: ghcr.io/${{ github.repository }}").is_empty());
        assert!(registry_images("uses: docker/build-push-action@v6").is_empty());
    }
}
