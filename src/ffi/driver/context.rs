//! `aeron_driver_context_t`: the embedded driver's settings (`aeronmd.h`), read from the
//! environment by `aeron_driver_context_init` and changed by the `_set_*` functions until
//! `aeron_driver_init` copies them into a driver. Also the directory and threading mode
//! settings, which need more than a plain value.
//!
//! Threading: a context is not thread-safe; use it from one thread at a time.

use std::collections::HashMap;
use std::ffi::{CString, c_char, c_int};
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::driver::context::{DriverContext, ThreadingMode};
use crate::ffi::driver::callbacks::CCallbacks;
use crate::ffi::handles::{self, Handle};
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

/// The embedded media driver's settings. Opaque; created by `aeron_driver_context_init`,
/// freed by `aeron_driver_context_close`.
#[allow(non_camel_case_types)]
pub struct aeron_driver_context_t {
    _private: [u8; 0],
}

/// Threading mode of the driver: one of `AERON_THREADING_MODE_*`.
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct aeron_threading_mode_t(pub c_int);

/// Conductor, sender and receiver each on their own thread.
pub const AERON_THREADING_MODE_DEDICATED: c_int = 0;
/// Conductor on one thread, sender and receiver sharing another.
pub const AERON_THREADING_MODE_SHARED_NETWORK: c_int = 1;
/// All agents on one thread.
pub const AERON_THREADING_MODE_SHARED: c_int = 2;
/// No driver threads: the application calls `aeron_driver_main_do_work`.
pub const AERON_THREADING_MODE_INVOKER: c_int = 3;

/// What an `aeron_driver_context_t` points to.
pub(crate) struct DriverContextHandle {
    pub(crate) ctx: DriverContext,
    /// Strings handed out by getters, by getter; replaced only when the value changed, so a
    /// returned pointer stays valid until its setting changes or the context is closed.
    strings: HashMap<&'static str, CString>,
    /// The C functions and states behind the context's callbacks, for the getters.
    pub(crate) callbacks: CCallbacks,
}

impl DriverContextHandle {
    /// A C string for `value` that lives as described on `strings`.
    fn c_string(&mut self, key: &'static str, value: &str) -> Result<*const c_char> {
        let fresh =
            CString::new(value).map_err(|_| Error::invalid_argument(format!("{key}: value contains NUL")))?;
        let kept = self.strings.entry(key).or_insert_with(|| fresh.clone());
        if *kept != fresh {
            *kept = fresh;
        }
        Ok(kept.as_ptr())
    }
}

impl Handle for aeron_driver_context_t {
    type Target = DriverContextHandle;
}

/// The handle behind `context`, or EINVAL for NULL.
///
/// # Safety
/// `context` must be NULL or from `aeron_driver_context_init` and not closed, used by one
/// thread at a time.
pub(crate) unsafe fn handle<'a>(context: *mut aeron_driver_context_t) -> Result<&'a mut DriverContextHandle> {
    // SAFETY: NULL or a live context, not aliased meanwhile (contract).
    unsafe { handles::borrow_mut(context, "context") }
}

/// Changes a setting. Returns 0, or EINVAL for a NULL context.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn set(
    context: *mut aeron_driver_context_t,
    change: impl FnOnce(&mut DriverContext),
) -> Result<c_int> {
    // SAFETY: as this function's contract.
    change(&mut unsafe { handle(context) }?.ctx);
    Ok(0)
}

/// Changes a setting with a check that may fail. Returns 0, or the error.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn try_set(
    context: *mut aeron_driver_context_t,
    change: impl FnOnce(&mut DriverContext) -> Result<()>,
) -> Result<c_int> {
    // SAFETY: as this function's contract.
    change(&mut unsafe { handle(context) }?.ctx)?;
    Ok(0)
}

/// Aeron's defaults, which the getters report for a NULL context.
pub(crate) fn defaults() -> &'static DriverContext {
    static DEFAULTS: OnceLock<DriverContext> = OnceLock::new();
    DEFAULTS.get_or_init(DriverContext::default)
}

/// Reads a setting, or its default for a NULL context.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn get<T>(
    context: *mut aeron_driver_context_t,
    read: impl FnOnce(&DriverContext) -> T,
) -> T {
    // SAFETY: NULL or live (contract).
    match unsafe { handles::try_borrow(context) } {
        Some(handle) => read(&handle.ctx),
        None => read(defaults()),
    }
}

/// Reads what a callback getter reports from the context's C callbacks, or `null_context`
/// for a NULL context.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn get_callback<T>(
    context: *mut aeron_driver_context_t,
    null_context: T,
    read: impl FnOnce(&CCallbacks) -> T,
) -> T {
    // SAFETY: NULL or live (contract).
    match unsafe { handles::try_borrow(context) } {
        Some(handle) => read(&handle.callbacks),
        None => null_context,
    }
}

/// Reads a text setting as a C string owned by the context (NULL when unset); `null_context`
/// is what a NULL context reports.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn get_string(
    context: *mut aeron_driver_context_t,
    key: &'static str,
    null_context: *const c_char,
    read: impl FnOnce(&DriverContext) -> Option<String>,
) -> Result<*const c_char> {
    if context.is_null() {
        return Ok(null_context);
    }
    // SAFETY: non-null and live (contract).
    let h = unsafe { handle(context) }?;
    match read(&h.ctx) {
        Some(value) => h.c_string(key, &value),
        None => Ok(std::ptr::null()),
    }
}

fn threading_mode_from_c(mode: aeron_threading_mode_t) -> Result<ThreadingMode> {
    match mode.0 {
        AERON_THREADING_MODE_DEDICATED => Ok(ThreadingMode::Dedicated),
        AERON_THREADING_MODE_SHARED_NETWORK => Ok(ThreadingMode::SharedNetwork),
        AERON_THREADING_MODE_SHARED => Ok(ThreadingMode::Shared),
        AERON_THREADING_MODE_INVOKER => Ok(ThreadingMode::Invoker),
        other => Err(Error::invalid_argument(format!("unknown threading mode {other}"))),
    }
}

fn threading_mode_to_c(mode: ThreadingMode) -> aeron_threading_mode_t {
    aeron_threading_mode_t(match mode {
        ThreadingMode::Dedicated => AERON_THREADING_MODE_DEDICATED,
        ThreadingMode::SharedNetwork => AERON_THREADING_MODE_SHARED_NETWORK,
        ThreadingMode::Shared => AERON_THREADING_MODE_SHARED,
        ThreadingMode::Invoker => AERON_THREADING_MODE_INVOKER,
    })
}

impl crate::ffi::FailureValue for aeron_threading_mode_t {
    fn failure() -> Self {
        aeron_threading_mode_t(-1)
    }
}

// The exports, over the helpers above: generated from the table in build/driver_context_exports.rs.
include!(concat!(env!("OUT_DIR"), "/driver_context_ffi.rs"));
