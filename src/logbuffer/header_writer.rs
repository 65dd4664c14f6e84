//! `HeaderWriter`: stamps the data header of a frame a publisher has claimed
//! (`spec/log-buffer.md` §6.2 step 4).
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::frame_descriptor::frame_length_ordered;
use crate::protocol::header::{
    CURRENT_VERSION, HDR_TYPE_DATA, SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET,
    TERM_OFFSET_FIELD_OFFSET, UNFRAGMENTED, VERSION_OFFSET,
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
        // Release: a claimed (negative) length is what the unblocker keys on; it is ordered
        // after anything this thread wrote before. Readers never read the other header words
        // until they acquire the positive length stored after them.
        frame_length_ordered(term, frame_offset, -frame_length);
        // version (byte 4) | flags (byte 5) | type (bytes 6-7) as one word; nobody reads
        // these bytes concurrently with this write (see above), so one store is enough.
        let version_flags_type =
            i32::from(CURRENT_VERSION) | (i32::from(UNFRAGMENTED) << 8) | (i32::from(HDR_TYPE_DATA) << 16);
        term.put_i32(frame_offset + VERSION_OFFSET, version_flags_type);
        // Term offset | session id, and stream id | term id, as two little-endian words (as
        // Java's HeaderWriter): fewer stores on the hot path. Readers load these fields only
        // after acquiring the positive frame length, so the store width is theirs to choose.
        term.put_i64(frame_offset + TERM_OFFSET_FIELD_OFFSET, pack(frame_offset as i32, self.session_id));
        term.put_i64(frame_offset + STREAM_ID_FIELD_OFFSET, pack(self.stream_id, term_id));
    }
}

// `pack` writes each pair of fields as one word: they must be adjacent, low field first.
const _: () = assert!(
    SESSION_ID_FIELD_OFFSET == TERM_OFFSET_FIELD_OFFSET + 4
        && TERM_ID_FIELD_OFFSET == STREAM_ID_FIELD_OFFSET + 4
);

/// Two int32 fields as the little-endian int64 they form in memory (`low` first).
#[inline]
fn pack(low: i32, high: i32) -> i64 {
    (i64::from(high) << 32) | i64::from(low as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_claimed_header_bytes() {
        let term = AtomicBuffer::alloc(128);
        HeaderWriter::new(-1_964_816_251, 1001).write(&term, 32, 33, 1000);
        let mut bytes = [0u8; 32];
        term.get_bytes(32, &mut bytes);
        let mut expected = Vec::new();
        expected.extend_from_slice(&(-33i32).to_le_bytes());
        expected.extend_from_slice(&[0, 0xC0, 1, 0]);
        expected.extend_from_slice(&32i32.to_le_bytes());
        expected.extend_from_slice(&[0x85, 0x48, 0xe3, 0x8a, 0xe9, 3, 0, 0, 0xe8, 3, 0, 0]);
        expected.extend_from_slice(&[0; 8]);
        assert_eq!(bytes.to_vec(), expected);
    }
}
