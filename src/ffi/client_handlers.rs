//! The handlers added to a running client (`aeron_add_close_handler`,
//! `aeron_add_available_counter_handler`, ... and their removal). A handler is known by its
//! function and clientd, as in Aeron; the client remembers which Rust handler each pair
//! became so it can be removed again.

use std::ffi::{c_int, c_void};

use crate::ffi::client::{ClientHandle, HandlerKey, aeron_t, client_ref, counter_handler};
use crate::ffi::context_callbacks::{
    Callback, aeron_on_available_counter_t, aeron_on_close_client_t, aeron_on_unavailable_counter_t,
};
use crate::ffi::handles::ClientData;
use crate::util::error::{Error, Result};

/// A handler and its clientd, as `aeron_add_close_handler` takes them.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_on_close_client_pair_t {
    pub handler: aeron_on_close_client_t,
    pub clientd: *mut c_void,
}

/// The client behind `client` and a copy of `*pair`.
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable.
unsafe fn client_and_pair<'a, P>(client: *mut aeron_t, pair: *mut P) -> Result<(&'a ClientHandle, P)> {
    // SAFETY: NULL or open (contract).
    let handle = unsafe { client_ref(client) }?;
    require_non_null!(pair, "pair");
    // SAFETY: non-null and readable (contract).
    Ok((handle, unsafe { pair.read() }))
}

/// The identity of an added handler: its function's address and its clientd; EINVAL for
/// a NULL function.
fn handler_key(function: Option<usize>, clientd: *mut c_void) -> Result<HandlerKey> {
    let function = function.ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
    Ok((function, clientd as usize))
}

/// Adds a handler called (on the conductor thread) when the client closes, besides the
/// context's. Returns 0, or -1 (NULL arguments, the pair already added).
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable, its handler safe to call with its
/// clientd from the conductor thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_add_close_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_close_client_pair_t,
) -> c_int {
    ffi_boundary!("aeron_add_close_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        let key = handler_key(pair.handler.map(|f| f as usize), pair.clientd)?;
        let (handler, clientd) = (pair.handler, ClientData(pair.clientd));
        let on_close = move || {
            if let Some(handler) = handler {
                // SAFETY: the application's handler with its clientd (this function's contract).
                unsafe { handler(clientd.get()) }
            }
        };
        handle.added_handlers.add("close", key, || handle.aeron.add_close_handler(on_close))?;
        Ok(0)
    })
}

/// Removes a handler added by `aeron_add_close_handler` (the same function and clientd).
/// Returns 0, or -1 (NULL arguments, not added).
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_remove_close_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_close_client_pair_t,
) -> c_int {
    ffi_boundary!("aeron_remove_close_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        let key = handler_key(pair.handler.map(|f| f as usize), pair.clientd)?;
        handle.aeron.remove_close_handler(handle.added_handlers.remove("close", key)?);
        Ok(0)
    })
}

/// A counter handler and its clientd, as `aeron_add_available_counter_handler` takes them.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_on_available_counter_pair_t {
    pub handler: aeron_on_available_counter_t,
    pub clientd: *mut c_void,
}

/// A counter handler and its clientd, as `aeron_add_unavailable_counter_handler` takes them.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_on_unavailable_counter_pair_t {
    pub handler: aeron_on_unavailable_counter_t,
    pub clientd: *mut c_void,
}

/// Adds the counter handler of a pair as an available or unavailable one (the two have
/// the same C signature).
fn add_counter_handler(
    handle: &ClientHandle,
    available: bool,
    handler: aeron_on_available_counter_t,
    clientd: *mut c_void,
) -> Result<c_int> {
    let key = handler_key(handler.map(|f| f as usize), clientd)?;
    let callback = Callback { func: handler, clientd: ClientData(clientd) };
    let Some(rust) = counter_handler(callback, &handle.reader) else {
        return Err(Error::invalid_argument("pair->handler must not be NULL"));
    };
    if available {
        handle
            .added_handlers
            .add("available counter", key, || handle.aeron.add_available_counter_handler(rust))?;
    } else {
        handle
            .added_handlers
            .add("unavailable counter", key, || handle.aeron.add_unavailable_counter_handler(rust))?;
    }
    Ok(0)
}

/// Adds a handler called (on the conductor thread) when a counter becomes available,
/// besides the context's. Returns 0, or -1 (NULL arguments, the pair already added).
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable, its handler safe to call with its
/// clientd from the conductor thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_add_available_counter_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_available_counter_pair_t,
) -> c_int {
    ffi_boundary!("aeron_add_available_counter_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        add_counter_handler(handle, true, pair.handler, pair.clientd)
    })
}

/// Removes a handler added by `aeron_add_available_counter_handler`. Returns 0, or -1.
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_remove_available_counter_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_available_counter_pair_t,
) -> c_int {
    ffi_boundary!("aeron_remove_available_counter_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        let key = handler_key(pair.handler.map(|f| f as usize), pair.clientd)?;
        handle
            .aeron
            .remove_available_counter_handler(handle.added_handlers.remove("available counter", key)?);
        Ok(0)
    })
}

/// Adds a handler called (on the conductor thread) when a counter goes away, besides the
/// context's. Returns 0, or -1 (NULL arguments, the pair already added).
///
/// # Safety
/// As `aeron_add_available_counter_handler`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_add_unavailable_counter_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_unavailable_counter_pair_t,
) -> c_int {
    ffi_boundary!("aeron_add_unavailable_counter_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        add_counter_handler(handle, false, pair.handler, pair.clientd)
    })
}

/// Removes a handler added by `aeron_add_unavailable_counter_handler`. Returns 0, or -1.
///
/// # Safety
/// `client` NULL or open; `pair` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_remove_unavailable_counter_handler(
    client: *mut aeron_t,
    pair: *mut aeron_on_unavailable_counter_pair_t,
) -> c_int {
    ffi_boundary!("aeron_remove_unavailable_counter_handler", {
        // SAFETY: NULL or open; NULL or readable (contract).
        let (handle, pair) = unsafe { client_and_pair(client, pair) }?;
        let key = handler_key(pair.handler.map(|f| f as usize), pair.clientd)?;
        let id = handle.added_handlers.remove("unavailable counter", key)?;
        handle.aeron.remove_unavailable_counter_handler(id);
        Ok(0)
    })
}
