//! An [`Outcome`] for CI: the Markdown step summary (GitHub's `GITHUB_STEP_SUMMARY`, GitLab's
//! log) and the outputs later steps read (`GITHUB_OUTPUT`).
//!
//! The summary holds what a maintainer checks after a release: files and checksums, where each
//! target put them and the clusterctl URL, the clusterctl configuration, the checks, every lint
//! finding (annotations stop at GitHub's caps; the summary does not, up to
//! [`MAX_DIAGNOSTIC_ROWS`]), warnings, and when something failed, what is done and what is not.
//!
//! Outputs: `version`, `status`, `provider-label` (a single-provider release), `clusterctl-url`
//! (the first target's, first provider's), per provider `<label>-clusterctl-url` (the first
//! target's) and `<target>-<label>-clusterctl-url`, `<target>-clusterctl-url` (first provider)
//! and `<target>-url` (where the files went) per target, and `clusterctl-config` (multi-line,
//! the first target's `providers:` entries, one per provider).
//!
//! Every text the summary quotes is escaped for Markdown as [`crate::escape`] says: names in
//! code spans that no backtick can leave, other text without links, images or HTML, and each
//! table cell one cell. Outputs are values for later steps, given as they are
//! ([`crate::ci::output_lines`] keeps each one a value).

use crate::diagnostic::Severity;
use crate::escape::{cell, code_span, inline};
use crate::release::outcome::{Outcome, Status, TargetReport, TargetState};
use crate::release::plan::Mode;

/// The most lint findings listed in a summary (GitHub caps a summary at 1 MiB).
pub(crate) const MAX_DIAGNOSTIC_ROWS: usize = 200;

/// The step summary.
pub(crate) fn markdown(outcome: &Outcome) -> String {
    let mut md = String::new();
    let status = match outcome.status {
        Status::Published => "published",
        Status::Unchanged => "already published, nothing changed",
        Status::DryRun => "dry run, nothing changed",
        Status::Refused if outcome.mode == Mode::Promote => "refused, nothing made public",
        Status::Failed if outcome.mode == Mode::Promote => "failed, nothing made public",
        Status::Refused => "refused, nothing published",
        Status::Failed => "failed, nothing published",
        Status::Incomplete => "incomplete",
        Status::Drafted => "drafted, not yet installable (`capkg promote` makes it public)",
        Status::Promoted => "promoted: public and verified",
        Status::AlreadyPromoted => "already promoted, nothing changed",
    };
    let icon = match outcome.status {
        Status::Published | Status::Unchanged | Status::Promoted | Status::AlreadyPromoted => "✅",
        Status::DryRun | Status::Drafted => "📝",
        Status::Refused | Status::Failed | Status::Incomplete => "❌",
    };
    let command = match outcome.mode {
        Mode::Release => "capkg release",
        Mode::Draft => "capkg release --draft",
        Mode::Promote => "capkg promote",
    };
    md.push_str(&format!(
        "## {icon} {command} {}: {status}\n\n",
        inline(outcome.version.as_deref().unwrap_or("(no version)"))
    ));
    if let (Some(label), Some(provider)) = (&outcome.provider_label, &outcome.provider) {
        md.push_str(&format!(
            "Provider {} ({} {})",
            code_span(label),
            provider.provider_type,
            code_span(&provider.name)
        ));
        if let Some(source) = &outcome.version_source {
            md.push_str(&format!(", version from {}", code_span(source)));
        }
        md.push_str(".\n\n");
    } else if outcome.providers.len() > 1 {
        md.push_str(&format!(
            "Providers {}",
            outcome
                .providers
                .iter()
                .map(|p| code_span(&p.label))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if let Some(source) = &outcome.version_source {
            md.push_str(&format!(", version from {}", code_span(source)));
        }
        md.push_str(".\n\n");
    }
    if let Some(error) = &outcome.error {
        // A quoted command's stderr, line by line, reads as one quoted paragraph.
        let message = error.message.replace('\n', " ");
        md.push_str(&format!("> **Error:** {}\n", inline(&message)));
        if let Some(hint) = &error.hint {
            md.push_str(&format!(">\n> **Hint:** {}\n", inline(hint)));
        }
        md.push('\n');
    }

    if !outcome.targets.is_empty() {
        md.push_str("### Targets\n\n| target | result | clusterctl URL |\n| --- | --- | --- |\n");
        for target in &outcome.targets {
            let urls = if target.providers.len() > 1 {
                target
                    .providers
                    .iter()
                    .map(|p| {
                        format!(
                            "{}: {}",
                            cell(&inline(&p.label)),
                            cell(&code_span(&p.clusterctl_url))
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            } else {
                target
                    .clusterctl_url
                    .as_deref()
                    .map_or_else(String::new, |u| cell(&code_span(u)))
            };
            md.push_str(&format!(
                "| {} | {} | {urls} |\n",
                target.target,
                cell(&inline(&target_result(target))),
            ));
        }
        md.push('\n');
        if let Some(config) = outcome
            .targets
            .iter()
            .find_map(|t| t.plan.as_ref().map(|p| p.clusterctl_config.clone()))
        {
            // capkg's own YAML, its values quoted: no line of it can close the fence.
            md.push_str(
                "clusterctl configuration (`~/.config/cluster-api/clusterctl.yaml`):\n\n```yaml\n",
            );
            md.push_str(&crate::escape::lines(&config, ""));
            md.push_str("```\n\n");
        }
    }

    let upgrades: Vec<_> = outcome
        .targets
        .iter()
        .flat_map(|t| t.upgrade.iter().map(move |u| (t.target, u)))
        .collect();
    if !upgrades.is_empty() {
        md.push_str("### Upgrade from the previous release\n\n");
        for (target, upgrade) in upgrades {
            match (&upgrade.diff, &upgrade.note) {
                (Some(diff), _) => {
                    md.push_str(&format!("{target}:\n\n"));
                    if let Some(chosen) = &upgrade.chosen {
                        md.push_str(&format!("Previous release: {}\n\n", inline(chosen)));
                    }
                    if let Some(withheld) =
                        upgrade.access.as_ref().and_then(|a| a.withheld.as_ref())
                    {
                        md.push_str(&format!("Read without a login: {withheld}\n\n"));
                    }
                    md.push_str(&crate::report::diff::markdown(diff, "####"));
                    md.push('\n');
                }
                (None, Some(note)) => {
                    md.push_str(&format!(
                        "- {target}: {}: {}\n",
                        inline(&upgrade.label),
                        inline(note)
                    ));
                }
                (None, None) => {}
            }
        }
        md.push('\n');
    }

    if !outcome.files.is_empty() {
        md.push_str("### Files\n\n| file | size | SHA-256 |\n| --- | ---: | --- |\n");
        for file in &outcome.files {
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&code_span(&file.name)),
                file.size,
                cell(&code_span(&file.sha256))
            ));
        }
        md.push('\n');
    }

    md.push_str("### Checks\n\n");
    if let Some(check) = &outcome.checks.version_series {
        md.push_str(&format!(
            "- {} {}\n",
            mark(check.ok),
            inline(&check.message)
        ));
    }
    let tags = &outcome.checks.tags;
    if tags.checked {
        if tags.uncovered.is_empty() {
            md.push_str(&format!(
                "- ✅ git tags: {} semantic-version tag(s), every one from series {} up has a release series\n",
                tags.tags,
                inline(tags.from_series.as_deref().unwrap_or("-"))
            ));
        } else {
            let (mark, waived) = match &tags.waived {
                Some(reason) => ("✅", format!(" (waived: {})", inline(reason))),
                None => ("❌", String::new()),
            };
            md.push_str(&format!(
                "- {mark} git tags without a release series: {}{waived}\n",
                inline(&tags.uncovered.join(", "))
            ));
        }
    }
    if let Some(note) = &tags.note {
        md.push_str(&format!("- ℹ️ {}\n", inline(note)));
    }
    let head = &outcome.checks.head;
    if let Some(commit) = &head.commit {
        let tagged = outcome
            .version
            .as_ref()
            .is_some_and(|v| head.tags.contains(v));
        md.push_str(&format!(
            "- {} sources: commit {}{}\n",
            if head.checked && tagged {
                "✅"
            } else {
                "ℹ️"
            },
            inline(commit.get(..12).unwrap_or(commit)),
            match head.tags.as_slice() {
                [] => String::new(),
                tags => format!(" (tagged {})", inline(&tags.join(", "))),
            }
        ));
    } else if let Some(note) = &head.note {
        md.push_str(&format!("- ℹ️ {}\n", inline(note)));
    }
    md.push_str(&format!(
        "- {} lint: {} error(s), {} warning(s), {} info(s), {} waived\n\n",
        mark(outcome.lint.errors == 0),
        outcome.lint.errors,
        outcome.lint.warnings,
        outcome.lint.infos,
        outcome.lint.waived
    ));
    if !outcome.diagnostics.is_empty() {
        md.push_str("| severity | rule | place | message |\n| --- | --- | --- | --- |\n");
        for d in outcome.diagnostics.iter().take(MAX_DIAGNOSTIC_ROWS) {
            let place = match (d.file_name(), d.position()) {
                (Some(file), Some(p)) => format!("{file}:{}:{}", p.line, p.column),
                (Some(file), None) => file.to_string(),
                _ => String::new(),
            };
            let (shown, message) = match &d.waived {
                Some(reason) => (
                    format!("✔️ waived {}", d.severity),
                    format!("{} (waived: {reason})", d.message),
                ),
                None => (severity(d.severity).to_string(), d.message.clone()),
            };
            md.push_str(&format!(
                "| {} | `{}` | {} | {} |\n",
                shown,
                d.rule,
                cell(&inline(&place)),
                cell(&inline(&message))
            ));
        }
        if outcome.diagnostics.len() > MAX_DIAGNOSTIC_ROWS {
            md.push_str(&format!(
                "\n{} more finding(s) not listed; run `capkg lint` to see them all.\n",
                outcome.diagnostics.len() - MAX_DIAGNOSTIC_ROWS
            ));
        }
        md.push('\n');
    }

    let warnings: Vec<&String> = outcome
        .warnings
        .iter()
        .chain(
            outcome
                .targets
                .iter()
                .filter_map(|t| t.plan.as_ref())
                .flat_map(|p| p.warnings.iter()),
        )
        .collect();
    if !warnings.is_empty() {
        md.push_str("### Warnings\n\n");
        for warning in warnings {
            md.push_str(&format!("- {}\n", inline(warning)));
        }
        md.push('\n');
    }
    md
}

fn mark(ok: bool) -> &'static str {
    if ok { "✅" } else { "❌" }
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "❌ error",
        Severity::Warning => "⚠️ warning",
        Severity::Info => "ℹ️ info",
    }
}

/// `published, verified (3 uploaded, 1 skipped)`.
pub(crate) fn target_result(target: &TargetReport) -> String {
    use crate::targets::FileResult;
    let counts = target.result.as_ref().map(|r| {
        format!(
            " ({} uploaded, {} replaced, {} skipped)",
            r.count(FileResult::Uploaded),
            r.count(FileResult::Replaced),
            r.count(FileResult::Skipped)
        )
    });
    let verified = match &target.verify {
        Some(v) if v.ok => ", verified",
        Some(_) => ", verification failed",
        None => "",
    };
    match target.state {
        TargetState::NotStarted => "not started".to_string(),
        TargetState::Planned => match &target.plan {
            Some(plan) if !plan.remote_checked => "planned (destination not checked)".to_string(),
            _ => "planned".to_string(),
        },
        TargetState::Published => format!("published{verified}{}", counts.unwrap_or_default()),
        TargetState::Drafted => format!(
            "drafted, not installable until `capkg promote`{}",
            counts.unwrap_or_default()
        ),
        TargetState::Unchanged => format!("already there, unchanged{verified}"),
        TargetState::Failed => format!(
            "failed while {}{}",
            target
                .failed_step
                .map_or_else(|| "publishing".to_string(), |s| s.to_string()),
            target
                .error
                .as_deref()
                .map_or_else(String::new, |e| format!(": {e}"))
        ),
    }
}

/// The outputs later steps read.
pub(crate) fn outputs(outcome: &Outcome) -> Vec<(String, String)> {
    let mut outputs = Vec::new();
    let mut push = |name: &str, value: String| outputs.push((name.to_string(), value));
    if let Some(version) = &outcome.version {
        push("version", version.clone());
    }
    push(
        "status",
        serde_json::to_value(outcome.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
    );
    if let Some(label) = &outcome.provider_label {
        push("provider-label", label.clone());
    }
    if let Some(url) = outcome
        .targets
        .iter()
        .find_map(|t| t.clusterctl_url.clone())
    {
        push("clusterctl-url", url);
    }
    // Each provider's URL at the first target that has one, and at every target.
    let mut labels: Vec<&str> = Vec::new();
    for target in &outcome.targets {
        for provider in &target.providers {
            if !labels.contains(&provider.label.as_str()) {
                labels.push(&provider.label);
                push(
                    &format!("{}-clusterctl-url", provider.label),
                    provider.clusterctl_url.clone(),
                );
            }
            push(
                &format!("{}-{}-clusterctl-url", target.target, provider.label),
                provider.clusterctl_url.clone(),
            );
        }
    }
    for target in &outcome.targets {
        if let Some(url) = &target.clusterctl_url {
            push(&format!("{}-clusterctl-url", target.target), url.clone());
        }
        let destination = target
            .result
            .as_ref()
            .map(|r| r.destination.destination.clone())
            .or_else(|| target.plan.as_ref().map(|p| p.destination.clone()));
        if let Some(destination) = destination {
            push(&format!("{}-url", target.target), destination);
        }
    }
    if let Some(config) = outcome
        .targets
        .iter()
        .find_map(|t| t.plan.as_ref().map(|p| p.clusterctl_config.clone()))
    {
        push("clusterctl-config", config);
    }
    outputs
}
