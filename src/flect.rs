//! A port of the pluraliser in gobuffalo/flect v1.0.3 (`flect.Pluralize`), and of Cluster API's
//! `contract.CalculateCRDName`, which is built on it.
//!
//! `clusterctl init` (and upgrade) refuses a provider release when a CustomResourceDefinition's
//! `metadata.name` differs from `<flect.Pluralize(lower(kind))>.<group>`, unless the CRD carries the
//! `clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check` annotation. capkg has to predict that
//! check, so this module must give byte-for-byte the same answer as flect, including its odd ones:
//! `dns` -> `dnsDNSes` (acronym handling), `video` -> `videoes`, `metal3data` unchanged (it "looks
//! plural"), first matching suffix rule wins. It is not meant to be good English.
//!
//! How flect works, as reproduced here (see `docs/clusterctl-behaviour.md` §8):
//!
//! 1. The word is split into parts; an acronym part is upper-cased. The last part drives the rules.
//! 2. An exact dictionary hit on the whole word, then "already a known plural", then the same two
//!    look-ups on the lower-cased last part.
//! 3. Otherwise the first suffix rule that matches the last part. Rules are matched against the
//!    (possibly upper-cased) part but the replacement is applied to the original word, which is
//!    where `dnsDNSes` comes from.
//! 4. Otherwise append `s` unless the last part already ends in `s`.
//!
//! The word tables (dictionary, suffix rules, acronyms) are transcribed as data from flect v1.0.3.
//!
//! Deliberately not reproduced: at start-up flect reads `inflections.json` and `acronyms.json`
//! from the current working directory (or from `$INFLECT_PATH` / `$ACRONYMS_PATH`) and adds them to
//! its tables, so clusterctl's answer can depend on the directory it is run from. capkg models a
//! clusterctl run without such files.
//!
//! Character classes: flect uses Go's Unicode categories (`unicode.IsUpper`, `IsLetter`, `IsDigit`,
//! `IsPunct`), which [`crate::go_unicode`] reproduces. The API server only accepts kinds that are DNS-1035 labels once lower-cased (ASCII
//! letters, digits and `-`), so CRD names are never affected. Note that `-` is one of flect's
//! separators: only the part after the last `-` is pluralised (`my-dns` -> `my-dnsDNSes`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::go_unicode;

/// Returns the name clusterctl expects for a CRD of `kind` in API group `group`:
/// `<pluralize(lower(kind))>.<group>`, as Cluster API's `contract.CalculateCRDName`.
pub(crate) fn calculate_crd_name(group: &str, kind: &str) -> String {
    format!("{}.{}", pluralize(&go_to_lower(kind)), group)
}

/// Pluralises `word` exactly as flect v1.0.3 `Pluralize` does (without custom inflection files).
pub(crate) fn pluralize(word: &str) -> String {
    let parts = to_parts(word);
    let Some(last) = parts.last() else {
        return String::new();
    };
    let last = last.as_str();
    let tables = &*TABLES;

    if let Some(plural) = tables.single_to_plural.get(word) {
        return replace_suffix(word, word, plural);
    }
    if tables.plural_to_single.contains_key(word) {
        return word.to_string();
    }

    let lower = go_to_lower(last);
    if tables.plural_to_single.contains_key(lower.as_str()) {
        return word.to_string();
    }
    if let Some(plural) = tables.single_to_plural.get(lower.as_str()) {
        let plural = if last == capitalize(last) {
            capitalize(plural)
        } else {
            (*plural).to_string()
        };
        return replace_suffix(word, last, &plural);
    }

    for rule in &tables.plural_rules {
        if let Some(stem) = last.strip_suffix(rule.suffix) {
            let replaced = match rule.replacement {
                Some(replacement) => format!("{stem}{replacement}"),
                None => last.to_string(),
            };
            return replace_suffix(word, last, &replaced);
        }
    }

    if lower.ends_with('s') {
        return word.to_string();
    }
    format!("{word}s")
}

/// flect's `Ident.ReplaceSuffix`: drop `old` from the end of `word` if it is there (case-sensitive),
/// then append `new`.
fn replace_suffix(word: &str, old: &str, new: &str) -> String {
    let stem = word.strip_suffix(old).unwrap_or(word);
    format!("{stem}{new}")
}

/// flect's `Capitalize`: title-case the first character. Only ever called with a non-empty part
/// or a dictionary word, for which flect's "no parts -> empty string" case cannot happen.
fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => {
            let mut out = String::with_capacity(s.len());
            out.push(go_unicode::to_title(first));
            out.push_str(chars.as_str());
            out
        }
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Splitting into parts (flect's `toParts` and `xappend`)
// ---------------------------------------------------------------------------------------------

/// Characters flect treats as word separators, besides Unicode white space.
const SEPARATORS: [char; 5] = ['_', ' ', ':', '-', '/'];

fn is_separator(c: char) -> bool {
    SEPARATORS.contains(&c) || c.is_whitespace()
}

fn is_acronym(upper: &str) -> bool {
    TABLES.acronyms.contains(upper)
}

fn to_parts(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let s = s.trim();
    if s.is_empty() {
        return parts;
    }
    let upper = go_to_upper(s);
    if is_acronym(&upper) {
        parts.push(upper);
        return parts;
    }

    // Go's zero rune: not upper-case.
    let mut prev = '\0';
    let mut current = String::with_capacity(s.len());
    for c in s.chars() {
        let starts_part = is_separator(c)
            || (go_unicode::is_upper(c) && !go_unicode::is_upper(prev))
            || (go_unicode::is_upper(c) && is_acronym(&go_to_upper(&current)));
        if starts_part {
            push_part(&mut parts, &current);
            current.clear();
            current.push(c);
            prev = c;
            continue;
        }
        if go_unicode::is_letter(c)
            || go_unicode::is_digit(c)
            || go_unicode::is_punct(c)
            || c == '`'
        {
            prev = c;
            current.push(c);
            continue;
        }
        // Anything else (symbols, controls, ...) ends the part and is dropped.
        push_part(&mut parts, &current);
        current.clear();
        prev = c;
    }
    push_part(&mut parts, &current);
    parts
}

/// flect's `xappend`: trim white space, then each separator in turn, upper-case acronyms, and
/// keep the part if anything is left.
fn push_part(parts: &mut Vec<String>, raw: &str) {
    let mut s = raw.trim();
    for sep in SEPARATORS {
        s = s.trim_matches(sep);
    }
    if s.is_empty() {
        return;
    }
    let upper = go_to_upper(s);
    if is_acronym(&upper) {
        parts.push(upper);
    } else {
        parts.push(s.to_string());
    }
}

// ---------------------------------------------------------------------------------------------
// Go's character functions
// ---------------------------------------------------------------------------------------------

/// Go's `strings.ToLower`: every character by its simple lower-case mapping.
fn go_to_lower(s: &str) -> String {
    s.chars().map(go_unicode::to_lower).collect()
}

/// Go's `strings.ToUpper`: simple upper-case mapping; characters whose only upper-case form has
/// several characters (`ß`, ligatures) stay as they are, as in Go.
fn go_to_upper(s: &str) -> String {
    s.chars().map(go_unicode::to_upper).collect()
}

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

/// One entry of flect's dictionary (`plural_rules.go`, `dictionary`).
#[derive(Debug, Clone, Copy)]
struct Word {
    singular: &'static str,
    /// Empty for uncountable words: the plural is then the singular.
    plural: &'static str,
    /// Another accepted plural (only used for "already plural" detection).
    alternative: &'static str,
    /// The plural must not be mapped back to this singular.
    unidirectional: bool,
    uncountable: bool,
    /// Whole-word only: no suffix rule is made from it.
    exact: bool,
}

impl Word {
    const fn alt(mut self, alternative: &'static str) -> Self {
        self.alternative = alternative;
        self
    }
    const fn unidirectional(mut self) -> Self {
        self.unidirectional = true;
        self
    }
    const fn exact(mut self) -> Self {
        self.exact = true;
        self
    }
    fn plural(&self) -> &'static str {
        if self.uncountable && self.plural.is_empty() {
            self.singular
        } else {
            self.plural
        }
    }
}

const fn w(singular: &'static str, plural: &'static str) -> Word {
    Word {
        singular,
        plural,
        alternative: "",
        unidirectional: false,
        uncountable: false,
        exact: false,
    }
}

const fn uncountable(singular: &'static str) -> Word {
    Word {
        uncountable: true,
        ..w(singular, "")
    }
}

/// flect v1.0.3 `dictionary`, in its order (the order matters: it fixes the rule priority).
#[rustfmt::skip]
const DICTIONARY: [Word; 126] = [
    w("aircraft", "aircraft"),
    w("beef", "beef").alt("beefs"),
    w("bison", "bison"),
    w("blues", "blues").unidirectional(),
    w("chassis", "chassis"),
    w("deer", "deer"),
    w("fish", "fish").alt("fishes"),
    w("moose", "moose"),
    w("police", "police"),
    w("salmon", "salmon").alt("salmons"),
    w("series", "series"),
    w("sheep", "sheep"),
    w("shrimp", "shrimp").alt("shrimps"),
    w("species", "species"),
    w("swine", "swine").alt("swines"),
    w("trout", "trout").alt("trouts"),
    w("tuna", "tuna").alt("tunas"),
    w("you", "you"),
    w("child", "children"),
    w("ox", "oxen").exact(),
    w("foot", "feet"),
    w("goose", "geese"),
    w("man", "men"),
    w("human", "humans"),
    w("louse", "lice").exact(),
    w("mouse", "mice"),
    w("tooth", "teeth"),
    w("woman", "women"),
    w("die", "dice").exact(),
    w("person", "people"),
    w("adieu", "adieux").alt("adieus"),
    w("fabliau", "fabliaux"),
    w("bureau", "bureaus").alt("bureaux"),
    w("criterion", "criteria"),
    w("ganglion", "ganglia").alt("ganglions"),
    w("lexicon", "lexica").alt("lexicons"),
    w("mitochondrion", "mitochondria").alt("mitochondrions"),
    w("noumenon", "noumena"),
    w("phenomenon", "phenomena"),
    w("taxon", "taxa"),
    w("media", "media"),
    w("medium", "media").alt("mediums").unidirectional(),
    w("stadium", "stadiums").alt("stadia"),
    w("aquarium", "aquaria").alt("aquariums"),
    w("auditorium", "auditoria").alt("auditoriums"),
    w("symposium", "symposia").alt("symposiums"),
    w("curriculum", "curriculums").alt("curricula"),
    w("quota", "quotas"),
    w("alumnus", "alumni").alt("alumnuses"),
    w("bacillus", "bacilli"),
    w("cactus", "cacti").alt("cactuses"),
    w("coccus", "cocci"),
    w("focus", "foci").alt("focuses"),
    w("locus", "loci").alt("locuses"),
    w("nucleus", "nuclei").alt("nucleuses"),
    w("octopus", "octupuses").alt("octopi"),
    w("radius", "radii").alt("radiuses"),
    w("syllabus", "syllabi"),
    w("corpus", "corpora").alt("corpuses"),
    w("genus", "genera"),
    w("alumna", "alumnae"),
    w("vertebra", "vertebrae"),
    w("differentia", "differentiae"),
    w("minutia", "minutiae"),
    w("vita", "vitae"),
    w("larva", "larvae"),
    w("postcava", "postcavae"),
    w("praecava", "praecavae"),
    w("uva", "uvae"),
    w("apex", "apices").alt("apexes"),
    w("codex", "codices").alt("codexes"),
    w("index", "indices").alt("indexes"),
    w("latex", "latices").alt("latexes"),
    w("vertex", "vertices").alt("vertexes"),
    w("vortex", "vortices").alt("vortexes"),
    w("appendix", "appendices").alt("appendixes"),
    w("radix", "radices").alt("radixes"),
    w("helix", "helices").alt("helixes"),
    w("axis", "axes").exact(),
    w("crisis", "crises"),
    w("ellipsis", "ellipses").unidirectional(),
    w("genesis", "geneses"),
    w("oasis", "oases"),
    w("thesis", "theses"),
    w("testis", "testes"),
    w("base", "bases"),
    w("basis", "bases").unidirectional(),
    w("alias", "aliases").exact(),
    w("vedalia", "vedalias"),
    w("use", "uses").exact(),
    w("abuse", "abuses"),
    w("cause", "causes"),
    w("clause", "clauses"),
    w("cruse", "cruses"),
    w("excuse", "excuses"),
    w("fuse", "fuses"),
    w("house", "houses"),
    w("misuse", "misuses"),
    w("muse", "muses"),
    w("pause", "pauses"),
    w("ache", "aches"),
    w("topaz", "topazes"),
    w("buffalo", "buffaloes").alt("buffalos"),
    w("potato", "potatoes"),
    w("tomato", "tomatoes"),
    uncountable("equipment"),
    uncountable("information"),
    uncountable("jeans"),
    uncountable("money"),
    uncountable("news"),
    uncountable("rice"),
    w("dwarf", "dwarfs").alt("dwarves"),
    w("hoof", "hoofs").alt("hooves"),
    w("thief", "thieves"),
    w("chive", "chives"),
    w("hive", "hives"),
    w("move", "moves"),
    w("movie", "movies"),
    w("cookie", "cookies"),
    w("pretorium", "pretoriums"),
    w("agenda", "agendas"),
    w("formula", "formulas").alt("formulae"),
    w("shoe", "shoes"),
    w("toe", "toes").exact(),
    w("graffiti", "graffiti"),
    w("ID", "IDs").exact(),
];

/// flect v1.0.3 `singularToPluralSuffixList`: (singular suffix, plural suffix), in priority order.
#[rustfmt::skip]
const SUFFIXES: [(&str, &str); 77] = [
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    ("eau", "eaux"),
    ("bula", "bulae"),
    ("dula", "bulae"),
    ("lula", "bulae"),
    ("nula", "bulae"),
    ("vula", "bulae"),
    ("hedron", "hedra"),
    ("ium", "ia"),
    ("seum", "seums"),
    ("eum", "ea"),
    ("oum", "oa"),
    ("stracum", "straca"),
    ("dum", "da"),
    ("elum", "ela"),
    ("ilum", "ila"),
    ("olum", "ola"),
    ("ulum", "ula"),
    ("llum", "lla"),
    ("ylum", "yla"),
    ("imum", "ima"),
    ("ernum", "erna"),
    ("gnum", "gna"),
    ("brum", "bra"),
    ("crum", "cra"),
    ("terum", "tera"),
    ("serum", "sera"),
    ("trum", "tra"),
    ("antum", "anta"),
    ("atum", "ata"),
    ("entum", "enta"),
    ("etum", "eta"),
    ("itum", "ita"),
    ("otum", "ota"),
    ("utum", "uta"),
    ("ctum", "cta"),
    ("ovum", "ova"),
    ("trix", "trices"),
    ("iasis", "iases"),
    ("mesis", "meses"),
    ("kinesis", "kineses"),
    ("resis", "reses"),
    ("gnosis", "gnoses"),
    ("opsis", "opses"),
    ("ysis", "yses"),
    ("ouse", "ouses"),
    ("lause", "lauses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("io", "ios"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("ez", "ezzes"),
    ("iz", "izzes"),
    ("tz", "tzes"),
    ("zz", "zzes"),
    ("ano", "anos"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
    ("S", "Ses"),
];

/// flect v1.0.3 `baseAcronyms`. Looked up with the upper-cased word, so the entries that are not
/// all upper-case (`gbps`, `kbps`, `Mbps`, `MoCA`, `WiFi`) can never match; kept as flect has them.
#[rustfmt::skip]
const ACRONYMS: [&str; 144] = [
    "OK", "UTF8", "HTML", "JSON", "JWT", "ID", "UUID", "SQL", "ACK", "ACL", "ADSL", "AES", "ANSI", "API",
    "ARP", "ATM", "BGP", "BSS", "CCITT", "CHAP", "CIDR", "CIR", "CLI", "CPE", "CPU", "CRC", "CRT", "CSMA",
    "CMOS", "DCE", "DEC", "DES", "DHCP", "DNS", "DRAM", "DSL", "DSLAM", "DTE", "DMI", "EHA", "EIA",
    "EIGRP", "EOF", "ESS", "FCC", "FCS", "FDDI", "FTP", "GBIC", "gbps", "GEPOF", "HDLC", "HTTP", "HTTPS",
    "IANA", "ICMP", "IDF", "IDS", "IEEE", "IETF", "IMAP", "IP", "IPS", "ISDN", "ISP", "kbps", "LACP",
    "LAN", "LAPB", "LAPF", "LLC", "MAC", "Mbps", "MC", "MDF", "MIB", "MoCA", "MPLS", "MTU", "NAC", "NAT",
    "NBMA", "NIC", "NRZ", "NRZI", "NVRAM", "OSI", "OSPF", "OUI", "PAP", "PAT", "PC", "PIM", "PCM", "PDU",
    "POP3", "POTS", "PPP", "PPTP", "PTT", "PVST", "RAM", "RARP", "RFC", "RIP", "RLL", "ROM", "RSTP", "RTP",
    "RCP", "SDLC", "SFD", "SFP", "SLARP", "SLIP", "SMTP", "SNA", "SNAP", "SNMP", "SOF", "SRAM", "SSH",
    "SSID", "STP", "SYN", "TDM", "TFTP", "TIA", "TOFU", "UDP", "URL", "URI", "USB", "UTP", "VC", "VLAN",
    "VLSM", "VPN", "W3C", "WAN", "WEP", "WiFi", "WPA", "WWW",
];

/// A suffix rule: `None` leaves the word unchanged ("already plural").
#[derive(Debug, Clone, Copy)]
struct Rule {
    suffix: &'static str,
    replacement: Option<&'static str>,
}

struct Tables {
    single_to_plural: HashMap<&'static str, &'static str>,
    plural_to_single: HashMap<&'static str, &'static str>,
    plural_rules: Vec<Rule>,
    acronyms: HashSet<&'static str>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(build_tables);

/// Builds the look-up tables the way flect's `init` functions do.
fn build_tables() -> Tables {
    let mut single_to_plural = HashMap::new();
    let mut plural_to_single = HashMap::new();
    for word in &DICTIONARY {
        let plural = word.plural();
        single_to_plural.insert(word.singular, plural);
        if !word.unidirectional {
            plural_to_single.insert(plural, word.singular);
            if !word.alternative.is_empty() {
                plural_to_single.insert(word.alternative, word.singular);
            }
        }
    }

    // flect inserts every rule pair at the front of the list: first the suffix table from its
    // last entry to its first, then the non-exact dictionary words in order. Each insertion puts
    // "plural suffix -> unchanged" before "singular suffix -> plural suffix".
    let mut rules = std::collections::VecDeque::new();
    let mut insert = |singular: &'static str, plural: &'static str| {
        rules.push_front(Rule {
            suffix: singular,
            replacement: Some(plural),
        });
        rules.push_front(Rule {
            suffix: plural,
            replacement: None,
        });
    };
    for &(singular, plural) in SUFFIXES.iter().rev() {
        insert(singular, plural);
    }
    for word in DICTIONARY.iter().filter(|word| !word.exact) {
        insert(word.singular, word.plural());
    }

    Tables {
        single_to_plural,
        plural_to_single,
        plural_rules: rules.into_iter().collect(),
        acronyms: ACRONYMS.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    const SKIP_ANNOTATION: &str = "clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check";

    fn data_rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
        text.lines()
            .filter(|line| !line.starts_with('#'))
            .map(|line| line.split('\t').collect())
    }

    #[test]
    fn tables_have_flects_sizes() {
        let tables = &*TABLES;
        assert_eq!(tables.single_to_plural.len(), 126);
        assert_eq!(tables.plural_to_single.len(), 160);
        assert_eq!(tables.plural_rules.len(), 390);
        assert_eq!(tables.acronyms.len(), 144);
    }

    #[test]
    fn dictionary_has_no_conflicting_entries() {
        // flect's init panics on these; the transcription must not contain any.
        let mut singles = HashSet::new();
        let mut plurals = HashSet::new();
        for word in &DICTIONARY {
            assert!(singles.insert(word.singular), "{}", word.singular);
            assert!(!word.plural().is_empty(), "{}", word.singular);
            if !word.unidirectional {
                assert!(plurals.insert(word.plural()), "{}", word.plural());
                if !word.alternative.is_empty() {
                    assert!(plurals.insert(word.alternative), "{}", word.alternative);
                }
            }
        }
    }

    #[test]
    fn rule_order_follows_flects_insertions() {
        let rules = &TABLES.plural_rules;
        let shown: Vec<(&str, Option<&str>)> = rules
            .iter()
            .map(|rule| (rule.suffix, rule.replacement))
            .collect();
        // Last non-exact dictionary word first ("ID" is exact), plural rule before singular rule.
        assert_eq!(shown[0], ("graffiti", None));
        assert_eq!(shown[1], ("graffiti", Some("graffiti")));
        assert_eq!(shown[2], ("shoes", None));
        assert_eq!(shown[3], ("shoe", Some("shoes")));
        // First dictionary word ends the dictionary part; the suffix table follows in order.
        assert_eq!(shown[234], ("aircraft", None));
        assert_eq!(shown[235], ("aircraft", Some("aircraft")));
        assert_eq!(shown[236], ("tives", None));
        assert_eq!(shown[237], ("tive", Some("tives")));
        assert_eq!(shown[388], ("Ses", None));
        assert_eq!(shown[389], ("S", Some("Ses")));
        // Uncountable words: plural = singular.
        assert!(shown.contains(&("equipment", Some("equipment"))));
    }

    #[test]
    fn flect_upstream_assertions() {
        let text = include_str!("../testdata/flect/upstream_pluralize.tsv");
        let mut count = 0;
        for row in data_rows(text) {
            let [singular, plural] = row[..] else {
                panic!("bad row {row:?}");
            };
            assert_eq!(pluralize(singular), plural, "pluralize({singular:?})");
            assert_eq!(pluralize(plural), plural, "pluralize({plural:?})");
            count += 1;
        }
        assert_eq!(count, 228);
    }

    /// The traps listed in docs/clusterctl-behaviour.md §8, on lower-cased kinds.
    #[test]
    fn documented_traps() {
        let cases = [
            ("dns", "dnsDNSes"),
            ("ips", "ipsIPSes"),
            ("https", "httpsHTTPSes"),
            ("ssh", "sshs"),
            ("url", "urls"),
            ("vpc", "vpcs"),
            ("person", "people"),
            ("child", "children"),
            ("index", "indices"),
            ("alias", "aliases"),
            ("quota", "quotas"),
            ("equipment", "equipment"),
            ("media", "media"),
            ("series", "series"),
            ("species", "species"),
            ("news", "news"),
            ("people", "people"),
            ("data", "data"),
            ("metal3data", "metal3data"),
            ("specimen", "specimen"),
            ("video", "videoes"),
            ("memo", "memoes"),
            ("repo", "repoes"),
            ("info", "infoes"),
            ("status", "statuses"),
            ("class", "classes"),
            ("premium", "premia"),
            ("stadium", "stadiums"),
            ("safe", "saves"),
            ("leaf", "leaves"),
            ("proxy", "proxies"),
            ("policy", "policies"),
            ("nutanixmetro", "nutanixmetroes"),
        ];
        for (word, plural) in cases {
            assert_eq!(pluralize(word), plural, "pluralize({word:?})");
        }
    }

    /// Kinds (as written in a CRD) against the CRD name clusterctl computes. Worked out by hand
    /// from the rule list; the comment says which rule fires.
    #[test]
    fn crd_names_of_irregular_kinds() {
        let cases = [
            // -y: consonant + y -> ies, vowel + y -> s
            ("FooProxy", "fooproxies"),
            ("NetworkPolicy", "networkpolicies"),
            ("Registry", "registries"),
            ("ClusterIdentity", "clusteridentities"),
            ("Gateway", "gateways"),
            ("SSHKey", "sshkeys"),
            ("Deploy", "deploys"),
            ("Buy", "buys"),
            ("Soliloquy", "soliloquies"),
            ("Money", "money"),
            ("Honey", "honeys"),
            // -s, -ss, -us, -is
            ("Status", "statuses"),
            ("MachineStatus", "machinestatuses"),
            ("Campus", "campuses"),
            ("Bus", "buses"),
            ("Virus", "viruses"),
            ("Corpus", "corpora"),
            ("Octopus", "octupuses"),
            ("ClusterClass", "clusterclasses"),
            ("IPAddress", "ipaddresses"),
            ("Access", "accesses"),
            ("Chassis", "chassis"),
            ("Analysis", "analyses"),
            ("Basis", "bases"),
            ("Axis", "axes"),
            ("Thesis", "theses"),
            ("IPAlias", "ipalias"),
            ("Alias", "aliases"),
            ("Jeans", "jeans"),
            ("Series", "series"),
            ("TimeSeries", "timeseries"),
            ("Gas", "gas"),
            // -x
            ("Box", "boxes"),
            ("Ox", "oxen"),
            ("Index", "indices"),
            ("IndexPrefix", "indexprefixes"),
            ("Vertex", "vertices"),
            ("Cortex", "cortexes"),
            ("Matrix", "matrices"),
            ("Appendix", "appendices"),
            ("Complex", "complexes"),
            ("Suffix", "suffixes"),
            // -ch, -sh, -z
            ("Switch", "switches"),
            ("Batch", "batches"),
            ("Headache", "headaches"),
            ("Mesh", "meshes"),
            ("ServiceMesh", "servicemeshes"),
            ("Quiz", "quizzes"),
            ("Waltz", "waltzes"),
            ("Buzz", "buzzes"),
            // -o
            ("Video", "videoes"),
            ("Repo", "repoes"),
            ("Zero", "zeroes"),
            ("Echo", "echoes"),
            ("Photo", "photos"),
            ("Potato", "potatoes"),
            ("Radio", "radios"),
            ("Portfolio", "portfolios"),
            ("Piano", "pianos"),
            ("Hello", "hellos"),
            ("Zoo", "zoos"),
            ("Graffiti", "graffiti"),
            // -f, -fe
            ("Leaf", "leaves"),
            ("Wolf", "wolves"),
            ("Shelf", "shelves"),
            ("Knife", "knives"),
            ("Life", "lives"),
            ("Safe", "saves"),
            ("Roof", "roofs"),
            ("Chief", "chiefs"),
            ("Thief", "thieves"),
            ("Dwarf", "dwarfs"),
            ("Scarf", "scarves"),
            ("Beef", "beef"),
            ("Archive", "archives"),
            ("Objective", "objectives"),
            // -um, -on, -a
            ("Premium", "premia"),
            ("Consortium", "consortia"),
            ("Stadium", "stadiums"),
            ("Medium", "media"),
            ("Datum", "data"),
            ("Maximum", "maxima"),
            ("Spectrum", "spectra"),
            ("Museum", "museums"),
            ("Criterion", "criteria"),
            ("Polyhedron", "polyhedra"),
            ("Data", "data"),
            ("Metal3Data", "metal3data"),
            ("UserData", "userdata"),
            ("Media", "media"),
            ("MultiMedia", "multimedia"),
            ("Formula", "formulas"),
            ("Nebula", "nebulae"),
            ("Tuna", "tuna"),
            ("Quota", "quotas"),
            ("ResourceQuota", "resourcequotas"),
            ("Agenda", "agendas"),
            ("Schema", "schemas"),
            // -man, -person, -child and other dictionary words as suffixes
            ("Person", "people"),
            ("SalesPerson", "salespeople"),
            ("Human", "humans"),
            ("Spokesman", "spokesmen"),
            ("Specimen", "specimen"),
            ("Child", "children"),
            ("ChildNode", "childnodes"),
            ("Foot", "feet"),
            ("Mouse", "mice"),
            ("Louse", "lice"),
            ("Blouse", "blouses"),
            ("House", "houses"),
            ("WareHouse", "warehouses"),
            ("Use", "uses"),
            ("Fuse", "fuses"),
            ("Database", "databases"),
            ("Base", "bases"),
            ("Sheep", "sheep"),
            ("Fish", "fish"),
            ("Price", "price"),
            ("Service", "services"),
            ("Device", "devices"),
            ("Slice", "slices"),
            ("Die", "dice"),
            ("Tie", "ties"),
            ("Movie", "movies"),
            ("Cookie", "cookies"),
            ("Toe", "toes"),
            ("Shoe", "shoes"),
            ("Information", "information"),
            ("BootInformation", "bootinformation"),
            ("Equipment", "equipment"),
            ("News", "news"),
            ("Bureau", "bureaus"),
            ("Plateau", "plateaux"),
            ("You", "you"),
            // acronyms: the kind is lower-cased first, then the whole word may be an acronym
            ("DNS", "dnsDNSes"),
            ("Dns", "dnsDNSes"),
            ("IPS", "ipsIPSes"),
            ("HTTPS", "httpsHTTPSes"),
            ("IDS", "idsIDSes"),
            ("AES", "aesAESes"),
            ("DES", "desDESes"),
            ("BSS", "bssBSSes"),
            ("ESS", "essESSes"),
            ("POTS", "potsPOTSes"),
            ("ID", "ids"),
            ("IP", "ips"),
            ("API", "apis"),
            ("SSH", "sshs"),
            ("URL", "urls"),
            ("MAC", "macs"),
            ("UUID", "uuids"),
            ("EIA", "eias"),
            ("VPC", "vpcs"),
            ("VLAN", "vlans"),
            ("WiFi", "wifis"),
            ("Gbps", "gbps"),
            ("ClusterDNS", "clusterdns"),
            ("MachineIP", "machineips"),
            // '-' is allowed in kinds (DNS-1035 label) and is a flect separator
            ("Foo-Bar", "foo-bars"),
            ("Big-Person", "big-people"),
            ("My-DNS", "my-dnsDNSes"),
            ("Web-Data", "web-data"),
            // corpus-like names
            ("HelmChartProxy", "helmchartproxies"),
            ("VSphereVM", "vspherevms"),
            ("LinodeVPC", "linodevpcs"),
            ("OpenStackFloatingIPPool", "openstackfloatingippools"),
            (
                "AWSClusterControllerIdentity",
                "awsclustercontrolleridentities",
            ),
            ("NutanixMetro", "nutanixmetroes"),
        ];
        for (kind, plural) in cases {
            assert_eq!(
                calculate_crd_name("example.io", kind),
                format!("{plural}.example.io"),
                "kind {kind:?}"
            );
        }
    }

    /// flect applied to words clusterctl never passes (mixed case, separators, non-ASCII):
    /// the API is general, so the general behaviour must hold too.
    #[test]
    fn general_words() {
        let cases = [
            ("", ""),
            ("   ", ""),
            ("_", ""),
            (" user", " users"),
            ("user ", "user s"),
            ("Person", "People"),
            ("my_dns", "my_dnsDNSes"),
            ("myDns", "myDnsDNSes"),
            ("my-person", "my-people"),
            ("GoodPerson", "GoodPeople"),
            ("a+b", "a+bs"),
            ("user$", "user$s"),
            ("wifi", "wifis"),
            ("CHILD", "Children"),
            ("Indices", "Indices"),
            ("IDs", "IDs"),
            ("château", "châteaux"),
            ("\u{131}d", "\u{131}ds"),
            ("\u{130}ndex", "Indices"),
            ("straße", "straßes"),
            ("ǆungla", "ǆunglas"),
        ];
        for (word, plural) in cases {
            assert_eq!(pluralize(word), plural, "pluralize({word:?})");
        }
        // Go lower-cases Σ to σ everywhere, never to the final ς.
        assert_eq!(go_to_lower("ΟΔΟΣ"), "οδοσ");
        assert_eq!(go_to_lower("\u{130}"), "i");
        assert_eq!(go_to_upper("straße"), "STRAßE");
        assert_eq!(go_unicode::to_title('ǆ'), 'ǅ');
        assert!(!go_unicode::is_upper('\u{2160}'));
        assert!(go_unicode::is_upper('Ä'));
        assert!(
            !go_unicode::is_punct('$')
                && !go_unicode::is_punct('+')
                && !go_unicode::is_punct('~')
                && go_unicode::is_punct('_')
        );
        assert!(!go_unicode::is_digit('²') && go_unicode::is_digit('7'));
    }

    // -----------------------------------------------------------------------------------------
    // The corpus: every CRD of every provider's components file.
    // -----------------------------------------------------------------------------------------

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Crd {
        provider: String,
        group: String,
        kind: String,
        plural: String,
        name: String,
        skip_check: bool,
    }

    impl Crd {
        fn to_row(&self) -> String {
            format!(
                "{}\t{}\t{}\t{}\t{}\t{}",
                self.provider, self.group, self.kind, self.plural, self.name, self.skip_check
            )
        }
    }

    fn snapshot() -> Vec<Crd> {
        let text = include_str!("../testdata/flect/corpus_crds.tsv");
        data_rows(text)
            .map(|row| {
                let [provider, group, kind, plural, name, skip] = row[..] else {
                    panic!("bad row {row:?}");
                };
                Crd {
                    provider: provider.to_string(),
                    group: group.to_string(),
                    kind: kind.to_string(),
                    plural: plural.to_string(),
                    name: name.to_string(),
                    skip_check: skip == "true",
                }
            })
            .collect()
    }

    /// The CRDs whose name is not what clusterctl computes, with the reason they are accepted.
    const KNOWN_MISMATCHES: [(&str, &str); 1] = [(
        "metal3datas.infrastructure.cluster.x-k8s.io",
        // flect v1.0.3 leaves "metal3data" unchanged (suffix "ata" looks plural); the name comes
        // from an older controller-gen/flect. CAPM3 carries the skip annotation for it.
        "metal3data.infrastructure.cluster.x-k8s.io",
    )];

    #[test]
    fn corpus_crd_names_match_clusterctl() {
        let crds = snapshot();
        assert_eq!(crds.len(), 140);
        let mut mismatches = Vec::new();
        for crd in &crds {
            let expected = calculate_crd_name(&crd.group, &crd.kind);
            // The plural controller-gen wrote agrees with the name, so only flect can differ.
            assert_eq!(crd.name, format!("{}.{}", crd.plural, crd.group));
            if crd.name != expected {
                assert!(
                    crd.skip_check,
                    "{}: {} should be {expected} and has no skip annotation",
                    crd.provider, crd.name
                );
                mismatches.push((crd.name.as_str(), expected));
            }
        }
        let known: Vec<(&str, String)> = KNOWN_MISMATCHES
            .iter()
            .map(|&(name, expected)| (name, expected.to_string()))
            .collect();
        assert_eq!(mismatches, known);
    }

    /// `testdata/corpus` (some of the providers the snapshot was taken from), or the whole
    /// upstream corpus when `CAPKG_CORPUS` names it.
    fn corpus_dir() -> PathBuf {
        std::env::var_os("CAPKG_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"))
            })
    }

    /// Re-extracts the CRDs from the corpus and compares them with the snapshot the other tests
    /// use, for the providers the corpus holds.
    #[test]
    fn corpus_snapshot_is_current() {
        let dir = corpus_dir();
        let mut files = Vec::new();
        for provider in std::fs::read_dir(&dir).expect("read corpus") {
            let provider = provider.expect("corpus entry").path();
            if !provider.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&provider).expect("read provider") {
                let file = file.expect("provider entry").path();
                let is_components = file
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.ends_with("-components.yaml"));
                if is_components {
                    files.push(file);
                }
            }
        }
        files.sort();
        assert!(files.len() >= 8, "{} components files", files.len());
        let extracted: Vec<Crd> = files.iter().flat_map(|file| scan_crds(file)).collect();
        let present: Vec<String> = files
            .iter()
            .filter_map(|file| file.parent()?.file_name()?.to_str().map(str::to_string))
            .collect();
        let expected: Vec<Crd> = snapshot()
            .into_iter()
            .filter(|crd| present.contains(&crd.provider))
            .collect();
        let rows = |crds: &[Crd]| crds.iter().map(Crd::to_row).collect::<Vec<_>>();
        assert_eq!(rows(&extracted), rows(&expected));
    }

    /// A small line scanner for kustomize-style YAML (block mappings, `---` separators): good
    /// enough to read four scalars and one annotation key of each CRD.
    fn scan_crds(file: &Path) -> Vec<Crd> {
        let provider = file
            .parent()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .expect("provider folder")
            .to_string();
        let text = std::fs::read_to_string(file).expect("read components");
        let mut crds = Vec::new();
        let mut doc: Vec<(Vec<String>, String)> = Vec::new();
        for line in text.lines().chain(std::iter::once("---")) {
            if line.starts_with("---") {
                if let Some(crd) = crd_of(&provider, &doc) {
                    crds.push(crd);
                }
                doc.clear();
                continue;
            }
            doc_line(&mut doc, line);
        }
        crds
    }

    /// Records `line` as (path of keys, scalar value) if it is a `key: value` or `key:` line.
    fn doc_line(doc: &mut Vec<(Vec<String>, String)>, line: &str) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return;
        }
        let mut indent = line.len() - trimmed.len();
        let mut rest = trimmed;
        if let Some(item) = rest.strip_prefix("- ") {
            indent += 2;
            rest = item;
        }
        let Some((key, value)) = rest.split_once(':') else {
            return;
        };
        if !(value.is_empty() || value.starts_with(' ')) {
            return;
        }
        let parent = doc
            .iter()
            .rev()
            .find(|(path, _)| path_indent(path) < indent)
            .map(|(path, _)| path.clone())
            .unwrap_or_default();
        let mut path = parent;
        path.push(format!("{indent}:{}", unquote(key.trim())));
        doc.push((path, unquote(value.trim()).to_string()));
    }

    fn path_indent(path: &[String]) -> usize {
        path.last()
            .and_then(|segment| segment.split_once(':'))
            .and_then(|(indent, _)| indent.parse().ok())
            .unwrap_or(0)
    }

    fn unquote(s: &str) -> &str {
        for quote in ['\'', '"'] {
            if let Some(inner) = s.strip_prefix(quote).and_then(|s| s.strip_suffix(quote)) {
                return inner;
            }
        }
        s
    }

    fn crd_of(provider: &str, doc: &[(Vec<String>, String)]) -> Option<Crd> {
        let get = |keys: &[&str]| -> Option<String> {
            doc.iter()
                .find(|(path, _)| {
                    path.len() == keys.len()
                        && path.iter().zip(keys).all(|(segment, key)| {
                            segment.split_once(':').map(|(_, name)| name) == Some(*key)
                        })
                })
                .map(|(_, value)| value.clone())
        };
        if get(&["kind"]).as_deref() != Some("CustomResourceDefinition") {
            return None;
        }
        Some(Crd {
            provider: provider.to_string(),
            group: get(&["spec", "group"])?,
            kind: get(&["spec", "names", "kind"])?,
            plural: get(&["spec", "names", "plural"])?,
            name: get(&["metadata", "name"])?,
            skip_check: get(&["metadata", "annotations", SKIP_ANNOTATION]).is_some(),
        })
    }
}
