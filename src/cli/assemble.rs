//! `capkg assemble`: the release directory from `capkg.yaml` and the sources.
//!
//! Flags override the configuration file field by field; without a `capkg.yaml` the flags alone
//! may describe the release. Exit codes: 1 when the sources are wrong (a failing components
//! command, two Namespaces, lint errors in what would be written); 2 when capkg cannot do its job
//! (a bad or missing configuration, unreadable paths, a program that cannot be started, a folder
//! that cannot be written).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::assemble;
use crate::ci::CiContext;
use crate::config::{Command, ComponentsSource};
use crate::escape;
use crate::release::tags;
use crate::report::{self, Format, Style};
use crate::settings::{self, CommandLine, Need};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// capkg's configuration file; default: `capkg.yaml` at the repository root.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The version being released (`v1.2.3`); default: the CI tag (`GITHUB_REF_NAME` on a tag
    /// push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `release` follows).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    /// Where to write the release (default `out/`, or `output:` in capkg.yaml).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Components from files or folders of manifests, concatenated (repeatable; replaces
    /// `components:`).
    #[arg(
        long = "components",
        value_name = "PATH",
        conflicts_with = "components_command"
    )]
    pub components: Vec<PathBuf>,
    /// Components from a command's standard output, run with `sh -c` in the configuration's
    /// folder (replaces `components:`).
    #[arg(long, value_name = "COMMAND")]
    pub components_command: Option<String>,
    /// `metadata.yaml` of the release (replaces `metadata:`).
    #[arg(long, value_name = "FILE")]
    pub metadata: Option<PathBuf>,
    /// Globs for cluster templates and ClusterClass files (repeatable; replaces `templates:`).
    #[arg(long = "templates", value_name = "GLOB")]
    pub templates: Vec<String>,
    /// The namespace the components install into (replaces `namespace:`).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
}

/// A flag path, made absolute against the current folder so that it means the same after the
/// configuration's folder becomes the root.
fn from_cwd(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Where a refused release is written for reading its findings: beside `out`, named so that it
/// is never taken for the release (`out` -> `out.rejected`).
fn rejected_dir(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "release".to_string());
    let parent = out.parent().unwrap_or(Path::new(""));
    parent.join(format!("{name}{}", crate::release_dir::REJECTED_SUFFIX))
}

pub(super) fn run(global: &GlobalArgs, args: AssembleArgs) -> CommandResult {
    let components = if !args.components.is_empty() {
        Some(ComponentsSource::Files(
            args.components.iter().map(|p| from_cwd(p)).collect(),
        ))
    } else {
        args.components_command
            .as_ref()
            .map(|line| ComponentsSource::Command(Command::Shell(line.clone())))
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let line = CommandLine {
        config: args.config.clone(),
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider.clone(),
        components,
        metadata: args.metadata.as_deref().map(from_cwd),
        templates: args
            .templates
            .iter()
            .map(|glob| {
                if Path::new(glob).is_absolute() {
                    glob.clone()
                } else {
                    cwd.join(glob).display().to_string()
                }
            })
            .collect(),
        namespace: args.namespace.clone(),
        out: args.out.clone(),
        version: args.version.clone(),
        ..CommandLine::default()
    };
    // The one order `release` follows: `--version`, the CI tag, `version:` in capkg.yaml.
    let env = |name: &str| std::env::var(name).ok();
    let mut settings = settings::resolve(&line, Need::Assemble, &CiContext::detect(&env), &env)
        .map_err(CommandError::from_classified)?;
    // `digest: from-registry`: asked of the registry as `release` asks it, with the same logins.
    if !assemble::images::registry_lookups(&settings.sources.pins).is_empty() {
        let reading =
            crate::verify::Settings::resolve(None, &env).map_err(CommandError::from_classified)?;
        settings.sources.pins = super::network::runtime()?
            .block_on(settings::registry_digests(
                &settings.sources.pins,
                &reading.origins,
                &crate::forge::Services::default(),
            ))
            .map_err(CommandError::from_classified)?;
    }
    if let Some(warning) = settings.version.as_ref().and_then(|v| v.warning.as_ref()) {
        let _ = writeln!(super::stderr(), "warning: {}", escape::text(warning));
    }
    let version = settings.version().cloned();
    let out = settings.output.clone();
    let mut release = assemble::build(
        &settings.sources,
        // What assembling changed is printed with -v only.
        &settings.assemble_options(global.verbose > 0),
    )
    .map_err(CommandError::from_classified)?;
    // The git tags `clusterctl upgrade plan` will ask about, as `release` checks them: seen
    // here, before CI, and waivable like any finding.
    let metadata = release.parts.iter().find_map(|(part, _)| part.metadata());
    let tags = tags::in_checkout(&settings.root, metadata, version.as_ref())
        .map_err(CommandError::from_classified)?;
    let tag_finding = metadata.and_then(|metadata| tags::finding(&tags, metadata));
    release.diagnostics.extend(tag_finding);
    // The report: waivers first, so that a finding is judged where the sources name it.
    settings.waivers.apply(&mut release.diagnostics);
    release.drop_parts();
    // A refused release leaves `out` alone; findings that name its assembled files are made to
    // name them where it is written for reading, a folder no one takes for a release.
    let rejected = rejected_dir(&out);
    let written = if release.has_errors() {
        let mut diagnostics = std::mem::take(&mut release.diagnostics);
        let written = release.write_for_findings(&mut diagnostics, &out, &rejected);
        release.diagnostics = diagnostics;
        written
    } else {
        None
    };
    if written.is_none() {
        // A release rejected earlier no longer describes these sources; a folder holding
        // anything but release files is not capkg's and stays.
        let _ = assemble::write::remove_release_dir(&rejected);
    }
    let rejected_note = written.map(|written| match written {
        Ok(()) => format!(
            "; the findings name the release as assembled, written to `{}` to read them (not a release: fix the sources and assemble again)",
            rejected.display()
        ),
        Err(error) => format!(
            "; the findings name the release as assembled, which could not be written to `{}` to read them ({error})",
            rejected.display()
        ),
    });

    let mut stderr = super::stderr();
    if global.verbose > 0 {
        for (name, changes) in &release.changes {
            for change in changes {
                let change = change.to_string();
                let _ = writeln!(stderr, "{}: {}", escape::text(name), escape::text(&change));
            }
        }
    }
    let mut shown = release.diagnostics.clone();
    if global.quiet {
        shown.retain(|d| d.severity == crate::diagnostic::Severity::Error);
    }
    let report = |shown: &[crate::diagnostic::Diagnostic]| -> Result<(), CommandError> {
        report::write_lint(
            &mut super::stdout(),
            global.format,
            Style::for_stdout(global.color),
            shown,
            &release.summary(),
        )
        .map_err(CommandError::fault)
    };
    if release.has_errors() {
        report(&shown)?;
        let _ = writeln!(
            stderr,
            "capkg assemble: {} lint error(s) in the assembled release; nothing was written to `{}`{}",
            release.error_count(),
            out.display(),
            rejected_note.unwrap_or_default()
        );
        return Ok(Status::Findings);
    }
    release.write(&out).map_err(CommandError::from_classified)?;
    // Written: the warnings themselves (not only their count), and the one JSON document.
    if !shown.is_empty() || global.format == Format::Json {
        report(&shown)?;
    }
    if !global.quiet {
        if version.is_none() {
            let _ = writeln!(
                stderr,
                "note: no version given (`--version`, `version:` or a CI tag); metadata.yaml was not checked against one"
            );
        }
        let warnings = release.summary().warnings;
        let _ = writeln!(
            stderr,
            "assembled {} {} into `{}`: {} files{}",
            escape::text(&release.provider_label()),
            version
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            out.display(),
            release.files.len() + 1,
            if warnings > 0 {
                format!(", {warnings} lint warning(s)")
            } else {
                String::new()
            } + &match release.summary().waived {
                0 => String::new(),
                waived => format!(", {waived} waived finding(s)"),
            }
        );
        if global.format != Format::Json {
            for file in release.all_files() {
                let _ = writeln!(stderr, "  {}", escape::text(file.0));
            }
        }
    }
    Ok(Status::Success)
}
