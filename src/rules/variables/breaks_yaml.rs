//! `variables/breaks-yaml`: a file that is valid YAML as written but not once clusterctl has
//! substituted it.
//!
//! Each document holding a `${…}` is substituted as `capkg render` would, through the one
//! substitution there is ([`subst::substitute_mapped`]): every variable with a default takes it,
//! every variable without one its own name (a plain word, standing for whatever a user sets).
//! Then the document is loaded again, and each expression's value must land where the
//! expression was: inside one scalar, or, for a value that is a whole flow collection written
//! where a scalar was (`${POD_CIDR:=["192.168.0.0/16"]}`), as that collection. A value that
//! spills over (`: `, ` #`, a leading `&`, `*`, `!` or `{`) changes what is installed without
//! an error from clusterctl, or makes the document unreadable.
//!
//! An expression whose text already spans two YAML values as written (CAPA's
//! `${AWS_CONTROLLER_IAM_ROLE/#arn/eks.amazonaws.com/role-arn: arn}`, a key and its value) is a
//! fragment of YAML on purpose: only that the result still parses is checked. Files with an
//! expression spanning lines are left to `variables/unclosed`.

use std::borrow::Cow;
use std::sync::Arc;

use super::{VARIABLES, after_comment_marker, substituted_files};
use crate::files::ReleaseFile;
use crate::rules::{Findings, Rule, Severity};
use crate::subst::{self, Inventory, Lookup, Replaced, Substituted};
use crate::yaml::{self, Limits, Node, ScalarStyle, Source, Span, Value};

pub(in crate::rules) static BREAKS_YAML: Rule = Rule {
    id: "variables/breaks-yaml",
    severity: Severity::Error,
    summary: "a variable's value, substituted as clusterctl does, breaks the YAML around it",
    explanation: "clusterctl substitutes the raw text and only then reads it as YAML, so a \
        default (or a value) holding YAML syntax changes the document: `${VAR:=a: b}` as a \
        plain value makes a mapping (or an error), ` #` starts a comment that cuts the value \
        short, a leading `&` or `!` is read as an anchor or a tag and dropped, a leading `*` \
        is an alias, a leading `{` or `[` starts a flow collection, a quote ends the quoted \
        value it sits in. The file is valid YAML as written, so nothing else notices: \
        `clusterctl init` or `generate cluster` fails with `failed to parse yaml`, or installs \
        another value than the one written. capkg substitutes each document as `capkg render` \
        does (defaults, and for variables without one a plain word standing for the user's \
        value) and loads it again. A value that is a whole flow collection where a scalar was \
        (`cidrBlocks: ${POD_CIDR:=[\"192.168.0.0/16\"]}`) is YAML injected on purpose and is \
        not reported, and neither is an expression that already spans two values as written \
        (only that the result parses is checked there).",
    help: "quote the value (`key: \"${VAR:=a: b}\"`), or change the default so that it is a \
        plain value",
    reference: VARIABLES,
    check: |cx, findings| {
        for file in substituted_files(cx.release) {
            if let Some(Ok(inventory)) = cx.inventory(file) {
                check_file(file, inventory, findings);
            }
        }
    },
};

/// What `capkg render` substitutes when a user sets nothing but the required variables: every
/// default, and a plain word (the name) for each variable without one.
struct RenderValues<'a>(&'a Inventory);

impl Lookup for RenderValues<'_> {
    fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        match self.0.variables.get(name) {
            Some(variable) if variable.default.is_some() => None,
            _ => Some(Cow::Owned(name.as_bytes().to_vec())),
        }
    }
}

fn check_file(file: &ReleaseFile, inventory: &Inventory, findings: &mut Findings<'_>) {
    let text = file.source().text();
    // A file not valid as written is the `yaml/` rules' (or was loaded substituted already).
    if file.substituted || !file.yaml.errors.is_empty() || !text.contains("${") {
        return;
    }
    let top: Vec<subst::Span> = inventory
        .references
        .iter()
        .filter(|r| r.depth == 0)
        .map(|r| r.span)
        .collect();
    if top.iter().any(|s| text[s.start..s.end].contains('\n')) {
        return; // `variables/unclosed` explains what happens to the lines it swallows
    }
    let values = RenderValues(inventory);
    for document in &file.yaml.documents {
        let Some(root) = &document.root else { continue };
        let base = document.span.start;
        let first = top.partition_point(|s| s.start < base);
        if top.get(first).is_none_or(|s| s.end > document.span.end) {
            continue;
        }
        let fragment = &text[base..document.span.end];
        let Some(substituted) = subst::substitute_mapped(fragment, &values) else {
            continue;
        };
        let document = Document {
            file,
            root,
            base,
            substituted: &substituted,
        };
        document.check(findings);
    }
}

/// One document as written and substituted.
struct Document<'a> {
    file: &'a ReleaseFile,
    /// The document as written.
    root: &'a Node,
    /// Where the document starts in the file.
    base: usize,
    substituted: &'a Substituted,
}

impl Document<'_> {
    fn check(&self, findings: &mut Findings<'_>) {
        let text = &self.substituted.text;
        let loaded = yaml::parse_str(
            Arc::new(Source::new(self.file.source().name(), text.as_str())),
            Limits::default(),
        );
        if let Some(error) = loaded.errors.first() {
            self.report_unreadable(&loaded.source, error, findings);
            return;
        }
        let roots: Vec<&Node> = loaded.roots().collect();
        for replaced in &self.substituted.values {
            let value = &text[replaced.value.start..replaced.value.end];
            let trimmed = value.trim_matches([' ', '\t']);
            if trimmed.is_empty() {
                continue;
            }
            let start =
                replaced.value.start + (value.len() - value.trim_start_matches([' ', '\t']).len());
            let wanted = Span::new(start, start + trimmed.len());
            match self.as_written(replaced) {
                Written::InOneValue => {}
                Written::Fragment | Written::Comment | Written::Elsewhere => continue,
            }
            let Some(found) = roots.iter().find_map(|root| innermost(root, start)) else {
                continue;
            };
            if let Some(problem) = misplaced(found, wanted, trimmed) {
                self.report(replaced, trimmed, &problem, findings);
            }
        }
    }

    /// The expression's place in the document as written.
    fn as_written(&self, replaced: &Replaced) -> Written {
        let (start, end) = (
            self.base + replaced.expression.start,
            self.base + replaced.expression.end,
        );
        let holder = |at: usize| innermost_scalar(self.root, at);
        match (holder(start), holder(end.saturating_sub(1))) {
            (Some(a), Some(b)) if a.span() == b.span() => Written::InOneValue,
            // The tail is outside every value, in what YAML reads as a comment (` #`).
            (Some(_), None) => Written::InOneValue,
            (Some(_), _) => Written::Fragment,
            (None, _) if after_comment_marker(self.file.source().text(), start) => Written::Comment,
            (None, _) => Written::Elsewhere,
        }
    }

    fn report(&self, replaced: &Replaced, value: &str, problem: &str, findings: &mut Findings<'_>) {
        let at = Span::new(
            self.base + replaced.expression.start,
            self.base + replaced.expression.end,
        );
        let written = self.file.source().slice(at);
        findings.at(
            self.file,
            at,
            format!("substituted, `{written}` gives `{value}`, and {problem}"),
        );
    }

    /// The document no longer loads: reported at the expression whose value most likely broke
    /// it (the last before the error whose value holds YAML syntax, else the last before it).
    fn report_unreadable(&self, loaded: &Source, error: &yaml::Error, findings: &mut Findings<'_>) {
        let text = &self.substituted.text;
        let before: Vec<&Replaced> = self
            .substituted
            .values
            .iter()
            .filter(|r| r.value.start <= error.span.start)
            .collect();
        let culprit = before
            .iter()
            .rev()
            .find(|r| has_yaml_syntax(&text[r.value.start..r.value.end]))
            .or(before.last())
            .copied()
            .or(self.substituted.values.first());
        let Some(culprit) = culprit else { return };
        let value = &text[culprit.value.start..culprit.value.end];
        let position = loaded.position(error.span.start);
        let at = Span::new(
            self.base + culprit.expression.start,
            self.base + culprit.expression.end,
        );
        let written = self.file.source().slice(at);
        let offset = self.file.source().position(self.base);
        let then = match error.kind {
            yaml::ErrorKind::DuplicateKey => "repeats a key",
            _ => "no longer parses",
        };
        findings.at(
            self.file,
            at,
            format!(
                "substituted, `{written}` gives `{value}`, and the document {then}: {} (line {} \
                 of the substituted document, which starts at line {})",
                error.message, position.line, offset.line
            ),
        );
    }
}

/// Where an expression is in the document as written.
enum Written {
    /// Inside one scalar (possibly running on into a comment).
    InOneValue,
    /// Across two values: a YAML fragment on purpose.
    Fragment,
    /// In a comment.
    Comment,
    /// Outside any value and any comment.
    Elsewhere,
}

/// True when a value holds characters YAML gives a meaning.
fn has_yaml_syntax(value: &str) -> bool {
    value.contains(": ")
        || value.ends_with(':')
        || value.contains(" #")
        || value.contains(['"', '\'', '{', '}', '[', ']', '\n', '\t'])
        || value.starts_with(['*', '&', '!', '|', '>', '%', '@', '`', '-', '?', ','])
}

/// Why a value that should be one scalar is not, when it is not.
fn misplaced(found: &Node, wanted: Span, value: &str) -> Option<String> {
    let span = found.span();
    match found.value() {
        Value::Scalar { .. } => {
            let contained = span.start <= wanted.start && wanted.end <= span.end;
            let plain = found.scalar_style() == Some(ScalarStyle::Plain);
            let kept = !plain || found.scalar_text().is_some_and(|t| t.contains(value));
            if contained && kept {
                return None;
            }
            let read = found.scalar_text().unwrap_or_default();
            Some(format!(
                "YAML reads {}, so the value is `{read}`",
                reading(value)
            ))
        }
        Value::Mapping(_) | Value::Sequence(_) => {
            // A whole flow collection written where a scalar was: injected on purpose.
            if span == wanted {
                return None;
            }
            let what = if matches!(found.value(), Value::Mapping(_)) {
                "a mapping"
            } else {
                "a list"
            };
            Some(format!(
                "YAML reads {}, so the value becomes part of {what}",
                reading(value)
            ))
        }
    }
}

/// What in a value YAML reads as syntax, in words.
fn reading(value: &str) -> String {
    if let Some(at) = value.find(" #") {
        return format!("`{}` as a comment", &value[at + 1..]);
    }
    if value.contains(": ") || value.ends_with(':') {
        return "its `: ` as a key".to_string();
    }
    match value.chars().next() {
        Some('&') => "its leading `&…` as an anchor".to_string(),
        Some('!') => "its leading `!…` as a tag".to_string(),
        Some('*') => "its leading `*` as an alias".to_string(),
        Some('{') => "its leading `{` as a flow mapping".to_string(),
        Some('[') => "its leading `[` as a flow list".to_string(),
        _ => "part of it as YAML syntax".to_string(),
    }
}

/// The innermost node whose span holds `at`.
fn innermost(root: &Node, at: usize) -> Option<&Node> {
    let holds = |node: &Node| {
        let span = node.span();
        span.start <= at && at < span.end
    };
    if !holds(root) {
        return None;
    }
    let mut current = root;
    loop {
        let next = match current.value() {
            Value::Scalar { .. } => None,
            Value::Sequence(items) => items.iter().find(|n| holds(n)),
            Value::Mapping(map) => map
                .entries
                .iter()
                .find_map(|(k, v)| [k, v].into_iter().find(|n| holds(n))),
        };
        match next {
            Some(node) => current = node,
            None => return Some(current),
        }
    }
}

/// The scalar whose span holds `at`, if any.
fn innermost_scalar(root: &Node, at: usize) -> Option<&Node> {
    innermost(root, at).filter(|n| matches!(n.value(), Value::Scalar { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const T: &str = "cluster-template.yaml";
    const C: &str = "infrastructure-components.yaml";

    fn found(file: &str, text: &str) -> Vec<crate::rules::Diagnostic> {
        check_files(&BREAKS_YAML, &[(file, text)])
    }

    #[test]
    fn values_that_stay_values_are_fine() {
        for text in [
            "a: ${A}\nb: \"${B:=x: y}\"\nc: pre-${C:=1}-post\n",
            "cidr: ${POD_CIDR:=[\"192.168.0.0/16\"]}\nnodes: ${ALLOWED_NODES:=[]}\n",
            "script: |\n  echo ${A:=a: b} # ${B:=#x}\n",
            "# ${COMMENTED:=a: b}\na: 1\n",
            "args:\n- --gates=A=${A:=true},B=${B:=false}\n",
            "k: ${ ROLE }\n",
            // CAPA: the expression spans a key and its value as written.
            "annotations:\n  ${AWS_CONTROLLER_IAM_ROLE/#arn/eks.amazonaws.com/role-arn: arn}\n",
        ] {
            assert!(found(C, text).is_empty(), "{text}: {:?}", found(C, text));
        }
    }

    #[test]
    fn a_default_that_opens_a_flow_collection_breaks_the_document() {
        let broken = found(T, "kind: A\nspec:\n  a: ${A:=[b}\n");
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].rule, "variables/breaks-yaml");
        assert_eq!(at(&broken[0]), (3, 6));
        assert!(
            broken[0].message.contains("no longer parses"),
            "{}",
            broken[0].message
        );
        // A `: ` in a plain value is a mapping as written already: the same structure after.
        assert!(found(T, "kind: A\nitems:\n- ${A:=b: c}\n").is_empty());
    }

    #[test]
    fn a_hash_an_anchor_and_a_brace_are_reported_at_their_variable() {
        let cases = [
            ("a: x\nb: ${B:=one #two}\n", (2, 4), "`#two` as a comment"),
            ("a: x\nb: ${B:=&x y}\n", (2, 4), "anchor"),
            ("a: x\nb: ${B:={x}}\n", (2, 4), "flow mapping"),
        ];
        for (text, position, words) in cases {
            let got = found(C, text);
            assert_eq!(got.len(), 1, "{text}: {got:?}");
            assert_eq!(at(&got[0]), position, "{text}");
            assert!(got[0].message.contains(words), "{text}: {}", got[0].message);
        }
        // An alias to nothing: the document does not load.
        let got = found(C, "a: x\nb: ${B:=*x}\n");
        assert_eq!(got.len(), 1);
        assert!(
            got[0].message.contains("no longer parses"),
            "{}",
            got[0].message
        );
    }

    #[test]
    fn only_valid_files_with_one_line_expressions_are_checked() {
        // Not YAML as written: the `yaml/` rules' to report.
        assert!(found(C, "a: [\nb: ${B:=c: d}\n").is_empty());
        // An unclosed `${`: `variables/unclosed` reports it.
        assert!(found(C, "a: ${A:=\"\"\nb: {}\n").is_empty());
    }
}
