//! Reading a release the way clusterctl does: the repository SOURCE names (a GitHub release, a
//! GitLab package, a local repository) or a folder, its files fetched and checked, then linted.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use reqwest::Url;

use super::checks::{checksum_check, checksum_names, images_check, series_check};
use super::provenance::{self, Attested};
use super::repository::{Fetch, GitHubRepository, GitLabRepository, LocalRepository, Repository};
use super::source::{self, LATEST, ProviderSource, SourceError};
use super::{
    Error, ReadRelease, RepositoryKind, Settings, VerifiedFile, VerifyReport, VerifyRequest, latest,
};
use crate::checksums::{CHECKSUMS_FILE, sha256_hex};
use crate::diagnostic::Summary;
use crate::files::{self, Release};
use crate::forge::Services;
use crate::forge::credential::Credential;
use crate::forge::origin::Place;
use crate::provider::{FileRole, ProviderType};
use crate::rules::{self};
use crate::version::Version;

/// A repository and what its URL says.
pub(super) struct Opened {
    pub(super) repository: Box<dyn Repository>,
    kind: RepositoryKind,
    /// The version in the URL.
    version: String,
    /// The components file name.
    components: String,
    /// The provider a local repository's path names.
    local_provider: Option<(ProviderType, String)>,
}

pub(super) async fn read_and_check(
    request: &VerifyRequest,
    parsed: source::Parsed,
    settings: &Settings,
    services: Services,
) -> Result<VerifyReport, Error> {
    let opened = match parsed.source {
        ProviderSource::Directory(dir) => {
            let limit = services.policy.max_download;
            return verify_directory(request, &dir, parsed.warnings, limit);
        }
        source => open(source, settings, &services)?,
    };
    let Opened {
        repository,
        kind,
        version,
        components,
        local_provider,
    } = opened;
    let mut warnings = parsed.warnings;
    if kind == RepositoryKind::Local
        && let Some((provider_type, name)) = &local_provider
    {
        let conflicts = request.provider_type.is_some_and(|t| t != *provider_type)
            || request.provider_name.as_deref().is_some_and(|n| n != name);
        if conflicts {
            return Err(Error::Source(SourceError {
                source_text: request.source.clone(),
                message: format!(
                    "invalid path: path {:?} must contain provider {:?} in the format {{basepath}}/{{provider-label}}/{{version}}/{{components.yaml}}",
                    request.source,
                    request
                        .provider_type
                        .unwrap_or(*provider_type)
                        .manifest_label(request.provider_name.as_deref().unwrap_or(name))
                ),
                hint: None,
            }));
        }
    }

    let requested = version.clone();
    let (version, resolution) = if version == LATEST && kind != RepositoryKind::Gitlab {
        let resolution =
            latest::latest_contract_release(repository.as_ref(), latest::CONTRACT).await?;
        (resolution.version.clone(), Some(resolution))
    } else {
        if version == LATEST {
            warnings.push(
                "clusterctl does not resolve `latest` for GitLab packages: it reads a package version literally named `latest`".into(),
            );
        }
        (version, None)
    };

    let label = repository_label(request, local_provider.as_ref(), &components);
    let metadata = repository
        .file(&version, "metadata.yaml")
        .await
        .map_err(|e| Error::Metadata {
            label: label.clone(),
            source: Box::new(e.into_error()),
        })?;
    let components_bytes =
        repository
            .file(&version, &components)
            .await
            .map_err(|e| Error::Components {
                name: components.clone(),
                label: label.clone(),
                source: Box::new(e.into_error()),
            })?;
    let mut fetched: Vec<(String, Bytes)> = vec![
        ("metadata.yaml".to_string(), metadata),
        (components.clone(), components_bytes),
    ];

    // The templates beside the components file, and the checksums capkg publishes.
    let listed = repository.list(&version).await?;
    let mut checksums: Option<Bytes> = None;
    let names = match listed {
        Some(names) => names,
        None => {
            checksums = repository.file(&version, CHECKSUMS_FILE).await.ok();
            match &checksums {
                Some(list) => checksum_names(list),
                None => {
                    warnings.push(format!(
                        "a {} package cannot be listed through clusterctl's URLs and has no `{CHECKSUMS_FILE}`: only `cluster-template.yaml` was looked for",
                        match kind {
                            RepositoryKind::Gitlab => "GitLab",
                            _ => "this",
                        }
                    ));
                    vec!["cluster-template.yaml".to_string()]
                }
            }
        }
    };
    for name in names {
        let is_template = matches!(
            FileRole::from_file_name(&name),
            Some(FileRole::ClusterTemplate { .. } | FileRole::ClusterClass { .. })
        );
        if is_template && !fetched.iter().any(|(n, _)| *n == name) {
            match repository.file(&version, &name).await {
                Ok(bytes) => fetched.push((name, bytes)),
                Err(Fetch::NotFound(_)) => {}
                Err(Fetch::Failed(err)) if kind == RepositoryKind::Gitlab => {
                    if name != "cluster-template.yaml" {
                        warnings.push(format!("`{name}` could not be read: {err}"));
                    }
                }
                Err(Fetch::Failed(err)) => {
                    return Err(Error::Components {
                        name,
                        label,
                        source: Box::new(err),
                    });
                }
            }
        } else if name == CHECKSUMS_FILE && checksums.is_none() {
            checksums = repository.file(&version, CHECKSUMS_FILE).await.ok();
        }
    }

    let files: Vec<VerifiedFile> = fetched
        .iter()
        .map(|(name, bytes)| VerifiedFile {
            name: name.clone(),
            size: bytes.len() as u64,
            sha256: sha256_hex(bytes),
            url: repository.url(&version, name),
        })
        .collect();
    let mut checks = Vec::new();
    if let Some(list) = &checksums {
        checks.push(checksum_check(list, &files));
    }
    let mut attested = Attested::default();
    if !request.skip_checks {
        let mut read = fetched.clone();
        read.extend(
            checksums
                .iter()
                .map(|l| (CHECKSUMS_FILE.to_string(), l.clone())),
        );
        let listed = checksums.as_deref().map(checksum_names).unwrap_or_default();
        let (found, statement) = provenance::check(
            repository.as_ref(),
            &version,
            &read,
            &listed,
            request.provenance,
            request.signature.as_ref(),
        )
        .await;
        checks.extend(found);
        attested = statement;
    }

    let release = Release {
        dir: PathBuf::from(&version),
        files: fetched
            .iter()
            .filter_map(|(name, bytes)| {
                let role = FileRole::from_file_name(name).or(
                    match (name == &components, request.provider_type) {
                        (true, Some(provider_type)) => Some(FileRole::Components {
                            provider_type,
                            suffix: None,
                        }),
                        _ => None,
                    },
                )?;
                Some(files::load_text(
                    name,
                    crate::yaml::text_lossy(bytes).into_owned(),
                    role,
                ))
            })
            .collect(),
        near_misses: Vec::new(),
    };
    if !release.files.iter().any(|f| f.file_name() == components) {
        warnings.push(format!(
            "`{components}` is not named like a components file; pass `--type` to lint it as one"
        ));
    }
    let parsed_version = Version::parse(&version).ok();
    let options = rules::Options {
        provider_type: request
            .provider_type
            .or(local_provider.as_ref().map(|(t, _)| *t)),
        provider_name: request
            .provider_name
            .clone()
            .or(local_provider.as_ref().map(|(_, n)| n.clone())),
        version: parsed_version.clone(),
    };
    let provider = rules::Context::new(&release, &options).provider;
    let label = provider.label();
    match &parsed_version {
        _ if request.skip_checks => {}
        Some(v) => checks.insert(0, series_check(&release, v, label.as_deref())),
        None => warnings.push(format!(
            "`{version}` is not a semantic version: clusterctl cannot install it, and the release series check was skipped"
        )),
    }
    let diagnostics = if request.skip_checks {
        Vec::new()
    } else {
        rules::run(std::slice::from_ref(&release), &options)
    };
    if request.check_images {
        images_check(&[&release], settings, &services, &mut checks, &mut warnings).await;
    }
    Ok(VerifyReport {
        source: request.source.clone(),
        repository: kind,
        requested_version: Some(requested),
        version: Some(version),
        latest: resolution,
        provider_label: label,
        files,
        checks,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: false,
        releases: vec![ReadRelease { release, options }],
        attested,
    }
    .finish())
}

/// The repository a parsed (non-folder) SOURCE names.
pub(super) fn open(
    source: ProviderSource,
    settings: &Settings,
    services: &Services,
) -> Result<Opened, Error> {
    let http = |credential: Option<Credential>| {
        services
            .http(credential)
            .map_err(|e| Error::http("start the HTTP client".into(), e))
    };
    Ok(match source {
        ProviderSource::Directory(dir) => {
            return Err(Error::Source(SourceError {
                source_text: dir.display().to_string(),
                message: "a folder is not a repository".into(),
                hint: None,
            }));
        }
        ProviderSource::GitHub(source) => {
            let place = Place::GitHub(settings.github_api.clone());
            let (credential, _) = settings.origins.forge(&place, settings.purpose);
            Opened {
                version: source.version.clone(),
                components: source.components_path.clone(),
                kind: RepositoryKind::Github,
                local_provider: None,
                repository: Box::new(GitHubRepository::new(
                    source,
                    settings.github_api.clone(),
                    http(credential)?,
                )),
            }
        }
        ProviderSource::GitLab(source) => {
            let origin = Url::parse(&source.origin).map_err(|e| Error::Unexpected {
                url: source.origin.clone(),
                reason: e.to_string(),
            })?;
            let (credential, _) = settings
                .origins
                .forge(&Place::GitLab(origin), settings.purpose);
            Opened {
                version: source.version.clone(),
                components: source.components_path.clone(),
                kind: RepositoryKind::Gitlab,
                local_provider: None,
                repository: Box::new(GitLabRepository::new(source, http(credential)?)),
            }
        }
        ProviderSource::Local(source) => Opened {
            version: source.version.clone(),
            components: source.components_path.clone(),
            kind: RepositoryKind::Local,
            local_provider: source.provider().map(|(t, n)| (t, n.to_string())),
            repository: Box::new(LocalRepository::new(source, services.policy.max_download)),
        },
    })
}

/// The provider's manifest label, as clusterctl names it in its messages: from the local
/// repository's path, else `--type` (or the components file's name) and `--provider`; capkg
/// cannot know it before reading the components file otherwise.
fn repository_label(
    request: &VerifyRequest,
    local_provider: Option<&(ProviderType, String)>,
    components: &str,
) -> String {
    if let Some((provider_type, name)) = local_provider {
        return provider_type.manifest_label(name);
    }
    let provider_type = request
        .provider_type
        .or(match FileRole::from_file_name(components) {
            Some(FileRole::Components { provider_type, .. }) => Some(provider_type),
            _ => None,
        });
    match (provider_type, request.provider_name.as_deref()) {
        (Some(provider_type), Some(name)) => provider_type.manifest_label(name),
        (Some(ProviderType::Core), None) => crate::provider::CORE_PROVIDER_NAME.to_string(),
        _ => "(unknown: pass --provider and --type)".to_string(),
    }
}

/// A folder: lint it; a `{label}/{version}/` folder also gets the series check. Each file is
/// read as a download is: a regular file, at most `limit` bytes.
fn verify_directory(
    request: &VerifyRequest,
    dir: &Path,
    warnings: Vec<String>,
    limit: u64,
) -> Result<VerifyReport, Error> {
    let releases = files::load_releases_within(&[dir.to_path_buf()], request.provider_type, limit)?;
    let mut diagnostics = Vec::new();
    let mut checks = Vec::new();
    let mut files = Vec::new();
    let mut versions = Vec::new();
    let mut labels = Vec::new();
    // `--version` for a folder the path gives no version (`out/`), as `capkg lint --version`.
    let given = match request.version.as_deref() {
        None => None,
        Some(text) => Some(crate::version::Version::parse(text).map_err(|e| {
            Error::Source(SourceError {
                source_text: text.to_string(),
                message: format!("`--version {text}` is not a version: {e}"),
                hint: Some("give the version as tagged, `v1.2.3`".into()),
            })
        })?),
    };
    let mut read = Vec::new();
    for release in releases {
        let (version, from_path) = version_from_path(&release.dir);
        let version = version.or_else(|| given.clone());
        let options = rules::Options {
            provider_type: request
                .provider_type
                .or(from_path.as_ref().map(|(t, _)| *t)),
            provider_name: request.provider_name.clone().or(from_path.map(|(_, n)| n)),
            version: version.clone(),
        };
        let label = rules::Context::new(&release, &options).provider.label();
        if let Some(version) = &version {
            if !request.skip_checks {
                checks.push(series_check(&release, version, label.as_deref()));
            }
            versions.push(version.to_string());
        }
        labels.extend(label);
        if !request.skip_checks {
            diagnostics.extend(rules::run(std::slice::from_ref(&release), &options));
        }
        for file in &release.files {
            let text = file.source().text();
            files.push(VerifiedFile {
                name: file.path.display().to_string(),
                size: text.len() as u64,
                sha256: sha256_hex(text.as_bytes()),
                url: file.path.display().to_string(),
            });
        }
        read.push(ReadRelease { release, options });
    }
    // A folder is what was built, not what is served: its statement is checked where the
    // release is published.
    checks.extend(super::provenance::missing(
        request.provenance,
        "a folder is not checked for provenance: verify the published release".into(),
    ));
    let mut warnings = warnings;
    if versions.is_empty() && !request.skip_checks {
        warnings.push(
            "the folder is not in the `{provider-label}/{version}/` layout, so the version is unknown and the release series check was skipped".into(),
        );
    }
    labels.sort();
    labels.dedup();
    versions.dedup();
    Ok(VerifyReport {
        source: request.source.clone(),
        repository: RepositoryKind::Directory,
        requested_version: None,
        version: (versions.len() == 1).then(|| versions.remove(0)),
        latest: None,
        provider_label: (labels.len() == 1).then(|| labels.remove(0)),
        files,
        checks,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: false,
        releases: read,
        attested: Attested::default(),
    }
    .finish())
}

/// `({label}/)?{version}` of a release folder: the version when the folder name is one, and the
/// provider when the folder above is a manifest label.
fn version_from_path(dir: &Path) -> (Option<Version>, Option<(ProviderType, String)>) {
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let Some(version) = name(dir).and_then(|n| Version::parse(&n).ok()) else {
        return (None, None);
    };
    let provider = dir
        .parent()
        .and_then(name)
        .and_then(|label| ProviderType::split_label(&label).map(|(t, n)| (t, n.to_string())));
    (Some(version), provider)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_provider_by_its_manifest_label() {
        let request = |name: Option<&str>, provider_type: Option<ProviderType>| VerifyRequest {
            source: String::new(),
            provider_name: name.map(str::to_string),
            provider_type,
            version: None,
            check_images: false,
            skip_checks: false,
            provenance: Default::default(),
            signature: None,
        };
        let local = (ProviderType::Bootstrap, "kubeadm".to_string());
        assert_eq!(
            repository_label(&request(None, None), Some(&local), "x.yaml"),
            "bootstrap-kubeadm"
        );
        assert_eq!(
            repository_label(
                &request(Some("azure"), None),
                None,
                "infrastructure-components.yaml"
            ),
            "infrastructure-azure"
        );
        assert_eq!(
            repository_label(&request(None, None), None, "core-components.yaml"),
            "cluster-api"
        );
        // Never the components file's name (issue 16: `provider "file.yaml"`).
        assert_eq!(
            repository_label(&request(None, None), None, "file.yaml"),
            "(unknown: pass --provider and --type)"
        );
    }

    #[test]
    fn folder_names_give_version_and_provider() {
        let (version, provider) = version_from_path(Path::new("/repo/infrastructure-azure/v1.2.3"));
        assert_eq!(version.unwrap().to_string(), "v1.2.3");
        assert_eq!(
            provider,
            Some((ProviderType::Infrastructure, "azure".to_string()))
        );
        assert_eq!(version_from_path(Path::new("out")), (None, None));
    }
}
