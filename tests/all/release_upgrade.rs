//! `capkg release` compares the release with the previous one before publishing (issue 31), on a
//! local repository and on the fake GitHub: v1 is published (nothing to compare); a v2 that stops
//! serving a CRD version is refused with nothing published; the same v2 with a waiver in
//! capkg.yaml is published, the finding shown as waived; a compatible v2 is published with its
//! diff in the step summary and the JSON report. Also `--previous none` and `--previous VERSION`,
//! and the same four steps on OCI tags in a real registry and on GitLab packages.

use std::path::Path;

use serde_json::Value;

use crate::publish_fakes::github::{self, FakeGitHub};
use crate::release_common::{Actions, Provider, json, release, stderr, stdout};

const METADATA: &str = "\
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 2
  contract: v1beta1
";

const SCHEMA: &str = "    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: string
";

/// The provider's components: a CRD served in v1alpha1 and v1beta1 (storage), no webhook.
fn components() -> String {
    format!(
        "apiVersion: v1
kind: Namespace
metadata:
  name: capz-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: azurewidgets.infrastructure.cluster.x-k8s.io
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
    cluster.x-k8s.io/v1beta1: v1alpha1_v1beta1
spec:
  group: infrastructure.cluster.x-k8s.io
  names:
    kind: AzureWidget
    listKind: AzureWidgetList
    plural: azurewidgets
    singular: azurewidget
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
{SCHEMA}  - name: v1beta1
    served: true
    storage: true
{SCHEMA}---
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
"
    )
}

/// v1alpha1 no longer served.
fn unserved() -> String {
    components().replacen(
        "  - name: v1alpha1\n    served: true",
        "  - name: v1alpha1\n    served: false",
        1,
    )
}

/// A new optional field in both versions, and a new image.
fn compatible() -> String {
    components()
        .replace(
            "              size:\n",
            "              zone:\n                type: string\n              size:\n",
        )
        .replace("capz:v1.2.3", "capz:v1.2.4")
}

const WAIVER: &str = "lint:\n  allow:\n  - rule: upgrade/served-version-removed\n    reason: v1alpha1 deprecated in v1.1, removal announced\n";

fn provider(targets: &str) -> Provider {
    let provider = Provider::new(targets, METADATA);
    std::fs::write(provider.root().join("components.yaml"), components()).unwrap();
    provider
}

/// Runs `capkg release --format json` for `tag` with the components set to `components`.
struct Run<'a> {
    provider: &'a Provider,
    env: Vec<(&'a str, String)>,
}

impl Run<'_> {
    fn release(
        &self,
        tag: &str,
        components: &str,
        extra: &[&str],
    ) -> (std::process::Output, Value, String) {
        std::fs::write(self.provider.root().join("components.yaml"), components).unwrap();
        let actions = Actions::new();
        let mut command = release(self.provider);
        command.args(["--format", "json"]).args(extra);
        actions.apply(&mut command, tag);
        for (name, value) in &self.env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        let report = json(&output);
        let summary = std::fs::read_to_string(actions.summary()).unwrap_or_default();
        (output, report, summary)
    }
}

fn upgrade(report: &Value) -> &Value {
    &report["targets"][0]["upgrade"][0]
}

fn rules(upgrade: &Value) -> Vec<(String, Value)> {
    upgrade["diff"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["waived"].clone()))
        .collect()
}

fn add_waiver(provider: &Provider) {
    let config = provider.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}{WAIVER}")).unwrap();
}

/// The four steps of issue 31 on one target; `published(tag)` tells whether the target holds it.
fn four_steps(run: &Run<'_>, published: &dyn Fn(&str) -> bool) {
    // v1: the first release, nothing to compare.
    let (output, report, summary) = run.release("v1.2.3", &components(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let first = upgrade(&report);
    assert_eq!(first["previous"], Value::Null);
    assert!(
        first["note"]
            .as_str()
            .unwrap()
            .contains("first release of infrastructure-azure"),
        "{first}"
    );
    assert!(summary.contains("nothing to compare"), "{summary}");
    assert!(published("v1.2.3"));

    // v2 stops serving v1alpha1: refused, nothing published.
    let (output, report, summary) = run.release("v1.2.4", &unserved(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(report["status"], "refused");
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upgrading infrastructure-azure from v1.2.3 breaks"),
        "{}",
        report["error"]
    );
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing was published")
    );
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    assert_eq!(
        rules(upgrade(&report)),
        [("upgrade/served-version-removed".to_string(), Value::Null)]
    );
    assert!(
        summary.contains("`upgrade/served-version-removed` azurewidgets"),
        "{summary}"
    );
    assert!(!published("v1.2.4"), "a refused release publishes nothing");

    // The same with a waiver: published, the finding shown as waived.
    add_waiver(run.provider);
    let (output, report, summary) = run.release("v1.2.4", &unserved(), &[]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    assert_eq!(report["status"], "published");
    assert_eq!(
        rules(upgrade(&report)),
        [(
            "upgrade/served-version-removed".to_string(),
            Value::from("v1alpha1 deprecated in v1.1, removal announced")
        )]
    );
    assert!(summary.contains("waived: v1alpha1 deprecated"), "{summary}");
    assert!(published("v1.2.4"));

    // A compatible v2 (compared with v1.2.4, the newest older one): published, diff shown.
    let (output, report, summary) = run.release("v1.2.5", &compatible(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let third = upgrade(&report);
    assert_eq!(third["previous"], "v1.2.4");
    // The waiver written for v1.2.4 is stale now, and said to be.
    assert_eq!(
        rules(third),
        [("lint/unused-waiver".to_string(), Value::Null)],
        "{third}"
    );
    assert_eq!(third["diff"]["ok"], true);
    let changes = third["diff"]["changes"].as_array().unwrap();
    assert!(
        changes.iter().any(|c| c["subject"]
            .as_str()
            .unwrap()
            .ends_with("v1beta1 ^.spec.zone")),
        "{changes:?}"
    );
    assert!(
        summary.contains("### Upgrade from the previous release"),
        "{summary}"
    );
    assert!(
        summary.contains(
            "container manager: registry.k8s.io/capz:v1.2.3 -> registry.k8s.io/capz:v1.2.4"
        ),
        "{summary}"
    );
    assert!(published("v1.2.5"));
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn local_repository_compares_with_the_newest_older_version() {
    let provider = provider("  local:\n    repository: repo\n");
    let repo = provider.root().join("repo/infrastructure-azure");
    let run = Run {
        provider: &provider,
        env: Vec::new(),
    };
    four_steps(&run, &|tag| repo.join(tag).join("metadata.yaml").is_file());
}

#[test]
fn github_release_compares_with_the_newest_older_release() {
    let fake = FakeGitHub::start();
    let provider = provider("  github:\n    repo: o/r\n");
    let run = Run {
        provider: &provider,
        env: vec![
            ("GITHUB_API_URL", fake.api.clone()),
            ("GITHUB_TOKEN", github::TOKEN.to_string()),
        ],
    };
    // A refused run creates no release, not even a draft.
    four_steps(&run, &|tag| !fake.release(tag).is_empty());
}

#[test]
fn oci_release_compares_with_the_newest_older_tag() {
    use crate::oci_e2e::LocalRegistry;
    let registry = LocalRegistry::start(false);
    let provider = provider(&format!(
        "  oci:\n    repository: {}\n",
        registry.reference("capi/azure")
    ));
    let docker = tempfile::tempdir().unwrap();
    let run = Run {
        provider: &provider,
        env: vec![("DOCKER_CONFIG", docker.path().display().to_string())],
    };
    let published = |tag: &str| {
        std::process::Command::new("skopeo")
            .args(["inspect", "--raw", "--tls-verify=false"])
            .arg(format!("docker://{}/capi/azure:{tag}", registry.host()))
            .output()
            .unwrap()
            .status
            .success()
    };
    four_steps(&run, &published);
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn previous_none_skips_and_previous_version_picks_the_release() {
    let provider = provider("  local:\n    repository: repo\n");
    let run = Run {
        provider: &provider,
        env: Vec::new(),
    };
    let (output, _, _) = run.release("v1.2.3", &components(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (output, _, _) = run.release("v1.2.4", &compatible(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let (output, report, _) = run.release("v1.2.5", &unserved(), &["--previous", "none"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(upgrade(&report)["note"], "not compared: `--previous none`");

    // `--previous v1.2.3`: the release named, not the newest.
    let (output, report, _) = run.release("v1.2.6", &unserved(), &["--previous", "v1.2.3"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");

    // `previous:` in capkg.yaml, and a version that does not exist: capkg cannot compare (2).
    let config = provider.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}previous: v0.9.0\n")).unwrap();
    let (output, report, _) = run.release("v1.2.6", &components(), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert_eq!(report["status"], "failed");
    assert!(
        !Path::new(&provider.root().join("repo/infrastructure-azure/v1.2.6")).exists(),
        "nothing published"
    );
}

#[test]
fn gitlab_compares_with_the_version_given() {
    use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
    let fake = FakeGitLab::start();
    let provider = provider("  gitlab:\n    package: infrastructure-azure\n");
    let run = |tag: &str, components: &str, extra: &[&str]| {
        std::fs::write(provider.root().join("components.yaml"), components).unwrap();
        let output = release(&provider)
            .args(["--format", "json"])
            .args(extra)
            .env("GITLAB_CI", "true")
            .env("CI", "true")
            .env("CI_COMMIT_TAG", tag)
            .env("CI_API_V4_URL", &fake.api)
            .env("CI_PROJECT_ID", PROJECT_ID)
            .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
            .output()
            .unwrap();
        let report = json(&output);
        (output, report)
    };
    let (output, report) = run("v1.2.3", &components(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        upgrade(&report)["note"]
            .as_str()
            .unwrap()
            .contains("first release"),
        "{report}"
    );
    let uploads = fake.count("PUT");
    let (output, report) = run("v1.2.4", &unserved(), &["--previous", "v1.2.3"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    assert_eq!(
        fake.count("PUT"),
        uploads,
        "a refused release uploads nothing"
    );
    let (output, report) = run("v1.2.4", &compatible(), &["--previous", "v1.2.3"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(upgrade(&report)["diff"]["ok"], true);
}

#[test]
fn gitlab_compares_with_the_newest_older_package_version() {
    use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
    let fake = FakeGitLab::start();
    // One package per page, so that every page is read; and a package whose name only contains
    // this one's (GitLab's `package_name` matches fuzzily), older than every release here.
    fake.state().max_per_page = 1;
    fake.put_file(
        "infrastructure-azure-extra",
        "v1.0.0",
        "metadata.yaml",
        METADATA.as_bytes(),
    );
    let provider = provider("  gitlab:\n    package: infrastructure-azure\n");
    let run = Run {
        provider: &provider,
        env: vec![
            ("CI_API_V4_URL", fake.api.clone()),
            ("CI_PROJECT_ID", PROJECT_ID.to_string()),
            ("CI_JOB_TOKEN", gitlab::JOB_TOKEN.to_string()),
        ],
    };
    four_steps(&run, &|tag| {
        fake.state()
            .files
            .contains_key(&format!("infrastructure-azure/{tag}/metadata.yaml"))
    });
    let listed = fake
        .requests()
        .iter()
        .filter(|r| r.is("GET", "/projects/42/packages") && !r.path.contains("/generic/"))
        .count();
    assert!(
        listed > 3,
        "every page of the list is read: {listed} requests"
    );
}

/// `--dry-run` makes the comparison a real run makes where the previous release is on this
/// machine, and refuses what the release would be refused for; where it is behind the network
/// the dry run says it did not compare, without a request.
#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn a_dry_run_compares_with_a_previous_release_on_this_machine() {
    let provider = provider("  local:\n    repository: repo\n");
    let run = Run {
        provider: &provider,
        env: Vec::new(),
    };
    let (output, _, _) = run.release("v1.2.3", &components(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let (output, report, _) = run.release("v1.2.4", &unserved(), &["--dry-run"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(report["status"], "refused");
    assert_eq!(report["dry_run"], true);
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    assert_eq!(
        rules(upgrade(&report)),
        [("upgrade/served-version-removed".to_string(), Value::Null)]
    );
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upgrading infrastructure-azure from v1.2.3 breaks"),
        "{}",
        report["error"]
    );

    // A compatible one is a dry run that would publish, with its diff.
    let (output, report, _) = run.release("v1.2.4", &compatible(), &["--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(report["status"], "dry-run");
    assert_eq!(upgrade(&report)["diff"]["ok"], true);
    assert!(
        !provider
            .root()
            .join("repo/infrastructure-azure/v1.2.4")
            .exists(),
        "a dry run writes nothing"
    );

    // `--previous FOLDER` is read offline too, whatever the target.
    let folder = provider.root().join("repo/infrastructure-azure/v1.2.3");
    let (output, report, _) = run.release(
        "v1.2.4",
        &unserved(),
        &["--dry-run", "--previous", folder.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(report["status"], "refused");
}

#[test]
fn a_dry_run_does_not_reach_for_a_previous_release_behind_the_network() {
    let fake = FakeGitHub::start();
    let provider = provider("  github:\n    repo: o/r\n");
    let run = Run {
        provider: &provider,
        env: vec![("GITHUB_API_URL", fake.api.clone())],
    };
    let (output, report, _) = run.release("v1.2.4", &unserved(), &["--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(report["status"], "dry-run");
    assert!(
        upgrade(&report)["note"].as_str().unwrap().starts_with(
            "not compared with the previous release: a dry run makes no network requests"
        ),
        "{}",
        upgrade(&report)
    );
    assert!(fake.requests().is_empty(), "a dry run sends no request");
}
