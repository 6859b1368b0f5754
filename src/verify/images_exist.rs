//! Every image exists: before a release is made public (and in `capkg verify`), each container
//! image the components name is looked up in its registry with a manifest `HEAD` by tag or
//! digest ([`crate::forge::oci::Registry::head_manifest`]): anonymously through the registry's
//! token flow for public registries, with the Docker config file's entry for the image's own
//! registry for private ones ([`Purpose::Content`]: never the `OCI_*` variables, which are the
//! login of the registry the user named).
//!
//! - a missing image (`404`) is an error naming the object and the image;
//! - a registry that cannot be reached, fails, or refuses without a login is a warning saying
//!   which images were not checked;
//! - lookups run a few at a time ([`RetryPolicy::read_concurrency`]) under one deadline for the
//!   whole check ([`RetryPolicy::images_deadline`], `--images-timeout`): an image whose registry
//!   has not answered by then is not checked, and said so;
//! - an image written with a `${VARIABLE}` is not checked (clusterctl substitutes it at install
//!   time), and said so.
//!
//! Loopback registries (`localhost:5000`, `127.0.0.1:5000`) are asked over plain http, as Docker
//! and containerd treat them as insecure registries by default; every other registry over https.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use serde::Serialize;

use crate::files::Release;
use crate::forge::Services;
use crate::forge::oci::{OciError, Reference, Registry};
use crate::forge::origin::{Origins, Purpose};
use crate::forge::policy::RetryPolicy;
use crate::image_ref::Parts;
use crate::k8s::Object;

/// One image one container of one object names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ImageUse {
    pub image: String,
    /// `Deployment `capx-controller-manager`` (container `manager`).
    pub object: String,
    pub file: String,
}

impl ImageUse {
    fn describe(&self) -> String {
        format!("`{}` ({} in `{}`)", self.image, self.object, self.file)
    }
}

/// Every workload image of every components file of `releases`, each (image, object) once.
pub(crate) fn image_uses(releases: &[&Release]) -> Vec<ImageUse> {
    let mut out: Vec<ImageUse> = Vec::new();
    for release in releases {
        for file in release.components() {
            for root in file.yaml.roots() {
                let Some(object) = Object::new(root) else {
                    continue;
                };
                for (node, container) in object.workload_images() {
                    let Some(image) = node.scalar_text() else {
                        continue;
                    };
                    let use_ = ImageUse {
                        image: image.to_string(),
                        object: format!("{}, container `{container}`", object.display()),
                        file: file.file_name().to_string(),
                    };
                    if !out.contains(&use_) {
                        out.push(use_);
                    }
                }
            }
        }
    }
    out
}

/// What the check found; `--format json` prints it as `checks.images`.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ImageCheck {
    /// Why the check did not run (`--dry-run`, `check_images: false`), when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Images found in their registry.
    pub found: Vec<String>,
    /// Images their registry does not have: errors.
    pub missing: Vec<ImageUse>,
    /// Images that could not be checked, with why: warnings.
    pub unchecked: Vec<Unchecked>,
}

/// An image that could not be looked up.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unchecked {
    pub image: String,
    pub reason: String,
}

impl ImageCheck {
    pub(crate) fn skipped(reason: impl Into<String>) -> Self {
        Self {
            skipped: Some(reason.into()),
            ..Self::default()
        }
    }

    pub(crate) fn ok(&self) -> bool {
        self.missing.is_empty()
    }

    /// One line per missing image, for the error.
    pub(crate) fn missing_text(&self) -> String {
        self.missing
            .iter()
            .map(ImageUse::describe)
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The warnings: what was not checked, and why.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.unchecked
            .iter()
            .map(|u| format!("image `{}` was not checked: {}", u.image, u.reason))
            .collect()
    }

    /// One line for a summary.
    pub(crate) fn summary(&self) -> String {
        match &self.skipped {
            Some(reason) => format!("images: not checked ({reason})"),
            None => format!(
                "images: {} found, {} missing, {} not checked",
                self.found.len(),
                self.missing.len(),
                self.unchecked.len()
            ),
        }
    }
}

/// Where an image is: the registry reference, and the tag or digest to ask for.
fn locate(image: &str) -> Result<(Reference, String), String> {
    let parts = Parts::parse(image)?;
    let (registry, path) = match parts.registry() {
        Some(registry) => (registry, &parts.name[registry.len() + 1..]),
        None => ("docker.io", parts.name),
    };
    let (registry, path) = match registry {
        "docker.io" | "index.docker.io" => (
            "registry-1.docker.io",
            if path.contains('/') {
                path.to_string()
            } else {
                format!("library/{path}")
            },
        ),
        other => (other, path.to_string()),
    };
    let host = registry.rsplit_once(':').map_or(registry, |(h, _)| h);
    let loopback = host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let reference = Reference {
        plain_http: loopback,
        registry: registry.to_string(),
        repository: path,
        tag: None,
    };
    let wanted = parts.digest.or(parts.tag).unwrap_or("latest").to_string();
    Ok((reference, wanted))
}

/// Looks every image up, with the logins `origins` lets go to an image's registry.
pub(crate) async fn check(uses: &[ImageUse], origins: &Origins, services: &Services) -> ImageCheck {
    let mut result = ImageCheck::default();
    // A lookup is a courtesy check: an unreachable registry is a warning, so it gets two tries,
    // not the publishing retries.
    let lookups = Services {
        policy: RetryPolicy {
            attempts: services.policy.attempts.min(2),
            ..services.policy.clone()
        },
        ..services.clone()
    };
    let http = match lookups.http(None) {
        Ok(http) => http,
        Err(err) => {
            result.unchecked = uses
                .iter()
                .map(|u| Unchecked {
                    image: u.image.clone(),
                    reason: format!("cannot start the HTTP client: {err}"),
                })
                .collect();
            return result;
        }
    };
    // Each image once, whatever number of objects name it.
    let mut by_image: BTreeMap<&str, Vec<&ImageUse>> = BTreeMap::new();
    for use_ in uses {
        by_image.entry(&use_.image).or_default().push(use_);
    }
    let mut lookups = Vec::new();
    for (image, users) in by_image {
        if image.contains("${") {
            result.unchecked.push(Unchecked {
                image: image.to_string(),
                reason: "it holds a variable clusterctl substitutes at install time".into(),
            });
            continue;
        }
        let (reference, wanted) = match locate(image) {
            Ok(located) => located,
            Err(reason) => {
                result.unchecked.push(Unchecked {
                    image: image.to_string(),
                    reason: format!("not an image reference: {reason}"),
                });
                continue;
            }
        };
        let login = match origins.registry(&reference.registry, Purpose::Content) {
            Ok((login, _)) => login,
            Err(err) => {
                result.unchecked.push(Unchecked {
                    image: image.to_string(),
                    reason: err.to_string(),
                });
                continue;
            }
        };
        lookups.push((image, users, reference, wanted, login));
    }

    // A few at a time, all under one deadline: a stalled registry costs the deadline once, not
    // its connection timeouts per image.
    let limit = services.policy.images_deadline;
    let deadline = tokio::time::Instant::now() + limit;
    let http = &http;
    let found: Vec<_> = futures_util::stream::iter(lookups)
        .map(|(image, users, reference, wanted, login)| async move {
            let lookup = async {
                match Registry::new(http, &reference, login, false) {
                    Ok(registry) => registry.head_manifest(&wanted).await,
                    Err(err) => Err(err),
                }
            };
            let found = tokio::time::timeout_at(deadline, lookup).await;
            (image, users, found)
        })
        .buffered(services.policy.read_concurrency.max(1))
        .collect()
        .await;
    for (image, users, found) in found {
        match found {
            Ok(Ok(Some(_))) => result.found.push(image.to_string()),
            Ok(Ok(None)) => result.missing.extend(users.into_iter().cloned()),
            Ok(Err(err)) if is_missing_repository(&err) => {
                result.missing.extend(users.into_iter().cloned())
            }
            Ok(Err(err)) => result.unchecked.push(Unchecked {
                image: image.to_string(),
                reason: crate::forge::secret::redact(&error_chain(&err)),
            }),
            Err(_) => result.unchecked.push(Unchecked {
                image: image.to_string(),
                reason: format!(
                    "its registry did not answer within the {} all image lookups share (`--images-timeout`, CAPKG_IMAGES_TIMEOUT)",
                    crate::units::format_duration(limit)
                ),
            }),
        }
    }
    result
}

/// The digest each image's registry gives it now (`digest: from-registry`), with the logins the
/// image check uses; per image, the digest or why there is none.
pub(crate) async fn digests(
    images: &[(usize, String)],
    origins: &Origins,
    services: &Services,
) -> Vec<(usize, Result<String, String>)> {
    let http = match services.http(None) {
        Ok(http) => http,
        Err(err) => {
            let reason = format!("cannot start the HTTP client: {err}");
            return images
                .iter()
                .map(|(index, _)| (*index, Err(reason.clone())))
                .collect();
        }
    };
    let mut out = Vec::new();
    for (index, image) in images {
        let answer = async {
            let (reference, wanted) = locate(image)?;
            let (login, _) = origins
                .registry(&reference.registry, Purpose::Content)
                .map_err(|err| err.to_string())?;
            let registry = Registry::new(&http, &reference, login, false)
                .map_err(|err| crate::forge::secret::redact(&error_chain(&err)))?;
            let fail = |err: OciError| crate::forge::secret::redact(&error_chain(&err));
            match registry.head_manifest(&wanted).await.map_err(fail)? {
                Some(info) => match info.digest {
                    Some(digest) => Ok(digest),
                    // A registry that does not say it: the digest of the manifest's bytes.
                    None => match registry.get_manifest(&wanted).await.map_err(fail)? {
                        Some((_, info)) => info.digest.ok_or_else(|| "no digest".to_string()),
                        None => Err("the registry does not have it".to_string()),
                    },
                },
                None => Err("the registry does not have it (is the image pushed?)".to_string()),
            }
        }
        .await;
        out.push((*index, answer));
    }
    out
}

/// How long to wait for images that do not exist yet (`--wait-for-images`): the whole bound, and
/// the first pause between looks (doubled each time, at most a minute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wait {
    pub limit: std::time::Duration,
    pub first_pause: std::time::Duration,
}

impl Wait {
    pub(crate) fn up_to(limit: std::time::Duration) -> Self {
        Self {
            limit,
            first_pause: std::time::Duration::from_secs(5),
        }
    }
}

/// The longest pause between two looks.
const MAX_PAUSE: std::time::Duration = std::time::Duration::from_secs(60);

/// [`check`], repeated while images are missing and `wait` allows: each look asks only for the
/// images still missing, pauses on the services' clock with backoff, and says on the progress
/// what it waits for. Returns the last look with every image found on the way, and how many
/// looks it took. With no wait, one look.
pub(crate) async fn check_waiting(
    uses: &[ImageUse],
    origins: &Origins,
    services: &Services,
    wait: Option<Wait>,
) -> (ImageCheck, usize) {
    let mut result = check(uses, origins, services).await;
    let mut looks = 1;
    let Some(wait) = wait else {
        return (result, looks);
    };
    let started = services.clock.now();
    let mut pause = wait.first_pause;
    while !result.missing.is_empty() {
        let waited = services
            .clock
            .now()
            .duration_since(started)
            .unwrap_or_default();
        let Some(left) = wait.limit.checked_sub(waited).filter(|l| !l.is_zero()) else {
            break;
        };
        let pause_now = pause.min(left);
        let mut missing: Vec<&str> = result.missing.iter().map(|u| u.image.as_str()).collect();
        missing.dedup();
        services
            .progress
            .event(&crate::forge::progress::Event::Waiting {
                reason: &format!(
                    "for {} image(s) not in their registry yet: {} (up to {} more)",
                    missing.len(),
                    missing
                        .iter()
                        .map(|i| format!("`{}`", crate::escape::text(i)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    crate::units::format_duration(left)
                ),
                delay: pause_now,
            });
        services.clock.sleep(pause_now).await;
        pause = (pause * 2).min(MAX_PAUSE);
        let again = check(&result.missing, origins, services).await;
        looks += 1;
        result.found.extend(again.found);
        result.unchecked.extend(again.unchecked);
        result.missing = again.missing;
    }
    (result, looks)
}

/// Distribution answers `404 NAME_UNKNOWN` for a repository it does not have: the image is
/// missing too. (A `401` without a login is not taken for missing: private registries say it.)
fn is_missing_repository(err: &OciError) -> bool {
    err.is_not_found()
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn stalled_registries_cost_one_deadline_and_each_image_is_named() {
        // Registries that accept connections and never answer.
        let mut listeners = Vec::new();
        let mut uses = Vec::new();
        for _ in 0..3 {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            listeners.push(tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((stream, _)) = listener.accept().await {
                    held.push(stream);
                }
            }));
            uses.push(ImageUse {
                image: format!("127.0.0.1:{port}/capx/manager:v1"),
                object: "Deployment `m`".into(),
                file: "infrastructure-components.yaml".into(),
            });
        }
        // A short deadline: without it each lookup would wait for its connection's timeouts.
        let services = Services {
            policy: RetryPolicy {
                images_deadline: std::time::Duration::from_secs(1),
                ..RetryPolicy::default()
            },
            ..Services::default()
        };
        let started = tokio::time::Instant::now();
        let origins = Origins::new(
            reqwest::Url::parse(crate::forge::github::DEFAULT_API).unwrap(),
            &|_| None,
        );
        let found = check(&uses, &origins, &services).await;
        let waited = started.elapsed();
        assert!(waited < std::time::Duration::from_secs(30), "{waited:?}");
        let unchecked: Vec<&str> = found.unchecked.iter().map(|u| u.image.as_str()).collect();
        let mut images: Vec<&str> = uses.iter().map(|u| u.image.as_str()).collect();
        images.sort_unstable();
        assert_eq!(unchecked, images);
        for warning in found.warnings() {
            assert!(warning.contains("--images-timeout"), "{warning}");
        }
        for listener in listeners {
            listener.abort();
        }
    }

    /// A clock whose time moves only when it is asked to sleep, and says how long each sleep was.
    #[derive(Default)]
    struct SteppingClock {
        slept: std::sync::Mutex<Vec<std::time::Duration>>,
    }

    impl crate::forge::clock::Clock for SteppingClock {
        fn now(&self) -> std::time::SystemTime {
            let slept: std::time::Duration = self.slept.lock().unwrap().iter().sum();
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000) + slept
        }

        fn sleep(
            &self,
            duration: std::time::Duration,
        ) -> crate::forge::clock::BoxFuture<'static, ()> {
            self.slept.lock().unwrap().push(duration);
            Box::pin(async {})
        }
    }

    /// The waits reported, by their reason.
    #[derive(Default)]
    struct Waits(std::sync::Mutex<Vec<String>>);

    impl crate::forge::progress::Progress for Waits {
        fn event(&self, event: &crate::forge::progress::Event<'_>) {
            if let crate::forge::progress::Event::Waiting { reason, .. } = event {
                self.0.lock().unwrap().push(reason.to_string());
            }
        }
    }

    /// A loopback registry where `capx/manager:v1` appears after `misses` lookups (never, for
    /// `None`), and a use of that image.
    async fn registry_with_late_image(misses: Option<u64>) -> (wiremock::MockServer, ImageUse) {
        use wiremock::matchers::{method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::start().await;
        const MANIFEST: &str = "/v2/capx/manager/manifests/v1";
        let missing = Mock::given(method("HEAD"))
            .and(path(MANIFEST))
            .respond_with(ResponseTemplate::new(404))
            .with_priority(1);
        match misses {
            Some(misses) => missing.up_to_n_times(misses).mount(&server).await,
            None => missing.mount(&server).await,
        }
        Mock::given(method("HEAD"))
            .and(path(MANIFEST))
            .respond_with(ResponseTemplate::new(200).insert_header("docker-content-digest", DIGEST))
            .with_priority(2)
            .mount(&server)
            .await;
        let image = format!("{}/capx/manager:v1", server.address());
        let use_ = ImageUse {
            image,
            object: "Deployment `capx-controller-manager`, container `manager`".into(),
            file: "infrastructure-components.yaml".into(),
        };
        (server, use_)
    }

    const DIGEST: &str = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945";

    fn waiting_services() -> (Services, Arc<SteppingClock>, Arc<Waits>) {
        let clock = Arc::new(SteppingClock::default());
        let waits = Arc::new(Waits::default());
        let services = Services {
            clock: clock.clone(),
            progress: waits.clone(),
            ..Services::default()
        };
        (services, clock, waits)
    }

    fn origins() -> Origins {
        Origins::new(
            reqwest::Url::parse(crate::forge::github::DEFAULT_API).unwrap(),
            &|_| None,
        )
    }

    #[tokio::test]
    async fn an_image_pushed_while_the_release_waits_is_found_after_backoff() {
        let (_server, use_) = registry_with_late_image(Some(2)).await;
        let (services, clock, waits) = waiting_services();
        let wait = Wait::up_to(std::time::Duration::from_secs(600));
        let (found, looks) = check_waiting(
            std::slice::from_ref(&use_),
            &origins(),
            &services,
            Some(wait),
        )
        .await;
        assert_eq!(looks, 3);
        assert!(found.ok(), "{found:?}");
        assert_eq!(found.found, std::slice::from_ref(&use_.image));
        // Backoff: each pause twice the one before.
        let slept = clock.slept.lock().unwrap().clone();
        assert_eq!(slept, [5, 10].map(std::time::Duration::from_secs));
        let waits = waits.0.lock().unwrap().clone();
        assert_eq!(waits.len(), 2, "{waits:?}");
        assert!(
            waits[0].starts_with(&format!(
                "for 1 image(s) not in their registry yet: `{}` (up to 10m more)",
                use_.image
            )),
            "{waits:?}"
        );
        // Without a wait, one look finds it missing.
        let (_server, use_) = registry_with_late_image(Some(2)).await;
        let (found, looks) = check_waiting(&[use_], &origins(), &services, None).await;
        assert_eq!((looks, found.missing.len()), (1, 1));
    }

    #[tokio::test]
    async fn an_image_that_never_comes_is_missing_once_the_bound_is_spent() {
        let (_server, use_) = registry_with_late_image(None).await;
        let (services, clock, waits) = waiting_services();
        let wait = Wait::up_to(std::time::Duration::from_secs(30));
        let (found, looks) = check_waiting(&[use_], &origins(), &services, Some(wait)).await;
        // 5 s, 10 s, then the 15 s left of the bound.
        let slept = clock.slept.lock().unwrap().clone();
        assert_eq!(slept, [5, 10, 15].map(std::time::Duration::from_secs));
        assert_eq!(looks, 4);
        assert_eq!(found.missing.len(), 1);
        assert!(found.found.is_empty());
        assert_eq!(waits.0.lock().unwrap().len(), 3);
    }

    #[tokio::test]
    async fn a_digest_is_the_one_the_registry_gives_the_tag() {
        let (_server, use_) = registry_with_late_image(Some(1)).await;
        let services = Services::default();
        let lookups = vec![(3, use_.image.clone())];
        let first = digests(&lookups, &origins(), &services).await;
        assert_eq!(first.len(), 1);
        let (index, answer) = &first[0];
        assert_eq!(*index, 3);
        assert!(
            answer
                .as_ref()
                .unwrap_err()
                .contains("is the image pushed?"),
            "{answer:?}"
        );
        let second = digests(&lookups, &origins(), &services).await;
        assert_eq!(second, [(3, Ok(DIGEST.to_string()))]);
    }

    #[test]
    fn images_are_located_as_docker_pulls_them() {
        let cases = [
            (
                "gcr.io/org/manager:v1.2.3",
                "gcr.io",
                "org/manager",
                "v1.2.3",
                false,
            ),
            (
                "nginx",
                "registry-1.docker.io",
                "library/nginx",
                "latest",
                false,
            ),
            (
                "docker.io/org/img:v1",
                "registry-1.docker.io",
                "org/img",
                "v1",
                false,
            ),
            (
                "localhost:5000/capx/manager:v1",
                "localhost:5000",
                "capx/manager",
                "v1",
                true,
            ),
            (
                "127.0.0.1:5000/m@sha256:0123456789012345678901234567890123456789012345678901234567890123",
                "127.0.0.1:5000",
                "m",
                "sha256:0123456789012345678901234567890123456789012345678901234567890123",
                true,
            ),
        ];
        for (image, registry, repository, wanted, plain) in cases {
            let (reference, got) = locate(image).unwrap();
            assert_eq!(
                (
                    reference.registry.as_str(),
                    reference.repository.as_str(),
                    got.as_str(),
                    reference.plain_http
                ),
                (registry, repository, wanted, plain),
                "{image}"
            );
        }
    }

    #[test]
    fn images_of_every_workload_are_listed_once_with_their_object() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/x/manager:v1\n      initContainers:\n      - name: init\n        image: gcr.io/x/init:v1\n---\nkind: ConfigMap\ndata:\n  image: not/an-image:v1\n";
        let file = crate::files::load_text(
            "infrastructure-components.yaml",
            text.to_string(),
            crate::provider::FileRole::Components {
                provider_type: crate::provider::ProviderType::Infrastructure,
                suffix: None,
            },
        );
        let release = Release {
            dir: "out".into(),
            files: vec![file],
            near_misses: Vec::new(),
        };
        let uses = image_uses(&[&release]);
        let images: Vec<_> = uses.iter().map(|u| u.image.as_str()).collect();
        assert_eq!(images, ["gcr.io/x/manager:v1", "gcr.io/x/init:v1"]);
        assert_eq!(
            uses[0].object,
            "Deployment `capx-controller-manager`, container `manager`"
        );
    }
}
