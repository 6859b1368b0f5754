//! Reader for `testdata/subst/cases.txt`, the substitution case table.
//!
//! The table keeps upstream test rows as data, written with Go string literals so rows copied
//! from drone/envsubst and clusterctl tests stay recognisable. This module parses that small
//! format: one case per line, `KIND field=value …`, values being Go literals, `nil`, lists,
//! maps or bare words.

#![allow(dead_code)]

use std::collections::BTreeMap;

/// A field value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Str(Vec<u8>),
    Nil,
    Word(String),
    List(Vec<Value>),
    Map(Vec<(Vec<u8>, Value)>),
}

impl Value {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Value::Str(b) => b,
            other => panic!("expected a string, got {other:?}"),
        }
    }
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.bytes().to_vec()).expect("UTF-8 string")
    }
}

/// One row of the table.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub line: usize,
    pub kind: String,
    pub fields: BTreeMap<String, Value>,
}

impl Case {
    pub(crate) fn get(&self, k: &str) -> Option<&Value> {
        self.fields.get(k)
    }
    pub(crate) fn src(&self) -> String {
        match self.get("src") {
            Some(Value::Word(w)) => w.clone(),
            _ => String::new(),
        }
    }
    /// The `env` map as name -> value bytes.
    pub(crate) fn env(&self) -> BTreeMap<String, Vec<u8>> {
        match self.get("env") {
            None => BTreeMap::new(),
            Some(Value::Map(m)) => m
                .iter()
                .map(|(k, v)| {
                    (
                        String::from_utf8(k.clone()).expect("UTF-8 name"),
                        v.bytes().to_vec(),
                    )
                })
                .collect(),
            Some(other) => panic!("line {}: env must be a map, got {other:?}", self.line),
        }
    }
    pub(crate) fn label(&self) -> String {
        format!("cases.txt:{} [{} {}]", self.line, self.kind, self.src())
    }
}

pub(crate) fn load() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/subst/cases.txt");
    let text = std::fs::read_to_string(path).expect("read cases.txt");
    parse_cases(&text)
}

pub(crate) fn parse_cases(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut p = P {
            s: t.as_bytes(),
            i: 0,
            line: i + 1,
        };
        let kind = p.word();
        let mut fields = BTreeMap::new();
        loop {
            p.ws();
            if p.i >= p.s.len() {
                break;
            }
            let key = p.word();
            p.expect(b'=');
            let v = p.value();
            fields.insert(key, v);
        }
        out.push(Case {
            line: i + 1,
            kind,
            fields,
        });
    }
    out
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

impl P<'_> {
    fn fail(&self, msg: &str) -> ! {
        panic!("cases.txt:{}: {msg} at column {}", self.line, self.i + 1)
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn expect(&mut self, c: u8) {
        self.ws();
        if self.peek() != Some(c) {
            self.fail(&format!("expected {:?}", c as char));
        }
        self.i += 1;
    }
    fn word(&mut self) -> String {
        self.ws();
        let st = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || b"_:.-".contains(&c) || c >= 0x80 {
                self.i += 1;
            } else {
                break;
            }
        }
        if st == self.i {
            self.fail("expected a word");
        }
        String::from_utf8(self.s[st..self.i].to_vec()).expect("UTF-8 word")
    }
    fn value(&mut self) -> Value {
        self.ws();
        match self.peek() {
            Some(b'"') => Value::Str(self.interpreted()),
            Some(b'`') => {
                self.i += 1;
                let st = self.i;
                while self.peek() != Some(b'`') {
                    if self.peek().is_none() {
                        self.fail("unterminated raw string");
                    }
                    self.i += 1;
                }
                let v = self.s[st..self.i].to_vec();
                self.i += 1;
                Value::Str(v)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value());
                    self.ws();
                    if self.peek() == Some(b',') {
                        self.i += 1;
                    }
                }
                Value::List(items)
            }
            Some(b'{') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        break;
                    }
                    let k = match self.value() {
                        Value::Str(k) => k,
                        other => self.fail(&format!("map key must be a string, got {other:?}")),
                    };
                    self.expect(b':');
                    let v = self.value();
                    items.push((k, v));
                    self.ws();
                    if self.peek() == Some(b',') {
                        self.i += 1;
                    }
                }
                Value::Map(items)
            }
            _ => {
                let w = self.word();
                if w == "nil" {
                    Value::Nil
                } else {
                    Value::Word(w)
                }
            }
        }
    }
    /// A Go interpreted string literal.
    fn interpreted(&mut self) -> Vec<u8> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                self.fail("unterminated string")
            };
            self.i += 1;
            match c {
                b'"' => return out,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        self.fail("bad escape")
                    };
                    self.i += 1;
                    match e {
                        b'a' => out.push(7),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'v' => out.push(11),
                        b'\\' => out.push(b'\\'),
                        b'"' => out.push(b'"'),
                        b'x' => out.push(self.hex(2) as u8),
                        b'0'..=b'7' => {
                            let d = |c: u8| u32::from(c - b'0');
                            let v = d(e) * 64 + d(self.s[self.i]) * 8 + d(self.s[self.i + 1]);
                            self.i += 2;
                            out.push(v as u8);
                        }
                        b'u' | b'U' => {
                            let v = self.hex(if e == b'u' { 4 } else { 8 });
                            let ch = char::from_u32(v).unwrap_or_else(|| self.fail("bad rune"));
                            let mut b = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                        }
                        _ => self.fail("unknown escape"),
                    }
                }
                _ => out.push(c),
            }
        }
    }
    fn hex(&mut self, n: usize) -> u32 {
        let h = std::str::from_utf8(&self.s[self.i..self.i + n]).expect("hex digits");
        self.i += n;
        u32::from_str_radix(h, 16).unwrap_or_else(|_| self.fail("bad hex"))
    }
}
