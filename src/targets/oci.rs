//! An OCI registry: one artifact per release that cluster-api-operator reads
//! (`spec.fetchConfig.oci`), pushed with the distribution API ([`crate::forge::oci`]).
//!
//! The artifact is an OCI image manifest (`application/vnd.oci.image.manifest.v1+json`) with
//! `artifactType` [`ARTIFACT_TYPE`], the empty config (`application/vnd.oci.empty.v1+json`,
//! `{}`), and one layer per file, each with the `org.opencontainers.image.title` annotation the
//! operator selects layers by ([`crate::operator::oci`]):
//! - for every provider, `<type>-<name>-<version>-metadata.yaml` and
//!   `<type>-<name>-<version>-components.yaml` (the names the operator prefers; `<type>` is the
//!   operator's type string, `runtimeextension` without a dash);
//! - for a release of one provider, also every release file under its own name (`metadata.yaml`,
//!   `<type>-components.yaml`, the templates, `checksums.txt`); for several providers, the
//!   templates and `checksums.txt` (the plain names would be ambiguous).
//!
//! Layers are sorted by title; YAML files have media type [`YAML_LAYER`], `checksums.txt`
//! [`TEXT_LAYER`], the provenance statement `application/vnd.in-toto+json`
//! ([`crate::provenance::MEDIA_TYPE`]). The manifest has no timestamp unless `SOURCE_DATE_EPOCH`
//! is set (then `org.opencontainers.image.created`), so the same release gives the same digest
//! and a second run finds the tag on it and pushes nothing.
//!
//! Steps: `plan` looks the tag up (same digest: nothing to do; another digest: refused unless
//! `--force`) and asks which blobs the repository lacks; `apply` uploads those and pushes the
//! manifest by digest, untagged; `read_back` reads the manifest and every uploaded blob back
//! and compares digests; `finish` tags it. A run that fails before `finish` leaves no tag on a
//! partial artifact.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use bytes::Bytes;

use super::{
    Action, BoxFuture, Destination, Drafted, Env, Error, Event, FileOutcome, History,
    OFFLINE_REASON, Outcome, Plan, PlannedFile, Reach, ReleaseDir, Services, Target, TargetKind,
    Transfer, VersionedSource,
};
use crate::checksums::sha256_hex;
use crate::forge::login::{LOGIN_SOURCES, Login, LoginError, LoginSource, RegistryRole};
use crate::forge::oci::{self, OCI_MANIFEST, OciError, Reference, Registry};
use crate::operator::oci::{TITLE_ANNOTATION, components_title, metadata_title};
use crate::provider::FileRole;

/// The manifest's `artifactType`: a cluster-api provider release packed by capkg.
pub(crate) const ARTIFACT_TYPE: &str = "application/vnd.capkg.cluster-api.provider-release.v1";
/// The media type of a YAML layer.
pub(crate) const YAML_LAYER: &str = "application/yaml";
/// The media type of `checksums.txt`.
pub(crate) const TEXT_LAYER: &str = "text/plain";
/// The empty config every artifact has.
pub(crate) const EMPTY_CONFIG: &str = "application/vnd.oci.empty.v1+json";
const EMPTY_CONFIG_BODY: &[u8] = b"{}";

/// What `targets.oci` of capkg.yaml or `capkg publish oci`'s flags ask for; the login and
/// `SOURCE_DATE_EPOCH` are read when the target opens ([`OciTarget::new`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct OciRequest {
    /// `[http://]HOST[:PORT]/PATH[:TAG]`.
    pub repository: String,
    /// The tag when the repository has none; `{version}` is replaced (default `{version}`).
    pub tag: Option<String>,
    /// Move a tag that points at another artifact.
    pub force: bool,
    /// Tag the artifact `draft-{tag}` ([`super::draft_name`]), which cluster-api-operator
    /// never reads: it pulls only the tag `spec.version` (or the reference) names.
    pub draft: bool,
}

impl From<&crate::config::OciTarget> for OciRequest {
    fn from(section: &crate::config::OciTarget) -> Self {
        Self {
            repository: section.repository.clone(),
            tag: section.tag.clone(),
            force: false,
            draft: false,
        }
    }
}

/// A request with the environment read.
#[derive(Debug, Clone)]
struct Settings {
    reference: Reference,
    /// The tag: the reference's own, else this template with `{version}` replaced, else the
    /// version.
    tag: Option<String>,
    force: bool,
    login: Option<(Login, LoginSource)>,
    /// `SOURCE_DATE_EPOCH`: the manifest's `org.opencontainers.image.created`.
    source_date_epoch: Option<i64>,
    draft: bool,
}

impl Settings {
    /// The reference parsed; the login of the registry the user named, from the environment
    /// and the Docker config file ([`Login::resolve`]); `SOURCE_DATE_EPOCH`.
    fn resolve(request: OciRequest, env: Env<'_>) -> Result<Self, Error> {
        let reference = Reference::parse(&request.repository).map_err(from_oci)?;
        let login = Login::resolve(&reference.registry, RegistryRole::Named, env)
            .map_err(|err| from_oci(err.into()))?;
        let source_date_epoch = match env("SOURCE_DATE_EPOCH").filter(|v| !v.trim().is_empty()) {
            Some(text) => Some(source_date_epoch(&text)?),
            None => None,
        };
        Ok(Self {
            reference,
            tag: request.tag,
            force: request.force,
            draft: request.draft,
            login,
            source_date_epoch,
        })
    }

    /// The tag this release gets.
    pub(crate) fn tag_for(&self, version: &str) -> Result<String, Error> {
        let tag = match (&self.reference.tag, &self.tag) {
            (Some(tag), _) => tag.clone(),
            (None, Some(template)) => template.replace("{version}", version),
            (None, None) => version.to_string(),
        };
        let tag = oci::tag_for(&tag);
        let tag = if self.draft {
            super::draft_name(&tag)
        } else {
            tag
        };
        if !oci::valid_tag(&tag) {
            return Err(Error::Invalid {
                what: "tag",
                value: tag,
                reason: "a tag is 1 to 128 letters, digits, `_`, `.` or `-`, not starting with `.` or `-`".into(),
            });
        }
        Ok(tag)
    }
}

/// One layer of the artifact.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub title: String,
    pub media_type: &'static str,
    pub digest: String,
    pub contents: Bytes,
}

/// The artifact a release becomes.
#[derive(Debug, Clone)]
pub(crate) struct Artifact {
    pub layers: Vec<Layer>,
    pub manifest: Bytes,
    pub digest: String,
}

/// Builds the artifact of `release` (see the module documentation for its layout).
pub(crate) fn artifact(release: &ReleaseDir, created: Option<i64>) -> Artifact {
    let version = release.version.to_string();
    let mut layers: Vec<Layer> = Vec::new();
    let mut add = |title: String, contents: &Bytes| {
        if layers.iter().any(|l| l.title == title) {
            return;
        }
        let media_type = if title.ends_with(".yaml") || title.ends_with(".yml") {
            YAML_LAYER
        } else if title == crate::provenance::STATEMENT_FILE {
            crate::provenance::MEDIA_TYPE
        } else {
            TEXT_LAYER
        };
        layers.push(Layer {
            digest: format!("sha256:{}", sha256_hex(contents)),
            title,
            media_type,
            contents: contents.clone(),
        });
    };
    let metadata = release.file("metadata.yaml");
    for provider in &release.providers {
        if let Some(metadata) = metadata {
            add(
                metadata_title(provider.provider_type, &provider.name, &version),
                &metadata.contents,
            );
        }
        if let Some(components) = release.file(&provider.components_name()) {
            add(
                components_title(provider.provider_type, &provider.name, &version),
                &components.contents,
            );
        }
    }
    for file in &release.files {
        let plain_name_is_clear = !release.has_several_providers()
            || !matches!(
                file.role,
                Some(FileRole::Metadata) | Some(FileRole::Components { .. })
            );
        if plain_name_is_clear {
            add(file.name.clone(), &file.contents);
        }
    }
    layers.sort_by(|a, b| a.title.cmp(&b.title));

    let layer_json: Vec<serde_json::Value> = layers
        .iter()
        .map(|layer| {
            serde_json::json!({
                "mediaType": layer.media_type,
                "digest": layer.digest,
                "size": layer.contents.len(),
                "annotations": { TITLE_ANNOTATION: layer.title },
            })
        })
        .collect();
    let mut annotations = serde_json::Map::new();
    annotations.insert(
        "org.opencontainers.image.version".into(),
        serde_json::Value::String(version.clone()),
    );
    if let Some(epoch) = created {
        annotations.insert(
            "org.opencontainers.image.created".into(),
            serde_json::Value::String(rfc3339(epoch)),
        );
    }
    // serde_json's map is sorted by key: the same release always gives the same bytes.
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "artifactType": ARTIFACT_TYPE,
        "config": {
            "mediaType": EMPTY_CONFIG,
            "digest": oci::digest_of(EMPTY_CONFIG_BODY),
            "size": EMPTY_CONFIG_BODY.len(),
        },
        "layers": layer_json,
        "annotations": annotations,
    });
    let manifest = Bytes::from(manifest.to_string());
    Artifact {
        digest: oci::digest_of(&manifest),
        layers,
        manifest,
    }
}

/// The last second RFC 3339 can write (`9999-12-31T23:59:59Z`).
const LAST_RFC3339_SECOND: i64 = 253_402_300_799;

/// `SOURCE_DATE_EPOCH`: whole seconds from 1970 to the end of year 9999, the range whose
/// `created` annotation is RFC 3339 (four-digit years, none before the epoch).
fn source_date_epoch(text: &str) -> Result<i64, Error> {
    let invalid = |reason: &str| Error::Invalid {
        what: "SOURCE_DATE_EPOCH",
        value: text.to_string(),
        reason: reason.to_string(),
    };
    let seconds = text
        .trim()
        .parse::<i64>()
        .map_err(|_| invalid("it must be whole seconds since 1970-01-01 (`date +%s`)"))?;
    if !(0..=LAST_RFC3339_SECOND).contains(&seconds) {
        return Err(invalid(&format!(
            "it must lie between 0 (1970-01-01) and {LAST_RFC3339_SECOND} (9999-12-31T23:59:59Z), the dates an RFC 3339 `created` annotation can hold"
        )));
    }
    Ok(seconds)
}

/// `1970-01-01T00:00:00Z` for seconds since the epoch (UTC), `0..=LAST_RFC3339_SECOND`.
fn rfc3339(epoch: i64) -> String {
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// The `spec.fetchConfig.oci` value the operator reads this artifact from.
pub(crate) fn operator_reference(reference: &Reference, tag: &str) -> String {
    let scheme = if reference.plain_http { "http://" } else { "" };
    format!("{scheme}{}:{tag}", reference.name())
}

/// The provider resources (`InfrastructureProvider`, …) that read the artifact, each in a
/// namespace of its own (`<label>-system`; any namespace works).
pub(crate) fn operator_snippet(release: &ReleaseDir, oci_reference: &str) -> String {
    let mut out = String::new();
    for provider in &release.providers {
        let _ = write!(
            out,
            "---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: {}\nmetadata:\n  name: {}\n  namespace: {}-system\nspec:\n  version: {}\n  fetchConfig:\n    oci: \"{}\"\n",
            provider.provider_type.clusterctl_name(),
            provider.name,
            // One namespace per provider: two providers of one name (kubeadm's bootstrap and
            // control plane) must not share one.
            provider.label(),
            release.version,
            oci_reference
        );
    }
    out
}

/// Maps a registry error to a publish error.
pub(crate) fn from_oci(err: OciError) -> Error {
    from_oci_doing("talk to the registry", err)
}

fn from_oci_doing(action: &str, err: OciError) -> Error {
    const FORGE: &str = "the registry";
    match err {
        OciError::BadReference { reference, reason } => Error::Invalid {
            what: "registry reference",
            value: reference,
            reason,
        },
        OciError::Login(LoginError { path, reason }) => Error::Invalid {
            what: "Docker config file",
            value: path.display().to_string(),
            reason,
        },
        unauthorized @ OciError::Unauthorized { .. } => Error::Unauthorized {
            forge: FORGE,
            message: unauthorized.to_string(),
            variables: LOGIN_SOURCES,
        },
        OciError::Unexpected { url, reason } => Error::Unexpected {
            forge: FORGE,
            url,
            reason,
        },
        bad @ (OciError::BadDigest { .. } | OciError::List(_)) => Error::Unexpected {
            forge: FORGE,
            url: String::new(),
            reason: bad.to_string(),
        },
        OciError::ForeignUpload { registry, location } => Error::Unexpected {
            forge: FORGE,
            url: registry,
            reason: format!(
                "its upload `Location` is on another host, `{location}`: capkg sends blobs and the login only to the registry named, so nothing was uploaded there"
            ),
        },
        OciError::Http(err) => Error::from_http(FORGE, action, *err),
    }
}

/// Publishes to an OCI registry.
pub(crate) struct OciTarget {
    request: Settings,
    reach: Reach,
    registry: Registry,
    services: Services,
}

struct OciPlanned {
    artifact: Artifact,
    tag: String,
    /// The tag already points at this artifact.
    tagged: bool,
}

struct OciApplied {
    artifact: Artifact,
    tag: String,
    tagged: bool,
    /// Digests uploaded in this run: these are read back.
    written: BTreeSet<String>,
}

impl OciTarget {
    pub(crate) fn new(
        request: OciRequest,
        env: Env<'_>,
        services: Services,
        reach: Reach,
    ) -> Result<Self, Error> {
        let request = Settings::resolve(request, env)?;
        let http = services.http(None).map_err(|e| Error::Url(Box::new(e)))?;
        let login = request.login.as_ref().map(|(login, _)| login.clone());
        let registry = Registry::new(&http, &request.reference, login, true).map_err(from_oci)?;
        Ok(Self {
            request,
            reach,
            registry,
            services,
        })
    }

    fn destination(&self, release: &ReleaseDir, tag: &str) -> Destination {
        let reference = operator_reference(&self.request.reference, tag);
        // `capkg verify` reads `oci://` + the operator's reference.
        let urls = vec![format!("oci://{reference}"); release.providers.len()];
        let mut destination = Destination::new(
            TargetKind::Oci,
            release,
            format!("{}:{tag}", self.request.reference.name()),
            urls,
        );
        destination.clusterctl_config = operator_snippet(release, &reference);
        destination.warnings.push(
            "clusterctl cannot read an OCI artifact: the URL and configuration printed are cluster-api-operator's `spec.fetchConfig.oci`".into(),
        );
        destination
    }

    fn layer_url(&self, digest: &str) -> String {
        format!("{}@{digest}", self.request.reference.name())
    }

    async fn plan_now(&self, release: &ReleaseDir) -> Result<Plan, Error> {
        let version = release.version.to_string();
        let tag = self.request.tag_for(&version)?;
        let artifact = artifact(release, self.request.source_date_epoch);
        let remote = self.reach == Reach::Remote;
        let existing = if remote {
            self.registry
                .head_manifest(&tag)
                .await
                .map_err(|e| from_oci_doing("look up the tag", e))?
        } else {
            None
        };
        let mut steps = Vec::new();
        let tagged = match existing.and_then(|info| info.digest) {
            Some(digest) if digest == artifact.digest => true,
            Some(digest) if !self.request.force => {
                return Err(Error::Differs {
                    name: format!("tag `{tag}`"),
                    url: format!("{}:{tag}", self.request.reference.name()),
                    existing: digest,
                    ours: artifact.digest.clone(),
                    flag: "--force",
                });
            }
            Some(digest) => {
                steps.push(format!(
                    "move tag `{tag}` from {digest} to {}",
                    artifact.digest
                ));
                false
            }
            None => {
                if !remote {
                    steps.push(format!(
                        "look the tag up in `{}:{tag}`; a different artifact there stops the run",
                        self.request.reference.name()
                    ));
                }
                steps.push(format!("tag `{tag}` as {}", artifact.digest));
                false
            }
        };
        let mut files = Vec::new();
        for layer in &artifact.layers {
            let there = tagged
                || remote
                    && self
                        .registry
                        .blob_exists(&layer.digest)
                        .await
                        .map_err(|e| from_oci_doing("look up a blob", e))?;
            files.push(PlannedFile {
                name: layer.title.clone(),
                size: layer.contents.len() as u64,
                sha256: layer.digest.trim_start_matches("sha256:").to_string(),
                action: if there { Action::Skip } else { Action::Upload },
                url: self.layer_url(&layer.digest),
                reason: if there {
                    Some("already in the repository".to_string())
                } else {
                    (!remote).then(|| OFFLINE_REASON.to_string())
                },
            });
        }
        Ok(Plan {
            destination: self.destination(release, &tag),
            steps,
            files,
            remote_checked: remote,
            state: Box::new(OciPlanned {
                artifact,
                tag,
                tagged,
            }),
        })
    }

    async fn apply_now(&self, mut plan: Plan) -> Result<Outcome, Error> {
        let OciPlanned {
            artifact,
            tag,
            tagged,
        } = plan.take_state::<OciPlanned>()?;
        let progress = &self.services.progress;
        let mut written = BTreeSet::new();
        let mut files = Vec::new();
        for (planned, layer) in plan.files.iter().zip(&artifact.layers) {
            if planned.action != Action::Skip && !written.contains(&layer.digest) {
                let size = layer.contents.len() as u64;
                progress.event(&Event::Started {
                    name: &layer.title,
                    size,
                    transfer: Transfer::Upload,
                });
                self.registry
                    .upload_blob(&layer.digest, layer.contents.clone())
                    .await
                    .map_err(|e| from_oci_doing(&format!("upload `{}`", layer.title), e))?;
                progress.event(&Event::Finished {
                    name: &layer.title,
                    size,
                    transfer: Transfer::Upload,
                });
                written.insert(layer.digest.clone());
            }
            files.push(FileOutcome {
                name: planned.name.clone(),
                size: planned.size,
                sha256: planned.sha256.clone(),
                outcome: planned.action.into(),
                url: planned.url.clone(),
            });
        }
        if !tagged {
            let config_digest = oci::digest_of(EMPTY_CONFIG_BODY);
            let has_config = self
                .registry
                .blob_exists(&config_digest)
                .await
                .map_err(|e| from_oci_doing("look up the config blob", e))?;
            if !has_config {
                self.registry
                    .upload_blob(&config_digest, Bytes::from_static(EMPTY_CONFIG_BODY))
                    .await
                    .map_err(|e| from_oci_doing("upload the config blob", e))?;
            }
            progress.event(&Event::Step(&format!(
                "push manifest {} (untagged until verified)",
                artifact.digest
            )));
            self.registry
                .put_manifest(&artifact.digest, OCI_MANIFEST, artifact.manifest.clone())
                .await
                .map_err(|e| from_oci_doing("push the manifest", e))?;
        }
        Ok(Outcome {
            destination: plan.destination,
            files,
            verified: false,
            state: Box::new(OciApplied {
                artifact,
                tag,
                tagged,
                written,
            }),
        })
    }

    async fn read_back_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let progress = self.services.progress.clone();
        let state = outcome.state_mut::<OciApplied>()?;
        let url = self.layer_url(&state.artifact.digest);
        if !state.tagged {
            let manifest = self
                .registry
                .get_manifest(&state.artifact.digest)
                .await
                .map_err(|e| from_oci_doing("read the manifest back", e))?;
            let actual = manifest
                .as_ref()
                .map(|(body, _)| oci::digest_of(body))
                .unwrap_or_else(|| "nothing".into());
            if actual != state.artifact.digest {
                return Err(Error::ReadBackMismatch {
                    name: "the manifest".into(),
                    url,
                    expected: state.artifact.digest.clone(),
                    actual,
                });
            }
        }
        let mut read = BTreeSet::new();
        for layer in &state.artifact.layers {
            if !state.written.contains(&layer.digest) || !read.insert(layer.digest.clone()) {
                continue;
            }
            let size = layer.contents.len() as u64;
            progress.event(&Event::Started {
                name: &layer.title,
                size,
                transfer: Transfer::ReadBack,
            });
            let body = self
                .registry
                .get_blob(&layer.digest)
                .await
                .map_err(|e| from_oci_doing(&format!("read `{}` back", layer.title), e))?;
            let actual = oci::digest_of(&body);
            if actual != layer.digest {
                return Err(Error::ReadBackMismatch {
                    name: layer.title.clone(),
                    url: self.layer_url(&layer.digest),
                    expected: layer.digest.clone(),
                    actual,
                });
            }
            progress.event(&Event::Finished {
                name: &layer.title,
                size,
                transfer: Transfer::ReadBack,
            });
        }
        outcome.verified = true;
        Ok(())
    }

    async fn finish_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let verified = outcome.verified;
        let state = outcome.state_mut::<OciApplied>()?;
        if state.tagged || !verified {
            return Ok(());
        }
        // Another publisher may have set the tag since the plan looked: look again right before.
        let now = self
            .registry
            .head_manifest(&state.tag)
            .await
            .map_err(|e| from_oci_doing("look up the tag again", e))?;
        if let Some(existing) = now.and_then(|info| info.digest)
            && existing != state.artifact.digest
            && !self.request.force
        {
            return Err(Error::Differs {
                name: format!(
                    "tag `{}` (set by another publisher since the plan)",
                    state.tag
                ),
                url: format!("{}:{}", self.request.reference.name(), state.tag),
                existing,
                ours: state.artifact.digest.clone(),
                flag: "--force",
            });
        }
        self.services.progress.event(&Event::Step(&format!(
            "tag `{}` as {}",
            state.tag, state.artifact.digest
        )));
        let reported = self
            .registry
            .put_manifest(&state.tag, OCI_MANIFEST, state.artifact.manifest.clone())
            .await
            .map_err(|e| from_oci_doing("tag the manifest", e))?;
        if let Some(reported) = reported
            && reported != state.artifact.digest
        {
            return Err(Error::ReadBackMismatch {
                name: format!("tag `{}`", state.tag),
                url: format!("{}:{}", self.request.reference.name(), state.tag),
                expected: state.artifact.digest.clone(),
                actual: reported,
            });
        }
        Ok(())
    }
}

impl Target for OciTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Oci
    }

    fn plan<'a>(&'a self, release: &'a ReleaseDir) -> BoxFuture<'a, Result<Plan, Error>> {
        Box::pin(self.plan_now(release))
    }

    fn apply<'a>(
        &'a self,
        _release: &'a ReleaseDir,
        plan: Plan,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        Box::pin(self.apply_now(plan))
    }

    fn read_back<'a>(
        &'a self,
        _release: &'a ReleaseDir,
        outcome: &'a mut Outcome,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.read_back_now(outcome))
    }

    fn finish<'a>(&'a self, outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.finish_now(outcome))
    }

    fn read_by(&self) -> Option<&'static str> {
        Some("cluster-api-operator")
    }

    fn read_draft<'a>(
        &'a self,
        version: &'a crate::version::Version,
        _label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Drafted>, Error>> {
        Box::pin(async move {
            let tag = self.request.tag_for(&version.to_string())?;
            let Some((body, _)) = self
                .registry
                .get_manifest(&tag)
                .await
                .map_err(|e| from_oci_doing("read the draft's manifest", e))?
            else {
                return Ok(None);
            };
            let location = format!("{}:{tag}", self.request.reference.name());
            let manifest: serde_json::Value =
                serde_json::from_slice(&body).map_err(|e| Error::Unexpected {
                    forge: "the registry",
                    url: location.clone(),
                    reason: format!("the manifest is not JSON ({e})"),
                })?;
            // The plain-named layers are the release files; the operator's names are copies.
            let mut files = Vec::new();
            for layer in manifest["layers"].as_array().into_iter().flatten() {
                let (Some(title), Some(digest)) = (
                    layer["annotations"][TITLE_ANNOTATION].as_str(),
                    layer["digest"].as_str(),
                ) else {
                    continue;
                };
                let wanted = title == crate::checksums::CHECKSUMS_FILE
                    || title == crate::provenance::STATEMENT_FILE
                    || FileRole::from_file_name(title).is_some();
                if !wanted || crate::files::check_release_name(title).is_err() {
                    continue;
                }
                let bytes = self
                    .registry
                    .get_blob(digest)
                    .await
                    .map_err(|e| from_oci_doing("read a layer of the draft", e))?;
                files.push(super::PublishFile::from_bytes(title, bytes));
            }
            Ok(Some(Drafted { location, files }))
        })
    }

    fn history(&self, release: &ReleaseDir, _provider: usize) -> History {
        if release.providers.is_empty() {
            return History::Nothing;
        }
        // One artifact holds every provider: the tag is the release's.
        let request = &self.request;
        let tag = |version: &str| match (&request.reference.tag, &request.tag) {
            (Some(tag), _) => tag.clone(),
            (None, Some(template)) => template.replace("{version}", version),
            (None, None) => version.to_string(),
        };
        VersionedSource::of_tag(|version| {
            format!("oci://{}", operator_reference(&request.reference, &tag(version)))
        })
        .map_or_else(
            || {
                History::Unversioned(
                    "the tag does not hold the version, so older releases cannot be found among the tags: pass `--previous oci://REF:TAG` to compare".into(),
                )
            },
            History::Versioned,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::PublishFile;
    use crate::version::Version;

    fn release(files: &[(&str, &str)]) -> ReleaseDir {
        let files = files
            .iter()
            .map(|(n, c)| PublishFile::from_bytes(n, c.as_bytes().to_vec()))
            .collect();
        ReleaseDir::from_files(
            std::path::Path::new("out"),
            Version::parse("v1.2.3").unwrap(),
            None,
            Some("aws"),
            files,
            Vec::new(),
        )
        .unwrap()
    }

    const COMPONENTS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-aws\n";

    #[test]
    fn one_provider_gets_operator_and_plain_names_and_a_stable_digest() {
        let release = release(&[
            ("metadata.yaml", "m"),
            ("infrastructure-components.yaml", COMPONENTS),
            ("cluster-template.yaml", "t"),
        ]);
        let first = artifact(&release, None);
        let titles: Vec<_> = first.layers.iter().map(|l| l.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "cluster-template.yaml",
                "infrastructure-aws-v1.2.3-components.yaml",
                "infrastructure-aws-v1.2.3-metadata.yaml",
                "infrastructure-components.yaml",
                "metadata.yaml",
            ]
        );
        assert_eq!(artifact(&release, None).digest, first.digest);
        let dated = artifact(&release, Some(0));
        assert_ne!(dated.digest, first.digest);
        let text = String::from_utf8(dated.manifest.to_vec()).unwrap();
        assert!(text.contains("\"org.opencontainers.image.created\":\"1970-01-01T00:00:00Z\""));
        assert!(
            !String::from_utf8(first.manifest.to_vec())
                .unwrap()
                .contains("created")
        );
        assert!(text.contains(ARTIFACT_TYPE));
    }

    #[test]
    fn source_date_epochs_outside_rfc3339_are_refused() {
        assert_eq!(
            rfc3339(source_date_epoch(" 253402300799 ").unwrap()),
            "9999-12-31T23:59:59Z"
        );
        for text in [
            "253402300800",
            "-1",
            "-62167219200",
            "9223372036854775807",
            "1.5",
            "soon",
        ] {
            let err = source_date_epoch(text).unwrap_err().to_string();
            assert!(err.contains("SOURCE_DATE_EPOCH"), "{text}: {err}");
        }
    }

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn tags_come_from_the_reference_then_the_template_then_the_version() {
        let env = |_: &str| None;
        let settings = |repository: &str, tag: Option<&str>| {
            let request = OciRequest {
                repository: repository.to_string(),
                tag: tag.map(str::to_string),
                force: false,
                draft: false,
            };
            Settings::resolve(request, &env).unwrap()
        };
        let request = settings("ghcr.io/o/aws", None);
        assert_eq!(request.tag_for("v1.2.3+meta").unwrap(), "v1.2.3_meta");
        let request = settings("ghcr.io/o/aws", Some("release-{version}"));
        assert_eq!(request.tag_for("v1").unwrap(), "release-v1");
        let request = settings("ghcr.io/o/aws:fixed", Some("x"));
        assert_eq!(request.tag_for("v1").unwrap(), "fixed");
        // A draft's tag is one the operator never pulls, whatever the tag would be.
        let draft = |repository: &str, tag: Option<&str>| Settings {
            draft: true,
            ..settings(repository, tag)
        };
        let request = draft("ghcr.io/o/aws", None);
        assert_eq!(request.tag_for("v1.2.3+meta").unwrap(), "draft-v1.2.3_meta");
        let request = draft("ghcr.io/o/aws", Some("release-{version}"));
        assert_eq!(request.tag_for("v1").unwrap(), "draft-release-v1");
        let request = draft("ghcr.io/o/aws:fixed", None);
        assert_eq!(request.tag_for("v1").unwrap(), "draft-fixed");
        assert_eq!(
            operator_reference(
                &Reference::parse("http://127.0.0.1:5000/a/b").unwrap(),
                "v1"
            ),
            "http://127.0.0.1:5000/a/b:v1"
        );
    }

    #[test]
    fn an_offline_plan_asks_the_registry_nothing() {
        // A registry that does not exist: any request would fail.
        let request = OciRequest {
            repository: "registry.invalid/o/aws".into(),
            tag: None,
            force: false,
            draft: false,
        };
        let target =
            OciTarget::new(request, &|_| None, Services::default(), Reach::Offline).unwrap();
        let release = ReleaseDir::sample("v1.2.3");
        let plan = crate::targets::plan_offline(&target, &release);
        assert_eq!(
            plan.destination.clusterctl_url,
            "oci://registry.invalid/o/aws:v1.2.3"
        );
        assert!(
            plan.steps[0].starts_with("look the tag up"),
            "{:?}",
            plan.steps
        );
    }
}
