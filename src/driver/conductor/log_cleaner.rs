//! Zeroing consumed log space so it can be written again (`spec/log-buffer.md` §9): from
//! the clean position up to a target, at most to the end of the current term per call; the
//! body first, then the first 8 bytes (frame length) with release, so a reader never sees a
//! zero length in front of stale bytes.
#![forbid(unsafe_code)]

use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;

/// Cleans `[clean_position, position)` (clipped to the end of that term) and returns the
/// new clean position.
pub fn clean_log_to(log_buffers: &LogBuffers, clean_position: i64, position: i64) -> i64 {
    if position <= clean_position {
        return clean_position;
    }
    let term_length = log_buffers.term_length();
    let index = log::index_by_position(clean_position, log::position_bits_to_shift(term_length));
    let term_offset = (clean_position & (term_length as i64 - 1)) as usize;
    let length = ((position - clean_position) as usize).min(term_length - term_offset);
    let term = log_buffers.term(index);
    if length > 8 {
        term.fill_bytes(term_offset + 8, length - 8, 0);
    }
    // Release: ordered after the body was zeroed.
    term.put_i64_release(term_offset, 0);
    clean_position + length as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_up_to_the_target_one_term_at_a_time() {
        let log_buffers = LogBuffers::alloc(65536, 4096).unwrap();
        log_buffers.term(0).fill_bytes(0, 65536, 0xAA);
        log_buffers.term(1).fill_bytes(0, 4096, 0xBB);
        assert_eq!(clean_log_to(&log_buffers, 0, 0), 0);
        assert_eq!(clean_log_to(&log_buffers, 0, 1024), 1024);
        assert!((0..1024).all(|i| log_buffers.term(0).get_u8(i) == 0));
        assert_eq!(log_buffers.term(0).get_u8(1024), 0xAA);
        assert_eq!(clean_log_to(&log_buffers, 1024, 65536 + 4096), 65536, "stops at the term end");
        assert_eq!(clean_log_to(&log_buffers, 65536, 65536 + 4096), 65536 + 4096);
        assert!((0..4096).all(|i| log_buffers.term(1).get_u8(i) == 0));
    }
}
