//! `capkg init`: scaffold `capkg.yaml` and the release CI of the repository's forge (a GitHub
//! Actions workflow or a GitLab CI job) at the repository root, and ignore the output folder.
//!
//! Detection and rendering are [`crate::init`]'s; this file writes the files, each
//! atomically inside the repository ([`Repository::write`]: a link out of it refuses the run before
//! anything is written, exit 1), and never replaces an existing one without `--force` (files it
//! skips are listed, and the run still succeeds). A `.gitignore` that is a link is neither read
//! nor changed. `--provider` and `--type` win over what detection finds, for a
//! repository with one provider. What was found, and what was not, is printed (`--format json`:
//! `{"repository", "found", "missing", "written", "kept", "notes"}` on stdout).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status};
use crate::escape;
use crate::init;
use crate::init::gitignore::{IGNORED_DIRS, gitignore_with_output};
use crate::init::repository::Repository;
use crate::report::{Format, json};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// A folder in the repository to scaffold (default: the current folder); files are written
    /// at the repository root (the folder holding `.git`).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub(super) fn run(global: &GlobalArgs, args: InitArgs) -> CommandResult {
    if !args.dir.is_dir() {
        return Err(CommandError::fault(anyhow::anyhow!(
            "`{}` is not a folder",
            args.dir.display()
        )));
    }
    let mut detected = init::detect(&args.dir).map_err(|e| {
        CommandError::fault(
            anyhow::Error::new(e).context(format!("cannot read `{}`", args.dir.display())),
        )
    })?;
    if args.provider.provider.is_some() || args.provider.provider_type.is_some() {
        let [only] = &mut detected.providers[..] else {
            return Err(CommandError::fault(anyhow::anyhow!(
                "`--provider` and `--type` describe one provider, and this repository has {}: edit their entries in capkg.yaml instead",
                detected.providers.len()
            )));
        };
        if let Some(name) = &args.provider.provider {
            only.name = Some(name.clone());
        }
        if let Some(provider_type) = args.provider.provider_type {
            only.provider_type = Some(provider_type);
        }
    }
    let root = detected.root.clone();
    let repo = Repository::new(&root).map_err(|e| {
        CommandError::fault(
            anyhow::Error::new(e).context(format!("cannot read `{}`", root.display())),
        )
    })?;
    let files = init::render(&detected);
    // Every file checked before any is written: a link out of the repository refuses the run
    // with nothing written.
    for (relative, _) in &files {
        repo.check_writable(relative)
            .map_err(CommandError::from_classified)?;
    }
    let mut written = Vec::new();
    let mut kept = Vec::new();
    for (relative, text) in files {
        if repo.exists(&relative) && !args.force {
            kept.push(relative);
            continue;
        }
        repo.write(&relative, text.as_bytes())
            .map_err(CommandError::from_classified)?;
        written.push(relative);
    }
    let ignore_note = ignore_output(&repo)?;
    let mut notes = detected.notes.clone();
    notes.push(ignore_note.clone());
    if global.format == Format::Json {
        let paths = |list: &[PathBuf]| -> Vec<String> {
            list.iter().map(|p| p.display().to_string()).collect()
        };
        let document = serde_json::json!({
            "repository": root.display().to_string(),
            "found": detected.found,
            "missing": detected.missing,
            "written": paths(&written),
            "kept": paths(&kept),
            "notes": notes,
        });
        json::write_value(&mut super::stdout(), &document).map_err(CommandError::fault)?;
    } else if !global.quiet {
        // What init found in the repository is shown, not acted on.
        let mut stderr = super::stderr();
        let _ = writeln!(stderr, "repository: {}", root.display());
        for line in &detected.found {
            let _ = writeln!(stderr, "found: {}", escape::text(line));
        }
        for line in &detected.missing {
            let _ = writeln!(stderr, "not found: {}", escape::text(line));
        }
        for line in &detected.notes {
            let _ = writeln!(stderr, "note: {}", escape::text(line));
        }
        for path in &written {
            let _ = writeln!(stderr, "wrote {}", path.display());
        }
        for path in &kept {
            let _ = writeln!(
                stderr,
                "kept {} (exists; `--force` replaces it)",
                path.display()
            );
        }
        let _ = writeln!(stderr, "{ignore_note}");
        let _ = writeln!(
            stderr,
            "next: check capkg.yaml (fill every `TODO`, check each `images:` entry), then `capkg assemble --version vX.Y.Z`"
        );
    }
    Ok(Status::Success)
}

/// Adds the output folder to `.gitignore` when it is a regular file (or missing); a link or a
/// special file is neither read nor replaced (its target may be any file, a netrc or
/// `/proc/self/environ`), and said.
fn ignore_output(repo: &Repository) -> Result<String, CommandError> {
    let relative = Path::new(".gitignore");
    let by_hand = format!(
        "add /{}/ and /{}/ to it yourself if git should ignore the release folders",
        IGNORED_DIRS[0], IGNORED_DIRS[1]
    );
    let existing = match std::fs::symlink_metadata(repo.root().join(relative)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(CommandError::fault(
                anyhow::Error::new(e).context("cannot read `.gitignore`"),
            ));
        }
        Ok(metadata) if !metadata.is_file() => {
            return Ok(format!(
                "`.gitignore` is {}: not read, not changed; {by_hand}",
                crate::files::kind_of(metadata.file_type())
            ));
        }
        Ok(_) => match repo.read(relative, "") {
            Some(text) => Some(text),
            None => {
                return Ok(format!(
                    "`.gitignore` could not be read as text: not changed; {by_hand}"
                ));
            }
        },
    };
    match gitignore_with_output(existing.as_deref()) {
        Some((text, added)) => {
            repo.write(relative, text.as_bytes())
                .map_err(CommandError::from_classified)?;
            let added: Vec<String> = added.iter().map(|dir| format!("/{dir}/")).collect();
            Ok(format!("added {} to .gitignore", added.join(" and ")))
        }
        None => Ok(format!(
            ".gitignore already ignores {}/ and {}/",
            IGNORED_DIRS[0], IGNORED_DIRS[1]
        )),
    }
}
