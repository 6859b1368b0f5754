//! The orchestration with a hand-built release and in-memory targets: the order of the steps,
//! what blocks a release, what a failure midway reports, and idempotent re-runs. The image check
//! runs for real, against a registry fake on loopback ([`registry`]): no test reaches another host.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::assembly::{Assembled, Assembler};
use super::outcome::{Stage, Step};
use super::plan::{PhaseKind, ReleasePlan};
use super::*;
use crate::ci::{CiContext, CiTag};
use crate::error::Classified;
use crate::files;
use crate::provider::{FileRole, ProviderType, ReleaseProvider};
use crate::rules;
use crate::settings::{CommandLine, Need, Settings, TargetSettings};
use crate::targets::memory::MemoryStore;
use crate::targets::{self, PublishFile, Reach, Services, TargetKind, TargetRequest};
use crate::verify::ReadRelease;

const COMPONENTS: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  name: capz-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capz-controller-manager
  namespace: capz-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/capz:v1.2.3
";

/// A registry on loopback that has every manifest it is asked for, started once for the test
/// process: its address, and the first line of each request it received.
struct FakeRegistry {
    address: String,
    requests: Mutex<Vec<String>>,
}

fn registry() -> &'static FakeRegistry {
    static REGISTRY: OnceLock<&'static FakeRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let fake: &'static FakeRegistry = Box::leak(Box::new(FakeRegistry {
            address: listener.local_addr().unwrap().to_string(),
            requests: Mutex::new(Vec::new()),
        }));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    if head.is_empty() {
                        head = line.trim_end().to_string();
                    }
                    line.clear();
                }
                fake.requests.lock().unwrap().push(head);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/vnd.oci.image.index.v1+json\r\ndocker-content-digest: sha256:0000000000000000000000000000000000000000000000000000000000000000\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            }
        });
        fake
    })
}

const METADATA: &str = "\
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 2
  contract: v1beta1
";

/// Builds the same release for any version: the components above and a `metadata.yaml`,
/// linted for the version as assembly lints.
struct Fixed {
    metadata: &'static str,
}

impl Assembler for Fixed {
    fn assemble(&self, settings: &Settings) -> Result<Assembled, Error> {
        let release = files::Release {
            dir: settings.root.clone(),
            files: vec![
                files::load_text(
                    "infrastructure-components.yaml",
                    COMPONENTS.to_string(),
                    FileRole::Components {
                        provider_type: ProviderType::Infrastructure,
                        suffix: None,
                    },
                ),
                files::load_text(
                    "metadata.yaml",
                    self.metadata.to_string(),
                    FileRole::Metadata,
                ),
            ],
            near_misses: Vec::new(),
        };
        let options = rules::Options {
            provider_type: Some(ProviderType::Infrastructure),
            provider_name: Some("azure".into()),
            version: settings.version().cloned(),
        };
        Ok(Assembled {
            files: vec![
                PublishFile::from_bytes("infrastructure-components.yaml", COMPONENTS),
                PublishFile::from_bytes("metadata.yaml", self.metadata),
            ],
            diagnostics: rules::run(std::slice::from_ref(&release), &options),
            providers: vec![ReleaseProvider {
                provider_type: ProviderType::Infrastructure,
                name: "azure".into(),
                components: vec!["infrastructure-components.yaml".into()],
            }],
            parts: vec![ReadRelease { release, options }],
            findings_note: None,
        })
    }
}

/// The settings of a capkg.yaml in `root` with a local and a GitHub target, on CI tag `tag`.
fn settings_for(root: &Path, tag: Option<&str>) -> Result<Settings, crate::settings::Error> {
    let config = root.join("capkg.yaml");
    std::fs::write(
        &config,
        "provider: {name: azure, type: infrastructure}\ncomponents: {file: components.yaml}\ntargets:\n  local: {repository: repo}\n  github: {repo: o/r}\n",
    )
    .unwrap();
    let ci = CiContext {
        tag: tag.map(|tag| CiTag {
            tag: tag.to_string(),
            variable: "GITHUB_REF_NAME",
        }),
        ..CiContext::default()
    };
    let line = CommandLine {
        config: Some(config),
        ..CommandLine::default()
    };
    crate::settings::resolve(&line, Need::Release, &ci, &no_env)
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// The plan, with its image check asking [`registry`] for the manager image (the components
/// keep a public registry: lint refuses a loopback one in a release).
fn plan_for(root: &Path, metadata: &'static str, tag: &str) -> ReleasePlan {
    let settings = settings_for(root, Some(tag)).unwrap();
    let mut plan = plan(&settings, &Fixed { metadata }).unwrap();
    for image in &mut plan.images {
        image.image = image.image.replace("registry.k8s.io", &registry().address);
    }
    plan
}

/// An in-memory target, read as the run reads.
fn memory(store: std::sync::Arc<MemoryStore>) -> TargetSettings {
    TargetSettings {
        request: TargetRequest::Memory(store),
        reading: crate::verify::Settings::resolve(None, &no_env).unwrap(),
    }
}

/// A real run of `plan`.
async fn publish(plan: &ReleasePlan) -> Outcome {
    execute(
        plan,
        Run {
            reach: Reach::Remote,
            env: &no_env,
            services: Services::default(),
            checked: &|_| {},
            wait_for_images: None,
        },
    )
    .await
}

/// A dry run of `plan`.
async fn dry_run(plan: &ReleasePlan) -> Outcome {
    execute(
        plan,
        Run {
            reach: Reach::Offline,
            env: &no_env,
            services: Services::default(),
            checked: &|_| {},
            wait_for_images: None,
        },
    )
    .await
}

#[test]
fn a_clean_release_is_published_then_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut plan = plan_for(dir.path(), METADATA, "v1.2.3");
    assert!(!plan.is_blocked(), "{:?}", plan.blockers);
    assert_eq!(plan.version.source, "GITHUB_REF_NAME");
    assert!(plan.version_series.as_ref().unwrap().ok);
    assert!(!plan.tags.checked);
    assert!(
        plan.tags
            .note
            .as_deref()
            .unwrap()
            .contains("not a git checkout")
    );
    let store = MemoryStore::new();
    plan.destinations = vec![memory(store.clone())];

    let first = block_on(publish(&plan));
    assert_eq!(first.status, Status::Published, "{:?}", first.error);
    assert_eq!(first.exit_code(), 0);
    // The image check ran, against the loopback registry.
    let image = format!("{}/capz:v1.2.3", registry().address);
    assert_eq!(first.checks.images.as_ref().unwrap().found, [image]);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    assert!(
        registry()
            .requests
            .lock()
            .unwrap()
            .contains(&"HEAD /v2/capz/manifests/v1.2.3 HTTP/1.1".to_string())
    );
    assert!(
        store
            .release("infrastructure-azure", "v1.2.3")
            .unwrap()
            .published
    );
    // The components, metadata.yaml and the provenance statement over both.
    let uploads = store.uploads();
    assert_eq!(uploads, 3);

    let second = block_on(publish(&plan));
    assert_eq!(second.status, Status::Unchanged);
    assert_eq!(store.uploads(), uploads);
    assert_eq!(second.targets[0].state, TargetState::Unchanged);
}

#[test]
fn the_plan_attests_every_file_before_publishing() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_for(dir.path(), METADATA, "v1.2.3");
    let statement = plan
        .files
        .iter()
        .find(|f| f.name == crate::provenance::STATEMENT_FILE)
        .expect("the statement is a release file");
    let parsed = crate::provenance::Parsed::parse(&statement.contents).unwrap();
    let mut named: Vec<(String, String)> = parsed
        .subjects
        .iter()
        .map(|s| (s.name.clone(), s.sha256.clone()))
        .collect();
    named.sort();
    let mut files: Vec<(String, String)> = plan
        .files
        .iter()
        .filter(|f| f.name != crate::provenance::STATEMENT_FILE)
        .map(|f| (f.name.clone(), f.sha256.clone()))
        .collect();
    files.sort();
    assert_eq!(named, files);
    assert_eq!(parsed.version, "v1.2.3");
    let phases = plan.phases();
    let attest = phases
        .iter()
        .position(|p| p.phase == PhaseKind::Attest)
        .expect("an attest phase");
    assert!(!phases[attest].network);
    assert!(
        phases[attest].what.contains("unsigned"),
        "{:?}",
        phases[attest]
    );
    // After the checks, before anything is published.
    assert!(phases[..attest].iter().any(|p| p.phase == PhaseKind::Check));
    assert!(
        phases[attest..]
            .iter()
            .all(|p| p.phase != PhaseKind::Assemble)
    );
    assert!(
        phases[attest..]
            .iter()
            .any(|p| p.phase == PhaseKind::Publish)
    );
}

#[test]
fn lint_errors_block_before_any_target_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let broken: &'static str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Wrong\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta1\n";
    let mut plan = plan_for(dir.path(), broken, "v1.2.3");
    assert!(plan.is_blocked());
    assert!(matches!(plan.blockers[0], Error::LintErrors { .. }));
    let store = MemoryStore::new();
    plan.destinations = vec![memory(store.clone())];
    let outcome = block_on(publish(&plan));
    assert_eq!(outcome.status, Status::Refused);
    assert_eq!(outcome.exit_code(), 1);
    let error = outcome.error.unwrap();
    assert_eq!(error.stage, Stage::Checks);
    assert!(
        error.message.contains("nothing was published"),
        "{}",
        error.message
    );
    assert!(outcome.targets.is_empty());
    assert_eq!(store.uploads(), 0);
}

#[test]
fn a_version_without_a_series_is_refused_with_the_other_problems() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_for(dir.path(), METADATA, "v1.3.0");
    let messages: Vec<String> = plan.blockers.iter().map(Error::to_string).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("metadata.yaml does not cover the version v1.3.0")),
        "{messages:?}"
    );
    // Lint's metadata/version-series says the same, with a place in the file.
    assert!(
        plan.diagnostics
            .iter()
            .any(|d| d.rule == "metadata/version-series")
    );
}

#[test]
fn a_failure_midway_says_what_is_done_and_a_rerun_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let mut plan = plan_for(dir.path(), METADATA, "v1.2.3");
    let done = MemoryStore::new();
    let failing = MemoryStore::new();
    failing.fail_upload_of("metadata.yaml");
    plan.destinations = vec![memory(done.clone()), memory(failing.clone())];
    let outcome = block_on(publish(&plan));
    assert_eq!(outcome.status, Status::Incomplete);
    assert_eq!(outcome.targets[0].state, TargetState::Published);
    assert_eq!(outcome.targets[1].state, TargetState::Failed);
    assert_eq!(outcome.targets[1].failed_step, Some(Step::Upload));
    let error = outcome.error.as_ref().unwrap();
    assert_eq!(error.stage, Stage::Publish);
    assert!(
        error.message.starts_with(
            "memory: uploading failed: the in-memory target was told to fail at `metadata.yaml`"
        ),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("Done: memory (published). Stopped: memory (stopped while uploading)"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("Stopped: memory (stopped while uploading)"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("Run the same command again to finish"),
        "{}",
        error.message
    );
    assert!(
        !failing
            .release("infrastructure-azure", "v1.2.3")
            .is_some_and(|r| r.published)
    );

    let rerun = block_on(publish(&plan));
    assert_eq!(rerun.status, Status::Published, "{:?}", rerun.error);
    assert_eq!(rerun.targets[0].state, TargetState::Unchanged);
    assert_eq!(rerun.targets[1].state, TargetState::Published);
    assert!(
        failing
            .release("infrastructure-azure", "v1.2.3")
            .unwrap()
            .published
    );
}

#[test]
fn a_conflict_found_while_planning_stops_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let mut plan = plan_for(dir.path(), METADATA, "v1.2.3");
    let first = MemoryStore::new();
    let conflicting = MemoryStore::new();
    conflicting.insert(
        "infrastructure-azure",
        "v1.2.3",
        targets::memory::MemoryRelease {
            files: [("metadata.yaml".to_string(), bytes::Bytes::from("other"))].into(),
            published: true,
        },
    );
    plan.destinations = vec![memory(first.clone()), memory(conflicting)];
    let outcome = block_on(publish(&plan));
    assert_eq!(outcome.status, Status::Refused);
    assert_eq!(outcome.error.as_ref().unwrap().stage, Stage::Plan);
    assert!(
        outcome
            .error
            .as_ref()
            .unwrap()
            .message
            .ends_with("nothing was published")
    );
    assert_eq!(first.uploads(), 0);
}

#[test]
fn a_dry_run_plans_github_without_network_and_local_for_real() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_for(dir.path(), METADATA, "v1.2.3");
    let kinds: Vec<TargetKind> = plan.destinations.iter().map(TargetSettings::kind).collect();
    assert_eq!(kinds, [TargetKind::Local, TargetKind::Github]);
    let outcome = block_on(dry_run(&plan));
    assert_eq!(outcome.status, Status::DryRun, "{:?}", outcome.error);
    let local = outcome.targets[0].plan.as_ref().unwrap();
    assert!(local.remote_checked);
    assert!(
        local
            .clusterctl_url
            .ends_with("/repo/infrastructure-azure/v1.2.3/infrastructure-components.yaml"),
        "{}",
        local.clusterctl_url
    );
    let github = outcome.targets[1].plan.as_ref().unwrap();
    assert!(!github.remote_checked);
    assert_eq!(
        github.clusterctl_url,
        "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml"
    );
    assert!(
        github
            .note
            .as_deref()
            .unwrap()
            .contains("no network requests")
    );
    assert!(
        !dir.path().join("repo").exists(),
        "a dry run writes nothing"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn a_tag_of_a_series_missing_from_metadata_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    git(root, &["config", "user.name", "capkg test"]);
    git(root, &["config", "user.email", "test@example.com"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "first"]);
    for tag in ["v1.1.0", "v1.2.0", "not-semver"] {
        git(root, &["tag", tag]);
    }
    let metadata: &'static str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n- major: 1\n  minor: 2\n  contract: v1beta1\n";
    let plan = plan_for(root, metadata, "v1.2.3");
    assert!(plan.tags.checked);
    assert_eq!(plan.tags.tags, 2);
    assert_eq!(plan.tags.uncovered, ["v1.1.0"]);
    let error = plan
        .blockers
        .iter()
        .find(|e| matches!(e, Error::TagsNotCovered { .. }))
        .unwrap();
    assert!(
        error.to_string().contains("git tag(s) v1.1.0 (series 1.1)"),
        "{error}"
    );
    assert!(error.hint().unwrap().contains("add release series 1.1"));
}

#[test]
fn no_version_anywhere_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = Error::from(settings_for(dir.path(), None).unwrap_err());
    assert!(
        matches!(err, Error::Settings(crate::settings::Error::NoVersion)),
        "{err}"
    );
    let outcome = Outcome::failed(&err, None);
    assert_eq!(outcome.status, Status::Failed);
    assert_eq!(outcome.exit_code(), 2);
    assert_eq!(outcome.error.unwrap().stage, Stage::Version);
}

#[test]
fn summaries_and_outputs_carry_urls_and_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_for(dir.path(), METADATA, "v1.2.3");
    let outcome = block_on(dry_run(&plan));
    let md = crate::report::release::markdown(&outcome);
    assert!(
        md.starts_with("## 📝 capkg release v1.2.3: dry run"),
        "{md}"
    );
    assert!(md.contains("| `metadata.yaml` |"), "{md}");
    assert!(md.contains(&PublishFile::from_bytes("metadata.yaml", METADATA).sha256));
    assert!(md.contains("`https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml`"));
    assert!(md.contains("```yaml\nproviders:\n"), "{md}");
    let outputs = crate::report::release::outputs(&outcome);
    let get = |name: &str| {
        outputs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("version"), Some("v1.2.3"));
    assert_eq!(get("status"), Some("dry-run"));
    assert_eq!(
        get("github-clusterctl-url"),
        Some("https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml")
    );
    assert!(get("clusterctl-url").unwrap().starts_with("file://"));
    assert!(get("clusterctl-config").unwrap().contains('\n'));
}

#[test]
fn a_draft_defers_the_images_and_verification_to_promote() {
    let dir = tempfile::tempdir().unwrap();
    let mut plan = plan_for(dir.path(), METADATA, "v1.2.3").into_draft();
    assert_eq!(plan.mode, plan::Mode::Draft);
    let phases = plan.phases();
    let kinds: Vec<plan::PhaseKind> = phases.iter().map(|p| p.phase).collect();
    assert_eq!(kinds.last(), Some(&plan::PhaseKind::Draft), "{phases:?}");
    assert!(!kinds.contains(&plan::PhaseKind::Verify), "{phases:?}");
    assert!(
        !phases.iter().any(|p| p.what.contains("image(s) exist")),
        "{phases:?}"
    );
    assert!(
        phases.iter().any(|p| p.what.contains("`draft-v1.2.3`")),
        "{phases:?}"
    );
    // Every target writes its draft.
    assert!(plan.destinations.iter().all(|d| match &d.request {
        TargetRequest::Local(local) => local.draft,
        TargetRequest::GitHub(github) => github.draft,
        _ => false,
    }));

    let store = MemoryStore::new();
    plan.destinations = vec![memory(store.clone())];
    let drafted = block_on(publish(&plan));
    assert_eq!(drafted.status, Status::Drafted, "{:?}", drafted.error);
    assert_eq!(drafted.mode, plan::Mode::Draft);
    assert_eq!(drafted.targets[0].state, TargetState::Drafted);
    assert!(drafted.targets[0].verify.is_none());
    let images = drafted.checks.images.as_ref().unwrap();
    assert!(images.found.is_empty());
    assert!(
        images
            .skipped
            .as_deref()
            .is_some_and(|why| why.contains("`capkg promote`")),
        "{images:?}"
    );
}

#[test]
fn a_promotion_plans_the_drafts_files_looks_the_images_up_and_compares_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_for(dir.path(), Some("v1.2.3")).unwrap();
    let files = [
        ("infrastructure-components.yaml", COMPONENTS),
        ("metadata.yaml", METADATA),
    ];
    let list = crate::checksums::write(files.iter().map(|(n, t)| (*n, t.as_bytes()))).unwrap();
    let mut drafted: Vec<PublishFile> = files
        .iter()
        .map(|(name, text)| PublishFile::from_bytes(name, *text))
        .collect();
    drafted.push(PublishFile::from_bytes("checksums.txt", list));
    let mut plan = promote::promotion_plan(&settings, drafted).unwrap();
    assert_eq!(plan.mode, plan::Mode::Promote);
    assert!(matches!(plan.previous, crate::settings::Previous::Skip(_)));
    assert!(!plan.is_blocked(), "{:?}", plan.blockers);
    assert_eq!(plan.files.len(), 3);
    let images: Vec<&str> = plan.images.iter().map(|i| i.image.as_str()).collect();
    assert_eq!(images, ["registry.k8s.io/capz:v1.2.3"]);
    for image in &mut plan.images {
        image.image = image.image.replace("registry.k8s.io", &registry().address);
    }
    let store = MemoryStore::new();
    plan.destinations = vec![memory(store.clone())];

    let promoted = block_on(publish(&plan));
    assert_eq!(promoted.status, Status::Promoted, "{:?}", promoted.error);
    let image = format!("{}/capz:v1.2.3", registry().address);
    assert_eq!(promoted.checks.images.as_ref().unwrap().found, [image]);
    assert!(
        store
            .release("infrastructure-azure", "v1.2.3")
            .unwrap()
            .published
    );
    let again = block_on(publish(&plan));
    assert_eq!(again.status, Status::AlreadyPromoted);
}
