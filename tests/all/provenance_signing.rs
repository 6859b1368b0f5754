//! Keyless signing end to end, against the loopback Fulcio and Rekor of
//! [`crate::sigstore_fakes`]: `capkg release` with an OIDC token signs the provenance statement
//! and publishes `capkg-provenance.sigstore.json` beside it; `capkg verify --trusted-root` with
//! the identity policy accepts the release and refuses, by check name, a changed statement,
//! another identity, another issuer, a certificate from another CA and a tampered log entry. A
//! release whose signing fails publishes nothing and says what to set.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::provenance::{check, example_repository, published, verify};
use crate::release_common::{clean_capkg, json, stderr, stdout};
use crate::sigstore_fakes::{FakeSigstore, IDENTITY, ISSUER, id_token, test_ca};

const STATEMENT: &str = "capkg-provenance.intoto.json";
const BUNDLE: &str = "capkg-provenance.sigstore.json";

fn release_signed(root: &Path, fulcio: &str, rekor: &str, extra: &[&str]) -> Output {
    clean_capkg()
        .args(["release", "--format", "json", "--target", "local"])
        .args(extra)
        .arg("--config")
        .arg(root.join("capkg.yaml"))
        .current_dir(root)
        .env("CAPKG_SIGSTORE_ID_TOKEN", id_token())
        .env("CAPKG_FULCIO_URL", fulcio)
        .env("CAPKG_REKOR_URL", rekor)
        .output()
        .unwrap()
}

fn failing(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_signed_release_verifies_against_the_trusted_root_and_each_tampering_is_refused() {
    let sigstore = FakeSigstore::start();
    let repo = example_repository();
    let root = repo.path();

    // The dry run says the statement will be signed.
    let dry = release_signed(root, &sigstore.base, &sigstore.base, &["--dry-run"]);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("signed keylessly (Fulcio, Rekor)"),
        "{}",
        stdout(&dry)
    );
    assert!(sigstore.requests().is_empty(), "a dry run asks nothing");

    let output = release_signed(root, &sigstore.base, &sigstore.base, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let all_output = format!("{}{}", stdout(&output), stderr(&output));
    assert!(!all_output.contains(&id_token()), "the token was printed");
    // The token went to Fulcio only, in the body of its one call.
    let requests = sigstore.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(requests[0].is("POST", "/api/v2/signingCert"));
    assert!(String::from_utf8_lossy(&requests[0].body).contains(&id_token()));
    assert!(requests[1].is("POST", "/api/v1/log/entries"));
    assert!(!String::from_utf8_lossy(&requests[1].body).contains(&id_token()));
    assert!(requests.iter().all(|r| r.header("authorization").is_none()));

    // Run again: the new bundle signs the same files anew; the published statement and bundle
    // are kept (they attest each other), and the run changes nothing.
    let folder = published(root);
    let first_bundle = std::fs::read(folder.join(BUNDLE)).unwrap();
    let again = release_signed(root, &sigstore.base, &sigstore.base, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", stdout(&again));
    assert_eq!(std::fs::read(folder.join(BUNDLE)).unwrap(), first_bundle);

    let bundle: Value =
        serde_json::from_slice(&std::fs::read(folder.join(BUNDLE)).unwrap()).unwrap();
    assert_eq!(
        bundle["mediaType"],
        "application/vnd.dev.sigstore.bundle.v0.3+json"
    );
    let envelope = &bundle["dsseEnvelope"];
    assert_eq!(envelope["payloadType"], "application/vnd.in-toto+json");
    let entry = &bundle["verificationMaterial"]["tlogEntries"][0];
    assert_eq!(entry["logIndex"], "4242");
    assert_eq!(entry["kindVersion"]["kind"], "dsse");
    assert!(entry["inclusionPromise"]["signedEntryTimestamp"].is_string());
    assert!(entry["inclusionProof"]["checkpoint"]["envelope"].is_string());

    let dir = tempfile::tempdir().unwrap();
    let trusted = dir.path().join("test_root.json");
    std::fs::write(&trusted, sigstore.trusted_root(&sigstore.ca)).unwrap();
    let trusted = trusted.to_str().unwrap().to_string();
    let url = format!(
        "file://{}",
        folder.join("infrastructure-components.yaml").display()
    );
    let policy = |identity: &str, issuer: &str| {
        vec![
            "--trusted-root".to_string(),
            trusted.clone(),
            "--certificate-identity".into(),
            identity.into(),
            "--certificate-oidc-issuer".into(),
            issuer.into(),
        ]
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        verify(&url, &args, root)
    };

    let (output, report) = run(policy(IDENTITY, ISSUER));
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    for name in [
        "provenance-subjects",
        "signature",
        "signature-payload",
        "signature-certificate",
        "signature-dsse",
        "signature-tlog",
        "signature-identity",
    ] {
        assert_eq!(check(&report, name)["ok"], true, "{name}: {report}");
    }
    // By a regular expression over the identity.
    let (output, _) = run(vec![
        "--trusted-root".into(),
        trusted.clone(),
        "--certificate-identity-regexp".into(),
        "^https://github.com/o/r/\\.github/workflows/".into(),
        "--certificate-oidc-issuer".into(),
        ISSUER.into(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    // Another repository's identity, another issuer.
    let (output, report) = run(policy(
        "https://github.com/evil/r/.github/workflows/release.yml@refs/tags/v0.1.0",
        ISSUER,
    ));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failing(&report), ["signature-identity"], "{report}");
    let (output, report) = run(policy(IDENTITY, "https://gitlab.com"));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failing(&report), ["signature-identity"], "{report}");
    assert!(
        check(&report, "signature-identity")["message"]
            .as_str()
            .unwrap()
            .contains("not `https://gitlab.com`")
    );

    // A root that does not hold the CA that issued the certificate.
    let (other_ca, _) = test_ca("another CA");
    let other = dir.path().join("other_root.json");
    std::fs::write(&other, sigstore.trusted_root(&other_ca)).unwrap();
    let mut args = policy(IDENTITY, ISSUER);
    args[1] = other.to_str().unwrap().to_string();
    let (output, report) = run(args);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failing(&report), ["signature-certificate"], "{report}");

    // A log entry whose signed entry timestamp is not the log's for it.
    let original = std::fs::read_to_string(folder.join(BUNDLE)).unwrap();
    let mut tampered: Value = serde_json::from_str(&original).unwrap();
    tampered["verificationMaterial"]["tlogEntries"][0]["logIndex"] = "4243".into();
    std::fs::write(folder.join(BUNDLE), tampered.to_string()).unwrap();
    let (output, report) = run(policy(IDENTITY, ISSUER));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failing(&report), ["signature-tlog"], "{report}");
    std::fs::write(folder.join(BUNDLE), &original).unwrap();

    // A statement changed after signing (its subjects still match the files).
    let statement = std::fs::read_to_string(folder.join(STATEMENT)).unwrap();
    std::fs::write(folder.join(STATEMENT), format!("{statement} ")).unwrap();
    let (output, report) = run(policy(IDENTITY, ISSUER));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failing(&report), ["signature-payload"], "{report}");
    std::fs::write(folder.join(STATEMENT), &statement).unwrap();

    // No bundle: required once a trusted root is given; fine without one.
    std::fs::remove_file(folder.join(BUNDLE)).unwrap();
    let (output, report) = run(policy(IDENTITY, ISSUER));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        check(&report, "signature")["message"]
            .as_str()
            .unwrap()
            .contains("its provenance is not signed"),
        "{report}"
    );
    let (output, _) = verify(&url, &["--require-provenance"], root);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn a_release_whose_signing_fails_publishes_nothing_and_says_what_to_set() {
    let sigstore = FakeSigstore::start();
    let repo = example_repository();
    let root = repo.path();
    // Fulcio refuses the token.
    let output = clean_capkg()
        .args([
            "release", "--format", "json", "--target", "local", "--config",
        ])
        .arg(root.join("capkg.yaml"))
        .current_dir(root)
        .env(
            "CAPKG_SIGSTORE_ID_TOKEN",
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln",
        )
        .env("CAPKG_FULCIO_URL", &sigstore.base)
        .env("CAPKG_REKOR_URL", &sigstore.base)
        .output()
        .unwrap();
    assert_ne!(output.status.code(), Some(0), "{}", stdout(&output));
    let report = json(&output);
    let text = report.to_string();
    assert!(
        text.contains("cannot sign the provenance statement"),
        "{text}"
    );
    assert!(text.contains("id-token: write"), "{text}");
    assert!(text.contains("nothing was published"), "{text}");
    assert!(
        !text.contains("eyJzdWIiOiJ4In0"),
        "the token was printed: {text}"
    );
    assert!(!published(root).exists());
}
