//! Signing against loopback fakes of Fulcio (a test CA issuing certificates with Fulcio's SAN and
//! issuer extension for the key it is sent) and Rekor (entries with a signed entry timestamp
//! from a test key), then every verification check accepting the bundle and refusing each
//! tampered variant.

use std::collections::BTreeMap;

use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, PKCS_ECDSA_P256_SHA256, PublicKeyData, SanType, SignatureAlgorithm,
};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

use super::sign::{Endpoints, identity_token, sign};
use super::verify::{Checked, Policy, TrustedRoot, verify};
use super::*;
use crate::checksums::sha256_hex;
use crate::forge::Services;
use crate::forge::secret::Secret;

const IDENTITY: &str = "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.0.0";
const ISSUER: &str = "https://token.actions.githubusercontent.com";

struct Point(Vec<u8>);
impl PublicKeyData for Point {
    fn der_bytes(&self) -> &[u8] {
        &self.0
    }
    fn algorithm(&self) -> &'static SignatureAlgorithm {
        &PKCS_ECDSA_P256_SHA256
    }
}

fn test_ca(name: &str) -> (Vec<u8>, Issuer<'static, KeyPair>) {
    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let der = params.self_signed(&key).unwrap().der().to_vec();
    (der, Issuer::new(params, key))
}

/// Fulcio: a certificate for the posted key, for the token's identity.
struct Fulcio(Issuer<'static, KeyPair>);
impl Respond for Fulcio {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert!(
            body["credentials"]["oidcIdentityToken"]
                .as_str()
                .unwrap()
                .contains('.')
        );
        let spki = pem_der(
            body["publicKeyRequest"]["publicKey"]["content"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.subject_alt_names = vec![SanType::URI(IDENTITY.try_into().unwrap())];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::CodeSigning];
        let mut issuer = vec![0x0c, ISSUER.len() as u8];
        issuer.extend_from_slice(ISSUER.as_bytes());
        params.custom_extensions = vec![CustomExtension::from_oid_content(
            &[1, 3, 6, 1, 4, 1, 57264, 1, 8],
            issuer,
        )];
        let point = Point(p256_point(&spki).unwrap().to_vec());
        let cert = params.signed_by(&point, &self.0).unwrap();
        ResponseTemplate::new(201).set_body_json(json!({
            "signedCertificateEmbeddedSct": {"chain": {"certificates": [cert.pem()]}}
        }))
    }
}

/// Rekor: a dsse entry for the posted envelope, promised by `key`.
struct Rekor(EcdsaKeyPair);
impl Rekor {
    fn log_id(&self) -> Vec<u8> {
        hex::decode(sha256_hex(&p256_spki(self.0.public_key().as_ref()))).unwrap()
    }
}
impl Respond for Rekor {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let content = &body["spec"]["proposedContent"];
        let envelope: Envelope =
            serde_json::from_str(content["envelope"].as_str().unwrap()).unwrap();
        let payload = base64_decode(&envelope.payload).unwrap();
        let entry = json!({
            "apiVersion": "0.0.1", "kind": "dsse",
            "spec": {
                "payloadHash": {"algorithm": "sha256", "value": sha256_hex(&payload)},
                "signatures": [{"signature": envelope.signatures[0].sig, "verifier": content["verifiers"][0]}],
            },
        });
        let canonical = base64_padded(entry.to_string().as_bytes());
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let log_id = hex::encode(self.log_id());
        let set = self
            .0
            .sign(
                &SystemRandom::new(),
                &set_payload(&canonical, time, &log_id, 7),
            )
            .unwrap();
        ResponseTemplate::new(201).set_body_json(json!({
            "24296fb24b8ad77a": {
                "body": canonical, "integratedTime": time, "logID": log_id, "logIndex": 7,
                "verification": {"signedEntryTimestamp": base64_padded(set.as_ref())},
            }
        }))
    }
}

fn jwt() -> String {
    let part = |v: Value| {
        base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            v.to_string(),
        )
    };
    format!(
        "{}.{}.c2ln",
        part(json!({"alg": "RS256"})),
        part(json!({"iss": ISSUER, "sub": "repo:o/r:ref:refs/tags/v1.0.0", "aud": "sigstore"}))
    )
}

fn trusted_root(ca: &[u8], log_key: &[u8], log_id: &[u8]) -> TrustedRoot {
    let text = json!({
        "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
        "certificateAuthorities": [{"certChain": {"certificates": [{"rawBytes": base64_padded(ca)}]}}],
        "tlogs": [{"publicKey": {"rawBytes": base64_padded(log_key)}, "logId": {"keyId": base64_padded(log_id)}}],
    });
    TrustedRoot::parse(text.to_string().as_bytes()).unwrap()
}

fn policy(identity: &str, issuer: &str) -> Policy {
    Policy {
        identity: Some(identity.into()),
        identity_regexp: None,
        issuer: Some(issuer.into()),
    }
}

fn by_name(checks: Vec<Checked>) -> BTreeMap<&'static str, Result<String, String>> {
    checks.into_iter().collect()
}

#[tokio::test]
async fn a_statement_signed_through_fulcio_and_rekor_verifies_and_each_tampering_is_refused() {
    let server = MockServer::start().await;
    let (ca, issuer) = test_ca("fake fulcio");
    Mock::given(method("POST"))
        .and(path("/api/v2/signingCert"))
        .respond_with(Fulcio(issuer))
        .mount(&server)
        .await;
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
    let log_key =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let log_spki = p256_spki(log_key.public_key().as_ref());
    let rekor = Rekor(log_key);
    let log_id = rekor.log_id();
    Mock::given(method("POST"))
        .and(path("/api/v1/log/entries"))
        .respond_with(rekor)
        .mount(&server)
        .await;

    let env = |name: &str| match name {
        "CAPKG_SIGSTORE_ID_TOKEN" => Some(jwt()),
        "CAPKG_FULCIO_URL" | "CAPKG_REKOR_URL" => Some(server.uri()),
        _ => None,
    };
    let http = Services::default().http(None).unwrap();
    let token = identity_token(&env, &http).await.unwrap();
    let endpoints = Endpoints::from_env(&env).unwrap();
    let statement = br#"{"_type":"https://in-toto.io/Statement/v1"}"#;
    let bundle = sign(statement, &token, &endpoints, &http).await.unwrap();

    let parsed: Value = serde_json::from_slice(&bundle).unwrap();
    assert_eq!(parsed["mediaType"], BUNDLE_MEDIA_TYPE);
    assert_eq!(
        parsed["dsseEnvelope"]["payloadType"],
        "application/vnd.in-toto+json"
    );
    assert_eq!(
        parsed["verificationMaterial"]["tlogEntries"][0]["logIndex"],
        "7"
    );
    assert_eq!(
        parsed["verificationMaterial"]["tlogEntries"][0]["kindVersion"]["kind"],
        "dsse"
    );
    assert!(!String::from_utf8_lossy(&bundle).contains(&jwt()));

    let root = trusted_root(&ca, &log_spki, &log_id);
    let checks = by_name(verify(&bundle, statement, &root, &policy(IDENTITY, ISSUER)));
    assert!(checks.values().all(Result::is_ok), "{checks:#?}");
    assert_eq!(checks.len(), 5);

    let failing = |checks: Vec<Checked>| {
        checks
            .into_iter()
            .filter(|(_, result)| result.is_err())
            .map(|(name, _)| name)
            .collect::<Vec<_>>()
    };
    // A statement changed after signing.
    let changed = br#"{"_type":"https://in-toto.io/Statement/v1" }"#;
    assert_eq!(
        failing(verify(&bundle, changed, &root, &policy(IDENTITY, ISSUER))),
        ["signature-payload"]
    );
    // Another identity, another issuer.
    let other = "https://github.com/evil/r/.github/workflows/release.yml@refs/tags/v1.0.0";
    assert_eq!(
        failing(verify(&bundle, statement, &root, &policy(other, ISSUER))),
        ["signature-identity"]
    );
    let checks = by_name(verify(
        &bundle,
        statement,
        &root,
        &policy(IDENTITY, "https://gitlab.com"),
    ));
    assert!(
        checks["signature-identity"]
            .as_ref()
            .unwrap_err()
            .contains("not `https://gitlab.com`"),
        "{checks:#?}"
    );
    let regexp = Policy {
        identity: None,
        identity_regexp: Some(regex::Regex::new("^https://github.com/o/r/").unwrap()),
        issuer: Some(ISSUER.into()),
    };
    assert!(failing(verify(&bundle, statement, &root, &regexp)).is_empty());
    // A certificate not chained to the root.
    let (other_ca, _) = test_ca("another CA");
    let other_root = trusted_root(&other_ca, &log_spki, &log_id);
    assert_eq!(
        failing(verify(
            &bundle,
            statement,
            &other_root,
            &policy(IDENTITY, ISSUER)
        )),
        ["signature-certificate"]
    );
    // A signed entry timestamp that is not the log's, and a signature that is not the key's.
    let mut tampered: Bundle = serde_json::from_slice(&bundle).unwrap();
    tampered.verification_material.tlog_entries[0].integrated_time = "1".into();
    let tampered_set = serde_json::to_vec(&tampered).unwrap();
    let failed = failing(verify(
        &tampered_set,
        statement,
        &root,
        &policy(IDENTITY, ISSUER),
    ));
    assert!(failed.contains(&"signature-tlog"), "{failed:?}");
    let mut tampered: Bundle = serde_json::from_slice(&bundle).unwrap();
    let mut sig = base64_decode(&tampered.dsse_envelope.signatures[0].sig).unwrap();
    let last = sig.len() - 2;
    sig[last] ^= 1;
    tampered.dsse_envelope.signatures[0].sig = base64_padded(&sig);
    let failed = failing(verify(
        &serde_json::to_vec(&tampered).unwrap(),
        statement,
        &root,
        &policy(IDENTITY, ISSUER),
    ));
    assert_eq!(failed, ["signature-dsse", "signature-tlog"]);
}

#[tokio::test]
async fn without_an_identity_signing_says_what_to_set() {
    let http = Services::default().http(None).unwrap();
    let error = identity_token(&|_| None, &http).await.unwrap_err();
    assert!(error.to_string().contains("id-token: write"), "{error}");
    assert!(!super::sign::identity_available(&|_| None));
    // The bundle is published beside the statement, under cosign's and gh's usual suffix.
    assert_eq!(BUNDLE_FILE, "capkg-provenance.sigstore.json");
    let token = Secret::new(jwt()).unwrap();
    assert!(!format!("{token:?}").contains(&jwt()));
}
