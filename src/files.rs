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

use crate::error::{Classified, ErrorClass};
use crate::provider::{FileRole, ProviderType};
use crate::yaml::{self, Limits, Source, YamlFile};

mod regular;

pub use regular::{
    LARGE_INPUT, kind_of, lexical_absolute, on_large_input, open_regular, read_regular,
    read_regular_within, write_atomically,
};

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
    /// Files whose names look like release files but that clusterctl would never fetch.
    pub near_misses: Vec<NearMiss>,
}

/// A file named almost like a release file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NearMiss {
    pub path: PathBuf,
    /// The name clusterctl would look for.
    pub suggestion: String,
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
    #[error(transparent)]
    NotRegular(#[from] NotRegular),
    #[error(transparent)]
    BadName(#[from] BadName),
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
}

/// A release file that is a symbolic link, a folder, a FIFO, a device or a socket. capkg never
/// reads through one: a link in a release folder could publish any file the CI job can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is {kind}, not a regular file: a release file must be a regular file inside the release folder",
    path.display()
)]
pub struct NotRegular {
    pub path: PathBuf,
    pub kind: &'static str,
}

/// A release file name clusterctl cannot fetch or `checksums.txt` cannot list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: `{}`", name.escape_debug())]
pub struct BadName {
    pub name: String,
    pub reason: String,
}

/// A release file larger than capkg reads of one (`--max-download`): a (sparse) file a hostile
/// release made huge, a `/proc` file whose size says 0. Refused before it is read, or as soon as
/// it grows past the limit while being read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is {}, more than the {} capkg reads of one release file (`--max-download`, CAPKG_MAX_DOWNLOAD)",
    path.display(),
    size.map_or_else(|| "larger".to_string(), crate::units::format_size),
    crate::units::format_size(*limit)
)]
pub struct TooLarge {
    pub path: PathBuf,
    /// The size the file system gave, `None` when the file grew past the limit while read.
    pub size: Option<u64>,
    pub limit: u64,
}

/// Why a file could not be read as a regular file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    NotRegular(#[from] NotRegular),
    #[error("cannot read `{}`", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A link or a device where a release file should be: the release is wrong.
impl Classified for NotRegular {
    fn class(&self) -> ErrorClass {
        ErrorClass::Refusal
    }
}

/// A name clusterctl cannot fetch: the release is wrong.
impl Classified for BadName {
    fn class(&self) -> ErrorClass {
        ErrorClass::Refusal
    }
}

/// Past a limit the user sets: capkg could not do its job within it, as for a download
/// (`HttpError::TooLarge`).
impl Classified for TooLarge {
    fn class(&self) -> ErrorClass {
        ErrorClass::Fault
    }

    fn hint(&self) -> Option<String> {
        Some(format!(
            "a release file this large is seldom a manifest: check what `{}` is; if it is the release, raise the limit (`--max-download 1GiB`, or CAPKG_MAX_DOWNLOAD)",
            self.path.display()
        ))
    }
}

/// Not a regular file: refused; unreadable: capkg could not do its job.
impl Classified for ReadError {
    fn class(&self) -> ErrorClass {
        match self {
            ReadError::NotRegular(not_regular) => not_regular.class(),
            ReadError::Io { .. } => ErrorClass::Fault,
        }
    }
}

/// Checks a release file name: clusterctl fetches release files by name from a URL path
/// (`.../releases/download/{version}/{name}`, `cluster-template-{flavor}.yaml`), and
/// `checksums.txt` lists one name per line. capkg accepts the names Kubernetes accepts for
/// objects plus `.` and `_` (ASCII letters, digits, `-`, `.`, `_`, starting with a letter or a
/// digit): no whitespace, control characters, `/`, `\`, `#`, `?`, `%` or any other character a
/// URL or a line would change.
pub fn check_release_name(name: &str) -> Result<(), BadName> {
    let bad = |reason: String| {
        Err(BadName {
            name: name.to_string(),
            reason,
        })
    };
    if name.is_empty() {
        return bad("a release file name is empty".to_string());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        return bad(format!(
            "the release file name holds {}, which clusterctl cannot fetch from a URL or `checksums.txt` cannot list (use ASCII letters, digits, `-`, `.` and `_`)",
            describe_char(c)
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return bad("a release file name must start with a letter or a digit".to_string());
    }
    Ok(())
}

/// `a newline`, `` `#` ``, `U+00A0`: a character as a message shows it.
pub(crate) fn describe_char(c: char) -> String {
    match c {
        '\n' => "a newline".to_string(),
        '\r' => "a carriage return".to_string(),
        '\t' => "a tab".to_string(),
        ' ' => "a space".to_string(),
        c if c.is_control() || c.is_whitespace() || !c.is_ascii() => {
            format!("U+{:04X}", u32::from(c))
        }
        c => format!("`{c}`"),
    }
}

impl From<ReadError> for Error {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::NotRegular(not_regular) => Error::NotRegular(not_regular),
            ReadError::Io { path, source } => Error::Read { path, source },
        }
    }
}

impl Classified for Error {
    /// A release that is itself wrong (a link, a bad name) is refused; one capkg cannot read or
    /// find is a failure to do the job.
    fn class(&self) -> ErrorClass {
        match self {
            Error::NotRegular(not_regular) => not_regular.class(),
            Error::BadName(bad_name) => bad_name.class(),
            Error::TooLarge(too_large) => too_large.class(),
            Error::NotFound { .. }
            | Error::Read { .. }
            | Error::NoReleaseFiles { .. }
            | Error::UnknownRole { .. } => ErrorClass::Fault,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::NoReleaseFiles { .. } => Some(
                "capkg looks for `*-components.yaml`, `metadata.yaml`, `cluster-template*.yaml` and `clusterclass-*.yaml`; point it at the folder that holds them".to_string(),
            ),
            Error::TooLarge(too_large) => too_large.hint(),
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
    load_releases_within(paths, default_type, u64::MAX)
}

/// [`load_releases`], refusing a file of more than `limit` bytes ([`TooLarge`]): a release read
/// for comparison (`--previous FOLDER`, `capkg diff`), bounded as a download is.
pub fn load_releases_within(
    paths: &[PathBuf],
    default_type: Option<ProviderType>,
    limit: u64,
) -> Result<Vec<Release>, Error> {
    let mut found: BTreeMap<PathBuf, Vec<(PathBuf, Option<FileRole>)>> = BTreeMap::new();
    let mut near: BTreeMap<PathBuf, Vec<NearMiss>> = BTreeMap::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound { path: path.clone() },
            _ => Error::Read {
                path: path.clone(),
                source,
            },
        })?;
        if metadata.is_dir() {
            for (file, found_as) in walk(path)? {
                let dir = parent_of(&file);
                match found_as {
                    Found::Role(role) => found.entry(dir).or_default().push((file, Some(role))),
                    Found::NearMiss(suggestion) => {
                        found.entry(dir.clone()).or_default();
                        near.entry(dir).or_default().push(NearMiss {
                            path: file,
                            suggestion,
                        });
                    }
                }
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
    if found.is_empty() && near.is_empty() {
        return Err(Error::NoReleaseFiles {
            paths: paths.to_vec(),
        });
    }
    let mut jobs = Vec::new();
    for (dir, mut entries) in found {
        entries.sort();
        entries.dedup();
        jobs.push((dir, entries));
    }
    let all: Vec<(PathBuf, Option<FileRole>)> = jobs
        .iter()
        .flat_map(|(_, entries)| entries.iter().cloned())
        .collect();
    let mut loaded = load_parallel(&all, default_type, limit).into_iter();
    let mut releases = Vec::new();
    for (dir, entries) in jobs {
        let mut files = Vec::with_capacity(entries.len());
        for _ in &entries {
            match loaded.next() {
                Some(file) => files.push(file?),
                None => break,
            }
        }
        let near_misses = near.remove(&dir).unwrap_or_default();
        releases.push(Release {
            dir,
            files,
            near_misses,
        });
    }
    Ok(releases)
}

/// Loads files on all cores (parsing dominates a lint run); results keep the input order.
///
/// The largest files go first (each thread takes the next when it is done), and the largest of
/// all is loaded on this thread, which would otherwise only wait: its allocator heap already
/// holds the pages touched at start-up (the first 4 MiB of mimalloc's first segment are two
/// transparent huge pages before any input is known), which a file loaded on a new thread leaves
/// mostly empty while taking pages of its own: a lower peak, and no slower (benches/README.md,
/// "Why a pool of worker threads").
fn load_parallel(
    entries: &[(PathBuf, Option<FileRole>)],
    default_type: Option<ProviderType>,
    limit: u64,
) -> Vec<Result<ReleaseFile, Error>> {
    if entries.len() < 2 {
        return entries
            .iter()
            .map(|(path, role)| load_file_within(path, role.clone(), default_type, limit))
            .collect();
    }
    let sizes: Vec<u64> = entries
        .iter()
        .map(|(path, _)| std::fs::symlink_metadata(path).map_or(0, |m| m.len()))
        .collect();
    let order = crate::threads::heaviest_first(&sizes);
    let entries: Vec<&(PathBuf, Option<FileRole>)> = entries.iter().collect();
    crate::threads::in_turn(
        entries,
        &order,
        crate::threads::workers(),
        || (),
        |(), _, (path, role)| Some(load_file_within(path, role.clone(), default_type, limit)),
    )
    .into_iter()
    .flatten()
    .collect()
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// What a search found: a release file, or a file named almost like one.
enum Found {
    Role(FileRole),
    NearMiss(String),
}

fn walk(root: &Path) -> Result<Vec<(PathBuf, Found)>, Error> {
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
        if entry.file_type().is_dir() {
            continue;
        }
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        let release_name = FileRole::from_file_name(name).is_some() || near_miss(name).is_some();
        if !entry.file_type().is_file() {
            // A link or FIFO named like a release file would be published or skipped; say so.
            if release_name {
                return Err(Error::NotRegular(NotRegular {
                    path: clean(entry.path()),
                    kind: kind_of(entry.file_type()),
                }));
            }
            continue;
        }
        if let Some(role) = FileRole::from_file_name(name) {
            files.push((clean(entry.path()), Found::Role(role)));
        } else if let Some(suggestion) = near_miss(name) {
            files.push((clean(entry.path()), Found::NearMiss(suggestion)));
        }
    }
    Ok(files)
}

/// The release file name `name` was probably meant to be, when it is close to one.
pub fn near_miss(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let stem = lower
        .strip_suffix(".yaml")
        .or_else(|| lower.strip_suffix(".yml"))?;
    let candidate = if let Some(rest) = ["cluster_template", "clustertemplate", "cluster-templates"]
        .iter()
        .find_map(|p| stem.strip_prefix(p))
    {
        format!("cluster-template{}.yaml", rest.replace('_', "-"))
    } else if let Some(rest) = [
        "cluster-class",
        "cluster_class",
        "clusterclass_",
        "clusterclasses",
    ]
    .iter()
    .find_map(|p| stem.strip_prefix(p))
    {
        let rest = rest.trim_start_matches(['-', '_']);
        if rest.is_empty() {
            return None;
        }
        format!("clusterclass-{rest}.yaml")
    } else if matches!(stem, "meta-data" | "meta_data" | "metadata") {
        "metadata.yaml".to_string()
    } else if let Some(prefix) = stem
        .strip_suffix("-components")
        .or_else(|| stem.strip_suffix("-component"))
        .or_else(|| stem.strip_suffix("_components"))
    {
        let prefix = match prefix {
            "infra" | "infrastructure" => "infrastructure",
            "controlplane" | "control_plane" | "control-plane" | "cp" => "control-plane",
            "bootstrap" => "bootstrap",
            "core" | "cluster-api" => "core",
            "ipam" => "ipam",
            "runtime-extension" | "runtime-extensions" | "runtimeextension" => "runtime-extension",
            "addon" | "addons" => "addon",
            _ => return None,
        };
        format!("{prefix}-components.yaml")
    } else {
        stem.starts_with("cluster-template")
            .then(|| format!("{stem}.yaml"))
            .or_else(|| {
                stem.starts_with("clusterclass-")
                    .then(|| format!("{stem}.yaml"))
            })
            .or_else(|| {
                FileRole::from_file_name(&format!("{stem}.yaml")).map(|_| format!("{stem}.yaml"))
            })?
    };
    (candidate != name && FileRole::from_file_name(&candidate).is_some()).then_some(candidate)
}

/// `./a/b` -> `a/b`, so that paths print as users expect.
fn clean(path: &Path) -> PathBuf {
    path.strip_prefix(".")
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

/// Reads and parses one file of at most `limit` bytes. `role` is `None` for an explicitly named
/// file whose name says nothing; its content decides, or `default_type`.
fn load_file_within(
    path: &Path,
    role: Option<FileRole>,
    default_type: Option<ProviderType>,
    limit: u64,
) -> Result<ReleaseFile, Error> {
    let bytes = read_regular_within(path, limit)?;
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

/// A path of capkg.yaml or a flag, joined to the configuration's folder (absolute paths as
/// they are, without a leading `./`).
pub fn resolve_in(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        clean_join(root, path)
    }
}

/// `root/path` without a leading `./`.
pub fn clean_join(root: &Path, path: &Path) -> PathBuf {
    if root.as_os_str().is_empty() || root == Path::new(".") {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(windows, ignore = "Unix paths")]
    fn lexical_absolute_resolves_dots_by_name() {
        let clean = |p: &str| lexical_absolute(Path::new(p)).expect("absolute");
        assert_eq!(
            clean("/repo/config/../out/./a.yaml"),
            Path::new("/repo/out/a.yaml")
        );
        // From a sub-folder and from the root, one file: the spellings compare equal.
        let cwd = std::env::current_dir().expect("working directory");
        assert_eq!(clean("x/../y.yaml"), cwd.join("y.yaml"));
        assert_eq!(clean("/.."), Path::new("/"));
    }

    #[test]
    fn reading_a_large_file_runs_the_large_input_hook() {
        thread_local! {
            static CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        // The hook runs on the reading thread: a count of this thread's calls is this test's.
        on_large_input(|| CALLS.with(|calls| calls.set(calls.get() + 1)));
        let dir = tempfile::tempdir().expect("temporary folder");
        let small = dir.path().join("small.yaml");
        std::fs::write(&small, "kind: ConfigMap\n").expect("writes");
        let large = dir.path().join("large.yaml");
        // Sparse: 16 MiB of zero bytes without writing them.
        let file = std::fs::File::create(&large).expect("creates");
        file.set_len(LARGE_INPUT).expect("sizes");
        drop(file);
        assert_eq!(read_regular(&small).expect("reads").len(), 16);
        assert_eq!(CALLS.with(std::cell::Cell::get), 0);
        assert_eq!(
            read_regular(&large).expect("reads").len() as u64,
            LARGE_INPUT
        );
        assert_eq!(CALLS.with(std::cell::Cell::get), 1);
    }

    /// A file past the limit is refused before it is read when its size says so, and after
    /// `limit + 1` bytes when it does not (a `/proc` file has size 0); a FIFO is refused without
    /// blocking.
    #[test]
    fn bounded_reads_refuse_what_is_larger_than_the_limit() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("infrastructure-components.yaml");
        let file = std::fs::File::create(&path).expect("creates");
        file.set_len(4096).expect("sizes");
        drop(file);
        assert_eq!(read_regular_within(&path, 4096).expect("reads").len(), 4096);
        let refused = read_regular_within(&path, 4095).expect_err("too large");
        assert!(
            matches!(
                &refused,
                Error::TooLarge(TooLarge {
                    size: Some(4096),
                    limit: 4095,
                    ..
                })
            ),
            "{refused:?}"
        );
        let message = refused.to_string();
        assert!(
            message.contains("infrastructure-components.yaml")
                && message.contains("--max-download"),
            "{message}"
        );
        assert_eq!(refused.class(), ErrorClass::Fault);
        assert!(
            refused
                .hint()
                .unwrap_or_default()
                .contains("CAPKG_MAX_DOWNLOAD")
        );
        let releases = load_releases_within(&[dir.path().to_path_buf()], None, 100).unwrap_err();
        assert!(matches!(releases, Error::TooLarge(_)), "{releases:?}");

        #[cfg(target_os = "linux")]
        {
            // Its size says 0, its reads give the environment.
            let grown = read_regular_within(Path::new("/proc/self/environ"), 1);
            if std::env::vars_os().next().is_some() {
                assert!(
                    matches!(grown, Err(Error::TooLarge(TooLarge { size: None, .. }))),
                    "{grown:?}"
                );
            }
        }
        #[cfg(unix)]
        {
            let fifo = dir.path().join("metadata.yaml");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo runs");
            assert!(made.success());
            let refused = read_regular_within(&fifo, 1 << 20).expect_err("a FIFO");
            assert!(matches!(
                refused,
                Error::NotRegular(NotRegular { kind: "a FIFO", .. })
            ));
        }
    }

    #[test]
    fn near_misses_suggest_the_name_clusterctl_fetches() {
        for (name, expected) in [
            ("cluster-template.yml", Some("cluster-template.yaml")),
            (
                "cluster_template_eks.yaml",
                Some("cluster-template-eks.yaml"),
            ),
            (
                "clustertemplate-eks.yaml",
                Some("cluster-template-eks.yaml"),
            ),
            (
                "cluster-class-quick-start.yaml",
                Some("clusterclass-quick-start.yaml"),
            ),
            ("Metadata.yaml", Some("metadata.yaml")),
            ("metadata.yml", Some("metadata.yaml")),
            (
                "infra-components.yaml",
                Some("infrastructure-components.yaml"),
            ),
            (
                "infrastructure-component.yaml",
                Some("infrastructure-components.yaml"),
            ),
            (
                "controlplane-components.yaml",
                Some("control-plane-components.yaml"),
            ),
            ("metadata.yaml", None),
            ("kustomization.yaml", None),
            ("rosa-network.yaml", None),
            ("foo-components.yaml", None),
        ] {
            assert_eq!(near_miss(name).as_deref(), expected, "{name}");
        }
    }

    #[test]
    fn folders_with_no_release_files_are_an_error_with_a_hint() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kustomization.yaml"), "resources: []\n").unwrap();
        let err = load_releases(&[dir.path().to_path_buf()], None).unwrap_err();
        assert!(matches!(err, Error::NoReleaseFiles { .. }));
        assert!(err.hint().is_some());
        assert_eq!(err.class(), ErrorClass::Fault);
    }

    #[test]
    fn a_wrong_release_is_refused_and_an_unreadable_one_is_a_failure() {
        let bad = check_release_name("a b.yaml").unwrap_err();
        assert_eq!(Error::BadName(bad).class(), ErrorClass::Refusal);
        let link = NotRegular {
            path: PathBuf::from("x.yaml"),
            kind: "a symbolic link",
        };
        assert_eq!(
            ReadError::NotRegular(link.clone()).class(),
            ErrorClass::Refusal
        );
        assert_eq!(Error::NotRegular(link).class(), ErrorClass::Refusal);
        let io = ReadError::Io {
            path: PathBuf::from("x.yaml"),
            source: std::io::Error::other("gone"),
        };
        assert_eq!(io.class(), ErrorClass::Fault);
        assert_eq!(Error::from(io).class(), ErrorClass::Fault);
    }

    #[test]
    fn files_are_grouped_by_folder_and_hidden_folders_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(root.join(".git/x")).unwrap();
        std::fs::write(root.join("a/metadata.yaml"), "kind: Metadata\n").unwrap();
        std::fs::write(root.join("a/cluster-template.yml"), "kind: Cluster\n").unwrap();
        std::fs::write(root.join("metadata.yaml"), "kind: Metadata\n").unwrap();
        std::fs::write(root.join(".git/x/metadata.yaml"), "kind: Metadata\n").unwrap();
        let releases = load_releases(&[root.to_path_buf()], None).unwrap();
        assert_eq!(releases.len(), 2);
        let a = releases.iter().find(|r| r.dir.ends_with("a")).unwrap();
        assert_eq!(a.files.len(), 1);
        assert_eq!(a.near_misses.len(), 1);
        assert_eq!(a.near_misses[0].suggestion, "cluster-template.yaml");
    }

    #[test]
    fn the_largest_files_load_first_and_results_keep_the_input_order() {
        assert_eq!(
            crate::threads::heaviest_first(&[5u64, 50, 5, 500, 0]),
            vec![3, 1, 0, 2, 4]
        );
        assert!(crate::threads::heaviest_first::<u64>(&[]).is_empty());

        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let template = |name: &str| format!("kind: Cluster\nmetadata:\n  name: {name}\n");
        // Sizes out of name order: the largest is loaded first, the results come in name order.
        std::fs::write(root.join("cluster-template-a.yaml"), template("a")).unwrap();
        let mut large = template("b");
        large.push_str(&"# padding\n".repeat(10_000));
        std::fs::write(root.join("cluster-template-b.yaml"), large).unwrap();
        std::fs::write(root.join("cluster-template-c.yaml"), template("c")).unwrap();
        std::fs::write(root.join("metadata.yaml"), "kind: Metadata\n").unwrap();
        let releases = load_releases(&[root.to_path_buf()], None).unwrap();
        let names: Vec<String> = releases[0]
            .files
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "cluster-template-a.yaml",
                "cluster-template-b.yaml",
                "cluster-template-c.yaml",
                "metadata.yaml"
            ]
        );
        let name = |i: usize| {
            releases[0].files[i]
                .yaml
                .roots()
                .next()
                .and_then(|root| root.path_str(&["metadata", "name"]))
                .map(str::to_string)
        };
        assert_eq!(
            (name(0), name(1), name(2)),
            (Some("a".into()), Some("b".into()), Some("c".into()))
        );
    }
}
