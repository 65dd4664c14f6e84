//! `aeron_counter_*`: counters this client added (`aeron_async_add_counter`,
//! `aeron_async_add_static_counter`), over [`crate::client::Counter`].
//!
//! Threading: any thread may use a counter; its value is a 64-bit word in shared memory
//! that the application updates with its own atomics through `aeron_counter_addr`. Close it
//! once; the handle stays readable (closed) for the resource linger duration.

use std::ffi::{c_int, c_void};
use std::sync::Weak;

use crate::client::Counter;
use crate::client::resource_linger::{ResourceLinger, linger_or_drop};
use crate::ffi::context_callbacks::aeron_notification_t;
use crate::ffi::handles::{Handle, borrow, reclaim};
use crate::ffi::write_out;
use crate::util::error::Result;

/// A counter. Opaque; from `aeron_async_add_counter_poll`, freed by `aeron_counter_close`.
#[allow(non_camel_case_types)]
pub struct aeron_counter_t {
    _private: [u8; 0],
}

/// What does not change during a counter's life.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_counter_constants_t {
    /// The registration id (for a static counter: the one given when adding it).
    pub registration_id: i64,
    /// The counter's id in the driver's counters.
    pub counter_id: i32,
}

/// What an `aeron_counter_t` points to.
pub(crate) struct CounterHandle {
    counter: Counter,
    client: Weak<ResourceLinger>,
}

impl Handle for aeron_counter_t {
    type Target = CounterHandle;
}

impl CounterHandle {
    pub(crate) fn new(counter: Counter, client: Weak<ResourceLinger>) -> Self {
        Self { counter, client }
    }
}

/// # Safety
/// `counter` NULL or open (or lingering after close).
unsafe fn handle<'a>(counter: *mut aeron_counter_t) -> Result<&'a CounterHandle> {
    // SAFETY: forwarded contract.
    unsafe { borrow(counter, "counter") }
}

/// The address of the counter's value (8-byte aligned, in the driver's CnC), for atomic
/// reads and writes by the application. Valid while the client is open. NULL for NULL.
///
/// # Safety
/// `counter` NULL or open.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counter_addr(counter: *mut aeron_counter_t) -> *mut i64 {
    ffi_boundary!("aeron_counter_addr", {
        // SAFETY: forwarded contract.
        Ok(unsafe { handle(counter) }?.counter.value_ptr())
    })
}

/// Fills `*constants`. Returns 0, or -1 for NULL arguments.
///
/// # Safety
/// `counter` NULL or open; `constants` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counter_constants(
    counter: *mut aeron_counter_t,
    constants: *mut aeron_counter_constants_t,
) -> c_int {
    ffi_boundary!("aeron_counter_constants", {
        // SAFETY: forwarded contract.
        let c = &unsafe { handle(counter) }?.counter;
        let value =
            aeron_counter_constants_t { registration_id: c.registration_id(), counter_id: c.counter_id() };
        // SAFETY: NULL or writable (contract).
        unsafe { write_out(constants, "constants", value) }
    })
}

/// Closes the counter: the driver frees it (a static counter stays in the driver). Calls
/// `on_close_complete(on_close_complete_clientd)` if not NULL, on this thread, once done.
/// NULL is accepted. Returns 0.
///
/// # Safety
/// `counter` NULL or open, closed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counter_close(
    counter: *mut aeron_counter_t,
    on_close_complete: aeron_notification_t,
    on_close_complete_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_counter_close", {
        if counter.is_null() {
            return Ok(0);
        }
        // SAFETY: open (contract).
        unsafe { handle(counter) }?.counter.close();
        if let Some(notify) = on_close_complete {
            // SAFETY: the caller's callback with its clientd.
            unsafe { notify(on_close_complete_clientd) };
        }
        // SAFETY: closed once (contract): the only reclaim of the box.
        if let Some(boxed) = unsafe { reclaim(counter) } {
            let client = boxed.client.clone();
            linger_or_drop(&client, boxed);
        }
        Ok(0)
    })
}

/// Whether the counter is closed (by close, by the driver, or with its client).
///
/// # Safety
/// `counter` NULL or open (or lingering).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counter_is_closed(counter: *mut aeron_counter_t) -> bool {
    ffi_boundary!("aeron_counter_is_closed", {
        // SAFETY: forwarded contract.
        Ok(unsafe { handle(counter) }?.counter.is_closed())
    })
}
