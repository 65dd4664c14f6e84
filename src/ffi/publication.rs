//! `aeron_publication_*` (concurrent publications) and `aeron_buffer_claim_*`, over
//! [`crate::client::Publication`] and [`crate::logbuffer::BufferClaim`].
//!
//! Threading: a publication may be used from any number of threads at once (offer,
//! try_claim, queries), as in Aeron. Close it once, from one thread; threads still using it
//! then see `AERON_PUBLICATION_CLOSED` for the client's resource linger duration, after
//! which the handle is freed.
//!
//! `offer`, `offerv` and `try_claim` return the new stream position (> 0) or a negative
//! `AERON_PUBLICATION_*` code; `AERON_PUBLICATION_ERROR` (-6) means the call itself was
//! wrong (NULL argument, message too long) and sets `aeron_errcode()` / `aeron_errmsg()`.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::{Arc, Weak};

use crate::client::Publication;
use crate::client::destination::{DestinationCommand, Destinations};
use crate::client::publication::PendingClaim;
use crate::client::publication_accessors::PublicationWriter;
use crate::client::publication_core::PublicationCore;
use crate::client::resource_linger::{ResourceLinger, linger_or_drop};
use crate::concurrent::byte_copy::INLINE_COPY_MAX;
use crate::ffi::async_add::{DestinationArg, poll_destination, send_destination};
use crate::ffi::buffer_claim::{aeron_buffer_claim_t, store_claim};
use crate::ffi::client::{aeron_async_destination_t, aeron_t};
use crate::ffi::context_callbacks::aeron_notification_t;
use crate::ffi::handles::{Handle, borrow, reclaim, try_borrow};
use crate::ffi::local_addresses::{check_address_vec, write_addresses};
use crate::ffi::{FailureValue, boundary};
use crate::util::error::Result;

/// A concurrent publication. Opaque; from `aeron_async_add_publication_poll`, freed by
/// `aeron_publication_close`.
#[allow(non_camel_case_types)]
pub struct aeron_publication_t {
    _private: [u8; 0],
}

/// Not connected to any subscriber (yet, or any more): try again later.
pub const AERON_PUBLICATION_NOT_CONNECTED: i64 = -1;
/// Subscribers are behind: the publication may not run further ahead of them yet.
pub const AERON_PUBLICATION_BACK_PRESSURED: i64 = -2;
/// The log rotated to a new term: retry at once.
pub const AERON_PUBLICATION_ADMIN_ACTION: i64 = -3;
/// The publication is closed: stop using it.
pub const AERON_PUBLICATION_CLOSED: i64 = -4;
/// The stream reached the largest position its term length allows: add a new publication.
pub const AERON_PUBLICATION_MAX_POSITION_EXCEEDED: i64 = -5;
/// The call was wrong (a NULL argument, a message too long): see `aeron_errmsg()`.
pub const AERON_PUBLICATION_ERROR: i64 = -6;

static_assertions::const_assert_eq!(AERON_PUBLICATION_NOT_CONNECTED, crate::client::NOT_CONNECTED);
static_assertions::const_assert_eq!(AERON_PUBLICATION_BACK_PRESSURED, crate::client::BACK_PRESSURED);
static_assertions::const_assert_eq!(AERON_PUBLICATION_ADMIN_ACTION, crate::client::ADMIN_ACTION);
static_assertions::const_assert_eq!(AERON_PUBLICATION_CLOSED, crate::client::CLOSED);
static_assertions::const_assert_eq!(
    AERON_PUBLICATION_MAX_POSITION_EXCEEDED,
    crate::client::MAX_POSITION_EXCEEDED
);
static_assertions::const_assert_eq!(AERON_PUBLICATION_ERROR, crate::client::PUBLICATION_ERROR);

/// Supplies the reserved value (header bytes 24..32) of each frame of an offer, just before
/// the frame is published: `buffer` points at the frame header in the log and
/// `frame_length` is the whole frame's length. Called on the offering thread; read only.
#[allow(non_camel_case_types)]
pub type aeron_reserved_value_supplier_t =
    Option<unsafe extern "C" fn(clientd: *mut c_void, buffer: *mut u8, frame_length: usize) -> i64>;

/// One part of a message to gather (`offerv`), or a buffer to fill.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_iovec_t {
    pub iov_base: *mut u8,
    pub iov_len: usize,
}

/// What does not change during a publication's life.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_publication_constants_t {
    /// The channel URI, valid while the publication is.
    pub channel: *const c_char,
    /// Registration id of the driver's publication (shared by all its publishers).
    pub original_registration_id: i64,
    /// Registration id of this handle; differs from the original when the publication
    /// already existed.
    pub registration_id: i64,
    /// The largest position the stream can reach (term length × 2^31).
    pub max_possible_position: i64,
    /// Right shift turning a position into a term count.
    pub position_bits_to_shift: usize,
    pub term_buffer_length: usize,
    /// Longest message `offer` takes (fragmented above `max_payload_length`).
    pub max_message_length: usize,
    /// Longest payload of one frame (MTU − 32): the limit of `try_claim`.
    pub max_payload_length: usize,
    pub stream_id: i32,
    pub session_id: i32,
    pub initial_term_id: i32,
    pub publication_limit_counter_id: i32,
    pub channel_status_indicator_id: i32,
}

/// What an `aeron_publication_t` (`P` = [`Publication`]) or an
/// `aeron_exclusive_publication_t` (`P` = its one writer's [`ExclusivePublication`]) points
/// to: the publication and what C may read of it from any thread.
pub(crate) struct PublicationHandle<P> {
    pub(crate) publication: P,
    core: Arc<PublicationCore>,
    channel: CString,
    /// The destination commands, usable from any thread (no writer state).
    destinations: Destinations,
    client: Weak<ResourceLinger>,
}

impl Handle for aeron_publication_t {
    type Target = PublicationHandle<Publication>;
}

impl<P> PublicationHandle<P> {
    pub(crate) fn new(
        publication: P,
        core: Arc<PublicationCore>,
        destinations: Destinations,
        client: Weak<ResourceLinger>,
    ) -> Self {
        let channel = crate::ffi::client::lossless_c_string(&core.info.channel);
        Self { publication, core, channel, destinations, client }
    }
}

impl PublicationHandle<Publication> {
    pub(crate) fn concurrent(publication: Publication, client: Weak<ResourceLinger>) -> Self {
        let (core, destinations) = (Arc::clone(publication.core()), publication.destinations());
        Self::new(publication, core, destinations, client)
    }
}

/// The C type of either kind of publication handle.
pub(crate) trait CPublication:
    Handle<Target = PublicationHandle<<Self as CPublication>::Kind>>
{
    type Kind: Writer + Send + 'static;
}

impl CPublication for aeron_publication_t {
    type Kind = Publication;
}

/// How a handle's publication is reached for a call that may touch its writer state.
pub(crate) trait Writer {
    type Of<'a>: PublicationWriter
    where
        Self: 'a;

    /// # Safety
    /// For a single-writer publication: no other thread uses its writer state meanwhile.
    unsafe fn writer(&self) -> Self::Of<'_>;
}

impl Writer for Publication {
    type Of<'a> = &'a Publication;

    #[inline(always)]
    unsafe fn writer(&self) -> &Publication {
        self
    }
}

/// The result of an offer: a position or code, with `AERON_PUBLICATION_ERROR` on failure.
pub(crate) struct OfferResult(pub i64);

impl FailureValue for OfferResult {
    fn failure() -> Self {
        Self(AERON_PUBLICATION_ERROR)
    }
}

/// Runs an offer-like body: errors (and panics) become `AERON_PUBLICATION_ERROR` with the
/// thread's error set, as Aeron's offer functions report them.
pub(crate) fn offer_boundary(function: &str, body: impl FnOnce() -> Result<i64>) -> i64 {
    boundary(function, || body().map(OfferResult)).0
}

/// The message bytes of an offer.
///
/// # Safety
/// `buffer` must be valid for `length` bytes (NULL allowed when 0).
pub(crate) unsafe fn message<'a>(buffer: *const u8, length: usize) -> Result<&'a [u8]> {
    if length == 0 {
        return Ok(&[]);
    }
    require_non_null!(buffer, "buffer");
    // SAFETY: non-null and valid for length bytes (contract).
    Ok(unsafe { std::slice::from_raw_parts(buffer, length) })
}

/// Most gathers in practice have few parts: up to this many are collected on the stack, so
/// `offerv` does not allocate.
const STACK_IOVECS: usize = 16;

/// Calls `body` with the parts described by `iov[..iovcnt]`.
///
/// # Safety
/// `iov` valid for `iovcnt` entries, each valid for its length (NULL allowed when 0).
pub(crate) unsafe fn with_iovecs<R>(
    iov: *const aeron_iovec_t,
    iovcnt: usize,
    body: impl FnOnce(&[&[u8]]) -> Result<R>,
) -> Result<R> {
    if iovcnt == 0 {
        return body(&[]);
    }
    require_non_null!(iov, "iov");
    // SAFETY: iov is non-null and valid for iovcnt entries (contract).
    let entries = unsafe { std::slice::from_raw_parts(iov, iovcnt) };
    let part = |entry: &aeron_iovec_t| {
        // SAFETY: each entry is valid for its length (contract).
        unsafe { message(entry.iov_base, entry.iov_len) }
    };
    if iovcnt <= STACK_IOVECS {
        let mut parts: [&[u8]; STACK_IOVECS] = [&[]; STACK_IOVECS];
        for (slot, entry) in parts.iter_mut().zip(entries) {
            *slot = part(entry)?;
        }
        body(&parts[..iovcnt])
    } else {
        let parts = entries.iter().map(part).collect::<Result<Vec<_>>>()?;
        body(&parts)
    }
}

/// Turns a C reserved value supplier into the Rust one.
pub(crate) fn rust_supplier(
    supplier: unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> i64,
    clientd: *mut c_void,
) -> impl FnMut(&[u8]) -> i64 {
    move |frame: &[u8]| {
        // SAFETY: the supplier's contract (aeronc.h): called with the frame it may read.
        unsafe { supplier(clientd, frame.as_ptr().cast_mut(), frame.len()) }
    }
}

/// The handle behind `publication`, of either kind.
///
/// # Safety
/// `publication` NULL or open (or lingering after close).
unsafe fn handle<'a, H: CPublication>(publication: *mut H) -> Result<&'a PublicationHandle<H::Kind>> {
    // SAFETY: forwarded contract.
    unsafe { borrow(publication, "publication") }
}

/// The publication behind `publication`, for a call that may touch its writer state.
///
/// # Safety
/// As [`handle`], and [`Writer::writer`]'s contract.
unsafe fn writer<'a, H: CPublication>(publication: *mut H) -> Result<<H::Kind as Writer>::Of<'a>> {
    // SAFETY: forwarded contract.
    let handle = unsafe { handle(publication) }?;
    // SAFETY: forwarded contract.
    Ok(unsafe { handle.publication.writer() })
}

/// `read` of the publication behind `publication`: the body of the state queries.
///
/// # Safety
/// As [`writer`].
pub(crate) unsafe fn query<'a, H: CPublication, T>(
    publication: *mut H,
    read: impl FnOnce(<H::Kind as Writer>::Of<'a>) -> T,
) -> Result<T> {
    // SAFETY: forwarded contract.
    Ok(read(unsafe { writer(publication) }?))
}

/// An offer the export's fast path declined (or did not take), behind the panic boundary.
///
/// # Safety
/// As `aeron_publication_offer`, and [`Writer::writer`]'s contract.
#[inline(never)]
pub(crate) unsafe fn offer_general<H: CPublication>(
    function: &'static str,
    publication: *mut H,
    buffer: *const u8,
    length: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    offer_boundary(function, || {
        // SAFETY: forwarded contract.
        let mut publication = unsafe { writer(publication) }?;
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

/// The body of both `offerv` exports.
///
/// # Safety
/// As `aeron_publication_offerv`, and [`Writer::writer`]'s contract.
pub(crate) unsafe fn offerv<H: CPublication>(
    function: &'static str,
    publication: *mut H,
    iov: *const aeron_iovec_t,
    iovcnt: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    offer_boundary(function, || {
        // SAFETY: forwarded contract.
        let mut publication = unsafe { writer(publication) }?;
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

/// The body of both `try_claim` exports.
///
/// # Safety
/// As `aeron_publication_try_claim`, and [`Writer::writer`]'s contract.
pub(crate) unsafe fn try_claim<H: CPublication>(
    function: &'static str,
    publication: *mut H,
    length: usize,
    buffer_claim: *mut aeron_buffer_claim_t,
) -> i64 {
    offer_boundary(function, || {
        // SAFETY: forwarded contract.
        let mut publication = unsafe { writer(publication) }?;
        require_non_null!(buffer_claim, "buffer_claim");
        let (position, claim) = publication.try_claim(length)?;
        if let Some(claim) = claim {
            // SAFETY: buffer_claim is non-null and writable (contract).
            unsafe { store_claim(claim, buffer_claim) };
        }
        Ok(position)
    })
}

/// The channel URI, valid while the handle is (any thread).
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn channel<H: CPublication>(publication: *mut H) -> Result<*const c_char> {
    // SAFETY: forwarded contract.
    Ok(unsafe { handle(publication) }?.channel.as_ptr())
}

/// What the driver fixed at the add (ids, lengths), readable from any thread.
///
/// # Safety
/// As [`handle`].
pub(crate) unsafe fn fixed<'a, H: CPublication, T>(
    publication: *mut H,
    read: impl FnOnce(&'a PublicationCore) -> T,
) -> Result<T> {
    // SAFETY: forwarded contract.
    Ok(read(&unsafe { handle(publication) }?.core))
}

/// The body of both `constants` exports.
///
/// # Safety
/// As [`handle`]; `constants` NULL or valid for a write.
pub(crate) unsafe fn constants<H: CPublication>(
    publication: *mut H,
    constants: *mut aeron_publication_constants_t,
) -> Result<c_int> {
    // SAFETY: forwarded contract.
    let handle = unsafe { handle(publication) }?;
    require_non_null!(constants, "constants");
    let core = &handle.core;
    let value = aeron_publication_constants_t {
        channel: handle.channel.as_ptr(),
        original_registration_id: core.info.original_registration_id,
        registration_id: core.info.registration_id,
        max_possible_position: core.max_possible_position,
        position_bits_to_shift: core.position_bits_to_shift as usize,
        term_buffer_length: core.term_length,
        max_message_length: core.max_message_length,
        max_payload_length: core.max_payload_length,
        stream_id: core.info.stream_id,
        session_id: core.info.session_id,
        initial_term_id: core.initial_term_id,
        publication_limit_counter_id: core.info.position_limit_id,
        channel_status_indicator_id: core.info.channel_status_id,
    };
    // SAFETY: non-null and writable (contract).
    unsafe { constants.write(value) };
    Ok(0)
}

/// The body of both `close` exports: closes, notifies, then lets the handle linger.
///
/// # Safety
/// `publication` NULL or open, closed once, and [`Writer::writer`]'s contract;
/// `on_close_complete` NULL or safe to call with `on_close_complete_clientd` on this thread.
pub(crate) unsafe fn close<H: CPublication>(
    publication: *mut H,
    on_close_complete: aeron_notification_t,
    on_close_complete_clientd: *mut c_void,
) -> Result<c_int> {
    if publication.is_null() {
        return Ok(0);
    }
    // SAFETY: open and closed once (contract); other threads may still read it until it
    // is freed after lingering.
    unsafe { writer(publication) }?.close();
    if let Some(notify) = on_close_complete {
        // SAFETY: safe to call with its clientd on this thread (contract).
        unsafe { notify(on_close_complete_clientd) };
    }
    // SAFETY: closed once (contract): this is the only reclaim of the box.
    if let Some(boxed) = unsafe { reclaim(publication) } {
        let client = boxed.client.clone();
        linger_or_drop(&client, boxed);
    }
    Ok(0)
}

/// The body of the publications' destination exports.
///
/// # Safety
/// As [`send_destination`], and `publication` NULL or open (or lingering after close).
pub(crate) unsafe fn destination<H: CPublication>(
    r#async: *mut *mut aeron_async_destination_t,
    client: *mut aeron_t,
    publication: *mut H,
    arg: DestinationArg,
) -> Result<c_int> {
    // SAFETY: NULL or open or lingering (contract).
    let destinations = || Ok(&unsafe { handle(publication) }?.destinations);
    // SAFETY: forwarded contract.
    unsafe { send_destination(r#async, client, destinations, arg) }
}

/// The body of both `local_sockaddrs` exports.
///
/// # Safety
/// As `aeron_publication_local_sockaddrs`, and [`Writer::writer`]'s contract.
pub(crate) unsafe fn local_sockaddrs<H: CPublication>(
    publication: *mut H,
    address_vec: *mut aeron_iovec_t,
    address_vec_len: usize,
) -> Result<c_int> {
    // SAFETY: forwarded contract.
    let publication = unsafe { writer(publication) }?;
    check_address_vec(address_vec, address_vec_len)?;
    let addresses = publication.local_socket_addresses();
    // SAFETY: address_vec valid for address_vec_len entries (contract).
    unsafe { write_addresses(&addresses, address_vec, address_vec_len) }
}

/// Appends `length` bytes at `buffer` as one message (fragmented when longer than the max
/// payload length). With a `reserved_value_supplier`, each frame's reserved value comes
/// from it. Returns the new position or a negative `AERON_PUBLICATION_*` code.
///
/// # Safety
/// `publication` NULL or open; `buffer` valid for `length` bytes; the supplier safe to call
/// with `clientd` on this thread.
#[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_offer(
    publication: *mut aeron_publication_t,
    buffer: *const u8,
    length: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    const NAME: &str = "aeron_publication_offer";
    // The common case runs outside the panic boundary: pointer and length tests and
    // `offer_fast`, which neither panics nor calls out of line (its rare completion runs
    // behind the boundary), so this export needs only a small stack frame.
    if reserved_value_supplier.is_some() {
        // SAFETY: the arguments of this call, forwarded.
        return unsafe { offer_general(NAME, publication, buffer, length, reserved_value_supplier, clientd) };
    }
    // Without a supplier `clientd` is not used: the fast path keeps three arguments live.
    if !buffer.is_null() && length <= INLINE_COPY_MAX {
        // SAFETY: NULL or open (contract).
        if let Some(handle) = unsafe { try_borrow(publication) } {
            // SAFETY: valid for length bytes (contract), length is at most INLINE_COPY_MAX.
            let message = unsafe { std::slice::from_raw_parts(buffer, length) };
            let complete = |claim| {
                // SAFETY: the arguments of this call, forwarded.
                unsafe { complete_offer(publication, buffer, length, claim) }
            };
            if let Some(position) = handle.publication.offer_fast(message, complete) {
                return position;
            }
        }
    }
    // SAFETY: the arguments of this call, forwarded (no supplier, so no clientd).
    unsafe { offer_general(NAME, publication, buffer, length, None, std::ptr::null_mut()) }
}

/// Finishes a claim `offer_fast` could not, behind the panic boundary.
///
/// # Safety
/// As `aeron_publication_offer`, with the handle and message `offer_fast` had.
#[cold]
#[inline(never)]
unsafe fn complete_offer(
    publication: *mut aeron_publication_t,
    buffer: *const u8,
    length: usize,
    claim: PendingClaim<'_>,
) -> i64 {
    offer_boundary("aeron_publication_offer", || {
        // SAFETY: NULL or open (contract).
        let publication = &unsafe { handle(publication) }?.publication;
        // SAFETY: valid for length bytes (contract).
        let message = unsafe { message(buffer, length) }?;
        Ok(publication.complete_claim(message, claim))
    })
}

/// As `aeron_publication_offer`, gathering the message from `iovcnt` parts.
///
/// # Safety
/// `publication` NULL or open; `iov` valid for `iovcnt` entries, each for its length.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_offerv(
    publication: *mut aeron_publication_t,
    iov: *mut aeron_iovec_t,
    iovcnt: usize,
    reserved_value_supplier: aeron_reserved_value_supplier_t,
    clientd: *mut c_void,
) -> i64 {
    // SAFETY: forwarded contract (a concurrent publication has no writer restriction).
    unsafe { offerv("aeron_publication_offerv", publication, iov, iovcnt, reserved_value_supplier, clientd) }
}

/// Claims a frame for `length` bytes (at most the max payload length) to be written in
/// place, filling `*buffer_claim`. Returns the new position (then commit or abort the
/// claim) or a negative `AERON_PUBLICATION_*` code.
///
/// # Safety
/// `publication` NULL or open; `buffer_claim` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_try_claim(
    publication: *mut aeron_publication_t,
    length: usize,
    buffer_claim: *mut aeron_buffer_claim_t,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe { try_claim("aeron_publication_try_claim", publication, length, buffer_claim) }
}

// The queries, constants, close, bound addresses and destination commands, generated by
// build.rs with the exclusive publication's (`build/publication_exports.rs`).
include!(concat!(env!("OUT_DIR"), "/publication_ffi.rs"));
