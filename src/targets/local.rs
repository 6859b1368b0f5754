//! The local target: a clusterctl local repository, `{repository}/{provider-label}/{version}/`,
//! which clusterctl reads through a `file://` provider URL.
//!
//! clusterctl requires an absolute path, the provider label as the folder above the version, and
//! a `v`-prefixed semantic version as the version folder (it looks candidates up as
//! `"v" + version`), so the version must carry its `v` here.
//!
//! Writing is atomic: the files go into a hidden staging folder beside the version folder
//! (`.{version}.XXXX.partial`), each file and the folder are synced, the staging folder is read
//! back, and only then renamed into place. A process killed at any moment leaves either no
//! version folder or a complete one (plus, at worst, a hidden staging folder clusterctl ignores,
//! as it is not a semantic version). Replacing an existing folder (`--force`) renames the old one
//! aside first, so the version folder is briefly absent, never partial.
//!
//! An identical existing version folder is left alone (every file `skipped`); a different one is
//! an error unless `--force`.
//!
//! A release of several providers gets a folder per provider, `{label}/{version}/`, each holding
//! that provider's components, the shared `metadata.yaml`, the templates when they belong to it
//! and a `checksums.txt` over the folder ([`ReleaseDir::for_provider`]). Each folder is put in
//! place atomically, one after the other.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::{
    Action, BoxFuture, Destination, Drafted, Error, Event, FileOutcome, History, Outcome,
    Overrides, Plan, PlannedFile, PublishFile, ReleaseDir, Services, Target, TargetKind, Transfer,
    VersionedSource,
};
use crate::checksums::sha256_hex;
use crate::forge::url::file_url;

/// What `targets.local` of capkg.yaml or `capkg publish local`'s flags ask for. A local
/// repository reads no environment, and its plan looks only at the file system, so a dry run
/// plans it for real.
#[derive(Debug, Clone)]
pub(crate) struct LocalRequest {
    /// The repository's base folder (created when missing).
    pub repository: PathBuf,
    /// Replace an existing, different version folder.
    pub force: bool,
    /// Also report the overrides layout clusterctl reads from this folder.
    pub overrides: Option<PathBuf>,
    /// Write the whole release, flat as `capkg assemble` lays it out, to
    /// `{repository}/draft-{version}/` ([`super::draft_name`]), a folder clusterctl never reads.
    pub draft: bool,
}

impl LocalRequest {
    /// `targets.local`, its relative `repository` taken from `root` (the configuration's
    /// folder).
    pub(crate) fn from_config(section: &crate::config::LocalTarget, root: &Path) -> Self {
        Self {
            repository: if section.repository.is_absolute() {
                section.repository.clone()
            } else {
                root.join(&section.repository)
            },
            force: false,
            overrides: None,
            draft: false,
        }
    }
}

/// A clusterctl local repository.
pub(crate) struct LocalTarget {
    request: LocalRequest,
    services: Services,
}

/// One version folder of the plan: a provider's part of the release.
struct Folder {
    /// What goes into it ([`ReleaseDir::for_provider`]).
    release: ReleaseDir,
    label_dir: PathBuf,
    version_dir: PathBuf,
    /// True when the folder is written (it is missing, or different and `force` is set).
    write: bool,
    replace_existing: bool,
    /// Held from planning until the folder is in place; dropping it lets the next publish in.
    lock: Option<PublishLock>,
}

/// What `plan` learned for `apply`.
struct LocalPlan {
    folders: Vec<Folder>,
}

/// What `apply` leaves for `read_back` and `finish`: each folder with its staging folder.
struct LocalApplied {
    folders: Vec<(Folder, Option<TempDir>)>,
}

impl LocalTarget {
    pub(crate) fn new(request: LocalRequest, services: Services) -> Self {
        Self { request, services }
    }

    fn plan_now(&self, release: &ReleaseDir) -> Result<Plan, Error> {
        if !release.version.has_v_prefix() {
            return Err(Error::VersionNeedsV {
                version: release.version.to_string(),
            });
        }
        let repository = absolute(&self.request.repository)?;
        let version = release.version.to_string();
        // A release of several providers is a folder per provider, as clusterctl reads them;
        // file names then carry the folder.
        let several = release.has_several_providers();
        let mut files = Vec::new();
        let mut steps = Vec::new();
        let mut folders = Vec::new();
        let mut urls = Vec::new();
        let mut override_files = Vec::new();
        let overrides = match &self.request.overrides {
            Some(folder) => Some(absolute(folder)?),
            None => None,
        };
        // A draft is one folder holding the whole release, as `capkg assemble` writes it.
        let parts = if self.request.draft {
            1
        } else {
            release.providers.len()
        };
        for index in 0..parts {
            let (part, label, label_dir, version_dir) = if self.request.draft {
                let draft = super::draft_name(&version);
                let label = release.provider_label();
                (
                    release.clone(),
                    label,
                    repository.clone(),
                    repository.join(draft),
                )
            } else {
                let part = release.for_provider(index);
                let label = part.provider_label();
                let label_dir = label_folder(&repository, &label)?;
                let version_dir = label_dir.join(&version);
                (part, label, label_dir, version_dir)
            };
            let url_of = |name: &str| file_url(&version_dir.join(name));
            let shown = |name: &str| {
                if several && !self.request.draft {
                    format!("{label}/{name}")
                } else {
                    name.to_string()
                }
            };

            // A publish in progress (holding the label folder's lock) may be about to write this
            // version: planning against its half-done state would race it.
            let lock = if label_dir.is_dir() {
                Some(PublishLock::take(&label_dir, &version)?)
            } else {
                None
            };
            let largest = part.files.iter().map(|f| f.size).max().unwrap_or(0);
            let existing = read_existing(&version_dir, largest)?;
            let mut differences = Vec::new();
            for file in &part.files {
                let (action, reason) = match existing.as_ref().and_then(|e| e.get(&file.name)) {
                    None => {
                        if existing.is_some() {
                            differences.push(format!("`{}` is missing", file.name));
                        }
                        (Action::Upload, None)
                    }
                    Some(Existing::Read(sha)) if *sha == file.sha256 => {
                        (Action::Skip, Some("identical".to_string()))
                    }
                    Some(Existing::Read(_))
                        if super::keeps_published_statement(&file.name, self.request.force) =>
                    {
                        (Action::Skip, Some(super::STATEMENT_KEPT.to_string()))
                    }
                    Some(Existing::Read(_)) => {
                        differences.push(format!("`{}` differs", file.name));
                        (Action::Replace, Some("different content".to_string()))
                    }
                    Some(Existing::NotRead(what)) => {
                        differences.push(format!("`{}` {what}", file.name));
                        (Action::Replace, Some(what.clone()))
                    }
                };
                files.push(PlannedFile {
                    name: shown(&file.name),
                    size: file.size,
                    sha256: file.sha256.clone(),
                    action,
                    url: url_of(&file.name),
                    reason,
                });
            }
            if let Some(existing) = &existing {
                for name in existing.keys() {
                    if part.file(name).is_none() {
                        differences.push(format!("`{name}` is not in the release"));
                    }
                }
            }
            if !differences.is_empty() && !self.request.force {
                return Err(Error::FolderDiffers {
                    path: version_dir,
                    differences,
                });
            }
            let replace_existing = existing.is_some() && !differences.is_empty();
            let write = existing.is_none() || replace_existing;
            if write {
                steps.push(format!(
                    "write the files to a staging folder in `{}`",
                    label_dir.display()
                ));
                if replace_existing {
                    steps.push(format!(
                        "replace `{}` with it ({})",
                        version_dir.display(),
                        differences.join("; ")
                    ));
                } else {
                    steps.push(format!("rename it to `{}`", version_dir.display()));
                }
            }
            if self.request.draft {
                urls.extend(
                    release
                        .providers
                        .iter()
                        .map(|p| url_of(&p.components_name())),
                );
            } else {
                urls.push(url_of(&part.components_name()));
            }
            if let Some(folder) = &overrides {
                override_files.extend(
                    part.files
                        .iter()
                        .map(|f| folder.join(&label).join(&version).join(&f.name)),
                );
            }
            folders.push(Folder {
                release: part,
                label_dir,
                version_dir,
                write,
                replace_existing,
                lock,
            });
        }

        let destination_text = match folders.as_slice() {
            [only] => only.version_dir.display().to_string(),
            _ => repository.display().to_string(),
        };
        let mut destination = Destination::new(TargetKind::Local, release, destination_text, urls);
        if let Some(folder) = overrides {
            destination
                .clusterctl_config
                .push_str(&format!("overridesFolder: \"{}\"\n", folder.display()));
            destination.overrides = Some(Overrides {
                files: override_files,
                folder,
            });
        }
        Ok(Plan {
            destination,
            steps,
            files,
            remote_checked: true,
            state: Box::new(LocalPlan { folders }),
        })
    }

    fn apply_now(&self, mut plan: Plan) -> Result<Outcome, Error> {
        let state: LocalPlan = plan.take_state()?;
        let files = plan
            .files
            .iter()
            .map(|f| FileOutcome {
                name: f.name.clone(),
                size: f.size,
                sha256: f.sha256.clone(),
                outcome: f.action.into(),
                url: f.url.clone(),
            })
            .collect();
        let mut folders = Vec::new();
        for mut folder in state.folders {
            let staging = if folder.write {
                let version = folder.release.version.to_string();
                if folder.lock.is_none() {
                    std::fs::create_dir_all(&folder.label_dir).map_err(|source| Error::Write {
                        path: folder.label_dir.clone(),
                        source,
                    })?;
                    folder.lock = Some(PublishLock::take(&folder.label_dir, &version)?);
                    // The folder did not exist when planned; another publish may have made it
                    // since.
                    if std::fs::symlink_metadata(&folder.version_dir).is_ok() {
                        return Err(Error::PublishInProgress {
                            version,
                            path: folder.version_dir.clone(),
                        });
                    }
                }
                remove_stale_staging(&folder.label_dir, &version);
                Some(self.write_staging(&folder.release, &folder.label_dir)?)
            } else {
                None
            };
            folders.push((folder, staging));
        }
        Ok(Outcome {
            destination: plan.destination,
            files,
            verified: false,
            state: Box::new(LocalApplied { folders }),
        })
    }

    fn write_staging(&self, release: &ReleaseDir, label_dir: &Path) -> Result<TempDir, Error> {
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Write { path, source }
        };
        std::fs::create_dir_all(label_dir).map_err(write_error(label_dir))?;
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{}.", release.version))
            .suffix(".partial")
            .tempdir_in(label_dir)
            .map_err(write_error(label_dir))?;
        let progress = &self.services.progress;
        for file in &release.files {
            progress.event(&Event::Started {
                name: &file.name,
                size: file.size,
                transfer: Transfer::Upload,
            });
            let path = staging.path().join(&file.name);
            let mut out = std::fs::File::create(&path).map_err(write_error(&path))?;
            out.write_all(&file.contents).map_err(write_error(&path))?;
            out.sync_all().map_err(write_error(&path))?;
            progress.event(&Event::Finished {
                name: &file.name,
                size: file.size,
                transfer: Transfer::Upload,
            });
        }
        sync_dir(staging.path())?;
        Ok(staging)
    }

    fn read_back_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let progress = self.services.progress.clone();
        let state: &mut LocalApplied = outcome.state_mut()?;
        for (folder, staging) in &state.folders {
            let Some(staging) = staging else {
                continue;
            };
            for file in &folder.release.files {
                progress.event(&Event::Started {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::ReadBack,
                });
                let path = staging.path().join(&file.name);
                let bytes = std::fs::read(&path).map_err(|source| Error::Read {
                    path: path.clone(),
                    source,
                })?;
                let actual = sha256_hex(&bytes);
                if actual != file.sha256 {
                    return Err(Error::ReadBackMismatch {
                        name: file.name.clone(),
                        url: path.display().to_string(),
                        expected: file.sha256.clone(),
                        actual,
                    });
                }
                progress.event(&Event::Finished {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::ReadBack,
                });
            }
        }
        outcome.verified = true;
        Ok(())
    }

    /// Puts every written folder in place, one provider after the other; each rename is atomic,
    /// so a failure leaves every provider's folder either complete or as it was.
    fn finish_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let state: &mut LocalApplied = outcome.state_mut()?;
        for (folder, staging) in &mut state.folders {
            // Released when this folder is done, whatever happens: the outcome may outlive the
            // publish.
            let _lock = folder.lock.take();
            if let Some(staging) = staging.take() {
                finish_folder(folder, staging)?;
            }
        }
        Ok(())
    }
}

/// Renames a staging folder into place as the version folder, moving a different existing one
/// aside first.
fn finish_folder(folder: &Folder, staging: TempDir) -> Result<(), Error> {
    let version_dir = folder.version_dir.clone();
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Write { path, source }
    };
    let mut old = None;
    if folder.replace_existing {
        let aside = tempfile::Builder::new()
            .prefix(&format!(
                ".{}.",
                version_dir
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            ))
            .suffix(".old")
            .tempdir_in(&folder.label_dir)
            .map_err(write_error(&folder.label_dir))?
            .keep();
        // `aside` is an empty folder; renaming a folder onto an empty one replaces it.
        std::fs::rename(&version_dir, &aside).map_err(write_error(&version_dir))?;
        old = Some(aside);
    }
    let staged = staging.keep();
    if let Err(source) = std::fs::rename(&staged, &version_dir) {
        // Put the old release back if it was moved aside, and remove what this publish made.
        if let Some(aside) = &old {
            let _ = std::fs::rename(aside, &version_dir);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(Error::Write {
            path: version_dir,
            source,
        });
    }
    sync_dir(&folder.label_dir)?;
    if let Some(aside) = old {
        // Best effort: the new release is in place; a leftover hidden folder is harmless.
        let _ = std::fs::remove_dir_all(aside);
    }
    Ok(())
}

impl Target for LocalTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Local
    }

    fn plan<'a>(&'a self, release: &'a ReleaseDir) -> BoxFuture<'a, Result<Plan, Error>> {
        Box::pin(async move { self.plan_now(release) })
    }

    fn apply<'a>(
        &'a self,
        _release: &'a ReleaseDir,
        plan: Plan,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        Box::pin(async move { self.apply_now(plan) })
    }

    fn read_back<'a>(
        &'a self,
        _release: &'a ReleaseDir,
        outcome: &'a mut Outcome,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move { self.read_back_now(outcome) })
    }

    fn finish<'a>(&'a self, outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move { self.finish_now(outcome) })
    }

    fn read_draft<'a>(
        &'a self,
        version: &'a crate::version::Version,
        _label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Drafted>, Error>> {
        Box::pin(async move {
            let dir =
                absolute(&self.request.repository)?.join(super::draft_name(&version.to_string()));
            if !dir.is_dir() {
                return Ok(None);
            }
            let entries = std::fs::read_dir(&dir).map_err(|source| Error::Read {
                path: dir.clone(),
                source,
            })?;
            let mut files = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|source| Error::Read {
                    path: dir.clone(),
                    source,
                })?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let path = entry.path();
                // Only regular files are read: a link could make the draft say anything.
                let bytes = crate::files::read_regular(&path).map_err(|e| Error::Read {
                    path: path.clone(),
                    source: std::io::Error::other(e.to_string()),
                })?;
                files.push(PublishFile::from_bytes(&name, bytes));
            }
            Ok(Some(Drafted {
                location: dir.display().to_string(),
                files,
            }))
        })
    }

    fn history(&self, release: &ReleaseDir, provider: usize) -> History {
        let (Some(provider), Ok(repository)) = (
            release.providers.get(provider),
            absolute(&self.request.repository),
        ) else {
            return History::Nothing;
        };
        let (label, components) = (provider.label(), provider.components_name());
        VersionedSource::of(|version| {
            file_url(&repository.join(&label).join(version).join(&components))
        })
        .map_or(History::Nothing, History::Versioned)
    }
}

/// An advisory lock on a provider's folder in the repository, held from planning until the version
/// folder is renamed into place, so that two publishes to the same provider never interleave.
/// It is a `flock` on the folder itself: nothing is left behind, and the kernel releases it when
/// a publish dies.
struct PublishLock {
    #[cfg(unix)]
    _folder: std::fs::File,
}

impl PublishLock {
    fn take(label_dir: &Path, version: &str) -> Result<PublishLock, Error> {
        #[cfg(unix)]
        {
            let folder = std::fs::File::open(label_dir).map_err(|source| Error::Read {
                path: label_dir.to_path_buf(),
                source,
            })?;
            match folder.try_lock() {
                Ok(()) => Ok(PublishLock { _folder: folder }),
                Err(std::fs::TryLockError::WouldBlock) => Err(Error::PublishInProgress {
                    version: version.to_string(),
                    path: label_dir.join(version),
                }),
                Err(std::fs::TryLockError::Error(source)) => Err(Error::Write {
                    path: label_dir.to_path_buf(),
                    source,
                }),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = (label_dir, version);
            Ok(PublishLock {})
        }
    }
}

/// Removes the staging (`.{version}.XXXX.partial`) and set-aside (`.{version}.XXXX.old`) folders
/// an interrupted publish of `version` left; only capkg's own names, and only while holding the
/// lock, so no live publish owns them. Best effort: a leftover is harmless to clusterctl.
fn remove_stale_staging(label_dir: &Path, version: &str) {
    let Ok(entries) = std::fs::read_dir(label_dir) else {
        return;
    };
    let prefix = format!(".{version}.");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.strip_prefix(&prefix).is_some_and(|rest| {
            let middle = rest
                .strip_suffix(".partial")
                .or_else(|| rest.strip_suffix(".old"));
            middle.is_some_and(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_alphanumeric()))
        });
        if ours && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A file found in an existing version folder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Existing {
    /// A regular file, by its SHA-256.
    Read(String),
    /// Not read, and so different from any file of the release: why, for the message.
    NotRead(String),
}

/// The files of an existing version folder by name; `None` when there is no folder. A file is
/// read only when it is a regular file itself (opened as release files are,
/// [`crate::files::open_regular`]) of at most `largest` bytes, the size of the release's largest
/// file: a larger one cannot be any of them, and a link, a FIFO, a device or a sub-folder is
/// no release file; each is a difference, not read.
fn read_existing(
    version_dir: &Path,
    largest: u64,
) -> Result<Option<BTreeMap<String, Existing>>, Error> {
    let metadata = match std::fs::symlink_metadata(version_dir) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Read {
                path: version_dir.to_path_buf(),
                source,
            });
        }
    };
    if !metadata.is_dir() {
        return Err(Error::NotAVersionFolder {
            path: version_dir.to_path_buf(),
        });
    }
    let read_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Read { path, source }
    };
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(version_dir).map_err(read_error(version_dir))? {
        let entry = entry.map_err(read_error(version_dir))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let found = match crate::files::read_regular_within(&path, largest) {
            Ok(bytes) => Existing::Read(sha256_hex(&bytes)),
            Err(crate::files::Error::NotRegular(not_regular)) => {
                Existing::NotRead(format!("is {}", not_regular.kind))
            }
            Err(crate::files::Error::TooLarge(_)) => {
                Existing::NotRead("is larger than any file of the release".to_string())
            }
            Err(crate::files::Error::Read { path, source }) => {
                return Err(Error::Read { path, source });
            }
            Err(other) => {
                return Err(Error::Read {
                    path,
                    source: std::io::Error::other(other.to_string()),
                });
            }
        };
        files.insert(name, found);
    }
    Ok(Some(files))
}

/// The provider's folder of a local repository, where capkg reads and writes its versions:
/// refused when it is a symbolic link, which could lead anywhere on this machine.
fn label_folder(repository: &Path, label: &str) -> Result<PathBuf, Error> {
    let label_dir = repository.join(label);
    if std::fs::symlink_metadata(&label_dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::Invalid {
            what: "provider folder of a local repository",
            value: label_dir.display().to_string(),
            reason: "it is a symbolic link: capkg neither reads nor writes a release through a link below the repository; make it a folder, or set `repository` to the folder above the one it leads to".into(),
        });
    }
    Ok(label_dir)
}

fn absolute(path: &Path) -> Result<PathBuf, Error> {
    std::path::absolute(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Makes a rename or a new file in `dir` durable.
fn sync_dir(dir: &Path) -> Result<(), Error> {
    #[cfg(unix)]
    {
        let handle = std::fs::File::open(dir).map_err(|source| Error::Write {
            path: dir.to_path_buf(),
            source,
        })?;
        handle.sync_all().map_err(|source| Error::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Classified;

    use crate::targets::{FileResult, PublishFile, publish};
    use crate::version::Version;

    const COMPONENTS: &str = "kind: Namespace\nmetadata:\n  name: x\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-aws\n";

    fn release(version: &str, metadata: &str) -> ReleaseDir {
        ReleaseDir::from_files(
            Path::new("out"),
            Version::parse(version).unwrap(),
            None,
            None,
            vec![
                PublishFile::from_bytes(
                    "infrastructure-components.yaml",
                    COMPONENTS.as_bytes().to_vec(),
                ),
                PublishFile::from_bytes("metadata.yaml", metadata.as_bytes().to_vec()),
            ],
            vec![],
        )
        .unwrap()
    }

    fn target(repository: &Path, force: bool) -> LocalTarget {
        LocalTarget::new(
            LocalRequest {
                draft: false,
                repository: repository.to_path_buf(),
                force,
                overrides: None,
            },
            Services::default(),
        )
    }

    #[tokio::test]
    async fn a_draft_is_the_whole_release_in_a_folder_clusterctl_never_reads() {
        let repo = tempfile::tempdir().unwrap();
        let release = release("v1.2.3", "m");
        let draft = LocalTarget::new(
            LocalRequest {
                draft: true,
                ..target(repo.path(), false).request
            },
            Services::default(),
        );
        publish(&draft, &release).await.unwrap();
        let mut entries: Vec<String> = std::fs::read_dir(repo.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        entries.sort();
        assert_eq!(
            entries,
            ["draft-v1.2.3"],
            "no `{{label}}/{{version}}` folder"
        );
        let found = draft
            .read_draft(&release.version, None)
            .await
            .unwrap()
            .unwrap();
        let mut names: Vec<&str> = found.files.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["infrastructure-components.yaml", "metadata.yaml"]);
        let none = target(repo.path(), false)
            .read_draft(&Version::parse("v1.2.4").unwrap(), None)
            .await
            .unwrap();
        assert!(none.is_none());
    }

    #[tokio::test]
    async fn writes_the_clusterctl_layout_and_a_rerun_changes_nothing() {
        let repo = tempfile::tempdir().unwrap();
        let outcome = publish(&target(repo.path(), false), &release("v1.2.3", "m"))
            .await
            .unwrap();
        let folder = repo.path().join("infrastructure-aws/v1.2.3");
        assert_eq!(
            std::fs::read_to_string(folder.join("metadata.yaml")).unwrap(),
            "m"
        );
        assert_eq!(outcome.count(FileResult::Uploaded), 2);
        assert!(outcome.verified);
        assert_eq!(
            outcome.destination.clusterctl_url,
            format!("file://{}/infrastructure-components.yaml", folder.display())
        );
        let entries: Vec<_> = std::fs::read_dir(repo.path().join("infrastructure-aws"))
            .unwrap()
            .collect();
        assert_eq!(entries.len(), 1, "no staging folder is left behind");

        let again = publish(&target(repo.path(), false), &release("v1.2.3", "m"))
            .await
            .unwrap();
        assert_eq!(again.count(FileResult::Skipped), 2);
    }

    #[tokio::test]
    async fn a_different_existing_version_needs_force() {
        let repo = tempfile::tempdir().unwrap();
        publish(&target(repo.path(), false), &release("v1.2.3", "old"))
            .await
            .unwrap();
        let err = target(repo.path(), false)
            .plan_now(&release("v1.2.3", "new"))
            .unwrap_err();
        assert!(err.to_string().contains("`metadata.yaml` differs"), "{err}");
        assert!(err.hint().unwrap_or_default().contains("--force"), "{err}");
        let outcome = publish(&target(repo.path(), true), &release("v1.2.3", "new"))
            .await
            .unwrap();
        assert_eq!(outcome.count(FileResult::Replaced), 1);
        assert_eq!(outcome.count(FileResult::Skipped), 1);
        let folder = repo.path().join("infrastructure-aws/v1.2.3");
        assert_eq!(
            std::fs::read_to_string(folder.join("metadata.yaml")).unwrap(),
            "new"
        );
        let entries: Vec<_> = std::fs::read_dir(repo.path().join("infrastructure-aws"))
            .unwrap()
            .collect();
        assert_eq!(entries.len(), 1, "the old folder is removed");
    }

    /// What the version folder already holds is compared without reading through a link, a
    /// FIFO or a device, and without reading more than the release's largest file: each is a
    /// difference, replaced with `--force`.
    #[cfg(unix)]
    #[tokio::test]
    async fn an_existing_folder_is_read_as_regular_files_within_the_release_size() {
        use std::os::unix::fs::symlink;
        let repo = tempfile::tempdir().unwrap();
        let folder = repo.path().join("infrastructure-aws/v1.2.3");
        std::fs::create_dir_all(&folder).unwrap();
        symlink("/proc/self/environ", folder.join("metadata.yaml")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(folder.join("infrastructure-components.yaml"))
            .status()
            .unwrap();
        assert!(made.success());
        // Sparse: larger than any file of the release, never read.
        let huge = std::fs::File::create(folder.join("cluster-template.yaml")).unwrap();
        huge.set_len(1 << 40).unwrap();
        drop(huge);
        let err = target(repo.path(), false)
            .plan_now(&release("v1.2.3", "m"))
            .unwrap_err()
            .to_string();
        for expected in [
            "`metadata.yaml` is a symbolic link",
            "`infrastructure-components.yaml` is a FIFO",
            "`cluster-template.yaml` is not in the release",
        ] {
            assert!(err.contains(expected), "{expected}: {err}");
        }
        let outcome = publish(&target(repo.path(), true), &release("v1.2.3", "m"))
            .await
            .unwrap();
        assert_eq!(outcome.count(FileResult::Replaced), 2);
        assert_eq!(
            std::fs::read_to_string(folder.join("metadata.yaml")).unwrap(),
            "m"
        );

        let existing = read_existing(&folder, 0).unwrap().unwrap();
        assert_eq!(
            existing.get("metadata.yaml"),
            Some(&Existing::NotRead(
                "is larger than any file of the release".into()
            ))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_provider_folder_is_refused() {
        let repo = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), repo.path().join("infrastructure-aws"))
            .unwrap();
        let err = target(repo.path(), false)
            .plan_now(&release("v1.2.3", "m"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbolic link"), "{err}");
    }

    #[test]
    fn versions_without_v_are_refused() {
        let repo = tempfile::tempdir().unwrap();
        let err = target(repo.path(), false)
            .plan_now(&release("1.2.3", "m"))
            .unwrap_err();
        assert!(err.to_string().contains("--version v1.2.3"), "{err}");
    }
}
