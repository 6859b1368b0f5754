//! Cluster templates and ClusterClass files, old against new, as `clusterctl generate cluster`
//! users meet them: flavors removed and added (`cluster-template[-{flavor}].yaml`), variables a
//! file now needs without a default (clusterctl's own listing, [`crate::subst::inventory`]),
//! Clusters that use another ClusterClass, and every ClusterClass, in its own file or in a
//! template, compared by [`super::clusterclass`].
//!
//! clusterctl reads templates from the infrastructure provider only, and a release keeps them
//! with one provider ([`crate::provider::templates_owner`]), while a GitHub or OCI read gives
//! them to whichever provider it reads: a provider is compared here when it is an
//! infrastructure provider or its new release holds templates, so that the other providers of a
//! multi-provider release do not all lose them.

use std::collections::BTreeMap;

use super::clusterclass::{self, Class, written};
use super::{Change, ChangeKind, Section, Sink};
use crate::files::{Release, ReleaseFile};
use crate::k8s::Object;
use crate::provider::{FileRole, ProviderType};
use crate::rules::upgrade as rules;
use crate::subst::{self, Values};
use crate::verify::ReadRelease;
use crate::yaml::Span;

/// One provider's templates and ClusterClass files, old against new.
pub(crate) fn compare(old: &ReadRelease, new: &ReadRelease, sink: &mut Sink) {
    if !compared_here(new) {
        return;
    }
    let previous = old
        .options
        .version
        .as_ref()
        .map_or_else(|| "the previous release".to_string(), |v| v.to_string());
    let (before, after) = (by_name(&old.release), by_name(&new.release));
    let names: std::collections::BTreeSet<&str> =
        before.keys().chain(after.keys()).copied().collect();
    for name in names {
        match (before.get(name), after.get(name)) {
            (Some(was), None) => removed(was, &new.release, sink),
            (None, Some(now)) => sink.change(Change::bare(
                ChangeKind::Added,
                Section::Templates,
                file_subject(now),
            )),
            (Some(was), Some(now)) => {
                variables(was, now, &previous, sink);
                clusters(was, now, sink);
                classes(was, now, sink);
            }
            (None, None) => {}
        }
    }
}

fn compared_here(new: &ReadRelease) -> bool {
    let provider_type = new
        .options
        .provider_type
        .or_else(|| new.release.provider_type_from_names());
    provider_type == Some(ProviderType::Infrastructure)
        || new.release.files.iter().any(|f| f.role.is_template())
}

/// Templates and ClusterClass files by file name: the name clusterctl fetches them by.
fn by_name(release: &Release) -> BTreeMap<&str, &ReleaseFile> {
    release
        .files
        .iter()
        .filter(|f| f.role.is_template())
        .map(|f| (f.file_name(), f))
        .collect()
}

/// `flavor development (cluster-template-development.yaml)`, `ClusterClass quick-start
/// (clusterclass-quick-start.yaml)`.
fn file_subject(file: &ReleaseFile) -> String {
    let name = file.file_name();
    match &file.role {
        FileRole::ClusterTemplate {
            flavor: Some(flavor),
        } => format!("flavor {flavor} ({name})"),
        FileRole::ClusterTemplate { flavor: None } => format!("default flavor ({name})"),
        FileRole::ClusterClass { name: class } => format!("ClusterClass {class} ({name})"),
        _ => name.to_string(),
    }
}

/// A file the new release no longer has.
fn removed(was: &ReleaseFile, new: &Release, sink: &mut Sink) {
    let name = was.file_name();
    sink.change(Change::bare(
        ChangeKind::Removed,
        Section::Templates,
        file_subject(was),
    ));
    let (rule, message) = match &was.role {
        FileRole::ClusterTemplate {
            flavor: Some(flavor),
        } => (
            &rules::FLAVOR_REMOVED,
            format!(
                "flavor `{flavor}` is gone: `clusterctl generate cluster --flavor {flavor}` fails with this release (`{name}` is not in it)"
            ),
        ),
        FileRole::ClusterTemplate { flavor: None } => (
            &rules::FLAVOR_REMOVED,
            format!(
                "the default flavor is gone: `clusterctl generate cluster` without `--flavor` fails with this release (`{name}` is not in it)"
            ),
        ),
        FileRole::ClusterClass { name: class } => (
            &rules::CLUSTERCLASS_REMOVED,
            format!(
                "ClusterClass `{class}` is gone (`{name}`): Clusters using it keep it, but templates and manifests that name it fail where it is not installed yet"
            ),
        ),
        _ => return,
    };
    sink.on_file(rule, None, &new.dir.join(name), message);
}

/// `required` or `default "v1.31.0"`, the default quoted as `--list-variables` shows it.
fn shown(variable: &subst::Variable) -> String {
    match &variable.default {
        None => "required".into(),
        Some(default) => format!(
            "default {}",
            String::from_utf8_lossy(&subst::shown_default(default))
        ),
    }
}

/// The variables clusterctl lists for a file, by the name it looks them up under.
fn listed(file: &ReleaseFile) -> Result<BTreeMap<String, subst::Variable>, subst::Error> {
    let inventory = subst::inventory(file.source().text().as_bytes())?;
    let mut out = BTreeMap::new();
    for variable in inventory.variables.into_values() {
        // Two spellings of one name: the first use, in file order, is clusterctl's.
        let key = Values::env_key(&variable.name);
        match out.get(&key) {
            Some(seen) if seen_first(seen, &variable) => {}
            _ => {
                out.insert(key, variable);
            }
        }
    }
    Ok(out)
}

fn seen_first(seen: &subst::Variable, other: &subst::Variable) -> bool {
    seen.span.start <= other.span.start
}

/// Variables a file needs now that it did not (a finding), and every other variable change.
fn variables(was: &ReleaseFile, now: &ReleaseFile, previous: &str, sink: &mut Sink) {
    let name = now.file_name();
    let (before, after) = match (listed(was), listed(now)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(e), _) | (_, Err(e)) => {
            // A file that does not parse is `variables/syntax`'s finding in lint.
            sink.change(Change::described(
                Section::Templates,
                format!("{name} variables"),
                format!("not compared: a file does not parse ({e})"),
            ));
            return;
        }
    };
    for (key, variable) in &after {
        let subject = format!("{name} variable {}", variable.name);
        let old = before.get(key);
        if old.is_some_and(|o| o.default == variable.default) {
            continue;
        }
        sink.change(Change::new(
            Section::Templates,
            subject,
            old.map(shown),
            Some(shown(variable)),
        ));
        if variable.default.is_some() || subst::SET_BY_GENERATE_CLUSTER.contains(&key.as_str()) {
            continue;
        }
        let before_text = match old {
            None => format!("which {previous}'s did not use"),
            Some(o) => format!("which had a {} in {previous}", shown(o)),
        };
        let span = Span::new(variable.span.start, variable.span.end);
        sink.at_span(
            &rules::TEMPLATE_VARIABLE_REQUIRED,
            now,
            span,
            format!(
                "`{name}` now needs `{}` (no default), {before_text}: `clusterctl generate cluster` fails with \"value for variables [{}] is not set\" until users set it",
                variable.name, variable.name
            ),
        )
        .with_field(format!("variables[{}]", variable.name));
    }
    for (key, variable) in &before {
        if !after.contains_key(key) {
            sink.change(Change::new(
                Section::Templates,
                format!("{name} variable {}", variable.name),
                Some(shown(variable)),
                None,
            ));
        }
    }
}

/// The Clusters of a template with the ClusterClass each uses (its name as written), by the
/// Cluster's name as written.
fn cluster_classes(file: &ReleaseFile) -> Vec<(String, Object<'_>, Option<&crate::yaml::Node>)> {
    file.yaml
        .roots()
        .filter_map(Object::new)
        .filter(|o| o.is_kind("Cluster") && o.group() == "cluster.x-k8s.io")
        .map(|object| {
            let name = object
                .root
                .path(&["metadata", "name"])
                .map(|n| written(file, n).to_string())
                .unwrap_or_default();
            (name, object, crate::rules::class_reference(&object))
        })
        .collect()
}

/// A template whose Cluster uses another ClusterClass than before, or none any more.
fn clusters(was: &ReleaseFile, now: &ReleaseFile, sink: &mut Sink) {
    let (before, after) = (cluster_classes(was), cluster_classes(now));
    let single = before.len() == 1 && after.len() == 1;
    for (name, object, class) in &after {
        let Some((_, _, old_class)) = before.iter().find(|(n, _, _)| single || n == name) else {
            continue;
        };
        let old_text = old_class.map(|n| written(was, n));
        let new_text = class.map(|n| written(now, n));
        if old_text == new_text {
            continue;
        }
        let subject = format!("{} Cluster {name} ClusterClass", now.file_name());
        sink.change(Change::new(
            Section::Templates,
            subject,
            old_text.map(str::to_string),
            new_text.map(str::to_string),
        ));
        let Some(old_text) = old_text else {
            continue;
        };
        let message = match new_text {
            Some(new_text) => format!(
                "`{}`'s Cluster now uses ClusterClass `{new_text}` instead of `{old_text}`: existing Clusters keep `{old_text}`, and applying a regenerated manifest rebases them",
                now.file_name()
            ),
            None => format!(
                "`{}`'s Cluster no longer uses ClusterClass `{old_text}`",
                now.file_name()
            ),
        };
        sink.finding(
            &rules::TEMPLATE_CLUSTERCLASS_CHANGED,
            now,
            class.unwrap_or_else(|| object.anchor()),
            message,
        );
    }
}

/// The ClusterClasses of a file in both releases, paired by name.
fn classes(was: &ReleaseFile, now: &ReleaseFile, sink: &mut Sink) {
    let (before, after) = (Class::all_in(was), Class::all_in(now));
    for old in &before {
        match after.iter().find(|c| c.name() == old.name()) {
            Some(new) => clusterclass::compare(old, new, sink),
            None => {
                sink.change(Change::bare(
                    ChangeKind::Removed,
                    Section::Templates,
                    old.subject(),
                ));
                sink.on_file(
                    &rules::CLUSTERCLASS_REMOVED,
                    Some(now),
                    &now.path,
                    format!(
                        "{} is no longer in `{}`: Clusters using it keep it, but manifests that name it fail where it is not installed yet",
                        old.subject(),
                        now.file_name()
                    ),
                );
            }
        }
    }
    for new in &after {
        if !before.iter().any(|c| c.name() == new.name()) {
            sink.change(Change::bare(
                ChangeKind::Added,
                Section::Templates,
                new.subject(),
            ));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
