//! `BufferClaim`: a frame claimed in a term by `try_claim`, written in place by the caller
//! and then committed or aborted (`spec/log-buffer.md` §6.3).
#![forbid(unsafe_code)]

use crate::concurrent::{AtomicBuffer, ClaimedRange};
use crate::logbuffer::frame_descriptor::{frame_length_ordered, set_frame_type};
use crate::protocol::header::{DATA_HEADER_LENGTH, FLAGS_OFFSET, HDR_TYPE_PAD, RESERVED_VALUE_OFFSET};

/// A claimed frame. Readers stop at it (its length is negative) until [`commit`] or
/// [`abort`]; a claim dropped without either stays blocked until the driver unblocks it,
/// as in Aeron.
///
/// [`commit`]: BufferClaim::commit
/// [`abort`]: BufferClaim::abort
#[derive(Debug)]
pub struct BufferClaim<'a> {
    term: &'a AtomicBuffer,
    frame_offset: usize,
    length: usize,
    /// The claimed frame, header included, from `frame_offset`.
    frame: ClaimedRange<'a>,
}

impl<'a> BufferClaim<'a> {
    /// The claim of the frame at `frame_offset` of `term` for `length` payload bytes;
    /// `frame` is the claimed range from the frame's header on (at least
    /// `DATA_HEADER_LENGTH + length` bytes).
    pub(crate) fn new(
        term: &'a AtomicBuffer,
        frame_offset: usize,
        length: usize,
        frame: ClaimedRange<'a>,
    ) -> Self {
        assert!(
            frame.len() >= DATA_HEADER_LENGTH + length,
            "claimed range of {} bytes cannot hold a frame of {length} payload bytes",
            frame.len()
        );
        Self { term, frame_offset, length, frame }
    }

    /// Offset of the frame header in its term.
    pub fn frame_offset(&self) -> usize {
        self.frame_offset
    }

    /// Address of the claimed frame's header in the mapped term (for C callers, which
    /// write the payload and commit through raw pointers: Aeron `aeron_buffer_claim_t`).
    pub fn frame_ptr(&self) -> *mut u8 {
        self.term.as_ptr().wrapping_add(self.frame_offset)
    }

    /// Payload length claimed.
    pub fn length(&self) -> usize {
        self.length
    }

    /// The payload bytes to write.
    pub fn buffer(&mut self) -> &mut [u8] {
        &mut self.frame.as_mut_slice()[DATA_HEADER_LENGTH..DATA_HEADER_LENGTH + self.length]
    }

    /// Copies `src` into the payload at `offset`; an error if it does not fit.
    pub fn put_bytes(&mut self, offset: usize, src: &[u8]) -> crate::Result<()> {
        if offset > self.length || src.len() > self.length - offset {
            return Err(crate::Error::out_of_bounds(format!(
                "claim of {} bytes cannot take {} bytes at {offset}",
                self.length,
                src.len()
            )));
        }
        self.frame.put_bytes(DATA_HEADER_LENGTH + offset, src);
        Ok(())
    }

    pub fn flags(&self) -> u8 {
        self.term.get_u8(self.frame_offset + FLAGS_OFFSET)
    }

    pub fn set_flags(&mut self, flags: u8) {
        self.term.put_u8(self.frame_offset + FLAGS_OFFSET, flags)
    }

    pub fn set_header_type(&mut self, frame_type: u16) {
        set_frame_type(self.term, self.frame_offset, frame_type)
    }

    pub fn reserved_value(&self) -> i64 {
        self.term.get_i64(self.frame_offset + RESERVED_VALUE_OFFSET)
    }

    pub fn set_reserved_value(&mut self, value: i64) {
        self.term.put_i64(self.frame_offset + RESERVED_VALUE_OFFSET, value)
    }

    /// Publishes the frame to readers.
    pub fn commit(self) {
        // Release: payload and header edits become visible with the positive length.
        frame_length_ordered(self.term, self.frame_offset, (self.length + DATA_HEADER_LENGTH) as i32);
    }

    /// Turns the frame into padding so readers skip it and the sender sends it as padding.
    pub fn abort(self) {
        set_frame_type(self.term, self.frame_offset, HDR_TYPE_PAD);
        // Release: the PAD type is visible before the length that lets readers look at it.
        frame_length_ordered(self.term, self.frame_offset, (self.length + DATA_HEADER_LENGTH) as i32);
    }
}
