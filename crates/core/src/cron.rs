//! Cron schedules, time zones and the CronJob controller's schedule arithmetic, as pure functions over the
//! simulation's clock.
//!
//! What is upstream's, followed (read from the sources, not copied):
//! - [`Schedule::parse`] is robfig/cron v3's `ParseStandard`, which kube-apiserver validates `spec.schedule` with and
//!   kube-controller-manager schedules by: five fields (minute, hour, day of month, month, day of week), `*` and
//!   `?`, `a-b`, `*/n`, `a-b/n`, `a/n` (from `a` to the field's maximum), lists, `JAN`-`DEC` and `SUN`-`SAT` in any
//!   case, day of week 0-6 (7 is refused: robfig's standard parser allows 0-6 only), the descriptors `@yearly`
//!   `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly` and `@every <Go duration>`, and a leading
//!   `TZ=<zone> ` or `CRON_TZ=<zone> `; its errors are robfig's, word for word.
//! - Day of month and day of week: when either field is written with a star (`*`, `?`, `*/1`), a day must match
//!   both; when both are restricted, either one ("star bit" logic: `0 0 1,15 * 3` runs on the 1st, the 15th and
//!   every Wednesday).
//! - [`Schedule::next_after`] is robfig's `SpecSchedule.Next`: the first activation strictly after the instant,
//!   searched in the zone's wall-clock time the way robfig does it with Go's `time` package, so daylight saving
//!   time behaves as upstream's: a time in the spring-forward gap does not happen that day (`30 2 * * *` skips
//!   2:30 on the day New York springs forward), a time in the repeated hour of the fall-back day happens twice
//!   (`30 1 * * *` runs at 1:30 EDT and again at 1:30 EST), and robfig gives up after five years (`None`, Go's
//!   zero time). robfig's quirk where midnight does not exist is kept too: Cairo springs forward at midnight, and
//!   a schedule whose search reaches that Friday day by day (`15 1 24 4 *`) skips it. `@every d` is robfig's `ConstantDelaySchedule`: `d` rounded down to whole seconds (at least 1 s)
//!   after the instant's whole second, in no zone.
//! - [`most_recent_schedule_time`] and [`next_schedule_time_duration`] are kube-controller-manager's
//!   `mostRecentScheduleTime` and `nextScheduleTimeDuration` (pkg/controller/cronjob/utils.go): the missed-schedule
//!   estimate, the 100 after which upstream warns `TooManyMissedTimes`, `startingDeadlineSeconds`' clamp, and the
//!   100 ms `nextScheduleDelta` added to the requeue.
//! - [`format_schedule`] is the controller's `formatSchedule`: `spec.timeZone` travels as a `TZ=` prefix.
//! - [`validate_schedule`] and [`validate_time_zone`] are kube-apiserver's `validateScheduleFormat` and
//!   `validateTimeZone` (pkg/apis/batch/validation), with their messages. Upstream sets no limit on a schedule's
//!   length (only the request's size bounds it): neither does kubeloop; parsing is linear in it and every message
//!   repeats user text through [`echo`], bounded.
//!
//! What is kubeloop's own:
//! - **Time zones.** kubeloop carries no tz database: it knows UTC (also `Etc/UTC` and the other UTC names, and
//!   `Local`, below), the fixed `Etc/GMT+N` / `Etc/GMT-N` zones (POSIX's inverted sign: `Etc/GMT+5` is UTC-5), and
//!   a table of common IANA zones ([`zone_names`]), each by its *current* POSIX TZ rule (tzdata 2025b), evaluated
//!   for every year: no historical transitions (a zone's rules before its last change are not known, nor is a
//!   future change). Any other name, even a real IANA zone, is refused as unknown, where a real cluster would
//!   accept it: [`unknown_zone_hint`] says so, for front ends to print under the API server's error.
//! - **The default zone.** A CronJob without `spec.timeZone` is scheduled in kube-controller-manager's local time
//!   zone; kubeloop's simulated kube-controller-manager runs in UTC ([`TimeZone::utc`]), as it does in most
//!   clusters' containers, and `Local` names that zone.
//! - **Bounded work.** `mostRecentScheduleTime` walks `Next` from an estimated start to `now`; kubeloop finds the
//!   same last activation by bisection (for `@every`, by arithmetic), so a long gap between the first two
//!   activations cannot cost thousands of steps. `Next` itself stops after [`MAX_STEPS`] steps, a guard never
//!   reached: each step moves forward, and five years of days, months and one day's hours and minutes are a few
//!   thousand steps.

use std::fmt;

use crate::api::go_quote;
use crate::limits::echo;
use crate::time::{Millis, EPOCH_UNIX_SECONDS};

/// The civil date-time (UTC) that simulated time 0 is: 2026-01-01T00:00:00Z, the instant [`crate::time::rfc3339`]
/// prints time 0 as ([`EPOCH_UNIX_SECONDS`]).
pub const SIM_EPOCH: DateTime = DateTime { year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0 };

/// More missed start times than this and kube-controller-manager warns `TooManyMissedTimes` ("too many missed
/// start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew").
pub const TOO_MANY_MISSED: u64 = 100;
/// kube-controller-manager's `nextScheduleDelta`: the padding added to a CronJob's requeue after its next
/// schedule time, against clock skew.
pub const NEXT_SCHEDULE_DELTA: Millis = 100;
/// The most steps one `Next` search takes (kubeloop's own guard; robfig's five-year limit always stops first).
pub const MAX_STEPS: u32 = 1_000_000;

const EPOCH_MS: i64 = EPOCH_UNIX_SECONDS * 1000;
/// Instants kubeloop converts to civil time are clamped to +-2^55 s (about a billion years), so years fit an i32.
const MAX_UNIX_SECS: i64 = 1 << 55;
const DAY: i64 = 86_400;

// ---------------------------------------------------------------------------------------------------------------
// Civil time

/// A civil (proleptic Gregorian) date and time of day, to the second, in no particular zone. Functions taking one
/// normalise fields out of range as Go's `time.Date` does (month 13 is January of the next year).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl DateTime {
    /// The civil date-time of `secs` seconds since the Unix epoch (clamped to about a billion years either way).
    pub fn from_unix(secs: i64) -> DateTime {
        let secs = secs.clamp(-MAX_UNIX_SECS, MAX_UNIX_SECS);
        let (y, m, d) = civil_from_days(secs.div_euclid(DAY));
        let rem = secs.rem_euclid(DAY) as u32;
        DateTime { year: y as i32, month: m, day: d, hour: rem / 3600, minute: rem / 60 % 60, second: rem % 60 }
    }

    /// Seconds since the Unix epoch of this date-time read as UTC (fields out of range normalised).
    pub fn unix(&self) -> i64 {
        let m = i64::from(self.month) - 1;
        let days = days_from_civil(i64::from(self.year) + m.div_euclid(12), (m.rem_euclid(12) + 1) as u32, 1)
            + i64::from(self.day)
            - 1;
        days * DAY + i64::from(self.hour) * 3600 + i64::from(self.minute) * 60 + i64::from(self.second)
    }

    /// The UTC date-time of a simulated instant (its milliseconds dropped).
    pub fn from_millis(t: Millis) -> DateTime {
        DateTime::from_unix(unix_ms(t).div_euclid(1000))
    }

    /// The simulated instant of this UTC date-time; `None` before [`SIM_EPOCH`].
    pub fn to_millis(&self) -> Option<Millis> {
        sim_ms(self.unix().checked_mul(1000)?)
    }

    /// The day of the week, 0 = Sunday ... 6 = Saturday.
    pub fn weekday(&self) -> u32 {
        (self.unix().div_euclid(DAY) + 4).rem_euclid(7) as u32
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`); days past the month's end carry on.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let m = i64::from(m);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// The civil date (year, month 1-12, day 1-31) of a count of days since 1970-01-01 (Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn month_days(y: i64, m: u32) -> i64 {
    days_from_civil(y + i64::from(m == 12), m % 12 + 1, 1) - days_from_civil(y, m, 1)
}

/// A simulated instant as milliseconds since the Unix epoch (saturating).
fn unix_ms(t: Millis) -> i64 {
    EPOCH_MS.saturating_add(i64::try_from(t).unwrap_or(i64::MAX))
}

/// Milliseconds since the Unix epoch as a simulated instant; `None` before the simulation's epoch.
fn sim_ms(u: i64) -> Option<Millis> {
    Millis::try_from(u.checked_sub(EPOCH_MS)?).ok()
}

// ---------------------------------------------------------------------------------------------------------------
// Time zones

/// Zones kubeloop knows besides UTC and `Etc/GMT+-N`, by their current POSIX TZ rule (tzdata 2025b's footers).
/// kubeloop's own table: not the tz database, and no historical rules.
const ZONES: &[(&str, &str)] = &[
    ("America/New_York", "EST5EDT,M3.2.0,M11.1.0"),
    ("America/Toronto", "EST5EDT,M3.2.0,M11.1.0"),
    ("America/Chicago", "CST6CDT,M3.2.0,M11.1.0"),
    ("America/Denver", "MST7MDT,M3.2.0,M11.1.0"),
    ("America/Phoenix", "MST7"),
    ("America/Los_Angeles", "PST8PDT,M3.2.0,M11.1.0"),
    ("America/Vancouver", "PST8PDT,M3.2.0,M11.1.0"),
    ("America/Anchorage", "AKST9AKDT,M3.2.0,M11.1.0"),
    ("Pacific/Honolulu", "HST10"),
    ("America/Mexico_City", "CST6"),
    ("America/Bogota", "<-05>5"),
    ("America/Sao_Paulo", "<-03>3"),
    ("America/Argentina/Buenos_Aires", "<-03>3"),
    ("Europe/London", "GMT0BST,M3.5.0/1,M10.5.0"),
    ("Europe/Dublin", "IST-1GMT0,M10.5.0,M3.5.0/1"),
    ("Europe/Lisbon", "WET0WEST,M3.5.0/1,M10.5.0"),
    ("Europe/Amsterdam", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Madrid", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Paris", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Rome", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Stockholm", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Warsaw", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Zurich", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Athens", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Helsinki", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Kyiv", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Istanbul", "<+03>-3"),
    ("Europe/Moscow", "MSK-3"),
    ("Africa/Cairo", "EET-2EEST,M4.5.5/0,M10.5.4/24"),
    ("Africa/Johannesburg", "SAST-2"),
    ("Africa/Lagos", "WAT-1"),
    ("Africa/Nairobi", "EAT-3"),
    ("Asia/Dubai", "<+04>-4"),
    ("Asia/Kolkata", "IST-5:30"),
    ("Asia/Jakarta", "WIB-7"),
    ("Asia/Shanghai", "CST-8"),
    ("Asia/Hong_Kong", "HKT-8"),
    ("Asia/Singapore", "<+08>-8"),
    ("Asia/Seoul", "KST-9"),
    ("Asia/Tokyo", "JST-9"),
    ("Australia/Perth", "AWST-8"),
    ("Australia/Adelaide", "ACST-9:30ACDT,M10.1.0,M4.1.0/3"),
    ("Australia/Brisbane", "AEST-10"),
    ("Australia/Melbourne", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
    ("Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
    ("Pacific/Auckland", "NZST-12NZDT,M9.5.0,M4.1.0/3"),
];

/// The tz database's other names of UTC that kubeloop knows (besides `UTC`, `Local` and `Etc/GMT+-0`).
const UTC_NAMES: &[&str] = &[
    "Etc/UTC",
    "Etc/UCT",
    "Etc/Universal",
    "Etc/Zulu",
    "Etc/GMT",
    "Etc/GMT0",
    "Etc/Greenwich",
    "GMT",
    "GMT0",
    "GMT+0",
    "GMT-0",
    "Greenwich",
    "UCT",
    "Universal",
    "Zulu",
];

/// A time zone: a UTC offset, and a daylight saving time rule if it has one (current rules only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeZone {
    name: String,
    /// Standard time's offset, seconds east of UTC.
    std: i32,
    dst: Option<Dst>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dst {
    /// Daylight time's offset, seconds east of UTC.
    offset: i32,
    /// When daylight time starts (in standard time) and ends (in daylight time).
    start: Rule,
    end: Rule,
}

/// A POSIX `Mm.w.d/time` rule: day `d` (0 = Sunday) of week `w` (5 = the last) of month `m`, at `time` seconds
/// after that day's midnight (may be negative or past 24 h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    month: u32,
    week: u32,
    weekday: u32,
    time: i32,
}

impl TimeZone {
    /// UTC: a CronJob's zone without `spec.timeZone` (kubeloop's kube-controller-manager runs in UTC).
    pub fn utc() -> TimeZone {
        TimeZone { name: "UTC".into(), std: 0, dst: None }
    }

    /// The zone a name loads as Go's `time.LoadLocation` would, among the zones kubeloop knows: `""`, `UTC` and
    /// `Local` (kube-controller-manager's zone, UTC in kubeloop) are UTC; then the other UTC names, `Etc/GMT+N`
    /// (N 0-12) and `Etc/GMT-N` (N 0-14), and [`zone_names`]. Any other name: Go's error, `unknown time zone X`
    /// (see [`unknown_zone_hint`]).
    pub fn named(name: &str) -> Result<TimeZone, String> {
        let fixed = |std| Ok(TimeZone { name: name.to_string(), std, dst: None });
        if name.is_empty() {
            return Ok(TimeZone::utc());
        }
        if name == "UTC" || name == "Local" || UTC_NAMES.contains(&name) {
            return fixed(0);
        }
        if name.starts_with(['/', '\\']) || name.contains("..") {
            return Err("time: invalid location name".into());
        }
        if let Some(rest) = name.strip_prefix("Etc/GMT") {
            let (sign, n) = (rest.as_bytes().first().copied(), rest.get(1..).unwrap_or(""));
            let digits = !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit());
            let canonical = digits && (n == "0" || !n.starts_with('0'));
            if let (Some(b'+' | b'-'), true, Ok(h)) = (sign, canonical, n.parse::<i32>()) {
                // POSIX's sign, inverted: Etc/GMT+5 is five hours behind UTC.
                if sign == Some(b'+') && h <= 12 {
                    return fixed(-h * 3600);
                }
                if sign == Some(b'-') && h <= 14 {
                    return fixed(h * 3600);
                }
            }
        }
        if let Some(&(_, rule)) = ZONES.iter().find(|(n, _)| *n == name) {
            if let Some((std, dst)) = parse_posix_tz(rule) {
                return Ok(TimeZone { name: name.to_string(), std, dst });
            }
        }
        Err(format!("unknown time zone {}", echo(name)))
    }

    /// The name the zone was loaded by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The zone's offset from UTC at a simulated instant, in seconds (east positive).
    pub fn offset_at(&self, t: Millis) -> i32 {
        self.offset(unix_ms(t).div_euclid(1000))
    }

    /// The wall-clock date-time of a simulated instant in this zone.
    pub fn local(&self, t: Millis) -> DateTime {
        self.wall(unix_ms(t).div_euclid(1000))
    }

    /// A simulated instant in this zone as Go's `time.RFC3339` prints it (`2026-03-08T03:30:00-04:00`, `Z` for a
    /// zero offset): the form of a Job's `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation.
    pub fn rfc3339(&self, t: Millis) -> String {
        let secs = unix_ms(t).div_euclid(1000);
        let off = self.offset(secs);
        let wall = DateTime::from_unix(secs + i64::from(off));
        if off == 0 {
            return format!("{wall}Z");
        }
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.unsigned_abs();
        format!("{wall}{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
    }

    /// The offset (seconds east of UTC) at `unix` seconds.
    fn offset(&self, unix: i64) -> i32 {
        let Some(dst) = self.dst else { return self.std };
        let year = civil_from_days((unix + i64::from(self.std)).div_euclid(DAY)).0;
        let start = rule_instant(year, dst.start, self.std);
        let end = rule_instant(year, dst.end, dst.offset);
        let inside = if start < end { start <= unix && unix < end } else { !(end <= unix && unix < start) };
        if inside {
            dst.offset
        } else {
            self.std
        }
    }

    /// The wall-clock time at `unix` seconds.
    fn wall(&self, unix: i64) -> DateTime {
        DateTime::from_unix(unix.saturating_add(i64::from(self.offset(unix))))
    }

    /// Go's `time.Date(y, m, d, h, mi, s, 0, loc)` in seconds: fields normalised, then the offset looked up for the
    /// wall time read as UTC and, if that instant's offset differs, for the instant it gives. So which offset a
    /// wall time in a spring-forward gap or a repeated hour gets depends, as in Go, on the side of UTC the zone is
    /// on: New York's missing 2:30 becomes 1:30 EST and its repeated 1:30 the first (EDT) one; Cairo's missing
    /// midnight becomes 1:00 EEST, and Sydney's repeated 2:30 the second (AEST) one.
    fn date(&self, y: i64, m: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
        let (y, m) = (y + (m - 1).div_euclid(12), (m - 1).rem_euclid(12) + 1);
        let u = (days_from_civil(y, m as u32, 1) + d - 1) * DAY + h * 3600 + mi * 60 + s;
        u - i64::from(self.offset(u - i64::from(self.offset(u))))
    }
}

/// The instant (Unix seconds) a rule falls on in `year`, its time read at `offset`.
fn rule_instant(year: i64, r: Rule, offset: i32) -> i64 {
    let first = days_from_civil(year, r.month, 1);
    let first_weekday = (first + 4).rem_euclid(7);
    let mut day = (i64::from(r.weekday) - first_weekday).rem_euclid(7) + (i64::from(r.week) - 1) * 7;
    let len = month_days(year, r.month);
    while day >= len {
        day -= 7;
    }
    (first + day) * DAY + i64::from(r.time) - i64::from(offset)
}

/// A POSIX TZ string with `Mm.w.d` rules (`EST5EDT,M3.2.0,M11.1.0`, `<+08>-8`, `IST-5:30`): standard time's
/// offset and the daylight rule, offsets east of UTC (POSIX writes them west). `None` if malformed.
fn parse_posix_tz(s: &str) -> Option<(i32, Option<Dst>)> {
    let mut p = Posix { s: s.as_bytes(), i: 0 };
    p.name()?;
    let std = -p.hms()?;
    if p.done() {
        return Some((std, None));
    }
    p.name()?;
    let offset = if p.peek() == Some(b',') { std + 3600 } else { -p.hms()? };
    p.eat(b',')?;
    let start = p.rule()?;
    p.eat(b',')?;
    let end = p.rule()?;
    p.done().then_some((std, Some(Dst { offset, start, end })))
}

struct Posix<'a> {
    s: &'a [u8],
    i: usize,
}

impl Posix<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn done(&self) -> bool {
        self.i == self.s.len()
    }
    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek() == Some(b)).then(|| self.i += 1)
    }
    /// A zone abbreviation: letters, or anything within `<...>`.
    fn name(&mut self) -> Option<()> {
        let start = self.i;
        if self.eat(b'<').is_some() {
            while self.peek()? != b'>' {
                self.i += 1;
            }
            self.i += 1;
            return Some(());
        }
        while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.i += 1;
        }
        (self.i - start >= 3).then_some(())
    }
    fn number(&mut self) -> Option<i32> {
        let start = self.i;
        let mut n: i32 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            n = n.checked_mul(10)?.checked_add(i32::from(d - b'0'))?;
            self.i += 1;
        }
        (self.i > start).then_some(n)
    }
    /// `[+-]h[:mm[:ss]]` in seconds.
    fn hms(&mut self) -> Option<i32> {
        let sign = if self.eat(b'-').is_some() {
            -1
        } else {
            self.eat(b'+');
            1
        };
        let mut secs = self.number()?.min(167) * 3600;
        if self.eat(b':').is_some() {
            secs += self.number()?.min(59) * 60;
            if self.eat(b':').is_some() {
                secs += self.number()?.min(59);
            }
        }
        Some(sign * secs)
    }
    /// `Mm.w.d[/time]`.
    fn rule(&mut self) -> Option<Rule> {
        self.eat(b'M')?;
        let month = self.number()?;
        self.eat(b'.')?;
        let week = self.number()?;
        self.eat(b'.')?;
        let weekday = self.number()?;
        let time = if self.eat(b'/').is_some() { self.hms()? } else { 7200 };
        let ok = (1..=12).contains(&month) && (1..=5).contains(&week) && weekday <= 6;
        ok.then_some(Rule { month: month as u32, week: week as u32, weekday: weekday as u32, time })
    }
}

/// The IANA names in kubeloop's zone table (besides UTC's names and `Etc/GMT+-N`).
pub fn zone_names() -> impl Iterator<Item = &'static str> {
    ZONES.iter().map(|(n, _)| *n)
}

/// What to tell a person whose time zone kubeloop refused as unknown: that kubeloop knows only its own table, and
/// which zones it holds. `None` if kubeloop knows the name, or if no tz database could hold it.
pub fn unknown_zone_hint(name: &str) -> Option<String> {
    if TimeZone::named(name).is_ok() || !iana_name(name) {
        return None;
    }
    let names: Vec<&str> = zone_names().collect();
    Some(format!(
        "kubeloop knows only some time zones, not the whole tz database (a real cluster may know {}): UTC, \
         Etc/GMT+N, Etc/GMT-N, {}",
        go_quote(&echo(name)),
        names.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// Schedules

/// A parsed cron schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    kind: Kind,
    /// The zone of a `TZ=`/`CRON_TZ=` prefix.
    zone: Option<TimeZone>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Bit sets of minute, hour, day of month, month, day of week; bit 63 marks a field written with a star.
    Spec([u64; 5]),
    /// `@every`: a delay in whole seconds, in milliseconds.
    Every(i64),
}

const MINUTES: usize = 0;
const HOURS: usize = 1;
const DOM: usize = 2;
const MONTHS: usize = 3;
const DOW: usize = 4;
/// Each field's least and greatest value.
const BOUNDS: [(u64, u64); 5] = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 6)];
const STAR: u64 = 1 << 63;
const MONTH_NAMES: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// The bits `lo..=hi` by `step`.
fn bits(lo: u64, hi: u64, step: u64) -> u64 {
    let mut b = 0;
    let mut v = lo;
    while v <= hi {
        b |= 1 << v;
        v = v.saturating_add(step);
    }
    b
}

/// A whole field: every value, and the star bit.
fn all(field: usize) -> u64 {
    bits(BOUNDS[field].0, BOUNDS[field].1, 1) | STAR
}

/// A field's least value alone.
fn first(field: usize) -> u64 {
    1 << BOUNDS[field].0
}

impl Schedule {
    /// Parses a schedule as robfig/cron v3's `ParseStandard`, with its errors.
    pub fn parse(spec: &str) -> Result<Schedule, String> {
        if spec.is_empty() {
            return Err("empty spec string".into());
        }
        let mut spec = spec;
        let mut zone = None;
        if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
            let eq = spec.find('=').unwrap_or(0);
            // robfig slices up to the first space; with none, Go panics (the API server answers with an
            // internal error): kubeloop refuses it with the panic's words.
            let Some(space) = spec.find(' ') else {
                return Err("runtime error: slice bounds out of range [:-1]".into());
            };
            let name = spec.get(eq + 1..space).unwrap_or("");
            let tz = TimeZone::named(name).map_err(|e| format!("provided bad location {}: {e}", echo(name)))?;
            zone = Some(tz);
            spec = spec[space..].trim();
        }
        let kind = if spec.starts_with('@') { descriptor(spec)? } else { Kind::Spec(fields(spec)?) };
        Ok(Schedule { kind, zone })
    }

    /// The zone of a `TZ=`/`CRON_TZ=` prefix, which the schedule is computed in whatever zone it is given.
    pub fn zone(&self) -> Option<&TimeZone> {
        self.zone.as_ref()
    }

    /// The first activation strictly after `after`, both civil times in UTC (the schedule computed in its `TZ=`
    /// zone, else in UTC); `None` if there is none within robfig's five years.
    pub fn next(&self, after: DateTime) -> Option<DateTime> {
        let t = self.next_ms(&TimeZone::utc(), after.unix().checked_mul(1000)?)?;
        Some(DateTime::from_unix(t.div_euclid(1000)))
    }

    /// The first activation strictly after the simulated instant `after`, the schedule read in `tz` (or in its
    /// own `TZ=` zone); `None` if there is none within robfig's five years (or past the simulated clock's end).
    pub fn next_after(&self, tz: &TimeZone, after: Millis) -> Option<Millis> {
        sim_ms(self.next_ms(tz, unix_ms(after))?)
    }

    /// robfig's `Next` over milliseconds since the Unix epoch.
    fn next_ms(&self, tz: &TimeZone, after: i64) -> Option<i64> {
        let tz = self.zone.as_ref().unwrap_or(tz);
        match self.kind {
            Kind::Every(delay) => after.checked_sub(after.rem_euclid(1000))?.checked_add(delay),
            Kind::Spec(f) => next_spec(&f, tz, after.div_euclid(1000))?.checked_mul(1000),
        }
    }

    /// The last activation at or before `now` of the chain `Next(from)`, `Next(Next(from))`, ...: the loop that
    /// ends upstream's `mostRecentScheduleTime`. `Next` gives the first activation after an instant, so the chain
    /// holds every activation after `from` and its last one is found by bisecting on where `Next` passes `now`.
    fn last_until(&self, tz: &TimeZone, from: i64, now: i64) -> Option<i64> {
        let first = self.next_ms(tz, from).filter(|&t| t <= now)?;
        if let Kind::Every(delay) = self.kind {
            return Some(first + (now - first) / delay * delay);
        }
        let (mut lo, mut hi) = (from, now);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.next_ms(tz, mid).is_some_and(|t| t <= now) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        self.next_ms(tz, lo)
    }
}

/// A descriptor: `@yearly` ... `@hourly`, `@every <duration>`.
fn descriptor(spec: &str) -> Result<Kind, String> {
    let f = match spec {
        "@yearly" | "@annually" => [first(MINUTES), first(HOURS), first(DOM), first(MONTHS), all(DOW)],
        "@monthly" => [first(MINUTES), first(HOURS), first(DOM), all(MONTHS), all(DOW)],
        "@weekly" => [first(MINUTES), first(HOURS), all(DOM), all(MONTHS), first(DOW)],
        "@daily" | "@midnight" => [first(MINUTES), first(HOURS), all(DOM), all(MONTHS), all(DOW)],
        "@hourly" => [first(MINUTES), all(HOURS), all(DOM), all(MONTHS), all(DOW)],
        _ => {
            let Some(d) = spec.strip_prefix("@every ") else {
                return Err(format!("unrecognized descriptor: {}", echo(spec)));
            };
            let nanos = crate::time::parse_go_duration(d)
                .map_err(|e| format!("failed to parse duration {}: {e}", echo(spec)))?;
            // robfig's Every: at least a second, rounded down to whole seconds.
            return Ok(Kind::Every(nanos.max(1_000_000_000) / 1_000_000_000 * 1000));
        }
    };
    Ok(Kind::Spec(f))
}

/// The five fields of a standard spec.
fn fields(spec: &str) -> Result<[u64; 5], String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    if words.len() != 5 {
        let n = words.len();
        return Err(format!("expected exactly 5 fields, found {n}: [{}]", echo(&words.join(" "))));
    }
    let mut f = [0; 5];
    for (i, word) in words.iter().enumerate() {
        for expr in word.split(',').filter(|e| !e.is_empty()) {
            f[i] |= range(expr, i)?;
        }
    }
    Ok(f)
}

/// One range of a field: `*`, `?`, `n`, `a-b`, with an optional `/step`.
fn range(expr: &str, field: usize) -> Result<u64, String> {
    let (min, max) = BOUNDS[field];
    let mut slashes = expr.split('/');
    let span = slashes.next().unwrap_or("");
    let step = slashes.next();
    let mut hyphens = span.split('-');
    let low = hyphens.next().unwrap_or("");
    let high = hyphens.next();
    let (mut start, mut end, mut star) = (min, max, true);
    if low != "*" && low != "?" {
        star = false;
        start = int_or_name(low, field)?;
        end = match high {
            _ if hyphens.next().is_some() => return Err(format!("too many hyphens: {}", echo(expr))),
            Some(h) => int_or_name(h, field)?,
            None => start,
        };
    }
    let step = match step {
        None => 1,
        Some(_) if slashes.next().is_some() => return Err(format!("too many slashes: {}", echo(expr))),
        Some(s) => {
            let step = parse_int(s)?;
            // `a/n` runs from a to the field's end; a step over 1 is no longer a star.
            if high.is_none() {
                end = max;
            }
            star &= step <= 1;
            step
        }
    };
    let e = echo(expr);
    if start < min {
        return Err(format!("beginning of range ({start}) below minimum ({min}): {e}"));
    }
    if end > max {
        return Err(format!("end of range ({end}) above maximum ({max}): {e}"));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {e}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {e}"));
    }
    Ok(bits(start, end, step) | if star { STAR } else { 0 })
}

/// A number, or a month's or day's three-letter name in the fields that have them.
fn int_or_name(expr: &str, field: usize) -> Result<u64, String> {
    let names: &[&str] = match field {
        MONTHS => &MONTH_NAMES,
        DOW => &DAY_NAMES,
        _ => &[],
    };
    match names.iter().position(|n| n.eq_ignore_ascii_case(expr)) {
        Some(i) => Ok(i as u64 + BOUNDS[field].0),
        None => parse_int(expr),
    }
}

/// robfig's `mustParseInt`: Go's `strconv.Atoi` (an optional sign, decimal digits, within int64), then no negative.
fn parse_int(s: &str) -> Result<u64, String> {
    let fail = |why: &str| {
        format!("failed to parse int from {}: strconv.Atoi: parsing {}: {why}", echo(s), go_quote(&echo(s)))
    };
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(fail("invalid syntax"));
    }
    let mut n: u64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            return Err(fail("invalid syntax"));
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| fail("value out of range"))?;
    }
    if n > (1 << 63) - u64::from(!negative) {
        return Err(fail("value out of range"));
    }
    if negative && n > 0 {
        return Err(format!("negative number (-{n}) not allowed: {}", echo(s)));
    }
    Ok(n)
}

/// Whether a wall-clock day matches the day-of-month and day-of-week fields (either, when both are restricted).
fn day_matches(f: &[u64; 5], w: &DateTime) -> bool {
    let dom = f[DOM] & (1 << w.day) != 0;
    let dow = f[DOW] & (1 << w.weekday()) != 0;
    if (f[DOM] | f[DOW]) & STAR != 0 {
        dom && dow
    } else {
        dom || dow
    }
}

/// robfig's `SpecSchedule.Next` in a zone, over Unix seconds: the first activation after `after`.
///
/// The seconds field of a standard spec is always 0 and every zone's offset is whole minutes, so robfig's seconds
/// loop amounts to starting at the next whole minute after `after`; the rest follows robfig step by step: each field
/// in turn is moved forward until it matches (wall time: months and days by Go's `AddDate`, hours and minutes by
/// adding absolute time), the first move resetting the smaller fields, a wrap-around starting over.
fn next_spec(f: &[u64; 5], tz: &TimeZone, after: i64) -> Option<i64> {
    if [MINUTES, HOURS, MONTHS].iter().any(|&i| f[i] & !STAR == 0) {
        return None; // a field no time matches (`,`): robfig searches its five years in vain
    }
    // robfig starts at the next whole second, and gives up five years after it.
    let start = after + 1;
    let year_limit = tz.wall(start).year + 5;
    let mut t = start + (60 - start.rem_euclid(60)) % 60;
    let mut added = false;
    let mut steps = MAX_STEPS;
    let mut step = || {
        steps = steps.checked_sub(1)?;
        Some(())
    };
    'wrap: loop {
        step()?;
        let mut w = tz.wall(t);
        if w.year > year_limit {
            return None;
        }
        while f[MONTHS] & (1 << w.month) == 0 {
            step()?;
            if !added {
                added = true;
                t = tz.date(w.year.into(), w.month.into(), 1, 0, 0, 0);
                w = tz.wall(t);
            }
            t = tz.date(
                w.year.into(),
                i64::from(w.month) + 1,
                w.day.into(),
                w.hour.into(),
                w.minute.into(),
                w.second.into(),
            );
            w = tz.wall(t);
            if w.month == 1 {
                continue 'wrap;
            }
        }
        while !day_matches(f, &w) {
            step()?;
            if !added {
                added = true;
                t = tz.date(w.year.into(), w.month.into(), w.day.into(), 0, 0, 0);
                w = tz.wall(t);
            }
            t = tz.date(
                w.year.into(),
                w.month.into(),
                i64::from(w.day) + 1,
                w.hour.into(),
                w.minute.into(),
                w.second.into(),
            );
            w = tz.wall(t);
            // Midnight may not exist in a zone that springs forward at midnight: back to the day's first hour.
            if w.hour != 0 {
                t += if w.hour > 12 { i64::from(24 - w.hour) * 3600 } else { -i64::from(w.hour) * 3600 };
                w = tz.wall(t);
            }
            if w.day == 1 {
                continue 'wrap;
            }
        }
        while f[HOURS] & (1 << w.hour) == 0 {
            step()?;
            if !added {
                added = true;
                t = tz.date(w.year.into(), w.month.into(), w.day.into(), w.hour.into(), 0, 0);
            }
            t += 3600;
            w = tz.wall(t);
            if w.hour == 0 {
                continue 'wrap;
            }
        }
        while f[MINUTES] & (1 << w.minute) == 0 {
            step()?;
            if !added {
                added = true;
                t -= t.rem_euclid(60);
            }
            t += 60;
            w = tz.wall(t);
            if w.minute == 0 {
                continue 'wrap;
            }
        }
        return Some(t);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The CronJob controller's arithmetic

/// What upstream's `mostRecentScheduleTime` finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MostRecent {
    /// The instant schedules are counted from: `status.lastScheduleTime`, else `metadata.creationTimestamp`,
    /// moved up to `now - startingDeadlineSeconds` when that is later.
    pub earliest: Millis,
    /// The most recent schedule time at or before `now` after `earliest`, if any: the one a Job is due for.
    pub most_recent: Option<Millis>,
    /// Upstream's estimate of the start times missed since `earliest` (`numberOfMissedSchedules`): 0 when it
    /// reports none (also when only one was due), more than [`TOO_MANY_MISSED`] when it warns.
    pub missed: u64,
    /// The first schedule time after `now`.
    pub next: Option<Millis>,
}

impl MostRecent {
    /// Whether upstream warns `TooManyMissedTimes`.
    pub fn too_many_missed(&self) -> bool {
        self.missed > TOO_MANY_MISSED
    }
}

/// kube-controller-manager's `formatSchedule`: the text it parses a CronJob's schedule from. A schedule naming
/// `TZ` is kept as written (upstream then warns `UnsupportedSchedule`); otherwise a `spec.timeZone` that loads is
/// put in front as `TZ=<zone> `, and one that does not is left out (the schedule runs in the controller's zone,
/// UTC). Parse it with [`Schedule::parse`] and compute it in [`TimeZone::utc`]: the zone travels with it.
pub fn format_schedule(schedule: &str, time_zone: Option<&str>) -> String {
    match time_zone {
        Some(tz) if !schedule.contains("TZ") && TimeZone::named(tz).is_ok() => format!("TZ={tz} {schedule}"),
        _ => schedule.to_string(),
    }
}

/// kube-controller-manager's `mostRecentScheduleTime`: from `earliest` (the CronJob's `status.lastScheduleTime`,
/// else its `creationTimestamp`), clamped by `startingDeadlineSeconds` when given (upstream's
/// `includeStartingDeadlineSeconds`), the schedule read in `tz` unless it names its own. An error, upstream's, when
/// the first two schedule times after `earliest` are less than a second apart or do not exist (`0 0 30 2 *`).
pub fn most_recent_schedule_time(
    schedule: &Schedule,
    tz: &TimeZone,
    earliest: Millis,
    now: Millis,
    starting_deadline_seconds: Option<i64>,
) -> Result<MostRecent, String> {
    let now_ms = unix_ms(now);
    let mut earliest = unix_ms(earliest);
    if let Some(secs) = starting_deadline_seconds {
        earliest = earliest.max(now_ms.saturating_sub(secs.saturating_mul(1000)));
    }
    let next = schedule.next_after(tz, now);
    let found = |most_recent: Option<i64>, missed| MostRecent {
        earliest: sim_ms(earliest).unwrap_or(0),
        most_recent: most_recent.and_then(sim_ms),
        missed,
        next,
    };
    let too_close = || "time difference between two schedules is less than 1 second".to_string();
    let t1 = schedule.next_ms(tz, earliest).ok_or_else(too_close)?;
    if now_ms < t1 {
        return Ok(found(None, 0));
    }
    let t2 = schedule.next_ms(tz, t1).ok_or_else(too_close)?;
    if now_ms < t2 {
        return Ok(found(Some(t1), 0));
    }
    // Go's Duration.Round(time.Second), then whole seconds.
    let interval = (t2 - t1 + 500) / 1000;
    if interval < 1 {
        return Err(too_close());
    }
    // A rough count: how many first intervals fit between t1 and now; then the walk starts two intervals back.
    let missed = (now_ms - t1) / 1000 / interval + 1;
    let from = t1.saturating_add((missed - 2).saturating_mul(interval).saturating_mul(1000));
    Ok(found(schedule.last_until(tz, from, now_ms), missed as u64))
}

/// kube-controller-manager's `nextScheduleTimeDuration`: how long after `now` the controller looks at the CronJob
/// again, the next schedule time after the most recent one (or after `earliest` when none was missed, or after
/// `now`) plus [`NEXT_SCHEDULE_DELTA`]. `None` when the schedule has no next time (upstream would requeue at once,
/// with a negative duration: kubeloop leaves that to its caller).
pub fn next_schedule_time_duration(
    schedule: &Schedule,
    tz: &TimeZone,
    earliest: Millis,
    now: Millis,
) -> Option<Millis> {
    let base = match most_recent_schedule_time(schedule, tz, earliest, now, None) {
        Err(_) => now,
        Ok(MostRecent { most_recent: Some(t), .. }) => t,
        Ok(m) if m.missed == 0 => m.earliest,
        Ok(_) => now,
    };
    let next = schedule.next_after(tz, base)?;
    Some((next + NEXT_SCHEDULE_DELTA).saturating_sub(now))
}

// ---------------------------------------------------------------------------------------------------------------
// The API server's validation

/// kube-apiserver's `validateScheduleFormat` of `spec.schedule` (a non-empty one; an empty one is `Required value`):
/// robfig's parse error, and a schedule naming `TZ` refused unless it already did before the update
/// (`allow_tz_in_schedule`) and no `spec.timeZone` is set. Messages as the API server words them
/// (`spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`).
pub fn validate_schedule(schedule: &str, allow_tz_in_schedule: bool, time_zone: Option<&str>) -> Vec<String> {
    if schedule.is_empty() {
        return vec!["spec.schedule: Required value".into()];
    }
    let invalid = |detail: &str| format!("spec.schedule: Invalid value: {}: {detail}", go_quote(&echo(schedule)));
    let mut errs = Vec::new();
    if let Err(e) = Schedule::parse(schedule) {
        errs.push(invalid(&e));
    }
    if schedule.contains("TZ") {
        if !allow_tz_in_schedule {
            errs.push(invalid("cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
        } else if time_zone.is_some() {
            errs.push(invalid("cannot use both timeZone field and TZ or CRON_TZ in schedule"));
        }
    }
    errs
}

/// Whether a name follows IANA's naming rules as kube-apiserver checks them: parts of 1 to 14 letters, digits,
/// `.`, `-`, `_` or `+` (the digits and `+` of legacy names tolerated), none `.` or `..` or starting with `-`.
fn iana_name(name: &str) -> bool {
    name.split('/').all(|p| {
        (1..=14).contains(&p.len())
            && p != "."
            && p != ".."
            && !p.starts_with('-')
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b))
    })
}

/// kube-apiserver's `validateTimeZone` of `spec.timeZone` (upstream validates it on create and when an update
/// changes it): a name the tz database could hold, not `Local`, and one that loads, among the zones kubeloop knows
/// (see [`unknown_zone_hint`] for what to print under an unknown one).
pub fn validate_time_zone(time_zone: Option<&str>) -> Vec<String> {
    let Some(tz) = time_zone else { return Vec::new() };
    let invalid = |detail: &str| format!("spec.timeZone: Invalid value: {}: {detail}", go_quote(&echo(tz)));
    if tz.is_empty() {
        return vec![invalid("timeZone must be nil or non-empty string")];
    }
    if !iana_name(tz) {
        return vec![invalid(&format!("unknown time zone {}", echo(tz)))];
    }
    let mut errs = Vec::new();
    if tz.eq_ignore_ascii_case("Local") {
        errs.push(invalid("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
    }
    if let Err(e) = TimeZone::named(tz) {
        errs.push(invalid(&e));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{parse_rfc3339, rfc3339, HOUR, MINUTE, SECOND};

    /// A simulated instant from its RFC 3339 UTC form.
    fn at(s: &str) -> Millis {
        parse_rfc3339(s).unwrap_or_else(|| panic!("bad time {s}"))
    }

    fn zone(name: &str) -> TimeZone {
        TimeZone::named(name).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The successive activations after `after` of `spec` in `tz`, as RFC 3339 UTC times.
    fn chain(spec: &str, tz: &str, after: &str, n: usize) -> Vec<String> {
        let s = Schedule::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let tz = zone(tz);
        let mut t = at(after);
        let mut out = Vec::new();
        for _ in 0..n {
            match s.next_after(&tz, t) {
                Some(next) => {
                    assert!(next > t);
                    out.push(rfc3339(next));
                    t = next;
                }
                None => out.push("none".into()),
            }
        }
        out
    }

    #[test]
    fn the_simulated_epoch_is_the_instant_time_0_is_printed_as() {
        assert_eq!(SIM_EPOCH.unix(), EPOCH_UNIX_SECONDS);
        assert_eq!(DateTime::from_millis(0), SIM_EPOCH);
        assert_eq!(format!("{SIM_EPOCH}Z"), rfc3339(0));
        assert_eq!(SIM_EPOCH.to_millis(), Some(0));
        assert_eq!(SIM_EPOCH.weekday(), 4, "2026-01-01 is a Thursday");
        let before = DateTime { year: 2025, month: 12, day: 31, hour: 23, minute: 59, second: 59 };
        assert_eq!(before.to_millis(), None);
        let t = at("2026-03-08T07:30:15Z") + 999;
        assert_eq!(DateTime::from_millis(t).to_string(), "2026-03-08T07:30:15");
        assert_eq!(DateTime::from_millis(t).to_millis(), Some(t - 999));
    }

    #[test]
    fn civil_days_round_trip_and_normalise_like_go() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for z in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        // Day 32 of January is February 1st; month 13 is January of the next year.
        assert_eq!(days_from_civil(2026, 1, 32), days_from_civil(2026, 2, 1));
        let d = DateTime { year: 2026, month: 13, day: 1, hour: 24, minute: 0, second: 0 };
        assert_eq!(DateTime::from_unix(d.unix()).to_string(), "2027-01-02T00:00:00");
        assert_eq!(month_days(2028, 2), 29);
        assert_eq!(month_days(2100, 2), 28);
        assert_eq!(month_days(2026, 12), 31);
        // Far instants are clamped, not overflowed.
        assert!(DateTime::from_unix(i64::MAX).year > 1_000_000_000);
        assert!(DateTime::from_unix(i64::MIN).year < -1_000_000_000);
    }

    #[test]
    fn standard_specs_and_descriptors_parse() {
        for spec in [
            "* * * * *",
            "? ? ? ? ?",
            "*/15 * * * *",
            "0 9 * * MON-FRI",
            "0 0 1,15 * 3",
            "0 0 * jan-Mar sun",
            "5/15 * * * *",
            "0-59/30 0-23 1-31 1-12 0-6",
            "*/1 * * * *",
            "+5 * * * *",
            "1,,2 * * * *",
            "*-5 * * * *",
            "  0\t0 * * *  ",
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
            "@every 90m",
            "@every 1h30m",
            "TZ=America/New_York 0 0 * * *",
            "CRON_TZ=UTC @daily",
            "TZ= 0 0 * * *",
        ] {
            assert!(Schedule::parse(spec).is_ok(), "{spec}: {:?}", Schedule::parse(spec));
        }
        // `*-5` is a star (robfig reads no further), `*/1` keeps the star, `*/2` does not.
        let s = |spec: &str| Schedule::parse(spec).unwrap().kind;
        assert_eq!(s("*-5 * * * *"), s("* * * * *"));
        assert_eq!(s("*/1 * * * *"), s("* * * * *"));
        assert_eq!(s("*/2 * * * *"), s("0-58/2 * * * *"), "a step over 1 drops the star");
        assert_ne!(s("*/1 * * * *"), s("0-59 * * * *"), "same minutes, but only the star keeps its bit");
        assert_eq!(s("0 0 * * *"), s("@daily"));
        assert_eq!(s("0 0 1 1 *"), s("@yearly"));
        assert_eq!(s("0 0 * * 0"), s("@weekly"));
        assert_eq!(s("0 0 1 * *"), s("@monthly"));
        assert_eq!(s("0 * * * *"), s("@hourly"));
        assert_eq!(s("0 0 * JAN-dec SuN"), s("0 0 * 1-12 0"));
        // @every: at least a second, whole seconds.
        assert_eq!(s("@every 90m"), Kind::Every(5_400_000));
        assert_eq!(s("@every 1.5s"), Kind::Every(1000));
        assert_eq!(s("@every 500ms"), Kind::Every(1000));
        assert_eq!(s("@every -5m"), Kind::Every(1000));
        assert_eq!(Schedule::parse("TZ=Asia/Tokyo @hourly").unwrap().zone().map(TimeZone::name), Some("Asia/Tokyo"));
        assert_eq!(Schedule::parse("TZ= 0 0 * * *").unwrap().zone().map(TimeZone::name), Some("UTC"));
    }

    #[test]
    fn bad_specs_are_refused_with_robfigs_messages() {
        let cases = [
            ("", "empty spec string"),
            ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
            ("   ", "expected exactly 5 fields, found 0: []"),
            ("0 0 0 * * *", "expected exactly 5 fields, found 6: [0 0 0 * * *]"),
            (" @daily", "expected exactly 5 fields, found 1: [@daily]"),
            ("0-70 * * * *", "end of range (70) above maximum (59): 0-70"),
            ("60 0 * * *", "end of range (60) above maximum (59): 60"),
            ("0 24 * * *", "end of range (24) above maximum (23): 24"),
            ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("0 0 32 * *", "end of range (32) above maximum (31): 32"),
            ("0 0 * 0 *", "beginning of range (0) below minimum (1): 0"),
            ("0 0 * 13 *", "end of range (13) above maximum (12): 13"),
            ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
            ("0 0 * * 5-7", "end of range (7) above maximum (6): 5-7"),
            ("0 0 * * XYZ", "failed to parse int from XYZ: strconv.Atoi: parsing \"XYZ\": invalid syntax"),
            ("0 0 * * sunday", "failed to parse int from sunday: strconv.Atoi: parsing \"sunday\": invalid syntax"),
            ("0 0 * mon *", "failed to parse int from mon: strconv.Atoi: parsing \"mon\": invalid syntax"),
            ("0 0 jan * *", "failed to parse int from jan: strconv.Atoi: parsing \"jan\": invalid syntax"),
            ("1- * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"),
            ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
            ("*/0 * * * *", "step of range should be a positive number: */0"),
            ("15/0 * * * *", "step of range should be a positive number: 15/0"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("x-2-3 * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"),
            ("*/2/3 * * * *", "too many slashes: */2/3"),
            ("*/-5 * * * *", "negative number (-5) not allowed: -5"),
            ("*/x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"),
            (
                "99999999999999999999 * * * *",
                "failed to parse int from 99999999999999999999: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
            ),
            (
                "9223372036854775808 * * * *",
                "failed to parse int from 9223372036854775808: strconv.Atoi: parsing \"9223372036854775808\": value out of range",
            ),
            ("9223372036854775807 * * * *", "end of range (9223372036854775807) above maximum (59): 9223372036854775807"),
            ("*/-9223372036854775808 * * * *", "negative number (-9223372036854775808) not allowed: -9223372036854775808"),
            ("0 0 ++1 * *", "failed to parse int from ++1: strconv.Atoi: parsing \"++1\": invalid syntax"),
            ("@daily ", "unrecognized descriptor: @daily "),
            ("@Daily", "unrecognized descriptor: @Daily"),
            ("@every", "unrecognized descriptor: @every"),
            ("@every x", "failed to parse duration @every x: time: invalid duration \"x\""),
            ("@every 10", "failed to parse duration @every 10: time: missing unit in duration \"10\""),
            ("TZ=Foo/Bar * * * * *", "provided bad location Foo/Bar: unknown time zone Foo/Bar"),
            ("CRON_TZ=Mars 0 0 * * *", "provided bad location Mars: unknown time zone Mars"),
            ("TZ=../x 0 0 * * *", "provided bad location ../x: time: invalid location name"),
            ("TZ=UTC", "runtime error: slice bounds out of range [:-1]"),
            ("TZ=UTC ", "expected exactly 5 fields, found 0: []"),
        ];
        for (spec, want) in cases {
            assert_eq!(Schedule::parse(spec), Err(want.to_string()), "{spec:?}");
        }
        // User text is repeated bounded.
        let long = format!("{} * * *", "1,".repeat(100_000));
        assert!(Schedule::parse(&long).unwrap_err().len() < 300);
        let long = format!("{}x * * * *", "1".repeat(100_000));
        assert!(Schedule::parse(&long).unwrap_err().len() < 600);
    }

    #[test]
    fn next_finds_the_first_activation_strictly_after() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "*/15 * * * *",
                "2026-01-01T00:00:00Z",
                &["2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:00:00Z"],
            ),
            ("*/15 * * * *", "2026-01-01T23:50:00Z", &["2026-01-02T00:00:00Z"]),
            ("5/15 * * * *", "2026-01-01T00:00:00Z", &["2026-01-01T00:05:00Z", "2026-01-01T00:20:00Z"]),
            ("*/61 * * * *", "2026-01-01T00:00:00Z", &["2026-01-01T01:00:00Z"]),
            // Sunday midnight (2026-01-01 is a Thursday).
            ("0 0 * * 0", "2026-01-01T00:00:00Z", &["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]),
            ("0 9 * * MON-FRI", "2026-01-02T09:00:00Z", &["2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z"]),
            // Both days restricted: the 1st, the 15th, and every Wednesday.
            (
                "0 0 1,15 * 3",
                "2026-01-01T00:00:00Z",
                &[
                    "2026-01-07T00:00:00Z",
                    "2026-01-14T00:00:00Z",
                    "2026-01-15T00:00:00Z",
                    "2026-01-21T00:00:00Z",
                    "2026-01-28T00:00:00Z",
                    "2026-02-01T00:00:00Z",
                    "2026-02-04T00:00:00Z",
                ],
            ),
            // One day field a star: both must match.
            ("0 0 1,15 * *", "2026-01-01T00:00:00Z", &["2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z"]),
            ("0 0 1,15 * ?", "2026-01-01T00:00:00Z", &["2026-01-15T00:00:00Z"]),
            ("0 0 * * 3", "2026-01-01T00:00:00Z", &["2026-01-07T00:00:00Z", "2026-01-14T00:00:00Z"]),
            // A step over 1 drops the star (robfig's #70): days 1, 11, 21, 31 or Mondays; `*/1` stays a star.
            ("0 0 */10 * 1", "2026-01-05T00:00:00Z", &["2026-01-11T00:00:00Z", "2026-01-12T00:00:00Z"]),
            ("0 0 */1 * 1", "2026-01-05T00:00:00Z", &["2026-01-12T00:00:00Z"]),
            ("@hourly", "2026-01-01T00:00:00Z", &["2026-01-01T01:00:00Z"]),
            ("@daily", "2026-01-01T00:00:00Z", &["2026-01-02T00:00:00Z"]),
            ("@weekly", "2026-01-01T00:00:00Z", &["2026-01-04T00:00:00Z"]),
            ("@monthly", "2026-01-01T00:00:00Z", &["2026-02-01T00:00:00Z"]),
            ("@yearly", "2026-01-01T00:00:00Z", &["2027-01-01T00:00:00Z"]),
            ("@every 90m", "2026-01-01T00:00:00Z", &["2026-01-01T01:30:00Z", "2026-01-01T03:00:00Z"]),
            // Leap days; no 30th of February, no 31st of April: none within five years.
            ("0 0 29 2 *", "2026-01-01T00:00:00Z", &["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"]),
            ("0 0 30 2 *", "2026-01-01T00:00:00Z", &["none"]),
            ("0 0 31 4 *", "2026-01-01T00:00:00Z", &["none"]),
            ("0 0 31 4 1", "2026-01-01T00:00:00Z", &["2026-04-06T00:00:00Z"]),
            ("59 23 31 12 *", "2026-12-31T23:59:00Z", &["2027-12-31T23:59:00Z"]),
            ("0 0 1 JAN *", "2026-12-31T23:59:59Z", &["2027-01-01T00:00:00Z"]),
            ("30 6-16/4 * * 1-5", "2026-01-02T15:00:00Z", &["2026-01-05T06:30:00Z", "2026-01-05T10:30:00Z"]),
            ("0 0 * Feb Mon", "2026-03-01T00:00:00Z", &["2027-02-01T00:00:00Z"]),
        ];
        for (spec, after, want) in cases {
            assert_eq!(chain(spec, "UTC", after, want.len()), *want, "{spec} after {after}");
        }
        // A field no time matches: none.
        assert_eq!(chain(", * * * *", "UTC", "2026-01-01T00:00:00Z", 1), ["none"]);
    }

    #[test]
    fn next_drops_the_milliseconds_as_robfig_drops_nanoseconds() {
        let tz = TimeZone::utc();
        let quarter = Schedule::parse("*/15 * * * *").unwrap();
        assert_eq!(quarter.next_after(&tz, 15 * MINUTE - 1), Some(15 * MINUTE));
        assert_eq!(quarter.next_after(&tz, 15 * MINUTE), Some(30 * MINUTE));
        let every = Schedule::parse("@every 90m").unwrap();
        assert_eq!(every.next_after(&tz, 500), Some(90 * MINUTE));
        assert_eq!(every.next_after(&tz, 1_999), Some(90 * MINUTE + SECOND));
        // Civil times in UTC, and the schedule's own TZ= zone.
        let daily = Schedule::parse("0 0 * * *").unwrap();
        let after = DateTime { year: 2026, month: 2, day: 28, hour: 12, minute: 0, second: 0 };
        assert_eq!(daily.next(after).map(|d| d.to_string()), Some("2026-03-01T00:00:00".into()));
        let ny = Schedule::parse("TZ=America/New_York 0 0 * * *").unwrap();
        assert_eq!(ny.next(after).map(|d| d.to_string()), Some("2026-03-01T05:00:00".into()));
        // Its own zone wins over the one it is given.
        assert_eq!(ny.next_after(&zone("Asia/Tokyo"), at(&format!("{after}Z"))), Some(at("2026-03-01T05:00:00Z")));
        // The clock's far end: no panic, no wrap.
        assert_eq!(every.next_after(&tz, Millis::MAX), None);
        assert!(daily.next_after(&tz, Millis::MAX - 1).is_none());
        assert!(daily.next_after(&tz, Millis::MAX / 4).is_some());
    }

    /// A UTC civil time from `YYYY-MM-DDTHH:MM`.
    fn civil(s: &str) -> DateTime {
        let n = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap();
        DateTime { year: n(0..4) as i32, month: n(5..7), day: n(8..10), hour: n(11..13), minute: n(14..16), second: 0 }
    }

    /// robfig/cron's own `TestNext` and `TestNextWithTz` vectors (spec_test.go), their seconds field dropped and
    /// their times written in UTC: US rules have not changed since 2007, so 2012's transitions are today's rules'.
    #[test]
    fn robfigs_own_next_vectors() {
        let cases = [
            ("2012-07-09T14:45", "0/15 * * * *", "2012-07-09T15:00"),
            ("2012-07-09T14:59", "0/15 * * * *", "2012-07-09T15:00"),
            ("2012-07-09T15:45", "20-35/15 * * * *", "2012-07-09T16:20"),
            ("2012-07-09T23:46", "*/15 * * * *", "2012-07-10T00:00"),
            ("2012-07-09T23:45", "20-35/15 * * * *", "2012-07-10T00:20"),
            ("2012-07-09T23:35", "20-35/15 1/2 * * *", "2012-07-10T01:20"),
            ("2012-07-09T23:35", "20-35/15 10-12 * * *", "2012-07-10T10:20"),
            ("2012-07-09T23:35", "20-35/15 1/2 */2 * *", "2012-07-11T01:20"),
            ("2012-07-09T23:35", "20-35/15 * 9-20 * *", "2012-07-10T00:20"),
            ("2012-07-09T23:35", "20-35/15 * 9-20 Jul *", "2012-07-10T00:20"),
            ("2012-07-09T23:35", "0 0 9 Apr-Oct ?", "2012-08-09T00:00"),
            ("2012-07-09T23:35", "0 0 */5 Apr,Aug,Oct Mon", "2012-08-01T00:00"),
            ("2012-07-09T23:35", "0 0 */5 Oct Mon", "2012-10-01T00:00"),
            ("2012-07-09T23:35", "0 0 * Feb Mon", "2013-02-04T00:00"),
            ("2012-07-09T23:35", "0 0 * Feb Mon/2", "2013-02-01T00:00"),
            ("2012-12-31T23:59", "* * * * *", "2013-01-01T00:00"),
            ("2012-07-09T23:35", "0 0 29 Feb ?", "2016-02-29T00:00"),
            // New York, spring forward (2am EST -> 3am EDT).
            ("2012-03-11T05:00", "TZ=America/New_York 30 2 11 Mar ?", "2013-03-11T06:30"),
            ("2012-03-11T05:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T06:00"),
            ("2012-03-11T06:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T07:00"),
            ("2012-03-11T07:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T08:00"),
            ("2012-03-11T08:00", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T09:00"),
            ("2012-03-11T05:00", "TZ=America/New_York 0 1 * * ?", "2012-03-11T06:00"),
            ("2012-03-11T06:00", "TZ=America/New_York 0 1 * * ?", "2012-03-12T05:00"),
            ("2012-03-11T05:00", "TZ=America/New_York 0 2 * * ?", "2012-03-12T06:00"),
            // New York, fall back (2am EDT -> 1am EST).
            ("2012-11-04T04:00", "TZ=America/New_York 30 2 04 Nov ?", "2012-11-04T07:30"),
            ("2012-11-04T05:45", "TZ=America/New_York 30 1 04 Nov ?", "2012-11-04T06:30"),
            ("2012-11-04T04:00", "TZ=America/New_York 0 * * * ?", "2012-11-04T05:00"),
            ("2012-11-04T05:00", "TZ=America/New_York 0 * * * ?", "2012-11-04T06:00"),
            ("2012-11-04T06:00", "TZ=America/New_York 0 * * * ?", "2012-11-04T07:00"),
            ("2012-11-04T04:00", "TZ=America/New_York 0 1 * * ?", "2012-11-04T05:00"),
            ("2012-11-04T05:00", "TZ=America/New_York 0 1 * * ?", "2012-11-04T06:00"),
            ("2012-11-04T06:00", "TZ=America/New_York 0 1 * * ?", "2012-11-05T06:00"),
            ("2012-11-04T04:00", "TZ=America/New_York 0 2 * * ?", "2012-11-04T07:00"),
            ("2012-11-04T07:00", "TZ=America/New_York 0 2 * * ?", "2012-11-05T07:00"),
            ("2012-11-04T04:00", "TZ=America/New_York 0 3 * * ?", "2012-11-04T08:00"),
            ("2012-11-04T08:00", "TZ=America/New_York 0 3 * * ?", "2012-11-05T08:00"),
            ("2012-11-04T04:00", "TZ=America/New_York 0 3 3 * ?", "2012-12-03T08:00"),
            // TestNextWithTz: India (+05:30).
            ("2016-01-03T07:39", "TZ=Asia/Kolkata 14 14 * * *", "2016-01-03T08:44"),
            ("2016-01-02T22:39", "TZ=Asia/Kolkata 14 14 * * ?", "2016-01-03T08:44"),
        ];
        for (after, spec, want) in cases {
            let s = Schedule::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(s.next(civil(after)), Some(civil(want)), "{spec} after {after}");
        }
        for spec in ["0 0 30 Feb ?", "0 0 31 Apr ?"] {
            assert_eq!(Schedule::parse(spec).unwrap().next(civil("2012-07-09T23:35")), None, "{spec}");
        }
        // TestActivation's day-of-month / day-of-week cases: whether a time is its own next activation.
        let activates = |time: &str, spec: &str| {
            let t = civil(time);
            Schedule::parse(spec).unwrap().next(DateTime::from_unix(t.unix() - 1)) == Some(t)
        };
        assert!(activates("2012-07-15T00:00", "* * 1,15 * Sun"));
        assert!(activates("2012-06-15T00:00", "* * 1,15 * Sun"));
        assert!(activates("2012-08-01T00:00", "* * 1,15 * Sun"));
        assert!(activates("2012-07-15T00:00", "* * */10 * Sun"));
        assert!(!activates("2012-07-15T00:00", "* * * * Mon"));
        assert!(!activates("2012-07-09T00:00", "* * 1,15 * *"));
        assert!(activates("2012-07-15T00:00", "* * 1,15 * *"));
        assert!(activates("2012-07-15T00:00", "* * */2 * Sun"));
        assert!(activates("2012-07-15T08:30", "30 08 ? Jul Sun"));
        assert!(!activates("2012-07-16T08:30", "30 08 ? Jul Sun"));
        assert!(activates("2012-07-01T00:00", "@monthly"));
        assert!(!activates("2012-07-08T01:00", "@weekly"));
    }

    #[test]
    fn new_york_skips_the_spring_forward_gap_and_repeats_the_fall_back_hour() {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00Z). 02:30 does not happen that day.
        assert_eq!(
            chain("30 2 * * *", "America/New_York", "2026-03-07T07:30:00Z", 2),
            ["2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"]
        );
        assert_eq!(chain("0 2 * * *", "America/New_York", "2026-03-08T05:00:00Z", 1), ["2026-03-09T06:00:00Z"]);
        assert_eq!(chain("30 1 * * *", "America/New_York", "2026-03-07T06:30:00Z", 1), ["2026-03-08T06:30:00Z"]);
        assert_eq!(chain("30 3 * * *", "America/New_York", "2026-03-07T08:30:00Z", 1), ["2026-03-08T07:30:00Z"]);
        // Hourly: 01:00 EST, then 03:00 EDT.
        assert_eq!(
            chain("0 * * * *", "America/New_York", "2026-03-08T05:00:00Z", 3),
            ["2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"]
        );
        // 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00Z). 02:30 happens once, 01:30 twice.
        assert_eq!(
            chain("30 2 * * *", "America/New_York", "2026-10-31T06:30:00Z", 2),
            ["2026-11-01T07:30:00Z", "2026-11-02T07:30:00Z"]
        );
        assert_eq!(
            chain("30 1 * * *", "America/New_York", "2026-10-31T05:30:00Z", 3),
            ["2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z"]
        );
        assert_eq!(
            chain("0 * * * *", "America/New_York", "2026-11-01T04:00:00Z", 3),
            ["2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"]
        );
        // A date schedule on the transition days.
        assert_eq!(chain("30 2 8 3 *", "America/New_York", "2026-01-01T00:00:00Z", 1), ["2027-03-08T07:30:00Z"]);
        assert_eq!(chain("0 0 1 11 *", "America/New_York", "2026-01-01T00:00:00Z", 1), ["2026-11-01T04:00:00Z"]);
    }

    #[test]
    fn other_zones_schedule_in_their_wall_clock_time() {
        // Sydney: daylight time (+11) in January, standard (+10) in July.
        assert_eq!(chain("0 9 * * *", "Australia/Sydney", "2026-01-14T12:00:00Z", 1), ["2026-01-14T22:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Australia/Sydney", "2026-07-14T12:00:00Z", 1), ["2026-07-14T23:00:00Z"]);
        // 2026-04-05 03:00 AEDT becomes 02:00 AEST: 02:30 twice. 2026-10-04 02:00 AEST becomes 03:00: none.
        assert_eq!(
            chain("30 2 * * *", "Australia/Sydney", "2026-04-03T15:30:00Z", 3),
            ["2026-04-04T15:30:00Z", "2026-04-04T16:30:00Z", "2026-04-05T16:30:00Z"]
        );
        assert_eq!(chain("30 2 * * *", "Australia/Sydney", "2026-10-02T16:30:00Z", 1), ["2026-10-04T15:30:00Z"]);
        // Etc/GMT+5 is five hours behind UTC, Etc/GMT-14 fourteen ahead.
        assert_eq!(chain("0 9 * * *", "Etc/GMT+5", "2026-01-01T00:00:00Z", 1), ["2026-01-01T14:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Etc/GMT-14", "2026-01-01T00:00:00Z", 1), ["2026-01-01T19:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Asia/Kolkata", "2026-01-01T00:00:00Z", 1), ["2026-01-01T03:30:00Z"]);
        assert_eq!(chain("0 9 * * *", "Europe/London", "2026-06-01T00:00:00Z", 1), ["2026-06-01T08:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Europe/Dublin", "2026-06-01T00:00:00Z", 1), ["2026-06-01T08:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Europe/Dublin", "2026-12-01T00:00:00Z", 1), ["2026-12-01T09:00:00Z"]);
        assert_eq!(chain("0 9 * * *", "Pacific/Auckland", "2026-01-01T00:00:00Z", 1), ["2026-01-01T20:00:00Z"]);
        // The day of week is the zone's: Monday 00:30 in Tokyo is Sunday in UTC.
        assert_eq!(chain("30 0 * * MON", "Asia/Tokyo", "2026-01-01T00:00:00Z", 1), ["2026-01-04T15:30:00Z"]);
        // Cairo springs forward at midnight (the last Friday of April: 2026-04-24). robfig's day search lands on
        // 01:00, steps back an hour into the day before and so never matches that Friday: the day is skipped, as
        // upstream skips it (Go's time.Date moves a midnight that does not exist forward, to 01:00 EEST).
        assert_eq!(chain("15 1 24 4 *", "Africa/Cairo", "2026-04-01T00:00:00Z", 1), ["2027-04-23T23:15:00Z"]);
        // A daily schedule is reached by hours, not days, and does run that day.
        assert_eq!(
            chain("15 1 * * *", "Africa/Cairo", "2026-04-23T00:00:00Z", 2),
            ["2026-04-23T22:15:00Z", "2026-04-24T22:15:00Z"]
        );
    }

    #[test]
    fn time_zones_load_by_name_with_gos_errors() {
        for name in ["UTC", "", "Local", "Etc/UTC", "GMT", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0"] {
            assert_eq!(zone(name).offset_at(at("2026-06-01T00:00:00Z")), 0, "{name}");
        }
        assert_eq!(zone("").name(), "UTC");
        assert_eq!(zone("Etc/GMT+5").offset_at(0), -5 * 3600);
        assert_eq!(zone("Etc/GMT+12").offset_at(0), -12 * 3600);
        assert_eq!(zone("Etc/GMT-14").offset_at(0), 14 * 3600);
        assert_eq!(zone("Asia/Kolkata").offset_at(0), 19_800);
        assert_eq!(zone("Australia/Adelaide").offset_at(0), 37_800);
        for bad in ["Etc/GMT+13", "Etc/GMT-15", "Etc/GMT+05", "Etc/GMT++5", "Etc/GMT+", "Etc/GMT5", "utc", "Foo/Bar"] {
            assert_eq!(TimeZone::named(bad), Err(format!("unknown time zone {bad}")), "{bad}");
        }
        assert_eq!(TimeZone::named("/etc/passwd"), Err("time: invalid location name".into()));
        assert_eq!(TimeZone::named("Europe/..Paris"), Err("time: invalid location name".into()));
        for name in zone_names() {
            let tz = zone(name);
            assert!(tz.dst.is_some() || !ZONES.iter().any(|(n, r)| *n == name && r.contains(',')), "{name}");
        }
        let ny = zone("America/New_York");
        assert_eq!(ny.offset_at(at("2026-03-08T06:59:59Z")), -5 * 3600);
        assert_eq!(ny.offset_at(at("2026-03-08T07:00:00Z")), -4 * 3600);
        assert_eq!(ny.offset_at(at("2026-11-01T05:59:59Z")), -4 * 3600);
        assert_eq!(ny.offset_at(at("2026-11-01T06:00:00Z")), -5 * 3600);
        assert_eq!(ny.local(at("2026-03-08T07:30:00Z")).to_string(), "2026-03-08T03:30:00");
        assert_eq!(ny.rfc3339(at("2026-03-08T07:30:00Z")), "2026-03-08T03:30:00-04:00");
        assert_eq!(zone("Asia/Kolkata").rfc3339(0), "2026-01-01T05:30:00+05:30");
        assert_eq!(TimeZone::utc().rfc3339(0), "2026-01-01T00:00:00Z");
        // Go's time.Date: a wall time in the gap lands an hour earlier; in the repeated hour, the first one.
        let u = |s: &str| at(s) as i64 / 1000 + EPOCH_UNIX_SECONDS;
        assert_eq!(ny.date(2026, 3, 8, 2, 30, 0), u("2026-03-08T06:30:00Z"));
        assert_eq!(ny.date(2026, 11, 1, 1, 30, 0), u("2026-11-01T05:30:00Z"));
        assert_eq!(ny.date(2026, 3, 39, 0, 0, 0), u("2026-04-08T04:00:00Z"));
        // The transitions of the southern hemisphere, and a rule at 24:00 (Cairo's end of summer time).
        let sydney = zone("Australia/Sydney");
        assert_eq!(sydney.offset_at(at("2026-04-04T15:59:59Z")), 11 * 3600);
        assert_eq!(sydney.offset_at(at("2026-04-04T16:00:00Z")), 10 * 3600);
        assert_eq!(sydney.offset_at(at("2026-10-03T15:59:59Z")), 10 * 3600);
        assert_eq!(sydney.offset_at(at("2026-10-03T16:00:00Z")), 11 * 3600);
        let cairo = zone("Africa/Cairo");
        assert_eq!(cairo.offset_at(at("2026-10-29T20:59:59Z")), 3 * 3600);
        assert_eq!(cairo.offset_at(at("2026-10-29T21:00:00Z")), 2 * 3600);
    }

    #[test]
    fn posix_rules_parse_or_are_refused() {
        assert_eq!(parse_posix_tz("EST5"), Some((-18_000, None)));
        assert_eq!(parse_posix_tz("<-03>3"), Some((-10_800, None)));
        assert_eq!(parse_posix_tz("<+0545>-5:45"), Some((20_700, None)));
        let (std, dst) = parse_posix_tz("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(std, -18_000);
        let dst = dst.unwrap();
        assert_eq!(dst.offset, -14_400);
        assert_eq!(dst.start, Rule { month: 3, week: 2, weekday: 0, time: 7200 });
        assert_eq!(dst.end, Rule { month: 11, week: 1, weekday: 0, time: 7200 });
        let (_, dst) = parse_posix_tz("EET-2EEST,M4.5.5/0,M10.5.4/24").unwrap();
        assert_eq!(dst.unwrap().end.time, 24 * 3600);
        let (_, dst) = parse_posix_tz("XXX3YYY,M3.2.0/-1,M11.1.0").unwrap();
        assert_eq!(dst.unwrap().start.time, -3600);
        for bad in
            ["", "E5", "EST", "EST5EDT", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,J60,M11.1.0", "<EST5"]
        {
            assert_eq!(parse_posix_tz(bad), None, "{bad}");
        }
    }

    #[test]
    fn most_recent_schedule_time_follows_the_controller() {
        let hourly = Schedule::parse("0 * * * *").unwrap();
        let utc = TimeZone::utc();
        let mrst = |s: &Schedule, earliest, now, sds| most_recent_schedule_time(s, &utc, earliest, now, sds);
        // Nothing due yet.
        assert_eq!(
            mrst(&hourly, 0, 30 * MINUTE, None),
            Ok(MostRecent { earliest: 0, most_recent: None, missed: 0, next: Some(HOUR) })
        );
        // One due: upstream reports it with none missed.
        assert_eq!(
            mrst(&hourly, 0, HOUR + 30 * SECOND, None),
            Ok(MostRecent { earliest: 0, most_recent: Some(HOUR), missed: 0, next: Some(2 * HOUR) })
        );
        // Five missed (01:00 ... 05:00): the most recent is 05:00.
        let m = mrst(&hourly, 0, 5 * HOUR + 30 * MINUTE, None).unwrap();
        assert_eq!((m.most_recent, m.missed, m.too_many_missed()), (Some(5 * HOUR), 5, false));
        // At the very instant of a schedule time, it counts.
        assert_eq!(mrst(&hourly, 0, 5 * HOUR, None).unwrap().most_recent, Some(5 * HOUR));
        // 100 missed is not too many; 101 is (and the most recent is still found).
        let m = mrst(&hourly, 0, 100 * HOUR + 59 * MINUTE, None).unwrap();
        assert_eq!((m.most_recent, m.missed, m.too_many_missed()), (Some(100 * HOUR), 100, false));
        let m = mrst(&hourly, 0, 101 * HOUR, None).unwrap();
        assert_eq!((m.most_recent, m.missed, m.too_many_missed()), (Some(101 * HOUR), 101, true));
        let m = mrst(&hourly, 0, 200 * HOUR + 30 * MINUTE, None).unwrap();
        assert_eq!((m.most_recent, m.missed, m.too_many_missed()), (Some(200 * HOUR), 200, true));
        // startingDeadlineSeconds moves `earliest` up to now - deadline: an hour back sees only 200:00 ...
        let now = 200 * HOUR + 30 * MINUTE;
        assert_eq!(
            mrst(&hourly, 0, now, Some(3600)),
            Ok(MostRecent { earliest: now - HOUR, most_recent: Some(200 * HOUR), missed: 0, next: Some(201 * HOUR) })
        );
        // ... ten seconds back sees none; a deadline before `earliest` changes nothing.
        assert_eq!(mrst(&hourly, 0, now, Some(10)).unwrap().most_recent, None);
        assert_eq!(mrst(&hourly, 0, now, Some(1_000_000_000)), mrst(&hourly, 0, now, None));
        assert_eq!(mrst(&hourly, 0, now, Some(i64::MAX)), mrst(&hourly, 0, now, None));
        // A schedule with no two times: upstream's error.
        let never = Schedule::parse("0 0 30 2 *").unwrap();
        assert_eq!(
            mrst(&never, 0, HOUR, None),
            Err("time difference between two schedules is less than 1 second".into())
        );
        // @every: six activations in ten hours, every 90 minutes.
        let every = Schedule::parse("@every 90m").unwrap();
        let m = mrst(&every, 0, 10 * HOUR, None).unwrap();
        assert_eq!((m.most_recent, m.missed), (Some(9 * HOUR), 6));
        // An uneven schedule (upstream's own example): Friday 17:00 to Monday noon, 06:30 and 10:30 due.
        let uneven = Schedule::parse("30 6-16/4 * * 1-5").unwrap();
        let m = mrst(&uneven, at("2026-01-02T17:00:00Z"), at("2026-01-05T12:00:00Z"), None).unwrap();
        assert_eq!((m.most_recent, m.missed), (Some(at("2026-01-05T10:30:00Z")), 2));
        assert_eq!(m.next, Some(at("2026-01-05T14:30:00Z")));
        // A long first interval, then dense times: January's minutes, found without walking them.
        let january = Schedule::parse("* * * 1 *").unwrap();
        let m = mrst(&january, at("2026-01-31T23:58:30Z"), at("2027-01-20T12:00:30Z"), None).unwrap();
        assert_eq!((m.most_recent, m.missed), (Some(at("2027-01-20T12:00:00Z")), 2));
        // In a zone: daily at 02:30 New York time over the spring-forward day.
        let ny = zone("America/New_York");
        let daily = Schedule::parse("30 2 * * *").unwrap();
        let m = most_recent_schedule_time(&daily, &ny, at("2026-03-07T07:30:00Z"), at("2026-03-09T12:00:00Z"), None)
            .unwrap();
        assert_eq!(m.most_recent, Some(at("2026-03-09T06:30:00Z")));
    }

    #[test]
    fn the_controller_parses_the_schedule_with_its_time_zone_in_front() {
        assert_eq!(format_schedule("0 9 * * *", None), "0 9 * * *");
        assert_eq!(format_schedule("0 9 * * *", Some("Europe/Paris")), "TZ=Europe/Paris 0 9 * * *");
        assert_eq!(format_schedule("0 9 * * *", Some("Mars/Olympus")), "0 9 * * *");
        assert_eq!(format_schedule("CRON_TZ=UTC 0 9 * * *", Some("Europe/Paris")), "CRON_TZ=UTC 0 9 * * *");
        let s = Schedule::parse(&format_schedule("0 9 * * *", Some("Europe/Paris"))).unwrap();
        assert_eq!(s.next_after(&TimeZone::utc(), 0), Some(at("2026-01-01T08:00:00Z")));
    }

    #[test]
    fn the_controller_requeues_after_the_next_schedule_time_plus_100ms() {
        let hourly = Schedule::parse("0 * * * *").unwrap();
        let utc = TimeZone::utc();
        let ns = |now| next_schedule_time_duration(&hourly, &utc, 0, now);
        assert_eq!(ns(30 * MINUTE), Some(30 * MINUTE + 100));
        assert_eq!(ns(HOUR + 30 * SECOND), Some(59 * MINUTE + 30 * SECOND + 100));
        assert_eq!(ns(5 * HOUR + 30 * MINUTE), Some(30 * MINUTE + 100));
        assert_eq!(ns(5 * HOUR), Some(HOUR + 100));
        let never = Schedule::parse("0 0 30 2 *").unwrap();
        assert_eq!(next_schedule_time_duration(&never, &utc, 0, HOUR), None);
        let every = Schedule::parse("@every 90m").unwrap();
        assert_eq!(next_schedule_time_duration(&every, &utc, 0, 10 * HOUR), Some(30 * MINUTE + 100));
    }

    #[test]
    fn the_api_server_validates_schedule_and_time_zone() {
        assert_eq!(
            validate_schedule("61 * * * *", false, None),
            ["spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"]
        );
        assert_eq!(validate_schedule("", false, None), ["spec.schedule: Required value"]);
        assert!(validate_schedule("*/5 * * * *", false, Some("Europe/Paris")).is_empty());
        assert_eq!(
            validate_schedule("CRON_TZ=UTC * * * * *", false, None),
            ["spec.schedule: Invalid value: \"CRON_TZ=UTC * * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"]
        );
        assert_eq!(
            validate_schedule("TZ=Foo * * * * *", false, None),
            [
                "spec.schedule: Invalid value: \"TZ=Foo * * * * *\": provided bad location Foo: unknown time zone Foo",
                "spec.schedule: Invalid value: \"TZ=Foo * * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ]
        );
        assert!(validate_schedule("TZ=UTC * * * * *", true, None).is_empty());
        assert_eq!(
            validate_schedule("TZ=UTC * * * * *", true, Some("UTC")),
            ["spec.schedule: Invalid value: \"TZ=UTC * * * * *\": cannot use both timeZone field and TZ or CRON_TZ in schedule"]
        );

        assert!(validate_time_zone(None).is_empty());
        assert!(validate_time_zone(Some("Europe/Paris")).is_empty());
        assert!(validate_time_zone(Some("America/Argentina/Buenos_Aires")).is_empty());
        assert!(validate_time_zone(Some("Etc/GMT+5")).is_empty());
        assert_eq!(
            validate_time_zone(Some("Foo/Bar")),
            ["spec.timeZone: Invalid value: \"Foo/Bar\": unknown time zone Foo/Bar"]
        );
        assert_eq!(
            validate_time_zone(Some("")),
            ["spec.timeZone: Invalid value: \"\": timeZone must be nil or non-empty string"]
        );
        let explicit = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
        assert_eq!(validate_time_zone(Some("Local")), [format!("spec.timeZone: Invalid value: \"Local\": {explicit}")]);
        assert_eq!(
            validate_time_zone(Some("local")),
            [
                format!("spec.timeZone: Invalid value: \"local\": {explicit}"),
                "spec.timeZone: Invalid value: \"local\": unknown time zone local".to_string()
            ]
        );
        for bad in
            ["../etc/passwd", "America//New_York", "America/New_York/", "-x", "Europe/A_Very_Long_Name_Here", "a b"]
        {
            assert_eq!(
                validate_time_zone(Some(bad)),
                [format!("spec.timeZone: Invalid value: {}: unknown time zone {bad}", go_quote(bad))],
                "{bad}"
            );
        }
        // A real IANA zone that kubeloop's table lacks: refused, with a hint saying why.
        assert_eq!(
            validate_time_zone(Some("Africa/Casablanca")),
            ["spec.timeZone: Invalid value: \"Africa/Casablanca\": unknown time zone Africa/Casablanca"]
        );
        let hint = unknown_zone_hint("Africa/Casablanca").unwrap();
        assert!(hint.starts_with("kubeloop knows only some time zones"), "{hint}");
        assert!(hint.contains("America/New_York") && hint.contains("Etc/GMT+N"), "{hint}");
        assert_eq!(unknown_zone_hint("Europe/Paris"), None);
        assert_eq!(unknown_zone_hint("UTC"), None);
        assert_eq!(unknown_zone_hint("not a zone"), None);
    }

    /// The naive walk of upstream's loop, bounded.
    fn walk(s: &Schedule, tz: &TimeZone, from: i64, now: i64) -> Option<Option<i64>> {
        let mut last = None;
        let mut t = from;
        for _ in 0..5_000 {
            match s.next_ms(tz, t) {
                Some(n) if n <= now => {
                    last = Some(n);
                    t = n;
                }
                _ => return Some(last),
            }
        }
        None
    }

    fn spec_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let minute = prop::sample::select(vec!["*", "0", "30", "*/15", "5-10", "59", "0,30", "*/7", "15", "?"]);
        let hour = prop::sample::select(vec!["*", "0", "1", "2", "3", "1-3", "*/5", "23", "0,12", "22-23"]);
        let dom = prop::sample::select(vec!["*", "1", "15", "29", "31", "1,15", "*/10", "?", "28-31", "*/1"]);
        let month = prop::sample::select(vec!["*", "2", "3", "11", "MAR-APR", "*/2", "10,4", "9", "jan"]);
        let dow = prop::sample::select(vec!["*", "0", "MON-FRI", "5", "SAT", "?", "1/3", "sun,wed"]);
        let spec = (minute, hour, dom, month, dow).prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}"));
        prop_oneof![
            4 => spec,
            1 => prop::sample::select(vec!["@hourly", "@daily", "@weekly", "@monthly", "@yearly", "@every 90m", "@every 7s"])
                .prop_map(String::from),
        ]
    }

    const PROP_ZONES: [&str; 9] = [
        "UTC",
        "America/New_York",
        "Europe/London",
        "Australia/Sydney",
        "Europe/Dublin",
        "Asia/Kolkata",
        "Pacific/Auckland",
        "Africa/Cairo",
        "Etc/GMT+5",
    ];

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_errs_without_panic(s in "\\PC{0,40}", t in "[0-9*/,?@a-zA-Z =+-]{0,30}") {
            for text in [&s, &t] {
                let _ = Schedule::parse(text);
                let _ = validate_schedule(text, false, Some(text));
                let _ = validate_time_zone(Some(text));
                let _ = TimeZone::named(text);
                let _ = unknown_zone_hint(text);
            }
        }

        #[test]
        fn next_is_strictly_after_and_matches(spec in spec_strategy(), z in 0..PROP_ZONES.len(), after in 0u64..4 * 366 * 86_400_000) {
            let s = Schedule::parse(&spec).unwrap();
            let tz = zone(PROP_ZONES[z]);
            if let Some(next) = s.next_after(&tz, after) {
                proptest::prop_assert!(next > after);
                if let Kind::Spec(f) = s.kind {
                    let w = tz.local(next);
                    proptest::prop_assert_eq!(next % MINUTE, 0);
                    proptest::prop_assert!(f[MINUTES] & (1 << w.minute) != 0);
                    proptest::prop_assert!(f[HOURS] & (1 << w.hour) != 0);
                    proptest::prop_assert!(f[MONTHS] & (1 << w.month) != 0);
                    proptest::prop_assert!(day_matches(&f, &w));
                    // Nothing is skipped in a whole minute-by-minute check of the next two hours before it.
                    let mut t = next.saturating_sub(2 * HOUR).max(after) / MINUTE * MINUTE + MINUTE;
                    while t < next {
                        let w = tz.local(t);
                        let hit = t > after && f[MINUTES] & (1 << w.minute) != 0 && f[HOURS] & (1 << w.hour) != 0
                            && f[MONTHS] & (1 << w.month) != 0 && day_matches(&f, &w);
                        proptest::prop_assert!(!hit, "{} skipped {} before {}", spec, rfc3339(t), rfc3339(next));
                        t += MINUTE;
                    }
                }
            }
        }

        #[test]
        fn bisection_finds_what_upstreams_walk_finds(spec in spec_strategy(), z in 0..PROP_ZONES.len(),
                from in 0i64..3 * 366 * 86_400_000, span in 0i64..20 * 86_400_000) {
            let s = Schedule::parse(&spec).unwrap();
            let tz = zone(PROP_ZONES[z]);
            let (from, now) = (EPOCH_MS + from, EPOCH_MS + from + span);
            if let Some(walked) = walk(&s, &tz, from, now) {
                proptest::prop_assert_eq!(s.last_until(&tz, from, now), walked);
            }
        }

        #[test]
        fn the_controller_helpers_never_panic(spec in spec_strategy(), z in 0..PROP_ZONES.len(),
                earliest in proptest::num::u64::ANY, now in proptest::num::u64::ANY, sds in proptest::option::of(proptest::num::i64::ANY)) {
            let s = Schedule::parse(&spec).unwrap();
            let tz = zone(PROP_ZONES[z]);
            if let Ok(m) = most_recent_schedule_time(&s, &tz, earliest, now, sds) {
                if let Some(t) = m.most_recent {
                    proptest::prop_assert!(t <= now && t > m.earliest);
                }
            }
            let _ = next_schedule_time_duration(&s, &tz, earliest, now);
        }
    }
}
