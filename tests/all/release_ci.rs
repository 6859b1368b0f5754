//! The CI files `capkg init` writes: the book's "Use in GitHub Actions" and "Use in GitLab CI"
//! blocks (`docs/book/src/ci.md`) are exactly what `init` renders, README's short ones are lines
//! of it, and the `capkg release` line of each, run with the
//! variables that CI system sets on a tag, publishes and verifies against the fake servers.

use std::collections::BTreeMap;
use std::path::Path;

use crate::publish_fakes::METADATA;
use crate::publish_fakes::github::{self, FakeGitHub};
use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
use crate::release_common::{Actions, Provider, clean_capkg, stderr, stdout};
use capkg::init::{self, Detected, GITLAB_JOB_PATH};
use capkg::provider::ProviderType;

const WORKFLOW_PATH: &str = ".github/workflows/capkg-release.yaml";

/// What `capkg init` writes for the README's example provider, `infrastructure-foo`, from a
/// build that does not know its release commit (capkg's action by tag, as the book shows it).
fn rendered(path: &str) -> String {
    rendered_pinned(path, init::ActionPin::Tag)
}

fn rendered_pinned(path: &str, pin: init::ActionPin<'_>) -> String {
    // init writes only the CI files of the repository's forge.
    let forge = if path == WORKFLOW_PATH {
        init::Forge::GitHub("acme/cluster-api-provider-foo".into())
    } else {
        init::Forge::GitLab(None)
    };
    init::render_pinned(
        &Detected {
            providers: vec![init::Provider {
                name: Some("foo".into()),
                provider_type: Some(ProviderType::Infrastructure),
                components: Vec::new(),
            }],
            forge,
            ..Detected::default()
        },
        pin,
    )
    .into_iter()
    .find(|(p, _)| p == Path::new(path))
    .map(|(_, text)| text)
    .unwrap_or_else(|| panic!("init writes no {path}"))
}

/// The ```yaml blocks under `## {heading}` in `file` (relative to the checkout).
fn yaml_blocks(file: &str, heading: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let start = text
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("{file} has no `## {heading}`"));
    let section = &text[start + 1..];
    let mut section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut blocks = Vec::new();
    while let Some(open) = section.find("```yaml\n") {
        let open = open + "```yaml\n".len();
        let close = section[open..].find("```\n").expect("the block ends") + open;
        blocks.push(section[open..close].to_string());
        section = &section[close..];
    }
    blocks
}

/// The first ```yaml block under `## {heading}` in the book's CI chapter.
fn book_block(heading: &str) -> String {
    yaml_blocks("docs/book/src/ci.md", heading)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no yaml block under `## {heading}`"))
}

#[test]
fn the_ci_files_pin_the_capkg_that_wrote_them() {
    let version = env!("CARGO_PKG_VERSION");
    let fallback = format!(
        "cargo install --locked --git https://github.com/capkg/capkg --tag v{version} capkg"
    );
    let workflow = rendered(WORKFLOW_PATH);
    assert!(
        workflow.contains(&format!("uses: capkg/capkg@v{version}\n")),
        "{workflow}"
    );
    // A build that knows the commit its release tag names pins the action to it, the version
    // in a comment; the rest of the file is the same.
    let commit = "3d3c42e5aac5ba805825da76410c181273ba90b1";
    let pinned = rendered_pinned(WORKFLOW_PATH, init::ActionPin::Commit(commit));
    assert!(
        pinned.contains(&format!(
            "        uses: capkg/capkg@{commit} # v{version}\n"
        )),
        "{pinned}"
    );
    let unpinned_lines = |text: &str| {
        text.lines()
            .filter(|l| {
                !l.contains("capkg/capkg@")
                    && !l.contains("By tag")
                    && !l.contains("git ls-remote")
                    && !l.contains("could not write it here")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(unpinned_lines(&pinned), unpinned_lines(&workflow));
    assert!(
        workflow.contains(&format!("#   - run: {fallback}\n")),
        "{workflow}"
    );
    let job = rendered(GITLAB_JOB_PATH);
    assert!(
        job.contains(&format!("name: ghcr.io/capkg/capkg:{version}\n")),
        "{job}"
    );
    assert!(job.contains(&format!("#   - {fallback}\n")), "{job}");
    for text in [&workflow, &job] {
        assert!(!text.contains("{{{"), "a placeholder left: {text}");
        let uncommented = text.lines().filter(|l| !l.trim_start().starts_with('#'));
        assert!(
            uncommented.clone().all(|l| !l.contains("cargo install")),
            "{text}"
        );
    }
}

/// Every output `capkg release` writes for a one-provider GitHub release, but those named after
/// the provider, is one action.yml declares (a composite action's outputs are listed ahead).
fn assert_action_declares(outputs: &[(String, String)], label: &str) {
    let action =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let section = &action[action.find("\noutputs:\n").expect("action.yml has outputs")..];
    let section = &section[..section.find("\nruns:").expect("action.yml has runs")];
    for (name, _) in outputs {
        if name.contains(label) {
            continue;
        }
        assert!(
            section.contains(&format!("\n  {name}:\n"))
                && section.contains(&format!("steps.run.outputs.{name} }}}}")),
            "action.yml does not declare the output `{name}`"
        );
    }
}

/// README's "Install" leads with the installer, the action and the image of this version;
/// compiling with `cargo install` comes last.
#[test]
fn readme_install_leads_with_the_prebuilt_binaries_of_this_version() {
    let version = env!("CARGO_PKG_VERSION");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme
        .find("\n## Install\n")
        .expect("README has `## Install`");
    let section = &readme[start..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |i| i + 1)];
    let at = |needle: &str| {
        section
            .find(needle)
            .unwrap_or_else(|| panic!("`## Install` does not name {needle}"))
    };
    // scripts/install.sh, which checks the archive before anything runs: downloaded, then run.
    let installer = at(&format!(
        "-o install.sh https://raw.githubusercontent.com/capkg/capkg/v{version}/scripts/install.sh\n  CAPKG_VERSION={version} sh install.sh"
    ));
    let action = at(&format!("uses: capkg/capkg@v{version}"));
    let image = at(&format!("ghcr.io/capkg/capkg:{version}"));
    let cargo_install = at("cargo install --locked");
    assert!(installer < action && action < image && image < cargo_install);
}

#[test]
fn the_book_shows_what_init_writes() {
    assert_eq!(book_block("Use in GitHub Actions"), rendered(WORKFLOW_PATH));
    assert_eq!(book_block("Use in GitLab CI"), rendered(GITLAB_JOB_PATH));
}

/// README's "Use in CI" shows the working lines of the workflow and of the GitLab job: each of
/// its blocks is lines of what `init` writes, in their order (so its pins are this version's).
#[test]
fn readme_ci_snippets_are_lines_of_what_init_writes() {
    let blocks = yaml_blocks("README.md", "Use in CI");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    for (block, path) in blocks.iter().zip([WORKFLOW_PATH, GITLAB_JOB_PATH]) {
        let written = rendered(path);
        let mut lines = written.lines();
        for line in block.lines() {
            assert!(
                lines.any(|l| l == line),
                "README's `{line}` is not a line of {path} as `init` writes it (or not in its order):\n{written}"
            );
        }
    }
}

/// The arguments after `capkg` on the template line running `capkg release` (or the action's
/// `args: release …`), split as a shell would (double quotes, `$NAME` and `${NAME}` expanded from
/// `vars`). Comment lines (the compile-it-yourself fallbacks) are not run.
fn release_arguments(text: &str, vars: &BTreeMap<&str, String>) -> Vec<String> {
    let line = text
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.contains("capkg release") || l.starts_with("args: release"))
        .expect("a `capkg release` line");
    let command = match line.strip_prefix("args: ") {
        Some(args) => format!("capkg {args}"),
        None => line[line.find("capkg release").unwrap()..].to_string(),
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            '$' => {
                let braced = chars.peek() == Some(&'{');
                if braced {
                    chars.next();
                }
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if braced {
                    assert_eq!(chars.next(), Some('}'));
                }
                word.push_str(vars.get(name.as_str()).map_or("", String::as_str));
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    assert_eq!(words.first().map(String::as_str), Some("capkg"));
    words.into_iter().skip(1).collect()
}

#[test]
fn the_github_actions_step_releases_on_a_tag_push() {
    let fake = FakeGitHub::start();
    let provider = Provider::new("  github:\n    repo: o/r\n", METADATA);
    provider.tagged(&["v1.2.0", "v1.2.3"]);
    let actions = Actions::new();
    // What the runner sets for this step (`env:` maps the workflow token).
    let vars = BTreeMap::from([
        ("GITHUB_ACTIONS", "true".to_string()),
        ("CI", "true".to_string()),
        ("GITHUB_REF_TYPE", "tag".to_string()),
        ("GITHUB_REF_NAME", "v1.2.3".to_string()),
        ("GITHUB_REF", "refs/tags/v1.2.3".to_string()),
        ("GITHUB_REPOSITORY", "o/r".to_string()),
        ("GITHUB_WORKSPACE", provider.root().display().to_string()),
        ("GITHUB_API_URL", fake.api.clone()),
        ("GITHUB_TOKEN", github::TOKEN.to_string()),
        (
            "GITHUB_STEP_SUMMARY",
            actions.summary().display().to_string(),
        ),
        ("GITHUB_OUTPUT", actions.output().display().to_string()),
    ]);
    let args = release_arguments(&rendered(WORKFLOW_PATH), &vars);
    assert_eq!(args, ["release", "--format", "github"]);
    let output = clean_capkg()
        .args(&args)
        .envs(&vars)
        .current_dir(provider.root())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(!text.contains("::error"), "{text}");
    assert!(text.contains("ok   git tags: 2 semver tag(s)"), "{text}");
    let url = "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml";
    assert_eq!(actions.output_value("clusterctl-url").as_deref(), Some(url));
    assert_eq!(actions.output_value("version").as_deref(), Some("v1.2.3"));
    assert_action_declares(&actions.outputs(), "infrastructure-");
    let summary = std::fs::read_to_string(actions.summary()).unwrap();
    assert!(
        summary.contains("## ✅ capkg release v1.2.3: published"),
        "{summary}"
    );
    assert!(summary.contains("published, verified"), "{summary}");
    assert!(!fake.release("v1.2.3")[0].draft);
}

#[test]
fn the_gitlab_job_releases_in_a_tag_pipeline() {
    let fake = FakeGitLab::start();
    let provider = Provider::new("  gitlab:\n    package: infrastructure-azure\n", METADATA);
    provider.tagged(&["v1.2.3"]);
    let vars = BTreeMap::from([
        ("GITLAB_CI", "true".to_string()),
        ("CI", "true".to_string()),
        ("CI_COMMIT_TAG", "v1.2.3".to_string()),
        ("CI_COMMIT_REF_NAME", "v1.2.3".to_string()),
        ("CI_API_V4_URL", fake.api.clone()),
        ("CI_PROJECT_ID", PROJECT_ID.to_string()),
        ("CI_PROJECT_DIR", provider.root().display().to_string()),
        ("CI_JOB_TOKEN", gitlab::JOB_TOKEN.to_string()),
    ]);
    let args = release_arguments(&rendered(GITLAB_JOB_PATH), &vars);
    assert_eq!(args, ["release", "--version", "v1.2.3"]);
    let output = clean_capkg()
        .args(&args)
        .envs(&vars)
        .current_dir(provider.root())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(
        !text.contains("::"),
        "no GitHub workflow commands in GitLab: {text}"
    );
    assert!(
        text.contains("## ✅ capkg release v1.2.3: published"),
        "{text}"
    );
    assert!(text.contains("published, verified"), "{text}");
    // The release files and the provenance statement over them.
    assert_eq!(fake.count("PUT"), 5);
}
