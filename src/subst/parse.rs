//! The parser: input bytes to a [`Template`] tree, with drone/envsubst's grammar and quirks.
//!
//! drone's parser (`parse/scan.go`, `parse/parse.go`) is a rune scanner driven by "mode" bits and
//! "accept" predicates, and several observable quirks fall out of that machinery rather than from
//! a grammar: the look-ahead after `:` steps back by the width of the *peeked* rune, NUL is the
//! end-of-input marker, a text run stops before `${`, escapes are removed by splicing the buffer.
//! So this file keeps the same scanner shape (read / unread / peek with a width, the same modes and
//! predicates) for everything inside `${…}`, where exactness matters more than speed. The buffer
//! is never mutated: an escape records the dropped byte, so every span and error offset is an
//! offset into the original input.
//!
//! Top-level text, which is nearly all of a real file, has its own loop built on `memchr`; it
//! produces the same tokens as the rune scanner in that mode (only `$` and NUL are special there,
//! and neither can occur inside a multi-byte sequence). That loop is iterative, so input size does
//! not turn into stack depth; nesting inside `${…}` is recursive and capped at [`MAX_NESTING`].
//! The rune scanner is `scanner`'s; this file holds the tree and the top-level loop.

use std::borrow::Cow;

use super::{Error, Span};

mod scanner;

use scanner::Scanner;

/// How deeply `${…}` may nest inside arguments before parsing fails with
/// [`super::ParseErrorKind::NestingTooDeep`]. Go has no limit; real templates use two or three
/// levels.
pub const MAX_NESTING: usize = 128;

/// A parsed input: the top-level sequence of text and expressions, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template<'a> {
    /// Top-level nodes. Text nodes never follow each other directly.
    pub nodes: Vec<Node<'a>>,
}

/// One node of the tree (drone's `TextNode` or `FuncNode`; its `ListNode` is the `Vec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node<'a> {
    /// Literal text, with escapes already removed.
    Text(Text<'a>),
    /// A `${…}` expression.
    Func(Func<'a>),
}

/// Literal text. `value` borrows from the input unless an escape (`$$`, or `\/` `\\` in a replace
/// argument) was removed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<'a> {
    /// The text as it is output; with `escapes`, as written, each `$$` standing for `$`.
    bytes: Cow<'a, [u8]>,
    /// Top-level text holding `$$`: its value is made only when asked for (a components file's
    /// CRD holding `$$` is one token of hundreds of KB, which lint's inventory never reads).
    escapes: bool,
    /// Where the text is in the input (escapes included).
    pub span: Span,
}

impl<'a> Text<'a> {
    /// The text as it is output (escapes removed).
    pub fn value(&self) -> Cow<'_, [u8]> {
        if !self.escapes {
            return Cow::Borrowed(&self.bytes);
        }
        let mut value = Vec::with_capacity(self.bytes.len());
        self.write_to(&mut value);
        Cow::Owned(value)
    }

    /// Appends the text as it is output.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        for piece in self.pieces() {
            out.extend_from_slice(piece);
        }
    }

    /// Whether a `$$` in the input was written as `$`.
    pub fn had_escapes(&self) -> bool {
        self.escapes
    }

    /// The length of the text as it is output.
    pub fn len(&self) -> usize {
        self.pieces().map(<[u8]>::len).sum()
    }

    /// The text as it is output, in pieces of the input: each `$$` ends a piece, and the next
    /// starts at its second `$`.
    fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        let bytes: &[u8] = &self.bytes;
        let escapes = self.escapes;
        let (mut piece, mut i, mut done) = (0, 0, false);
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            while escapes && let Some(k) = memchr::memchr(b'$', &bytes[i..]) {
                let j = i + k;
                if bytes.get(j + 1) == Some(&b'$') {
                    let out = &bytes[piece..j];
                    piece = j + 1;
                    i = j + 2;
                    return Some(out);
                }
                i = j + 1;
            }
            done = true;
            Some(&bytes[piece..])
        })
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A `${…}` expression: variable name, operator and argument nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func<'a> {
    /// The variable name, as written.
    pub name: &'a str,
    /// The operator.
    pub op: Op,
    /// Arguments. Default words have one node per piece (text run or nested expression); the other
    /// operators have one node per argument (substring: offset, length; trim: pattern; replace:
    /// pattern and, if present, replacement).
    pub args: Vec<Node<'a>>,
    /// From the `$` of `${` to just after the closing `}`.
    pub span: Span,
}

/// The operator of an expression. [`Op::go_name`] gives drone's `FuncNode.Name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `${A}`
    Plain,
    /// `${#A}`: byte length.
    Length,
    /// `${A^}`, `${A^^}`, `${A,}`, `${A,,}`, `${A^,}`, `${A,^}`.
    Case(CaseOp),
    /// `${A:off}` or `${A:off:len}`.
    Substring,
    /// `=`, `:=`, `:-`, `:?`, `:+` (all behave alike).
    Default(DefaultOp),
    /// `#`, `##`, `%`, `%%`.
    Trim(TrimOp),
    /// `/`, `//`, `/#`, `/%`.
    Replace(ReplaceOp),
}

/// Case operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaseOp {
    /// `^`
    UpperFirst,
    /// `^^`
    UpperAll,
    /// `,`
    LowerFirst,
    /// `,,`
    LowerAll,
    /// `^,` (parses, returns the value unchanged)
    UpperLower,
    /// `,^` (parses, returns the value unchanged)
    LowerUpper,
}

/// Default-family operators; they differ only in spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefaultOp {
    /// `=`
    Equal,
    /// `:=`
    ColonEqual,
    /// `:-`
    ColonDash,
    /// `:?`
    ColonQuestion,
    /// `:+`
    ColonPlus,
}

/// Trim operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrimOp {
    /// `#`: shortest matching prefix.
    ShortestPrefix,
    /// `##`: longest matching prefix.
    LongestPrefix,
    /// `%`: shortest matching suffix.
    ShortestSuffix,
    /// `%%`: longest matching suffix.
    LongestSuffix,
}

/// Replace operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplaceOp {
    /// `/`: first occurrence.
    First,
    /// `//`: all occurrences.
    All,
    /// `/#`: at the start.
    Prefix,
    /// `/%`: at the end.
    Suffix,
}

impl Op {
    /// drone's operator string (`FuncNode.Name`): `""` for a plain reference, `"#"` for both the
    /// length operator and the shortest-prefix trim, and so on.
    pub fn go_name(self) -> &'static str {
        match self {
            Op::Plain => "",
            Op::Length => "#",
            Op::Case(c) => match c {
                CaseOp::UpperFirst => "^",
                CaseOp::UpperAll => "^^",
                CaseOp::LowerFirst => ",",
                CaseOp::LowerAll => ",,",
                CaseOp::UpperLower => "^,",
                CaseOp::LowerUpper => ",^",
            },
            Op::Substring => ":",
            Op::Default(d) => match d {
                DefaultOp::Equal => "=",
                DefaultOp::ColonEqual => ":=",
                DefaultOp::ColonDash => ":-",
                DefaultOp::ColonQuestion => ":?",
                DefaultOp::ColonPlus => ":+",
            },
            Op::Trim(t) => match t {
                TrimOp::ShortestPrefix => "#",
                TrimOp::LongestPrefix => "##",
                TrimOp::ShortestSuffix => "%",
                TrimOp::LongestSuffix => "%%",
            },
            Op::Replace(r) => match r {
                ReplaceOp::First => "/",
                ReplaceOp::All => "//",
                ReplaceOp::Prefix => "/#",
                ReplaceOp::Suffix => "/%",
            },
        }
    }
}

impl Node<'_> {
    /// The node's span in the input.
    pub fn span(&self) -> Span {
        match self {
            Node::Text(t) => t.span,
            Node::Func(f) => f.span,
        }
    }
}

impl Template<'_> {
    /// The top-level expressions, in input order.
    pub fn funcs(&self) -> impl Iterator<Item = &Func<'_>> {
        self.nodes.iter().filter_map(|n| match n {
            Node::Func(f) => Some(f),
            Node::Text(_) => None,
        })
    }

    /// A normalised rendering of the tree, used to compare against drone's parse tests: nodes
    /// separated by one space, `T"text"` for text (Go `%q`), `F{name "op" [args…]}` for
    /// expressions. drone's right-nested `ListNode`s flatten to the top-level sequence, and an
    /// empty input renders as drone's empty root text node, `T""`.
    pub fn render(&self) -> String {
        if self.nodes.is_empty() {
            return "T\"\"".to_owned();
        }
        let mut s = String::new();
        render_nodes(&self.nodes, &mut s);
        s
    }
}

fn render_nodes(nodes: &[Node<'_>], s: &mut String) {
    for (i, n) in nodes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        match n {
            Node::Text(t) => {
                s.push('T');
                s.push_str(&super::runes::go_quote(&t.value()));
            }
            Node::Func(f) => {
                s.push_str("F{");
                s.push_str(f.name);
                s.push(' ');
                s.push_str(&super::runes::go_quote(f.op.go_name().as_bytes()));
                s.push_str(" [");
                render_nodes(&f.args, s);
                s.push_str("]}");
            }
        }
    }
}

/// Parses `input` completely. Any error means the input is not substituted at all.
pub fn parse(input: &[u8]) -> Result<Template<'_>, Error> {
    let mut nodes = Vec::new();
    parse_each(input, |node| nodes.push(node))?;
    Ok(Template { nodes })
}

/// [`parse`], giving each top-level node to `each` instead of keeping them all: a large file's
/// template is megabytes of nodes that a single pass over them does not need.
pub(super) fn parse_each<'a>(input: &'a [u8], mut each: impl FnMut(Node<'a>)) -> Result<(), Error> {
    let mut sc = Scanner::new(input);
    let len = input.len();
    let mut pos = 0;
    // drone's parseAny, as a loop: one token per iteration.
    while pos < len && input[pos] != 0 {
        if input[pos] == b'$' && input.get(pos + 1) == Some(&b'{') {
            if let Some(f) = plain_ascii_func(input, pos) {
                pos = f.span.end;
                each(Node::Func(f));
                continue;
            }
            sc.start = pos;
            sc.pos = pos + 2;
            let f = sc.parse_func(1).map_err(|e| match e {
                Error::Parse { kind, offset, .. } => Error::Parse {
                    kind,
                    offset,
                    expression: pos,
                },
                other => other,
            })?;
            each(Node::Func(f));
            pos = sc.pos;
        } else {
            let (text, end) = top_level_text(input, pos);
            each(Node::Text(text));
            pos = end;
        }
    }
    Ok(())
}

/// Fast path for the most common expression, `${NAME}` with an ASCII name: the rune scanner
/// would accept the same name and then find the `}`. Anything else goes to the scanner.
fn plain_ascii_func(input: &[u8], open: usize) -> Option<Func<'_>> {
    let start = open + 2;
    let len = input[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let end = start + len;
    if len == 0 || input.get(end) != Some(&b'}') {
        return None;
    }
    let name = std::str::from_utf8(&input[start..end]).ok()?;
    Some(Func {
        name,
        op: Op::Plain,
        args: Vec::new(),
        span: Span {
            start: open,
            end: end + 1,
        },
    })
}

/// One top-level text token starting at `start` (which is not `${`, NUL or the end): runs to the
/// next `${`, NUL or the end; `$$` gives `$` and its second `$` is never the start of `${`.
fn top_level_text(input: &[u8], start: usize) -> (Text<'_>, usize) {
    let mut escapes = false;
    let mut i = start;
    let end = loop {
        let Some(k) = memchr::memchr2(b'$', 0, &input[i..]) else {
            break input.len();
        };
        let j = i + k;
        if input[j] == 0 {
            break j;
        }
        match input.get(j + 1) {
            Some(b'{') => break j,
            Some(b'$') => {
                escapes = true;
                i = j + 2;
            }
            _ => i = j + 1,
        }
    };
    (
        Text {
            bytes: Cow::Borrowed(&input[start..end]),
            escapes,
            span: Span { start, end },
        },
        end,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse error names the top-level `${` it happened in, wherever inside it the parser
    /// stopped: what points a maintainer at an expression left open.
    #[test]
    fn errors_name_their_top_level_expression() {
        for (input, offset, expression) in [
            ("a: ${B:-x\n", 10, 3),
            ("${A} and ${B:=${C:-", 19, 9),
            ("x ${A", 5, 2),
            ("${A-x}", 3, 0),
        ] {
            match parse(input.as_bytes()) {
                Err(Error::Parse {
                    offset: o,
                    expression: e,
                    ..
                }) => assert_eq!((o, e), (offset, expression), "{input:?}"),
                other => panic!("{input:?}: {other:?}"),
            }
        }
        // Offsets of the original input, through the legacy pre-pass.
        match super::super::inventory(b"${ A } ${B:=x") {
            Err(Error::Parse { expression, .. }) => assert_eq!(expression, 7),
            other => panic!("{other:?}"),
        }
    }

    /// Top-level text keeps its `$$` until asked: its value, length and appended output are what
    /// the escapes stand for, wherever they are.
    #[test]
    fn text_with_escapes_gives_its_value_on_demand() {
        for (input, expected, expected_end) in [
            ("plain", "plain", 5),
            ("a$$b", "a$b", 4),
            ("$$", "$", 2),
            ("$$$$x", "$$x", 5),
            ("a$$$b", "a$$b", 5),
            ("x$y$$", "x$y$", 5),
            ("$$${", "$", 2),
        ] {
            let (text, end) = top_level_text(input.as_bytes(), 0);
            assert_eq!(text.value().as_ref(), expected.as_bytes(), "{input}");
            assert_eq!(text.len(), expected.len(), "{input}");
            let mut out = b"<".to_vec();
            text.write_to(&mut out);
            assert_eq!(out, format!("<{expected}").into_bytes(), "{input}");
            assert_eq!(text.had_escapes(), input[..end].contains("$$"), "{input}");
            assert_eq!(end, expected_end, "{input}");
        }
    }
}
