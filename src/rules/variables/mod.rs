//! `variables/…`: `${…}` placeholders as clusterctl's substitution sees them.
//!
//! clusterctl substitutes variables in components, cluster templates and ClusterClass files with
//! drone/envsubst over the raw text, comments included, before it parses any YAML. These rules
//! run capkg's port of it ([`crate::subst`]), so a position points at the exact `${`.

mod breaks_yaml;

use super::{CLUSTERCTL_CONTRACT, Context, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::provider::FileRole;
use crate::subst::{self, Inventory};
use crate::yaml::{Node, Span, Value};

pub(super) const RULES: &[&Rule] = &[
    &SYNTAX,
    &UNCLOSED,
    &SUBSTRING_AS_DEFAULT,
    &breaks_yaml::BREAKS_YAML,
    &LEGACY_SPACING,
    &NAME_CASE,
    &IN_COMMENT,
    &DOLLAR_ESCAPE,
];

const VARIABLES: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\" > \"Variables\" (and the same for templates)",
    url: CLUSTERCTL_CONTRACT,
};

/// Files clusterctl substitutes.
fn substituted_files(release: &crate::files::Release) -> impl Iterator<Item = &ReleaseFile> {
    release
        .files
        .iter()
        .filter(|f| f.role != FileRole::Metadata)
}

fn span(s: subst::Span) -> Span {
    Span::new(s.start, s.end)
}

/// The file's inventory, when its `${…}` parse (shared by every rule of the run).
fn inventory<'c>(cx: &'c Context<'_>, file: &ReleaseFile) -> Option<&'c Inventory> {
    cx.inventory(file)?.ok()
}

pub(super) static SYNTAX: Rule = Rule {
    id: "variables/syntax",
    severity: Severity::Error,
    summary: "a `${…}` expression does not parse",
    explanation: "clusterctl parses the whole file with drone/envsubst before substituting \
        anything; one malformed expression (`${VAR-default}` without the colon, `${MY-VAR}`, \
        `${ VAR:=x }`, an unclosed `${`) fails `clusterctl init` or `generate cluster` with \
        `missing closing brace`, `unable to parse variable name` or `bad substitution`. \
        drone's grammar differs from bash's: only the colon forms (`:-`, `:=`, `:+`, `:?`) and \
        `=` take defaults.",
    help: "fix the expression; write `${VAR:=default}` for a default, and `$${…}` for a literal `${`",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let text = file.source().text();
            if !text.contains("${") {
                continue;
            }
            if let Some(Err(error)) = cx.inventory(file) {
                if runs_to_the_end(error, text) {
                    continue; // `variables/unclosed` reports it at its `${`
                }
                let at = error.offset().unwrap_or(0).min(text.len());
                findings.at(
                    file,
                    Span::new(at, (at + 1).min(text.len())),
                    format!("clusterctl cannot substitute this file: {error}"),
                );
            }
        }
    },
};

/// True when a parse error is an expression that reached the end of the input looking for its
/// `}`.
fn runs_to_the_end(error: &subst::Error, text: &str) -> bool {
    matches!(error, subst::Error::Parse { offset, .. } if *offset >= text.len())
}

/// The text of the line that holds `at`, without its line break, trimmed.
fn line_text(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].trim()
}

/// The expression as written up to the end of its first line.
fn first_line(text: &str, span: subst::Span) -> &str {
    let written = &text[span.start..span.end];
    written.split('\n').next().unwrap_or(written).trim_end()
}

pub(super) static UNCLOSED: Rule = Rule {
    id: "variables/unclosed",
    severity: Severity::Error,
    summary: "a `${` is not closed on its line",
    explanation: "drone/envsubst, clusterctl's substitution, does not end an expression at the end \
        of a line: a `${VAR:=default` whose `}` was forgotten runs on to the next `}` in the \
        file, however far, and everything in between becomes part of it. A default's text \
        stops only at `}` (or at a nested `${`), so CAPZ's `${AZURE_SYNC_PERIOD:=\"\"` took \
        the 270 lines down to `selfSigned: {}` as its default: with the variable unset, \
        clusterctl writes those lines back without the `}` that closed the expression, and the \
        YAML no longer parses (`capkg render` fails the same way); with it set, the lines \
        vanish from what is installed. The file is valid YAML as written, so only this rule \
        sees it. When no `}` follows at all, clusterctl refuses the whole file (`unable to \
        parse substitution within function`, `missing closing brace`). No expression needs \
        to span lines, so every one that does is reported, at its `${`.",
    help: "close the expression on its line (`${VAR:=default}`)",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let text = file.source().text();
            if !text.contains("${") {
                continue;
            }
            let inventory = match cx.inventory(file) {
                Some(Ok(inventory)) => inventory,
                None => continue,
                Some(Err(error)) => {
                    if let subst::Error::Parse { expression, .. } = *error
                        && runs_to_the_end(error, text)
                    {
                        let at = expression.min(text.len());
                        let written = first_line(
                            text,
                            subst::Span {
                                start: at,
                                end: text.len(),
                            },
                        );
                        findings.at(
                            file,
                            Span::new(at, at + written.len()),
                            format!(
                                "`{written}` is never closed: drone/envsubst reaches the end of the \
                                 file looking for its `}}`, and clusterctl refuses the file \
                                 (`{error}`)"
                            ),
                        );
                    }
                    continue;
                }
            };
            for reference in inventory.references.iter().filter(|r| r.depth == 0) {
                let span = reference.span;
                let written = &text[span.start..span.end];
                if !written.contains('\n') {
                    continue;
                }
                let opened = first_line(text, span);
                let close = span.end.saturating_sub(1);
                let close_line = file.source().position(close).line;
                let lines = close_line - file.source().position(span.start).line;
                let effect = match reference.op {
                    subst::Op::Default(_) => format!(
                        "the {lines} line(s) up to it are its default: unset, clusterctl writes \
                         them back without that `}}`; set, they disappear"
                    ),
                    _ => format!("the {lines} line(s) up to it are part of the expression"),
                };
                findings.at(
                    file,
                    Span::new(span.start, span.start + opened.len()),
                    format!(
                        "`{opened}` is not closed on its line: drone/envsubst ends it at the `}}` \
                         on line {close_line} (`{}`), so {effect}",
                        line_text(text, close)
                    ),
                );
            }
        }
    },
};

/// Go's `strconv.Atoi` of a substring argument written as text; `None` for a nested expression.
fn literal_number(node: &subst::Node<'_>) -> Option<(String, bool)> {
    match node {
        subst::Node::Text(t) => {
            let value = t.value();
            Some((
                String::from_utf8_lossy(&value).into_owned(),
                subst::go_atoi(&value).is_some(),
            ))
        }
        subst::Node::Func(_) => None,
    }
}

pub(super) static SUBSTRING_AS_DEFAULT: Rule = Rule {
    id: "variables/substring-as-default",
    severity: Severity::Error,
    summary: "`${VAR:word}` is a substring, not a default: the `=` is missing",
    explanation: "In drone/envsubst a `:` after the name is a default only when `=`, `-`, `?` \
        or `+` follows; anything else is bash's substring `${VAR:offset:length}`. \
        `${EXP_EDGEZONE:false}` (the `=` forgotten) therefore has the offset `false`, which is \
        not a number, so it gives the whole value: nothing when the variable is unset, and \
        the manager was started with `EdgeZone=`. clusterctl still counts the variable as \
        optional and lists `false` as its default (`--list-variables`), so nobody is told. An \
        offset or a length that is not a number never does anything useful: an error. A \
        numeric offset without a length (`${REPLICAS:3}`) is a warning: it may be a real \
        substring (`${KUBERNETES_VERSION:1}` drops the `v`), but it is also what a forgotten \
        `=` before a numeric default looks like, and it gives nothing when the variable is \
        unset. `${VAR:offset:length}` with two numbers is a substring on purpose (CAPA's \
        `${CLUSTER_NAME:0:54}`) and is not reported.",
    help: "write `${VAR:=default}` for a default",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let text = file.source().text();
            if !text.contains("${") {
                continue;
            }
            let Some(inventory) = inventory(cx, file) else {
                continue;
            };
            for reference in &inventory.references {
                if reference.op != subst::Op::Substring {
                    continue;
                }
                let at = reference.span;
                let written = &text[at.start..at.end];
                // The expression alone parses as it did in place (no escapes reach a substring).
                let Ok(template) = subst::parse(written.as_bytes()) else {
                    continue;
                };
                let Some(func) = template.funcs().next() else {
                    continue;
                };
                let name = func.name;
                let offset = func.args.first().and_then(literal_number);
                let length = func.args.get(1).map(literal_number);
                let (message, help, severity) = match (offset, length) {
                    (Some((word, false)), _) => (
                        format!(
                            "`{written}` is a substring with the offset `{word}`, not a default: \
                             `{word}` is not a number, so it gives the whole value of `{name}` \
                             (nothing when it is unset), while clusterctl lists `{name}` as \
                             optional with the default `{}`",
                            String::from_utf8_lossy(&reference.default)
                        ),
                        format!("write `${{{name}:={word}}}` for the default `{word}`"),
                        Severity::Error,
                    ),
                    (Some(_), Some(Some((word, false)))) => (
                        format!(
                            "`{written}` is a substring whose length `{word}` is not a number, \
                             so it gives the whole value of `{name}`"
                        ),
                        format!(
                            "write `${{{name}:=…}}` for a default, or give the substring a \
                             numeric length"
                        ),
                        Severity::Error,
                    ),
                    (Some((word, true)), None) => (
                        format!(
                            "`{written}` is the substring of `{name}` from byte {word}, not a \
                             default: it gives nothing when `{name}` is unset"
                        ),
                        format!(
                            "write `${{{name}:={word}}}` for the default `{word}`; waive this \
                             finding when the substring is meant"
                        ),
                        Severity::Warning,
                    ),
                    _ => continue,
                };
                findings
                    .at(file, span(at), message)
                    .with_help(help)
                    .with_severity(severity);
            }
        }
    },
};

pub(super) static LEGACY_SPACING: Rule = Rule {
    id: "variables/legacy-spacing",
    severity: Severity::Warning,
    summary: "a `${ VAR }` placeholder has spaces inside the braces",
    explanation: "clusterctl still accepts `${ VAR }` through a regex that strips the spaces \
        before parsing, for old templates; it is deprecated, it works only for plain names \
        (`${ VAR:=x }` fails), and tools other than clusterctl do not understand it.",
    help: "write `${VAR}`",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let Some(inventory) = inventory(cx, file) else {
                continue;
            };
            for legacy in &inventory.legacy {
                let text = &file.source().text()[legacy.start..legacy.end];
                let fixed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                findings
                    .at(
                        file,
                        span(*legacy),
                        format!("`{text}` has spaces inside the braces"),
                    )
                    .with_help(format!("write `{fixed}`"));
            }
        }
    },
};

pub(super) static NAME_CASE: Rule = Rule {
    id: "variables/name-case",
    severity: Severity::Warning,
    summary: "a variable name is not UPPER_CASE",
    explanation: "clusterctl reads variables from the environment and from its config file through \
        viper, which folds case: the clusterctl book asks for `UPPERCASE_WITH_UNDERSCORE` names \
        so they can be set from the config file, and a lower-case or mixed-case name is easy to \
        set under the wrong spelling in other tools (envsubst, CI systems) that do not fold case.",
    help: "rename the variable in UPPER_CASE with underscores",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let Some(inventory) = inventory(cx, file) else {
                continue;
            };
            for variable in inventory.variables.values() {
                let name = &variable.name;
                if name
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                {
                    continue;
                }
                findings.at(
                    file,
                    span(variable.span),
                    format!(
                        "variable `{name}` is not UPPER_CASE; users set it as `{}`",
                        subst::Values::env_key(name)
                    ),
                );
            }
        }
    },
};

/// Spans of the scalars (keys included) that hold at least one of `marked` (sorted by start),
/// sorted by start. Only these can turn a `#` before a use into text rather than a comment, so
/// a large file is not copied span by span when few of its uses follow a `#`.
fn scalars_holding(file: &ReleaseFile, marked: &[Span]) -> Vec<Span> {
    let mut spans = Vec::new();
    if marked.is_empty() {
        return spans;
    }
    let holds = |scalar: Span| {
        let first = marked.partition_point(|m| m.start < scalar.start);
        marked[first..]
            .iter()
            .take_while(|m| m.start < scalar.end)
            .any(|m| m.end <= scalar.end)
    };
    for root in file.yaml.roots() {
        let mut stack: Vec<&Node> = vec![root];
        while let Some(node) = stack.pop() {
            match node.value() {
                Value::Scalar { .. } if holds(node.span()) => spans.push(node.span()),
                Value::Scalar { .. } => {}
                Value::Sequence(items) => stack.extend(items),
                Value::Mapping(map) => {
                    for (k, v) in &map.entries {
                        stack.push(k);
                        stack.push(v);
                    }
                }
            }
        }
    }
    // Equal spans are alike, so the unstable sort (which needs no scratch memory) gives the
    // same list.
    spans.sort_unstable();
    spans
}

fn inside_scalar(spans: &[Span], at: Span) -> bool {
    let index = spans.partition_point(|s| s.start <= at.start);
    spans[..index].iter().rev().any(|s| s.end >= at.end)
}

/// True when `at` sits after a `#` that starts a comment on its line.
fn after_comment_marker(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    before
        .char_indices()
        .any(|(i, c)| c == '#' && (i == 0 || before[..i].ends_with([' ', '\t'])))
}

pub(super) static IN_COMMENT: Rule = Rule {
    id: "variables/in-comment",
    severity: Severity::Warning,
    summary: "a variable is required only because a comment mentions it",
    explanation: "clusterctl substitutes the raw text, comments included, so a `${VAR}` written in \
        a YAML comment is a required variable: `clusterctl init` or `generate cluster` fails with \
        `value for variables [VAR] is not set` although no object uses it.",
    help: "write the comment without `${`, or escape it as `$${VAR}`",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let text = file.source().text();
            if !text.contains("${") {
                continue;
            }
            let Some(inventory) = inventory(cx, file) else {
                continue;
            };
            let mut marked: Vec<Span> = inventory
                .references
                .iter()
                .map(|r| span(r.span))
                .filter(|s| after_comment_marker(text, s.start))
                .collect();
            marked.sort();
            let holders = scalars_holding(file, &marked);
            let in_comment =
                |s: Span| after_comment_marker(text, s.start) && !inside_scalar(&holders, s);
            for variable in inventory.variables.values() {
                if variable.default.is_some() {
                    continue;
                }
                let uses: Vec<Span> = inventory
                    .references
                    .iter()
                    .filter(|r| r.name == variable.name)
                    .map(|r| span(r.span))
                    .collect();
                if uses.iter().all(|&s| in_comment(s)) {
                    findings.at(
                        file,
                        span(variable.span),
                        format!("`${{{}}}` appears only in a comment, yet clusterctl requires a value for it", variable.name),
                    );
                }
            }
        }
    },
};

pub(super) static DOLLAR_ESCAPE: Rule = Rule {
    id: "variables/dollar-escape",
    severity: Severity::Info,
    summary: "`$$` becomes `$` when clusterctl substitutes",
    explanation: "drone/envsubst treats `$$` as an escape everywhere in the text, not only before \
        `{`: `$${VAR}` gives a literal `${VAR}` (intended), but a shell script's `$$` (the process \
        id) or `$$VAR` in an embedded script comes out as `$` and `$VAR`.",
    help: "make sure the embedded text expects the single `$` clusterctl leaves",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            let text = file.source().text();
            if !text.contains("$$") {
                continue;
            }
            let Some(inventory) = inventory(cx, file) else {
                continue;
            };
            // `$${` is the documented way to write a literal `${`.
            let mutated: Vec<&subst::Span> = inventory
                .escapes
                .iter()
                .filter(|e| text.as_bytes().get(e.end) != Some(&b'{'))
                .collect();
            let Some(first) = mutated.first() else {
                continue;
            };
            let message = match mutated.len() {
                1 => "`$$` here becomes a single `$` when clusterctl substitutes".to_string(),
                n => format!(
                    "`$$` here and {} more time{} in this file become a single `$` when clusterctl substitutes",
                    n - 1,
                    if n == 2 { "" } else { "s" }
                ),
            };
            findings.at(file, span(**first), message);
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const T: &str = "cluster-template.yaml";

    #[test]
    fn syntax() {
        assert!(check_files(&SYNTAX, &[(T, "a: ${A:=x}\n")]).is_empty());
        let found = check_files(&SYNTAX, &[(T, "a: x\nb: ${A-x}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "variables/syntax");
        assert_eq!(at(&found[0]).0, 2);
        assert!(found[0].message.contains("missing closing brace"));
        // metadata.yaml is not substituted.
        assert!(check_files(&SYNTAX, &[("metadata.yaml", "a: ${A-x}\n")]).is_empty());
    }

    #[test]
    fn unclosed() {
        assert!(check_files(&UNCLOSED, &[(T, "a: ${A:=\"\"}\nb: {}\n")]).is_empty());
        // CAPZ's Secret: the `}` of `selfSigned: {}` two lines later closes the expression.
        let text = "stringData:\n  AZURE_SYNC_PERIOD: ${AZURE_SYNC_PERIOD:=\"\"\n  AZURE_TENANT_ID: ''\nspec:\n  selfSigned: {}\n";
        let found = check_files(&UNCLOSED, &[(T, text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "variables/unclosed");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (2, 22));
        let message = &found[0].message;
        assert!(message.contains("`${AZURE_SYNC_PERIOD:=\"\"`"), "{message}");
        assert!(message.contains("line 5 (`selfSigned: {}`)"), "{message}");
        assert!(message.contains("the 3 line(s)"), "{message}");
        assert_eq!(found[0].span.map(|s| s.len()), Some(23));
        // No `}` after it at all: clusterctl refuses the file; reported at the `${`, once.
        let text = "a: x\nb: ${B:-x\nc: y\n";
        let found = check_files(&UNCLOSED, &[(T, text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (2, 4));
        assert!(
            found[0].message.contains("never closed"),
            "{}",
            found[0].message
        );
        assert!(
            found[0]
                .message
                .contains("unable to parse substitution within function")
        );
        assert!(check_files(&SYNTAX, &[(T, text)]).is_empty());
    }

    #[test]
    fn substring_as_default() {
        // CAPA's real substring, and defaults, are fine.
        let good = "name: ${CLUSTER_NAME:0:54}\na: ${A:=false}\nb: ${B:-x}\n";
        assert!(check_files(&SUBSTRING_AS_DEFAULT, &[(T, good)]).is_empty());
        let text = "args:\n- --feature-gates=EdgeZone=${EXP_EDGEZONE:false},X=${X:=true}\n";
        let found = check_files(&SUBSTRING_AS_DEFAULT, &[(T, text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (2, 28));
        assert!(
            found[0].message.contains("offset `false`"),
            "{}",
            found[0].message
        );
        assert!(
            found[0].message.contains("default `false`"),
            "{}",
            found[0].message
        );
        assert_eq!(
            found[0].help,
            "write `${EXP_EDGEZONE:=false}` for the default `false`"
        );
        let found = check_files(&SUBSTRING_AS_DEFAULT, &[(T, "replicas: ${REPLICAS:3}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].help.contains("`${REPLICAS:=3}`"));
        let found = check_files(&SUBSTRING_AS_DEFAULT, &[(T, "a: ${A:0:x}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Error);
        assert!(found[0].message.contains("length `x`"));
        // Nested inside a default, too.
        let found = check_files(&SUBSTRING_AS_DEFAULT, &[(T, "a: ${A:=${B:no}}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 9));
    }

    #[test]
    fn legacy_spacing() {
        assert!(check_files(&LEGACY_SPACING, &[(T, "a: ${A}\n")]).is_empty());
        let found = check_files(&LEGACY_SPACING, &[(T, "a: x\nb: ${ CLUSTER_NAME }\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (2, 4));
        assert!(found[0].message.contains("`${ CLUSTER_NAME }`"));
        assert!(found[0].help.contains("`${CLUSTER_NAME}`"));
    }

    #[test]
    fn name_case() {
        assert!(check_files(&NAME_CASE, &[(T, "a: ${AWS_REGION_2}\n")]).is_empty());
        let found = check_files(&NAME_CASE, &[(T, "a: ${awsRegion}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 4));
        assert!(found[0].message.contains("`awsRegion`"));
        assert!(found[0].message.contains("AWSREGION"));
    }

    #[test]
    fn in_comment() {
        let good = "# uses ${A}\na: ${A}\nscript: |\n  # shell comment ${B:=x}\n";
        assert!(check_files(&IN_COMMENT, &[(T, good)]).is_empty());
        let bad = "# set ${OLD_VAR} before running\na: 1\n";
        let found = check_files(&IN_COMMENT, &[(T, bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (1, 7));
        assert!(found[0].message.contains("${OLD_VAR}"));
        // Inside a block scalar a `#` is text, not a comment.
        let script = "script: |\n  # pid ${PID_FILE}\n";
        assert!(check_files(&IN_COMMENT, &[(T, script)]).is_empty());
    }

    #[test]
    fn dollar_escape() {
        assert!(check_files(&DOLLAR_ESCAPE, &[(T, "a: $${LITERAL}\n")]).is_empty());
        let found = check_files(&DOLLAR_ESCAPE, &[(T, "script: |\n  echo $$\n  kill $$\n")]);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("1 more time "),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].severity, Severity::Info);
        assert_eq!(at(&found[0]), (2, 8));
    }
}
