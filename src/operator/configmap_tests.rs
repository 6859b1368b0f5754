use super::*;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta2\n";
const COMPONENTS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n";

fn aws(version: &str, namespace: &str) -> Result<ProviderConfigMap, Error> {
    build(
        ProviderType::Infrastructure,
        "aws",
        version,
        namespace,
        METADATA,
        COMPONENTS,
    )
}

#[test]
fn names_are_type_name_version_with_the_operators_type_strings() {
    let cases = [
        (
            ProviderType::Core,
            "cluster-api",
            "v1.10.0-beta.0",
            "core-cluster-api-v1.10.0-beta.0",
        ),
        (
            ProviderType::Bootstrap,
            "kubeadm",
            "v1.9.0",
            "bootstrap-kubeadm-v1.9.0",
        ),
        (
            ProviderType::ControlPlane,
            "kubeadm",
            "v1.9.0",
            "control-plane-kubeadm-v1.9.0",
        ),
        (
            ProviderType::Infrastructure,
            "aws",
            "v2.5.0",
            "infrastructure-aws-v2.5.0",
        ),
        (
            ProviderType::Ipam,
            "in-cluster",
            "v1.0.0",
            "ipam-in-cluster-v1.0.0",
        ),
        (
            ProviderType::RuntimeExtension,
            "nutanix",
            "v0.1.0",
            "runtimeextension-nutanix-v0.1.0",
        ),
        (ProviderType::Addon, "helm", "v0.3.1", "addon-helm-v0.3.1"),
        // The version as given: the operator does not add or drop the `v`.
        (ProviderType::Addon, "helm", "0.3.1", "addon-helm-0.3.1"),
    ];
    for (provider_type, name, version, expected) in cases {
        assert_eq!(config_map_name(provider_type, name, version), expected);
        let built = build(provider_type, name, version, "ns", METADATA, COMPONENTS)
            .unwrap_or_else(|e| panic!("{expected}: {e}"));
        assert_eq!(built.name, expected);
        assert_eq!(built.labels[TYPE_LABEL], provider_type.operator_name());
        assert_eq!(built.labels[NAME_LABEL], name);
        assert_eq!(built.labels[VERSION_LABEL], version);
        assert_eq!(built.labels[MANAGED_LABEL], "true");
    }
}

#[test]
fn compression_starts_strictly_above_one_mebibyte() {
    let cases = [
        (0, 0, false),
        (100, COMPRESSION_THRESHOLD - 101, false),
        (100, COMPRESSION_THRESHOLD - 100, false),
        (100, COMPRESSION_THRESHOLD - 99, true),
        (0, COMPRESSION_THRESHOLD, false),
        (0, COMPRESSION_THRESHOLD + 1, true),
        (COMPRESSION_THRESHOLD + 1, 0, true),
        (usize::MAX, 1, true),
    ];
    for (metadata, components, expected) in cases {
        assert_eq!(
            needs_compression(metadata, components),
            expected,
            "{metadata} + {components}"
        );
    }
    assert_eq!(COMPRESSION_THRESHOLD, 1_048_576);
    // The same boundary through `build`: metadata plus components of exactly 1 MiB stay text.
    let at = |total: usize| {
        let components = "#".repeat(total - METADATA.len());
        build(
            ProviderType::Core,
            "cluster-api",
            "v1.0.0",
            "ns",
            METADATA,
            &components,
        )
        .unwrap()
    };
    assert!(matches!(
        at(COMPRESSION_THRESHOLD).components,
        Components::Text(_)
    ));
    let over = at(COMPRESSION_THRESHOLD + 1);
    let Components::Gzip(gzipped) = &over.components else {
        panic!("not compressed");
    };
    assert_eq!(
        gunzip(gzipped, usize::MAX).unwrap(),
        "#".repeat(COMPRESSION_THRESHOLD + 1 - METADATA.len())
            .into_bytes()
    );
    assert_eq!(
        over.components_bytes().unwrap().len(),
        COMPRESSION_THRESHOLD + 1 - METADATA.len()
    );
    // Metadata stays text either way.
    assert_eq!(over.metadata, METADATA);
}

#[test]
fn versions_follow_the_operator_then_the_api_server() {
    let operator = |version: &str| {
        format!(
            "ConfigMap capi-operator-system/infrastructure-aws-{version} has invalid version:{version} (from the Label provider.cluster.x-k8s.io/version)"
        )
    };
    let ok = ["v1.2.3", "1.2.3", "v1.10.0-beta.0", "v0.0.0-alpha.1.2-x"];
    for version in ok {
        assert!(aws(version, DEFAULT_NAMESPACE).is_ok(), "{version}");
    }
    // The operator's `ParseSemantic` refuses these.
    for version in [
        "v1.2", "V1.2.3", "latest", "", "v1.02.3", "v1.2.3.4", "v1.2.3-",
    ] {
        let error = aws(version, DEFAULT_NAMESPACE).unwrap_err();
        assert!(
            matches!(error, Error::InvalidVersion { .. }),
            "{version}: {error:?}"
        );
        assert_eq!(error.to_string(), operator(version));
        assert!(error.is_refusal());
        assert!(error.hint().is_some_and(|h| h.contains("--version")));
    }
    // The operator would take these, the API server refuses the label or the name.
    let error = aws("v1.2.3+build.1", DEFAULT_NAMESPACE).unwrap_err();
    assert!(matches!(error, Error::VersionNotALabel { .. }), "{error:?}");
    assert!(error.to_string().starts_with(
        "the version `v1.2.3+build.1` cannot be the value of the label provider.cluster.x-k8s.io/version: a valid label must be"
    ));
    let long = format!("v1.2.3-{}", "a".repeat(60));
    let error = aws(&long, DEFAULT_NAMESPACE).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("must be no more than 63 characters"),
        "{error}"
    );
    let error = aws("v1.2.3-RC.1", DEFAULT_NAMESPACE).unwrap_err();
    assert!(matches!(error, Error::InvalidName { .. }), "{error:?}");
    assert!(error.to_string().starts_with(
        "`infrastructure-aws-v1.2.3-RC.1` cannot be a ConfigMap name: a lowercase RFC 1123 subdomain"
    ));
    // Leading white space passes `ParseSemantic` but not the label check.
    assert!(matches!(
        aws(" v1.2.3", DEFAULT_NAMESPACE).unwrap_err(),
        Error::VersionNotALabel { .. }
    ));
}

#[test]
fn namespaces_must_be_dns_labels() {
    assert!(aws("v1.2.3", "capa-system").is_ok());
    for namespace in ["Capa", "capa.system", "-x", " capa"] {
        let error = aws("v1.2.3", namespace).unwrap_err();
        assert!(
            matches!(error, Error::InvalidNamespace { .. }),
            "{namespace}"
        );
    }
}

#[test]
fn prints_exactly_what_preload_prints() {
    let config_map = aws("v1.2.3", DEFAULT_NAMESPACE).unwrap();
    let expected = "---
apiVersion: v1
data:
  components: |
    apiVersion: v1
    kind: Namespace
    metadata:
      name: capx-system
  metadata: |
    apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
    kind: Metadata
    releaseSeries:
    - major: 1
      minor: 2
      contract: v1beta2
kind: ConfigMap
metadata:
  labels:
    managed-by.operator.cluster.x-k8s.io: \"true\"
    provider.cluster.x-k8s.io/name: aws
    provider.cluster.x-k8s.io/type: infrastructure
    provider.cluster.x-k8s.io/version: v1.2.3
  name: infrastructure-aws-v1.2.3
  namespace: capi-operator-system
";
    assert_eq!(
        write_all(std::slice::from_ref(&config_map)).unwrap(),
        expected
    );
    // Each ConfigMap starts with its own `---`.
    let two = write_all(&[config_map.clone(), config_map]).unwrap();
    assert_eq!(two, format!("{expected}{expected}"));
    assert_eq!(write_all(&[]).unwrap(), "");
}

#[test]
fn compressed_configmaps_carry_base64_gzip_and_the_annotation() {
    let config_map = ProviderConfigMap {
        components: Components::Gzip(gzip(COMPONENTS.as_bytes())),
        ..aws("v1.2.3", "capa-system").unwrap()
    };
    let yaml = config_map.to_yaml().unwrap();
    let encoded = base64::engine::general_purpose::STANDARD.encode(gzip(COMPONENTS.as_bytes()));
    let expected = format!(
        "apiVersion: v1
binaryData:
  components: {encoded}
data:
  metadata: |
    apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
    kind: Metadata
    releaseSeries:
    - major: 1
      minor: 2
      contract: v1beta2
kind: ConfigMap
metadata:
  annotations:
    provider.cluster.x-k8s.io/compressed: \"true\"
  labels:
    managed-by.operator.cluster.x-k8s.io: \"true\"
    provider.cluster.x-k8s.io/name: aws
    provider.cluster.x-k8s.io/type: infrastructure
    provider.cluster.x-k8s.io/version: v1.2.3
  name: infrastructure-aws-v1.2.3
  namespace: capa-system
"
    );
    assert_eq!(yaml, expected);
    assert_eq!(
        config_map.components_bytes().unwrap(),
        COMPONENTS.as_bytes()
    );
}

#[test]
fn gzip_is_reproducible_and_round_trips() {
    let data: Vec<u8> = (0..300_000u32)
        .flat_map(|i| (i % 251).to_le_bytes())
        .collect();
    let once = gzip(&data);
    assert_eq!(once, gzip(&data), "same input, same bytes");
    // Magic, deflate, no flags, modification time 0, XFL 0, OS unknown: nothing from the clock.
    assert_eq!(&once[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    assert!(once.len() < data.len() / 4);
    assert_eq!(gunzip(&once, usize::MAX).unwrap(), data);
    assert_eq!(gunzip(&gzip(b""), usize::MAX).unwrap(), b"");
}

#[test]
fn gunzip_reads_every_member_as_go_does() {
    // `cat a.gz b.gz`: Go's gzip.Reader (multistream by default) reads both.
    let mut two = gzip(b"first member\n");
    two.extend_from_slice(&gzip(b"second member\n"));
    assert_eq!(
        gunzip(&two, 1000).unwrap(),
        b"first member\nsecond member\n"
    );
    assert_eq!(gunzip(&two, 20), Err(GunzipError::TooLarge { limit: 20 }));
    // Exactly at the limit is allowed.
    assert_eq!(gunzip(&two, 27).unwrap().len(), 27);
}

#[test]
fn gunzip_refuses_damaged_data() {
    let good = gzip(COMPONENTS.as_bytes());
    assert_eq!(
        gunzip(b"plain text, long enough", 100),
        Err(GunzipError::NotGzip)
    );
    assert_eq!(gunzip(&good[..12], 100), Err(GunzipError::Truncated));
    assert!(gunzip(&good[..good.len() - 3], 1000).is_err());
    let mut flipped = good.clone();
    let last = flipped.len() - 5;
    flipped[last] ^= 0xff;
    assert_eq!(gunzip(&flipped, 1000), Err(GunzipError::Checksum));
    assert_eq!(gunzip(&good, 10), Err(GunzipError::TooLarge { limit: 10 }));
    // A header with a file name (as `gzip` writes) is read past.
    let mut named = good[..10].to_vec();
    named[3] = 8;
    named.extend_from_slice(b"components.yaml\0");
    named.extend_from_slice(&good[10..]);
    assert_eq!(gunzip(&named, 1000).unwrap(), COMPONENTS.as_bytes());
}

#[test]
fn control_characters_fail_as_marshal_fails() {
    let error = build(
        ProviderType::Infrastructure,
        "aws",
        "v1.2.3",
        "ns",
        METADATA,
        "data: \"\u{7f}\"\n",
    )
    .and_then(|c| c.to_yaml())
    .unwrap_err();
    assert!(matches!(error, Error::Write { .. }), "{error:?}");
    assert!(error.to_string().contains("infrastructure-aws-v1.2.3"));
}

#[test]
fn components_that_stay_over_one_mebibyte_gzipped_are_refused() {
    // Text that deflate cannot shrink much: a xorshift stream spelled in 64 characters.
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let noise: String = (0..1_600_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(alphabet[(state % 64) as usize])
        })
        .collect();
    let error = build(
        ProviderType::Infrastructure,
        "aws",
        "v1.2.3",
        "ns",
        METADATA,
        &noise,
    )
    .unwrap_err();
    let Error::TooLarge { name, size } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(name, "infrastructure-aws-v1.2.3");
    assert!(*size > COMPRESSION_THRESHOLD);
    assert!(error.is_refusal());
    assert!(error.hint().is_some_and(|h| h.contains("fetchConfig.oci")));
}

#[test]
fn metadata_needs_the_versions_series_with_a_contract_the_operator_installs() {
    let check = |metadata: &str, version: &str| {
        let parsed = version::parse_semantic(version).unwrap();
        check_metadata(metadata, &parsed, version, "aws")
    };
    assert!(check(METADATA, "v1.2.0").is_ok());
    assert!(check(METADATA, "v1.2.7-rc.1").is_ok());
    let error = check(METADATA, "v1.3.0").unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid provider metadata: version v1.3.0 for the provider aws does not match any release series"
    );
    let old = METADATA.replace("v1beta2", "v1alpha4");
    assert_eq!(
        check(&old, "v1.2.0").unwrap_err().to_string(),
        "CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider aws."
    );
    let v1beta1 = METADATA.replace("v1beta2", "v1beta1");
    assert!(check(&v1beta1, "v1.2.0").is_ok());
    // The first entry for a major.minor is the one that counts.
    let twice = format!("{METADATA}- major: 1\n  minor: 2\n  contract: v1alpha3\n");
    assert!(check(&twice, "v1.2.0").is_ok());
    assert!(matches!(
        check("not: [yaml", "v1.2.0"),
        Err(Error::NoSeries { .. })
    ));
    assert!(matches!(check("", "v1.2.0"), Err(Error::NoSeries { .. })));
}

/// A ConfigMap as a YAML reader gives it.
fn read_yaml(text: &str) -> JsonValue {
    let file = yaml::parse_str(
        std::sync::Arc::new(yaml::Source::new("cm.yaml", text)),
        yaml::Limits::default(),
    );
    JsonValue::from_node(file.roots().next().unwrap()).unwrap()
}

#[test]
fn a_next_line_character_survives_the_round_trip() {
    // A YAML reader folds a raw U+0085 (a line break in YAML 1.1) into a space.
    let components = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n  annotations:\n    note: \"a\u{85}b\"\n";
    let config_map = build(
        ProviderType::Infrastructure,
        "aws",
        "v1.2.3",
        "capa-system",
        METADATA,
        components,
    )
    .unwrap();
    let loaded = load(&read_yaml(&config_map.to_yaml().unwrap()), usize::MAX).unwrap();
    assert_eq!(String::from_utf8_lossy(&loaded.components), components);
    // metadata.yaml cannot be compressed: one with a U+0085 is refused, not changed.
    let err = build(
        ProviderType::Infrastructure,
        "aws",
        "v1.2.3",
        "capa-system",
        &format!("{METADATA}# a\u{85}b\n"),
        COMPONENTS,
    )
    .unwrap_err();
    assert!(err.to_string().contains("U+0085"), "{err}");
}

#[test]
fn what_capkg_prints_loads_as_the_operator_loads_it() {
    let plain = aws("v1.2.3", "capa-system").unwrap();
    let big = "#".repeat(COMPRESSION_THRESHOLD);
    let compressed = build(
        ProviderType::Core,
        "cluster-api",
        "v1.10.0",
        "ns",
        METADATA,
        &big,
    )
    .unwrap();
    for (config_map, components) in [(&plain, COMPONENTS), (&compressed, big.as_str())] {
        let loaded = load(&read_yaml(&config_map.to_yaml().unwrap()), usize::MAX).unwrap();
        assert_eq!(loaded.version, config_map.labels[VERSION_LABEL]);
        assert_eq!(loaded.metadata, METADATA);
        assert!(loaded.components == components.as_bytes());
    }
}

#[test]
fn the_operators_load_errors_in_its_words() {
    let head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\n  namespace: ns\n";
    let cases: [(&str, &str, &str); 8] = [
        ("v1.2.3", "", "ConfigMap ns/v1.2.3 has no metadata"),
        (
            "infrastructure-aws-v1.2.3",
            "data:\n  metadata: m\n",
            "ConfigMap ns/infrastructure-aws-v1.2.3 has invalid version:infrastructure-aws-v1.2.3 (from the Name)",
        ),
        (
            "x",
            "  labels:\n    provider.cluster.x-k8s.io/version: v1.2\n",
            "ConfigMap ns/x has invalid version:v1.2 (from the Label provider.cluster.x-k8s.io/version)",
        ),
        (
            "v1.2.3",
            "data:\n  metadata: m\n",
            "ConfigMap ns/v1.2.3 Data has no components",
        ),
        (
            "v1.2.3",
            "  annotations:\n    provider.cluster.x-k8s.io/compressed: \"true\"\ndata:\n  metadata: m\n  components: c\n",
            "ConfigMap ns/v1.2.3 BinaryData has no components",
        ),
        (
            "v1.2.3",
            "  annotations:\n    provider.cluster.x-k8s.io/compressed: \"true\"\ndata:\n  metadata: m\nbinaryData:\n  components: bm90IGd6aXA=\n",
            "cannot decompress data from ConfigMap ns/v1.2.3",
        ),
        // Only exactly "true" means compressed: anything else reads data.components.
        (
            "v1.2.3",
            "  annotations:\n    provider.cluster.x-k8s.io/compressed: \"True\"\ndata:\n  metadata: m\n  components: c\n",
            "",
        ),
        // The name is the version when the label is missing.
        ("v1.2.3", "data:\n  metadata: m\n  components: c\n", ""),
    ];
    for (name, rest, expected) in cases {
        // Keys after the head belong to `metadata` when indented, else to the top level.
        let text = format!("{}{rest}", head.replace("NAME", name));
        let result = load(&read_yaml(&text), 1000);
        match result {
            Ok(loaded) => {
                assert_eq!(expected, "", "{text}");
                assert_eq!(loaded.components, b"c");
                assert_eq!(loaded.version, "v1.2.3");
            }
            Err(error) => assert_eq!(error.to_string(), expected, "{text}"),
        }
    }
}
