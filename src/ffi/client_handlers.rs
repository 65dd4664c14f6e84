//! The handlers added to a running client (`aeron_add_close_handler`,
//! `aeron_add_available_counter_handler`, ... and their removal). A handler is known by its
//! function and clientd, as in Aeron; the client remembers which Rust handler each pair
//! became so it can be removed again.

use std::ffi::{c_int, c_void};
use std::sync::PoisonError;

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

impl ClientHandle {
    /// Remembers the Rust id of a handler added under `kind` by its function and clientd;
    /// an error if that pair is already added.
    pub(crate) fn remember_handler(
        &self,
        kind: &'static str,
        key: HandlerKey,
        add: impl FnOnce() -> i64,
    ) -> Result<()> {
        let mut added = self.added_handlers.lock().unwrap_or_else(PoisonError::into_inner);
        if added.contains_key(&(kind, key)) {
            return Err(Error::invalid_argument(format!(
                "this {kind} handler and clientd are already added"
            )));
        }
        added.insert((kind, key), add());
        Ok(())
    }

    /// The Rust id of a handler added under `kind`, forgotten now.
    pub(crate) fn forget_handler(&self, kind: &'static str, key: HandlerKey) -> Result<i64> {
        self.added_handlers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(kind, key))
            .ok_or_else(|| Error::invalid_argument(format!("this {kind} handler and clientd were not added")))
    }
}

/// The identity of an added handler: its function's address and its clientd.
pub(crate) fn handler_key(function: usize, clientd: *mut c_void) -> HandlerKey {
    (function, clientd as usize)
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let handler =
            pair.handler.ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
        let clientd = ClientData(pair.clientd);
        let key = handler_key(handler as usize, pair.clientd);
        let on_close = move || {
            // SAFETY: the application's handler with its clientd (this function's contract).
            unsafe { handler(clientd.get()) }
        };
        handle.remember_handler("close", key, || handle.aeron.add_close_handler(on_close))?;
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let handler =
            pair.handler.ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
        let id = handle.forget_handler("close", handler_key(handler as usize, pair.clientd))?;
        handle.aeron.remove_close_handler(id);
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

/// The Rust form of a counter pair's handler, and the pair's identity.
fn counter_pair(
    handle: &ClientHandle,
    handler: aeron_on_available_counter_t,
    clientd: *mut c_void,
) -> Result<(impl Fn(i64, i32) + Send + Sync + 'static, HandlerKey)> {
    let function = handler.ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
    let key = handler_key(function as usize, clientd);
    let callback = Callback { func: handler, clientd: ClientData(clientd) };
    let rust = counter_handler(callback, &handle.reader)
        .ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
    Ok((rust, key))
}

/// The identity of a counter pair being removed.
fn counter_pair_key(handler: aeron_on_available_counter_t, clientd: *mut c_void) -> Result<HandlerKey> {
    let function = handler.ok_or_else(|| Error::invalid_argument("pair->handler must not be NULL"))?;
    Ok(handler_key(function as usize, clientd))
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let (rust, key) = counter_pair(handle, pair.handler, pair.clientd)?;
        handle.remember_handler("available counter", key, || {
            handle.aeron.add_available_counter_handler(rust)
        })?;
        Ok(0)
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let id = handle.forget_handler("available counter", counter_pair_key(pair.handler, pair.clientd)?)?;
        handle.aeron.remove_available_counter_handler(id);
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let (rust, key) = counter_pair(handle, pair.handler, pair.clientd)?;
        handle.remember_handler("unavailable counter", key, || {
            handle.aeron.add_unavailable_counter_handler(rust)
        })?;
        Ok(0)
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
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        require_non_null!(pair, "pair");
        // SAFETY: non-null and readable (contract).
        let pair = unsafe { pair.read() };
        let id =
            handle.forget_handler("unavailable counter", counter_pair_key(pair.handler, pair.clientd)?)?;
        handle.aeron.remove_unavailable_counter_handler(id);
        Ok(0)
    })
}
