//! Durations and sizes as people write them, read and printed in one place: one spelling for
//! flags, environment variables and capkg.yaml: `90s`, `10m`, `1h30m`, `1.5s`, `500ms` (a bare number is seconds); `4096`, `64KiB`,
//! `256MiB`, `1GiB` (powers of 1024), `10KB`, `1MB` (powers of 1000), units in any case, `/s`
//! allowed after a rate.

use std::time::Duration;

/// `90s`, `10m`, `1h30m`, `1.5s`, `500ms`, or a number of seconds.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let invalid = || format!("`{text}` is not a duration such as `90s`, `10m` or `1h`");
    if let Ok(seconds) = text.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{text}`: {e}"));
    }
    if text.is_empty() {
        return Err(invalid());
    }
    let mut seconds = 0.0;
    let mut rest = text;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let value: f64 = rest[..number_end].parse().map_err(|_| invalid())?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        seconds += match rest[..unit_end].trim() {
            "s" => value,
            "ms" => value / 1000.0,
            "m" => value * 60.0,
            "h" => value * 3600.0,
            other => {
                return Err(format!(
                    "unknown unit `{other}` in `{text}`: use ms, s, m or h"
                ));
            }
        };
        rest = &rest[unit_end..];
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{text}`: {e}"))
}

/// `4096`, `64K`/`64KiB` (1024), `10KB` (1000), `1M`/`1MiB`, `1G`/`1GiB`: a number of bytes.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size such as `4096`, `64KiB` or `256MiB`"))?;
    let unit = unit.trim().trim_end_matches("/s");
    let factor: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "kb" => 1000,
        "m" | "mib" => 1 << 20,
        "mb" => 1_000_000,
        "g" | "gib" => 1 << 30,
        "gb" => 1_000_000_000,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{text}`: use B, KiB, MiB or GiB"
            ));
        }
    };
    value
        .checked_mul(factor)
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// `1h 2m`, `1m 30s`, `45s`, `250ms`: a duration in messages.
pub(crate) fn format_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs == 0 {
        return format!("{}ms", duration.as_millis());
    }
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

/// `512 B`, `1.5 KiB`, `12.0 MiB`: a size in messages and progress lines.
pub(crate) fn format_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_sizes_print_as_people_read_them() {
        assert_eq!(format_duration(Duration::from_secs(3600)), "1h 0m");
        assert_eq!(format_duration(Duration::from_secs(90)), "1m 30s");
        assert_eq!(format_duration(Duration::from_secs(120)), "2m");
        assert_eq!(format_duration(Duration::from_secs(45)), "45s");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(12 << 20), "12.0 MiB");
    }

    #[test]
    fn compound_and_fractional_durations() {
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("1x").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
