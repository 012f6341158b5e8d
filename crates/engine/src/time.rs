//! Simulated time. Every duration and instant in the engine is a whole number of virtual milliseconds since the
//! simulation started; nothing here reads a wall clock.

use std::fmt;

/// An instant or a duration on the virtual clock, in milliseconds.
pub type Millis = u64;

pub const MS: Millis = 1;
pub const SECOND: Millis = 1_000;
pub const MINUTE: Millis = 60 * SECOND;
pub const HOUR: Millis = 60 * MINUTE;

/// The wall-clock date that simulated time 0 is shown as (timestamps in YAML are RFC 3339 like the real API).
/// 2026-01-01T00:00:00Z, in seconds since the Unix epoch.
pub const EPOCH_UNIX_SECONDS: i64 = 1_767_225_600;

/// Formats a simulated instant as an RFC 3339 timestamp with second precision, as the API server does.
pub fn rfc3339(t: Millis) -> String {
    let secs = EPOCH_UNIX_SECONDS + (t / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// Parses an RFC 3339 timestamp (as produced by [`rfc3339`]) back to simulated time; `None` if it is malformed or
/// before the simulation epoch.
pub fn parse_rfc3339(s: &str) -> Option<Millis> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let days = days_from_civil(num(0..4)?, num(5..7)?, num(8..10)?);
    let secs = days * 86_400 + num(11..13)? * 3600 + num(14..16)? * 60 + num(17..19)?;
    let since = secs - EPOCH_UNIX_SECONDS;
    if since >= 0 {
        Some(since as Millis * 1000)
    } else {
        None
    }
}

// Howard Hinnant's civil calendar algorithms.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A duration printed the way kubectl prints ages: `45s`, `3m20s`, `5h2m`, `3d4h`, `120d`.
pub struct Age(pub Millis);

impl fmt::Display for Age {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // k8s.io/apimachinery/pkg/util/duration.HumanDuration
        let s = self.0 / 1000;
        let (m, h, d) = (s / 60, s / 3600, s / 86_400);
        if s < 120 {
            write!(f, "{s}s")
        } else if m < 10 {
            match s % 60 {
                0 => write!(f, "{m}m"),
                r => write!(f, "{m}m{r}s"),
            }
        } else if m < 180 {
            write!(f, "{m}m")
        } else if h < 8 {
            match m % 60 {
                0 => write!(f, "{h}h"),
                r => write!(f, "{h}h{r}m"),
            }
        } else if h < 48 {
            write!(f, "{h}h")
        } else if h < 24 * 8 {
            match h % 24 {
                0 => write!(f, "{d}d"),
                r => write!(f, "{d}d{r}h"),
            }
        } else if h < 24 * 365 * 2 {
            write!(f, "{d}d")
        } else if h < 24 * 365 * 8 {
            let y = d / 365;
            match d % 365 {
                0 => write!(f, "{y}y"),
                r => write!(f, "{y}y{r}d"),
            }
        } else {
            write!(f, "{}y", d / 365)
        }
    }
}

/// Parses a duration such as `500ms`, `30s`, `10m`, `1h30m` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Millis, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if let Ok(secs) = s.parse::<f64>() {
        return if secs.is_finite() && secs >= 0.0 {
            Ok((secs * 1000.0).round() as Millis)
        } else {
            Err(format!("invalid duration {s:?}"))
        };
    }
    let mut total: f64 = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let value: f64 = rest[..n].parse().map_err(|_| format!("invalid duration {s:?}"))?;
        rest = &rest[n..];
        let u = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = match &rest[..u] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "d" => 86_400_000.0,
            other => return Err(format!("invalid duration {s:?}: unknown unit {other:?}")),
        };
        total += value * unit;
        rest = &rest[u..];
    }
    Ok(total.round() as Millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        assert_eq!(rfc3339(0), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(90 * SECOND + 61 * MINUTE), "2026-01-01T01:02:30Z");
        assert_eq!(rfc3339(59 * 86_400 * SECOND), "2026-03-01T00:00:00Z");
        for t in [0, 1000, 123_456_000, 400 * 86_400_000] {
            assert_eq!(parse_rfc3339(&rfc3339(t)), Some(t));
        }
        assert_eq!(parse_rfc3339("2025-12-31T23:59:59Z"), None);
        assert_eq!(parse_rfc3339("garbage"), None);
    }

    #[test]
    fn ages_print_like_kubectl() {
        let cases = [
            (5 * SECOND, "5s"),
            (119 * SECOND, "119s"),
            (200 * SECOND, "3m20s"),
            (5 * MINUTE, "5m"),
            (45 * MINUTE, "45m"),
            (5 * HOUR + 2 * MINUTE, "5h2m"),
            (30 * HOUR, "30h"),
            (3 * 24 * HOUR + 4 * HOUR, "3d4h"),
            (120 * 24 * HOUR, "120d"),
        ];
        for (d, want) in cases {
            assert_eq!(Age(d).to_string(), want);
        }
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("1h30m"), Ok(90 * MINUTE));
        assert_eq!(parse_duration("10m"), Ok(10 * MINUTE));
        assert_eq!(parse_duration("2.5"), Ok(2500));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("").is_err());
    }
}
