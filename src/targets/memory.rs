//! An in-memory target, for tests of the layers above (the `release` command): it plans, applies,
//! reads back and publishes like a real destination, counts uploads, and can be told to fail.
//!
//! A release here is a draft until [`super::Target::finish`], like a GitHub release, so tests can
//! check that a failure leaves nothing published.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;

use super::{
    Action, BoxFuture, Destination, Error, Event, FileOutcome, History, Outcome, Plan, PlannedFile,
    ReleaseDir, Services, Target, TargetKind, Transfer,
};
use crate::checksums::sha256_hex;

/// One release in the store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MemoryRelease {
    pub files: BTreeMap<String, Bytes>,
    pub published: bool,
}

#[derive(Debug, Default)]
struct Inner {
    releases: BTreeMap<(String, String), MemoryRelease>,
    allow_replace: bool,
    fail_at: Option<String>,
    corrupt_reads: bool,
    uploads: usize,
}

/// The storage behind [`MemoryTarget`]; shared, so a test keeps a handle to look inside.
#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    inner: Mutex<Inner>,
}

impl MemoryStore {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A test that panicked while holding the lock has failed already; its data is still
        // good for reading.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The release of `label` at `version`, if any.
    pub(crate) fn release(&self, label: &str, version: &str) -> Option<MemoryRelease> {
        self.lock()
            .releases
            .get(&(label.to_string(), version.to_string()))
            .cloned()
    }

    /// Puts a release in the store, as if published earlier.
    pub(crate) fn insert(&self, label: &str, version: &str, release: MemoryRelease) {
        self.lock()
            .releases
            .insert((label.to_string(), version.to_string()), release);
    }

    /// Whether different existing files may be replaced (like `--clobber`).
    pub(crate) fn allow_replace(&self, allow: bool) {
        self.lock().allow_replace = allow;
    }

    /// The upload of `name` fails, once.
    pub(crate) fn fail_upload_of(&self, name: &str) {
        self.lock().fail_at = Some(name.to_string());
    }

    /// Read-backs return different bytes.
    pub(crate) fn corrupt_reads(&self, corrupt: bool) {
        self.lock().corrupt_reads = corrupt;
    }

    /// Files written so far.
    pub(crate) fn uploads(&self) -> usize {
        self.lock().uploads
    }
}

/// A target that keeps releases in a [`MemoryStore`].
pub(crate) struct MemoryTarget {
    store: Arc<MemoryStore>,
    services: Services,
}

struct MemoryState {
    key: (String, String),
}

impl MemoryTarget {
    pub(crate) fn new(store: Arc<MemoryStore>, services: Services) -> Self {
        Self { store, services }
    }

    fn url(release: &ReleaseDir, name: &str) -> String {
        format!(
            "memory://{}/{}/{}",
            release.provider_label(),
            release.version,
            name
        )
    }

    fn plan_now(&self, release: &ReleaseDir) -> Result<Plan, Error> {
        let key = (release.provider_label(), release.version.to_string());
        let inner = self.store.lock();
        let existing = inner.releases.get(&key);
        let mut files = Vec::new();
        for file in &release.files {
            let there = existing.and_then(|r| r.files.get(&file.name));
            let (action, reason) = match there {
                None => (Action::Upload, None),
                Some(bytes) if sha256_hex(bytes) == file.sha256 => {
                    (Action::Skip, Some("identical".to_string()))
                }
                Some(_) if super::keeps_published_statement(&file.name, inner.allow_replace) => {
                    (Action::Skip, Some(super::STATEMENT_KEPT.to_string()))
                }
                Some(bytes) if !inner.allow_replace => {
                    return Err(Error::Differs {
                        name: file.name.clone(),
                        url: Self::url(release, &file.name),
                        existing: sha256_hex(bytes),
                        ours: file.sha256.clone(),
                        flag: "--clobber",
                    });
                }
                Some(_) => (Action::Replace, Some("different content".to_string())),
            };
            files.push(PlannedFile {
                name: file.name.clone(),
                size: file.size,
                sha256: file.sha256.clone(),
                action,
                url: Self::url(release, &file.name),
                reason,
            });
        }
        let mut steps = Vec::new();
        if existing.is_none() {
            steps.push(format!("create draft `{}`", release.version));
        }
        if !existing.is_some_and(|r| r.published) {
            steps.push(format!("publish `{}`", release.version));
        }
        let destination = Destination::new(
            TargetKind::Memory,
            release,
            format!("memory://{}/{}", key.0, key.1),
            release
                .providers
                .iter()
                .map(|p| Self::url(release, &p.components_name()))
                .collect(),
        );
        Ok(Plan {
            destination,
            steps,
            files,
            remote_checked: true,
            state: Box::new(MemoryState { key }),
        })
    }

    fn apply_now(&self, release: &ReleaseDir, mut plan: Plan) -> Result<Outcome, Error> {
        let state: MemoryState = plan.take_state()?;
        let progress = self.services.progress.clone();
        let mut outcomes = Vec::new();
        for planned in &plan.files {
            if planned.action != Action::Skip {
                let Some(file) = release.file(&planned.name) else {
                    return Err(Error::ForeignPlan);
                };
                progress.event(&Event::Started {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::Upload,
                });
                let mut inner = self.store.lock();
                if inner.fail_at.as_deref() == Some(file.name.as_str()) {
                    inner.fail_at = None;
                    return Err(Error::Injected {
                        name: file.name.clone(),
                    });
                }
                inner.uploads += 1;
                inner
                    .releases
                    .entry(state.key.clone())
                    .or_default()
                    .files
                    .insert(file.name.clone(), file.contents.clone());
                drop(inner);
                progress.event(&Event::Finished {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::Upload,
                });
            }
            outcomes.push(FileOutcome {
                name: planned.name.clone(),
                size: planned.size,
                sha256: planned.sha256.clone(),
                outcome: planned.action.into(),
                url: planned.url.clone(),
            });
        }
        self.store
            .lock()
            .releases
            .entry(state.key.clone())
            .or_default();
        Ok(Outcome {
            destination: plan.destination,
            files: outcomes,
            verified: false,
            state: Box::new(state),
        })
    }

    fn read_back_now(&self, release: &ReleaseDir, outcome: &mut Outcome) -> Result<(), Error> {
        let key = outcome.state_mut::<MemoryState>()?.key.clone();
        let inner = self.store.lock();
        let stored = inner.releases.get(&key);
        for file in &release.files {
            let actual =
                stored
                    .and_then(|r| r.files.get(&file.name))
                    .map_or_else(String::new, |bytes| {
                        if inner.corrupt_reads {
                            sha256_hex(b"corrupted")
                        } else {
                            sha256_hex(bytes)
                        }
                    });
            if actual != file.sha256 {
                return Err(Error::ReadBackMismatch {
                    name: file.name.clone(),
                    url: Self::url(release, &file.name),
                    expected: file.sha256.clone(),
                    actual,
                });
            }
        }
        outcome.verified = true;
        Ok(())
    }

    fn finish_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let key = outcome.state_mut::<MemoryState>()?.key.clone();
        if let Some(release) = self.store.lock().releases.get_mut(&key) {
            release.published = true;
        }
        Ok(())
    }
}

impl Target for MemoryTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Memory
    }

    fn plan<'a>(&'a self, release: &'a ReleaseDir) -> BoxFuture<'a, Result<Plan, Error>> {
        Box::pin(async move { self.plan_now(release) })
    }

    fn apply<'a>(
        &'a self,
        release: &'a ReleaseDir,
        plan: Plan,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        Box::pin(async move { self.apply_now(release, plan) })
    }

    fn read_back<'a>(
        &'a self,
        release: &'a ReleaseDir,
        outcome: &'a mut Outcome,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move { self.read_back_now(release, outcome) })
    }

    fn finish<'a>(&'a self, outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move { self.finish_now(outcome) })
    }

    fn read_by(&self) -> Option<&'static str> {
        None
    }

    fn read_draft<'a>(
        &'a self,
        _version: &'a crate::version::Version,
        _label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<super::Drafted>, Error>> {
        Box::pin(async { Ok(None) })
    }

    fn history(&self, _release: &ReleaseDir, _provider: usize) -> History {
        History::Nothing
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::targets::{FileResult, PublishFile, publish};
    use crate::version::Version;

    fn release(metadata: &str) -> ReleaseDir {
        ReleaseDir::from_files(
            Path::new("out"),
            Version::parse("v0.1.0").unwrap(),
            None,
            Some("demo"),
            vec![
                PublishFile::from_bytes("bootstrap-components.yaml", b"kind: Namespace\n".to_vec()),
                PublishFile::from_bytes("metadata.yaml", metadata.as_bytes().to_vec()),
            ],
            vec![],
        )
        .unwrap()
    }

    fn target(store: &Arc<MemoryStore>) -> MemoryTarget {
        MemoryTarget::new(store.clone(), Services::default())
    }

    #[tokio::test]
    async fn publishes_and_a_rerun_uploads_nothing() {
        let store = MemoryStore::new();
        let outcome = publish(&target(&store), &release("m")).await.unwrap();
        assert_eq!(outcome.count(FileResult::Uploaded), 2);
        let stored = store.release("bootstrap-demo", "v0.1.0").unwrap();
        assert!(stored.published);
        assert_eq!(stored.files["metadata.yaml"], Bytes::from_static(b"m"));
        let again = publish(&target(&store), &release("m")).await.unwrap();
        assert_eq!(again.count(FileResult::Skipped), 2);
        assert_eq!(store.uploads(), 2);
    }

    #[tokio::test]
    async fn failures_leave_the_release_unpublished() {
        let store = MemoryStore::new();
        store.fail_upload_of("metadata.yaml");
        let err = publish(&target(&store), &release("m")).await.unwrap_err();
        assert!(matches!(err, Error::Injected { .. }));
        assert!(!store.release("bootstrap-demo", "v0.1.0").unwrap().published);

        store.corrupt_reads(true);
        let err = publish(&target(&store), &release("m")).await.unwrap_err();
        assert!(matches!(err, Error::ReadBackMismatch { .. }));
        assert!(!store.release("bootstrap-demo", "v0.1.0").unwrap().published);
    }

    #[tokio::test]
    async fn different_content_needs_permission_to_replace() {
        let store = MemoryStore::new();
        publish(&target(&store), &release("a")).await.unwrap();
        let err = target(&store).plan_now(&release("b")).unwrap_err();
        assert!(matches!(err, Error::Differs { .. }));
        store.allow_replace(true);
        let outcome = publish(&target(&store), &release("b")).await.unwrap();
        assert_eq!(outcome.count(FileResult::Replaced), 1);
    }
}
