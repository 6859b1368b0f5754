//! Checking a bundle: the certificate chains to the trusted root at the log's time, its identity
//! is the one the policy names, the DSSE signature is the certificate key's over the statement
//! served, and the Rekor entry is this signature's, promised by the log's key. Each check is
//! reported by name (`signature-*`).

use rustls::pki_types::{CertificateDer, UnixTime};
use serde_json::Value;
use webpki::{EndEntityCert, KeyUsage};

use super::{BUNDLE_MEDIA_TYPE, Bundle, p256_point, pae, set_payload};
use crate::checksums::sha256_hex;
use crate::forge::encoding::base64_decode;
use crate::provenance::MEDIA_TYPE;

/// id-kp-codeSigning (1.3.6.1.5.5.7.3.3), the usage Fulcio gives its certificates.
const CODE_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];
/// Fulcio's OIDC issuer extensions: v2 (a DER UTF8String) and the legacy raw one.
const ISSUER_V2: &str = "1.3.6.1.4.1.57264.1.8";
const ISSUER_V1: &str = "1.3.6.1.4.1.57264.1.1";

/// A Sigstore trusted root (`trusted_root.json`): the Fulcio CAs and the Rekor logs' keys.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrustedRoot {
    /// Each CA's chain, leaf-most first, DER.
    pub chains: Vec<Vec<Vec<u8>>>,
    /// Each log: its key ID (SHA-256 of the key's DER) and the uncompressed P-256 point.
    pub logs: Vec<(Vec<u8>, Vec<u8>)>,
}

impl TrustedRoot {
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, String> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let decode = |v: &Value| v.as_str().and_then(base64_decode);
        let mut root = TrustedRoot::default();
        for ca in value["certificateAuthorities"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let chain: Option<Vec<Vec<u8>>> = ca["certChain"]["certificates"]
                .as_array()
                .map(|certs| certs.iter().map(|c| decode(&c["rawBytes"])).collect())
                .unwrap_or_default();
            root.chains
                .push(chain.ok_or("a certificate authority's `certChain` is not base64 DER")?);
        }
        for log in value["tlogs"].as_array().into_iter().flatten() {
            let key = decode(&log["publicKey"]["rawBytes"])
                .ok_or("a tlog has no `publicKey.rawBytes`")?;
            let id = decode(&log["logId"]["keyId"]).ok_or("a tlog has no `logId.keyId`")?;
            // Only ECDSA P-256 logs are read (Rekor's key); another key is left out.
            if let Some(point) = p256_point(&key) {
                root.logs.push((id, point.to_vec()));
            }
        }
        if root.chains.is_empty() || root.logs.is_empty() {
            return Err("it names no certificate authority or no P-256 transparency log".into());
        }
        Ok(root)
    }
}

/// Whose signature is accepted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policy {
    /// `--certificate-identity`: the SAN (URI or email), exactly.
    pub identity: Option<String>,
    /// `--certificate-identity-regexp`.
    pub identity_regexp: Option<regex::Regex>,
    /// `--certificate-oidc-issuer`.
    pub issuer: Option<String>,
}

/// One check by name: what it found, or why it failed.
pub(crate) type Checked = (&'static str, Result<String, String>);

fn check(name: &'static str, result: Result<String, String>) -> Checked {
    (name, result)
}

/// Every check of `bundle` against the `statement` served.
pub(crate) fn verify(
    bundle: &[u8],
    statement: &[u8],
    root: &TrustedRoot,
    policy: &Policy,
) -> Vec<Checked> {
    let bundle: Bundle = match serde_json::from_slice(bundle) {
        Ok(b) => b,
        Err(e) => {
            return vec![check(
                "signature",
                Err(format!("the bundle is not a Sigstore bundle: {e}")),
            )];
        }
    };
    if bundle.media_type != BUNDLE_MEDIA_TYPE {
        return vec![check(
            "signature",
            Err(format!(
                "the bundle is `{}`, not a Sigstore bundle v0.3",
                bundle.media_type
            )),
        )];
    }
    let (Some(leaf), Some(payload), [signature], [entry]) = (
        base64_decode(&bundle.verification_material.certificate.raw_bytes),
        base64_decode(&bundle.dsse_envelope.payload),
        bundle.dsse_envelope.signatures.as_slice(),
        bundle.verification_material.tlog_entries.as_slice(),
    ) else {
        return vec![check(
            "signature",
            Err(
                "the bundle needs one certificate, one DSSE signature and one log entry, in base64"
                    .into(),
            ),
        )];
    };
    let signature = base64_decode(&signature.sig).unwrap_or_default();
    let integrated_time = entry.integrated_time.parse::<u64>().unwrap_or_default();
    let mut checks = Vec::new();

    checks.push(check(
        "signature-payload",
        if bundle.dsse_envelope.payload_type != MEDIA_TYPE {
            Err(format!("the envelope's payload is `{}`, not an in-toto statement", bundle.dsse_envelope.payload_type))
        } else if payload != statement {
            Err("the signed statement is not the statement served: one of them was changed after signing".into())
        } else {
            Ok("the envelope's payload is the statement served, byte for byte".into())
        },
    ));

    let chain = chain(&leaf, root, integrated_time);
    checks.push(check("signature-certificate", chain.clone().map(|_| {
        format!("the certificate chains to the trusted root and was valid when logged ({integrated_time})")
    })));

    checks.push(check(
        "signature-dsse",
        EndEntityCert::try_from(&CertificateDer::from(leaf.as_slice()))
            .map_err(|e| format!("the certificate is not readable: {e}"))
            .and_then(|cert| {
                cert.verify_signature(
                    webpki::ring::ECDSA_P256_SHA256,
                    &pae(&bundle.dsse_envelope.payload_type, &payload),
                    &signature,
                )
                .map_err(|_| {
                    "the DSSE signature is not the certificate key's over the envelope".to_string()
                })
            })
            .map(|()| "the DSSE signature verifies with the certificate's key".into()),
    ));

    checks.push(check(
        "signature-tlog",
        tlog(entry, &payload, &signature, root),
    ));
    checks.push(check("signature-identity", identity(&leaf, policy)));
    checks
}

/// The leaf chains to one of the root's CAs, for code signing, at `time`.
fn chain(leaf: &[u8], root: &TrustedRoot, time: u64) -> Result<(), String> {
    let leaf = CertificateDer::from(leaf);
    let cert = EndEntityCert::try_from(&leaf)
        .map_err(|e| format!("the certificate is not readable: {e}"))?;
    let ders: Vec<CertificateDer<'_>> = root
        .chains
        .iter()
        .flatten()
        .map(|d| CertificateDer::from(d.as_slice()))
        .collect();
    let anchors: Vec<_> = root
        .chains
        .iter()
        .filter_map(|chain| chain.last())
        .filter_map(|der| ders.iter().find(|d| d.as_ref() == der.as_slice()))
        .filter_map(|der| webpki::anchor_from_trusted_cert(der).ok())
        .collect();
    let algorithms = [
        webpki::ring::ECDSA_P256_SHA256,
        webpki::ring::ECDSA_P384_SHA384,
        webpki::ring::ECDSA_P256_SHA384,
        webpki::ring::ECDSA_P384_SHA256,
    ];
    cert.verify_for_usage(
        &algorithms,
        &anchors,
        &ders,
        UnixTime::since_unix_epoch(std::time::Duration::from_secs(time)),
        KeyUsage::required(CODE_SIGNING),
        None,
        None,
    )
    .map(|_| ())
    .map_err(|e| {
        format!(
            "the certificate does not chain to the trusted root at the log's time {time}: {e:?}"
        )
    })
}

/// The log entry is Rekor's promise (its signed entry timestamp) for this payload and signature.
fn tlog(
    entry: &super::TlogEntry,
    payload: &[u8],
    signature: &[u8],
    root: &TrustedRoot,
) -> Result<String, String> {
    let log_id = base64_decode(&entry.log_id.key_id).unwrap_or_default();
    let (_, key) = root
        .logs
        .iter()
        .find(|(id, _)| *id == log_id)
        .ok_or("the entry's log is not one the trusted root names")?;
    let number = |text: &str| {
        text.parse::<i64>()
            .map_err(|_| format!("`{text}` is not a number"))
    };
    let message = set_payload(
        &entry.canonicalized_body,
        number(&entry.integrated_time)?,
        &hex::encode(&log_id),
        number(&entry.log_index)?,
    );
    let set = base64_decode(&entry.inclusion_promise.signed_entry_timestamp).unwrap_or_default();
    ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_ASN1, key)
        .verify(&message, &set)
        .map_err(|_| "the signed entry timestamp does not verify with the log's key".to_string())?;
    let body: Value = base64_decode(&entry.canonicalized_body)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("the entry's body is not JSON")?;
    let spec = &body["spec"];
    let payload_hash = spec["payloadHash"]["value"].as_str().unwrap_or_default();
    let signed = spec["signatures"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|s| s["signature"].as_str().and_then(base64_decode).as_deref() == Some(signature));
    if body["kind"] != "dsse" || payload_hash != sha256_hex(payload) || !signed {
        return Err(
            "the log entry is not this envelope's: its payload hash or signature differ".into(),
        );
    }
    Ok(format!(
        "logged in Rekor at index {} (signed entry timestamp verified)",
        entry.log_index
    ))
}

/// The certificate's identity (SAN) and OIDC issuer against the policy.
fn identity(leaf: &[u8], policy: &Policy) -> Result<String, String> {
    let (_, cert) = x509_parser::parse_x509_certificate(leaf)
        .map_err(|e| format!("the certificate is not readable: {e}"))?;
    let names: Vec<String> = cert
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|san| {
            san.value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    x509_parser::extensions::GeneralName::URI(uri) => Some((*uri).to_string()),
                    x509_parser::extensions::GeneralName::RFC822Name(email) => {
                        Some((*email).to_string())
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let issuer = cert.extensions().iter().find_map(|ext| {
        let oid = ext.oid.to_id_string();
        if oid == ISSUER_V2 {
            // A DER UTF8String: tag 0x0c, a short length, the text.
            match ext.value {
                [0x0c, len, text @ ..] if usize::from(*len) == text.len() => {
                    std::str::from_utf8(text).ok().map(str::to_string)
                }
                _ => None,
            }
        } else if oid == ISSUER_V1 {
            std::str::from_utf8(ext.value).ok().map(str::to_string)
        } else {
            None
        }
    });
    let shown = names.join(", ");
    if policy.identity.is_none() && policy.identity_regexp.is_none() {
        return Err(format!(
            "the certificate is for `{shown}`; say whose signature to accept with --certificate-identity or --certificate-identity-regexp"
        ));
    }
    let matches = |name: &String| {
        policy.identity.as_ref().is_none_or(|want| want == name)
            && policy
                .identity_regexp
                .as_ref()
                .is_none_or(|re| re.is_match(name))
    };
    if !names.iter().any(matches) {
        return Err(format!(
            "the certificate is for `{shown}`, not the identity the policy names"
        ));
    }
    let issuer = issuer.ok_or("the certificate has no OIDC issuer extension")?;
    match &policy.issuer {
        Some(want) if *want != issuer => Err(format!(
            "the certificate's OIDC issuer is `{issuer}`, not `{want}`"
        )),
        None => Err(format!(
            "the certificate's OIDC issuer is `{issuer}`; say which to accept with --certificate-oidc-issuer"
        )),
        Some(_) => Ok(format!("signed by `{shown}`, issuer `{issuer}`")),
    }
}
