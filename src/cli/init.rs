//! `capkg init`: scaffold `capkg.yaml` and the release CI of the repository's forge (a GitHub
//! Actions workflow or a GitLab CI job) at the repository root, and ignore the output folder.
//!
//! Detection and rendering are [`crate::assemble::scaffold`]'s; this file writes the files, each
//! atomically, and never replaces an existing one without `--force` (files it skips are listed,
//! and the run still succeeds). `--provider` and `--type` win over what detection finds, for a
//! repository with one provider. What was found, and what was not, is printed (`--format json`:
//! `{"repository", "found", "missing", "written", "kept", "notes"}` on stdout).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, Failure, GlobalArgs, ProviderArgs, Status};
use crate::assemble::scaffold;
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
        return Err(Failure::internal(anyhow::anyhow!(
            "`{}` is not a folder",
            args.dir.display()
        )));
    }
    let mut detected = scaffold::detect(&args.dir);
    if args.provider.provider.is_some() || args.provider.provider_type.is_some() {
        let [only] = &mut detected.providers[..] else {
            return Err(Failure::internal(anyhow::anyhow!(
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
    let mut written = Vec::new();
    let mut kept = Vec::new();
    for (relative, text) in scaffold::render(&detected) {
        let path = root.join(&relative);
        if path.exists() && !args.force {
            kept.push(relative);
            continue;
        }
        write(&path, text.as_bytes())?;
        written.push(relative);
    }
    let gitignore = root.join(".gitignore");
    let existing = match std::fs::read_to_string(&gitignore) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Failure::internal(
                anyhow::Error::new(e).context(format!("cannot read `{}`", gitignore.display())),
            ));
        }
    };
    let ignore_note = match scaffold::gitignore_with_output(existing.as_deref()) {
        Some(text) => {
            write(&gitignore, text.as_bytes())?;
            format!("added /{}/ to .gitignore", scaffold::OUTPUT_DIR)
        }
        None => format!(".gitignore already ignores {}/", scaffold::OUTPUT_DIR),
    };
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
            "notes": [ignore_note],
        });
        json::write_value(&mut super::stdout(), &document)?;
    } else if !global.quiet {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "repository: {}", root.display());
        for line in &detected.found {
            let _ = writeln!(stderr, "found: {line}");
        }
        for line in &detected.missing {
            let _ = writeln!(stderr, "not found: {line}");
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

fn write(path: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    write_atomically(path, bytes).map_err(|e| {
        Failure::internal(
            anyhow::Error::new(e).context(format!("cannot write `{}`", path.display())),
        )
    })
}

/// Writes a file through a temporary file beside it.
pub(crate) fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut file = tempfile::NamedTempFile::new_in(parent)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
