//! Go's `strconv.FormatFloat(f, 'g', -1, 64|32)`: how go-yaml v2 prints a float and how
//! sigs.k8s.io/yaml turns a float map key into a string.
//!
//! Rust's `{:e}` gives the same shortest round-trip digits as Go's formatter; only the layout
//! differs, so this module takes Rust's digits and lays them out as Go's `%g` does (exponent form
//! below 1e-4 and from 1e6 up). Infinity and NaN come out as Go spells them (`+Inf`, `-Inf`,
//! `NaN`); callers that need YAML's `.inf` map those themselves.

/// Shortest decimal digits of a finite, non-zero magnitude: `(digits, dp)` with the value equal to
/// `0.<digits> × 10^dp` (Go's `decimalSlice` `d` and `dp`).
fn shortest_digits(scientific: &str) -> (String, i32) {
    // `scientific` is Rust's `{:e}` of a positive finite value: `1.2345e6`, `5e-7`.
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    (digits, exponent + 1)
}

/// Go's `%g` layout for shortest digits: exponent form when the decimal exponent is below -4 or at
/// least 6 (Go uses precision 6 for this decision whenever the precision is the shortest).
fn format_digits_g(negative: bool, digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let exponent = dp - 1;
    if !(-4..6).contains(&exponent) {
        let mut chars = digits.chars();
        out.extend(chars.next());
        let rest = chars.as_str();
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        let magnitude = exponent.unsigned_abs();
        if magnitude < 10 {
            out.push('0');
        }
        out.push_str(&magnitude.to_string());
        return out;
    }
    push_fixed(&mut out, digits, dp);
    out
}

/// Plain decimal layout of `0.<digits> × 10^dp` with exactly the digits given (Go's `fmtF` with
/// the shortest precision).
fn push_fixed(out: &mut String, digits: &str, dp: i32) {
    let nd = digits.len() as i32;
    if dp <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-dp) as usize));
        out.push_str(digits);
    } else if dp >= nd {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (dp - nd) as usize));
    } else {
        let (int_part, frac_part) = digits.split_at(dp as usize);
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac_part);
    }
}

/// Go's `strconv.FormatFloat(value, 'g', -1, 64)`.
pub(super) fn format_g64(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let (digits, dp) = shortest_digits(&format!("{:e}", value.abs()));
    format_digits_g(value < 0.0, &digits, dp)
}

/// Go's `strconv.FormatFloat(value, 'g', -1, 32)`: the value is first rounded to a float32.
pub(super) fn format_g32(value: f64) -> String {
    let single = value as f32;
    if single.is_nan() {
        return "NaN".into();
    }
    if single.is_infinite() {
        return if single > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if single == 0.0 {
        return if single.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let (digits, dp) = shortest_digits(&format!("{:e}", single.abs()));
    format_digits_g(single < 0.0, &digits, dp)
}

/// What `encoding/json` writes for a float64 that is a whole number below 1e21 in magnitude: the
/// shortest digits padded with zeros (`12345678901234567000`), or `None` when it writes a
/// fraction or an exponent.
pub(super) fn json_integer_text(value: f64) -> Option<String> {
    if !value.is_finite() || value.fract() != 0.0 || value.abs() >= 1e21 {
        return None;
    }
    if value == 0.0 {
        return Some(if value.is_sign_negative() { "-0" } else { "0" }.into());
    }
    let (digits, dp) = shortest_digits(&format!("{:e}", value.abs()));
    let mut out = String::new();
    if value < 0.0 {
        out.push('-');
    }
    push_fixed(&mut out, &digits, dp);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_go() {
        // Expected strings are what Go 1.19's strconv.FormatFloat(f, 'g', -1, 64) prints.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (-0.1, "-0.1"),
            (100000.0, "100000"),
            (123456.7, "123456.7"),
            (1000000.0, "1e+06"),
            (1234567.5, "1.2345675e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e-7, "1e-07"),
            (1e20, "1e+20"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (12345678901234567890.0, "1.2345678901234567e+19"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
        ];
        for &(value, expected) in cases {
            assert_eq!(format_g64(value), expected, "{value:e}");
        }
    }

    #[test]
    fn g32_rounds_to_float32_first() {
        assert_eq!(format_g32(1.2), "1.2");
        assert_eq!(format_g32(0.1), "0.1");
        assert_eq!(format_g32(123456789.0), "1.2345679e+08");
        assert_eq!(format_g32(1e36), "1e+36");
        assert_eq!(format_g32(f32::MAX as f64), "3.4028235e+38");
        assert_eq!(format_g32(1e300), "+Inf");
        assert_eq!(format_g32(16777217.0), "1.6777216e+07");
    }

    #[test]
    fn json_integers_are_shortest_digits_padded() {
        assert_eq!(json_integer_text(8080.0).as_deref(), Some("8080"));
        assert_eq!(json_integer_text(-3.0).as_deref(), Some("-3"));
        assert_eq!(json_integer_text(-0.0).as_deref(), Some("-0"));
        assert_eq!(
            json_integer_text(12345678901234567890.0).as_deref(),
            Some("12345678901234567000")
        );
        assert_eq!(
            json_integer_text(1e20).as_deref(),
            Some("100000000000000000000")
        );
        assert_eq!(json_integer_text(1e21), None);
        assert_eq!(json_integer_text(1.5), None);
    }
}
