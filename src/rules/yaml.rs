//! `yaml/…`: problems found while loading a file, before any other rule can look at it.
//!
//! clusterctl splits files at `---` lines and decodes each document into a map; anything that
//! stops that stops `clusterctl init` or `generate cluster`.

use super::{CLUSTERCTL_CONTRACT, Context, Findings, Reference, Rule, Severity};
use crate::yaml::ErrorKind;

const YAML_REFERENCE: Reference = Reference {
    title: "clusterctl provider contract, \"Components YAML\" (files are split at `---` and decoded as YAML 1.1)",
    url: CLUSTERCTL_CONTRACT,
};

pub(super) const RULES: &[&Rule] = &[
    &SYNTAX,
    &INVALID_UTF8,
    &NUL_BYTE,
    &LINE_ENDINGS,
    &DUPLICATE_KEY,
    &DOCUMENT_SEPARATOR,
    &NOT_A_MAPPING,
];

pub(super) static SYNTAX: Rule = Rule {
    id: "yaml/syntax",
    severity: Severity::Error,
    summary: "the document is not valid YAML",
    explanation: "A document that does not parse (tabs used as indentation, an unclosed bracket, a \
        bad indentation, nesting too deep or an alias that expands without bound) makes clusterctl \
        fail with `failed to parse yaml`. Cluster templates that are YAML only after their \
        `${VAR}` placeholders are substituted are checked after substituting them, so this rule \
        fires on those only when even the substituted text does not parse.",
    help: "fix the YAML at the position shown; indent with spaces, never tabs",
    reference: YAML_REFERENCE,
    check: |cx, findings| {
        report_load_errors(cx, findings, |k| {
            matches!(
                k,
                ErrorKind::Syntax
                    | ErrorKind::TooDeep
                    | ErrorKind::AliasBudget
                    | ErrorKind::UnknownAlias
                    | ErrorKind::BadMerge
                    | ErrorKind::TooLarge
            )
        })
    },
};

pub(super) static INVALID_UTF8: Rule = Rule {
    id: "yaml/invalid-utf8",
    severity: Severity::Error,
    summary: "the file is not UTF-8",
    explanation: "Kubernetes and clusterctl read YAML as UTF-8; a file in another encoding (often \
        Latin-1 from an editor) is rejected or silently corrupted.",
    help: "re-save the file as UTF-8",
    reference: YAML_REFERENCE,
    check: |cx, findings| report_load_errors(cx, findings, |k| k == ErrorKind::InvalidUtf8),
};

pub(super) static NUL_BYTE: Rule = Rule {
    id: "yaml/nul-byte",
    severity: Severity::Error,
    summary: "the file contains a NUL byte",
    explanation: "go-yaml, which clusterctl and Kubernetes use to read YAML, refuses control \
        characters (`control characters are not allowed`), so `clusterctl init` fails on the \
        file. A NUL usually comes from a binary file or a broken tool concatenated into the \
        manifests; whatever follows it would be published unread.",
    help: "remove the NUL byte (and find what put it there: often a binary file or a truncated write)",
    reference: YAML_REFERENCE,
    check: |cx, findings| report_load_errors(cx, findings, |k| k == ErrorKind::NulByte),
};

pub(super) static LINE_ENDINGS: Rule = Rule {
    id: "yaml/line-endings",
    severity: Severity::Error,
    summary: "lines end with a carriage return alone (CR-only line endings)",
    explanation: "clusterctl splits a file into documents at a line feed followed by `---`. With \
        CR-only line endings (old Mac OS style, or a tool that turned LFs into CRs) there is no \
        line feed, so clusterctl reads the whole file as one document, and the YAML reader keeps \
        only its first object: every later CRD, RBAC rule or Deployment is silently dropped. \
        LF and CRLF line endings are both fine.",
    help: "convert the file to LF line endings (`tr '\\r' '\\n'`, or your editor's line-ending setting)",
    reference: YAML_REFERENCE,
    check: |cx, findings| report_load_errors(cx, findings, |k| k == ErrorKind::LineEndings),
};

pub(super) static DUPLICATE_KEY: Rule = Rule {
    id: "yaml/duplicate-key",
    severity: Severity::Error,
    summary: "a mapping repeats a key",
    explanation: "sigs.k8s.io/yaml keeps the last of two equal keys and drops the first without a \
        word, so half of what was written never reaches the cluster. It is almost always a merge \
        or copy-paste mistake, or a `---` glued to the end of the previous line (`name: foo---`): \
        that joins two objects into one mapping whose `apiVersion`, `kind` and `metadata` all \
        repeat, and the first object is lost. Each mapping is reported once, at its first \
        repeated key, with the other repeated keys listed.",
    help: "remove one of the two keys, or merge their values; when every top-level key repeats, put the `---` that ends the previous object on a line of its own",
    reference: YAML_REFERENCE,
    check: |cx, findings| report_load_errors(cx, findings, |k| k == ErrorKind::DuplicateKey),
};

pub(super) static DOCUMENT_SEPARATOR: Rule = Rule {
    id: "yaml/document-separator",
    severity: Severity::Error,
    summary: "a `---` separator line is followed by something other than a comment",
    explanation: "clusterctl splits files with apimachinery's YAML reader, which accepts only \
        whitespace or a `#` comment after `---`; `--- !tag`, `--- {}` or `---foo` fail with \
        `invalid Yaml document separator`, although they are valid YAML.",
    help: "put the separator on a line of its own and move the content to the next line",
    reference: YAML_REFERENCE,
    check: |cx, findings| report_load_errors(cx, findings, |k| k == ErrorKind::Separator),
};

pub(super) static NOT_A_MAPPING: Rule = Rule {
    id: "yaml/not-a-mapping",
    severity: Severity::Error,
    summary: "a document is not a mapping (an object)",
    explanation: "clusterctl decodes every document into an object; a document that is a list or a \
        plain value fails with `failed to unmarshal the Nth yaml document`.",
    help: "make each document between `---` lines a single Kubernetes object",
    reference: YAML_REFERENCE,
    check: |cx, findings| {
        for file in &cx.release.files {
            for root in file.yaml.roots() {
                if root.as_mapping().is_none() {
                    let what = match root.as_sequence() {
                        Some(_) => "a list",
                        None => "a plain value",
                    };
                    findings.at_node(
                        file,
                        root,
                        format!("this document is {what}, not an object"),
                    );
                }
            }
        }
    },
};

fn report_load_errors(
    cx: &Context<'_>,
    findings: &mut Findings<'_>,
    wanted: impl Fn(ErrorKind) -> bool,
) {
    for file in &cx.release.files {
        for error in file.yaml.errors.iter().filter(|e| wanted(e.kind)) {
            let diagnostic = findings.at(file, error.span, error.message.clone());
            if let Some((span, message)) = &error.related {
                diagnostic.with_label(*span, message.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    #[test]
    fn syntax() {
        assert!(check_files(&SYNTAX, &[("metadata.yaml", "a: 1\n")]).is_empty());
        let found = check_files(&SYNTAX, &[("metadata.yaml", "a:\n\tb: 1\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "yaml/syntax");
        assert_eq!(at(&found[0]).0, 2);
        assert!(found[0].message.contains("tab"));
    }

    #[test]
    fn duplicate_key() {
        assert!(check_files(&DUPLICATE_KEY, &[("metadata.yaml", "a: 1\nb: 2\n")]).is_empty());
        let found = check_files(&DUPLICATE_KEY, &[("metadata.yaml", "a: 1\nb: 2\na: 3\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (3, 1));
        assert!(found[0].message.contains("`a`"));
        assert_eq!(found[0].labels.len(), 1);
    }

    #[test]
    fn duplicate_key_is_one_finding_per_glued_separator() {
        let glued = "kind: A\nmetadata:\n  name: a---\nkind: B\nmetadata:\n  name: b\n";
        let found = check_files(&DUPLICATE_KEY, &[("metadata.yaml", glued)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`metadata`"));
        assert!(found[0].help.contains("`---`"));
    }

    #[test]
    fn nul_byte_and_line_endings() {
        let found = check_files(&NUL_BYTE, &[("metadata.yaml", "a: 1\nb: \0\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (2, 4));
        let found = check_files(&LINE_ENDINGS, &[("metadata.yaml", "a: 1\r---\rb: 1\r")]);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("first object"));
        let crlf = "a: 1\r\n---\r\nb: 1\r\n";
        assert!(check_files(&LINE_ENDINGS, &[("metadata.yaml", crlf)]).is_empty());
    }

    #[test]
    fn document_separator() {
        let good = "a: 1\n--- # next\nb: 1\n";
        assert!(check_files(&DOCUMENT_SEPARATOR, &[("metadata.yaml", good)]).is_empty());
        let found = check_files(&DOCUMENT_SEPARATOR, &[("metadata.yaml", "a: 1\n--- {}\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (2, 5));
    }

    #[test]
    fn not_a_mapping() {
        assert!(check_files(&NOT_A_MAPPING, &[("metadata.yaml", "a: 1\n")]).is_empty());
        let found = check_files(&NOT_A_MAPPING, &[("metadata.yaml", "a: 1\n---\n- x\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (3, 1));
        assert!(found[0].message.contains("a list"));
    }

    #[test]
    fn invalid_utf8_is_reported_through_the_loader() {
        let file =
            crate::yaml::parse_file("m.yaml", vec![b'a', b':', b' ', 0xff], Default::default());
        assert_eq!(file.errors[0].kind, ErrorKind::InvalidUtf8);
    }
}
