//! The rune scanner used inside `${…}`: a behavioural model of drone's `scanner`, read / unread
//! / peek with a width, its modes and accept predicates, and the parser of each function form
//! built on it (see [`super`] for why it keeps drone's shape).

use std::borrow::Cow;

use super::{CaseOp, DefaultOp, Func, MAX_NESTING, Node, Op, ReplaceOp, Text, TrimOp};
use crate::subst::runes::{decode, is_name_rune};
use crate::subst::{Error, ParseErrorKind, Span};

/// drone's end-of-input marker: rune 0. A NUL in the input reads as this too.
const EOF: char = '\0';

// Mode bits.
const SCAN_IDENT: u8 = 1;
const SCAN_LBRACK: u8 = 2;
const SCAN_RBRACK: u8 = 4;
const SCAN_ESCAPE: u8 = 8;

// Escape characters.
const ESC_DOLLAR: u8 = 1;
const ESC_BACKSLASH: u8 = 2;
const ESC_ALL: u8 = ESC_DOLLAR | ESC_BACKSLASH;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

/// drone's accept predicates; `i` is the token length in bytes after reading `r`.
#[derive(Debug, Clone, Copy)]
enum Accept {
    Ident,
    Colon,
    OneHash,
    NotClosing,
    HashFunc,
    PercentFunc,
    DefaultFunc,
    ReplaceFunc,
    OneEqual,
    OneColon,
    RejectColonClose,
    Slash,
    NotSlash,
    CasingFunc,
}

impl Accept {
    fn ok(self, r: char, i: usize) -> bool {
        match self {
            Accept::Ident => is_name_rune(r),
            Accept::Colon => r == ':',
            Accept::OneHash => r == '#' && i == 1,
            Accept::NotClosing => r != '}',
            Accept::HashFunc => r == '#' && i < 3,
            Accept::PercentFunc => r == '%' && i < 3,
            Accept::DefaultFunc => {
                (i == 1 && r == ':') || (i == 2 && matches!(r, '=' | '-' | '?' | '+'))
            }
            Accept::ReplaceFunc => (i == 1 && r == '/') || (i == 2 && matches!(r, '/' | '#' | '%')),
            Accept::OneEqual => i == 1 && r == '=',
            Accept::OneColon => i == 1 && r == ':',
            Accept::RejectColonClose => r != ':' && r != '}',
            Accept::Slash => r == '/',
            Accept::NotSlash => r != '/',
            Accept::CasingFunc => (r == ',' || r == '^') && i < 3,
        }
    }
}

pub(super) struct Scanner<'a> {
    buf: &'a [u8],
    pub(super) pos: usize,
    pub(super) start: usize,
    width: usize,
    mode: u8,
    escape: u8,
    accept: Accept,
    /// Offsets of escape characters dropped from the current token.
    skipped: Vec<usize>,
}

/// An error inside the expression being parsed; [`parse_each`](super::parse_each) sets which
/// top-level expression.
fn err(kind: ParseErrorKind, offset: usize) -> Error {
    Error::Parse {
        kind,
        offset,
        expression: offset,
    }
}

impl<'a> Scanner<'a> {
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Scanner {
            buf,
            pos: 0,
            start: 0,
            width: 0,
            mode: 0,
            escape: ESC_DOLLAR,
            accept: Accept::Ident,
            skipped: Vec::new(),
        }
    }

    fn read(&mut self) -> char {
        if self.pos >= self.buf.len() {
            self.width = 0;
            return EOF;
        }
        let (r, w) = decode(&self.buf[self.pos..]);
        self.width = w;
        self.pos += w;
        r
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(self.width);
    }

    fn peek(&mut self) -> char {
        let r = self.read();
        self.unread();
        r
    }

    /// drone splices the escape character out of its buffer; here it is recorded and the escaped
    /// character (always one byte) is consumed.
    fn skip(&mut self) {
        self.skipped.push(self.pos - 1);
        self.pos += 1;
    }

    /// The current token's length as drone measures it (in its spliced buffer).
    fn token_len(&self) -> usize {
        self.pos - self.start - self.skipped.len()
    }

    fn token_bytes(&self) -> Cow<'a, [u8]> {
        let raw = &self.buf[self.start..self.pos];
        if self.skipped.is_empty() {
            return Cow::Borrowed(raw);
        }
        let mut v = Vec::with_capacity(raw.len());
        let mut seg = self.start;
        for &s in &self.skipped {
            v.extend_from_slice(&self.buf[seg..s]);
            seg = s + 1;
        }
        v.extend_from_slice(&self.buf[seg..self.pos]);
        Cow::Owned(v)
    }

    /// Operator and name tokens never contain escapes and are made of ASCII or name runes.
    fn token_str(&self) -> &'a str {
        std::str::from_utf8(&self.buf[self.start..self.pos]).unwrap_or("")
    }

    fn scan(&mut self) -> Token {
        self.start = self.pos;
        self.skipped.clear();
        let r = self.read();
        if r == EOF {
            Token::Eof
        } else if self.scan_lbrack(r) {
            Token::Lbrack
        } else if self.scan_rbrack(r) {
            Token::Rbrack
        } else if self.scan_ident(r) {
            Token::Ident
        } else {
            Token::Illegal
        }
    }

    fn scan_ident(&mut self, r: char) -> bool {
        if self.mode & SCAN_IDENT == 0 {
            return false;
        }
        if self.scan_escaped(r) {
            self.skip();
        } else if !self.accept.ok(r, self.token_len()) {
            return false;
        }
        loop {
            let r = self.read();
            if r == EOF {
                self.unread();
                break;
            }
            if self.scan_lbrack(r) {
                self.unread();
                self.unread();
                break;
            }
            if self.scan_escaped(r) {
                self.skip();
                continue;
            }
            if !self.accept.ok(r, self.token_len()) {
                self.unread();
                break;
            }
        }
        true
    }

    fn scan_lbrack(&mut self, r: char) -> bool {
        if self.mode & SCAN_LBRACK == 0 {
            return false;
        }
        if r == '$' {
            if self.read() == '{' {
                return true;
            }
            self.unread();
        }
        false
    }

    fn scan_rbrack(&self, r: char) -> bool {
        self.mode & SCAN_RBRACK != 0 && r == '}'
    }

    fn scan_escaped(&mut self, r: char) -> bool {
        if self.mode & SCAN_ESCAPE == 0 {
            return false;
        }
        if r == '$' && self.escape & ESC_DOLLAR != 0 && self.peek() == '$' {
            return true;
        }
        if r == '\\' && self.escape & ESC_BACKSLASH != 0 {
            return matches!(self.peek(), '/' | '\\');
        }
        false
    }

    fn set(&mut self, accept: Accept, mode: u8) {
        self.accept = accept;
        self.mode = mode;
    }

    fn text_node(&self) -> Node<'a> {
        Node::Text(Text {
            bytes: self.token_bytes(),
            escapes: false,
            span: Span {
                start: self.start,
                end: self.pos,
            },
        })
    }

    // -----------------------------------------------------------------------------------------
    // The parser proper (drone's `Tree` methods). `open` is the offset of the `$` of `${`.

    /// Called with the scanner just after `${`.
    pub(super) fn parse_func(&mut self, depth: usize) -> Result<Func<'a>, Error> {
        let open = self.start;
        if depth > MAX_NESTING {
            return Err(err(ParseErrorKind::NestingTooDeep, open));
        }
        self.escape = ESC_ALL;
        if self.peek() == '#' {
            return self.parse_len(open);
        }
        self.set(Accept::Ident, SCAN_IDENT);
        let name = match self.scan() {
            Token::Ident => self.token_str(),
            _ => return Err(err(ParseErrorKind::VariableName, self.start)),
        };
        match self.peek() {
            ':' => return self.parse_default_or_substr(open, name, depth),
            '=' => return self.parse_default(open, name, depth),
            ',' | '^' => return self.parse_casing(open, name),
            '/' => return self.parse_replace(open, name, depth),
            '#' => return self.parse_remove(open, name, Accept::HashFunc, depth),
            '%' => return self.parse_remove(open, name, Accept::PercentFunc, depth),
            _ => {}
        }
        self.set(Accept::Ident, SCAN_RBRACK);
        match self.scan() {
            Token::Rbrack => Ok(self.func(open, name, Op::Plain, Vec::new())),
            _ => Err(err(ParseErrorKind::MissingClosingBrace, self.start)),
        }
    }

    fn func(&self, open: usize, name: &'a str, op: Op, args: Vec<Node<'a>>) -> Func<'a> {
        Func {
            name,
            op,
            args,
            span: Span {
                start: open,
                end: self.pos,
            },
        }
    }

    fn parse_param(&mut self, accept: Accept, mode: u8, depth: usize) -> Result<Node<'a>, Error> {
        self.set(accept, mode | SCAN_LBRACK);
        match self.scan() {
            Token::Lbrack => Ok(Node::Func(self.parse_func(depth + 1)?)),
            Token::Ident | Token::Rbrack => Ok(self.text_node()),
            _ => Err(err(ParseErrorKind::FuncSubstitution, self.start)),
        }
    }

    fn parse_default_or_substr(
        &mut self,
        open: usize,
        name: &'a str,
        depth: usize,
    ) -> Result<Func<'a>, Error> {
        // drone reads the ':', peeks, then steps back by the width of the *peeked* rune.
        self.read();
        let after_colon = self.pos;
        let r = self.peek();
        self.unread();
        match r {
            '=' | '-' | '?' | '+' => self.parse_default(open, name, depth),
            _ => self.parse_substr(open, name, after_colon, depth),
        }
    }

    fn parse_substr(
        &mut self,
        open: usize,
        name: &'a str,
        after_colon: usize,
        depth: usize,
    ) -> Result<Func<'a>, Error> {
        self.set(Accept::OneColon, SCAN_IDENT);
        if self.scan() != Token::Ident {
            // Only reachable through the look-ahead quirk (end of input or a multi-byte rune
            // right after the ':'); report where that rune is.
            return Err(err(ParseErrorKind::BadSubstitution, after_colon));
        }
        let mut args = Vec::with_capacity(2);
        args.push(self.parse_param(Accept::RejectColonClose, SCAN_IDENT, depth)?);
        self.set(Accept::Colon, SCAN_IDENT | SCAN_RBRACK);
        match self.scan() {
            Token::Rbrack => return Ok(self.func(open, name, Op::Substring, args)),
            Token::Ident => {}
            _ => return Err(err(ParseErrorKind::BadSubstitution, self.start)),
        }
        args.push(self.parse_param(Accept::NotClosing, SCAN_IDENT, depth)?);
        self.consume_rbrack()?;
        Ok(self.func(open, name, Op::Substring, args))
    }

    fn parse_remove(
        &mut self,
        open: usize,
        name: &'a str,
        accept: Accept,
        depth: usize,
    ) -> Result<Func<'a>, Error> {
        self.set(accept, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        let op = match self.token_str() {
            "#" => TrimOp::ShortestPrefix,
            "##" => TrimOp::LongestPrefix,
            "%" => TrimOp::ShortestSuffix,
            _ => TrimOp::LongestSuffix,
        };
        let arg = self.parse_param(Accept::NotClosing, SCAN_IDENT, depth)?;
        self.consume_rbrack()?;
        Ok(self.func(open, name, Op::Trim(op), vec![arg]))
    }

    fn parse_replace(
        &mut self,
        open: usize,
        name: &'a str,
        depth: usize,
    ) -> Result<Func<'a>, Error> {
        self.set(Accept::ReplaceFunc, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        let op = match self.token_str() {
            "/" => ReplaceOp::First,
            "//" => ReplaceOp::All,
            "/#" => ReplaceOp::Prefix,
            _ => ReplaceOp::Suffix,
        };
        let mut args = Vec::with_capacity(2);
        args.push(self.parse_param(Accept::NotSlash, SCAN_IDENT | SCAN_ESCAPE, depth)?);
        self.set(Accept::Slash, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        if self.peek() != '}' {
            args.push(self.parse_param(Accept::NotClosing, SCAN_IDENT | SCAN_ESCAPE, depth)?);
        }
        self.consume_rbrack()?;
        Ok(self.func(open, name, Op::Replace(op), args))
    }

    fn parse_default(
        &mut self,
        open: usize,
        name: &'a str,
        depth: usize,
    ) -> Result<Func<'a>, Error> {
        let accept = if self.peek() == '=' {
            Accept::OneEqual
        } else {
            Accept::DefaultFunc
        };
        self.set(accept, SCAN_IDENT);
        if self.scan() != Token::Ident {
            // Unreachable in drone too (its "unable to parse default function").
            return Err(err(ParseErrorKind::DefaultFunction, self.start));
        }
        let op = match self.token_str() {
            "=" => DefaultOp::Equal,
            ":=" => DefaultOp::ColonEqual,
            ":-" => DefaultOp::ColonDash,
            ":?" => DefaultOp::ColonQuestion,
            ":+" => DefaultOp::ColonPlus,
            _ => return Err(err(ParseErrorKind::DefaultFunction, self.start)),
        };
        let mut args = Vec::new();
        loop {
            if self.peek() == '}' {
                self.consume_rbrack()?;
                return Ok(self.func(open, name, Op::Default(op), args));
            }
            args.push(self.parse_param(Accept::NotClosing, SCAN_IDENT, depth)?);
        }
    }

    fn parse_casing(&mut self, open: usize, name: &'a str) -> Result<Func<'a>, Error> {
        self.set(Accept::CasingFunc, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        let op = match self.token_str() {
            "^" => CaseOp::UpperFirst,
            "^^" => CaseOp::UpperAll,
            "," => CaseOp::LowerFirst,
            ",," => CaseOp::LowerAll,
            "^," => CaseOp::UpperLower,
            _ => CaseOp::LowerUpper,
        };
        self.consume_rbrack()?;
        Ok(self.func(open, name, Op::Case(op), Vec::new()))
    }

    fn parse_len(&mut self, open: usize) -> Result<Func<'a>, Error> {
        self.set(Accept::OneHash, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        self.set(Accept::Ident, SCAN_IDENT);
        if self.scan() != Token::Ident {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        let name = self.token_str();
        self.consume_rbrack()?;
        Ok(self.func(open, name, Op::Length, Vec::new()))
    }

    fn consume_rbrack(&mut self) -> Result<(), Error> {
        self.mode = SCAN_RBRACK;
        if self.scan() != Token::Rbrack {
            return Err(err(ParseErrorKind::BadSubstitution, self.start));
        }
        Ok(())
    }
}
