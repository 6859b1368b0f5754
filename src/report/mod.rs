//! Rendering results for people and machines.
//!
//! Three formats of findings, one file each: [`human`] (miette-style diagnostics with source
//! snippets, colour only when wanted), [`json`] (one object on stdout; its shape is part of
//! capkg's interface) and [`github`] (GitHub Actions workflow commands, which the runner turns
//! into annotations, within GitHub's caps). A command's outcome beyond its findings has its own
//! file: [`diff`] (the changes as text and the report as Markdown), [`verify`] (its step
//! summary) and [`release`] (a release's step summary and CI outputs). What a finding quotes from
//! a release is escaped in each as [`crate::escape`] says, and `cli` writes them through its
//! [`crate::escape::Guard`].

pub(crate) mod diff;
pub(crate) mod github;
pub(crate) mod human;
pub(crate) mod json;
pub(crate) mod release;
pub(crate) mod verify;

use std::io::{self, IsTerminal};

use crate::diagnostic::{Diagnostic, Summary};

/// `--format` (spelled on the command line by `cli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Diagnostics with source snippets, for people.
    #[default]
    Human,
    /// One JSON object on stdout, for programs.
    Json,
    /// GitHub Actions annotations (`::error file=…::…`).
    Github,
    /// A Markdown document, for a pull request comment or release notes (`capkg diff` only).
    Markdown,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour output written to stdout.
    pub fn enabled_for_stdout(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => io::stdout().is_terminal() && !no_color_requested(),
        }
    }

    /// Whether to colour output written to stderr.
    pub fn enabled_for_stderr(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => io::stderr().is_terminal() && !no_color_requested(),
        }
    }
}

/// <https://no-color.org>: any non-empty `NO_COLOR` turns colour off.
fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// How to render human output.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub color: bool,
    pub width: usize,
}

impl Style {
    pub(crate) fn plain() -> Self {
        Self {
            color: false,
            width: 100,
        }
    }

    /// Colour as chosen; width from `COLUMNS` when it is set, else 100.
    pub(crate) fn for_stdout(choice: ColorChoice) -> Self {
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .filter(|&w: &usize| w >= 40)
            .unwrap_or(100);
        Self {
            color: choice.enabled_for_stdout(),
            width,
        }
    }
}

/// Writes lint results in the chosen format.
pub(crate) fn write_lint(
    out: &mut dyn crate::escape::Output,
    format: Format,
    style: Style,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> io::Result<()> {
    write_lint_of(out, format, style, diagnostics, summary, None)
}

/// [`write_lint`], with what was linted in the JSON document (`capkg lint`).
pub(crate) fn write_lint_of(
    out: &mut dyn crate::escape::Output,
    format: Format,
    style: Style,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    linted: Option<&json::LintScope>,
) -> io::Result<()> {
    match format {
        Format::Human | Format::Markdown => {
            human::write_diagnostics(out, style, diagnostics, summary)
        }
        Format::Json => json::write_lint(out, diagnostics, summary, linted),
        Format::Github => github::write_diagnostics(out, diagnostics, summary),
    }
}
