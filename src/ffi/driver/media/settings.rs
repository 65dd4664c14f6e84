//! `aeron_driver_context_{set,get}_udp_channel_transport_bindings` and
//! `..._udp_channel_{outgoing,incoming}_interceptors`. The setters check the tables and
//! chains now (and again when a driver is created from the context, as C may change them
//! meanwhile); the driver creates its data paths from them in `aeron_driver_init`.

use std::ffi::c_int;
use std::sync::Arc;

use super::data_paths::{Stage, chain};
use super::default_bindings::default_bindings;
use super::plugin::{MediaPointers, check_bindings, make_plugin};
use super::types::{
    aeron_udp_channel_incoming_interceptor_t as Incoming, aeron_udp_channel_interceptor_bindings_t,
    aeron_udp_channel_outgoing_interceptor_t as Outgoing, aeron_udp_channel_transport_bindings_t,
};
use crate::concurrent::ForeignShared;
use crate::driver::media::media_plugin::MediaPluginSupplier;
use crate::ffi::driver::context::{DriverContextHandle, aeron_driver_context_t, get_callback, handle};
use crate::ffi::ffi_boundary;

/// Points the context's media supplier at its plug-in pointers (none when nothing is set).
fn update_supplier(h: &mut DriverContextHandle, context: *mut aeron_driver_context_t) {
    let set = h.callbacks.media;
    if set.bindings.is_null() && set.outgoing.is_null() && set.incoming.is_null() {
        h.ctx.media_plugin_supplier = None;
        return;
    }
    let bindings = if set.bindings.is_null() { default_bindings() } else { set.bindings };
    let pointers = MediaPointers { bindings, context, ..set };
    // SAFETY: the setters' contract: the tables and chains stay valid while a driver made
    // from the context runs and may be used from its threads.
    let pointers = unsafe { ForeignShared::new(pointers) };
    h.ctx.media_plugin_supplier = Some(MediaPluginSupplier(Arc::new(move || {
        // SAFETY: the setters' contract: the tables and chains stay valid while a driver
        // made from the context runs; the context is the one `aeron_driver_init` runs for.
        unsafe { make_plugin(pointers.value()) }
    })));
}

/// Sets the UDP channel transport bindings: every UDP transport of a driver made from the
/// context is then opened (`init_func`), sent on (`send_func`, after the outgoing
/// interceptors), received from (`recvmmsg_func`, before the incoming interceptors),
/// queried (`bind_addr_and_port_func`, `get_so_rcvbuf_func`), reconnected and closed
/// through it, as in Aeron. The poller functions must be the default table's (the driver
/// polls its transports itself), and the others non-NULL. NULL restores the driver's own
/// sockets (unless interceptors are set). Returns 0, or -1 (EINVAL) for a NULL context or a
/// table that breaks these rules.
///
/// # Safety
/// `context` NULL or live; `value` NULL or a table whose functions are safe to call from
/// the driver's threads, valid while a driver made from the context runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_udp_channel_transport_bindings(
    context: *mut aeron_driver_context_t,
    value: *mut aeron_udp_channel_transport_bindings_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_udp_channel_transport_bindings", {
        // SAFETY: NULL or live (contract).
        let h = unsafe { handle(context) }?;
        if !value.is_null() {
            // SAFETY: a readable table (contract).
            unsafe { check_bindings(value) }?;
        }
        h.callbacks.media.bindings = value;
        update_supplier(h, context);
        Ok(0)
    })
}

/// Returns the transport bindings set, else the default table (also for a NULL context):
/// C functions over the transport struct that open and use sockets as the driver does,
/// to copy and override, or to delegate to.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_udp_channel_transport_bindings(
    context: *mut aeron_driver_context_t,
) -> *mut aeron_udp_channel_transport_bindings_t {
    ffi_boundary!("aeron_driver_context_get_udp_channel_transport_bindings", {
        if !context.is_null() {
            // SAFETY: non-null and live (contract).
            let set = unsafe { handle(context) }?.callbacks.media.bindings;
            if !set.is_null() {
                return Ok(set);
            }
        }
        Ok(default_bindings())
    })
}

/// Stores a checked interceptor chain of direction `S` as the context's `slot` one.
///
/// # Safety
/// `context` NULL or live; `value` NULL or a valid chain.
unsafe fn set_interceptors<S: Stage>(
    context: *mut aeron_driver_context_t,
    value: *mut aeron_udp_channel_interceptor_bindings_t,
    slot: fn(&mut MediaPointers) -> &mut *mut aeron_udp_channel_interceptor_bindings_t,
) -> crate::util::error::Result<c_int> {
    // SAFETY: NULL or live (contract).
    let h = unsafe { handle(context) }?;
    // SAFETY: NULL or a valid chain (contract).
    unsafe { chain::<S>(value) }?;
    *slot(&mut h.callbacks.media) = value;
    update_supplier(h, context);
    Ok(0)
}

/// Sets the outgoing interceptors: a chain of bindings (first to last through
/// `meta_info.next_interceptor_bindings`) whose `outgoing_init_func` each agent calls
/// when the driver is created and whose `outgoing_send_func` sees, in order, every
/// datagram the sender and the receiver send, before the transport's `send_func`, as in
/// Aeron. Each needs `outgoing_init_func` and `outgoing_send_func`; publication and image
/// notification functions must be NULL. NULL removes the chain. Returns 0, or -1 (EINVAL)
/// for a NULL context or a chain that breaks these rules.
///
/// # Safety
/// `context` NULL or live; `value` NULL or a chain whose functions are safe to call on the
/// driver's agent threads, valid while a driver made from the context runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_udp_channel_outgoing_interceptors(
    context: *mut aeron_driver_context_t,
    value: *mut aeron_udp_channel_interceptor_bindings_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_udp_channel_outgoing_interceptors", {
        // SAFETY: as this function's contract.
        unsafe { set_interceptors::<Outgoing>(context, value, |m| &mut m.outgoing) }
    })
}

/// Returns the outgoing interceptors set (NULL if none, or for a NULL context).
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_udp_channel_outgoing_interceptors(
    context: *mut aeron_driver_context_t,
) -> *mut aeron_udp_channel_interceptor_bindings_t {
    ffi_boundary!("aeron_driver_context_get_udp_channel_outgoing_interceptors", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get_callback(context, std::ptr::null_mut(), |c| c.media.outgoing) })
    })
}

/// Sets the incoming interceptors: as the outgoing ones, with `incoming_init_func` and
/// `incoming_func`, which sees every datagram the sender and the receiver read, after the
/// transport's `recvmmsg_func` and before the driver, and may drop it. The chain replaces
/// the loss interceptors `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` configures (as in
/// Aeron, where a chain set in code replaces the configured one). NULL removes the chain.
/// Returns 0, or -1 (EINVAL) for a NULL context or a chain that breaks the rules.
///
/// # Safety
/// As the outgoing setter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_udp_channel_incoming_interceptors(
    context: *mut aeron_driver_context_t,
    value: *mut aeron_udp_channel_interceptor_bindings_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_udp_channel_incoming_interceptors", {
        // SAFETY: as this function's contract.
        unsafe { set_interceptors::<Incoming>(context, value, |m| &mut m.incoming) }
    })
}

/// Returns the incoming interceptors set (NULL if none, or for a NULL context; the loss
/// interceptors `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` configures are the driver's own
/// and not C bindings).
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_udp_channel_incoming_interceptors(
    context: *mut aeron_driver_context_t,
) -> *mut aeron_udp_channel_interceptor_bindings_t {
    ffi_boundary!("aeron_driver_context_get_udp_channel_incoming_interceptors", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get_callback(context, std::ptr::null_mut(), |c| c.media.incoming) })
    })
}
