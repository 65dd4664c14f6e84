//! `ExclusivePublication`: a publication with one writer, which keeps the term id and
//! offset itself and publishes the tail with a release store instead of a get-and-add
//! (`spec/log-buffer.md` §6.4; Aeron `aeron_exclusive_publication_t`, `ExclusivePublication`).
#![forbid(unsafe_code)]

use std::sync::Arc;

use crate::client::conductor_handle::ConductorHandle;
use crate::client::publication_accessors::publication_accessors;
use crate::client::publication_core::{ADMIN_ACTION, CLOSED, MAX_POSITION_EXCEEDED, PublicationCore};
use crate::logbuffer::descriptor::{
    PARTITION_COUNT, active_term_count, compute_term_begin_position, compute_term_count, index_by_term_count,
    partition_mut, raw_tail_volatile, rotate_log_exclusive, term_id, term_offset,
};
use crate::logbuffer::term_appender::ReservedValueSupplier;
use crate::logbuffer::{AppendOutcome, BufferClaim, ExclusiveTermAppender, HeaderWriter};
use crate::util::error::{Error, Result};

/// The writer's private view of where the log's tail is.
#[derive(Debug, Clone, Copy)]
struct TailState {
    index: usize,
    term_id: i32,
    term_offset: i32,
    term_begin_position: i64,
}

impl TailState {
    #[inline]
    fn position(&self) -> i64 {
        self.term_begin_position + i64::from(self.term_offset)
    }
}

/// A single-writer publication: `offer`, `try_claim` and friends take `&mut self`. Results
/// as for [`crate::client::Publication`].
pub struct ExclusivePublication {
    core: Arc<PublicationCore>,
    appenders: [ExclusiveTermAppender; PARTITION_COUNT],
    header: HeaderWriter,
    tail: TailState,
    client: Arc<ConductorHandle>,
}

impl ExclusivePublication {
    pub(crate) fn new(core: Arc<PublicationCore>, client: Arc<ConductorHandle>) -> Result<Self> {
        let metadata = core.log.metadata();
        let terms = core.log.terms();
        let appenders = [
            ExclusiveTermAppender::new(terms[0].clone(), metadata.clone(), 0)?,
            ExclusiveTermAppender::new(terms[1].clone(), metadata.clone(), 1)?,
            ExclusiveTermAppender::new(terms[2].clone(), metadata.clone(), 2)?,
        ];
        // The driver initialised the log and nobody else writes it, so this snapshot stays
        // true until this handle moves it.
        let term_count = active_term_count(metadata);
        let index = index_by_term_count(i64::from(term_count));
        let raw_tail = raw_tail_volatile(metadata, index);
        let term_id = term_id(raw_tail);
        if compute_term_count(term_id, core.initial_term_id) != term_count {
            return Err(Error::illegal_state(format!(
                "exclusive publication log {} is mid-rotation: term count {term_count}, term id {term_id}",
                core.info.original_registration_id
            )));
        }
        let tail = TailState {
            index,
            term_id,
            term_offset: term_offset(raw_tail, core.term_length),
            term_begin_position: compute_term_begin_position(
                term_id,
                core.position_bits_to_shift,
                core.initial_term_id,
            ),
        };
        let header = HeaderWriter::new(core.info.session_id, core.info.stream_id);
        Ok(Self { core, appenders, header, tail, client })
    }

    /// Appends `message`; see [`crate::client::Publication::offer`] for the result.
    #[inline(always)]
    pub fn offer(&mut self, message: &[u8]) -> Result<i64> {
        match self.offer_fast(message) {
            Some(position) => Ok(position),
            None => self.offer_general(message),
        }
    }

    /// The common case of [`offer`](Self::offer) — a message of at most
    /// `INLINE_COPY_MAX` (256) bytes, the publication open, below its limit and clear of the
    /// term's end — in code that neither panics nor calls out of line (see
    /// [`crate::client::Publication::offer_fast`]). `None`, having appended nothing, when
    /// anything else must be decided: the caller then takes the general path.
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    #[inline(always)]
    pub fn offer_fast(&mut self, message: &[u8]) -> Option<i64> {
        let core = &*self.core;
        if !core.takes_fast_offer(message.len()) {
            return None;
        }
        let tail = self.tail;
        // The term's end is the appender's to check, once, on the range it claims.
        if tail.position() >= core.position_limit() {
            return None;
        }
        let resulting = partition_mut(&mut self.appenders, tail.index).append_small(
            &self.header,
            tail.term_id,
            tail.term_offset,
            message,
        )?;
        self.tail.term_offset = resulting;
        // Wrapping: positions stay below 2^62 (term length x 2^31), checked by the lints above.
        Some(tail.term_begin_position.wrapping_add(i64::from(resulting)))
    }

    /// [`offer`](Self::offer) of anything [`offer_fast`](Self::offer_fast) declines, out of
    /// line so `offer` stays small where it is inlined.
    #[inline(never)]
    fn offer_general(&mut self, message: &[u8]) -> Result<i64> {
        self.offer_general_inline(message)
    }

    /// The general path without the fast path's attempt, inlined (see
    /// [`crate::client::Publication::offer_general_inline`]).
    #[inline(always)]
    pub fn offer_general_inline(&mut self, message: &[u8]) -> Result<i64> {
        if message.len() > self.core.max_payload_length {
            return self.offer_parts(std::slice::from_ref(&message), None);
        }
        if let Some(code) = self.blocked(message.len()) {
            return Ok(code);
        }
        let tail = self.tail;
        let outcome = partition_mut(&mut self.appenders, tail.index).append_unfragmented(
            &self.header,
            tail.term_id,
            tail.term_offset,
            message,
            None,
        );
        Ok(advance(&self.core, &mut self.tail, outcome))
    }

    #[inline]
    pub fn offerv(&mut self, parts: &[&[u8]]) -> Result<i64> {
        self.offer_parts(parts, None)
    }

    pub fn offer_with_reserved_value(
        &mut self,
        parts: &[&[u8]],
        supplier: &mut dyn FnMut(&[u8]) -> i64,
    ) -> Result<i64> {
        self.offer_parts(parts, Some(supplier))
    }

    #[inline]
    fn offer_parts(&mut self, parts: &[&[u8]], supplier: Option<ReservedValueSupplier<'_>>) -> Result<i64> {
        let length: usize = parts.iter().map(|p| p.len()).sum();
        self.core.check_message_length(length)?;
        if let Some(code) = self.blocked(length) {
            return Ok(code);
        }
        let tail = self.tail;
        let outcome = partition_mut(&mut self.appenders, tail.index).appendv(
            &self.header,
            tail.term_id,
            tail.term_offset,
            parts,
            self.core.max_payload_length,
            supplier,
        )?;
        Ok(advance(&self.core, &mut self.tail, outcome))
    }

    /// Claims a frame of `length` bytes (≤ max payload) to fill in place; see
    /// [`crate::client::Publication::try_claim`].
    pub fn try_claim(&mut self, length: usize) -> Result<(i64, Option<BufferClaim<'_>>)> {
        self.core.check_payload_length(length)?;
        if let Some(code) = self.blocked(length) {
            return Ok((code, None));
        }
        let tail = self.tail;
        let (outcome, claim) = partition_mut(&mut self.appenders, tail.index).claim(
            &self.header,
            tail.term_id,
            tail.term_offset,
            length,
        );
        Ok((advance(&self.core, &mut self.tail, outcome), claim))
    }

    /// Appends a padding frame with a body of `length` bytes (≤ max message length), e.g. to
    /// keep two streams' positions aligned.
    pub fn append_padding(&mut self, length: usize) -> Result<i64> {
        self.core.check_message_length(length)?;
        if let Some(code) = self.blocked(length) {
            return Ok(code);
        }
        let tail = self.tail;
        let outcome = partition_mut(&mut self.appenders, tail.index).append_padding(
            &self.header,
            tail.term_id,
            tail.term_offset,
            length,
        );
        Ok(advance(&self.core, &mut self.tail, outcome))
    }

    /// Copies pre-formatted frames (whose first header must carry this stream's ids and the
    /// current term id and offset) into the log in one go; the block must fit the term.
    pub fn offer_block(&mut self, block: &[u8]) -> Result<i64> {
        if let Some(code) = self.blocked(block.len()) {
            return Ok(code);
        }
        let tail = self.tail;
        if i64::from(tail.term_offset) + block.len() as i64 > self.core.term_length as i64 {
            return Err(Error::invalid_argument(format!(
                "block of {} bytes at term offset {} does not fit the term of {}",
                block.len(),
                tail.term_offset,
                self.core.term_length
            )));
        }
        let outcome = partition_mut(&mut self.appenders, tail.index).append_block(
            &self.header,
            tail.term_id,
            tail.term_offset,
            block,
        )?;
        Ok(advance(&self.core, &mut self.tail, outcome))
    }

    /// `Some(code)` when closed or at the limit.
    #[inline]
    fn blocked(&self, length: usize) -> Option<i64> {
        if self.core.is_closed() {
            return Some(CLOSED);
        }
        let position = self.tail.position();
        if position >= self.core.position_limit() {
            return Some(self.core.back_pressure_status(position, length));
        }
        None
    }

    /// The position the next message would start at (CLOSED once closed).
    pub fn position(&self) -> i64 {
        if self.core.is_closed() { CLOSED } else { self.tail.position() }
    }

    pub fn position_limit(&self) -> i64 {
        if self.core.is_closed() { CLOSED } else { self.core.position_limit() }
    }

    pub fn term_id(&self) -> i32 {
        self.tail.term_id
    }

    pub fn term_offset(&self) -> i32 {
        self.tail.term_offset
    }
}

/// Moves the private tail past an append, or to the next term when the term filled up.
#[inline]
fn advance(core: &PublicationCore, tail: &mut TailState, outcome: AppendOutcome) -> i64 {
    match outcome {
        AppendOutcome::Appended { resulting_offset, .. } => {
            tail.term_offset = resulting_offset;
            tail.position()
        }
        AppendOutcome::Tripped { .. } | AppendOutcome::Failed { .. } => {
            let term_length = core.term_length as i64;
            if tail.term_begin_position + term_length >= core.max_possible_position {
                return MAX_POSITION_EXCEEDED;
            }
            let term_count = compute_term_count(tail.term_id, core.initial_term_id);
            rotate_log_exclusive(core.log.metadata(), term_count, tail.term_id);
            tail.index = index_by_term_count(i64::from(term_count) + 1);
            tail.term_id = tail.term_id.wrapping_add(1);
            tail.term_offset = 0;
            tail.term_begin_position += term_length;
            ADMIN_ACTION
        }
    }
}

publication_accessors!(ExclusivePublication);

impl Drop for ExclusivePublication {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for ExclusivePublication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExclusivePublication")
            .field("channel", &self.core.info.channel)
            .field("stream_id", &self.core.info.stream_id)
            .field("session_id", &self.core.info.session_id)
            .field("registration_id", &self.core.info.registration_id)
            .finish()
    }
}
