//! The kinds that hold configuration for pods and that kubeloop stores without simulating anything behind them:
//! ConfigMap, Secret and ServiceAccount (core/v1). A Secret's `data` travels as base64 text, as in the API's JSON;
//! its write-only `stringData` is merged into `data` by the API server ([`Secret::merge_string_data`]).

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, ObjectMeta};
use super::{Labels, Str};

// ---------------------------------------------------------------------------------------------------------------
// ConfigMap

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ConfigMap {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub data: Labels,
    /// Values as base64 text.
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub binary_data: Labels,
}

// ---------------------------------------------------------------------------------------------------------------
// Secret

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
    /// Values as base64 text.
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub data: Labels,
    /// Write-only: merged into `data` on every write, never stored.
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub string_data: Labels,
    /// `Opaque` when not given.
    #[serde(default, rename = "type", skip_serializing_if = "is_empty_str")]
    pub type_: Str,
}

impl Secret {
    /// What the API server does with `stringData` (`pkg/apis/core/v1/conversion.go`): each value, base64-encoded,
    /// replaces `data`'s value of the same key; `stringData` is not stored.
    pub fn merge_string_data(&mut self) {
        let string_data = std::mem::take(&mut self.string_data);
        self.data.extend(string_data.iter().map(|(k, v)| (k.clone(), Str::from(base64_encode(v.as_bytes())))));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// ServiceAccount

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ServiceAccount {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<super::ObjectReference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_pull_secrets: Vec<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub automount_service_account_token: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct LocalObjectReference {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub name: Str,
}

// ---------------------------------------------------------------------------------------------------------------
// base64 (standard alphabet, padded), as Go's encoding/json writes and reads []byte

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of base64 text, or Go's error (`encoding/base64`, standard padded encoding, which skips `\r` and `\n`
/// wherever they are: a value wrapped at 76 columns reads as one): `illegal base64 data at input byte N`, N
/// counted in the text as written, as Go counts it (`decodeQuantum`).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let src = text.as_bytes();
    let newline = |c: u8| c == b'\n' || c == b'\r';
    let illegal = |i: usize| Err(format!("illegal base64 data at input byte {i}"));
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    loop {
        let mut n = 0u32;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                return match j {
                    0 => Ok(out),
                    _ => illegal(si - j),
                };
            }
            let c = src[si];
            si += 1;
            if newline(c) {
                continue;
            }
            if c == b'=' {
                // Padding: `x===` is too much, `xx=y` is wrong, `xx=` too little; nothing may follow it.
                match j {
                    0 | 1 => return illegal(si - 1),
                    2 => {
                        while si < src.len() && newline(src[si]) {
                            si += 1;
                        }
                        if si == src.len() {
                            return illegal(src.len());
                        }
                        if src[si] != b'=' {
                            return illegal(si - 1);
                        }
                        si += 1;
                    }
                    _ => {}
                }
                while si < src.len() && newline(src[si]) {
                    si += 1;
                }
                if si < src.len() {
                    return illegal(si);
                }
                n <<= 6 * (4 - j);
                let b = [(n >> 16) as u8, (n >> 8) as u8];
                out.extend_from_slice(&b[..j - 1]);
                return Ok(out);
            }
            match ALPHABET.iter().position(|&a| a == c) {
                Some(v) => n = (n << 6) | v as u32,
                None => return illegal(si - 1),
            }
            j += 1;
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
}

/// The number of bytes valid base64 text holds (its characters of the alphabet, six bits each), without
/// decoding it.
pub fn base64_decoded_len(text: &str) -> usize {
    let chars = text.bytes().filter(|&b| ALPHABET.contains(&b)).count();
    chars.saturating_mul(6) / 8
}

/// Base64 text as the API stores it: the bytes it holds, encoded again (no line breaks), or `None` when that is
/// what was written.
pub fn canonical_base64(text: &str) -> Option<String> {
    let bytes = base64_decode(text).ok()?;
    let canonical = base64_encode(&bytes);
    (canonical != text).then_some(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn base64_decodes_what_it_encodes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(base64_decode(&base64_encode(&bytes)), Ok(bytes));
        }
    }

    #[test]
    fn base64_round_trips_and_refuses_as_go_does() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "p@ss\u{e9}"] {
            let e = base64_encode(text.as_bytes());
            assert_eq!(base64_decode(&e).unwrap(), text.as_bytes(), "{text} as {e}");
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_decode("Zm9v!mFy").unwrap_err(), "illegal base64 data at input byte 4");
        assert_eq!(base64_decode("Zm9vYmF").unwrap_err(), "illegal base64 data at input byte 4");
        assert_eq!(base64_decode("Zm=v").unwrap_err(), "illegal base64 data at input byte 2");
        assert_eq!(base64_decode("not*base64").unwrap_err(), "illegal base64 data at input byte 3");
        assert_eq!(base64_decode("Zg==Zg==").unwrap_err(), "illegal base64 data at input byte 4");
        assert_eq!(base64_decode("Zg=").unwrap_err(), "illegal base64 data at input byte 3");
        assert_eq!(base64_decode("Z===").unwrap_err(), "illegal base64 data at input byte 1");
        assert_eq!(base64_decode("Zg==").unwrap(), b"f");
    }

    #[test]
    fn base64_skips_line_breaks_as_go_does() {
        // A value wrapped at 76 columns, as `base64` and editors write it, is one value.
        let long = "x".repeat(100);
        let wrapped: String = base64_encode(long.as_bytes())
            .as_bytes()
            .chunks(76)
            .map(|l| format!("{}\n", std::str::from_utf8(l).unwrap_or("")))
            .collect();
        assert_eq!(base64_decode(&wrapped).unwrap(), long.as_bytes());
        assert_eq!(base64_decode("Zm9v\r\nYmFy\n").unwrap(), b"foobar");
        assert_eq!(base64_decode("Zg=\n=\n").unwrap(), b"f");
        assert_eq!(base64_decode("\n").unwrap(), b"");
        // Offsets count the line breaks, as Go's do.
        assert_eq!(base64_decode("Zm9v\nYm!y").unwrap_err(), "illegal base64 data at input byte 7");
        assert_eq!(base64_decode("Zm\n9").unwrap_err(), "illegal base64 data at input byte 1");
        assert_eq!(base64_decode("Zg==\nZg==").unwrap_err(), "illegal base64 data at input byte 5");
        assert_eq!(base64_decoded_len(&wrapped), 100);
        assert_eq!(base64_decoded_len("Zm8="), 2);
        assert_eq!(canonical_base64(&wrapped).as_deref(), Some(base64_encode(long.as_bytes()).as_str()));
        assert_eq!(canonical_base64("Zm9v"), None);
    }

    #[test]
    fn string_data_is_merged_into_data_base64_encoded() {
        let mut s = Secret::default();
        s.data.insert(Str::from("a"), Str::from("b2xk"));
        s.string_data.insert(Str::from("a"), Str::from("new"));
        s.string_data.insert(Str::from("b"), Str::from("x"));
        s.merge_string_data();
        assert!(s.string_data.is_empty());
        assert_eq!(s.data.get("a").map(|v| &**v), Some("bmV3"));
        assert_eq!(s.data.get("b").map(|v| &**v), Some("eA=="));
    }
}
