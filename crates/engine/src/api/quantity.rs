//! Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`).
//!
//! A [`Quantity`] keeps the text the user wrote (for display and round-tripping) together with its
//! value in thousandths of the base unit ("milli-units"): `"100m"` CPU is 100, `"1"` is 1000 and
//! `"128Mi"` of memory is `128 * 2^20 * 1000`. Values that are not a whole number of milli-units
//! (`"1n"`, `"0.5m"`) are rounded up, like `Quantity.MilliValue()` does.
//!
//! Accepted forms are those of the API server: plain and decimal numbers (`"2"`, `"0.5"`, `".5"`),
//! decimal SI suffixes (`n u m k M G T P E`), binary suffixes (`Ki Mi Gi Ti Pi Ei`) and decimal
//! exponents (`"1e3"`, `"5E-1"`). Negative quantities, empty strings and values that do not fit in
//! an `i64` of milli-units are rejected.

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
    milli: i64,
    text: Str,
}

impl Quantity {
    /// Parses a quantity as the API server does, e.g. `"250m"`, `"2"`, `"0.5"`, `"128Mi"`, `"1e3"`.
    ///
    /// Errors are human-readable messages: [`ERR_FORMAT`] for malformed text, [`ERR_SUFFIX`] for an
    /// unknown suffix, and dedicated messages for negative or too-large values.
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
        Quantity { milli, text: Str::from(text) }
    }

    /// A CPU quantity of `millicores`, with kubectl's canonical text: `"250m"`, `"2"`.
    pub fn from_cpu_millis(millicores: i64) -> Quantity {
        Quantity::from_milli(millicores)
    }

    /// A memory quantity of `bytes`, with canonical text using the largest binary suffix that
    /// divides it exactly (`"512Mi"`, `"4Gi"`, `"1536Mi"`), or plain bytes (`"1000"`).
    ///
    /// `bytes` is clamped to the representable range (about ±9.2e15 bytes, a little over 8Pi).
    pub fn from_memory_bytes(bytes: i64) -> Quantity {
        const SUFFIXES: [(u32, &str); 6] = [(60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")];
        let bytes = bytes.clamp(i64::MIN / 1000, i64::MAX / 1000);
        let text = if bytes == 0 {
            "0".to_string()
        } else {
            SUFFIXES
                .iter()
                .find(|(shift, _)| bytes % (1i64 << shift) == 0)
                .map(|(shift, suffix)| format!("{}{}", bytes / (1i64 << shift), suffix))
                .unwrap_or_else(|| bytes.to_string())
        };
        Quantity { milli: bytes * 1000, text: Str::from(text) }
    }

    /// The value in thousandths of the base unit (millicores for CPU, milli-bytes for memory).
    pub fn milli(&self) -> i64 {
        self.milli
    }

    /// The value in whole base units, rounded up (away from zero), like `Quantity.Value()`.
    pub fn value(&self) -> i64 {
        let whole = self.milli / 1000;
        match self.milli % 1000 {
            0 => whole,
            r if r > 0 => whole + 1,
            _ => whole - 1,
        }
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

/// Parses the text into milli-units, rounding up any remainder below one milli-unit.
fn parse_milli(s: &str) -> Result<i64, String> {
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
    if negative {
        return Err(format!("invalid quantity {s:?}: must be greater than or equal to 0"));
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
    let too_large = || format!("invalid quantity {s:?}: too large (at most {}m is supported)", i64::MAX);
    // The leading digit is non-zero, so the integer part is at least 10^(point-1).
    if point > 19 {
        return Err(too_large());
    }
    let int_len = point.max(0) as usize;
    let mut int: u128 = 0;
    for i in 0..int_len {
        int = int * 10 + u128::from(digits.get(i).copied().unwrap_or(0));
    }
    if digits.iter().skip(int_len).any(|&d| d != 0) {
        int += 1;
    }
    i64::try_from(int).map_err(|_| too_large())
}

/// Returns (binary exponent, decimal exponent) for a suffix, or `None` if it is unknown.
fn interpret_suffix(suffix: &str) -> Option<(u32, i64)> {
    Some(match suffix {
        "" => (0, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        "Ki" => (10, 0),
        "Mi" => (20, 0),
        "Gi" => (30, 0),
        "Ti" => (40, 0),
        "Pi" => (50, 0),
        "Ei" => (60, 0),
        _ => {
            let rest = suffix.strip_prefix('e').or_else(|| suffix.strip_prefix('E'))?;
            (0, i64::from(rest.parse::<i32>().ok()?))
        }
    })
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
        // Display never uses exponent notation, so this is always in the accepted syntax.
        Quantity::parse(&v.to_string()).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> i64 {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).milli()
    }

    const MI: i64 = 1 << 20;

    #[test]
    fn plain_and_decimal() {
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
    fn decimal_suffixes() {
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
    fn binary_suffixes() {
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
    fn exponents() {
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
    fn rejects_garbage() {
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
            "1e99999999999",
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
    fn rejects_negative_and_overflow() {
        for s in ["-1", "-100m", "-0.001n", "-1Gi"] {
            let err = Quantity::parse(s).unwrap_err();
            assert!(err.contains("greater than or equal to 0"), "{s}: {err}");
        }
        for s in [
            "9223372036854776",
            "10000000000000000000000000000000000000000000000",
            "1Ei",
            "9Pi",
            "1e16",
            "1e2147483647",
            "9223372036854775807",
            "99999999999999999999999999999999999999999999999999999999Ei",
        ] {
            let err = Quantity::parse(s).unwrap_err();
            assert!(err.contains("too large"), "{s}: {err}");
        }
        assert_eq!(m("9223372036854775807m"), i64::MAX);
        assert_eq!(m("9223372036854775.807"), i64::MAX);
        assert!(Quantity::parse("9223372036854775.8071").is_err());
        assert!(Quantity::parse("9223372036854775808m").is_err());
        let long = format!("0.{}1", "0".repeat(100_000));
        assert_eq!(m(&long), 1);
    }

    #[test]
    fn value_rounds_up() {
        assert_eq!(Quantity::parse("100m").unwrap().value(), 1);
        assert_eq!(Quantity::parse("1").unwrap().value(), 1);
        assert_eq!(Quantity::parse("1001m").unwrap().value(), 2);
        assert_eq!(Quantity::parse("0").unwrap().value(), 0);
        assert_eq!(Quantity::parse("128Mi").unwrap().value(), 128 * MI);
        assert_eq!(Quantity::from_milli(-1500).value(), -2);
        assert_eq!(Quantity::from_milli(i64::MAX).value(), i64::MAX / 1000 + 1);
        assert_eq!(Quantity::from_milli(i64::MIN).value(), i64::MIN / 1000 - 1);
    }

    #[test]
    fn canonical_constructors() {
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
        assert_eq!(huge.milli(), i64::MAX / 1000 * 1000);
        assert_eq!(Quantity::from_memory_bytes(i64::MIN).milli(), i64::MIN / 1000 * 1000);
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
    fn traits() {
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
        let err = serde_yaml::from_str::<Res>("cpu: -1\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains("greater than or equal to 0"), "{err}");
        let err = serde_yaml::from_str::<Res>("cpu: -0.5\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains("greater than or equal to 0"), "{err}");
        let err = serde_yaml::from_str::<Res>("cpu: .nan\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains(ERR_FORMAT), "{err}");
        let err = serde_yaml::from_str::<Res>("cpu: 1e300\nmemory: 1Gi\n").unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
        let err = serde_yaml::from_str::<Res>("cpu: 18446744073709551615\nmemory: 1\n");
        assert!(err.unwrap_err().to_string().contains("too large"));
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
