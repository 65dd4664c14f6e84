//! `aeron_exclusive_publication_*`: single-writer publications over
//! [`crate::client::ExclusivePublication`].
//!
//! Threading: as in Aeron, an exclusive publication has one writer: `offer`, `offerv`,
//! `try_claim`, `append_padding`, `offer_block`, `position` and the other queries that read
//! its state must not run on two threads at once (hand it between threads with proper
//! synchronisation). `aeron_exclusive_publication_constants`, `_channel`, `_stream_id` and
//! `_session_id` read values fixed at creation and may be called from any thread. Results
//! and close behave as for `aeron_publication_*`.

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Arc, Weak};

use crate::client::ExclusivePublication;
use crate::client::destination::DestinationCommand;
use crate::client::resource_linger::ResourceLinger;
use crate::concurrent::byte_copy::INLINE_COPY_MAX;
use crate::concurrent::caller_synchronized::CallerSynchronized;
use crate::ffi::async_add::{DestinationArg, poll_destination};
use crate::ffi::buffer_claim::aeron_buffer_claim_t;
use crate::ffi::client::{aeron_async_destination_t, aeron_t};
use crate::ffi::context_callbacks::aeron_notification_t;
use crate::ffi::handles::{Handle, try_borrow};
use crate::ffi::publication::{
    self as shared, CPublication, PublicationHandle, Writer, aeron_iovec_t, aeron_publication_constants_t,
    aeron_reserved_value_supplier_t, message, offer_boundary,
};
use crate::util::error::Result;

/// An exclusive publication. Opaque; from `aeron_async_add_exclusive_publication_poll`,
/// freed by `aeron_exclusive_publication_close`.
#[allow(non_camel_case_types)]
pub struct aeron_exclusive_publication_t {
    _private: [u8; 0],
}

/// The writer state, used by one thread at a time (the C API's contract).
pub(crate) type Exclusive = CallerSynchronized<ExclusivePublication>;

impl Handle for aeron_exclusive_publication_t {
    type Target = PublicationHandle<Exclusive>;
}

impl CPublication for aeron_exclusive_publication_t {
    type Kind = Exclusive;
}

impl Writer for Exclusive {
    type Of<'a> = &'a mut ExclusivePublication;

    #[inline(always)]
    unsafe fn writer(&self) -> &mut ExclusivePublication {
        // SAFETY: one thread at a time uses the writer state (contract), so this is the
        // only reference to it now.
        unsafe { self.get_mut() }
    }
}

impl PublicationHandle<Exclusive> {
    pub(crate) fn exclusive(publication: ExclusivePublication, client: Weak<ResourceLinger>) -> Self {
        let (core, destinations) = (Arc::clone(publication.core()), publication.destinations());
        Self::new(CallerSynchronized::new(publication), core, destinations, client)
    }
}

/// The publication's writer state, for the one thread allowed to use it now.
///
/// # Safety
/// `publication` NULL or open; no other thread uses its writer state during the call.
unsafe fn writer<'a>(
    publication: *mut aeron_exclusive_publication_t,
) -> Result<&'a mut ExclusivePublication> {
    // SAFETY: forwarded contract.
    unsafe { shared::query(publication, |p| p) }
}

/// Appends a message; see `aeron_publication_offer`.
///
/// # Safety
/// `publication` NULL or open, used by this thread only now; `buffer` valid for `length`.
#[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_exclusive_publication_offer(
    publication: *mut aeron_exclusive_publication_t,
    buffer: *const u8,
    length: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    const NAME: &str = "aeron_exclusive_publication_offer";
    if reserved_value_supplier.is_some() {
        // SAFETY: the arguments of this call, forwarded.
        return unsafe {
            shared::offer_general(NAME, publication, buffer, length, reserved_value_supplier, clientd)
        };
    }
    // The common case outside the panic boundary, as in `aeron_publication_offer`.
    if !buffer.is_null() && length <= INLINE_COPY_MAX {
        // SAFETY: NULL or open (contract).
        if let Some(handle) = unsafe { try_borrow(publication) } {
            // SAFETY: one thread at a time (contract), so this is the only reference now.
            let publication = unsafe { handle.publication.writer() };
            // SAFETY: valid for length bytes (contract), length is at most INLINE_COPY_MAX.
            let message = unsafe { std::slice::from_raw_parts(buffer, length) };
            if let Some(position) = publication.offer_fast(message) {
                return position;
            }
        }
    }
    // SAFETY: the arguments of this call, forwarded (no supplier, so no clientd).
    unsafe { shared::offer_general(NAME, publication, buffer, length, None, std::ptr::null_mut()) }
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
    const NAME: &str = "aeron_exclusive_publication_offerv";
    // SAFETY: forwarded contract.
    unsafe { shared::offerv(NAME, publication, iov, iovcnt, reserved_value_supplier, clientd) }
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
    // SAFETY: forwarded contract.
    unsafe { shared::try_claim("aeron_exclusive_publication_try_claim", publication, length, buffer_claim) }
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

// The queries, constants, close, bound addresses and destination commands, generated by
// build.rs with the concurrent publication's (`build/publication_exports.rs`).
include!(concat!(env!("OUT_DIR"), "/exclusive_publication_ffi.rs"));
