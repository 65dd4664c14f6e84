//! `TermReader`: delivers the committed fragments of one term to a handler
//! (`spec/log-buffer.md` §8): stops at the first frame not yet published (length ≤ 0), at
//! the fragment limit or at the end of the term; skips padding.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::frame_descriptor::{acquire_frame, aligned_frame_length};
use crate::logbuffer::header::Header;
use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT, HDR_TYPE_PAD, TYPE_OFFSET};

/// Where a read stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOutcome {
    /// Term offset after the last frame consumed (padding included).
    pub offset: usize,
    /// Fragments delivered to the handler.
    pub fragments_read: usize,
}

/// What a controlled handler wants done with the fragment it was given (Aeron
/// `ControlledFragmentHandler.Action`; the C enum values start at 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ControlledPollAction {
    /// Do not consume this fragment; stop.
    Abort = 1,
    /// Consume this fragment and stop.
    Break = 2,
    /// Consume it and make the position so far durable (the subscriber position is stored).
    Commit = 3,
    /// Consume it and go on.
    Continue = 4,
}

impl ControlledPollAction {
    /// From the C value (`AERON_ACTION_ABORT` = 1 … `AERON_ACTION_CONTINUE` = 4).
    pub fn from_i32(value: i32) -> Option<Self> {
        match value {
            1 => Some(Self::Abort),
            2 => Some(Self::Break),
            3 => Some(Self::Commit),
            4 => Some(Self::Continue),
            _ => None,
        }
    }
}

/// Reads up to `fragments_limit` fragments from `term_offset`, calling `handler(payload,
/// header)` for each DATA frame. `header` carries the stream constants and is refilled per
/// fragment. Frame lengths that would run past the term (corrupt memory) stop the read, and
/// a `term_offset` that is not frame-aligned reads nothing.
#[inline]
pub fn read<F>(
    term: &AtomicBuffer,
    term_offset: usize,
    fragments_limit: usize,
    header: &mut Header,
    handler: F,
) -> ReadOutcome
where
    F: FnMut(&[u8], &Header),
{
    read_bounded(term, term_offset, term.capacity(), fragments_limit, header, handler)
}

/// As [`read`], starting no frame at or past `limit_offset` (Aeron `Image.boundedPoll`: a
/// frame that begins before the limit is read whole even if it ends after it).
#[inline]
pub fn read_bounded<F>(
    term: &AtomicBuffer,
    term_offset: usize,
    limit_offset: usize,
    fragments_limit: usize,
    header: &mut Header,
    mut handler: F,
) -> ReadOutcome
where
    F: FnMut(&[u8], &Header),
{
    controlled_read_bounded(
        term,
        term_offset,
        limit_offset,
        fragments_limit,
        header,
        |payload, header| {
            handler(payload, header);
            ControlledPollAction::Continue
        },
        |_| {},
    )
}

/// Controlled read (Aeron `Image.controlledPoll` over one term). `on_commit(offset)` is
/// called when the handler returns `Commit`, with the term offset consumed so far, so the
/// caller can store the subscriber position at once. ABORT leaves the fragment unconsumed.
#[inline]
pub fn controlled_read<F, C>(
    term: &AtomicBuffer,
    term_offset: usize,
    fragments_limit: usize,
    header: &mut Header,
    handler: F,
    on_commit: C,
) -> ReadOutcome
where
    F: FnMut(&[u8], &Header) -> ControlledPollAction,
    C: FnMut(usize),
{
    controlled_read_bounded(term, term_offset, term.capacity(), fragments_limit, header, handler, on_commit)
}

/// As [`controlled_read`], starting no frame at or past `limit_offset`.
#[inline]
pub fn controlled_read_bounded<F, C>(
    term: &AtomicBuffer,
    term_offset: usize,
    limit_offset: usize,
    fragments_limit: usize,
    header: &mut Header,
    mut handler: F,
    mut on_commit: C,
) -> ReadOutcome
where
    F: FnMut(&[u8], &Header) -> ControlledPollAction,
    C: FnMut(usize),
{
    if term_offset % FRAME_ALIGNMENT != 0 {
        // Frames start on 32-byte boundaries, so no frame starts here; and the length word
        // at an unaligned offset cannot be read atomically. The offset comes from a position
        // in shared memory, so a bad one stalls the reader instead of panicking it.
        return ReadOutcome { offset: term_offset, fragments_read: 0 };
    }
    let capacity = term.capacity();
    let limit_offset = limit_offset.min(capacity);
    let mut offset = term_offset;
    let mut fragments_read = 0;
    while fragments_read < fragments_limit && offset < limit_offset {
        let Some(frame) = acquire_frame(term, offset) else {
            break;
        };
        // The acquired range is the whole frame, header included, checked to fit the term.
        let bytes = frame.as_slice();
        let Some((frame_header, payload)) = bytes.split_first_chunk::<DATA_HEADER_LENGTH>() else {
            break;
        };
        let aligned = aligned_frame_length(bytes.len());
        offset += aligned;
        if is_padding(frame_header) {
            continue;
        }
        // In range: the frame fits in the term, whose length is an i32.
        header.load_frame(frame_header, bytes.len() as i32);
        fragments_read += 1;
        match handler(payload, header) {
            ControlledPollAction::Abort => {
                fragments_read -= 1;
                offset -= aligned;
                break;
            }
            ControlledPollAction::Break => break,
            ControlledPollAction::Commit => on_commit(offset.min(capacity)),
            ControlledPollAction::Continue => {}
        }
    }
    ReadOutcome { offset: offset.min(capacity), fragments_read }
}

/// Whether a frame's header says PAD.
#[inline(always)]
fn is_padding(frame_header: &[u8; DATA_HEADER_LENGTH]) -> bool {
    u16::from_le_bytes([frame_header[TYPE_OFFSET], frame_header[TYPE_OFFSET + 1]]) == HDR_TYPE_PAD
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::header_writer::HeaderWriter;
    use crate::logbuffer::term_appender::TermAppender;
    use crate::logbuffer::{descriptor, log_buffers::LogBuffers};

    fn log_with_messages(messages: &[&[u8]]) -> LogBuffers {
        let log = LogBuffers::alloc(65536, 4096).unwrap();
        descriptor::initialise_tails(log.metadata(), 5, 5, 0).unwrap();
        let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
        let header = HeaderWriter::new(1, 2);
        for m in messages {
            appender.append(&header, m, 1376, None, 5).unwrap();
        }
        log
    }

    #[test]
    fn reads_up_to_limit_then_resumes() {
        let log = log_with_messages(&[b"a", b"bb", b"ccc"]);
        let mut header = Header::new(5, 16);
        let mut seen = Vec::new();
        let outcome = read(log.term(0), 0, 2, &mut header, |p, h| seen.push((p.to_vec(), h.term_offset())));
        assert_eq!(outcome, ReadOutcome { offset: 128, fragments_read: 2 });
        assert_eq!(seen, vec![(b"a".to_vec(), 0), (b"bb".to_vec(), 64)]);
        let outcome = read(log.term(0), outcome.offset, 10, &mut header, |p, h| {
            assert_eq!(p, b"ccc");
            assert_eq!(h.position(), 192);
        });
        assert_eq!(outcome, ReadOutcome { offset: 192, fragments_read: 1 });
    }

    #[test]
    fn skips_padding_and_stops_at_claimed_frame() {
        let log = log_with_messages(&[b"x"]);
        let term = log.term(0);
        let header = HeaderWriter::new(1, 2);
        crate::logbuffer::term_appender::write_padding(term, &header, 64, 96, 5);
        header.write(term, 160, 40, 5);
        let mut header = Header::new(5, 16);
        let mut count = 0;
        let outcome = read(term, 0, 10, &mut header, |_, _| count += 1);
        assert_eq!(outcome, ReadOutcome { offset: 160, fragments_read: 1 });
        assert_eq!(count, 1);
    }

    #[test]
    fn corrupt_length_stops_instead_of_panicking() {
        let term = AtomicBuffer::alloc(65536);
        term.put_i32_release(65536 - 32, 64);
        term.put_i32_release(0, 8);
        let mut header = Header::new(0, 16);
        assert_eq!(read(&term, 65536 - 32, 10, &mut header, |_, _| {}).fragments_read, 0);
        assert_eq!(read(&term, 0, 10, &mut header, |_, _| {}).offset, 0);
    }

    #[test]
    fn bounded_reads_start_no_frame_at_or_past_the_limit() {
        let log = log_with_messages(&[b"a", b"bb", b"ccc"]);
        let mut header = Header::new(5, 16);
        let mut seen = Vec::new();
        // Frames at 0, 64, 128; a limit of 65 still takes the frame that starts at 64.
        let outcome = read_bounded(log.term(0), 0, 65, 10, &mut header, |p, _| seen.push(p.to_vec()));
        assert_eq!(outcome, ReadOutcome { offset: 128, fragments_read: 2 });
        assert_eq!(seen, vec![b"a".to_vec(), b"bb".to_vec()]);
        let outcome = read_bounded(log.term(0), 128, 128, 10, &mut header, |_, _| panic!("at the limit"));
        assert_eq!(outcome, ReadOutcome { offset: 128, fragments_read: 0 });
        let outcome = controlled_read_bounded(
            log.term(0),
            0,
            64,
            10,
            &mut header,
            |_, _| ControlledPollAction::Continue,
            |_| {},
        );
        assert_eq!(outcome, ReadOutcome { offset: 64, fragments_read: 1 });
    }

    #[test]
    fn unaligned_start_offset_reads_nothing_instead_of_panicking() {
        // The start offset comes from a position in shared memory (a subscriber position
        // counter seeded by the driver from a peer's SETUP frame); it must not panic.
        let log = log_with_messages(&[b"a"]);
        let mut header = Header::new(5, 16);
        for offset in [1, 4, 31, 65535] {
            let outcome = read(log.term(0), offset, 10, &mut header, |_, _| panic!("nothing to deliver"));
            assert_eq!(outcome, ReadOutcome { offset, fragments_read: 0 });
        }
    }

    #[test]
    fn controlled_actions() {
        let log = log_with_messages(&[b"1", b"2", b"3", b"4"]);
        let mut header = Header::new(5, 16);
        let mut commits = Vec::new();
        let mut calls = 0;
        let outcome = controlled_read(
            log.term(0),
            0,
            10,
            &mut header,
            |p, _| {
                calls += 1;
                match p {
                    b"1" => ControlledPollAction::Continue,
                    b"2" => ControlledPollAction::Commit,
                    _ => ControlledPollAction::Abort,
                }
            },
            |o| commits.push(o),
        );
        assert_eq!(outcome, ReadOutcome { offset: 128, fragments_read: 2 });
        assert_eq!(commits, vec![128]);
        assert_eq!(calls, 3);
        let outcome =
            controlled_read(log.term(0), 128, 10, &mut header, |_, _| ControlledPollAction::Break, |_| {});
        assert_eq!(outcome, ReadOutcome { offset: 192, fragments_read: 1 });
        assert_eq!(ControlledPollAction::from_i32(3), Some(ControlledPollAction::Commit));
        assert_eq!(ControlledPollAction::from_i32(0), None);
    }
}
