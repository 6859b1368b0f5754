//! The text clusterctl prints for `generate cluster --list-variables` and
//! `generate yaml --list-variables`.
//!
//! `printVariablesOutput` (`cmd/clusterctl/cmd/util.go`) quotes defaults with Go's `%q` unless they
//! already start with `"`, overrides five well-known variables with values from flags and the
//! environment, and aligns the optional block with `text/tabwriter` (padding 2, space padding,
//! `FilterHTML`). To match its output byte for byte, including odd defaults with tabs, `<`, `&`
//! or newlines, the relevant part of Go's tabwriter is reproduced below.

use std::collections::BTreeMap;

use super::runes::{decode, go_quote as quote_bytes};

/// Go's `strconv.Quote` (what `%q` prints) on bytes: invalid bytes as `\xNN`, non-printable
/// runes as `\u`/`\U` escapes.
pub fn go_quote(s: &[u8]) -> String {
    quote_bytes(s)
}

/// The flag and environment values `generate cluster` uses to override five variables in the
/// listing (`GetClusterTemplateOptions` and `os.LookupEnv` in clusterctl).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterVariablesOptions {
    /// The cluster name argument (shown for CLUSTER_NAME, even when empty).
    pub cluster_name: String,
    /// `--target-namespace`; when empty NAMESPACE shows "current Namespace in the KubeConfig file".
    pub target_namespace: String,
    /// `--control-plane-machine-count`, if given.
    pub control_plane_machine_count: Option<i64>,
    /// `--worker-machine-count`, if given.
    pub worker_machine_count: Option<i64>,
    /// `--kubernetes-version` (empty when not given).
    pub kubernetes_version: String,
    /// The environment's CONTROL_PLANE_MACHINE_COUNT, if set.
    pub env_control_plane_machine_count: Option<String>,
    /// The environment's WORKER_MACHINE_COUNT, if set.
    pub env_worker_machine_count: Option<String>,
    /// The environment's KUBERNETES_VERSION, if set.
    pub env_kubernetes_version: Option<String>,
    /// Show the files' own defaults for the five names `generate cluster` sets itself
    /// (`capkg vars`), instead of what `generate cluster` would fill in.
    pub without_generate_cluster_values: bool,
}

impl ClusterVariablesOptions {
    /// The listing of the files alone, with no `generate cluster` flags or environment.
    pub fn plain() -> Self {
        Self {
            without_generate_cluster_values: true,
            ..Self::default()
        }
    }
}

/// The variables `clusterctl generate cluster` always sets itself (from its arguments and flags,
/// else the environment, else `1` and `0` for the counts), so templates may use them without a
/// default; `KUBERNETES_VERSION` is set only when `--kubernetes-version` is given.
pub const SET_BY_GENERATE_CLUSTER: [&str; 4] = [
    "CLUSTER_NAME",
    "NAMESPACE",
    "CONTROL_PLANE_MACHINE_COUNT",
    "WORKER_MACHINE_COUNT",
];

/// A variable's default as `--list-variables` shows it: Go-quoted (`%q`) unless it already
/// starts with `"`.
pub fn shown_default(default: &[u8]) -> Vec<u8> {
    if !default.is_empty() && !default.starts_with(b"\"") {
        quote_bytes(default).into_bytes()
    } else {
        default.to_vec()
    }
}

/// Renders `clusterctl generate cluster --list-variables` for a variable map (name to default,
/// `None` = required; see [`super::Inventory::variable_map`]).
pub fn render_cluster_variables(
    vars: &BTreeMap<String, Option<Vec<u8>>>,
    opts: &ClusterVariablesOptions,
) -> Vec<u8> {
    let mut required: Vec<&str> = Vec::new();
    let mut optional: Vec<(&str, Vec<u8>)> = Vec::new();
    for (name, default) in vars {
        let mut shown: Option<Vec<u8>> = default.as_deref().map(shown_default);
        match name.as_str() {
            _ if opts.without_generate_cluster_values => {}
            "CLUSTER_NAME" => shown = Some(opts.cluster_name.clone().into_bytes()),
            "NAMESPACE" => {
                shown = Some(if opts.target_namespace.is_empty() {
                    b"current Namespace in the KubeConfig file".to_vec()
                } else {
                    opts.target_namespace.clone().into_bytes()
                });
            }
            "CONTROL_PLANE_MACHINE_COUNT" => {
                shown = Some(count(
                    opts.control_plane_machine_count,
                    &opts.env_control_plane_machine_count,
                    "1",
                ));
            }
            "WORKER_MACHINE_COUNT" => {
                shown = Some(count(
                    opts.worker_machine_count,
                    &opts.env_worker_machine_count,
                    "0",
                ));
            }
            "KUBERNETES_VERSION" => {
                if !opts.kubernetes_version.is_empty() {
                    shown = Some(opts.kubernetes_version.clone().into_bytes());
                } else if let Some(v) = &opts.env_kubernetes_version {
                    shown = Some(v.clone().into_bytes());
                }
            }
            _ => {}
        }
        match shown {
            Some(v) => optional.push((name, v)),
            None => required.push(name),
        }
    }
    // The map is already in bytewise order, which is what sort.Strings gives.
    let mut out = Vec::new();
    if !required.is_empty() {
        out.extend_from_slice(b"Required Variables:\n");
        for name in &required {
            out.extend_from_slice(b"  - ");
            out.extend_from_slice(name.as_bytes());
            out.push(b'\n');
        }
    }
    if !optional.is_empty() {
        out.extend_from_slice(b"\nOptional Variables:\n");
        let mut w = TabWriter::new();
        for (name, value) in &optional {
            let mut line = Vec::new();
            line.extend_from_slice(b"  - ");
            line.extend_from_slice(name.as_bytes());
            line.extend_from_slice(b"\t(defaults to ");
            line.extend_from_slice(value);
            line.extend_from_slice(b")\n");
            w.write(&line);
        }
        w.flush();
        out.append(&mut w.out);
    }
    out.push(b'\n');
    out
}

fn count(flag: Option<i64>, env: &Option<String>, fallback: &str) -> Vec<u8> {
    match (flag, env) {
        (Some(n), _) => n.to_string().into_bytes(),
        (None, Some(v)) => v.clone().into_bytes(),
        (None, None) => fallback.as_bytes().to_vec(),
    }
}

/// Renders `clusterctl generate yaml --list-variables` (sorted names, no required/optional split).
pub fn render_yaml_variables<S: AsRef<str>>(names: &[S]) -> Vec<u8> {
    if names.is_empty() {
        return b"\n".to_vec();
    }
    let mut out = b"Variables:\n".to_vec();
    for n in names {
        out.extend_from_slice(b"  - ");
        out.extend_from_slice(n.as_ref().as_bytes());
        out.push(b'\n');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Go's text/tabwriter, as configured by clusterctl: NewWriter(w, 0, 4, 2, ' ', FilterHTML).

const PADDING: i64 = 2;
const MIN_WIDTH: i64 = 0;
const ESCAPE: u8 = 0xFF;

#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    size: usize,
    width: i64,
}

struct TabWriter {
    out: Vec<u8>,
    buf: Vec<u8>,
    /// Position up to which the current cell's width has been computed.
    pos: usize,
    cell: Cell,
    end_char: u8,
    lines: Vec<Vec<Cell>>,
    widths: Vec<i64>,
}

fn rune_count(b: &[u8]) -> i64 {
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        i += decode(&b[i..]).1;
        n += 1;
    }
    n
}

impl TabWriter {
    fn new() -> Self {
        let mut w = TabWriter {
            out: Vec::new(),
            buf: Vec::new(),
            pos: 0,
            cell: Cell::default(),
            end_char: 0,
            lines: Vec::new(),
            widths: Vec::new(),
        };
        w.reset();
        w
    }

    fn reset(&mut self) {
        self.buf.clear();
        self.pos = 0;
        self.cell = Cell::default();
        self.end_char = 0;
        self.lines.clear();
        self.widths.clear();
        self.lines.push(Vec::new());
    }

    fn append(&mut self, text: &[u8]) {
        self.buf.extend_from_slice(text);
        self.cell.size += text.len();
    }

    fn update_width(&mut self) {
        self.cell.width += rune_count(&self.buf[self.pos..]);
        self.pos = self.buf.len();
    }

    fn start_escape(&mut self, ch: u8) {
        self.end_char = match ch {
            ESCAPE => ESCAPE,
            b'<' => b'>',
            _ => b';',
        };
    }

    fn end_escape(&mut self) {
        match self.end_char {
            ESCAPE => {
                self.update_width();
                self.cell.width -= 2;
            }
            b';' => self.cell.width += 1,
            _ => {} // an HTML tag has zero width
        }
        self.pos = self.buf.len();
        self.end_char = 0;
    }

    fn terminate_cell(&mut self) -> usize {
        let cell = std::mem::take(&mut self.cell);
        match self.lines.last_mut() {
            Some(line) => {
                line.push(cell);
                line.len()
            }
            None => {
                self.lines.push(vec![cell]);
                1
            }
        }
    }

    fn write(&mut self, buf: &[u8]) {
        let mut n = 0;
        for (i, &ch) in buf.iter().enumerate() {
            if self.end_char == 0 {
                match ch {
                    b'\t' | b'\x0B' | b'\n' | b'\x0C' => {
                        self.append(&buf[n..i]);
                        self.update_width();
                        n = i + 1;
                        let ncells = self.terminate_cell();
                        if ch == b'\n' || ch == b'\x0C' {
                            self.lines.push(Vec::new());
                            if ch == b'\x0C' || ncells == 1 {
                                self.flush();
                            }
                        }
                    }
                    ESCAPE => {
                        self.append(&buf[n..i]);
                        self.update_width();
                        n = i;
                        self.start_escape(ESCAPE);
                    }
                    b'<' | b'&' => {
                        self.append(&buf[n..i]);
                        self.update_width();
                        n = i;
                        self.start_escape(ch);
                    }
                    _ => {}
                }
            } else if ch == self.end_char {
                self.append(&buf[n..=i]);
                n = i + 1;
                self.end_escape();
            }
        }
        self.append(&buf[n..]);
    }

    fn flush(&mut self) {
        if self.cell.size > 0 {
            if self.end_char != 0 {
                self.end_escape();
            }
            self.terminate_cell();
        }
        self.format();
        self.reset();
    }

    fn write_padding(&mut self, textw: i64, cellw: i64) {
        let n = usize::try_from(cellw - textw).unwrap_or(0);
        self.out.extend(std::iter::repeat_n(b' ', n));
    }

    fn write_lines(&mut self, mut pos: usize, line0: usize, line1: usize) -> usize {
        for i in line0..line1 {
            for j in 0..self.lines[i].len() {
                let c = self.lines[i][j];
                if c.size > 0 {
                    self.out.extend_from_slice(&self.buf[pos..pos + c.size]);
                    pos += c.size;
                }
                if let Some(&w) = self.widths.get(j) {
                    self.write_padding(c.width, w);
                }
            }
            if i + 1 == self.lines.len() {
                let size = self.cell.size;
                self.out.extend_from_slice(&self.buf[pos..pos + size]);
                pos += size;
            } else {
                self.out.push(b'\n');
            }
        }
        pos
    }

    /// Go's recursive `format` (one recursion level per column), with an explicit stack so that
    /// a default full of tabs cannot exhaust the native stack.
    fn format(&mut self) {
        struct Frame {
            line0: usize,
            this: usize,
            line1: usize,
        }
        let mut pos = 0;
        let mut stack = vec![Frame {
            line0: 0,
            this: 0,
            line1: self.lines.len(),
        }];
        self.widths.clear();
        while let Some(top) = stack.last_mut() {
            let column = self.widths.len();
            while top.this < top.line1 && column + 1 >= self.lines[top.this].len() {
                top.this += 1;
            }
            if top.this < top.line1 {
                // A column block starts here: print the lines before it, then size the block.
                let (line0, this) = (top.line0, top.this);
                let mut end = this;
                let mut width = MIN_WIDTH;
                while end < top.line1 && column + 1 < self.lines[end].len() {
                    width = width.max(self.lines[end][column].width + PADDING);
                    end += 1;
                }
                top.line0 = end;
                top.this = end;
                pos = self.write_lines(pos, line0, this);
                self.widths.push(width);
                stack.push(Frame {
                    line0: this,
                    this,
                    line1: end,
                });
            } else {
                let (line0, line1) = (top.line0, top.line1);
                pos = self.write_lines(pos, line0, line1);
                stack.pop();
                if !stack.is_empty() {
                    self.widths.pop();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabwriter_aligns_like_go() {
        let mut w = TabWriter::new();
        w.write(b"  - A\t(defaults to \"x\")\n");
        w.write(b"  - LONGER_NAME\t(defaults to \"y\")\n");
        w.flush();
        assert_eq!(
            String::from_utf8_lossy(&w.out),
            "  - A            (defaults to \"x\")\n  - LONGER_NAME  (defaults to \"y\")\n"
        );
    }

    #[test]
    fn html_entities_count_as_one() {
        let mut w = TabWriter::new();
        w.write(b"a&amp;\tx\nbbb\ty\n");
        w.flush();
        assert_eq!(String::from_utf8_lossy(&w.out), "a&amp;   x\nbbb  y\n");
    }
}
