//! `ExclusiveTermAppender`: appends to one term for an exclusive publication — a single
//! writer that tracks term id and offset itself and publishes the tail with a plain release
//! store instead of a get-and-add (`spec/log-buffer.md` §6.4).
#![forbid(unsafe_code)]

use std::sync::atomic::Ordering;

use crate::concurrent::{AtomicBuffer, ClaimedRange, ExclusiveTail};
use crate::logbuffer::buffer_claim::BufferClaim;
use crate::logbuffer::descriptor::{compute_fragmented_length, pack_tail};
use crate::logbuffer::frame_descriptor::{aligned_frame_length, frame_length_ordered};
use crate::logbuffer::header_writer::{HEADER_WORDS, HeaderWriter};
use crate::logbuffer::term_appender::{
    AppendOutcome, ReservedValueSupplier, check_message_length, checked_raw_tail, copy_parts,
    handle_end_of_log_condition, publish, write_fragments, write_padding,
};
use crate::protocol::header::{
    DATA_HEADER_LENGTH, FRAME_ALIGNMENT, FRAME_LENGTH_OFFSET, HDR_TYPE_DATA, SESSION_ID_FIELD_OFFSET,
    STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET,
};
use crate::util::error::{Error, Result};

/// Single-writer appender over one partition: it owns the partition's tail (an
/// [`ExclusiveTail`], one per term in the process), so appends take `&mut self`.
#[derive(Debug)]
pub struct ExclusiveTermAppender {
    term: AtomicBuffer,
    /// This partition's raw tail in the log metadata, owned by this appender.
    raw_tail: ExclusiveTail,
}

/// Where a reservation stands: the new tail and the claimed range, or the end-of-term
/// outcome already handled.
type Reserved<'a> = std::result::Result<(i64, ClaimedRange<'a>), AppendOutcome>;

impl ExclusiveTermAppender {
    /// An appender for `term` (partition `partition_index`) whose tail lives in `metadata`;
    /// an error if another exclusive appender owns the term meanwhile.
    pub fn new(term: AtomicBuffer, metadata: AtomicBuffer, partition_index: usize) -> Result<Self> {
        let raw_tail =
            ExclusiveTail::new(term.clone(), checked_raw_tail(&term, &metadata, partition_index)?)?;
        Ok(Self { term, raw_tail })
    }

    pub fn term(&self) -> &AtomicBuffer {
        &self.term
    }

    /// Reserves `[term_offset, term_offset + length)`, storing the new tail with release
    /// (the driver and other processes reading the tail see a consistent value; stored
    /// before the frame is written, as Aeron does, so the producer position never lags a
    /// published frame). The claimed range, or the end-of-term outcome when it does not fit.
    #[inline]
    fn reserve<'a>(
        raw_tail: &'a mut ExclusiveTail,
        term: &AtomicBuffer,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        length: usize,
    ) -> Reserved<'a> {
        let term_offset = i64::from(term_offset);
        let resulting = term_offset + length as i64;
        let claimed = raw_tail.claim(pack_tail(term_id, resulting as i32), term_offset as usize, length);
        if resulting > term.capacity() as i64 {
            return Err(handle_end_of_log_condition(term, header, term_offset, term_id));
        }
        Ok((resulting, claimed))
    }

    /// Appends a message at `term_offset` of `term_id`: unfragmented if it fits the max
    /// payload, else fragmented; an error beyond the max message length.
    pub fn append(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        payload: &[u8],
        max_payload_length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
    ) -> Result<AppendOutcome> {
        self.appendv(
            header,
            term_id,
            term_offset,
            std::slice::from_ref(&payload),
            max_payload_length,
            supplier,
        )
    }

    /// [`append`](Self::append) of the concatenation of `parts`.
    pub fn appendv(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        parts: &[&[u8]],
        max_payload_length: usize,
        mut supplier: Option<ReservedValueSupplier<'_>>,
    ) -> Result<AppendOutcome> {
        let length: usize = parts.iter().map(|p| p.len()).sum();
        if length <= max_payload_length {
            return Ok(self.append_unfragmentedv(header, term_id, term_offset, parts, length, supplier));
        }
        check_message_length(length, self.term.capacity())?;
        if max_payload_length == 0 {
            return Err(Error::invalid_argument("max payload length is 0"));
        }
        let required = compute_fragmented_length(length, max_payload_length);
        let (resulting, mut claimed) =
            match Self::reserve(&mut self.raw_tail, &self.term, header, term_id, term_offset, required) {
                Ok(reserved) => reserved,
                Err(outcome) => return Ok(outcome),
            };
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
        Ok(AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 })
    }

    /// Appends `payload` as one frame (the caller checked it fits the max payload).
    #[inline]
    pub fn append_unfragmented(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        payload: &[u8],
        supplier: Option<ReservedValueSupplier<'_>>,
    ) -> AppendOutcome {
        // One slice: the hot path of `offer`, without the gather loop of the vectored form.
        let frame_length = payload.len() + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let (resulting, mut frame) =
            match Self::reserve(&mut self.raw_tail, &self.term, header, term_id, term_offset, aligned) {
                Ok(reserved) => reserved,
                Err(outcome) => return outcome,
            };
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        frame.put_bytes(DATA_HEADER_LENGTH, payload);
        publish(&self.term, offset, frame_length, (&frame, 0), supplier);
        AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 }
    }

    /// The one-frame append of a payload of at most
    /// [`INLINE_COPY_MAX`](crate::concurrent::byte_copy::INLINE_COPY_MAX) bytes at
    /// `term_offset` with nothing that can panic or call out of line: the offer fast path.
    /// The resulting term offset once the frame is published; `None` when it would cross the
    /// term end or does not lie in the term as checked — the tail and the term are then
    /// untouched and the general path appends.
    #[inline(always)]
    pub fn append_small(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        payload: &[u8],
    ) -> Option<i32> {
        let frame_length = payload.len() + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        // Through u32: the offset is below 2^32 for the optimizer, so the claim's one range
        // check needs no overflow test; a negative offset (which the publication never
        // keeps) would lie past any term, and is refused there.
        let offset = term_offset as u32 as usize;
        // The one check of the frame's place: it lies in the term (else the general path
        // trips the term), and `try_frame` sees the exact length it claimed.
        let (claimed, raw_tail) = self.raw_tail.try_claim_deferred(offset, aligned)?;
        let frame = claimed.try_frame::<DATA_HEADER_LENGTH, FRAME_ALIGNMENT, HEADER_WORDS>(payload).ok()?;
        header.write_words(frame.head(), offset, frame_length as i32, term_id);
        let words = frame.put_body();
        let resulting = offset + aligned;
        // The tail still goes out before the frame does, so the producer position never
        // lags a published frame.
        raw_tail.store(pack_tail(term_id, resulting as i32), Ordering::Release);
        // Release: header and payload are visible to whoever acquires the positive length.
        words[FRAME_LENGTH_OFFSET / 4].store(frame_length as i32, Ordering::Release);
        Some(resulting as i32)
    }

    #[inline]
    fn append_unfragmentedv(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        parts: &[&[u8]],
        length: usize,
        supplier: Option<ReservedValueSupplier<'_>>,
    ) -> AppendOutcome {
        let frame_length = length + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let (resulting, mut frame) =
            match Self::reserve(&mut self.raw_tail, &self.term, header, term_id, term_offset, aligned) {
                Ok(reserved) => reserved,
                Err(outcome) => return outcome,
            };
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        copy_parts(&mut frame, DATA_HEADER_LENGTH, parts, 0, length);
        publish(&self.term, offset, frame_length, (&frame, 0), supplier);
        AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 }
    }

    /// Claims a frame of `length` payload bytes to be written in place.
    pub fn claim(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        length: usize,
    ) -> (AppendOutcome, Option<BufferClaim<'_>>) {
        let frame_length = length + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let (resulting, frame) =
            match Self::reserve(&mut self.raw_tail, &self.term, header, term_id, term_offset, aligned) {
                Ok(reserved) => reserved,
                Err(outcome) => return (outcome, None),
            };
        let offset = term_offset as usize;
        header.write(&self.term, offset, frame_length as i32, term_id);
        let outcome = AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 };
        (outcome, Some(BufferClaim::new(&self.term, offset, length, frame)))
    }

    /// Appends a PAD frame whose body is `length` bytes (Aeron `appendPadding`).
    pub fn append_padding(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        length: usize,
    ) -> AppendOutcome {
        let frame_length = length + DATA_HEADER_LENGTH;
        let aligned = aligned_frame_length(frame_length);
        let resulting =
            match Self::reserve(&mut self.raw_tail, &self.term, header, term_id, term_offset, aligned) {
                Ok((resulting, _)) => resulting,
                Err(outcome) => return outcome,
            };
        write_padding(&self.term, header, term_offset as usize, frame_length as i32, term_id);
        AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 }
    }

    /// Copies a block of pre-formatted frames to `term_offset` (Aeron `offerBlock`). The
    /// first frame must be a DATA frame stamped with this position and stream; the block is
    /// copied, then its first frame length is stored last with release, publishing it all.
    pub fn append_block(
        &mut self,
        header: &HeaderWriter,
        term_id: i32,
        term_offset: i32,
        block: &[u8],
    ) -> Result<AppendOutcome> {
        check_block(header, term_id, term_offset, block, self.term.capacity())?;
        let resulting = i64::from(term_offset) + block.len() as i64;
        let offset = term_offset as usize;
        let first_frame_length = i32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        let mut claimed = self.raw_tail.claim(pack_tail(term_id, resulting as i32), offset, block.len());
        claimed.put_bytes(4, &block[4..]);
        frame_length_ordered(&self.term, offset, first_frame_length);
        Ok(AppendOutcome::Appended { term_id, term_offset, resulting_offset: resulting as i32 })
    }
}

fn check_block(
    header: &HeaderWriter,
    term_id: i32,
    term_offset: i32,
    block: &[u8],
    term_length: usize,
) -> Result<()> {
    let field = |o: usize| i32::from_le_bytes([block[o], block[o + 1], block[o + 2], block[o + 3]]);
    if block.len() < DATA_HEADER_LENGTH || block.len() % FRAME_ALIGNMENT != 0 {
        return Err(Error::invalid_argument(format!("invalid block length {}", block.len())));
    }
    if term_offset < 0 || term_offset as usize + block.len() > term_length {
        return Err(Error::invalid_argument(format!(
            "block of {} bytes at term offset {term_offset} exceeds term length {term_length}",
            block.len()
        )));
    }
    let frame_type = u16::from_le_bytes([block[TYPE_OFFSET], block[TYPE_OFFSET + 1]]);
    let checks = [
        ("frame length", field(0) > 0 && field(0) as usize <= block.len(), field(0)),
        ("frame type", frame_type == HDR_TYPE_DATA, i32::from(frame_type)),
        ("term offset", field(TERM_OFFSET_FIELD_OFFSET) == term_offset, field(TERM_OFFSET_FIELD_OFFSET)),
        ("session id", field(SESSION_ID_FIELD_OFFSET) == header.session_id(), field(SESSION_ID_FIELD_OFFSET)),
        ("stream id", field(STREAM_ID_FIELD_OFFSET) == header.stream_id(), field(STREAM_ID_FIELD_OFFSET)),
        ("term id", field(TERM_ID_FIELD_OFFSET) == term_id, field(TERM_ID_FIELD_OFFSET)),
    ];
    for (name, ok, value) in checks {
        if !ok {
            return Err(Error::invalid_argument(format!("improperly formatted block: {name}={value}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::descriptor::{initialise_tails, raw_tail};
    use crate::logbuffer::log_buffers::LogBuffers;
    use crate::protocol::header::HDR_TYPE_PAD;

    fn setup() -> (LogBuffers, ExclusiveTermAppender) {
        let log = LogBuffers::alloc(65536, 4096).unwrap();
        initialise_tails(log.metadata(), 9, 9, 0).unwrap();
        let appender = ExclusiveTermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
        (log, appender)
    }

    #[test]
    fn appends_publish_tail_first_and_frames_after() {
        let (log, mut appender) = setup();
        let header = HeaderWriter::new(3, 4);
        let outcome = appender.append_unfragmented(&header, 9, 0, &[1; 32], None);
        assert_eq!(outcome, AppendOutcome::Appended { term_id: 9, term_offset: 0, resulting_offset: 64 });
        assert_eq!(raw_tail(log.metadata(), 0), pack_tail(9, 64));
        assert_eq!(log.term(0).get_i32(0), 64);
        let outcome = appender.append_padding(&header, 9, 64, 100);
        assert_eq!(outcome.resulting_offset(), Some(64 + 160));
        assert_eq!(log.term(0).get_i32(64), 132);
        assert_eq!(log.term(0).get_u16(64 + TYPE_OFFSET), HDR_TYPE_PAD);
    }

    #[test]
    fn small_append_writes_the_same_frame_and_tail_as_the_general_one() {
        for length in [0usize, 1, 5, 8, 15, 16, 31, 32, 40, 63, 64, 65, 97, 200, 255, 256] {
            let payload: Vec<u8> = (0..length).map(|i| i as u8 ^ 0xa5).collect();
            let (general_log, mut general) = setup();
            let (small_log, mut small) = setup();
            let header = HeaderWriter::new(3, 4);
            let outcome = general.append_unfragmented(&header, 9, 128, &payload, None);
            let resulting = small.append_small(&header, 9, 128, &payload);
            assert_eq!(resulting, outcome.resulting_offset(), "length {length}");
            let (mut expected, mut actual) = ([0u8; 448], [0u8; 448]);
            general_log.term(0).load_bytes(0, &mut expected);
            small_log.term(0).load_bytes(0, &mut actual);
            assert_eq!(actual, expected, "length {length}");
            assert_eq!(raw_tail(small_log.metadata(), 0), raw_tail(general_log.metadata(), 0));
        }
    }

    #[test]
    fn small_append_declines_the_term_end_leaving_the_tail() {
        let (log, mut appender) = setup();
        let header = HeaderWriter::new(3, 4);
        let before = raw_tail(log.metadata(), 0);
        assert_eq!(appender.append_small(&header, 9, 65536 - 32, &[1; 8]), None);
        assert_eq!(raw_tail(log.metadata(), 0), before, "tail untouched");
        assert_eq!(log.term(0).get_i32(65536 - 32), 0, "nothing written");
        assert_eq!(appender.append_small(&header, 9, 65536 - 64, &[1; 32]), Some(65536), "exactly fits");
        assert_eq!(raw_tail(log.metadata(), 0), pack_tail(9, 65536));
    }

    #[test]
    fn end_of_term_pads_and_reports_trip() {
        let (log, mut appender) = setup();
        let header = HeaderWriter::new(3, 4);
        let outcome = appender.append(&header, 9, 65536 - 32, &[0; 1], 1376, None).unwrap();
        assert_eq!(outcome, AppendOutcome::Tripped { term_id: 9, term_offset: 65536 - 32 });
        assert_eq!(log.term(0).get_i32(65536 - 32), 32);
        assert_eq!(raw_tail(log.metadata(), 0), pack_tail(9, 65536 + 32));
    }

    #[test]
    fn block_append_checks_and_copies() {
        let (log, mut appender) = setup();
        let header = HeaderWriter::new(3, 4);
        // Build the block with a scratch exclusive appender on another log.
        let (scratch, mut other) = setup();
        other.append_unfragmented(&header, 9, 128, &[7; 10], None);
        other.append_unfragmented(&header, 9, 192, &[8; 40], None);
        let block = scratch.term(0).load_vec(128, 64 + 96).to_vec();
        let outcome = appender.append_block(&header, 9, 128, &block).unwrap();
        assert_eq!(outcome.resulting_offset(), Some(128 + 160));
        assert_eq!(log.term(0).load_vec(128, 160), &block[..]);
        assert!(
            appender.append_block(&header, 9, 0, &block).unwrap_err().message().contains("term offset=128")
        );
        assert!(appender.append_block(&HeaderWriter::new(5, 4), 9, 128, &block).is_err());
        assert!(appender.append_block(&header, 9, 128, &block[..40]).is_err());
        assert!(appender.append_block(&header, 9, 65536 - 64, &block).is_err());
    }
}
