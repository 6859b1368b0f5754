//! `metadata.yaml`, cluster templates and ClusterClasses: where the repository keeps them and
//! what the Makefile's release copies, proposed as `metadata:` and `templates:` globs, with the
//! make target that writes git-ignored ones first as a step of the CI file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::render::workflow_safe_target;
use super::repository::Repository;
use super::{Detected, NOT_RELEASED, OUTPUT_DIR, makefile};
use crate::provider::{FileRole, ProviderType};

/// Where some providers keep metadata.yaml instead of the root.
const CONFIG_METADATA: &str = "config/metadata.yaml";

pub(super) fn detect_metadata(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
) {
    let copied = recipe.copies.iter().find(|c| {
        c.to.rsplit('/').next() == Some("metadata.yaml")
            && repo.is_file(Path::new(&c.from), "the Makefile's release copies it")
    });
    if let Some(copy) = copied {
        detected.found.push(format!(
            "metadata: {} (the Makefile's release copies it, Makefile:{})",
            copy.from, copy.line
        ));
        detected.metadata = Some(copy.from.clone());
    } else if repo.is_file(Path::new("metadata.yaml"), "") {
        detected.found.push("metadata: metadata.yaml".to_string());
        detected.metadata = Some("metadata.yaml".to_string());
    } else if repo.is_file(Path::new(CONFIG_METADATA), "") {
        detected.found.push(format!("metadata: {CONFIG_METADATA}"));
        detected.metadata = Some(CONFIG_METADATA.to_string());
    } else if let Some((target, line, written)) = &recipe.writes_metadata
        && !written.starts_with(&format!("{OUTPUT_DIR}/"))
        && !written.starts_with('/')
        && !written.split('/').any(|part| part == "..")
        && workflow_safe_target(target).is_ok()
    {
        detected.found.push(format!(
            "metadata: {written}, written at release time by `make {target}` (Makefile:{line}); the release job runs that step before `capkg release`"
        ));
        detected.notes.push(format!(
            "metadata: {written} is made by `make {target}` (Makefile:{line}): run it before `capkg assemble` locally too"
        ));
        detected.metadata = Some(written.clone());
        match detected.prepare.iter_mut().find(|(t, _)| t == target) {
            Some((_, what)) => what.push_str(&format!(", {written}")),
            None => detected.prepare.push((target.clone(), written.clone())),
        }
    } else if let Some((target, line, written)) = &recipe.writes_metadata {
        detected.missing.push(format!(
            "metadata: the Makefile's release writes {written} at release time (`make {target}`, Makefile:{line}); capkg reads a metadata.yaml kept in the repository: commit the file that step writes (clusterctl needs one per release) and set `metadata:` to it"
        ));
    } else {
        detected.missing.push(
            "metadata: no metadata.yaml at the repository root or in config/ (clusterctl needs one per release)"
                .to_string(),
        );
    }
}

fn template_patterns(names: &BTreeSet<String>) -> Vec<&'static str> {
    let mut patterns = Vec::new();
    if names
        .iter()
        .any(|n| n.starts_with("cluster-template") && n.ends_with(".yaml"))
    {
        patterns.push("cluster-template*.yaml");
    }
    if names
        .iter()
        .any(|n| n.starts_with("clusterclass-") && n.ends_with(".yaml"))
    {
        patterns.push("clusterclass-*.yaml");
    }
    patterns
}

pub(super) fn detect_templates(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
) {
    let root = repo.root().to_path_buf();
    // Folders holding templates, as found by looking, and as the release copies them.
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut copied: BTreeMap<String, usize> = BTreeMap::new();
    // The release copies a template under another name (no folder to propose, but evidence).
    let mut copies_templates = false;
    for entry in walkdir::WalkDir::new(&root)
        .max_depth(6)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.')
                    || NOT_RELEASED.contains(&name.as_ref())
                    || ["vendor", "node_modules", OUTPUT_DIR, "_artifacts"]
                        .contains(&name.as_ref()))
        })
        .flatten()
    {
        let name = entry.file_name().to_string_lossy();
        let template = (name.starts_with("cluster-template") || name.starts_with("clusterclass-"))
            && name.ends_with(".yaml");
        // Kustomize sources of templates (`cluster-template-x/kustomization.yaml`) are folders.
        if !template || !entry.file_type().is_file() {
            continue;
        }
        let folder = entry
            .path()
            .parent()
            .and_then(|p| p.strip_prefix(&root).ok())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        found.insert(folder);
    }
    // Globs the release copies that capkg can publish, with their evidence.
    let mut globbed: Vec<(String, String)> = Vec::new();
    for copy in &recipe.copies {
        let to_name = copy.to.rsplit('/').next().unwrap_or_default();
        if let Some((folder, pattern)) = copy.from.rsplit_once('/')
            && pattern.contains('*')
            && pattern != "*"
        {
            copies_templates = true;
            copied_globs(repo, detected, recipe, copy, folder, pattern, &mut globbed);
            continue;
        }
        if let Some(folder) = copy.from.strip_suffix("/*") {
            if repo.is_dir(Path::new(folder), "the Makefile's release copies it")
                && !template_patterns(&repo.file_names(Path::new(folder))).is_empty()
            {
                copied.entry(folder.to_string()).or_insert(copy.line);
            }
            continue;
        }
        let from_name = copy.from.rsplit('/').next().unwrap_or_default();
        let role = FileRole::from_file_name(to_name);
        let is_template = matches!(
            role,
            Some(FileRole::ClusterTemplate { .. } | FileRole::ClusterClass { .. })
        );
        if !is_template || !repo.is_file(Path::new(&copy.from), "the Makefile's release copies it")
        {
            continue;
        }
        copies_templates = true;
        if from_name == to_name {
            copied
                .entry(
                    copy.from
                        .rsplit_once('/')
                        .map_or(String::new(), |(folder, _)| folder.to_string()),
                )
                .or_insert(copy.line);
        } else {
            detected.missing.push(format!(
                "templates: the Makefile's release copies {} as {to_name}; capkg publishes templates under their own names: rename the file (git mv) and list it under `templates:`",
                copy.from
            ));
        }
    }
    copies_templates |= !copied.is_empty();
    // A bootstrap or control-plane provider ships templates only when its release copies them.
    let ships_templates = detected.providers.iter().any(|p| {
        matches!(
            p.provider_type,
            None | Some(ProviderType::Infrastructure | ProviderType::Core)
        )
    });
    let handled: BTreeSet<String> = globbed
        .iter()
        .filter_map(|(glob, _)| glob.rsplit_once('/').map(|(f, _)| f.to_string()))
        .collect();
    let mut folders: Vec<(String, String)> = copied
        .iter()
        .map(|(folder, line)| {
            (
                folder.clone(),
                format!("the Makefile's release copies them, Makefile:{line}"),
            )
        })
        .collect();
    for folder in found
        .iter()
        .filter(|f| !copied.contains_key(*f) && !handled.contains(*f))
    {
        let shown = if folder.is_empty() { "." } else { folder };
        let skipped = if copies_templates {
            Some("the Makefile's release copies its templates from elsewhere")
        } else if !(folder.is_empty() || folder == "templates" || folder.starts_with("templates/"))
        {
            Some(
                "outside the repository's `templates/` folder, and the Makefile's release copies none (another provider's samples?)",
            )
        } else if !ships_templates {
            Some(
                "a bootstrap or control-plane provider's release ships templates only when it copies them, and the Makefile's release copies none",
            )
        } else {
            None
        };
        match skipped {
            Some(why) => detected.notes.push(format!(
                "templates in `{shown}` not proposed: {why}; list them under `templates:` if the release ships them"
            )),
            None => folders.push((folder.clone(), "found".to_string())),
        }
    }
    folders.sort();
    for (folder, why) in folders {
        let names = repo.file_names(Path::new(if folder.is_empty() { "." } else { &folder }));
        for pattern in template_patterns(&names) {
            let glob = if folder.is_empty() {
                pattern.to_string()
            } else {
                format!("{folder}/{pattern}")
            };
            detected.found.push(format!("templates: {glob} ({why})"));
            detected.templates.push(glob);
        }
    }
    for (glob, why) in globbed {
        if !detected.templates.contains(&glob) {
            detected.found.push(format!("templates: {glob} ({why})"));
            detected.templates.push(glob);
        }
    }
    if detected.templates.is_empty() {
        detected.missing.push(
            "templates: no cluster-template*.yaml or clusterclass-*.yaml outside test folders"
                .to_string(),
        );
    }
}

/// A release copy of a glob (`cp generated/cluster-template* $(RELEASE_DIR)/`): proposed as a
/// `templates:` glob when its names are clusterctl's (`cluster-template*.yaml`,
/// `clusterclass-*.yaml`), with what makes the files first when none is in the repository (a
/// git-ignored folder a target or script fills); said in the notes otherwise, since capkg
/// publishes no other file.
fn copied_globs(
    repo: &Repository,
    detected: &mut Detected,
    recipe: &makefile::ReleaseRecipe,
    copy: &makefile::Copy,
    folder: &str,
    pattern: &str,
    globbed: &mut Vec<(String, String)>,
) {
    let proposed = if pattern.starts_with("cluster-template") {
        "cluster-template*.yaml"
    } else if pattern.starts_with("clusterclass") {
        "clusterclass-*.yaml"
    } else {
        let names: Vec<String> = repo
            .file_names(Path::new(folder))
            .into_iter()
            .filter(|name| glob_matches(pattern, name))
            .collect();
        // A wider glob (`templates/*.yaml`) still ships clusterctl's templates among others.
        let kept: BTreeSet<String> = names.iter().cloned().collect();
        let clusterctl = template_patterns(&kept);
        for proposed in &clusterctl {
            globbed.push((
                format!("{folder}/{proposed}"),
                format!(
                    "the Makefile's release copies {}, Makefile:{}",
                    copy.from, copy.line
                ),
            ));
        }
        let others: Vec<&String> = names
            .iter()
            .filter(|name| !clusterctl.iter().any(|p| glob_matches(p, name)))
            .collect();
        if !clusterctl.is_empty() && others.is_empty() {
            return;
        }
        let shown = match &others[..] {
            [] => String::new(),
            names => format!(
                " ({})",
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        detected.notes.push(format!(
            "templates: the Makefile's release also ships {}{shown}, Makefile:{}; capkg publishes only components, metadata.yaml, cluster-template*.yaml and clusterclass-*.yaml: rename them to those names (git mv) to release them, or attach them to the release another way",
            copy.from, copy.line
        ));
        return;
    };
    let glob = format!("{folder}/{proposed}");
    let present = repo
        .file_names(Path::new(folder))
        .iter()
        .any(|name| glob_matches(proposed, name));
    let mut why = format!(
        "the Makefile's release copies {}, Makefile:{}",
        copy.from, copy.line
    );
    if !present {
        let built: Vec<&makefile::Build> = recipe
            .builds
            .iter()
            .filter(|b| {
                b.output_dir == folder
                    && b.output
                        .as_deref()
                        .is_some_and(|o| glob_matches(proposed, o))
            })
            .collect();
        let (target, maker) = match (built.first(), recipe.scripts.first()) {
            (Some(build), _) => (
                Some((&build.target, build.line)),
                format!(
                    "`make {}` builds them with kustomize, Makefile:{}",
                    build.target, build.line
                ),
            ),
            (None, Some(script)) => (
                Some((&script.target, script.line)),
                format!(
                    "`make {}` runs `{}`, Makefile:{}",
                    script.target, script.command, script.line
                ),
            ),
            (None, None) => (None, "the release makes them before copying".to_string()),
        };
        let refused = target.and_then(|(target, line)| {
            let reason = workflow_safe_target(target).err()?;
            Some(format!(
                "templates: {glob} is made by the make target `{}` (Makefile:{line}), whose name holds {reason}: capkg writes no such name into a workflow (GitHub expands `${{{{ }}}}` in it, the shell `$(...)`), so no step runs it; add one that makes {glob} before `capkg release` by hand",
                target.escape_debug()
            ))
        });
        match (target, refused) {
            (_, Some(refused)) => detected.notes.push(refused),
            (Some((target, _)), None) => {
                match detected.prepare.iter_mut().find(|(t, _)| t == target) {
                    Some((_, what)) => what.push_str(&format!(", {glob}")),
                    None => detected.prepare.push((target.clone(), glob.clone())),
                }
                detected.notes.push(format!(
                    "templates: {glob} matches nothing in the repository yet: {maker}; the release job runs it before `capkg release` (which refuses a glob matching nothing)"
                ));
            }
            (None, None) => detected.notes.push(format!(
                "templates: {glob} matches nothing in the repository yet: {maker}; make them before `capkg release` (which refuses a glob matching nothing)"
            )),
        }
        detected
            .template_comments
            .insert(glob.clone(), format!("made by the release first: {maker}"));
        why.push_str("; made first");
    }
    globbed.push((glob, why));
}

/// Whether a file name matches a shell pattern of `*`s (`cluster-template*`).
fn glob_matches(pattern: &str, name: &str) -> bool {
    globset::Glob::new(pattern)
        .map(|glob| glob.compile_matcher().is_match(name))
        .unwrap_or(false)
}
