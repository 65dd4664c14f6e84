//! `TermRebuilder`: writes a received DATA/PAD datagram into an image term at its term
//! offset (`spec/log-buffer.md` §11), publishing the first frame's length last.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::frame_descriptor::{frame_length_ordered, frame_length_volatile};
use crate::protocol::header::{
    DATA_HEADER_LENGTH, FRAME_ALIGNMENT, RESERVED_VALUE_OFFSET, SESSION_ID_FIELD_OFFSET,
    TERM_OFFSET_FIELD_OFFSET, VERSION_OFFSET,
};
use crate::util::error::{Error, Result};

/// Inserts `packet` (one or more consecutive frames as received) at `term_offset`. Nothing is
/// written if a frame is already there (a duplicate or retransmission); returns whether it
/// was written. Errors if the packet is shorter than a header, misaligned, or does not fit.
pub fn insert(term: &AtomicBuffer, term_offset: usize, packet: &[u8]) -> Result<bool> {
    let length = packet.len();
    if length < DATA_HEADER_LENGTH || term_offset % FRAME_ALIGNMENT != 0 {
        return Err(Error::invalid_argument(format!(
            "cannot insert {length} bytes at term offset {term_offset}: need a whole header at an aligned offset"
        )));
    }
    term.check_bounds(term_offset, length)?;
    if frame_length_volatile(term, term_offset) != 0 {
        return Ok(false);
    }
    let word = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&packet[o..o + 8]);
        i64::from_le_bytes(b)
    };
    let int = |o: usize| i32::from_le_bytes([packet[o], packet[o + 1], packet[o + 2], packet[o + 3]]);
    // Body and any further frames first; readers stop at the still-zero first length.
    // Word stores, not a claim: the receiver is this term's one writer by the driver's
    // design, which the type system cannot see, so no plain copy.
    term.store_bytes(term_offset + DATA_HEADER_LENGTH, &packet[DATA_HEADER_LENGTH..]);
    term.put_i64(term_offset + RESERVED_VALUE_OFFSET, word(RESERVED_VALUE_OFFSET));
    term.put_i64(term_offset + SESSION_ID_FIELD_OFFSET + 4, word(SESSION_ID_FIELD_OFFSET + 4));
    term.put_i64(term_offset + TERM_OFFSET_FIELD_OFFSET, word(TERM_OFFSET_FIELD_OFFSET));
    term.put_i32(term_offset + VERSION_OFFSET, int(VERSION_OFFSET));
    // Release: the whole datagram is visible to a reader that acquires this length.
    frame_length_ordered(term, term_offset, int(0));
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_once_and_rejects_bad_input() {
        let term = AtomicBuffer::alloc(65536);
        let mut packet = vec![0u8; 64];
        packet[0..4].copy_from_slice(&40i32.to_le_bytes());
        packet[5] = 0xC0;
        packet[6] = 1;
        packet[8..12].copy_from_slice(&1024i32.to_le_bytes());
        packet[24..32].copy_from_slice(&7i64.to_le_bytes());
        packet[32..40].copy_from_slice(b"abcdefgh");
        assert!(insert(&term, 1024, &packet).unwrap());
        assert_eq!(term.load_vec(1024, 64), &packet[..]);
        let mut other = packet.clone();
        other[32] = b'z';
        assert!(!insert(&term, 1024, &other).unwrap());
        assert_eq!(term.get_u8(1024 + 32), b'a');
        assert!(insert(&term, 65536 - 32, &packet).is_err());
        assert!(insert(&term, 16, &packet).is_err());
        assert!(insert(&term, 0, &packet[..31]).is_err());
    }
}
