//! `capkg verify oci://REF`: read an OCI artifact exactly as cluster-api-operator reads
//! `spec.fetchConfig.oci: REF` ([`crate::operator::oci`]): its reference parsing (`http://`
//! meaning plain http, the tag from REF else `--version`), the whole manifest's titled layers,
//! and for each provider the layers it selects by title in its order of preference, with its
//! error texts. Then the checksums of `checksums.txt` and every rule, as for other sources.
//!
//! The provider is `--type`/`--provider` (the operator's CR kind and name); without them every
//! provider named by a `<type>-<name>-<version>-components.yaml` layer is read. `--version` is
//! `spec.version`; without it the tag in REF is taken for it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bytes::Bytes;

use super::{
    Check, Error, RepositoryKind, VerifiedFile, VerifyReport, VerifyRequest, series_check,
    sha256_hex,
};
use crate::checksums::CHECKSUMS_FILE;
use crate::diagnostic::Summary;
use crate::files::{self, Release};
use crate::forge::Services;
use crate::forge::http::HttpError;
use crate::forge::oci::{OciError, Reference, Registry, digest_of, valid_digest};
use crate::operator::oci::{TITLE_ANNOTATION, parse_oci_source, select};
use crate::provider::{FileRole, ProviderType};
use crate::rules;
use crate::version::Version;

/// `REF` of `oci://REF`, when SOURCE is one.
pub(crate) fn oci_source(source: &str) -> Option<&str> {
    source.trim().strip_prefix("oci://")
}

/// The registry reference the operator's parse gives: `host[:port]/path` and plain http.
fn registry_reference(
    source: &str,
    repository: &str,
    plain_http: bool,
) -> Result<Reference, Error> {
    let bad = |reason: String| {
        Error::Source(super::SourceError {
        source_text: source.to_string(),
        message: reason,
        hint: Some("write `oci://[http://]HOST[:PORT]/PATH[:TAG]`, as `spec.fetchConfig.oci` holds it after `oci://`".into()),
    })
    };
    let mut reference = Reference::parse(repository).map_err(|e| bad(e.to_string()))?;
    reference.plain_http = plain_http;
    reference.tag = None;
    Ok(reference)
}

/// The registry (`host[:port]`) of `oci://REF`'s REF, as the operator parses it.
pub(crate) fn registry_of(oci_ref: &str) -> Option<String> {
    let parsed = parse_oci_source(oci_ref, "");
    Reference::parse(&parsed.repository)
        .ok()
        .map(|reference| reference.registry)
}

/// The registry of `reference`, with the login [`crate::forge::origin`] lets go there for the
/// settings' purpose (`verify oci://REF`, an OCI target's earlier tags, a previous release).
fn open_registry(
    reference: &Reference,
    settings: &super::Settings,
    services: &Services,
) -> Result<Registry, Error> {
    let (login, _) = settings
        .origins
        .registry(&reference.registry, settings.purpose)
        .map_err(|e| registry_error("read the registry login", &reference.registry, e))?;
    let http = services
        .http(None)
        .map_err(|e| Error::http("start the HTTP client".into(), e))?;
    Registry::new(&http, reference, login, false)
        .map_err(|e| registry_error("open the registry", &reference.name(), e))
}

fn registry_error(what: &str, url: &str, err: OciError) -> Error {
    use crate::error::Classified;
    if err.is_not_found() {
        return Error::NotFound {
            what: what.to_string(),
            url: url.to_string(),
        };
    }
    let hint = err.hint();
    match err {
        OciError::Http(source) => Error::Http {
            what: what.to_string(),
            source,
        },
        OciError::List(list) => Error::List(list),
        other if other.is_refusal() => Error::Refused {
            message: other.to_string(),
            hint,
        },
        other => Error::Unexpected {
            url: url.to_string(),
            reason: other.to_string(),
        },
    }
}

/// Every tag of the repository that `source` (`oci://REF:TAG`) names, listed with the
/// distribution API and the login [`open_registry`] gives it: what `capkg release` finds an OCI
/// target's earlier releases among.
pub(crate) async fn tags(
    source: &str,
    settings: &super::Settings,
    services: &Services,
) -> Result<Vec<String>, Error> {
    let oci_ref = oci_source(source).unwrap_or(source);
    let parsed = parse_oci_source(oci_ref, "");
    let reference = registry_reference(source, &parsed.repository, parsed.plain_http)?;
    let registry = open_registry(&reference, settings, services)?;
    registry
        .tags()
        .await
        .map_err(|e| registry_error("list the tags", &reference.name(), e))
}

/// Reads and checks `oci://REF`.
pub(crate) async fn verify(
    request: &VerifyRequest,
    oci_ref: &str,
    settings: &super::Settings,
    services: Services,
) -> Result<VerifyReport, Error> {
    let spec_version = request.version.clone().unwrap_or_default();
    let parsed = parse_oci_source(oci_ref, &spec_version);
    if parsed.tag.is_empty() {
        return Err(Error::Source(super::SourceError {
            source_text: request.source.clone(),
            message: "the reference has no tag and no `--version` was given (the operator tags with `spec.version`)".into(),
            hint: Some("pass `--version`, the provider's `spec.version`".into()),
        }));
    }
    let version = if spec_version.is_empty() {
        parsed.tag.clone()
    } else {
        spec_version
    };
    let reference = registry_reference(&request.source, &parsed.repository, parsed.plain_http)?;
    let registry = open_registry(&reference, settings, &services)?;
    let tagged = format!("{}:{}", reference.name(), parsed.tag);
    let (manifest, _) = registry
        .get_manifest(&parsed.tag)
        .await
        .map_err(|e| registry_error("read the manifest", &tagged, e))?
        .ok_or_else(|| Error::NotFound {
            what: format!("no artifact is tagged `{}`", parsed.tag),
            url: tagged.clone(),
        })?;
    let json: serde_json::Value =
        serde_json::from_slice(&manifest).map_err(|e| Error::Unexpected {
            url: tagged.clone(),
            reason: format!("the manifest is not JSON: {e}"),
        })?;
    let mut warnings = Vec::new();
    if json.get("manifests").is_some() {
        return Err(Error::Unexpected {
            url: tagged,
            reason: "it is an image index, not an artifact manifest".into(),
        });
    }
    let mut files = Vec::new();
    let mut checks = Vec::new();
    let mut digest_problems = Vec::new();
    let titled = titled_layers(&json, &tagged, &services.policy, &mut warnings)?;
    // The whole artifact is held to `--max-download` (what is held in memory), and a blob
    // named by several layers is read once.
    let budget = services.policy.max_download;
    let too_large = || {
        Error::http(
            format!("read the layers of `{tagged}`"),
            HttpError::TooLarge {
                what: "the artifact's layers, in all".into(),
                url: tagged.clone(),
                limit: budget,
                announced: None,
            },
        )
    };
    let mut held = manifest.len() as u64;
    let mut read: BTreeMap<&str, Bytes> = BTreeMap::new();
    let mut layers: Vec<(String, Vec<u8>)> = Vec::new();
    for (title, digest) in &titled {
        let body = match read.get(digest.as_str()) {
            Some(body) => body.clone(),
            None => {
                let left = budget.saturating_sub(held);
                let body = registry
                    .get_blob_within(digest, left)
                    .await
                    .map_err(|e| match e {
                        OciError::Http(err) if matches!(*err, HttpError::TooLarge { .. }) => {
                            too_large()
                        }
                        e => registry_error(&format!("read the layer `{title}`"), &tagged, e),
                    })?;
                read.insert(digest, body.clone());
                body
            }
        };
        held = held.saturating_add(body.len() as u64);
        if held > budget {
            return Err(too_large());
        }
        if digest_of(&body) != *digest {
            digest_problems.push(format!("`{title}` does not match its digest {digest}"));
        }
        files.push(VerifiedFile {
            name: title.to_string(),
            size: body.len() as u64,
            sha256: sha256_hex(&body),
            url: format!("{}@{digest}", reference.name()),
        });
        layers.push((title.to_string(), body.to_vec()));
    }
    if !digest_problems.is_empty() {
        checks.push(Check {
            name: "digests",
            ok: false,
            message: digest_problems.join("; "),
        });
    }

    // Which providers to read: the one asked for, else those the full components names name.
    let providers: Vec<(ProviderType, String)> =
        match (request.provider_type, request.provider_name.clone()) {
            (Some(t), Some(n)) => vec![(t, n)],
            (t, n) => providers_in(&layers, &version)
                .into_iter()
                .filter(|(pt, pn)| t.is_none_or(|t| t == *pt) && n.as_ref().is_none_or(|n| n == pn))
                .collect(),
        };
    if providers.is_empty() {
        checks.push(Check {
            name: "operator-layers",
            ok: false,
            message: format!(
                "no layer is titled `<type>-<name>-{version}-components.yaml`; pass `--type` and `--provider` (the provider resource's kind and name) to read the plain names"
            ),
        });
    }

    let parsed_version = Version::parse(&version).ok();
    let mut diagnostics = Vec::new();
    let mut labels = Vec::new();
    let mut linted: Vec<super::ReadRelease> = Vec::new();
    let templates: Vec<files::ReleaseFile> = layers
        .iter()
        .filter_map(|(title, content)| {
            let role = FileRole::from_file_name(title).filter(FileRole::is_template)?;
            Some(files::load_text(
                title,
                crate::yaml::text_lossy(content).into_owned(),
                role,
            ))
        })
        .collect();
    for (index, (provider_type, name)) in providers.iter().enumerate() {
        let label = provider_type.manifest_label(name);
        labels.push(label.clone());
        let selected = match select(&layers, *provider_type, name, &version) {
            Ok(selected) => selected,
            Err(message) => {
                checks.push(Check {
                    name: "operator-layers",
                    ok: false,
                    message: format!("{label}: {message}"),
                });
                continue;
            }
        };
        checks.push(Check {
            name: "operator-layers",
            ok: true,
            message: format!(
                "{label}: the operator reads `{}` and `{}`",
                selected.metadata.0, selected.components.0
            ),
        });
        let components_name = provider_type.components_file_name();
        let mut release_files = vec![
            files::load_text(
                "metadata.yaml",
                crate::yaml::text_lossy(selected.metadata.1).into_owned(),
                FileRole::Metadata,
            ),
            files::load_text(
                &components_name,
                crate::yaml::text_lossy(selected.components.1).into_owned(),
                FileRole::Components {
                    provider_type: *provider_type,
                    suffix: None,
                },
            ),
        ];
        // Templates are linted once, with the first provider.
        if index == 0 {
            release_files.extend(templates.iter().cloned());
        }
        let release = Release {
            dir: PathBuf::from(format!("{label}/{version}")),
            files: release_files,
            near_misses: Vec::new(),
        };
        let options = rules::Options {
            provider_type: Some(*provider_type),
            provider_name: Some(name.clone()),
            version: parsed_version.clone(),
        };
        match &parsed_version {
            _ if request.skip_checks => {}
            Some(v) => checks.push(series_check(&release, v, Some(&label))),
            None => warnings.push(format!(
                "`{version}` is not a semantic version: the operator cannot install it, and the release series check was skipped"
            )),
        }
        if !request.skip_checks {
            diagnostics.extend(rules::run(std::slice::from_ref(&release), &options));
        }
        linted.push(super::ReadRelease { release, options });
    }
    if request.check_images {
        let releases: Vec<&Release> = linted.iter().map(|r| &r.release).collect();
        super::images_check(&releases, settings, &services, &mut checks, &mut warnings).await;
    }

    if let Some((_, list)) = layers.iter().find(|(t, _)| t == CHECKSUMS_FILE) {
        let mut named = providers_in(&layers, &version);
        named.extend(providers.iter().cloned());
        checks.push(checksums(list, &layers, &named, &version));
    }

    if !request.skip_checks {
        // The statement names the release files: the operator's copies of a provider's
        // `metadata.yaml` and components file stand for them where the plain names are not
        // layers (a release of several providers).
        let mut named = providers_in(&layers, &version);
        named.extend(providers.iter().cloned());
        let mut served = layers.clone();
        for (title, contents) in &layers {
            if let Some(plain) = release_file_name(title, &named, &version)
                && !served.iter().any(|(t, _)| *t == plain)
            {
                served.push((plain, contents.clone()));
            }
        }
        checks.extend(super::provenance::check_layers(
            &served,
            &version,
            request.provenance,
            request.signature.as_ref(),
        ));
    }

    Ok(VerifyReport {
        source: request.source.clone(),
        repository: RepositoryKind::Oci,
        requested_version: Some(parsed.tag),
        version: Some(version),
        latest: None,
        provider_label: (labels.len() == 1).then(|| labels.remove(0)),
        files,
        checks,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: false,
        releases: linted,
        attested: super::provenance::Attested::default(),
    }
    .finish())
}

/// The release file a layer the operator reads is a copy of (`metadata.yaml`, the provider's
/// components file), by the title the operator gives it.
fn release_file_name(
    title: &str,
    providers: &[(ProviderType, String)],
    version: &str,
) -> Option<String> {
    providers.iter().find_map(|(t, n)| {
        if title == crate::operator::oci::metadata_title(*t, n, version) {
            Some("metadata.yaml".to_string())
        } else if title == crate::operator::oci::components_title(*t, n, version) {
            Some(t.components_file_name())
        } else {
            None
        }
    })
}

/// `(title, digest)` of every titled layer of the manifest `json`, after the bounds: at most
/// `--max-layers` layers, declared sizes within `--max-download` in all, every digest a digest
/// (checked before any is read, so a manifest cannot steer requests to other paths).
fn titled_layers(
    json: &serde_json::Value,
    tagged: &str,
    policy: &crate::forge::policy::RetryPolicy,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, String)>, Error> {
    let listed: Vec<&serde_json::Value> = json
        .get("layers")
        .and_then(|l| l.as_array())
        .into_iter()
        .flatten()
        .collect();
    if listed.len() > policy.max_layers {
        return Err(Error::Refused {
            message: format!(
                "`{tagged}` has {} layers, more than the {} capkg reads (`--max-layers`, CAPKG_MAX_LAYERS)",
                listed.len(),
                policy.max_layers
            ),
            hint: Some("a provider's artifact has a few layers per provider; raise `--max-layers` only for an artifact you trust".into()),
        });
    }
    let declared: u64 = listed
        .iter()
        .filter_map(|layer| layer.get("size").and_then(|s| s.as_u64()))
        .fold(0, u64::saturating_add);
    if declared > policy.max_download {
        return Err(Error::http(
            format!("read the layers of `{tagged}`"),
            HttpError::TooLarge {
                what: "the artifact's layers, in all".into(),
                url: tagged.to_string(),
                limit: policy.max_download,
                announced: Some(declared),
            },
        ));
    }
    let mut titled = Vec::new();
    for layer in listed {
        let Some(title) = layer
            .get("annotations")
            .and_then(|a| a.get(TITLE_ANNOTATION))
            .and_then(|t| t.as_str())
        else {
            warnings.push("a layer without an `org.opencontainers.image.title` annotation is ignored, as the operator cannot name it".into());
            continue;
        };
        let Some(digest) = layer.get("digest").and_then(|d| d.as_str()) else {
            continue;
        };
        if !valid_digest(digest) {
            return Err(Error::Refused {
                message: format!(
                    "the layer `{title}` of `{tagged}`: {}",
                    OciError::BadDigest {
                        digest: digest.chars().take(80).collect()
                    }
                ),
                hint: None,
            });
        }
        titled.push((title.to_string(), digest.to_string()));
    }
    Ok(titled)
}

/// `(type, name)` of every `<type>-<name>-<version>-components.yaml` layer.
fn providers_in(layers: &[(String, Vec<u8>)], version: &str) -> Vec<(ProviderType, String)> {
    let suffix = format!("-{version}-components.yaml");
    let mut found = Vec::new();
    for (title, _) in layers {
        let Some(stem) = title.strip_suffix(&suffix) else {
            continue;
        };
        // `control-plane` holds a dash: try the longest type strings first.
        let mut types = ProviderType::ALL;
        types.sort_by_key(|t| std::cmp::Reverse(t.operator_name().len()));
        if let Some((t, name)) = types.iter().find_map(|t| {
            let name = stem.strip_prefix(t.operator_name())?.strip_prefix('-')?;
            (!name.is_empty()).then(|| (*t, name.to_string()))
        }) && !found.contains(&(t, name.clone()))
        {
            found.push((t, name));
        }
    }
    found
}

/// Every layer against `checksums.txt`: by its title, or, for the operator's names, by the
/// release file it carries (`metadata.yaml`, `<type>-components.yaml`).
fn checksums(
    list: &[u8],
    layers: &[(String, Vec<u8>)],
    providers: &[(ProviderType, String)],
    version: &str,
) -> Check {
    let text = String::from_utf8_lossy(list);
    let sums: BTreeMap<&str, &str> = text
        .lines()
        .filter_map(|line| {
            let (sum, name) = line.split_once(char::is_whitespace)?;
            Some((name.trim_start().trim_start_matches('*'), sum))
        })
        .collect();
    let mut problems = Vec::new();
    for (title, content) in layers {
        // The statement names `checksums.txt`, so it is made after it and not listed in it.
        if title == CHECKSUMS_FILE || title == crate::provenance::STATEMENT_FILE {
            continue;
        }
        let name = release_file_name(title, providers, version).unwrap_or_else(|| title.clone());
        let actual = sha256_hex(content);
        match sums.get(name.as_str()) {
            Some(sum) if sum.eq_ignore_ascii_case(&actual) => {}
            Some(sum) => problems.push(format!(
                "`{title}` has SHA-256 {actual}, `{CHECKSUMS_FILE}` says {sum} for `{name}`"
            )),
            None => problems.push(format!("`{CHECKSUMS_FILE}` does not list `{name}`")),
        }
    }
    super::checksums_check(&problems, format!("every layer matches `{CHECKSUMS_FILE}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_come_from_the_full_components_names() {
        let layers: Vec<(String, Vec<u8>)> = [
            "control-plane-kubeadm-v1.2.3-components.yaml",
            "bootstrap-kubeadm-v1.2.3-components.yaml",
            "bootstrap-kubeadm-v1.2.3-metadata.yaml",
            "infrastructure-components.yaml",
            "core-cluster-api-v9-components.yaml",
        ]
        .iter()
        .map(|t| (t.to_string(), b"x".to_vec()))
        .collect();
        assert_eq!(
            providers_in(&layers, "v1.2.3"),
            [
                (ProviderType::ControlPlane, "kubeadm".to_string()),
                (ProviderType::Bootstrap, "kubeadm".to_string())
            ]
        );
    }

    #[test]
    fn checksums_cover_operator_names_through_the_file_they_carry() {
        let m = b"metadata".to_vec();
        let list = format!(
            "{}  metadata.yaml\n{}  infrastructure-components.yaml\n",
            sha256_hex(&m),
            sha256_hex(b"c")
        );
        let layers = vec![
            ("infrastructure-aws-v1-metadata.yaml".to_string(), m.clone()),
            (
                "infrastructure-aws-v1-components.yaml".to_string(),
                b"c".to_vec(),
            ),
            ("metadata.yaml".to_string(), m),
        ];
        let providers = [(ProviderType::Infrastructure, "aws".to_string())];
        assert!(checksums(list.as_bytes(), &layers, &providers, "v1").ok);
        let mut bad = layers.clone();
        bad[1].1 = b"changed".to_vec();
        let check = checksums(list.as_bytes(), &bad, &providers, "v1");
        assert!(!check.ok);
        assert!(
            check
                .message
                .contains("infrastructure-aws-v1-components.yaml")
        );
    }
}
