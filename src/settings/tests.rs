//! Settings resolved once: each command's need, the order errors come in, and every default
//! and precedence rule in one place.

use std::path::Path;

use super::*;
use crate::ci::CiTag;
use crate::config::ComponentsSource;

fn write(dir: &Path, config: &str) -> PathBuf {
    let path = dir.join("capkg.yaml");
    std::fs::write(&path, config).unwrap();
    path
}

fn line(config: &Path) -> CommandLine {
    CommandLine {
        config: Some(config.to_path_buf()),
        ..CommandLine::default()
    }
}

fn on_tag(tag: &str) -> CiContext {
    CiContext {
        tag: Some(CiTag {
            tag: tag.to_string(),
            variable: "GITHUB_REF_NAME",
        }),
        ..CiContext::default()
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

const RELEASE: &str = "provider: {name: azure, type: infrastructure}\ncomponents: {file: c.yaml}\nversion: v0.1.0\ntargets:\n  local: {repository: repo}\n";

#[test]
fn a_release_has_every_path_joined_and_every_default_filled() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), RELEASE);
    let settings = resolve(&line(&config), Need::Release, &on_tag("v0.2.0"), &no_env).unwrap();
    assert_eq!(settings.root, dir.path());
    // The CI tag wins over `version:`, and says so.
    let version = settings.version.as_ref().unwrap();
    assert_eq!(version.version.to_string(), "v0.2.0");
    assert!(
        version
            .warning
            .as_deref()
            .unwrap()
            .contains("`version: v0.1.0`")
    );
    assert_eq!(settings.output, dir.path().join("out"));
    assert_eq!(settings.sources.metadata, dir.path().join("metadata.yaml"));
    assert_eq!(settings.images, ImageCheck::On);
    assert_eq!(settings.previous, Previous::Newest);
    let kinds: Vec<TargetKind> = settings.targets.iter().map(TargetSettings::kind).collect();
    assert_eq!(kinds, [TargetKind::Local]);
    let TargetRequest::Local(local) = &settings.targets[0].request else {
        panic!("not local")
    };
    assert_eq!(local.repository, dir.path().join("repo"));
}

#[test]
fn flags_win_over_the_file_and_the_environment_turns_the_image_check_off() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &format!(
            "{RELEASE}previous: v0.0.9\nlint:\n  allow:\n  - {{rule: crd/template, reason: judged}}\n"
        ),
    );
    let line = CommandLine {
        previous: Some("none".into()),
        version: Some(Version::parse("v0.3.0").unwrap()),
        allow: vec![Waiver::from_flag("components/single-namespace=flag").unwrap()],
        ..line(&config)
    };
    let env = |name: &str| (name == "CAPKG_CHECK_IMAGES").then(|| "false".to_string());
    let settings = resolve(&line, Need::Release, &CiContext::default(), &env).unwrap();
    assert_eq!(
        settings.previous,
        Previous::Skip("`--previous none`".into())
    );
    assert_eq!(settings.version().unwrap().to_string(), "v0.3.0");
    assert_eq!(
        settings.images,
        ImageCheck::Off("CAPKG_CHECK_IMAGES=false".into())
    );
    // The file's waivers, then the flags'.
    let rules: Vec<&str> = settings
        .waivers
        .list
        .iter()
        .map(|w| w.rule.as_str())
        .collect();
    assert_eq!(rules, ["crd/template", "components/single-namespace"]);
    let config = write(dir.path(), &format!("{RELEASE}check_images: false\n"));
    let settings = resolve(
        &super::tests::line(&config),
        Need::Release,
        &CiContext::default(),
        &env,
    )
    .unwrap();
    assert_eq!(
        settings.images.off_reason(),
        Some("`check_images: false` in capkg.yaml")
    );
}

#[test]
fn a_bad_version_is_said_before_anything_is_read_and_a_missing_one_after_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // No capkg.yaml at all, but the `--version` is what is wrong first.
    let line = CommandLine {
        config: Some(dir.path().join("missing.yaml")),
        version: Some(Version::parse("1.2.3").unwrap()),
        ..CommandLine::default()
    };
    let err = resolve(&line, Need::Release, &CiContext::default(), &no_env).unwrap_err();
    assert!(matches!(err, Error::VersionNeedsV { .. }), "{err}");
    assert!(!err.is_refusal(), "a bad flag is a usage error");
    // A capkg.yaml without a version, no flag, no tag.
    let config = write(
        dir.path(),
        "provider: {name: azure, type: infrastructure}\n",
    );
    let err = resolve(
        &super::tests::line(&config),
        Need::Release,
        &CiContext::default(),
        &no_env,
    )
    .unwrap_err();
    assert!(matches!(err, Error::NoVersion), "{err}");
    assert!(err.is_about_the_version());
    // `assemble` goes on without one.
    let settings = resolve(
        &super::tests::line(&config),
        Need::Assemble,
        &CiContext::default(),
        &no_env,
    )
    .unwrap();
    assert!(settings.version.is_none());
}

#[test]
fn a_release_needs_targets_and_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        "provider: {name: azure, type: infrastructure}\nversion: v0.1.0\n",
    );
    let err = resolve(
        &line(&config),
        Need::Release,
        &CiContext::default(),
        &no_env,
    )
    .unwrap_err();
    assert!(matches!(err, Error::NoTargets), "{err}");
    let wanted = CommandLine {
        targets: vec![TargetKind::Github],
        ..line(&config)
    };
    let err = resolve(&wanted, Need::Release, &CiContext::default(), &no_env).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TargetNotConfigured {
                target: TargetKind::Github
            }
        ),
        "{err}"
    );
    // A GitHub target from the CI's own variables, when it is asked for.
    let env = |name: &str| (name == "GITHUB_REPOSITORY").then(|| "o/r".to_string());
    let settings = resolve(&wanted, Need::Release, &CiContext::default(), &env).unwrap();
    assert_eq!(settings.targets[0].kind(), TargetKind::Github);
}

#[test]
fn placeholders_and_provider_flags_are_judged_once_for_every_command_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        "provider: {name: TODO, type: infrastructure}\ncomponents: {file: c.yaml}\n",
    );
    for need in [Need::Assemble, Need::Release] {
        let err = resolve(&line(&config), need, &on_tag("v1.0.0"), &no_env).unwrap_err();
        assert!(err.to_string().contains("still a placeholder"), "{err}");
    }
    // lint reads the file for its waivers only: a placeholder is not its concern.
    assert!(resolve(&line(&config), Need::Lint, &CiContext::default(), &no_env).is_ok());
    let several = write(
        dir.path(),
        "providers:\n- {name: kubeadm, type: bootstrap, components: {file: b.yaml}}\n- {name: kubeadm, type: control-plane, components: {file: c.yaml}}\n",
    );
    let flagged = CommandLine {
        provider_name: Some("other".into()),
        ..line(&several)
    };
    let err = resolve(&flagged, Need::Assemble, &CiContext::default(), &no_env).unwrap_err();
    assert!(matches!(err, Error::SeveralProviders(_)), "{err}");
}

#[test]
fn assemble_may_run_on_flags_alone() {
    let dir = tempfile::tempdir().unwrap();
    let line = CommandLine {
        config: None,
        provider_name: Some("example".into()),
        provider_type: Some(ProviderType::Infrastructure),
        components: Some(ComponentsSource::File(dir.path().join("c.yaml"))),
        metadata: Some(dir.path().join("m.yaml")),
        out: Some(dir.path().join("release")),
        ..CommandLine::default()
    };
    let settings = resolve(&line, Need::Assemble, &CiContext::default(), &no_env).unwrap();
    assert_eq!(settings.sources.providers.len(), 1);
    assert_eq!(
        settings.sources.providers[0].name.as_deref(),
        Some("example")
    );
    assert_eq!(settings.sources.metadata, dir.path().join("m.yaml"));
    assert_eq!(settings.output, dir.path().join("release"));
    assert!(settings.targets.is_empty());
}

#[test]
fn image_pins_get_the_version_being_released() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &format!("{RELEASE}images:\n- {{name: example.com/manager, newTag: \"{{version}}\"}}\n"),
    );
    let settings = resolve(&line(&config), Need::Release, &on_tag("v1.2.3"), &no_env).unwrap();
    assert_eq!(settings.sources.pins[0].new_tag.as_deref(), Some("v1.2.3"));
    // Without a version, a pin that needs one is refused (the release would keep a template).
    let no_version = write(
        dir.path(),
        "provider: {name: azure, type: infrastructure}\ncomponents: {file: c.yaml}\nimages:\n- {name: example.com/manager, newTag: \"{version}\"}\n",
    );
    let err = resolve(
        &line(&no_version),
        Need::Assemble,
        &CiContext::default(),
        &no_env,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Images(_)), "{err}");
    assert!(err.is_refusal());
}
