//! `TermGapScanner`: finds the first gap (missing frames) in a term being rebuilt from
//! received datagrams, for loss detection and NAKs (Aeron `scan_for_gap`).
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::frame_descriptor::{aligned_frame_length, frame_fits, frame_length_volatile};
use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT};

/// Scans from `term_offset` over complete frames up to `limit_offset` (the high-water mark
/// within this term). If a gap is found before the limit, calls
/// `on_gap(term_id, gap_offset, gap_length)` once, with the gap running to the next received
/// frame (or the limit). Returns the offset where the contiguous data ends; an unaligned
/// `term_offset` is returned as it is, with no gap reported.
pub fn scan_for_gap<F>(
    term: &AtomicBuffer,
    term_id: i32,
    term_offset: usize,
    limit_offset: usize,
    mut on_gap: F,
) -> usize
where
    F: FnMut(i32, usize, usize),
{
    if term_offset % FRAME_ALIGNMENT != 0 {
        // No frame starts off a 32-byte boundary, and an unaligned length load would panic;
        // the offset derives from a peer's SETUP frame, so refuse it quietly.
        return term_offset;
    }
    let limit_offset = limit_offset.min(term.capacity());
    let mut offset = term_offset;
    while offset < limit_offset {
        let frame_length = frame_length_volatile(term, offset);
        if !frame_fits(term, offset, frame_length) {
            break;
        }
        offset += aligned_frame_length(frame_length as usize);
    }
    let gap_begin = offset;
    if offset < limit_offset {
        // Walk 32-byte slots until one holds a frame start; the gap ends there.
        let last_slot = limit_offset.saturating_sub(DATA_HEADER_LENGTH);
        let mut end = limit_offset;
        let mut slot = offset + FRAME_ALIGNMENT;
        while slot <= last_slot {
            if frame_length_volatile(term, slot) != 0 {
                end = slot;
                break;
            }
            slot += FRAME_ALIGNMENT;
        }
        on_gap(term_id, gap_begin, end - gap_begin);
    }
    gap_begin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_gap_to_next_frame_or_limit() {
        let term = AtomicBuffer::alloc(65536);
        term.put_i32_release(0, 1032);
        term.put_i32_release(2112, 1032);
        let mut gaps = Vec::new();
        assert_eq!(scan_for_gap(&term, 7, 0, 3168, |t, o, l| gaps.push((t, o, l))), 1056);
        assert_eq!(gaps, vec![(7, 1056, 1056)]);
        gaps.clear();
        assert_eq!(scan_for_gap(&term, 7, 2112, 8192, |t, o, l| gaps.push((t, o, l))), 3168);
        assert_eq!(gaps, vec![(7, 3168, 8192 - 3168)]);
        gaps.clear();
        assert_eq!(scan_for_gap(&term, 7, 0, 1056, |t, o, l| gaps.push((t, o, l))), 1056);
        assert!(gaps.is_empty());
    }

    #[test]
    fn unaligned_start_is_returned_without_panicking() {
        let term = AtomicBuffer::alloc(65536);
        term.put_i32_release(0, 1032);
        let mut gaps = 0;
        for offset in [1, 7, 33, 65535] {
            assert_eq!(scan_for_gap(&term, 7, offset, 65536, |_, _, _| gaps += 1), offset);
        }
        assert_eq!(gaps, 0);
    }
}
