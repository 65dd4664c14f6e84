//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h`: sockets, status messages, NAKs, retransmits, flow control groups and batching.
//! Setters store the value (validated when the driver starts); getters of a NULL context
//! return Aeron's default.

use std::ffi::c_int;

use crate::ffi::driver::context::{aeron_driver_context_t, get, set, too_large, try_set};
use crate::ffi::ffi_boundary;

/// Sets SO_RCVBUF of UDP sockets; 0 keeps the OS default (default 128 KiB)
/// (`AERON_SOCKET_SO_RCVBUF`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_socket_so_rcvbuf(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_socket_so_rcvbuf", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.socket_so_rcvbuf = value) }
    })
}

/// Returns SO_RCVBUF of UDP sockets; 0 keeps the OS default (default 128 KiB); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_socket_so_rcvbuf(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_socket_so_rcvbuf", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.socket_so_rcvbuf) })
    })
}

/// Sets SO_SNDBUF of UDP sockets; 0 keeps the OS default (default 0)
/// (`AERON_SOCKET_SO_SNDBUF`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_socket_so_sndbuf(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_socket_so_sndbuf", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.socket_so_sndbuf = value) }
    })
}

/// Returns SO_SNDBUF of UDP sockets; 0 keeps the OS default (default 0); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_socket_so_sndbuf(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_socket_so_sndbuf", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.socket_so_sndbuf) })
    })
}

/// Sets IP_MULTICAST_TTL of outgoing sockets; 0 keeps the OS default (default 0)
/// (`AERON_SOCKET_MULTICAST_TTL`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_socket_multicast_ttl(
    context: *mut aeron_driver_context_t,
    value: u8,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_socket_multicast_ttl", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.socket_multicast_ttl = value) }
    })
}

/// Returns IP_MULTICAST_TTL of outgoing sockets; 0 keeps the OS default (default 0); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_socket_multicast_ttl(
    context: *mut aeron_driver_context_t,
) -> u8 {
    ffi_boundary!("aeron_driver_context_get_socket_multicast_ttl", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.socket_multicast_ttl) })
    })
}

/// Sets how many sends the sender makes per poll for status messages (default 6)
/// (`AERON_SEND_TO_STATUS_POLL_RATIO`). Returns 0, or -1 (EINVAL) if `context` is NULL or the
/// value does not fit.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_send_to_status_poll_ratio(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_send_to_status_poll_ratio", {
        // SAFETY: NULL or live (contract).
        unsafe {
            try_set(context, |c| {
                c.send_to_status_poll_ratio =
                    u32::try_from(value).map_err(|_| too_large("send_to_status_poll_ratio", value as u64))?;
                Ok(())
            })
        }
    })
}

/// Returns how many sends the sender makes per poll for status messages (default 6); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_send_to_status_poll_ratio(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_send_to_status_poll_ratio", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.send_to_status_poll_ratio as usize) })
    })
}

/// Sets the initial receiver window, at least the MTU (default 128 KiB)
/// (`AERON_RCV_INITIAL_WINDOW_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_rcv_initial_window_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_rcv_initial_window_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.rcv_initial_window_length = value) }
    })
}

/// Returns the initial receiver window, at least the MTU (default 128 KiB); Aeron's default for
/// a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_rcv_initial_window_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_rcv_initial_window_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.rcv_initial_window_length) })
    })
}

/// Sets the expected multicast group size that scales NAK delays (default 10)
/// (`AERON_NAK_MULTICAST_GROUP_SIZE`). Returns 0, or -1 (EINVAL) if `context` is NULL or the
/// value does not fit.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_nak_multicast_group_size(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_nak_multicast_group_size", {
        // SAFETY: NULL or live (contract).
        unsafe {
            try_set(context, |c| {
                c.nak_multicast_group_size =
                    u32::try_from(value).map_err(|_| too_large("nak_multicast_group_size", value as u64))?;
                Ok(())
            })
        }
    })
}

/// Returns the expected multicast group size that scales NAK delays (default 10); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_nak_multicast_group_size(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_nak_multicast_group_size", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.nak_multicast_group_size as usize) })
    })
}

/// Sets the longest multicast NAK delay, in ns (default 10 ms)
/// (`AERON_NAK_MULTICAST_MAX_BACKOFF`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_nak_multicast_max_backoff_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_nak_multicast_max_backoff_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.nak_multicast_max_backoff_ns = value) }
    })
}

/// Returns the longest multicast NAK delay, in ns (default 10 ms); Aeron's default for a NULL
/// `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_nak_multicast_max_backoff_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_nak_multicast_max_backoff_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.nak_multicast_max_backoff_ns) })
    })
}

/// Sets the unicast NAK delay, in ns (default 100 us) (`AERON_NAK_UNICAST_DELAY`). Returns 0,
/// or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_nak_unicast_delay_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_nak_unicast_delay_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.nak_unicast_delay_ns = value) }
    })
}

/// Returns the unicast NAK delay, in ns (default 100 us); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_nak_unicast_delay_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_nak_unicast_delay_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.nak_unicast_delay_ns) })
    })
}

/// Sets the multiple of the unicast NAK delay before a NAK is repeated (default 100)
/// (`AERON_NAK_UNICAST_RETRY_DELAY_RATIO`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_nak_unicast_retry_delay_ratio(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_nak_unicast_retry_delay_ratio", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.nak_unicast_retry_delay_ratio = value) }
    })
}

/// Returns the multiple of the unicast NAK delay before a NAK is repeated (default 100);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_nak_unicast_retry_delay_ratio(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_nak_unicast_retry_delay_ratio", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.nak_unicast_retry_delay_ratio) })
    })
}

/// Sets the most retransmissions in flight per publication (default 16) (`AERON_MAX_RESEND`).
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_max_resend(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_max_resend", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.max_resend = value) }
    })
}

/// Returns the most retransmissions in flight per publication (default 16); Aeron's default for
/// a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_max_resend(context: *mut aeron_driver_context_t) -> u32 {
    ffi_boundary!("aeron_driver_context_get_max_resend", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.max_resend) })
    })
}

/// Sets the delay before a unicast retransmission, in ns (default 0)
/// (`AERON_RETRANSMIT_UNICAST_DELAY`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_retransmit_unicast_delay_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_retransmit_unicast_delay_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.retransmit_unicast_delay_ns = value) }
    })
}

/// Returns the delay before a unicast retransmission, in ns (default 0); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_retransmit_unicast_delay_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_retransmit_unicast_delay_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.retransmit_unicast_delay_ns) })
    })
}

/// Sets how long a retransmitted range ignores further NAKs, in ns (default 10 ms)
/// (`AERON_RETRANSMIT_UNICAST_LINGER`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_retransmit_unicast_linger_ns(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_retransmit_unicast_linger_ns", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.retransmit_unicast_linger_ns = value) }
    })
}

/// Returns how long a retransmitted range ignores further NAKs, in ns (default 10 ms); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_retransmit_unicast_linger_ns(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_retransmit_unicast_linger_ns", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.retransmit_unicast_linger_ns) })
    })
}

/// Sets the default group tag of tagged flow control (default -1)
/// (`AERON_FLOW_CONTROL_GROUP_TAG`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_flow_control_group_tag(
    context: *mut aeron_driver_context_t,
    value: i64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_flow_control_group_tag", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.flow_control_group_tag = value) }
    })
}

/// Returns the default group tag of tagged flow control (default -1); Aeron's default for a
/// NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_flow_control_group_tag(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_flow_control_group_tag", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.flow_control_group_tag) })
    })
}

/// Sets the receivers a tagged flow control group needs before it is live (default 0)
/// (`AERON_FLOW_CONTROL_GROUP_MIN_SIZE`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_flow_control_group_min_size(
    context: *mut aeron_driver_context_t,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_flow_control_group_min_size", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.flow_control_group_min_size = value) }
    })
}

/// Returns the receivers a tagged flow control group needs before it is live (default 0);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_flow_control_group_min_size(
    context: *mut aeron_driver_context_t,
) -> i32 {
    ffi_boundary!("aeron_driver_context_get_flow_control_group_min_size", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.flow_control_group_min_size) })
    })
}

/// Sets whether UDP channels connect their sockets by default (default true)
/// (`AERON_DRIVER_CONNECT`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_connect_enabled(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_connect_enabled", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.connect_enabled = value) }
    })
}

/// Returns whether UDP channels connect their sockets by default (default true); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_connect_enabled(
    context: *mut aeron_driver_context_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_get_connect_enabled", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c_int::from(c.network.connect_enabled)) })
    })
}

/// Sets datagrams the receiver reads per system call, 1 to 16 (default 2)
/// (`AERON_RECEIVER_IO_VECTOR_CAPACITY`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_io_vector_capacity(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_io_vector_capacity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.receiver_io_vector_capacity = value) }
    })
}

/// Returns datagrams the receiver reads per system call, 1 to 16 (default 2); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_io_vector_capacity(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeron_driver_context_get_receiver_io_vector_capacity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.receiver_io_vector_capacity) })
    })
}

/// Sets datagrams the sender writes per system call, 1 to 16 (default 2)
/// (`AERON_SENDER_IO_VECTOR_CAPACITY`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_io_vector_capacity(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sender_io_vector_capacity", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.sender_io_vector_capacity = value) }
    })
}

/// Returns datagrams the sender writes per system call, 1 to 16 (default 2); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_io_vector_capacity(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeron_driver_context_get_sender_io_vector_capacity", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.sender_io_vector_capacity) })
    })
}

/// Sets frames a network publication sends per duty cycle, 1 to 16 (default 2)
/// (`AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND`). Returns 0, or -1 (EINVAL) if `context`
/// is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_network_publication_max_messages_per_send(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_network_publication_max_messages_per_send", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.network_publication_max_messages_per_send = value) }
    })
}

/// Returns frames a network publication sends per duty cycle, 1 to 16 (default 2); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_network_publication_max_messages_per_send(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeron_driver_context_get_network_publication_max_messages_per_send", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.network_publication_max_messages_per_send) })
    })
}

/// Sets the most images one receive channel endpoint has or builds at once, at least 1
/// (default 1024; `AERONRS_MAX_IMAGES_PER_ENDPOINT`, aeronrs only): SETUPs beyond it are
/// refused and counted as invalid packets. Returns 0, or -1 (EINVAL) if `context` is NULL
/// or `value` is 0.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_set_max_images_per_endpoint(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeronrs_driver_context_set_max_images_per_endpoint", {
        if value == 0 {
            return Err(crate::util::error::Error::invalid_argument(
                "max images per endpoint must be at least 1",
            ));
        }
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.max_images_per_endpoint = value) }
    })
}

/// Returns the most images one receive channel endpoint has at once (default 1024), or
/// the default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_get_max_images_per_endpoint(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeronrs_driver_context_get_max_images_per_endpoint", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.max_images_per_endpoint) })
    })
}

/// Sets the most images one source host (IP address) has at once on one receive channel
/// endpoint, at least 1 (default 256; `AERONRS_MAX_IMAGES_PER_SOURCE`, aeronrs only).
/// Returns 0, or -1 (EINVAL) if `context` is NULL or `value` is 0.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_set_max_images_per_source(
    context: *mut aeron_driver_context_t,
    value: u32,
) -> c_int {
    ffi_boundary!("aeronrs_driver_context_set_max_images_per_source", {
        if value == 0 {
            return Err(crate::util::error::Error::invalid_argument(
                "max images per source must be at least 1",
            ));
        }
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.max_images_per_source = value) }
    })
}

/// Returns the most images one source host has at once on one endpoint (default 256), or
/// the default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_get_max_images_per_source(
    context: *mut aeron_driver_context_t,
) -> u32 {
    ffi_boundary!("aeronrs_driver_context_get_max_images_per_source", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.max_images_per_source) })
    })
}

/// Sets whether the driver's own sockets use `recvmmsg` / `sendmmsg`: several datagrams per system call (default true; `AERONRS_UDP_MMSG_ENABLED`, aeronrs
/// only). Where the kernel refuses it the driver falls back to plain calls. Returns 0, or
/// -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_set_udp_mmsg_enabled(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeronrs_driver_context_set_udp_mmsg_enabled", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.udp_io.mmsg = value) }
    })
}

/// Returns whether the driver's own sockets may use `recvmmsg` / `sendmmsg`: several datagrams per system call (default true), or the default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_get_udp_mmsg_enabled(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeronrs_driver_context_get_udp_mmsg_enabled", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.udp_io.mmsg) })
    })
}

/// Sets whether the driver's own sockets use UDP segmentation offload (`UDP_SEGMENT`) for runs of equal-sized datagrams to one destination (default true; `AERONRS_UDP_GSO_ENABLED`, aeronrs
/// only). Where the kernel refuses it the driver falls back to plain calls. Returns 0, or
/// -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_set_udp_gso_enabled(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeronrs_driver_context_set_udp_gso_enabled", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.udp_io.gso = value) }
    })
}

/// Returns whether the driver's own sockets may use UDP segmentation offload (`UDP_SEGMENT`) for runs of equal-sized datagrams to one destination (default true), or the default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_get_udp_gso_enabled(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeronrs_driver_context_get_udp_gso_enabled", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.udp_io.gso) })
    })
}

/// Sets whether the driver's own sockets use UDP receive offload (`UDP_GRO`) on receiving sockets (default true; `AERONRS_UDP_GRO_ENABLED`, aeronrs
/// only). Where the kernel refuses it the driver falls back to plain calls. Returns 0, or
/// -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_set_udp_gro_enabled(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeronrs_driver_context_set_udp_gro_enabled", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.udp_io.gro = value) }
    })
}

/// Returns whether the driver's own sockets may use UDP receive offload (`UDP_GRO`) on receiving sockets (default true), or the default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_driver_context_get_udp_gro_enabled(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeronrs_driver_context_get_udp_gro_enabled", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.udp_io.gro) })
    })
}
