//! `ControlledFragmentAssembler`: the fragment assembler for controlled polls, whose handler
//! returns a [`ControlledPollAction`]; an ABORT on the END fragment keeps the partial
//! message so the END is delivered again on the next poll (Aeron
//! `ControlledFragmentAssembler`).
#![forbid(unsafe_code)]

use crate::logbuffer::buffer_builder::SessionBuilders;
use crate::logbuffer::fragment_assembler::DEFAULT_INITIAL_BUFFER_LENGTH;
use crate::logbuffer::header::Header;
pub use crate::logbuffer::term_reader::ControlledPollAction;
use crate::protocol::header::{BEGIN_FLAG, END_FLAG, UNFRAGMENTED};

/// Wraps a handler `FnMut(&[u8], &Header) -> ControlledPollAction`, as
/// [`FragmentAssembler`](crate::logbuffer::fragment_assembler::FragmentAssembler) does a
/// plain one.
pub struct ControlledFragmentAssembler<F> {
    delegate: F,
    builders: SessionBuilders,
}

impl<F> ControlledFragmentAssembler<F>
where
    F: FnMut(&[u8], &Header) -> ControlledPollAction,
{
    pub fn new(delegate: F) -> Self {
        Self::with_initial_buffer_length(delegate, DEFAULT_INITIAL_BUFFER_LENGTH)
    }

    pub fn with_initial_buffer_length(delegate: F, initial_buffer_length: usize) -> Self {
        Self { delegate, builders: SessionBuilders::new(initial_buffer_length) }
    }

    /// The controlled fragment handler to give a controlled read or poll.
    #[inline]
    pub fn on_fragment(&mut self, payload: &[u8], header: &Header) -> ControlledPollAction {
        let flags = header.flags();
        if flags & UNFRAGMENTED == UNFRAGMENTED {
            return (self.delegate)(payload, header);
        }
        if flags & BEGIN_FLAG != 0 {
            self.builders.begin(payload, header);
            return ControlledPollAction::Continue;
        }
        let Some(builder) = self.builders.get_mut(header.session_id()) else {
            return ControlledPollAction::Continue;
        };
        let (previous_length, previous_next) = (builder.len(), builder.next_term_offset());
        if !builder.append(payload, header) || flags & END_FLAG == 0 {
            return ControlledPollAction::Continue;
        }
        let complete = builder.complete_header(header);
        let action = (self.delegate)(builder.bytes(), &complete);
        match (action, previous_next) {
            (ControlledPollAction::Abort, Some(next)) => builder.truncate(previous_length, next),
            _ => builder.reset(),
        }
        action
    }

    pub fn free_session_buffer(&mut self, session_id: i32) -> bool {
        self.builders.remove(session_id)
    }

    pub fn delegate(&mut self) -> &mut F {
        &mut self.delegate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::{
        descriptor, header_writer::HeaderWriter, log_buffers::LogBuffers, term_appender::TermAppender,
        term_reader,
    };

    #[test]
    fn abort_on_end_redelivers_whole_message() {
        let log = LogBuffers::alloc(65536, 4096).unwrap();
        descriptor::initialise_tails(log.metadata(), 0, 0, 0).unwrap();
        let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
        let message: Vec<u8> = (0..2500u32).map(|i| (i * 7) as u8).collect();
        appender.append(&HeaderWriter::new(1, 9), &message, 1376, None, 0).unwrap();
        appender.append(&HeaderWriter::new(1, 9), b"next", 1376, None, 0).unwrap();

        let mut attempts = 0;
        let mut got = Vec::new();
        let mut assembler = ControlledFragmentAssembler::new(|p: &[u8], h: &Header| {
            attempts += 1;
            if attempts == 1 {
                return ControlledPollAction::Abort;
            }
            got.push((p.to_vec(), h.position()));
            ControlledPollAction::Commit
        });
        let mut header = Header::new(0, 16);
        let mut commits = Vec::new();
        let first = term_reader::controlled_read(
            log.term(0),
            0,
            10,
            &mut header,
            |p, h| assembler.on_fragment(p, h),
            |o| commits.push(o),
        );
        assert_eq!(first.offset, 1408, "END fragment left unconsumed");
        let second = term_reader::controlled_read(
            log.term(0),
            first.offset,
            10,
            &mut header,
            |p, h| assembler.on_fragment(p, h),
            |o| commits.push(o),
        );
        drop(assembler);
        assert_eq!(second.offset, 2592 + 64);
        assert_eq!(got, vec![(message, 2592), (b"next".to_vec(), 2656)]);
        assert_eq!(commits, vec![2592, 2656]);
    }
}
