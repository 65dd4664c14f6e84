//! `TermAppender`: appends frames to one term for concurrent publications — many threads
//! in many processes claim space with a get-and-add on the partition's raw tail
//! (`spec/log-buffer.md` §6.2-6.3).
#![forbid(unsafe_code)]

use std::sync::atomic::Ordering;

use crate::concurrent::{AtomicBuffer, AtomicI64Word, ClaimedRange};
use crate::logbuffer::buffer_claim::BufferClaim;
use crate::logbuffer::descriptor::{
    PARTITION_COUNT, compute_fragmented_length, compute_max_message_length, tail_counter_offset,
};
use crate::logbuffer::frame_descriptor::{aligned_frame_length, frame_length_ordered, set_frame_type};
use crate::logbuffer::header_writer::{HEADER_WORDS, HeaderWriter};
use crate::protocol::header::{
    BEGIN_FLAG, DATA_HEADER_LENGTH, END_FLAG, FLAGS_OFFSET, FRAME_ALIGNMENT, FRAME_LENGTH_OFFSET,
    HDR_TYPE_PAD, RESERVED_VALUE_OFFSET,
};
use crate::util::error::{Error, Result};

/// Computes the reserved value of a frame from the frame's bytes (header and payload,
/// `frame_length` long), called just before the frame is published (Aeron
/// `reserved_value_supplier`).
pub type ReservedValueSupplier<'a> = &'a mut ReservedValueFn<'a>;

/// The function behind a [`ReservedValueSupplier`].
pub type ReservedValueFn<'s> = dyn FnMut(&[u8]) -> i64 + 's;

/// What happened to an append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOutcome {
    /// Written at `term_offset` of `term_id`; the next frame starts at `resulting_offset`.
    Appended { term_id: i32, term_offset: i32, resulting_offset: i32 },
    /// TRIPPED: the claim crossed the end of the term and this caller wrote the padding
    /// frame from `term_offset` to the end. Nothing was appended: rotate the log and retry.
    Tripped { term_id: i32, term_offset: i32 },
    /// FAILED: nothing was appended — the term was already past its end (another publisher
    /// tripped it), or the claim landed in a term other than the caller's active one (a
    /// rotation overtook it; the claimed space was turned into padding). Rotate and retry.
    Failed { term_id: i32 },
}

impl AppendOutcome {
    /// The offset after the appended frame(s), if the append succeeded.
    pub fn resulting_offset(&self) -> Option<i32> {
        match *self {
            AppendOutcome::Appended { resulting_offset, .. } => Some(resulting_offset),
            _ => None,
        }
    }
}

/// Appender over one partition of a log.
#[derive(Debug, Clone)]
pub struct TermAppender {
    term: AtomicBuffer,
    /// This partition's raw tail in the log metadata.
    raw_tail: AtomicI64Word,
}

impl TermAppender {
    /// An appender for `term` (partition `partition_index`) whose tail lives in `metadata`.
    pub fn new(term: AtomicBuffer, metadata: AtomicBuffer, partition_index: usize) -> Result<Self> {
        let raw_tail = checked_raw_tail(&term, &metadata, partition_index)?;
        Ok(Self { term, raw_tail })
    }

    pub fn term(&self) -> &AtomicBuffer {
        &self.term
    }

    /// Acquire load of this partition's raw tail.
    #[inline]
    pub fn raw_tail_volatile(&self) -> i64 {
        self.raw_tail.get().load(Ordering::Acquire)
    }

    /// Claims `length` bytes; returns the raw tail before the claim and the range it
    /// reserved in the term (clipped to the term's end). SeqCst RMW: every publisher gets a
    /// distinct range, and the claim is ordered after the caller's reads of the active term
    /// count and limit.
    #[inline]
    fn get_and_add_raw_tail(&self, length: usize) -> (i64, ClaimedRange<'_>) {
        self.term.claim_get_and_add(self.raw_tail.get(), length)
    }

    /// Appends `payload` as one message: unfragmented when it fits `max_payload_length`,
    /// else fragmented; an error if it exceeds the max message length (`min(T/8, 16 MiB)`).
    pub fn append(
        &self,
        header: &HeaderWriter,
        payload: &[u8],
        max_payload_length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> Result<AppendOutcome> {
        self.appendv(header, std::slice::from_ref(&payload), max_payload_length, supplier, active_term_id)
    }

    /// [`append`](Self::append) of the concatenation of `parts` (Aeron `offerv`).
    pub fn appendv(
        &self,
        header: &HeaderWriter,
        parts: &[&[u8]],
        max_payload_length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> Result<AppendOutcome> {
        let length: usize = parts.iter().map(|p| p.len()).sum();
        if length <= max_payload_length {
            return Ok(self.append_unfragmentedv(header, parts, length, supplier, active_term_id));
        }
        check_message_length(length, self.term.capacity())?;
        if max_payload_length == 0 {
            return Err(Error::invalid_argument("max payload length is 0"));
        }
        Ok(self.append_fragmentedv(header, parts, length, max_payload_length, supplier, active_term_id))
    }

    /// Appends `payload` as a single frame (the caller checked it fits the max payload).
    #[inline]
    pub fn append_unfragmented(
        &self,
        header: &HeaderWriter,
        payload: &[u8],
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> AppendOutcome {
        // One slice, without the gather loop of the vectored form.
        let (raw_tail, frame) = self.claim_frame(payload.len());
        self.complete_claim(header, payload, raw_tail, frame, supplier, active_term_id)
    }

    /// Claims the space of one frame of `payload_length` bytes; returns the raw tail before
    /// the claim and the claimed range, for [`complete_claim`](Self::complete_claim).
    #[inline]
    pub fn claim_frame(&self, payload_length: usize) -> (i64, ClaimedRange<'_>) {
        self.get_and_add_raw_tail(aligned_frame_length(payload_length + DATA_HEADER_LENGTH))
    }

    /// Finishes the one-frame append of `payload` whose space was claimed by the get-and-add
    /// that returned `raw_tail` and `frame`: pads and trips the term when the claim crossed
    /// its end (or landed in another term), else writes and publishes the frame.
    #[inline]
    pub fn complete_claim(
        &self,
        header: &HeaderWriter,
        payload: &[u8],
        raw_tail: i64,
        mut frame: ClaimedRange<'_>,
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> AppendOutcome {
        let frame_length = payload.len() + DATA_HEADER_LENGTH;
        let (term_id, term_offset) = split(raw_tail);
        let resulting = term_offset + aligned_frame_length(frame_length) as i64;
        if let Some(outcome) = self.check_claim(header, term_id, term_offset, resulting, active_term_id) {
            return outcome;
        }
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        frame.put_bytes(DATA_HEADER_LENGTH, payload);
        publish(&self.term, offset, frame_length, (&frame, 0), supplier);
        AppendOutcome::Appended { term_id, term_offset: offset as i32, resulting_offset: resulting as i32 }
    }

    /// The one-frame append of a payload of at most
    /// [`INLINE_COPY_MAX`](crate::concurrent::byte_copy::INLINE_COPY_MAX) bytes with nothing
    /// that can panic or call out of line: the offer fast path. `Ok(resulting term offset)`
    /// once the frame is published; `Err((raw tail, claimed range))` when the claim must be finished by
    /// [`complete_claim`](Self::complete_claim) — it crossed the term end or landed in
    /// another term (a concurrent publisher got there first), or the frame did not lie in
    /// the term as checked (which the log's validation excludes).
    #[inline(always)]
    pub fn append_small(
        &self,
        header: &HeaderWriter,
        payload: &[u8],
        active_term_id: i32,
    ) -> std::result::Result<i32, (i64, ClaimedRange<'_>)> {
        let frame_length = payload.len() + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        // The claim's one range check: whether the frame lies wholly in the term (else it
        // crossed the end, and `complete_claim` trips the term).
        let (raw_tail, claimed) = self.term.claim_get_and_add_exact(self.raw_tail.get(), aligned);
        let frame = match claimed {
            Ok(frame) => frame,
            Err(clipped) => return Err((raw_tail, clipped)),
        };
        let (term_id, term_offset) = split(raw_tail);
        if term_id != active_term_id {
            return Err((raw_tail, frame));
        }
        // The range is exactly `aligned` long, so of its checks only the alignment is left.
        let frame = match frame.try_frame::<DATA_HEADER_LENGTH, FRAME_ALIGNMENT, HEADER_WORDS>(payload) {
            Ok(frame) => frame,
            Err(frame) => return Err((raw_tail, frame)),
        };
        let offset = term_offset as usize;
        header.write_words(frame.head(), offset, frame_length as i32, term_id);
        let words = frame.put_body();
        // Release: header and payload are visible to whoever acquires the positive length.
        words[FRAME_LENGTH_OFFSET / 4].store(frame_length as i32, Ordering::Release);
        Ok((term_offset + aligned as i64) as i32)
    }

    #[inline]
    fn append_unfragmentedv(
        &self,
        header: &HeaderWriter,
        parts: &[&[u8]],
        length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> AppendOutcome {
        let frame_length = length + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let (raw_tail, mut frame) = self.get_and_add_raw_tail(aligned);
        let (term_id, term_offset) = split(raw_tail);
        let resulting = term_offset + aligned as i64;
        if let Some(outcome) = self.check_claim(header, term_id, term_offset, resulting, active_term_id) {
            return outcome;
        }
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        copy_parts(&mut frame, DATA_HEADER_LENGTH, parts, 0, length);
        publish(&self.term, offset, frame_length, (&frame, 0), supplier);
        AppendOutcome::Appended { term_id, term_offset: offset as i32, resulting_offset: resulting as i32 }
    }

    /// Appends `payload` as BEGIN…END fragments of at most `max_payload_length` bytes each,
    /// all claimed with one get-and-add.
    pub fn append_fragmented(
        &self,
        header: &HeaderWriter,
        payload: &[u8],
        max_payload_length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> AppendOutcome {
        let parts = std::slice::from_ref(&payload);
        self.append_fragmentedv(header, parts, payload.len(), max_payload_length, supplier, active_term_id)
    }

    fn append_fragmentedv(
        &self,
        header: &HeaderWriter,
        parts: &[&[u8]],
        length: usize,
        max_payload_length: usize,
        mut supplier: Option<ReservedValueSupplier<'_>>,
        active_term_id: i32,
    ) -> AppendOutcome {
        let required = compute_fragmented_length(length, max_payload_length);
        let (raw_tail, mut claimed) = self.get_and_add_raw_tail(required);
        let (term_id, term_offset) = split(raw_tail);
        let resulting = term_offset + required as i64;
        if let Some(outcome) = self.check_claim(header, term_id, term_offset, resulting, active_term_id) {
            return outcome;
        }
        write_fragments(
            &self.term,
            &mut claimed,
            header,
            term_offset as usize,
            term_id,
            parts,
            length,
            max_payload_length,
            &mut supplier,
        );
        AppendOutcome::Appended {
            term_id,
            term_offset: term_offset as i32,
            resulting_offset: resulting as i32,
        }
    }

    /// Claims a frame for `length` payload bytes (≤ max payload, checked by the caller) to be
    /// written in place; the claim is returned with [`AppendOutcome::Appended`].
    pub fn claim(
        &self,
        header: &HeaderWriter,
        length: usize,
        active_term_id: i32,
    ) -> (AppendOutcome, Option<BufferClaim<'_>>) {
        let frame_length = length + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let (raw_tail, frame) = self.get_and_add_raw_tail(aligned);
        let (term_id, term_offset) = split(raw_tail);
        let resulting = term_offset + aligned as i64;
        if let Some(outcome) = self.check_claim(header, term_id, term_offset, resulting, active_term_id) {
            return (outcome, None);
        }
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        let outcome = AppendOutcome::Appended {
            term_id,
            term_offset: offset as i32,
            resulting_offset: resulting as i32,
        };
        (outcome, Some(BufferClaim::new(&self.term, offset, length, frame)))
    }

    /// `None` when the claim `[term_offset, resulting)` in `term_id` may be written;
    /// otherwise handles the end of the term or a stale term id and says what happened.
    #[inline]
    fn check_claim(
        &self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i64,
        resulting: i64,
        active_term_id: i32,
    ) -> Option<AppendOutcome> {
        let term_length = self.term.capacity() as i64;
        if resulting > term_length {
            return Some(handle_end_of_log_condition(&self.term, header, term_offset, term_id));
        }
        if term_id != active_term_id {
            // The space is ours but in a term the caller did not check limits for: pad it so
            // readers are not blocked behind it, and report failure.
            write_padding(
                &self.term,
                header,
                term_offset as usize,
                (resulting - term_offset) as i32,
                term_id,
            );
            return Some(AppendOutcome::Failed { term_id });
        }
        None
    }
}

/// Validates an appender's term and partition and returns the partition's raw tail word in
/// `metadata`, checked once so the hot path's tail accesses cannot fail.
pub(crate) fn checked_raw_tail(
    term: &AtomicBuffer,
    metadata: &AtomicBuffer,
    partition_index: usize,
) -> Result<AtomicI64Word> {
    if partition_index >= PARTITION_COUNT {
        return Err(Error::invalid_argument(format!(
            "partition index {partition_index} >= {PARTITION_COUNT}"
        )));
    }
    crate::logbuffer::descriptor::check_term_length(term.capacity())?;
    AtomicI64Word::new(metadata, tail_counter_offset(partition_index))
}

/// Errors for a message longer than the max message length of a term of `term_length`.
pub fn check_message_length(length: usize, term_length: usize) -> Result<()> {
    let max = compute_max_message_length(term_length);
    if length > max {
        return Err(Error::invalid_argument(format!("length={length} > max_message_length={max}")));
    }
    Ok(())
}

#[inline]
fn split(raw_tail: i64) -> (i32, i64) {
    (crate::logbuffer::descriptor::term_id(raw_tail), raw_tail & 0xFFFF_FFFF)
}

/// Stores the reserved value (if a supplier is given) and publishes the frame, which starts
/// `at` bytes into `claimed`.
#[inline]
pub(crate) fn publish<'s>(
    term: &AtomicBuffer,
    frame_offset: usize,
    frame_length: usize,
    (claimed, at): (&ClaimedRange<'_>, usize),
    supplier: Option<&mut ReservedValueFn<'s>>,
) {
    if let Some(supplier) = supplier {
        let value = supplier(&claimed.as_slice()[at..at + frame_length]);
        term.put_i64(frame_offset + RESERVED_VALUE_OFFSET, value);
    }
    // Release: header, payload and reserved value are visible to whoever acquires the length.
    frame_length_ordered(term, frame_offset, frame_length as i32);
}

/// Copies `length` bytes of the concatenation of `parts`, starting `skip` bytes into it,
/// to `dst_offset` of the claimed range.
#[inline]
pub(crate) fn copy_parts(
    claimed: &mut ClaimedRange<'_>,
    mut dst_offset: usize,
    parts: &[&[u8]],
    mut skip: usize,
    length: usize,
) {
    let mut remaining = length;
    for part in parts {
        if remaining == 0 {
            break;
        }
        if skip >= part.len() {
            skip -= part.len();
            continue;
        }
        let n = (part.len() - skip).min(remaining);
        claimed.put_bytes(dst_offset, &part[skip..skip + n]);
        dst_offset += n;
        remaining -= n;
        skip = 0;
    }
}

/// Writes the fragments of a message of `length` bytes from `frame_offset` on, into
/// `claimed`, the range claimed for them all (starting at `frame_offset`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_fragments(
    term: &AtomicBuffer,
    claimed: &mut ClaimedRange<'_>,
    header: &HeaderWriter,
    mut frame_offset: usize,
    term_id: i32,
    parts: &[&[u8]],
    length: usize,
    max_payload_length: usize,
    supplier: &mut Option<ReservedValueSupplier<'_>>,
) {
    let start = frame_offset;
    let mut flags = BEGIN_FLAG;
    let mut written = 0;
    loop {
        let remaining = length - written;
        let chunk = remaining.min(max_payload_length);
        let frame_length = chunk + DATA_HEADER_LENGTH;
        header.write(term, frame_offset, frame_length as i32, term_id);
        copy_parts(claimed, frame_offset - start + DATA_HEADER_LENGTH, parts, written, chunk);
        if remaining <= max_payload_length {
            flags |= END_FLAG;
        }
        term.put_u8(frame_offset + FLAGS_OFFSET, flags);
        publish(term, frame_offset, frame_length, (claimed, frame_offset - start), supplier.as_deref_mut());
        flags = 0;
        written += chunk;
        frame_offset += aligned_frame_length(frame_length);
        if written >= length {
            break;
        }
    }
}

/// Writes a PAD frame of `length` bytes at `frame_offset` (negative length first, as any
/// header, then the type, then the positive length with release).
pub(crate) fn write_padding(
    term: &AtomicBuffer,
    header: &HeaderWriter,
    frame_offset: usize,
    length: i32,
    term_id: i32,
) {
    header.write(term, frame_offset, length, term_id);
    set_frame_type(term, frame_offset, HDR_TYPE_PAD);
    // Release: the PAD type is visible with the length.
    frame_length_ordered(term, frame_offset, length);
}

/// The claim crossed the end of the term: pad from `term_offset` to the end if this claim
/// is the one that crossed it (TRIPPED), else report FAILED.
pub(crate) fn handle_end_of_log_condition(
    term: &AtomicBuffer,
    header: &HeaderWriter,
    term_offset: i64,
    term_id: i32,
) -> AppendOutcome {
    let term_length = term.capacity() as i64;
    if term_offset < term_length {
        write_padding(term, header, term_offset as usize, (term_length - term_offset) as i32, term_id);
        AppendOutcome::Tripped { term_id, term_offset: term_offset as i32 }
    } else {
        AppendOutcome::Failed { term_id }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::descriptor::{initialise_tails, pack_tail, raw_tail};
    use crate::logbuffer::log_buffers::LogBuffers;
    use crate::protocol::header::{TYPE_OFFSET, UNFRAGMENTED};

    const T: usize = 65536;

    fn log_at(term_id: i32, term_offset: i32) -> (LogBuffers, TermAppender) {
        let log = LogBuffers::alloc(T, 4096).unwrap();
        initialise_tails(log.metadata(), term_id, term_id, term_offset).unwrap();
        let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
        (log, appender)
    }

    #[test]
    fn unfragmented_append_writes_exact_frame() {
        let (log, appender) = log_at(1000, 40992);
        let header = HeaderWriter::new(5, 6);
        let outcome = appender.append_unfragmented(&header, &[0x11], None, 1000);
        assert_eq!(
            outcome,
            AppendOutcome::Appended { term_id: 1000, term_offset: 40992, resulting_offset: 41056 }
        );
        let term = log.term(0);
        let mut frame = [0u8; 64];
        term.load_bytes(40992, &mut frame);
        assert_eq!(&frame[..8], &[33, 0, 0, 0, 0, UNFRAGMENTED, 1, 0]);
        assert_eq!(&frame[8..24], &[0x20, 0xA0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0xe8, 3, 0, 0]);
        assert_eq!(&frame[24..33], &[0, 0, 0, 0, 0, 0, 0, 0, 0x11]);
        assert!(frame[33..].iter().all(|&b| b == 0));
        assert_eq!(raw_tail(log.metadata(), 0), pack_tail(1000, 41056));
    }

    #[test]
    fn supplier_sets_reserved_value_from_frame() {
        let (log, appender) = log_at(7, 0);
        let mut supplier = |frame: &[u8]| frame.len() as i64 * 1000 + i64::from(frame[32]);
        let outcome =
            appender.append(&HeaderWriter::new(1, 2), &[9, 9, 9], 1376, Some(&mut supplier), 7).unwrap();
        assert_eq!(outcome.resulting_offset(), Some(64));
        assert_eq!(log.term(0).get_i64(RESERVED_VALUE_OFFSET), 35_009);
    }

    #[test]
    fn crossing_the_end_trips_then_fails() {
        let (log, appender) = log_at(3, (T - 64) as i32);
        let header = HeaderWriter::new(1, 2);
        assert_eq!(
            appender.append_unfragmented(&header, &[0; 100], None, 3),
            AppendOutcome::Tripped { term_id: 3, term_offset: (T - 64) as i32 }
        );
        let term = log.term(0);
        assert_eq!(term.get_i32(T - 64), 64);
        assert_eq!(term.get_u16(T - 64 + TYPE_OFFSET), HDR_TYPE_PAD);
        assert_eq!(
            appender.append_unfragmented(&header, &[0; 1], None, 3),
            AppendOutcome::Failed { term_id: 3 }
        );
        assert_eq!(term.get_i32(T - 64), 64, "second caller does not rewrite the padding");
    }

    #[test]
    fn small_append_writes_the_same_frame_as_the_general_one() {
        for length in [0usize, 1, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 96, 100, 200, 255, 256] {
            let payload: Vec<u8> = (0..length).map(|i| i as u8 ^ 0x5a).collect();
            let (general_log, general) = log_at(1000, 40992);
            let (small_log, small) = log_at(1000, 40992);
            let header = HeaderWriter::new(5, 6);
            let outcome = general.append_unfragmented(&header, &payload, None, 1000);
            let resulting = small.append_small(&header, &payload, 1000);
            assert_eq!(Some(resulting.expect("appended")), outcome.resulting_offset(), "length {length}");
            let (mut expected, mut actual) = ([0u8; 320], [0u8; 320]);
            general_log.term(0).load_bytes(40992, &mut expected);
            small_log.term(0).load_bytes(40992, &mut actual);
            assert_eq!(actual, expected, "length {length}");
            assert_eq!(raw_tail(small_log.metadata(), 0), raw_tail(general_log.metadata(), 0));
        }
    }

    #[test]
    fn small_append_hands_back_claims_it_cannot_finish() {
        // Across the term end: claimed, nothing written; completing it pads and trips.
        let (log, appender) = log_at(3, (T - 32) as i32);
        let header = HeaderWriter::new(1, 2);
        let (raw, frame) = appender.append_small(&header, &[7; 8], 3).expect_err("crosses the end");
        assert_eq!(raw, pack_tail(3, (T - 32) as i32));
        assert_eq!(frame.len(), 32, "the claim, clipped to the term end");
        assert_eq!(log.term(0).get_i32(T - 32), 0, "nothing written before completion");
        assert_eq!(
            appender.complete_claim(&header, &[7; 8], raw, frame, None, 3),
            AppendOutcome::Tripped { term_id: 3, term_offset: (T - 32) as i32 }
        );
        assert_eq!(log.term(0).get_i32(T - 32), 32);
        assert_eq!(log.term(0).get_u16(T - 32 + TYPE_OFFSET), HDR_TYPE_PAD);
        // In another term than the caller checked: handed back, completion pads it.
        let (log, appender) = log_at(3, 0);
        let (raw, frame) = appender.append_small(&header, &[1; 10], 2).expect_err("stale term id");
        assert_eq!(
            appender.complete_claim(&header, &[1; 10], raw, frame, None, 2),
            AppendOutcome::Failed { term_id: 3 }
        );
        assert_eq!(log.term(0).get_u16(TYPE_OFFSET), HDR_TYPE_PAD);
        assert_eq!(log.term(0).get_i32(0), 64);
    }

    #[test]
    fn stale_term_id_pads_the_claim() {
        let (log, appender) = log_at(3, 0);
        let outcome = appender.append_unfragmented(&HeaderWriter::new(1, 2), &[1; 10], None, 2);
        assert_eq!(outcome, AppendOutcome::Failed { term_id: 3 });
        assert_eq!(log.term(0).get_i32(0), 64);
        assert_eq!(log.term(0).get_u16(TYPE_OFFSET), HDR_TYPE_PAD);
    }

    #[test]
    fn fragmented_and_vectored_appends() {
        let (log, appender) = log_at(0, 0);
        let header = HeaderWriter::new(1, 2);
        let message: Vec<u8> = (0..4000u32).map(|j| (j % 251) as u8).collect();
        let parts: [&[u8]; 3] = [&message[..10], &message[10..1500], &message[1500..]];
        let outcome = appender.appendv(&header, &parts, 1376, None, 0).unwrap();
        assert_eq!(outcome.resulting_offset(), Some(4096));
        let term = log.term(0);
        for (offset, length, flags, start) in
            [(0, 1408, 0x80, 0), (1408, 1408, 0, 1376), (2816, 1280, 0x40, 2752)]
        {
            assert_eq!(term.get_i32(offset), length);
            assert_eq!(term.get_u8(offset + FLAGS_OFFSET), flags);
            let payload = term.load_vec(offset + 32, length as usize - 32);
            assert_eq!(payload, &message[start..start + length as usize - 32]);
        }
        let err = appender.append(&header, &vec![0; 8193], 1376, None, 0).unwrap_err();
        assert_eq!(err.message(), "length=8193 > max_message_length=8192");
    }

    #[test]
    fn claim_commit_and_abort() {
        let (log, appender) = log_at(0, 0);
        let header = HeaderWriter::new(1, 2);
        let (outcome, claim) = appender.claim(&header, 24, 0);
        assert_eq!(outcome.resulting_offset(), Some(64));
        let mut claim = claim.unwrap();
        assert_eq!(log.term(0).get_i32(0), -56);
        claim.buffer().copy_from_slice(&[0xA5; 24]);
        claim.set_reserved_value(0x0123_4567_89AB_CDEF);
        claim.commit();
        assert_eq!(log.term(0).get_i32(0), 56);
        assert_eq!(log.term(0).get_i64(24), 0x0123_4567_89AB_CDEF);
        let (_, claim) = appender.claim(&header, 8, 0);
        claim.unwrap().abort();
        assert_eq!(log.term(0).get_i32(64), 40);
        assert_eq!(log.term(0).get_u16(64 + TYPE_OFFSET), HDR_TYPE_PAD);
    }
}
