//! The `attest` phase: the release's provenance statement ([`crate::provenance`]) made from the
//! assembled files and the settings' record of where the release is built, and added to the
//! files every target publishes. Where the environment offers an OIDC identity, [`sign`] signs it
//! keylessly before anything is published ([`crate::sigstore`]) and the bundle is
//! published beside it; otherwise the release says it is unsigned.

use std::path::Path;

use serde::Serialize;

use super::error::Error;
use crate::config::{ComponentsSource, ProviderConfig};
use crate::provenance::{self, Components, Inputs, Origin, STATEMENT_FILE, Subject};
use crate::release_dir::ReleaseDir;
use crate::settings::Settings;
use crate::sigstore::sign::{Endpoints, SignError, identity_token};
use crate::sigstore::{self, BUNDLE_FILE};
use crate::targets::PublishFile;
use crate::targets::Services;
use crate::version::Version;

/// What the statement says, for the plan and the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Attestation {
    /// The statement's file name.
    pub file: &'static str,
    /// How many files it names.
    pub subjects: usize,
    /// The CI workflow (or local build) it names as the builder.
    pub builder: String,
    /// The commit it names, when the release is built from a checkout.
    pub commit: Option<String>,
    /// Signed keylessly when published: the environment offers an OIDC identity.
    pub signed: bool,
}

/// The statement over `files` (every release file, `checksums.txt` included), as a file to
/// publish; `None` for settings that do not record where the release is built.
pub(crate) fn attest(
    settings: &Settings,
    version: &Version,
    files: &[PublishFile],
) -> Option<(PublishFile, Attestation)> {
    let origin: &Origin = settings.provenance.as_ref()?;
    let subjects: Vec<Subject> = files
        .iter()
        .filter(|f| f.name != STATEMENT_FILE)
        .map(|f| Subject {
            name: f.name.clone(),
            sha256: f.sha256.clone(),
        })
        .collect();
    let root = &settings.sources.root;
    let commands = settings
        .sources
        .providers
        .iter()
        .flat_map(|p| &p.components)
        .filter_map(|c| match &c.source {
            ComponentsSource::Command(command) => first_word(command),
            _ => None,
        })
        .collect::<Vec<_>>();
    let inputs = Inputs {
        version: version.to_string(),
        subjects,
        source: origin.source.clone(),
        config: origin.config.clone(),
        components: settings
            .sources
            .providers
            .iter()
            .flat_map(|provider| components(provider, root))
            .collect(),
        tools: provenance::tools::versions(commands.iter().map(String::as_str), root),
        builder: origin.builder.clone(),
    };
    let attestation = Attestation {
        file: STATEMENT_FILE,
        subjects: inputs.subjects.len(),
        builder: inputs.builder.id.clone(),
        commit: inputs.source.commit.clone(),
        signed: origin.signing,
    };
    let file = PublishFile::from_bytes(STATEMENT_FILE, provenance::statement(&inputs));
    Some((file, attestation))
}

/// `release` with the bundle of its statement signed keylessly (the environment's OIDC identity,
/// the Fulcio and Rekor it names) added to the files every target publishes.
pub(crate) async fn sign(
    release: &ReleaseDir,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    services: &Services,
) -> Result<ReleaseDir, Error> {
    let statement = release
        .file(STATEMENT_FILE)
        .map(|f| f.contents.clone())
        .unwrap_or_default();
    let http = services.http(None).map_err(|e| {
        Error::Signing(SignError::Service {
            what: "making the HTTP client".into(),
            message: e.to_string(),
        })
    })?;
    let endpoints = Endpoints::from_env(env).map_err(Error::Signing)?;
    let token = identity_token(env, &http).await.map_err(Error::Signing)?;
    let bundle = sigstore::sign::sign(&statement, &token, &endpoints, &http)
        .await
        .map_err(Error::Signing)?;
    Ok(release.with_file(PublishFile::from_bytes(BUNDLE_FILE, bundle)))
}

/// The program a components command runs.
fn first_word(command: &crate::config::Command) -> Option<String> {
    match command {
        crate::config::Command::Argv(argv) => argv.first().cloned(),
        crate::config::Command::Shell(line) => line.split_whitespace().next().map(str::to_string),
    }
}

/// Each components source of `provider`, paths written from the configuration's folder so that
/// the statement does not depend on where the checkout is.
fn components(provider: &ProviderConfig, root: &Path) -> Vec<Components> {
    let label = match (provider.provider_type, provider.name.as_deref()) {
        (Some(provider_type), Some(name)) => provider_type.manifest_label(name),
        _ => String::new(),
    };
    let relative = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    };
    provider
        .components
        .iter()
        .map(|components| {
            let source = match &components.source {
                ComponentsSource::File(path) => format!("file: {}", relative(path)),
                ComponentsSource::Files(paths) => format!(
                    "files: {}",
                    paths
                        .iter()
                        .map(|p| relative(p))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                ComponentsSource::Command(command) => format!("command: {command}"),
            };
            let provider = match &components.suffix {
                Some(suffix) => format!("{label} ({suffix})"),
                None => label.clone(),
            };
            Components { provider, source }
        })
        .collect()
}
