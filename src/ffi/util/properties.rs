//! `aeron_properties_*` (`aeronc.h`, `aeronmd.h`): load Java-style properties
//! (`aeron.dir=/tmp/x`) as settings, named as environment variables (`AERON_DIR`). They
//! override the process environment for every aeronrs context created afterwards; the
//! process environment itself (`getenv`) is left unchanged.

use std::ffi::{c_char, c_int};

use crate::ffi::{c_str_arg, ffi_boundary};
use crate::util::error::Error;
use crate::util::properties;

/// Applies the properties in the text `buffer` (lines of `name=value` or `name: value`,
/// `#`/`!` comments, `\` continuations; an empty value unsets a setting). Returns 0, or -1
/// (EINVAL) for NULL or a malformed line (nothing is applied then).
///
/// # Safety
/// `buffer` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_properties_buffer_load(buffer: *const c_char) -> c_int {
    ffi_boundary!("aeron_properties_buffer_load", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let text = unsafe { c_str_arg(buffer, "buffer") }?;
        properties::apply(&properties::parse(text)?);
        Ok(0)
    })
}

/// Applies the properties of the file `filename` (a path, or a `file://` URL). Returns 0,
/// or -1: EINVAL for NULL or a malformed line, the `errno` of reading the file.
///
/// # Safety
/// `filename` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_properties_file_load(filename: *const c_char) -> c_int {
    ffi_boundary!("aeron_properties_file_load", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let location = unsafe { c_str_arg(filename, "filename") }?;
        if location.starts_with("http://") {
            return Err(Error::invalid_argument(format!("{location} is an HTTP URL, not a file")));
        }
        properties::apply(&properties::load(location)?);
        Ok(0)
    })
}

/// Loading properties over HTTP is not supported by aeronrs: returns -1 with
/// `-AERON_ERROR_CODE_NOT_SUPPORTED` (EINVAL for NULL).
///
/// # Safety
/// `url` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_properties_http_load(url: *const c_char) -> c_int {
    ffi_boundary!("aeron_properties_http_load", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let url = unsafe { c_str_arg(url, "url") }?;
        Err(Error::not_supported(format!("loading properties over HTTP is not supported: {url}")))
    })
}

/// Applies properties from a `file://` URL or a file path (`http://` URLs are not
/// supported). Returns 0, or -1 as `aeron_properties_file_load`.
///
/// # Safety
/// `url_or_filename` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_properties_load(url_or_filename: *const c_char) -> c_int {
    ffi_boundary!("aeron_properties_load", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let location = unsafe { c_str_arg(url_or_filename, "url_or_filename") }?;
        properties::apply(&properties::load(location)?);
        Ok(0)
    })
}
