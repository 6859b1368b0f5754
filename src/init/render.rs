//! The files `capkg init` writes, rendered from what [`super::detect`] found and the templates
//! embedded in the binary (`templates/`).
//!
//! What came from the repository is input, and these files run: every scalar copied into
//! `capkg.yaml` is written as a YAML scalar that reads back as the same string ([`quoted`],
//! escapes included), every comment holding repository text has its line breaks and control
//! characters escaped ([`comment`]), and the GitHub workflow builds no `${{ }}` expression from
//! repository text: a make target reaches its `run:` script only through `env:`, quoted, and
//! only when [`workflow_safe_target`] accepted it during detection.

use std::path::PathBuf;

use super::{
    CALL_SNIPPET_PATH, Caller, Detected, Forge, GITHUB_PROMOTE_PATH, GITHUB_WORKFLOW_PATH,
    GITLAB_JOB_PATH, OUTPUT_DIR, Provider,
};

const CAPKG_YAML: &str = include_str!("../../templates/capkg.yaml");
const GITHUB_WORKFLOW: &str = include_str!("../../templates/github-release.yaml");
/// capkg's release as a reusable workflow, for a repository whose workflow pushes the tag.
const GITHUB_CALLED: &str = include_str!("../../templates/github-release-called.yaml");
const GITHUB_PROMOTE: &str = include_str!("../../templates/github-promote.yaml");
const GITLAB_JOB: &str = include_str!("../../templates/gitlab-ci.yml");

/// The commit of capkg's repository its release `v{version}` was built from, when this build
/// knew it (`build.rs`): the CI files pin capkg's action to it.
const RELEASE_COMMIT: Option<&str> = option_env!("CAPKG_RELEASE_COMMIT");

/// How the GitHub workflow names capkg's own action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionPin<'a> {
    /// The commit the release tag names (40 hex digits), with the version in a comment.
    Commit(&'a str),
    /// The release tag, with a comment saying how to pin it: the build of this capkg did not
    /// know the commit its release tag names.
    Tag,
}

impl ActionPin<'static> {
    /// What this build of capkg writes: its release commit when `build.rs` knew it.
    pub fn of_this_build() -> Self {
        match RELEASE_COMMIT {
            Some(commit) if is_commit(commit) => ActionPin::Commit(commit),
            _ => ActionPin::Tag,
        }
    }
}

/// A full git commit id, as GitHub takes it in `uses:`.
fn is_commit(text: &str) -> bool {
    text.len() == 40
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A YAML scalar that reads back as `text`: plain when it is made of characters no YAML reader
/// gives a meaning to and resolves as a string, else double-quoted with every character that is
/// not printable escaped (a line break inside a value never starts a line of the file).
fn quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./*".contains(c))
        && !text.starts_with(['*', '-', '.'])
        && crate::yaml::resolve::plain_is_string(text);
    if plain {
        text.to_string()
    } else {
        crate::yaml::write_layout::double_quoted(text)
    }
}

/// Repository text for a `#` comment: line breaks, control characters and the invisible
/// characters that reorder or hide text shown as escapes (`\n`, `\u{202e}`), so that a comment
/// stays one comment.
fn comment(text: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
            )
    };
    if !text.chars().any(hidden) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if hidden(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

const TODO_NAME: &str = "TODO: the provider name (clusterctl's `--infrastructure NAME`)";
const TODO_TYPE: &str =
    "TODO: infrastructure, bootstrap, control-plane, core, ipam, runtime-extension or addon";
const TODO_COMPONENTS: &str =
    "TODO: a command printing the components YAML (kubectl kustomize config/default)";
const TODO_METADATA: &str = "TODO: the release's metadata.yaml";

fn components_lines(components: &[super::Components], indent: &str) -> String {
    let command = |dir: &str| format!("command: [kubectl, kustomize, {}]", quoted(dir));
    match components {
        [] => format!("{indent}  command: {}", quoted(TODO_COMPONENTS)),
        [only] if only.suffix.is_none() => format!("{indent}  {}", command(&only.dir)),
        many => many
            .iter()
            .map(|c| match &c.suffix {
                Some(suffix) => format!(
                    "{indent}  - suffix: {}\n{indent}    {}",
                    quoted(suffix),
                    command(&c.dir)
                ),
                None => format!("{indent}  - {}", command(&c.dir)),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn provider_lines(detected: &Detected) -> String {
    let name = |p: &Provider| quoted(p.name.as_deref().unwrap_or(TODO_NAME));
    let provider_type = |p: &Provider| {
        p.provider_type
            .map(|t| t.short_name().to_string())
            .unwrap_or_else(|| quoted(TODO_TYPE))
    };
    match &detected.providers[..] {
        [] => String::new(),
        [only] => format!(
            "provider:\n  # clusterctl's provider name and type; the manifest label is {{type}}-{{name}}{}.\n  name: {}\n  type: {}\n\n# Where the components YAML comes from: a `command` whose standard output is the YAML, a `file`,\n# or `files` (files and folders of manifests, concatenated).\ncomponents:\n{}",
            only.label()
                .map(|l| format!(" (`{}`)", comment(&l)))
                .unwrap_or_default(),
            name(only),
            provider_type(only),
            components_lines(&only.components, "")
        ),
        many => {
            let mut text = "# Every provider released under one tag, each with its components (clusterctl's\n# name and type; the manifest label is {type}-{name}).\nproviders:".to_string();
            for provider in many {
                text.push_str(&format!(
                    "\n  - name: {}\n    type: {}\n    components:\n{}",
                    name(provider),
                    provider_type(provider),
                    components_lines(&provider.components, "    ")
                ));
            }
            text
        }
    }
}

fn image_lines(detected: &Detected) -> String {
    if detected.images.is_empty() {
        return "# Release-pinned images (kustomize `images` semantics): the manifests' development image,\n# rewritten for the release.\n# images:\n#   - name: REGISTRY/MANAGER\n#     newTag: \"{version}\"".to_string();
    }
    let mut text = "# The manager images as the manifests name them, pinned to the release: `{version}` is the\n# tag being released (v1.2.3), `{semver}` the same without `v`. Check `newName`: the registry\n# the release's images are pushed to.\nimages:".to_string();
    for image in &detected.images {
        text.push_str(&format!(
            "\n  - name: {}  # {}",
            quoted(&image.name),
            comment(&image.file)
        ));
        if let Some(new_name) = &image.new_name {
            text.push_str(&format!("\n    newName: {}", quoted(new_name)));
        }
        text.push_str(&format!("\n    newTag: \"{}\"", image.new_tag));
        if let Some(policy) = &image.pull_policy {
            text.push_str(&format!("\n    pullPolicy: {}", quoted(policy)));
        }
    }
    text
}

fn template_lines(detected: &Detected) -> String {
    if detected.templates.is_empty() {
        return "# templates:\n#   - templates/cluster-template*.yaml\n#   - templates/clusterclass-*.yaml".to_string();
    }
    let mut text = "templates:".to_string();
    for glob in &detected.templates {
        if let Some(note) = detected.template_comments.get(glob) {
            text.push_str(&format!("\n  # {}", comment(note)));
        }
        text.push_str(&format!("\n  - {}", quoted(glob)));
    }
    text
}

fn target_lines(detected: &Detected) -> String {
    let local = "  # local:\n  #   repository: ../clusterctl-repository";
    match &detected.forge {
        Forge::GitHub(repo) => format!("targets:\n  github:\n    repo: {}\n{local}", quoted(repo)),
        Forge::GitLab(Some(project)) => {
            format!(
                "targets:\n  gitlab:\n    project: {}\n{local}",
                quoted(project)
            )
        }
        Forge::GitLab(None) => format!(
            "targets:\n  gitlab: {{}} # the project of the pipeline (CI_PROJECT_ID)\n{local}"
        ),
        Forge::Unknown => format!(
            "# No GitHub or GitLab remote was found: name where releases go, then `capkg release` publishes.\ntargets: {{}}\n  # github:\n  #   repo: OWNER/NAME\n  # gitlab:\n  #   project: GROUP/PROJECT\n{local}"
        ),
    }
}

/// GitHub steps running the make targets that write files the release publishes. The target
/// reaches the script through `env:`, never pasted into it: detection kept only targets of
/// letters, digits and `._/+-` ([`workflow_safe_target`]), so no `${{ }}` expression can
/// be made of one either.
fn prepare_steps(detected: &Detected) -> String {
    detected
        .prepare
        .iter()
        .filter(|(target, _)| workflow_safe_target(target).is_ok())
        .map(|(target, what)| {
            format!(
                "      - name: {}\n        run: make \"$MAKE_TARGET\" # writes {}, as the Makefile's release does\n        env:\n          MAKE_TARGET: {}\n",
                quoted(&format!("make {target}")),
                comment(what),
                quoted(target)
            )
        })
        .collect()
}

/// What `capkg release` adds to its arguments for this repository's process: a draft first
/// where the repository drafts (the promote workflow checks the images later), else a bounded
/// wait for images built beside the release.
fn release_flags(detected: &Detected) -> String {
    match (&detected.release.draft, &detected.release.images_beside) {
        (Some(_), _) => " --draft".to_string(),
        (None, Some(_)) => format!(" --wait-for-images {}", super::release_flow::IMAGE_WAIT),
        (None, None) => String::new(),
    }
}

/// The job to paste into the workflow that pushes the tag: it calls capkg's reusable workflow
/// with that tag, after the tag job and the image jobs. Ids were checked plain at detection
/// ([`super::release_flow`]), so the `${{ }}` expression is made of nothing else.
fn call_snippet(caller: &Caller, images_beside: bool) -> String {
    let indent = " ".repeat(caller.indent);
    let needs: Vec<&str> = std::iter::once(caller.tag_job.as_str())
        .chain(caller.image_jobs.iter().map(String::as_str))
        .collect();
    let after = if caller.image_jobs.is_empty() {
        if images_beside {
            " (capkg waits for the images, which are built elsewhere)"
        } else {
            ""
        }
    } else {
        " and its images are built"
    };
    let version = match &caller.version {
        Some(expression) => format!("${{{{ {expression} }}}}"),
        None => format!(
            "\"TODO: the tag this workflow pushes (an output of its job {})\"",
            caller.tag_job
        ),
    };
    format!(
        "# The job that runs capkg's release from {file}, which pushes the release tag itself\n\
         # (line {line}): a tag pushed with a workflow's token starts no other workflow. Paste it\n\
         # under that workflow's `jobs:`, then delete this file; it calls {called} once the\n\
         # tag is pushed{after}. Written by `capkg init`, which never edits a workflow.\n\
         {indent}{id}:\n\
         {indent}  name: capkg release\n\
         {indent}  needs: [{needs}]\n\
         {indent}  permissions:\n\
         {indent}    contents: write # the called job creates the release of the tag and uploads its files\n\
         {indent}    id-token: write # the called job signs the provenance statement keylessly (Sigstore)\n\
         {indent}  uses: ./{called}\n\
         {indent}  with:\n\
         {indent}    version: {version}\n",
        file = comment(&caller.file),
        line = caller.tag_line,
        called = GITHUB_WORKFLOW_PATH,
        id = caller.job_id,
        needs = needs.join(", "),
    )
}

/// The comment above capkg's step and the reference after `uses: capkg/capkg@`.
fn action_lines(pin: ActionPin<'_>, version: &str) -> (String, String) {
    match pin {
        ActionPin::Commit(commit) => (String::new(), format!("{commit} # v{version}")),
        ActionPin::Tag => (
            format!(
                "      # By tag: the build of this capkg did not know the commit its release tag names, so it\n      # could not write it here. Pin it as the checkout above is pinned, with the commit that\n      # `git ls-remote https://github.com/capkg/capkg refs/tags/v{version}` prints:\n      #   uses: capkg/capkg@<commit> # v{version}\n"
            ),
            format!("v{version}"),
        ),
    }
}

/// The files `init` writes, with their content, relative to the repository root; capkg's action
/// pinned as this build pins it ([`ActionPin::of_this_build`]).
pub fn render(detected: &Detected) -> Vec<(PathBuf, String)> {
    render_pinned(detected, ActionPin::of_this_build())
}

/// [`render`] with capkg's action pinned by `pin`.
pub fn render_pinned(detected: &Detected, pin: ActionPin<'_>) -> Vec<(PathBuf, String)> {
    let labels: Vec<String> = detected
        .providers
        .iter()
        .filter_map(Provider::label)
        .collect();
    let label = if labels.is_empty() {
        "the provider".to_string()
    } else {
        comment(&labels.join(", "))
    };
    let version = env!("CARGO_PKG_VERSION");
    let (action_note, action_ref) = action_lines(pin, version);
    let metadata = detected.metadata.as_deref().unwrap_or(TODO_METADATA);
    let fill = |template: &str| {
        template
            .replace("{{{label}}}", &label)
            .replace("{{{providers}}}", &provider_lines(detected))
            .replace("{{{images}}}", &image_lines(detected))
            .replace("{{{metadata}}}", &quoted(metadata))
            .replace("{{{templates}}}", &template_lines(detected))
            .replace("{{{output}}}", OUTPUT_DIR)
            .replace("{{{targets}}}", &target_lines(detected))
            .replace("{{{prepare}}}", &prepare_steps(detected))
            .replace("{{{action_note}}}", &action_note)
            .replace("{{{action_ref}}}", &action_ref)
            .replace("{{{release_flags}}}", &release_flags(detected))
            .replace("{{{snippet}}}", CALL_SNIPPET_PATH)
            .replace(
                "{{{caller}}}",
                &detected
                    .release
                    .caller
                    .as_ref()
                    .map_or_else(String::new, |c| comment(&c.file)),
            )
            // The CI files pin capkg's action and image to the capkg that wrote them.
            .replace("{{{version}}}", version)
    };
    let mut files = vec![(PathBuf::from(crate::config::FILE_NAME), fill(CAPKG_YAML))];
    match &detected.forge {
        Forge::GitHub(_) => {
            match &detected.release.caller {
                // A workflow pushes the tag: no workflow on tags (it would never run), capkg's
                // release called from that workflow instead.
                Some(caller) => {
                    files.push((PathBuf::from(GITHUB_WORKFLOW_PATH), fill(GITHUB_CALLED)));
                    files.push((
                        PathBuf::from(CALL_SNIPPET_PATH),
                        call_snippet(caller, detected.release.images_beside.is_some()),
                    ));
                }
                None => files.push((PathBuf::from(GITHUB_WORKFLOW_PATH), fill(GITHUB_WORKFLOW))),
            }
            if detected.release.draft.is_some() {
                files.push((PathBuf::from(GITHUB_PROMOTE_PATH), fill(GITHUB_PROMOTE)));
            }
        }
        Forge::GitLab(_) => {
            files.push((PathBuf::from(GITLAB_JOB_PATH), fill(GITLAB_JOB)));
            if !detected.gitlab_ci_exists {
                files.push((
                    PathBuf::from(".gitlab-ci.yml"),
                    format!("include:\n  - local: {GITLAB_JOB_PATH}\n"),
                ));
            }
        }
        Forge::Unknown => {}
    }
    files
}

/// Whether a make target can be written into the generated GitHub workflow (as an `env:` value
/// its step passes to `make "$MAKE_TARGET"`): ASCII letters, digits and `._/+-`, not starting
/// with `-` (which make reads as an option). Anything else, `$` above all (GitHub expands
/// `${{ }}` anywhere in a workflow, before any quoting), is refused with what it holds.
pub(super) fn workflow_safe_target(target: &str) -> Result<(), String> {
    if target.is_empty() {
        return Err("nothing".to_string());
    }
    if let Some(c) = target
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._/+-".contains(*c)))
    {
        return Err(crate::files::describe_char(c));
    }
    if target.starts_with('-') {
        return Err("a leading `-` (an option to make)".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderType;
    use std::path::Path;

    fn config_of(files: &[(PathBuf, String)]) -> &str {
        &files[0].1
    }

    #[test]
    fn an_undetected_repository_renders_placeholders_capkg_reads_and_refuses() {
        let detected = Detected {
            providers: vec![Provider::default()],
            ..Detected::default()
        };
        let files = render(&detected);
        assert_eq!(files.len(), 1, "no forge, no CI files");
        let text = config_of(&files);
        let config =
            crate::config::Config::parse(Path::new("capkg.yaml"), text, PathBuf::from("."))
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let refused = config.refuse_placeholders().unwrap_err().to_string();
        assert!(refused.contains("`provider.name`"), "{refused}");
    }

    #[test]
    fn scalars_read_back_as_written_and_never_start_a_line() {
        for text in [
            "config/default",
            "a b",
            "null",
            "true",
            "1.10",
            "0755",
            "-x",
            "*x",
            "x: y",
            "x # y",
            "a\"b\\c",
            "line\n    newName: evil.example/x\n  - name: y",
            "cr\rlf",
            "nel\u{85}ls\u{2028}ps\u{2029}",
            "tab\tnul\0esc\u{1b}",
            "{version}",
            "[a, b]",
            "ünïcode",
        ] {
            let written = quoted(text);
            assert!(!written.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']));
            let file = crate::yaml::parse_str(
                std::sync::Arc::new(crate::yaml::Source::new(
                    "t.yaml",
                    format!("key: {written}\n"),
                )),
                crate::yaml::Limits::default(),
            );
            assert!(file.errors.is_empty(), "{written}: {:?}", file.errors);
            let root = file.roots().next().expect("a document");
            let value = root.get("key").expect("the key");
            assert_eq!(value.scalar_text(), Some(text), "{written}");
            assert!(
                crate::yaml::resolve::resolve(text, value.scalar_style().expect("a scalar"), None)
                    .is_string(),
                "{written}"
            );
        }
        assert_eq!(quoted("config/default"), "config/default");
        assert_eq!(quoted("null"), "\"null\"");
    }

    #[test]
    fn comments_stay_one_line() {
        assert_eq!(comment("config/manager.yaml"), "config/manager.yaml");
        assert_eq!(
            comment("a\nnewName: x\r\u{2028}\u{202e}"),
            "a\\nnewName: x\\r\\u{2028}\\u{202e}"
        );
    }

    fn detected_with(prepare: &[(&str, &str)]) -> Detected {
        Detected {
            forge: Forge::GitHub("acme/cluster-api-provider-x".into()),
            providers: vec![Provider {
                name: Some("x".into()),
                provider_type: Some(ProviderType::Infrastructure),
                components: Vec::new(),
            }],
            prepare: prepare
                .iter()
                .map(|(t, w)| (t.to_string(), w.to_string()))
                .collect(),
            ..Detected::default()
        }
    }

    fn workflow(detected: &Detected, pin: ActionPin<'_>) -> String {
        render_pinned(detected, pin)
            .into_iter()
            .find(|(path, _)| path == Path::new(GITHUB_WORKFLOW_PATH))
            .map(|(_, text)| text)
            .expect("a GitHub workflow")
    }

    /// The only expressions in the workflow are the template's own; a make target reaches its
    /// script through `env:`, quoted.
    #[test]
    fn make_targets_reach_the_script_through_env_and_unsafe_ones_never() {
        let text = workflow(
            &detected_with(&[
                ("cluster-templates", "generated/cluster-template*.yaml"),
                ("gen${{github.token}}x$(id)", "t/cluster-template*.yaml"),
                ("--eval=x", "u/cluster-template*.yaml"),
            ]),
            ActionPin::Tag,
        );
        assert!(
            text.contains(
                "      - name: \"make cluster-templates\"\n        run: make \"$MAKE_TARGET\" # writes generated/cluster-template*.yaml, as the Makefile's release does\n        env:\n          MAKE_TARGET: cluster-templates\n"
            ),
            "{text}"
        );
        assert!(
            !text.contains("github.token") && !text.contains("$(id)") && !text.contains("--eval")
        );
        let expressions: Vec<&str> = text
            .match_indices("${{")
            .map(|(at, _)| &text[at..at + 30])
            .collect();
        assert_eq!(expressions.len(), 3, "{expressions:?}");
        assert!(expressions[0].starts_with("${{ github.workflow }}"));
        assert!(expressions[1].starts_with("${{ github.ref }}"));
        assert!(expressions[2].starts_with("${{ secrets.GITHUB_TOKEN }}"));
    }

    /// Actions are pinned by commit with the version in a comment; capkg's own by its release
    /// commit when the build knew it, else by tag with how to pin it.
    #[test]
    fn actions_are_pinned_by_commit_and_the_checkout_keeps_no_credential() {
        let version = env!("CARGO_PKG_VERSION");
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let pinned = workflow(&detected_with(&[]), ActionPin::Commit(commit));
        let uses: Vec<&str> = pinned
            .lines()
            .filter_map(|l| {
                l.trim_start()
                    .trim_start_matches("- ")
                    .strip_prefix("uses: ")
            })
            .collect();
        assert_eq!(uses.len(), 2, "{pinned}");
        for reference in &uses {
            let (action, rest) = reference.split_once('@').expect("a ref");
            let (sha, version_comment) = rest.split_once(" # v").expect("a version comment");
            assert!(is_commit(sha), "{action}: {sha}");
            assert!(
                version_comment.split('.').all(|p| p.parse::<u32>().is_ok()),
                "{reference}"
            );
        }
        assert_eq!(uses[1], format!("capkg/capkg@{commit} # v{version}"));
        assert!(pinned.contains("persist-credentials: false"));
        assert!(pinned.contains("permissions: {}\n"));
        assert!(!pinned.contains("By tag"));

        let by_tag = workflow(&detected_with(&[]), ActionPin::Tag);
        assert!(by_tag.contains(&format!("        uses: capkg/capkg@v{version}\n")));
        assert!(by_tag.contains(&format!(
            "      #   uses: capkg/capkg@<commit> # v{version}\n"
        )));
    }

    #[test]
    fn a_release_commit_is_forty_lower_case_hex_digits() {
        assert!(is_commit("3d3c42e5aac5ba805825da76410c181273ba90b1"));
        for bad in [
            "",
            "3d3c42e5",
            "3D3C42E5AAC5BA805825DA76410C181273BA90B1",
            "3d3c42e5aac5ba805825da76410c181273ba90b1 ",
            "zd3c42e5aac5ba805825da76410c181273ba90b1",
        ] {
            assert!(!is_commit(bad), "{bad}");
        }
    }

    #[test]
    fn only_plain_make_targets_are_written_into_a_workflow() {
        for safe in [
            "cluster-templates",
            "generate-flavors",
            "templates/all",
            "v1.2+x",
        ] {
            assert_eq!(workflow_safe_target(safe), Ok(()), "{safe}");
        }
        for (unsafe_target, reason) in [
            ("gen${{github.token}}x$(id)", "`$`"),
            ("a b", "a space"),
            ("a\nb", "a newline"),
            ("-x", "a leading `-`"),
            ("a;b", "`;`"),
            ("", "nothing"),
        ] {
            let refused = workflow_safe_target(unsafe_target).unwrap_err();
            assert!(refused.contains(reason), "{unsafe_target:?}: {refused}");
        }
    }
}
