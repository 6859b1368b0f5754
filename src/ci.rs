//! Which CI system capkg runs in, and the channels each offers besides the log.
//!
//! Detection reads only the variables the runners set themselves: `GITHUB_ACTIONS=true` and
//! `GITLAB_CI=true`; no flag is needed. GitHub Actions offers three more channels, all handled
//! here:
//!
//! - **annotations**: workflow commands on stdout (`::error file=…::…`), written and held to
//!   GitHub's per-step caps by [`crate::report::github`];
//! - **the step summary**: Markdown appended to the file named by `GITHUB_STEP_SUMMARY`;
//! - **outputs**: `name=value` lines appended to the file named by `GITHUB_OUTPUT`, with
//!   GitHub's heredoc form (`name<<DELIMITER`) for values that span lines: no value can end its
//!   delimiter or add an output, and a name must be an output name.
//!
//! GitLab CI has no such channels: plain lines on stdout are all there is. What goes into a
//! summary or an output is the commands' business ([`crate::release`], [`crate::verify`]); this
//! module only knows the formats. Appending to the summary and output files is the runner's
//! documented protocol: the runner reads them after the step, so they are appended to, not
//! replaced atomically like capkg's other writes.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::escape;

/// A CI system capkg knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CiSystem {
    GithubActions,
    GitlabCi,
}

/// A version tag found in the CI environment, and the variable that held it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CiTag {
    pub tag: String,
    pub variable: &'static str,
}

/// What the environment says about the CI run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CiContext {
    pub system: Option<CiSystem>,
    /// The tag the pipeline runs for, when it runs for a tag.
    pub tag: Option<CiTag>,
    /// `GITHUB_STEP_SUMMARY`.
    pub step_summary: Option<PathBuf>,
    /// `GITHUB_OUTPUT`.
    pub output: Option<PathBuf>,
}

impl CiContext {
    /// Reads the standard variables through `env` (the process environment in the CLI).
    pub(crate) fn detect(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let value = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let is_true = |name: &str| value(name).is_some_and(|v| v.trim() == "true");
        let system = if is_true("GITHUB_ACTIONS") {
            Some(CiSystem::GithubActions)
        } else if is_true("GITLAB_CI") {
            Some(CiSystem::GitlabCi)
        } else {
            None
        };
        Self {
            system,
            tag: github_tag(&value).or_else(|| {
                value("CI_COMMIT_TAG").map(|tag| CiTag {
                    tag,
                    variable: "CI_COMMIT_TAG",
                })
            }),
            step_summary: value("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            output: value("GITHUB_OUTPUT").map(PathBuf::from),
        }
    }

    pub(crate) fn is_github(&self) -> bool {
        self.system == Some(CiSystem::GithubActions)
    }

    pub(crate) fn is_gitlab(&self) -> bool {
        self.system == Some(CiSystem::GitlabCi)
    }
}

/// `GITHUB_REF_NAME` when `GITHUB_REF_TYPE` is `tag`; else the tag in `GITHUB_REF`
/// (`refs/tags/v1.2.3`), which older runners set without the other two.
fn github_tag(value: &dyn Fn(&str) -> Option<String>) -> Option<CiTag> {
    match value("GITHUB_REF_TYPE").as_deref() {
        Some("tag") => value("GITHUB_REF_NAME").map(|tag| CiTag {
            tag,
            variable: "GITHUB_REF_NAME",
        }),
        Some(_) => None,
        None => value("GITHUB_REF")
            .and_then(|r| r.strip_prefix("refs/tags/").map(str::to_string))
            .filter(|tag| !tag.is_empty())
            .map(|tag| CiTag {
                tag,
                variable: "GITHUB_REF",
            }),
    }
}

/// Why a CI file could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to `{}` ({variable})", path.display())]
pub(crate) struct WriteError {
    pub path: PathBuf,
    pub variable: &'static str,
    #[source]
    pub source: std::io::Error,
}

/// Appends Markdown to the step summary file.
pub(crate) fn append_step_summary(path: &Path, markdown: &str) -> Result<(), WriteError> {
    append(path, "GITHUB_STEP_SUMMARY", markdown)
}

/// Appends outputs to the output file, in the format [`output_lines`] gives.
pub(crate) fn append_outputs(path: &Path, outputs: &[(String, String)]) -> Result<(), WriteError> {
    let text = output_lines(outputs).map_err(|name| WriteError {
        path: path.to_path_buf(),
        variable: "GITHUB_OUTPUT",
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "`{}` is not an output name (letters, digits, `-`, `_` and `.`)",
                escape::text(name)
            ),
        ),
    })?;
    append(path, "GITHUB_OUTPUT", &text)
}

/// Appends `text`, every known token removed ([`crate::forge::secret::redact`]).
fn append(path: &Path, variable: &'static str, text: &str) -> Result<(), WriteError> {
    let text = &crate::forge::secret::redact(text);
    let error = |source| WriteError {
        path: path.to_path_buf(),
        variable,
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(error)?;
    file.write_all(text.as_bytes()).map_err(error)?;
    file.flush().map_err(error)
}

/// `name=value` lines; a value with a line break uses `name<<DELIMITER`, the value,
/// `DELIMITER`, with a delimiter that is no line of it (the runner ends the value at the first
/// line equal to the delimiter, a line ending at LF, or CRLF on Windows), so no value can end
/// early and add outputs of its own. A single-line value may hold anything else: the runner
/// takes the name up to the first `=`, which a name never holds. `Err` names a name that is not
/// an output name (capkg makes them from labels, which are checked long before).
pub(crate) fn output_lines(outputs: &[(String, String)]) -> Result<String, &str> {
    let mut text = String::new();
    for (name, value) in outputs {
        if !is_output_name(name) {
            return Err(name);
        }
        if value.contains('\n') || value.contains('\r') {
            let delimiter = delimiter_for(value);
            text.push_str(&format!("{name}<<{delimiter}\n{value}"));
            if !value.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&delimiter);
            text.push('\n');
        } else {
            text.push_str(&format!("{name}={value}\n"));
        }
    }
    Ok(text)
}

/// Letters, digits, `-`, `_` and `.` (a provider name may hold one), not empty: nothing the
/// output file's format reads (`=`, `<<`, a line break).
fn is_output_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn delimiter_for(value: &str) -> String {
    let mut n = 0u32;
    loop {
        let candidate = if n == 0 {
            "CAPKG_EOF".to_string()
        } else {
            format!("CAPKG_EOF_{n}")
        };
        if !value.lines().any(|line| line.trim_end() == candidate) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    #[test]
    fn github_actions_on_a_tag_push() {
        let ci = CiContext::detect(&env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REF_TYPE", "tag"),
            ("GITHUB_REF_NAME", "v1.2.3"),
            ("GITHUB_STEP_SUMMARY", "/tmp/summary"),
            ("GITHUB_OUTPUT", "/tmp/out"),
        ]));
        assert!(ci.is_github());
        assert_eq!(
            ci.tag,
            Some(CiTag {
                tag: "v1.2.3".into(),
                variable: "GITHUB_REF_NAME"
            })
        );
        assert_eq!(ci.step_summary.as_deref(), Some(Path::new("/tmp/summary")));
        assert_eq!(ci.output.as_deref(), Some(Path::new("/tmp/out")));
    }

    #[test]
    fn a_branch_push_has_no_tag() {
        let ci = CiContext::detect(&env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REF_TYPE", "branch"),
            ("GITHUB_REF_NAME", "main"),
            ("GITHUB_REF", "refs/heads/main"),
        ]));
        assert_eq!(ci.tag, None);
        let ci = CiContext::detect(&env(&[("GITHUB_REF", "refs/tags/v2.0.0")]));
        assert_eq!(ci.tag.map(|t| t.tag).as_deref(), Some("v2.0.0"));
        assert_eq!(ci.system, None);
    }

    #[test]
    fn gitlab_ci_with_a_tag() {
        let ci = CiContext::detect(&env(&[("GITLAB_CI", "true"), ("CI_COMMIT_TAG", "v0.4.0")]));
        assert!(ci.is_gitlab());
        assert_eq!(
            ci.tag,
            Some(CiTag {
                tag: "v0.4.0".into(),
                variable: "CI_COMMIT_TAG"
            })
        );
        let ci = CiContext::detect(&env(&[("GITLAB_CI", "true"), ("CI_COMMIT_TAG", "")]));
        assert_eq!(ci.tag, None);
        assert_eq!(CiContext::detect(&env(&[])), CiContext::default());
    }

    #[test]
    fn multi_line_outputs_use_a_heredoc_delimiter_not_in_the_value() {
        let text = output_lines(&[
            ("version".into(), "v1.2.3".into()),
            ("config".into(), "providers:\n  - name: x\n".into()),
            ("tricky".into(), "a\nCAPKG_EOF\nb".into()),
        ])
        .unwrap();
        assert_eq!(
            text,
            "version=v1.2.3\nconfig<<CAPKG_EOF\nproviders:\n  - name: x\nCAPKG_EOF\ntricky<<CAPKG_EOF_1\na\nCAPKG_EOF\nb\nCAPKG_EOF_1\n"
        );
    }

    /// The runner's reading of the output file (`FileCommandManager`'s heredoc parser): lines
    /// end at LF, or at CRLF on Windows; `NAME=VALUE` splits at the first `=` when it comes
    /// before any `<<`; a heredoc value ends at the first line equal to its delimiter.
    fn runner_outputs(text: &str, windows: bool) -> Vec<(String, String)> {
        let mut lines = text.split_inclusive('\n').map(|line| {
            let line = line.strip_suffix('\n').unwrap_or(line);
            if windows {
                line.strip_suffix('\r').unwrap_or(line)
            } else {
                line
            }
        });
        let mut outputs = Vec::new();
        while let Some(line) = lines.next() {
            if line.is_empty() {
                continue;
            }
            let equals = line.find('=');
            let heredoc = line.find("<<");
            match (equals, heredoc) {
                (Some(e), h) if h.is_none_or(|h| e < h) => {
                    outputs.push((line[..e].to_string(), line[e + 1..].to_string()));
                }
                (_, Some(h)) => {
                    let (name, delimiter) = (&line[..h], &line[h + 2..]);
                    let mut value = Vec::new();
                    loop {
                        let next = lines.next().expect("the delimiter ends the value");
                        if next == delimiter {
                            break;
                        }
                        value.push(next);
                    }
                    outputs.push((name.to_string(), value.join("\n")));
                }
                _ => panic!("not an output line: {line:?}"),
            }
        }
        outputs
    }

    #[test]
    fn no_value_can_end_its_heredoc_or_add_an_output() {
        let hostile = [
            "plain",
            "a=b<<c",
            "x\nCAPKG_EOF\ninjected=1",
            "x\r\nCAPKG_EOF\r\ninjected=1\r\n",
            "x\nCAPKG_EOF\r\ninjected<<CAPKG_EOF_1\nCAPKG_EOF_1\n",
            "x\rCAPKG_EOF\rinjected=1",
            "\n\n",
            "CAPKG_EOF",
            "ends with a line break\n",
        ];
        for value in hostile {
            let outputs = vec![
                ("before".to_string(), "1".to_string()),
                ("clusterctl-url".to_string(), value.to_string()),
                ("after".to_string(), "2".to_string()),
            ];
            let text = output_lines(&outputs).unwrap();
            for windows in [false, true] {
                let read = runner_outputs(&text, windows);
                let names: Vec<&str> = read.iter().map(|(n, _)| n.as_str()).collect();
                assert_eq!(names, ["before", "clusterctl-url", "after"], "{value:?}");
                // The value comes back, but for the line break the heredoc form takes from
                // its end (and, on Windows, a CR before a line break).
                let expected = if windows {
                    let value = value.strip_suffix("\r\n").unwrap_or(value);
                    value
                        .strip_suffix('\n')
                        .unwrap_or(value)
                        .replace("\r\n", "\n")
                } else {
                    value.strip_suffix('\n').unwrap_or(value).to_string()
                };
                assert_eq!(read[1].1, expected, "{value:?} (windows: {windows})");
            }
        }
        for name in ["", "a=b", "a<<b", "a\nb", "a b", "a:b"] {
            let outputs = [(name.to_string(), "v".to_string())];
            assert_eq!(output_lines(&outputs), Err(name), "{name:?}");
        }
        assert!(output_lines(&[("infrastructure-x.y_z-url".into(), "v".into())]).is_ok());
    }

    #[test]
    fn files_are_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        append_step_summary(&path, "# one\n").unwrap();
        append_step_summary(&path, "# two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# one\n# two\n");
        let outputs = dir.path().join("out");
        append_outputs(&outputs, &[("a".into(), "1".into())]).unwrap();
        append_outputs(&outputs, &[("b".into(), "2".into())]).unwrap();
        assert_eq!(std::fs::read_to_string(&outputs).unwrap(), "a=1\nb=2\n");
        let err = append_step_summary(&dir.path().join("no/such/dir"), "x").unwrap_err();
        assert!(err.to_string().contains("GITHUB_STEP_SUMMARY"), "{err}");
    }
}
