//! Release-pinned images: capkg.yaml's `images:`, with the meaning of kustomize's `images` field
//! that maintainers already use in their Makefiles (`kustomize edit set image`).
//!
//! An entry's `name` matches an image as written in the manifests, ignoring its tag and digest
//! (exactly: `nginx` does not match `docker.io/library/nginx`, as in kustomize). `newName`
//! replaces the name; `newTag` replaces the tag and drops a digest; `digest` replaces the digest
//! and drops a tag; both together give `name:tag@digest` (kustomize 5). `newTag` may hold
//! `{version}` (the release version as tagged, `v1.2.3`) or `{semver}` (`1.2.3`). `pullPolicy`
//! (not a kustomize field) sets `imagePullPolicy` on every container the entry matches, as
//! release processes that rewrite it with `sed` do.
//!
//! Every `containers`, `initContainers` and `ephemeralContainers` image of every Pod template
//! is rewritten: Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job
//! (`spec.template.spec`), CronJob (`spec.jobTemplate.spec.template.spec`), PodTemplate
//! (`template.spec`) and Pod (`spec`). An entry that matches no image anywhere in the release is
//! an error: a typo must not publish the development image.

pub mod before_build;

use super::transform::ChangeLog;
use crate::config::{DigestFrom, ImagePin};
use crate::image_ref::Parts;
use crate::rules::PinnedImage;
use crate::version::Version;
use crate::yaml::Node;

/// Why the `images:` entries cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImagesError {
    #[error(
        "{at}: `newTag: \"{new_tag}\"` needs the version being released; pass `--version`, set `version:` in capkg.yaml, or run on a CI tag"
    )]
    NoVersion { at: String, new_tag: String },
    #[error(
        "{at}: the `images` entry `{name}` matches no image in the components ({}); a pin that matches nothing would publish the development image",
        if seen.is_empty() { "they have none".to_string() } else { format!("images found: {}", seen.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")) }
    )]
    Unmatched {
        at: String,
        name: String,
        seen: Vec<String>,
    },
    #[error(
        "{at}: `digest_env: {variable}`: {variable} is not set; the release job sets it to the image's digest (`sha256:` and 64 hex digits, as `docker/build-push-action` outputs `digest`)"
    )]
    DigestUnset { at: String, variable: String },
    #[error(
        "{at}: `digest_env: {variable}`: {variable} holds `{value}`, not a digest (`sha256:` and 64 hex digits)"
    )]
    DigestInvalid {
        at: String,
        variable: String,
        value: String,
    },
    #[error(
        "{at}: `digest: from-registry`: cannot learn the digest of `{image}` from its registry: {reason}"
    )]
    DigestLookup {
        at: String,
        image: String,
        reason: String,
    },
}

/// An `images:` entry that cannot be applied is a configuration to fix.
impl crate::error::Classified for ImagesError {
    fn class(&self) -> crate::error::ErrorClass {
        crate::error::ErrorClass::Refusal
    }
}

/// The entries with `{version}` and `{semver}` replaced and `digest_env` read from `env`; an
/// error when one needs a version and there is none, or its variable is unset or no digest.
/// `digest: from-registry` stays to ask the registry ([`registry_lookups`]).
pub fn resolve(
    pins: &[ImagePin],
    version: Option<&Version>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ImagePin>, ImagesError> {
    pins.iter()
        .map(|pin| {
            let mut pin = pin.clone();
            if let Some(DigestFrom::Env(variable)) = &pin.digest_from {
                let value = env(variable)
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| ImagesError::DigestUnset {
                        at: pin.at.clone(),
                        variable: variable.clone(),
                    })?;
                if !crate::image_ref::valid_digest(&value) {
                    return Err(ImagesError::DigestInvalid {
                        at: pin.at.clone(),
                        variable: variable.clone(),
                        value: crate::escape::text(&value).into_owned(),
                    });
                }
                pin.digest = Some(value);
                pin.digest_from = None;
            }
            Ok(pin)
        })
        .map(|pin| {
            let pin = pin?;
            let new_tag = match &pin.new_tag {
                Some(tag) if tag.contains("{version}") || tag.contains("{semver}") => {
                    let Some(version) = version else {
                        return Err(ImagesError::NoVersion {
                            at: pin.at.clone(),
                            new_tag: tag.clone(),
                        });
                    };
                    let tagged = version.to_string();
                    let semver = tagged.strip_prefix('v').unwrap_or(&tagged).to_string();
                    Some(
                        tag.replace("{version}", &tagged)
                            .replace("{semver}", &semver),
                    )
                }
                other => other.clone(),
            };
            Ok(ImagePin {
                new_tag,
                ..pin.clone()
            })
        })
        .collect()
}

/// The entries to apply to a kustomize build that had them in its kustomization: each entry
/// again (an image kustomize left alone is still pinned), and `pullPolicy` (not a kustomize field)
/// on the image as renamed.
pub fn after_pinned_build(pins: &[ImagePin]) -> Vec<ImagePin> {
    let renamed = pins.iter().filter_map(|pin| {
        let new_name = pin.new_name.as_ref()?;
        pin.pull_policy.as_ref()?;
        Some(ImagePin {
            name: new_name.clone(),
            new_name: None,
            new_tag: None,
            digest: None,
            ..pin.clone()
        })
    });
    pins.iter().cloned().chain(renamed).collect()
}

/// The images whose digest the registry gives (`digest: from-registry`), with their entry's
/// index: `newName` (or `name`) at `newTag`.
pub fn registry_lookups(pins: &[ImagePin]) -> Vec<(usize, String)> {
    pins.iter()
        .enumerate()
        .filter(|(_, pin)| pin.digest_from == Some(DigestFrom::Registry))
        .filter_map(|(index, pin)| {
            let name = pin.new_name.as_ref().unwrap_or(&pin.name);
            Some((index, format!("{name}:{}", pin.new_tag.as_ref()?)))
        })
        .collect()
}

/// The entries with the digests the registry gave (`(index, answer)` per [`registry_lookups`]).
pub fn with_registry_digests(
    pins: &[ImagePin],
    answers: Vec<(usize, Result<String, String>)>,
) -> Result<Vec<ImagePin>, ImagesError> {
    let mut pins = pins.to_vec();
    for (index, answer) in answers {
        let Some(pin) = pins.get_mut(index) else {
            continue;
        };
        let reason = match answer {
            Ok(digest) if crate::image_ref::valid_digest(&digest) => {
                pin.digest = Some(digest);
                pin.digest_from = None;
                continue;
            }
            Ok(other) => format!(
                "it answered `{}`, not a digest",
                crate::escape::text(&other)
            ),
            Err(reason) => reason,
        };
        return Err(ImagesError::DigestLookup {
            at: pin.at.clone(),
            image: registry_lookups(std::slice::from_ref(pin))
                .pop()
                .map(|(_, image)| image)
                .unwrap_or_default(),
            reason,
        });
    }
    Ok(pins)
}

/// What applying the entries to a set of files found.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// Per entry (same order): whether it matched an image.
    pub used: Vec<bool>,
    /// Every image seen, as written, in order of first appearance (for the unmatched message).
    pub seen: Vec<String>,
    /// The same images, to tell a new one in constant time: a components file with thousands
    /// of distinct images made the linear search quadratic (most of a 100 MB assemble).
    seen_set: std::collections::HashSet<String>,
    /// Each image an entry replaced, once, with what replaced it: where `build/dev-image-value`
    /// looks for values the build copied from the development image.
    pub pinned: Vec<PinnedImage>,
}

impl Applied {
    pub fn new(pins: &[ImagePin]) -> Self {
        Self {
            used: vec![false; pins.len()],
            seen: Vec::new(),
            seen_set: std::collections::HashSet::new(),
            pinned: Vec::new(),
        }
    }

    /// An error for the first entry that matched nothing.
    pub fn check(&self, pins: &[ImagePin]) -> Result<(), ImagesError> {
        match pins.iter().zip(&self.used).find(|(_, used)| !**used) {
            Some((pin, _)) => Err(ImagesError::Unmatched {
                at: pin.at.clone(),
                name: pin.name.clone(),
                seen: self.seen.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// The image an entry makes of `image`, when it matches.
pub fn rewrite(pin: &ImagePin, image: &str) -> Option<String> {
    let parts = Parts::parse(image).ok()?;
    if parts.name != pin.name {
        return None;
    }
    let name = pin.new_name.as_deref().unwrap_or(parts.name);
    let (tag, digest) = match (&pin.new_tag, &pin.digest) {
        (Some(tag), Some(digest)) => (Some(tag.as_str()), Some(digest.as_str())),
        (Some(tag), None) => (Some(tag.as_str()), None),
        (None, Some(digest)) => (None, Some(digest.as_str())),
        (None, None) => (parts.tag, parts.digest),
    };
    let mut out = name.to_string();
    if let Some(tag) = tag {
        out.push(':');
        out.push_str(tag);
    }
    if let Some(digest) = digest {
        out.push('@');
        out.push_str(digest);
    }
    Some(out)
}

/// The pod spec of a workload object, by kind.
fn pod_spec_mut(object: &mut Node) -> Option<&mut Node> {
    let kind = object.get("kind")?.scalar_text()?.to_string();
    let path: &[&str] = match kind.as_str() {
        "Deployment"
        | "DaemonSet"
        | "StatefulSet"
        | "ReplicaSet"
        | "ReplicationController"
        | "Job" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        "PodTemplate" => &["template", "spec"],
        "Pod" => &["spec"],
        _ => return None,
    };
    path.iter().try_fold(object, |node, key| node.get_mut(key))
}

/// Rewrites the images of `objects` the entries match, recording what changed.
pub fn apply(
    objects: &mut [Node],
    pins: &[ImagePin],
    applied: &mut Applied,
    changes: &mut ChangeLog,
) {
    for object in objects.iter_mut() {
        // Named only when an image changes (the name is read before the object is borrowed).
        let mut what = None;
        if !pins.is_empty() {
            what = Some(
                crate::k8s::Object::new(object)
                    .map_or_else(|| "object".to_string(), |o| o.display()),
            );
        }
        let Some(spec) = pod_spec_mut(object) else {
            continue;
        };
        for list in ["containers", "initContainers", "ephemeralContainers"] {
            let Some(containers) = spec.get_mut(list).and_then(Node::as_sequence_mut) else {
                continue;
            };
            for container in containers.iter_mut() {
                let Some(image) = container.get("image").and_then(Node::as_str) else {
                    continue;
                };
                let image = image.to_string();
                if applied.seen_set.insert(image.clone()) {
                    applied.seen.push(image.clone());
                }
                let Some((index, new)) = pins
                    .iter()
                    .enumerate()
                    .find_map(|(index, pin)| Some((index, rewrite(pin, &image)?)))
                else {
                    continue;
                };
                applied.used[index] = true;
                let what = what.as_deref().unwrap_or("object");
                if new != image
                    && let Some(image_node) = container.get_mut("image")
                {
                    changes.note(|| format!("{what}: image `{image}` -> `{new}`"));
                    *image_node = Node::string(new.clone());
                    let pinned = PinnedImage {
                        from: image.clone(),
                        to: new.clone(),
                        at: pins[index].at.clone(),
                    };
                    if !applied.pinned.contains(&pinned) {
                        applied.pinned.push(pinned);
                    }
                }
                if let Some(policy) = &pins[index].pull_policy {
                    set_pull_policy(container, policy, &new, what, changes);
                }
            }
        }
    }
}

/// Sets a container's `imagePullPolicy`, replacing the value it has or adding the field.
fn set_pull_policy(
    container: &mut Node,
    policy: &str,
    image: &str,
    what: &str,
    changes: &mut ChangeLog,
) {
    let Some(mapping) = container.as_mapping_mut() else {
        return;
    };
    match mapping.get_mut("imagePullPolicy") {
        Some(node) if node.as_str() == Some(policy) => {}
        Some(node) => {
            changes.note(|| format!("{what}: `{image}` imagePullPolicy -> `{policy}`"));
            *node = Node::plain(policy);
        }
        None => {
            changes.note(|| format!("{what}: `{image}` imagePullPolicy: `{policy}` added"));
            mapping.extend([(Node::plain("imagePullPolicy"), Node::plain(policy))]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    const OLD: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    pub(super) fn pin(
        name: &str,
        new_name: Option<&str>,
        tag: Option<&str>,
        digest: Option<&str>,
    ) -> ImagePin {
        ImagePin {
            name: name.into(),
            new_name: new_name.map(Into::into),
            new_tag: tag.map(Into::into),
            digest: digest.map(Into::into),
            digest_from: None,
            pull_policy: None,
            at: "capkg.yaml:1:1".into(),
        }
    }

    #[test]
    fn rewrites_as_kustomize_does() {
        // Expected values from `kubectl kustomize` (kustomize v5.5.0) with the same entries.
        let cases = [
            (
                pin("gcr.io/a/init", None, Some("v9"), None),
                "gcr.io/a/init:dev",
                Some("gcr.io/a/init:v9".to_string()),
            ),
            (
                pin(
                    "gcr.io/a/one",
                    Some("reg.io/x/one"),
                    Some("v1"),
                    Some(DIGEST),
                ),
                "gcr.io/a/one:dev",
                Some(format!("reg.io/x/one:v1@{DIGEST}")),
            ),
            (
                pin("gcr.io/a/two", None, Some("v2"), None),
                &*format!("gcr.io/a/two@{OLD}"),
                Some("gcr.io/a/two:v2".to_string()),
            ),
            (
                pin("gcr.io/a/three", None, None, Some(DIGEST)),
                "gcr.io/a/three",
                Some(format!("gcr.io/a/three@{DIGEST}")),
            ),
            (
                pin("localhost:5000/four", Some("reg.io/four"), None, None),
                "localhost:5000/four:x",
                Some("reg.io/four:x".to_string()),
            ),
            (
                pin("gcr.io/a/five", None, Some("v5"), None),
                &*format!("gcr.io/a/five:v1@{OLD}"),
                Some("gcr.io/a/five:v5".to_string()),
            ),
            (
                pin("docker.io/library/nginx", None, Some("1.2"), None),
                "nginx",
                None,
            ),
            (
                pin("gcr.io/a/b", None, Some("v1"), None),
                "gcr.io/a/bc:dev",
                None,
            ),
        ];
        for (pin, image, expected) in cases {
            assert_eq!(rewrite(&pin, image), expected, "{image}");
        }
    }

    #[test]
    fn placeholders_need_a_version() {
        let pins = [ImagePin {
            name: "a.io/m".into(),
            new_name: None,
            new_tag: Some("{version}-{semver}".into()),
            digest: None,
            digest_from: None,
            pull_policy: None,
            at: "capkg.yaml:3:5".into(),
        }];
        let version = Version::parse("v1.2.3").unwrap();
        let resolved = resolve(&pins, Some(&version), &|_| None).unwrap();
        assert_eq!(resolved[0].new_tag.as_deref(), Some("v1.2.3-1.2.3"));
        let err = resolve(&pins, None, &|_| None).unwrap_err().to_string();
        assert!(
            err.starts_with("capkg.yaml:3:5: `newTag: \"{version}-{semver}\"` needs the version"),
            "{err}"
        );
    }

    #[test]
    fn digest_env_is_read_from_the_release_job_and_checked() {
        let mut from_env = pin("a.io/m", None, Some("v1"), None);
        from_env.digest_from = Some(DigestFrom::Env("MANAGER_DIGEST".into()));
        let pins = [from_env];
        let set = resolve(&pins, None, &|name| {
            (name == "MANAGER_DIGEST").then(|| format!(" {DIGEST}\n"))
        })
        .unwrap();
        assert_eq!(set[0].digest.as_deref(), Some(DIGEST));
        assert_eq!(set[0].digest_from, None);
        assert_eq!(
            rewrite(&set[0], "a.io/m:dev").as_deref(),
            Some(&*format!("a.io/m:v1@{DIGEST}"))
        );
        let unset = resolve(&pins, None, &|_| None).unwrap_err().to_string();
        assert!(
            unset.starts_with(
                "capkg.yaml:1:1: `digest_env: MANAGER_DIGEST`: MANAGER_DIGEST is not set"
            ),
            "{unset}"
        );
        let wrong = resolve(&pins, None, &|_| Some("latest".into()))
            .unwrap_err()
            .to_string();
        assert!(wrong.contains("holds `latest`, not a digest"), "{wrong}");
    }

    #[test]
    fn registry_digests_are_asked_for_the_released_tag() {
        let mut asked = pin("a.io/m", Some("r.io/m"), Some("v1"), None);
        asked.digest_from = Some(DigestFrom::Registry);
        let pins = [pin("a.io/x", None, Some("v1"), None), asked];
        assert_eq!(registry_lookups(&pins), [(1, "r.io/m:v1".to_string())]);
        let set = with_registry_digests(&pins, vec![(1, Ok(DIGEST.to_string()))]).unwrap();
        assert_eq!(set[1].digest.as_deref(), Some(DIGEST));
        assert!(registry_lookups(&set).is_empty());
        let err = with_registry_digests(
            &pins,
            vec![(1, Err("the registry does not have it".into()))],
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "capkg.yaml:1:1: `digest: from-registry`: cannot learn the digest of `r.io/m:v1` from its registry: the registry does not have it"
        );
    }

    #[test]
    fn every_pod_template_and_container_list_is_rewritten() {
        let text = "kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n          - image: a.io/m:dev\n---\nkind: Pod\nspec:\n  ephemeralContainers:\n  - image: a.io/m:dev\n---\nkind: StatefulSet\nspec:\n  template:\n    spec:\n      initContainers:\n      - image: a.io/m\n---\nkind: ConfigMap\ndata:\n  image: a.io/m:dev\n";
        let (_, mut objects) = crate::assemble::transform::parse_objects("in.yaml", text).unwrap();
        let pins = vec![
            pin("a.io/m", None, Some("v1"), None),
            pin("a.io/typo", None, Some("v1"), None),
        ];
        let mut applied = Applied::new(&pins);
        let mut changes = ChangeLog::new(true);
        apply(&mut objects, &pins, &mut applied, &mut changes);
        let changes = changes.into_lines();
        assert_eq!(changes.len(), 3, "{changes:?}");
        let yaml = crate::yaml::write_layout::write_documents(&objects);
        assert_eq!(yaml.matches("image: a.io/m:v1").count(), 3, "{yaml}");
        assert!(
            yaml.contains("image: a.io/m:dev"),
            "a ConfigMap is not a workload: {yaml}"
        );
        assert_eq!(applied.used, vec![true, false]);
        // Each replaced image once, for `build/dev-image-value`.
        let pinned: Vec<(&str, &str)> = applied
            .pinned
            .iter()
            .map(|p| (p.from.as_str(), p.to.as_str()))
            .collect();
        assert_eq!(
            pinned,
            [("a.io/m:dev", "a.io/m:v1"), ("a.io/m", "a.io/m:v1")]
        );
        assert!(!yaml.contains("imagePullPolicy"), "{yaml}");
        let err = applied.check(&pins).unwrap_err().to_string();
        assert_eq!(
            err,
            "capkg.yaml:1:1: the `images` entry `a.io/typo` matches no image in the components (images found: `a.io/m:dev`, `a.io/m`); a pin that matches nothing would publish the development image"
        );
    }

    #[test]
    fn pull_policy_is_set_on_every_container_the_entry_matches() {
        let text = "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: a.io/m:dev\n        imagePullPolicy: IfNotPresent\n      - name: other\n        image: b.io/o:v1\n      initContainers:\n      - image: a.io/m:dev\n";
        let (_, mut objects) = crate::assemble::transform::parse_objects("in.yaml", text).unwrap();
        let mut always = pin("a.io/m", None, Some("v1"), None);
        always.pull_policy = Some("Always".into());
        let pins = vec![always];
        let mut applied = Applied::new(&pins);
        let mut changes = ChangeLog::new(true);
        apply(&mut objects, &pins, &mut applied, &mut changes);
        let yaml = crate::yaml::write_layout::write_documents(&objects);
        assert_eq!(yaml.matches("imagePullPolicy: Always").count(), 2, "{yaml}");
        assert!(!yaml.contains("IfNotPresent"), "{yaml}");
        assert_eq!(yaml.matches("imagePullPolicy").count(), 2, "{yaml}");
        assert_eq!(changes.into_lines().len(), 4);
    }
}
