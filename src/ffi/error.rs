//! `aeron_errcode()` / `aeron_errmsg()`: the thread-local error of the last failing call.

use std::ffi::{c_char, c_int};

use crate::util::error::AeronErrorCode;

/// The error code of the last failing aeron call on this thread: a positive `errno`, or a
/// negative Aeron code (`-AERON_ERROR_CODE_*`, `AERON_CLIENT_ERROR_*`). 0 if none.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_errcode() -> c_int {
    super::last_error_code()
}

/// The message of the last failing aeron call on this thread, never NULL. Valid until this
/// thread's next failing call.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_errmsg() -> *const c_char {
    super::last_error_message_ptr()
}

/// Aeron's description of an error code of the control protocol (`AERON_ERROR_CODE_*`,
/// positive: `aeron_error_code_str(-aeron_errcode())` for a negative errcode), e.g.
/// "invalid channel"; "unknown error code" for others. A static string, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_error_code_str(errcode: c_int) -> *const c_char {
    AeronErrorCode::description(errcode).as_ptr()
}

/// Clears this thread's error: `aeron_errcode()` 0, `aeron_errmsg()` empty, `errno` 0.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_err_clear() {
    super::clear_last_error();
    // SAFETY: __errno_location returns this thread's errno, always valid for a write.
    unsafe { *libc::__errno_location() = 0 };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{boundary, set_last_error};
    use crate::util::error::Error;
    use std::ffi::CStr;

    fn errmsg() -> String {
        // SAFETY: aeron_errmsg never returns NULL and the string lives until the next error.
        unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn errors_are_recorded_per_thread() {
        set_last_error("test_fn", &Error::invalid_argument("bad thing"));
        assert_eq!(aeron_errcode(), libc::EINVAL);
        assert_eq!(errmsg(), format!("({}) test_fn: bad thing", libc::EINVAL));
        std::thread::spawn(|| assert_eq!(aeron_errcode(), 0)).join().unwrap();
    }

    #[test]
    fn code_strings_and_clear() {
        // SAFETY: aeron_error_code_str returns static NUL-terminated strings.
        let text = |code| unsafe { CStr::from_ptr(aeron_error_code_str(code)) }.to_str().unwrap();
        assert_eq!(text(1), "invalid channel");
        assert_eq!(text(11), "generic error, see message");
        assert_eq!(text(99), "unknown error code");
        set_last_error("f", &Error::invalid_argument("x"));
        aeron_err_clear();
        assert_eq!((aeron_errcode(), errmsg().as_str()), (0, ""));
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(0));
    }

    #[test]
    fn boundary_turns_panic_into_failure_value() {
        let r: c_int = boundary("panicky", || panic!("boom"));
        assert_eq!(r, -1);
        assert_eq!(aeron_errcode(), -11);
        assert!(errmsg().contains("panic: boom"), "{}", errmsg());
        let p: *mut u8 = boundary("failing", || Err(Error::invalid_argument("x")));
        assert!(p.is_null());
        let ok: c_int = boundary("ok", || Ok(5));
        assert_eq!(ok, 5);
    }
}
