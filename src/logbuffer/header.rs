//! `Header`: the data frame header handed to fragment handlers with each payload, plus the
//! stream constants needed to turn it into a position (Aeron `Header` /
//! `aeron_header_values_t`).
#![forbid(unsafe_code)]

use std::sync::atomic::Ordering;

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::descriptor::compute_position;
use crate::protocol::header::{
    DATA_HEADER_LENGTH, FLAGS_OFFSET, FRAME_ALIGNMENT, FRAME_LENGTH_OFFSET, RESERVED_VALUE_OFFSET,
    SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET,
    TYPE_OFFSET, VERSION_OFFSET,
};
use crate::util::bits::align;

/// The 32-byte data header as 4-byte words (`Header::load`).
pub const HEADER_WORDS: usize = DATA_HEADER_LENGTH / 4;

// A header keeps the frame's bytes as the log holds them; `load` rebuilds them from the
// words it reads, which gives the same bytes on a little-endian machine (the log's order).
const _: () = assert!(cfg!(target_endian = "little"));

/// A copy of one frame's 32-byte header. Readers refill one `Header` per fragment (one
/// 32-byte copy from a line already in cache), so handlers get values, not pointers into
/// a term that may be reused after the poll. The bytes are kept as they are in the log and
/// each field is decoded when asked for: the copy is then two vector moves, not a load and
/// a store per field.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// The data header as in the log: little-endian fields at the protocol offsets.
    frame: [u8; DATA_HEADER_LENGTH],
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
        let words = term.atomic_i32_slice(frame_offset, HEADER_WORDS);
        for (bytes, word) in self.frame.chunks_exact_mut(4).zip(words) {
            // Relaxed: published by the frame length the caller acquired.
            bytes.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
        }
        self.set_frame_length(frame_length);
        self.fragmented_frame_length = 0;
    }

    /// As [`load`](Self::load), from the header bytes of a frame the caller acquired (the
    /// first 32 bytes of its published range): the reader's hot path.
    #[inline(always)]
    pub fn load_frame(&mut self, header: &[u8; DATA_HEADER_LENGTH], frame_length: i32) {
        self.frame = *header;
        self.set_frame_length(frame_length);
        self.fragmented_frame_length = 0;
    }

    /// Parses a header from bytes (e.g. one received in a datagram). `None` if too short.
    pub fn from_bytes(bytes: &[u8], initial_term_id: i32, position_bits_to_shift: u32) -> Option<Self> {
        let frame = *bytes.first_chunk::<DATA_HEADER_LENGTH>()?;
        Some(Self { frame, initial_term_id, position_bits_to_shift, fragmented_frame_length: 0 })
    }

    #[inline(always)]
    fn bytes<const N: usize>(&self, offset: usize) -> [u8; N] {
        let mut bytes = [0; N];
        bytes.copy_from_slice(&self.frame[offset..offset + N]);
        bytes
    }

    #[inline(always)]
    fn i32_at(&self, offset: usize) -> i32 {
        i32::from_le_bytes(self.bytes(offset))
    }

    #[inline(always)]
    fn set_frame_length(&mut self, frame_length: i32) {
        self.frame[FRAME_LENGTH_OFFSET..FRAME_LENGTH_OFFSET + 4].copy_from_slice(&frame_length.to_le_bytes());
    }

    /// Turns the header of a message's first fragment into the header of the whole
    /// reassembled message: frame length = header + `total_length`, flags OR-ed with the
    /// last fragment's, and the span of all fragments so [`Header::position`] is the
    /// position after the last one (as Aeron's `BufferBuilder.completeHeader`).
    pub fn complete_fragmented(&mut self, total_length: usize, last_flags: u8) {
        let max_payload = (self.frame_length() as usize).saturating_sub(DATA_HEADER_LENGTH).max(1);
        let span = crate::logbuffer::descriptor::compute_fragmented_length(total_length, max_payload);
        self.set_frame_length((DATA_HEADER_LENGTH + total_length).min(i32::MAX as usize) as i32);
        self.frame[FLAGS_OFFSET] |= last_flags;
        self.fragmented_frame_length = span.min(i32::MAX as usize) as i32;
    }

    pub fn frame_length(&self) -> i32 {
        self.i32_at(FRAME_LENGTH_OFFSET)
    }
    pub fn version(&self) -> u8 {
        self.frame[VERSION_OFFSET]
    }
    pub fn flags(&self) -> u8 {
        self.frame[FLAGS_OFFSET]
    }
    /// Frame type: 1 DATA, 0 PAD.
    pub fn frame_type(&self) -> u16 {
        u16::from_le_bytes(self.bytes(TYPE_OFFSET))
    }
    pub fn term_offset(&self) -> i32 {
        self.i32_at(TERM_OFFSET_FIELD_OFFSET)
    }
    pub fn session_id(&self) -> i32 {
        self.i32_at(SESSION_ID_FIELD_OFFSET)
    }
    pub fn stream_id(&self) -> i32 {
        self.i32_at(STREAM_ID_FIELD_OFFSET)
    }
    pub fn term_id(&self) -> i32 {
        self.i32_at(TERM_ID_FIELD_OFFSET)
    }
    pub fn reserved_value(&self) -> i64 {
        i64::from_le_bytes(self.bytes(RESERVED_VALUE_OFFSET))
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
            align(self.term_offset().max(0) as usize + self.frame_length().max(0) as usize, FRAME_ALIGNMENT);
        next.min(i32::MAX as usize) as i32
    }

    /// Position just after this frame (or after the last fragment of a reassembled message).
    pub fn position(&self) -> i64 {
        let span =
            if self.fragmented_frame_length > 0 { self.fragmented_frame_length } else { self.frame_length() };
        let next = align(self.term_offset().max(0) as usize + span.max(0) as usize, FRAME_ALIGNMENT);
        compute_position(self.term_id(), next as i32, self.position_bits_to_shift, self.initial_term_id)
    }
}

// As the derived form of a header with one field per protocol field.
impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Header")
            .field("frame_length", &self.frame_length())
            .field("version", &self.version())
            .field("flags", &self.flags())
            .field("frame_type", &self.frame_type())
            .field("term_offset", &self.term_offset())
            .field("session_id", &self.session_id())
            .field("stream_id", &self.stream_id())
            .field("term_id", &self.term_id())
            .field("reserved_value", &self.reserved_value())
            .field("initial_term_id", &self.initial_term_id)
            .field("position_bits_to_shift", &self.position_bits_to_shift)
            .field("fragmented_frame_length", &self.fragmented_frame_length)
            .finish()
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
