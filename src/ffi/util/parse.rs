//! Parsing of `util/aeron_parse_util.h`: Aeron's configuration value syntax (durations with
//! an `ns`/`us`/`ms`/`s` suffix, none = ns; sizes with a binary `k`/`m`/`g` suffix), the
//! `aeron_config_parse_*` family that warns and falls back to a default, booleans, lines,
//! and the `host:port[/prefix]` splitters. The rules are in `util::parse_util`.

use std::ffi::{CStr, c_char, c_int};

use crate::ffi::util::strutil::write_c_string;
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null, write_out};
use crate::util::config::{parse_duration_ns, parse_size};
use crate::util::parse_util::{self, LineEnd, SplitAddress};

/// Room for a host text in the parsed structs, NUL included.
pub const AERON_MAX_HOST_LENGTH: usize = 384;
/// Room for a port text, NUL included.
pub const AERON_MAX_PORT_LENGTH: usize = 8;
/// Room for a subnet prefix text, NUL included.
pub const AERON_MAX_PREFIX_LENGTH: usize = 8;
static_assertions::const_assert_eq!(AERON_MAX_HOST_LENGTH, parse_util::MAX_HOST_LENGTH);
static_assertions::const_assert_eq!(AERON_MAX_PORT_LENGTH, parse_util::MAX_PORT_LENGTH);
static_assertions::const_assert_eq!(AERON_MAX_PREFIX_LENGTH, parse_util::MAX_PREFIX_LENGTH);

/// An address split by `aeron_address_split` (Aeron's `struct aeron_parsed_address_stct`):
/// NUL-terminated host (brackets and scope removed) and port (empty if none), and 4 or 6.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_parsed_address_stct {
    pub host: [c_char; AERON_MAX_HOST_LENGTH],
    pub port: [c_char; AERON_MAX_PORT_LENGTH],
    pub ip_version_hint: c_int,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_parsed_address_t = aeron_parsed_address_stct;

/// An interface split by `aeron_interface_split` (`struct aeron_parsed_interface_stct`):
/// as an address, plus the subnet prefix text after `/` (empty if none).
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_parsed_interface_stct {
    pub host: [c_char; AERON_MAX_HOST_LENGTH],
    pub port: [c_char; AERON_MAX_PORT_LENGTH],
    pub prefix: [c_char; AERON_MAX_PREFIX_LENGTH],
    pub ip_version_hint: c_int,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_parsed_interface_t = aeron_parsed_interface_stct;

static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_parsed_address_stct, ip_version_hint), 392);
static_assertions::const_assert_eq!(std::mem::size_of::<aeron_parsed_address_stct>(), 396);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_parsed_interface_stct, prefix), 392);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_parsed_interface_stct, ip_version_hint), 400);
static_assertions::const_assert_eq!(std::mem::size_of::<aeron_parsed_interface_stct>(), 404);

/// Copies a part into a fixed field (the splitter checked it fits with its NUL).
fn fill(field: &mut [c_char], part: &[u8]) {
    field.fill(0);
    for (slot, &byte) in field.iter_mut().zip(part) {
        *slot = byte as c_char;
    }
}

/// The bytes of an optional C string argument.
///
/// # Safety
/// `text` must be NULL or NUL-terminated, alive for `'a`.
unsafe fn optional_bytes<'a>(text: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: NULL or NUL-terminated (contract).
    (!text.is_null()).then(|| unsafe { CStr::from_ptr(text) }.to_bytes())
}

/// Parses `str` with `parse` into `*result`.
///
/// # Safety
/// `str` must be NULL or NUL-terminated; `result` NULL or valid for a write.
unsafe fn parse_into(
    str: *const c_char,
    result: *mut u64,
    what: &str,
    parse: fn(&str, &str) -> crate::util::error::Result<u64>,
) -> crate::util::error::Result<c_int> {
    require_non_null!(result, "result");
    // SAFETY: str is NULL or NUL-terminated (contract); NULL is rejected.
    let text = unsafe { c_str_arg(str, "str") }?;
    let value = parse(what, text)?;
    // SAFETY: result is non-null and writable (contract).
    unsafe { write_out(result, "result", value) }
}

/// Reads `str` as a boolean: true if it starts with `1`, `on` or `true`, false if with `0`,
/// `off` or `false` (case matters), else (or for NULL) `def`.
///
/// # Safety
/// `str` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_parse_bool(str: *const c_char, def: bool) -> bool {
    // SAFETY: NULL or NUL-terminated (contract).
    let text = unsafe { optional_bytes(str) };
    parse_util::parse_bool_prefix(text, def)
}

fn write_split(
    split: &SplitAddress<'_>,
    host: &mut [c_char],
    port: &mut [c_char],
    prefix: Option<&mut [c_char]>,
    ip_version_hint: &mut c_int,
) {
    fill(host, split.host);
    fill(port, split.port);
    if let Some(prefix) = prefix {
        fill(prefix, split.prefix);
    }
    *ip_version_hint = split.ip_version_hint;
}

/// Copies the first line of the string `buffer` into `line` (room for `max_length` bytes):
/// up to and including its newline, then a NUL; returns the line's length (newline
/// included). At the string's end (no newline before its NUL) copies the rest with the NUL
/// and returns 0. Returns -1 (EINVAL) for NULL arguments or a line that does not fit.
///
/// # Safety
/// `line` must be NULL or valid for writes of `max_length` bytes; `buffer` NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_parse_get_line(
    line: *mut c_char,
    max_length: usize,
    buffer: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_parse_get_line", {
        require_non_null!(line, "line");
        require_non_null!(buffer, "buffer");
        // SAFETY: non-null and NUL-terminated (contract).
        let bytes = unsafe { CStr::from_ptr(buffer) }.to_bytes_with_nul();
        match parse_util::next_line(bytes, max_length)? {
            LineEnd::Nul(index) => {
                // SAFETY: index < max_length - 1, inside line (contract); bytes[index] is the NUL.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), line.cast::<u8>(), index + 1) };
                Ok(0)
            }
            LineEnd::Newline(index) => {
                // SAFETY: index + 1 < max_length, so the line and its NUL fit (contract).
                unsafe { write_c_string(&bytes[..=index], line, index + 2) };
                c_int::try_from(index + 1)
                    .map_err(|_| crate::util::error::Error::invalid_argument("line too long"))
            }
        }
    })
}

fn warn(name: Option<&[u8]>, text: &[u8]) {
    let name = String::from_utf8_lossy(name.unwrap_or(b"(null)"));
    eprint!("{}", parse_util::prop_warning(&name, text));
}

/// An unsigned 32-bit setting read as Aeron does: through `aeron_config_parse_int64` with
/// the bounds widened, then cut to 32 bits.
///
/// # Safety
/// `name` and `str` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_config_parse_uint32(
    name: *const c_char,
    str: *const c_char,
    def: u32,
    min: u32,
    max: u32,
) -> u32 {
    // SAFETY: as this function's contract.
    let value =
        unsafe { aeron_config_parse_int64(name, str, i64::from(def), i64::from(min), i64::from(max)) };
    value as u32
}

/// A size setting (`aeron_parse_size64` syntax) clamped to `[min, max]`; `def` when `str`
/// is NULL or, after a warning on stderr, malformed.
///
/// # Safety
/// `name` and `str` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_config_parse_size64(
    name: *const c_char,
    str: *const c_char,
    def: u64,
    min: u64,
    max: u64,
) -> u64 {
    // SAFETY: as this function's contract.
    unsafe { config_parse_with(name, str, def, min, max, parse_size) }
}

/// A duration setting in nanoseconds (`aeron_parse_duration_ns` syntax) clamped to
/// `[min, max]`; `def` when `str` is NULL or, after a warning on stderr, malformed.
///
/// # Safety
/// `name` and `str` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_config_parse_duration_ns(
    name: *const c_char,
    str: *const c_char,
    def: u64,
    min: u64,
    max: u64,
) -> u64 {
    // SAFETY: as this function's contract.
    unsafe { config_parse_with(name, str, def, min, max, parse_duration_ns) }
}

/// # Safety
/// `name` and `str` must be NULL or NUL-terminated.
unsafe fn config_parse_with(
    name: *const c_char,
    str: *const c_char,
    def: u64,
    min: u64,
    max: u64,
    parse: fn(&str, &str) -> crate::util::error::Result<u64>,
) -> u64 {
    ffi_boundary!("aeron_config_parse", {
        // SAFETY: NULL or NUL-terminated (contract).
        let (name, text) = unsafe { (optional_bytes(name), optional_bytes(str)) };
        Ok(parse_util::config_parse_with(text, def, min, max, parse, || warn(name, text.unwrap_or_default())))
    })
}

// The exports, over the helpers above: generated from the table in build/parse_exports.rs.
include!(concat!(env!("OUT_DIR"), "/parse_ffi.rs"));
