//! `capkg lint [PATH]...`: every rule over files and folders.
//!
//! Without a PATH, where a capkg.yaml is found, lint reads what the release ships: the files
//! assembled from the sources capkg.yaml names, as `capkg release --dry-run` checks them (the
//! repository's e2e data and CI-only templates are not the release). `--all`, or no capkg.yaml,
//! lints every YAML file under the current folder. stderr and the JSON (`linted`) say which.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::ci::CiContext;
use crate::diagnostic::{Diagnostic, Severity, Summary};
use crate::escape;
use crate::report::json::LintScope;
use crate::report::{self, Format, Style};
use crate::rules::{self};
use crate::settings::{self, CommandLine, Need};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files and folders to check (folders are searched for release files); default: the
    /// release capkg.yaml describes, as assembled, where there is one, else `.`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Lint every YAML file under the current folder, not the release capkg.yaml describes.
    #[arg(long, conflicts_with = "paths")]
    pub all: bool,
    /// The version being released (`v1.2.3`): checks `metadata.yaml` covers it and images carry it.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Accept a rule's findings (repeatable): `--allow RULE=REASON`, or `--allow RULE` (the
    /// reason then says it came from the command line). Waived findings are still shown, with
    /// the reason, and do not fail the run; `lint: allow:` in capkg.yaml says the same per file.
    #[arg(long, value_name = "RULE[=REASON]", value_parser = parse_allow)]
    pub allow: Vec<rules::Waiver>,
    /// capkg's configuration file, for its `lint: allow:` waivers; default: the nearest
    /// `capkg.yaml` up to the repository root, if there is one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

fn parse_allow(text: &str) -> Result<rules::Waiver, String> {
    rules::Waiver::from_flag(text)
}

pub(super) fn run(global: &GlobalArgs, args: LintArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let ci = CiContext::detect(&env);
    let release_view = args.paths.is_empty()
        && !args.all
        && (args.config.is_some() || crate::config::Config::discover(Path::new(".")).is_some());
    if release_view && let Some(linted) = lint_release(global, &args, &ci, &env)? {
        return report(global, &args, linted);
    }
    // The waivers first: a configuration capkg cannot read is reported before anything else.
    let line = CommandLine {
        config: args.config.clone(),
        allow: args.allow.clone(),
        ..CommandLine::default()
    };
    let settings =
        settings::resolve(&line, Need::Lint, &ci, &env).map_err(CommandError::from_classified)?;
    let paths = match args.paths.is_empty() {
        true => vec![PathBuf::from(".")],
        false => args.paths.clone(),
    };
    let releases = crate::files::load_releases(&paths, args.provider.provider_type)
        .map_err(CommandError::from_classified)?;
    let options = rules::Options {
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider.clone(),
        version: args.version.clone(),
    };
    let mut diagnostics = rules::run(&releases, &options);
    settings.waivers.apply_judged(
        &mut diagnostics,
        rules::waivers::Scope::Lint,
        rules::waivers::Judged::Linted,
    );
    let files = releases.iter().map(|r| r.files.len()).sum();
    let scope = LintScope {
        view: "paths",
        config: None,
        files: paths.iter().map(|p| p.display().to_string()).collect(),
    };
    report(global, &args, (diagnostics, files, scope))
}

/// What was linted: the findings (waived), the number of files, and what they were.
type Linted = (Vec<Diagnostic>, usize, LintScope);

/// The release capkg.yaml describes, assembled in memory and linted as `release --dry-run`
/// does; nothing is written. `None` when the configuration names no components (a capkg.yaml
/// kept for its waivers): the folder is linted then.
fn lint_release(
    global: &GlobalArgs,
    args: &LintArgs,
    ci: &CiContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Linted>, CommandError> {
    let line = CommandLine {
        config: args.config.clone(),
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider.clone(),
        version: args.version.clone(),
        allow: args.allow.clone(),
        ..CommandLine::default()
    };
    let all_hint = |error: CommandError| {
        let all = "`capkg lint --all` lints the repository's YAML files as they are";
        let hint = match &error.hint {
            Some(hint) => format!("{hint}; {all}"),
            None => all.to_string(),
        };
        error.with_hint(hint)
    };
    let settings = settings::resolve(&line, Need::Assemble, ci, env)
        .map_err(|e| all_hint(CommandError::from_classified(e)))?;
    let mut stderr = super::stderr();
    if settings
        .sources
        .providers
        .iter()
        .all(|p| p.components.is_empty())
    {
        if !global.quiet {
            let _ = writeln!(
                stderr,
                "note: capkg.yaml names no components, so there is no release to lint: linting every YAML file under `.`"
            );
        }
        return Ok(None);
    }
    let mut release = crate::assemble::build(&settings.sources, &settings.assemble_options(false))
        .map_err(|e| all_hint(CommandError::from_classified(e)))?;
    settings.waivers.apply(&mut release.diagnostics);
    release.drop_parts();
    let config = args
        .config
        .clone()
        .or_else(|| crate::config::Config::discover(Path::new(".")))
        .unwrap_or_default();
    let files: Vec<String> = release
        .all_files()
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect();
    if !global.quiet {
        if let Some(warning) = settings.version.as_ref().and_then(|v| v.warning.as_ref()) {
            let _ = writeln!(stderr, "warning: {}", escape::text(warning));
        }
        let _ = writeln!(
            stderr,
            "capkg lint: linting the release `{}` describes, assembled in memory as `capkg release --dry-run` checks it ({} {}, {} files: {}); `capkg lint --all` lints every YAML file of the repository",
            escape::text(&config.display().to_string()),
            escape::text(&release.provider_label()),
            settings
                .version()
                .map(ToString::to_string)
                .unwrap_or_else(|| "(no version)".into()),
            files.len(),
            escape::text(&files.join(", ")),
        );
    }
    let count = release.summary().files;
    let scope = LintScope {
        view: "release",
        config: Some(config.display().to_string()),
        files,
    };
    Ok(Some((
        std::mem::take(&mut release.diagnostics),
        count,
        scope,
    )))
}

/// Prints the findings in the chosen format; exit 1 on errors (or warnings with
/// `--deny-warnings`).
fn report(global: &GlobalArgs, args: &LintArgs, linted: Linted) -> CommandResult {
    let (mut diagnostics, files, scope) = linted;
    // The summary counts every finding: `-q` hides warnings, it does not make them go away.
    let summary = Summary::of(&diagnostics, files);
    if global.quiet {
        diagnostics.retain(|d| d.severity == Severity::Error);
    }
    let mut out = super::stdout();
    report::write_lint_of(
        &mut out,
        global.format,
        Style::for_stdout(global.color),
        &diagnostics,
        &summary,
        (global.format == Format::Json).then_some(&scope),
    )
    .map_err(CommandError::fault)?;
    let failed = summary.errors > 0 || (args.deny_warnings && summary.warnings > 0);
    Ok(if failed {
        Status::Findings
    } else {
        Status::Success
    })
}
