//! The commands of README's quick start and of the book run as written: every ```` ```sh ````
//! or ```` ```console ```` block of README.md, `docs/book/src/*.md` and `docs/*.md` marked by a
//! `<!-- test ... -->` comment on the line before it runs against the built binary, in a fresh
//! copy of the example providers, each command with the exit code the comment names; where a
//! `console` block shows what a command prints, the output is compared too. The convention is
//! written in the book's contributing chapter, "Commands in the book are tests".

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One marked block: where it is, what it runs.
#[derive(Debug, PartialEq)]
struct Block {
    /// `README.md:19`: the line of the marker.
    at: String,
    /// Where the commands run, relative to the copy's root.
    cwd: Option<String>,
    /// Folders of `testdata/` copied beside the example providers (`copy=`).
    copy: Vec<String>,
    /// How the output shows the folder the block runs in (`pwd=`), in place of its real path.
    pwd: Option<String>,
    /// Commands run first, each of which must exit 0.
    setup: Vec<String>,
    /// The commands, in order.
    commands: Vec<Step>,
}

/// One command of a block.
#[derive(Debug, PartialEq)]
struct Step {
    line: String,
    /// The exit code it must give; `None`: documented, not run here.
    exit: Option<i32>,
    /// What it prints (stdout and stderr as a terminal shows them), as a `console` block shows
    /// it; `None` in a `sh` block.
    output: Option<Vec<String>>,
}

const MARKER: &str = "<!-- test";

/// The folders of `testdata/` every block's copy holds: the example providers and `capkg
/// diff`'s release pairs.
const EXAMPLES: [&str; 3] = ["example-provider", "example-multi-provider", "diff"];

/// The marked blocks of one Markdown file, or what is wrong with a marker.
fn marked_blocks(name: &str, text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut fence: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if let Some(open) = fence {
            if line.trim_end() == open {
                fence = None;
            }
            i += 1;
            continue;
        }
        if line.starts_with("```") {
            fence = Some(&line[..line.len() - line.trim_start_matches('`').len()]);
            i += 1;
            continue;
        }
        let Some(rest) = line.strip_prefix(MARKER) else {
            i += 1;
            continue;
        };
        let at = format!("{name}:{}", i + 1);
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with("-->")) {
            i += 1;
            continue;
        }
        let (options, mut setup) = match rest.split_once("-->") {
            Some((options, _)) => (options, Vec::new()),
            None => {
                let mut setup = Vec::new();
                i += 1;
                while lines.get(i).map(|l| l.trim()) != Some("-->") {
                    let step = lines
                        .get(i)
                        .ok_or(format!("{at}: the marker never ends (`-->`)"))?;
                    setup.push(step.trim().to_string());
                    i += 1;
                }
                (rest, setup)
            }
        };
        setup.retain(|s| !s.is_empty());
        i += 1;
        let console = match lines.get(i).map(|l| l.trim()) {
            Some("```sh") => false,
            Some("```console") => true,
            _ => {
                return Err(format!(
                    "{at}: the marker is not followed by a ```sh or ```console block"
                ));
            }
        };
        let mut body = Vec::new();
        i += 1;
        while lines.get(i).map(|l| l.trim()) != Some("```") {
            body.push(*lines.get(i).ok_or(format!("{at}: the block never ends"))?);
            i += 1;
        }
        let commands = if console {
            console_commands(&body).ok_or(format!(
                "{at}: a ```console block starts with its first command (`$ ...`)"
            ))?
        } else {
            commands(&body).into_iter().map(|c| (c, None)).collect()
        };
        let mut cwd = None;
        let mut copy = Vec::new();
        let mut pwd = None;
        let mut exits = vec![Some(0)];
        for option in options.split_whitespace() {
            match option.split_once('=') {
                Some(("cwd", dir)) => cwd = Some(dir.to_string()),
                Some(("copy", dirs)) => copy = dirs.split(',').map(str::to_string).collect(),
                Some(("pwd", shown)) => pwd = Some(shown.to_string()),
                Some(("exit", list)) => {
                    exits = list
                        .split(',')
                        .map(|code| match code {
                            "-" => Ok(None),
                            code => code.parse().map(Some).map_err(|_| {
                                format!("{at}: `{code}` is not an exit code (a number, or `-`)")
                            }),
                        })
                        .collect::<Result<_, _>>()?;
                }
                _ => {
                    return Err(format!(
                        "{at}: unknown option `{option}` (cwd=, copy=, pwd=, exit=)"
                    ));
                }
            }
        }
        if exits.len() == 1 {
            exits = vec![exits[0]; commands.len()];
        }
        if exits.len() != commands.len() || commands.is_empty() {
            return Err(format!(
                "{at}: {} exit code(s) for {} command(s)",
                exits.len(),
                commands.len()
            ));
        }
        blocks.push(Block {
            at,
            cwd,
            copy,
            pwd,
            setup,
            commands: commands
                .into_iter()
                .zip(exits)
                .map(|((line, output), exit)| Step { line, exit, output })
                .collect(),
        });
        i += 1;
    }
    Ok(blocks)
}

/// The commands of a block's lines: `\`-continued lines joined, comment and blank lines dropped.
fn commands(body: &[&str]) -> Vec<String> {
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in body {
        let line = line.trim();
        if current.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part.trim_end());
                current.push(' ');
            }
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    commands
}

/// The commands of a `console` block and what each prints: `$ ` starts a command (a trailing
/// `\` continues it on the next line), the lines up to the next command are its output. `None`
/// when the block does not start with a command.
fn console_commands(body: &[&str]) -> Option<Vec<(String, Option<Vec<String>>)>> {
    let mut commands: Vec<(String, Option<Vec<String>>)> = Vec::new();
    let mut continued = false;
    for line in body {
        if let Some(command) = line.strip_prefix("$ ").filter(|_| !continued) {
            continued = command.ends_with('\\');
            let command = command.trim_end_matches('\\').trim_end();
            commands.push((command.to_string(), Some(Vec::new())));
        } else if continued {
            let (command, _) = commands.last_mut()?;
            continued = line.ends_with('\\');
            command.push(' ');
            command.push_str(line.trim().trim_end_matches('\\').trim_end());
        } else {
            let (_, output) = commands.last_mut()?;
            output.as_mut()?.push(line.to_string());
        }
    }
    (!commands.is_empty()).then_some(commands)
}

/// Whether `actual` is what the book shows as `expected`. Trailing spaces and blank lines at the
/// end do not count. A line `...` (or `... ` and a note for the reader) stands for any number
/// of lines, and `...` within a line for any text on that line.
fn output_matches(expected: &[String], actual: &[&str]) -> bool {
    fn trimmed<S: AsRef<str>>(lines: &[S]) -> Vec<&str> {
        let mut lines: Vec<&str> = lines.iter().map(|l| l.as_ref().trim_end()).collect();
        while lines.last() == Some(&"") {
            lines.pop();
        }
        lines
    }
    fn is_elision(line: &str) -> bool {
        line.trim() == "..." || line.trim_start().starts_with("... ")
    }
    fn line_matches(expected: &str, actual: &str) -> bool {
        let mut parts = expected.split("...");
        let first = parts.next().unwrap_or_default();
        let Some(mut rest) = actual.strip_prefix(first) else {
            return false;
        };
        let parts: Vec<&str> = parts.collect();
        for (i, part) in parts.iter().enumerate() {
            if i + 1 == parts.len() {
                return rest.ends_with(part);
            }
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
        rest.is_empty()
    }
    fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
        match expected.split_first() {
            None => actual.is_empty(),
            Some((line, rest)) if is_elision(line) => {
                (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
            }
            Some((line, rest)) => actual
                .split_first()
                .is_some_and(|(first, more)| line_matches(line, first) && lines_match(rest, more)),
        }
    }
    lines_match(&trimmed(expected), &trimmed(actual))
}

/// The Markdown files whose blocks may be marked.
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["docs/book/src", "docs"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// Copies the example providers and the `testdata/` folders a block asks for into
/// `to/testdata/`, without what runs of capkg write there.
fn copy_testdata(to: &Path, extra: &[String]) {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    for example in EXAMPLES
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
    {
        let from = testdata.join(example);
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(&from).unwrap();
            if relative.starts_with("out") || relative.starts_with("out-repository") {
                continue;
            }
            let target = to.join("testdata").join(example).join(relative);
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

/// `sh -c LINE` in `dir`, with only the variables a reader's shell would need: the built capkg
/// first on PATH, HOME and XDG_CONFIG_HOME in the copy, no CI, token or CAPKG_ variable; and the
/// proxy variables of the test run, which keep every host but loopback out of reach
/// (tests/all/hermetic.rs). Its stdout and stderr go to one pipe, as a terminal shows them.
fn shell(line: &str, dir: &Path, root: &Path) -> (std::process::ExitStatus, String) {
    let path = crate::common::path_with(&root.join("bin"));
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("home/.config"));
    for (name, value) in std::env::vars() {
        if name.to_ascii_lowercase().ends_with("_proxy") {
            command.env(name, value);
        }
    }
    let (mut reader, writer) = std::io::pipe().unwrap();
    command.stdout(writer.try_clone().unwrap()).stderr(writer);
    let mut child = command.spawn().unwrap();
    // The command holds the pipe's writing ends: dropped, the read ends when the child exits.
    drop(command);
    let mut output = Vec::new();
    reader.read_to_end(&mut output).unwrap();
    let status = child.wait().unwrap();
    (status, String::from_utf8_lossy(&output).into_owned())
}

/// Runs one block in a fresh copy; returns the capkg subcommands it ran, or what went wrong.
fn run(block: &Block) -> Result<BTreeSet<String>, String> {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path();
    copy_testdata(root, &block.copy);
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capkg"), root.join("bin/capkg")).unwrap();
    let cwd = root.join(block.cwd.as_deref().unwrap_or("."));
    for step in &block.setup {
        let (status, output) = shell(step, &cwd, root);
        if !status.success() {
            return Err(format!(
                "{}: set-up `{step}` failed ({status})\n{output}",
                block.at
            ));
        }
    }
    let mut ran = BTreeSet::new();
    for step in &block.commands {
        let Some(expected) = step.exit else { continue };
        // `cargo run --release -- ARGS` is the built capkg, run where the checkout's root is.
        let (line, dir) = match step.line.strip_prefix("cargo run --release -- ") {
            Some(args) => (format!("capkg {args}"), root.to_path_buf()),
            None => (step.line.clone(), cwd.clone()),
        };
        if let Some(sub) = line.split_whitespace().skip_while(|w| *w != "capkg").nth(1) {
            ran.insert(sub.to_string());
        }
        let (status, mut output) = shell(&line, &dir, root);
        if status.code() != Some(expected) {
            return Err(format!(
                "{}: `{}` exited {status}, the marker says {expected}\n{output}",
                block.at, step.line
            ));
        }
        let Some(shown) = &step.output else { continue };
        if let Some(as_shown) = &block.pwd {
            output = output.replace(&cwd.display().to_string(), as_shown);
        }
        let actual: Vec<&str> = output.lines().collect();
        if !output_matches(shown, &actual) {
            return Err(format!(
                "{}: `{}` printed something else than the book shows.\n--- the book:\n{}\n--- printed:\n{output}",
                block.at,
                step.line,
                shown.join("\n")
            ));
        }
    }
    Ok(ran)
}

#[test]
fn the_marked_commands_of_readme_and_the_book_exit_as_marked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut blocks = Vec::new();
    for file in sources() {
        let name = file.strip_prefix(root).unwrap().display().to_string();
        match marked_blocks(&name, &std::fs::read_to_string(&file).unwrap()) {
            Ok(found) => blocks.extend(found),
            Err(problem) => problems.push(problem),
        }
    }
    let mut ran = BTreeSet::new();
    for block in &blocks {
        match run(block) {
            Ok(subcommands) => ran.extend(subcommands),
            Err(problem) => problems.push(problem),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));

    // The quick start is marked and runs, and the examples of these commands stay marked.
    let quick_start = "cargo run --release -- release --config testdata/example-provider/capkg.yaml --target local";
    assert!(
        blocks.iter().any(|b| b.at.starts_with("README.md:")
            && b.commands
                .iter()
                .any(|c| c.line == quick_start && c.exit == Some(0))),
        "README's quick start is not a marked block that runs `{quick_start}`"
    );
    let covered = [
        "lint",
        "rules",
        "subst",
        "vars",
        "render",
        "assemble",
        "init",
        "publish",
        "release",
        "verify",
        "configmaps",
        "diff",
    ];
    let missing: Vec<_> = covered.iter().filter(|c| !ran.contains(**c)).collect();
    assert!(
        missing.is_empty(),
        "no marked example runs {missing:?} (ran {ran:?})"
    );
}

/// A step of a `sh` block.
fn step(line: &str, exit: Option<i32>) -> Step {
    Step {
        line: line.to_string(),
        exit,
        output: None,
    }
}

#[test]
fn a_marker_reads_its_options_set_up_and_commands() {
    let text = "intro\n<!-- test cwd=testdata/x exit=0,-,1\ncapkg assemble\n\n-->\n```sh\n# a comment\ncapkg lint \\\n  out/   # trailing\n\ncapkg verify https://example.com/x\nscripts/other.sh\n```\n";
    assert_eq!(
        marked_blocks("f.md", text).unwrap(),
        [Block {
            at: "f.md:2".into(),
            cwd: Some("testdata/x".into()),
            copy: Vec::new(),
            pwd: None,
            setup: vec!["capkg assemble".into()],
            commands: vec![
                step("capkg lint out/   # trailing", Some(0)),
                step("capkg verify https://example.com/x", None),
                step("scripts/other.sh", Some(1)),
            ],
        }]
    );
    // One code for every command; no marker inside a fenced block counts, nor another comment.
    let text = "````text\n<!-- test exit=1 -->\n```sh\nx\n```\n````\n<!-- testing -->\n```sh\ny\n```\n<!-- test exit=2 -->\n```sh\na\nb\n```\n";
    let blocks = marked_blocks("f.md", text).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].commands, [step("a", Some(2)), step("b", Some(2))]);
}

#[test]
fn a_console_block_pairs_each_command_with_what_it_prints() {
    let text = "<!-- test copy=diff,repos/x pwd=/src exit=1,0 -->\n```console\n$ capkg diff a \\\n    b\nline one\n\n  indented\n$ capkg rules\n```\n";
    let blocks = marked_blocks("f.md", text).unwrap();
    assert_eq!(blocks[0].copy, ["diff", "repos/x"]);
    assert_eq!(blocks[0].pwd.as_deref(), Some("/src"));
    assert_eq!(
        blocks[0].commands,
        [
            Step {
                line: "capkg diff a b".into(),
                exit: Some(1),
                output: Some(vec!["line one".into(), "".into(), "  indented".into()]),
            },
            Step {
                line: "capkg rules".into(),
                exit: Some(0),
                output: Some(Vec::new()),
            },
        ]
    );
}

#[test]
fn shown_output_matches_with_elisions_and_nothing_else() {
    let shown = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
    let book = shown("head\n...\nfound: a (...)\n... (the same for b)\ntail");
    for (printed, expected) in [
        ("head\nfound: a (x, y)\ntail\n", true),
        ("head\n1\n2\nfound: a (x)\nmore\ntail   \n\n", true),
        ("head\nfound: a (x)\nfound: b (y)\ntail", true),
        ("head\nfound: b (x)\ntail", false),
        ("head\nfound: a (x)\ntail\nextra", false),
        ("head\nfound: a\ntail", false),
        ("found: a (x)\ntail", false),
    ] {
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(output_matches(&book, &lines), expected, "{printed:?}");
    }
    // Without elisions, every line counts, spaces at the start included.
    let book = shown("a\n  b");
    assert!(output_matches(&book, &["a", "  b"]));
    assert!(!output_matches(&book, &["a", "b"]));
    assert!(!output_matches(&book, &["a", "  b", "c"]));
}

#[test]
fn a_marker_that_cannot_be_read_is_an_error() {
    for (text, expected) in [
        (
            "<!-- test exit=0,0 -->\n```sh\ncapkg lint\n```\n",
            "2 exit code(s) for 1 command(s)",
        ),
        (
            "<!-- test -->\n\n```sh\ncapkg lint\n```\n",
            "not followed by a ```sh or ```console block",
        ),
        (
            "<!-- test -->\n```yaml\na: b\n```\n",
            "not followed by a ```sh or ```console block",
        ),
        (
            "<!-- test -->\n```console\noutput first\n$ capkg lint\n```\n",
            "starts with its first command",
        ),
        (
            "<!-- test exit=x -->\n```sh\ncapkg lint\n```\n",
            "`x` is not an exit code",
        ),
        (
            "<!-- test dir=out -->\n```sh\ncapkg lint\n```\n",
            "unknown option `dir=out`",
        ),
        ("<!-- test\ncapkg assemble\n", "never ends"),
    ] {
        let err = marked_blocks("f.md", text).unwrap_err();
        assert!(
            err.starts_with("f.md:1: ") && err.contains(expected),
            "{err}"
        );
    }
}
