//! `capkg rules [RULE]`: every rule id with its severity and explanation.

use std::io::Write;

use clap::Args;
use serde::Serialize;

use super::{CommandError, CommandResult, GlobalArgs, Status};
use crate::report::{Format, json};
use crate::rules::{self, Rule};

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Explain one rule (`components/single-namespace`).
    #[arg(value_name = "RULE")]
    pub rule: Option<String>,
}

#[derive(Serialize)]
struct RuleInfo {
    id: &'static str,
    severity: &'static str,
    summary: &'static str,
    explanation: String,
    help: &'static str,
    reference: &'static str,
    url: &'static str,
    /// How to accept the rule's findings.
    waive: String,
    /// The capkg.yaml entry that accepts them, every key with an example; absent for a rule no
    /// waiver accepts.
    #[serde(skip_serializing_if = "Option::is_none")]
    waiver: Option<String>,
}

fn info(rule: &Rule) -> RuleInfo {
    RuleInfo {
        id: rule.id,
        severity: rule.severity.as_str(),
        summary: rule.summary,
        explanation: normalise(rule.explanation),
        help: rule.help,
        reference: rule.reference.title,
        url: rule.reference.url,
        waive: rules::waivers::how_to_waive(rule.id),
        waiver: rules::waivers::waiver_example(rule.id),
    }
}

/// Rule texts are written across source lines; collapse the indentation.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn run(global: &GlobalArgs, args: RulesArgs) -> CommandResult {
    let selected: Vec<&Rule> = match &args.rule {
        Some(id) => {
            let rule = rules::find(id).ok_or_else(|| {
                let close: Vec<&str> = rules::all()
                    .map(|r| r.id)
                    .filter(|r| {
                        r.contains(id.as_str()) || id.contains(r.split('/').next().unwrap_or(""))
                    })
                    .collect();
                let failure = CommandError::fault(anyhow::anyhow!("there is no rule `{id}`"));
                if close.is_empty() {
                    failure.with_hint("`capkg rules` lists every rule")
                } else {
                    failure.with_hint(format!("did you mean {}?", close.join(", ")))
                }
            })?;
            vec![rule]
        }
        None => rules::all().collect(),
    };
    write(
        &mut super::stdout(),
        global.format,
        &selected,
        args.rule.is_some(),
    )
    .map_err(CommandError::fault)?;
    Ok(Status::Success)
}

/// The selected rules: one explained, or all listed.
fn write(
    out: &mut dyn Write,
    format: Format,
    selected: &[&Rule],
    explain: bool,
) -> std::io::Result<()> {
    match format {
        Format::Json => {
            let infos: Vec<RuleInfo> = selected.iter().map(|r| info(r)).collect();
            json::write_value(out, &serde_json::json!({ "rules": infos }))?;
        }
        Format::Human | Format::Github | Format::Markdown if explain => {
            let rule = info(selected[0]);
            writeln!(out, "{} ({})\n", rule.id, rule.severity)?;
            writeln!(
                out,
                "{}\n",
                textwrap(&format!("{}.", capitalise(rule.summary)))
            )?;
            writeln!(out, "{}\n", textwrap(&rule.explanation))?;
            writeln!(
                out,
                "{}\n",
                textwrap(&format!("What to do: {}.", rule.help))
            )?;
            writeln!(out, "{}\n", textwrap(&rule.waive))?;
            if let Some(entry) = &rule.waiver {
                for line in entry.lines() {
                    writeln!(out, "    {line}")?;
                }
                writeln!(out)?;
            }
            writeln!(out, "Source: {}\n        {}", rule.reference, rule.url)?;
        }
        Format::Human | Format::Github | Format::Markdown => {
            let width = selected.iter().map(|r| r.id.len()).max().unwrap_or(0);
            for rule in selected {
                writeln!(
                    out,
                    "{:width$}  {:7}  {}",
                    rule.id,
                    rule.severity.as_str(),
                    rule.summary
                )?;
            }
        }
    }
    Ok(())
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Wraps at 80 columns on spaces.
fn textwrap(text: &str) -> String {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.join("\n")
}
