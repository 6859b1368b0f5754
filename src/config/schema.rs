//! capkg.yaml's schema, as serde reads it ([`crate::yaml::de`]: unknown fields, wrong shapes
//! and missing fields are errors at their place, worded from the serde names below). What a
//! schema cannot say is [`super::check`]'s.

use super::*;

// The file's schema, as serde reads it ([`yaml::de`]: unknown fields, wrong shapes and missing
// fields are errors at their place, worded from the serde names below). What a schema cannot
// say (a valid namespace, one components source, no two providers writing one file) is
// [`Checker`]'s, with the places [`Spanned`] keeps.

#[derive(Deserialize)]
#[serde(rename = "the top level", deny_unknown_fields)]
pub(super) struct RawConfig {
    pub(super) provider: Option<Spanned<RawIdentity>>,
    #[serde(default, deserialize_with = "providers_list")]
    pub(super) providers: Option<Vec<Spanned<RawProvider>>>,
    pub(super) components: Option<Spanned<OneOrMany<Spanned<RawComponents>>>>,
    pub(super) metadata: Option<Spanned<String>>,
    pub(super) templates: Option<Strings>,
    pub(super) namespace: Option<Spanned<String>>,
    pub(super) version: Option<Spanned<String>>,
    pub(super) output: Option<Spanned<String>>,
    pub(super) targets: Option<RawTargets>,
    #[serde(default, deserialize_with = "images_list")]
    pub(super) images: Option<Vec<Spanned<RawImage>>>,
    pub(super) lint: Option<RawLint>,
    pub(super) check_images: Option<bool>,
    pub(super) previous: Option<Spanned<String>>,
}

/// `provider:` of the single-provider form.
#[derive(Deserialize)]
#[serde(rename = "`provider`", deny_unknown_fields)]
pub(super) struct RawIdentity {
    pub(super) name: Option<Spanned<String>>,
    #[serde(rename = "type")]
    pub(super) provider_type: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "a `providers` entry", deny_unknown_fields)]
pub(super) struct RawProvider {
    pub(super) name: Option<Spanned<String>>,
    #[serde(rename = "type")]
    pub(super) provider_type: Option<Spanned<String>>,
    pub(super) components: Option<Spanned<OneOrMany<Spanned<RawComponents>>>>,
    pub(super) namespace: Option<Spanned<String>>,
    /// `suffix:`, `suffix: ""` or `suffix: ~`: this provider's components file has none.
    pub(super) suffix: Option<Spanned<NullableString>>,
}

#[derive(Deserialize)]
#[serde(rename = "`components`", deny_unknown_fields)]
pub(super) struct RawComponents {
    pub(super) file: Option<Spanned<String>>,
    pub(super) files: Option<Spanned<Strings>>,
    pub(super) command: Option<Spanned<RawCommand>>,
    pub(super) suffix: Option<Spanned<String>>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) output_limit: Option<Spanned<String>>,
}

/// `command:` as a list (an argument vector) or a string (a shell line).
pub(super) enum RawCommand {
    Argv(Vec<String>),
    Shell(String),
}

impl<'de> Deserialize<'de> for RawCommand {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CommandVisitor;

        impl<'de> serde::de::Visitor<'de> for CommandVisitor {
            type Value = RawCommand;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: serde::de::Error>(self, line: &str) -> Result<RawCommand, E> {
                Ok(RawCommand::Shell(line.to_string()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawCommand, A::Error> {
                let mut argv = Vec::new();
                while let Some(arg) = seq.next_element::<String>()? {
                    argv.push(arg);
                }
                Ok(RawCommand::Argv(argv))
            }
        }

        deserializer.deserialize_any(CommandVisitor)
    }
}

#[derive(Deserialize)]
#[serde(rename = "an `images` entry", deny_unknown_fields)]
pub(super) struct RawImage {
    pub(super) name: Option<Spanned<String>>,
    #[serde(rename = "newName")]
    pub(super) new_name: Option<Spanned<String>>,
    #[serde(rename = "newTag")]
    pub(super) new_tag: Option<Spanned<String>>,
    pub(super) digest: Option<Spanned<String>>,
    /// capkg's own: the environment variable holding the digest at release time.
    pub(super) digest_env: Option<Spanned<String>>,
    #[serde(rename = "pullPolicy")]
    pub(super) pull_policy: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "`lint`", deny_unknown_fields)]
pub(super) struct RawLint {
    #[serde(default, deserialize_with = "waivers_list")]
    pub(super) allow: Vec<Spanned<RawWaiver>>,
}

#[derive(Deserialize)]
#[serde(rename = "a `lint.allow` entry", deny_unknown_fields)]
pub(super) struct RawWaiver {
    pub(super) rule: Option<Spanned<String>>,
    pub(super) files: Option<Spanned<Strings>>,
    pub(super) objects: Option<Spanned<Strings>>,
    pub(super) field: Option<Spanned<String>>,
    pub(super) previous: Option<Spanned<String>>,
    pub(super) reason: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets`", deny_unknown_fields)]
pub(super) struct RawTargets {
    pub(super) github: Option<RawGitHub>,
    pub(super) gitlab: Option<RawGitLab>,
    pub(super) local: Option<RawLocal>,
    pub(super) oci: Option<RawOci>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.github`", deny_unknown_fields)]
pub(super) struct RawGitHub {
    pub(super) repo: Spanned<String>,
    pub(super) api_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.gitlab`", deny_unknown_fields)]
pub(super) struct RawGitLab {
    pub(super) project: Option<Spanned<String>>,
    pub(super) package: Option<Spanned<String>>,
    pub(super) api_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.local`", deny_unknown_fields)]
pub(super) struct RawLocal {
    pub(super) repository: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.oci`", deny_unknown_fields)]
pub(super) struct RawOci {
    pub(super) repository: Spanned<String>,
    pub(super) tag: Option<String>,
}

fn providers_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Spanned<RawProvider>>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`providers` must be a list of providers (`- name: …`, `type: …`, `components: …`)",
        Some("`providers` needs at least one provider"),
    )
    .map(Some)
}

fn images_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Spanned<RawImage>>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`images` must be a list of `{name, newName, newTag, digest, pullPolicy}` entries",
        None,
    )
    .map(Some)
}

fn waivers_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Spanned<RawWaiver>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`lint.allow` must be a list of `{rule, files, objects, field, previous, reason}` entries",
        None,
    )
}
