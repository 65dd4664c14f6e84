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

// The exports, over the helpers above: generated from the table in build/media_settings_exports.rs.
include!(concat!(env!("OUT_DIR"), "/media_settings_ffi.rs"));
