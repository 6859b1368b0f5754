//! Signing: the CI's OIDC identity token, a Fulcio certificate for an ephemeral key, the DSSE
//! signature, its Rekor entry, and the bundle that holds them.
//!
//! The identity token is `CAPKG_SIGSTORE_ID_TOKEN`, else GitLab's `SIGSTORE_ID_TOKEN` (an
//! `id_tokens:` entry with `aud: sigstore`), else one asked from GitHub Actions
//! (`ACTIONS_ID_TOKEN_REQUEST_URL` with `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, audience `sigstore`).
//! Tokens are [`Secret`]s, sent only to the origin they are for: the request token to GitHub's
//! token service, the identity token in the body of the one Fulcio call.

use reqwest::{Method, Url};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

use super::{
    BUNDLE_MEDIA_TYPE, Bundle, Envelope, EnvelopeSignature, InclusionPromise, KeyId, KindVersion,
    PUBLIC_FULCIO, PUBLIC_REKOR, RawBytes, TlogEntry, VerificationMaterial, p256_spki, pae, pem,
    pem_der,
};
use crate::forge::credential::Credential;
use crate::forge::encoding::{base64_decode, base64_padded};
use crate::forge::http::{Http, Request, parse_base_url};
use crate::forge::secret::Secret;
use crate::provenance::MEDIA_TYPE;

/// Why a statement could not be signed. Never holds a token.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SignError {
    #[error(
        "no OIDC identity to sign with: in GitHub Actions give the job `permissions: id-token: write`; in GitLab CI add `id_tokens: SIGSTORE_ID_TOKEN: aud: sigstore`; elsewhere set CAPKG_SIGSTORE_ID_TOKEN"
    )]
    NoIdentity,
    #[error("{what}: {message}")]
    Service { what: String, message: String },
    #[error("{variable} is not a usable URL: {message}")]
    BadUrl { variable: String, message: String },
}

/// Where Fulcio and Rekor are.
#[derive(Debug, Clone)]
pub(crate) struct Endpoints {
    pub fulcio: Url,
    pub rekor: Url,
}

impl Endpoints {
    /// `CAPKG_FULCIO_URL` and `CAPKG_REKOR_URL`, else Sigstore's public-good instance.
    pub(crate) fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Self, SignError> {
        let url = |variable: &str, default: &str| {
            let text = env(variable).filter(|v| !v.trim().is_empty());
            parse_base_url(text.as_deref().unwrap_or(default)).map_err(|e| SignError::BadUrl {
                variable: variable.into(),
                message: e.to_string(),
            })
        };
        Ok(Self {
            fulcio: url("CAPKG_FULCIO_URL", PUBLIC_FULCIO)?,
            rekor: url("CAPKG_REKOR_URL", PUBLIC_REKOR)?,
        })
    }
}

/// Whether the environment offers an identity to sign with (without asking for it yet).
pub(crate) fn identity_available(env: &dyn Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    set("CAPKG_SIGSTORE_ID_TOKEN")
        || set("SIGSTORE_ID_TOKEN")
        || (set("ACTIONS_ID_TOKEN_REQUEST_URL") && set("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
}

/// The OIDC identity token the environment gives, asking GitHub Actions for one if needed.
pub(crate) async fn identity_token(
    env: &dyn Fn(&str) -> Option<String>,
    http: &Http,
) -> Result<Secret, SignError> {
    for variable in ["CAPKG_SIGSTORE_ID_TOKEN", "SIGSTORE_ID_TOKEN"] {
        if let Some(token) = env(variable).and_then(Secret::new) {
            return Ok(token);
        }
    }
    let (Some(url), Some(request_token)) = (
        env("ACTIONS_ID_TOKEN_REQUEST_URL"),
        env("ACTIONS_ID_TOKEN_REQUEST_TOKEN").and_then(Secret::new),
    ) else {
        return Err(SignError::NoIdentity);
    };
    let service = |message: String| SignError::Service {
        what: "asking GitHub Actions for an OIDC token".into(),
        message,
    };
    let mut url = Url::parse(&url).map_err(|e| service(e.to_string()))?;
    url.query_pairs_mut().append_pair("audience", "sigstore");
    let credential = Credential::bearer(request_token).for_origin(&url);
    let http = http.with_credential(Some(credential));
    let response = http
        .send(Request::new(Method::GET, url, "ask for an OIDC token"))
        .await
        .map_err(|e| service(http.redact(&e.to_string())))?;
    let value: Value =
        serde_json::from_slice(&response.body).map_err(|e| service(e.to_string()))?;
    value["value"]
        .as_str()
        .and_then(Secret::new)
        .ok_or_else(|| service("the answer has no `value`".into()))
}

/// The claim Fulcio asks the key to sign as proof of possession: the token's `sub`.
fn token_subject(token: &Secret) -> Option<String> {
    let payload = token.expose().split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&base64_decode(payload)?).ok()?;
    claims["sub"].as_str().map(str::to_string)
}

/// Signs `statement` with a fresh key certified for `token`'s identity and logs it: the bundle's
/// JSON.
pub(crate) async fn sign(
    statement: &[u8],
    token: &Secret,
    endpoints: &Endpoints,
    http: &Http,
) -> Result<Vec<u8>, SignError> {
    let failed = |what: &str, message: String| SignError::Service {
        what: what.into(),
        message,
    };
    let rng = SystemRandom::new();
    let key = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
        .and_then(|pkcs8| {
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
                .map_err(|_| ring::error::Unspecified)
        })
        .map_err(|_| failed("making a signing key", "no key".into()))?;
    let sign = |message: &[u8]| {
        key.sign(&rng, message)
            .map(|s| s.as_ref().to_vec())
            .map_err(|_| failed("signing", "the key did not sign".into()))
    };
    let subject = token_subject(token).ok_or_else(|| {
        failed(
            "reading the OIDC token",
            "it is not a JWT with a `sub` claim".into(),
        )
    })?;
    let public_pem = pem("PUBLIC KEY", &p256_spki(key.public_key().as_ref()));

    // Fulcio: a certificate for the key, bound to the token's identity.
    let fulcio_what = format!("asking Fulcio ({}) for a certificate", endpoints.fulcio);
    let url = endpoints
        .fulcio
        .join("api/v2/signingCert")
        .map_err(|e| failed(&fulcio_what, e.to_string()))?;
    let body = json!({
        "credentials": {"oidcIdentityToken": token.expose()},
        "publicKeyRequest": {
            "publicKey": {"algorithm": "ECDSA", "content": public_pem},
            "proofOfPossession": base64_padded(&sign(subject.as_bytes())?),
        },
    });
    let response = http
        .send(Request::new(Method::POST, url, "ask Fulcio for a certificate").json(&body))
        .await
        .map_err(|e| failed(&fulcio_what, token.redact(&http.redact(&e.to_string()))))?;
    let answer: Value =
        serde_json::from_slice(&response.body).map_err(|e| failed(&fulcio_what, e.to_string()))?;
    let chain = [
        "signedCertificateEmbeddedSct",
        "signedCertificateDetachedSct",
    ]
    .iter()
    .find_map(|k| answer[k]["chain"]["certificates"].as_array())
    .ok_or_else(|| failed(&fulcio_what, "the answer has no certificate chain".into()))?;
    let leaf_pem = chain
        .first()
        .and_then(Value::as_str)
        .ok_or_else(|| failed(&fulcio_what, "the chain is empty".into()))?;
    let leaf = pem_der(leaf_pem)
        .ok_or_else(|| failed(&fulcio_what, "the certificate is not PEM".into()))?;

    // The DSSE signature over the statement.
    let signature = sign(&pae(MEDIA_TYPE, statement))?;
    let envelope = Envelope {
        payload: base64_padded(statement),
        payload_type: MEDIA_TYPE.into(),
        signatures: vec![EnvelopeSignature {
            sig: base64_padded(&signature),
            keyid: String::new(),
        }],
    };

    // Rekor: the envelope logged, with the certificate as its verifier.
    let rekor_what = format!("logging the signature in Rekor ({})", endpoints.rekor);
    let url = endpoints
        .rekor
        .join("api/v1/log/entries")
        .map_err(|e| failed(&rekor_what, e.to_string()))?;
    let envelope_json =
        serde_json::to_string(&envelope).map_err(|e| failed(&rekor_what, e.to_string()))?;
    let body = json!({
        "apiVersion": "0.0.1",
        "kind": "dsse",
        "spec": {"proposedContent": {
            "envelope": envelope_json,
            "verifiers": [base64_padded(pem("CERTIFICATE", &leaf).as_bytes())],
        }},
    });
    let response = http
        .send(Request::new(Method::POST, url, "log the signature in Rekor").json(&body))
        .await
        .map_err(|e| failed(&rekor_what, http.redact(&e.to_string())))?;
    let answer: Value =
        serde_json::from_slice(&response.body).map_err(|e| failed(&rekor_what, e.to_string()))?;
    let entry = answer
        .as_object()
        .and_then(|entries| entries.values().next())
        .ok_or_else(|| failed(&rekor_what, "the answer holds no entry".into()))?;
    let tlog_entry = tlog_entry(entry).ok_or_else(|| {
        failed(
            &rekor_what,
            "the entry lacks its body, time, index, log ID or signed entry timestamp".into(),
        )
    })?;

    let bundle = Bundle {
        media_type: BUNDLE_MEDIA_TYPE.into(),
        verification_material: VerificationMaterial {
            certificate: RawBytes {
                raw_bytes: base64_padded(&leaf),
            },
            tlog_entries: vec![tlog_entry],
        },
        dsse_envelope: envelope,
    };
    let mut out =
        serde_json::to_vec_pretty(&bundle).map_err(|e| failed("writing", e.to_string()))?;
    out.push(b'\n');
    Ok(out)
}

/// Rekor's log entry as the bundle holds it.
fn tlog_entry(entry: &Value) -> Option<TlogEntry> {
    let body = entry["body"].as_str()?;
    let log_id = hex::decode(entry["logID"].as_str()?).ok()?;
    let verification = &entry["verification"];
    let proof = verification.get("inclusionProof").cloned().map(|mut p| {
        // Rekor writes hashes in hex and the index as a number; the bundle as protobuf JSON.
        if let Some(hashes) = p["hashes"].as_array() {
            p["hashes"] = hashes
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|h| hex::decode(h).ok())
                .map(|h| Value::String(base64_padded(&h)))
                .collect();
        }
        if let Some(root) = p["rootHash"].as_str().and_then(|h| hex::decode(h).ok()) {
            p["rootHash"] = Value::String(base64_padded(&root));
        }
        for key in ["logIndex", "treeSize"] {
            if let Some(n) = p[key].as_i64() {
                p[key] = Value::String(n.to_string());
            }
        }
        if let Some(checkpoint) = p["checkpoint"].as_str().map(str::to_string) {
            p["checkpoint"] = json!({ "envelope": checkpoint });
        }
        p
    });
    let kind: Value = serde_json::from_slice(&base64_decode(body)?).ok()?;
    Some(TlogEntry {
        log_index: entry["logIndex"].as_i64()?.to_string(),
        log_id: KeyId {
            key_id: base64_padded(&log_id),
        },
        kind_version: KindVersion {
            kind: kind["kind"].as_str()?.to_string(),
            version: kind["apiVersion"].as_str()?.to_string(),
        },
        integrated_time: entry["integratedTime"].as_i64()?.to_string(),
        inclusion_promise: InclusionPromise {
            signed_entry_timestamp: verification["signedEntryTimestamp"].as_str()?.to_string(),
        },
        inclusion_proof: proof,
        canonicalized_body: body.to_string(),
    })
}
