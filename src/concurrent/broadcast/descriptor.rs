//! Layout of the broadcast buffer (`spec/broadcast.md` §1–2): the trailer counters, the
//! record header, and the word-wise payload copies both sides use.
//!
//! Why words: a slow receiver may read a record while the transmitter overwrites it (that
//! is what lapping means). A plain `memcpy` racing with a writer is undefined behaviour in
//! Rust, so the data region is only ever touched through 8-byte atomics: the transmitter
//! stores with release, the receiver loads with acquire. If a receiver load returns a word
//! of a newer record, the release/acquire pair makes the newer tail-intent store visible
//! to the receiver's following `validate`, which then reports the copy as torn. On x86
//! these are plain moves; no fences are needed.

use crate::concurrent::AtomicBuffer;
use crate::util::bits::{CACHE_LINE_LENGTH, is_power_of_two};
use crate::util::error::{Error, Result};

/// Trailer offset of the position the transmitter is about to reach (written first).
pub const TAIL_INTENT_COUNTER_OFFSET: usize = 0;
/// Trailer offset of the position after the last complete record (written last).
pub const TAIL_COUNTER_OFFSET: usize = 8;
/// Trailer offset of the start position of the most recent record.
pub const LATEST_COUNTER_OFFSET: usize = 16;
/// Aeron: the trailer is two cache lines.
pub const TRAILER_LENGTH: usize = 2 * CACHE_LINE_LENGTH;

/// Record header: int32 length (header included, unaligned) then int32 message type id.
pub const HEADER_LENGTH: usize = 8;
pub const LENGTH_OFFSET: usize = 0;
pub const TYPE_OFFSET: usize = 4;
/// Every record starts on this boundary.
pub const RECORD_ALIGNMENT: usize = 8;
/// Type id of the record that fills the space up to the end of the buffer before a wrap.
pub const PADDING_MSG_TYPE_ID: i32 = -1;

/// Default to-clients buffer: 1 MiB of data plus the trailer.
pub const DEFAULT_TO_CLIENTS_BUFFER_LENGTH: usize = 1024 * 1024 + TRAILER_LENGTH;

static_assertions::const_assert_eq!(TRAILER_LENGTH, 128);
static_assertions::const_assert_eq!(DEFAULT_TO_CLIENTS_BUFFER_LENGTH, 1_048_704);
static_assertions::const_assert_eq!(LATEST_COUNTER_OFFSET + 8, 24);
// The header is read and written as one little-endian 8-byte word.
static_assertions::const_assert!(cfg!(target_endian = "little"));

/// Largest payload one record may carry: capacity / 8, as Agrona and Aeron C.
#[inline]
pub const fn max_message_length(capacity: usize) -> usize {
    capacity / 8
}

/// The data capacity of a buffer of `total_length` bytes, validated: it must be a power of
/// two and hold at least one record header.
pub fn capacity_of(total_length: usize) -> Result<usize> {
    let capacity = total_length.checked_sub(TRAILER_LENGTH).ok_or_else(|| {
        Error::invalid_argument(format!(
            "broadcast buffer of {total_length} bytes is shorter than its {TRAILER_LENGTH}-byte trailer"
        ))
    })?;
    if !is_power_of_two(capacity as u64) || capacity < HEADER_LENGTH {
        return Err(Error::invalid_argument(format!(
            "broadcast buffer capacity {capacity} invalid, must be a power of two >= {HEADER_LENGTH}"
        )));
    }
    Ok(capacity)
}

/// Checks that a buffer can hold a broadcast buffer: valid capacity and 8-byte aligned base
/// (every trailer counter and record header is an aligned 8-byte atomic).
pub fn check_buffer(buffer: &AtomicBuffer) -> Result<usize> {
    if buffer.as_ptr() as usize % RECORD_ALIGNMENT != 0 {
        return Err(Error::invalid_argument("broadcast buffer is not 8-byte aligned"));
    }
    capacity_of(buffer.capacity())
}

/// The record header word: length in the low half (offset 0), type in the high half
/// (offset 4), as the little-endian layout puts them.
#[inline]
pub const fn header_word(length: i32, msg_type_id: i32) -> i64 {
    ((msg_type_id as i64) << 32) | (length as u32 as i64)
}

#[inline]
pub const fn header_length(word: i64) -> i32 {
    word as i32
}

#[inline]
pub const fn header_type_id(word: i64) -> i32 {
    (word >> 32) as i32
}

/// Stores `src` at the 8-aligned `index` as release words. The last word is zero-padded:
/// the bytes up to the next record boundary belong to this record.
pub(crate) fn store_payload(buffer: &AtomicBuffer, index: usize, src: &[u8]) {
    let mut chunks = src.chunks_exact(8);
    let mut at = index;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // Release: a receiver that loads this word also sees the tail intent stored before it.
        buffer.put_i64_release(at, i64::from_le_bytes(word));
        at += 8;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        buffer.put_i64_release(at, i64::from_le_bytes(word));
    }
}

/// Loads `dst.len()` bytes from the 8-aligned `index` as acquire words; the caller checks
/// that `index + align(dst.len(), 8)` lies within the data region.
pub(crate) fn load_payload(buffer: &AtomicBuffer, index: usize, dst: &mut [u8]) {
    let mut at = index;
    let mut chunks = dst.chunks_exact_mut(8);
    for chunk in &mut chunks {
        // Acquire: if this word is from a newer record, validate() sees its tail intent.
        chunk.copy_from_slice(&buffer.get_i64_acquire(at).to_le_bytes());
        at += 8;
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let len = rest.len();
        rest.copy_from_slice(&buffer.get_i64_acquire(at).to_le_bytes()[..len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_must_be_power_of_two_plus_trailer() {
        assert_eq!(capacity_of(1024 + 128).unwrap(), 1024);
        assert_eq!(capacity_of(DEFAULT_TO_CLIENTS_BUFFER_LENGTH).unwrap(), 1 << 20);
        assert!(capacity_of(1000 + 128).is_err());
        assert!(capacity_of(100).is_err());
        assert!(capacity_of(128).is_err());
        assert!(capacity_of(4 + 128).is_err());
        assert_eq!(max_message_length(1 << 20), 131_072);
    }

    #[test]
    fn header_word_puts_length_at_offset_0_and_type_at_4() {
        let b = AtomicBuffer::alloc(16);
        b.put_i64(0, header_word(20, 0x0f08));
        assert_eq!(b.get_i32(LENGTH_OFFSET), 20);
        assert_eq!(b.get_i32(TYPE_OFFSET), 0x0f08);
        let mut raw = [0u8; 8];
        b.load_bytes(0, &mut raw);
        assert_eq!(raw, [20, 0, 0, 0, 0x08, 0x0f, 0, 0]);
        let pad = header_word(48, PADDING_MSG_TYPE_ID);
        assert_eq!(header_length(pad), 48);
        assert_eq!(header_type_id(pad), -1);
        assert_eq!(header_length(header_word(-5, 7)), -5);
    }

    #[test]
    fn payload_words_round_trip_and_zero_pad() {
        let b = AtomicBuffer::alloc(64);
        b.fill_bytes(0, 64, 0xFF);
        let src: Vec<u8> = (1..=13).collect();
        store_payload(&b, 8, &src);
        let mut raw = [0u8; 24];
        b.load_bytes(8, &mut raw);
        assert_eq!(&raw[..13], &src[..]);
        assert_eq!(&raw[13..16], &[0, 0, 0], "rest of the last word is zeroed");
        assert_eq!(&raw[16..], &[0xFF; 8], "nothing past the aligned record is touched");
        let mut dst = vec![0u8; 13];
        load_payload(&b, 8, &mut dst);
        assert_eq!(dst, src);
    }
}
