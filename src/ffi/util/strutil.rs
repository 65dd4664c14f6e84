//! Text formatting of `util/aeron_strutil.h` used by Aeron's stat tools: dates and grouped
//! numbers written into caller buffers.

use std::ffi::{CStr, c_char, c_int, c_longlong};

use crate::ffi::{bytes_arg, ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};
use crate::util::format::{format_date, format_number_grouped};
use crate::util::strutil::{to_hex, tokenise};
use crate::util::sys::local_time;

/// Buffer length that always holds an `aeron_format_date` result.
pub const AERON_FORMAT_DATE_MAX_LENGTH: usize = 100;
/// Buffer length that always holds an `aeron_format_number_to_locale` result.
pub const AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN: usize = 32;

/// Copies `text` into `buffer` as a NUL-terminated string, cut to `length - 1` bytes like
/// `snprintf`; returns the bytes copied (without the NUL). Nothing is written for length 0.
///
/// # Safety
/// `buffer` must be valid for writes of `length` bytes.
pub(crate) unsafe fn write_c_string(text: &[u8], buffer: *mut c_char, length: usize) -> usize {
    if length == 0 {
        return 0;
    }
    let copied = text.len().min(length - 1);
    // SAFETY: buffer holds `length` > copied bytes (contract); text and buffer are distinct
    // objects (one is Rust-owned).
    unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), copied) };
    // SAFETY: copied < length, inside the buffer.
    unsafe { buffer.add(copied).write(0) };
    copied
}

/// [`write_c_string`] with `snprintf`'s result: the full length of `text`, so a result of
/// `length` or more means it was cut. A NULL `buffer` is EINVAL naming it as `name`,
/// unless `length` is 0.
///
/// # Safety
/// `buffer` must be NULL or valid for writes of `length` bytes.
pub(crate) unsafe fn snprintf_c_string(
    text: &[u8],
    buffer: *mut c_char,
    length: usize,
    name: &str,
) -> Result<c_int> {
    if length > 0 {
        if buffer.is_null() {
            return Err(Error::invalid_argument(format!("{name} must not be NULL")));
        }
        // SAFETY: buffer holds length bytes (contract).
        unsafe { write_c_string(text, buffer, length) };
    }
    c_int::try_from(text.len()).map_err(|_| Error::invalid_argument("text longer than INT_MAX"))
}

/// The thousands separator of the environment's numeric locale if it is one character,
/// else `,` (Aeron's rule).
fn thousands_separator() -> String {
    // SAFETY: setlocale with a valid category and an empty NUL-terminated name selects the
    // locale from the environment, as Aeron's own function does.
    unsafe { libc::setlocale(libc::LC_NUMERIC, c"".as_ptr()) };
    // SAFETY: localeconv has no preconditions and returns a pointer to static data.
    let conv = unsafe { libc::localeconv() };
    if conv.is_null() {
        return ",".to_string();
    }
    // SAFETY: conv points to the C library's static lconv, valid until the next locale call.
    let separator = unsafe { (*conv).thousands_sep };
    if separator.is_null() {
        return ",".to_string();
    }
    // SAFETY: thousands_sep is a NUL-terminated string inside that static data.
    let separator = unsafe { CStr::from_ptr(separator) }.to_bytes();
    match separator {
        [byte] => char::from(*byte).to_string(),
        _ => ",".to_string(),
    }
}

/// Splits the string `input` on `delimiter` in place: each delimiter becomes a NUL and
/// `tokens` receives pointers to the non-empty tokens, the last token first (Aeron's
/// order). Returns the number of tokens, or a negative errno: `-EINVAL` for a NULL
/// `input` (or NULL `tokens` with a token to store), `-ERANGE` when more than `max_tokens`
/// are found (`input` is then partly split). No error is recorded, as in Aeron.
///
/// # Safety
/// `input` must be NULL or a writable NUL-terminated string; `tokens` valid for writes of
/// `max_tokens` pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_tokenise(
    input: *mut c_char,
    delimiter: c_char,
    max_tokens: c_int,
    tokens: *mut *mut c_char,
) -> c_int {
    ffi_boundary!("aeron_tokenise", {
        if input.is_null() {
            return Ok(-libc::EINVAL);
        }
        // SAFETY: non-null and NUL-terminated (contract).
        let length = unsafe { CStr::from_ptr(input) }.to_bytes().len();
        if c_int::try_from(length).is_err() {
            return Ok(-libc::EINVAL);
        }
        // SAFETY: input is writable for its length (contract); no other reference to it
        // exists during the call.
        let text = unsafe { std::slice::from_raw_parts_mut(input.cast::<u8>(), length) };
        let room = usize::try_from(max_tokens).unwrap_or(0);
        let Ok(starts) = tokenise(text, delimiter as u8, room) else {
            return Ok(-libc::ERANGE);
        };
        if !starts.is_empty() && tokens.is_null() {
            return Ok(-libc::EINVAL);
        }
        for (i, start) in starts.iter().enumerate() {
            // SAFETY: i < starts.len() <= max_tokens slots (contract); start < length.
            unsafe { tokens.add(i).write(input.add(*start)) };
        }
        Ok(starts.len() as c_int)
    })
}

// The exports, over the helpers above: generated from the table in build/strutil_exports.rs.
include!(concat!(env!("OUT_DIR"), "/strutil_ffi.rs"));
