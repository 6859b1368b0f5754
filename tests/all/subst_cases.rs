//! Replays `testdata/subst/cases.txt` against `capkg::subst`: every row of drone/envsubst's
//! `eval_test.go`, `funcs_test.go`, `parse/parse_test.go` and clusterctl's
//! `simple_processor_test.go`, plus the quirks of the semantics document and further edge cases.

use std::collections::BTreeMap;

use crate::subst_common::{Case, Value};
use capkg::subst::{
    self, CaseOp, ClusterVariablesOptions, DefaultOp, Error, Op, ReplaceOp, TrimOp,
};

fn show(b: &[u8]) -> String {
    subst::go_quote(b)
}

/// Compares a result with the row's `out` / `err` fields; returns a failure description.
fn check(case: &Case, got: Result<Vec<u8>, Error>) -> Option<String> {
    match (case.get("out"), case.get("err"), got) {
        (Some(want), None, Ok(out)) => (want.bytes() != out.as_slice())
            .then(|| format!("want {} got {}", show(want.bytes()), show(&out))),
        (None, Some(Value::Word(w)), Err(Error::SubstringOutOfRange { .. })) if w == "panic" => {
            None
        }
        (None, Some(Value::Str(want)), Err(e))
            if !matches!(e, Error::SubstringOutOfRange { .. }) =>
        {
            let msg = e.to_string();
            (msg.as_bytes() != want.as_slice())
                .then(|| format!("want error {:?} got error {msg:?}", show(want)))
        }
        (want, want_err, got) => Some(format!("want out={want:?} err={want_err:?}, got {got:?}")),
    }
}

fn go_func(name: &str) -> Op {
    match name {
        "toLen" => Op::Length,
        "toLower" => Op::Case(CaseOp::LowerAll),
        "toLowerFirst" => Op::Case(CaseOp::LowerFirst),
        "toUpper" => Op::Case(CaseOp::UpperAll),
        "toUpperFirst" => Op::Case(CaseOp::UpperFirst),
        "toDefault" => Op::Default(DefaultOp::ColonDash),
        "toSubstr" => Op::Substring,
        "replaceAll" => Op::Replace(ReplaceOp::All),
        "replaceFirst" => Op::Replace(ReplaceOp::First),
        "replacePrefix" => Op::Replace(ReplaceOp::Prefix),
        "replaceSuffix" => Op::Replace(ReplaceOp::Suffix),
        "trimShortestPrefix" => Op::Trim(TrimOp::ShortestPrefix),
        "trimLongestPrefix" => Op::Trim(TrimOp::LongestPrefix),
        "trimShortestSuffix" => Op::Trim(TrimOp::ShortestSuffix),
        "trimLongestSuffix" => Op::Trim(TrimOp::LongestSuffix),
        other => panic!("unknown drone function {other}"),
    }
}

fn opt_str(case: &Case, k: &str) -> Option<String> {
    case.get(k).map(Value::text)
}

fn run(case: &Case) -> Option<String> {
    let input = || {
        case.get("in")
            .map(|v| v.bytes().to_vec())
            .unwrap_or_default()
    };
    match case.kind.as_str() {
        "eval" => {
            let env = case.env();
            check(case, subst::eval(&input(), &env))
        }
        "func" => {
            let Some(Value::Word(name)) = case.get("fn") else {
                return Some("fn missing".into());
            };
            let args: Vec<Vec<u8>> = match case.get("args") {
                Some(Value::List(l)) => l.iter().map(|v| v.bytes().to_vec()).collect(),
                _ => Vec::new(),
            };
            let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            let s = case
                .get("s")
                .map(|v| v.bytes().to_vec())
                .unwrap_or_default();
            check(case, subst::apply(go_func(name), &s, &args))
        }
        "parse" => {
            let inp = input();
            let got = subst::parse(&inp).map(|t| t.render().into_bytes());
            match case.get("tree") {
                Some(tree) => match got {
                    Ok(r) => (r != tree.bytes()).then(|| {
                        format!(
                            "want tree {} got {}",
                            tree.text(),
                            String::from_utf8_lossy(&r)
                        )
                    }),
                    Err(e) => Some(format!("want tree, got error {e}")),
                },
                None => check(case, got),
            }
        }
        "vars" => {
            let got = subst::inventory(&input()).map(|inv| {
                let names: Vec<String> = inv.names().iter().map(|s| s.to_string()).collect();
                names
            });
            match (case.get("out"), got) {
                (Some(Value::List(want)), Ok(names)) => {
                    let want: Vec<String> = want.iter().map(Value::text).collect();
                    (want != names).then(|| format!("want {want:?} got {names:?}"))
                }
                (None, got) => check(case, got.map(|n| n.join(",").into_bytes())),
                (want, got) => Some(format!("want {want:?} got {got:?}")),
            }
        }
        "varmap" => {
            let got = subst::inventory(&input()).map(|inv| inv.variable_map());
            match (case.get("out"), got) {
                (Some(Value::Map(want)), Ok(map)) => {
                    let want: BTreeMap<String, Option<Vec<u8>>> = want
                        .iter()
                        .map(|(k, v)| {
                            let v = match v {
                                Value::Nil => None,
                                other => Some(other.bytes().to_vec()),
                            };
                            (String::from_utf8_lossy(k).into_owned(), v)
                        })
                        .collect();
                    (want != map).then(|| format!("want {want:?} got {map:?}"))
                }
                (None, got) => check(case, got.map(|_| Vec::new())),
                (want, got) => Some(format!("want {want:?} got {got:?}")),
            }
        }
        "process" => {
            let env = case.env();
            check(case, subst::process(&input(), &env))
        }
        "listing" => {
            let inv = match subst::inventory(&input()) {
                Ok(inv) => inv,
                Err(e) => return Some(format!("inventory failed: {e}")),
            };
            let num = |k: &str| opt_str(case, k).map(|s| s.parse::<i64>().expect("count"));
            let opts = ClusterVariablesOptions {
                cluster_name: opt_str(case, "cluster_name").unwrap_or_default(),
                target_namespace: opt_str(case, "target_namespace").unwrap_or_default(),
                control_plane_machine_count: num("cp_count"),
                worker_machine_count: num("w_count"),
                kubernetes_version: opt_str(case, "kubernetes_version").unwrap_or_default(),
                env_control_plane_machine_count: opt_str(case, "env_cp_count"),
                env_worker_machine_count: opt_str(case, "env_w_count"),
                env_kubernetes_version: opt_str(case, "env_kubernetes_version"),
                without_generate_cluster_values: false,
            };
            check(
                case,
                Ok(subst::render_cluster_variables(&inv.variable_map(), &opts)),
            )
        }
        other => Some(format!("unknown kind {other}")),
    }
}

#[test]
fn case_table() {
    let cases = crate::subst_common::load();
    let mut failures = Vec::new();
    let mut per_src: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        let src = case.src();
        let group = src.split(':').next().unwrap_or("").to_owned();
        let key = if group == "doc" || group == "own" {
            group
        } else {
            src
        };
        *per_src.entry(key).or_default() += 1;
        if let Some(f) = run(case) {
            failures.push(format!("{}: {} (in={:?})", case.label(), f, case.get("in")));
        }
    }
    println!("{} cases: {per_src:?}", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_upstream_test_row_is_in_the_table() {
    // Row counts of the upstream tests at the pinned commits; a lost row fails here.
    let cases = crate::subst_common::load();
    let count = |src: &str| cases.iter().filter(|c| c.src() == src).count();
    assert_eq!(count("drone:eval_test"), 34);
    assert_eq!(count("drone:funcs_test"), 17);
    assert_eq!(count("drone:parse_test"), 44);
    assert_eq!(count("capi:simple_processor_test"), 18);
}
