//! `capkg verify SOURCE`: read a published release as clusterctl does and lint it.
//!
//! Prints the report ([`crate::verify::VerifyReport`]) as text or JSON. In GitHub Actions (or with
//! `--format github`) findings become annotations, within GitHub's per-step caps, and a Markdown
//! summary is appended to `GITHUB_STEP_SUMMARY`.

use std::io::Write;

use clap::Args;

use super::network::{runtime, services};
use super::output::{plain_style, uses_annotations, write_annotations};
use super::publish::{HttpLimitArgs, ReadLimitArgs};
use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status};
use crate::ci::{self, CiContext};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;
use crate::report::{self, Format};
use crate::settings::{self, CommandLine, Need};
use crate::sigstore::verify::{Policy, TrustedRoot};
use crate::verify::provenance::{Requirement, SignaturePolicy};
use crate::verify::{self, VerifyReport, VerifyRequest};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A provider URL as in clusterctl's configuration (GitHub release, GitLab package,
    /// `file://`), a directory, or `oci://REF` with REF as cluster-api-operator's
    /// `spec.fetchConfig.oci` holds it (`http://` for a plain-http registry).
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// API base URL (GitHub Enterprise, a test server); default GITHUB_API_URL, else
    /// https://api.github.com. The SOURCE keeps its github.com form: `https://github.com/O/R/
    /// releases/TAG/FILE` is read as `{api}/repos/O/R/releases/tags/TAG` and its assets.
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// For `oci://REF`: the provider's `spec.version`, which names the layers the operator
    /// reads (default: the tag in REF). For a folder outside the `{label}/{version}/` layout
    /// (`out/`): the version being released, checked as `lint --version` does.
    #[arg(long, value_name = "VERSION")]
    pub version: Option<String>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// capkg's configuration file, for its `lint: allow:` waivers; default: the nearest
    /// `capkg.yaml` up to the repository root, if there is one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// The longest capkg waits before a retry, as for `publish`: a GitHub rate limit that resets
    /// later fails at once with clusterctl's rate-limit message (`90s`, `10m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::units::parse_duration)]
    pub max_wait: std::time::Duration,
    /// Fail unless the release has its provenance statement (`capkg-provenance.intoto.json`,
    /// which `capkg release` publishes) and every file it names is served with its digest. A
    /// statement is checked whenever there is one; this makes one required.
    #[arg(long)]
    pub require_provenance: bool,
    /// Assemble the release again from the commit its provenance statement names (checked out
    /// into a temporary folder from `--repository`) and compare every file byte for byte with
    /// what is served. Implies `--require-provenance`.
    #[arg(long)]
    pub rebuild: bool,
    /// Check the provenance statement's signature (`capkg-provenance.sigstore.json`, a Sigstore
    /// bundle) against this Sigstore trusted root (`trusted_root.json`: the Fulcio CAs and Rekor
    /// keys); the signature is then required. Implies `--require-provenance`.
    #[arg(long, value_name = "FILE", requires = "certificate_oidc_issuer")]
    pub trusted_root: Option<std::path::PathBuf>,
    /// The signing certificate's identity, exactly (its SAN: for GitHub Actions
    /// `https://github.com/O/R/.github/workflows/release.yml@refs/tags/v1.2.3`).
    #[arg(long, value_name = "SAN", requires = "trusted_root")]
    pub certificate_identity: Option<String>,
    /// The signing certificate's identity, as a regular expression (unanchored, as cosign's).
    #[arg(long, value_name = "REGEX", requires = "trusted_root")]
    pub certificate_identity_regexp: Option<String>,
    /// The OIDC issuer the certificate names (GitHub Actions:
    /// `https://token.actions.githubusercontent.com`; GitLab: `https://gitlab.com`).
    #[arg(long, value_name = "URL", requires = "trusted_root")]
    pub certificate_oidc_issuer: Option<String>,
    /// The git repository holding the commit `--rebuild` checks out (a clone of the provider's
    /// repository); it is only read.
    #[arg(long, value_name = "DIR", default_value = ".", requires = "rebuild")]
    pub repository: std::path::PathBuf,
    #[command(flatten)]
    pub limits: HttpLimitArgs,
    #[command(flatten)]
    pub read_limits: ReadLimitArgs,
}

pub(super) fn run(global: &GlobalArgs, args: VerifyArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let ci = CiContext::detect(&env);
    let (source, login_warning) = super::given_reference(&args.source);
    let signature = signature_policy(&args)?;
    let request = VerifyRequest {
        source,
        provider_name: args.provider.provider,
        provider_type: args.provider.provider_type,
        version: args.version,
        check_images: true,
        skip_checks: false,
        provenance: if args.require_provenance || args.rebuild || signature.is_some() {
            Requirement::Required
        } else {
            Requirement::WhenPresent
        },
        signature,
    };
    let line = CommandLine {
        config: args.config.clone(),
        api_url: args.api_url.clone(),
        ..CommandLine::default()
    };
    let found =
        settings::resolve(&line, Need::Read, &ci, &env).map_err(CommandError::from_classified)?;
    let settings = found.reading.clone();
    // The same switches as `capkg release`: capkg.yaml `check_images: false`, or the variable.
    let request = VerifyRequest {
        check_images: found.images.is_on(),
        ..request
    };
    // clusterctl's words first: what it would refuse is said before anything is fetched.
    let said_first = verify::warnings_before_reading(&request.source);
    if !global.quiet {
        let mut stderr = super::stderr();
        for warning in &said_first {
            let _ = writeln!(stderr, "warning: {}", escape::text(warning));
        }
    }
    let mut services = services(global, &args.limits, &args.read_limits);
    services.policy.max_wait = args.max_wait;
    let mut report = runtime()?
        .block_on(verify::verify(&request, &settings, services))
        .map_err(CommandError::from_classified)?;
    report = report.waive(&found.waivers, crate::rules::waivers::Judged::Published);
    if args.rebuild {
        let check = crate::release::rebuild::rebuild(&report.attested, &args.repository, &env);
        report = report.with_check(check);
    }
    report.warnings.extend(login_warning);
    write_report(global, &ci, &report, &said_first).map_err(CommandError::fault)?;
    if let Some(path) = ci.step_summary.as_deref().filter(|_| ci.is_github()) {
        ci::append_step_summary(path, &report::verify::markdown(&report))
            .map_err(CommandError::fault)?;
    }
    Ok(if report.ok {
        Status::Success
    } else {
        Status::Findings
    })
}

/// `--trusted-root` and the identity flags, read and checked before anything is fetched.
fn signature_policy(args: &VerifyArgs) -> Result<Option<SignaturePolicy>, CommandError> {
    let Some(path) = &args.trusted_root else {
        return Ok(None);
    };
    // A bad flag or an unreadable file given: capkg cannot do its job (exit 2).
    let usage = |message: String| CommandError::fault(anyhow::anyhow!(message));
    if args.certificate_identity.is_none() && args.certificate_identity_regexp.is_none() {
        return Err(usage(
            "--trusted-root needs whose signature to accept: --certificate-identity or --certificate-identity-regexp".into(),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        usage(format!(
            "cannot read the trusted root `{}`: {e}",
            path.display()
        ))
    })?;
    let root = TrustedRoot::parse(&bytes).map_err(|e| {
        usage(format!(
            "`{}` is not a Sigstore trusted root: {e}",
            path.display()
        ))
    })?;
    let identity_regexp = args
        .certificate_identity_regexp
        .as_deref()
        .map(regex::Regex::new)
        .transpose()
        .map_err(|e| usage(format!("--certificate-identity-regexp: {e}")))?;
    Ok(Some(SignaturePolicy {
        root,
        policy: Policy {
            identity: args.certificate_identity.clone(),
            identity_regexp,
            issuer: args.certificate_oidc_issuer.clone(),
        },
    }))
}

/// `said_first`: warnings already on stderr, not repeated in the text report.
fn write_report(
    global: &GlobalArgs,
    ci: &CiContext,
    report: &VerifyReport,
    said_first: &[String],
) -> std::io::Result<()> {
    let mut out = super::stdout();
    if global.format == Format::Json {
        report::json::write_value(&mut out, report)?;
        return Ok(());
    }
    // What the release and its server say is shown, not acted on.
    let what = format!(
        "{} {}",
        escape::text(report.provider_label.as_deref().unwrap_or("release")),
        escape::text(report.version.as_deref().unwrap_or(""))
    );
    let what = what.trim_end();
    if !global.quiet {
        writeln!(out, "Read {what} from `{}`", escape::text(&report.source))?;
        if let Some(latest) = &report.latest {
            writeln!(out, "latest: {}", escape::text(&latest.version))?;
            for skipped in &latest.skipped {
                writeln!(out, "  skipped {}", escape::text(skipped))?;
            }
            if let Some(series) = &latest.contract_series {
                writeln!(out, "  chosen from release series {}", escape::text(series))?;
            }
        }
        let names: Vec<_> = report.files.iter().map(|f| escape::text(&f.name)).collect();
        let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
        for (file, name) in report.files.iter().zip(&names) {
            writeln!(
                out,
                "  {:<width$}  {:>9}  {}",
                name,
                file.size,
                escape::text(&file.sha256)
            )?;
        }
        for check in &report.checks {
            writeln!(
                out,
                "{} {}: {}",
                if check.ok { "ok  " } else { "FAIL" },
                check.name,
                escape::text(&check.message)
            )?;
        }
    }
    if uses_annotations(global, ci) {
        // Failed checks first, so that they are always annotated.
        let mut all: Vec<Diagnostic> = report
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| {
                Diagnostic::new(
                    "capkg/verify",
                    Severity::Error,
                    None,
                    None,
                    format!("{}: {}", c.name, c.message),
                    "",
                )
            })
            .collect();
        all.extend(report.diagnostics.iter().cloned());
        all.extend(report.warnings.iter().map(|w| {
            Diagnostic::new("capkg/verify", Severity::Warning, None, None, w.clone(), "")
        }));
        write_annotations(&mut out, &all)?;
    } else {
        report::human::write_diagnostics(
            &mut out,
            plain_style(global, ci),
            &report.diagnostics,
            &report.summary,
        )?;
        if !global.quiet {
            for warning in report.warnings.iter().filter(|w| !said_first.contains(w)) {
                writeln!(out, "warning: {}", escape::text(warning))?;
            }
        }
    }
    if report.ok {
        if !global.quiet {
            let reader = match report.repository {
                verify::RepositoryKind::Oci => "cluster-api-operator",
                _ => "clusterctl",
            };
            writeln!(out, "Verified {what}: {reader} can read it.")?;
        }
    } else {
        let failed: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name)
            .collect();
        writeln!(
            out,
            "Verification of {what} failed: {} lint error(s){}.",
            report.summary.errors,
            if failed.is_empty() {
                String::new()
            } else {
                format!(", failed checks: {}", failed.join(", "))
            }
        )?;
    }
    Ok(())
}
