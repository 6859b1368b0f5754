//! The scripts in `completions/` are `capkg completions SHELL` output; this fails when they are
//! stale. Regenerate with `scripts/update-completions.sh` (or the loop in README).

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;

const FILES: [(&str, &str); 5] = [
    ("bash", "capkg.bash"),
    ("zsh", "_capkg"),
    ("fish", "capkg.fish"),
    ("powershell", "_capkg.ps1"),
    ("elvish", "capkg.elv"),
];

#[test]
fn committed_completions_match_the_command_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for (shell, file) in FILES {
        let output = cargo_bin_cmd!("capkg")
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(output.status.success(), "{shell}");
        assert!(!output.stdout.is_empty(), "{shell}");
        let committed = std::fs::read(dir.join(file)).unwrap_or_default();
        assert!(
            committed == output.stdout,
            "completions/{file} is stale: run `capkg completions {shell} > completions/{file}`"
        );
    }
}

#[test]
fn unknown_shells_are_rejected() {
    let output = cargo_bin_cmd!("capkg")
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
