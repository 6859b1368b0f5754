//! `capkg render FILE`: what `clusterctl generate cluster` (a template) or `clusterctl generate
//! provider` (a components file) prints, from local files.
//!
//! A file named `*-components*.yaml` (or any file with `--type` and no `--cluster-name`) is a
//! components file; anything else, and a folder (with `--flavor`), is a cluster template. For a
//! template, the ClusterClasses its Clusters use are read from `clusterclass-{name}.yaml` beside
//! it and printed first, each moved into its class namespace, as clusterctl adds them. Missing
//! variables: exit 1 with clusterctl's message and nothing on stdout. `--format json` prints
//! `{"output": "<text>"}` instead.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, VariableArgs};
use crate::assemble::clusterctl::{self, ClusterctlError, ComponentsOptions};
use crate::escape;
use crate::k8s::{dns1123_label, dns1123_subdomain};
use crate::provider::{FileRole, PROVIDER_LABEL, ProviderType};
use crate::report::Format;
use crate::subst::{self, ClusterVariablesOptions, Lookup, Values};
use crate::yaml::write_clusterctl;

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A cluster template, a components file, or a provider folder (with `--flavor`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The cluster's name (`CLUSTER_NAME`); required for templates.
    #[arg(long, value_name = "NAME")]
    pub cluster_name: Option<String>,
    /// Pick `cluster-template-FLAVOR.yaml` from a provider folder.
    #[arg(long, value_name = "FLAVOR")]
    pub flavor: Option<String>,
    /// The namespace every object goes into (`NAMESPACE`); templates default to `default`,
    /// components to their Namespace object.
    #[arg(long, short = 'n', value_name = "NS")]
    pub target_namespace: Option<String>,
    /// `KUBERNETES_VERSION`.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes_version: Option<String>,
    /// `CONTROL_PLANE_MACHINE_COUNT` (default 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub control_plane_machine_count: Option<i64>,
    /// `WORKER_MACHINE_COUNT` (default 0).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub worker_machine_count: Option<i64>,
    /// Print the variables the template needs instead of rendering it.
    #[arg(long)]
    pub list_variables: bool,
    /// Components only: do not substitute variables (`clusterctl generate provider --raw`).
    #[arg(long)]
    pub raw: bool,
    #[command(flatten)]
    pub variables: VariableArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub(super) fn run(global: &GlobalArgs, args: RenderArgs) -> CommandResult {
    let is_dir = args.file.is_dir();
    let role = args
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(FileRole::from_file_name);
    let components = !is_dir
        && match role {
            Some(FileRole::Components { .. }) => true,
            Some(_) => false,
            None => args.provider.provider_type.is_some() && args.cluster_name.is_none(),
        };
    if components {
        let documents = render_components(global, &args, role)?;
        if global.format == Format::Json {
            let output = write_clusterctl::printed_documents(&documents);
            super::write_output(global, output.as_bytes())?;
        } else {
            // Document by document: the joined text would be a copy of megabytes. The manifest
            // asked for, byte for byte, as `write_output` writes data.
            let mut out = super::raw_stdout();
            write_clusterctl::write_joined_documents(&documents, &mut out)
                .and_then(|()| out.flush())
                .map_err(CommandError::fault)?;
        }
    } else {
        super::write_output(global, &render_template(global, &args, is_dir)?)?;
    }
    Ok(Status::Success)
}

fn clusterctl_failure(error: ClusterctlError) -> CommandError {
    CommandError::refusal(error)
}

/// The components file's documents as clusterctl prints them, in order, not yet joined.
fn render_components(
    global: &GlobalArgs,
    args: &RenderArgs,
    role: Option<FileRole>,
) -> Result<Vec<String>, CommandError> {
    let (name, bytes) = read_file(args, &args.file)?;
    let file = clusterctl::FileText::new(name, bytes);
    let warn = !global.quiet;
    let (rendered, warnings) = match load_components(args, role, &file, warn) {
        Ok((loaded, options)) => {
            // Loaded for the provider name alone, with `--quiet`: no warnings.
            let warnings = if warn {
                loaded.repeated_keys()
            } else {
                Vec::new()
            };
            let rendered = clusterctl::generate_provider_documents(loaded, &options)
                .map_err(clusterctl_failure);
            (rendered, warnings)
        }
        // Without the substituted load, the file as written is loaded for its warnings alone.
        Err(failure) if warn => (
            Err(failure),
            duplicate_key_warnings(file.name(), file.bytes()),
        ),
        Err(failure) => (Err(failure), Vec::new()),
    };
    for warning in warnings {
        let _ = writeln!(super::stderr(), "warning: {}", escape::text(&warning));
    }
    rendered
}

/// The file substituted and loaded (with the file as written beside it, for its repeated keys
/// and provider labels, when they are wanted), and the options of its render.
fn load_components(
    args: &RenderArgs,
    role: Option<FileRole>,
    file: &clusterctl::FileText,
    list_repeated_keys: bool,
) -> Result<(clusterctl::LoadedComponents, ComponentsOptions), CommandError> {
    let (name, bytes) = (file.name(), file.bytes());
    let provider_type = match (args.provider.provider_type, role) {
        (Some(t), _) => t,
        (None, Some(FileRole::Components { provider_type, .. })) => provider_type,
        _ => {
            return Err(CommandError::fault(anyhow::anyhow!(
                "cannot tell the provider type of `{name}`"
            ))
            .with_hint("pass `--type`"));
        }
    };
    let given = args.provider.provider.as_ref();
    if let Some(given) = given {
        crate::provider::validate_name(Some(provider_type), given)
            .map_err(CommandError::refusal)?;
    }
    let keep_as_written = list_repeated_keys || given.is_none();
    let loaded = super::variables::values(&args.variables).and_then(|values| {
        clusterctl::load_components(file, &values, args.raw, keep_as_written)
            .map_err(clusterctl_failure)
    });
    let loaded = match (loaded, given) {
        (Ok(loaded), _) => loaded,
        (Err(failure), Some(_)) => return Err(failure),
        (Err(failure), None) => {
            // Which provider it is comes first, as when it was asked before the file was
            // loaded: the file as written is loaded for it alone.
            let found =
                name_from_labels(name, bytes, provider_type).ok_or_else(|| unnamed(name))?;
            crate::provider::validate_name(Some(provider_type), &found)
                .map_err(CommandError::refusal)?;
            return Err(failure);
        }
    };
    let provider_name = match given {
        Some(name) => name.clone(),
        None => {
            let found = loaded
                .provider_name_as_written(provider_type)
                .ok_or_else(|| unnamed(name))?;
            crate::provider::validate_name(Some(provider_type), &found)
                .map_err(CommandError::refusal)?;
            found
        }
    };
    let options = ComponentsOptions {
        target_namespace: args.target_namespace.clone(),
        provider_label: provider_type.manifest_label(&provider_name),
    };
    Ok((loaded, options))
}

fn unnamed(name: &str) -> CommandError {
    CommandError::fault(anyhow::anyhow!(
        "cannot tell the provider name of `{name}` (no `{PROVIDER_LABEL}` label)"
    ))
    .with_hint("pass `--provider NAME`")
}

/// The provider name the file's `cluster.x-k8s.io/provider` labels give, by the rule every
/// command follows ([`crate::provider::name_from_labels`]).
fn name_from_labels(name: &str, bytes: &[u8], provider_type: ProviderType) -> Option<String> {
    let text = crate::yaml::text_lossy(bytes).into_owned();
    let role = FileRole::Components {
        provider_type,
        suffix: None,
    };
    let file = crate::files::load_text(name, text, role);
    crate::provider::name_from_objects(Some(provider_type), file.yaml.roots())
}

/// The provider's manifest label, as clusterctl names the repository in its messages: from
/// `--type` and `--provider`, else from a local repository layout
/// (`{provider-label}/{version}/{file}`) around `path`.
fn repository_label(args: &RenderArgs, path: &Path) -> String {
    if let (Some(provider_type), Some(name)) = (
        args.provider.provider_type,
        args.provider.provider.as_deref(),
    ) {
        return provider_type.manifest_label(name);
    }
    let version_dir = if path.is_dir() {
        Some(path)
    } else {
        path.parent()
    };
    version_dir
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .filter(|label| ProviderType::split_label(label).is_some())
        .map_or_else(
            || "(unknown: pass --provider and --type)".to_string(),
            str::to_string,
        )
}

/// Reads a file of the provider's repository; a file that cannot be read is reported in
/// clusterctl's words (`template_client.go`, `components_client.go`, `clusterclass_client.go`),
/// then the path. Repeated keys are warned about on stderr: clusterctl keeps the last value.
fn read_from_repository(
    global: &GlobalArgs,
    args: &RenderArgs,
    path: &Path,
) -> Result<(String, Vec<u8>), CommandError> {
    let (name, bytes) = read_file(args, path)?;
    if !global.quiet {
        for warning in duplicate_key_warnings(&name, &bytes) {
            let _ = writeln!(super::stderr(), "warning: {}", escape::text(&warning));
        }
    }
    Ok((name, bytes))
}

/// [`read_from_repository`] without the warnings.
fn read_file(args: &RenderArgs, path: &Path) -> Result<(String, Vec<u8>), CommandError> {
    if path.as_os_str() == "-" {
        return super::subst::read_input(None);
    }
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let read = || -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut opened = std::fs::File::open(path)?;
        let size = opened.metadata()?.len();
        // The workers start while a large file is read.
        crate::threads::start_for(size);
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        opened.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    let bytes = read().map_err(|e| {
        let missing = e.kind() == std::io::ErrorKind::NotFound;
        let error = anyhow::anyhow!("`{}`: {e}", path.display()).context(format!(
            "failed to read {file:?} from provider's repository {:?}",
            repository_label(args, path)
        ));
        let failure = if missing {
            CommandError::refusal(error)
        } else {
            CommandError::fault(error)
        };
        match (missing, flavors_beside(path)) {
            (true, Some(flavors)) => failure.with_hint(flavors),
            _ => failure,
        }
    })?;
    Ok((path.display().to_string(), bytes))
}

/// The repeated keys of a file as written (clusterctl keeps the last value of each).
fn duplicate_key_warnings(name: &str, bytes: &[u8]) -> Vec<String> {
    clusterctl::duplicate_keys(name, &crate::yaml::text_lossy(bytes))
}

/// For a missing cluster template: the flavors its folder has.
fn flavors_beside(path: &Path) -> Option<String> {
    let file = path.file_name()?.to_str()?;
    if !file.starts_with("cluster-template") {
        return None;
    }
    let mut flavors: Vec<String> = std::fs::read_dir(path.parent()?)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter_map(|n| match FileRole::from_file_name(&n) {
            Some(FileRole::ClusterTemplate { flavor }) => {
                Some(flavor.map_or_else(|| "(none)".to_string(), |f| f.to_string()))
            }
            _ => None,
        })
        .collect();
    flavors.sort();
    Some(if flavors.is_empty() {
        "the folder has no cluster templates".to_string()
    } else {
        format!(
            "the folder's flavors: {} (`--flavor NAME`; `(none)` is `cluster-template.yaml`)",
            flavors.join(", ")
        )
    })
}

/// The template file: FILE itself, or `cluster-template[-FLAVOR].yaml` in the folder FILE.
fn template_path(args: &RenderArgs, is_dir: bool) -> PathBuf {
    if !is_dir {
        return args.file.clone();
    }
    match &args.flavor {
        Some(flavor) if !flavor.is_empty() => {
            args.file.join(format!("cluster-template-{flavor}.yaml"))
        }
        _ => args.file.join("cluster-template.yaml"),
    }
}

fn input_error(message: String) -> CommandError {
    CommandError::refusal(anyhow::anyhow!(message))
}

/// `templateOptionsToVariables`: validates the flags and sets the five variables clusterctl sets.
fn set_cluster_variables(
    args: &RenderArgs,
    values: &mut Values,
    target_namespace: &str,
    cluster_name: &str,
) -> Result<(), CommandError> {
    dns1123_label(target_namespace)
        .map_err(|e| input_error(format!("invalid target-namespace: {e}")))?;
    values.set("NAMESPACE", target_namespace);
    dns1123_subdomain(cluster_name)
        .map_err(|e| input_error(format!("invalid cluster name: {e}")))?;
    values.set("CLUSTER_NAME", cluster_name);
    if let Some(version) = args.kubernetes_version.as_deref().filter(|v| !v.is_empty()) {
        if crate::version::Version::parse(version).is_err() {
            return Err(input_error(
                "invalid KubernetesVersion. Please use a semantic version number".to_string(),
            ));
        }
        values.set("KUBERNETES_VERSION", version);
    }
    let control_plane = match args.control_plane_machine_count {
        Some(n) => n,
        None => match values.lookup("CONTROL_PLANE_MACHINE_COUNT") {
            None => 1,
            Some(v) => String::from_utf8_lossy(&v).parse::<i64>().map_err(|_| {
                input_error("invalid value for CONTROL_PLANE_MACHINE_COUNT set".to_string())
            })?,
        },
    };
    if control_plane < 1 {
        return Err(input_error(
            "invalid ControlPlaneMachineCount. Please use a number greater or equal than 1"
                .to_string(),
        ));
    }
    values.set("CONTROL_PLANE_MACHINE_COUNT", control_plane.to_string());
    let workers = match args.worker_machine_count {
        Some(n) => n,
        None => match values.lookup("WORKER_MACHINE_COUNT") {
            None => 0,
            Some(v) => String::from_utf8_lossy(&v).parse::<i64>().map_err(|_| {
                input_error("invalid value for WORKER_MACHINE_COUNT set".to_string())
            })?,
        },
    };
    if workers < 0 {
        return Err(input_error(
            "invalid WorkerMachineCount. Please use a number greater or equal than 0".to_string(),
        ));
    }
    values.set("WORKER_MACHINE_COUNT", workers.to_string());
    Ok(())
}

fn render_template(
    global: &GlobalArgs,
    args: &RenderArgs,
    is_dir: bool,
) -> Result<Vec<u8>, CommandError> {
    let path = template_path(args, is_dir);
    if args.list_variables {
        let (name, bytes) = read_from_repository(global, args, &path)?;
        let inventory =
            subst::inventory(&bytes).map_err(|e| super::subst::input_error(&name, &bytes, e))?;
        let env = |key: &str| std::env::var(key).ok();
        let options = ClusterVariablesOptions {
            cluster_name: args.cluster_name.clone().unwrap_or_default(),
            target_namespace: args.target_namespace.clone().unwrap_or_default(),
            control_plane_machine_count: args.control_plane_machine_count,
            worker_machine_count: args.worker_machine_count,
            kubernetes_version: args.kubernetes_version.clone().unwrap_or_default(),
            env_control_plane_machine_count: env("CONTROL_PLANE_MACHINE_COUNT"),
            env_worker_machine_count: env("WORKER_MACHINE_COUNT"),
            env_kubernetes_version: env("KUBERNETES_VERSION"),
            without_generate_cluster_values: false,
        };
        return Ok(subst::render_cluster_variables(
            &inventory.variable_map(),
            &options,
        ));
    }
    let Some(cluster_name) = args.cluster_name.as_deref() else {
        return Err(CommandError::fault(anyhow::anyhow!(
            "a cluster template needs `--cluster-name NAME`"
        )));
    };
    // Without a kubeconfig to ask, the target namespace defaults to `default`.
    let target_namespace = args.target_namespace.as_deref().unwrap_or("default");
    let mut values = super::variables::values(&args.variables)?;
    set_cluster_variables(args, &mut values, target_namespace, cluster_name)?;
    let (name, bytes) = read_from_repository(global, args, &path)?;
    let objects = clusterctl::process_template(&name, &bytes, &values, Some(target_namespace))
        .map_err(|e| match e {
            ClusterctlError::Subst(inner) => super::subst::input_error(&name, &bytes, inner),
            other => clusterctl_failure(other),
        })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut all = Vec::new();
    for (class, class_namespace) in clusterctl::cluster_classes(&objects) {
        let class_path = dir.join(format!("clusterclass-{class}.yaml"));
        let (class_name, class_bytes) = read_from_repository(global, args, &class_path)?;
        let class_objects = clusterctl::process_template(
            &class_name,
            &class_bytes,
            &values,
            Some(&class_namespace),
        )
        .map_err(|e| match e {
            ClusterctlError::Subst(inner) => {
                super::subst::input_error(&class_name, &class_bytes, inner)
            }
            other => clusterctl_failure(other),
        })?;
        all.extend(class_objects);
    }
    all.extend(objects);
    let mut text = clusterctl::write_objects(&all).map_err(clusterctl_failure)?;
    text.push('\n');
    Ok(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_clusterctl_checks_them() {
        assert!(dns1123_label("ns-1").is_ok());
        assert!(dns1123_label("Ns").is_err());
        assert!(dns1123_label(&"a".repeat(64)).is_err());
        assert!(dns1123_subdomain("my.cluster").is_ok());
        assert!(dns1123_subdomain("my..cluster").is_err());
        assert!(dns1123_subdomain("-x").is_err());
    }
}
