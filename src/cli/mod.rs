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
mod init;
mod lint;
mod publish;
mod release;
mod render;
mod rules;
mod subst;
mod variables;
mod vars;
mod verify;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

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

/// Flags every command takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to use colour (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only errors and the data asked for.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more about what is happening (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
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
    /// Read a published release as clusterctl does and lint it.
    Verify(verify::VerifyArgs),
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

/// A provider name as `clusterctl init` accepts it (a DNS-1123 label).
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
    Failure,
}

/// Why a command could not finish.
#[derive(Debug)]
pub struct Failure {
    pub error: anyhow::Error,
    /// 1 when the input is wrong, 2 when capkg could not do its job.
    pub exit: u8,
    /// What to do about it.
    pub hint: Option<String>,
}

impl Failure {
    /// The input is wrong (exit 1).
    pub fn input(error: impl Into<anyhow::Error>) -> Self {
        Self {
            error: error.into(),
            exit: 1,
            hint: None,
        }
    }

    /// capkg could not do its job (exit 2).
    pub fn internal(error: impl Into<anyhow::Error>) -> Self {
        Self {
            error: error.into(),
            exit: 2,
            hint: None,
        }
    }

    /// Exit 1 when the library says the input (or a remote) refused, 2 otherwise; keeps the hint.
    pub fn classified(
        refusal: bool,
        hint: Option<String>,
        error: impl Into<anyhow::Error>,
    ) -> Self {
        let failure = if refusal {
            Failure::input(error)
        } else {
            Failure::internal(error)
        };
        match hint {
            Some(hint) => failure.with_hint(hint),
            None => failure,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure::internal(error)
    }
}

pub type CommandResult = Result<Status, Failure>;

/// Entry point used by `main.rs`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version to stdout with exit 0, usage errors to stderr.
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    let global = cli.global.clone();
    let result = run(cli);
    match result {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::Failure) => ExitCode::from(1),
        Err(failure) if is_broken_pipe(&failure.error) => ExitCode::SUCCESS,
        Err(failure) => {
            print_failure(&global, &failure);
            ExitCode::from(failure.exit)
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CommandResult {
    let global = &cli.global;
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
        Command::Verify(args) => verify::run(global, args),
        Command::Completions(args) => completions::run(global, args),
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `error: <message>`, one `caused by:` line per source, then `hint:`.
fn print_failure(global: &GlobalArgs, failure: &Failure) {
    let color = global.color.enabled_for_stderr();
    let (red, yellow, reset) = if color {
        ("\x1b[1;31m", "\x1b[1;33m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    // Every line goes through `redact`: a message may quote a server or a subprocess.
    let redact = crate::targets::http::redact;
    let mut err = io::stderr().lock();
    let _ = writeln!(
        err,
        "{red}error{reset}: {}",
        redact(&failure.error.to_string())
    );
    for cause in failure.error.chain().skip(1) {
        let _ = writeln!(err, "  caused by: {}", redact(&cause.to_string()));
    }
    let hint = failure.hint.clone().or_else(|| known_hint(&failure.error));
    if let Some(hint) = hint {
        let _ = writeln!(err, "\n{yellow}hint{reset}: {}", redact(&hint));
    }
}

/// Hints carried by library errors that know the fix.
fn known_hint(error: &anyhow::Error) -> Option<String> {
    error.chain().find_map(|cause| {
        cause
            .downcast_ref::<crate::files::Error>()
            .and_then(|e| e.hint())
            .map(str::to_string)
    })
}

/// Writes to stdout, mapping a closed pipe to a quiet exit.
pub fn stdout() -> io::StdoutLock<'static> {
    io::stdout().lock()
}

/// True when stderr is a terminal (progress bars, spinners).
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
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
