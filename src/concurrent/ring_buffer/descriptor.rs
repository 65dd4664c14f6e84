//! Byte layout of an Agrona/Aeron ring buffer: the data region, the 768-byte trailer behind
//! it, the 8-byte record header, and the checks every buffer and message must pass.
//!
//! ```text
//! | data (capacity bytes, power of two) | trailer (768 bytes) |
//! trailer: 128 pad | tail | head cache | head | correlation counter | consumer heartbeat
//!          each i64 sits at the start of its own 128-byte (two cache line) slot
//! record:  i32 length (header + payload, unaligned; negative while claimed) | i32 type | payload
//! ```

use static_assertions::const_assert_eq;

use crate::concurrent::AtomicBuffer;
use crate::util::bits::{CACHE_LINE_LENGTH, is_power_of_two};
use crate::util::error::{Error, Result};

/// Width of one trailer slot: two cache lines, so adjacent-line prefetching never makes
/// the producers' and the consumer's hot words share a line pair.
const SLOT_LENGTH: usize = 2 * CACHE_LINE_LENGTH;

/// Trailer offset of the tail position (bytes ever claimed by producers).
pub const TAIL_POSITION_OFFSET: usize = SLOT_LENGTH;
/// Trailer offset of the producers' cached copy of the head position.
pub const HEAD_CACHE_POSITION_OFFSET: usize = 2 * SLOT_LENGTH;
/// Trailer offset of the head position (bytes ever consumed).
pub const HEAD_POSITION_OFFSET: usize = 3 * SLOT_LENGTH;
/// Trailer offset of the correlation id counter.
pub const CORRELATION_COUNTER_OFFSET: usize = 4 * SLOT_LENGTH;
/// Trailer offset of the consumer heartbeat (epoch ms; the driver heartbeat in `cnc.dat`).
pub const CONSUMER_HEARTBEAT_OFFSET: usize = 5 * SLOT_LENGTH;
/// Length of the trailer that follows the data region.
pub const TRAILER_LENGTH: usize = 6 * SLOT_LENGTH;

/// Length of a record header: i32 length + i32 message type id.
pub const HEADER_LENGTH: usize = 8;
/// Records start on this boundary; a record occupies `align(length, ALIGNMENT)` bytes.
pub const ALIGNMENT: usize = 8;
/// Offset of the length field in a record header.
pub const LENGTH_OFFSET: usize = 0;
/// Offset of the message type id in a record header.
pub const TYPE_OFFSET: usize = 4;
/// Type id of padding records, which readers skip without counting.
pub const PADDING_MSG_TYPE_ID: i32 = -1;
/// Agrona's `tryClaim` result when there is no room (Java `INSUFFICIENT_CAPACITY`).
pub const INSUFFICIENT_CAPACITY: i32 = -2;

/// Smallest many-to-one data capacity: one record header.
pub const MANY_TO_ONE_MIN_CAPACITY: usize = HEADER_LENGTH;
/// Smallest one-to-one data capacity: a record header plus the pre-zeroed next header.
pub const ONE_TO_ONE_MIN_CAPACITY: usize = 2 * HEADER_LENGTH;
/// Largest data capacity: record indices and lengths are i32 in the format (Java `int`),
/// and 2^30 is the largest power of two an i32 holds.
pub const MAX_CAPACITY: usize = 1 << 30;

const_assert_eq!(TAIL_POSITION_OFFSET, 128);
const_assert_eq!(HEAD_CACHE_POSITION_OFFSET, 256);
const_assert_eq!(HEAD_POSITION_OFFSET, 384);
const_assert_eq!(CORRELATION_COUNTER_OFFSET, 512);
const_assert_eq!(CONSUMER_HEARTBEAT_OFFSET, 640);
const_assert_eq!(TRAILER_LENGTH, 768);
const_assert_eq!(HEADER_LENGTH, 8);
const_assert_eq!(ALIGNMENT, 8);

/// Offset of the payload of the record at `record_index`.
#[inline]
pub const fn encoded_msg_offset(record_index: usize) -> usize {
    record_index + HEADER_LENGTH
}

/// Offset of the length field of the record at `record_index`.
#[inline]
pub const fn length_offset(record_index: usize) -> usize {
    record_index + LENGTH_OFFSET
}

/// Offset of the type field of the record at `record_index`.
#[inline]
pub const fn type_offset(record_index: usize) -> usize {
    record_index + TYPE_OFFSET
}

/// Data capacity of a buffer of `total_length` bytes, or the reason it cannot hold a ring
/// buffer whose data capacity must be at least `min_capacity`.
pub fn check_capacity(total_length: usize, min_capacity: usize) -> Result<usize> {
    let Some(capacity) = total_length.checked_sub(TRAILER_LENGTH) else {
        return Err(Error::invalid_argument(format!(
            "ring buffer of {total_length} bytes is smaller than its {TRAILER_LENGTH}-byte trailer"
        )));
    };
    if capacity == 0 {
        return Err(Error::invalid_argument(format!(
            "ring buffer capacity is 0: buffer of {total_length} bytes holds only the trailer"
        )));
    }
    if !is_power_of_two(capacity as u64) {
        return Err(Error::invalid_argument(format!(
            "ring buffer capacity {capacity} (buffer {total_length} - trailer {TRAILER_LENGTH}) is not a power of two"
        )));
    }
    if capacity < min_capacity {
        return Err(Error::invalid_argument(format!(
            "ring buffer capacity {capacity} is below the minimum of {min_capacity}"
        )));
    }
    if capacity > MAX_CAPACITY {
        return Err(Error::invalid_argument(format!(
            "ring buffer capacity {capacity} exceeds the maximum of {MAX_CAPACITY}"
        )));
    }
    Ok(capacity)
}

/// Total buffer length (data + trailer) for a data `capacity`, checked like a buffer would
/// be; for sizing files and allocations.
pub fn total_length(capacity: usize, min_capacity: usize) -> Result<usize> {
    let total = capacity
        .checked_add(TRAILER_LENGTH)
        .ok_or_else(|| Error::invalid_argument(format!("ring buffer capacity {capacity} is too large")))?;
    check_capacity(total, min_capacity)?;
    Ok(total)
}

/// Largest payload a buffer of `capacity` accepts.
///
/// Java's rule (`max(8, capacity / 8)`, 0 at the minimum capacity) is used. C uses
/// `capacity / 8` without the floor of 8, which differs only for capacities below 64.
#[inline]
pub const fn max_msg_length(capacity: usize, min_capacity: usize) -> usize {
    if capacity == min_capacity {
        0
    } else {
        let eighth = capacity >> 3;
        if eighth > HEADER_LENGTH { eighth } else { HEADER_LENGTH }
    }
}

/// A message type id writers accept: `>= 1` (padding is -1, 0 is never valid).
#[inline]
pub fn check_msg_type_id(msg_type_id: i32) -> Result<()> {
    if msg_type_id < 1 {
        return Err(invalid_msg_type_id(msg_type_id));
    }
    Ok(())
}

// Error construction formats a message; kept out of line so the producer hot path stays
// small.
#[cold]
#[inline(never)]
fn invalid_msg_type_id(msg_type_id: i32) -> Error {
    Error::invalid_argument(format!("message type id must be >= 1, got {msg_type_id}"))
}

#[cold]
#[inline(never)]
fn message_too_long(length: usize, max_msg_length: usize) -> Error {
    Error::invalid_argument(format!(
        "message length {length} exceeds max_msg_length {max_msg_length} of the ring buffer"
    ))
}

/// Where everything lives in one validated ring buffer; computed once at construction so
/// the hot paths do no validation of the buffer itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub capacity: usize,
    pub mask: usize,
    pub max_msg_length: usize,
    pub tail_position_index: usize,
    pub head_position_index: usize,
    pub correlation_counter_index: usize,
    pub consumer_heartbeat_index: usize,
}

impl Layout {
    /// Validates `buffer` (capacity rules and 8-byte alignment of its address, which every
    /// record header and trailer word relies on).
    pub fn new(buffer: &AtomicBuffer, min_capacity: usize) -> Result<Self> {
        let capacity = check_capacity(buffer.capacity(), min_capacity)?;
        if buffer.as_ptr() as usize % ALIGNMENT != 0 {
            return Err(Error::invalid_argument(format!(
                "ring buffer address {:p} is not aligned to {ALIGNMENT} bytes",
                buffer.as_ptr()
            )));
        }
        Ok(Self {
            capacity,
            mask: capacity - 1,
            max_msg_length: max_msg_length(capacity, min_capacity),
            tail_position_index: capacity + TAIL_POSITION_OFFSET,
            head_position_index: capacity + HEAD_POSITION_OFFSET,
            correlation_counter_index: capacity + CORRELATION_COUNTER_OFFSET,
            consumer_heartbeat_index: capacity + CONSUMER_HEARTBEAT_OFFSET,
        })
    }

    /// Validates a message before claiming: type id `>= 1`, payload `<= max_msg_length`.
    #[inline]
    pub fn check_message(&self, msg_type_id: i32, length: usize) -> Result<()> {
        check_msg_type_id(msg_type_id)?;
        if length > self.max_msg_length {
            return Err(message_too_long(length, self.max_msg_length));
        }
        Ok(())
    }

    /// Index within the data region of a position.
    #[inline]
    pub fn index_of(&self, position: i64) -> usize {
        // Positions are non-negative byte counts; masking keeps only the in-ring bits, so
        // the cast of the masked value cannot lose information.
        (position as u64 as usize) & self.mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_offsets_match_agrona() {
        assert_eq!(TAIL_POSITION_OFFSET, 128);
        assert_eq!(HEAD_CACHE_POSITION_OFFSET, 256);
        assert_eq!(HEAD_POSITION_OFFSET, 384);
        assert_eq!(CORRELATION_COUNTER_OFFSET, 512);
        assert_eq!(CONSUMER_HEARTBEAT_OFFSET, 640);
        assert_eq!(TRAILER_LENGTH, 768);
        assert_eq!((HEADER_LENGTH, ALIGNMENT, LENGTH_OFFSET, TYPE_OFFSET), (8, 8, 0, 4));
        assert_eq!((PADDING_MSG_TYPE_ID, INSUFFICIENT_CAPACITY), (-1, -2));
    }

    #[test]
    fn capacity_checks_name_the_problem() {
        assert_eq!(check_capacity(1024 + 768, 8).unwrap(), 1024);
        assert_eq!(check_capacity(8 + 768, 8).unwrap(), 8);
        let small = check_capacity(100, 8).unwrap_err();
        assert_eq!(small.code(), libc::EINVAL);
        assert!(small.message().contains("smaller than its 768-byte trailer"), "{small}");
        let zero = check_capacity(768, 8).unwrap_err();
        assert!(zero.message().contains("capacity is 0"), "{zero}");
        let odd = check_capacity(1000 + 768, 8).unwrap_err();
        assert!(odd.message().contains("1000") && odd.message().contains("not a power of two"), "{odd}");
        let below = check_capacity(8 + 768, 16).unwrap_err();
        assert!(below.message().contains("below the minimum of 16"), "{below}");
        let huge = check_capacity((1usize << 31) + 768, 8).unwrap_err();
        assert!(huge.message().contains("exceeds the maximum"), "{huge}");
        assert_eq!(total_length(1 << 20, 8).unwrap(), 1_049_344);
        assert!(total_length(usize::MAX, 8).is_err());
        assert!(total_length(12, 8).is_err());
    }

    #[test]
    fn max_msg_length_follows_java() {
        assert_eq!(max_msg_length(1 << 20, MANY_TO_ONE_MIN_CAPACITY), 131_072);
        assert_eq!(max_msg_length(8, MANY_TO_ONE_MIN_CAPACITY), 0);
        assert_eq!(max_msg_length(16, ONE_TO_ONE_MIN_CAPACITY), 0);
        // Java floors at 8 where C would give capacity / 8.
        assert_eq!(max_msg_length(16, MANY_TO_ONE_MIN_CAPACITY), 8);
        assert_eq!(max_msg_length(32, ONE_TO_ONE_MIN_CAPACITY), 8);
        assert_eq!(max_msg_length(128, ONE_TO_ONE_MIN_CAPACITY), 16);
    }

    #[test]
    fn layout_indices_are_capacity_plus_offsets() {
        let buffer = AtomicBuffer::alloc(1024 + TRAILER_LENGTH);
        let layout = Layout::new(&buffer, MANY_TO_ONE_MIN_CAPACITY).unwrap();
        assert_eq!(layout.capacity, 1024);
        assert_eq!(layout.mask, 1023);
        assert_eq!(layout.max_msg_length, 128);
        assert_eq!(layout.tail_position_index, 1024 + 128);
        assert_eq!(layout.head_position_index, 1024 + 384);
        assert_eq!(layout.correlation_counter_index, 1024 + 512);
        assert_eq!(layout.consumer_heartbeat_index, 1024 + 640);
        assert_eq!(layout.index_of(1024 * 3 + 40), 40);
    }

    #[test]
    fn misaligned_memory_is_rejected() {
        let buffer = AtomicBuffer::alloc(1024 + TRAILER_LENGTH + 8);
        let view = buffer.view(4, 1024 + TRAILER_LENGTH).unwrap();
        let err = Layout::new(&view, MANY_TO_ONE_MIN_CAPACITY).unwrap_err();
        assert!(err.message().contains("not aligned"), "{err}");
    }

    #[test]
    fn message_checks() {
        let buffer = AtomicBuffer::alloc(1024 + TRAILER_LENGTH);
        let layout = Layout::new(&buffer, MANY_TO_ONE_MIN_CAPACITY).unwrap();
        assert!(layout.check_message(1, 128).is_ok());
        let long = layout.check_message(1, 129).unwrap_err();
        assert!(long.message().contains("exceeds max_msg_length 128"), "{long}");
        for bad in [0, -1, i32::MIN] {
            let err = layout.check_message(bad, 1).unwrap_err();
            assert!(err.message().contains("type id must be >= 1"), "{err}");
        }
    }

    #[test]
    fn record_offsets() {
        assert_eq!(encoded_msg_offset(64), 72);
        assert_eq!(length_offset(64), 64);
        assert_eq!(type_offset(64), 68);
    }
}
