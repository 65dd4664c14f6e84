//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h`: timeouts, intervals and duty cycle thresholds.
//! Setters store the value (validated when the driver starts); getters of a NULL context
//! return Aeron's default.

use std::ffi::c_int;

use crate::ffi::driver::context::{aeron_driver_context_t, get, set};
use crate::ffi::ffi_boundary;

/// Sets how long a client may go without a keepalive before it is timed out, in ns (default 10
/// s) (`AERON_CLIENT_LIVENESS_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_client_liveness_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_client_liveness_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.client_liveness_timeout_ns = value) }
    })
}

/// Returns how long a client may go without a keepalive before it is timed out, in ns (default
/// 10 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_client_liveness_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_client_liveness_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.client_liveness_timeout_ns) })
    })
}

/// Sets how long a closed publication lingers for its subscribers to drain it, in ns (default 5
/// s) (`AERON_PUBLICATION_LINGER_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_linger_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_linger_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_linger_timeout_ns = value) }
    })
}

/// Returns how long a closed publication lingers for its subscribers to drain it, in ns
/// (default 5 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_linger_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_publication_linger_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_linger_timeout_ns) })
    })
}

/// Sets how long an image lives without data or heartbeats, in ns (default 10 s)
/// (`AERON_IMAGE_LIVENESS_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_image_liveness_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_image_liveness_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.image_liveness_timeout_ns = value) }
    })
}

/// Returns how long an image lives without data or heartbeats, in ns (default 10 s); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_image_liveness_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_image_liveness_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.image_liveness_timeout_ns) })
    })
}

/// Sets how long a claimed but uncommitted frame may block a publication before it is
/// unblocked, in ns (default 15 s) (`AERON_PUBLICATION_UNBLOCK_TIMEOUT`). Returns 0, or -1
/// (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_unblock_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_unblock_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_unblock_timeout_ns = value) }
    })
}

/// Returns how long a claimed but uncommitted frame may block a publication before it is
/// unblocked, in ns (default 15 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_unblock_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_publication_unblock_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_unblock_timeout_ns) })
    })
}

/// Sets how long a publication stays connected without status messages, in ns (default 5 s)
/// (`AERON_PUBLICATION_CONNECTION_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_publication_connection_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_publication_connection_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.publication_connection_timeout_ns = value) }
    })
}

/// Returns how long a publication stays connected without status messages, in ns (default 5 s);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_publication_connection_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_publication_connection_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.publication_connection_timeout_ns) })
    })
}

/// Sets the interval of the conductor's timer checks, in ns (default 1 s)
/// (`AERON_TIMER_INTERVAL`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_timer_interval_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_timer_interval_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.timer_interval_ns = value) }
    })
}

/// Returns the interval of the conductor's timer checks, in ns (default 1 s); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_timer_interval_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_timer_interval_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.timer_interval_ns) })
    })
}

/// Sets how long a freed counter id waits before reuse, in ns (default 1 s)
/// (`AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_counters_free_to_reuse_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_counters_free_to_reuse_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.counters_free_to_reuse_timeout_ns = value) }
    })
}

/// Returns how long a freed counter id waits before reuse, in ns (default 1 s); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_counters_free_to_reuse_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_counters_free_to_reuse_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.counters_free_to_reuse_timeout_ns) })
    })
}

/// Sets how long an untethered subscriber may stay a window behind before it is left behind, in
/// ns (default 5 s) (`AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_untethered_window_limit_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_untethered_window_limit_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.untethered_window_limit_timeout_ns = value) }
    })
}

/// Returns how long an untethered subscriber may stay a window behind before it is left behind,
/// in ns (default 5 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_untethered_window_limit_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_untethered_window_limit_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.untethered_window_limit_timeout_ns) })
    })
}

/// Sets how long a left-behind untethered subscriber rests before rejoining, in ns (default 10
/// s) (`AERON_UNTETHERED_RESTING_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_untethered_resting_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_untethered_resting_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.untethered_resting_timeout_ns = value) }
    })
}

/// Returns how long a left-behind untethered subscriber rests before rejoining, in ns (default
/// 10 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_untethered_resting_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_untethered_resting_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.untethered_resting_timeout_ns) })
    })
}

/// Sets the driver liveness timeout clients apply, in ms (default 10 000)
/// (`AERON_DRIVER_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_driver_timeout_ms(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_driver_timeout_ms", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.driver_timeout_ms = value) }
    })
}

/// Returns the driver liveness timeout clients apply, in ms (default 10 000); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_driver_timeout_ms(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_driver_timeout_ms", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.driver_timeout_ms) })
    })
}

/// Sets the longest interval between a receiver's status messages, in ns (default 200 ms)
/// (`AERON_RCV_STATUS_MESSAGE_TIMEOUT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_rcv_status_message_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_rcv_status_message_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.status_message_timeout_ns = value) }
    })
}

/// Returns the longest interval between a receiver's status messages, in ns (default 200 ms);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_rcv_status_message_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_rcv_status_message_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.status_message_timeout_ns) })
    })
}

/// Sets how often endpoint names are resolved again, in ns (default 1 s)
/// (`AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL`). Returns 0, or -1 (EINVAL) if `context` is
/// NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_re_resolution_check_interval_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_re_resolution_check_interval_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.re_resolution_check_interval_ns = value) }
    })
}

/// Returns how often endpoint names are resolved again, in ns (default 1 s); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_re_resolution_check_interval_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_re_resolution_check_interval_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.re_resolution_check_interval_ns) })
    })
}

/// Sets how long a silent receiver stays in min/tagged flow control, in ns (default 5 s)
/// (`AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_flow_control_receiver_timeout_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_flow_control_receiver_timeout_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.flow_control_receiver_timeout_ns = value) }
    })
}

/// Returns how long a silent receiver stays in min/tagged flow control, in ns (default 5 s);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_flow_control_receiver_timeout_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_flow_control_receiver_timeout_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.flow_control_receiver_timeout_ns) })
    })
}

/// Sets the conductor duty cycle time above which a cycle is counted as exceeding, in ns
/// (default 1 s) (`AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_conductor_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> i64 {
    ffi_boundary!("aeron_driver_context_set_conductor_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.conductor_cycle_threshold_ns = value).map(i64::from) }
    })
}

/// Returns the conductor duty cycle time above which a cycle is counted as exceeding, in ns
/// (default 1 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_conductor_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_conductor_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.conductor_cycle_threshold_ns as i64) })
    })
}

/// Sets the sender duty cycle time above which a cycle is counted as exceeding, in ns (default
/// 1 s) (`AERON_DRIVER_SENDER_CYCLE_THRESHOLD`). Returns 0, or -1 (EINVAL) if `context` is
/// NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> i64 {
    ffi_boundary!("aeron_driver_context_set_sender_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.sender_cycle_threshold_ns = value).map(i64::from) }
    })
}

/// Returns the sender duty cycle time above which a cycle is counted as exceeding, in ns
/// (default 1 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_sender_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.sender_cycle_threshold_ns as i64) })
    })
}

/// Sets the receiver duty cycle time above which a cycle is counted as exceeding, in ns
/// (default 1 s) (`AERON_DRIVER_RECEIVER_CYCLE_THRESHOLD`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> i64 {
    ffi_boundary!("aeron_driver_context_set_receiver_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.receiver_cycle_threshold_ns = value).map(i64::from) }
    })
}

/// Returns the receiver duty cycle time above which a cycle is counted as exceeding, in ns
/// (default 1 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_cycle_threshold_ns(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_receiver_cycle_threshold_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.receiver_cycle_threshold_ns as i64) })
    })
}

/// Sets the name resolution time above which a resolution is counted as exceeding, in ns
/// (default 5 s) (`AERON_DRIVER_NAME_RESOLVER_THRESHOLD`). Returns 0, or -1 (EINVAL) if
/// `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_name_resolver_threshold_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> i64 {
    ffi_boundary!("aeron_driver_context_set_name_resolver_threshold_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.agents.name_resolver_threshold_ns = value).map(i64::from) }
    })
}

/// Returns the name resolution time above which a resolution is counted as exceeding, in ns
/// (default 5 s); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_name_resolver_threshold_ns(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_name_resolver_threshold_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.agents.name_resolver_threshold_ns as i64) })
    })
}
