//! Value syntaxes of URI parameters (`spec/channel-uri.md` §1.1): sizes with binary
//! suffixes, durations with time-unit suffixes, booleans, and integers as the C driver
//! reads them (`strtol` base 0: decimal, `0x` hex, leading-`0` octal).
//!
//! Every error is `EINVAL` (GENERIC_ERROR once the driver answers with it, as Aeron C's
//! `could not parse` errors are) and names the parameter and the offending value.
#![forbid(unsafe_code)]

use std::fmt::Display;

use crate::util::error::{Error, Result};

/// The error for parameter `key` with value `value`.
pub fn invalid(key: &str, value: &str, why: impl Display) -> Error {
    Error::invalid_argument(format!("invalid {key}={value}: {why}"))
}

/// Size in bytes: decimal digits with an optional `k`/`m`/`g` suffix (×1024, ×1024², ×1024³,
/// either case).
pub fn parse_size(key: &str, value: &str) -> Result<u64> {
    let (digits, shift) = match value.as_bytes().last() {
        Some(b'k' | b'K') => (&value[..value.len() - 1], 10),
        Some(b'm' | b'M') => (&value[..value.len() - 1], 20),
        Some(b'g' | b'G') => (&value[..value.len() - 1], 30),
        _ => (value, 0),
    };
    let number = parse_decimal_u64(digits)
        .ok_or_else(|| invalid(key, value, "not a size (decimal bytes, optionally suffixed k, m or g)"))?;
    number.checked_mul(1u64 << shift).ok_or_else(|| invalid(key, value, "size overflows 64 bits"))
}

/// Duration in nanoseconds: decimal digits with an optional `ns`, `us`, `ms` or `s` suffix
/// (any case; none means ns). Like Aeron, values too large saturate at `i64::MAX`.
pub fn parse_duration_ns(key: &str, value: &str) -> Result<u64> {
    let split = value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len());
    let (digits, unit) = value.split_at(split);
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        _ => return Err(invalid(key, value, "unknown duration unit (use ns, us, ms or s)")),
    };
    if digits.is_empty() {
        return Err(invalid(key, value, "not a duration (decimal digits with ns, us, ms or s)"));
    }
    // Aeron: overflow saturates; any digit string that overflows is at least u64::MAX.
    let number = parse_decimal_u64(digits).unwrap_or(u64::MAX);
    Ok(number.saturating_mul(multiplier).min(i64::MAX as u64))
}

/// `true` or `false`.
pub fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid(key, value, "not a boolean (true or false)")),
    }
}

/// A 64-bit integer as C's `strtoll(value, .., 0)` reads it, the whole text being the number.
pub fn parse_i64(key: &str, value: &str) -> Result<i64> {
    parse_c_integer(value).ok_or_else(|| invalid(key, value, "not a 64-bit integer"))
}

/// A 32-bit integer as C's `strtol(value, .., 0)` reads it, range-checked.
pub fn parse_i32(key: &str, value: &str) -> Result<i32> {
    parse_c_integer(value)
        .and_then(|number| i32::try_from(number).ok())
        .ok_or_else(|| invalid(key, value, "not a 32-bit integer"))
}

/// Digits only: no sign, no spaces.
pub(crate) fn parse_decimal_u64(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Optional sign, then `0x`/`0X` + hex digits, `0` + octal digits, or decimal digits.
fn parse_c_integer(text: &str) -> Option<i64> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) =
        if let Some(hex) = unsigned.strip_prefix("0x").or_else(|| unsigned.strip_prefix("0X")) {
            (16, hex)
        } else if unsigned.len() > 1 && unsigned.starts_with('0') {
            (8, &unsigned[1..])
        } else {
            (10, unsigned)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("mtu", "1408"), Ok(1408));
        assert_eq!(parse_size("term-length", "64k"), Ok(65536));
        assert_eq!(parse_size("term-length", "16M"), Ok(16 << 20));
        assert_eq!(parse_size("term-length", "1g"), Ok(1 << 30));
        for bad in ["", "k", "-1", "1.5k", "12kb", " 1", "0x10"] {
            let err = parse_size("so-sndbuf", bad).unwrap_err();
            assert_eq!((err.code(), err.aeron_code()), (libc::EINVAL, None), "{bad}");
            assert!(err.message().starts_with(&format!("invalid so-sndbuf={bad}:")), "{err}");
        }
        assert!(parse_size("x", "18446744073709551615k").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("linger", "250"), Ok(250));
        assert_eq!(parse_duration_ns("linger", "250ns"), Ok(250));
        assert_eq!(parse_duration_ns("linger", "7us"), Ok(7_000));
        assert_eq!(parse_duration_ns("linger", "100MS"), Ok(100_000_000));
        assert_eq!(parse_duration_ns("linger", "5s"), Ok(5_000_000_000));
        assert_eq!(parse_duration_ns("linger", "99999999999999999999999s"), Ok(i64::MAX as u64));
        assert_eq!(parse_duration_ns("linger", "10000000000s"), Ok(i64::MAX as u64));
        for bad in ["", "s", "5m", "5 ms", "-1s", "5h", "1.5s"] {
            assert!(parse_duration_ns("nak-delay", bad).is_err(), "{bad}");
        }
        let err = parse_duration_ns("nak-delay", "5h").unwrap_err();
        assert_eq!(err.message(), "invalid nak-delay=5h: unknown duration unit (use ns, us, ms or s)");
    }

    #[test]
    fn booleans() {
        assert_eq!(parse_bool("sparse", "true"), Ok(true));
        assert_eq!(parse_bool("sparse", "false"), Ok(false));
        for bad in ["TRUE", "1", "yes", "truex", ""] {
            assert!(parse_bool("sparse", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn integers_follow_strtol_base_zero() {
        assert_eq!(parse_i64("gtag", "42"), Ok(42));
        assert_eq!(parse_i64("gtag", "-42"), Ok(-42));
        assert_eq!(parse_i64("gtag", "+7"), Ok(7));
        assert_eq!(parse_i64("gtag", "0x1F"), Ok(31));
        assert_eq!(parse_i64("gtag", "010"), Ok(8));
        assert_eq!(parse_i64("gtag", "0"), Ok(0));
        assert_eq!(parse_i64("gtag", "-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_i32("session-id", "-2147483648"), Ok(i32::MIN));
        for bad in ["", "-", "0x", "08", "12a", " 1", "9223372036854775808"] {
            assert!(parse_i64("gtag", bad).is_err(), "{bad}");
        }
        assert!(parse_i32("session-id", "2147483648").is_err());
    }
}
