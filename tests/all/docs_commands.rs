//! The commands of README's quick start and of the book run as written: every ```` ```sh ````
//! block of README.md, `docs/book/src/*.md` and `docs/*.md` marked by a `<!-- test ... -->`
//! comment on the line before it runs against the built binary, in a fresh copy of the example
//! providers, each command with the exit code the comment names. The convention is written in
//! the book's contributing chapter, "Commands in the book are tests".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One marked block: where it is, what it runs.
#[derive(Debug, PartialEq)]
struct Block {
    /// `README.md:19`: the line of the marker.
    at: String,
    /// Where the commands run, relative to the copy's root.
    cwd: Option<String>,
    /// Commands run first, each of which must exit 0.
    setup: Vec<String>,
    /// Each command with the exit code it must give; `None`: documented, not run here.
    commands: Vec<(String, Option<i32>)>,
}

const MARKER: &str = "<!-- test";

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
        if lines.get(i).map(|l| l.trim()) != Some("```sh") {
            return Err(format!("{at}: the marker is not followed by a ```sh block"));
        }
        let mut body = Vec::new();
        i += 1;
        while lines.get(i).map(|l| l.trim()) != Some("```") {
            body.push(*lines.get(i).ok_or(format!("{at}: the block never ends"))?);
            i += 1;
        }
        let commands = commands(&body);
        let mut cwd = None;
        let mut exits = vec![Some(0)];
        for option in options.split_whitespace() {
            match option.split_once('=') {
                Some(("cwd", dir)) => cwd = Some(dir.to_string()),
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
                _ => return Err(format!("{at}: unknown option `{option}` (cwd=, exit=)")),
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
            setup,
            commands: commands.into_iter().zip(exits).collect(),
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

/// Copies the example providers (and `capkg diff`'s release pairs) into `to/testdata/`,
/// without what runs of capkg write there.
fn copy_examples(to: &Path) {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    for example in ["example-provider", "example-multi-provider", "diff"] {
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
/// (tests/all/hermetic.rs).
fn shell(line: &str, dir: &Path, root: &Path) -> std::process::Output {
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
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
    command.output().unwrap()
}

/// Runs one block in a fresh copy; returns the capkg subcommands it ran, or what went wrong.
fn run(block: &Block) -> Result<BTreeSet<String>, String> {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path();
    copy_examples(root);
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capkg"), root.join("bin/capkg")).unwrap();
    let cwd = root.join(block.cwd.as_deref().unwrap_or("."));
    let shown = |o: &std::process::Output| {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    for step in &block.setup {
        let output = shell(step, &cwd, root);
        if !output.status.success() {
            return Err(format!(
                "{}: set-up `{step}` failed ({})\n{}",
                block.at,
                output.status,
                shown(&output)
            ));
        }
    }
    let mut ran = BTreeSet::new();
    for (command, expected) in &block.commands {
        let Some(expected) = expected else { continue };
        // `cargo run --release -- ARGS` is the built capkg, run where the checkout's root is.
        let (line, dir) = match command.strip_prefix("cargo run --release -- ") {
            Some(args) => (format!("capkg {args}"), root.to_path_buf()),
            None => (command.clone(), cwd.clone()),
        };
        if let Some(sub) = line.split_whitespace().skip_while(|w| *w != "capkg").nth(1) {
            ran.insert(sub.to_string());
        }
        let output = shell(&line, &dir, root);
        if output.status.code() != Some(*expected) {
            return Err(format!(
                "{}: `{command}` exited {}, the marker says {expected}\n{}",
                block.at,
                output.status,
                shown(&output)
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
            && b.commands.contains(&(quick_start.to_string(), Some(0)))),
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

#[test]
fn a_marker_reads_its_options_set_up_and_commands() {
    let text = "intro\n<!-- test cwd=testdata/x exit=0,-,1\ncapkg assemble\n\n-->\n```sh\n# a comment\ncapkg lint \\\n  out/   # trailing\n\ncapkg verify https://example.com/x\nscripts/other.sh\n```\n";
    assert_eq!(
        marked_blocks("f.md", text).unwrap(),
        [Block {
            at: "f.md:2".into(),
            cwd: Some("testdata/x".into()),
            setup: vec!["capkg assemble".into()],
            commands: vec![
                ("capkg lint out/   # trailing".into(), Some(0)),
                ("capkg verify https://example.com/x".into(), None),
                ("scripts/other.sh".into(), Some(1)),
            ],
        }]
    );
    // One code for every command; no marker inside a fenced block counts, nor another comment.
    let text = "````text\n<!-- test exit=1 -->\n```sh\nx\n```\n````\n<!-- testing -->\n```sh\ny\n```\n<!-- test exit=2 -->\n```sh\na\nb\n```\n";
    let blocks = marked_blocks("f.md", text).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(
        blocks[0].commands,
        [("a".to_string(), Some(2)), ("b".to_string(), Some(2))]
    );
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
            "not followed by a ```sh block",
        ),
        (
            "<!-- test -->\n```yaml\na: b\n```\n",
            "not followed by a ```sh block",
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
