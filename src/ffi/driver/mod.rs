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

/// Creates a driver from `context`'s settings (copied: later changes to the context do not
/// affect it): validates them, prepares the Aeron directory (failing if a live driver uses
/// it), and creates `cnc.dat` and `loss-report.dat`. Nothing runs until
/// `aeron_driver_start`. Stores the driver in `*driver`. Returns 0, or -1: EINVAL for NULL
/// arguments or invalid settings (the message names the setting), the error of a file
/// operation, or an error when another driver is active in the directory.
///
/// # Safety
/// `driver` NULL or valid for a pointer write; `context` NULL or a live context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_init(
    driver: *mut *mut aeron_driver_t,
    context: *mut aeron_driver_context_t,
) -> c_int {
    ffi_boundary!("aeron_driver_init", {
        require_non_null!(driver, "driver");
        // SAFETY: NULL or live (contract).
        let settings = unsafe { context_handle(context) }?.ctx.clone();
        let media_driver = MediaDriver::init(settings)?;
        // SAFETY: driver is non-null and writable (contract).
        unsafe { driver.write(handles::into_raw(media_driver)) };
        Ok(0)
    })
}

/// Starts the driver: on its own thread, or, when `manual_main_loop` is true, on the
/// calling thread's schedule (call `aeron_driver_main_do_work` and
/// `aeron_driver_main_idle_strategy` in a loop). INVOKER threading mode requires a manual
/// main loop. Returns 0, or -1: EINVAL for NULL or INVOKER without a manual loop, EPERM if
/// already started.
///
/// # Safety
/// `driver` must be NULL or a live driver.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_start(driver: *mut aeron_driver_t, manual_main_loop: bool) -> c_int {
    ffi_boundary!("aeron_driver_start", {
        // SAFETY: NULL or live (contract).
        let d = unsafe { driver_handle(driver) }?;
        if !manual_main_loop && d.context().threading_mode == ThreadingMode::Invoker {
            return Err(Error::invalid_argument("INVOKER threading mode requires manual_main_loop"));
        }
        d.start(manual_main_loop)?;
        Ok(0)
    })
}

/// One duty cycle of a manually driven driver: returns the work done (0 when idle, or when
/// the driver runs on its own thread), or -1 (EINVAL for NULL, or the cycle's error).
///
/// # Safety
/// `driver` must be NULL or a live driver.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_main_do_work(driver: *mut aeron_driver_t) -> c_int {
    ffi_boundary!("aeron_driver_main_do_work", {
        // SAFETY: NULL or live (contract).
        unsafe { driver_handle(driver) }?.do_work()
    })
}

/// Idles with the driver's main idle strategy (the conductor's, or the shared one in
/// SHARED and INVOKER modes) after a duty cycle that did `work_count`. NULL: EINVAL.
///
/// # Safety
/// `driver` must be NULL or a live driver.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_main_idle_strategy(driver: *mut aeron_driver_t, work_count: c_int) {
    ffi_boundary!("aeron_driver_main_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe { driver_handle(driver) }?.idle(work_count);
        Ok(())
    })
}

/// Stops the driver (joining its thread), frees its resources, marks `cnc.dat` as shut down,
/// deletes the directory if configured, and frees the handle. The context stays open.
/// Returns 0, or -1 (EINVAL for NULL; the error of deleting the directory, after which the
/// handle is freed all the same).
///
/// # Safety
/// `driver` must be NULL or a live driver, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_close(driver: *mut aeron_driver_t) -> c_int {
    ffi_boundary!("aeron_driver_close", {
        // SAFETY: NULL or from aeron_driver_init, closed once (contract).
        let Some(mut media_driver) = (unsafe { handles::reclaim(driver) }) else {
            return Err(Error::invalid_argument("driver must not be NULL"));
        };
        media_driver.close()?;
        Ok(0)
    })
}

/// An agent on-start function (for `aeron_driver_context_set_agent_on_start_function`, with
/// the driver context as `state`) that pins each driver thread to the CPU its
/// `*_cpu_affinity` setting names: the conductor (also when it runs all agents), the sender
/// (also sender and receiver together) and the receiver; -1 leaves a thread alone. A failure
/// is reported on stderr; the thread runs on.
///
/// # Safety
/// `state` must be NULL or a live driver context not changed while the driver runs;
/// `role_name` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_set_thread_affinity_on_start(state: *mut c_void, role_name: *const c_char) {
    ffi_boundary!("aeron_set_thread_affinity_on_start", {
        // SAFETY: NULL or a live context (contract); only read.
        let h: &DriverContextHandle = unsafe { context_handle(state.cast()) }?;
        require_non_null!(role_name, "role_name");
        // SAFETY: non-null and NUL-terminated (contract).
        let role = unsafe { CStr::from_ptr(role_name) }.to_string_lossy();
        h.ctx.agents.apply_cpu_affinity(&role)
    })
}
