//! `aeron_image_*` over [`crate::client::Image`]: one publisher's stream within a
//! subscription.
//!
//! An `aeron_image_t *` points to the Rust `Image` inside its `Arc`: the subscription
//! holds one reference while the image is available (then one more for the linger
//! period), and each retain holds another.
//!
//! Threading: as in Aeron, the polls (`poll`, `controlled_poll`, `bounded_*`,
//! `controlled_peek`, `block_poll`) and `set_position` are for one thread at a time, the
//! subscription's poller; the queries may be called from any thread.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use crate::client::Image;
use crate::client::image::{PollReadiness, PollStart};
use crate::ffi::handles::{self, Handle};
use crate::ffi::header::{
    FragmentHandlerFn, aeron_block_handler_t, aeron_controlled_fragment_handler_t, aeron_fragment_handler_t,
    deliver, deliver_controlled, with_known_fragment_handler,
};
use crate::ffi::subscription::aeron_subscription_t;
use crate::util::error::{Error, Result};

/// An image. Opaque; handed out by image handlers, fragment headers and subscription
/// queries; never freed by the application (release what it retained).
#[allow(non_camel_case_types)]
pub struct aeron_image_t {
    _private: [u8; 0],
}

/// What does not change during an image's life.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_image_constants_t {
    /// The subscription the image belongs to (NULL when asked through a header outside a
    /// subscription poll).
    pub subscription: *mut aeron_subscription_t,
    /// `aeron:ipc` for IPC, else the sender's address; valid while the image is.
    pub source_identity: *const c_char,
    pub correlation_id: i64,
    /// The position the subscriber joined the stream at.
    pub join_position: i64,
    pub position_bits_to_shift: usize,
    pub term_buffer_length: usize,
    pub mtu_length: usize,
    pub session_id: i32,
    pub initial_term_id: i32,
    /// Counter id of this subscriber's position in the stream.
    pub subscriber_position_id: i32,
}

impl Handle for aeron_image_t {
    type Target = Image;
}

/// The C pointer of an image the caller holds.
pub(crate) fn image_ptr(image: &Arc<Image>) -> *mut aeron_image_t {
    handles::shared_ptr(image)
}

/// The C pointer of an image retained for the application (one reference handed over).
pub(crate) fn retained_image(image: Arc<Image>) -> *mut aeron_image_t {
    handles::share_into_raw(image)
}

/// The image behind `image`.
///
/// # Safety
/// `image` NULL or valid (see the module docs).
pub(crate) unsafe fn image_ref<'a>(image: *mut aeron_image_t) -> Result<&'a Image> {
    // SAFETY: NULL or a live Image inside an Arc (contract).
    unsafe { handles::borrow(image, "image") }
}

/// Adds a reference to `image`.
///
/// # Safety
/// `image` NULL or valid.
pub(crate) unsafe fn retain(image: *mut aeron_image_t) -> Result<()> {
    require_non_null!(image, "image");
    // SAFETY: non-NULL, points into a live Arc<Image> (contract).
    unsafe { handles::retain_shared(image) };
    Ok(())
}

/// Drops a reference the application holds to `image`.
///
/// # Safety
/// `image` NULL or retained by the caller, released once per retain.
pub(crate) unsafe fn release(image: *mut aeron_image_t) -> Result<()> {
    require_non_null!(image, "image");
    // SAFETY: non-NULL; the caller owns one reference (contract), given back here once.
    unsafe { handles::release_shared(image) };
    Ok(())
}

/// Fills `*constants` (with `subscription` NULL: an image does not know its C handle).
/// Returns 0, or -1 for NULL arguments.
///
/// # Safety
/// `image` NULL or valid; `constants` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_constants(
    image: *mut aeron_image_t,
    constants: *mut aeron_image_constants_t,
) -> c_int {
    ffi_boundary!("aeron_image_constants", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        require_non_null!(constants, "constants");
        let value = aeron_image_constants_t {
            subscription: std::ptr::null_mut(),
            source_identity: i.source_identity_c().as_ptr(),
            correlation_id: i.correlation_id(),
            join_position: i.join_position(),
            position_bits_to_shift: i.position_bits_to_shift() as usize,
            term_buffer_length: i.term_buffer_length(),
            mtu_length: usize::try_from(i.mtu_length()).unwrap_or(0),
            session_id: i.session_id(),
            initial_term_id: i.initial_term_id(),
            subscriber_position_id: i.subscriber_position_id(),
        };
        // SAFETY: non-null and writable (contract).
        unsafe { constants.write(value) };
        Ok(0)
    })
}

/// How far this subscriber consumed the stream (frozen once the image closed).
///
/// # Safety
/// `image` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_position(image: *mut aeron_image_t) -> i64 {
    ffi_boundary!("aeron_image_position", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        Ok(i.position())
    })
}
/// Whether the publisher ended the stream and everything was consumed.
///
/// # Safety
/// `image` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_is_end_of_stream(image: *mut aeron_image_t) -> bool {
    ffi_boundary!("aeron_image_is_end_of_stream", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        Ok(i.is_end_of_stream())
    })
}
/// The position the publisher ended the stream at (INT64_MAX while it goes on).
///
/// # Safety
/// `image` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_end_of_stream_position(image: *mut aeron_image_t) -> i64 {
    ffi_boundary!("aeron_image_end_of_stream_position", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        Ok(i.end_of_stream_position())
    })
}
/// Senders heard from recently (0 for IPC and closed images).
///
/// # Safety
/// `image` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_active_transport_count(image: *mut aeron_image_t) -> c_int {
    ffi_boundary!("aeron_image_active_transport_count", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        Ok(if i.is_closed() { 0 } else { i.active_transport_count() })
    })
}
/// Whether the image closed (its publisher left, or the subscription closed).
///
/// # Safety
/// `image` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_is_closed(image: *mut aeron_image_t) -> bool {
    ffi_boundary!("aeron_image_is_closed", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        Ok(i.is_closed())
    })
}

/// Moves the subscriber position (frame aligned, within the current term). Returns 0, or
/// -1 (NULL, a bad position, closed).
///
/// # Safety
/// `image` NULL or valid; called by the polling thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_set_position(image: *mut aeron_image_t, position: i64) -> c_int {
    ffi_boundary!("aeron_image_set_position", {
        // SAFETY: forwarded contract.
        unsafe { image_ref(image) }?.set_position(position)?;
        Ok(0)
    })
}

fn required<T>(handler: Option<T>) -> Result<T> {
    handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))
}

/// Delivers up to `fragment_limit` fragments to `handler` and consumes them. Returns the
/// fragments delivered, or -1.
///
/// # Safety
/// `image` NULL or valid, polled by this thread only now; `handler` safe to call with
/// `clientd`.
#[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_poll(
    image: *mut aeron_image_t,
    handler: aeron_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    // What a spinning subscriber mostly makes, an empty poll, is answered here, outside the
    // panic boundary, by pointer tests and `poll_readiness`, which cannot panic; a poll with
    // something to read starts where `poll_readiness` found it, looking nothing up twice.
    if let Some(handler) = handler {
        // SAFETY: NULL or valid (see the module docs).
        if let Some(i) = unsafe { handles::try_borrow(image) } {
            match i.poll_readiness() {
                PollReadiness::Empty => return 0,
                PollReadiness::Ready(start) => {
                    // SAFETY: the arguments of this call, forwarded, with `image`'s readiness.
                    return unsafe { image_poll_from(image, i, start, handler, clientd, fragment_limit) };
                }
                PollReadiness::Unsure => {}
            }
        }
    }
    // SAFETY: the arguments of this call, forwarded.
    unsafe { image_poll(image, handler, clientd, fragment_limit) }
}

/// `aeron_image_poll` behind the panic boundary, from where `poll_readiness` found a frame.
///
/// # Safety
/// As `aeron_image_poll`; `i` is `image`'s image and `start` its readiness.
#[inline(always)]
unsafe fn image_poll_from(
    image: *mut aeron_image_t,
    i: &Image,
    start: PollStart<'_>,
    handler: FragmentHandlerFn,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_poll", {
        let n = with_known_fragment_handler!(
            handler,
            i.poll_from(
                start,
                |payload, header| deliver(handler, clientd, payload, header, image.cast()),
                fragment_limit
            )
        );
        Ok(n as c_int)
    })
}

/// `aeron_image_poll` behind the panic boundary, every argument checked.
///
/// # Safety
/// As `aeron_image_poll`.
#[inline(never)]
unsafe fn image_poll(
    image: *mut aeron_image_t,
    handler: aeron_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_poll", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        let n = with_known_fragment_handler!(
            handler,
            i.poll(
                |payload, header| deliver(handler, clientd, payload, header, image.cast()),
                fragment_limit
            )
        );
        Ok(n as c_int)
    })
}

/// As `aeron_image_poll`, the handler choosing per fragment.
///
/// # Safety
/// As `aeron_image_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_controlled_poll(
    image: *mut aeron_image_t,
    handler: aeron_controlled_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_controlled_poll", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        let n = i.controlled_poll(
            |payload, header| deliver_controlled(handler, clientd, payload, header, image.cast()),
            fragment_limit,
        );
        Ok(n as c_int)
    })
}

/// As `aeron_image_poll`, starting no fragment at or past `limit_position`.
///
/// # Safety
/// As `aeron_image_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_bounded_poll(
    image: *mut aeron_image_t,
    handler: aeron_fragment_handler_t,
    clientd: *mut c_void,
    limit_position: i64,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_bounded_poll", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        let n = i.bounded_poll(
            |payload, header| deliver(handler, clientd, payload, header, image.cast()),
            limit_position,
            fragment_limit,
        );
        Ok(n as c_int)
    })
}

/// As `aeron_image_controlled_poll`, starting no fragment at or past `limit_position`.
///
/// # Safety
/// As `aeron_image_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_bounded_controlled_poll(
    image: *mut aeron_image_t,
    handler: aeron_controlled_fragment_handler_t,
    clientd: *mut c_void,
    limit_position: i64,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_bounded_controlled_poll", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        let n = i.bounded_controlled_poll(
            |payload, header| deliver_controlled(handler, clientd, payload, header, image.cast()),
            limit_position,
            fragment_limit,
        );
        Ok(n as c_int)
    })
}

/// Delivers fragments from `initial_position` (frame aligned, at or after the subscriber
/// position, within its term) up to `limit_position` without consuming them. Returns the
/// position after the last whole message delivered (`initial_position` if none, or the
/// image is closed), or -1 (NULL, a bad initial position).
///
/// # Safety
/// As `aeron_image_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_controlled_peek(
    image: *mut aeron_image_t,
    initial_position: i64,
    handler: aeron_controlled_fragment_handler_t,
    clientd: *mut c_void,
    limit_position: i64,
) -> i64 {
    ffi_boundary!("aeron_image_controlled_peek", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        i.controlled_peek(
            initial_position,
            |payload, header| deliver_controlled(handler, clientd, payload, header, image.cast()),
            limit_position,
        )
    })
}

/// Hands `handler` the next run of whole frames (headers included, at most
/// `block_length_limit` bytes, within one term) and consumes it. A padding frame at the
/// start is handed over alone. Returns the bytes consumed, or -1.
///
/// # Safety
/// As `aeron_image_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_block_poll(
    image: *mut aeron_image_t,
    handler: aeron_block_handler_t,
    clientd: *mut c_void,
    block_length_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_image_block_poll", {
        // SAFETY: forwarded contract.
        let i = unsafe { image_ref(image) }?;
        let handler = required(handler)?;
        let bytes = i.block_poll(
            |block, session_id, term_id| {
                // SAFETY: the application's handler; the block outlives the call.
                unsafe { handler(clientd, block.as_ptr(), block.len(), session_id, term_id) }
            },
            block_length_limit,
        );
        Ok(c_int::try_from(bytes).unwrap_or(c_int::MAX))
    })
}

/// Asks the driver to reject the image (Aeron 1.47+): it stops accepting the stream's data
/// and sends the publisher ERR frames with IMAGE_REJECTED and `reason` (at most 1023
/// bytes), which the publishing client hears through its publication error frame handler;
/// the image then times out and becomes unavailable. Waits for the driver's answer (up to
/// the driver timeout, also running the client's conductor duty cycle meanwhile), so a
/// refusal is reported here: returns 0, or -1 (NULL arguments, the driver no longer knows
/// the image (GENERIC_ERROR), reason too long, client closed).
///
/// # Safety
/// `image` NULL or valid; `reason` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_reject(image: *mut aeron_image_t, reason: *const c_char) -> c_int {
    ffi_boundary!("aeron_image_reject", {
        // SAFETY: forwarded contract.
        let image = unsafe { image_ref(image) }?;
        require_non_null!(reason, "reason");
        // SAFETY: NUL-terminated (contract).
        let reason = unsafe { std::ffi::CStr::from_ptr(reason) }.to_string_lossy();
        image.reject(&reason)?;
        Ok(0)
    })
}
