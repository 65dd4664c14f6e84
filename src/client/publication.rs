//! `Publication`: a concurrent publication — any number of threads (and processes sharing
//! the same driver publication) append to one log with a get-and-add on the term tail
//! (`spec/log-buffer.md` §6.2-6.3; Aeron `aeron_publication_t`, `ConcurrentPublication`).
#![forbid(unsafe_code)]

use std::sync::Arc;

use crate::client::conductor_handle::ConductorHandle;
use crate::client::publication_accessors::publication_accessors;
use crate::client::publication_core::{ADMIN_ACTION, CLOSED, MAX_POSITION_EXCEEDED, PublicationCore};
use crate::concurrent::ClaimedRange;
use crate::logbuffer::descriptor::{
    PARTITION_COUNT, compute_term_begin_position, compute_term_count, index_by_active_term_count, partition,
    rotate_log, term_id, term_offset,
};
use crate::logbuffer::term_appender::ReservedValueSupplier;
use crate::logbuffer::{AppendOutcome, BufferClaim, HeaderWriter, TermAppender};
use crate::util::error::Result;

/// A thread-safe publication. `offer`/`try_claim` return the new stream position (≥ 0) or
/// one of the negative codes re-exported by [`crate::client`] (`BACK_PRESSURED`, ...); an `Err` means the
/// call itself was wrong (message too long). Dropping it (or [`close`](Self::close))
/// removes it from the driver.
pub struct Publication {
    core: Arc<PublicationCore>,
    appenders: [TermAppender; PARTITION_COUNT],
    header: HeaderWriter,
    client: Arc<ConductorHandle>,
}

/// A claim [`Publication::offer_fast`] made and leaves to [`Publication::complete_claim`]:
/// the raw tail its get-and-add returned and the range it reserved, in the term of
/// `term_count`.
#[derive(Debug)]
pub struct PendingClaim<'a> {
    raw_tail: i64,
    frame: ClaimedRange<'a>,
    term_count: i32,
}

/// Where the active term stands, as one consistent snapshot of the metadata.
struct ActiveTerm {
    term_count: i32,
    index: usize,
    term_id: i32,
    term_begin_position: i64,
    position: i64,
}

impl Publication {
    pub(crate) fn new(core: Arc<PublicationCore>, client: Arc<ConductorHandle>) -> Result<Self> {
        let metadata = core.log.metadata();
        let terms = core.log.terms();
        let appenders = [
            TermAppender::new(terms[0].clone(), metadata.clone(), 0)?,
            TermAppender::new(terms[1].clone(), metadata.clone(), 1)?,
            TermAppender::new(terms[2].clone(), metadata.clone(), 2)?,
        ];
        let header = HeaderWriter::new(core.info.session_id, core.info.stream_id);
        Ok(Self { core, appenders, header, client })
    }

    /// Appends `message`; see the type docs for the result.
    #[inline(always)]
    pub fn offer(&self, message: &[u8]) -> Result<i64> {
        match self.offer_fast(message, |claim| self.complete_claim(message, claim)) {
            Some(position) => Ok(position),
            None => self.offer_general(message),
        }
    }

    /// The common case of [`offer`](Self::offer) — a message of at most
    /// `INLINE_COPY_MAX` (256) bytes, the publication open, below its limit and clear of the
    /// term's end — in code that neither panics nor calls out of line, so the C API can run
    /// it outside its panic boundary with only a small stack frame. `None`, having claimed nothing,
    /// when anything else must be decided: the caller then takes the general path. A claim
    /// that a concurrent publisher pushed across the term end (or that could not be written)
    /// goes to `complete` (with the caller's boundary around
    /// [`complete_claim`](Self::complete_claim)), whose result is returned.
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    #[inline(always)]
    pub fn offer_fast<'a>(
        &'a self,
        message: &[u8],
        complete: impl FnOnce(PendingClaim<'a>) -> i64,
    ) -> Option<i64> {
        let core = &*self.core;
        if !core.takes_fast_offer(message.len()) {
            return None;
        }
        let limit = core.position_limit();
        let active = self.active_term()?;
        // The term's end is the appender's to check, once, on the range it claims: a claim
        // across it goes to `complete`, which trips the term as the general path would.
        if active.position >= limit {
            return None;
        }
        match partition(&self.appenders, active.index).append_small(&self.header, message, active.term_id) {
            // Wrapping: positions stay below 2^62 (term length x 2^31), checked by the lints above.
            Ok(resulting_offset) => {
                Some(active.term_begin_position.wrapping_add(i64::from(resulting_offset)))
            }
            Err((raw_tail, frame)) => {
                Some(complete(PendingClaim { raw_tail, frame, term_count: active.term_count }))
            }
        }
    }

    /// Finishes a one-frame claim of `message`: one [`offer_fast`](Self::offer_fast) could
    /// not finish, or any of the general path's. Pads and rotates past a tripped term, else
    /// writes the frame with the checked accessors. Returns the new position or
    /// ADMIN_ACTION / MAX_POSITION_EXCEEDED. Out of line, so the fast path stays a leaf.
    #[inline(never)]
    pub fn complete_claim(&self, message: &[u8], claim: PendingClaim<'_>) -> i64 {
        self.complete_claim_inline(message, claim)
    }

    /// [`complete_claim`](Self::complete_claim)'s body, for the general path to inline.
    #[inline(always)]
    fn complete_claim_inline(&self, message: &[u8], claim: PendingClaim<'_>) -> i64 {
        let core = &*self.core;
        // The fast path saw this term count with a matching term id in the tail.
        let term_id = core.initial_term_id.wrapping_add(claim.term_count);
        let term_begin_position =
            compute_term_begin_position(term_id, core.position_bits_to_shift, core.initial_term_id);
        let active = ActiveTerm {
            term_count: claim.term_count,
            index: index_by_active_term_count(claim.term_count),
            term_id,
            term_begin_position,
            position: term_begin_position + i64::from(term_offset(claim.raw_tail, core.term_length)),
        };
        let outcome = partition(&self.appenders, active.index).complete_claim(
            &self.header,
            message,
            claim.raw_tail,
            claim.frame,
            None,
            term_id,
        );
        self.new_position(&active, outcome)
    }

    /// [`offer`](Self::offer) of anything [`offer_fast`](Self::offer_fast) declines, out of
    /// line so `offer` stays small where it is inlined.
    #[inline(never)]
    fn offer_general(&self, message: &[u8]) -> Result<i64> {
        self.offer_general_inline(message)
    }

    /// The general path of [`offer`](Self::offer) without the fast path's attempt, inlined:
    /// for a caller that already made that attempt (the C API's offer, whose own fast path
    /// declined), so a longer message costs it one call level, not three.
    #[inline(always)]
    pub fn offer_general_inline(&self, message: &[u8]) -> Result<i64> {
        let core = &*self.core;
        if message.len() > core.max_payload_length {
            return self.offer_parts(std::slice::from_ref(&message), None);
        }
        if core.is_closed() {
            return Ok(CLOSED);
        }
        let limit = core.position_limit();
        let Some(active) = self.active_term() else {
            return Ok(ADMIN_ACTION);
        };
        if active.position >= limit {
            return Ok(core.back_pressure_status(active.position, message.len()));
        }
        // The fast path's own completion, so a term end met here (where the fast path
        // declines) and a claim a concurrent publisher pushed over it run the same code.
        let (raw_tail, frame) = partition(&self.appenders, active.index).claim_frame(message.len());
        Ok(self
            .complete_claim_inline(message, PendingClaim { raw_tail, frame, term_count: active.term_count }))
    }

    /// Appends the concatenation of `parts` as one message (Aeron `offerv`).
    #[inline]
    pub fn offerv(&self, parts: &[&[u8]]) -> Result<i64> {
        self.offer_parts(parts, None)
    }

    /// As [`offerv`](Self::offerv), setting each frame's reserved value from
    /// `supplier(frame bytes)` just before the frame is published.
    pub fn offer_with_reserved_value(
        &self,
        parts: &[&[u8]],
        supplier: &mut dyn FnMut(&[u8]) -> i64,
    ) -> Result<i64> {
        self.offer_parts(parts, Some(supplier))
    }

    #[inline]
    fn offer_parts(&self, parts: &[&[u8]], supplier: Option<ReservedValueSupplier<'_>>) -> Result<i64> {
        let core = &*self.core;
        let length: usize = parts.iter().map(|p| p.len()).sum();
        core.check_message_length(length)?;
        if core.is_closed() {
            return Ok(CLOSED);
        }
        let limit = core.position_limit();
        let Some(active) = self.active_term() else {
            return Ok(ADMIN_ACTION);
        };
        if active.position >= limit {
            return Ok(core.back_pressure_status(active.position, length));
        }
        let outcome = partition(&self.appenders, active.index).appendv(
            &self.header,
            parts,
            core.max_payload_length,
            supplier,
            active.term_id,
        )?;
        Ok(self.new_position(&active, outcome))
    }

    /// Claims a frame for `length` bytes (at most the max payload length) to be written in
    /// place. Returns the new position and the claim, or a negative code and `None`. The
    /// claim must be committed or aborted promptly: readers wait at it until then.
    pub fn try_claim(&self, length: usize) -> Result<(i64, Option<BufferClaim<'_>>)> {
        let core = &*self.core;
        core.check_payload_length(length)?;
        if core.is_closed() {
            return Ok((CLOSED, None));
        }
        let limit = core.position_limit();
        let Some(active) = self.active_term() else {
            return Ok((ADMIN_ACTION, None));
        };
        if active.position >= limit {
            return Ok((core.back_pressure_status(active.position, length), None));
        }
        let (outcome, claim) =
            partition(&self.appenders, active.index).claim(&self.header, length, active.term_id);
        Ok((self.new_position(&active, outcome), claim))
    }

    /// Reads the active term; `None` while a rotation is half done (ADMIN_ACTION).
    #[inline(always)]
    fn active_term(&self) -> Option<ActiveTerm> {
        let core = &*self.core;
        let term_count = core.active_term_count();
        let index = index_by_active_term_count(term_count);
        let raw_tail = partition(&self.appenders, index).raw_tail_volatile();
        let term_id = term_id(raw_tail);
        if compute_term_count(term_id, core.initial_term_id) != term_count {
            return None;
        }
        let term_begin_position =
            compute_term_begin_position(term_id, core.position_bits_to_shift, core.initial_term_id);
        let position = term_begin_position + i64::from(term_offset(raw_tail, core.term_length));
        Some(ActiveTerm { term_count, index, term_id, term_begin_position, position })
    }

    /// Turns an append outcome into the new position, rotating the log when the term
    /// filled up (the caller retries on ADMIN_ACTION and lands in the next term).
    #[inline(always)]
    fn new_position(&self, active: &ActiveTerm, outcome: AppendOutcome) -> i64 {
        match outcome {
            AppendOutcome::Appended { resulting_offset, .. } => {
                active.term_begin_position + i64::from(resulting_offset)
            }
            AppendOutcome::Tripped { .. } | AppendOutcome::Failed { .. } => {
                let core = &*self.core;
                if active.term_begin_position + core.term_length as i64 >= core.max_possible_position {
                    return MAX_POSITION_EXCEEDED;
                }
                rotate_log(core.log.metadata(), active.term_count, active.term_id);
                ADMIN_ACTION
            }
        }
    }

    /// The position the next message would start at; CLOSED once closed.
    pub fn position(&self) -> i64 {
        if self.core.is_closed() {
            return CLOSED;
        }
        match self.active_term() {
            Some(active) => active.position,
            None => ADMIN_ACTION,
        }
    }

    /// The limit the driver set for this publication (CLOSED once closed).
    pub fn position_limit(&self) -> i64 {
        if self.core.is_closed() { CLOSED } else { self.core.position_limit() }
    }
}

publication_accessors!(Publication);

impl Drop for Publication {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Publication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publication")
            .field("channel", &self.core.info.channel)
            .field("stream_id", &self.core.info.stream_id)
            .field("session_id", &self.core.info.session_id)
            .field("registration_id", &self.core.info.registration_id)
            .finish()
    }
}
