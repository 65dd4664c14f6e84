//! Accessors for the frames inside a term (`spec/log-buffer.md` §5): the frame length word
//! that publishes a frame, and the type and flags readers look at after it.
#![forbid(unsafe_code)]

use crate::concurrent::{AtomicBuffer, PublishedRange};
use crate::protocol::header::{
    FLAGS_OFFSET, FRAME_ALIGNMENT, FRAME_LENGTH_OFFSET, HDR_TYPE_PAD, TERM_ID_FIELD_OFFSET,
    TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET,
};

/// Acquire load of the frame length at `frame_offset`: a positive value means every byte
/// of the frame written before the publishing release store is visible.
#[inline]
pub fn frame_length_volatile(term: &AtomicBuffer, frame_offset: usize) -> i32 {
    term.get_i32_acquire(frame_offset + FRAME_LENGTH_OFFSET)
}

/// Acquire load of the frame length at `frame_offset`; the frame's bytes when the length
/// is positive and the frame fits in the term (what [`frame_fits`] checks), else `None`.
#[inline]
pub fn acquire_frame(term: &AtomicBuffer, frame_offset: usize) -> Option<PublishedRange<'_>> {
    term.acquire_record(frame_offset + FRAME_LENGTH_OFFSET)
}

/// Release store of the frame length: publishes the header and body written before it.
#[inline]
pub fn frame_length_ordered(term: &AtomicBuffer, frame_offset: usize, frame_length: i32) {
    term.put_i32_release(frame_offset + FRAME_LENGTH_OFFSET, frame_length)
}

/// Frame type; only meaningful after a positive frame length was acquired.
#[inline]
pub fn frame_type(term: &AtomicBuffer, frame_offset: usize) -> u16 {
    term.get_u16(frame_offset + TYPE_OFFSET)
}

#[inline]
pub fn set_frame_type(term: &AtomicBuffer, frame_offset: usize, frame_type: u16) {
    term.put_u16(frame_offset + TYPE_OFFSET, frame_type)
}

#[inline]
pub fn is_padding_frame(term: &AtomicBuffer, frame_offset: usize) -> bool {
    frame_type(term, frame_offset) == HDR_TYPE_PAD
}

#[inline]
pub fn frame_flags(term: &AtomicBuffer, frame_offset: usize) -> u8 {
    term.get_u8(frame_offset + FLAGS_OFFSET)
}

#[inline]
pub fn frame_term_offset(term: &AtomicBuffer, frame_offset: usize) -> i32 {
    term.get_i32(frame_offset + TERM_OFFSET_FIELD_OFFSET)
}

#[inline]
pub fn frame_term_id(term: &AtomicBuffer, frame_offset: usize) -> i32 {
    term.get_i32(frame_offset + TERM_ID_FIELD_OFFSET)
}

/// Space a frame of `frame_length` bytes occupies in a term.
#[inline]
pub const fn aligned_frame_length(frame_length: usize) -> usize {
    crate::util::bits::align(frame_length, FRAME_ALIGNMENT)
}

/// Whether a frame length read from a term at `frame_offset` describes a frame that fits
/// in the term. Lengths come from shared memory, so readers check before slicing.
#[inline]
pub fn frame_fits(term: &AtomicBuffer, frame_offset: usize, frame_length: i32) -> bool {
    frame_length > 0 && (frame_length as usize) <= term.capacity().saturating_sub(frame_offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_type_flags_round_trip() {
        let term = AtomicBuffer::alloc(256);
        frame_length_ordered(&term, 64, 33);
        set_frame_type(&term, 64, 1);
        term.put_u8(64 + FLAGS_OFFSET, 0xC0);
        assert_eq!(frame_length_volatile(&term, 64), 33);
        assert_eq!(frame_type(&term, 64), 1);
        assert!(!is_padding_frame(&term, 64));
        assert_eq!(frame_flags(&term, 64), 0xC0);
        assert_eq!(aligned_frame_length(33), 64);
        assert!(frame_fits(&term, 64, 192));
        assert!(!frame_fits(&term, 64, 193));
        assert!(!frame_fits(&term, 64, 0));
        assert!(!frame_fits(&term, 64, -32));
    }
}
