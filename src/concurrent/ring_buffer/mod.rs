//! Agrona/Aeron ring buffers: byte-identical to `OneToOneRingBuffer` and
//! `ManyToOneRingBuffer` (spec `ring-buffers.md`), over any [`AtomicBuffer`] (heap, a mapped
//! file shared with other processes, or caller memory).
//!
//! * [`ManyToOneRingBuffer`]: any number of producers (threads or processes), one consumer.
//!   This is the format of the to-driver command buffer in `cnc.dat`.
//! * [`OneToOneRingBuffer`]: one producer, one consumer; cheaper claims.
//!
//! Both implement [`RingBuffer`], so the driver and client can be generic over either.
//!
//! Where Aeron's C and Java implementations differ, these follow **Java (Agrona)**: the
//! maximum message length rule, and claims that must wrap but find no room at the start of
//! the buffer (the tail still advances by a padding record, and the claim reports "full").
//! One deliberate difference from both: the one-to-one `write` does not pass through the
//! transient negative length (see [`OneToOneRingBuffer`]); the bytes it leaves are the same.
//!
//! Contract shared by both: at most one thread (in any process) consumes at a time (`read`,
//! `controlled_read`, `unblock`, `set_consumer_heartbeat_time`); the one-to-one buffer also
//! allows only one producing thread at a time. Calling `read` from inside a read handler is
//! detected and refused.

use std::path::Path;

use crate::concurrent::mapped_file::{Allocation, create_mapped, map_existing};
use crate::util::error::Result;

pub mod descriptor;
pub(crate) mod many_to_one;
pub(crate) mod one_to_one;
mod ring;

pub use many_to_one::ManyToOneRingBuffer;
pub use one_to_one::OneToOneRingBuffer;

use crate::concurrent::{AtomicBuffer, ClaimedRange};

/// A record claimed by [`RingBuffer::try_claim_record`]: write the payload through
/// [`payload`](Self::payload), then [`commit`](Self::commit) or [`abort`](Self::abort) it
/// (the consumer stops at it until then; dropped without either, it blocks the consumer
/// until `unblock` frees it, as a dead producer's claim does).
pub struct RecordClaim<'a> {
    ring: &'a ring::Ring,
    index: usize,
    payload: ClaimedRange<'a>,
}

impl std::fmt::Debug for RecordClaim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordClaim").field("index", &self.index).field("payload", &self.payload).finish()
    }
}

impl<'a> RecordClaim<'a> {
    /// The payload's index in the ring buffer's buffer (what `try_claim` returns).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The claimed payload bytes.
    #[inline]
    pub fn payload(&mut self) -> &mut ClaimedRange<'a> {
        &mut self.payload
    }

    /// Publishes the record.
    #[inline]
    pub fn commit(self) -> Result<()> {
        self.ring.commit(self.index)
    }

    /// Turns the record into padding the consumer skips.
    pub fn abort(self) -> Result<()> {
        self.ring.abort(self.index)
    }
}

/// What a controlled read handler asks the ring buffer to do with the message it was given
/// (Agrona `ControlledMessageHandler.Action`, C `aeron_rb_read_action_t`; same numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ControlledReadAction {
    /// Not consumed: stop; the message is delivered again by the next read.
    Abort = 0,
    /// Consumed: stop after it.
    Break = 1,
    /// Consumed: release everything read so far to producers now, then continue.
    Commit = 2,
    /// Consumed: continue.
    Continue = 3,
}

impl ControlledReadAction {
    /// The action with the C/Java numeric value, if any.
    pub fn from_i32(value: i32) -> Option<Self> {
        match value {
            0 => Some(Self::Abort),
            1 => Some(Self::Break),
            2 => Some(Self::Commit),
            3 => Some(Self::Continue),
            _ => None,
        }
    }
}

/// Operations common to both ring buffers (Agrona `RingBuffer`).
///
/// Producers: [`write`](Self::write), [`try_claim`](Self::try_claim) +
/// [`commit`](Self::commit)/[`abort`](Self::abort). A full buffer is not an error: `write`
/// returns `Ok(false)` and `try_claim` `Ok(None)`. Bad input (type id `< 1`, payload longer
/// than [`max_msg_length`](Self::max_msg_length), an index that is not an outstanding claim)
/// is an `Err`. Neither side allocates, locks or makes system calls on these paths.
pub trait RingBuffer: Send + Sync {
    /// Data capacity in bytes (buffer length minus the 768-byte trailer).
    fn capacity(&self) -> usize;

    /// Largest payload `write`/`try_claim` accept.
    fn max_msg_length(&self) -> usize;

    /// Copies `payload` in as one message of `msg_type_id`. `Ok(false)` when there is no room.
    fn write(&self, msg_type_id: i32, payload: &[u8]) -> Result<bool>;

    /// Claims room for a `length`-byte payload and returns its index in
    /// [`buffer`](Self::buffer), or `None` when there is no room. Write the payload at that
    /// index (e.g. `buffer().store_bytes(index, ..)`, or use
    /// [`try_claim_record`](Self::try_claim_record)), then [`commit`](Self::commit) or
    /// [`abort`](Self::abort) it; the consumer stops at the claim until then.
    fn try_claim(&self, msg_type_id: i32, length: usize) -> Result<Option<usize>>;

    /// [`try_claim`](Self::try_claim) that hands over the claimed payload bytes to write,
    /// with the commit and abort of that claim.
    fn try_claim_record(&self, msg_type_id: i32, length: usize) -> Result<Option<RecordClaim<'_>>>;

    /// Publishes the claimed message whose payload index `try_claim` returned.
    fn commit(&self, index: usize) -> Result<()>;

    /// Turns the claim at `index` into padding the consumer skips.
    fn abort(&self, index: usize) -> Result<()>;

    /// Delivers up to `message_count_limit` messages as `(msg_type_id, payload)` and returns
    /// how many. A read never wraps: messages past the end of the buffer come on the next
    /// call. If the handler panics, the messages before it and the one it panicked on count
    /// as consumed (as Java's `finally` does). `Err` only for a corrupt record length or a
    /// read from inside a handler.
    fn read(&self, handler: impl FnMut(i32, &[u8]), message_count_limit: usize) -> Result<usize>;

    /// As [`read`](Self::read), with the handler deciding per message through a
    /// [`ControlledReadAction`]. Returns the number of messages consumed (not aborted).
    fn controlled_read(
        &self,
        handler: impl FnMut(i32, &[u8]) -> ControlledReadAction,
        message_count_limit: usize,
    ) -> Result<usize>;

    /// Total bytes ever claimed by producers (tail position).
    fn producer_position(&self) -> i64;

    /// Total bytes ever consumed (head position).
    fn consumer_position(&self) -> i64;

    /// Bytes currently claimed but not consumed, within `[0, capacity]`.
    fn size(&self) -> usize;

    /// Takes the next value of the shared correlation counter (returns the value before the
    /// increment).
    fn next_correlation_id(&self) -> i64;

    /// The consumer's last heartbeat (epoch ms; `0` never set).
    fn consumer_heartbeat_time(&self) -> i64;

    /// Records a consumer heartbeat (epoch ms); only the consumer calls this.
    fn set_consumer_heartbeat_time(&self, time_ms: i64);

    /// Consumer side: frees the head of the buffer from a producer that died between claim
    /// and commit. `true` when a record was turned into padding. No-op for one-to-one.
    fn unblock(&self) -> bool;

    /// The underlying buffer (data region + trailer).
    fn buffer(&self) -> &AtomicBuffer;
}

/// Creates (truncating) a zeroed file at `path` sized for a ring buffer of data `capacity`
/// and maps it; `min_capacity` is the kind's minimum.
pub(crate) fn create_mapped_buffer(
    path: &Path,
    capacity: usize,
    min_capacity: usize,
) -> Result<AtomicBuffer> {
    let length = descriptor::total_length(capacity, min_capacity)?;
    create_mapped(path, length, Allocation::Reserved)
}

/// Maps an existing ring buffer file (validated by the constructor that receives it).
pub(crate) fn map_existing_buffer(path: &Path) -> Result<AtomicBuffer> {
    map_existing(path)
}

#[cfg(test)]
mod tests;
