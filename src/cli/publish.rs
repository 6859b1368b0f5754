//! `capkg publish local|github|gitlab|oci DIR`: publish an assembled release directory.
//!
//! This file turns flags and environment into a [`TargetRequest`], runs the target's plan (and,
//! unless `--dry-run`, apply, read-back and finish) on a tokio runtime of its own, and prints the
//! plan or the outcome: human text or the JSON object documented in [`crate::targets`] on stdout,
//! progress on stderr (an indicatif bar on a terminal, plain lines in CI).

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::escape::{self, Output};
use crate::report::Format;
use crate::targets::github::GitHubRequest;
use crate::targets::gitlab::GitLabRequest;
use crate::targets::local::LocalRequest;
use crate::targets::oci::OciRequest;
use crate::targets::{
    self, Action, Event, Outcome, Plan, Progress, Reach, ReleaseDir, RetryPolicy, Services,
    SystemClock, TargetRequest, Transfer,
};
use crate::units::{parse_duration, parse_size};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct PublishArgs {
    #[command(subcommand)]
    pub target: PublishTarget,
}

/// Flags every publish target takes.
#[derive(Debug, Args)]
pub struct CommonPublishArgs {
    /// The assembled release directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The version being published (`v1.2.3`).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Version,
    /// Print the plan and touch nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

/// Flags of the targets that talk to a server.
#[derive(Debug, Args)]
pub struct NetworkArgs {
    /// The longest capkg waits before a retry; a server that asks for more (a rate limit that
    /// resets in an hour) makes publish fail at once, saying how long it asked for
    /// (`90s`, `10m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub max_wait: Duration,
    /// Tries per request for failures worth retrying (5xx, cut connections, rate limits).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub retries: u32,
    #[command(flatten)]
    pub limits: HttpLimitArgs,
}

/// The bounds on every HTTP request, shared by `publish`, `verify` and `release`.
#[derive(Debug, Clone, Args)]
pub struct HttpLimitArgs {
    /// The longest one HTTP request may take, from connecting to the last byte of the answer
    /// (`90s`, `10m`, `1h`).
    #[arg(long, value_name = "DURATION", env = "CAPKG_HTTP_TIMEOUT", default_value = "10m", value_parser = parse_timeout)]
    pub http_timeout: Duration,
    /// The slowest transfer accepted while a body moves, judged over 30-second windows
    /// (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off).
    #[arg(long, value_name = "BYTES_PER_SECOND", env = "CAPKG_HTTP_MIN_RATE", default_value = "1KiB", value_parser = parse_size)]
    pub min_transfer_rate: u64,
    /// The largest answer capkg reads from a server (a release file `verify` downloads, a
    /// read-back); a larger one is refused without being read (`256MiB`, `1GiB`).
    #[arg(long, value_name = "SIZE", env = "CAPKG_MAX_DOWNLOAD", default_value = "256MiB", value_parser = parse_size)]
    pub max_download: u64,
}

/// The bounds on what `verify` and `release` read from registries an artifact or a release
/// names, per operation rather than per request.
#[derive(Debug, Clone, Args)]
pub struct ReadLimitArgs {
    /// The most layers `verify oci://` reads from one artifact; a larger one is refused before
    /// any layer is read.
    #[arg(long, value_name = "N", env = "CAPKG_MAX_LAYERS", default_value_t = crate::forge::policy::DEFAULT_MAX_LAYERS)]
    pub max_layers: usize,
    /// The time all image lookups of one check share; images not looked up by then are
    /// reported as not checked (`30s`, `2m`).
    #[arg(long, value_name = "DURATION", env = "CAPKG_IMAGES_TIMEOUT", default_value = "60s", value_parser = parse_timeout)]
    pub images_timeout: Duration,
    /// The most pages capkg reads of one list (a repository's releases, a project's packages, a
    /// registry's tags); a longer list is an error. A list is also held to `--max-download`
    /// bytes in all.
    #[arg(long, value_name = "N", env = "CAPKG_MAX_LIST_PAGES", default_value_t = crate::forge::policy::DEFAULT_MAX_LIST_PAGES, value_parser = parse_pages)]
    pub max_list_pages: usize,
}

impl ReadLimitArgs {
    /// `policy` with these bounds.
    pub fn apply(&self, policy: RetryPolicy) -> RetryPolicy {
        RetryPolicy {
            max_layers: self.max_layers,
            images_deadline: self.images_timeout,
            max_list_pages: self.max_list_pages,
            ..policy
        }
    }
}

impl HttpLimitArgs {
    /// `policy` with these bounds.
    pub fn apply(&self, policy: RetryPolicy) -> RetryPolicy {
        RetryPolicy {
            timeout: self.http_timeout,
            min_rate: self.min_transfer_rate,
            max_download: self.max_download,
            ..policy
        }
    }
}

/// A number of pages above zero: a list of no page cannot be read.
fn parse_pages(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) | Err(_) => Err(format!("`{text}`: give a number of pages above zero")),
        Ok(pages) => Ok(pages),
    }
}

/// A duration above zero.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        zero if zero.is_zero() => Err(format!("`{text}`: a timeout must be longer than zero")),
        timeout => Ok(timeout),
    }
}

#[derive(Debug, Subcommand)]
pub enum PublishTarget {
    /// A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`.
    Local {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// The repository's base folder.
        #[arg(long, value_name = "PATH")]
        repository: PathBuf,
        /// Replace an existing, different version folder.
        #[arg(long)]
        force: bool,
        /// Also print the overrides layout clusterctl reads from this folder.
        #[arg(long, value_name = "DIR")]
        overrides: Option<PathBuf>,
    },
    /// A GitHub release (token from GITHUB_TOKEN or GH_TOKEN).
    Github {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// The repository, `OWNER/NAME`.
        #[arg(long, value_name = "OWNER/NAME")]
        repo: String,
        /// API base URL; default GITHUB_API_URL, else https://api.github.com.
        #[arg(long, value_name = "URL")]
        api_url: Option<String>,
        /// Replace assets whose content differs.
        #[arg(long)]
        clobber: bool,
        /// Leave the release as a draft.
        #[arg(long)]
        draft: bool,
        /// Mark the release as a pre-release (automatic for semver pre-releases).
        #[arg(long)]
        prerelease: bool,
        #[command(flatten)]
        network: NetworkArgs,
    },
    /// A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN).
    Gitlab {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// Project id or path; default CI_PROJECT_ID.
        #[arg(long, value_name = "ID_OR_PATH")]
        project: Option<String>,
        /// Package name (default: the provider label).
        #[arg(long, value_name = "NAME")]
        package: Option<String>,
        /// API base URL; default CI_API_V4_URL.
        #[arg(long, value_name = "URL")]
        api_url: Option<String>,
        /// Upload files whose content differs from the one already in the package (GitLab then
        /// serves the new one).
        #[arg(long)]
        clobber: bool,
        #[command(flatten)]
        network: NetworkArgs,
    },
    /// An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from
    /// OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file.
    Oci {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// The repository, `[http://]HOST[:PORT]/PATH[:TAG]` (`http://` only for loopback).
        #[arg(long, value_name = "REF")]
        repository: String,
        /// The tag when REF has none; `{version}` is replaced (default `{version}`).
        #[arg(long, value_name = "TAG")]
        tag: Option<String>,
        /// Move the tag when it points at a different artifact.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        network: NetworkArgs,
    },
}

fn environment(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn policy(network: &NetworkArgs) -> RetryPolicy {
    network.limits.apply(RetryPolicy {
        attempts: network.retries,
        max_wait: network.max_wait,
        ..RetryPolicy::default()
    })
}

pub(super) fn run(global: &GlobalArgs, args: PublishArgs) -> CommandResult {
    let (common, request, policy) = match args.target {
        PublishTarget::Local {
            common,
            repository,
            force,
            overrides,
        } => (
            common,
            TargetRequest::Local(LocalRequest {
                repository,
                force,
                overrides,
                draft: false,
            }),
            RetryPolicy::default(),
        ),
        PublishTarget::Github {
            common,
            repo,
            api_url,
            clobber,
            draft,
            prerelease,
            network,
        } => (
            common,
            TargetRequest::GitHub(GitHubRequest {
                repo,
                api_url,
                clobber,
                draft,
                prerelease,
            }),
            policy(&network),
        ),
        PublishTarget::Gitlab {
            common,
            project,
            package,
            api_url,
            clobber,
            network,
        } => (
            common,
            TargetRequest::GitLab(GitLabRequest {
                project,
                package,
                api_url,
                clobber,
                draft: false,
            }),
            policy(&network),
        ),
        PublishTarget::Oci {
            common,
            repository,
            tag,
            force,
            network,
        } => (
            common,
            TargetRequest::Oci(OciRequest {
                repository,
                tag,
                force,
                draft: false,
            }),
            policy(&network),
        ),
    };

    let release = ReleaseDir::load(
        &common.dir,
        common.version.clone(),
        common.provider.provider_type,
        common.provider.provider.as_deref(),
    )
    .map_err(|err| CommandError::from_classified(targets::Error::from(err)))?;

    let reporter = Arc::new(Reporter::new(global));
    // Reading back what this run uploads must not trip the download limit.
    let largest = release.files.iter().map(|f| f.size).max().unwrap_or(0);
    let policy = RetryPolicy {
        max_download: policy.max_download.max(largest),
        ..policy
    };
    let services = Services {
        policy,
        clock: Arc::new(SystemClock),
        progress: reporter.clone(),
    };
    // `--dry-run` asks the destination what it holds when it can: it shows exactly what a real
    // run would upload, skip or replace. Without a token or the CI variables, it plans offline
    // as `release --dry-run` does (no network), and says so.
    let target = match targets::open(
        request.clone(),
        &environment,
        services.clone(),
        Reach::Remote,
    ) {
        Err(missing @ (targets::Error::MissingToken { .. } | targets::Error::Missing { .. }))
            if common.dry_run =>
        {
            let offline = targets::open(request, &environment, services, Reach::Offline)
                .map_err(CommandError::from_classified)?;
            if !global.quiet {
                let _ = writeln!(
                    super::stderr(),
                    "note: {}; --dry-run planned without asking the destination what it holds (no network requests): every file is uploaded unless identical",
                    escape::text(&missing.to_string())
                );
            }
            offline
        }
        opened => opened.map_err(CommandError::from_classified)?,
    };
    let runtime = super::network::runtime()?;
    let dry_run = common.dry_run;
    let result: Result<Report, targets::Error> = runtime.block_on(async {
        let plan = target.plan(&release).await?;
        if dry_run {
            return Ok(Report::Plan(plan));
        }
        reporter.begin(&plan);
        let outcome = targets::carry_out(target.as_ref(), &release, plan, &|outcome| {
            reporter.begin_read_back(outcome)
        })
        .await
        .map_err(|(_, err)| err)?;
        Ok(Report::Outcome(outcome))
    });
    reporter.end();
    let report = result.map_err(CommandError::from_classified)?;
    write_report(global, &report).map_err(CommandError::fault)?;
    Ok(Status::Success)
}

enum Report {
    Plan(Plan),
    Outcome(Outcome),
}

#[derive(Serialize)]
struct JsonReport<'a, T: Serialize> {
    dry_run: bool,
    #[serde(flatten)]
    body: &'a T,
}

fn write_report(global: &GlobalArgs, report: &Report) -> std::io::Result<()> {
    let warnings = match report {
        Report::Plan(plan) => &plan.destination.warnings,
        Report::Outcome(outcome) => &outcome.destination.warnings,
    };
    let mut out = super::stdout();
    if !global.quiet {
        match global.format {
            // The runner reads workflow commands from stdout.
            Format::Github => {
                for warning in warnings {
                    let data = escape::workflow_data(&escape::text(warning));
                    out.command(&format!("::warning::{data}"))?;
                }
            }
            Format::Human | Format::Markdown => {
                let mut err = super::stderr();
                for warning in warnings {
                    let _ = writeln!(err, "warning: {}", escape::text(warning));
                }
            }
            Format::Json => {}
        }
    }
    match (global.format, report) {
        (Format::Json, Report::Plan(plan)) => {
            let report = JsonReport {
                dry_run: true,
                body: plan,
            };
            crate::report::json::write_pretty(&mut out, &report)?;
        }
        (Format::Json, Report::Outcome(outcome)) => {
            let report = JsonReport {
                dry_run: false,
                body: outcome,
            };
            crate::report::json::write_pretty(&mut out, &report)?;
        }
        (_, Report::Plan(plan)) => write_plan(&mut out, global.quiet, plan)?,
        (_, Report::Outcome(outcome)) => write_outcome(&mut out, global.quiet, outcome)?,
    }
    Ok(())
}

fn write_plan(out: &mut dyn Write, quiet: bool, plan: &Plan) -> std::io::Result<()> {
    let d = &plan.destination;
    if !quiet {
        writeln!(
            out,
            "Plan: publish {} {} to {} `{}`",
            labels(d),
            escape::text(&d.version.to_string()),
            d.target,
            escape::text(&d.destination)
        )?;
        let names: Vec<_> = plan.files.iter().map(|f| escape::text(&f.name)).collect();
        let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
        for (file, name) in plan.files.iter().zip(&names) {
            let why = match (&file.reason, file.action) {
                (Some(reason), _) => format!("  ({})", escape::text(reason)),
                (None, _) => String::new(),
            };
            writeln!(
                out,
                "  {:<8} {:<width$}  {:>9}  {}{why}",
                file.action,
                name,
                crate::units::format_size(file.size),
                escape::text(&file.url)
            )?;
        }
        if !plan.steps.is_empty() {
            writeln!(out, "Steps:")?;
            for step in &plan.steps {
                writeln!(out, "  - {}", escape::text(step))?;
            }
        }
        let changes = plan.files.len() - plan.count(Action::Skip);
        if plan.is_noop() {
            writeln!(
                out,
                "Nothing to do: the destination already holds this release."
            )?;
        } else {
            writeln!(
                out,
                "{changes} file(s) to write, {} to skip.",
                plan.count(Action::Skip)
            )?;
        }
        write_urls(out, d)?;
        writeln!(out, "Dry run: nothing was changed.")?;
    } else {
        for provider in &d.providers {
            writeln!(out, "{}", escape::text(&provider.clusterctl_url))?;
        }
    }
    Ok(())
}

/// `bootstrap-kubeadm, control-plane-kubeadm`.
fn labels(d: &targets::Destination) -> String {
    let labels = d
        .providers
        .iter()
        .map(|p| p.label.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    escape::text(&labels).into_owned()
}

/// The clusterctl URL, one line per provider when the release has several.
fn write_urls(out: &mut dyn Write, d: &targets::Destination) -> std::io::Result<()> {
    let providers = d
        .providers
        .iter()
        .map(|p| (p.label.as_str(), p.clusterctl_url.as_str()));
    super::write_clusterctl_urls(out, "", d.target, providers, Some(&d.clusterctl_url))
}

fn write_outcome(out: &mut dyn Write, quiet: bool, outcome: &Outcome) -> std::io::Result<()> {
    let d = &outcome.destination;
    if quiet {
        return write!(out, "{}", escape::lines(&d.clusterctl_config, ""));
    }
    let names: Vec<_> = outcome
        .files
        .iter()
        .map(|f| escape::text(&f.name))
        .collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for (file, name) in outcome.files.iter().zip(&names) {
        writeln!(
            out,
            "{:<9} {:<width$}  {}",
            file.outcome,
            name,
            escape::text(&file.url)
        )?;
    }
    let counts = format!(
        "{} uploaded, {} replaced, {} skipped{}",
        outcome.count(targets::FileResult::Uploaded),
        outcome.count(targets::FileResult::Replaced),
        outcome.count(targets::FileResult::Skipped),
        if outcome.verified {
            "; written files read back and verified"
        } else {
            ""
        }
    );
    let state = match &d.release {
        Some(release) if release.draft => " (draft)",
        _ => "",
    };
    if outcome
        .files
        .iter()
        .all(|f| f.outcome == targets::FileResult::Skipped)
    {
        writeln!(
            out,
            "{} {} is already at `{}`{state}: nothing to upload",
            labels(d),
            escape::text(&d.version.to_string()),
            escape::text(&d.destination)
        )?;
    } else {
        writeln!(
            out,
            "Published {} {} to `{}`{state}: {counts}",
            labels(d),
            escape::text(&d.version.to_string()),
            escape::text(&d.destination)
        )?;
    }
    write_urls(out, d)?;
    writeln!(
        out,
        "\nclusterctl configuration:\n{}",
        escape::lines(&d.clusterctl_config, "")
    )?;
    if let Some(overrides) = &d.overrides {
        writeln!(
            out,
            "Overrides clusterctl reads instead of the repository files (`{}`):",
            overrides.folder.display()
        )?;
        for file in &overrides.files {
            writeln!(out, "  {}", file.display())?;
        }
    }
    Ok(())
}

/// Progress on stderr: an indicatif bar on a terminal, plain lines otherwise, nothing with `-q`.
struct Reporter {
    mode: Mode,
    bar: Mutex<Option<ProgressBar>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quiet,
    Lines,
    Bar,
}

impl Reporter {
    fn new(global: &GlobalArgs) -> Self {
        let mode = if global.quiet {
            Mode::Quiet
        } else if super::stderr_is_terminal() {
            Mode::Bar
        } else {
            Mode::Lines
        };
        Self {
            mode,
            bar: Mutex::new(None),
        }
    }

    fn line(&self, text: &str) {
        let redacted = crate::forge::secret::redact(text);
        let text = &escape::text(&redacted);
        match self.mode {
            Mode::Quiet => {}
            Mode::Lines => {
                let _ = writeln!(super::stderr(), "{text}");
            }
            Mode::Bar => match self.bar.lock().ok().and_then(|bar| bar.clone()) {
                Some(bar) => bar.println(text.as_ref()),
                None => {
                    let _ = writeln!(super::stderr(), "{text}");
                }
            },
        }
    }

    fn start_bar(&self, total: u64, label: &str) {
        if self.mode != Mode::Bar || total == 0 {
            return;
        }
        let bar = ProgressBar::new(total);
        let style = ProgressStyle::with_template(&format!(
            "{label:>10} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{wide_msg}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        if let Ok(mut slot) = self.bar.lock()
            && let Some(old) = slot.replace(bar)
        {
            old.finish_and_clear();
        }
    }

    /// Called with the plan, before anything is written.
    fn begin(&self, plan: &Plan) {
        let total = plan
            .files
            .iter()
            .filter(|f| f.action != Action::Skip)
            .map(|f| f.size)
            .sum();
        self.start_bar(total, "upload");
    }

    /// Called before the read-back.
    fn begin_read_back(&self, outcome: &Outcome) {
        let total = outcome
            .files
            .iter()
            .filter(|f| f.outcome != targets::FileResult::Skipped)
            .map(|f| f.size)
            .sum();
        self.start_bar(total, "verify");
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Reporter {
    fn event(&self, event: &Event<'_>) {
        match *event {
            Event::Step(step) => self.line(step),
            Event::Waiting { reason, delay } => {
                self.line(&format!(
                    "waiting {}: {reason}",
                    crate::units::format_duration(delay)
                ));
            }
            Event::Started {
                name,
                size,
                transfer,
            } => match self.mode {
                Mode::Bar => {
                    if let Ok(slot) = self.bar.lock()
                        && let Some(bar) = slot.as_ref()
                    {
                        bar.set_message(escape::text(name).into_owned());
                    }
                }
                Mode::Lines if transfer == Transfer::Upload => {
                    self.line(&format!(
                        "uploading {name} ({})",
                        crate::units::format_size(size)
                    ));
                }
                _ => {}
            },
            Event::Finished {
                name,
                size,
                transfer,
            } => match self.mode {
                Mode::Bar => {
                    if let Ok(slot) = self.bar.lock()
                        && let Some(bar) = slot.as_ref()
                    {
                        bar.inc(size);
                    }
                }
                Mode::Lines => self.line(&match transfer {
                    Transfer::Upload => format!("uploaded {name}"),
                    Transfer::ReadBack => format!("verified {name}"),
                }),
                Mode::Quiet => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
    }

    #[test]
    fn sizes_parse_with_binary_and_decimal_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("1KiB/s"), Ok(1024));
        assert_eq!(parse_size("10kb"), Ok(10_000));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("1TiB").is_err());
        assert!(parse_timeout("0s").is_err());
        assert_eq!(parse_timeout("2s"), Ok(Duration::from_secs(2)));
    }

    #[test]
    fn flags_give_these_requests() {
        let cli = Cli::try_parse_from([
            "capkg",
            "publish",
            "github",
            "out",
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--clobber",
            "--max-wait",
            "30s",
            "--retries",
            "3",
        ])
        .unwrap();
        let Command::Publish(PublishArgs {
            target:
                PublishTarget::Github {
                    common,
                    repo,
                    clobber,
                    network,
                    ..
                },
        }) = cli.command
        else {
            panic!("not publish github");
        };
        assert_eq!(common.version.to_string(), "v1.2.3");
        assert_eq!(repo, "o/r");
        assert!(clobber);
        assert_eq!(policy(&network).max_wait, Duration::from_secs(30));
        assert_eq!(policy(&network).attempts, 3);
        assert!(
            Cli::try_parse_from([
                "capkg",
                "publish",
                "gitlab",
                "out",
                "--version",
                "v1",
                "--project",
                "1"
            ])
            .is_err()
        );
    }
}
