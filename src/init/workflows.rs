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
    /// How the release starts and ends (tag push or a workflow pushing its tag, drafts,
    /// images built beside).
    pub process: super::ReleaseProcess,
    /// The plain `env:` variables of the release workflows, `(name, value, file:line)`: what
    /// the Makefile they run sees.
    pub environment: Vec<(String, String, String)>,
    /// Images (`registry.host/path`, no tag) the pipelines name on a line about images, with
    /// their `file:line`: where the release pushes, for a manager image with a development name.
    pub pushed_images: Vec<(String, String)>,
}

/// The pipelines of the repository triggered by version tags, other than `own`.
pub(super) fn existing_releases(
    repo: &Repository,
    own: &[&str],
    owner_name: Option<&str>,
) -> Pipelines {
    let mut pipelines = Pipelines::default();
    let mut files: Vec<String> = repo
        .file_names(Path::new(WORKFLOWS))
        .into_iter()
        .filter(|name| name.ends_with(".yaml") || name.ends_with(".yml"))
        .map(|name| format!("{WORKFLOWS}/{name}"))
        .filter(|path| !own.contains(&path.as_str()))
        .collect();
    files.push(".gitlab-ci.yml".to_string());
    let mut tag_workflows = 0;
    for file in files {
        let Some(text) = repo.read(Path::new(&file), "") else {
            continue;
        };
        let publishes = found_in(&text, &PUBLISHES);
        let images = found_in(&text, &BUILDS_IMAGES);
        let Some(line) = tag_trigger(&text) else {
            let github = file.starts_with(WORKFLOWS);
            if github && pipelines.process.caller.is_none() {
                let image_lines = lines_with(&text, &BUILDS_IMAGES);
                match super::release_flow::caller(&text, &file, &image_lines) {
                    Ok(Some(caller)) => {
                        if let Some((word, at)) = publishes.first() {
                            pipelines.notes.push(format!(
                                "existing release pipeline {file} publishes the release ({word}, line {at}): retire that step once capkg's job publishes it, or the two race on the tag"
                            ));
                        }
                        if let Some(at) = super::release_flow::draft_line(&text) {
                            pipelines
                                .process
                                .draft
                                .get_or_insert(format!("{file}:{at}"));
                        }
                        read_image_tags(&text, &file, &mut pipelines);
                        add_environment(&text, &file, owner_name, &mut pipelines);
                        pipelines.process.caller = Some(caller);
                    }
                    Ok(None) => {}
                    Err(refused) => pipelines.notes.push(refused),
                }
            }
            continue;
        };
        if file.starts_with(WORKFLOWS) {
            tag_workflows += 1;
            add_environment(&text, &file, owner_name, &mut pipelines);
            if let Some(at) = super::release_flow::draft_line(&text) {
                pipelines
                    .process
                    .draft
                    .get_or_insert(format!("{file}:{at}"));
            }
            if let Some((word, at)) = images.first() {
                pipelines
                    .process
                    .images_beside
                    .get_or_insert(format!("{file}:{at}, {word}, on the same tag"));
            }
        }
        read_image_tags(&text, &file, &mut pipelines);
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
    if let Some(goreleaser) = super::goreleaser::read(repo) {
        let file = &goreleaser.file;
        if pipelines.tag_without_v.is_none()
            && let Some(at) = goreleaser.tag_without_v
        {
            pipelines.tag_without_v =
                Some(format!("{file}:{at} (goreleaser's {{{{ .Version }}}})"));
        }
        for (image, at) in &goreleaser.images {
            if !pipelines.pushed_images.iter().any(|(i, _)| i == image) {
                pipelines
                    .pushed_images
                    .push((image.clone(), format!("{file}:{at}")));
            }
        }
        for (written, published, at) in &goreleaser.made_at_release {
            pipelines.notes.push(format!(
                "goreleaser's `before:` hook writes {written} at release time ({file}:{at}) and publishes it as {published}: capkg builds the release from the repository, so point capkg.yaml at what that step reads or run it before `capkg release` and point capkg.yaml at {written}"
            ));
        }
        if let Some((image, at)) = goreleaser.images.first()
            && tag_workflows > 0
        {
            pipelines.process.images_beside.get_or_insert(format!(
                "{file}:{at}, goreleaser pushes {image} when the tag's workflow runs it"
            ));
        }
        if goreleaser.publishes {
            pipelines.notes.push(format!(
                "goreleaser ({file}) also creates the GitHub release of the tag (its `release:` section, on by default): capkg and it race on that release; keep goreleaser for binaries and images and turn its release off (`release: disable: true`), or let capkg's release run after it"
            ));
        }
    }
    // A tag a workflow pushes starts no workflow on tags: the images are its jobs' (needed by
    // capkg's job) or built outside GitHub's workflows once the tag exists.
    if let Some(caller) = &pipelines.process.caller {
        pipelines.process.images_beside =
            (caller.image_jobs.is_empty() && pipelines.process.draft.is_none()).then(|| {
                format!(
                    "no job of {} builds them, so they are built elsewhere once the tag is pushed",
                    caller.file
                )
            });
    }
    pipelines
}

/// The plain `env:` variables of a release workflow, the first setting of each kept.
fn add_environment(text: &str, file: &str, owner_name: Option<&str>, pipelines: &mut Pipelines) {
    for variable in super::release_flow::workflow_env(text, file, owner_name) {
        if !pipelines
            .environment
            .iter()
            .any(|(n, _, _)| *n == variable.0)
        {
            pipelines.environment.push(variable);
        }
    }
}

/// What a release pipeline says about its images: where it drops the tag's `v` for them (a
/// shell step, docker/metadata-action's `type=semver,pattern={{version}}`, goreleaser's
/// `{{ .Version }}`), and the images with a registry it names on lines about images.
fn read_image_tags(text: &str, file: &str, pipelines: &mut Pipelines) {
    if pipelines.tag_without_v.is_none()
        && let Some(at) = image_tag_without_v(text).or_else(|| metadata_action_without_v(text))
    {
        pipelines.tag_without_v = Some(format!("{file}:{}", at + 1));
    }
    for (at, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        if line.trim_start().starts_with('#') || !(lower.contains("image") || line.contains("IMG"))
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
}

/// The 0-based line where docker/metadata-action tags images with the version without its `v`
/// (`type=semver,pattern={{version}}`: semver's normalised version), when none of its tags is
/// the git tag itself (`type=ref,event=tag`, `pattern={{raw}}`, `pattern=v{{version}}`, or no
/// `tags:` at all, whose defaults hold `type=ref,event=tag`).
fn metadata_action_without_v(text: &str) -> Option<usize> {
    if !text.contains("docker/metadata-action") {
        return None;
    }
    let mut without_v = None;
    for (at, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        let keeps_tag = compact.contains("type=ref,event=tag")
            || (compact.contains("type=semver")
                && (compact.contains("{{raw}}") || compact.contains("pattern=v{{version}}")));
        if keeps_tag {
            return None;
        }
        if compact.contains("type=semver") && compact.contains("pattern={{version}}") {
            without_v.get_or_insert(at);
        }
    }
    without_v
}

/// The 1-based lines of every non-comment line holding one of `needles`.
fn lines_with(text: &str, needles: &[&str]) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            !line.trim_start().starts_with('#') && needles.iter().any(|n| line.contains(n))
        })
        .map(|(at, _)| at + 1)
        .collect()
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
        let pipelines = existing_releases(&repo, &["x"], None);
        assert_eq!(pipelines.notes.len(), 1, "{:?}", pipelines.notes);
        assert!(
            pipelines.notes[0].contains("publishes the release (gh release create, line 8)"),
            "{:?}",
            pipelines.notes
        );
        let caller = pipelines.process.caller.expect("the workflow tagging");
        assert_eq!((caller.tag_job.as_str(), caller.tag_line), ("r", 7));
        assert!(
            pipelines.process.images_beside.is_some(),
            "no job builds images and none drafts: they are built elsewhere"
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
