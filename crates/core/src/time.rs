//! Simulated time. Every duration and instant in the engine is a whole number of virtual milliseconds since the
//! simulation started; nothing here reads a wall clock.

use std::fmt;

use crate::limits::{echo, MAX_DURATION};

/// An instant or a duration on the virtual clock, in milliseconds.
pub type Millis = u64;

pub const MS: Millis = 1;
pub const SECOND: Millis = 1_000;
pub const MINUTE: Millis = 60 * SECOND;
pub const HOUR: Millis = 60 * MINUTE;

/// A user's number of seconds (a grace period, tolerationSeconds, a deadline) as a duration: negative is 0, and
/// a count too large for the clock saturates at `Millis::MAX` (about 584 million years), never wraps.
pub(crate) fn seconds(secs: i64) -> Millis {
    Millis::try_from(secs).map_or(0, |s| s.saturating_mul(SECOND))
}

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

/// A duration as Go's `time.Duration.String()` prints it, at millisecond precision: `0s`, `823ms`, `1.623s`,
/// `2s`, `1m5.5s`, `1h0m0s`.
pub fn go_duration_string(ms: Millis) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < SECOND {
        return format!("{ms}ms");
    }
    let secs = ms / SECOND;
    let frac = ms % SECOND;
    let (h, m, sec) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    let sec = if frac > 0 { format!("{sec}.{frac:03}").trim_end_matches('0').to_string() } else { sec.to_string() };
    if h > 0 {
        format!("{h}h{m}m{sec}s")
    } else if m > 0 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    }
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

/// Parses a duration such as `500ms`, `30s`, `10m`, `1h30m`, `1.5h`, `1d` or a bare number of seconds (`2.5`),
/// exactly (decimal fractions are not rounded until the end, to the millisecond). A duration over
/// [`MAX_DURATION`] (Go's largest) is an error, as is anything negative or malformed.
pub fn parse_duration(s: &str) -> Result<Millis, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    // A sign Go's ParseDuration would read: a negative duration is refused by name (a negative zero is zero).
    match s.strip_prefix('-') {
        Some(magnitude) => match unsigned_duration(magnitude, s)? {
            0 => Ok(0),
            _ => Err(format!("invalid duration {:?}: must not be negative", echo(s))),
        },
        None => unsigned_duration(s, s),
    }
}

/// [`parse_duration`] of a duration without its `-`; errors name `shown`, the duration as written.
fn unsigned_duration(s: &str, shown: &str) -> Result<Millis, String> {
    let invalid = |why: &str| format!("invalid duration {:?}{why}", echo(shown));
    let too_large = || invalid(": too large (at most 2562047h47m16.854s)");
    // The total in units of 10^-FRACTION_DIGITS ms: every component is exact.
    let mut total: u128 = 0;
    let bare = s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if !bare {
        // Numbers such as `1e3` or `+5`, as seconds; nothing else with a sign or an exponent.
        if let Ok(secs) = s.parse::<f64>() {
            if !(secs.is_finite() && secs >= 0.0) {
                return Err(invalid(""));
            }
            let ms = (secs * 1000.0).round();
            return if ms <= MAX_DURATION as f64 { Ok(ms as Millis) } else { Err(too_large()) };
        }
    }
    let mut rest = s;
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number = &rest[..n];
        rest = &rest[n..];
        let u = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = &rest[..u];
        rest = &rest[u..];
        let unit_ms: u128 = match unit {
            "" if bare => 1000,
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            other => return Err(invalid(&format!(": unknown unit {:?}", echo(other)))),
        };
        let value = scaled(number, unit_ms).ok_or_else(|| invalid(""))?;
        total = value.and_then(|v| total.checked_add(v)).ok_or_else(too_large)?;
    }
    let ms = (total + FRACTION / 2) / FRACTION;
    match Millis::try_from(ms) {
        Ok(ms) if ms <= MAX_DURATION => Ok(ms),
        _ => Err(too_large()),
    }
}

/// Decimal digits of a duration's fraction that count (beyond them, digits are dropped: far below a millisecond).
const FRACTION_DIGITS: u32 = 18;
const FRACTION: u128 = 10u128.pow(FRACTION_DIGITS);

/// `number` (digits with at most one `.`) times `unit_ms`, in units of 1/[`FRACTION`] ms. `None`: not a number;
/// `Some(None)`: too large.
fn scaled(number: &str, unit_ms: u128) -> Option<Option<u128>> {
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') {
        return None;
    }
    let mut w: u128 = 0;
    for d in whole.bytes() {
        match w.checked_mul(10).and_then(|w| w.checked_add(u128::from(d - b'0'))) {
            Some(v) if v <= u128::from(MAX_DURATION) * 1000 => w = v,
            _ => return Some(None),
        }
    }
    let mut f: u128 = 0;
    let mut scale = FRACTION;
    for d in frac.bytes().take(FRACTION_DIGITS as usize) {
        scale /= 10;
        f += u128::from(d - b'0') * scale;
    }
    // A product that overflows u128 is far over MAX_DURATION: too large.
    Some(w.checked_mul(unit_ms).and_then(|v| v.checked_mul(FRACTION)).and_then(|v| v.checked_add(f * unit_ms)))
}

/// Go's `time.ParseDuration`, as kubectl's duration flags parse (`--timeout=1h30m`, `500ms`, `-1s`, `0`), with
/// its messages (`time: invalid duration "x"`, `time: missing unit in duration "10"`, `time: unknown unit
/// "d" in duration "1d"`). The result is in nanoseconds, an `i64` like Go's `Duration`: a value past it is
/// `invalid duration`, as in Go.
pub fn parse_go_duration(s: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", crate::api::go_quote(&crate::limits::echo(s)));
    let mut rest = s;
    let mut negative = false;
    if let Some(r) = rest.strip_prefix('-') {
        negative = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    // The magnitude in nanoseconds, at most 2^63 (for -2^63).
    let limit: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let (int_part, after) = rest.split_at(int_len);
        let (frac_part, after) = match after.strip_prefix('.') {
            Some(a) => {
                let n = a.find(|c: char| !c.is_ascii_digit()).unwrap_or(a.len());
                a.split_at(n)
            }
            None => ("", after),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(invalid());
        }
        let unit_len = after.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let per: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => {
                return Err(format!("time: missing unit in duration {}", crate::api::go_quote(&crate::limits::echo(s))))
            }
            u => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    crate::api::go_quote(&crate::limits::echo(u)),
                    crate::api::go_quote(&crate::limits::echo(s))
                ))
            }
        };
        let mut whole: u128 = 0;
        for b in int_part.bytes() {
            whole = whole * 10 + u128::from(b - b'0');
            if whole > limit {
                return Err(invalid());
            }
        }
        let mut v = whole.checked_mul(per).filter(|v| *v <= limit).ok_or_else(invalid)?;
        // The fraction, truncated to whole nanoseconds like Go.
        let mut scale: u128 = 1;
        let mut frac: u128 = 0;
        for b in frac_part.bytes() {
            if scale > 1_000_000_000_000_000_000 {
                break;
            }
            frac = frac * 10 + u128::from(b - b'0');
            scale *= 10;
        }
        v += frac * per / scale;
        total += v;
        if total > limit {
            return Err(invalid());
        }
        rest = after;
    }
    if negative {
        Ok(i64::try_from(total).map_or(i64::MIN, |t| -t))
    } else {
        i64::try_from(total).map_err(|_| invalid())
    }
}

/// A Go duration in nanoseconds as simulated time (whole milliseconds, rounded up so a positive duration is
/// never zero); negative is 0.
pub fn go_duration_millis(nanos: i64) -> Millis {
    Millis::try_from(nanos).map_or(0, |n| n.div_ceil(1_000_000))
}

/// A duration for people (timelines, summaries, the runner): `72.345s`, `4m12.5s`.
pub fn human_duration(t: Millis) -> String {
    let secs = |ms: Millis| {
        let whole = ms / 1000;
        let frac = ms % 1000;
        if frac == 0 {
            format!("{whole}s")
        } else {
            format!("{whole}.{}s", format!("{frac:03}").trim_end_matches('0'))
        }
    };
    if t < MINUTE {
        return secs(t);
    }
    let (h, m, rest) = (t / HOUR, (t % HOUR) / MINUTE, t % MINUTE);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 || (h > 0 && rest > 0) {
        out.push_str(&format!("{m}m"));
    }
    if rest > 0 {
        out.push_str(&secs(rest));
    }
    out
}

/// A timeline's time column: `  12.345s`.
pub fn format_time(t: Millis) -> String {
    format!("{:>8}s", format!("{}.{:03}", t / 1000, t % 1000))
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_print_for_people() {
        assert_eq!(human_duration(72_345), "1m12.345s");
        assert_eq!(human_duration(12_500), "12.5s");
        assert_eq!(human_duration(3 * MINUTE), "3m");
        assert_eq!(human_duration(90 * MINUTE), "1h30m");
        assert_eq!(human_duration(HOUR + 5 * SECOND), "1h0m5s");
        assert_eq!(human_duration(720 * HOUR), "720h");
        assert_eq!(format_time(12_345), "  12.345s");
    }

    use super::*;

    #[test]
    fn rfc3339_timestamps_count_from_2026_and_parse_back_to_the_same_instant() {
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
    fn scenario_durations_parse_to_milliseconds_and_bad_or_huge_ones_are_errors() {
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("1h30m"), Ok(90 * MINUTE));
        assert_eq!(parse_duration("10m"), Ok(10 * MINUTE));
        assert_eq!(parse_duration("2.5"), Ok(2500));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("").is_err());
        for huge in ["1e308", "1e308s", "99999999999999999999h", "18446744073709551616ms", "inf", "-1"] {
            assert!(parse_duration(huge).is_err(), "{huge}");
        }
    }

    #[test]
    fn seconds_saturate_and_clamp_negative_to_zero() {
        assert_eq!(seconds(30), 30 * SECOND);
        assert_eq!(seconds(-1), 0);
        assert_eq!(seconds(i64::MIN), 0);
        assert_eq!(seconds(i64::MAX), Millis::MAX);
    }

    #[test]
    fn go_durations_parse_like_time_parse_duration() {
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(parse_go_duration("-0"), Ok(0));
        assert_eq!(parse_go_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_go_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_go_duration(".5ms"), Ok(500_000));
        assert_eq!(parse_go_duration("-1s"), Ok(-1_000_000_000));
        assert_eq!(parse_go_duration("1µs2ns"), Ok(1_002));
        assert_eq!(parse_go_duration("2562047h47m16.854775807s"), Ok(i64::MAX));
        assert_eq!(parse_go_duration("-2562047h47m16.854775808s"), Ok(i64::MIN));
        assert_eq!(
            parse_go_duration("2562047h47m16.854775808s"),
            Err("time: invalid duration \"2562047h47m16.854775808s\"".into())
        );
        assert_eq!(parse_go_duration("99999999999h"), Err("time: invalid duration \"99999999999h\"".into()));
        assert_eq!(
            parse_go_duration("9223372036854775808ns"),
            Err("time: invalid duration \"9223372036854775808ns\"".into())
        );
        assert_eq!(parse_go_duration("10"), Err("time: missing unit in duration \"10\"".into()));
        assert_eq!(parse_go_duration("1d"), Err("time: unknown unit \"d\" in duration \"1d\"".into()));
        for bad in ["", "-", "s", ".s", "1.2.3s", "1e3s"] {
            assert!(parse_go_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(go_duration_millis(1), 1);
        assert_eq!(go_duration_millis(-5), 0);
        assert_eq!(go_duration_millis(i64::MAX), 9_223_372_036_855);
    }

    #[test]
    fn huge_durations_are_errors_not_overflows() {
        for s in ["99999999999999999999h", "18446744073709551616ms", "1e400", "9999999999999999999", "2562048h"] {
            let e = parse_duration(s).expect_err(s);
            assert!(e.contains("too large") || e.contains("invalid"), "{s}: {e}");
        }
        let e = parse_duration("99999999999999999999h").unwrap_err();
        assert_eq!(e, "invalid duration \"99999999999999999999h\": too large (at most 2562047h47m16.854s)");
        let huge = "9".repeat(100_000);
        assert!(parse_duration(&huge).is_err_and(|e| e.len() < 300));
        assert!(parse_duration(&format!("{huge}x")).is_err_and(|e| e.len() < 400));
        assert!(parse_duration(&format!("1{}", "s".repeat(100_000))).is_err_and(|e| e.len() < 400));
        assert_eq!(parse_duration("2562047h47m16.854s"), Ok(crate::limits::MAX_DURATION));
        assert_eq!(parse_duration("9223372036854ms"), Ok(crate::limits::MAX_DURATION));
        assert!(parse_duration("9223372036855ms").is_err());
    }

    #[test]
    fn durations_are_exact_decimals() {
        assert_eq!(parse_duration("1.5h"), Ok(90 * MINUTE));
        assert_eq!(parse_duration(".5s"), Ok(500));
        assert_eq!(parse_duration("5.s"), Ok(5000));
        assert_eq!(parse_duration("0.1s0.2s"), Ok(300));
        assert_eq!(parse_duration("0.4ms0.4ms"), Ok(1));
        assert_eq!(parse_duration("0.0004s"), Ok(0));
        assert_eq!(parse_duration("1.0000000000000000000000001d"), Ok(86_400_000));
        assert_eq!(parse_duration("1d2h3m4s5ms"), Ok(86_400_000 + 2 * HOUR + 3 * MINUTE + 4005));
        assert_eq!(parse_duration("1e3"), Ok(1_000_000));
        assert_eq!(parse_duration(" 7 "), Ok(7000));
        for bad in ["-5s", "-5", "1..5s", ".s", "s", "1h30", "5 s", "NaN", "inf", "1s-", "1.2.3"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
