//! How the repository's release starts and ends, read from its GitHub workflows: a version tag a
//! maintainer pushes (capkg's own workflow listens for it), or a workflow that pushes the tag
//! itself (Cluster API, CAPZ, OpenStack). A tag pushed with a workflow's token starts no other
//! workflow, so there capkg's release is a reusable workflow the tagging workflow calls, after
//! its tag job and its image jobs. Also whether the repository publishes a draft first (then
//! capkg offers draft-then-promote) and whether its images are built beside the release (then
//! the release waits for them, bounded). Read as text and YAML: a workflow is never run.

use std::sync::Arc;

use super::{Caller, ReleaseProcess};
use crate::yaml::{self, Limits, Node, Source};

/// How long the proposed `capkg release` waits for images built beside it: a Prow or Actions
/// image build of a provider takes minutes, rarely half an hour.
pub(super) const IMAGE_WAIT: &str = "30m";

/// The id init gives capkg's job in the tagging workflow (another when that one is taken).
const JOB_ID: &str = "capkg-release";

/// One job of a workflow: its id, its lines (1-based, inclusive) and its `outputs:` keys.
#[derive(Debug)]
struct Job {
    id: String,
    first: usize,
    last: usize,
    outputs: Vec<String>,
}

/// The jobs of a workflow, and the indentation of their keys; `None` when it is not a mapping
/// with `jobs:`.
fn jobs(text: &str, file: &str) -> Option<(Vec<Job>, usize)> {
    let source = Arc::new(Source::new(file, text));
    let parsed = yaml::parse_str(source.clone(), Limits::default());
    let root = parsed.documents.into_iter().find_map(|d| d.root)?;
    let jobs = root.get("jobs")?.as_mapping()?;
    let mut indent = 2;
    let mut found = Vec::new();
    for (id, key, value) in jobs.iter() {
        let first = source.position(key.span().start);
        indent = first.column.saturating_sub(1);
        let last = source.position(value.span().end.saturating_sub(1)).line;
        let outputs = value
            .get("outputs")
            .and_then(Node::as_mapping)
            .map(|m| m.iter().map(|(k, _, _)| k.to_string()).collect())
            .unwrap_or_default();
        found.push(Job {
            id: id.to_string(),
            first: first.line,
            last: last.max(first.line),
            outputs,
        });
    }
    Some((found, indent))
}

/// A job id or output name GitHub accepts, and that can be written into a `${{ }}` expression
/// as it is: a letter or `_`, then letters, digits, `-` and `_`.
fn plain_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The 1-based line of the first non-comment line creating the release tag: `git tag NAME`
/// (not a listing, a deletion, or a tag in a folder such as `test/v1.2.3` or `api/v1.2.3`,
/// which Go modules are tagged with) or `git push --tags`.
fn tag_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line
                .trim_start()
                .trim_start_matches("- ")
                .trim_start_matches("run:");
            if line.trim_start().starts_with('#') {
                return false;
            }
            let creates = line.match_indices("git tag").any(|(at, _)| {
                let rest = line[at + "git tag".len()..].trim_start();
                let listing = [
                    "-l",
                    "--list",
                    "-d",
                    "--delete",
                    "-v",
                    "--verify",
                    "--contains",
                    "|",
                ]
                .iter()
                .any(|flag| rest.starts_with(flag));
                let name = rest
                    .split_whitespace()
                    .take_while(|word| {
                        !matches!(*word, "-m" | "-F" | "--message" | "--file" | "&&" | ";")
                    })
                    .find(|word| !word.starts_with('-'));
                !listing && name.is_some_and(|name| !name.contains('/'))
            });
            let pushes = line.contains("git push")
                && (line.contains("--tags") || line.contains("refs/tags/"));
            creates || pushes
        })
        .map(|at| at + 1)
}

/// The 1-based line of the first non-comment line making a release a draft (`draft: true`,
/// `gh release create --draft`).
pub(super) fn draft_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let trimmed = line.trim_start();
            !trimmed.starts_with('#')
                && (trimmed.starts_with("draft: true")
                    || trimmed.contains(" --draft")
                    || trimmed.starts_with("--draft"))
        })
        .map(|at| at + 1)
}

/// The job holding a line.
fn job_at(jobs: &[Job], line: usize) -> Option<&Job> {
    jobs.iter().find(|j| (j.first..=j.last).contains(&line))
}

/// Reads one workflow that is not triggered by version tags: when it pushes a tag, the caller
/// capkg's release is a job of; `images` are the lines (1-based) where it builds images.
pub(super) fn caller(text: &str, file: &str, images: &[usize]) -> Result<Option<Caller>, String> {
    let Some(tag_at) = tag_line(text) else {
        return Ok(None);
    };
    let Some((jobs, indent)) = jobs(text, file) else {
        return Ok(None);
    };
    let Some(tag_job) = job_at(&jobs, tag_at) else {
        return Ok(None);
    };
    if !plain_id(&tag_job.id) {
        return Err(format!(
            "{file}: the job pushing the tag (line {tag_at}) has the id `{}`, which capkg does not write into a workflow: add a job that `needs:` it and calls .github/workflows/capkg-release.yaml by hand",
            tag_job.id.escape_debug()
        ));
    }
    let output = ["tag", "version"].iter().find_map(|word| {
        tag_job
            .outputs
            .iter()
            .find(|o| o.to_ascii_lowercase().contains(word) && plain_id(o))
    });
    let mut image_jobs: Vec<String> = Vec::new();
    for line in images {
        if let Some(job) = job_at(&jobs, *line)
            && plain_id(&job.id)
            && !image_jobs.contains(&job.id)
        {
            image_jobs.push(job.id.clone());
        }
    }
    let mut job_id = JOB_ID.to_string();
    let mut n = 2;
    while jobs.iter().any(|j| j.id == job_id) {
        job_id = format!("{JOB_ID}-{n}");
        n += 1;
    }
    Ok(Some(Caller {
        file: file.to_string(),
        tag_job: tag_job.id.clone(),
        tag_line: tag_at,
        version: output.map(|o| format!("needs.{}.outputs.{o}", tag_job.id)),
        image_jobs,
        indent,
        job_id,
    }))
}

/// The plain variables a workflow sets in `env:` (the workflow's, its jobs', their steps'),
/// each with its `file:line`: what `make` in that workflow sees in its environment, where it
/// beats a Makefile's `?=` default (`REGISTRY ?= localhost:5000`). A value holding an
/// expression is left out, except `${{ github.repository_owner }}` and `${{ github.repository }}`,
/// which `owner_name` (`OWNER/NAME` of the remote, in lower case as registries want it) gives.
pub(super) fn workflow_env(
    text: &str,
    file: &str,
    owner_name: Option<&str>,
) -> Vec<(String, String, String)> {
    let source = Arc::new(Source::new(file, text));
    let parsed = yaml::parse_str(source.clone(), Limits::default());
    let Some(root) = parsed.documents.into_iter().find_map(|d| d.root) else {
        return Vec::new();
    };
    let mut blocks: Vec<&Node> = root.get("env").into_iter().collect();
    for (_, _, job) in root
        .get("jobs")
        .and_then(Node::as_mapping)
        .into_iter()
        .flat_map(|m| m.iter())
    {
        blocks.extend(job.get("env"));
        for step in job.get("steps").map(Node::items).unwrap_or_default() {
            blocks.extend(step.get("env"));
        }
    }
    let mut found: Vec<(String, String, String)> = Vec::new();
    for (name, key, value) in blocks
        .iter()
        .filter_map(|b| b.as_mapping())
        .flat_map(|m| m.iter())
    {
        let Some(mut value) = value.as_str().map(str::to_string) else {
            continue;
        };
        if let Some(full) = owner_name {
            let full = full.to_ascii_lowercase();
            let owner = full.split('/').next().unwrap_or_default().to_string();
            for (expression, by) in [
                ("github.repository_owner", &owner),
                ("github.repository", &full),
            ] {
                for written in [
                    format!("${{{{ {expression} }}}}"),
                    format!("${{{{{expression}}}}}"),
                ] {
                    value = value.replace(&written, by);
                }
            }
        }
        let plain_name = name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !plain_name
            || value.contains('$')
            || value.is_empty()
            || found.iter().any(|(n, _, _)| n == name)
        {
            continue;
        }
        let line = source.position(key.span().start).line;
        found.push((name.to_string(), value, format!("{file}:{line}")));
    }
    found
}

/// What the notes say about the release process found, and the evidence kept in `process`.
pub(super) fn describe(process: &ReleaseProcess, notes: &mut Vec<String>) {
    if let Some(caller) = &process.caller {
        let after = match &caller.image_jobs[..] {
            [] => format!("its job `{}`", caller.tag_job),
            jobs => format!(
                "its job `{}` and its image job{} {}",
                caller.tag_job,
                if jobs.len() == 1 { "" } else { "s" },
                jobs.iter()
                    .map(|j| format!("`{j}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let version = match &caller.version {
            Some(_) => String::new(),
            None => format!(
                " (its job `{}` has no output naming the tag: set `version:` there to the tag it pushes)",
                caller.tag_job
            ),
        };
        notes.push(format!(
            "{} pushes the release tag itself (line {}): a tag pushed with a workflow's token starts no other workflow, so capkg's release is not triggered by the tag; {} is a reusable workflow, to be called from {}: paste the job in {} under its `jobs:` (it runs after {after}){version}",
            caller.file,
            caller.tag_line,
            super::GITHUB_WORKFLOW_PATH,
            caller.file,
            super::CALL_SNIPPET_PATH
        ));
    }
    match (&process.draft, &process.images_beside) {
        (Some(draft), _) => notes.push(format!(
            "the release is published as a draft first ({draft}): capkg's release publishes a draft (`capkg release --draft`), and {} promotes it once its images exist (`capkg promote --version <tag>`, run by hand from the Actions tab)",
            super::GITHUB_PROMOTE_PATH
        )),
        (None, Some(beside)) => notes.push(format!(
            "images are built beside the release ({beside}): `capkg release` waits up to {IMAGE_WAIT} for them (`--wait-for-images {IMAGE_WAIT}`)"
        )),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLUSTER_API: &str = "on:\n  push:\n    branches: [main]\njobs:\n  push_release_tags:\n    runs-on: ubuntu-latest\n    outputs:\n      release_tag: ${{ steps.v.outputs.v }}\n    steps:\n      - run: git tag -l $V\n      - run: |\n          git tag -a ${V} -m ${V}\n          git push origin ${V}\n  release:\n    needs: push_release_tags\n    steps:\n      - uses: softprops/action-gh-release@x\n        with:\n          draft: true\n  images:\n    steps:\n      - run: make docker-push\n";

    #[test]
    fn the_job_pushing_the_tag_and_its_output_are_found() {
        let caller = caller(CLUSTER_API, "release.yaml", &[21]).unwrap().unwrap();
        assert_eq!(caller.tag_job, "push_release_tags");
        assert_eq!(caller.tag_line, 12, "a listing is not a tag");
        // Go modules' tags in folders are not the release's (CAREN's `api/`, `common/`).
        assert_eq!(
            tag_line(
                "run: |\n  git tag -a api/${{ x }} -m \"Release\"\n  git tag test/${V}\n  git push origin {api,common}/${{ x.tag_name }}\n"
            ),
            None
        );
        assert_eq!(tag_line("  git tag \"${V}\" && git push --tags\n"), Some(1));
        assert_eq!(
            caller.version.as_deref(),
            Some("needs.push_release_tags.outputs.release_tag")
        );
        assert_eq!(caller.image_jobs, ["images"]);
        assert_eq!(caller.indent, 2);
        assert_eq!(caller.job_id, "capkg-release");
        assert_eq!(draft_line(CLUSTER_API), Some(19));
    }

    #[test]
    fn plain_env_values_are_read_and_the_repository_filled_in() {
        let text = "env:\n  REGISTRY: ghcr.io/${{ github.repository_owner }}\n  TOKEN: ${{ secrets.X }}\njobs:\n  a:\n    env:\n      IMAGE_NAME: manager\n    steps:\n      - env:\n          lower: x\n";
        assert_eq!(
            workflow_env(text, "w.yaml", Some("Acme/cluster-api-provider-x")),
            [
                (
                    "REGISTRY".to_string(),
                    "ghcr.io/acme".to_string(),
                    "w.yaml:2".to_string()
                ),
                (
                    "IMAGE_NAME".to_string(),
                    "manager".to_string(),
                    "w.yaml:7".to_string()
                ),
            ]
        );
        assert!(
            workflow_env(text, "w.yaml", None)
                .iter()
                .all(|(name, _, _)| name == "IMAGE_NAME")
        );
    }

    #[test]
    fn a_workflow_without_a_tag_is_no_caller_and_odd_ids_are_refused() {
        assert!(
            caller(
                "jobs:\n  a:\n    steps:\n      - run: git tag --list\n",
                "x",
                &[]
            )
            .unwrap()
            .is_none()
        );
        let refused = caller(
            "jobs:\n  \"a${{x}}\":\n    steps:\n      - run: git tag v1\n",
            "x.yaml",
            &[],
        )
        .unwrap_err();
        assert!(refused.contains("a${{x}}"), "{refused}");
        let taken = caller(
            "jobs:\n  capkg-release:\n    steps:\n      - run: git tag v1\n",
            "x",
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(taken.job_id, "capkg-release-2");
        assert_eq!(taken.version, None);
    }
}
