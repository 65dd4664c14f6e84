//! `TermScanner`: how many bytes of complete frames the sender can put in one datagram
//! (`spec/wire-protocol.md` §3.2, Aeron `scan_for_availability`).
#![forbid(unsafe_code)]

use crate::concurrent::{AtomicBuffer, PublishedRange};
use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT, HDR_TYPE_PAD, TYPE_OFFSET};

/// Result of a scan from some term offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Availability {
    /// Bytes to send from the scan offset: whole aligned frames, where a PAD frame counts
    /// only its 32-byte header. Negative (minus the frame's aligned length) when the very
    /// first frame alone exceeds the limit, as Aeron's C scanner reports it.
    pub available: i32,
    /// Body bytes of the PAD frame that ended the scan (its aligned length less the header),
    /// which the sender skips without sending; 0 if no padding ended the scan.
    pub padding: i32,
}

/// Scans committed frames from `offset`, up to `max_length` bytes and the end of the term.
/// The scan stops at a frame not yet published, after a PAD frame, or before the frame
/// that would cross the limit. Nothing is available at an offset that is not frame-aligned.
pub fn scan_for_availability(term: &AtomicBuffer, offset: usize, max_length: usize) -> Availability {
    scan_published(term, offset, max_length).0
}

/// [`scan_for_availability`] with the bytes to send: the published run of the `available`
/// bytes from `offset` (`None` when nothing is available).
#[inline]
pub fn scan_published(
    term: &AtomicBuffer,
    offset: usize,
    max_length: usize,
) -> (Availability, Option<PublishedRange<'_>>) {
    if offset % FRAME_ALIGNMENT != 0 {
        // No frame starts here, and the length word could not be loaded atomically.
        return (Availability { available: 0, padding: 0 }, None);
    }
    let capacity = term.capacity();
    let limit = max_length.min(capacity.saturating_sub(offset));
    let mut available = 0usize;
    let mut padding = 0usize;
    let mut run: Option<PublishedRange<'_>> = None;
    while padding == 0 && available < limit {
        let frame_offset = offset + available;
        // The frame with its alignment, which its claim covered (a term's capacity is a
        // multiple of the alignment, so a frame that fits fits aligned).
        let Some(mut frame) = term.acquire_record_aligned(frame_offset, FRAME_ALIGNMENT) else {
            break;
        };
        let mut aligned = frame.len();
        // The type is published with the length: read it from the acquired bytes rather
        // than with a second bounds-checked load from the term.
        let frame_type =
            frame.as_slice().get(TYPE_OFFSET..TYPE_OFFSET + 2).map(|t| u16::from_le_bytes([t[0], t[1]]));
        if frame_type == Some(HDR_TYPE_PAD) {
            padding = aligned.saturating_sub(DATA_HEADER_LENGTH);
            aligned = DATA_HEADER_LENGTH;
            frame = frame.sub_range(0, DATA_HEADER_LENGTH).unwrap_or(frame);
        }
        available += aligned;
        if available > limit {
            let first = available == aligned;
            available -= aligned;
            padding = 0;
            if first {
                return (Availability { available: -(aligned as i32), padding: 0 }, None);
            }
            break;
        }
        // Consecutive frames, so the join cannot fail.
        run = Some(match run {
            Some(before) => before.join(frame).unwrap_or(before),
            None => frame,
        });
    }
    debug_assert_eq!(run.map_or(0, |r| r.len()), available);
    (Availability { available: available as i32, padding: padding as i32 }, run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::header_writer::HeaderWriter;
    use crate::logbuffer::term_appender::write_padding;

    fn frame(term: &AtomicBuffer, offset: usize, length: i32) {
        HeaderWriter::new(1, 2).write(term, offset, length, 0);
        term.put_i32_release(offset, length);
    }

    #[test]
    fn takes_whole_frames_up_to_mtu() {
        let term = AtomicBuffer::alloc(65536);
        frame(&term, 0, 1032);
        frame(&term, 1056, 1032);
        assert_eq!(scan_for_availability(&term, 0, 1408), Availability { available: 1056, padding: 0 });
        assert_eq!(scan_for_availability(&term, 0, 4096), Availability { available: 2112, padding: 0 });
        assert_eq!(scan_for_availability(&term, 0, 1000), Availability { available: -1056, padding: 0 });
        assert_eq!(scan_for_availability(&term, 2112, 1408), Availability { available: 0, padding: 0 });
    }

    #[test]
    fn padding_sends_header_only_and_ends_datagram() {
        // As in udp-session.pcap: F56 (1056 bytes) then the PAD @65344 of 192 → 1088 bytes.
        let term = AtomicBuffer::alloc(65536);
        frame(&term, 64288, 1032);
        write_padding(&term, &HeaderWriter::new(1, 2), 65344, 192, 0);
        assert_eq!(scan_for_availability(&term, 64288, 1408), Availability { available: 1088, padding: 160 });
        assert_eq!(scan_for_availability(&term, 65344, 1408), Availability { available: 32, padding: 160 });
    }

    #[test]
    fn unaligned_offset_has_nothing_available() {
        let term = AtomicBuffer::alloc(65536);
        frame(&term, 0, 1032);
        for offset in [1, 4, 31, 65535] {
            assert_eq!(scan_for_availability(&term, offset, 4096), Availability { available: 0, padding: 0 });
        }
    }
}
