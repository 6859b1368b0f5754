//! The checks a release gets besides lint: clusterctl's release series, `checksums.txt`, and
//! whether its images are in their registries.

use super::{Check, Settings, VerifiedFile, images_exist};
use crate::checksums::CHECKSUMS_FILE;
use crate::files::Release;
use crate::forge::Services;
use crate::rules;
use crate::version::Version;

/// Looks up every image of `releases` and records the result as the `images` check (missing
/// images fail it) and warnings (images that could not be checked).
pub(crate) async fn images_check(
    releases: &[&Release],
    settings: &Settings,
    services: &Services,
    checks: &mut Vec<Check>,
    warnings: &mut Vec<String>,
) {
    let uses = images_exist::image_uses(releases);
    let found = images_exist::check(&uses, &settings.origins, services).await;
    warnings.extend(found.warnings());
    // `ok` only when an image was found: a check that looked nothing up passes nothing.
    if found.found.is_empty() && found.missing.is_empty() {
        if !found.unchecked.is_empty() {
            warnings.push(format!(
                "images: none of the {} image(s) could be checked, so their existence is not known",
                found.unchecked.len()
            ));
        }
        return;
    }
    checks.push(Check {
        name: "images",
        ok: found.ok(),
        message: if found.ok() {
            found.summary()
        } else {
            format!("not in their registry: {}", found.missing_text())
        },
    });
}

/// clusterctl's `init`/`upgrade` check: the version's major.minor has a release series.
pub(crate) fn series_check(release: &Release, version: &Version, label: Option<&str>) -> Check {
    let Some(metadata) = release.metadata() else {
        return Check {
            name: "release-series",
            ok: false,
            message: "there is no `metadata.yaml`, so clusterctl cannot find a release series for any version".into(),
        };
    };
    let series = rules::release_series(metadata);
    let wanted = (i128::from(version.major()), i128::from(version.minor()));
    let listed: Vec<String> = series
        .iter()
        .filter_map(|s| s.major_minor())
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect();
    match series.iter().find(|s| s.major_minor() == Some(wanted)) {
        Some(found) => Check {
            name: "release-series",
            ok: true,
            message: format!(
                "release series {}.{} (contract {}) covers {version}",
                version.major(),
                version.minor(),
                found.contract.unwrap_or("none")
            ),
        },
        None => Check {
            name: "release-series",
            ok: false,
            message: format!(
                "invalid provider metadata: version {version} for the provider {} does not match any release series. {}",
                label.unwrap_or("(unknown)"),
                if listed.is_empty() {
                    "No release series found in metadata.".to_string()
                } else {
                    format!("Available series: [{}].", listed.join(", "))
                }
            ),
        },
    }
}

/// The file names a `sha256sum` list names.
pub(super) fn checksum_names(list: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(list)
        .lines()
        .filter_map(|line| {
            let (_, name) = line.split_once(char::is_whitespace)?;
            let name = name.trim_start().trim_start_matches('*');
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Every fetched file is in `checksums.txt` with its SHA-256.
pub(super) fn checksum_check(list: &[u8], files: &[VerifiedFile]) -> Check {
    let text = String::from_utf8_lossy(list);
    let sums: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| {
            let (sum, name) = line.split_once(char::is_whitespace)?;
            Some((sum, name.trim_start().trim_start_matches('*')))
        })
        .collect();
    let mut problems = Vec::new();
    for file in files {
        match sums.iter().find(|(_, name)| *name == file.name) {
            Some((sum, _)) if sum.eq_ignore_ascii_case(&file.sha256) => {}
            Some((sum, _)) => problems.push(format!(
                "`{}` has SHA-256 {}, `{CHECKSUMS_FILE}` says {sum}",
                file.name, file.sha256
            )),
            None => problems.push(format!("`{CHECKSUMS_FILE}` does not list `{}`", file.name)),
        }
    }
    checksums_check(
        &problems,
        format!("every file read matches `{CHECKSUMS_FILE}`"),
    )
}

/// The `checksums` check: passed with `all_match`, or failed listing the problems.
pub(crate) fn checksums_check(problems: &[String], all_match: String) -> Check {
    Check {
        name: "checksums",
        ok: problems.is_empty(),
        message: if problems.is_empty() {
            all_match
        } else {
            problems.join("; ")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files;
    use crate::provider::FileRole;

    #[test]
    fn checksum_lists_name_their_files() {
        let list = b"aaaa  metadata.yaml\nbbbb *cluster-template.yaml\n\n";
        assert_eq!(
            checksum_names(list),
            ["metadata.yaml", "cluster-template.yaml"]
        );
        let files = [VerifiedFile {
            name: "metadata.yaml".into(),
            size: 1,
            sha256: "AAAA".to_ascii_lowercase(),
            url: String::new(),
        }];
        assert!(checksum_check(list, &files).ok);
        let wrong = [VerifiedFile {
            sha256: "cccc".into(),
            ..files[0].clone()
        }];
        let check = checksum_check(list, &wrong);
        assert!(!check.ok);
        assert!(check.message.contains("says aaaa"), "{}", check.message);
    }

    #[test]
    fn series_check_uses_clusterctl_words() {
        let release = Release {
            dir: "v".into(),
            files: vec![files::load_text(
                "metadata.yaml",
                "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n".into(),
                FileRole::Metadata,
            )],
            near_misses: Vec::new(),
        };
        let ok = series_check(&release, &Version::parse("v1.0.4").unwrap(), None);
        assert!(ok.ok, "{}", ok.message);
        let missing = series_check(
            &release,
            &Version::parse("v1.1.0").unwrap(),
            Some("infrastructure-x"),
        );
        assert!(!missing.ok);
        assert_eq!(
            missing.message,
            "invalid provider metadata: version v1.1.0 for the provider infrastructure-x does not match any release series. Available series: [1.0]."
        );
    }
}
