use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("capkg.yaml"), text, PathBuf::from("/repo"))
}

fn error(text: &str) -> String {
    parse(text).expect_err("should fail").to_string()
}

#[test]
fn forge_names_have_no_dot_or_empty_parts() {
    for (target, place) in [
        ("github: {repo: o/..}", "5:18"),
        ("github: {repo: ../x}", "5:18"),
        ("gitlab: {project: g/..}", "5:21"),
        ("gitlab: {project: \"42\", package: ..}", "5:36"),
    ] {
        let err = parse(&format!(
            "provider: {{name: aws, type: infrastructure}}\ncomponents: {{file: c.yaml}}\nnamespace: capa-system\ntargets:\n  {target}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(&format!("capkg.yaml:{place}: ")),
            "{target}: {err}"
        );
        assert!(err.contains("cannot be a forge name"), "{target}: {err}");
    }
}

#[test]
fn namespaces_are_dns_labels() {
    let long = "a".repeat(70);
    for (bad, column) in [("Capx_System", 12), (long.as_str(), 12)] {
        let err = parse(&format!(
            "provider: {{name: aws, type: infrastructure}}\ncomponents: {{file: c.yaml}}\nnamespace: {bad}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(&format!(
                "capkg.yaml:3:{column}: `{bad}` cannot be a namespace"
            )),
            "{err}"
        );
    }
    let err = parse("providers:\n  - name: aws\n    type: infrastructure\n    components: {file: c.yaml}\n    namespace: a.b\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("capkg.yaml:5:16: `a.b` cannot be a namespace"),
        "{err}"
    );
    assert!(parse("provider: {name: aws, type: infrastructure}\ncomponents: {file: c.yaml}\nnamespace: TODO\n").is_ok());
}

#[test]
fn reads_every_field() {
    let config = parse(
        "provider:\n  name: aws\n  type: InfrastructureProvider\ncomponents:\n  command: [kubectl, kustomize, config/default]\nmetadata: meta/metadata.yaml\ntemplates:\n  - templates/cluster-template*.yaml\nnamespace: capa-system\nversion: v2.1.0\noutput: dist\ntargets:\n  github: {repo: o/r}\n  gitlab: {project: g/p, package: capa}\n  local: {repository: repo}\n",
    )
    .unwrap();
    assert_eq!(config.providers.len(), 1);
    let provider = &config.providers[0];
    assert_eq!(provider.name.as_deref(), Some("aws"));
    assert_eq!(provider.provider_type, Some(ProviderType::Infrastructure));
    assert_eq!(provider.namespace, None);
    assert_eq!(
        provider.components,
        vec![ComponentsConfig {
            suffix: None,
            source: ComponentsSource::Command(Command::Argv(vec![
                "kubectl".into(),
                "kustomize".into(),
                "config/default".into()
            ])),
            limits: CommandLimits::default(),
        }]
    );
    assert_eq!(config.metadata, Some(PathBuf::from("meta/metadata.yaml")));
    assert_eq!(config.templates, vec!["templates/cluster-template*.yaml"]);
    assert_eq!(config.namespace.as_deref(), Some("capa-system"));
    assert_eq!(config.version.clone().unwrap().to_string(), "v2.1.0");
    assert_eq!(config.output, Some(PathBuf::from("dist")));
    assert_eq!(config.targets.github.clone().unwrap().repo, "o/r");
    assert_eq!(
        config.targets.gitlab.clone().unwrap().package.as_deref(),
        Some("capa")
    );
    assert_eq!(
        config.targets.local.clone().unwrap().repository,
        PathBuf::from("repo")
    );
    assert_eq!(
        config.resolve(Path::new("a.yaml")),
        PathBuf::from("/repo/a.yaml")
    );
}

#[test]
fn components_may_be_a_list_with_suffixes() {
    let config = parse(
        "components:\n  - file: a.yaml\n  - suffix: supervisor\n    files: [crd, rbac.yaml]\n  - suffix: shell\n    command: make manifests > /dev/stdout\n",
    )
    .unwrap();
    let components = &config.providers[0].components;
    assert_eq!(components.len(), 3);
    assert_eq!(
        components[1],
        ComponentsConfig {
            suffix: Some("supervisor".into()),
            source: ComponentsSource::Files(vec!["crd".into(), "rbac.yaml".into()]),
            limits: CommandLimits::default(),
        }
    );
    assert!(matches!(
        &components[2].source,
        ComponentsSource::Command(Command::Shell(line)) if line == "make manifests > /dev/stdout"
    ));
}

#[test]
fn the_oci_target_and_the_image_switch_are_read_and_checked() {
    let config = parse(
        "targets:\n  oci:\n    repository: ghcr.io/o/capi\n    tag: \"r-{version}\"\ncheck_images: false\n",
    )
    .unwrap();
    assert_eq!(
        config.targets.oci,
        Some(OciTarget {
            repository: "ghcr.io/o/capi".into(),
            tag: Some("r-{version}".into()),
        })
    );
    assert_eq!(config.check_images, Some(false));
    assert!(error("targets:\n  oci:\n    tag: x\n").contains("`targets.oci` needs `repository`"));
    assert!(
        error("targets:\n  oci:\n    repository: ghcr.io/O/capi\n").contains("capkg.yaml:3:17")
    );
    assert!(error("check_images: maybe\n").contains("`check_images` is `true` or `false`"));
}

#[test]
fn previous_names_the_release_to_compare_with() {
    let config = parse("previous: v1.2.2\n").unwrap();
    assert_eq!(config.previous.as_deref(), Some("v1.2.2"));
    assert_eq!(parse("output: out\n").unwrap().previous, None);
}

#[test]
fn unknown_fields_are_errors_with_a_position() {
    assert_eq!(
        error("provider:\n  name: aws\n  typo: x\n"),
        "capkg.yaml:3:3: unknown field `typo` in `provider`; expected one of: name, type"
    );
    assert_eq!(
        error("output: out\ntemplate: x\n"),
        "capkg.yaml:2:1: unknown field `template` in the top level; expected one of: provider, providers, components, metadata, templates, namespace, version, output, targets, images, lint, check_images, previous"
    );
    assert_eq!(
        error("targets:\n  github:\n    repository: o/r\n"),
        "capkg.yaml:3:5: unknown field `repository` in `targets.github`; expected one of: repo, api_url"
    );
}

#[test]
fn wrong_shapes_and_values_are_errors_with_a_position() {
    assert_eq!(
        error("provider: aws\n"),
        "capkg.yaml:1:11: `provider` must be a mapping"
    );
    assert!(
        error("provider:\n  type: infra\n")
            .starts_with("capkg.yaml:2:9: unknown provider type `infra`")
    );
    assert!(error("version: 1.x\n").starts_with("capkg.yaml:1:10: `1.x` is not a version"));
    assert_eq!(
        error("components:\n  file: a.yaml\n  command: [x]\n"),
        "capkg.yaml:3:12: give one of `file`, `files` or `command` per components entry"
    );
    assert_eq!(
        error("components:\n  suffix: x\n"),
        "capkg.yaml:2:3: `components` needs one of `file`, `files` or `command`"
    );
    assert_eq!(
        error("components:\n  - file: a\n  - file: b\n"),
        "capkg.yaml:3:5: two components entries have no `suffix`; give all but one a suffix (`infrastructure-components-{suffix}.yaml`)"
    );
    assert_eq!(
        error("targets:\n  github: {repo: nope}\n"),
        "capkg.yaml:2:18: `nope` is not OWNER/NAME"
    );
    assert!(error("provider: {name: [\n").starts_with("capkg.yaml:"));
}

#[test]
fn placeholders_are_read_then_refused_with_their_key_and_place() {
    let config = parse(
        "provider:\n  name: \"TODO: the name\"\n  type: TODO\ncomponents:\n  command: [kubectl, kustomize, config/default]\nmetadata: metadata.yaml\n",
    )
    .unwrap();
    assert_eq!(config.providers[0].name, None);
    assert_eq!(config.placeholders.len(), 2);
    assert_eq!(
        config.refuse_placeholders().unwrap_err().to_string(),
        "capkg.yaml:2:9: `provider.name` is still a placeholder (`TODO: the name`): `capkg init` could not detect it; replace it with the real value (1 more placeholder(s) after it)"
    );
    // `TODO` inside a value is not a placeholder.
    let config = parse("templates: [TODO.yaml, a/TODO:x]\n").unwrap();
    assert!(config.refuse_placeholders().is_ok());
}

#[test]
fn image_digests_are_written_read_from_the_environment_or_asked_of_the_registry() {
    let config = parse(
        "images:\n  - name: a.io/m\n    newTag: \"{version}\"\n    digest: from-registry\n  - name: a.io/n\n    newTag: v1\n    digest_env: N_DIGEST\n",
    )
    .unwrap();
    assert_eq!(config.images[0].digest_from, Some(DigestFrom::Registry));
    assert_eq!(config.images[0].digest, None);
    assert_eq!(
        config.images[1].digest_from,
        Some(DigestFrom::Env("N_DIGEST".into()))
    );
    assert_eq!(
        error("images:\n  - name: a.io/m\n    digest: from-registry\n"),
        "capkg.yaml:3:13: `digest: from-registry` needs `newTag`: the digest is the one the registry gives that tag when the release runs"
    );
    assert_eq!(
        error("images:\n  - name: a.io/m\n    digest: latest\n"),
        "capkg.yaml:3:13: `digest: latest` is not a digest: write `sha256:` and 64 hex digits, `from-registry` (asked of the registry at release time), or use `digest_env: VARIABLE`"
    );
    assert_eq!(
        error("images:\n  - name: a.io/m\n    digest_env: 1X\n"),
        "capkg.yaml:3:17: `digest_env: 1X` is not an environment variable name (letters, digits and `_`)"
    );
    assert_eq!(
        error(
            "images:\n  - name: a.io/m\n    digest: from-registry\n    newTag: v1\n    digest_env: X\n"
        ),
        "capkg.yaml:5:17: give `digest` or `digest_env`, not both"
    );
}

#[test]
fn images_are_kustomize_entries() {
    let config = parse(
        "images:\n  - name: gcr.io/a/manager\n    newName: registry.k8s.io/a/manager\n    newTag: \"{version}\"\n  - name: controller\n    digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
    )
    .unwrap();
    assert_eq!(config.images.len(), 2);
    assert_eq!(config.images[0].new_tag.as_deref(), Some("{version}"));
    assert_eq!(config.images[0].at, "capkg.yaml:2:5");
    assert_eq!(
        error("images:\n  - name: a.io/b:v1\n    newTag: v2\n"),
        "capkg.yaml:2:11: `name: a.io/b:v1` must be the image without tag or digest, as kustomize matches it"
    );
    assert_eq!(
        error("images:\n  - name: a.io/b\n    newTag: \"{tag}\"\n"),
        "capkg.yaml:3:13: `newTag: {tag}`: the placeholders are `{version}` (v1.2.3) and `{semver}` (1.2.3)"
    );
    assert!(error("images:\n  - name: a.io/b\n").contains("changes nothing"));
    assert!(error("images:\n  - name: a.io/b\n    digest: md5:1\n").contains("not a digest"));
    assert_eq!(
        error("images:\n  - name: a.io/b\n    pullPolicy: always\n"),
        "capkg.yaml:3:17: `pullPolicy: always` is not an image pull policy; use one of Always, IfNotPresent, Never"
    );
    let config = parse("images:\n  - name: a.io/b\n    pullPolicy: Always\n").unwrap();
    assert_eq!(config.images[0].pull_policy.as_deref(), Some("Always"));
    assert!(
        error("images:\n  - name: a.io/b\n    newtag: v1\n").contains("unknown field `newtag`")
    );
}

#[test]
fn waivers_need_a_known_rule_and_a_reason() {
    let config = parse(
        "lint:\n  allow:\n    - rule: templates/single-namespace\n      files: [\"cluster-template-*.yaml\"]\n      reason: clusterctl moves them\n",
    )
    .unwrap();
    assert_eq!(config.waivers.len(), 1);
    assert_eq!(config.waivers[0].files, vec!["cluster-template-*.yaml"]);
    let config = parse(
        "lint:\n  allow:\n    - rule: templates/single-namespace\n      objects: [\"CustomResourceDefinition/a.x.io\"]\n      reason: judged\n",
    )
    .unwrap();
    assert_eq!(
        config.waivers[0].objects,
        vec!["CustomResourceDefinition/a.x.io"]
    );
    assert!(
        error("lint:\n  allow:\n    - rule: templates/single-namespace\n      objects: [a.x.io]\n      reason: judged\n")
            .contains("names no object: write `Kind/name`")
    );
    assert_eq!(
        error("lint:\n  allow:\n    - rule: templates/nope\n      reason: x\n"),
        "capkg.yaml:3:13: there is no rule `templates/nope`; `capkg rules` lists every rule id"
    );
    assert_eq!(
        error("lint:\n  allow:\n    - rule: components/image-tag\n"),
        "capkg.yaml:3:7: the waiver of `components/image-tag` needs a `reason`: say why the finding is accepted, for whoever reads the release"
    );
}

#[test]
fn command_limits_are_read_and_checked() {
    let config =
        parse("components:\n  command: [make]\n  timeout: 1h30m\n  output_limit: 64MiB\n").unwrap();
    assert_eq!(
        config.providers[0].components[0].limits,
        CommandLimits {
            timeout: std::time::Duration::from_secs(5400),
            output_limit: 64 << 20
        }
    );
    assert!(
        error("components:\n  command: [make]\n  timeout: soon\n")
            .contains("`timeout: soon` is not a duration")
    );
    assert!(
        error("components:\n  command: [make]\n  output_limit: 1TB\n").contains("is not a size")
    );
    assert!(error("components:\n  file: a.yaml\n  timeout: 1s\n").contains("bound a `command`"));
    assert_eq!(
        parse_duration("500ms"),
        Ok(std::time::Duration::from_millis(500))
    );
    assert_eq!(parse_size("1000"), Ok(1000));
}

#[test]
fn an_empty_file_is_an_empty_configuration() {
    let config = parse("# nothing yet\n").unwrap();
    assert!(config.providers.is_empty());
    assert_eq!(config.root, PathBuf::from("/repo"));
}

const TWO_PROVIDERS: &str = "providers:\n  - name: kubeadm\n    type: bootstrap\n    components:\n      command: [kubectl, kustomize, bootstrap/config/default]\n    namespace: capi-kubeadm-bootstrap-system\n  - name: kubeadm\n    type: control-plane\n    components: {files: [controlplane/config]}\n    suffix: \"\"\nnamespace: shared-system\nmetadata: metadata.yaml\n";

#[test]
fn providers_is_a_list_of_providers_with_their_components() {
    let config = parse(TWO_PROVIDERS).unwrap();
    assert!(config.has_several_providers());
    let [bootstrap, control_plane] = config.providers.as_slice() else {
        panic!("two providers: {:?}", config.providers)
    };
    assert_eq!(bootstrap.describe(), "bootstrap-kubeadm");
    assert_eq!(control_plane.describe(), "control-plane-kubeadm");
    assert!(matches!(
        &bootstrap.components[..],
        [ComponentsConfig { suffix: None, source: ComponentsSource::Command(Command::Argv(argv)), .. }] if argv[2] == "bootstrap/config/default"
    ));
    assert_eq!(
        control_plane.components,
        vec![ComponentsConfig {
            suffix: None,
            source: ComponentsSource::Files(vec!["controlplane/config".into()]),
            limits: CommandLimits::default(),
        }]
    );
    // A provider's own namespace wins over the shared one.
    assert_eq!(
        config.namespace_of(bootstrap),
        Some("capi-kubeadm-bootstrap-system")
    );
    assert_eq!(config.namespace_of(control_plane), Some("shared-system"));
    assert_eq!(config.metadata, Some(PathBuf::from("metadata.yaml")));
}

#[test]
fn a_provider_suffix_names_its_components_file() {
    let config = parse(
        "providers:\n  - {name: a, type: infrastructure, components: {file: a.yaml}}\n  - {name: b, type: infrastructure, components: {file: b.yaml}, suffix: b}\n",
    )
    .unwrap();
    assert_eq!(
        config.providers[1].components[0].suffix.as_deref(),
        Some("b")
    );
    assert_eq!(
        error(
            "providers:\n  - {name: a, type: infrastructure, components: {file: a.yaml}}\n  - {name: b, type: infrastructure, components: {file: b.yaml}}\n"
        ),
        "capkg.yaml:3:5: the providers `infrastructure-a` and `infrastructure-b` would both write `infrastructure-components.yaml` into the one release; give one of them a `suffix` (`infrastructure-components-<suffix>.yaml`)"
    );
    assert_eq!(
        error("providers:\n  - {name: a, type: ipam, components: {file: a.yaml}, suffix: A}\n"),
        "capkg.yaml:2:63: suffix `A` must be lower-case letters, digits and `-`"
    );
    // No value, an empty string or a null: the provider's components file has no suffix.
    for none in ["suffix:", "suffix: \"\"", "suffix: ~"] {
        let config = parse(&format!(
            "providers:\n  - name: a\n    type: ipam\n    components: {{file: a.yaml}}\n    {none}\n"
        ))
        .unwrap();
        assert_eq!(config.providers[0].components[0].suffix, None, "{none}");
    }
    assert_eq!(
        error("providers:\n  - {name: a, type: ipam, components: {file: a.yaml}, suffix: [b]}\n"),
        "capkg.yaml:2:63: expected a string"
    );
}

#[test]
fn the_single_form_is_a_list_of_one() {
    let mut config = parse(
        "provider: {name: aws, type: infrastructure}\ncomponents: {file: c.yaml}\nnamespace: capa-system\n",
    )
    .unwrap();
    assert_eq!(config.providers.len(), 1);
    assert!(!config.has_several_providers());
    assert_eq!(
        config.namespace_of(&config.providers[0]),
        Some("capa-system")
    );
    config.single_provider_mut().unwrap().name = Some("other".into());
    assert_eq!(config.providers[0].name.as_deref(), Some("other"));
    // Flags alone create the provider they describe.
    let mut empty = parse("").unwrap();
    empty.single_provider_mut().unwrap().provider_type = Some(ProviderType::Ipam);
    assert_eq!(empty.providers.len(), 1);
    // `components:` alone is a provider whose name and type come from the files.
    let only_components = parse("components: {file: infrastructure-components.yaml}\n").unwrap();
    assert_eq!(only_components.providers[0].name, None);
}

#[test]
fn both_forms_or_a_bad_list_are_errors_with_a_position() {
    let both = format!("{TWO_PROVIDERS}provider:\n  name: aws\n");
    assert_eq!(
        error(&both),
        "capkg.yaml:13:1: `provider` and `providers` cannot both be given: move `provider` into an entry of `providers` (`name`, `type`, `components`)"
    );
    assert_eq!(
        error(
            "components: {file: c.yaml}\nproviders:\n  - {name: a, type: ipam, components: {file: a.yaml}}\n"
        ),
        "capkg.yaml:1:1: `components` and `providers` cannot both be given: move `components` into an entry of `providers` (`name`, `type`, `components`)"
    );
    assert_eq!(
        error("providers:\n  - name: a\n    type: ipam\n"),
        "capkg.yaml:2:5: the provider `ipam-a` needs `components` (a `file`, `files` or a `command`)"
    );
    assert_eq!(
        error("providers: []\n"),
        "capkg.yaml:1:12: `providers` needs at least one provider"
    );
    assert!(
        error("providers: {name: a}\n").starts_with("capkg.yaml:1:12: `providers` must be a list")
    );
    assert_eq!(
        error("providers:\n  - {name: a, type: ipam, components: {file: a}, image: x}\n"),
        "capkg.yaml:2:50: unknown field `image` in a `providers` entry; expected one of: name, type, components, namespace, suffix"
    );
    assert_eq!(
        error(
            "providers:\n  - {name: a, type: ipam, components: {file: a}}\n  - {name: a, type: ipam, components: {file: b}, suffix: b}\n"
        ),
        "capkg.yaml:3:5: the provider `ipam-a` is listed twice in `providers`"
    );
}

#[test]
fn flags_for_one_provider_are_refused_with_several() {
    let mut config = parse(TWO_PROVIDERS).unwrap();
    let err = config.single_provider_mut().unwrap_err();
    assert_eq!(err.labels, ["bootstrap-kubeadm", "control-plane-kubeadm"]);
    assert!(err.to_string().contains("`--provider`, `--type`"), "{err}");
}

#[test]
fn discovery_stops_at_the_repository_root() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("a/b")).unwrap();
    assert_eq!(Config::discover(&repo.join("a/b")), None);
    std::fs::write(repo.join(FILE_NAME), "").unwrap();
    assert_eq!(
        Config::discover(&repo.join("a/b")),
        Some(repo.join(FILE_NAME))
    );
    // A capkg.yaml above the repository root is not this repository's.
    std::fs::remove_file(repo.join(FILE_NAME)).unwrap();
    std::fs::write(dir.path().join(FILE_NAME), "").unwrap();
    assert_eq!(Config::discover(&repo.join("a")), None);
}

/// What `capkg rules RULE` prints to copy is a waiver capkg.yaml accepts, for every rule.
#[test]
fn every_waivable_rule_has_an_entry_to_copy() {
    for rule in crate::rules::all() {
        let Some(entry) = crate::rules::waivers::waiver_example(rule.id) else {
            assert!(
                crate::rules::waivers::check_rule(rule.id).is_err(),
                "{}",
                rule.id
            );
            continue;
        };
        let config = parse(&entry).unwrap_or_else(|e| panic!("{}: {e:?}\n{entry}", rule.id));
        let waiver = &config.waivers[0];
        assert_eq!(waiver.rule, rule.id);
        assert!(!waiver.reason.is_empty());
        assert_eq!(waiver.previous.is_some(), rule.id.starts_with("upgrade/"));
    }
}
