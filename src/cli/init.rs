//! `capkg init`: scaffold `capkg.yaml`, a GitHub Actions workflow and a GitLab CI job.
//!
//! Detection and rendering are [`crate::assemble::scaffold`]'s; this file writes the files, each
//! atomically, and never replaces an existing one without `--force` (files it skips are listed,
//! and the run still succeeds). `--provider` and `--type` win over what detection finds.
//! `--format json` prints `{"written": [..], "kept": [..], "notes": [..]}` on stdout instead of
//! the lines on stderr.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, Failure, GlobalArgs, ProviderArgs, Status};
use crate::assemble::scaffold;
use crate::report::{Format, json};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The repository to scaffold (default: the current folder).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(global: &GlobalArgs, args: InitArgs) -> CommandResult {
    if !args.dir.is_dir() {
        return Err(Failure::internal(anyhow::anyhow!(
            "`{}` is not a folder",
            args.dir.display()
        )));
    }
    let mut detected = scaffold::detect(&args.dir);
    if let Some(name) = &args.provider.provider {
        detected.provider_name = Some(name.clone());
    }
    if let Some(provider_type) = args.provider.provider_type {
        detected.provider_type = Some(provider_type);
    }
    let mut stderr = std::io::stderr().lock();
    let mut written = Vec::new();
    let mut kept = Vec::new();
    for (relative, text) in scaffold::render(&detected) {
        let path = args.dir.join(&relative);
        if path.exists() && !args.force {
            kept.push(relative);
            continue;
        }
        write_atomically(&path, text.as_bytes()).map_err(|e| {
            Failure::internal(
                anyhow::Error::new(e).context(format!("cannot write `{}`", path.display())),
            )
        })?;
        written.push(relative);
    }
    let mut notes = Vec::new();
    if detected.provider_name.is_none() {
        notes.push("no provider name found (no `cluster.x-k8s.io/provider` label in config/default/kustomization.yaml); edit `provider.name` in capkg.yaml or pass `--provider`");
    }
    if !detected.metadata {
        notes.push("no metadata.yaml at the repository root; capkg.yaml expects one");
    }
    if global.format == Format::Json {
        let paths = |list: &[PathBuf]| -> Vec<String> {
            list.iter().map(|p| p.display().to_string()).collect()
        };
        let document = serde_json::json!({
            "written": paths(&written),
            "kept": paths(&kept),
            "notes": notes,
        });
        json::write_value(&mut super::stdout(), &document)?;
    } else if !global.quiet {
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
        for note in &notes {
            let _ = writeln!(stderr, "note: {note}");
        }
    }
    Ok(Status::Success)
}

/// Writes a file through a temporary file beside it.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
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
