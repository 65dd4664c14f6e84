//! `TermUnblocker` and the log-level unblock: the driver turns space a dead publisher
//! claimed but never published into padding so consumers can pass it
//! (`spec/log-buffer.md` §10).
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::descriptor::{
    LOG_DEFAULT_FRAME_HEADER_OFFSET, active_term_count, index_by_term_count, position_bits_to_shift,
    raw_tail_volatile, rotate_log, term_id, term_offset,
};
use crate::logbuffer::frame_descriptor::{frame_length_ordered, frame_length_volatile};
use crate::logbuffer::log_buffers::LogBuffers;
use crate::protocol::header::{
    FRAME_ALIGNMENT, HDR_TYPE_PAD, RESERVED_VALUE_OFFSET, SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET,
    TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET, VERSION_OFFSET,
};

/// What the term unblocker did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnblockStatus {
    /// The blocked frame is published or still in progress: nothing to do.
    NoAction,
    /// A PAD frame now covers the stuck region.
    Unblocked,
    /// A PAD frame now runs to the end of the term: the log must also rotate.
    UnblockedToEnd,
}

/// Writes a PAD frame of `frame_length` at `frame_offset` from the default header in
/// `metadata`, with this term id and offset, publishing the length last.
fn reset_header(
    metadata: &AtomicBuffer,
    term: &AtomicBuffer,
    frame_offset: usize,
    term_id: i32,
    frame_length: i32,
) {
    let default = |o: usize| metadata.get_i32(LOG_DEFAULT_FRAME_HEADER_OFFSET + o);
    term.put_i32(frame_offset + VERSION_OFFSET, default(VERSION_OFFSET));
    term.put_i32(frame_offset + SESSION_ID_FIELD_OFFSET, default(SESSION_ID_FIELD_OFFSET));
    term.put_i32(frame_offset + STREAM_ID_FIELD_OFFSET, default(STREAM_ID_FIELD_OFFSET));
    term.put_i64(
        frame_offset + RESERVED_VALUE_OFFSET,
        metadata.get_i64(LOG_DEFAULT_FRAME_HEADER_OFFSET + RESERVED_VALUE_OFFSET),
    );
    term.put_u16(frame_offset + TYPE_OFFSET, HDR_TYPE_PAD);
    term.put_i32(frame_offset + TERM_OFFSET_FIELD_OFFSET, frame_offset as i32);
    term.put_i32(frame_offset + TERM_ID_FIELD_OFFSET, term_id);
    // Release: readers acquiring the length see a complete PAD header.
    frame_length_ordered(term, frame_offset, frame_length);
}

/// Whether every 32-byte slot in `[from_offset, to_offset)` still has a zero frame length.
fn all_zero_back_to(term: &AtomicBuffer, to_offset: usize, from_offset: usize) -> bool {
    let mut slot = to_offset;
    while slot > from_offset {
        slot -= FRAME_ALIGNMENT;
        if frame_length_volatile(term, slot) != 0 {
            return false;
        }
    }
    true
}

/// Unblocks the frame at `blocked_offset` of `term` (term `term_id`, whose tail offset is
/// `tail_offset`):
/// * claimed (negative length) → PAD of the claimed length;
/// * never written (zero) with a later frame before the tail → PAD up to that frame, if the
///   whole region still reads zero;
/// * zero all the way to the end of the term → PAD to the end (`UnblockedToEnd`).
pub fn unblock(
    metadata: &AtomicBuffer,
    term: &AtomicBuffer,
    blocked_offset: usize,
    tail_offset: usize,
    term_id: i32,
) -> UnblockStatus {
    let term_length = term.capacity();
    if blocked_offset % FRAME_ALIGNMENT != 0 || blocked_offset >= term_length {
        return UnblockStatus::NoAction;
    }
    let frame_length = frame_length_volatile(term, blocked_offset);
    if frame_length < 0 {
        let length = frame_length.unsigned_abs() as usize;
        if length > term_length - blocked_offset {
            return UnblockStatus::NoAction;
        }
        reset_header(metadata, term, blocked_offset, term_id, length as i32);
        return UnblockStatus::Unblocked;
    }
    if frame_length != 0 {
        return UnblockStatus::NoAction;
    }
    let tail_offset = tail_offset.min(term_length);
    let mut offset = blocked_offset + FRAME_ALIGNMENT;
    while offset < tail_offset {
        if frame_length_volatile(term, offset) != 0 {
            if all_zero_back_to(term, offset, blocked_offset) {
                reset_header(metadata, term, blocked_offset, term_id, (offset - blocked_offset) as i32);
                return UnblockStatus::Unblocked;
            }
            return UnblockStatus::NoAction;
        }
        offset += FRAME_ALIGNMENT;
    }
    if offset >= term_length && frame_length_volatile(term, blocked_offset) == 0 {
        reset_header(metadata, term, blocked_offset, term_id, (term_length - blocked_offset) as i32);
        return UnblockStatus::UnblockedToEnd;
    }
    UnblockStatus::NoAction
}

/// Log-level unblock at the consumers' `blocked_position` (Aeron `LogBufferUnblocker`):
/// rotates the log if the blocked publisher was the one due to rotate, else unblocks the
/// blocked term (rotating after padding to its end). Returns whether anything changed.
pub fn unblock_log(log: &LogBuffers, blocked_position: i64) -> bool {
    let metadata = log.metadata();
    let term_length = log.term_length();
    let bits = position_bits_to_shift(term_length);
    let blocked_term_count = (blocked_position >> bits) as i32;
    let blocked_offset = (blocked_position & (term_length as i64 - 1)) as usize;
    let active = active_term_count(metadata);

    if active == blocked_term_count.wrapping_sub(1) && blocked_offset == 0 {
        let current_term_id = term_id(raw_tail_volatile(metadata, index_by_term_count(i64::from(active))));
        rotate_log(metadata, active, current_term_id);
        return true;
    }

    let blocked_index = index_by_term_count(i64::from(blocked_term_count));
    let raw_tail = raw_tail_volatile(metadata, blocked_index);
    let blocked_term_id = term_id(raw_tail);
    let tail_offset = term_offset(raw_tail, term_length) as usize;
    match unblock(metadata, log.term(blocked_index), blocked_offset, tail_offset, blocked_term_id) {
        UnblockStatus::UnblockedToEnd => {
            rotate_log(metadata, blocked_term_count, blocked_term_id);
            true
        }
        UnblockStatus::Unblocked => true,
        UnblockStatus::NoAction => false,
    }
}
