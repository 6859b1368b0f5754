use std::io::Write;

use super::*;

/// Every character [`text`] escapes, with how it is shown.
#[test]
fn every_control_character_is_shown_as_an_escape() {
    for code in (0u32..0x20).chain(0x7f..0xa0) {
        let c = char::from_u32(code).unwrap();
        let shown = text(&format!("a{c}b")).into_owned();
        let expected = match c {
            '\n' => "a\\nb".to_string(),
            '\r' => "a\\rb".to_string(),
            '\t' => "a\\tb".to_string(),
            _ => format!("a\\u{{{code:x}}}b"),
        };
        assert_eq!(shown, expected, "U+{code:04X}");
        assert!(!shown.chars().any(char::is_control), "U+{code:04X}");
    }
    for c in [
        '\u{2028}', '\u{2029}', '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}',
        '\u{2066}', '\u{2069}',
    ] {
        assert_eq!(
            text(&c.to_string()),
            format!("\\u{{{:x}}}", u32::from(c)),
            "{c:?}"
        );
    }
}

/// The byte test agrees with the character test on every character of the planes in use.
#[test]
fn the_byte_test_finds_exactly_the_escaped_characters() {
    for code in (0u32..0x3_0000).chain(0xe_0000..0xe_1000) {
        let Some(c) = char::from_u32(code) else {
            continue;
        };
        let text = format!("a{c}b");
        assert_eq!(holds_escaped(&text, true), is_escaped(c), "U+{code:04X}");
        assert_eq!(holds_escaped(&text, false), is_escaped(c) && c != '\t');
    }
}

#[test]
fn ordinary_text_is_left_as_it_is() {
    for ordinary in [
        "",
        "Deployment `capz-system/capz-controller-manager`",
        "registry.k8s.io/capz@sha256:0123",
        "tr '\\r' '\\n'",
        "é ü 日本 ⚠️ ✅ — …",
        "a\u{a0}b\u{200b}c",
    ] {
        assert!(
            matches!(text(ordinary), Cow::Borrowed(_)),
            "{ordinary:?} was copied"
        );
        assert_eq!(text(ordinary), ordinary);
    }
}

#[test]
fn escaped_text_holds_no_line_break_and_no_terminal_sequence() {
    let hostile = "x\n::warning::pwned\r\n::set-output name=a::b\u{1b}]0;title\u{7}\u{9b}2J\u{85}";
    let shown = text(hostile);
    assert_eq!(
        shown,
        "x\\n::warning::pwned\\r\\n::set-output name=a::b\\u{1b}]0;title\\u{7}\\u{9b}2J\\u{85}"
    );
    assert!(!shown.chars().any(is_escaped));
    // Escaping again changes nothing: renderers may meet text escaped already.
    assert_eq!(text(&shown), shown);
}

/// A workflow command as the runner reads it: its name, properties and data.
type Command = (String, Vec<(String, String)>, String);

/// The runner's `ActionCommand.TryParseV2`: command, properties and data of a line, each
/// unescaped as the runner does (`UnescapeProperty`, `UnescapeData`).
fn runner_parse(line: &str) -> Option<Command> {
    let message = line.trim_start();
    let rest = message.strip_prefix("::")?;
    let end = rest.find("::")?;
    let info = &rest[..end];
    let (name, properties) = info.split_once(' ').unwrap_or((info, ""));
    let properties = properties
        .trim()
        .split(',')
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| {
            let v = v
                .replace("%0D", "\r")
                .replace("%0A", "\n")
                .replace("%3A", ":")
                .replace("%2C", ",")
                .replace("%25", "%");
            (k.to_string(), v)
        })
        .collect();
    let data = rest[end + 2..]
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%");
    Some((name.to_string(), properties, data))
}

#[test]
fn workflow_data_and_properties_round_trip_through_the_runner() {
    let hostile = [
        "plain",
        "100% sure %0A is not a line break %25",
        "a\nb\r\nc\rd",
        "file,with:colons::and,commas",
        "::warning::inner",
        "%3A%2C",
    ];
    for data in hostile {
        for property in hostile {
            let line = format!(
                "::error file={},title={}::{}",
                workflow_property(property),
                workflow_property("t,i:t%le"),
                workflow_data(data)
            );
            assert!(!line.contains(['\n', '\r']), "{line}");
            let (name, properties, parsed) = runner_parse(&line).unwrap();
            assert_eq!(name, "error");
            assert_eq!(
                properties,
                [
                    ("file".to_string(), property.to_string()),
                    ("title".to_string(), "t,i:t%le".to_string())
                ],
                "{line}"
            );
            assert_eq!(parsed, data, "{line}");
        }
    }
}

#[test]
fn annotation_properties_escape_what_ends_a_property() {
    assert_eq!(workflow_property("dir,a/x:y.yaml"), "dir%2Ca/x%3Ay.yaml");
    assert_eq!(workflow_data("100% a\r\nb,c:d"), "100%25 a%0D%0Ab,c:d");
}

/// What a CommonMark reader shows of `span` when it is exactly one code span, or `None`.
fn code_span_content(span: &str) -> Option<String> {
    let fence = span.bytes().take_while(|&b| b == b'`').count();
    let inner = span.get(fence..span.len().checked_sub(fence)?)?;
    if fence == 0 || !span.ends_with(&"`".repeat(fence)) || span.len() < 2 * fence {
        return None;
    }
    // The fence closes at the first run of the same length.
    if super::closing_run(inner, fence).is_some() || inner.ends_with('`') {
        return None;
    }
    let stripped = if inner.len() >= 2
        && inner.starts_with(' ')
        && inner.ends_with(' ')
        && !inner.chars().all(|c| c == ' ')
    {
        &inner[1..inner.len() - 1]
    } else {
        inner
    };
    Some(stripped.to_string())
}

#[test]
fn a_code_span_shows_its_content_whatever_backticks_it_holds() {
    for content in [
        "plain",
        "a`b",
        "``",
        "`start",
        "end`",
        " spaced ",
        " lead",
        "trail ",
        "a ``` b ` c",
        "x\n```\n# heading",
        "|pipe|",
    ] {
        let span = code_span(content);
        assert_eq!(
            code_span_content(&span).as_deref(),
            Some(text(content).as_ref()),
            "{content:?} as {span:?}"
        );
        assert!(!span.contains('\n'), "{span:?}");
    }
    assert_eq!(code_span("capz-system"), "`capz-system`");
}

/// GFM's table cells of `row` (`| a | b |`), as cmark-gfm's table parser reads them: a cell
/// ends at a pipe with no backslash just before it (its cell scanner takes the longest match,
/// in which `\|` is always an escaped pipe), and the backslash of an escaped pipe is dropped.
fn gfm_cells(row: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut previous = None;
    for c in row.trim().trim_start_matches('|').chars() {
        match c {
            '|' if previous == Some('\\') => {
                cell.pop();
                cell.push(c);
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
        previous = Some(c);
    }
    if !cell.trim().is_empty() {
        cells.push(cell.trim().to_string());
    }
    cells
}

#[test]
fn a_table_cell_stays_one_cell() {
    for content in ["a|b", "a\\|b", "a\\\\|b|", "\\", "|", "x\ny | z", "`a|b`"] {
        for markdown in [inline(content), code_span(content)] {
            let row = format!("| {} | next |", cell(&markdown));
            assert!(!row.contains('\n'), "{row}");
            // One cell, holding the Markdown as written before `cell`.
            assert_eq!(
                gfm_cells(&row),
                [markdown.clone(), "next".into()],
                "{content:?}: {row}"
            );
        }
    }
    assert_eq!(cell("plain `code`"), "plain `code`");
}

#[test]
fn inline_markdown_makes_no_link_image_or_html_outside_code_spans() {
    assert_eq!(
        inline(
            "Deployment `a` has [x](http://e) ![i](http://e/i.png) [r][1] <!-- hide <img src=x>"
        ),
        "Deployment `a` has [x\\](http://e) ![i\\](http://e/i.png) [r\\][1] &lt;!-- hide &lt;img src=x>"
    );
    // Inside a code span, Markdown is literal already and the text is kept.
    assert_eq!(inline("image `[x](y) <b>`"), "image `[x](y) <b>`");
    // A name holding a backtick cannot turn capkg's escaping off.
    assert_eq!(inline("name `a` b` [c](d)"), "name `a` b` [c\\](d)");
    // Nor can a backslash of its own.
    assert_eq!(inline("\\](x) \\\\](y)"), "\\\\\\](x) \\\\\\\\\\](y)");
    assert_eq!(inline("x\n# heading"), "x\\n# heading");
    for ordinary in [
        "InfraCluster `DevCluster` has no `DevClusterTemplate` CRD: mandatory",
        "[infrastructure-aws] Deployment capa-system/capa: a -> b",
        "C:\\path\\file and a\\b",
    ] {
        assert_eq!(inline(ordinary), ordinary);
    }
}

#[test]
fn a_link_destination_cannot_end_its_link() {
    assert_eq!(
        link_destination("https://h/o/r/releases/download/v1/a b(c)<d>|`e`\\\"f\n").as_deref(),
        Some("https://h/o/r/releases/download/v1/a%20b%28c%29%3Cd%3E%7C%60e%60%5C%22f%0A")
    );
    let ordinary = "https://github.com/o/r/releases/download/v1.2.3/metadata.yaml?x=1&y=%20#z";
    assert_eq!(link_destination(ordinary).as_deref(), Some(ordinary));
    assert_eq!(link_destination("javascript:alert(1)"), None);
    assert_eq!(link_destination("JavaScript:x"), None);
    assert_eq!(link_destination("data://x"), None);
    assert_eq!(
        link_destination("out/metadata.yaml").as_deref(),
        Some("out/metadata.yaml")
    );
}

#[test]
fn json_escapes_what_a_terminal_or_the_runner_acts_on_and_decodes_to_the_same() {
    let hostile = "a\u{7f}b\u{9b}2J\u{85}\u{2028}\u{202e}##[set-output name=x;]y ###[ ##\n::x";
    let value = serde_json::json!({ hostile: [hostile, "plain", "é ⚠️"] });
    for pretty in [false, true] {
        let mut out = Vec::new();
        if pretty {
            let formatter = JsonEscapes(serde_json::ser::PrettyFormatter::new());
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(&value, &mut serializer).unwrap();
        } else {
            let formatter = JsonEscapes(serde_json::ser::CompactFormatter);
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(&value, &mut serializer).unwrap();
        }
        let written = String::from_utf8(out).unwrap();
        assert!(!written.contains("##["), "{written}");
        assert!(
            !written
                .chars()
                .any(|c| is_escaped(c) && c != '\n' && c != ' '),
            "{written}"
        );
        assert!(written.contains("##\\u005bset-output"), "{written}");
        let decoded: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(decoded, value);
        assert_eq!(written.contains('\n'), pretty);
    }
}

fn guarded(write: impl FnOnce(&mut Guard<&mut Vec<u8>>)) -> String {
    let mut out = Vec::new();
    {
        let mut guard = Guard::new(&mut out);
        write(&mut guard);
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn the_guard_lets_no_line_be_a_workflow_command() {
    let out = guarded(|g| {
        writeln!(g, "::warning::pwned").unwrap();
        writeln!(g, "  \t::stop-commands::abc").unwrap();
        writeln!(g, "\u{a0}\u{2003}::set-output name=x::y").unwrap();
        writeln!(g, "ok ##[set-output name=x;]y and ##[error]z").unwrap();
        writeln!(g, "mid-line :: is fine").unwrap();
        write!(g, "a\r::error::after a carriage return").unwrap();
    });
    assert_eq!(
        out,
        "\\u{3a}:warning::pwned\n  \t\\u{3a}:stop-commands::abc\n\u{a0}\u{2003}\\u{3a}:set-output name=x::y\nok ##\\u{5b}set-output name=x;]y and ##\\u{5b}error]z\nmid-line :: is fine\na\\r::error::after a carriage return"
    );
    for line in out.split(['\n', '\r']) {
        assert!(runner_parse(line).is_none(), "{line}");
        assert!(!line.contains("##["), "{line}");
    }
}

#[test]
fn the_guard_writes_capkg_commands_as_they_are() {
    let out = guarded(|g| {
        write!(g, "half a line").unwrap();
        g.command("::error file=a%2Cb,title=r::m%0Ahelp: h")
            .unwrap();
        g.command("::notice::two\nlines").unwrap();
        writeln!(g, "after").unwrap();
    });
    assert_eq!(
        out,
        "half a line\n::error file=a%2Cb,title=r::m%0Ahelp: h\n::notice::two%0Alines\nafter\n"
    );
}

#[test]
fn the_guard_keeps_colours_and_escapes_every_other_sequence() {
    let out = guarded(|g| {
        writeln!(
            g,
            "\u{1b}[1;31merror\u{1b}[0m: x\u{1b}]0;title\u{7}\u{1b}[2J\u{9b}31m"
        )
        .unwrap();
    });
    assert_eq!(
        out,
        "\u{1b}[1;31merror\u{1b}[0m: x\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{9b}31m\n"
    );
}

/// The block test lets through only what the line by line check leaves as it is.
#[test]
fn a_block_passed_as_it_is_is_one_the_checks_would_not_change() {
    let mut lines = vec![
        "  │ ordinary ─── line · with box drawing\n".to_string(),
        "tab\there\n".to_string(),
        "a::b\n".to_string(),
        "x ##[y\n".to_string(),
        "\u{1b}[31mred\u{1b}[0m\n".to_string(),
        "… ellipsis\n".to_string(),
    ];
    for code in (0u32..0xa0).chain([0x61c, 0x200e, 0x2028, 0x202e, 0x2066, 0x2069]) {
        if code != u32::from(b'\n') {
            lines.push(format!("c{}d\n", char::from_u32(code).unwrap()));
        }
    }
    for line in &lines {
        if guard::plain_lines(line.as_bytes()) {
            assert_eq!(guard::checked_line(line, false), line.as_str(), "{line:?}");
        }
    }
    assert!(guard::plain_lines(lines[0].as_bytes()));
    assert!(guard::plain_lines(lines[1].as_bytes()));
}

#[test]
fn the_guard_passes_ordinary_lines_unchanged_however_they_are_cut() {
    let text = "Deployment `capz` ⚠️ é\n  │ line two\n\nlast without a break";
    for cut in 0..=text.len() {
        let out = guarded(|g| {
            let bytes = text.as_bytes();
            g.write_all(&bytes[..cut]).unwrap();
            g.flush().unwrap();
            g.write_all(&bytes[cut..]).unwrap();
        });
        assert_eq!(out, text, "cut at {cut}");
    }
    // A command split across writes is still found.
    let out = guarded(|g| {
        g.write_all(b"  :").unwrap();
        g.flush().unwrap();
        g.write_all(b":warning::x\n").unwrap();
    });
    assert_eq!(out, "  \\u{3a}:warning::x\n");
}
