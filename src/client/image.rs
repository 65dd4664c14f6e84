//! `Image`: one publisher's stream as seen by one subscription — the mapped log, read from
//! the subscriber position counter (`spec/log-buffer.md` §8; Aeron `aeron_image_t`,
//! `Image`).
#![forbid(unsafe_code)]

use std::ffi::{CStr, CString};
use std::path::Path;
use std::sync::Weak;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use crate::client::client_conductor::RegistrationKind;
use crate::client::conductor_handle::ConductorHandle;
use crate::client::counter::counter_value_view;
use crate::concurrent::{AtomicBuffer, PublishedRange};
use crate::logbuffer::descriptor::{
    active_transport_count, end_of_stream_position, index_by_position, initial_term_id, mtu_length,
    partition, position_bits_to_shift,
};
use crate::logbuffer::frame_descriptor::{
    acquire_frame, aligned_frame_length, frame_term_id, is_padding_frame,
};
use crate::logbuffer::term_reader::{controlled_read, controlled_read_bounded, read, read_bounded};
use crate::logbuffer::{ControlledPollAction, Header, LogBuffers};
use crate::protocol::header::{DATA_HEADER_LENGTH, END_FLAG, FRAME_ALIGNMENT};
use crate::util::error::{Error, Result};

/// What the driver said about an image (ON_AVAILABLE_IMAGE).
#[derive(Debug, Clone)]
pub(crate) struct ImageInfo {
    pub correlation_id: i64,
    pub subscription_registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub subscriber_position_id: i32,
    pub source_identity: String,
}

/// What [`Image::poll_readiness`] found.
pub(crate) enum PollReadiness<'a> {
    /// Closed, or no frame published at the subscriber position.
    Empty,
    /// A frame is published at the subscriber position: read from here.
    Ready(PollStart<'a>),
    /// A check failed that a valid image never fails: leave it to the checked poll.
    Unsure,
}

/// Where a poll starts: the subscriber position, its counter and its place in the log.
#[derive(Clone, Copy)]
pub(crate) struct PollStart<'a> {
    counter: &'a AtomicI64,
    position: i64,
    term: &'a AtomicBuffer,
    term_offset: usize,
}

/// A stream from one publisher (one session id) on a subscription. Shared as
/// `Arc<Image>`; the mapping lives until the last holder drops it. Polling is meant for one
/// thread at a time (the subscription's poller); everything else may be called anywhere.
pub struct Image {
    info: ImageInfo,
    /// The source identity NUL-terminated, for C callers.
    source_identity_c: CString,
    log: LogBuffers,
    subscriber_position: AtomicBuffer,
    initial_term_id: i32,
    position_bits_to_shift: u32,
    term_length_mask: i64,
    join_position: i64,
    is_closed: AtomicBool,
    final_position: AtomicI64,
    is_eos: AtomicBool,
    /// The client, for [`reject`](Self::reject); gone once the client is.
    client: Weak<ConductorHandle>,
}

impl Image {
    pub(crate) fn map(
        info: ImageInfo,
        log_file: &Path,
        counters_values: &AtomicBuffer,
        pre_touch: bool,
        client: Weak<ConductorHandle>,
    ) -> Result<Self> {
        let log = LogBuffers::map_existing(log_file)?;
        if pre_touch {
            crate::client::publication_core::pre_touch_terms(&log);
        }
        let subscriber_position = counter_value_view(counters_values, info.subscriber_position_id)
            .map_err(|e| e.context("subscriber position counter"))?;
        let term_length = log.term_length();
        // Acquire: the driver set the join position before announcing the image.
        let join_position = subscriber_position.get_i64_acquire(0);
        let source_identity_c = CString::new(info.source_identity.replace('\0', " ")).unwrap_or_default();
        Ok(Self {
            source_identity_c,
            initial_term_id: initial_term_id(log.metadata()),
            position_bits_to_shift: position_bits_to_shift(term_length),
            term_length_mask: term_length as i64 - 1,
            join_position,
            final_position: AtomicI64::new(join_position),
            is_closed: AtomicBool::new(false),
            is_eos: AtomicBool::new(false),
            subscriber_position,
            client,
            info,
            log,
        })
    }

    /// Delivers up to `fragment_limit` fragments from one term to `handler(payload,
    /// header)` and moves the subscriber position past them. Returns the number delivered;
    /// 0 once closed.
    #[inline]
    pub fn poll<F>(&self, handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header),
    {
        match self.poll_readiness() {
            PollReadiness::Empty => 0,
            PollReadiness::Ready(start) => self.poll_from(start, handler, fragment_limit),
            PollReadiness::Unsure => self.poll_checked(handler, fragment_limit),
        }
    }

    /// Whether a poll now would certainly deliver nothing: the image is closed, or no frame
    /// is published at the subscriber position yet — a spinning subscriber's common case.
    /// Neither panics nor calls out, so the C API answers such polls before its panic
    /// boundary; `false` whenever it cannot tell cheaply (the poll then decides).
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    #[inline(always)]
    pub fn has_nothing_to_poll(&self) -> bool {
        matches!(self.poll_readiness(), PollReadiness::Empty)
    }

    /// What a poll would find now, worked out once and without panicking or calling out:
    /// nothing (closed, or no frame published at the subscriber position), or where to start
    /// reading, which [`poll_from`](Self::poll_from) takes without looking any of it up
    /// again. `Unsure` when a check fails that a valid image never fails (a counter or term
    /// offset off its alignment); the checked poll then answers as it always has.
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    #[inline(always)]
    pub(crate) fn poll_readiness(&self) -> PollReadiness<'_> {
        if self.is_closed() {
            return PollReadiness::Empty;
        }
        let Some(counter) = self.subscriber_position.try_atomic_i64(0) else {
            return PollReadiness::Unsure;
        };
        // Relaxed: only this poller writes the counter, so this reads its own last store.
        let position = counter.load(Ordering::Relaxed);
        let term_offset = (position & self.term_length_mask) as usize;
        // The shift is below 64: it comes from the term length validated at mapping.
        let term = partition(self.log.terms(), index_by_position(position, self.position_bits_to_shift));
        match term.try_atomic_i32_array::<1>(term_offset) {
            // Acquire, as the reader's own read of the frame length.
            Some([frame_length]) if frame_length.load(Ordering::Acquire) <= 0 => PollReadiness::Empty,
            Some(_) => PollReadiness::Ready(PollStart { counter, position, term, term_offset }),
            None => PollReadiness::Unsure,
        }
    }

    /// [`poll`](Self::poll) from what [`poll_readiness`](Self::poll_readiness) found: the
    /// position, term and counter are not looked up again, and the counter store needs no
    /// bounds check.
    #[inline]
    pub(crate) fn poll_from<F>(&self, start: PollStart<'_>, handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header),
    {
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let outcome = read(start.term, start.term_offset, fragment_limit, &mut header, handler);
        if outcome.offset > start.term_offset {
            let new_position = start.position.wrapping_add((outcome.offset - start.term_offset) as i64);
            // Release: the driver (and publishers through it) may reuse the space only after
            // seeing the reads above completed.
            start.counter.store(new_position, Ordering::Release);
        }
        outcome.fragments_read
    }

    /// [`poll`](Self::poll) with every look-up checked, for what
    /// [`poll_readiness`](Self::poll_readiness) could not vouch for.
    #[cold]
    #[inline(never)]
    fn poll_checked<F>(&self, handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header),
    {
        if self.is_closed() {
            return 0;
        }
        let (position, term_offset, term) = self.read_start();
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let outcome = read(term, term_offset, fragment_limit, &mut header, handler);
        if outcome.offset > term_offset {
            let new_position = position.wrapping_add((outcome.offset - term_offset) as i64);
            // Release: as in `poll_from`.
            self.subscriber_position.put_i64_release(0, new_position);
        }
        outcome.fragments_read
    }

    /// As [`poll`](Self::poll), with the handler choosing per fragment to ABORT (leave it
    /// for next time), BREAK, COMMIT (store the position now) or CONTINUE.
    pub fn controlled_poll<F>(&self, handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header) -> ControlledPollAction,
    {
        if self.is_closed() {
            return 0;
        }
        let (position, term_offset, term) = self.read_start();
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let counter = &self.subscriber_position;
        let outcome = controlled_read(term, term_offset, fragment_limit, &mut header, handler, |offset| {
            counter.put_i64_release(0, position.wrapping_add((offset - term_offset) as i64));
        });
        let new_position = position.wrapping_add((outcome.offset - term_offset) as i64);
        if new_position > counter.get_i64(0) {
            counter.put_i64_release(0, new_position);
        }
        outcome.fragments_read
    }

    /// As [`poll`](Self::poll), starting no fragment at or past `limit_position` (a
    /// fragment that starts before it is delivered whole). Returns the fragments delivered.
    pub fn bounded_poll<F>(&self, handler: F, limit_position: i64, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header),
    {
        if self.is_closed() {
            return 0;
        }
        let position = self.subscriber_position.get_i64(0);
        let Some((term_offset, limit_offset)) = self.bounded_offsets(position, limit_position) else {
            return 0;
        };
        let term = self.term_at(position);
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let outcome = read_bounded(term, term_offset, limit_offset, fragment_limit, &mut header, handler);
        if outcome.offset > term_offset {
            // Release: as in poll, the space is handed back only after the reads.
            self.subscriber_position
                .put_i64_release(0, position.wrapping_add((outcome.offset - term_offset) as i64));
        }
        outcome.fragments_read
    }

    /// As [`controlled_poll`](Self::controlled_poll), starting no fragment at or past
    /// `limit_position`.
    pub fn bounded_controlled_poll<F>(&self, handler: F, limit_position: i64, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header) -> ControlledPollAction,
    {
        if self.is_closed() {
            return 0;
        }
        let position = self.subscriber_position.get_i64(0);
        let Some((term_offset, limit_offset)) = self.bounded_offsets(position, limit_position) else {
            return 0;
        };
        let term = self.term_at(position);
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let counter = &self.subscriber_position;
        let outcome = controlled_read_bounded(
            term,
            term_offset,
            limit_offset,
            fragment_limit,
            &mut header,
            handler,
            |offset| counter.put_i64_release(0, position.wrapping_add((offset - term_offset) as i64)),
        );
        let new_position = position.wrapping_add((outcome.offset - term_offset) as i64);
        if new_position > counter.get_i64(0) {
            counter.put_i64_release(0, new_position);
        }
        outcome.fragments_read
    }

    /// Where this poller reads next: the subscriber position (only this poller writes it,
    /// so a plain read of its own last store is enough), its offset in its term, that term.
    #[inline(always)]
    fn read_start(&self) -> (i64, usize, &AtomicBuffer) {
        let position = self.subscriber_position.get_i64(0);
        (position, (position & self.term_length_mask) as usize, self.term_at(position))
    }

    /// The term that holds `position`.
    #[inline(always)]
    fn term_at(&self, position: i64) -> &AtomicBuffer {
        self.log.term(index_by_position(position, self.position_bits_to_shift))
    }

    /// The term offsets to read from and up to for a bounded poll at `position`; `None`
    /// when the limit is not ahead.
    fn bounded_offsets(&self, position: i64, limit_position: i64) -> Option<(usize, usize)> {
        if position >= limit_position {
            return None;
        }
        let term_offset = (position & self.term_length_mask) as usize;
        let span = usize::try_from(limit_position.wrapping_sub(position)).unwrap_or(usize::MAX);
        Some((term_offset, term_offset.saturating_add(span)))
    }

    /// Delivers fragments from `initial_position` (at or after the subscriber position,
    /// within its term, frame aligned) up to `limit_position` without consuming them: the
    /// subscriber position does not move. The handler's ABORT stops before its fragment,
    /// BREAK after it. Returns the position after the last whole message delivered (the
    /// last fragment with the END flag; padding counts as whole), or `initial_position`
    /// when closed or nothing was delivered (Aeron `Image.controlledPeek`).
    pub fn controlled_peek<F>(
        &self,
        initial_position: i64,
        mut handler: F,
        limit_position: i64,
    ) -> Result<i64>
    where
        F: FnMut(&[u8], &Header) -> ControlledPollAction,
    {
        if self.is_closed() {
            return Ok(initial_position);
        }
        self.validate_position(initial_position)?;
        if initial_position >= limit_position {
            return Ok(initial_position);
        }
        let term = self.term_at(initial_position);
        let capacity = term.capacity();
        let term_offset = (initial_position & self.term_length_mask) as usize;
        let span = usize::try_from(limit_position - initial_position).unwrap_or(usize::MAX);
        let limit_offset = term_offset.saturating_add(span).min(capacity);
        let mut header = Header::new(self.initial_term_id, self.position_bits_to_shift);
        let mut offset = term_offset;
        let mut resulting_position = initial_position;
        while offset < limit_offset && !self.is_closed() {
            let Some(frame) = acquire_frame(term, offset) else {
                break;
            };
            let frame_length = frame.len();
            if frame_length < DATA_HEADER_LENGTH {
                break;
            }
            let frame_offset = offset;
            offset += aligned_frame_length(frame_length);
            if is_padding_frame(term, frame_offset) {
                resulting_position = initial_position + (offset - term_offset) as i64;
                continue;
            }
            // In range: the frame fits in the term, whose length is an i32.
            header.load(term, frame_offset, frame_length as i32);
            let payload = &frame.as_slice()[DATA_HEADER_LENGTH..];
            let action = handler(payload, &header);
            if action == ControlledPollAction::Abort {
                break;
            }
            if header.flags() & END_FLAG != 0 {
                resulting_position = initial_position + (offset - term_offset) as i64;
            }
            if action == ControlledPollAction::Break {
                break;
            }
        }
        Ok(resulting_position)
    }

    /// A position a reader may move to: frame aligned, not behind the subscriber position
    /// and not past the end of its term.
    fn validate_position(&self, position: i64) -> Result<()> {
        let current = self.subscriber_position.get_i64(0);
        let term_begin = current & !self.term_length_mask;
        let limit = term_begin.saturating_add(self.term_length_mask + 1);
        if position < current || position > limit {
            return Err(Error::invalid_argument(format!(
                "position {position} is outside the range {current}..={limit}"
            )));
        }
        if position % FRAME_ALIGNMENT as i64 != 0 {
            return Err(Error::invalid_argument(format!(
                "position {position} is not a multiple of the frame alignment {FRAME_ALIGNMENT}"
            )));
        }
        Ok(())
    }

    /// Hands `handler(block, session_id, term_id)` the run of complete frames (headers
    /// included, at most `block_length_limit` bytes, within one term) at the subscriber
    /// position, then moves past it. Returns the bytes consumed.
    pub fn block_poll<F>(&self, mut handler: F, block_length_limit: usize) -> usize
    where
        F: FnMut(&[u8], i32, i32),
    {
        if self.is_closed() {
            return 0;
        }
        let (position, term_offset, term) = self.read_start();
        let limit_offset = term_offset.saturating_add(block_length_limit).min(term.capacity());
        let Some(block) = scan_block(term, term_offset, limit_offset) else {
            return 0;
        };
        let length = block.len();
        let term_id = frame_term_id(term, term_offset);
        handler(block.as_slice(), self.info.session_id, term_id);
        self.subscriber_position.put_i64_release(0, position.wrapping_add(length as i64));
        length
    }

    /// The subscriber position: how far this subscription has consumed the stream.
    pub fn position(&self) -> i64 {
        if self.is_closed() {
            return self.final_position.load(Ordering::Acquire);
        }
        self.subscriber_position.get_i64_acquire(0)
    }

    /// Moves the subscriber position within the current term (e.g. to skip ahead);
    /// `position` must be frame aligned and not behind the start of the current term nor
    /// past its end.
    pub fn set_position(&self, position: i64) -> Result<()> {
        if self.is_closed() {
            return Err(Error::illegal_state(format!("image {} is closed", self.info.correlation_id)));
        }
        let current = self.subscriber_position.get_i64(0);
        let term_begin = current & !self.term_length_mask;
        let limit = term_begin.saturating_add(self.term_length_mask + 1);
        if position < term_begin || position > limit || position % FRAME_ALIGNMENT as i64 != 0 {
            return Err(Error::invalid_argument(format!(
                "position {position} must be frame aligned and within [{term_begin}, {limit}]"
            )));
        }
        self.subscriber_position.put_i64_release(0, position);
        Ok(())
    }

    /// Whether the publisher ended the stream and this subscriber consumed all of it.
    pub fn is_end_of_stream(&self) -> bool {
        if self.is_closed() {
            return self.is_eos.load(Ordering::Acquire);
        }
        self.subscriber_position.get_i64_acquire(0) >= end_of_stream_position(self.log.metadata())
    }

    /// The stream position at which the publisher ended it (`i64::MAX` while it goes on).
    pub fn end_of_stream_position(&self) -> i64 {
        end_of_stream_position(self.log.metadata())
    }

    /// Live sender connections of a network image (0 for IPC).
    pub fn active_transport_count(&self) -> i32 {
        active_transport_count(self.log.metadata())
    }

    pub fn is_closed(&self) -> bool {
        // Acquire: pairs with close()'s release, which follows the final-position store.
        self.is_closed.load(Ordering::Acquire)
    }

    /// Called by the conductor when the driver withdraws the image: no more reads or
    /// position stores; the position and end-of-stream verdict are frozen.
    pub(crate) fn close(&self) {
        if self.is_closed() {
            return;
        }
        let position = self.subscriber_position.get_i64_acquire(0);
        self.final_position.store(position, Ordering::Relaxed);
        self.is_eos.store(position >= end_of_stream_position(self.log.metadata()), Ordering::Relaxed);
        // Release: publishes the two frozen values above.
        self.is_closed.store(true, Ordering::Release);
    }

    pub fn correlation_id(&self) -> i64 {
        self.info.correlation_id
    }

    /// The mapped log, for bindings that read its terms in their own language.
    pub(crate) fn log_buffers(&self) -> &LogBuffers {
        &self.log
    }

    /// The subscriber position counter (8 bytes in the client's counters values), for
    /// bindings that advance it themselves.
    pub(crate) fn subscriber_position_counter(&self) -> &AtomicBuffer {
        &self.subscriber_position
    }

    /// The flag [`is_closed`](Self::is_closed) reads, for bindings that test it in their
    /// own language (set with release once, never cleared).
    pub(crate) fn closed_flag(&self) -> &AtomicBool {
        &self.is_closed
    }

    /// Asks the driver to reject this image (Aeron 1.47+ `Image.reject`): its driver stops
    /// accepting the stream's data and answers the sender with ERR frames carrying
    /// IMAGE_REJECTED and `reason` (at most 1023 bytes), which the publishing client hears
    /// through its publication error frame handler. The image then times out and becomes
    /// unavailable like a silent one. Waits for the driver's answer (up to the driver
    /// timeout); an error if the driver no longer knows the image or refuses the reason.
    /// May be called from the client's handlers, which run with the client unlocked.
    pub fn reject(&self, reason: &str) -> Result<()> {
        let client = self.client.upgrade().ok_or_else(|| Error::illegal_state("Aeron client is closed"))?;
        let (correlation_id, position) = (self.info.correlation_id, self.position());
        let id = client.with(|c| {
            c.ensure_open()?;
            let id = c.driver.reject_image(correlation_id, position, reason)?;
            c.register(id, RegistrationKind::RejectImage);
            Ok::<i64, Error>(id)
        })?;
        // REJECT_IMAGE completes with an acknowledgement only: nothing to keep.
        client.await_completion(|| Ok(client.with(|c| c.poll_registration(id))?.map(drop)))
    }

    pub fn subscription_registration_id(&self) -> i64 {
        self.info.subscription_registration_id
    }

    pub fn session_id(&self) -> i32 {
        self.info.session_id
    }

    pub fn stream_id(&self) -> i32 {
        self.info.stream_id
    }

    pub fn subscriber_position_id(&self) -> i32 {
        self.info.subscriber_position_id
    }

    /// `aeron:ipc` for IPC, else the sender's `address:port`.
    pub fn source_identity(&self) -> &str {
        &self.info.source_identity
    }

    /// [`source_identity`](Self::source_identity) as a C string.
    pub fn source_identity_c(&self) -> &CStr {
        &self.source_identity_c
    }

    pub fn join_position(&self) -> i64 {
        self.join_position
    }

    pub fn initial_term_id(&self) -> i32 {
        self.initial_term_id
    }

    pub fn term_buffer_length(&self) -> usize {
        self.log.term_length()
    }

    pub fn position_bits_to_shift(&self) -> u32 {
        self.position_bits_to_shift
    }

    pub fn mtu_length(&self) -> i32 {
        mtu_length(self.log.metadata())
    }
}

/// The complete frames (aligned, as published) from `offset` up to `limit_offset` in one
/// term, `None` if there are none: stops at an unpublished frame, before a frame that would
/// pass the limit, and at padding (taking it only when it is the first frame, so the next
/// call moves on).
fn scan_block(term: &AtomicBuffer, offset: usize, limit_offset: usize) -> Option<PublishedRange<'_>> {
    let mut block: Option<PublishedRange<'_>> = None;
    let mut end = offset;
    while end < limit_offset {
        let Some(frame) = term.acquire_record_aligned(end, FRAME_ALIGNMENT) else {
            break;
        };
        let aligned = frame.len();
        if is_padding_frame(term, end) {
            if end == offset {
                block = Some(frame);
            }
            break;
        }
        if end + aligned > limit_offset {
            break;
        }
        // Consecutive frames, so the join cannot fail.
        block = Some(match block {
            Some(before) => before.join(frame).unwrap_or(before),
            None => frame,
        });
        end += aligned;
    }
    block
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("correlation_id", &self.info.correlation_id)
            .field("session_id", &self.info.session_id)
            .field("source_identity", &self.info.source_identity)
            .field("is_closed", &self.is_closed())
            .finish()
    }
}
