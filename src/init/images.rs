//! The `images:` pins `init` proposes for the manager images: the name the release gives each
//! (the Makefile's `MANIFEST_IMG`, else `PROD_REGISTRY`, said to be a guess) and the tag it uses.

use std::collections::BTreeSet;

use super::{Detected, Image, kustomize, makefile};

/// What the release pipelines say about images.
pub(super) struct ReleaseImages {
    /// `file:line` where the release tags images without the `v`.
    pub tag_without_v: Option<String>,
    /// Images a release pipeline pushes, with their `file:line`.
    pub pushed: Vec<(String, String)>,
}

/// An image named for development: a bare name (`controller`, Docker Hub's library, where no
/// provider publishes), or one on a loopback registry (`localhost:5000/x`), which no cluster pulls
/// a release from.
fn development_name(image: &str) -> bool {
    let Some((first, _)) = image.split_once('/') else {
        return true;
    };
    let host = first.rsplit_once(':').map_or(first, |(host, _)| host);
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}

/// An image name without a trailing architecture (`manager-amd64`: `manager`), for matching the
/// development image with the multi-arch name the release sets.
fn without_arch(base: &str) -> &str {
    ["-amd64", "-arm64", "-arm", "-ppc64le", "-s390x"]
        .iter()
        .find_map(|arch| base.strip_suffix(arch))
        .unwrap_or(base)
}

/// `images:` pins for the manager images: the name the Makefile's release sets (matched by the
/// image's last path part, architecture dropped; the only one when there is one of each), else
/// `PROD_REGISTRY` with the image's last part (a guess, said so); `{semver}` when the release
/// tags without the `v`. Each with its evidence (file:line).
pub(super) fn propose_images(
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    managers: &[kustomize::Container],
    release: &ReleaseImages,
) {
    let names: BTreeSet<String> = managers
        .iter()
        .map(|c| makefile::strip_tag(&c.image))
        .collect();
    let (new_tag, tag_note) = match &release.tag_without_v {
        Some(evidence) => (
            "{semver}",
            format!("; tagged without `v` ({evidence}): newTag \"{{semver}}\""),
        ),
        None => ("{version}", String::new()),
    };
    let policy_note = recipe
        .pull_policy
        .as_ref()
        .map(|(policy, line)| {
            format!("; pull policy {policy} (the Makefile's release sets it, Makefile:{line})")
        })
        .unwrap_or_default();
    for container in managers {
        let name = makefile::strip_tag(&container.image);
        if detected.images.iter().any(|i| i.name == name) {
            continue;
        }
        // capkg.yaml gets only a name an image can have: a line break in one would write keys.
        if crate::image_ref::check_name(&name).is_err() {
            detected.notes.push(format!(
                "manager image `{}` ({}:{}) is not an image name docker accepts (an optional registry host, then lower-case letters, digits and separators): not written under `images:`; fix it in the manifest, or pin the release's image there by hand (`- name: IMAGE`, `newTag: \"{{version}}\"`)",
                container.image.escape_debug(),
                container.file.escape_debug(),
                container.line
            ));
            continue;
        }
        let last = |image: &str| image.rsplit('/').next().unwrap_or(image).to_string();
        let base = last(&name);
        let mut matched = recipe
            .images
            .iter()
            .find(|(i, _)| without_arch(&last(i)) == without_arch(&base))
            .or(match (&recipe.images[..], names.len()) {
                ([only], 1) => Some(only),
                _ => None,
            });
        let (mut new_name, mut evidence) = match matched {
            Some((released, line)) => (
                (released != &name).then(|| released.clone()),
                format!("the Makefile's release sets it, Makefile:{line}"),
            ),
            None => match &recipe.prod_registry {
                Some((prod, line)) if !name.starts_with(&format!("{prod}/")) => (
                    Some(format!("{prod}/{base}")),
                    format!(
                        "a guess: PROD_REGISTRY (Makefile:{line}) and the image's name; check it"
                    ),
                ),
                _ => (None, String::new()),
            },
        };
        if let Some(bad) = new_name.as_deref()
            && crate::image_ref::check_name(bad).is_err()
        {
            detected.notes.push(format!(
                "manager image {name} ({}:{}): the name the release gives it, `{}` ({evidence}), is not an image name docker accepts: `newName` not written; set it by hand under `images:`",
                container.file.escape_debug(),
                container.line,
                bad.escape_debug()
            ));
            (new_name, evidence, matched) = (None, String::new(), None);
        }
        detected.found.push(format!(
            "manager image {} ({}:{}){}{tag_note}{policy_note}",
            container.image,
            container.file,
            container.line,
            match (&new_name, matched) {
                (Some(n), _) => format!(", released as {n} ({evidence})"),
                (None, Some(_)) => format!(", released under that name ({evidence})"),
                (None, None) => String::new(),
            }
        ));
        if new_name.is_none() && development_name(&name) {
            let pushed = match &release.pushed[..] {
                [] => String::new(),
                pushed => format!(
                    "; the release pipelines push {}: set `newName` to the manager's",
                    pushed
                        .iter()
                        .map(|(image, at)| format!("{image} ({at})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            detected.missing.push(format!(
                "manager image {name} ({}:{}) is a development name (no registry, or a loopback one) and the Makefile's release names no other: set `newName` in its `images:` entry to the registry the release pushes to{pushed}",
                container.file, container.line
            ));
        }
        detected.images.push(Image {
            name,
            new_name,
            file: container.file.clone(),
            new_tag,
            pull_policy: recipe.pull_policy.as_ref().map(|(p, _)| p.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn development_image_names_are_bare_or_on_loopback() {
        for development in ["controller", "localhost:5000/x/manager", "127.0.0.1:5001/m"] {
            assert!(development_name(development), "{development}");
        }
        for released in [
            "acme/manager",
            "ghcr.io/acme/manager",
            "registry.example.com:443/m",
        ] {
            assert!(!development_name(released), "{released}");
        }
    }
}
