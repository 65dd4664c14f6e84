//! `aeronrs_subscription_poll_batch` and `aeronrs_fragment_batch_commit`: a subscription
//! poll that describes the fragments in an array instead of calling a handler per
//! fragment, for bindings where a call from C back into the host language costs far more
//! than handling a fragment (Go through cgo, Java through FFM upcalls). One call fills the
//! array; the binding walks it in its own language and then consumes what it handled with
//! one more call.
//!
//! Why describe first and consume afterwards, rather than consume inside the poll: a
//! consumed range no longer belongs to the subscriber. The driver zeroes an IPC
//! publication's log behind the slowest subscriber as soon as that subscriber's position
//! passes it (`spec/log-buffer.md` §9), so payload pointers into a range consumed by the
//! poll could turn to zeros while the binding still reads them. Fragments at or after the
//! subscriber position are touched by nobody: the driver cleans only behind it and a
//! publisher cannot lap it. The images the descriptors name stay mapped while the
//! subscription's image snapshot holds them, which is until its next poll.
//!
//! Describing without consuming also keeps a controlled poll's actions exact. For each
//! image the binding calls its handler on the image's descriptors in order and commits
//! the position after the last fragment it consumed: ABORT commits nothing for that
//! fragment and skips the rest of the image's descriptors (all are described again by the
//! next poll); BREAK consumes the fragment and skips the rest; COMMIT consumes it and
//! commits at once, before the next handler call; CONTINUE consumes it, committed when the
//! image's descriptors are done. A plain poll commits every descriptor.
//!
//! Threading: both functions are for the subscription's one polling thread, as
//! `aeron_subscription_poll`.

use std::ffi::{c_int, c_void};
use std::panic::AssertUnwindSafe;

use crate::client::Image;
use crate::ffi::header::{AERON_ACTION_ABORT, aeron_controlled_fragment_handler_action_t, aeron_header_t};
use crate::ffi::image::{aeron_image_t, image_ref};
use crate::ffi::subscription::{aeron_subscription_controlled_poll, aeron_subscription_t};
use crate::ffi::{ffi_boundary, require_non_null};
use crate::logbuffer::ControlledPollAction;
use crate::util::error::Result;

/// One fragment described by `aeronrs_subscription_poll_batch`: where its payload is and
/// the fields of its frame header. Plain data; the pointers in it stay valid until the
/// next `aeronrs_subscription_poll_batch` on the same subscription (or its close), and the
/// payload only as long as the fragment is not committed.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeronrs_fragment_descriptor_stct {
    /// The fragment's payload in the image's log (`length` bytes, not copied).
    pub buffer: *const u8,
    /// Payload bytes (the frame length less the 32-byte data header).
    pub length: usize,
    /// The image (`aeron_image_t *`) the fragment is from: for `aeron_image_*` queries and
    /// `aeronrs_fragment_batch_commit`.
    pub image: *mut aeron_image_t,
    /// The image's correlation id (Aeron `Image.correlationId`): names the image across polls.
    pub image_correlation_id: i64,
    /// The stream position just after this fragment (`aeron_header_position`); committing
    /// the fragment moves the subscriber position here.
    pub position: i64,
    /// The frame's reserved value (Aeron: the 8 bytes at header offset 24).
    pub reserved_value: i64,
    pub term_id: i32,
    pub term_offset: i32,
    pub session_id: i32,
    pub stream_id: i32,
    /// The whole frame: header plus payload.
    pub frame_length: i32,
    /// The stream's first term id, to turn term ids and offsets into positions.
    pub initial_term_id: i32,
    /// log2 of the term length, to turn positions into term counts.
    pub position_bits_to_shift: i32,
    /// The frame header's version byte.
    pub version: i8,
    /// BEGIN (0x80), END (0x40), EOS (0x20) as in the frame header.
    pub flags: u8,
    /// The frame type (1: DATA).
    pub frame_type: i16,
}

/// The name bindings use for it.
#[allow(non_camel_case_types)]
pub type aeronrs_fragment_descriptor_t = aeronrs_fragment_descriptor_stct;

// The layout bindings hard-code (Java's FFM struct layout, Go reads it through cgo).
static_assertions::const_assert_eq!(std::mem::size_of::<aeronrs_fragment_descriptor_t>(), 80);
static_assertions::const_assert_eq!(std::mem::align_of::<aeronrs_fragment_descriptor_t>(), 8);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeronrs_fragment_descriptor_t, position), 32);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeronrs_fragment_descriptor_t, term_id), 48);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeronrs_fragment_descriptor_t, position_bits_to_shift),
    72
);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeronrs_fragment_descriptor_t, frame_type), 78);

/// The array being filled by one `aeronrs_subscription_poll_batch`.
struct Batch {
    descriptors: *mut aeronrs_fragment_descriptor_t,
    /// Entries `descriptors` has room for: the most fragments this poll describes.
    limit: usize,
    /// Entries written so far.
    count: usize,
    /// A panic caught while describing, raised again inside the export's boundary: it may
    /// not unwind through the poll's `extern "C"` handler.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// Describes `image`'s fragments from its subscriber position to the end of its term, as
/// many as the batch has room for. `image_ptr` is its C pointer, for the descriptors.
fn describe_fragments(batch: &mut Batch, image: &Image, image_ptr: *mut aeron_image_t) {
    let image_correlation_id = image.correlation_id();
    let describe = |payload: &[u8], header: &crate::logbuffer::Header| {
        let descriptor = aeronrs_fragment_descriptor_t {
            buffer: payload.as_ptr(),
            length: payload.len(),
            image: image_ptr,
            image_correlation_id,
            position: header.position(),
            reserved_value: header.reserved_value(),
            term_id: header.term_id(),
            term_offset: header.term_offset(),
            session_id: header.session_id(),
            stream_id: header.stream_id(),
            frame_length: header.frame_length(),
            initial_term_id: header.initial_term_id(),
            position_bits_to_shift: header.position_bits_to_shift() as i32,
            version: i8::from_ne_bytes([header.version()]),
            flags: header.flags(),
            frame_type: i16::from_ne_bytes(header.frame_type().to_ne_bytes()),
        };
        // SAFETY: count < limit here (checked before the peek, and the peek stops once the
        // batch is full), so the entry is inside the caller's array.
        unsafe { batch.descriptors.add(batch.count).write(descriptor) };
        batch.count += 1;
        if batch.count < batch.limit { ControlledPollAction::Continue } else { ControlledPollAction::Break }
    };
    // The peek reads from the subscriber position, which is always a valid start, so it
    // cannot fail; a closed image describes nothing. i64::MAX: up to the term's end.
    let _ = image.controlled_peek(image.position(), describe, i64::MAX);
}

/// Called by the subscription's controlled poll with the first fragment at each image's
/// subscriber position: describes that image's fragments into the batch, then answers
/// ABORT so the poll consumes none of them and goes on to the next image (having consumed
/// only padding at a term's end, as every poll does).
///
/// # Safety
/// `clientd` is the `Batch` of the running `aeronrs_subscription_poll_batch`; `header` the
/// header of this handler call.
unsafe extern "C" fn describe_image(
    clientd: *mut c_void,
    _buffer: *const u8,
    _length: usize,
    header: *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t {
    // SAFETY: the poll passes back the clientd it was given: this call's `Batch`, which no
    // one else touches during the poll.
    let batch = unsafe { &mut *clientd.cast::<Batch>() };
    if batch.count < batch.limit && !header.is_null() {
        // SAFETY: the header of this handler call (non-NULL, checked).
        let image = unsafe { &*header }.context.cast::<aeron_image_t>();
        // SAFETY: a header's context is the image being polled, held by the poll.
        if let Ok(found) = unsafe { image_ref(image) } {
            let described =
                std::panic::catch_unwind(AssertUnwindSafe(|| describe_fragments(batch, found, image)));
            if let Err(payload) = described {
                batch.panic = Some(payload);
                // Nothing more is described once something went wrong.
                batch.limit = 0;
            }
        }
    }
    aeron_controlled_fragment_handler_action_t(AERON_ACTION_ABORT)
}

/// Describes up to `fragment_limit` fragments into `descriptors`, from the images in turn
/// (starting one image further each call, as `aeron_subscription_poll`), each image's from
/// its subscriber position up to the end of its current term. Consumes nothing except
/// padding at a term's end: commit what was handled with `aeronrs_fragment_batch_commit`
/// before the next call. A fragment left uncommitted is described again by the next call.
///
/// The descriptors' `buffer` and `image` pointers stay valid until the next
/// `aeronrs_subscription_poll_batch` on this subscription or its close, the payload bytes
/// unchanged as long as they are not committed.
///
/// Returns the number of descriptors written (0 to `fragment_limit`), or -1: NULL
/// `subscription`, NULL `descriptors` with a non-zero `fragment_limit` (EINVAL), a
/// subscription whose add has not completed.
///
/// # Safety
/// `subscription` NULL or open, polled by this thread only now; `descriptors` NULL or valid
/// for writing `fragment_limit` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_subscription_poll_batch(
    subscription: *mut aeron_subscription_t,
    descriptors: *mut aeronrs_fragment_descriptor_t,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeronrs_subscription_poll_batch", {
        require_non_null!(subscription, "subscription");
        if fragment_limit == 0 {
            return Ok(0);
        }
        require_non_null!(descriptors, "descriptors");
        // The count is returned as a C int.
        let limit = fragment_limit.min(c_int::MAX as usize);
        let mut batch = Batch { descriptors, limit, count: 0, panic: None };
        let clientd = std::ptr::from_mut(&mut batch).cast::<c_void>();
        // SAFETY: the caller's subscription (contract); the handler treats clientd as the
        // Batch above, alive for the call.
        let result =
            unsafe { aeron_subscription_controlled_poll(subscription, Some(describe_image), clientd, limit) };
        if let Some(payload) = batch.panic.take() {
            std::panic::resume_unwind(payload);
        }
        // A failed poll has set the error (the subscription is not ready).
        Ok(if result < 0 { -1 } else { batch.count as c_int })
    })
}

/// Consumes the fragments `descriptors[0..count)` describe: each image named there has its
/// subscriber position moved forward to the greatest `position` among its descriptors
/// (never back; an image that has closed meanwhile is left alone, its position frozen as
/// Aeron freezes it). The descriptors must come from the latest
/// `aeronrs_subscription_poll_batch` on their subscription. Returns 0, or -1: NULL
/// `descriptors` with a non-zero `count` (EINVAL), a position outside its image's current
/// term or not frame aligned (EINVAL; not the case for descriptors as the poll wrote them).
///
/// # Safety
/// `descriptors` NULL or valid for reading `count` entries, written by the latest
/// `aeronrs_subscription_poll_batch` of a subscription this thread polls, with no poll of
/// it since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_fragment_batch_commit(
    descriptors: *const aeronrs_fragment_descriptor_t,
    count: usize,
) -> c_int {
    ffi_boundary!("aeronrs_fragment_batch_commit", {
        if count == 0 {
            return Ok(0);
        }
        require_non_null!(descriptors, "descriptors");
        // SAFETY: valid for `count` entries (contract); plain data.
        let descriptors = unsafe { std::slice::from_raw_parts(descriptors, count) };
        // The poll writes each image's descriptors together, in stream order: one position
        // store per run of the same image.
        for run in descriptors.chunk_by(|a, b| a.image == b.image) {
            let position = run.iter().map(|d| d.position).max().unwrap_or(i64::MIN);
            // SAFETY: the image of a descriptor from the latest poll, which the
            // subscription's snapshot keeps alive (contract).
            commit(unsafe { image_ref(run[0].image) }?, position)?;
        }
        Ok(0)
    })
}

/// Moves `image`'s subscriber position forward to `position`.
fn commit(image: &Image, position: i64) -> Result<()> {
    if image.is_closed() || position <= image.position() {
        return Ok(());
    }
    match image.set_position(position) {
        // Closed between the check and the store: the conductor froze its position.
        Err(_) if image.is_closed() => Ok(()),
        other => other,
    }
}
