//! The non-variadic halves of `aeron_err_set` / `aeron_err_append` (`util/aeron_error.h`).
//! Stable Rust cannot define C variadic functions, so the header's `static inline` versions
//! format the message with `vsnprintf` and hand the text to these.

use std::ffi::{CStr, c_char, c_int};

use crate::ffi::{append_last_error_text, ffi_boundary, set_last_error_text};
use crate::util::error::code_description;

/// `[function, file:line] message` plus a newline: one frame of Aeron's error trace.
///
/// # Safety
/// Each pointer must be NULL (printed as empty) or NUL-terminated.
unsafe fn frame(
    function: *const c_char,
    filename: *const c_char,
    line_number: c_int,
    message: *const c_char,
) -> String {
    let text = |ptr: *const c_char| {
        if ptr.is_null() {
            String::new()
        } else {
            // SAFETY: non-null and NUL-terminated (contract).
            unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
        }
    };
    format!("[{}, {}:{line_number}] {}\n", text(function), text(filename), text(message))
}

/// Sets this thread's error (`aeron_errcode()` = `errcode`, > 0 an `errno`, < 0 an Aeron
/// code) to Aeron's layout: `(errcode) <what the code means>` on the first line, then the
/// frame `[function, filename:line_number] message`. `aeron_err_set` in
/// `util/aeron_error.h` calls it with the formatted message. Also sets `errno` to `errcode`.
///
/// # Safety
/// `function`, `filename` and `message` must each be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_err_set(
    errcode: c_int,
    function: *const c_char,
    filename: *const c_char,
    line_number: c_int,
    message: *const c_char,
) {
    ffi_boundary!("aeronrs_err_set", {
        // SAFETY: the pointers are NULL or NUL-terminated (contract).
        let frame = unsafe { frame(function, filename, line_number, message) };
        set_last_error_text(errcode, &format!("({errcode}) {}\n{frame}", code_description(errcode)));
        // SAFETY: __errno_location returns this thread's errno, always valid for a write.
        unsafe { *libc::__errno_location() = errcode };
        Ok(())
    })
}

/// Appends the frame `[function, filename:line_number] message` to this thread's error
/// message, keeping its code (`aeron_err_append` in `util/aeron_error.h`).
///
/// # Safety
/// As `aeronrs_err_set`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_err_append(
    function: *const c_char,
    filename: *const c_char,
    line_number: c_int,
    message: *const c_char,
) {
    ffi_boundary!("aeronrs_err_append", {
        // SAFETY: the pointers are NULL or NUL-terminated (contract).
        append_last_error_text(&unsafe { frame(function, filename, line_number, message) });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::error::{aeron_errcode, aeron_errmsg};

    fn errmsg() -> String {
        // SAFETY: aeron_errmsg never returns NULL.
        unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn set_then_append_reads_as_aeron_trace() {
        // SAFETY: all strings are NUL-terminated literals.
        unsafe {
            aeronrs_err_set(
                libc::EINVAL,
                c"open_log".as_ptr(),
                c"log.c".as_ptr(),
                42,
                c"bad length 7".as_ptr(),
            )
        };
        // SAFETY: as above.
        unsafe { aeronrs_err_append(c"main".as_ptr(), c"app.c".as_ptr(), 9, c"startup failed".as_ptr()) };
        assert_eq!(aeron_errcode(), libc::EINVAL);
        assert_eq!(
            errmsg(),
            "(22) Invalid argument\n[open_log, log.c:42] bad length 7\n[main, app.c:9] startup failed\n"
        );
        // SAFETY: NULL pointers are allowed.
        unsafe { aeronrs_err_set(-1, std::ptr::null(), std::ptr::null(), 0, std::ptr::null()) };
        assert_eq!((aeron_errcode(), errmsg().as_str()), (-1, "(-1) invalid channel\n[, :0] \n"));
    }
}
