//! The embedded media driver API of `aeronmd.h`: a driver context (settings), then
//! `aeron_driver_init` (creates the Aeron directory and `cnc.dat`), `aeron_driver_start`
//! (driver thread, or a manual main loop driven by `aeron_driver_main_do_work`) and
//! `aeron_driver_close`. The env var names are `#define`s in `include/aeronrs_driver_env.h.in`.
//!
//! Threading: a driver handle is used from one thread at a time (the one driving the main
//! loop, if manual); the driver's own threads never touch the handle.

use std::ffi::{CStr, c_char, c_int, c_void};

use crate::driver::{MediaDriver, ThreadingMode};
use crate::ffi::handles::{self, Handle};
use crate::ffi::{error_from_c, ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

pub mod callbacks;
pub mod context;
pub mod duty_cycle_trackers;
pub mod media;
pub mod name_resolver;
pub mod port_managers;
pub mod settings;
pub mod settings_idle;
pub mod settings_udp;

use context::{DriverContextHandle, aeron_driver_context_t, handle as context_handle};

/// The function type inside a nullable C function pointer type (`Option<unsafe extern "C"
/// fn ...>`), so that a signature is spelled once, in its typedef.
pub(crate) trait NullableFn {
    type Fn;
}

impl<F> NullableFn for Option<F> {
    type Fn = F;
}

/// The function type of the C function pointer typedef `T`.
pub(crate) type FnOf<T> = <T as NullableFn>::Fn;

/// The failure of calling one of this library's marker functions (C functions that stand
/// for something only the driver does): -1 with ENOTSUP and `why`, as the call `name`'s
/// error.
#[cold]
#[inline(never)]
pub(crate) fn marker_called(name: &str, why: &str) -> c_int {
    crate::ffi::set_last_error(name, &Error::with_code(libc::ENOTSUP, why));
    -1
}

/// The result `rc` of a C plug-in's function `what`: `rc` unless negative, else the error
/// the plug-in reported.
pub(crate) fn c_result(rc: c_int, what: &str) -> Result<c_int> {
    if rc < 0 { Err(error_from_c(what)) } else { Ok(rc) }
}

/// Asserts a C struct's size and field offsets: Aeron's layout on the 64-bit (LP64)
/// targets, as `c-tests/test_driver_plugins.c` checks it from C.
macro_rules! assert_layout {
    ($t:ty, size $size:literal $(, $field:ident @ $offset:literal)* $(,)?) => {
        #[cfg(target_pointer_width = "64")]
        const _: () = {
            assert!(std::mem::size_of::<$t>() == $size);
            $(assert!(std::mem::offset_of!($t, $field) == $offset);)*
        };
    };
}
pub(crate) use assert_layout;

/// An embedded media driver. Opaque; created by `aeron_driver_init`, freed by
/// `aeron_driver_close`.
#[allow(non_camel_case_types)]
pub struct aeron_driver_t {
    _private: [u8; 0],
}

/// The driver behind `driver`, or EINVAL for NULL.
///
/// # Safety
/// `driver` must be NULL or from `aeron_driver_init` and not closed.
unsafe fn driver_handle<'a>(driver: *mut aeron_driver_t) -> Result<&'a mut MediaDriver> {
    // SAFETY: NULL or from aeron_driver_init, used by one thread at a time (contract).
    unsafe { handles::borrow_mut(driver, "driver") }
}

impl Handle for aeron_driver_t {
    type Target = MediaDriver;
}

// The exports, over the helpers above: generated from the table in build/driver_exports.rs.
include!(concat!(env!("OUT_DIR"), "/driver_ffi.rs"));
