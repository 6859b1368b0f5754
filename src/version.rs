//! Semantic versions exactly as Kubernetes' `k8s.io/apimachinery/pkg/util/version` parses and
//! compares them (`ParseSemantic`, `String`, `Compare`).
//!
//! clusterctl reads provider versions with that package: the version folders of a local
//! repository, GitHub release tags, `--infrastructure aws:v2.5.0` on the command line, the
//! versions in cluster-api-operator ConfigMaps. A release that capkg calls valid must be valid for
//! clusterctl and vice versa, and "latest" must be picked the same way, so this module follows the
//! Go code rather than the semver crate or the semver specification where they differ:
//!
//! - one optional lower-case `v` (`V1.2.3` is rejected);
//! - white space around the version is accepted, but it is Go's regexp `\s` (tab, line feed, form
//!   feed, carriage return, space) and a line feed is only accepted *before* the version:
//!   `"1.2.3\n"` is rejected (`.` does not match `\n` and `$` means end of text), as is a vertical
//!   tab anywhere;
//! - numeric pre-release identifiers with a leading zero are rejected only when they fit in a
//!   `u64` (Go checks them with `strconv.ParseUint`);
//! - pre-release identifiers compare numerically when both are numbers, otherwise byte-wise as
//!   strings. That is not semver's rule (a number is always lower than an alphanumeric
//!   identifier) and it is not even transitive: `1.0.0-2 < 1.0.0-10 < 1.0.0-1a < 1.0.0-2`. For that
//!   reason [`Version`] implements [`PartialOrd`] but not [`Ord`]; do not feed [`Version::compare`]
//!   to `sort_by` (Rust's sorts may panic on an inconsistent order). Build metadata and the `v` are
//!   ignored by comparisons and equality.
//!
//! Go's `ParseGeneric` (two or more components, trailing junk ignored) is not provided.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// A version accepted by apimachinery's `ParseSemantic`.
#[derive(Debug, Clone)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre_release: String,
    build_metadata: String,
    v_prefix: bool,
}

/// Why a string is not a semantic version. The messages follow apimachinery's, with the input
/// quoted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// No `[v]MAJOR[.MINOR...]` at the start, or a line break after it.
    #[error("could not parse {input:?} as version")]
    Malformed { input: String },
    /// Not exactly three numeric components.
    #[error(
        "illegal version string {input:?}: a semantic version has exactly three numeric \
         components, MAJOR.MINOR.PATCH"
    )]
    ComponentCount { input: String },
    /// A numeric component or numeric pre-release identifier starts with `0`.
    #[error("illegal zero-prefixed version component {component:?} in {input:?}")]
    LeadingZero { component: String, input: String },
    /// A numeric component does not fit in 64 bits.
    #[error("illegal non-numeric version component {component:?} in {input:?}: value out of range")]
    OutOfRange { component: String, input: String },
    /// What follows the numbers is not `-pre.release`, `+build.metadata` and white space.
    #[error("could not parse pre-release/metadata ({extra}) in version {input:?}")]
    BadSuffix { extra: String, input: String },
}

/// Parses `input` as apimachinery's `ParseSemantic` does.
pub(crate) fn parse_semantic(input: &str) -> Result<Version, VersionError> {
    let malformed = || VersionError::Malformed {
        input: input.to_string(),
    };
    let bytes = input.as_bytes();

    // ^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$  -- the numbers are matched greedily; every position
    // advanced over below is an ASCII byte, so the slices are on character boundaries.
    let mut pos = bytes.iter().take_while(|&&b| is_go_space(b)).count();
    let v_prefix = bytes.get(pos) == Some(&b'v');
    if v_prefix {
        pos += 1;
    }
    let numbers_start = pos;
    let first = count_digits(bytes, pos);
    if first == 0 {
        return Err(malformed());
    }
    pos += first;
    while bytes.get(pos) == Some(&b'.') {
        let more = count_digits(bytes, pos + 1);
        if more == 0 {
            break;
        }
        pos += 1 + more;
    }
    let numbers = input.get(numbers_start..pos).ok_or_else(malformed)?;
    let extra = input.get(pos..).ok_or_else(malformed)?;
    if extra.contains('\n') {
        return Err(malformed());
    }

    let components: Vec<&str> = numbers.split('.').collect();
    let [major, minor, patch] = components[..] else {
        return Err(VersionError::ComponentCount {
            input: input.to_string(),
        });
    };
    let number = |component: &str| -> Result<u64, VersionError> {
        if component.starts_with('0') && component != "0" {
            return Err(VersionError::LeadingZero {
                component: component.to_string(),
                input: input.to_string(),
            });
        }
        go_parse_uint(component).ok_or_else(|| VersionError::OutOfRange {
            component: component.to_string(),
            input: input.to_string(),
        })
    };
    let (major, minor, patch) = (number(major)?, number(minor)?, number(patch)?);

    let (pre_release, build_metadata) = if extra.is_empty() {
        ("", "")
    } else {
        split_extra(extra).ok_or_else(|| VersionError::BadSuffix {
            extra: extra.to_string(),
            input: input.to_string(),
        })?
    };
    for identifier in pre_release.split('.') {
        if go_parse_uint(identifier).is_some() && identifier.starts_with('0') && identifier != "0" {
            return Err(VersionError::LeadingZero {
                component: identifier.to_string(),
                input: input.to_string(),
            });
        }
    }

    Ok(Version {
        major,
        minor,
        patch,
        pre_release: pre_release.to_string(),
        build_metadata: build_metadata.to_string(),
        v_prefix,
    })
}

/// Go's regexp `\s`.
fn is_go_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn count_digits(bytes: &[u8], from: usize) -> usize {
    bytes.get(from..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_digit()).count()
    })
}

/// Go's `strconv.ParseUint(s, 10, 0)` on a 64-bit platform: ASCII digits only, no sign.
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Matches `^(?:-(IDS))?(?:\+(IDS))?\s*$` with `IDS` = `[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*`,
/// returning (pre-release, build metadata). Greedy matching is the only way this can succeed, so
/// no backtracking is needed.
fn split_extra(extra: &str) -> Option<(&str, &str)> {
    let mut rest = extra;
    let mut pre_release = "";
    let mut build_metadata = "";
    if let Some(after) = rest.strip_prefix('-') {
        let len = dotted_identifiers_len(after);
        if len > 0 {
            pre_release = after.get(..len)?;
            rest = after.get(len..)?;
        }
    }
    if let Some(after) = rest.strip_prefix('+') {
        let len = dotted_identifiers_len(after);
        if len > 0 {
            build_metadata = after.get(..len)?;
            rest = after.get(len..)?;
        }
    }
    rest.bytes()
        .all(is_go_space)
        .then_some((pre_release, build_metadata))
}

/// Length of the longest prefix of `s` matching `[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*`, 0 if none.
fn dotted_identifiers_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let identifier_len = |from: usize| {
        bytes.get(from..).map_or(0, |rest| {
            rest.iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'-')
                .count()
        })
    };
    let mut len = identifier_len(0);
    if len == 0 {
        return 0;
    }
    while bytes.get(len) == Some(&b'.') {
        let next = identifier_len(len + 1);
        if next == 0 {
            break;
        }
        len += 1 + next;
    }
    len
}

impl Version {
    /// The major version.
    /// Parses as Kubernetes does ([`parse_semantic`]).
    pub fn parse(input: &str) -> Result<Version, VersionError> {
        parse_semantic(input)
    }

    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor version.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch version.
    pub fn patch(&self) -> u64 {
        self.patch
    }

    /// The pre-release part without its `-`, or `""`.
    pub fn pre_release(&self) -> &str {
        &self.pre_release
    }

    /// The build metadata without its `+`, or `""`.
    pub fn build_metadata(&self) -> &str {
        &self.build_metadata
    }

    /// Whether the version has a pre-release part (`v1.2.0-rc.1`).
    pub fn is_prerelease(&self) -> bool {
        !self.pre_release.is_empty()
    }

    /// Whether the parsed text had the leading `v`.
    pub fn has_v_prefix(&self) -> bool {
        self.v_prefix
    }

    /// Go's `Version.String()`: `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, never with the `v`.
    pub fn go_string(&self) -> String {
        let mut out = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre_release.is_empty() {
            out.push('-');
            out.push_str(&self.pre_release);
        }
        if !self.build_metadata.is_empty() {
            out.push('+');
            out.push_str(&self.build_metadata);
        }
        out
    }

    /// apimachinery's `compareInternal` for two semantic versions. Build metadata is ignored.
    /// Not a total order (see the module documentation).
    pub fn compare(&self, other: &Version) -> Ordering {
        let numbers =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if numbers != Ordering::Equal {
            return numbers;
        }
        match (self.pre_release.is_empty(), other.pre_release.is_empty()) {
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        if self.pre_release == other.pre_release {
            return Ordering::Equal;
        }
        let mine: Vec<&str> = self.pre_release.split('.').collect();
        let theirs: Vec<&str> = other.pre_release.split('.').collect();
        for (a, b) in mine.iter().zip(&theirs) {
            if let (Some(a), Some(b)) = (go_parse_uint(a), go_parse_uint(b)) {
                match a.cmp(&b) {
                    Ordering::Equal => continue,
                    unequal => return unequal,
                }
            }
            match a.cmp(b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        mine.len().cmp(&theirs.len())
    }

    /// Go's `LessThan`.
    pub fn less_than(&self, other: &Version) -> bool {
        self.compare(other) == Ordering::Less
    }

    /// Go's `GreaterThan`.
    pub fn greater_than(&self, other: &Version) -> bool {
        self.compare(other) == Ordering::Greater
    }

    /// Go's `AtLeast`.
    pub fn at_least(&self, min: &Version) -> bool {
        self.compare(min) != Ordering::Less
    }
}

/// Renders the version as written, minus surrounding white space: with the `v` if it had one.
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.v_prefix {
            f.write_str("v")?;
        }
        f.write_str(&self.go_string())
    }
}

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_semantic(s)
    }
}

/// Go's `EqualTo`: same numbers and pre-release; build metadata and `v` do not count.
impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Hash for Version {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.major, self.minor, self.patch, &self.pre_release).hash(state);
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.compare(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(s: &str) -> Version {
        match parse_semantic(s) {
            Ok(version) => version,
            Err(err) => panic!("{s:?}: {err}"),
        }
    }

    /// apimachinery v0.36.3 `version_test.go` `TestSemanticVersions`: (version, expected
    /// `String()` or "" for the version itself, equal to the previous row). Rows are in
    /// increasing order; every row is compared with the previous one both ways.
    const SEMANTIC_VERSIONS: [(&str, &str, bool); 30] = [
        ("0.1.0", "", false),
        ("1.0.0-0.3.7", "", false),
        ("1.0.0-alpha", "", false),
        ("1.0.0-alpha+001", "", true),
        ("1.0.0-alpha.1", "", false),
        ("1.0.0-alpha.beta", "", false),
        ("1.0.0-beta", "", false),
        ("1.0.0-beta+exp.sha.5114f85", "", true),
        ("1.0.0-beta.2", "", false),
        ("1.0.0-beta.11", "", false),
        ("1.0.0-rc.1", "", false),
        ("1.0.0-x.7.z.92", "", false),
        ("1.0.0", "", false),
        ("1.0.0+20130313144700", "", true),
        ("1.8.0-alpha.3", "", false),
        ("1.8.0-alpha.3.673+73326ef01d2d7c", "", false),
        ("1.9.0", "", false),
        ("1.10.0", "", false),
        ("1.11.0", "", false),
        ("2.0.0", "", false),
        ("2.1.0", "", false),
        ("2.1.1", "", false),
        ("42.0.0", "", false),
        ("   42.0.0", "42.0.0", true),
        ("\t42.0.0  ", "42.0.0", true),
        ("43.0.0-1", "43.0.0-1", false),
        ("43.0.0-1  ", "43.0.0-1", true),
        ("v43.0.0-1", "43.0.0-1", true),
        ("  v43.0.0", "43.0.0", false),
        (" 43.0.0 ", "43.0.0", true),
    ];

    /// `TestBadSemanticVersions`, plus the rows of `TestBadGenericVersions` (anything
    /// `ParseGeneric` rejects, `ParseSemantic` rejects too).
    const BAD_SEMANTIC_VERSIONS: [&str; 40] = [
        "1",
        "1.2",
        "1.2.3.4",
        ".2.3",
        "1..3",
        "1.2.",
        "",
        "..",
        "-1.2.3",
        "1.-2.3",
        "1.2.-3",
        "1a.2.3",
        "1.2a.3",
        "1.2.3a",
        "a1.2.3",
        "a.b.c",
        "1 .2.3",
        "1. 2.3",
        "01.2.3",
        "1.02.3",
        "1.2.03",
        "1.2.3-/",
        "1.2.3-",
        "1.2.3-.",
        "1.2.3-foo.",
        "1.2.3-.foo",
        "1.2.3-01",
        "1.2.3+/",
        "1.2.3+",
        "1.2.3+.",
        "1.2.3+foo.",
        "1.2.3+.foo",
        "v 1.2.3",
        "vv1.2.3",
        // from TestBadGenericVersions
        "1.bob",
        "bob",
        ".",
        "1.2.3.4",
        "1 .2.3",
        "v 1.2.3",
    ];

    #[test]
    fn upstream_semantic_versions() {
        let mut prev: Option<&str> = None;
        for (text, unparsed, equals_prev) in SEMANTIC_VERSIONS {
            let version = parse(text);
            let expected = if unparsed.is_empty() { text } else { unparsed };
            assert_eq!(version.go_string(), expected, "round trip of {text:?}");
            if let Some(prev) = prev {
                let prev_version = parse(prev);
                let cmp = version.compare(&prev_version);
                let expected = if equals_prev {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                };
                assert_eq!(cmp, expected, "{text:?} <=> {prev:?}");
                assert_eq!(prev_version.compare(&version), cmp.reverse());
            }
            prev = Some(text);
        }
    }

    #[test]
    fn upstream_bad_semantic_versions() {
        for text in BAD_SEMANTIC_VERSIONS {
            assert!(parse_semantic(text).is_err(), "{text:?} must be rejected");
        }
    }

    /// `TestComponents` and `TestParse`, the semantic rows.
    #[test]
    fn upstream_components() {
        let rows = [
            ("1.0.2", [1, 0, 2], "", ""),
            ("1.0.2-alpha+001", [1, 0, 2], "alpha", "001"),
            (
                "1.0.2-beta+exp.sha.5114f85",
                [1, 0, 2],
                "beta",
                "exp.sha.5114f85",
            ),
        ];
        for (text, [major, minor, patch], pre_release, build_metadata) in rows {
            let version = parse(text);
            assert_eq!(
                (version.major(), version.minor(), version.patch()),
                (major, minor, patch)
            );
            assert_eq!(version.pre_release(), pre_release);
            assert_eq!(version.build_metadata(), build_metadata);
        }
    }

    #[test]
    fn whitespace_is_gos_regexp_space() {
        for (ok, expected) in [
            ("\n1.2.3", "1.2.3"),
            ("\r\n v1.2.3", "1.2.3"),
            ("\x0C1.2.3", "1.2.3"),
            ("1.2.3\r", "1.2.3"),
            ("1.2.3\t\x0C ", "1.2.3"),
            ("1.2.3-rc.1\t", "1.2.3-rc.1"),
            ("1.2.3+b\r", "1.2.3+b"),
        ] {
            assert_eq!(parse(ok).go_string(), expected, "{ok:?}");
        }
        for bad in [
            "1.2.3\n",
            "1.2.3 \n",
            "1.2.3-rc.1\n",
            "\x0B1.2.3",
            "1.2.3\x0B",
            "\u{A0}1.2.3",
            "1.2.3\u{A0}",
            " v 1.2.3",
            "V1.2.3",
            "1.2.3 -rc.1",
            "1.2.3-rc.1 +build",
            "1.2.3-rc.1 x",
        ] {
            assert!(parse_semantic(bad).is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn numbers_and_identifiers() {
        // u64 range, as Go's uint on 64-bit platforms.
        let max = parse("18446744073709551615.0.0");
        assert_eq!(max.major(), u64::MAX);
        assert!(matches!(
            parse_semantic("18446744073709551616.0.0"),
            Err(VersionError::OutOfRange { .. })
        ));
        // A numeric pre-release identifier too big for u64 escapes the leading-zero check.
        assert_eq!(
            parse("1.0.0-099999999999999999999").pre_release(),
            "099999999999999999999"
        );
        assert!(parse_semantic("1.0.0-012345678901234567890").is_err());
        assert!(matches!(
            parse_semantic("1.0.0-rc.01"),
            Err(VersionError::LeadingZero { .. })
        ));
        // Hyphens anywhere in identifiers, leading zeros in alphanumerics and build metadata.
        let odd = parse("1.0.0--.0a.-1+001.-");
        assert_eq!(odd.pre_release(), "-.0a.-1");
        assert_eq!(odd.build_metadata(), "001.-");
        assert_eq!(parse("1.0.0+build").pre_release(), "");
        assert_eq!(parse("0.0.0").go_string(), "0.0.0");
    }

    #[test]
    fn ordering_follows_go_not_semver() {
        let v = parse;
        // Numeric identifiers compare as numbers when both are numbers...
        assert!(v("1.0.0-2").less_than(&v("1.0.0-10")));
        // ...otherwise as strings, byte by byte: not transitive.
        assert!(v("1.0.0-10").less_than(&v("1.0.0-1a")));
        assert!(v("1.0.0-1a").less_than(&v("1.0.0-2")));
        // semver would put the number first; Go compares "-" (0x2d) below "1".
        assert!(v("1.0.0--").less_than(&v("1.0.0-1")));
        assert!(v("1.0.0-9").greater_than(&v("1.0.0-10a")));
        // Usual cases.
        assert!(v("1.0.0-rc.1").less_than(&v("1.0.0")));
        assert!(v("1.0.0-rc.1").less_than(&v("1.0.0-rc.1.1")));
        assert!(v("v1.2.3").at_least(&v("1.2.3+other")));
        assert!(v("1.10.0") > v("1.9.9"));
        assert_eq!(v("v1.2.3+a"), v("1.2.3+b"));
        assert_ne!(v("1.2.3-a"), v("1.2.3"));
    }

    #[test]
    fn display_keeps_the_v() {
        let version = parse("  v1.2.3-rc.1+build.5 ");
        assert_eq!(version.to_string(), "v1.2.3-rc.1+build.5");
        assert_eq!(version.go_string(), "1.2.3-rc.1+build.5");
        assert!(version.has_v_prefix());
        assert!(version.is_prerelease());
        assert_eq!((version.major(), version.minor()), (1, 2));
        let plain: Version = "1.2.3".parse().expect("valid");
        assert_eq!(plain.to_string(), "1.2.3");
        assert!(!plain.has_v_prefix() && !plain.is_prerelease());
    }

    #[test]
    fn error_messages() {
        let message = |s: &str| parse_semantic(s).map(|_| ()).unwrap_err().to_string();
        assert_eq!(message("bob"), r#"could not parse "bob" as version"#);
        assert_eq!(
            message("1.2.3\n"),
            r#"could not parse "1.2.3\n" as version"#
        );
        assert_eq!(
            message("v1.2"),
            "illegal version string \"v1.2\": a semantic version has exactly three numeric \
             components, MAJOR.MINOR.PATCH"
        );
        assert_eq!(
            message("1.02.3"),
            r#"illegal zero-prefixed version component "02" in "1.02.3""#
        );
        assert_eq!(
            message("1.2.3-rc.01"),
            r#"illegal zero-prefixed version component "01" in "1.2.3-rc.01""#
        );
        assert_eq!(
            message("1.2.3_x"),
            r#"could not parse pre-release/metadata (_x) in version "1.2.3_x""#
        );
    }

    fn parsed(text: &str) -> Result<Version, TestCaseError> {
        parse_semantic(text).map_err(|err| TestCaseError::fail(format!("{text:?}: {err}")))
    }

    proptest! {
        #[test]
        fn canonical_versions_round_trip(
            major in 0u64..1_000_000,
            minor in any::<u64>(),
            patch in 0u64..100,
            pre in prop::collection::vec("[a-zA-Z-][0-9A-Za-z-]{0,5}|0|[1-9][0-9]{0,5}", 0..4),
            build in prop::collection::vec("[0-9A-Za-z-]{1,6}", 0..3),
            v in any::<bool>(),
        ) {
            let mut text = format!("{}{major}.{minor}.{patch}", if v { "v" } else { "" });
            if !pre.is_empty() {
                text.push('-');
                text.push_str(&pre.join("."));
            }
            if !build.is_empty() {
                text.push('+');
                text.push_str(&build.join("."));
            }
            let version = parsed(&text)?;
            prop_assert_eq!(version.to_string(), text.clone());
            prop_assert_eq!(version.go_string(), text.trim_start_matches('v'));
            let release = parsed(&format!("{major}.{minor}.{patch}"))?;
            let expected = if pre.is_empty() { Ordering::Equal } else { Ordering::Less };
            prop_assert_eq!(version.compare(&release), expected);
            prop_assert_eq!(release.compare(&version), expected.reverse());
        }
    }
}
