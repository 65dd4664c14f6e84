//! Port managers supplied from C (`aeron_port_manager_t`, Aeron's
//! `struct aeron_port_manager_stct`): the conductor calls `get_managed_port` for the
//! address to bind before it opens a send channel endpoint (the sender's manager) or a
//! receive destination (the receiver's), and `free_managed_port` with that address once
//! the endpoint or destination is closed (`src/driver/media/port_manager.rs`). A supplied
//! manager replaces the built-in wildcard port manager of that side, as in Aeron.
//!
//! The `udp_channel` given to `get_managed_port` is opaque (this library's channel, not
//! Aeron's struct). Getters return the manager set, or NULL while the built-in one is in
//! use (Aeron returns a pointer to its internal wildcard manager); setting NULL restores it.

use std::ffi::{c_int, c_void};
use std::net::SocketAddr;
use std::sync::Arc;

use crate::concurrent::ForeignShared;
use crate::driver::media::port_manager::{PortManager, PortManagerSupplier};
use crate::driver::media::udp_channel::UdpChannel;
use crate::ffi::driver::callbacks::aeron_udp_channel_t;
use crate::ffi::driver::context::{aeron_driver_context_t, get_callback, handle};
use crate::ffi::driver::{assert_layout, c_result};
use crate::ffi::ffi_boundary;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::{from_storage, sockaddr_storage};

/// Writes the address to bind into `*bind_addr_out` (on entry a copy of `*bind_addr`, the
/// address `udp_channel` names). Returns 0, or -1 with the error set.
#[allow(non_camel_case_types)]
pub type aeron_port_manager_get_managed_port_func_t = Option<
    unsafe extern "C" fn(
        state: *mut c_void,
        bind_addr_out: *mut libc::sockaddr_storage,
        udp_channel: *mut aeron_udp_channel_t,
        bind_addr: *mut libc::sockaddr_storage,
    ) -> c_int,
>;

/// `*bind_addr` (an address `get_managed_port` gave) is no longer bound.
#[allow(non_camel_case_types)]
pub type aeron_port_manager_free_managed_port_func_t =
    Option<unsafe extern "C" fn(state: *mut c_void, bind_addr: *mut libc::sockaddr_storage)>;

/// A port manager: Aeron's `struct aeron_port_manager_stct`, field for field. Filled in and
/// owned by the caller; must stay valid while a driver using it runs.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_port_manager_stct {
    pub get_managed_port: aeron_port_manager_get_managed_port_func_t,
    pub free_managed_port: aeron_port_manager_free_managed_port_func_t,
    pub state: *mut c_void,
}

/// Aeron's name for the port manager (`typedef struct aeron_port_manager_stct ...`).
#[allow(non_camel_case_types)]
pub type aeron_port_manager_t = aeron_port_manager_stct;

assert_layout!(aeron_port_manager_stct, size 24, free_managed_port @ 8, state @ 16);

/// The caller's port manager, called by the conductor (shared on the setter's contract:
/// the manager stays valid while the driver runs and may be called on the conductor's
/// thread, the only one that calls it).
struct CPortManager(ForeignShared<*mut aeron_port_manager_t>);

impl PortManager for CPortManager {
    fn get_managed_port(&mut self, channel: &UdpChannel, bind: SocketAddr) -> Result<SocketAddr> {
        // SAFETY: valid while the driver runs (setter's contract); read at each call.
        let (get, state) = unsafe { ((*self.0.value()).get_managed_port, (*self.0.value()).state) };
        let get = get.ok_or_else(|| Error::invalid_argument("port manager without get_managed_port"))?;
        let mut bind_addr = sockaddr_storage(&bind);
        let mut bind_addr_out = bind_addr;
        let channel: *const UdpChannel = channel;
        crate::ffi::clear_last_error();
        // SAFETY: the caller's function with its state, two addresses valid for the call
        // and the channel as an opaque pointer.
        let rc = unsafe { get(state, &mut bind_addr_out, channel.cast_mut().cast(), &mut bind_addr) };
        c_result(rc, "port manager get_managed_port")?;
        from_storage(&bind_addr_out).ok_or_else(|| {
            Error::invalid_argument("port manager gave a bind address that is not IPv4 or IPv6")
        })
    }

    fn free_managed_port(&mut self, bind: SocketAddr) {
        // SAFETY: as in `get_managed_port`.
        let (free, state) = unsafe { ((*self.0.value()).free_managed_port, (*self.0.value()).state) };
        if let Some(free) = free {
            let mut bind_addr = sockaddr_storage(&bind);
            // SAFETY: the caller's function with its state and an address valid for the call.
            unsafe { free(state, &mut bind_addr) };
        }
    }
}

/// Stores `value` as the sender's or receiver's port manager (NULL: the built-in one).
///
/// # Safety
/// `context` NULL or live; `value` NULL or valid while a driver made from the context runs.
unsafe fn set_port_manager(
    context: *mut aeron_driver_context_t,
    value: *mut aeron_port_manager_t,
    sender: bool,
) -> Result<c_int> {
    // SAFETY: NULL or live (contract).
    let h = unsafe { handle(context) }?;
    // SAFETY: NULL or valid (contract).
    if let Some(m) = unsafe { value.as_ref() }
        && (m.get_managed_port.is_none() || m.free_managed_port.is_none())
    {
        return Err(Error::invalid_argument("port manager needs get_managed_port and free_managed_port"));
    }
    // SAFETY: NULL (then unused) or valid and callable on the conductor's thread while
    // the driver runs (contract).
    let manager = unsafe { ForeignShared::new(value) };
    let supplier = (!value.is_null()).then(|| {
        PortManagerSupplier(Arc::new(move || Box::new(CPortManager(manager)) as Box<dyn PortManager>))
    });
    let (slot, index) =
        if sender { (&mut h.ctx.sender_port_manager, 0) } else { (&mut h.ctx.receiver_port_manager, 1) };
    *slot = supplier;
    h.callbacks.port_managers[index] = value;
    Ok(0)
}

/// The manager set for the sender (`0`) or receiver (`1`), or NULL.
///
/// # Safety
/// `context` must be NULL or live.
unsafe fn get_port_manager(
    context: *mut aeron_driver_context_t,
    index: usize,
) -> Result<*mut aeron_port_manager_t> {
    // SAFETY: NULL or live (contract).
    Ok(unsafe { get_callback(context, std::ptr::null_mut(), |c| c.port_managers[index]) })
}

// The exports, over the helpers above: generated from the table in build/port_manager_exports.rs.
include!(concat!(env!("OUT_DIR"), "/port_manager_ffi.rs"));
