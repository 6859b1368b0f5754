//! `resource.Quantity`: parsing and canonical form (`k8s.io/apimachinery/pkg/api/resource`).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalSi,
    BinarySi,
    DecimalExponent,
}

/// The string a Quantity parsed from `text` prints (`Quantity.String()`), or `None` when
/// apimachinery refuses the text.
pub fn canonical(text: &str) -> Option<String> {
    let parsed = parse(text)?;
    if let Some(cached) = parsed.cached {
        return Some(cached);
    }
    Some(format(parsed.mantissa, parsed.exponent, parsed.format))
}

struct Parsed {
    /// The value is `mantissa * 10^exponent`.
    mantissa: i128,
    exponent: i32,
    format: Format,
    /// apimachinery keeps the input string when it is already canonical.
    cached: Option<String>,
}

fn parse(text: &str) -> Option<Parsed> {
    let bytes = text.as_bytes();
    let end = bytes.len();
    if end == 0 {
        return None;
    }
    let mut pos = 0;
    let mut positive = true;
    match bytes.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while pos < end && bytes[pos] == b'0' {
        pos += 1;
    }
    let num_start = pos;
    while pos < end && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &text[num_start..pos];
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && bytes[pos] == b'.' {
        pos += 1;
        let start = pos;
        while pos < end && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &text[start..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&bytes[pos]) {
        pos += 1;
    }
    if pos < end && (bytes[pos] == b'-' || bytes[pos] == b'+') {
        pos += 1;
    }
    while pos < end && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return None;
    }
    let suffix = &text[suffix_start..];
    let (base, exponent, format) = match suffix {
        "" => (10, 0, Format::DecimalSi),
        "n" => (10, -9, Format::DecimalSi),
        "u" => (10, -6, Format::DecimalSi),
        "m" => (10, -3, Format::DecimalSi),
        "k" => (10, 3, Format::DecimalSi),
        "M" => (10, 6, Format::DecimalSi),
        "G" => (10, 9, Format::DecimalSi),
        "T" => (10, 12, Format::DecimalSi),
        "P" => (10, 15, Format::DecimalSi),
        "E" => (10, 18, Format::DecimalSi),
        "Ki" => (2, 10, Format::BinarySi),
        "Mi" => (2, 20, Format::BinarySi),
        "Gi" => (2, 30, Format::BinarySi),
        "Ti" => (2, 40, Format::BinarySi),
        "Pi" => (2, 50, Format::BinarySi),
        "Ei" => (2, 60, Format::BinarySi),
        other => {
            let rest = other.strip_prefix(['e', 'E'])?;
            let exponent: i32 = rest.parse().ok()?;
            (10, exponent, Format::DecimalExponent)
        }
    };
    let digits: String = format!("{num}{denom}");
    let denom_len = i32::try_from(denom.len()).ok()?;
    // The fast path and its "already canonical" check.
    let precision = match format {
        Format::DecimalSi | Format::DecimalExponent => 18 - (num.len() + denom.len()) as i64,
        Format::BinarySi if exponent >= 0 && denom.is_empty() => {
            15 - num.len() as i64 - (exponent as f32 * 3.0 / 10.0) as i64 - 1
        }
        Format::BinarySi => -1,
    };
    if precision >= 0 {
        let scale = if base == 10 { exponent - denom_len } else { 0 };
        if scale >= -9 {
            let value: i64 = digits.parse().ok()?;
            let multiplier: i64 = if base == 2 { 1i64 << exponent } else { 1 };
            if let Some(result) = value.checked_mul(multiplier) {
                let canonical_input = match format {
                    Format::BinarySi => exponent % 10 == 0 && value & 0x07 != 0,
                    _ => scale % 3 == 0 && !digits.ends_with("000") && !digits.starts_with('0'),
                };
                let result = if positive { result } else { -result };
                return Some(Parsed {
                    mantissa: i128::from(result),
                    exponent: scale,
                    format,
                    cached: canonical_input.then(|| text.to_string()),
                });
            }
        }
    }
    // The slow path: exact arithmetic, rounded up (away from zero) to nano units.
    let mut mantissa: i128 = digits.parse().ok()?;
    let mut exp10 = -denom_len;
    if base == 10 {
        exp10 += exponent;
    } else {
        mantissa = mantissa.checked_mul(1i128.checked_shl(exponent as u32)?)?;
    }
    if exp10 < -9 {
        let divisor = 10i128.checked_pow((-9 - exp10) as u32)?;
        mantissa = (mantissa + divisor - 1) / divisor;
        exp10 = -9;
    }
    let mut format = format;
    if format == Format::BinarySi && !is_at_least_one(mantissa, exp10) && mantissa > 0 {
        format = Format::DecimalSi;
    }
    if !positive {
        mantissa = -mantissa;
    }
    Some(Parsed {
        mantissa,
        exponent: exp10,
        format,
        cached: None,
    })
}

fn is_at_least_one(mantissa: i128, exp10: i32) -> bool {
    if exp10 >= 0 {
        return mantissa > 0;
    }
    10i128
        .checked_pow((-exp10) as u32)
        .is_none_or(|scale| mantissa >= scale)
}

/// `CanonicalizeBytes`.
fn format(mantissa: i128, exponent: i32, format: Format) -> String {
    if mantissa == 0 {
        return "0".to_string();
    }
    let mut format = format;
    let mut integer = None;
    if format == Format::BinarySi {
        let value = if exponent >= 0 {
            10i128
                .checked_pow(exponent as u32)
                .and_then(|p| mantissa.checked_mul(p))
        } else {
            10i128
                .checked_pow((-exponent) as u32)
                .filter(|p| mantissa % p == 0)
                .map(|p| mantissa / p)
        };
        match value {
            Some(v) if v > -1024 && v < 1024 => format = Format::DecimalSi,
            Some(v) => integer = Some(v),
            None => format = Format::DecimalSi,
        }
    }
    if let (Format::BinarySi, Some(mut value)) = (format, integer) {
        let mut times = 0;
        while value % 1024 == 0 && times < 6 {
            value /= 1024;
            times += 1;
        }
        let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][times];
        return format!("{value}{suffix}");
    }
    let (mut amount, mut exponent) = (mantissa, exponent);
    while amount % 10 == 0 {
        amount /= 10;
        exponent += 1;
    }
    while exponent % 3 != 0 {
        amount *= 10;
        exponent -= 1;
    }
    let suffix = match format {
        Format::DecimalExponent => {
            if exponent == 0 {
                String::new()
            } else {
                format!("e{exponent}")
            }
        }
        _ => match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        }
        .to_string(),
    };
    format!("{amount}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms_match_apimachinery() {
        // Rows from apimachinery's quantity_test.go (TestQuantityParse / String).
        for (input, expected) in [
            ("0", "0"),
            ("0n", "0"),
            ("1", "1"),
            ("100m", "100m"),
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1000", "1k"),
            ("1001", "1001"),
            ("1.5", "1500m"),
            ("128Mi", "128Mi"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1Ki", "1Ki"),
            ("1e3", "1e3"),
            ("1E3", "1E3"),
            ("100e-3", "100e-3"),
            ("1e6", "1e6"),
            ("10e3", "10e3"),
            ("1.0000000001", "1000000001n"),
            ("-100m", "-100m"),
            ("+1", "+1"),
            ("12Gi", "12Gi"),
            ("64Mi", "64Mi"),
            ("250m", "250m"),
            ("2", "2"),
            ("10M", "10M"),
            ("5000000000", "5G"),
        ] {
            assert_eq!(canonical(input).as_deref(), Some(expected), "{input}");
        }
        for bad in ["", "1.2.3", "abc", "1Kb", "1e", "--1"] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
    }
}
