//! Waivers: findings a maintainer has judged and accepts (`lint: allow:` in capkg.yaml, or
//! `capkg lint --allow RULE[=REASON]`).
//!
//! A waiver never hides a finding: the finding keeps its rule, severity and place and gains the
//! waiver's reason, which every output format shows. It no longer counts as an error or warning
//! ([`super::Summary`]), so it blocks nothing. A waiver that matches no finding is itself a
//! warning (`lint/unused-waiver`): the defect it was written for is gone, or the rule id or globs
//! are wrong, and either way the entry should go.

use std::path::Path;
use std::sync::Arc;

use super::{CLUSTERCTL_CONTRACT, Diagnostic, Reference, Rule, Severity};
use crate::yaml::{Source, Span};

pub(super) const RULES: &[&Rule] = &[&UNUSED_WAIVER];

pub static UNUSED_WAIVER: Rule = Rule {
    id: "lint/unused-waiver",
    severity: Severity::Warning,
    summary: "a waiver (`lint: allow:` or `--allow`) matches no finding",
    explanation: "A waiver accepts the findings of one rule, optionally narrowed to some files, \
        objects, a field and (for `upgrade/…` rules) the previous release they were judged \
        against. When it matches nothing, the finding it was written for has been fixed, or what \
        it names does not say what was meant. A stale waiver would silently accept the next, \
        different finding of that rule. Each command reports only the waivers it could have \
        matched: lint and verify lint's, `diff` and `release` the `upgrade/…` ones where a \
        previous release was compared.",
    help: "remove the waiver, or correct its `rule`, `files`, `objects`, `field` or `previous`",
    reference: Reference {
        title: "capkg book, \"capkg lint\" > \"Waivers\" (docs/book/src/lint.md)",
        url: CLUSTERCTL_CONTRACT,
    },
    check: |_, _| {},
};

/// Where a waiver was written.
#[derive(Debug, Clone)]
pub enum Origin {
    /// An entry of `lint: allow:`; the span is the entry's in the configuration file.
    Config { file: Arc<Source>, span: Span },
    /// `--allow` on the command line.
    CommandLine,
}

/// One accepted rule.
#[derive(Debug, Clone)]
pub struct Waiver {
    /// A rule id `capkg rules` lists.
    pub rule: String,
    /// Globs a finding's file must match (any of them); empty: every file. A glob without `/`
    /// matches the file name; one with `/` the path relative to the configuration's folder.
    pub files: Vec<String>,
    /// Globs over `Kind/name` the object a finding is in must match (any of them); empty: every
    /// object. `CustomResourceDefinition/foos.infrastructure.cluster.x-k8s.io`, `Deployment/*`.
    pub objects: Vec<String>,
    /// The field the finding is about, and what is below it (`upgrade/…` findings name theirs:
    /// [`Diagnostic::field`]); `None`: every field.
    pub field: Option<String>,
    /// The previous release an `upgrade/…` finding was judged against; `None`: any.
    pub previous: Option<crate::version::Version>,
    pub reason: String,
    pub origin: Origin,
}

impl PartialEq for Waiver {
    /// Two waivers are the same when they say the same; where they were written does not matter.
    fn eq(&self, other: &Self) -> bool {
        self.rule == other.rule
            && self.files == other.files
            && self.objects == other.objects
            && self.field == other.field
            && self.previous == other.previous
            && self.reason == other.reason
    }
}

impl Waiver {
    /// A waiver from `--allow RULE[=REASON]`.
    pub fn from_flag(text: &str) -> Result<Waiver, String> {
        let (rule, reason) = match text.split_once('=') {
            Some((rule, reason)) => (rule.trim(), reason.trim()),
            None => (text.trim(), ""),
        };
        check_rule(rule)?;
        Ok(Waiver {
            rule: rule.to_string(),
            files: Vec::new(),
            objects: Vec::new(),
            field: None,
            previous: None,
            reason: if reason.is_empty() {
                "`--allow` on the command line".to_string()
            } else {
                reason.to_string()
            },
            origin: Origin::CommandLine,
        })
    }

    fn matches(&self, diagnostic: &Diagnostic, root: &Path, objects: &mut ObjectIndex) -> bool {
        if diagnostic.rule != self.rule {
            return false;
        }
        if let Some(field) = &self.field
            && !diagnostic
                .field
                .as_deref()
                .is_some_and(|found| is_within(found, field))
        {
            return false;
        }
        if let Some(previous) = &self.previous {
            let judged = diagnostic
                .previous
                .as_deref()
                .and_then(|v| crate::version::Version::parse(v).ok());
            if judged.as_ref() != Some(previous) {
                return false;
            }
        }
        if !self.objects.is_empty() {
            let Some(object) = objects.object_of(diagnostic) else {
                return false;
            };
            let named = self.objects.iter().any(|glob| {
                globset::Glob::new(glob).is_ok_and(|g| g.compile_matcher().is_match(object))
            });
            if !named {
                return false;
            }
        }
        if self.files.is_empty() {
            return true;
        }
        let Some(name) = diagnostic.file_name() else {
            return false;
        };
        let path = Path::new(name);
        // The finding's path and the root may be spelled from different folders (`lint` run in
        // `config/` names `manager/manager.yaml`, the root is `..`).
        let absolute = |p: &Path| crate::files::lexical_absolute(p).unwrap_or_else(|_| p.into());
        let relative = match absolute(path).strip_prefix(absolute(root)) {
            Ok(relative) => relative.to_path_buf(),
            Err(_) => path.strip_prefix(root).unwrap_or(path).to_path_buf(),
        };
        let relative = relative.as_path();
        let file_name = path.file_name().map(Path::new).unwrap_or(path);
        self.files.iter().any(|glob| {
            let Ok(matcher) = globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher())
            else {
                return false;
            };
            if glob.contains('/') {
                matcher.is_match(relative) || matcher.is_match(path)
            } else {
                matcher.is_match(file_name)
            }
        })
    }
}

/// True when `found` is the field `waived` names or one below it: `spec.versions[v1beta1]`
/// holds `spec.versions[v1beta1].schema.openAPIV3Schema.status`, not `spec.versions[v1beta10]`.
fn is_within(found: &str, waived: &str) -> bool {
    let waived = waived.trim();
    match found.strip_prefix(waived) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

/// Each document's span and `Kind/name`, in one file.
type FileObjects = Vec<(Span, String)>;

/// The objects of the files findings are in, each file parsed once, when a waiver names objects.
#[derive(Default)]
struct ObjectIndex {
    files: Vec<(Arc<Source>, FileObjects)>,
}

impl ObjectIndex {
    /// The `Kind/name` of the object a finding's position is in.
    fn object_of(&mut self, diagnostic: &Diagnostic) -> Option<&str> {
        let file = diagnostic.file.as_ref()?;
        let at = diagnostic.span?.start;
        let index = match self.files.iter().position(|(f, _)| Arc::ptr_eq(f, file)) {
            Some(index) => index,
            None => {
                let parsed = crate::yaml::parse_str(file.clone(), crate::yaml::Limits::default());
                let objects = parsed
                    .documents
                    .iter()
                    .filter_map(|document| {
                        let root = document.root.as_ref()?;
                        let kind = root.get("kind")?.as_str()?;
                        let name = root.path(&["metadata", "name"])?.as_str()?;
                        Some((root.span(), format!("{kind}/{name}")))
                    })
                    .collect();
                self.files.push((file.clone(), objects));
                self.files.len() - 1
            }
        };
        self.files[index]
            .1
            .iter()
            .find(|(span, _)| span.start <= at && at <= span.end)
            .map(|(_, object)| object.as_str())
    }
}

/// The message for a rule id no rule has.
pub fn unknown_rule(rule: &str) -> String {
    format!("there is no rule `{rule}`; `capkg rules` lists every rule id")
}

/// Rules no waiver accepts: clusterctl would silently read less than was published (a CR-only
/// file is read as its first object only), so no judgement makes such a release right.
const NOT_WAIVABLE: &[&str] = &[super::yaml::LINE_ENDINGS.id];

/// Checks that `rule` is a rule a waiver may name: one that exists and can be waived.
pub fn check_rule(rule: &str) -> Result<(), String> {
    if super::find(rule).is_none() {
        return Err(unknown_rule(rule));
    }
    if NOT_WAIVABLE.contains(&rule) {
        return Err(format!(
            "`{rule}` cannot be waived: clusterctl would silently read only part of the file; fix the file instead (`capkg rules {rule}`)"
        ));
    }
    Ok(())
}

/// Checks a glob of `files:` compiles.
pub fn check_glob(glob: &str) -> Result<(), String> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .map_err(|e| format!("`{glob}` is not a valid glob: {e}"))
}

/// How to waive a rule, for `capkg rules ID`.
pub fn how_to_waive(rule: &str) -> String {
    if NOT_WAIVABLE.contains(&rule) {
        return "This rule cannot be waived: no judgement makes a file clusterctl reads only in part right; fix the file.".to_string();
    }
    let (command, narrowed) = if Scope::Upgrade.covers(rule) {
        (
            "`capkg diff` (`capkg release` takes the capkg.yaml entry)",
            "`field` and `previous` name the field and the previous release the finding was judged against, as its JSON form (`--format json`) shows them",
        )
    } else {
        (
            "`capkg lint`",
            "`files` and `objects` narrow it to the files and objects you judged",
        )
    };
    format!(
        "To accept these findings where you have judged them, add an entry to capkg.yaml's `lint: allow:` (below: `reason` is required, the other keys are optional and narrow what it accepts; {narrowed}), or pass `--allow {rule}=<why>` to {command}. Waived findings are still shown, with the reason, and do not fail the run; a waiver that matches nothing is a `lint/unused-waiver` warning."
    )
}

/// The capkg.yaml entry that waives `rule`, every key it takes with an example: what
/// `capkg rules RULE` prints below [`how_to_waive`]. `None` for a rule no waiver accepts.
pub fn waiver_example(rule: &str) -> Option<String> {
    if NOT_WAIVABLE.contains(&rule) {
        return None;
    }
    let mut entry = format!("lint:\n  allow:\n    - rule: {rule}\n");
    if Scope::Upgrade.covers(rule) {
        let (object, field) = super::upgrade::waiver_narrowing(rule);
        if let Some(object) = object {
            entry.push_str(&format!("      objects: [\"{object}\"]\n"));
        }
        if let Some(field) = field {
            entry.push_str(&format!(
                "      field: {field}  # this field and what is below it\n"
            ));
        }
        entry.push_str("      previous: v0.2.0  # judged against this previous release only\n");
    } else {
        entry.push_str(
            "      files: [\"<glob>\"]  # a file name, or a path from capkg.yaml's folder\n      objects: [\"<Kind>/<name>\"]  # globs over the object the finding is in\n",
        );
    }
    entry.push_str("      reason: \"<why you accept it>\"\n");
    Some(entry)
}

/// Which waivers a run judges: lint's own, or the `upgrade/…` ones `capkg diff` uses. A
/// waiver of the other kind is neither applied nor reported unused (one capkg.yaml serves both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Lint,
    Upgrade,
}

impl Scope {
    fn covers(self, rule: &str) -> bool {
        rule.starts_with("upgrade/") == (self == Scope::Upgrade)
    }
}

/// Which of a scope's waivers a run could have matched, so that only those it could have
/// matched and did not are reported unused (`lint/unused-waiver`); every waiver of the scope is
/// applied whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// Every waiver of the scope: `assemble` and `release` lint what they assembled, and a
    /// comparison that ran met every `upgrade/…` rule.
    All,
    /// `capkg lint`: not the rules only `assemble` applies (a development value left after
    /// the image pin).
    Linted,
    /// `capkg verify`, a release as published: lint's rules over files read back, which carry
    /// their names but not the checkout's folders, so a waiver whose `files` name a path is not
    /// judged either.
    Published,
    /// None: the run applies waivers it cannot judge (`release`'s read-back of what it
    /// published, judged at assembly; a diff where no provider had a previous release).
    Nothing,
}

/// Rules whose findings `assemble` makes while it builds the release: lint and verify never
/// see them.
const FOUND_BY_ASSEMBLE: &[&str] = &[super::build::DEV_IMAGE_VALUE.id];

impl Judged {
    fn judges(self, waiver: &Waiver) -> bool {
        match self {
            Judged::All => true,
            Judged::Linted => !FOUND_BY_ASSEMBLE.contains(&waiver.rule.as_str()),
            Judged::Published => {
                !FOUND_BY_ASSEMBLE.contains(&waiver.rule.as_str())
                    && !waiver.files.iter().any(|glob| glob.contains('/'))
            }
            Judged::Nothing => false,
        }
    }
}

/// A run's waivers (`lint: allow:` and `--allow`) with the folder their `files` globs are
/// relative to: what a command's report applies, once, to the findings it gathers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Waivers {
    pub list: Vec<Waiver>,
    pub root: std::path::PathBuf,
}

impl Waivers {
    pub fn new(list: Vec<Waiver>, root: std::path::PathBuf) -> Self {
        Self { list, root }
    }

    /// Lint's waivers applied to lint's findings ([`apply`]), every one judged.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        self.apply_judged(diagnostics, Scope::Lint, Judged::All);
    }

    /// The waivers of one scope applied ([`apply_scoped`]), every one judged.
    pub fn apply_scoped(&self, diagnostics: &mut Vec<Diagnostic>, scope: Scope) {
        self.apply_judged(diagnostics, scope, Judged::All);
    }

    /// The waivers of one scope applied; those `judged` says the run could have matched and
    /// that matched nothing are reported unused.
    pub fn apply_judged(&self, diagnostics: &mut Vec<Diagnostic>, scope: Scope, judged: Judged) {
        apply_judged(diagnostics, &self.list, &self.root, scope, judged);
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Marks the findings each waiver accepts and adds a `lint/unused-waiver` warning for each
/// waiver that accepted none. `root` is the folder `files` globs with a `/` are relative to.
pub fn apply(diagnostics: &mut Vec<Diagnostic>, waivers: &[Waiver], root: &Path) {
    apply_judged(diagnostics, waivers, root, Scope::Lint, Judged::All);
}

/// [`apply`] with the waivers of one scope.
pub fn apply_scoped(
    diagnostics: &mut Vec<Diagnostic>,
    waivers: &[Waiver],
    root: &Path,
    scope: Scope,
) {
    apply_judged(diagnostics, waivers, root, scope, Judged::All);
}

/// [`apply_scoped`], reporting unused only the waivers `judged` says the run could have matched.
pub fn apply_judged(
    diagnostics: &mut Vec<Diagnostic>,
    waivers: &[Waiver],
    root: &Path,
    scope: Scope,
    judged: Judged,
) {
    let waivers: Vec<&Waiver> = waivers.iter().filter(|w| scope.covers(&w.rule)).collect();
    let mut used = vec![false; waivers.len()];
    let mut objects = ObjectIndex::default();
    for diagnostic in diagnostics.iter_mut() {
        if NOT_WAIVABLE.contains(&diagnostic.rule) {
            continue;
        }
        for (index, waiver) in waivers.iter().enumerate() {
            if waiver.matches(diagnostic, root, &mut objects) {
                used[index] = true;
                if diagnostic.waived.is_none() {
                    diagnostic.waived = Some(waiver.reason.clone());
                }
            }
        }
    }
    for (waiver, used) in waivers.iter().zip(used) {
        if used || !judged.judges(waiver) {
            continue;
        }
        diagnostics.push(unused(waiver));
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// The `lint/unused-waiver` warning for a waiver, at its capkg.yaml entry, saying all it names.
fn unused(waiver: &Waiver) -> Diagnostic {
    let mut scope = String::new();
    if !waiver.files.is_empty() {
        scope.push_str(&format!(" in files matching {}", waiver.files.join(", ")));
    }
    if !waiver.objects.is_empty() {
        scope.push_str(&format!(
            " on objects matching {}",
            waiver.objects.join(", ")
        ));
    }
    if let Some(field) = &waiver.field {
        scope.push_str(&format!(" at field {field}"));
    }
    if let Some(previous) = &waiver.previous {
        scope.push_str(&format!(" against previous release {previous}"));
    }
    let (file, span, source) = match &waiver.origin {
        Origin::Config { file, span } => (Some(file.clone()), Some(*span), "`lint: allow:`"),
        Origin::CommandLine => (None, None, "`--allow`"),
    };
    Diagnostic::new(
        UNUSED_WAIVER.id,
        UNUSED_WAIVER.severity,
        file,
        span,
        format!(
            "the waiver of `{}`{scope} ({source}) matches no finding",
            waiver.rule
        ),
        UNUSED_WAIVER.help,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static str, file: &str) -> Diagnostic {
        Diagnostic::new(
            rule,
            Severity::Error,
            Some(Arc::new(Source::new(file, "a: 1\n"))),
            Some(Span::new(0, 1)),
            "m",
            "h",
        )
    }

    fn waiver(rule: &str, files: &[&str]) -> Waiver {
        Waiver {
            rule: rule.into(),
            files: files.iter().map(|f| f.to_string()).collect(),
            objects: Vec::new(),
            field: None,
            previous: None,
            reason: "judged".into(),
            origin: Origin::CommandLine,
        }
    }

    #[test]
    fn waivers_match_rule_and_files() {
        let mut found = vec![
            finding(
                "templates/single-namespace",
                "repo/templates/cluster-template-a.yaml",
            ),
            finding(
                "templates/single-namespace",
                "repo/templates/cluster-template-b.yaml",
            ),
            finding(
                "components/image-tag",
                "repo/out/infrastructure-components.yaml",
            ),
        ];
        apply(
            &mut found,
            &[
                waiver("templates/single-namespace", &["cluster-template-a.yaml"]),
                waiver("components/image-tag", &["out/*.yaml"]),
            ],
            Path::new("repo"),
        );
        let waived = |file: &str| {
            found
                .iter()
                .find(|d| d.file_name() == Some(file))
                .and_then(|d| d.waived.clone())
        };
        assert_eq!(
            waived("repo/templates/cluster-template-a.yaml").as_deref(),
            Some("judged")
        );
        assert_eq!(waived("repo/templates/cluster-template-b.yaml"), None);
        assert_eq!(
            waived("repo/out/infrastructure-components.yaml").as_deref(),
            Some("judged")
        );
        assert_eq!(found.len(), 3);
        let summary = super::super::Summary::of(&found, 3);
        assert_eq!((summary.errors, summary.waived), (1, 2));
    }

    #[test]
    fn an_unused_waiver_is_a_warning() {
        let mut found = vec![finding("components/image-tag", "x.yaml")];
        apply(
            &mut found,
            &[waiver("templates/single-namespace", &[])],
            Path::new("."),
        );
        assert_eq!(found.len(), 2);
        let unused = found
            .iter()
            .find(|d| d.rule == "lint/unused-waiver")
            .expect("a warning");
        assert_eq!(unused.severity, Severity::Warning);
        assert!(unused.message.contains("`templates/single-namespace`"));
    }

    #[test]
    fn flags_name_a_rule_and_maybe_a_reason() {
        let w = Waiver::from_flag("components/image-tag=built elsewhere").unwrap();
        assert_eq!(w.reason, "built elsewhere");
        let w = Waiver::from_flag("components/image-tag").unwrap();
        assert!(w.reason.contains("--allow"));
        assert!(
            Waiver::from_flag("components/nope")
                .unwrap_err()
                .contains("no rule")
        );
    }

    #[test]
    fn waivers_may_name_objects() {
        let text = "kind: CustomResourceDefinition\nmetadata:\n  name: a.x.io\n---\nkind: CustomResourceDefinition\nmetadata:\n  name: b.x.io\n";
        let file = Arc::new(Source::new("infrastructure-components.yaml", text));
        let at = |offset: usize| {
            Diagnostic::new(
                "crd/contract-label",
                Severity::Error,
                Some(file.clone()),
                Some(Span::new(offset, offset + 1)),
                "m",
                "h",
            )
        };
        let second = text.find("b.x.io").unwrap();
        let mut found = vec![at(text.find("a.x.io").unwrap()), at(second)];
        let mut judged = waiver("crd/contract-label", &[]);
        judged.objects = vec!["CustomResourceDefinition/b.*".into()];
        apply(&mut found, &[judged], Path::new("."));
        let waived: Vec<bool> = found.iter().map(|d| d.waived.is_some()).collect();
        assert_eq!(waived, [false, true]);
        let mut unused = waiver("crd/contract-label", &[]);
        unused.objects = vec!["Deployment/*".into()];
        let mut found = vec![at(second)];
        apply(&mut found, &[unused], Path::new("."));
        assert!(found.iter().all(|d| d.waived.is_none()));
        let unused = found
            .iter()
            .find(|d| d.rule == UNUSED_WAIVER.id)
            .expect("an unused waiver");
        assert!(
            unused.message.contains("on objects matching Deployment/*"),
            "{}",
            unused.message
        );
    }

    #[test]
    fn a_field_holds_what_is_below_it_and_nothing_beside_it() {
        let status = "spec.versions[v1beta1].schema.openAPIV3Schema.status";
        assert!(is_within(status, status));
        assert!(is_within(&format!("{status}.conditions[*]"), status));
        assert!(is_within(status, "spec.versions[v1beta1]"));
        assert!(!is_within(
            "spec.versions[v1beta1].schema.openAPIV3Schema.statusDetail",
            status
        ));
        assert!(!is_within(
            "spec.versions[v1beta10]",
            "spec.versions[v1beta1]"
        ));
        assert!(!is_within("spec.versions[v1beta1]", status));
    }

    #[test]
    fn upgrade_waivers_match_the_field_and_the_previous_release_they_name() {
        let found = |field: &str, previous: Option<&str>| {
            let mut d = finding(
                "upgrade/crd-field-removed",
                "new/infrastructure-components.yaml",
            );
            d.field = Some(field.into());
            d.previous = previous.map(str::to_string);
            d
        };
        let status = "spec.versions[v1beta1].schema.openAPIV3Schema.status";
        let spec = "spec.versions[v1beta1].schema.openAPIV3Schema.spec";
        let mut judged = waiver("upgrade/crd-field-removed", &[]);
        judged.field = Some(status.into());
        judged.previous = Some(crate::version::Version::parse("v0.2.0").unwrap());
        let mut found = vec![
            found(status, Some("v0.2.0")),
            found(status, Some("0.2.0+build.1")),
            found(status, Some("v0.3.0")),
            found(spec, Some("v0.2.0")),
            found(status, None),
        ];
        apply_scoped(&mut found, &[judged], Path::new("."), Scope::Upgrade);
        let waived: Vec<bool> = found.iter().map(|d| d.waived.is_some()).collect();
        // `v` and build metadata do not make another release.
        assert_eq!(waived, [true, true, false, false, false]);
    }

    #[test]
    fn unused_is_reported_only_for_what_the_run_could_have_matched() {
        let unused = |waivers: &[Waiver], judged: Judged| {
            let mut found = Vec::new();
            apply_judged(&mut found, waivers, Path::new("."), Scope::Lint, judged);
            found.len()
        };
        let assemble_only = waiver(super::super::build::DEV_IMAGE_VALUE.id, &[]);
        let by_path = waiver("components/object-namespace", &["config/rbac/*.yaml"]);
        let by_name = waiver("components/object-namespace", &["role.yaml"]);
        assert_eq!(unused(std::slice::from_ref(&assemble_only), Judged::All), 1);
        assert_eq!(
            unused(std::slice::from_ref(&assemble_only), Judged::Linted),
            0
        );
        assert_eq!(unused(std::slice::from_ref(&by_path), Judged::Linted), 1);
        assert_eq!(unused(std::slice::from_ref(&by_path), Judged::Published), 0);
        assert_eq!(unused(std::slice::from_ref(&by_name), Judged::Published), 1);
        assert_eq!(
            unused(&[by_name, by_path, assemble_only], Judged::Nothing),
            0
        );
    }
}
