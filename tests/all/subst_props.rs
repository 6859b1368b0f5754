//! Property and stress tests for `capkg::subst`: generated inputs biased towards the characters
//! that matter to the grammar, deep nesting, and multi-megabyte inputs. The point is that no
//! input can panic or overflow the stack, and that spans and offsets stay inside the input.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use capkg::subst::{self, Error, MAX_NESTING, Node, ParseErrorKind};
use proptest::prelude::*;

/// Fragments the generator strings together: operators, escapes, names, odd bytes.
const FRAGMENTS: &[&[u8]] = &[
    b"${",
    b"${",
    b"${",
    b"}",
    b"}",
    b"$",
    b"$$",
    b"{",
    b":",
    b"::",
    b"#",
    b"##",
    b"%",
    b"%%",
    b"/",
    b"//",
    b"/#",
    b"/%",
    b"=",
    b":=",
    b":-",
    b":?",
    b":+",
    b"-",
    b"+",
    b"?",
    b"^",
    b"^^",
    b",",
    b",,",
    b"\\",
    b"\\/",
    b"\\\\",
    b"*",
    b"[",
    b"]",
    b"[^a-z]",
    b"!",
    b" ",
    b"\t",
    b"\n",
    b"A",
    b"B",
    b"N",
    b"a",
    b"_",
    b"0",
    b"1",
    b"-1",
    b"2",
    b"99999999999999999999",
    b"\x00",
    b"\xff",
    b"\xc3",
    "é".as_bytes(),
    "😀".as_bytes(),
    "²".as_bytes(),
    b"${A}",
    b"${N}",
    b"${ A }",
    b"${A:-",
    b"${A:0:",
    b"${A/",
    b"${A#",
];

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|parts| parts.concat())
}

fn env() -> BTreeMap<String, Vec<u8>> {
    BTreeMap::from([
        ("A".to_owned(), b"abc/def.ghi".to_vec()),
        ("B".to_owned(), ["é${A}".as_bytes(), b"\xff"].concat()),
        ("N".to_owned(), b"-2".to_vec()),
        ("a".to_owned(), b"".to_vec()),
    ])
}

fn check_spans(input: &[u8], nodes: &[Node<'_>], outer_start: usize, outer_end: usize) {
    let mut last = outer_start;
    for n in nodes {
        let s = n.span();
        assert!(
            s.start >= last && s.start <= s.end && s.end <= outer_end,
            "span {s:?} out of order"
        );
        if let Node::Func(f) = n {
            assert_eq!(&input[s.start..s.start + 2], b"${");
            assert_eq!(input[s.end - 1], b'}');
            check_spans(input, &f.args, s.start + 2, s.end - 1);
        }
        last = s.end;
    }
}

fn exercise(input: &[u8]) {
    let env = env();
    match subst::parse(input) {
        Ok(t) => {
            // Top-level spans tile the input up to the first NUL.
            let end = input.iter().position(|&b| b == 0).unwrap_or(input.len());
            let mut pos = 0;
            for n in &t.nodes {
                assert_eq!(n.span().start, pos);
                pos = n.span().end;
            }
            assert_eq!(pos, end);
            check_spans(input, &t.nodes, 0, end);
            let _ = t.render();
            match t.eval(&env) {
                Ok(_) | Err(Error::SubstringOutOfRange { .. }) => {}
                Err(e) => panic!("unexpected eval error {e:?}"),
            }
            // eval() is parse + eval.
            assert_eq!(subst::eval(input, &env).ok(), t.eval(&env).ok());
        }
        Err(e) => {
            assert!(matches!(e, Error::Parse { .. }), "{e:?}");
            assert!(e.offset().is_some_and(|o| o <= input.len()));
            assert!(subst::eval(input, &env).is_err());
        }
    }
    match subst::inventory(input) {
        Ok(inv) => {
            for e in &inv.escapes {
                assert_eq!(&input[e.start..e.end], b"$$");
            }
            for l in &inv.legacy {
                assert!(input[l.start..l.end].starts_with(b"${") && input[l.end - 1] == b'}');
            }
            for r in &inv.references {
                assert!(r.span.end <= input.len());
                assert_eq!(input[r.span.start], b'$');
                assert_eq!(input[r.span.end - 1], b'}');
            }
        }
        Err(e) => assert!(e.offset().is_some_and(|o| o <= input.len())),
    }
    let _ = subst::process(input, &env);
    let pre = subst::convert_legacy_vars(input);
    assert_eq!(pre.to_original(pre.text.len()), input.len());
}

fn run_property<S: Strategy<Value = Vec<u8>>>(name: &str, cases: u32, strategy: S) {
    let executions = AtomicUsize::new(0);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&strategy, |input| {
        executions.fetch_add(1, Ordering::Relaxed);
        exercise(&input);
        Ok(())
    });
    let ran = executions.load(Ordering::Relaxed);
    println!("{name}: {ran} executions");
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

#[test]
fn generated_inputs_parse_or_error_without_panic() {
    run_property("grammar-biased inputs", 20_000, input());
}

#[test]
fn random_bytes_parse_or_error_without_panic() {
    run_property(
        "random bytes",
        10_000,
        prop::collection::vec(any::<u8>(), 0..64),
    );
}

fn nested(open: &str, depth: usize) -> Vec<u8> {
    let mut s = Vec::new();
    for _ in 0..depth {
        s.extend_from_slice(open.as_bytes());
    }
    s.extend_from_slice(b"${X}");
    s.extend(std::iter::repeat_n(b'}', depth));
    s
}

#[test]
fn nesting_up_to_the_cap_works_and_beyond_is_an_error() {
    let env = BTreeMap::from([("X".to_owned(), "x".to_owned())]);
    for open in ["${A:-", "${A:", "${A#", "${A=pre", "${A/"] {
        // `${A/` needs a pattern then `/`: nest through the replacement instead.
        let open = if open == "${A/" { "${A/p/" } else { open };
        let ok = nested(open, MAX_NESTING - 1);
        assert!(subst::eval(&ok, &env).is_ok(), "{open} at the cap");
        for depth in [MAX_NESTING, 10_000, 200_000] {
            let deep = nested(open, depth);
            match subst::eval(&deep, &env) {
                Err(Error::Parse {
                    kind: ParseErrorKind::NestingTooDeep,
                    offset,
                    expression,
                }) => {
                    assert_eq!(expression, 0);
                    assert_eq!(offset, MAX_NESTING * open.len());
                }
                other => panic!("{open} x{depth}: {other:?}"),
            }
        }
    }
    assert_eq!(
        subst::eval(&nested("${A:-", 3), &env).ok(),
        Some(b"x".to_vec())
    );
}

/// Synthetic YAML of about `mb` megabytes with a variable every ~60 bytes and some escapes.
fn big_input(mb: usize) -> Vec<u8> {
    let chunk = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}-cm\n  namespace: ${NAMESPACE:=default}\ndata:\n  script: |\n    echo $$HOME ${VERSION%.*} ${NAME:0:54} $PATH\n    # ${ LEGACY }\n";
    let n = mb * 1024 * 1024 / chunk.len() + 1;
    chunk.repeat(n).into_bytes()
}

fn big_env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("CLUSTER_NAME".to_owned(), "c".to_owned()),
        ("VERSION".to_owned(), "v1.2.3".to_owned()),
        ("NAME".to_owned(), "n".to_owned()),
        ("LEGACY".to_owned(), "l".to_owned()),
    ])
}

fn run_big(mb: usize) {
    let input = big_input(mb);
    let env = big_env();
    let out = subst::process(&input, &env).expect("process");
    assert!(out.len() < input.len());
    let inv = subst::inventory(&input).expect("inventory");
    assert_eq!(
        inv.names(),
        ["CLUSTER_NAME", "LEGACY", "NAME", "NAMESPACE", "VERSION"]
    );
    // Top-level text run of the whole size with no expression at all.
    let mut flat = vec![b'x'; mb * 1024 * 1024];
    flat.extend_from_slice(b"$$");
    assert_eq!(
        subst::eval(&flat, &env).map(|o| o.len()).ok(),
        Some(flat.len() - 1)
    );
}

#[test]
fn ten_megabytes_do_not_overflow_the_stack() {
    run_big(10);
}

#[test]
#[ignore = "100 MB; run with --ignored"]
fn a_hundred_megabytes_do_not_overflow_the_stack() {
    run_big(100);
}

#[test]
fn multiplying_replacements_stop_at_the_expansion_limit() {
    // Each level inserts the next level's result at 9 places: 9^20 bytes without a limit.
    let env = BTreeMap::from([
        ("A".to_owned(), "abcdefgh".to_owned()),
        ("E".to_owned(), String::new()),
    ]);
    let mut input = Vec::new();
    for _ in 0..20 {
        input.extend_from_slice(b"${A//${E}/");
    }
    input.extend_from_slice(b"x");
    input.extend(std::iter::repeat_n(b'}', 20));
    match subst::eval(&input, &env) {
        Err(Error::ExpansionTooLarge { size, span, .. }) => {
            assert!(size > subst::MAX_EXPANSION as u128);
            assert_eq!(input[span.start], b'$');
        }
        other => panic!("{:?}", other.map(|o| o.len())),
    }
    // Two levels are fine: 9 * (9 + 8) + 8 bytes.
    let small = b"${A//${E}/${A//${E}/x}}";
    assert_eq!(
        subst::eval(small, &env).map(|o| o.len()).ok(),
        Some(9 * 17 + 8)
    );
}
