//! Keyless signing of the provenance statement, Sigstore's way: a DSSE envelope over the
//! statement, signed with an ephemeral ECDSA P-256 key that Fulcio certifies for the CI's OIDC
//! identity, logged in Rekor, and written as a Sigstore bundle v0.3 ([`BUNDLE_FILE`]) beside the
//! statement. [`sign`] makes it; [`verify`] checks one against a trusted root and an identity
//! policy. capkg talks to Fulcio and Rekor itself (two JSON calls through the forge client, whose
//! token handling it reuses) rather than through sigstore-rs: the book's provenance chapter says
//! why.

pub(crate) mod sign;
pub(crate) mod verify;

use serde::{Deserialize, Serialize};

use crate::forge::encoding::{base64_decode, base64_padded};

/// The bundle's file name beside [`crate::provenance::STATEMENT_FILE`].
pub(crate) const BUNDLE_FILE: &str = "capkg-provenance.sigstore.json";
/// Sigstore bundle v0.3.
pub(crate) const BUNDLE_MEDIA_TYPE: &str = "application/vnd.dev.sigstore.bundle.v0.3+json";
/// Sigstore's public-good instance, used when no other is configured.
pub(crate) const PUBLIC_FULCIO: &str = "https://fulcio.sigstore.dev";
pub(crate) const PUBLIC_REKOR: &str = "https://rekor.sigstore.dev";

/// DSSE's pre-authentication encoding: what is signed, so that the payload type is signed too.
pub(crate) fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {} {} ",
        payload_type.len(),
        payload_type,
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// A Sigstore bundle v0.3 with a DSSE envelope, as protobuf-specs' JSON writes it (camelCase,
/// bytes in standard base64, 64-bit integers as strings).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Bundle {
    pub media_type: String,
    pub verification_material: VerificationMaterial,
    pub dsse_envelope: Envelope,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VerificationMaterial {
    pub certificate: RawBytes,
    pub tlog_entries: Vec<TlogEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawBytes {
    pub raw_bytes: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TlogEntry {
    pub log_index: String,
    pub log_id: KeyId,
    pub kind_version: KindVersion,
    pub integrated_time: String,
    pub inclusion_promise: InclusionPromise,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inclusion_proof: Option<serde_json::Value>,
    pub canonicalized_body: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KeyId {
    pub key_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct KindVersion {
    pub kind: String,
    pub version: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InclusionPromise {
    pub signed_entry_timestamp: String,
}

/// A DSSE envelope.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Envelope {
    pub payload: String,
    pub payload_type: String,
    pub signatures: Vec<EnvelopeSignature>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct EnvelopeSignature {
    pub sig: String,
    #[serde(default)]
    pub keyid: String,
}

/// What Rekor's signed entry timestamp signs: the entry's body, time, log and index as
/// canonical JSON (keys sorted, no space).
pub(crate) fn set_payload(
    body: &str,
    integrated_time: i64,
    log_id_hex: &str,
    log_index: i64,
) -> Vec<u8> {
    serde_json::json!({
        "body": body,
        "integratedTime": integrated_time,
        "logID": log_id_hex,
        "logIndex": log_index,
    })
    .to_string()
    .into_bytes()
}

/// The DER of the first certificate (or key) of a PEM text.
pub(crate) fn pem_der(pem: &str) -> Option<Vec<u8>> {
    let start = pem.find("-----BEGIN ")?;
    let body = &pem[start..];
    let body = &body[body.find('\n')? + 1..];
    let end = body.find("-----END ")?;
    base64_decode(&body[..end].split_whitespace().collect::<String>())
}

/// A PEM text of `der` under `label` (`CERTIFICATE`, `PUBLIC KEY`).
pub(crate) fn pem(label: &str, der: &[u8]) -> String {
    let encoded = base64_padded(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in encoded.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The SubjectPublicKeyInfo DER that wraps an uncompressed P-256 point: the fixed prefix that
/// names id-ecPublicKey and prime256v1, then the point.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

pub(crate) fn p256_spki(point: &[u8]) -> Vec<u8> {
    let mut out = P256_SPKI_PREFIX.to_vec();
    out.extend_from_slice(point);
    out
}

/// The uncompressed point of a P-256 SubjectPublicKeyInfo; `None` for any other key.
pub(crate) fn p256_point(spki: &[u8]) -> Option<&[u8]> {
    spki.strip_prefix(&P256_SPKI_PREFIX[..])
        .filter(|point| point.len() == 65)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_is_dsse_v1() {
        assert_eq!(
            pae("application/vnd.in-toto+json", b"{}"),
            b"DSSEv1 28 application/vnd.in-toto+json 2 {}".to_vec()
        );
    }

    #[test]
    fn pem_round_trips_and_spki_wraps_a_point() {
        let der = vec![1u8; 100];
        assert_eq!(pem_der(&pem("CERTIFICATE", &der)).unwrap(), der);
        let point = [4u8; 65];
        assert_eq!(p256_point(&p256_spki(&point)).unwrap(), &point[..]);
        assert!(p256_point(&[0u8; 91]).is_none());
    }

    #[test]
    fn the_set_payload_is_canonical_json() {
        assert_eq!(
            String::from_utf8(set_payload("Ym9keQ==", 5, "ab", 7)).unwrap(),
            r#"{"body":"Ym9keQ==","integratedTime":5,"logID":"ab","logIndex":7}"#
        );
    }
}

#[cfg(test)]
mod signing_tests;
