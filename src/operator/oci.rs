//! cluster-api-operator's OCI source (`internal/controller/oci_source.go`): how it splits
//! `spec.fetchConfig.oci` into a repository and a tag, and which layers it takes, by their
//! `org.opencontainers.image.title` annotation, in its order of preference.

use crate::provider::ProviderType;

/// The annotation the operator selects layers by.
pub const TITLE_ANNOTATION: &str = "org.opencontainers.image.title";

/// `spec.fetchConfig.oci` as the operator splits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciSource {
    /// `http://` was written: plain http.
    pub plain_http: bool,
    /// `host[:port]/path`.
    pub repository: String,
    /// The tag: the one in the reference, else `spec.version`.
    pub tag: String,
}

/// `parseOCISource(url, version)`: strip `http://` (plain http); split on `:` into at most three
/// parts; two parts whose second holds no `/` are repository and tag; three parts are
/// `host:port/repository` and tag; anything else is the repository, tagged `spec.version`.
/// Digests are not supported (`repo@sha256:…` splits as a tag) and neither is `https://`.
pub fn parse_oci_source(url: &str, version: &str) -> OciSource {
    let plain_http = url.starts_with("http://");
    let url = url.strip_prefix("http://").unwrap_or(url);
    let parts: Vec<&str> = url.splitn(3, ':').collect();
    let (repository, tag) = match parts.as_slice() {
        [repository, tag] if !tag.contains('/') => (repository.to_string(), tag.to_string()),
        [host, port_path, tag] => (format!("{host}:{port_path}"), tag.to_string()),
        _ => (url.to_string(), version.to_string()),
    };
    OciSource {
        plain_http,
        repository,
        tag,
    }
}

/// `<type>-<name>-<version>-metadata.yaml`: the name the operator prefers for metadata.
pub fn metadata_title(provider_type: ProviderType, name: &str, version: &str) -> String {
    format!(
        "{}-{name}-{version}-metadata.yaml",
        provider_type.operator_name()
    )
}

/// `<type>-<name>-<version>-components.yaml`: the name the operator prefers for components.
pub fn components_title(provider_type: ProviderType, name: &str, version: &str) -> String {
    format!(
        "{}-{name}-{version}-components.yaml",
        provider_type.operator_name()
    )
}

/// The metadata titles in the operator's order of preference.
pub fn metadata_titles(provider_type: ProviderType, name: &str, version: &str) -> [String; 2] {
    [
        metadata_title(provider_type, name, version),
        "metadata.yaml".to_string(),
    ]
}

/// The components titles in the operator's order of preference.
pub fn components_titles(provider_type: ProviderType, name: &str, version: &str) -> [String; 3] {
    [
        components_title(provider_type, name, version),
        format!("{}-components.yaml", provider_type.operator_name()),
        "components.yaml".to_string(),
    ]
}

/// What the operator takes from an artifact for one provider: the title and content of the
/// metadata and of the components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected<'a> {
    pub metadata: (&'a str, &'a [u8]),
    pub components: (&'a str, &'a [u8]),
}

/// Picks the layers the operator reads for `provider_type`/`name` at `version` (`spec.version`)
/// among `(title, content)` pairs, with its preference order and error texts. Empty files count
/// as missing.
pub fn select<'a>(
    layers: &'a [(String, Vec<u8>)],
    provider_type: ProviderType,
    name: &str,
    version: &str,
) -> Result<Selected<'a>, String> {
    let find = |titles: &[String]| {
        titles.iter().find_map(|title| {
            layers
                .iter()
                .find(|(t, content)| t == title && !content.is_empty())
                .map(|(t, content)| (t.as_str(), content.as_slice()))
        })
    };
    let metadata_names = metadata_titles(provider_type, name, version);
    let metadata = find(&metadata_names).ok_or_else(|| {
        format!(
            "collected artifact needs to provide metadata as {} or metadata.yaml file",
            metadata_names[0]
        )
    })?;
    let components_names = components_titles(provider_type, name, version);
    let components = find(&components_names).ok_or_else(|| {
        format!(
            "collected artifact needs to provide components as {} or {} or components.yaml file",
            components_names[0], components_names[1]
        )
    })?;
    Ok(Selected {
        metadata,
        components,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_split_as_the_operator_splits_them() {
        // (spec.fetchConfig.oci, spec.version) -> (plain http, repository, tag)
        let cases = [
            (
                "registry/image:v1.1.0",
                "v9",
                (false, "registry/image", "v1.1.0"),
            ),
            (
                "registry:5050/image",
                "v1.0.0",
                (false, "registry:5050/image", "v1.0.0"),
            ),
            (
                "registry:5050/image:v2",
                "v1.0.0",
                (false, "registry:5050/image", "v2"),
            ),
            (
                "registry/image",
                "v1.0.0",
                (false, "registry/image", "v1.0.0"),
            ),
            (
                "http://127.0.0.1:5000/capi/aws:v1",
                "v0",
                (true, "127.0.0.1:5000/capi/aws", "v1"),
            ),
            (
                "http://localhost/capi",
                "v3",
                (true, "localhost/capi", "v3"),
            ),
            // Not supported by the operator: a digest is read as a tag, https:// stays in.
            (
                "registry/image@sha256:abc",
                "v1",
                (false, "registry/image@sha256", "abc"),
            ),
            (
                "https://registry/image",
                "v1",
                (false, "https://registry/image", "v1"),
            ),
        ];
        for (url, version, (plain, repository, tag)) in cases {
            assert_eq!(
                parse_oci_source(url, version),
                OciSource {
                    plain_http: plain,
                    repository: repository.into(),
                    tag: tag.into()
                },
                "{url}"
            );
        }
    }

    fn layers(titles: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        titles
            .iter()
            .map(|(t, c)| (t.to_string(), c.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn layers_are_chosen_in_the_operator_order() {
        let t = ProviderType::RuntimeExtension;
        type Case<'a> = (
            &'a [(&'a str, &'a str)],
            Result<(&'a str, &'a str), &'a str>,
        );
        let cases: &[Case] = &[
            (
                &[
                    ("metadata.yaml", "m"),
                    ("runtimeextension-x-v1-metadata.yaml", "M"),
                    ("components.yaml", "c"),
                    ("runtimeextension-components.yaml", "t"),
                    ("runtimeextension-x-v1-components.yaml", "C"),
                ],
                Ok((
                    "runtimeextension-x-v1-metadata.yaml",
                    "runtimeextension-x-v1-components.yaml",
                )),
            ),
            (
                &[
                    ("metadata.yaml", "m"),
                    ("components.yaml", "c"),
                    ("runtimeextension-components.yaml", "t"),
                ],
                Ok(("metadata.yaml", "runtimeextension-components.yaml")),
            ),
            (
                &[("metadata.yaml", "m"), ("components.yaml", "c")],
                Ok(("metadata.yaml", "components.yaml")),
            ),
            // capkg's own file name has a dash the operator's type string lacks.
            (
                &[
                    ("metadata.yaml", "m"),
                    ("runtime-extension-components.yaml", "c"),
                ],
                Err(
                    "collected artifact needs to provide components as runtimeextension-x-v1-components.yaml or runtimeextension-components.yaml or components.yaml file",
                ),
            ),
            (
                &[
                    ("runtimeextension-x-v1-metadata.yaml", ""),
                    ("components.yaml", "c"),
                ],
                Err(
                    "collected artifact needs to provide metadata as runtimeextension-x-v1-metadata.yaml or metadata.yaml file",
                ),
            ),
            // The version in the titles is spec.version, not the tag.
            (
                &[
                    ("runtimeextension-x-v2-metadata.yaml", "m"),
                    ("components.yaml", "c"),
                ],
                Err(
                    "collected artifact needs to provide metadata as runtimeextension-x-v1-metadata.yaml or metadata.yaml file",
                ),
            ),
        ];
        for (given, expected) in cases {
            let given = layers(given);
            let got = select(&given, t, "x", "v1").map(|s| (s.metadata.0, s.components.0));
            assert_eq!(got, expected.map_err(str::to_string), "{given:?}");
        }
    }
}
