//! The parsing helpers of Aeron's `util/aeron_parse_util.h` with Aeron C's exact rules, for
//! C callers that rely on them: splitting `host:port` and `host:port/prefix` texts, the
//! prefix-matching boolean, line reading, and the `aeron_config_parse_*` family (C `strtoll`
//! number syntax, clamping, a warning and the default for malformed values).
//! Texts are bytes: C strings need not be UTF-8.
#![forbid(unsafe_code)]

use crate::util::error::{Error, Result};

/// Longest host text `aeron_parsed_address_t` holds, NUL included (`AERON_MAX_HOST_LENGTH`).
pub const MAX_HOST_LENGTH: usize = 384;
/// Longest port text, NUL included (`AERON_MAX_PORT_LENGTH`).
pub const MAX_PORT_LENGTH: usize = 8;
/// Longest subnet prefix text, NUL included (`AERON_MAX_PREFIX_LENGTH`).
pub const MAX_PREFIX_LENGTH: usize = 8;

/// A `host[:port][/prefix]` text split as Aeron C does; `host` has IPv6 brackets and any
/// `%scope` removed. Empty parts are empty slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitAddress<'a> {
    pub host: &'a [u8],
    pub port: &'a [u8],
    pub prefix: &'a [u8],
    /// 6 when the host is bracketed, else 4.
    pub ip_version_hint: i32,
}

fn last_index(text: &[u8], byte: u8) -> isize {
    text.iter().rposition(|&b| b == byte).map_or(-1, |i| i as isize)
}

fn invalid(what: &str, text: &[u8]) -> Error {
    Error::invalid_argument(format!("{what}: {}", String::from_utf8_lossy(text)))
}

/// Splits an address (`aeron_address_split`): `host`, `host:port`, `[v6]`, `[v6%scope]:port`.
pub fn split_address(text: &[u8]) -> Result<SplitAddress<'_>> {
    if text.is_empty() {
        return Err(Error::invalid_argument("no address value"));
    }
    split(text, false)
}

/// Splits an interface (`aeron_interface_split`): an address optionally followed by
/// `/prefix` (a subnet prefix length).
pub fn split_interface(text: &[u8]) -> Result<SplitAddress<'_>> {
    if text.is_empty() {
        return Err(Error::invalid_argument("no interface value"));
    }
    split(text, true)
}

/// Aeron C's index arithmetic over the last `:`, `[`, `]`, `%` (and `/`) of the text.
fn split(text: &[u8], with_prefix: bool) -> Result<SplitAddress<'_>> {
    let end = text.len() as isize;
    let colon = last_index(text, b':');
    let l_brace = last_index(text, b'[');
    let r_brace = last_index(text, b']');
    let percent = last_index(text, b'%');
    let slash = if with_prefix { last_index(text, b'/') } else { -1 };

    let ipv6 = l_brace > 0 || r_brace > 0;
    if ipv6 && (l_brace < 0 || r_brace < 0 || r_brace < l_brace) {
        return Err(invalid("host address invalid", text));
    }

    let mut prefix: &[u8] = &[];
    if slash >= 0 {
        // Aeron counts the slash itself against the limit.
        if end - slash >= MAX_PREFIX_LENGTH as isize {
            return Err(invalid("subnet prefix invalid", text));
        }
        prefix = &text[(slash + 1) as usize..];
    }

    let mut port: &[u8] = &[];
    if colon >= 0 && r_brace < colon {
        if end - 1 == colon {
            return Err(invalid("port invalid", text));
        }
        let begin = colon + 1;
        let length = if slash > 0 { slash - begin } else { end - begin };
        if !(0..MAX_PORT_LENGTH as isize).contains(&length) {
            return Err(invalid("port invalid", text));
        }
        port = &text[begin as usize..(begin + length) as usize];
    }

    let mut length = end;
    if slash >= 0 {
        length = slash;
    }
    if colon >= 0 && colon > r_brace {
        length = colon;
    }
    let scoped = percent >= 0 && percent < r_brace;
    if scoped {
        length = percent;
    }
    let host_start: isize = if ipv6 { 1 } else { 0 };
    if ipv6 {
        length -= if scoped { 1 } else { 2 };
    }
    if !(0..MAX_HOST_LENGTH as isize).contains(&length) || host_start + length > end {
        return Err(invalid("host address invalid", text));
    }
    let host = &text[host_start as usize..(host_start + length) as usize];
    Ok(SplitAddress { host, port, prefix, ip_version_hint: if ipv6 { 6 } else { 4 } })
}

/// `aeron_parse_bool`: a text starting with `1`, `on` or `true` is true, one starting with
/// `0`, `off` or `false` is false (case matters), anything else (or none) is `default`.
pub fn parse_bool_prefix(text: Option<&[u8]>, default: bool) -> bool {
    match text {
        Some(t) if t.starts_with(b"1") || t.starts_with(b"on") || t.starts_with(b"true") => true,
        Some(t) if t.starts_with(b"0") || t.starts_with(b"off") || t.starts_with(b"false") => false,
        _ => default,
    }
}

/// Where the next line of a buffer ends (`aeron_parse_get_line`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    /// The buffer's NUL at this index came first: copy up to and including it; the call
    /// returns 0 (no more lines).
    Nul(usize),
    /// A newline at this index: copy up to and including it, then a NUL; the call returns
    /// `index + 1`, the line's length.
    Newline(usize),
}

/// Finds the end of the first line of `buffer` (bytes up to and including its NUL) within
/// `max_length - 1` bytes, the room a line buffer of `max_length` bytes has besides its NUL.
pub fn next_line(buffer: &[u8], max_length: usize) -> Result<LineEnd> {
    let room = max_length.saturating_sub(1);
    for (i, &byte) in buffer.iter().take(room).enumerate() {
        match byte {
            0 => return Ok(LineEnd::Nul(i)),
            b'\n' => return Ok(LineEnd::Newline(i)),
            _ => {}
        }
    }
    Err(Error::invalid_argument(format!("line too long: {room}/{max_length}")))
}

/// A number as C's `strtoll`/`strtoull` with base 0 read it: optional white space and
/// sign, then `0x` hex, `0` octal or decimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CNumber {
    /// The digits' value, `None` past `u64::MAX`.
    magnitude: Option<u64>,
    negative: bool,
    /// Bytes converted; 0 when there were no digits (C sets `end` to the start).
    consumed: usize,
}

fn scan_c_number(text: &[u8]) -> CNumber {
    let mut i = text.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).count();
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = text.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let hex_digit_follows = text.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let radix =
        if text.get(i) == Some(&b'0') && matches!(text.get(i + 1), Some(b'x' | b'X')) && hex_digit_follows {
            i += 2;
            16
        } else if text.get(i) == Some(&b'0') {
            8
        } else {
            10
        };
    let digits_start = i;
    let mut magnitude = Some(0u64);
    while let Some(digit) = text.get(i).and_then(|&b| char::from(b).to_digit(radix)) {
        magnitude = magnitude.and_then(|m| m.checked_mul(u64::from(radix))?.checked_add(u64::from(digit)));
        i += 1;
    }
    let consumed = if i == digits_start { 0 } else { i };
    CNumber { magnitude, negative, consumed }
}

/// `strtoull`: out of range saturates; a minus sign negates modulo 2^64.
fn c_unsigned(number: CNumber) -> u64 {
    match number.magnitude {
        None => u64::MAX,
        Some(m) if number.negative => m.wrapping_neg(),
        Some(m) => m,
    }
}

/// `strtoll`: out of range saturates at the sign's end.
fn c_signed(number: CNumber) -> i64 {
    match (number.magnitude, number.negative) {
        (Some(m), false) => i64::try_from(m).unwrap_or(i64::MAX),
        (Some(m), true) => 0i64.checked_sub_unsigned(m).unwrap_or(i64::MIN),
        (None, false) => i64::MAX,
        (None, true) => i64::MIN,
    }
}

/// The text Aeron C prints (to stderr) for a malformed setting before using its default.
pub fn prop_warning(name: &str, text: &[u8]) -> String {
    format!("WARNING: {name}={} is invalid, using default\n", String::from_utf8_lossy(text))
}

/// `aeron_config_parse_uint64`: no digits warns and takes `default`; trailing text is
/// ignored; the result is clamped to `[min, max]`. `warn` is called for a warning.
pub fn config_parse_u64(text: Option<&[u8]>, default: u64, min: u64, max: u64, warn: impl FnOnce()) -> u64 {
    let Some(text) = text else { return default };
    let number = scan_c_number(text);
    let value = if number.consumed == 0 {
        warn();
        default
    } else {
        c_unsigned(number)
    };
    value.min(max).max(min)
}

/// `aeron_config_parse_int64`: the whole text must be a number (an empty text is 0), else
/// a warning and `default`; then clamped to `[min, max]`.
pub fn config_parse_i64(text: Option<&[u8]>, default: i64, min: i64, max: i64, warn: impl FnOnce()) -> i64 {
    let Some(text) = text else { return default };
    let value = match whole_signed(text) {
        Some(value) => value,
        None => {
            warn();
            default
        }
    };
    clamp_like_aeron(value, min, max)
}

/// `aeron_config_parse_int32`: as [`config_parse_i64`], and a value outside `i32` also warns.
pub fn config_parse_i32(text: Option<&[u8]>, default: i32, min: i32, max: i32, warn: impl FnOnce()) -> i32 {
    let Some(text) = text else { return default };
    let value = match whole_signed(text).and_then(|v| i32::try_from(v).ok()) {
        Some(value) => value,
        None => {
            warn();
            default
        }
    };
    clamp_like_aeron(value, min, max)
}

/// `aeron_config_parse_size64` / `_duration_ns`: `text` in `parse`'s syntax (a size or a
/// duration) clamped to `[min, max]`; `default` when `text` is `None` or, after `warn`,
/// malformed (the default is not clamped).
pub fn config_parse_with(
    text: Option<&[u8]>,
    default: u64,
    min: u64,
    max: u64,
    parse: fn(&str, &str) -> Result<u64>,
    warn: impl FnOnce(),
) -> u64 {
    let Some(text) = text else { return default };
    match std::str::from_utf8(text).ok().and_then(|t| parse("value", t).ok()) {
        Some(value) => value.min(max).max(min),
        None => {
            warn();
            default
        }
    }
}

/// The whole text as a C signed number (the end pointer must reach the NUL).
fn whole_signed(text: &[u8]) -> Option<i64> {
    let number = scan_c_number(text);
    (number.consumed == text.len()).then(|| c_signed(number))
}

/// Aeron's clamp: `max` first, then `min`, so `min` wins when `min > max`.
fn clamp_like_aeron<T: PartialOrd>(value: T, min: T, max: T) -> T {
    let below = value < min;
    let result = if value > max { max } else { value };
    if below { min } else { result }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(text: &str) -> (String, String, i32) {
        let split = split_address(text.as_bytes()).unwrap();
        assert!(split.prefix.is_empty());
        (
            String::from_utf8(split.host.to_vec()).unwrap(),
            String::from_utf8(split.port.to_vec()).unwrap(),
            split.ip_version_hint,
        )
    }

    fn interface(text: &str) -> (String, String, String, i32) {
        let split = split_interface(text.as_bytes()).unwrap();
        (
            String::from_utf8(split.host.to_vec()).unwrap(),
            String::from_utf8(split.port.to_vec()).unwrap(),
            String::from_utf8(split.prefix.to_vec()).unwrap(),
            split.ip_version_hint,
        )
    }

    #[test]
    fn addresses_split_as_aeron_c() {
        assert_eq!(address("192.168.1.20:40123"), ("192.168.1.20".into(), "40123".into(), 4));
        assert_eq!(address("localhost"), ("localhost".into(), "".into(), 4));
        assert_eq!(address("[::1]:40123"), ("::1".into(), "40123".into(), 6));
        assert_eq!(address("[::1]"), ("::1".into(), "".into(), 6));
        assert_eq!(address("[fe80::1%eth0]:80"), ("fe80::1".into(), "80".into(), 6));
    }

    #[test]
    fn bad_addresses_are_einval() {
        for text in ["", "host:", "::1]:80", "h:123456789", "]x["] {
            let err = split_address(text.as_bytes()).unwrap_err();
            assert_eq!(err.code(), libc::EINVAL, "{text}");
        }
        let long = "h".repeat(MAX_HOST_LENGTH);
        assert!(split_address(long.as_bytes()).is_err());
        assert!(split_address(&long.as_bytes()[1..]).is_ok(), "383 characters fit with the NUL");
    }

    #[test]
    fn interfaces_carry_a_prefix() {
        assert_eq!(interface("192.168.1.0/24"), ("192.168.1.0".into(), "".into(), "24".into(), 4));
        assert_eq!(interface("10.0.0.1:8080/16"), ("10.0.0.1".into(), "8080".into(), "16".into(), 4));
        assert_eq!(interface("[fe80::]/64"), ("fe80::".into(), "".into(), "64".into(), 6));
        assert_eq!(interface("eth0"), ("eth0".into(), "".into(), "".into(), 4));
        assert!(split_interface(b"1.2.3.4/1234567").is_err(), "the prefix is at most 6 characters");
        assert!(split_interface(b"").is_err());
    }

    #[test]
    fn booleans_match_by_prefix() {
        assert!(parse_bool_prefix(Some(b"true"), false));
        assert!(parse_bool_prefix(Some(b"1"), false));
        assert!(parse_bool_prefix(Some(b"onward"), false));
        assert!(!parse_bool_prefix(Some(b"off"), true));
        assert!(!parse_bool_prefix(Some(b"0"), true));
        assert!(parse_bool_prefix(Some(b"TRUE"), true), "case matters: the default");
        assert!(!parse_bool_prefix(Some(b"TRUE"), false));
        assert!(parse_bool_prefix(None, true));
    }

    #[test]
    fn lines_end_at_newline_or_nul() {
        assert_eq!(next_line(b"ab\ncd\0", 10).unwrap(), LineEnd::Newline(2));
        assert_eq!(next_line(b"cd\0", 10).unwrap(), LineEnd::Nul(2));
        assert_eq!(next_line(b"\0", 10).unwrap(), LineEnd::Nul(0));
        assert_eq!(next_line(b"abc\n\0", 5).unwrap(), LineEnd::Newline(3));
        assert_eq!(next_line(b"abcd\n\0", 5).unwrap_err().code(), libc::EINVAL);
        assert!(next_line(b"\0", 0).is_err());
    }

    #[test]
    fn c_number_syntax() {
        let n = |t: &str| scan_c_number(t.as_bytes());
        assert_eq!(c_unsigned(n("42")), 42);
        assert_eq!(c_unsigned(n("0x1F")), 31);
        assert_eq!(c_unsigned(n("010")), 8);
        assert_eq!(c_unsigned(n("  +7")), 7);
        assert_eq!(c_unsigned(n("-1")), u64::MAX);
        assert_eq!(c_unsigned(n("99999999999999999999")), u64::MAX);
        assert_eq!(c_signed(n("-99999999999999999999")), i64::MIN);
        assert_eq!(c_signed(n("-9223372036854775808")), i64::MIN);
        assert_eq!(c_signed(n("9223372036854775808")), i64::MAX);
        assert_eq!(n("0x").consumed, 1, "0 is read, the x is left");
        assert_eq!(n("abc").consumed, 0);
        assert_eq!(n(" ").consumed, 0);
    }

    #[test]
    fn config_parsing_clamps_and_warns() {
        let mut warned = 0;
        assert_eq!(config_parse_u64(Some(b"100"), 5, 0, 50, || warned += 1), 50);
        assert_eq!(config_parse_u64(Some(b"12abc"), 5, 0, 50, || warned += 1), 12, "trailing text ignored");
        assert_eq!(config_parse_u64(Some(b"x"), 5, 10, 50, || warned += 1), 10, "default, then clamped");
        assert_eq!(config_parse_u64(None, 5, 10, 50, || warned += 1), 5, "unset: default unclamped");
        assert_eq!(warned, 1);
        assert_eq!(config_parse_i64(Some(b"-0x10"), 0, -100, 100, || warned += 1), -16);
        assert_eq!(config_parse_i64(Some(b"12abc"), 7, -100, 100, || warned += 1), 7);
        assert_eq!(
            config_parse_i64(Some(b""), 7, -100, 100, || warned += 1),
            0,
            "C reads an empty text as 0"
        );
        assert_eq!(warned, 2);
        assert_eq!(config_parse_i32(Some(b"3000000000"), 9, 0, i32::MAX, || warned += 1), 9);
        assert_eq!(config_parse_i32(Some(b"-5"), 9, 0, 10, || warned += 1), 0);
        assert_eq!(config_parse_i32(Some(b"5"), 9, 8, 4, || warned += 1), 8, "min wins over max");
        assert_eq!(warned, 3);
        let size = crate::util::config::parse_size;
        assert_eq!(config_parse_with(Some(b"64k"), 5, 0, 1 << 20, size, || warned += 1), 65_536);
        assert_eq!(config_parse_with(Some(b"2m"), 5, 0, 1 << 20, size, || warned += 1), 1 << 20, "clamped");
        assert_eq!(config_parse_with(Some(b"x"), 5, 10, 50, size, || warned += 1), 5, "default unclamped");
        assert_eq!(config_parse_with(None, 5, 10, 50, size, || warned += 1), 5);
        assert_eq!(warned, 4);
        assert_eq!(prop_warning("AERON_X", b"bad"), "WARNING: AERON_X=bad is invalid, using default\n");
    }
}
