//! Digest pins and `--wait-for-images` against a real registry (Debian's CNCF Distribution on
//! loopback): `digest: from-registry` is asked of the registry at release time, with the image
//! check's logins; a missing image is waited for up to the bound, then refused with what is
//! still missing.

use serde_json::Value;

use crate::oci_e2e::{LocalRegistry, push_image, release_checking_images, text};

/// The example provider with its manager image pinned to `image` plus `fields` in the entry.
fn example_pinning(image: &str, fields: &str) -> tempfile::TempDir {
    let provider = crate::oci_e2e::example_naming_image(image, "");
    let config = provider.path().join("capkg.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let (name, tag) = image.rsplit_once(':').unwrap();
    let entry = format!("    newName: {name}\n    newTag: \"{tag}\"\n");
    assert_eq!(text.matches(&entry).count(), 1, "{text}");
    std::fs::write(&config, text.replace(&entry, &format!("{entry}{fields}"))).unwrap();
    provider
}

fn report(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(output)))
}

#[test]
fn a_digest_from_the_registry_pins_the_image_as_pushed() {
    let registry = LocalRegistry::start(false);
    push_image(&registry, "capx/manager:v0.1.0", None);
    let docker = tempfile::tempdir().unwrap();
    let image = format!("{}/capx/manager:v0.1.0", registry.host());
    let provider = example_pinning(&image, "    digest: from-registry\n");
    let released = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(released.status.code(), Some(0), "{}", text(&released));
    // The image check looked the pinned reference up by its digest, and found it.
    let found = report(&released)["checks"]["images"]["found"].clone();
    let found = found[0].as_str().unwrap_or_else(|| panic!("{found}"));
    let digest = found
        .strip_prefix(&format!("{image}@sha256:"))
        .unwrap_or_else(|| panic!("{found} is not {image}@sha256:…"));
    assert_eq!(digest.len(), 64, "{found}");

    // A tag the registry does not have: refused before anything is built, naming the entry.
    let absent = format!("{}/capx/manager:v9.9.9", registry.host());
    let provider = example_pinning(&absent, "    digest: from-registry\n");
    let refused = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let message = report(&refused)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains("`digest: from-registry`: cannot learn the digest of")
            && message.contains(&absent)
            && message.contains("is the image pushed?"),
        "{message}"
    );
    // The entry's line in capkg.yaml: the appended `images:` block's first entry.
    assert!(message.contains("capkg.yaml:25:5: "), "{message}");
}

#[test]
fn a_missing_image_is_waited_for_up_to_the_bound_then_refused() {
    let registry = LocalRegistry::start(false);
    let docker = tempfile::tempdir().unwrap();
    let absent = format!("{}/capx/manager:v0.1.0", registry.host());
    let provider = crate::oci_e2e::example_naming_image(&absent, "");
    let refused = release_checking_images(provider.path(), docker.path())
        .args(["--wait-for-images", "1s"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let message = report(&refused)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains(&absent) && message.contains("still missing after waiting 1s"),
        "{message}"
    );
    // The wait is on stderr as it happens.
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!(
            "for 1 image(s) not in their registry yet: `{absent}`"
        )),
        "{stderr}"
    );

    // Once it is pushed, the same release goes through at the first look.
    push_image(&registry, "capx/manager:v0.1.0", None);
    let released = release_checking_images(provider.path(), docker.path())
        .args(["--wait-for-images", "1s"])
        .output()
        .unwrap();
    assert_eq!(released.status.code(), Some(0), "{}", text(&released));
    assert!(!String::from_utf8_lossy(&released.stderr).contains("not in their registry yet"));
}
