//! What both ring buffers share: the validated layout over the buffer, the single-consumer
//! read loops, commit/abort of claims, and the trailer words (positions, correlation
//! counter, consumer heartbeat).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, Ordering, fence};

use crossbeam_utils::CachePadded;

use super::ControlledReadAction;
use super::descriptor::{
    ALIGNMENT, HEAD_CACHE_POSITION_OFFSET, HEAD_POSITION_OFFSET, HEADER_LENGTH, Layout, PADDING_MSG_TYPE_ID,
    TAIL_POSITION_OFFSET, TRAILER_LENGTH, encoded_msg_offset, length_offset, type_offset,
};
use crate::concurrent::AtomicBuffer;
use crate::util::bits::align;
use crate::util::error::{Error, Result};

pub(crate) struct Ring {
    pub buffer: AtomicBuffer,
    pub layout: Layout,
    /// Set while a read is in progress on this handle, so a handler that calls `read`
    /// again gets an error instead of a second consumer zeroing the bytes it is looking at.
    /// Only the consumer thread touches it, so relaxed accesses suffice. On its own cache
    /// line: the consumer writes it on every read, producers read the fields above on every
    /// write, and sharing a line would bounce it between them.
    reading: CachePadded<AtomicBool>,
}

/// Bytes consumed by a read in progress. Dropping it releases them to producers, also when
/// a handler panics (Java releases them in `finally`).
struct Consumed<'a, const ZERO: bool> {
    ring: &'a Ring,
    words: Words<'a>,
    head: i64,
    head_index: usize,
    bytes_read: usize,
}

impl<const ZERO: bool> Consumed<'_, ZERO> {
    /// Releases what has been read so far and continues from there.
    #[inline]
    fn release(&mut self) {
        if self.bytes_read > 0 {
            let ring = self.ring;
            if ZERO {
                // Many-to-one producers rely on free space reading as zero (unblock's scan
                // and their record headers); the range is ours until head moves past it.
                // SAFETY: space read but not yet released is the consumer's alone: producers
                // claim only behind the head stored below, and the handler's slices of it
                // ended when it returned.
                unsafe { ring.buffer.set_memory(self.head_index, self.bytes_read, 0) };
            }
            self.head += self.bytes_read as i64;
            self.head_index += self.bytes_read;
            self.bytes_read = 0;
            // Release: the zeroing above (and our reads of the records) happen before a
            // producer that acquires this head reuses the space.
            self.words.head().store(self.head, Ordering::Release);
        }
    }
}

impl<const ZERO: bool> Drop for Consumed<'_, ZERO> {
    fn drop(&mut self) {
        self.release();
        self.ring.reading.store(false, Ordering::Relaxed);
    }
}

impl Ring {
    pub fn new(buffer: AtomicBuffer, min_capacity: usize) -> Result<Self> {
        let layout = Layout::new(&buffer, min_capacity)?;
        Ok(Self { buffer, layout, reading: CachePadded::new(AtomicBool::new(false)) })
    }

    #[inline]
    fn begin_read<const ZERO: bool>(&self) -> Result<Consumed<'_, ZERO>> {
        if self.reading.load(Ordering::Relaxed) {
            return Err(Error::illegal_state("ring buffer read called from inside a read handler"));
        }
        self.reading.store(true, Ordering::Relaxed);
        let words = self.words();
        // Relaxed: only the consumer writes head, and we are the consumer.
        let head = words.head().load(Ordering::Relaxed);
        Ok(Consumed { ring: self, words, head, head_index: self.layout.index_of(head), bytes_read: 0 })
    }

    /// The data region and trailer as atomic words, bounds-checked once per operation.
    #[inline]
    pub fn words(&self) -> Words<'_> {
        Words {
            data: self.buffer.atomic_i32_slice(0, self.layout.capacity / 4),
            trailer: self.buffer.atomic_i64_slice(self.layout.capacity, TRAILER_WORDS),
        }
    }

    /// The next complete record at `record_index` (position `record_position`) as
    /// `(length, aligned length)`, `None` when the producer has not published one yet,
    /// `Err` when it cannot be right: shorter than a header, past the end of the buffer, or
    /// (`CHECK_TAIL`) ending beyond the producers' tail. `tail` caches the tail read so
    /// far; it is read again only when a record seems to end beyond it.
    ///
    /// The tail check guards the many-to-one buffer, which any process mapping `cnc.dat`
    /// can write: without it a forged record could move the head past the tail, after
    /// which producers would see more free space than there is. It costs one load of the
    /// producers' line per read pass, which the one-to-one buffer's single trusted
    /// producer does not pay.
    #[inline]
    fn next_record<const CHECK_TAIL: bool>(
        &self,
        words: &Words<'_>,
        record_index: usize,
        record_position: i64,
        tail: &mut i64,
    ) -> Result<Option<(usize, usize)>> {
        // Acquire: pairs with the producer's release store of the positive length, making
        // the type and payload written before it visible.
        let length = words.header(record_index).length.load(Ordering::Acquire);
        if length <= 0 {
            return Ok(None);
        }
        let length = length as usize;
        if length < HEADER_LENGTH || length > self.layout.capacity - record_index {
            return Err(self.corrupt(length, record_index, "length"));
        }
        let aligned = align(length, ALIGNMENT);
        let end = record_position + aligned as i64;
        if CHECK_TAIL && end > *tail {
            // Producers move the tail past a record before they publish its length, and the
            // acquire above ordered that move before this load: a record really ending
            // beyond the tail was never claimed.
            *tail = words.tail().load(Ordering::Acquire);
            if end > *tail {
                return Err(self.corrupt(length, record_index, "end beyond the tail"));
            }
        }
        Ok(Some((length, aligned)))
    }

    #[cold]
    #[inline(never)]
    fn corrupt(&self, length: usize, record_index: usize, what: &str) -> Error {
        Error::illegal_state(format!(
            "ring buffer corrupt: record {what}: length {length} at index {record_index} (capacity {})",
            self.layout.capacity
        ))
    }

    /// Consumer only: whether the record at the head cannot be read (see `next_record`),
    /// and if so discards it with everything producers claimed after it, up to their tail,
    /// zeroing the space as consumption does, so reading resumes with the next record
    /// written. Returns the bytes skipped (the corrupt header alone when nothing was
    /// claimed after it), or `None` when the head record is fine or absent.
    pub fn skip_corrupt_head(&self) -> Option<usize> {
        let words = self.words();
        // Relaxed: only the consumer writes head, and we are the consumer.
        let head = words.head().load(Ordering::Relaxed);
        let head_index = self.layout.index_of(head);
        let mut tail = words.tail().load(Ordering::Acquire);
        if self.next_record::<true>(&words, head_index, head, &mut tail).is_ok() {
            return None;
        }
        Some(self.discard_to_tail(&words, head, tail))
    }

    /// Consumer only: zeroes everything claimed from `head` to `tail` (or the header at the
    /// head when nothing is claimed) and moves the head past it; the bytes skipped.
    pub(super) fn discard_to_tail(&self, words: &Words<'_>, head: i64, tail: i64) -> usize {
        let head_index = self.layout.index_of(head);
        let skipped = usize::try_from(tail - head).unwrap_or(0).min(self.layout.capacity);
        if skipped == 0 {
            // Nothing claimed: the header itself is the garbage. A producer claiming here
            // next writes its own header over the zero.
            words.header(head_index).length.store(0, Ordering::Release);
            return HEADER_LENGTH;
        }
        // The skipped region may wrap around the end of the buffer.
        let first = skipped.min(self.layout.capacity - head_index);
        // SAFETY: the consumer alone calls this; what lies between head and tail is given up
        // by its producers (dead or discarded), and no producer claims it until the head
        // stored below moves past it.
        unsafe { self.buffer.set_memory(head_index, first, 0) };
        // SAFETY: as above, for the part wrapped to the start.
        unsafe { self.buffer.set_memory(0, skipped - first, 0) };
        // Release: the zeroing above happens before a producer that acquires the new head
        // reuses the space.
        words.head().store(head + skipped as i64, Ordering::Release);
        skipped
    }

    /// Agrona `read`: a controlled read whose handler always continues. `ZERO` says
    /// whether consumed space is zeroed (many-to-one).
    #[inline]
    pub fn read<const ZERO: bool>(&self, mut handler: impl FnMut(i32, &[u8]), limit: usize) -> Result<usize> {
        self.controlled_read::<ZERO>(
            |msg_type_id, payload| {
                handler(msg_type_id, payload);
                ControlledReadAction::Continue
            },
            limit,
        )
    }

    /// Agrona `controlledRead`; `ZERO` as for [`Ring::read`]. A pass never wraps: it stops
    /// at the end of the data region.
    #[inline]
    pub fn controlled_read<const ZERO: bool>(
        &self,
        mut handler: impl FnMut(i32, &[u8]) -> ControlledReadAction,
        limit: usize,
    ) -> Result<usize> {
        let mut consumed = self.begin_read::<ZERO>()?;
        let mut messages = 0;
        // Read once per pass; again only if a record seems to end beyond it.
        let mut tail = if ZERO { consumed.words.tail().load(Ordering::Acquire) } else { i64::MAX };
        while messages < limit && consumed.head_index + consumed.bytes_read < self.layout.capacity {
            let record_index = consumed.head_index + consumed.bytes_read;
            let record_position = consumed.head + consumed.bytes_read as i64;
            let Some((length, aligned)) =
                self.next_record::<ZERO>(&consumed.words, record_index, record_position, &mut tail)?
            else {
                break;
            };
            consumed.bytes_read += aligned;
            // Relaxed: published by the length acquired in next_record.
            let msg_type_id = consumed.words.header(record_index).msg_type_id.load(Ordering::Relaxed);
            if msg_type_id == PADDING_MSG_TYPE_ID {
                continue;
            }
            // SAFETY: next_record acquired this record's positive length (its producer's
            // release store after the payload) and checked it lies in the buffer; producers
            // do not reuse it until the head moves past it, after the handler returns.
            let payload = unsafe {
                self.buffer.published_slice(encoded_msg_offset(record_index), length - HEADER_LENGTH)
            };
            match handler(msg_type_id, payload) {
                ControlledReadAction::Abort => {
                    consumed.bytes_read -= aligned;
                    break;
                }
                ControlledReadAction::Break => {
                    messages += 1;
                    break;
                }
                ControlledReadAction::Commit => {
                    messages += 1;
                    consumed.release();
                }
                ControlledReadAction::Continue => messages += 1,
            }
        }
        Ok(messages)
    }

    /// The record index of the claim whose payload index is `index`, with its (negative)
    /// claimed length.
    fn claimed_record(&self, index: usize) -> Result<(usize, i32)> {
        let record_index = index
            .checked_sub(HEADER_LENGTH)
            .filter(|r| *r <= self.layout.capacity - HEADER_LENGTH && *r % ALIGNMENT == 0)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "invalid claim index {index} for ring buffer of capacity {}",
                    self.layout.capacity
                ))
            })?;
        // Relaxed: the claiming thread wrote this length itself.
        let length = self.buffer.get_i32(length_offset(record_index));
        if length < 0 {
            return Ok((record_index, length));
        }
        let what = if length == 0 {
            "was never claimed"
        } else if self.buffer.get_i32(type_offset(record_index)) == PADDING_MSG_TYPE_ID {
            "was already aborted"
        } else {
            "was already committed"
        };
        Err(Error::illegal_state(format!("ring buffer record at claim index {index} {what}")))
    }

    pub fn commit(&self, index: usize) -> Result<()> {
        let (record_index, length) = self.claimed_record(index)?;
        // Release: the payload written into the claim is visible before the length says so.
        self.buffer.put_i32_release(length_offset(record_index), -length);
        Ok(())
    }

    pub fn abort(&self, index: usize) -> Result<()> {
        let (record_index, length) = self.claimed_record(index)?;
        self.buffer.put_i32(type_offset(record_index), PADDING_MSG_TYPE_ID);
        // Release: the padding type is visible before the positive length.
        self.buffer.put_i32_release(length_offset(record_index), -length);
        Ok(())
    }

    /// Validates the message, claims a record for a `length`-byte payload through the
    /// kind's `claim_capacity` (given the aligned record length; `None` when full) and
    /// writes the claimed header. Returns the record index, the unaligned record length and
    /// the header to publish.
    #[inline]
    pub fn claim(
        &self,
        msg_type_id: i32,
        length: usize,
        claim_capacity: impl FnOnce(&Words<'_>, usize) -> Option<usize>,
    ) -> Result<Option<(usize, usize, Header<'_>)>> {
        self.layout.check_message(msg_type_id, length)?;
        let record_length = length + HEADER_LENGTH;
        let words = self.words();
        let Some(record_index) = claim_capacity(&words, align(record_length, ALIGNMENT)) else {
            return Ok(None);
        };
        let header = words.header(record_index);
        header.begin(record_length, msg_type_id);
        Ok(Some((record_index, record_length, header)))
    }

    /// Copies `payload` into the claimed record at `record_index` and publishes it.
    #[inline]
    pub fn complete_record(
        &self,
        header: Header<'_>,
        record_index: usize,
        record_length: usize,
        payload: &[u8],
    ) {
        // SAFETY: `claim` reserved this record for this producer alone (the kind's
        // claim_capacity moved the tail past it); the consumer stops at its header until
        // `publish` stores the positive length.
        unsafe { self.buffer.put_bytes(encoded_msg_offset(record_index), payload) };
        header.publish(record_length);
    }

    pub fn producer_position(&self) -> i64 {
        self.buffer.get_i64_acquire(self.layout.tail_position_index)
    }

    pub fn consumer_position(&self) -> i64 {
        self.buffer.get_i64_acquire(self.layout.head_position_index)
    }

    /// Agrona `size`: head, tail, head again until the two heads agree, clamped.
    pub fn size(&self) -> usize {
        let mut head_after = self.consumer_position();
        loop {
            let head_before = head_after;
            let tail = self.producer_position();
            head_after = self.consumer_position();
            if head_after == head_before {
                return (tail - head_after).clamp(0, self.layout.capacity as i64) as usize;
            }
        }
    }

    pub fn next_correlation_id(&self) -> i64 {
        // SeqCst (Java getAndAdd): ids are unique across all processes sharing the counter.
        self.buffer.get_and_add_i64(self.layout.correlation_counter_index, 1)
    }

    pub fn consumer_heartbeat_time(&self) -> i64 {
        self.buffer.get_i64_acquire(self.layout.consumer_heartbeat_index)
    }

    pub fn set_consumer_heartbeat_time(&self, time_ms: i64) {
        // Release: readers only need the value itself; release matches Java putLongRelease.
        self.buffer.put_i64_release(self.layout.consumer_heartbeat_index, time_ms);
    }
}

const TRAILER_WORDS: usize = TRAILER_LENGTH / 8;

/// The words of one ring buffer: the data region as i32s (record headers), the trailer as
/// i64s. Indexing them costs a register compare (constant indices into the trailer none).
#[derive(Clone, Copy)]
pub(crate) struct Words<'a> {
    data: &'a [AtomicI32],
    trailer: &'a [AtomicI64],
}

impl<'a> Words<'a> {
    /// The header of the record at `record_index` (8-aligned, below the capacity).
    #[inline]
    pub fn header(&self, record_index: usize) -> Header<'a> {
        let word = length_offset(record_index) / 4;
        Header { length: &self.data[word], msg_type_id: &self.data[type_offset(record_index) / 4] }
    }

    #[inline]
    pub fn tail(&self) -> &'a AtomicI64 {
        &self.trailer[TAIL_POSITION_OFFSET / 8]
    }

    #[inline]
    pub fn head_cache(&self) -> &'a AtomicI64 {
        &self.trailer[HEAD_CACHE_POSITION_OFFSET / 8]
    }

    #[inline]
    pub fn head(&self) -> &'a AtomicI64 {
        &self.trailer[HEAD_POSITION_OFFSET / 8]
    }

    /// Writes a padding record of `length` bytes at `record_index`, claimed-then-published
    /// like any record.
    #[inline]
    pub fn write_padding(&self, record_index: usize, length: usize) {
        let header = self.header(record_index);
        header.begin(length, PADDING_MSG_TYPE_ID);
        header.publish(length);
    }
}

/// The two words of a record header in the buffer.
#[derive(Clone, Copy)]
pub(crate) struct Header<'a> {
    length: &'a AtomicI32,
    msg_type_id: &'a AtomicI32,
}

impl Header<'_> {
    /// Negative length first, so the slot reads as "claimed, not ready" before anything else
    /// of the record appears; then the type.
    #[inline]
    pub fn begin(self, record_length: usize, msg_type_id: i32) {
        // Release (Java putIntRelease).
        self.length.store(-(record_length as i32), Ordering::Release);
        // Java's releaseFence: on weakly ordered CPUs keeps the type and payload stores
        // after it from becoming visible before the negative length, so unblock's scan
        // never finds a payload word in a slot whose header still reads zero.
        fence(Ordering::Release);
        // Relaxed: published by the release of the positive length.
        self.msg_type_id.store(msg_type_id, Ordering::Relaxed);
    }

    /// Writes the type of a record whose header reads zero (one-to-one `write`). Relaxed:
    /// published by the release of the positive length.
    #[inline]
    pub fn write_type(self, msg_type_id: i32) {
        self.msg_type_id.store(msg_type_id, Ordering::Relaxed);
    }

    /// Publishes the record.
    #[inline]
    pub fn publish(self, record_length: usize) {
        // Release: type and payload are visible to a reader that acquires the length.
        self.length.store(record_length as i32, Ordering::Release);
    }

    /// Zeroes both words (one-to-one pre-zeroing of the next header). Two i32 stores rather
    /// than Java's one i64: every access to a header word then has the same size, which the
    /// Rust memory model (and Miri) require of atomics. Relaxed: published by the release
    /// of the record written before this header.
    #[inline]
    pub fn zero(self) {
        self.length.store(0, Ordering::Relaxed);
        self.msg_type_id.store(0, Ordering::Relaxed);
    }
}

/// What the two ring buffer kinds share outside their claim logic: `Debug`, the
/// constructors and `claim`. Invoked once per kind with its minimum data capacity; the kind
/// defines `claim_capacity` and, in its `RingBuffer` impl, `write` and `unblock`, then
/// [`ring_buffer_delegates`] for the rest.
macro_rules! ring_buffer_kind {
    ($kind:ident, min_capacity = $min:expr) => {
        impl std::fmt::Debug for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($kind)).field("capacity", &self.ring.layout.capacity).finish()
            }
        }

        impl $kind {
            /// Wraps `buffer`: data capacity (a power of two, at least the kind's minimum)
            /// plus the 768-byte trailer. The contents are used as they are: a fresh buffer
            /// must be zeroed.
            pub fn new(buffer: $crate::concurrent::AtomicBuffer) -> $crate::util::error::Result<Self> {
                Ok(Self { ring: super::ring::Ring::new(buffer, $min)? })
            }

            /// A zeroed heap buffer with data `capacity`.
            pub fn with_capacity(capacity: usize) -> $crate::util::error::Result<Self> {
                let length = super::descriptor::total_length(capacity, $min)?;
                Self::new($crate::concurrent::AtomicBuffer::alloc(length))
            }

            /// Creates (truncating) a file at `path` for data `capacity` and maps it shared.
            pub fn create_mapped(
                path: &std::path::Path,
                capacity: usize,
            ) -> $crate::util::error::Result<Self> {
                Self::new(super::create_mapped_buffer(path, capacity, $min)?)
            }

            /// Maps an existing ring buffer file shared (its length gives the capacity).
            pub fn open_mapped(path: &std::path::Path) -> $crate::util::error::Result<Self> {
                Self::new(super::map_existing_buffer(path)?)
            }

            #[inline]
            fn claim(
                &self,
                msg_type_id: i32,
                length: usize,
            ) -> $crate::util::error::Result<Option<(usize, usize, super::ring::Header<'_>)>> {
                self.ring.claim(msg_type_id, length, |words, aligned| self.claim_capacity(words, aligned))
            }
        }
    };
}

/// The [`RingBuffer`](super::RingBuffer) items that only delegate to [`Ring`]; expanded
/// inside each kind's trait impl. `zero_consumed`: whether the consumer zeroes what it
/// consumed (many-to-one).
macro_rules! ring_buffer_delegates {
    (zero_consumed = $zero:literal) => {
        #[inline]
        fn capacity(&self) -> usize {
            self.ring.layout.capacity
        }

        #[inline]
        fn max_msg_length(&self) -> usize {
            self.ring.layout.max_msg_length
        }

        #[inline]
        fn try_claim(&self, msg_type_id: i32, length: usize) -> $crate::util::error::Result<Option<usize>> {
            Ok(self
                .claim(msg_type_id, length)?
                .map(|(record_index, _, _)| super::descriptor::encoded_msg_offset(record_index)))
        }

        #[inline]
        fn try_claim_record(
            &self,
            msg_type_id: i32,
            length: usize,
        ) -> $crate::util::error::Result<Option<super::RecordClaim<'_>>> {
            Ok(self.claim(msg_type_id, length)?.map(|(record_index, _, _)| {
                let index = super::descriptor::encoded_msg_offset(record_index);
                // SAFETY: `claim` reserved this record for this producer (the kind's
                // claim_capacity moved the tail past it, and its header holds the negative
                // claimed length the consumer stops at), so no one else touches the payload
                // until the record's commit or abort.
                let payload = unsafe { self.ring.buffer.claim_unchecked(index, length) };
                super::RecordClaim { ring: &self.ring, index, payload }
            }))
        }

        fn commit(&self, index: usize) -> $crate::util::error::Result<()> {
            self.ring.commit(index)
        }

        fn abort(&self, index: usize) -> $crate::util::error::Result<()> {
            self.ring.abort(index)
        }

        #[inline]
        fn read(
            &self,
            handler: impl FnMut(i32, &[u8]),
            message_count_limit: usize,
        ) -> $crate::util::error::Result<usize> {
            self.ring.read::<$zero>(handler, message_count_limit)
        }

        #[inline]
        fn controlled_read(
            &self,
            handler: impl FnMut(i32, &[u8]) -> super::ControlledReadAction,
            message_count_limit: usize,
        ) -> $crate::util::error::Result<usize> {
            self.ring.controlled_read::<$zero>(handler, message_count_limit)
        }

        fn producer_position(&self) -> i64 {
            self.ring.producer_position()
        }

        fn consumer_position(&self) -> i64 {
            self.ring.consumer_position()
        }

        fn size(&self) -> usize {
            self.ring.size()
        }

        fn next_correlation_id(&self) -> i64 {
            self.ring.next_correlation_id()
        }

        fn consumer_heartbeat_time(&self) -> i64 {
            self.ring.consumer_heartbeat_time()
        }

        fn set_consumer_heartbeat_time(&self, time_ms: i64) {
            self.ring.set_consumer_heartbeat_time(time_ms)
        }

        fn buffer(&self) -> &$crate::concurrent::AtomicBuffer {
            &self.ring.buffer
        }
    };
}

pub(crate) use {ring_buffer_delegates, ring_buffer_kind};
