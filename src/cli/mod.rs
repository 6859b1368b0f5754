//! The command-line surface: flags, dispatch, and the one place that decides exit codes.
//!
//! Each command has its own file holding its flags and a `run` that turns them into a request for
//! the library and hands the result to [`crate::report`]. Flags shared between commands are
//! defined once here ([`ProviderArgs`], [`VariableArgs`]) so they are spelled the same everywhere.
//!
//! Exit codes: 0 success (lint: no errors); 1 the input is wrong (lint errors, missing variables,
//! a release that fails its checks, a remote that refused); 2 capkg could not do its job (bad
//! arguments, unreadable paths, an unexpected internal condition).

mod assemble;
mod completions;
mod configmaps;
mod diff;
mod init;
mod lint;
mod network;
mod output;
mod promote;
mod publish;
mod release;
mod render;
mod rules;
mod subst;
mod value_enums;
mod variables;
mod vars;
mod verify;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Parser, Subcommand};

use crate::error::{Classified, ErrorClass};
use crate::escape::{self, Guard, Output};
use crate::provider::ProviderType;
use crate::report::{ColorChoice, Format};
use crate::version::Version;

/// Lint, substitute, assemble and publish Cluster API provider releases.
#[derive(Debug, Parser)]
#[command(name = "capkg", version, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 success; 1 the input is wrong (lint errors, missing \
    variables, a release that fails its checks); 2 capkg could not do its job."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of the flags every command takes, apart from each command's own.
const GLOBAL_OPTIONS: &str = "Global options";

/// Flags every command takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Output format.
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to use colour (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only errors and the data asked for.
    #[arg(short, long, global = true, help_heading = GLOBAL_OPTIONS, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more about what is happening (repeat for more).
    #[arg(short, long, global = true, help_heading = GLOBAL_OPTIONS, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check release files against the clusterctl and provider contracts.
    Lint(lint::LintArgs),
    /// List the lint rules, or explain one.
    Rules(rules::RulesArgs),
    /// Substitute variables as clusterctl does and print the result.
    Subst(subst::SubstArgs),
    /// List the variables files need, as `clusterctl generate cluster --list-variables` does.
    Vars(vars::VarsArgs),
    /// Print what `clusterctl generate cluster` or `generate provider` would, from local files.
    Render(render::RenderArgs),
    /// Build the release directory from `capkg.yaml` and the sources.
    Assemble(assemble::AssembleArgs),
    /// Scaffold `capkg.yaml` and CI files for a provider repository.
    Init(init::InitArgs),
    /// Publish an assembled release directory.
    Publish(publish::PublishArgs),
    /// Tag -> assemble -> lint -> publish -> verify, in one step for CI.
    Release(release::ReleaseArgs),
    /// Make public a release `capkg release --draft` left, once its images exist.
    Promote(promote::PromoteArgs),
    /// Read a published release as clusterctl does and lint it.
    Verify(verify::VerifyArgs),
    /// Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules).
    Diff(diff::DiffArgs),
    /// Print the ConfigMaps cluster-api-operator reads the release's providers from.
    Configmaps(configmaps::ConfigmapsArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
}

/// `--provider` and `--type`, the same for every command that needs a provider.
#[derive(Debug, Clone, Default, Args)]
pub struct ProviderArgs {
    /// Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels.
    #[arg(long, value_name = "NAME", value_parser = parse_provider_name)]
    pub provider: Option<String>,
    /// Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`,
    /// `runtime-extension`, `addon`, or clusterctl's `InfrastructureProvider`…; default: from
    /// the components file name.
    #[arg(long = "type", value_name = "TYPE")]
    pub provider_type: Option<ProviderType>,
}

/// `--var` and `--clusterctl-config`, for commands that substitute variables.
#[derive(Debug, Clone, Default, Args)]
pub struct VariableArgs {
    /// Set a variable (repeatable); wins over the environment and the clusterctl config file.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// A clusterctl configuration file whose top-level keys are variables; default:
    /// clusterctl's own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then
    /// `~/.cluster-api/clusterctl.yaml`) when it exists.
    #[arg(long, value_name = "FILE")]
    pub clusterctl_config: Option<PathBuf>,
}

/// A provider name as clusterctl's configuration accepts it (a DNS-1123 subdomain).
fn parse_provider_name(text: &str) -> Result<String, String> {
    crate::provider::validate_name(None, text)
        .map(|()| text.to_string())
        .map_err(|e| e.to_string())
}

fn parse_var(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!("`{text}` is not NAME=VALUE")),
    }
}

/// Parses `--version`: semver, with or without `v`.
pub fn parse_version(text: &str) -> Result<Version, String> {
    Version::parse(text).map_err(|e| e.to_string())
}

/// How a command ended, when it did its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and found the input wrong (lint errors, a refused release).
    Findings,
}

/// Why a command could not finish, and the exit code that says so.
///
/// There is no blanket `From`: every `?` in a command names the class of its error, so a
/// refusal cannot turn into a fault on its way out.
#[derive(Debug)]
pub struct CommandError {
    pub error: anyhow::Error,
    /// 1 when the input is wrong or a remote refused, 2 when capkg could not do its job.
    pub exit: u8,
    /// What to do about it.
    pub hint: Option<String>,
}

impl CommandError {
    /// The input is wrong, or a remote refused it ([`ErrorClass::Refusal`], exit 1).
    pub fn refusal(error: impl Into<anyhow::Error>) -> Self {
        Self::of_class(ErrorClass::Refusal, error)
    }

    /// capkg could not do its job: a bad flag, an unreadable path, a failed write
    /// ([`ErrorClass::Fault`], exit 2).
    pub fn fault(error: impl Into<anyhow::Error>) -> Self {
        Self::of_class(ErrorClass::Fault, error)
    }

    fn of_class(class: ErrorClass, error: impl Into<anyhow::Error>) -> Self {
        Self {
            error: error.into(),
            exit: class.exit_code(),
            hint: None,
        }
    }

    /// The one mapping from a library error to an exit: its class decides 1 or 2, its hint is
    /// shown under it, and the error itself (with its cause chain) is kept.
    pub fn from_classified(error: impl Classified) -> Self {
        Self {
            exit: error.class().exit_code(),
            hint: error.hint(),
            error: anyhow::Error::new(error),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

pub type CommandResult = Result<Status, CommandError>;

/// Entry point used by `main.rs`; returns the exit code, with stdout flushed.
///
/// The verdict alone decides the exit code: a reader that closes stdout early (`| head`) changes
/// nothing, because [`stdout`] drops what it can no longer deliver. With `--format json` every
/// outcome is exactly one JSON document on stdout: the command's own, or the error object written
/// here (`{"error": {"message", "hint", "exit_code"}}`) when the command stopped before writing one.
pub fn main() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version to stdout with exit 0, usage errors to stderr.
            let _ = err.print();
            if !err.use_stderr() {
                return 0;
            }
            if json_requested(std::env::args_os()) {
                let message = first_line(&err.to_string());
                write_json_error(
                    &message,
                    Some("`capkg --help` lists the commands and their flags"),
                    2,
                );
            }
            return 2;
        }
    };
    let global = cli.global.clone();
    let result = run(cli);
    let code = match result {
        Ok(Status::Success) => 0,
        Ok(Status::Findings) => 1,
        Err(failure) => {
            // stderr is the log a person reads in CI; stdout is the document a program reads.
            print_failure(&global, &failure);
            if global.format == Format::Json && !STDOUT_USED.load(Ordering::Relaxed) {
                let hint = failure.hint.clone().or_else(|| known_hint(&failure.error));
                write_json_error(
                    &message_with_causes(&failure.error),
                    hint.as_deref(),
                    failure.exit,
                );
            }
            failure.exit
        }
    };
    // Whatever is still buffered goes now; a reader that left does not change the verdict.
    let _ = stdout().flush();
    code
}

/// `--format json` or `--format=json` among raw arguments clap refused.
fn json_requested(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<std::ffi::OsString> = args.collect();
    args.iter().enumerate().any(|(i, arg)| {
        arg == "--format=json"
            || (arg == "--format" && args.get(i + 1).is_some_and(|next| next == "json"))
    })
}

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string()
}

/// The error and its causes, `: `-separated, each cause once.
fn message_with_causes(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// The one error document of `--format json`, for every command but `release` (whose report
/// carries its own `error` object, with `stage`, `message`, `hint`, `exit` and `exit_code`).
fn write_json_error(message: &str, hint: Option<&str>, exit_code: u8) {
    // As on stderr, a message may quote a server or a subprocess: redacted.
    let redact = crate::forge::secret::redact;
    let document = serde_json::json!({
        "error": {
            "message": redact(message),
            "hint": hint.map(redact),
            "exit_code": exit_code,
        }
    });
    let mut out = stdout();
    let _ = crate::report::json::write_value(&mut out, &document);
    let _ = out.flush();
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CommandResult {
    let global = &cli.global;
    if global.format == Format::Markdown && !matches!(cli.command, Command::Diff(_)) {
        return Err(CommandError::fault(anyhow::anyhow!(
            "`--format markdown` is for `capkg diff` only"
        ))
        .with_hint("use `--format human`, `json` or `github`"));
    }
    match cli.command {
        Command::Lint(args) => lint::run(global, args),
        Command::Rules(args) => rules::run(global, args),
        Command::Subst(args) => subst::run(global, args),
        Command::Vars(args) => vars::run(global, args),
        Command::Render(args) => render::run(global, args),
        Command::Assemble(args) => assemble::run(global, args),
        Command::Init(args) => init::run(global, args),
        Command::Publish(args) => publish::run(global, args),
        Command::Release(args) => release::run(global, args),
        Command::Promote(args) => promote::run(global, args),
        Command::Verify(args) => verify::run(global, args),
        Command::Diff(args) => diff::run(global, args),
        Command::Configmaps(args) => configmaps::run(global, args),
        Command::Completions(args) => completions::run(global, args),
    }
}

/// `error: <message>`, one `caused by:` line per source, then `hint:`.
fn print_failure(global: &GlobalArgs, failure: &CommandError) {
    let color = global.color.enabled_for_stderr();
    let (red, yellow, reset) = if color {
        ("\x1b[1;31m", "\x1b[1;33m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    // Every line goes through `redact`: a message may quote a server or a subprocess; and
    // through `escape::lines`: what it quotes is shown, not acted on, each quoted line marked.
    let shown = |text: &str| escape::lines(&crate::forge::secret::redact(text), "  | ");
    let mut err = stderr();
    let _ = writeln!(
        err,
        "{red}error{reset}: {}",
        shown(&failure.error.to_string())
    );
    for cause in failure.error.chain().skip(1) {
        let _ = writeln!(err, "  caused by: {}", shown(&cause.to_string()));
    }
    let hint = failure.hint.clone().or_else(|| known_hint(&failure.error));
    if let Some(hint) = hint {
        let _ = writeln!(err, "\n{yellow}hint{reset}: {}", shown(&hint));
    }
}

/// `clusterctl URL: …`, or one `clusterctl URL (<label>): …` line per provider when a release
/// has several; `indent` comes first on every line. An OCI target's address is what
/// cluster-api-operator reads (`spec.fetchConfig.oci`), and is named so.
fn write_clusterctl_urls<'a>(
    out: &mut dyn Write,
    indent: &str,
    target: crate::targets::TargetKind,
    providers: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
    only: Option<&str>,
) -> io::Result<()> {
    let what = match target {
        crate::targets::TargetKind::Oci => "cluster-api-operator reference",
        _ => "clusterctl URL",
    };
    if providers.len() > 1 {
        for (label, url) in providers {
            let (label, url) = (escape::text(label), escape::text(url));
            writeln!(out, "{indent}{what} ({label}): {url}")?;
        }
    } else if let Some(url) = only {
        writeln!(out, "{indent}{what}: {}", escape::text(url))?;
    }
    Ok(())
}

/// A reference the user gave (`verify SOURCE`, `diff OLD NEW`, `release --previous`) as capkg
/// keeps it: without the user name and password a URL may hold. capkg never sends them (logins
/// come from the environment), so it never holds them either, and no report, error or summary
/// can show them. The warning says so when there were some.
fn given_reference(text: &str) -> (String, Option<String>) {
    let kept = crate::forge::url::redact_userinfo(text);
    let warning = (kept != text).then(|| {
        format!(
            "`{kept}` held a user name or password, which capkg does not send: logins come from the environment (GITHUB_TOKEN, GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN, OCI_USERNAME and OCI_PASSWORD or OCI_ACCESS_TOKEN, the Docker config file)"
        )
    });
    (kept, warning)
}

/// Hints carried by library errors that know the fix.
fn known_hint(error: &anyhow::Error) -> Option<String> {
    error.chain().find_map(|cause| {
        cause
            .downcast_ref::<crate::files::Error>()
            .and_then(Classified::hint)
    })
}

/// Something was written to stdout (a report, or part of one).
static STDOUT_USED: AtomicBool = AtomicBool::new(false);
/// The reader of stdout has gone (EPIPE); later writes are dropped.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output, the one way commands write to it: text through [`Guard`], so that no line
/// can be a GitHub workflow command or a terminal escape sequence capkg did not mean
/// ([`crate::escape`]); workflow commands only through [`Output::command`]; data the user asked
/// for as it is (`subst`, `render`) through [`write_output`]. A closed pipe is not an error: what
/// the reader no longer wants is dropped and the command goes on to its verdict, so `capkg lint |
/// head -c1` under `pipefail` exits as `capkg lint > file` does. Other write errors (a full disk)
/// still fail the command.
pub struct Stdout {
    guard: Guard<RawStdout>,
}

/// Writes text to stdout; see [`Stdout`].
pub fn stdout() -> Stdout {
    Stdout {
        guard: Guard::new(raw_stdout()),
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.guard.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.guard.flush()
    }
}

impl Output for Stdout {
    fn command(&mut self, line: &str) -> io::Result<()> {
        self.guard.command(line)
    }
}

/// Standard output as it is, a closed pipe tolerated ([`Stdout`]): for data, and under the guard.
struct RawStdout {
    inner: io::StdoutLock<'static>,
}

fn raw_stdout() -> RawStdout {
    RawStdout {
        inner: io::stdout().lock(),
    }
}

impl RawStdout {
    fn closed_is_fine(result: io::Result<()>) -> io::Result<()> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }
}

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        STDOUT_USED.store(true, Ordering::Relaxed);
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            return Ok(());
        }
        Self::closed_is_fine(self.inner.flush())
    }
}

/// Standard error, for messages, warnings and progress lines: through [`Guard`], as [`Stdout`].
pub(crate) fn stderr() -> Guard<io::StderrLock<'static>> {
    Guard::new(io::stderr().lock())
}

/// The data a command prints as it is (`subst`, `render`): raw, or with `--format json` as
/// `{"output": "<text>"}`.
pub fn write_output(global: &GlobalArgs, output: &[u8]) -> Result<(), CommandError> {
    if global.format == Format::Json {
        let mut out = stdout();
        let text = std::str::from_utf8(output).map_err(|e| {
            CommandError::refusal(anyhow::anyhow!(
                "the output is not UTF-8 text ({e}), which a JSON string cannot carry"
            ))
            .with_hint("drop `--format json` to get the bytes as they are")
        })?;
        crate::report::json::write_value(&mut out, &serde_json::json!({ "output": text }))
            .map_err(CommandError::fault)?;
        out.flush().map_err(CommandError::fault)
    } else {
        // The data asked for, byte for byte (a manifest for kubectl, say): not escaped.
        let mut out = raw_stdout();
        out.write_all(output).map_err(CommandError::fault)?;
        out.flush().map_err(CommandError::fault)
    }
}

/// True when stderr is a terminal (progress bars, spinners).
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oci_address_is_named_for_the_operator_that_reads_it() {
        use crate::targets::TargetKind;
        let write = |target, providers: &[(&str, &str)]| {
            let mut out = Vec::new();
            write_clusterctl_urls(
                &mut out,
                "  ",
                target,
                providers.iter().copied(),
                providers.first().map(|p| p.1),
            )
            .unwrap();
            String::from_utf8(out).unwrap()
        };
        let one = [("infrastructure-aws", "oci://ghcr.io/o/aws:v1")];
        assert_eq!(
            write(TargetKind::Oci, &one),
            "  cluster-api-operator reference: oci://ghcr.io/o/aws:v1\n"
        );
        assert_eq!(
            write(
                TargetKind::Local,
                &[("infrastructure-aws", "file:///r/c.yaml")]
            ),
            "  clusterctl URL: file:///r/c.yaml\n"
        );
        let two = [("bootstrap-x", "u1"), ("control-plane-x", "u2")];
        assert_eq!(
            write(TargetKind::Github, &two),
            "  clusterctl URL (bootstrap-x): u1\n  clusterctl URL (control-plane-x): u2\n"
        );
    }
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_classified_error_keeps_its_class_hint_and_causes() {
        let refused =
            crate::files::Error::BadName(crate::files::check_release_name("a b.yaml").unwrap_err());
        let failure = CommandError::from_classified(refused);
        assert_eq!(failure.exit, 1);
        assert!(
            failure
                .error
                .downcast_ref::<crate::files::Error>()
                .is_some()
        );
        let unreadable = crate::files::Error::Read {
            path: PathBuf::from("x.yaml"),
            source: io::Error::other("disk on fire"),
        };
        let failure = CommandError::from_classified(unreadable);
        assert_eq!(failure.exit, 2);
        let causes: Vec<String> = failure.error.chain().map(ToString::to_string).collect();
        assert_eq!(causes, ["cannot read `x.yaml`", "disk on fire"]);
        let none_found = crate::files::Error::NoReleaseFiles { paths: vec![] };
        let failure = CommandError::from_classified(none_found);
        assert_eq!(failure.exit, 2);
        assert!(failure.hint.is_some_and(|h| h.contains("metadata.yaml")));
    }

    /// A refusal the library classified keeps exit 1 through a command's `?`s: nothing on the
    /// way out turns it into a fault.
    #[cfg(unix)]
    #[test]
    fn a_classified_refusal_keeps_exit_1_through_a_command() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("capkg.yaml");
        std::fs::write(&config, "lint:\n  allow: []\n").unwrap();
        let real = dir.path().join("real.yaml");
        std::fs::write(&real, "name: x\n").unwrap();
        // A link named like a release file: clusterctl would fetch something else, so refused.
        std::os::unix::fs::symlink(&real, dir.path().join("metadata.yaml")).unwrap();
        let cli = Cli::try_parse_from([
            "capkg".as_ref(),
            "lint".as_ref(),
            "--config".as_ref(),
            config.as_os_str(),
            dir.path().as_os_str(),
        ])
        .unwrap();
        let Err(error) = run(cli) else {
            panic!("a link named metadata.yaml was linted");
        };
        let refused = error.error.downcast_ref::<crate::files::Error>();
        assert!(
            refused.is_some_and(|e| e.class() == ErrorClass::Refusal),
            "{:#}",
            error.error
        );
        assert_eq!(error.exit, 1);
    }

    #[test]
    fn shared_flags_parse_the_same_everywhere() {
        let cli = Cli::try_parse_from([
            "capkg",
            "lint",
            "--type",
            "InfrastructureProvider",
            "--provider",
            "aws",
            "--version",
            "v1.2.3",
            "--format",
            "json",
            "dir",
        ])
        .unwrap();
        let Command::Lint(args) = cli.command else {
            panic!("not lint");
        };
        assert_eq!(
            args.provider.provider_type,
            Some(ProviderType::Infrastructure)
        );
        assert_eq!(args.provider.provider.as_deref(), Some("aws"));
        assert_eq!(cli.global.format, Format::Json);
        assert!(Cli::try_parse_from(["capkg", "lint", "--type", "infra"]).is_err());
        assert!(Cli::try_parse_from(["capkg", "lint", "--provider", "My_Provider"]).is_err());
        assert!(Cli::try_parse_from(["capkg", "lint", "--version", "1.2"]).is_err());
    }

    #[test]
    fn var_flags_split_at_the_first_equals_sign() {
        assert_eq!(parse_var("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert_eq!(parse_var("A="), Ok(("A".into(), String::new())));
        assert!(parse_var("=x").is_err());
        assert!(parse_var("A").is_err());
    }
}
