//! Text formatting of `util/aeron_strutil.h` used by Aeron's stat tools: dates and grouped
//! numbers written into caller buffers.

use std::ffi::{CStr, c_char, c_longlong};

use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::Error;
use crate::util::format::{format_date, format_number_grouped};
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

/// Writes epoch-millisecond `timestamp` into `str` (at most `count` bytes including the NUL)
/// as local time, `YYYY-MM-DD HH:MM:SS.mmm+hhmm`. `AERON_FORMAT_DATE_MAX_LENGTH` bytes are
/// always enough. On a NULL `str` nothing is written and `aeron_errcode()` is EINVAL.
///
/// # Safety
/// `str` must be NULL or valid for writes of `count` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_format_date(str: *mut c_char, count: usize, timestamp: i64) {
    ffi_boundary!("aeron_format_date", {
        require_non_null!(str, "str");
        let text = format_date(&local_time(timestamp / 1000)?, timestamp % 1000);
        // SAFETY: str is valid for count bytes (contract).
        unsafe { write_c_string(text.as_bytes(), str, count) };
        Ok(())
    })
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

/// Writes `value` into `buffer` with the locale's thousands separator (`,` unless the
/// locale has a one-character separator), e.g. `1,234,567`, cut to `buffer_len - 1` bytes
/// and NUL-terminated. `AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN` bytes are always enough.
/// Returns `buffer`, or NULL (EINVAL) when `buffer` is NULL or `buffer_len` is 0.
///
/// # Safety
/// `buffer` must be NULL or valid for writes of `buffer_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_format_number_to_locale(
    value: c_longlong,
    buffer: *mut c_char,
    buffer_len: usize,
) -> *mut c_char {
    ffi_boundary!("aeron_format_number_to_locale", {
        require_non_null!(buffer, "buffer");
        if buffer_len == 0 {
            return Err(Error::invalid_argument("buffer_len must be at least 1"));
        }
        let text = format_number_grouped(value, &thousands_separator());
        // SAFETY: buffer is valid for buffer_len bytes (contract).
        unsafe { write_c_string(text.as_bytes(), buffer, buffer_len) };
        Ok(buffer)
    })
}
