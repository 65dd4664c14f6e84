//! Log buffer descriptor: the layout of a `.logbuffer` file, its metadata fields, the
//! raw-tail packing, position arithmetic and term rotation (`spec/log-buffer.md` §2-4).
//!
//! The metadata section is passed around as the 4096-byte [`AtomicBuffer`] view of it
//! (`LogBuffers::metadata`); every accessor here takes that view, as Aeron's
//! `LogBufferDescriptor` takes its metadata buffer.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::protocol::header::{
    BEGIN_FLAG, CURRENT_VERSION, DATA_HEADER_LENGTH, END_FLAG, FLAGS_OFFSET, FRAME_ALIGNMENT, HDR_TYPE_DATA,
    SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TYPE_OFFSET, VERSION_OFFSET,
};
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
    index_by_term_count(position >> bits)
}

// ---- metadata fields ----

macro_rules! metadata_field {
    ($(#[$doc:meta])* $get:ident, $set:ident, $offset:expr, i32) => {
        $(#[$doc])*
        #[inline]
        pub fn $get(metadata: &AtomicBuffer) -> i32 {
            metadata.get_i32($offset)
        }
        $(#[$doc])*
        #[inline]
        pub fn $set(metadata: &AtomicBuffer, value: i32) {
            metadata.put_i32($offset, value)
        }
    };
    ($(#[$doc:meta])* $get:ident, $set:ident, $offset:expr, i64) => {
        $(#[$doc])*
        #[inline]
        pub fn $get(metadata: &AtomicBuffer) -> i64 {
            metadata.get_i64($offset)
        }
        $(#[$doc])*
        #[inline]
        pub fn $set(metadata: &AtomicBuffer, value: i64) {
            metadata.put_i64($offset, value)
        }
    };
    ($(#[$doc:meta])* $get:ident, $set:ident, $offset:expr, bool) => {
        $(#[$doc])*
        #[inline]
        pub fn $get(metadata: &AtomicBuffer) -> bool {
            metadata.get_u8($offset) != 0
        }
        $(#[$doc])*
        #[inline]
        pub fn $set(metadata: &AtomicBuffer, value: bool) {
            metadata.put_u8($offset, u8::from(value))
        }
    };
}

/// Declares the accessors of many fields at once (one line each, kept out of rustfmt).
macro_rules! metadata_fields {
    ($( $(#[$doc:meta])* ($get:ident, $set:ident, $offset:expr, $ty:tt); )*) => {
        $( metadata_field!($(#[$doc])* $get, $set, $offset, $ty); )*
    };
}

// Fields written once by the driver before the log's path is handed to any client: the
// command/broadcast handoff (release/acquire) publishes them, so plain accesses suffice.
metadata_fields! {
    /// Registration id of the publication or image.
    (correlation_id, set_correlation_id, LOG_CORRELATION_ID_OFFSET, i64);
    (initial_term_id, set_initial_term_id, LOG_INITIAL_TERM_ID_OFFSET, i32);
    (default_frame_header_length, set_default_frame_header_length, LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET, i32);
    (mtu_length, set_mtu_length, LOG_MTU_LENGTH_OFFSET, i32);
    (term_length, set_term_length, LOG_TERM_LENGTH_OFFSET, i32);
    (page_size, set_page_size, LOG_PAGE_SIZE_OFFSET, i32);
    (publication_window_length, set_publication_window_length, LOG_PUBLICATION_WINDOW_LENGTH_OFFSET, i32);
    (receiver_window_length, set_receiver_window_length, LOG_RECEIVER_WINDOW_LENGTH_OFFSET, i32);
    (socket_sndbuf_length, set_socket_sndbuf_length, LOG_SOCKET_SNDBUF_LENGTH_OFFSET, i32);
    (os_default_socket_sndbuf_length, set_os_default_socket_sndbuf_length, LOG_OS_DEFAULT_SOCKET_SNDBUF_LENGTH_OFFSET, i32);
    (os_max_socket_sndbuf_length, set_os_max_socket_sndbuf_length, LOG_OS_MAX_SOCKET_SNDBUF_LENGTH_OFFSET, i32);
    (socket_rcvbuf_length, set_socket_rcvbuf_length, LOG_SOCKET_RCVBUF_LENGTH_OFFSET, i32);
    (os_default_socket_rcvbuf_length, set_os_default_socket_rcvbuf_length, LOG_OS_DEFAULT_SOCKET_RCVBUF_LENGTH_OFFSET, i32);
    (os_max_socket_rcvbuf_length, set_os_max_socket_rcvbuf_length, LOG_OS_MAX_SOCKET_RCVBUF_LENGTH_OFFSET, i32);
    (max_resend, set_max_resend, LOG_MAX_RESEND_OFFSET, i32);
    (entity_tag, set_entity_tag, LOG_ENTITY_TAG_OFFSET, i64);
    (response_correlation_id, set_response_correlation_id, LOG_RESPONSE_CORRELATION_ID_OFFSET, i64);
    (linger_timeout_ns, set_linger_timeout_ns, LOG_LINGER_TIMEOUT_NS_OFFSET, i64);
    (untethered_window_limit_timeout_ns, set_untethered_window_limit_timeout_ns, LOG_UNTETHERED_WINDOW_LIMIT_TIMEOUT_NS_OFFSET, i64);
    (untethered_resting_timeout_ns, set_untethered_resting_timeout_ns, LOG_UNTETHERED_RESTING_TIMEOUT_NS_OFFSET, i64);
    (group, set_group, LOG_GROUP_OFFSET, bool);
    (is_response, set_is_response, LOG_IS_RESPONSE_OFFSET, bool);
    (rejoin, set_rejoin, LOG_REJOIN_OFFSET, bool);
    (reliable, set_reliable, LOG_RELIABLE_OFFSET, bool);
    (sparse, set_sparse, LOG_SPARSE_OFFSET, bool);
    (signal_eos, set_signal_eos, LOG_SIGNAL_EOS_OFFSET, bool);
    (spies_simulate_connection, set_spies_simulate_connection, LOG_SPIES_SIMULATE_CONNECTION_OFFSET, bool);
    (tether, set_tether, LOG_TETHER_OFFSET, bool);
}

// Fields the driver changes while clients read them: release stores / acquire loads so a
// reader that sees the new value also sees what the driver did before (e.g. the final data).

/// Position at which the stream ended (`i64::MAX` while it goes on).
#[inline]
pub fn end_of_stream_position(metadata: &AtomicBuffer) -> i64 {
    metadata.get_i64_acquire(LOG_END_OF_STREAM_POSITION_OFFSET)
}

#[inline]
pub fn set_end_of_stream_position(metadata: &AtomicBuffer, position: i64) {
    metadata.put_i64_release(LOG_END_OF_STREAM_POSITION_OFFSET, position)
}

#[inline]
pub fn is_connected(metadata: &AtomicBuffer) -> bool {
    metadata.get_i32_acquire(LOG_IS_CONNECTED_OFFSET) == 1
}

#[inline]
pub fn set_is_connected(metadata: &AtomicBuffer, connected: bool) {
    metadata.put_i32_release(LOG_IS_CONNECTED_OFFSET, i32::from(connected))
}

/// Live sender connections of an image.
#[inline]
pub fn active_transport_count(metadata: &AtomicBuffer) -> i32 {
    metadata.get_i32_acquire(LOG_ACTIVE_TRANSPORT_COUNT_OFFSET)
}

#[inline]
pub fn set_active_transport_count(metadata: &AtomicBuffer, count: i32) {
    metadata.put_i32_release(LOG_ACTIVE_TRANSPORT_COUNT_OFFSET, count)
}

// ---- tails and the active term ----

#[inline]
pub const fn tail_counter_offset(partition_index: usize) -> usize {
    TERM_TAIL_COUNTERS_OFFSET + partition_index * 8
}

/// Acquire: a publisher that sees a tail also sees the rotation that installed it.
#[inline]
pub fn raw_tail_volatile(metadata: &AtomicBuffer, partition_index: usize) -> i64 {
    metadata.get_i64_acquire(tail_counter_offset(partition_index))
}

#[inline]
pub fn raw_tail(metadata: &AtomicBuffer, partition_index: usize) -> i64 {
    metadata.get_i64(tail_counter_offset(partition_index))
}

/// Release store of a tail (exclusive publications own their tail and publish it).
#[inline]
pub fn set_raw_tail_ordered(metadata: &AtomicBuffer, partition_index: usize, raw_tail: i64) {
    metadata.put_i64_release(tail_counter_offset(partition_index), raw_tail)
}

#[inline]
pub fn cas_raw_tail(metadata: &AtomicBuffer, partition_index: usize, expected: i64, update: i64) -> bool {
    metadata.compare_and_set_i64(tail_counter_offset(partition_index), expected, update)
}

/// Acquire: pairs with the release/CAS that rotated the log, so the new tail is visible.
#[inline]
pub fn active_term_count(metadata: &AtomicBuffer) -> i32 {
    metadata.get_i32_acquire(LOG_ACTIVE_TERM_COUNT_OFFSET)
}

#[inline]
pub fn set_active_term_count_ordered(metadata: &AtomicBuffer, term_count: i32) {
    metadata.put_i32_release(LOG_ACTIVE_TERM_COUNT_OFFSET, term_count)
}

#[inline]
pub fn cas_active_term_count(metadata: &AtomicBuffer, expected: i32, update: i32) -> bool {
    metadata.compare_and_set_i32(LOG_ACTIVE_TERM_COUNT_OFFSET, expected, update)
}

/// Sets a partition's tail to the start of `term_id`.
#[inline]
pub fn initialise_tail_with_term_id(metadata: &AtomicBuffer, partition_index: usize, term_id: i32) {
    metadata.put_i64_release(tail_counter_offset(partition_index), pack_tail(term_id, 0))
}

/// Driver initialisation of the tails and the active term count (§4.2): the active
/// partition gets `term_id`/`term_offset`, the other two the ids rotation expects to find
/// there (`term_id + k - 3`). Pass `term_id = initial_term_id, term_offset = 0` for a
/// stream starting at position 0.
pub fn initialise_tails(
    metadata: &AtomicBuffer,
    initial_term_id: i32,
    term_id: i32,
    term_offset: i32,
) -> Result<()> {
    let term_count = compute_term_count(term_id, initial_term_id);
    if term_count < 0 {
        return Err(Error::invalid_argument(format!(
            "term id {term_id} is before initial term id {initial_term_id}"
        )));
    }
    if term_offset < 0 || term_offset as usize % FRAME_ALIGNMENT != 0 {
        return Err(Error::invalid_argument(format!("term offset {term_offset} not a multiple of 32")));
    }
    let active = index_by_term_count(term_count as i64);
    metadata.put_i64(tail_counter_offset(active), pack_tail(term_id, term_offset));
    for k in 1..PARTITION_COUNT {
        let expected_id = term_id.wrapping_add(k as i32).wrapping_sub(PARTITION_COUNT as i32);
        metadata.put_i64(tail_counter_offset((active + k) % PARTITION_COUNT), pack_tail(expected_id, 0));
    }
    // Release: the tails are visible to whoever acquires the active term count.
    set_active_term_count_ordered(metadata, term_count);
    Ok(())
}

/// Moves the log from term `current_term_id` (number `current_term_count`) to the next one
/// (§4.5). Safe for many concurrent callers: the next partition's tail is only replaced while
/// it still carries the id from its previous use, and the term count only advances from the
/// expected value. Returns whether this call advanced the active term count.
pub fn rotate_log(metadata: &AtomicBuffer, current_term_count: i32, current_term_id: i32) -> bool {
    let next_term_id = current_term_id.wrapping_add(1);
    let next_term_count = current_term_count.wrapping_add(1);
    let next_index = index_by_term_count(next_term_count as i64);
    let expected_term_id = next_term_id.wrapping_sub(PARTITION_COUNT as i32);
    loop {
        let raw = raw_tail_volatile(metadata, next_index);
        if term_id(raw) != expected_term_id {
            break;
        }
        if cas_raw_tail(metadata, next_index, raw, pack_tail(next_term_id, 0)) {
            break;
        }
    }
    cas_active_term_count(metadata, current_term_count, next_term_count)
}

/// Rotation by the single writer of an exclusive publication: no CAS needed.
pub fn rotate_log_exclusive(metadata: &AtomicBuffer, current_term_count: i32, current_term_id: i32) {
    let next_term_count = current_term_count.wrapping_add(1);
    let next_index = index_by_term_count(next_term_count as i64);
    metadata.put_i64(tail_counter_offset(next_index), pack_tail(current_term_id.wrapping_add(1), 0));
    // Release: publishers and the driver acquiring the count see the new tail.
    set_active_term_count_ordered(metadata, next_term_count);
}

// ---- default frame header ----

/// Stores a 32-byte DATA header template (`spec/log-buffer.md` §3.1) and its length.
pub fn store_default_frame_header(metadata: &AtomicBuffer, header: &[u8]) -> Result<()> {
    if header.len() != DATA_HEADER_LENGTH {
        return Err(Error::invalid_argument(format!(
            "default frame header length must be {DATA_HEADER_LENGTH}: length={}",
            header.len()
        )));
    }
    set_default_frame_header_length(metadata, DATA_HEADER_LENGTH as i32);
    metadata.put_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, header);
    Ok(())
}

/// Writes the template the driver uses: DATA, BEGIN|END, the stream's ids.
pub fn fill_default_frame_header(
    metadata: &AtomicBuffer,
    session_id: i32,
    stream_id: i32,
    initial_term_id: i32,
) {
    let mut header = [0u8; DATA_HEADER_LENGTH];
    header[VERSION_OFFSET] = CURRENT_VERSION;
    header[FLAGS_OFFSET] = BEGIN_FLAG | END_FLAG;
    header[TYPE_OFFSET..TYPE_OFFSET + 2].copy_from_slice(&HDR_TYPE_DATA.to_le_bytes());
    header[SESSION_ID_FIELD_OFFSET..SESSION_ID_FIELD_OFFSET + 4].copy_from_slice(&session_id.to_le_bytes());
    header[STREAM_ID_FIELD_OFFSET..STREAM_ID_FIELD_OFFSET + 4].copy_from_slice(&stream_id.to_le_bytes());
    header[TERM_ID_FIELD_OFFSET..TERM_ID_FIELD_OFFSET + 4].copy_from_slice(&initial_term_id.to_le_bytes());
    set_default_frame_header_length(metadata, DATA_HEADER_LENGTH as i32);
    metadata.put_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, &header);
}

/// The stored 32-byte template.
pub fn default_frame_header(metadata: &AtomicBuffer) -> [u8; DATA_HEADER_LENGTH] {
    let mut header = [0u8; DATA_HEADER_LENGTH];
    metadata.get_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, &mut header);
    header
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
    fn initialise_tails_default_and_at_position() {
        let meta = AtomicBuffer::alloc(LOG_META_DATA_LENGTH);
        initialise_tails(&meta, -98_818_424, -98_818_424, 0).unwrap();
        assert_eq!(raw_tail(&meta, 0) as u64, 0xFA1C_2688_0000_0000);
        assert_eq!(raw_tail(&meta, 1) as u64, 0xFA1C_2686_0000_0000);
        assert_eq!(raw_tail(&meta, 2) as u64, 0xFA1C_2687_0000_0000);
        assert_eq!(active_term_count(&meta), 0);

        initialise_tails(&meta, 1000, 1004, 4096).unwrap();
        assert_eq!(active_term_count(&meta), 4);
        assert_eq!(raw_tail(&meta, 1), pack_tail(1004, 4096));
        assert_eq!(raw_tail(&meta, 2), pack_tail(1002, 0));
        assert_eq!(raw_tail(&meta, 0), pack_tail(1003, 0));
        assert!(initialise_tails(&meta, 1000, 999, 0).is_err());
        assert!(initialise_tails(&meta, 1000, 1000, 33).is_err());
    }

    #[test]
    fn rotate_log_advances_once() {
        let meta = AtomicBuffer::alloc(LOG_META_DATA_LENGTH);
        initialise_tails(&meta, 1000, 1000, 0).unwrap();
        assert!(rotate_log(&meta, 0, 1000));
        assert_eq!(active_term_count(&meta), 1);
        assert_eq!(raw_tail(&meta, 1), pack_tail(1001, 0));
        // A second caller with the same stale view changes nothing.
        assert!(!rotate_log(&meta, 0, 1000));
        assert_eq!(raw_tail(&meta, 1), pack_tail(1001, 0));
        assert!(rotate_log(&meta, 1, 1001));
        assert!(rotate_log(&meta, 2, 1002));
        assert_eq!(raw_tail(&meta, 0), pack_tail(1003, 0));
        assert_eq!(active_term_count(&meta), 3);
        rotate_log_exclusive(&meta, 3, 1003);
        assert_eq!(raw_tail(&meta, 1), pack_tail(1004, 0));
        assert_eq!(active_term_count(&meta), 4);
    }

    #[test]
    fn default_header_bytes_match_vector() {
        let meta = AtomicBuffer::alloc(LOG_META_DATA_LENGTH);
        fill_default_frame_header(&meta, -1_964_816_251, 1001, 1000);
        let expected: Vec<u8> = [
            &[0, 0, 0, 0, 0, 0xc0, 1, 0, 0, 0, 0, 0][..],
            &[0x85, 0x48, 0xe3, 0x8a, 0xe9, 3, 0, 0, 0xe8, 3, 0, 0],
            &[0; 8],
        ]
        .concat();
        assert_eq!(default_frame_header(&meta).to_vec(), expected);
        assert_eq!(default_frame_header_length(&meta), 32);
        assert!(store_default_frame_header(&meta, &[0; 31]).is_err());
        store_default_frame_header(&meta, &expected).unwrap();
        assert_eq!(meta.get_i32(LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET), 32);
    }

    #[test]
    fn field_accessors_hit_spec_offsets() {
        let meta = AtomicBuffer::alloc(LOG_META_DATA_LENGTH);
        set_end_of_stream_position(&meta, i64::MAX);
        set_is_connected(&meta, true);
        set_active_transport_count(&meta, 2);
        set_correlation_id(&meta, 3);
        set_mtu_length(&meta, 1408);
        set_tether(&meta, true);
        set_signal_eos(&meta, true);
        set_untethered_resting_timeout_ns(&meta, 7);
        assert_eq!(meta.get_i64(128), i64::MAX);
        assert_eq!(meta.get_i32(136), 1);
        assert_eq!(meta.get_i32(140), 2);
        assert_eq!(meta.get_i64(256), 3);
        assert_eq!(meta.get_i32(272), 1408);
        assert_eq!(meta.get_u8(495), 1);
        assert_eq!(meta.get_u8(493), 1);
        assert_eq!(meta.get_i64(480), 7);
        assert!(is_connected(&meta) && tether(&meta) && !sparse(&meta));
    }
}
