//! Accessors over a log's metadata section (`spec/log-buffer.md` §3-4): the fields the
//! driver writes once, the ones it changes while clients read them, the partition tails,
//! the active term count with log rotation, and the default frame header. Each takes the
//! 4096-byte metadata [`AtomicBuffer`] view (`LogBuffers::metadata`). Re-exported by
//! [`descriptor`](super::descriptor), whose offsets and position math they use.
#![forbid(unsafe_code)]

// Glob: the accessors below use nearly every offset and the position math it declares.
use super::descriptor::*;
use crate::concurrent::AtomicBuffer;
use crate::protocol::header::{
    BEGIN_FLAG, CURRENT_VERSION, DATA_HEADER_LENGTH, END_FLAG, FLAGS_OFFSET, FRAME_ALIGNMENT, HDR_TYPE_DATA,
    SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TYPE_OFFSET, VERSION_OFFSET,
};
use crate::util::error::{Error, Result};

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

/// Relaxed: for the single writer re-reading its own tail, and for monitoring snapshots
/// that need no ordering with the term contents.
#[inline]
pub fn raw_tail(metadata: &AtomicBuffer, partition_index: usize) -> i64 {
    metadata.get_i64(tail_counter_offset(partition_index))
}

/// Release store of a tail (exclusive publications own their tail and publish it).
#[inline]
pub fn set_raw_tail_ordered(metadata: &AtomicBuffer, partition_index: usize, raw_tail: i64) {
    metadata.put_i64_release(tail_counter_offset(partition_index), raw_tail)
}

/// SeqCst CAS (Aeron's full-barrier CAS): racing rotators and publishers agree on one
/// winner, and the new tail is ordered before the term count advanced after it.
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

/// SeqCst CAS: the rotation's tail update is visible to whoever sees the new count.
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
    // Relaxed: published by the release of the active term count below.
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
    // Relaxed: published by the release of the term count below.
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
    metadata.store_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, header);
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
    metadata.store_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, &header);
}

/// The stored 32-byte template.
pub fn default_frame_header(metadata: &AtomicBuffer) -> [u8; DATA_HEADER_LENGTH] {
    let mut header = [0u8; DATA_HEADER_LENGTH];
    metadata.load_bytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, &mut header);
    header
}

#[cfg(test)]
mod tests {
    use super::*;

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
