//! Layer 6: the C ABI. The only module with `extern "C"` and `#[unsafe(no_mangle)]`.
//!
//! Conventions (Aeron's C API): functions return `0`/`-1`, a pointer or `NULL`, or a
//! negative code; on failure the thread-local `aeron_errcode()` / `aeron_errmsg()` say
//! why. Every export runs inside [`ffi_boundary!`], so no panic unwinds into C.

use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int};

use crate::util::error::{AeronErrorCode, Error};

pub mod cnc;
pub mod counters_reader;
pub mod driver;
pub mod error;
pub mod extras;
pub mod util;
pub mod version;

/// Maximum length of the message `aeron_errmsg()` returns (Aeron's C buffer is 8 KiB).
const MAX_ERRMSG_LENGTH: usize = 8192;

struct LastError {
    code: c_int,
    message: CString,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError { code: 0, message: CString::default() });
}

/// Records `err` as this thread's last error, with the failing function as the first frame
/// of the message so `aeron_errmsg()` reads as a trace.
pub(crate) fn set_last_error(function: &str, err: &Error) {
    let message = c_message(format!("({}) {}: {}", err.code(), function, err.message()));
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.code = err.code();
        e.message = message;
    });
}

/// Replaces this thread's last error with `code` and `text` as given (cut to the 8 KiB
/// Aeron's buffer holds): errors C code reports through `aeron_err_set`.
pub(crate) fn set_last_error_text(code: c_int, text: &str) {
    let message = c_message(text.to_string());
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.code = code;
        e.message = message;
    });
}

/// Adds `text` to the end of this thread's last error message, keeping its code
/// (`aeron_err_append`: one more frame of the trace).
pub(crate) fn append_last_error_text(text: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        let mut combined = e.message.to_string_lossy().into_owned();
        combined.push_str(text);
        e.message = c_message(combined);
    });
}

/// `text` as the C string `aeron_errmsg()` returns: at most [`MAX_ERRMSG_LENGTH`] bytes
/// (cut at a character boundary), NULs replaced.
fn c_message(mut text: String) -> CString {
    if text.len() > MAX_ERRMSG_LENGTH {
        let mut cut = MAX_ERRMSG_LENGTH;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Clears this thread's last error (successful calls leave it as it was, like Aeron).
pub(crate) fn clear_last_error() {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.code = 0;
        e.message = CString::default();
    });
}

/// The error a C plug-in reported (through `AERON_SET_ERR`, i.e. this thread's last
/// error) when its `what` failed; a generic one if it set none.
#[cold]
pub(crate) fn error_from_c(what: &str) -> Error {
    let (code, message) =
        LAST_ERROR.with(|e| (e.borrow().code, e.borrow().message.to_string_lossy().into_owned()));
    match (code, message.is_empty()) {
        (0, true) => Error::aeron(AeronErrorCode::GenericError, format!("{what} failed (no error set)")),
        (0, false) => Error::aeron(AeronErrorCode::GenericError, format!("{what} failed: {message}")),
        _ => Error::with_code(code, format!("{what} failed: {message}")),
    }
}

pub(crate) fn last_error_code() -> c_int {
    LAST_ERROR.with(|e| e.borrow().code)
}

pub(crate) fn last_error_message_ptr() -> *const c_char {
    // The CString lives in the thread-local until this thread's next failing call, which is
    // the lifetime aeron_errmsg() documents.
    LAST_ERROR.with(|e| e.borrow().message.as_ptr())
}

/// The value an export returns when it fails: `-1` for ints, `NULL` for pointers, ...
pub(crate) trait FailureValue {
    fn failure() -> Self;
}

impl FailureValue for c_int {
    fn failure() -> Self {
        -1
    }
}

impl FailureValue for i64 {
    fn failure() -> Self {
        -1
    }
}

impl FailureValue for u8 {
    fn failure() -> Self {
        0
    }
}

impl FailureValue for u32 {
    fn failure() -> Self {
        0
    }
}

impl FailureValue for u64 {
    fn failure() -> Self {
        0
    }
}

impl FailureValue for usize {
    fn failure() -> Self {
        0
    }
}

impl FailureValue for bool {
    fn failure() -> Self {
        false
    }
}

impl FailureValue for () {
    fn failure() -> Self {}
}

/// Nullable function pointers (`Option<extern "C" fn>`) fail as NULL.
impl<T> FailureValue for Option<T> {
    fn failure() -> Self {
        None
    }
}

impl<T> FailureValue for *mut T {
    fn failure() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> FailureValue for *const T {
    fn failure() -> Self {
        std::ptr::null()
    }
}

/// Runs `body` (which returns `Result<T, Error>`), turning an `Err` or a panic into the
/// thread-local error plus `T::failure()`.
#[inline(always)]
pub(crate) fn boundary<T: FailureValue>(function: &str, body: impl FnOnce() -> Result<T, Error>) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(value)) => value,
        Ok(Err(err)) => {
            record_failure(function, err);
            T::failure()
        }
        Err(payload) => {
            record_panic(function, payload);
            T::failure()
        }
    }
}

// The failure paths live out of line, so every export's hot path stays short: no
// formatting or string handling inlined next to the work it guards.

#[cold]
#[inline(never)]
fn record_failure(function: &str, err: Error) {
    set_last_error(function, &err);
}

#[cold]
#[inline(never)]
fn record_panic(function: &str, payload: Box<dyn std::any::Any + Send>) {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    let err = Error::aeron(AeronErrorCode::GenericError, format!("panic: {what}"));
    set_last_error(function, &err);
}

/// `EINVAL` naming a NULL argument; out of line (see [`record_failure`]).
#[cold]
#[inline(never)]
pub(crate) fn null_argument(message: &'static str) -> Error {
    Error::invalid_argument(message)
}

/// `ffi_boundary!(fn_name, { ... Ok(value) })`: the body of every export.
macro_rules! ffi_boundary {
    ($name:literal, $body:block) => {
        $crate::ffi::boundary($name, move || $body)
    };
}
pub(crate) use ffi_boundary;

/// Rejects a NULL argument with `EINVAL` naming it.
macro_rules! require_non_null {
    ($ptr:expr, $name:literal) => {
        if $ptr.is_null() {
            return Err($crate::ffi::null_argument(concat!($name, " must not be NULL")));
        }
    };
}
pub(crate) use require_non_null;

/// Reads a NUL-terminated C string argument as UTF-8.
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string alive for the call.
pub(crate) unsafe fn c_str_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Error> {
    if ptr.is_null() {
        return Err(Error::invalid_argument(format!("{name} must not be NULL")));
    }
    // SAFETY: non-null and NUL-terminated per the caller's contract.
    let s = unsafe { std::ffi::CStr::from_ptr(ptr) };
    s.to_str().map_err(|_| Error::invalid_argument(format!("{name} is not valid UTF-8")))
}

/// [`c_str_arg`] for an optional string: NULL is `None`.
///
/// # Safety
/// As [`c_str_arg`].
pub(crate) unsafe fn optional_c_str_arg<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null and NUL-terminated per the caller's contract.
    unsafe { c_str_arg(ptr, name) }.map(Some)
}

/// Stores `value` in the out argument `out`, or EINVAL naming it for NULL; 0 for the export
/// to return.
///
/// # Safety
/// `out` must be NULL or valid for a write.
pub(crate) unsafe fn write_out<T>(out: *mut T, name: &str, value: T) -> Result<c_int, Error> {
    if out.is_null() {
        return Err(Error::invalid_argument(format!("{name} must not be NULL")));
    }
    // SAFETY: non-null and writable per the caller's contract.
    unsafe { out.write(value) };
    Ok(0)
}

/// The `length` bytes at `data` as a slice; NULL is allowed (as empty) only when `length`
/// is 0, else EINVAL naming the argument.
///
/// # Safety
/// `data` must be NULL or valid for reads of `length` bytes while the slice is used.
pub(crate) unsafe fn bytes_arg<'a>(data: *const u8, length: usize, name: &str) -> Result<&'a [u8], Error> {
    if length == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Error::invalid_argument(format!("{name} must not be NULL when its length is {length}")));
    }
    // SAFETY: non-null and readable for length bytes per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(data, length) })
}

// The client API of `aeronc.h`: one module per group of functions.
//
// Differences from libaeron that stay: `aeron_image_constants` leaves `subscription` NULL
// (an image does not know its C subscription handle; image handlers are given it);
// closing a resource calls its `on_close_complete` on the closing thread before returning;
// the default error handler prints without ending the process; `aeron_image_reject` waits
// for the driver's answer (so a refusal is its -1) where libaeron only sends the command.
// Destinations (`aeron_*_async_*destination*`): the commands name a publication by the
// registration id of the driver's publication (`original_registration_id`, as Java's
// blocking `Publication.addDestination` does) where libaeron sends the handle's own id,
// which the driver does not know for a second handle of a shared publication;
// `*_remove_destination_by_id` sends the destination id it is given (libaeron 1.47-1.48
// writes the publication's id in that field); a closed publication or subscription is -1
// (EPERM) at the call, where libaeron does not check; `aeron_async_destination_get_registration_id`
// takes NULL (-1, EINVAL) where libaeron dereferences it.
pub mod async_add;
pub mod buffer_claim;
pub mod client;
pub mod client_handlers;
pub mod context;
pub mod context_callbacks;
pub mod counter;
pub mod exclusive_publication;
pub mod fragment_assembler;
pub mod handles;
pub mod header;
pub mod image;
pub mod local_addresses;
pub mod publication;
pub mod publication_error;
pub mod subscription;
pub mod uri_string_builder;
