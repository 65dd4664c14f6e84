//! Log buffer descriptor: the layout of a `.logbuffer` file, the offsets of its metadata
//! fields, length rules, the raw-tail packing and position arithmetic
//! (`spec/log-buffer.md` §2-4). The accessors over the metadata section (fields, tails,
//! rotation, default frame header) live in `log_metadata` and are
//! re-exported here, so `descriptor::` names everything Aeron's `LogBufferDescriptor` does.
#![forbid(unsafe_code)]

pub use super::log_metadata::*;

use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT};
use crate::util::bits::{align, is_power_of_two};
use crate::util::error::{Error, Result};

/// Terms per log: the active one, the one being cleaned, the one being consumed.
pub const PARTITION_COUNT: usize = 3;
pub const TERM_MIN_LENGTH: usize = 64 * 1024;
pub const TERM_MAX_LENGTH: usize = 1024 * 1024 * 1024;
pub const PAGE_MIN_SIZE: usize = 4 * 1024;
pub const PAGE_MAX_SIZE: usize = 1024 * 1024 * 1024;
/// The metadata section is the last 4096 bytes of the file.
pub const LOG_META_DATA_LENGTH: usize = PAGE_MIN_SIZE;
/// Aeron: `FRAME_MAX_MESSAGE_LENGTH`, the cap on a (fragmented) message whatever the term.
pub const MAX_MESSAGE_LENGTH: usize = 16 * 1024 * 1024;

// Metadata field offsets (`spec/log-buffer.md` §3), identical to Aeron 1.48 C and Java.
pub const TERM_TAIL_COUNTERS_OFFSET: usize = 0;
pub const LOG_ACTIVE_TERM_COUNT_OFFSET: usize = 24;
pub const LOG_END_OF_STREAM_POSITION_OFFSET: usize = 128;
pub const LOG_IS_CONNECTED_OFFSET: usize = 136;
pub const LOG_ACTIVE_TRANSPORT_COUNT_OFFSET: usize = 140;
pub const LOG_CORRELATION_ID_OFFSET: usize = 256;
pub const LOG_INITIAL_TERM_ID_OFFSET: usize = 264;
pub const LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET: usize = 268;
pub const LOG_MTU_LENGTH_OFFSET: usize = 272;
pub const LOG_TERM_LENGTH_OFFSET: usize = 276;
pub const LOG_PAGE_SIZE_OFFSET: usize = 280;
pub const LOG_PUBLICATION_WINDOW_LENGTH_OFFSET: usize = 284;
pub const LOG_RECEIVER_WINDOW_LENGTH_OFFSET: usize = 288;
pub const LOG_SOCKET_SNDBUF_LENGTH_OFFSET: usize = 292;
pub const LOG_OS_DEFAULT_SOCKET_SNDBUF_LENGTH_OFFSET: usize = 296;
pub const LOG_OS_MAX_SOCKET_SNDBUF_LENGTH_OFFSET: usize = 300;
pub const LOG_SOCKET_RCVBUF_LENGTH_OFFSET: usize = 304;
pub const LOG_OS_DEFAULT_SOCKET_RCVBUF_LENGTH_OFFSET: usize = 308;
pub const LOG_OS_MAX_SOCKET_RCVBUF_LENGTH_OFFSET: usize = 312;
pub const LOG_MAX_RESEND_OFFSET: usize = 316;
pub const LOG_DEFAULT_FRAME_HEADER_OFFSET: usize = 320;
pub const LOG_DEFAULT_FRAME_HEADER_MAX_LENGTH: usize = 128;
pub const LOG_ENTITY_TAG_OFFSET: usize = 448;
pub const LOG_RESPONSE_CORRELATION_ID_OFFSET: usize = 456;
pub const LOG_LINGER_TIMEOUT_NS_OFFSET: usize = 464;
pub const LOG_UNTETHERED_WINDOW_LIMIT_TIMEOUT_NS_OFFSET: usize = 472;
pub const LOG_UNTETHERED_RESTING_TIMEOUT_NS_OFFSET: usize = 480;
pub const LOG_GROUP_OFFSET: usize = 488;
pub const LOG_IS_RESPONSE_OFFSET: usize = 489;
pub const LOG_REJOIN_OFFSET: usize = 490;
pub const LOG_RELIABLE_OFFSET: usize = 491;
pub const LOG_SPARSE_OFFSET: usize = 492;
pub const LOG_SIGNAL_EOS_OFFSET: usize = 493;
pub const LOG_SPIES_SIMULATE_CONNECTION_OFFSET: usize = 494;
pub const LOG_TETHER_OFFSET: usize = 495;

// ---- validation and sizes ----

/// Term length must be a power of two in [64 KiB, 1 GiB].
pub fn check_term_length(term_length: usize) -> Result<()> {
    if term_length < TERM_MIN_LENGTH {
        return Err(Error::invalid_argument(format!(
            "term length less than min length of {TERM_MIN_LENGTH}: length={term_length}"
        )));
    }
    if term_length > TERM_MAX_LENGTH {
        return Err(Error::invalid_argument(format!(
            "term length more than max length of {TERM_MAX_LENGTH}: length={term_length}"
        )));
    }
    if !is_power_of_two(term_length as u64) {
        return Err(Error::invalid_argument(format!("term length not a power of 2: length={term_length}")));
    }
    Ok(())
}

/// Page size must be a power of two in [4 KiB, 1 GiB].
pub fn check_page_size(page_size: usize) -> Result<()> {
    if page_size < PAGE_MIN_SIZE {
        return Err(Error::invalid_argument(format!(
            "page size less than min size of {PAGE_MIN_SIZE}: page size={page_size}"
        )));
    }
    if page_size > PAGE_MAX_SIZE {
        return Err(Error::invalid_argument(format!(
            "page size more than max size of {PAGE_MAX_SIZE}: page size={page_size}"
        )));
    }
    if !is_power_of_two(page_size as u64) {
        return Err(Error::invalid_argument(format!("page size not a power of 2: page size={page_size}")));
    }
    Ok(())
}

/// File length of a log: three terms plus the metadata page, rounded up to `page_size`.
pub const fn compute_log_length(term_length: usize, page_size: usize) -> usize {
    align(PARTITION_COUNT * term_length + LOG_META_DATA_LENGTH, page_size)
}

/// Largest message a publication accepts: `min(term_length / 8, 16 MiB)`.
pub const fn compute_max_message_length(term_length: usize) -> usize {
    let eighth = term_length / 8;
    if eighth < MAX_MESSAGE_LENGTH { eighth } else { MAX_MESSAGE_LENGTH }
}

/// Largest payload of one frame: the MTU less the data header.
pub const fn compute_max_payload_length(mtu_length: usize) -> usize {
    mtu_length.saturating_sub(DATA_HEADER_LENGTH)
}

/// Bytes a fragmented message occupies in a term. Full fragments are `max_payload + 32`
/// long, which the MTU (a multiple of 32) keeps aligned; only the last one is rounded up.
pub const fn compute_fragmented_length(length: usize, max_payload_length: usize) -> usize {
    let full = length / max_payload_length;
    let remainder = length % max_payload_length;
    let last = if remainder > 0 { align(remainder + DATA_HEADER_LENGTH, FRAME_ALIGNMENT) } else { 0 };
    full * (max_payload_length + DATA_HEADER_LENGTH) + last
}

/// Position beyond which a publication reports MAX_POSITION_EXCEEDED: `term_length << 31`.
pub const fn max_possible_position(term_length: usize) -> i64 {
    (term_length as i64) << 31
}

// ---- raw tail ----

/// Packs a term id (high 32 bits) and a term offset (low 32 bits) into a raw tail.
#[inline]
pub const fn pack_tail(term_id: i32, term_offset: i32) -> i64 {
    ((term_id as i64) << 32) | (term_offset as u32 as i64)
}

/// The term id of a raw tail.
#[inline]
pub const fn term_id(raw_tail: i64) -> i32 {
    (raw_tail >> 32) as i32
}

/// The term offset of a raw tail, clamped to the term length: publishers add to the tail
/// before checking, so it can overshoot the end of the term.
#[inline]
pub const fn term_offset(raw_tail: i64, term_length: usize) -> i32 {
    let offset = raw_tail & 0xFFFF_FFFF;
    let length = term_length as i64;
    (if offset < length { offset } else { length }) as i32
}

// ---- positions ----

/// log2 of the term length: how far a term count is shifted to make a position.
#[inline]
pub const fn position_bits_to_shift(term_length: usize) -> u32 {
    term_length.trailing_zeros()
}

/// Terms since the initial one (wrapping, as term ids wrap).
#[inline]
pub const fn compute_term_count(term_id: i32, initial_term_id: i32) -> i32 {
    term_id.wrapping_sub(initial_term_id)
}

#[inline]
pub const fn compute_position(term_id: i32, term_offset: i32, bits: u32, initial_term_id: i32) -> i64 {
    ((compute_term_count(term_id, initial_term_id) as i64) << bits) + term_offset as i64
}

#[inline]
pub const fn compute_term_begin_position(term_id: i32, bits: u32, initial_term_id: i32) -> i64 {
    compute_position(term_id, 0, bits, initial_term_id)
}

#[inline]
pub const fn compute_term_id_from_position(position: i64, bits: u32, initial_term_id: i32) -> i32 {
    ((position >> bits) as i32).wrapping_add(initial_term_id)
}

#[inline]
pub const fn compute_term_offset_from_position(position: i64, bits: u32) -> i32 {
    (position & ((1i64 << bits) - 1)) as i32
}

/// The item of partition `index` (0, 1 or 2, as the `index_by_*` functions give), clamped
/// rather than bounds-checked, so the per-message paths that pick a term carry no panic;
/// where the index is a remainder by 3 the clamp folds away and this is one address add.
#[inline(always)]
pub fn partition<T>(items: &[T; PARTITION_COUNT], index: usize) -> &T {
    &items[index.min(PARTITION_COUNT - 1)]
}

/// [`partition`], to change the item.
#[inline(always)]
pub fn partition_mut<T>(items: &mut [T; PARTITION_COUNT], index: usize) -> &mut T {
    &mut items[index.min(PARTITION_COUNT - 1)]
}

/// [`index_by_term_count`] of a log's active term count (an i32, never negative in a valid
/// log) as one unsigned remainder, without the sign fix-up: the publications' offer path.
/// A negative (corrupt) count still gives an index below 3.
#[inline(always)]
pub const fn index_by_active_term_count(term_count: i32) -> usize {
    (term_count as u32 % PARTITION_COUNT as u32) as usize
}

/// Partition holding term number `term_count`.
#[inline]
pub const fn index_by_term_count(term_count: i64) -> usize {
    term_count.rem_euclid(PARTITION_COUNT as i64) as usize
}

/// Partition holding `term_id`.
#[inline]
pub const fn index_by_term(initial_term_id: i32, term_id: i32) -> usize {
    index_by_term_count(compute_term_count(term_id, initial_term_id) as i64)
}

/// Partition holding `position`.
#[inline]
pub const fn index_by_position(position: i64, bits: u32) -> usize {
    let term_count = position >> bits;
    // The same remainder; unsigned for the positions a valid stream has (a few instructions
    // less on every poll than the signed remainder and its sign fix-up).
    if term_count >= 0 {
        (term_count as u64 % PARTITION_COUNT as u64) as usize
    } else {
        index_by_term_count(term_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_length_and_page_size_rules() {
        assert!(check_term_length(64 * 1024).is_ok());
        assert!(check_term_length(1 << 30).is_ok());
        assert!(check_term_length(32 * 1024).is_err());
        assert!(check_term_length(1 << 31).is_err());
        assert!(check_term_length(96 * 1024).unwrap_err().message().contains("power of 2"));
        assert!(check_page_size(4096).is_ok());
        assert!(check_page_size(1 << 30).is_ok());
        assert!(check_page_size(2048).is_err());
        assert!(check_page_size(6144).is_err());
        assert!(check_page_size(1 << 31).is_err());
    }

    #[test]
    fn lengths_follow_aeron() {
        assert_eq!(compute_log_length(65536, 4096), 200_704);
        assert_eq!(compute_log_length(65536, 1 << 20), 1 << 20);
        assert_eq!(compute_max_message_length(65536), 8192);
        assert_eq!(compute_max_message_length(16 << 20), 2 << 20);
        assert_eq!(compute_max_message_length(64 << 20), 8 << 20);
        assert_eq!(compute_max_message_length(1 << 30), 16 << 20);
        assert_eq!(compute_max_payload_length(1408), 1376);
        // M11 of the vectors: 4000 bytes at MTU 1408 -> 1408 + 1408 + 1280.
        assert_eq!(compute_fragmented_length(4000, 1376), 4096);
        assert_eq!(compute_fragmented_length(2752, 1376), 2816);
        assert_eq!(max_possible_position(65536), 65536i64 << 31);
    }

    #[test]
    fn raw_tail_packing_matches_vectors() {
        let raw = 0x0000_03E8_0001_0280i64;
        assert_eq!(term_id(raw), 1000);
        assert_eq!(term_offset(raw, 65536), 65536);
        assert_eq!(pack_tail(1001, 4224), 0x0000_03E9_0000_1080);
        let negative = pack_tail(-98_818_424, 8320);
        assert_eq!(negative as u64, 0xFA1C_2688_0000_2080);
        assert_eq!(term_id(negative), -98_818_424);
        assert_eq!(term_offset(negative, 65536), 8320);
    }

    #[test]
    fn positions_and_indices() {
        let bits = position_bits_to_shift(65536);
        assert_eq!(bits, 16);
        assert_eq!(compute_position(1001, 4224, bits, 1000), 69_760);
        assert_eq!(compute_term_id_from_position(69_760, bits, 1000), 1001);
        assert_eq!(compute_term_offset_from_position(69_760, bits), 4224);
        assert_eq!(index_by_position(69_760, bits), 1);
        assert_eq!(index_by_term(i32::MAX, i32::MIN.wrapping_add(2)), 0);
        assert_eq!(index_by_term_count(5), 2);
        assert_eq!(compute_term_begin_position(i32::MIN, bits, i32::MAX), 65536);
    }

    #[test]
    fn index_by_position_is_the_euclidean_remainder_for_every_sign() {
        for bits in [16, 30] {
            for term_count in [-4_i64, -3, -2, -1, 0, 1, 2, 3, 4, 1 << 31, -(1 << 31)] {
                let position = term_count << bits;
                assert_eq!(index_by_position(position, bits), index_by_term_count(term_count), "{position}");
                assert_eq!(index_by_position(position + 32, bits), index_by_term_count(term_count));
            }
        }
        assert_eq!(index_by_position(i64::MIN, 16), index_by_term_count(i64::MIN >> 16));
        assert_eq!(index_by_position(i64::MAX, 16), index_by_term_count(i64::MAX >> 16));
    }
}
