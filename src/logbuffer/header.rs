//! `Header`: the data frame header handed to fragment handlers with each payload, plus the
//! stream constants needed to turn it into a position (Aeron `Header` /
//! `aeron_header_values_t`).
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicI32, Ordering};

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::descriptor::compute_position;
use crate::protocol::header::{
    DATA_HEADER_LENGTH, FLAGS_OFFSET, FRAME_ALIGNMENT, RESERVED_VALUE_OFFSET, SESSION_ID_FIELD_OFFSET,
    STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET, VERSION_OFFSET,
};
use crate::util::bits::align;

/// The 32-byte data header as 4-byte words (`Header::load_words`).
pub const HEADER_WORDS: usize = DATA_HEADER_LENGTH / 4;

// `load_words` takes version, flags and type from one little-endian word and the reserved
// value from two.
const _: () = assert!(
    VERSION_OFFSET == 4
        && FLAGS_OFFSET == 5
        && TYPE_OFFSET == 6
        && RESERVED_VALUE_OFFSET % 4 == 0
        && TERM_OFFSET_FIELD_OFFSET % 4 == 0
        && SESSION_ID_FIELD_OFFSET % 4 == 0
        && STREAM_ID_FIELD_OFFSET % 4 == 0
        && TERM_ID_FIELD_OFFSET % 4 == 0
        && cfg!(target_endian = "little")
);

/// A copy of one frame's 32-byte header. Readers refill one `Header` per fragment (a few
/// plain loads from a line already in cache), so handlers get values, not pointers into
/// a term that may be reused after the poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    frame_length: i32,
    version: u8,
    flags: u8,
    frame_type: u16,
    term_offset: i32,
    session_id: i32,
    stream_id: i32,
    term_id: i32,
    reserved_value: i64,
    initial_term_id: i32,
    position_bits_to_shift: u32,
    /// For a reassembled message: the bytes its fragments occupy in the term (0 otherwise).
    fragmented_frame_length: i32,
}

impl Header {
    /// A header for a stream with these constants; fields are filled by [`Header::load`].
    pub fn new(initial_term_id: i32, position_bits_to_shift: u32) -> Self {
        Self { initial_term_id, position_bits_to_shift, ..Self::default() }
    }

    /// Copies the header of the frame at `frame_offset`. The caller has acquired a positive
    /// frame length there (which publishes these bytes) and checked the frame fits.
    #[inline]
    pub fn load(&mut self, term: &AtomicBuffer, frame_offset: usize, frame_length: i32) {
        self.load_words(term.atomic_i32_slice(frame_offset, HEADER_WORDS), frame_length);
    }

    /// As [`load`](Self::load), from the frame's eight header words (the reader's hot path
    /// checks their bounds once and reads the type from them too).
    #[inline]
    pub fn load_words(&mut self, words: &[AtomicI32], frame_length: i32) {
        // Relaxed: published by the frame length the caller acquired.
        let word = |offset: usize| words[offset / 4].load(Ordering::Relaxed);
        let version_flags_type = word(VERSION_OFFSET) as u32;
        self.frame_length = frame_length;
        self.version = version_flags_type as u8;
        self.flags = (version_flags_type >> 8) as u8;
        self.frame_type = (version_flags_type >> 16) as u16;
        self.term_offset = word(TERM_OFFSET_FIELD_OFFSET);
        self.session_id = word(SESSION_ID_FIELD_OFFSET);
        self.stream_id = word(STREAM_ID_FIELD_OFFSET);
        self.term_id = word(TERM_ID_FIELD_OFFSET);
        let reserved_low = word(RESERVED_VALUE_OFFSET) as u32;
        self.reserved_value = (i64::from(word(RESERVED_VALUE_OFFSET + 4)) << 32) | i64::from(reserved_low);
        self.fragmented_frame_length = 0;
    }

    /// Parses a header from bytes (e.g. one received in a datagram). `None` if too short.
    pub fn from_bytes(bytes: &[u8], initial_term_id: i32, position_bits_to_shift: u32) -> Option<Self> {
        if bytes.len() < DATA_HEADER_LENGTH {
            return None;
        }
        let i32_at = |o: usize| i32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let mut reserved = [0u8; 8];
        reserved.copy_from_slice(&bytes[RESERVED_VALUE_OFFSET..RESERVED_VALUE_OFFSET + 8]);
        Some(Self {
            frame_length: i32_at(0),
            version: bytes[VERSION_OFFSET],
            flags: bytes[FLAGS_OFFSET],
            frame_type: u16::from_le_bytes([bytes[TYPE_OFFSET], bytes[TYPE_OFFSET + 1]]),
            term_offset: i32_at(TERM_OFFSET_FIELD_OFFSET),
            session_id: i32_at(SESSION_ID_FIELD_OFFSET),
            stream_id: i32_at(STREAM_ID_FIELD_OFFSET),
            term_id: i32_at(TERM_ID_FIELD_OFFSET),
            reserved_value: i64::from_le_bytes(reserved),
            initial_term_id,
            position_bits_to_shift,
            fragmented_frame_length: 0,
        })
    }

    /// Turns the header of a message's first fragment into the header of the whole
    /// reassembled message: frame length = header + `total_length`, flags OR-ed with the
    /// last fragment's, and the span of all fragments so [`Header::position`] is the
    /// position after the last one (as Aeron's `BufferBuilder.completeHeader`).
    pub fn complete_fragmented(&mut self, total_length: usize, last_flags: u8) {
        let max_payload = (self.frame_length as usize).saturating_sub(DATA_HEADER_LENGTH).max(1);
        let span = crate::logbuffer::descriptor::compute_fragmented_length(total_length, max_payload);
        self.frame_length = (DATA_HEADER_LENGTH + total_length).min(i32::MAX as usize) as i32;
        self.flags |= last_flags;
        self.fragmented_frame_length = span.min(i32::MAX as usize) as i32;
    }

    pub fn frame_length(&self) -> i32 {
        self.frame_length
    }
    pub fn version(&self) -> u8 {
        self.version
    }
    pub fn flags(&self) -> u8 {
        self.flags
    }
    /// Frame type: 1 DATA, 0 PAD.
    pub fn frame_type(&self) -> u16 {
        self.frame_type
    }
    pub fn term_offset(&self) -> i32 {
        self.term_offset
    }
    pub fn session_id(&self) -> i32 {
        self.session_id
    }
    pub fn stream_id(&self) -> i32 {
        self.stream_id
    }
    pub fn term_id(&self) -> i32 {
        self.term_id
    }
    pub fn reserved_value(&self) -> i64 {
        self.reserved_value
    }
    pub fn initial_term_id(&self) -> i32 {
        self.initial_term_id
    }
    pub fn position_bits_to_shift(&self) -> u32 {
        self.position_bits_to_shift
    }
    /// Bytes the fragments of a reassembled message span in the term; 0 for one frame.
    pub fn fragmented_frame_length(&self) -> i32 {
        self.fragmented_frame_length
    }

    /// Term offset of the frame after this one (Aeron `aeron_header_next_term_offset`).
    pub fn next_term_offset(&self) -> i32 {
        let next =
            align(self.term_offset.max(0) as usize + self.frame_length.max(0) as usize, FRAME_ALIGNMENT);
        next.min(i32::MAX as usize) as i32
    }

    /// Position just after this frame (or after the last fragment of a reassembled message).
    pub fn position(&self) -> i64 {
        let span =
            if self.fragmented_frame_length > 0 { self.fragmented_frame_length } else { self.frame_length };
        let next = align(self.term_offset.max(0) as usize + span.max(0) as usize, FRAME_ALIGNMENT);
        compute_position(self.term_id, next as i32, self.position_bits_to_shift, self.initial_term_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::header::UNFRAGMENTED;

    fn frame(term: &AtomicBuffer, offset: usize, length: i32, flags: u8, term_id: i32) {
        term.put_u8(offset + FLAGS_OFFSET, flags);
        term.put_u16(offset + TYPE_OFFSET, 1);
        term.put_i32(offset + TERM_OFFSET_FIELD_OFFSET, offset as i32);
        term.put_i32(offset + SESSION_ID_FIELD_OFFSET, -7);
        term.put_i32(offset + STREAM_ID_FIELD_OFFSET, 1001);
        term.put_i32(offset + TERM_ID_FIELD_OFFSET, term_id);
        term.put_i64(offset + RESERVED_VALUE_OFFSET, 0x0123_4567_89AB_CDEF);
        term.put_i32_release(offset, length);
    }

    #[test]
    fn load_copies_every_field_and_computes_position() {
        let term = AtomicBuffer::alloc(4096);
        frame(&term, 992, 56, UNFRAGMENTED, 1001);
        let mut header = Header::new(1000, 16);
        header.load(&term, 992, 56);
        assert_eq!(header.frame_length(), 56);
        assert_eq!(header.version(), 0);
        assert_eq!(header.flags(), 0xC0);
        assert_eq!(header.frame_type(), 1);
        assert_eq!(header.term_offset(), 992);
        assert_eq!(header.session_id(), -7);
        assert_eq!(header.stream_id(), 1001);
        assert_eq!(header.term_id(), 1001);
        assert_eq!(header.reserved_value(), 0x0123_4567_89AB_CDEF);
        assert_eq!(header.position(), 65536 + 1056);
        assert_eq!(header.next_term_offset(), 1056);
        let mut bytes = [0u8; 32];
        term.load_bytes(992, &mut bytes);
        assert_eq!(Header::from_bytes(&bytes, 1000, 16), Some(header));
        assert_eq!(Header::from_bytes(&bytes[..31], 1000, 16), None);
    }

    #[test]
    fn completed_fragmented_header_spans_all_fragments() {
        let term = AtomicBuffer::alloc(8192);
        frame(&term, 1056, 1408, 0x80, 7);
        let mut header = Header::new(7, 16);
        header.load(&term, 1056, 1408);
        header.complete_fragmented(4000, 0x40);
        assert_eq!(header.frame_length(), 4032);
        assert_eq!(header.flags(), 0xC0);
        assert_eq!(header.fragmented_frame_length(), 4096);
        assert_eq!(header.position(), 5152);
    }
}
