//! `BufferBuilder`: the growable, reused buffer in which the fragments of one message are
//! joined, with the header of its first fragment (Aeron `BufferBuilder`).
#![forbid(unsafe_code)]

use std::collections::HashMap;

use crate::logbuffer::descriptor::MAX_MESSAGE_LENGTH;
use crate::logbuffer::frame_descriptor::aligned_frame_length;
use crate::logbuffer::header::Header;

/// Builder state for one session.
#[derive(Debug, Default)]
pub struct BufferBuilder {
    buffer: Vec<u8>,
    first_header: Header,
    /// Term offset the next fragment must have; `None` when no message is in progress.
    next_term_offset: Option<i32>,
}

impl BufferBuilder {
    pub fn with_capacity(capacity: usize) -> Self {
        Self { buffer: Vec::with_capacity(capacity), ..Self::default() }
    }

    /// Starts a message with its BEGIN fragment.
    pub fn begin(&mut self, payload: &[u8], header: &Header) {
        self.buffer.clear();
        self.buffer.extend_from_slice(payload);
        self.first_header = *header;
        self.next_term_offset = Some(next_offset(header));
    }

    /// Appends a middle or END fragment if it directly follows the previous one; otherwise
    /// drops the partial message (a fragment was lost or belongs to another message).
    /// Returns whether the fragment was appended.
    pub fn append(&mut self, payload: &[u8], header: &Header) -> bool {
        let follows = self.next_term_offset == Some(header.term_offset());
        // No legal message grows past Aeron's 16 MiB cap: treat one that does as corrupt.
        if !follows || self.buffer.len() + payload.len() > MAX_MESSAGE_LENGTH {
            self.reset();
            return false;
        }
        self.buffer.extend_from_slice(payload);
        self.next_term_offset = Some(next_offset(header));
        true
    }

    /// Undoes appends back to `length` bytes (a controlled handler aborted the END).
    pub fn truncate(&mut self, length: usize, next_term_offset: i32) {
        self.buffer.truncate(length);
        self.next_term_offset = Some(next_term_offset);
    }

    pub fn reset(&mut self) {
        self.buffer.clear();
        self.next_term_offset = None;
    }

    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    pub fn next_term_offset(&self) -> Option<i32> {
        self.next_term_offset
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buffer
    }

    /// The header of the whole message, given the END fragment's header.
    pub fn complete_header(&self, last: &Header) -> Header {
        let mut header = self.first_header;
        header.complete_fragmented(self.buffer.len(), last.flags());
        header
    }
}

/// The builders of one fragment assembler, keyed by session id: each is made at its
/// session's first BEGIN fragment and then reused, so steady-state reassembly does not
/// allocate once the builders have grown to the largest message.
#[derive(Debug)]
pub struct SessionBuilders {
    builders: HashMap<i32, BufferBuilder>,
    initial_buffer_length: usize,
}

impl SessionBuilders {
    pub fn new(initial_buffer_length: usize) -> Self {
        Self { builders: HashMap::new(), initial_buffer_length }
    }

    /// Starts the message of the fragment's session with its BEGIN fragment, dropping any
    /// partial message that session had.
    pub fn begin(&mut self, payload: &[u8], header: &Header) {
        let capacity = self.initial_buffer_length;
        self.builders
            .entry(header.session_id())
            .or_insert_with(|| BufferBuilder::with_capacity(capacity))
            .begin(payload, header);
    }

    /// The builder of `session_id`, if that session ever began a message.
    pub fn get_mut(&mut self, session_id: i32) -> Option<&mut BufferBuilder> {
        self.builders.get_mut(&session_id)
    }

    /// Drops the builder of `session_id`; whether it had one.
    pub fn remove(&mut self, session_id: i32) -> bool {
        self.builders.remove(&session_id).is_some()
    }
}

fn next_offset(header: &Header) -> i32 {
    let end =
        header.term_offset().max(0) as usize + aligned_frame_length(header.frame_length().max(0) as usize);
    end.min(i32::MAX as usize) as i32
}
