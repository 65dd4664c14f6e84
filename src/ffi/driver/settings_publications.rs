//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h`: mTUs, windows, stream defaults and session ids of publications.
//! Setters store the value (validated when the driver starts); getters of a NULL context
//! return Aeron's default.

use std::ffi::c_int;

use crate::ffi::driver::context::{aeron_driver_context_t, get, set};
use crate::ffi::ffi_boundary;

/// Sets the MTU of network publications, a multiple of 32 (default 1408) (`AERON_MTU_LENGTH`).
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_mtu_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_mtu_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.mtu_length = value) }
    })
}

/// Returns the MTU of network publications, a multiple of 32 (default 1408); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_mtu_length(context: *mut aeron_driver_context_t) -> usize {
    ffi_boundary!("aeron_driver_context_get_mtu_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.mtu_length) })
    })
}

/// Sets the MTU (largest fragment) of IPC publications (default 1408) (`AERON_IPC_MTU_LENGTH`).
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_ipc_mtu_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_ipc_mtu_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.ipc_mtu_length = value) }
    })
}

/// Returns the MTU (largest fragment) of IPC publications (default 1408); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_ipc_mtu_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_ipc_mtu_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.ipc_mtu_length) })
    })
}

/// Sets how far an IPC publication may run ahead of its slowest subscriber; 0 for half a term
/// (default 0) (`AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_ipc_publication_term_window_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_ipc_publication_term_window_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.ipc_publication_term_window_length = value) }
    })
}

/// Returns how far an IPC publication may run ahead of its slowest subscriber; 0 for half a
/// term (default 0); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_ipc_publication_term_window_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_ipc_publication_term_window_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.ipc_publication_term_window_length) })
    })
}

/// Sets how far a network publication may run ahead of its sender; 0 for half a term (default
/// 0) (`AERON_PUBLICATION_TERM_WINDOW_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_term_window_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_term_window_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_term_window_length = value) }
    })
}

/// Returns how far a network publication may run ahead of its sender; 0 for half a term
/// (default 0); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_term_window_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_publication_term_window_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_term_window_length) })
    })
}

/// Sets whether streams are reliable (gaps are NAKed) by default (default true)
/// (`AERON_RELIABLE_STREAM`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_reliable_stream(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_reliable_stream", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.reliable_stream = value) }
    })
}

/// Returns whether streams are reliable (gaps are NAKed) by default (default true); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_reliable_stream(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_reliable_stream", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.reliable_stream) })
    })
}

/// Sets whether subscriptions hold publications back by default (default true)
/// (`AERON_TETHER_SUBSCRIPTIONS`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_tether_subscriptions(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_tether_subscriptions", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.tether_subscriptions = value) }
    })
}

/// Returns whether subscriptions hold publications back by default (default true); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_tether_subscriptions(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_tether_subscriptions", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.tether_subscriptions) })
    })
}

/// Sets whether a subscription rejoins a stream after its image went away (default true)
/// (`AERON_REJOIN_STREAM`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_rejoin_stream(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_rejoin_stream", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.rejoin_stream = value) }
    })
}

/// Returns whether a subscription rejoins a stream after its image went away (default true);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_rejoin_stream(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_rejoin_stream", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.rejoin_stream) })
    })
}

/// Sets the low end of the session ids the driver never assigns (default -1)
/// (`AERON_PUBLICATION_RESERVED_SESSION_ID_LOW`). Returns 0, or -1 (EINVAL) if `context` is
/// NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_reserved_session_id_low(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_reserved_session_id_low", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_reserved_session_id_low = value) }
    })
}

/// Returns the low end of the session ids the driver never assigns (default -1); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_reserved_session_id_low(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_publication_reserved_session_id_low", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_reserved_session_id_low) })
    })
}

/// Sets the high end of the session ids the driver never assigns (default 1000)
/// (`AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH`). Returns 0, or -1 (EINVAL) if `context` is
/// NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_reserved_session_id_high(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_reserved_session_id_high", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_reserved_session_id_high = value) }
    })
}

/// Returns the high end of the session ids the driver never assigns (default 1000); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_reserved_session_id_high(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_publication_reserved_session_id_high", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_reserved_session_id_high) })
    })
}

/// Sets the most publication sessions one stream may have (default INT32_MAX)
/// (`AERON_DRIVER_STREAM_SESSION_LIMIT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_stream_session_limit(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_stream_session_limit", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.stream_session_limit = value) }
    })
}

/// Returns the most publication sessions one stream may have (default INT32_MAX); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_stream_session_limit(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_stream_session_limit", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.stream_session_limit) })
    })
}

/// Sets whether experimental features are enabled (default false)
/// (`AERON_ENABLE_EXPERIMENTAL_FEATURES`): as in Aeron 1.48, response channels (UDP channels
/// with `control-mode=response` or `response-correlation-id`) are refused without them.
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_enable_experimental_features(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_enable_experimental_features", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.enable_experimental_features = value) }
    })
}

/// Returns whether experimental features are enabled (default false); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_enable_experimental_features(
    context: *mut aeron_driver_context_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_get_enable_experimental_features", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c_int::from(c.enable_experimental_features)) })
    })
}

/// Sets how many resources the conductor frees per duty cycle (default 10)
/// (`AERON_DRIVER_RESOURCE_FREE_LIMIT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_resource_free_limit(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_resource_free_limit", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.resource_free_limit = value) }
    })
}

/// Returns how many resources the conductor frees per duty cycle (default 10); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_resource_free_limit(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeron_driver_context_get_resource_free_limit", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.resource_free_limit) })
    })
}
