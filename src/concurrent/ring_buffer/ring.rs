//! What both ring buffers share: the validated layout over the buffer, the single-consumer
//! read loops, commit/abort of claims, and the trailer words (positions, correlation
//! counter, consumer heartbeat).

use std::sync::atomic::{AtomicBool, Ordering, fence};

use crossbeam_utils::CachePadded;

use super::ControlledReadAction;
use super::descriptor::{
    ALIGNMENT, HEADER_LENGTH, Layout, PADDING_MSG_TYPE_ID, encoded_msg_offset, length_offset, type_offset,
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
                ring.buffer.set_memory(self.head_index, self.bytes_read, 0);
            }
            self.head += self.bytes_read as i64;
            self.head_index += self.bytes_read;
            self.bytes_read = 0;
            // Release: the zeroing above (and our reads of the records) happen before a
            // producer that acquires this head reuses the space.
            ring.buffer.put_i64_release(ring.layout.head_position_index, self.head);
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
        // Relaxed: only the consumer writes head, and we are the consumer.
        let head = self.buffer.get_i64(self.layout.head_position_index);
        Ok(Consumed { ring: self, head, head_index: self.layout.index_of(head), bytes_read: 0 })
    }

    /// The next complete record at `record_index` as `(length, aligned length)`, `None` when
    /// the producer has not published one yet, `Err` when its length cannot be right.
    #[inline]
    fn next_record(&self, record_index: usize) -> Result<Option<(usize, usize)>> {
        // Acquire: pairs with the producer's release store of the positive length, making
        // the type and payload written before it visible.
        let length = self.buffer.get_i32_acquire(length_offset(record_index));
        if length <= 0 {
            return Ok(None);
        }
        let length = length as usize;
        if length < HEADER_LENGTH || length > self.layout.capacity - record_index {
            return Err(Error::illegal_state(format!(
                "ring buffer corrupt: record length {length} at index {record_index} (capacity {})",
                self.layout.capacity
            )));
        }
        Ok(Some((length, align(length, ALIGNMENT))))
    }

    /// Agrona `read`; `ZERO` says whether consumed space is zeroed (many-to-one).
    #[inline]
    pub fn read<const ZERO: bool>(&self, mut handler: impl FnMut(i32, &[u8]), limit: usize) -> Result<usize> {
        let mut consumed = self.begin_read::<ZERO>()?;
        let mut messages = 0;
        let start = consumed.head_index;
        // A pass never wraps: it stops at the end of the data region.
        while messages < limit && start + consumed.bytes_read < self.layout.capacity {
            let record_index = start + consumed.bytes_read;
            let Some((length, aligned)) = self.next_record(record_index)? else { break };
            consumed.bytes_read += aligned;
            // Relaxed: published by the length acquired in next_record.
            let msg_type_id = self.buffer.get_i32(type_offset(record_index));
            if msg_type_id == PADDING_MSG_TYPE_ID {
                continue;
            }
            messages += 1;
            handler(
                msg_type_id,
                self.buffer.published_slice(encoded_msg_offset(record_index), length - HEADER_LENGTH),
            );
        }
        Ok(messages)
    }

    /// Agrona `controlledRead`; `ZERO` as for [`Ring::read`].
    #[inline]
    pub fn controlled_read<const ZERO: bool>(
        &self,
        mut handler: impl FnMut(i32, &[u8]) -> ControlledReadAction,
        limit: usize,
    ) -> Result<usize> {
        let mut consumed = self.begin_read::<ZERO>()?;
        let mut messages = 0;
        while messages < limit && consumed.head_index + consumed.bytes_read < self.layout.capacity {
            let record_index = consumed.head_index + consumed.bytes_read;
            let Some((length, aligned)) = self.next_record(record_index)? else { break };
            consumed.bytes_read += aligned;
            let msg_type_id = self.buffer.get_i32(type_offset(record_index));
            if msg_type_id == PADDING_MSG_TYPE_ID {
                continue;
            }
            let payload =
                self.buffer.published_slice(encoded_msg_offset(record_index), length - HEADER_LENGTH);
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

    /// Writes the header of a claimed record: negative length first so the slot reads as
    /// "claimed, not ready" before anything else of it appears, then the type.
    #[inline]
    pub fn begin_record(&self, record_index: usize, record_length: usize, msg_type_id: i32) {
        self.buffer.put_i32_release(length_offset(record_index), -(record_length as i32));
        // Java's releaseFence: on weakly ordered CPUs keeps the payload/type stores below
        // from becoming visible before the negative length, so unblock's scan never finds
        // a payload word in a slot whose header still reads zero.
        fence(Ordering::Release);
        self.buffer.put_i32(type_offset(record_index), msg_type_id);
    }

    /// Copies the payload into a claimed record and publishes it.
    #[inline]
    pub fn complete_record(&self, record_index: usize, record_length: usize, payload: &[u8]) {
        self.buffer.put_bytes(encoded_msg_offset(record_index), payload);
        // Release: type and payload are visible to a reader that acquires the length.
        self.buffer.put_i32_release(length_offset(record_index), record_length as i32);
    }

    /// Zeroes the record header at `record_index` (one-to-one pre-zeroing). Two i32 stores
    /// rather than Java's one i64: every access to a header word then has the same size,
    /// which the Rust memory model (and Miri) require of atomics.
    #[inline]
    pub fn zero_header(&self, record_index: usize) {
        self.buffer.put_i32(length_offset(record_index), 0);
        self.buffer.put_i32(type_offset(record_index), 0);
    }

    /// Writes a padding record of `length` bytes at `record_index`, claimed-then-published
    /// like any record.
    #[inline]
    pub fn write_padding(&self, record_index: usize, length: usize) {
        self.begin_record(record_index, length, PADDING_MSG_TYPE_ID);
        self.buffer.put_i32_release(length_offset(record_index), length as i32);
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
