//! `FragmentAssembler`: joins BEGIN…END fragments into whole messages, per session, before
//! handing them to the application handler (`spec/log-buffer.md` §8, Aeron
//! `FragmentAssembler` / `aeron_fragment_assembler`).
#![forbid(unsafe_code)]

use crate::logbuffer::buffer_builder::SessionBuilders;
use crate::logbuffer::header::Header;
use crate::protocol::header::{BEGIN_FLAG, END_FLAG, UNFRAGMENTED};

/// Default starting size of a session's builder; it grows as needed and is then reused.
pub const DEFAULT_INITIAL_BUFFER_LENGTH: usize = 4096;

/// Wraps a handler `FnMut(&[u8], &Header)`. Unfragmented messages go straight through with
/// no copy and no allocation; fragments are copied into a per-session builder and the
/// message is delivered on its END fragment with a header spanning all fragments.
pub struct FragmentAssembler<F> {
    delegate: F,
    builders: SessionBuilders,
}

impl<F> FragmentAssembler<F>
where
    F: FnMut(&[u8], &Header),
{
    pub fn new(delegate: F) -> Self {
        Self::with_initial_buffer_length(delegate, DEFAULT_INITIAL_BUFFER_LENGTH)
    }

    pub fn with_initial_buffer_length(delegate: F, initial_buffer_length: usize) -> Self {
        Self { delegate, builders: SessionBuilders::new(initial_buffer_length) }
    }

    /// The fragment handler to give a term reader or image poll.
    #[inline]
    pub fn on_fragment(&mut self, payload: &[u8], header: &Header) {
        let flags = header.flags();
        if flags & UNFRAGMENTED == UNFRAGMENTED {
            (self.delegate)(payload, header);
        } else if flags & BEGIN_FLAG != 0 {
            self.builders.begin(payload, header);
        } else if let Some(builder) = self.builders.get_mut(header.session_id()) {
            if builder.append(payload, header) && flags & END_FLAG != 0 {
                let complete = builder.complete_header(header);
                (self.delegate)(builder.bytes(), &complete);
                builder.reset();
            }
        }
    }

    /// Drops the partial message of a session (e.g. when its image goes away).
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
    use crate::concurrent::AtomicBuffer;
    use crate::logbuffer::{
        descriptor, header_writer::HeaderWriter, log_buffers::LogBuffers, term_appender::TermAppender,
        term_reader,
    };

    #[test]
    fn reassembles_interleaved_sessions_and_drops_broken_messages() {
        let log = LogBuffers::alloc(65536, 4096).unwrap();
        descriptor::initialise_tails(log.metadata(), 0, 0, 0).unwrap();
        let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
        let message: Vec<u8> = (0..3000u32).map(|i| i as u8).collect();
        appender.append(&HeaderWriter::new(1, 9), &message, 1024 - 32, None, 0).unwrap();
        appender.append(&HeaderWriter::new(2, 9), b"small", 1024 - 32, None, 0).unwrap();

        let mut delivered: Vec<(i32, Vec<u8>, i64, u8)> = Vec::new();
        let mut assembler = FragmentAssembler::new(|p: &[u8], h: &Header| {
            delivered.push((h.session_id(), p.to_vec(), h.position(), h.flags()))
        });
        let mut header = Header::new(0, 16);
        term_reader::read(log.term(0), 0, 100, &mut header, |p, h| assembler.on_fragment(p, h));
        drop(assembler);
        assert_eq!(delivered.len(), 2);
        // 3 full fragments of 1024 bytes + one of 24 payload bytes (aligned 64).
        assert!(delivered[0] == (1, message.clone(), 3136, 0xC0), "whole message, ends at 3136");
        assert_eq!(delivered[1], (2, b"small".to_vec(), 3200, 0xC0));

        // A lost middle fragment: the message is dropped, the next one still works.
        let term = AtomicBuffer::alloc(65536);
        term.store_bytes(0, &log.term(0).load_vec(0, 3200));
        term.put_i32(1024, 0);
        let mut lengths = Vec::new();
        let mut assembler = FragmentAssembler::new(|p: &[u8], _: &Header| lengths.push(p.len()));
        let mut header = Header::new(0, 16);
        term_reader::read(&term, 0, 100, &mut header, |p, h| assembler.on_fragment(p, h));
        let after_gap = 2048;
        term_reader::read(&term, after_gap, 100, &mut header, |p, h| assembler.on_fragment(p, h));
        drop(assembler);
        assert_eq!(lengths, vec![5], "broken message dropped, the next one delivered");
    }
}
