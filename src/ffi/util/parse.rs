//! Parsing of Aeron's configuration value syntax (`util/aeron_parse_util.h`): durations with
//! an `ns`/`us`/`ms`/`s` suffix (none = ns) and sizes with a binary `k`/`m`/`g` suffix.

use std::ffi::{c_char, c_int};

use crate::ffi::{c_str_arg, ffi_boundary, require_non_null};
use crate::util::config::{parse_duration_ns, parse_size};

/// Parses a duration such as `"100"`, `"250us"`, `"5ms"` or `"10s"` into nanoseconds in
/// `*result`. Returns 0, or -1 (EINVAL) for NULL arguments, text that is not a duration,
/// or a value beyond 64 bits (`*result` is then left unchanged).
///
/// # Safety
/// `str` must be NULL or NUL-terminated; `result` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_parse_duration_ns(str: *const c_char, result: *mut u64) -> c_int {
    ffi_boundary!("aeron_parse_duration_ns", {
        require_non_null!(result, "result");
        // SAFETY: str is NULL or NUL-terminated (contract); NULL is rejected.
        let text = unsafe { c_str_arg(str, "str") }?;
        let value = parse_duration_ns("duration", text)?;
        // SAFETY: result is non-null and writable (contract).
        unsafe { result.write(value) };
        Ok(0)
    })
}

/// Parses a size such as `"65536"`, `"64k"`, `"16m"` or `"1g"` (multiples of 1024) into
/// bytes in `*result`. Returns 0, or -1 (EINVAL) as `aeron_parse_duration_ns`.
///
/// # Safety
/// `str` must be NULL or NUL-terminated; `result` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_parse_size64(str: *const c_char, result: *mut u64) -> c_int {
    ffi_boundary!("aeron_parse_size64", {
        require_non_null!(result, "result");
        // SAFETY: str is NULL or NUL-terminated (contract); NULL is rejected.
        let text = unsafe { c_str_arg(str, "str") }?;
        let value = parse_size("size", text)?;
        // SAFETY: result is non-null and writable (contract).
        unsafe { result.write(value) };
        Ok(0)
    })
}
