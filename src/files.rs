//! Finding release files under paths and loading each with its role.
//!
//! A provider release is a folder of files clusterctl fetches by name (`metadata.yaml`,
//! `infrastructure-components.yaml`, `cluster-template-*.yaml`, `clusterclass-*.yaml`). capkg
//! groups the files it finds by folder: each folder is one [`Release`], checked as a whole so that
//! rules can relate files to each other (a template and its ClusterClass, the components and
//! `metadata.yaml`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::provider::{FileRole, ProviderType};
use crate::yaml::{self, Limits, Source, YamlFile};

/// A loaded release file.
#[derive(Debug, Clone)]
pub struct ReleaseFile {
    pub path: PathBuf,
    pub role: FileRole,
    pub yaml: YamlFile,
    /// True when the file is YAML only after its `${VAR}` placeholders are substituted, and was
    /// loaded that way (positions still point into the real file).
    pub substituted: bool,
}

impl ReleaseFile {
    pub fn source(&self) -> &Arc<Source> {
        &self.yaml.source
    }

    /// The file name without directories.
    pub fn file_name(&self) -> &str {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }
}

/// The release files of one folder.
#[derive(Debug, Clone, Default)]
pub struct Release {
    pub dir: PathBuf,
    pub files: Vec<ReleaseFile>,
}

impl Release {
    pub fn components(&self) -> impl Iterator<Item = &ReleaseFile> {
        self.files
            .iter()
            .filter(|f| matches!(f.role, FileRole::Components { .. }))
    }

    pub fn metadata(&self) -> Option<&ReleaseFile> {
        self.files.iter().find(|f| f.role == FileRole::Metadata)
    }

    pub fn cluster_templates(&self) -> impl Iterator<Item = &ReleaseFile> {
        self.files
            .iter()
            .filter(|f| matches!(f.role, FileRole::ClusterTemplate { .. }))
    }

    pub fn cluster_classes(&self) -> impl Iterator<Item = &ReleaseFile> {
        self.files
            .iter()
            .filter(|f| matches!(f.role, FileRole::ClusterClass { .. }))
    }

    pub fn file_named(&self, name: &str) -> Option<&ReleaseFile> {
        self.files.iter().find(|f| f.file_name() == name)
    }

    /// The provider type the components files' names give, when they agree.
    pub fn provider_type_from_names(&self) -> Option<ProviderType> {
        let mut types = self.components().filter_map(|f| match f.role {
            FileRole::Components { provider_type, .. } => Some(provider_type),
            _ => None,
        });
        let first = types.next()?;
        types.all(|t| t == first).then_some(first)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("`{}` does not exist", path.display())]
    NotFound { path: PathBuf },
    #[error("cannot read `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "no release files found in {}",
        paths.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", ")
    )]
    NoReleaseFiles { paths: Vec<PathBuf> },
    #[error(
        "cannot tell what `{}` is in a release: name it `<type>-components.yaml`, `metadata.yaml`, `cluster-template[-<flavor>].yaml` or `clusterclass-<name>.yaml`, or pass `--type` to lint it as a components file",
        path.display()
    )]
    UnknownRole { path: PathBuf },
}

impl Error {
    /// What to do about it, for errors that know.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::NoReleaseFiles { .. } => Some(
                "capkg looks for `*-components.yaml`, `metadata.yaml`, `cluster-template*.yaml` and `clusterclass-*.yaml`; point it at the folder that holds them",
            ),
            _ => None,
        }
    }
}

/// Folder names never searched: version control, build output, dependencies.
const SKIPPED_DIRS: [&str; 4] = ["target", "node_modules", "vendor", "bin"];

/// Finds the release files under `paths` (files are taken as given, folders are searched) and
/// loads them, grouped by folder. `default_type` gives a role to an explicitly named file whose
/// name says nothing (it is read as that type's components).
pub fn load_releases(
    paths: &[PathBuf],
    default_type: Option<ProviderType>,
) -> Result<Vec<Release>, Error> {
    let mut found: BTreeMap<PathBuf, Vec<(PathBuf, Option<FileRole>)>> = BTreeMap::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound { path: path.clone() },
            _ => Error::Read {
                path: path.clone(),
                source,
            },
        })?;
        if metadata.is_dir() {
            for (file, role) in walk(path)? {
                let dir = parent_of(&file);
                found.entry(dir).or_default().push((file, Some(role)));
            }
        } else {
            let role = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(FileRole::from_file_name);
            found
                .entry(parent_of(path))
                .or_default()
                .push((path.clone(), role));
        }
    }
    if found.is_empty() {
        return Err(Error::NoReleaseFiles {
            paths: paths.to_vec(),
        });
    }
    let mut releases = Vec::new();
    for (dir, mut entries) in found {
        entries.sort();
        entries.dedup();
        let mut files = Vec::new();
        for (path, role) in entries {
            files.push(load_file(&path, role, default_type)?);
        }
        releases.push(Release { dir, files });
    }
    Ok(releases)
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn walk(root: &Path) -> Result<Vec<(PathBuf, FileRole)>, Error> {
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0
                || !entry.file_type().is_dir()
                || entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| !name.starts_with('.') && !SKIPPED_DIRS.contains(&name))
        });
    for entry in walker {
        let entry = entry.map_err(|err| {
            let path = err.path().unwrap_or(root).to_path_buf();
            Error::Read {
                path,
                source: err.into(),
            }
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        if let Some(role) = entry
            .file_name()
            .to_str()
            .and_then(FileRole::from_file_name)
        {
            files.push((clean(entry.path()), role));
        }
    }
    Ok(files)
}

/// `./a/b` -> `a/b`, so that paths print as users expect.
fn clean(path: &Path) -> PathBuf {
    path.strip_prefix(".")
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

/// Reads and parses one file. `role` is `None` for an explicitly named file whose name says
/// nothing; its content decides, or `default_type`.
pub fn load_file(
    path: &Path,
    role: Option<FileRole>,
    default_type: Option<ProviderType>,
) -> Result<ReleaseFile, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    let yaml = yaml::parse_file(name, bytes, Limits::default());
    let role = match role {
        Some(role) => role,
        None => sniff_role(&yaml, default_type).ok_or_else(|| Error::UnknownRole {
            path: path.to_path_buf(),
        })?,
    };
    let (yaml, substituted) = if role.is_template() {
        crate::subst::reparse_with_placeholders(yaml)
    } else {
        (yaml, false)
    };
    Ok(ReleaseFile {
        path: path.to_path_buf(),
        role,
        yaml,
        substituted,
    })
}

/// Guesses a role from content: a `Metadata` object, a `Cluster` (a template) or a lone
/// `ClusterClass`; anything else is components when a type is known.
fn sniff_role(yaml: &YamlFile, default_type: Option<ProviderType>) -> Option<FileRole> {
    let kinds: Vec<&str> = yaml
        .roots()
        .filter_map(|root| root.get("kind")?.scalar_text())
        .collect();
    if kinds.contains(&"Metadata") {
        return Some(FileRole::Metadata);
    }
    if kinds.contains(&"Cluster") {
        return Some(FileRole::ClusterTemplate { flavor: None });
    }
    if let Some(provider_type) = default_type {
        return Some(FileRole::Components {
            provider_type,
            suffix: None,
        });
    }
    None
}

/// Loads text that did not come from a file (standard input, a download) with a given role.
pub fn load_text(name: &str, text: String, role: FileRole) -> ReleaseFile {
    let yaml = yaml::parse_str(Arc::new(Source::new(name, text)), Limits::default());
    let (yaml, substituted) = if role.is_template() {
        crate::subst::reparse_with_placeholders(yaml)
    } else {
        (yaml, false)
    };
    ReleaseFile {
        path: PathBuf::from(name),
        role,
        yaml,
        substituted,
    }
}
