//! Docker image references as `github.com/distribution/reference` parses them, and what a
//! reference says about where an image comes from (a moving tag, a registry only the builder
//! can reach, a placeholder nobody replaced).

/// Why a reference is not canonical, or `Ok` when `ParseNamed` accepts it unchanged.
pub(crate) fn check_canonical(image: &str) -> Result<(), String> {
    let (name, _tag, _digest) = split(image)?;
    let (domain, path) = split_domain(name);
    let Some(domain) = domain else {
        return Err("it has no registry (docker would read it as `docker.io/…`)".into());
    };
    if domain == "index.docker.io" {
        return Err("`index.docker.io` is written `docker.io` in canonical form".into());
    }
    if domain == "docker.io" && !path.contains('/') {
        return Err("official Docker Hub images need the `library/` path".into());
    }
    if !valid_domain(domain) {
        return Err(format!("`{domain}` is not a valid registry host"));
    }
    for component in path.split('/') {
        if !valid_path_component(component) {
            return Err(format!(
                "path component `{component}` must be lower-case letters, digits and separators"
            ));
        }
    }
    if name.len() > 255 {
        return Err("the name is longer than 255 characters".into());
    }
    Ok(())
}

/// Why `name`, an image name without tag or digest, is not one docker accepts, or `Ok`: an
/// optional registry host (`gcr.io`, `localhost:5000`), then path components of lower-case
/// letters and digits joined by separators, 255 characters at most.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.len() > 255 {
        return Err("the name is longer than 255 characters".into());
    }
    let (domain, path) = split_domain(name);
    if let Some(domain) = domain
        && !valid_domain(domain)
    {
        return Err("its registry is not a host name".into());
    }
    if !path.split('/').all(valid_path_component) {
        return Err(
            "its path must be lower-case letters and digits, joined by `.`, `_`, `__` or `-`"
                .into(),
        );
    }
    Ok(())
}

/// The canonical form docker would give a reference, when it differs.
pub(crate) fn canonical_form(image: &str) -> Option<String> {
    let (name, _, _) = split(image).ok()?;
    let suffix = &image[name.len()..];
    let (domain, path) = split_domain(name);
    let (domain, path) = match domain {
        None | Some("index.docker.io") => ("docker.io", path),
        Some(d) => (d, path),
    };
    if !path.split('/').all(valid_path_component) {
        return None;
    }
    let path = if domain == "docker.io" && !path.contains('/') {
        format!("library/{path}")
    } else {
        path.to_string()
    };
    let canonical = format!("{domain}/{path}{suffix}");
    (canonical != image).then_some(canonical)
}

/// The tag, if any.
pub(crate) fn tag(image: &str) -> Option<&str> {
    split(image).ok()?.1
}

/// A reference split as written: `name[:tag][@digest]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    /// Registry and path, without tag or digest (`gcr.io/a/manager`).
    pub name: &'a str,
    pub tag: Option<&'a str>,
    pub digest: Option<&'a str>,
}

impl<'a> Parts<'a> {
    /// The parts of a reference, or why it is not one.
    pub(crate) fn parse(image: &'a str) -> Result<Self, String> {
        let (name, tag, digest) = split(image)?;
        Ok(Self { name, tag, digest })
    }

    /// The registry host (and port) when the name has one (`localhost:5000`, `gcr.io`).
    pub(crate) fn registry(&self) -> Option<&'a str> {
        split_domain(self.name).0
    }
}

/// Tags that name whatever was built last rather than one build.
pub(crate) const MOVING_TAGS: &[&str] = &[
    "latest", "main", "master", "dev", "develop", "edge", "nightly", "canary",
];

/// Why an image cannot be what a release runs, when it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unreleasable {
    /// No tag and no digest: docker reads it as `:latest`.
    NoTag,
    /// A tag in [`MOVING_TAGS`].
    MovingTag(String),
    /// A registry only the builder's machine, network or cluster can reach; the reason says why.
    LocalRegistry { registry: String, why: &'static str },
    /// A value a scaffold or a build script was meant to replace.
    Placeholder(&'static str),
}

impl Unreleasable {
    /// The finding's message for `image`.
    pub(crate) fn describe(&self, image: &str) -> String {
        match self {
            Unreleasable::NoTag => format!("image `{image}` has no tag, so it means `latest`"),
            Unreleasable::MovingTag(tag) => format!("image `{image}` uses the moving tag `{tag}`"),
            Unreleasable::LocalRegistry { registry, why } => format!(
                "image `{image}` comes from `{registry}`, {why}; users' clusters cannot pull it"
            ),
            Unreleasable::Placeholder(what) => {
                format!("image `{image}` is a placeholder ({what}), not a published image")
            }
        }
    }
}

/// The first reason an image cannot be what a release runs: a placeholder, then a local
/// registry, then a moving or missing tag. A digest pins the image whatever its tag says.
pub(crate) fn unreleasable(image: &str) -> Option<Unreleasable> {
    if has_clusterctl_default(image) {
        // clusterctl substitutes it at install time; the default is what users get.
        return None;
    }
    if let Some(what) = placeholder(image) {
        return Some(Unreleasable::Placeholder(what));
    }
    let parts = Parts::parse(image).ok()?;
    if let Some(registry) = parts.registry()
        && let Some(why) = local_registry(registry)
    {
        return Some(Unreleasable::LocalRegistry {
            registry: registry.to_string(),
            why,
        });
    }
    if parts.digest.is_some() {
        return None;
    }
    match parts.tag {
        None => Some(Unreleasable::NoTag),
        Some(tag) if MOVING_TAGS.contains(&tag.to_ascii_lowercase().as_str()) => {
            Some(Unreleasable::MovingTag(tag.to_string()))
        }
        Some(_) => None,
    }
}

/// True for `${VAR:=default}`, `${VAR=default}`, `${VAR:-default}` and `${VAR-default}`.
fn has_clusterctl_default(image: &str) -> bool {
    image.split("${").skip(1).any(|rest| {
        let inner = rest.split('}').next().unwrap_or_default();
        inner.contains('=') || inner.contains('-')
    })
}

/// What kind of placeholder an image is, when it is one: `${IMG}` or `$(IMG)` left from a
/// template or a Makefile, an upper-case word (`IMAGE`), kubebuilder's `controller` image, or an
/// `example.com` registry (RFC 2606 names are never real registries).
pub(crate) fn placeholder(image: &str) -> Option<&'static str> {
    if image.contains("${") || image.contains("$(") {
        return Some("an unsubstituted variable");
    }
    let name = Parts::parse(image).map_or(image, |p| p.name);
    if !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && name.bytes().any(|b| b.is_ascii_uppercase())
    {
        return Some("an upper-case word where the image belongs");
    }
    if name == "controller" {
        return Some("kubebuilder's default `controller` image");
    }
    let registry = split_domain(name).0.unwrap_or_default();
    let host = registry.split(':').next().unwrap_or_default();
    // Only the reserved names themselves (kubebuilder's `example.com/<project>`): a
    // `registry.example.com` is how documentation and tests spell "your registry".
    if ["example.com", "example.org", "example.net"].contains(&host) {
        return Some("an `example` registry");
    }
    None
}

/// Why a registry host exists only where the release was built, when it does: loopback and
/// private addresses, names without a dot (`localhost`, `kind-registry:5000`), and names under
/// `.local`, `.localhost`, `.internal` (`host.docker.internal`), `.svc` and `.localdomain`.
pub(crate) fn local_registry(registry: &str) -> Option<&'static str> {
    let host = match registry.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => registry.rsplit_once(':').map_or(registry, |(h, _)| h),
    };
    let host = host.to_ascii_lowercase();
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return match ip {
            std::net::IpAddr::V4(v4) if v4.is_loopback() || v4.is_unspecified() => {
                Some("a loopback address")
            }
            std::net::IpAddr::V4(v4) if v4.is_private() || v4.is_link_local() => {
                Some("a private network address")
            }
            std::net::IpAddr::V6(v6) if v6.is_loopback() || v6.is_unspecified() => {
                Some("a loopback address")
            }
            std::net::IpAddr::V6(v6) if (v6.segments()[0] & 0xfe00) == 0xfc00 => {
                Some("a private network address")
            }
            _ => None,
        };
    }
    if host == "localhost" || host.ends_with(".localhost") {
        return Some("the builder's own machine");
    }
    if !host.contains('.') {
        return Some(
            "a host name without a domain, which only resolves on the builder's network (a kind or compose registry)",
        );
    }
    for (suffix, why) in [
        (".local", "a local-network (mDNS or cluster) name"),
        (".localdomain", "a local-network name"),
        (
            ".internal",
            "a name only the builder's machine or network resolves",
        ),
        (".svc", "a registry inside the builder's cluster"),
    ] {
        if host.ends_with(suffix) {
            return Some(why);
        }
    }
    None
}

/// `name[:tag][@digest]`.
fn split(image: &str) -> Result<(&str, Option<&str>, Option<&str>), String> {
    if image.is_empty() {
        return Err("the image is empty".into());
    }
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => {
            if !valid_digest(digest) {
                return Err(format!("`{digest}` is not a valid digest"));
            }
            (rest, Some(digest))
        }
        None => (image, None),
    };
    // A tag follows the last `:` after the last `/` (a `:` before it is a port).
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => {
            let tag = &rest[last_slash + i + 1..];
            if !valid_tag(tag) {
                return Err(format!("`{tag}` is not a valid tag"));
            }
            (&rest[..last_slash + i], Some(tag))
        }
        None => (rest, None),
    };
    if name.is_empty() {
        return Err("the image has no name".into());
    }
    Ok((name, tag, digest))
}

/// Docker's `splitDockerDomain`: the first component is a registry when it has `.` or `:`,
/// is `localhost`, or has upper-case letters.
fn split_domain(name: &str) -> (Option<&str>, &str) {
    match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            (Some(first), rest)
        }
        _ => (None, name),
    }
}

fn valid_domain(domain: &str) -> bool {
    let (host, port) = if let Some(rest) = domain.strip_prefix('[') {
        match rest.split_once(']') {
            Some((ip, port)) => (ip, port.strip_prefix(':')),
            None => return false,
        }
    } else {
        match domain.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (domain, None),
        }
    };
    if port.is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if domain.starts_with('[') {
        return host.bytes().all(|b| b.is_ascii_hexdigit() || b == b':');
    }
    !host.is_empty()
        && host.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        })
}

/// `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
fn valid_path_component(component: &str) -> bool {
    let b = component.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if b.is_empty() || !alnum(&b[0]) || !alnum(&b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(&b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !alnum(&b[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|c| c == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// `[\w][\w.-]{0,127}`
fn valid_tag(tag: &str) -> bool {
    let b = tag.as_bytes();
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    !b.is_empty()
        && b.len() <= 128
        && word(&b[0])
        && b.iter().all(|c| word(c) || *c == b'.' || *c == b'-')
}

/// `algorithm:hex` with at least 32 hex digits.
pub(crate) fn valid_digest(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    !algorithm.is_empty()
        && algorithm.as_bytes()[0].is_ascii_alphabetic()
        && algorithm
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'.'))
        && hex.len() >= 32
        && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_docker_accepts() {
        for good in [
            "controller",
            "gcr.io/k8s-staging-x/manager",
            "localhost:5000/x/manager",
            "registry.example.com:443/a__b/c-d.e",
        ] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "gcr.io/x/Manager",
            "controller\n    newName: evil.example/x",
            "gcr.io/x/manager:v1",
            "bad host/x",
            "${REGISTRY}/manager",
            "x//y",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name(&"a".repeat(256)).is_err());
    }

    #[test]
    fn canonical_references() {
        for good in [
            "registry.k8s.io/cluster-api/cluster-api-controller:v1.10.0",
            "docker.io/library/nginx:1.25",
            "gcr.io/k8s-staging-cluster-api/capd-manager:main",
            "localhost:5000/foo/bar:dev",
            "localhost/foo",
            "quay.io/k0sproject/etcd:v3.7.1",
            "ghcr.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "registry.example.com:8443/a__b/c-d/e.f:1.0",
        ] {
            assert_eq!(check_canonical(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn non_canonical_references() {
        for (bad, expect) in [
            ("nginx:1.2", "no registry"),
            ("k0s/k0smotron:latest", "no registry"),
            ("docker.io/nginx", "library"),
            ("index.docker.io/library/nginx", "docker.io"),
            ("gcr.io/Foo/bar", "path component"),
            ("gcr.io/foo/bar:", "tag"),
            ("gcr.io/foo/bar@sha256:abc", "digest"),
            ("", "empty"),
        ] {
            let err = check_canonical(bad).unwrap_err();
            assert!(err.contains(expect), "{bad}: {err}");
        }
        assert_eq!(
            canonical_form("nginx:1.2").as_deref(),
            Some("docker.io/library/nginx:1.2")
        );
        assert_eq!(
            canonical_form("k0s/k0smotron:latest").as_deref(),
            Some("docker.io/k0s/k0smotron:latest")
        );
    }

    #[test]
    fn tags() {
        assert_eq!(tag("localhost:5000/foo"), None);
        assert_eq!(tag("localhost:5000/foo:v1"), Some("v1"));
        assert_eq!(tag("a.io/b"), None);
    }
}
