//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h`: cPU affinities and the async executor of the driver's agents.
//! Setters store the value (validated when the driver starts); getters of a NULL context
//! return Aeron's default.

use std::ffi::c_int;

use crate::ffi::driver::context::{aeron_driver_context_t, get, set};
use crate::ffi::ffi_boundary;

/// Sets the CPU the conductor thread is pinned to by `aeron_set_thread_affinity_on_start`; -1
/// for none (default -1) (`AERON_CONDUCTOR_CPU_AFFINITY`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_conductor_cpu_affinity(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_conductor_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.conductor_cpu_affinity = value) }
    })
}

/// Returns the CPU the conductor thread is pinned to by `aeron_set_thread_affinity_on_start`;
/// -1 for none (default -1); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_conductor_cpu_affinity(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_conductor_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.conductor_cpu_affinity) })
    })
}

/// Sets the CPU the sender thread is pinned to; -1 for none (default -1)
/// (`AERON_SENDER_CPU_AFFINITY`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_cpu_affinity(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sender_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.sender_cpu_affinity = value) }
    })
}

/// Returns the CPU the sender thread is pinned to; -1 for none (default -1); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_cpu_affinity(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_sender_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.sender_cpu_affinity) })
    })
}

/// Sets the CPU the receiver thread is pinned to; -1 for none (default -1)
/// (`AERON_RECEIVER_CPU_AFFINITY`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_cpu_affinity(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.receiver_cpu_affinity = value) }
    })
}

/// Returns the CPU the receiver thread is pinned to; -1 for none (default -1); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_cpu_affinity(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_receiver_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.receiver_cpu_affinity) })
    })
}

/// Sets threads for the conductor's slow tasks, 0 or 1 (default 1)
/// (`AERON_DRIVER_ASYNC_EXECUTOR_THREADS`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_async_executor_threads(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_async_executor_threads", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.async_executor_threads = value) }
    })
}

/// Returns threads for the conductor's slow tasks, 0 or 1 (default 1); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_async_executor_threads(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeron_driver_context_get_async_executor_threads", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.async_executor_threads) })
    })
}

/// Sets the CPU of the async executor thread; -1 for none (default -1)
/// (`AERON_DRIVER_ASYNC_EXECUTOR_CPU_AFFINITY`). Returns 0, or -1 (EINVAL) if `context` is
/// NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_async_executor_cpu_affinity(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_async_executor_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.async_executor_cpu_affinity = value) }
    })
}

/// Returns the CPU of the async executor thread; -1 for none (default -1); Aeron's default for
/// a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_async_executor_cpu_affinity(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_async_executor_cpu_affinity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.async_executor_cpu_affinity) })
    })
}
