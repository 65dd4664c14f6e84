//! `HeaderWriter`: stamps the data header of a frame a publisher has claimed
//! (`spec/log-buffer.md` §6.2 step 4).
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicI32, Ordering};

use crate::concurrent::AtomicBuffer;
use crate::protocol::header::{
    CURRENT_VERSION, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_DATA, RESERVED_VALUE_OFFSET,
    SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET,
    TYPE_OFFSET, UNFRAGMENTED, VERSION_OFFSET,
};

/// The constant part of a publication's frames: its session and stream ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderWriter {
    session_id: i32,
    stream_id: i32,
}

impl HeaderWriter {
    pub fn new(session_id: i32, stream_id: i32) -> Self {
        Self { session_id, stream_id }
    }

    pub fn session_id(&self) -> i32 {
        self.session_id
    }

    pub fn stream_id(&self) -> i32 {
        self.stream_id
    }

    /// Claims the frame at `frame_offset` by storing `-frame_length`, then writes version 0,
    /// flags BEGIN|END, type DATA and the ids. The reserved value is left untouched. The frame
    /// stays invisible to readers (length ≤ 0) until the caller stores the positive length.
    #[inline]
    pub fn write(&self, term: &AtomicBuffer, frame_offset: usize, frame_length: i32, term_id: i32) {
        // The first 24 bytes as six words, bounds- and alignment-checked once: the hot path
        // of every append.
        let words = term.atomic_i32_slice(frame_offset, HEADER_WORDS);
        self.store(words, frame_offset, frame_length, term_id);
    }

    /// [`write`](Self::write) into a frame's header words that the caller already holds
    /// (from a [`ClaimedFrame`](crate::concurrent::byte_range::ClaimedFrame), which checked
    /// them once): no check here.
    #[inline(always)]
    pub fn write_words(
        &self,
        words: &[AtomicI32; HEADER_WORDS],
        frame_offset: usize,
        frame_length: i32,
        term_id: i32,
    ) {
        self.store(words, frame_offset, frame_length, term_id);
    }

    #[inline(always)]
    fn store(&self, words: &[AtomicI32], frame_offset: usize, frame_length: i32, term_id: i32) {
        // Release: a claimed (negative) length is what the unblocker keys on; it is ordered
        // after anything this thread wrote before. Readers never read the other header words
        // until they acquire the positive length stored after them, so those are relaxed.
        words[FRAME_LENGTH_OFFSET / 4].store(-frame_length, Ordering::Release);
        // version (byte 4) | flags (byte 5) | type (bytes 6-7) as one little-endian word.
        let version_flags_type =
            i32::from(CURRENT_VERSION) | (i32::from(UNFRAGMENTED) << 8) | (i32::from(HDR_TYPE_DATA) << 16);
        words[VERSION_OFFSET / 4].store(version_flags_type, Ordering::Relaxed);
        words[TERM_OFFSET_FIELD_OFFSET / 4].store(frame_offset as i32, Ordering::Relaxed);
        words[SESSION_ID_FIELD_OFFSET / 4].store(self.session_id, Ordering::Relaxed);
        words[STREAM_ID_FIELD_OFFSET / 4].store(self.stream_id, Ordering::Relaxed);
        words[TERM_ID_FIELD_OFFSET / 4].store(term_id, Ordering::Relaxed);
    }
}

/// Words of the header `write` stores: everything before the reserved value.
pub const HEADER_WORDS: usize = RESERVED_VALUE_OFFSET / 4;

// `write` addresses the fields as 4-byte words; the version, flags and type share one, and
// the word layout assumes a little-endian host (as the wire format is little-endian).
const _: () = assert!(
    FRAME_LENGTH_OFFSET == 0
        && VERSION_OFFSET == 4
        && FLAGS_OFFSET == 5
        && TYPE_OFFSET == 6
        && TERM_OFFSET_FIELD_OFFSET % 4 == 0
        && SESSION_ID_FIELD_OFFSET % 4 == 0
        && STREAM_ID_FIELD_OFFSET % 4 == 0
        && TERM_ID_FIELD_OFFSET % 4 == 0
        && RESERVED_VALUE_OFFSET == 24
        && cfg!(target_endian = "little")
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_claimed_header_bytes() {
        let term = AtomicBuffer::alloc(128);
        HeaderWriter::new(-1_964_816_251, 1001).write(&term, 32, 33, 1000);
        let mut bytes = [0u8; 32];
        term.load_bytes(32, &mut bytes);
        let mut expected = Vec::new();
        expected.extend_from_slice(&(-33i32).to_le_bytes());
        expected.extend_from_slice(&[0, 0xC0, 1, 0]);
        expected.extend_from_slice(&32i32.to_le_bytes());
        expected.extend_from_slice(&[0x85, 0x48, 0xe3, 0x8a, 0xe9, 3, 0, 0, 0xe8, 3, 0, 0]);
        expected.extend_from_slice(&[0; 8]);
        assert_eq!(bytes.to_vec(), expected);
    }

    #[test]
    fn write_words_writes_the_same_bytes_as_write() {
        let (general, fast) = (AtomicBuffer::alloc(128), AtomicBuffer::alloc(128));
        let writer = HeaderWriter::new(-1_964_816_251, 1001);
        writer.write(&general, 32, 33, 1000);
        let words = fast.try_atomic_i32_array::<HEADER_WORDS>(32).expect("in bounds");
        writer.write_words(words, 32, 33, 1000);
        assert_eq!(words[0].load(Ordering::Relaxed), -33);
        let (mut expected, mut actual) = ([0u8; 128], [0u8; 128]);
        general.load_bytes(0, &mut expected);
        fast.load_bytes(0, &mut actual);
        assert_eq!(actual, expected);
    }
}
