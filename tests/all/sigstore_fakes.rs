//! Loopback fakes of Sigstore's services, behaving as the real ones answer capkg's two calls:
//! Fulcio (`POST /api/v2/signingCert`: a short-lived certificate from a test CA for the key sent,
//! with the token's identity as SAN and Fulcio's OIDC issuer extension) and Rekor (`POST
//! /api/v1/log/entries`: a `dsse` entry with a signed entry timestamp from a test log key), an
//! OIDC token minted here, and the `trusted_root.json` naming them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, PKCS_ECDSA_P256_SHA256, PublicKeyData, SanType, SignatureAlgorithm,
};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};

use crate::publish_fakes::server::{self, Handler, Incoming, Reply};
use crate::publish_fakes::sha256;

pub(crate) const IDENTITY: &str =
    "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v0.1.0";
pub(crate) const ISSUER: &str = "https://token.actions.githubusercontent.com";
/// The DER prefix of a P-256 SubjectPublicKeyInfo, before the 65-byte point.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// An OIDC identity token as GitHub Actions issues one (its signature is Fulcio's to check,
/// not capkg's).
pub(crate) fn id_token() -> String {
    let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
    format!(
        "{}.{}.c2lnbmF0dXJl",
        part(json!({"alg": "RS256", "typ": "JWT"})),
        part(json!({"iss": ISSUER, "sub": "repo:o/r:ref:refs/tags/v0.1.0", "aud": "sigstore"}))
    )
}

struct Point(Vec<u8>);
impl PublicKeyData for Point {
    fn der_bytes(&self) -> &[u8] {
        &self.0
    }
    fn algorithm(&self) -> &'static SignatureAlgorithm {
        &PKCS_ECDSA_P256_SHA256
    }
}

/// A CA's certificate (DER) and its issuer.
pub(crate) fn test_ca(name: &str) -> (Vec<u8>, Issuer<'static, KeyPair>) {
    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let der = params.self_signed(&key).unwrap().der().to_vec();
    (der, Issuer::new(params, key))
}

fn pem_der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    STANDARD.decode(body).unwrap()
}

struct Sigstore {
    ca: Issuer<'static, KeyPair>,
    log_key: EcdsaKeyPair,
    log_id: Vec<u8>,
    requests: Mutex<Vec<Incoming>>,
}

impl Sigstore {
    fn certificate(&self, request: &Incoming) -> Reply {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let token = body["credentials"]["oidcIdentityToken"]
            .as_str()
            .unwrap_or("");
        if token != id_token() {
            return Reply::json(
                401,
                json!({"code": 16, "message": "invalid identity token"}),
            );
        }
        let spki = pem_der(
            body["publicKeyRequest"]["publicKey"]["content"]
                .as_str()
                .unwrap(),
        );
        let point = spki.strip_prefix(&P256_SPKI_PREFIX[..]).unwrap().to_vec();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.subject_alt_names = vec![SanType::URI(IDENTITY.try_into().unwrap())];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::CodeSigning];
        // Fulcio's certificates live ten minutes.
        let now = time_now();
        params.not_before = rcgen::date_time_ymd(1970, 1, 1) + Duration::from_secs(now - 60);
        params.not_after = rcgen::date_time_ymd(1970, 1, 1) + Duration::from_secs(now + 600);
        let mut issuer = vec![0x0c, ISSUER.len() as u8];
        issuer.extend_from_slice(ISSUER.as_bytes());
        params.custom_extensions = vec![CustomExtension::from_oid_content(
            &[1, 3, 6, 1, 4, 1, 57264, 1, 8],
            issuer,
        )];
        let cert = params.signed_by(&Point(point), &self.ca).unwrap();
        Reply::json(
            201,
            json!({"signedCertificateEmbeddedSct": {"chain": {"certificates": [cert.pem()]}}}),
        )
    }

    fn entry(&self, request: &Incoming) -> Reply {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let content = &body["spec"]["proposedContent"];
        let envelope: Value = serde_json::from_str(content["envelope"].as_str().unwrap()).unwrap();
        let payload = STANDARD
            .decode(envelope["payload"].as_str().unwrap())
            .unwrap();
        let entry = json!({
            "apiVersion": "0.0.1", "kind": "dsse",
            "spec": {
                "envelopeHash": {"algorithm": "sha256", "value": sha256(envelope.to_string().as_bytes())},
                "payloadHash": {"algorithm": "sha256", "value": sha256(&payload)},
                "signatures": [{"signature": envelope["signatures"][0]["sig"], "verifier": content["verifiers"][0]}],
            },
        });
        let body = STANDARD.encode(entry.to_string());
        let time = time_now();
        let log_id = hex::encode(&self.log_id);
        let promised =
            json!({"body": body, "integratedTime": time, "logID": log_id, "logIndex": 4242});
        let set = self
            .log_key
            .sign(&SystemRandom::new(), promised.to_string().as_bytes())
            .unwrap();
        Reply::json(
            201,
            json!({"108e9186e8c5677a": {
                "body": body, "integratedTime": time, "logID": log_id, "logIndex": 4242,
                "verification": {
                    "signedEntryTimestamp": STANDARD.encode(set.as_ref()),
                    "inclusionProof": {"logIndex": 4242, "treeSize": 4243, "rootHash": "00ff", "hashes": ["0a0b"], "checkpoint": "rekor.sigstore.dev - 1\n4243\nAP8=\n"},
                },
            }}),
        )
    }
}

fn time_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

impl Handler for Sigstore {
    fn handle(&self, request: &Incoming) -> Reply {
        self.requests.lock().unwrap().push(request.clone());
        if request.is("POST", "/api/v2/signingCert") {
            self.certificate(request)
        } else if request.is("POST", "/api/v1/log/entries") {
            self.entry(request)
        } else {
            Reply::json(404, json!({"message": "not found"}))
        }
    }
}

/// Fulcio and Rekor on one loopback server, with the trusted root that names them.
pub(crate) struct FakeSigstore {
    pub base: String,
    /// The CA's certificate (DER).
    pub ca: Vec<u8>,
    /// The log key's SubjectPublicKeyInfo (DER).
    pub log_spki: Vec<u8>,
    state: Arc<Sigstore>,
}

impl FakeSigstore {
    pub(crate) fn start() -> Self {
        let (ca, issuer) = test_ca("fake fulcio");
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        let log_key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap();
        let mut log_spki = P256_SPKI_PREFIX.to_vec();
        log_spki.extend_from_slice(log_key.public_key().as_ref());
        let log_id = hex::decode(sha256(&log_spki)).unwrap();
        let state = Arc::new(Sigstore {
            ca: issuer,
            log_key,
            log_id,
            requests: Mutex::new(Vec::new()),
        });
        let server = server::start("sigstore", state.clone(), Duration::ZERO);
        Self {
            base: server.base,
            ca,
            log_spki,
            state,
        }
    }

    pub(crate) fn requests(&self) -> Vec<Incoming> {
        self.state.requests.lock().unwrap().clone()
    }

    /// A `trusted_root.json` naming `ca` as the Fulcio CA and this fake's log.
    pub(crate) fn trusted_root(&self, ca: &[u8]) -> String {
        json!({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [{
                "baseUrl": self.base,
                "hashAlgorithm": "SHA2_256",
                "publicKey": {"rawBytes": STANDARD.encode(&self.log_spki), "keyDetails": "PKIX_ECDSA_P256_SHA_256", "validFor": {"start": "2020-01-01T00:00:00Z"}},
                "logId": {"keyId": STANDARD.encode(&self.state.log_id)},
            }],
            "certificateAuthorities": [{
                "subject": {"organization": "capkg test", "commonName": "fake fulcio"},
                "uri": self.base,
                "certChain": {"certificates": [{"rawBytes": STANDARD.encode(ca)}]},
                "validFor": {"start": "2020-01-01T00:00:00Z"},
            }],
            "ctlogs": [],
            "timestampAuthorities": [],
        })
        .to_string()
    }
}
