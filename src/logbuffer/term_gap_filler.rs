//! `TermGapFiller`: for unreliable images (`reliable=false`) a detected gap is not NAKed
//! but covered with one padding frame, so subscribers move past the loss
//! (`spec/log-buffer.md` §11, Aeron `aeron_term_gap_filler_try_fill_gap`).
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::frame_descriptor::{frame_length_ordered, frame_length_volatile};
use crate::protocol::header::{
    DATA_HEADER_LENGTH, FRAME_ALIGNMENT, HDR_TYPE_PAD, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET,
    TYPE_OFFSET,
};

/// Writes a PAD frame over `[gap_offset, gap_offset + gap_length)` of `term` if every 32-byte
/// slot of the gap still reads frame length 0 (nothing arrived meanwhile). The header is the
/// log's default frame header with type PAD, the term offset and `term_id`; its length is
/// published last with release. Returns whether the gap was filled. Gaps that are
/// misaligned or do not fit the term are left alone.
pub fn try_fill_gap(
    default_header: &[u8; DATA_HEADER_LENGTH],
    term: &AtomicBuffer,
    term_id: i32,
    gap_offset: usize,
    gap_length: usize,
) -> bool {
    if gap_length < DATA_HEADER_LENGTH
        || gap_offset % FRAME_ALIGNMENT != 0
        || gap_length % FRAME_ALIGNMENT != 0
        || term.check_bounds(gap_offset, gap_length).is_err()
        || i32::try_from(gap_length).is_err()
    {
        return false;
    }
    let mut slot = gap_offset;
    while slot < gap_offset + gap_length {
        if frame_length_volatile(term, slot) != 0 {
            return false;
        }
        slot += FRAME_ALIGNMENT;
    }
    // Length stays 0 (invisible) while the rest of the header is written.
    term.store_bytes(gap_offset + 4, &default_header[4..]);
    term.put_u16(gap_offset + TYPE_OFFSET, HDR_TYPE_PAD);
    term.put_i32(gap_offset + TERM_OFFSET_FIELD_OFFSET, gap_offset as i32);
    term.put_i32(gap_offset + TERM_ID_FIELD_OFFSET, term_id);
    // Release: a reader acquiring the length sees the whole header.
    frame_length_ordered(term, gap_offset, gap_length as i32);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::frame_descriptor::{frame_term_id, frame_term_offset, is_padding_frame};

    fn header() -> [u8; DATA_HEADER_LENGTH] {
        let mut h = [0u8; DATA_HEADER_LENGTH];
        h[5] = 0xC0;
        h[6] = 1;
        h[12..16].copy_from_slice(&77i32.to_le_bytes());
        h[16..20].copy_from_slice(&1001i32.to_le_bytes());
        h
    }

    #[test]
    fn pads_an_empty_gap_once() {
        let term = AtomicBuffer::alloc(65536);
        assert!(try_fill_gap(&header(), &term, 9, 1056, 2112));
        assert_eq!(frame_length_volatile(&term, 1056), 2112);
        assert!(is_padding_frame(&term, 1056));
        assert_eq!((frame_term_offset(&term, 1056), frame_term_id(&term, 1056)), (1056, 9));
        assert_eq!(term.get_i32(1056 + 12), 77, "session id from the default header");
        assert!(!try_fill_gap(&header(), &term, 9, 1056, 2112), "no longer empty");
    }

    #[test]
    fn leaves_gaps_that_filled_or_do_not_fit() {
        let term = AtomicBuffer::alloc(65536);
        term.put_i32_release(1056 + 1024, 40);
        assert!(!try_fill_gap(&header(), &term, 9, 1056, 2112), "a frame arrived inside the gap");
        assert_eq!(frame_length_volatile(&term, 1056), 0);
        assert!(!try_fill_gap(&header(), &term, 9, 65536 - 32, 64));
        assert!(!try_fill_gap(&header(), &term, 9, 16, 64));
        assert!(!try_fill_gap(&header(), &term, 9, 0, 16));
    }
}
