//! Pins applied before a kustomize build, where release Makefiles apply them (`kustomize edit set
//! image`, or `sed` on the image patch): `replacements:` and vars then copy the release image,
//! not the development one (CAPZ's `AZURE_USER_AGENT_SUFFIX` carries `…/v1.26.0`, not `…/main`).
//!
//! When a components command is `kubectl kustomize DIR` or `kustomize build DIR` (any path to
//! either program, kustomize's own flags allowed), the repository is copied to a temporary folder
//! (without `.git`), the pins are written into the `images:` of DIR's kustomization in the copy
//! as `kustomize edit set image` writes them, and the command runs in the copy. The repository
//! itself is never modified. Any other command keeps the pin applied after the build.

use std::path::{Path, PathBuf};

use crate::assemble::sources::{self, ComponentsText, Repository, SourceError};
use crate::config::{Command, CommandLimits, ComponentsSource, ImagePin};
use crate::version::Version;
use crate::yaml::Node;

/// kustomize's build flags that take a value in the next argument (`kubectl kustomize` and
/// `kustomize build` share them).
const VALUE_FLAGS: [&str; 8] = [
    "--load-restrictor",
    "--load_restrictor",
    "--env",
    "-e",
    "--mount",
    "--network-name",
    "--helm-command",
    "--reorder",
];

/// kustomize's build flags without a value.
const SWITCHES: [&str; 7] = [
    "--enable-helm",
    "--enable-alpha-plugins",
    "--enable-exec",
    "--enable-managedby-label",
    "--network",
    "--as-current-user",
    "--stack-trace",
];

/// The kustomization folder a components command builds, when it is a plain kustomize build:
/// `None` for anything else (a pipe, `make`, an output file, a flag kustomize's build lacks).
pub fn kustomize_build_dir(command: &Command) -> Option<PathBuf> {
    let argv: Vec<&str> = match command {
        Command::Argv(argv) => argv.iter().map(String::as_str).collect(),
        // A shell line is read only when it is plain words: anything the shell would expand or
        // redirect makes it another command.
        Command::Shell(line) => {
            if line.contains(|c: char| "|&;<>()$`\"'\\*?[]{}~#\n".contains(c)) {
                return None;
            }
            line.split_whitespace().collect()
        }
    };
    let (program, args) = argv.split_first()?;
    let program = Path::new(program).file_name()?.to_str()?;
    let args = match (program, args.first()) {
        ("kubectl", Some(&"kustomize")) | ("kustomize", Some(&"build")) => &args[1..],
        _ => return None,
    };
    let mut dir = None;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if VALUE_FLAGS.contains(arg) {
            index += 2;
            continue;
        }
        if let Some(flag) = arg.split_once('=').map(|(flag, _)| flag)
            && VALUE_FLAGS.contains(&flag)
        {
            index += 1;
            continue;
        }
        if SWITCHES.contains(arg) || arg.starts_with("--enable-helm=") {
            index += 1;
            continue;
        }
        if arg.starts_with('-') || dir.is_some() {
            return None;
        }
        dir = Some(PathBuf::from(arg));
        index += 1;
    }
    if index > args.len() {
        return None;
    }
    Some(dir.unwrap_or_else(|| PathBuf::from(".")))
}

/// The entries kustomize can apply (`newName`, `newTag`, `digest`); `pullPolicy` is not a
/// kustomize field and is applied after the build.
fn kustomize_pins(pins: &[ImagePin]) -> Vec<&ImagePin> {
    pins.iter()
        .filter(|pin| pin.new_name.is_some() || pin.new_tag.is_some() || pin.digest.is_some())
        .collect()
}

/// The components a kustomize build makes with the pins in its kustomization, built in a copy of
/// the repository; `None` when the source is not a kustomize build inside the repository or no
/// pin changes an image. Returns the text and the kustomization edited (as the repository names
/// it, for `-v`).
pub fn build_pinned(
    source: &ComponentsSource,
    limits: &CommandLimits,
    root: &Path,
    version: Option<&Version>,
    pins: &[ImagePin],
) -> Result<Option<(ComponentsText, PathBuf)>, SourceError> {
    let ComponentsSource::Command(command) = source else {
        return Ok(None);
    };
    let pins = kustomize_pins(pins);
    if pins.is_empty() {
        return Ok(None);
    }
    let Some(dir) = kustomize_build_dir(command) else {
        return Ok(None);
    };
    let repository = Repository::of(root);
    let canonical = |path: &Path| {
        std::fs::canonicalize(path).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    let run_dir = canonical(sources::dir_or_dot(root))?;
    // A remote kustomization (`github.com/org/repo//config?ref=v1`) is no folder here.
    let Ok(build_dir) = std::fs::canonicalize(run_dir.join(&dir)) else {
        return Ok(None);
    };
    // A build of a folder outside the repository is not copied: the after-build pin applies.
    let (Ok(run_relative), Ok(build_relative)) = (
        run_dir.strip_prefix(repository.root()),
        build_dir.strip_prefix(repository.root()),
    ) else {
        return Ok(None);
    };
    let Some(kustomization) = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .map(|name| build_relative.join(name))
        .find(|path| repository.root().join(path).is_file())
    else {
        // kustomize itself says what is missing.
        return Ok(None);
    };
    let copy = tempfile::Builder::new()
        .prefix("capkg-pinned-")
        .tempdir()
        .map_err(|source| SourceError::Read {
            path: std::env::temp_dir(),
            source,
        })?;
    copy_tree(repository.root(), copy.path())?;
    let shown = repository.root().join(&kustomization);
    let text = repository.read_text(&shown)?;
    let edited = set_images(&text, &pins).map_err(|message| SourceError::Kustomization {
        path: shown.clone(),
        message,
    })?;
    let target = copy.path().join(&kustomization);
    // A fresh file: the copy of a hard-to-replace file (read-only) must not stop the edit.
    let _ = std::fs::remove_file(&target);
    std::fs::write(&target, edited).map_err(|source| SourceError::Read {
        path: target.clone(),
        source,
    })?;
    let text = sources::read_components(source, limits, &copy.path().join(run_relative), version)?;
    Ok(Some((text, kustomization)))
}

/// Copies the repository's files (not `.git`), keeping symbolic links as links.
fn copy_tree(from: &Path, to: &Path) -> Result<(), SourceError> {
    let walker = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|entry| entry.file_name() != ".git");
    for entry in walker {
        let entry = entry.map_err(|err| SourceError::Read {
            path: err.path().unwrap_or(from).to_path_buf(),
            source: err.into(),
        })?;
        let Ok(relative) = entry.path().strip_prefix(from) else {
            continue;
        };
        let target = to.join(relative);
        let io = |source| SourceError::Read {
            path: entry.path().to_path_buf(),
            source,
        };
        let file_type = entry.file_type();
        if file_type.is_dir() {
            std::fs::create_dir_all(&target).map_err(io)?;
        } else if file_type.is_symlink() {
            let link = std::fs::read_link(entry.path()).map_err(io)?;
            #[cfg(unix)]
            std::os::unix::fs::symlink(link, &target).map_err(io)?;
            #[cfg(not(unix))]
            let _ = link;
        } else if file_type.is_file() {
            std::fs::copy(entry.path(), &target).map_err(io)?;
        }
    }
    Ok(())
}

/// A kustomization with the pins in its `images:`, as `kustomize edit set image` leaves it: an
/// entry of the same name is updated (a new tag drops its digest and the other way round, both
/// keep both), any other pin is appended.
fn set_images(text: &str, pins: &[&ImagePin]) -> Result<String, String> {
    let (_, mut documents) = crate::assemble::transform::parse_objects("kustomization", text)
        .map_err(|error| error.to_string())?;
    let [kustomization] = documents.as_mut_slice() else {
        return Err("a kustomization is one YAML document".to_string());
    };
    let Some(mapping) = kustomization.as_mapping_mut() else {
        return Err("a kustomization is a mapping".to_string());
    };
    let mut entries: Vec<Node> = match mapping.get("images") {
        None => Vec::new(),
        Some(images) if images.is_null() => Vec::new(),
        Some(images) => images
            .as_sequence()
            .ok_or("`images` is not a list")?
            .to_vec(),
    };
    for pin in pins {
        let existing = entries
            .iter_mut()
            .find(|entry| entry.get("name").and_then(Node::as_str) == Some(pin.name.as_str()));
        let entry = match existing {
            Some(entry) => entry,
            None => {
                entries.push(Node::mapping(
                    vec![(Node::plain("name"), Node::string(pin.name.clone()))],
                    Default::default(),
                ));
                let last = entries.len() - 1;
                &mut entries[last]
            }
        };
        let Some(fields) = entry.as_mapping_mut() else {
            return Err(format!(
                "the `images` entry for `{}` is not a mapping",
                pin.name
            ));
        };
        let mut set = |key: &str, value: Option<&String>| {
            fields.entries.edit(|entries| {
                entries.retain(|(k, _)| k.scalar_text() != Some(key));
                if let Some(value) = value {
                    entries.push((Node::plain(key), Node::string(value.clone())));
                }
            });
        };
        if let Some(new_name) = &pin.new_name {
            set("newName", Some(new_name));
        }
        if pin.new_tag.is_some() || pin.digest.is_some() {
            set("newTag", pin.new_tag.as_ref());
            set("digest", pin.digest.as_ref());
        }
    }
    let images = Node::sequence(entries, Default::default());
    match mapping.get_mut("images") {
        Some(node) => *node = images,
        None => mapping.extend([(Node::plain("images"), images)]),
    }
    Ok(crate::yaml::write_layout::write_document(kustomization))
}

#[cfg(test)]
mod tests {
    use super::super::tests::pin;
    use super::*;

    fn argv(words: &[&str]) -> Command {
        Command::Argv(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn kustomize_builds_are_recognised_and_nothing_else() {
        let cases = [
            (
                argv(&["kubectl", "kustomize", "config/default"]),
                Some("config/default"),
            ),
            (
                argv(&["hack/tools/bin/kustomize", "build", "config/default"]),
                Some("config/default"),
            ),
            (
                argv(&[
                    "kubectl",
                    "kustomize",
                    "--load-restrictor",
                    "LoadRestrictionsNone",
                    "config",
                ]),
                Some("config"),
            ),
            (
                argv(&[
                    "kustomize",
                    "build",
                    "--load-restrictor=LoadRestrictionsNone",
                ]),
                Some("."),
            ),
            (
                Command::Shell("kustomize build --enable-helm config/default".into()),
                Some("config/default"),
            ),
            (
                Command::Shell("kustomize build config/default | sed s/a/b/".into()),
                None,
            ),
            (
                Command::Shell("$(KUSTOMIZE) build config/default".into()),
                None,
            ),
            (argv(&["kustomize", "build", "a", "b"]), None),
            (argv(&["kustomize", "build", "-o", "out.yaml", "a"]), None),
            (argv(&["kustomize", "build", "--load-restrictor"]), None),
            (argv(&["make", "release-manifests"]), None),
            (argv(&["kubectl", "apply", "-k", "config"]), None),
        ];
        for (command, expected) in cases {
            assert_eq!(
                kustomize_build_dir(&command),
                expected.map(PathBuf::from),
                "{command}"
            );
        }
    }

    #[test]
    fn builds_that_are_not_of_a_folder_here_keep_the_pin_after_the_build() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let pins = [pin("a.io/m", None, Some("v1"), None)];
        let build = |words: &[&str]| {
            build_pinned(
                &ComponentsSource::Command(argv(words)),
                &CommandLimits::default(),
                dir.path(),
                None,
                &pins,
            )
            .unwrap()
        };
        // A remote kustomization, a folder without a kustomization, a command of another kind.
        assert!(build(&["kubectl", "kustomize", "github.com/o/r//config?ref=v1"]).is_none());
        std::fs::create_dir(dir.path().join("config")).unwrap();
        assert!(build(&["kubectl", "kustomize", "config"]).is_none());
        assert!(build(&["make", "release-manifests"]).is_none());
    }

    #[test]
    fn images_are_set_as_kustomize_edit_sets_them() {
        let digest = format!("sha256:{}", "1".repeat(64));
        let text = "resources:\n- ../manager\nimages:\n- name: a.io/m\n  newTag: dev\n  digest: sha256:old\n- name: other\n  newName: b.io/other\n";
        let pins = [
            pin("a.io/m", Some("r.io/m"), Some("v1.2.3"), None),
            pin("c.io/x", None, None, Some(&digest)),
        ];
        let edited = set_images(text, &pins.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!(
            edited,
            format!(
                "resources:\n- ../manager\nimages:\n- name: a.io/m\n  newName: r.io/m\n  newTag: v1.2.3\n- name: other\n  newName: b.io/other\n- name: c.io/x\n  digest: {digest}\n"
            )
        );
        let added = set_images("resources: [a]\n", &[&pins[0]]).unwrap();
        assert!(
            added.ends_with("images:\n- name: a.io/m\n  newName: r.io/m\n  newTag: v1.2.3\n"),
            "{added}"
        );
        assert!(set_images("images: 3\n", &[&pins[0]]).is_err());
    }
}
