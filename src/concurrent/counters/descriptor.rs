//! Layout of the counters values and metadata buffers (`spec/counters.md` §1–3), and the
//! byte-wise key and label accessors shared by the manager and readers.
//!
//! Key and label bytes can change while another thread reads them (a label update, the
//! key being zeroed on free), so they are copied one atomic byte at a time rather than
//! with `memcpy`, which would be a data race. These paths are not hot.

use crate::concurrent::AtomicBuffer;
use crate::util::error::{Error, Result};

/// Value record stride: the value and its ids own two cache lines.
pub const COUNTER_LENGTH: usize = 128;
/// Metadata record stride.
pub const METADATA_LENGTH: usize = 512;

// Value record fields.
pub const COUNTER_VALUE_OFFSET: usize = 0;
pub const REGISTRATION_ID_OFFSET: usize = 8;
pub const OWNER_ID_OFFSET: usize = 16;
pub const REFERENCE_ID_OFFSET: usize = 24;

// Metadata record fields.
pub const RECORD_STATE_OFFSET: usize = 0;
pub const TYPE_ID_OFFSET: usize = 4;
pub const FREE_FOR_REUSE_DEADLINE_OFFSET: usize = 8;
pub const KEY_OFFSET: usize = 16;
/// Start of the length-prefixed label: int32 length, then the label bytes.
pub const LABEL_OFFSET: usize = 128;
pub const LABEL_BYTES_OFFSET: usize = LABEL_OFFSET + 4;
pub const MAX_KEY_LENGTH: usize = 112;
pub const MAX_LABEL_LENGTH: usize = 380;
/// Label length field plus label bytes.
pub const FULL_LABEL_LENGTH: usize = 384;

// Record states.
pub const RECORD_UNUSED: i32 = 0;
pub const RECORD_ALLOCATED: i32 = 1;
pub const RECORD_RECLAIMED: i32 = -1;

/// Deadline stored while a counter is allocated.
pub const NOT_FREE_TO_REUSE: i64 = i64::MAX;
pub const NULL_COUNTER_ID: i32 = -1;
pub const DEFAULT_TYPE_ID: i32 = 0;
pub const DEFAULT_REGISTRATION_ID: i64 = 0;
pub const DEFAULT_OWNER_ID: i64 = 0;
pub const DEFAULT_REFERENCE_ID: i64 = 0;

/// Driver default for the values buffer; the metadata buffer is 4x this.
pub const COUNTERS_VALUES_BUFFER_LENGTH_DEFAULT: usize = 1024 * 1024;
pub const COUNTERS_VALUES_BUFFER_LENGTH_MAX: usize = 500 * 1024 * 1024;
/// Metadata bytes needed per value byte.
pub const METADATA_TO_VALUES_RATIO: usize = METADATA_LENGTH / COUNTER_LENGTH;
/// Driver default delay before a freed counter id may be handed out again.
pub const DEFAULT_FREE_TO_REUSE_TIMEOUT_MS: i64 = 1000;
/// Longest client name a client appends to its heartbeat counter's label.
pub const MAX_CLIENT_NAME_LENGTH: usize = 100;

static_assertions::const_assert_eq!(KEY_OFFSET + MAX_KEY_LENGTH, LABEL_OFFSET);
static_assertions::const_assert_eq!(LABEL_OFFSET + FULL_LABEL_LENGTH, METADATA_LENGTH);
static_assertions::const_assert_eq!(LABEL_BYTES_OFFSET + MAX_LABEL_LENGTH, METADATA_LENGTH);
static_assertions::const_assert_eq!(METADATA_TO_VALUES_RATIO, 4);
static_assertions::const_assert_eq!(REFERENCE_ID_OFFSET + 8 + 96, COUNTER_LENGTH);

/// Offset of counter `id`'s value record in the values buffer.
#[inline]
pub const fn counter_offset(id: i32) -> usize {
    id as usize * COUNTER_LENGTH
}

/// Offset of counter `id`'s metadata record in the metadata buffer.
#[inline]
pub const fn metadata_offset(id: i32) -> usize {
    id as usize * METADATA_LENGTH
}

/// Validates a pair of buffers and returns the highest counter id they hold.
pub fn max_counter_id_of(metadata: &AtomicBuffer, values: &AtomicBuffer) -> Result<i32> {
    let values_length = values.capacity();
    if values_length < COUNTER_LENGTH {
        return Err(Error::invalid_argument(format!(
            "counters values buffer of {values_length} bytes holds no counter"
        )));
    }
    let needed = values_length.checked_mul(METADATA_TO_VALUES_RATIO);
    if needed.is_none_or(|needed| metadata.capacity() < needed) {
        return Err(Error::invalid_argument(format!(
            "counters metadata buffer of {} bytes is shorter than 4 x values length {values_length}",
            metadata.capacity()
        )));
    }
    if metadata.as_ptr() as usize % 8 != 0 || values.as_ptr() as usize % 8 != 0 {
        return Err(Error::invalid_argument("counters buffers must be 8-byte aligned"));
    }
    i32::try_from(values_length / COUNTER_LENGTH - 1).map_err(|_| {
        Error::invalid_argument(format!("counters values buffer of {values_length} bytes too large"))
    })
}

/// Copies `dst.len()` bytes from `index`, one relaxed atomic byte at a time.
pub(crate) fn load_bytes(buffer: &AtomicBuffer, index: usize, dst: &mut [u8]) {
    for (i, b) in dst.iter_mut().enumerate() {
        *b = buffer.get_u8(index + i);
    }
}

/// Stores `src` at `index`, one relaxed atomic byte at a time; published by a later
/// release store (state or label length).
pub(crate) fn store_bytes(buffer: &AtomicBuffer, index: usize, src: &[u8]) {
    for (i, b) in src.iter().enumerate() {
        buffer.put_u8(index + i, *b);
    }
}

/// Writes a whole label (truncated to [`MAX_LABEL_LENGTH`]) then its length with release.
pub(crate) fn store_label(metadata: &AtomicBuffer, record: usize, label: &[u8]) {
    let length = label.len().min(MAX_LABEL_LENGTH);
    store_bytes(metadata, record + LABEL_BYTES_OFFSET, &label[..length]);
    // Release: the label bytes are visible before the length that covers them.
    metadata.put_i32_release(record + LABEL_OFFSET, length as i32);
}

/// Appends to counter `counter_id`'s label as much of `value` as still fits, then
/// stores the new length with release. Used by the driver and by a client extending its
/// own heartbeat counter's label (`spec/counters.md` §6.1). Returns the bytes appended.
pub fn append_to_label(metadata: &AtomicBuffer, counter_id: i32, value: &[u8]) -> Result<usize> {
    let record = record_offset_checked(metadata, counter_id)?;
    // Acquire: another process may have extended this label before.
    let current = clamp_label_length(metadata.get_i32_acquire(record + LABEL_OFFSET));
    let copy_length = value.len().min(MAX_LABEL_LENGTH - current);
    store_bytes(metadata, record + LABEL_BYTES_OFFSET + current, &value[..copy_length]);
    // Release: the appended bytes are visible before the length that covers them.
    metadata.put_i32_release(record + LABEL_OFFSET, (current + copy_length) as i32);
    Ok(copy_length)
}

/// A label length read from shared memory, forced into `0..=MAX_LABEL_LENGTH` so a corrupt
/// record cannot make a reader run past it.
#[inline]
pub(crate) fn clamp_label_length(length: i32) -> usize {
    (length.max(0) as usize).min(MAX_LABEL_LENGTH)
}

/// Metadata offset of `counter_id` after checking that its record lies in the buffer.
pub(crate) fn record_offset_checked(metadata: &AtomicBuffer, counter_id: i32) -> Result<usize> {
    if counter_id < 0 {
        return Err(Error::invalid_argument(format!("counter id {counter_id} is negative")));
    }
    let offset = metadata_offset(counter_id);
    metadata
        .check_bounds(offset, METADATA_LENGTH)
        .map_err(|e| e.context(format!("counter id {counter_id}")))?;
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_offsets() {
        assert_eq!(counter_offset(0), 0);
        assert_eq!(counter_offset(40), 5120);
        assert_eq!(metadata_offset(40), 20480);
        assert_eq!(metadata_offset(8191), 4_193_792);
    }

    #[test]
    fn buffer_validation() {
        let values = AtomicBuffer::alloc(1024);
        assert_eq!(max_counter_id_of(&AtomicBuffer::alloc(4096), &values).unwrap(), 7);
        assert!(max_counter_id_of(&AtomicBuffer::alloc(4095), &values).is_err());
        assert!(max_counter_id_of(&AtomicBuffer::alloc(4096), &AtomicBuffer::alloc(64)).is_err());
        let default_values = AtomicBuffer::alloc(COUNTERS_VALUES_BUFFER_LENGTH_DEFAULT);
        let default_metadata = AtomicBuffer::alloc(4 * COUNTERS_VALUES_BUFFER_LENGTH_DEFAULT);
        assert_eq!(max_counter_id_of(&default_metadata, &default_values).unwrap(), 8191);
    }

    #[test]
    fn append_truncates_at_max_label_length() {
        let metadata = AtomicBuffer::alloc(2 * METADATA_LENGTH);
        store_label(&metadata, METADATA_LENGTH, b"client-heartbeat: id=1");
        assert_eq!(append_to_label(&metadata, 1, b" name=").unwrap(), 6);
        assert_eq!(metadata.get_i32(METADATA_LENGTH + LABEL_OFFSET), 28);
        assert_eq!(
            metadata.load_vec(METADATA_LENGTH + LABEL_BYTES_OFFSET, 28),
            b"client-heartbeat: id=1 name="
        );
        assert_eq!(append_to_label(&metadata, 1, &[b'x'; 400]).unwrap(), 352);
        assert_eq!(metadata.get_i32(METADATA_LENGTH + LABEL_OFFSET), 380);
        assert_eq!(append_to_label(&metadata, 1, b"more").unwrap(), 0);
        assert!(append_to_label(&metadata, 2, b"x").is_err());
        assert!(append_to_label(&metadata, -1, b"x").is_err());
    }
}
