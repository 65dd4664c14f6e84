//! `aeron_exclusive_publication_*`: single-writer publications over
//! [`crate::client::ExclusivePublication`].
//!
//! Threading: as in Aeron, an exclusive publication has one writer: `offer`, `offerv`,
//! `try_claim`, `append_padding`, `offer_block`, `position` and the other queries that read
//! its state must not run on two threads at once (hand it between threads with proper
//! synchronisation). `aeron_exclusive_publication_constants`, `_channel`, `_stream_id` and
//! `_session_id` read values fixed at creation and may be called from any thread. Results
//! and close behave as for `aeron_publication_*`.

use std::cell::UnsafeCell;
use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::Weak;

use crate::client::ExclusivePublication;
use crate::client::destination::{DestinationCommand, Destinations};
use crate::concurrent::atomic_buffer::INLINE_COPY_MAX;
use crate::ffi::async_add::{poll_destination, start_destination};
use crate::ffi::buffer_claim::{aeron_buffer_claim_t, store_claim};
use crate::ffi::c_str_arg;
use crate::ffi::client::{ClientHandle, aeron_async_destination_t, aeron_t, client_ref};
use crate::ffi::context_callbacks::aeron_notification_t;
use crate::ffi::handles::{ClientShared, Handle, borrow, linger_or_drop, reclaim, try_borrow};
use crate::ffi::local_addresses::{check_address_vec, write_addresses};
use crate::ffi::publication::{
    aeron_iovec_t, aeron_publication_constants_t, aeron_reserved_value_supplier_t, message, offer_boundary,
    rust_supplier, with_iovecs,
};
use crate::util::error::Result;

/// An exclusive publication. Opaque; from `aeron_async_add_exclusive_publication_poll`,
/// freed by `aeron_exclusive_publication_close`.
#[allow(non_camel_case_types)]
pub struct aeron_exclusive_publication_t {
    _private: [u8; 0],
}

/// What an `aeron_exclusive_publication_t` points to.
pub(crate) struct ExclusivePublicationHandle {
    publication: UnsafeCell<ExclusivePublication>,
    constants: aeron_publication_constants_t,
    channel: CString,
    /// The destination commands, usable from any thread (no writer state).
    destinations: Destinations,
    client: Weak<ClientShared>,
}

// SAFETY: the publication is Send; the constants' channel pointer points into `channel`,
// owned by the same handle, so moving the handle keeps it valid.
unsafe impl Send for ExclusivePublicationHandle {}
// SAFETY: shared access is limited by the documented contract: the writer state in the
// UnsafeCell is used by one thread at a time; `constants` and `channel` never change.
unsafe impl Sync for ExclusivePublicationHandle {}

impl Handle for aeron_exclusive_publication_t {
    type Target = ExclusivePublicationHandle;
}

impl ExclusivePublicationHandle {
    pub(crate) fn new(publication: ExclusivePublication, client: Weak<ClientShared>) -> Self {
        let channel = crate::ffi::client::lossless_c_string(publication.channel());
        let p = &publication;
        let constants = aeron_publication_constants_t {
            channel: channel.as_ptr(),
            original_registration_id: p.original_registration_id(),
            registration_id: p.registration_id(),
            max_possible_position: p.max_possible_position(),
            position_bits_to_shift: p.position_bits_to_shift() as usize,
            term_buffer_length: p.term_buffer_length(),
            max_message_length: p.max_message_length(),
            max_payload_length: p.max_payload_length(),
            stream_id: p.stream_id(),
            session_id: p.session_id(),
            initial_term_id: p.initial_term_id(),
            publication_limit_counter_id: p.position_limit_counter_id(),
            channel_status_indicator_id: p.channel_status_indicator_id(),
        };
        let destinations = publication.destinations();
        Self { publication: UnsafeCell::new(publication), constants, channel, destinations, client }
    }
}

/// The handle behind `publication`.
///
/// # Safety
/// `publication` NULL or open (or lingering after close).
unsafe fn handle<'a>(
    publication: *mut aeron_exclusive_publication_t,
) -> Result<&'a ExclusivePublicationHandle> {
    // SAFETY: forwarded contract.
    unsafe { borrow(publication, "publication") }
}

/// The publication's writer state, for the one thread allowed to use it now.
///
/// # Safety
/// `publication` NULL or open; no other thread uses its writer state during the call.
unsafe fn writer<'a>(
    publication: *mut aeron_exclusive_publication_t,
) -> Result<&'a mut ExclusivePublication> {
    // SAFETY: NULL or open (contract).
    let handle = unsafe { handle(publication) }?;
    // SAFETY: one thread at a time (contract), so this is the only reference to it now.
    Ok(unsafe { &mut *handle.publication.get() })
}

/// Appends a message; see `aeron_publication_offer`.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now; `buffer` valid for `length`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_offer(
    publication: *mut aeron_exclusive_publication_t,
    buffer: *const u8,
    length: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    if reserved_value_supplier.is_some() {
        // SAFETY: the arguments of this call, forwarded.
        return unsafe {
            exclusive_offer_general(publication, buffer, length, reserved_value_supplier, clientd)
        };
    }
    // The common case outside the panic boundary, as in `aeron_publication_offer`.
    if !buffer.is_null() && length <= INLINE_COPY_MAX {
        // SAFETY: NULL or open (contract).
        if let Some(handle) = unsafe { try_borrow(publication) } {
            // SAFETY: one thread at a time (contract), so this is the only reference now.
            let publication = unsafe { &mut *handle.publication.get() };
            // SAFETY: valid for length bytes (contract), length is at most INLINE_COPY_MAX.
            let message = unsafe { std::slice::from_raw_parts(buffer, length) };
            if let Some(position) = publication.offer_fast(message) {
                return position;
            }
        }
    }
    // SAFETY: the arguments of this call, forwarded (no supplier, so no clientd).
    unsafe { exclusive_offer_general(publication, buffer, length, None, std::ptr::null_mut()) }
}

/// `aeron_exclusive_publication_offer` of what `offer_fast` declines, behind the boundary.
///
/// # Safety
/// As `aeron_exclusive_publication_offer`.
#[inline(never)]
unsafe fn exclusive_offer_general(
    publication: *mut aeron_exclusive_publication_t,
    buffer: *const u8,
    length: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    offer_boundary("aeron_exclusive_publication_offer", || {
        // SAFETY: forwarded contract.
        let publication = unsafe { writer(publication) }?;
        // SAFETY: valid for length bytes (contract).
        let message = unsafe { message(buffer, length) }?;
        match reserved_value_supplier {
            // The export's fast path declined (or was not taken): no second attempt.
            None => publication.offer_general_inline(message),
            Some(supplier) => {
                publication.offer_with_reserved_value(&[message], &mut rust_supplier(supplier, clientd))
            }
        }
    })
}

/// Appends a message gathered from `iovcnt` parts; see `aeron_publication_offerv`.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now; `iov` valid for `iovcnt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_offerv(
    publication: *mut aeron_exclusive_publication_t,
    iov: *mut aeron_iovec_t,
    iovcnt: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    offer_boundary("aeron_exclusive_publication_offerv", || {
        // SAFETY: forwarded contract.
        let publication = unsafe { writer(publication) }?;
        let offer = |parts: &[&[u8]]| match reserved_value_supplier {
            None => publication.offerv(parts),
            Some(supplier) => {
                publication.offer_with_reserved_value(parts, &mut rust_supplier(supplier, clientd))
            }
        };
        // SAFETY: iov valid for iovcnt entries (contract).
        unsafe { with_iovecs(iov, iovcnt, offer) }
    })
}

/// Claims a frame to write in place; see `aeron_publication_try_claim`.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now; `buffer_claim` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_try_claim(
    publication: *mut aeron_exclusive_publication_t,
    length: usize,
    buffer_claim: *mut aeron_buffer_claim_t,
) -> i64 {
    offer_boundary("aeron_exclusive_publication_try_claim", || {
        // SAFETY: forwarded contract.
        let publication = unsafe { writer(publication) }?;
        require_non_null!(buffer_claim, "buffer_claim");
        let (position, claim) = publication.try_claim(length)?;
        if let Some(claim) = claim {
            // SAFETY: buffer_claim is non-null and writable (contract).
            unsafe { store_claim(claim, buffer_claim) };
        }
        Ok(position)
    })
}

/// Appends a padding frame with a body of `length` bytes (e.g. to bring the stream to a
/// position). Returns the new position or a negative `AERON_PUBLICATION_*` code.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_append_padding(
    publication: *mut aeron_exclusive_publication_t,
    length: usize,
) -> i64 {
    offer_boundary("aeron_exclusive_publication_append_padding", || {
        // SAFETY: forwarded contract.
        unsafe { writer(publication) }?.append_padding(length)
    })
}

/// Copies `length` bytes of pre-formatted frames into the log at the current position. The
/// first frame's header must carry this stream's session and stream ids and the current
/// term id and offset; the block must fit the current term. Returns the new position or a
/// negative `AERON_PUBLICATION_*` code.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now; `buffer` valid for `length`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_offer_block(
    publication: *mut aeron_exclusive_publication_t,
    buffer: *const u8,
    length: usize,
) -> i64 {
    offer_boundary("aeron_exclusive_publication_offer_block", || {
        // SAFETY: forwarded contract.
        let publication = unsafe { writer(publication) }?;
        // SAFETY: valid for length bytes (contract).
        publication.offer_block(unsafe { message(buffer, length) }?)
    })
}

/// The send channel status: 1 ACTIVE, -1 ERRORED (also once closed).
///
/// # Safety
/// `publication` NULL or open (or lingering), used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_channel_status(
    publication: *mut aeron_exclusive_publication_t,
) -> i64 {
    ffi_boundary!("aeron_exclusive_publication_channel_status", {
        // SAFETY: forwarded contract.
        let p = unsafe { writer(publication) }?;
        Ok(p.channel_status())
    })
}
/// The position the next message starts at, or CLOSED.
///
/// # Safety
/// `publication` NULL or open (or lingering), used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_position(
    publication: *mut aeron_exclusive_publication_t,
) -> i64 {
    ffi_boundary!("aeron_exclusive_publication_position", {
        // SAFETY: forwarded contract.
        let p = unsafe { writer(publication) }?;
        Ok(p.position())
    })
}
/// The position beyond which offers are back pressured, or CLOSED.
///
/// # Safety
/// `publication` NULL or open (or lingering), used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_position_limit(
    publication: *mut aeron_exclusive_publication_t,
) -> i64 {
    ffi_boundary!("aeron_exclusive_publication_position_limit", {
        // SAFETY: forwarded contract.
        let p = unsafe { writer(publication) }?;
        Ok(p.position_limit())
    })
}
/// Whether the publication is closed.
///
/// # Safety
/// `publication` NULL or open (or lingering), used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_is_closed(
    publication: *mut aeron_exclusive_publication_t,
) -> bool {
    ffi_boundary!("aeron_exclusive_publication_is_closed", {
        // SAFETY: forwarded contract.
        let p = unsafe { writer(publication) }?;
        Ok(p.is_closed())
    })
}
/// Whether a subscriber is connected.
///
/// # Safety
/// `publication` NULL or open (or lingering), used by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_is_connected(
    publication: *mut aeron_exclusive_publication_t,
) -> bool {
    ffi_boundary!("aeron_exclusive_publication_is_connected", {
        // SAFETY: forwarded contract.
        let p = unsafe { writer(publication) }?;
        Ok(p.is_connected())
    })
}

/// The channel URI, valid while the publication is.
///
/// # Safety
/// `publication` NULL or open (or lingering).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_channel(
    publication: *mut aeron_exclusive_publication_t,
) -> *const c_char {
    ffi_boundary!("aeron_exclusive_publication_channel", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(publication) }?;
        Ok(h.channel.as_ptr())
    })
}
/// The stream id.
///
/// # Safety
/// `publication` NULL or open (or lingering).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_stream_id(
    publication: *mut aeron_exclusive_publication_t,
) -> i32 {
    ffi_boundary!("aeron_exclusive_publication_stream_id", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(publication) }?;
        Ok(h.constants.stream_id)
    })
}
/// The session id.
///
/// # Safety
/// `publication` NULL or open (or lingering).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_session_id(
    publication: *mut aeron_exclusive_publication_t,
) -> i32 {
    ffi_boundary!("aeron_exclusive_publication_session_id", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(publication) }?;
        Ok(h.constants.session_id)
    })
}

/// Fills `*constants`; see `aeron_publication_constants`. Any thread.
///
/// # Safety
/// `publication` NULL or open; `constants` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_constants(
    publication: *mut aeron_exclusive_publication_t,
    constants: *mut aeron_publication_constants_t,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_constants", {
        // SAFETY: forwarded contract.
        let handle = unsafe { handle(publication) }?;
        require_non_null!(constants, "constants");
        // SAFETY: non-null and writable (contract).
        unsafe { constants.write(handle.constants) };
        Ok(0)
    })
}

/// Closes the publication; see `aeron_publication_close`. NULL is accepted. Returns 0.
///
/// # Safety
/// `publication` NULL or open, closed once, by its one writer thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_close(
    publication: *mut aeron_exclusive_publication_t,
    on_close_complete: aeron_notification_t,
    on_close_complete_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_close", {
        if publication.is_null() {
            return Ok(0);
        }
        // SAFETY: open, used by this thread only (contract).
        unsafe { writer(publication) }?.close();
        if let Some(notify) = on_close_complete {
            // SAFETY: the caller's callback with its clientd.
            unsafe { notify(on_close_complete_clientd) };
        }
        // SAFETY: closed once (contract): the only reclaim of the box.
        if let Some(boxed) = unsafe { reclaim(publication) } {
            let client = boxed.client.clone();
            linger_or_drop(&client, boxed);
        }
        Ok(0)
    })
}

/// The send endpoint's bound addresses; see `aeron_publication_local_sockaddrs`.
///
/// # Safety
/// `publication` NULL or open, its writer state used by this thread only now;
/// `address_vec` valid for `address_vec_len` entries, each `iov_base` valid for `iov_len`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_local_sockaddrs(
    publication: *mut aeron_exclusive_publication_t,
    address_vec: *mut aeron_iovec_t,
    address_vec_len: usize,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_local_sockaddrs", {
        // SAFETY: forwarded contract.
        let publication = unsafe { writer(publication) }?;
        check_address_vec(address_vec, address_vec_len)?;
        let addresses = publication.local_socket_addresses();
        // SAFETY: address_vec valid for address_vec_len entries (contract).
        unsafe { write_addresses(&addresses, address_vec, address_vec_len) }
    })
}

/// As `aeron_publication_async_add_destination`, for an exclusive publication; poll with
/// `aeron_exclusive_publication_async_destination_poll`. May be called from any thread,
/// also while the publication's writer thread offers (it touches no writer state).
///
/// # Safety
/// `async` NULL or valid for a pointer write; `client` and `publication` NULL or open;
/// `uri` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_async_add_destination(
    r#async: *mut *mut aeron_async_destination_t,
    client: *mut aeron_t,
    publication: *mut aeron_exclusive_publication_t,
    uri: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_async_add_destination", {
        require_non_null!(r#async, "async");
        // SAFETY: forwarded contract.
        let (client, h) = unsafe { client_and_handle(client, publication) }?;
        // SAFETY: NULL or NUL-terminated (contract).
        let uri = unsafe { c_str_arg(uri, "uri") }?;
        // SAFETY: async is non-NULL and writable (contract).
        unsafe { start_destination(r#async, client, || h.destinations.send(DestinationCommand::Add(uri))) }
    })
}

/// As `aeron_publication_async_remove_destination`, for an exclusive publication.
///
/// # Safety
/// As `aeron_exclusive_publication_async_add_destination`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_async_remove_destination(
    r#async: *mut *mut aeron_async_destination_t,
    client: *mut aeron_t,
    publication: *mut aeron_exclusive_publication_t,
    uri: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_async_remove_destination", {
        require_non_null!(r#async, "async");
        // SAFETY: forwarded contract.
        let (client, h) = unsafe { client_and_handle(client, publication) }?;
        // SAFETY: NULL or NUL-terminated (contract).
        let uri = unsafe { c_str_arg(uri, "uri") }?;
        // SAFETY: async is non-NULL and writable (contract).
        unsafe { start_destination(r#async, client, || h.destinations.send(DestinationCommand::Remove(uri))) }
    })
}

/// As `aeron_publication_async_remove_destination_by_id`, for an exclusive publication.
///
/// # Safety
/// `async` NULL or valid for a pointer write; `client` and `publication` NULL or open.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_async_remove_destination_by_id(
    r#async: *mut *mut aeron_async_destination_t,
    client: *mut aeron_t,
    publication: *mut aeron_exclusive_publication_t,
    destination_registration_id: i64,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_async_remove_destination_by_id", {
        require_non_null!(r#async, "async");
        // SAFETY: forwarded contract.
        let (client, h) = unsafe { client_and_handle(client, publication) }?;
        let send = || h.destinations.send(DestinationCommand::RemoveById(destination_registration_id));
        // SAFETY: async is non-NULL and writable (contract).
        unsafe { start_destination(r#async, client, send) }
    })
}

/// As `aeron_publication_async_destination_poll` (the same function).
///
/// # Safety
/// `async` NULL or pending, polled by one thread at a time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_async_destination_poll(
    r#async: *mut aeron_async_destination_t,
) -> c_int {
    ffi_boundary!("aeron_exclusive_publication_async_destination_poll", {
        // SAFETY: forwarded contract.
        unsafe { poll_destination(r#async) }
    })
}

/// The client and exclusive publication of a destination function.
///
/// # Safety
/// Both NULL or open.
unsafe fn client_and_handle<'a>(
    client: *mut aeron_t,
    publication: *mut aeron_exclusive_publication_t,
) -> Result<(&'a ClientHandle, &'a ExclusivePublicationHandle)> {
    // SAFETY: forwarded contract.
    let client = unsafe { client_ref(client) }?;
    // SAFETY: forwarded contract.
    Ok((client, unsafe { handle(publication) }?))
}
