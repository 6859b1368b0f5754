//! The providers of the release: the kustomizations the Makefile's release builds and those at
//! conventional places, each named by its `cluster.x-k8s.io/provider` label, the components file
//! the Makefile writes, the repository's name, or clusterctl's built-in list; and their manager
//! images, handed to [`super::images`] to propose.

use std::collections::BTreeSet;
use std::path::Path;

use super::images::{ReleaseImages, propose_images};
use super::render::workflow_safe_target;
use super::repository::Repository;
use super::{Components, Detected, Forge, NOT_RELEASED, Provider, builtin, kustomize, makefile};
use crate::provider::{CORE_PROVIDER_NAME, FileRole, ProviderType};

/// The provider a repository name announces (`cluster-api-provider-aws`: infrastructure `aws`).
pub(super) fn from_repository_name(name: &str) -> Option<(ProviderType, String)> {
    if name == CORE_PROVIDER_NAME {
        return Some((ProviderType::Core, name.to_string()));
    }
    let conventions = [
        ("cluster-api-provider-", ProviderType::Infrastructure),
        ("cluster-api-bootstrap-provider-", ProviderType::Bootstrap),
        (
            "cluster-api-control-plane-provider-",
            ProviderType::ControlPlane,
        ),
        (
            "cluster-api-controlplane-provider-",
            ProviderType::ControlPlane,
        ),
        ("cluster-api-ipam-provider-", ProviderType::Ipam),
        ("cluster-api-addon-provider-", ProviderType::Addon),
    ];
    conventions.into_iter().find_map(|(prefix, provider_type)| {
        let rest = name.strip_prefix(prefix)?;
        (!rest.is_empty()).then(|| (provider_type, rest.to_string()))
    })
}

fn not_released(path: &str) -> bool {
    path.split('/').any(|part| NOT_RELEASED.contains(&part))
}

/// `config/default`, `*/config/default` and `*/*/config/default` outside test folders.
fn conventional_kustomizations(repo: &Repository) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut level = vec![String::new()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for prefix in &level {
            let candidate = format!("{prefix}config/default");
            if !not_released(&candidate)
                && kustomize::kustomization_file(repo, Path::new(&candidate)).is_some()
            {
                found.insert(candidate);
            }
            let folder = if prefix.is_empty() {
                "."
            } else {
                prefix.as_str()
            };
            for name in repo.subfolders(Path::new(folder)) {
                if !name.starts_with('.') && !NOT_RELEASED.contains(&name.as_str()) {
                    next.push(format!("{prefix}{name}/"));
                }
            }
        }
        level = next;
    }
    found.into_iter().collect()
}

/// A folder the Makefile builds, as it is in the repository: the release may build a copy
/// (`cp -R config .build; kustomize build .build/config/default`), so leading folders that do
/// not exist are dropped. A folder named outside the repository (`..`, an absolute path) is
/// noted and not used.
fn existing_kustomization(repo: &Repository, dir: &str) -> Option<String> {
    let why = "the Makefile's release builds it";
    if dir.starts_with('/') || dir.split('/').any(|part| part == "..") {
        repo.inside(Path::new(dir), why)?;
        return kustomize::kustomization_file(repo, Path::new(dir))
            .map(|_| repo.shown(Path::new(dir)));
    }
    let parts: Vec<&str> = dir.split('/').collect();
    (0..parts.len()).find_map(|skip| {
        let candidate = parts[skip..].join("/");
        kustomize::kustomization_file(repo, Path::new(&candidate)).map(|_| candidate)
    })
}

struct Candidate {
    dir: String,
    /// Type and suffix from the components file the Makefile writes.
    output: Option<(ProviderType, Option<String>, String)>,
    origin: String,
}

pub(super) fn detect_providers(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    release: &ReleaseImages,
) {
    let mut candidates: Vec<Candidate> = Vec::new();
    for build in &recipe.builds {
        let Some(dir) = existing_kustomization(repo, &build.dir) else {
            let inside = !(build.dir.starts_with('/') || build.dir.split('/').any(|p| p == ".."));
            let components = build.output.as_deref().is_some_and(|file| {
                matches!(
                    FileRole::from_file_name(file),
                    Some(FileRole::Components { .. })
                )
            });
            if inside && components {
                detected.notes.push(format!(
                    "components: the Makefile's release also builds `{}` (Makefile:{}), a kustomization it generates first (not in the repository); capkg builds the committed kustomization instead: what the generated one changes (an image, a pull policy) belongs in `images:`; compare `capkg assemble` with an upstream release once",
                    build.dir, build.line
                ));
            }
            continue;
        };
        let output =
            build
                .output
                .as_deref()
                .and_then(|file| match FileRole::from_file_name(file) {
                    Some(FileRole::Components {
                        provider_type,
                        suffix,
                    }) => Some((provider_type, suffix, file.to_string())),
                    _ => None,
                });
        // A build whose output is not a components file (an intermediate file, a template) is
        // only a provider when the folder is a conventional one.
        if output.is_none() && !dir.ends_with("config/default") {
            continue;
        }
        if candidates.iter().any(|c| c.dir == dir) {
            continue;
        }
        let origin = match &output {
            Some((_, _, file)) => format!(
                "the Makefile's release builds it into {file}, Makefile:{}",
                build.line
            ),
            None => format!("the Makefile's release builds it, Makefile:{}", build.line),
        };
        candidates.push(Candidate {
            dir,
            output,
            origin,
        });
    }
    for dir in conventional_kustomizations(repo) {
        if !candidates.iter().any(|c| c.dir == dir) {
            candidates.push(Candidate {
                dir,
                output: None,
                origin: "kustomization at a conventional place".to_string(),
            });
        }
    }
    if candidates.is_empty() {
        detected.missing.push(
            "components: no kustomization at config/default, */config/default or */*/config/default, and none built by the Makefile's release target".to_string(),
        );
        // The repository may still be one clusterctl lists (a runtime extension built from a
        // Helm chart): its name and type are known even when its components are not.
        let owner_name = match &detected.forge {
            Forge::GitHub(path) => Some(path.as_str()),
            _ => None,
        };
        let listed = detected.repository.as_deref().and_then(|repository| {
            let t = builtin::only_type(owner_name, repository)?;
            builtin::built_in(owner_name, repository, t).map(|entry| (t, entry))
        });
        let provider = match listed {
            Some((t, (listed, name, line))) => {
                detected.found.push(format!(
                    "{}: clusterctl's built-in provider list names {listed} `{name}` ({t}), {}:{line}; its components command is still to be filled in",
                    t.manifest_label(name),
                    builtin::SOURCE
                ));
                Provider {
                    name: Some(name.to_string()),
                    provider_type: Some(t),
                    components: Vec::new(),
                }
            }
            None => Provider::default(),
        };
        detected.providers.push(provider);
        return;
    }
    let convention = detected
        .repository
        .as_deref()
        .and_then(from_repository_name);
    let owner_name = match &detected.forge {
        Forge::GitHub(path) => Some(path.clone()),
        _ => None,
    };
    let owner_name = owner_name.as_deref();
    let mut manager_images: Vec<kustomize::Container> = Vec::new();
    for candidate in candidates {
        let tree = kustomize::read(repo, &candidate.dir);
        generated_inputs(detected, recipe, &candidate.dir, &tree.absent);
        let mut provider_type = candidate.output.as_ref().map(|(t, _, _)| *t);
        let mut name = None;
        let mut identity = candidate.origin.clone();
        match tree.labels.first() {
            Some((label, file, line)) => match ProviderType::split_label(label) {
                Some((label_type, label_name)) => {
                    if let Some(made) = provider_type
                        && made != label_type
                    {
                        detected.missing.push(format!(
                            "{}: the label `{label}` ({file}:{line}) says {label_type}, the Makefile writes {made} components; using the label",
                            candidate.dir
                        ));
                    }
                    provider_type = Some(label_type);
                    name = Some(label_name.to_string());
                    identity = format!("label `{label}` in {file}:{line}; {identity}");
                }
                None => {
                    name = Some(label.clone());
                    let by_name = convention.as_ref().map(|(t, _)| *t);
                    provider_type = provider_type.or(by_name);
                    identity = match (provider_type, &detected.repository) {
                        (Some(t), _) if candidate.output.is_some() => format!(
                            "bare label `{label}` in {file}:{line}, type {t} from the file the Makefile writes; {identity}"
                        ),
                        (Some(t), Some(repo)) => format!(
                            "bare label `{label}` in {file}:{line}, type {t} from the repository name `{repo}`; {identity}"
                        ),
                        _ => format!("bare label `{label}` in {file}:{line}; {identity}"),
                    };
                }
            },
            None => {
                if let Some((t, n)) = &convention
                    && provider_type.is_none_or(|made| made == *t)
                {
                    provider_type = Some(*t);
                    name = Some(n.clone());
                    identity = format!(
                        "no `cluster.x-k8s.io/provider` label; named after the repository `{}`; {identity}",
                        detected.repository.as_deref().unwrap_or_default()
                    );
                }
            }
        }
        if provider_type.is_none()
            && let Some(repository) = detected.repository.as_deref()
            && let Some(listed_type) = builtin::only_type(owner_name, repository)
        {
            provider_type = Some(listed_type);
            identity = format!(
                "type {listed_type}: clusterctl's built-in provider list has `{repository}` as {listed_type} only; {identity}"
            );
        }
        if let Some(t) = provider_type
            && let Some(repository) = detected.repository.as_deref()
            && let Some((listed, built_in_name, line)) =
                builtin::built_in(owner_name, repository, t)
        {
            let evidence = format!(
                "clusterctl's built-in provider list names {listed} `{built_in_name}`, {}:{line}",
                builtin::SOURCE
            );
            if name.as_deref() == Some(built_in_name) {
                identity = format!("{identity}; {evidence}");
            } else {
                if let Some((label, file, line)) = tree.labels.first() {
                    detected.notes.push(format!(
                    "{}: clusterctl names this provider `{built_in_name}`, its label `{label}` ({file}:{line}) says otherwise; capkg releases it as `{}` and refuses sources labelled otherwise: change that label to it",
                    candidate.dir,
                    t.manifest_label(built_in_name)
                ));
                }
                name = Some(built_in_name.to_string());
                identity = format!("{evidence}; {identity}");
            }
        }
        if let Some(bad) = &name
            && crate::provider::validate_name(provider_type, bad).is_err()
        {
            detected.missing.push(format!(
                "{}: `{bad}` is not a provider name clusterctl accepts",
                candidate.dir
            ));
            name = None;
        }
        let suffix = candidate.output.as_ref().and_then(|(_, s, _)| s.clone());
        let components = Components {
            dir: candidate.dir.clone(),
            suffix,
        };
        let provider = Provider {
            name,
            provider_type,
            components: vec![components.clone()],
        };
        let shown = provider.label().unwrap_or_else(|| "a provider".to_string());
        detected.found.push(format!(
            "{shown}: components `kubectl kustomize {}`{} ({identity})",
            candidate.dir,
            components
                .suffix
                .as_deref()
                .map(|s| format!(", suffix `{s}`"))
                .unwrap_or_default()
        ));
        if provider.name.is_none() || provider.provider_type.is_none() {
            detected.missing.push(format!(
                "{}: no provider {} (no `cluster.x-k8s.io/provider` label, and the repository name follows no convention): fill the TODO in capkg.yaml",
                candidate.dir,
                if provider.name.is_none() { "name" } else { "type" }
            ));
        }
        let managers: Vec<&kustomize::Container> = {
            let named: Vec<_> = tree
                .containers
                .iter()
                .filter(|c| c.name == "manager")
                .collect();
            if named.is_empty() {
                tree.containers.iter().collect()
            } else {
                named
            }
        };
        if managers.is_empty() {
            detected.missing.push(format!(
                "{}: no manager image found in the kustomize tree",
                candidate.dir
            ));
        }
        manager_images.extend(managers.into_iter().cloned());
        // Same provider, another components file (vSphere's `supervisor`).
        match detected.providers.iter_mut().find(|p| {
            p.name.is_some() && p.name == provider.name && p.provider_type == provider.provider_type
        }) {
            Some(existing)
                if existing
                    .components
                    .iter()
                    .all(|c| c.suffix != components.suffix) =>
            {
                existing.components.push(components)
            }
            Some(_) => detected.missing.push(format!(
                "{}: a second components file for {shown} without its own suffix; left out",
                candidate.dir
            )),
            None => detected.providers.push(provider),
        }
    }
    detected
        .providers
        .sort_by_key(|p| (p.provider_type.is_none(), p.provider_type, p.name.clone()));
    propose_images(detected, recipe, &manager_images, release);
}

/// Files a kustomization lists that a make step writes (`config/default/image_patch.yaml`, not
/// committed): that step runs before `capkg release` in the CI file, as the Makefile's release
/// runs it before building; a listed file nothing writes is said, since kustomize refuses it.
fn generated_inputs(
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    dir: &str,
    absent: &[(String, String)],
) {
    for (file, listed_in) in absent {
        let writer = recipe
            .writers
            .iter()
            .find(|(written, _, _)| written == file);
        match writer {
            Some((_, target, line)) if workflow_safe_target(target).is_ok() => {
                detected.notes.push(format!(
                    "components: {listed_in} lists {file}, which is not in the repository: `make {target}` writes it (Makefile:{line}); the release job runs it before `capkg release`, and `capkg assemble` needs it run first locally too"
                ));
                match detected.prepare.iter_mut().find(|(t, _)| t == target) {
                    Some((_, what)) => what.push_str(&format!(", {file}")),
                    None => detected.prepare.push((target.clone(), file.clone())),
                }
            }
            Some((_, target, line)) => detected.notes.push(format!(
                "components: {listed_in} lists {file}, written by the make target `{}` (Makefile:{line}), whose name capkg writes into no workflow: run it before `capkg release` by hand",
                target.escape_debug()
            )),
            None => detected.missing.push(format!(
                "components: {listed_in} lists {file}, which is not in the repository and no make target writes: `kubectl kustomize {dir}` fails until it exists"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names_follow_the_conventions() {
        assert_eq!(
            from_repository_name("cluster-api-provider-kubevirt"),
            Some((ProviderType::Infrastructure, "kubevirt".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api-bootstrap-provider-k3s"),
            Some((ProviderType::Bootstrap, "k3s".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api-control-plane-provider-k3s"),
            Some((ProviderType::ControlPlane, "k3s".into()))
        );
        assert_eq!(
            from_repository_name("cluster-api"),
            Some((ProviderType::Core, "cluster-api".into()))
        );
        assert_eq!(from_repository_name("my-operator"), None);
    }
}
