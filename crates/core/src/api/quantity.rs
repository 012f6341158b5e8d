//! Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`).
//!
//! A [`Quantity`] keeps the text the user wrote (for display and round-tripping) together with its
//! value in thousandths of the base unit ("milli-units"): `"100m"` CPU is 100, `"1"` is 1000 and
//! `"128Mi"` of memory is `128 * 2^20 * 1000`. Values that are not a whole number of milli-units
//! (`"1n"`, `"0.5m"`) are rounded up (away from zero), like `Quantity.MilliValue()` does.
//!
//! Accepted forms are those of the API server's `ParseQuantity`: plain and decimal numbers (`"2"`, `"0.5"`,
//! `".5"`), with a sign (`"-1"`, `"+3"`: parsing accepts them, validation rejects negative requests),
//! decimal SI suffixes (`n u m k M G T P E`), binary suffixes (`Ki Mi Gi Ti Pi Ei`) and decimal exponents
//! (`"1e3"`, `"5E-1"`). Like upstream, any size is accepted: a binary-suffixed value is capped at 2^63-1 base
//! units (upstream's `maxAllowed`), a decimal one is kept exactly up to about 1.7e35 base units and saturates
//! beyond (upstream keeps arbitrary precision there; no comparison of real requests can tell the
//! difference). [`Quantity::milli`] and [`Quantity::value`] saturate at the `i64` bounds where upstream's
//! `MilliValue()`/`Value()` would overflow, so every sum built from them can be done without wrapping.

use super::Str;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// The API server's message for text that is not shaped like a quantity at all.
pub const ERR_FORMAT: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// The API server's message for a well-shaped quantity with an unknown suffix (e.g. `"1K"`).
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// A Kubernetes resource quantity: an exact value in milli-units plus the original text.
///
/// Equality, ordering and hashing use the value only, so `"1"`, `"1000m"` and `"1.0"` are equal.
#[derive(Clone)]
pub struct Quantity {
    /// The exact value in milli-units, saturated at `±i128::MAX`.
    milli: i128,
    text: Str,
}

impl Quantity {
    /// Parses a quantity as the API server does, e.g. `"250m"`, `"2"`, `"0.5"`, `"128Mi"`, `"1e3"`.
    ///
    /// Errors are the API server's messages: [`ERR_FORMAT`] for malformed text, [`ERR_SUFFIX`] for an
    /// unknown suffix. Negative and huge values parse (see the module documentation).
    pub fn parse(s: &str) -> Result<Quantity, String> {
        let milli = parse_milli(s)?;
        Ok(Quantity { milli, text: Str::from(s) })
    }

    /// A quantity of `milli` thousandths of the base unit, with canonical decimal text:
    /// whole units when divisible by 1000 (`"2"`), else milli-units (`"1500m"`).
    ///
    /// Unlike [`Quantity::parse`], negative values are accepted here.
    pub fn from_milli(milli: i64) -> Quantity {
        let text = if milli % 1000 == 0 { (milli / 1000).to_string() } else { format!("{milli}m") };
        Quantity { milli: i128::from(milli), text: Str::from(text) }
    }

    /// A CPU quantity of `millicores`, with kubectl's canonical text: `"250m"`, `"2"`.
    pub fn from_cpu_millis(millicores: i64) -> Quantity {
        Quantity::from_milli(millicores)
    }

    /// A memory quantity of `bytes`, with canonical text using the largest binary suffix that
    /// divides it exactly (`"512Mi"`, `"4Gi"`, `"1536Mi"`), or plain bytes (`"1000"`).
    ///
    /// Every `i64` of bytes is represented exactly.
    pub fn from_memory_bytes(bytes: i64) -> Quantity {
        const SUFFIXES: [(u32, &str); 6] = [(60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")];
        let text = if bytes == 0 {
            "0".to_string()
        } else {
            SUFFIXES
                .iter()
                .find(|(shift, _)| bytes % (1i64 << shift) == 0)
                .map(|(shift, suffix)| format!("{}{}", bytes / (1i64 << shift), suffix))
                .unwrap_or_else(|| bytes.to_string())
        };
        Quantity { milli: i128::from(bytes) * 1000, text: Str::from(text) }
    }

    /// The value in thousandths of the base unit (millicores for CPU, milli-bytes for memory), like
    /// `Quantity.MilliValue()` but saturated at the `i64` bounds instead of overflowing.
    pub fn milli(&self) -> i64 {
        saturate(self.milli)
    }

    /// The value in whole base units, rounded up (away from zero), like `Quantity.Value()`; saturated at the
    /// `i64` bounds.
    pub fn value(&self) -> i64 {
        let whole = self.milli / 1000;
        saturate(match self.milli % 1000 {
            0 => whole,
            r if r > 0 => whole + 1,
            _ => whole - 1,
        })
    }

    /// True when the value is below zero (parsing accepts a sign; validation rejects negative requests).
    pub fn is_negative(&self) -> bool {
        self.milli < 0
    }

    /// True when the value is zero.
    pub fn is_zero(&self) -> bool {
        self.milli == 0
    }

    /// The text this quantity was parsed from (or its canonical text if constructed from a value).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// How a quantity is written (`resource.Format`): chosen by the suffix it was parsed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `1e3`, `5E-1`.
    DecimalExponent,
    /// `Ki`, `Mi`, ... `Ei`.
    BinarySI,
    /// No suffix, or `n u m k M G T P E`.
    DecimalSI,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        }
    }
}

/// A quantity as upstream's `ParseQuantity` holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoQuantity {
    pub amount: GoAmount,
    /// `s`: the parsed text when upstream reuses it (canonical forms on the fast path only), else empty.
    pub cached: String,
    pub format: Format,
}

/// Where upstream keeps the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoAmount {
    /// The fast path, `int64Amount`: `value x 10^scale`.
    Int { value: i64, scale: i32 },
    /// The `inf.Dec` path (more than 18 digits, or a binary value too large for the fast path): the magnitude
    /// in nano-units as a `big.nat` (64-bit words, least significant first), its sign, scale 9.
    Dec { negative: bool, nanos: Vec<u64> },
}

impl Quantity {
    /// The format upstream gives this quantity from the suffix it was written with.
    pub fn format(&self) -> Format {
        suffix_format(self.text.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')))
    }

    /// The canonical text the API server writes for this quantity once it is stored (`CanonicalizeBytes` of
    /// the value rounded up to milli-units, as `SetDefaults_ResourceList` leaves requests and limits):
    /// `"0.5"` is `"500m"`, `"1000"` is `"1k"`, `"1.5Gi"` is `"1536Mi"`, `"0.5Ki"` is `"512"`.
    pub fn canonical(&self) -> String {
        if self.milli == 0 {
            return "0".into();
        }
        let mut format = self.format();
        if format == Format::BinarySI && (self.milli.abs() < 1_024_000 || self.milli % 1000 != 0) {
            // Below 1024, or not whole: upstream shows it as DecimalSI rather than round it.
            format = Format::DecimalSI;
        }
        if format == Format::BinarySI {
            let (mut amount, mut exp) = (self.milli / 1000, 0usize);
            while amount % 1024 == 0 && exp < 6 {
                amount /= 1024;
                exp += 1;
            }
            let suffix = exp.checked_sub(1).map_or("", |i| BINARY_SUFFIXES[i]);
            return format!("{amount}{suffix}");
        }
        let (mut amount, mut exp) = (self.milli, -3i32);
        while amount % 10 == 0 {
            amount /= 10;
            exp += 1;
        }
        // The exponent becomes a multiple of 3 (Go's remainder keeps the sign of the dividend).
        match exp % 3 {
            1 | -2 => {
                amount *= 10;
                exp -= 1;
            }
            2 | -1 => {
                amount *= 100;
                exp -= 2;
            }
            _ => {}
        }
        let suffix = match format {
            Format::DecimalExponent if exp == 0 => String::new(),
            Format::DecimalExponent => format!("e{exp}"),
            // Upstream's table has no suffix past E (and writes none: a known upstream quirk).
            _ => DECIMAL_SUFFIXES.iter().find(|(_, e)| *e == exp).map_or("", |(x, _)| *x).to_string(),
        };
        format!("{amount}{suffix}")
    }

    /// What upstream's `ParseQuantity` makes of [`Quantity::canonical`]: the value a controller decoded from the
    /// API server holds.
    pub fn go_parsed(&self) -> GoQuantity {
        let text = self.canonical();
        if text == "0" {
            return GoQuantity {
                amount: GoAmount::Int { value: 0, scale: 0 },
                cached: text,
                format: Format::DecimalSI,
            };
        }
        let body = text.strip_prefix('-').unwrap_or(&text);
        let digits = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
        let (num, suffix) = body.split_at(digits);
        let (bin, dec) = interpret_suffix(suffix).unwrap_or((0, 0));
        let format = suffix_format(suffix);
        // The fast path: an int64 of at most 18 digits (binary: a precision estimate), scale at least -9.
        let number = num.parse::<i64>().ok().filter(|_| num.len() <= 18);
        let fast = match (number, bin) {
            (Some(n), 0) if dec >= -9 => Some((n, dec as i32, dec % 3 == 0 && !num.ends_with("000"))),
            // precision = 15 - len(num) - int32(float32(exponent)*3/10) - 1 must not be negative.
            (Some(n), _) if (num.len() as i64) + i64::from(bin) * 3 / 10 < 15 => {
                n.checked_mul(1i64 << bin).map(|v| (v, 0, n & 7 != 0))
            }
            _ => None,
        };
        match fast {
            Some((value, scale, reuse)) => GoQuantity {
                amount: GoAmount::Int { value: if self.milli < 0 { -value } else { value }, scale },
                cached: if reuse && !num.starts_with('0') { text } else { String::new() },
                format,
            },
            None => GoQuantity {
                amount: GoAmount::Dec { negative: self.milli < 0, nanos: nano_words(self.milli.unsigned_abs()) },
                cached: String::new(),
                format,
            },
        }
    }
}

/// `milli x 10^6` as 64-bit words, least significant first (a normalised `big.nat`).
fn nano_words(milli: u128) -> Vec<u64> {
    const MILLION: u128 = 1_000_000;
    let (lo, hi) = (milli & u128::from(u64::MAX), milli >> 64);
    let lo = lo * MILLION;
    let hi = hi * MILLION + (lo >> 64);
    let mut words = vec![lo as u64, hi as u64, (hi >> 64) as u64];
    while words.last() == Some(&0) {
        words.pop();
    }
    words
}

fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// Upstream's `maxAllowed`: a BinarySI quantity is capped at 2^63-1 base units.
const MAX_BINARY_MILLI: i128 = i64::MAX as i128 * 1000;

/// Parses the text into milli-units, rounding any remainder below one milli-unit away from zero and
/// saturating at `±i128::MAX`.
fn parse_milli(s: &str) -> Result<i128, String> {
    let b = s.as_bytes();
    let len = b.len();
    if len == 0 {
        return Err(ERR_FORMAT.to_string());
    }
    let mut pos = 0;
    let mut negative = false;
    match b[0] {
        b'-' => {
            negative = true;
            pos = 1;
        }
        b'+' => pos = 1,
        _ => {}
    }
    let int_start = pos;
    while pos < len && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let int_digits = &b[int_start..pos];
    let mut frac_digits: &[u8] = &[];
    if pos < len && b[pos] == b'.' {
        pos += 1;
        let frac_start = pos;
        while pos < len && b[pos].is_ascii_digit() {
            pos += 1;
        }
        frac_digits = &b[frac_start..pos];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(ERR_FORMAT.to_string());
    }
    let suffix_start = pos;
    while pos < len && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < len && (b[pos] == b'+' || b[pos] == b'-') {
        pos += 1;
    }
    while pos < len && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos != len {
        return Err(ERR_FORMAT.to_string());
    }
    // Every byte before `suffix_start` is ASCII, so this is a char boundary.
    let (bin_exp, dec_exp) = interpret_suffix(&s[suffix_start..]).ok_or(ERR_SUFFIX)?;

    // value = 0.digits * 10^point
    let mut digits: Vec<u8> = int_digits.iter().chain(frac_digits).map(|d| d - b'0').collect();
    let mut point = int_digits.len() as i64;
    let lead = digits.iter().take_while(|&&d| d == 0).count();
    digits.drain(..lead);
    point -= lead as i64;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        return Ok(0); // "0", "-0", "0.000Gi"
    }
    if bin_exp > 0 {
        let factor = 1u128 << bin_exp;
        let mut carry: u128 = 0;
        for d in digits.iter_mut().rev() {
            let t = u128::from(*d) * factor + carry;
            *d = (t % 10) as u8;
            carry = t / 10;
        }
        let mut prefix = Vec::new();
        while carry > 0 {
            prefix.push((carry % 10) as u8);
            carry /= 10;
        }
        prefix.reverse();
        point += prefix.len() as i64;
        prefix.extend_from_slice(&digits);
        digits = prefix;
    }
    point += dec_exp + 3; // in milli-units
                          // The leading digit is non-zero, so the integer part is at least 10^(point-1): past 39 digits it exceeds
                          // i128 and saturates.
    let magnitude = if point > 39 {
        i128::MAX
    } else {
        let int_len = point.max(0) as usize;
        let mut int: i128 = 0;
        for i in 0..int_len {
            let d = i128::from(digits.get(i).copied().unwrap_or(0));
            int = int.saturating_mul(10).saturating_add(d);
        }
        if digits.iter().skip(int_len).any(|&d| d != 0) {
            int = int.saturating_add(1);
        }
        int
    };
    let magnitude = if bin_exp > 0 { magnitude.min(MAX_BINARY_MILLI) } else { magnitude };
    Ok(if negative { -magnitude } else { magnitude })
}

/// The decimal SI suffixes and their powers of ten (upstream's `decSuffixes`; none for 10^0).
const DECIMAL_SUFFIXES: [(&str, i32); 9] =
    [("n", -9), ("u", -6), ("m", -3), ("k", 3), ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18)];

/// The binary suffixes, in order: `BINARY_SUFFIXES[i]` is 1024^(i+1) (upstream's `binSuffixes`).
const BINARY_SUFFIXES: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// Returns (binary exponent, decimal exponent) for a suffix, or `None` if it is unknown.
fn interpret_suffix(suffix: &str) -> Option<(u32, i64)> {
    if suffix.is_empty() {
        return Some((0, 0));
    }
    if let Some((_, e)) = DECIMAL_SUFFIXES.iter().find(|(x, _)| *x == suffix) {
        return Some((0, i64::from(*e)));
    }
    if let Some(i) = BINARY_SUFFIXES.iter().position(|x| *x == suffix) {
        return Some((10 * (i as u32 + 1), 0));
    }
    // Upstream parses the exponent as an int64 (and then truncates it to int32, wrapping); any exponent past
    // ±2^31 already saturates the value, so it is clamped there instead of wrapped.
    let rest = suffix.strip_prefix('e').or_else(|| suffix.strip_prefix('E'))?;
    let exp = rest.parse::<i64>().ok()?;
    Some((0, exp.clamp(i64::from(i32::MIN), i64::from(i32::MAX))))
}

/// The format a suffix gives a quantity (`quantitySuffixer.interpret`): binary suffixes are BinarySI, an exponent
/// (`e3`, `E-1`) DecimalExponent, anything else DecimalSI.
fn suffix_format(suffix: &str) -> Format {
    match interpret_suffix(suffix) {
        Some((bin, _)) if bin > 0 => Format::BinarySI,
        Some(_) if suffix.len() > 1 && (suffix.starts_with('e') || suffix.starts_with('E')) => Format::DecimalExponent,
        _ => Format::DecimalSI,
    }
}

impl Default for Quantity {
    /// Zero, displayed as `"0"`.
    fn default() -> Self {
        Quantity { milli: 0, text: Str::from("0") }
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.milli == other.milli
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.milli.cmp(&other.milli)
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.milli.hash(state);
    }
}

impl fmt::Display for Quantity {
    /// The original text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Quantity({:?} = {}m)", &*self.text, self.milli)
    }
}

impl FromStr for Quantity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

impl Serialize for Quantity {
    /// Serializes as the original text.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    /// Deserializes from a string (`"250m"`) or a number (`2`, `0.5`), as manifests often write
    /// `cpu: 2` unquoted.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QuantityVisitor)
    }
}

struct QuantityVisitor;

impl<'de> Visitor<'de> for QuantityVisitor {
    type Value = Quantity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a quantity such as \"250m\", \"2\" or \"128Mi\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
        Quantity::parse(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
        Quantity::parse(&v.to_string()).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
        Quantity::parse(&v.to_string()).map_err(E::custom)
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Quantity, E> {
        Quantity::parse(&v.to_string()).map_err(E::custom)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Quantity, E> {
        Quantity::parse(&v.to_string()).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
        if !v.is_finite() {
            return Err(E::custom(ERR_FORMAT));
        }
        // Like Go's JSON encoding of a float64 (which kubectl sends): exponent notation for large and tiny
        // values, plain digits otherwise; both are in the accepted syntax.
        let text = if v != 0.0 && !(1e-6..1e21).contains(&v.abs()) { format!("{v:e}") } else { v.to_string() };
        Quantity::parse(&text).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    fn q(text: &str) -> Quantity {
        Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// CanonicalizeBytes of the value rounded to milli-units, as the API server stores requests and limits.
    #[test]
    fn canonical_text_is_the_api_servers() {
        for (text, canonical) in [
            ("0", "0"),
            ("0Mi", "0"),
            ("0.5", "500m"),
            ("250m", "250m"),
            ("2500m", "2500m"),
            ("1000", "1k"),
            ("1000M", "1G"),
            ("1500M", "1500M"),
            ("12345", "12345"),
            ("1n", "1m"),
            ("1e3", "1e3"),
            ("1000e3", "1e6"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1023Ki", "1023Ki"),
            ("131072Ki", "128Mi"),
            ("8Pi", "8Pi"),
            ("-1.5", "-1500m"),
        ] {
            assert_eq!(q(text).canonical(), canonical, "{text}");
        }
    }

    /// ParseQuantity of the canonical text: the int64 fast path, and the text kept only when it is canonical
    /// (decimal: no trailing "000"; binary: a number that is not a multiple of 8); 8Pi takes the inf.Dec path.
    #[test]
    fn go_representation_is_parse_quantitys() {
        let int = |text: &str| match q(text).go_parsed() {
            GoQuantity { amount: GoAmount::Int { value, scale }, cached, format } => (value, scale, cached, format),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(int("0"), (0, 0, "0".into(), Format::DecimalSI));
        assert_eq!(int("250m"), (250, -3, "250m".into(), Format::DecimalSI));
        assert_eq!(int("128Mi"), (134_217_728, 0, String::new(), Format::BinarySI));
        assert_eq!(int("1Gi"), (1 << 30, 0, "1Gi".into(), Format::BinarySI));
        assert_eq!(int("1e9"), (1, 9, "1e9".into(), Format::DecimalExponent));
        assert_eq!(int("1.5Gi"), (1536 << 20, 0, String::new(), Format::BinarySI));
        assert_eq!(
            q("8Pi").go_parsed(),
            GoQuantity {
                amount: GoAmount::Dec { negative: false, nanos: vec![4_611_686_018_427_387_904, 488_281] },
                cached: String::new(),
                format: Format::BinarySI
            }
        );
    }

    use super::*;

    fn m(s: &str) -> i64 {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).milli()
    }

    fn exact(s: &str) -> i128 {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).milli
    }

    const MI: i64 = 1 << 20;

    #[test]
    fn plain_and_decimal_numbers_parse_to_milli_units_rounding_up() {
        assert_eq!(m("0"), 0);
        assert_eq!(m("1"), 1000);
        assert_eq!(m("2"), 2000);
        assert_eq!(m("0.5"), 500);
        assert_eq!(m("1.5"), 1500);
        assert_eq!(m(".5"), 500);
        assert_eq!(m("5."), 5000);
        assert_eq!(m("+3"), 3000);
        assert_eq!(m("-0"), 0);
        assert_eq!(m("007"), 7000);
        assert_eq!(m("0.0001"), 1, "rounded up");
        assert_eq!(m("0.001"), 1);
        assert_eq!(m("1.0010"), 1001);
    }

    #[test]
    fn decimal_suffixes_scale_by_powers_of_1000_rounding_up_to_milli_units() {
        assert_eq!(m("100m"), 100);
        assert_eq!(m("250m"), 250);
        assert_eq!(m("1500m"), 1500);
        assert_eq!(m("0.5m"), 1);
        assert_eq!(m("1n"), 1);
        assert_eq!(m("1000000n"), 1);
        assert_eq!(m("1000001n"), 2);
        assert_eq!(m("1u"), 1);
        assert_eq!(m("1000u"), 1);
        assert_eq!(m("1k"), 1_000_000);
        assert_eq!(m("1M"), 1_000_000_000);
        assert_eq!(m("128M"), 128_000_000_000);
        assert_eq!(m("1G"), 1_000_000_000_000);
        assert_eq!(m("1T"), 1_000_000_000_000_000);
        assert_eq!(m("1P"), 1_000_000_000_000_000_000);
        assert_eq!(m("0.001E"), 1_000_000_000_000_000_000);
        assert_eq!(m("1.5G"), 1_500_000_000_000);
    }

    #[test]
    fn binary_suffixes_scale_by_powers_of_1024_rounding_up_to_milli_units() {
        assert_eq!(m("1Ki"), 1024 * 1000);
        assert_eq!(m("128Mi"), 128 * MI * 1000);
        assert_eq!(m("1.5Gi"), 1536 * MI * 1000);
        assert_eq!(m("4Gi"), 4096 * MI * 1000);
        assert_eq!(m("1Ti"), (1i64 << 40) * 1000);
        assert_eq!(m("1Pi"), (1i64 << 50) * 1000);
        assert_eq!(m("0.5Ki"), 512_000);
        assert_eq!(m("0.0001Ki"), 103, "102.4 rounded up");
        assert_eq!(m("0.000001Ei"), 1_152_921_504_606_847);
    }

    #[test]
    fn decimal_exponents_scale_by_powers_of_ten_even_at_the_int32_limits() {
        assert_eq!(m("1e3"), 1_000_000);
        assert_eq!(m("1E3"), 1_000_000);
        assert_eq!(m("1e+3"), 1_000_000);
        assert_eq!(m("5e-1"), 500);
        assert_eq!(m("1e-3"), 1);
        assert_eq!(m("1e-9"), 1);
        assert_eq!(m("1.5e2"), 150_000);
        assert_eq!(m("1e0"), 1000);
        assert_eq!(m("1e-2147483648"), 1);
        assert_eq!(m("0e2147483647"), 0);
    }

    #[test]
    fn malformed_quantities_are_refused_with_the_format_or_suffix_error() {
        for s in [
            "",
            " ",
            "abc",
            "1 ",
            " 1",
            "1.2.3",
            "1Mi ",
            "Mi",
            ".",
            "+",
            "-",
            "--1",
            "1,5",
            "1_000",
            "1mm",
            "1e",
            "1e+",
            "1Ee3",
            "1K",
            "1ki",
            "1MiB",
            "1Mi1",
            "1m3",
            "½",
            "1\u{0}",
            "١",
            "0x10",
            "1e99999999999999999999",
            "1Gi-1",
            "\t2",
        ] {
            let err = Quantity::parse(s).expect_err(s);
            assert!(err == ERR_FORMAT || err == ERR_SUFFIX, "{s:?}: {err}");
        }
        assert_eq!(Quantity::parse("").unwrap_err(), ERR_FORMAT);
        assert_eq!(Quantity::parse("1 cpu").unwrap_err(), ERR_FORMAT);
        assert_eq!(Quantity::parse("1K").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("1e").unwrap_err(), ERR_SUFFIX);
    }

    #[test]
    fn negative_values_parse_like_parse_quantity() {
        // ParseQuantity accepts a sign; validation rejects negative requests (admission.rs).
        assert_eq!(m("-1"), -1000);
        assert_eq!(m("-100m"), -100);
        assert_eq!(m("-0.001n"), -1, "rounded away from zero");
        assert_eq!(m("-1Gi"), -(1 << 30) * 1000);
        assert!(Quantity::parse("-1").unwrap().is_negative());
        assert!(!Quantity::parse("-0").unwrap().is_negative());
    }

    #[test]
    fn huge_values_parse_and_saturate_the_int64_accessors() {
        // Decimal quantities of any size are accepted (upstream keeps them in arbitrary precision).
        assert_eq!(exact("9223372036854776"), 9_223_372_036_854_776_000);
        assert_eq!(exact("9223372036854775807"), 9_223_372_036_854_775_807_000);
        assert_eq!(m("9223372036854775807"), i64::MAX, "MilliValue saturates");
        assert_eq!(Quantity::parse("9223372036854775807").unwrap().value(), i64::MAX);
        assert_eq!(Quantity::parse("9223372036854775808").unwrap().value(), i64::MAX, "Value saturates");
        assert_eq!(exact("1e16"), 10i128.pow(19));
        for s in ["1e2147483647", "1e99999999999", "10000000000000000000000000000000000000000000000", "1e308"] {
            assert_eq!(exact(s), i128::MAX, "{s}");
            assert_eq!(m(s), i64::MAX, "{s}");
        }
        assert_eq!(exact("-1e308"), -i128::MAX);
        assert_eq!(m("-1e308"), i64::MIN);
        // BinarySI is capped at upstream's maxAllowed, 2^63-1 base units.
        assert_eq!(exact("1Ei"), (1i128 << 60) * 1000);
        assert_eq!(exact("8Ei"), i128::from(i64::MAX) * 1000);
        assert_eq!(exact("99999999999999999999999999999999999999999999999999999999Ei"), i128::from(i64::MAX) * 1000);
        assert_eq!(Quantity::parse("8Ei").unwrap().value(), i64::MAX);
        // Exactness below the cap: ordering distinguishes neighbours that the i64 accessors cannot.
        assert!(Quantity::parse("9223372036854775808").unwrap() > Quantity::parse("9223372036854775807").unwrap());
        assert_eq!(m("9223372036854775807m"), i64::MAX);
        assert_eq!(m("9223372036854775.807"), i64::MAX);
        assert_eq!(exact("9223372036854775.8071"), i128::from(i64::MAX) + 1);
        assert_eq!(m("1e-2147483648"), 1);
        let long = format!("0.{}1", "0".repeat(100_000));
        assert_eq!(m(&long), 1);
        let long = format!("{}1", "9".repeat(100_000));
        assert_eq!(exact(&long), i128::MAX);
    }

    #[test]
    fn value_rounds_away_from_zero_to_whole_units_and_saturates() {
        assert_eq!(Quantity::parse("100m").unwrap().value(), 1);
        assert_eq!(Quantity::parse("1").unwrap().value(), 1);
        assert_eq!(Quantity::parse("1001m").unwrap().value(), 2);
        assert_eq!(Quantity::parse("0").unwrap().value(), 0);
        assert_eq!(Quantity::parse("128Mi").unwrap().value(), 128 * MI);
        assert_eq!(Quantity::from_milli(-1500).value(), -2);
        assert_eq!(Quantity::from_milli(i64::MAX).value(), i64::MAX / 1000 + 1);
        assert_eq!(Quantity::from_memory_bytes(i64::MAX).value(), i64::MAX);
        assert_eq!(Quantity::from_memory_bytes(i64::MIN).value(), i64::MIN);
        assert_eq!(Quantity::from_milli(i64::MIN).value(), i64::MIN / 1000 - 1);
    }

    #[test]
    fn constructors_write_canonical_text_that_parses_back_to_the_same_value() {
        assert_eq!(Quantity::from_cpu_millis(250).as_str(), "250m");
        assert_eq!(Quantity::from_cpu_millis(2000).as_str(), "2");
        assert_eq!(Quantity::from_cpu_millis(1500).as_str(), "1500m");
        assert_eq!(Quantity::from_cpu_millis(0).as_str(), "0");
        assert_eq!(Quantity::from_milli(-250).as_str(), "-250m");
        assert_eq!(Quantity::from_memory_bytes(512 * MI).as_str(), "512Mi");
        assert_eq!(Quantity::from_memory_bytes(4096 * MI).as_str(), "4Gi");
        assert_eq!(Quantity::from_memory_bytes(1536 * MI).as_str(), "1536Mi");
        assert_eq!(Quantity::from_memory_bytes(1024).as_str(), "1Ki");
        assert_eq!(Quantity::from_memory_bytes(1000).as_str(), "1000");
        assert_eq!(Quantity::from_memory_bytes(0).as_str(), "0");
        assert_eq!(Quantity::from_memory_bytes(-2048).as_str(), "-2Ki");
        assert_eq!(Quantity::from_memory_bytes(512 * MI).milli(), 512 * MI * 1000);
        let huge = Quantity::from_memory_bytes(i64::MAX);
        assert_eq!(huge.milli(), i64::MAX, "saturated");
        assert_eq!(huge.as_str(), i64::MAX.to_string());
        assert_eq!(Quantity::from_memory_bytes(i64::MIN).milli(), i64::MIN);
        // Canonical text parses back to the same value.
        for q in [
            Quantity::from_memory_bytes(3 * (1 << 30)),
            Quantity::from_memory_bytes(123_456_789),
            Quantity::from_cpu_millis(1),
            Quantity::from_memory_bytes(i64::MAX),
        ] {
            assert_eq!(Quantity::parse(q.as_str()).unwrap(), q);
        }
    }

    #[test]
    fn quantities_compare_by_value_print_their_own_text_and_default_to_zero() {
        let a = Quantity::parse("1").unwrap();
        let b = Quantity::parse("1000m").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "1");
        assert_eq!(b.to_string(), "1000m");
        assert_eq!(format!("{b:?}"), "Quantity(\"1000m\" = 1000m)");
        assert!(Quantity::parse("100m").unwrap() < a);
        let d = Quantity::default();
        assert_eq!(d.milli(), 0);
        assert_eq!(d.as_str(), "0");
        assert!(d.is_zero());
        assert_eq!("2Gi".parse::<Quantity>().unwrap().value(), 2 << 30);
    }

    #[derive(Debug, Deserialize, Serialize)]
    struct Res {
        cpu: Quantity,
        memory: Quantity,
    }

    #[test]
    fn serde_yaml_strings_and_numbers() {
        let r: Res = serde_yaml::from_str("cpu: 2\nmemory: 128Mi\n").unwrap();
        assert_eq!(r.cpu.milli(), 2000);
        assert_eq!(r.cpu.as_str(), "2");
        assert_eq!(r.memory.milli(), 128 * MI * 1000);
        let r: Res = serde_yaml::from_str("cpu: 0.5\nmemory: \"1Gi\"\n").unwrap();
        assert_eq!(r.cpu.milli(), 500);
        assert_eq!(r.cpu.as_str(), "0.5");
        let r: Res = serde_yaml::from_str("cpu: '250m'\nmemory: 1e3\n").unwrap();
        assert_eq!(r.cpu.milli(), 250);
        assert_eq!(r.memory.milli(), 1_000_000);
        assert_eq!(serde_yaml::to_string(&r).unwrap(), "cpu: 250m\nmemory: '1000'\n");

        let err = serde_yaml::from_str::<Res>("cpu: lots\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains(ERR_FORMAT), "{err}");
        // Negative and huge numbers parse (validation rejects negative requests).
        let r: Res = serde_yaml::from_str("cpu: -1\nmemory: -0.5\n").unwrap();
        assert_eq!((r.cpu.milli(), r.memory.milli()), (-1000, -500));
        let err = serde_yaml::from_str::<Res>("cpu: .nan\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains(ERR_FORMAT), "{err}");
        let r: Res = serde_yaml::from_str("cpu: 1e300\nmemory: 1.5e-7\n").unwrap();
        assert_eq!((r.cpu.as_str(), r.cpu.milli()), ("1e300", i64::MAX));
        assert_eq!((r.memory.as_str(), r.memory.milli()), ("1.5e-7", 1));
        let r: Res = serde_yaml::from_str("cpu: 18446744073709551615\nmemory: 99999999999999999999\n").unwrap();
        assert_eq!((r.cpu.milli(), r.memory.value()), (i64::MAX, i64::MAX));
        assert!(serde_yaml::from_str::<Res>("cpu: ~\nmemory: 1Gi\n").is_err());
        assert!(serde_yaml::from_str::<Res>("cpu: [1]\nmemory: 1Gi\n").is_err());
    }

    #[test]
    fn serde_json_strings_and_numbers() {
        let r: Res = serde_json::from_str(r#"{"cpu": 1, "memory": "64Mi"}"#).unwrap();
        assert_eq!(r.cpu.milli(), 1000);
        assert_eq!(r.memory.value(), 64 * MI);
        let r: Res = serde_json::from_str(r#"{"cpu": 0.25, "memory": 1048576}"#).unwrap();
        assert_eq!(r.cpu.milli(), 250);
        assert_eq!(r.memory.value(), MI);
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"cpu":"0.25","memory":"1048576"}"#);
        let err = serde_json::from_str::<Res>(r#"{"cpu": "1 core", "memory": "1"}"#).unwrap_err();
        assert!(err.to_string().contains(ERR_FORMAT), "{err}");
    }
}
