//! Appending records: allocate by fetch-and-add on `limit`, fill, commit by compare-and-swap
//! of the status, roll over to the next segment when the current one is full.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use super::layout::{
    HEADER_LENGTH, LIMIT_OFFSET, METADATA_OFFSET, RecordMode, STATUS_COMMIT, STATUS_END_OF_SEGMENT,
    STATUS_NOT_SET, STATUS_ROLLBACK, SegmentLayout, variable_header,
};
use super::preparer::SegmentPreparer;
use super::segment::{self, Segment};
use super::{MappedBusConfig, Position};
use crate::concurrent::mapped_file::{self, PageAccess};
use crate::concurrent::{AtomicBuffer, OwnedClaimedRange};
use crate::util::error::{Error, Result};

/// A claim's header could be rolled back by a reader between allocation and the header
/// write (variable mode only, and only during a reader's crash recovery); the allocation is
/// then retried this many times before giving up.
const MAX_CLAIM_ATTEMPTS: usize = 64;

/// What became of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum WriteOutcome {
    /// The record is committed at this position; every reader will read it.
    Committed(Position),
    /// A reader rolled the record back before the commit (the writer was slower than the
    /// rollback timeout); readers skip it. Write it again to deliver it.
    RolledBack(Position),
}

/// Appends records to a bus. Any number of writers, in any processes, may append to one bus.
pub struct MappedBusWriter {
    base: PathBuf,
    layout: SegmentLayout,
    /// The one segment mapping this writer holds (the preparer holds the next one).
    segment: Segment,
    /// The oldest segment that may hold records of this writer `flush` has not written
    /// yet; the ones from here to the current segment are flushed by path, unmapped.
    unflushed_from: u64,
    /// Whether this writer moved to a segment file since the last `flush` (which then syncs
    /// the folder so the new file's name is durable too).
    moved_since_flush: bool,
    /// With `prefault`: opens the next segment before this writer gets there.
    preparer: Option<SegmentPreparer>,
}

impl MappedBusWriter {
    /// Opens the bus at `path` for writing, creating segment 0 when no segment exists.
    /// Writing starts in the newest segment (the next one when that is full).
    pub fn open(path: impl AsRef<Path>, config: &MappedBusConfig) -> Result<Self> {
        let base = path.as_ref().to_path_buf();
        let layout = config.layout()?;
        let current = segment::current_index(&base, layout)?;
        let segment = Self::first_segment_with_room(&base, current, layout)?;
        let preparer = match config.prefault {
            true => Some(SegmentPreparer::start(base.clone(), layout, PageAccess::Write)?),
            false => None,
        };
        if let Some(preparer) = &preparer {
            preparer.prefault_current(&segment, segment.limit()?);
            preparer.prepare(segment.index() + 1);
        }
        Ok(Self { base, layout, unflushed_from: segment.index(), segment, moved_since_flush: true, preparer })
    }

    /// Writes a byte message: the metadata is its length. In fixed-size mode the payload may
    /// be shorter than the record size; the rest of the record stays as it was (zeros).
    #[inline]
    pub fn write(&mut self, payload: &[u8]) -> Result<WriteOutcome> {
        if let RecordMode::FixedSize { record_size } = self.layout.mode() {
            if payload.len() > record_size {
                return Err(self.too_long_error(payload.len()));
            }
            // In range: record_size <= max_payload_length <= i32::MAX.
            return self.write_fixed(payload.len() as i32, payload, record_size);
        }
        let mut claim = self.try_claim(payload.len())?;
        claim.body_mut().copy_from_slice(payload);
        claim.commit()
    }

    /// Writes a typed message (fixed-size mode only): the metadata is `message_type` and the
    /// body, at most the record size, is copied to the start of the record.
    #[inline]
    pub fn write_typed(&mut self, message_type: i32, body: &[u8]) -> Result<WriteOutcome> {
        let RecordMode::FixedSize { record_size } = self.layout.mode() else {
            return Err(typed_needs_fixed_size());
        };
        if body.len() > record_size {
            return Err(self.too_long_error(body.len()));
        }
        self.write_fixed(message_type, body, record_size)
    }

    /// A whole fixed-size record from a copy: allocate, metadata, body, commit, with none of
    /// a claim's bookkeeping (nothing can fail between allocation and commit, so there is
    /// no rollback to arrange).
    #[inline]
    fn write_fixed(&mut self, metadata: i32, body: &[u8], record_size: usize) -> Result<WriteOutcome> {
        let (offset, mut record) = self.allocate(HEADER_LENGTH + record_size)?;
        let buffer = self.segment.buffer();
        // Plain stores: published by the commit CAS, read only after it. Body bytes past
        // `body` stay as they are (zeros), as Mappedbus leaves them.
        buffer.put_i32(offset + METADATA_OFFSET, metadata);
        record.range().put_bytes(HEADER_LENGTH, body);
        drop(record);
        // SeqCst CAS: releases the stores above; fails only when a reader rolled it back.
        let position = Position { segment: self.segment.index(), offset: offset as u64 };
        Ok(if buffer.compare_and_set_i32(offset, STATUS_NOT_SET, STATUS_COMMIT) {
            WriteOutcome::Committed(position)
        } else {
            WriteOutcome::RolledBack(position)
        })
    }

    /// Allocates a byte-message record of `length` payload bytes for the caller to fill in
    /// place. Readers see it only after [`Claim::commit`]; a dropped claim is rolled back.
    #[inline]
    pub fn try_claim(&mut self, length: usize) -> Result<Claim<'_>> {
        if length > self.layout.max_payload_length() {
            return Err(self.too_long_error(length));
        }
        // In range: max_payload_length <= i32::MAX.
        self.claim(length as i32, length)
    }

    /// Allocates a typed record (fixed-size mode only) whose whole body the caller fills.
    #[inline]
    pub fn try_claim_typed(&mut self, message_type: i32) -> Result<Claim<'_>> {
        match self.layout.mode() {
            RecordMode::FixedSize { record_size } => self.claim(message_type, record_size),
            RecordMode::VariableLength => Err(typed_needs_fixed_size()),
        }
    }

    #[inline]
    fn claim(&mut self, metadata: i32, body_length: usize) -> Result<Claim<'_>> {
        let stride = self.layout.stride(body_length);
        let mode = self.layout.mode();
        for _ in 0..MAX_CLAIM_ATTEMPTS {
            let (offset, record) = self.allocate(stride)?;
            let buffer = self.segment.buffer();
            let pending = match mode {
                RecordMode::FixedSize { .. } => {
                    // Plain store: published by the commit CAS, read only after it.
                    buffer.put_i32(offset + METADATA_OFFSET, metadata);
                    i64::from(STATUS_NOT_SET)
                }
                RecordMode::VariableLength => {
                    // The length must be in the header before any reader can give up on the
                    // record, or readers could not skip it. A reader that already filled this
                    // word while recovering from a crashed writer makes the CAS fail: nothing
                    // was written; give the rest of the space up and allocate again.
                    let pending = variable_header(STATUS_NOT_SET, metadata as u32);
                    if !buffer.compare_and_set_i64(offset, 0, pending) {
                        release_lost_allocation(buffer, offset, stride);
                        continue;
                    }
                    pending
                }
            };
            let position = Position { segment: self.segment.index(), offset: offset as u64 };
            return Ok(Claim {
                buffer: self.segment.buffer(),
                record,
                mode,
                position,
                offset,
                body_length,
                pending,
                done: false,
            });
        }
        Err(self.claims_lost_error())
    }

    #[cold]
    fn too_long_error(&self, length: usize) -> Error {
        Error::invalid_argument(format!(
            "message of {length} bytes exceeds the largest record of this bus ({} bytes)",
            self.layout.max_payload_length()
        ))
    }

    #[cold]
    fn claims_lost_error(&self) -> Error {
        Error::illegal_state(format!(
            "{}: readers rolled back {MAX_CLAIM_ATTEMPTS} allocations in a row",
            self.segment.path().display()
        ))
    }

    /// Reserves `stride` bytes and returns their offset in the (possibly new) current segment
    /// with the claimed record.
    #[inline]
    fn allocate(&mut self, stride: usize) -> Result<(usize, OwnedClaimedRange)> {
        let buffer = self.segment.buffer();
        let (raw, record) = buffer.claim_get_and_add_i64(LIMIT_OFFSET, stride);
        // Opening validated `limit` and only fetch-and-adds of whole records changed it
        // since, so a range check suffices here (the grid check divides).
        match self.layout.limit_in_range(raw) {
            Some(offset) if self.layout.fits(offset, stride) => {
                Ok((offset, OwnedClaimedRange::new(buffer, record)))
            }
            _ => {
                let record = OwnedClaimedRange::new(buffer, record);
                self.allocate_past_end(raw, record, stride)
            }
        }
    }

    /// The allocation at `raw` did not fit (or `limit` was corrupt): move on to the next
    /// segment with room and allocate there.
    #[cold]
    #[inline(never)]
    fn allocate_past_end(
        &mut self,
        mut raw: i64,
        mut record: OwnedClaimedRange,
        stride: usize,
    ) -> Result<(usize, OwnedClaimedRange)> {
        loop {
            let Some(offset) = self.layout.limit_in_range(raw) else {
                return Err(super::layout::not_a_bus_file(
                    self.segment.path(),
                    format_args!(
                        "limit {raw} is outside the file (changed by something other than a writer)"
                    ),
                ));
            };
            if self.layout.fits(offset, stride) {
                // The claim of the get-and-add that returned `raw`.
                return Ok((offset, record));
            }
            // The record straddles the end or starts past it: the segment is full. In
            // variable-length mode the one writer whose allocation straddles the end marks
            // it so readers move on at once; if it dies first, readers roll the space back
            // after the timeout instead. Fixed-size readers need no mark (see layout).
            if self.layout.mode() == RecordMode::VariableLength && self.layout.has_room_at(offset) {
                self.segment.buffer().compare_and_set_i64(
                    offset,
                    0,
                    variable_header(STATUS_END_OF_SEGMENT, 0),
                );
            }
            let index = self.segment.index() + 1;
            let prepared = self.preparer.as_ref().and_then(|p| p.take(index));
            let next = match prepared {
                Some(segment) if self.layout.has_room_at(segment.limit()?) => segment,
                _ => Self::first_segment_with_room(&self.base, index, self.layout)?,
            };
            let full = std::mem::replace(&mut self.segment, next);
            match &self.preparer {
                Some(preparer) => {
                    preparer.prepare(self.segment.index() + 1);
                    preparer.retire(full);
                }
                None => drop(full),
            }
            self.moved_since_flush = true;
            let buffer = self.segment.buffer();
            let (next_raw, claimed) = buffer.claim_get_and_add_i64(LIMIT_OFFSET, stride);
            (raw, record) = (next_raw, OwnedClaimedRange::new(buffer, claimed));
        }
    }

    /// Segment `index` or the first after it that a record can still start in.
    fn first_segment_with_room(base: &Path, mut index: u64, layout: SegmentLayout) -> Result<Segment> {
        loop {
            let segment = Segment::open_or_create(base, index, layout)?;
            if layout.has_room_at(segment.limit()?) {
                return Ok(segment);
            }
            index += 1;
        }
    }

    /// Makes every record this writer wrote so far durable across power loss: `fdatasync`
    /// by path of the segments it rolled over from since the last flush (no longer mapped
    /// here: their dirty pages wait in the page cache), `msync` of the current segment,
    /// and an `fsync` of the folder when it moved to a new segment file. Records of other
    /// writers in the same files are flushed too. A left-behind segment file removed
    /// meanwhile is skipped: nothing of it is left to make durable.
    pub fn flush(&mut self) -> Result<()> {
        let current = self.segment.index();
        for index in self.unflushed_from..current {
            match mapped_file::sync_file_data(&Segment::path_of(&self.base, index)) {
                Err(e) if e.code() != libc::ENOENT => return Err(e),
                _ => {}
            }
        }
        self.unflushed_from = current;
        self.segment.flush()?;
        if self.moved_since_flush {
            segment::sync_directory(&self.base)?;
            self.moved_since_flush = false;
        }
        Ok(())
    }

    /// The segment this writer is appending to.
    pub fn segment_index(&self) -> u64 {
        self.segment.index()
    }
}

#[cold]
fn typed_needs_fixed_size() -> Error {
    Error::invalid_argument(
        "typed messages need fixed-size records: in variable-length mode the metadata is the length",
    )
}

/// Marks the words after the first of a lost variable-length allocation `[offset, offset +
/// stride)` as rolled back, so readers skip them at once instead of waiting out the timeout
/// on each. The first word that is still 0 gets a rolled-back header covering the rest; words
/// before it were filled by a reader doing the same recovery (each is an 8-byte record).
fn release_lost_allocation(buffer: &AtomicBuffer, offset: usize, stride: usize) {
    let end = offset + stride;
    let mut word = offset + HEADER_LENGTH;
    while word < end {
        let rest = (end - word - HEADER_LENGTH) as u32;
        if buffer.compare_and_set_i64(word, 0, variable_header(STATUS_ROLLBACK, rest)) {
            return;
        }
        word += HEADER_LENGTH;
    }
}

/// A record allocated and not yet committed. Fill [`Claim::body_mut`], then
/// [`Claim::commit`]. Dropping it uncommitted rolls it back at once, so readers skip it
/// without waiting for the timeout.
pub struct Claim<'a> {
    buffer: &'a AtomicBuffer,
    /// The whole record, header included, from `offset`.
    record: OwnedClaimedRange,
    mode: RecordMode,
    position: Position,
    offset: usize,
    body_length: usize,
    /// The header (variable mode) or status word (fixed mode) while pending.
    pending: i64,
    done: bool,
}

impl Claim<'_> {
    /// Where the record is.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The record's body, for the caller to fill.
    #[inline]
    pub fn body_mut(&mut self) -> &mut [u8] {
        // The allocation made this range ours alone until the status says otherwise:
        // readers read a body only after seeing it committed.
        &mut self.record.as_mut_slice()[HEADER_LENGTH..HEADER_LENGTH + self.body_length]
    }

    /// Publishes the record. SeqCst CAS, so it releases the body and metadata written
    /// before it; it fails only when a reader rolled the record back first.
    #[inline]
    pub fn commit(mut self) -> Result<WriteOutcome> {
        self.done = true;
        let committed = match self.mode {
            RecordMode::FixedSize { .. } => {
                self.buffer.compare_and_set_i32(self.offset, STATUS_NOT_SET, STATUS_COMMIT)
            }
            RecordMode::VariableLength => {
                let length = super::layout::header_metadata(self.pending) as u32;
                self.buffer.compare_and_set_i64(
                    self.offset,
                    self.pending,
                    variable_header(STATUS_COMMIT, length),
                )
            }
        };
        Ok(if committed {
            WriteOutcome::Committed(self.position)
        } else {
            WriteOutcome::RolledBack(self.position)
        })
    }

    /// Gives the record up: readers skip it immediately.
    pub fn abort(mut self) {
        self.roll_back();
    }

    fn roll_back(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        // If a reader rolled it back already the CAS fails, with the same result.
        match self.mode {
            RecordMode::FixedSize { .. } => {
                self.buffer.compare_and_set_i32(self.offset, STATUS_NOT_SET, STATUS_ROLLBACK);
            }
            RecordMode::VariableLength => {
                let length = super::layout::header_metadata(self.pending) as u32;
                self.buffer.compare_and_set_i64(
                    self.offset,
                    self.pending,
                    variable_header(STATUS_ROLLBACK, length),
                );
            }
        }
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.roll_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_allocation_is_covered_by_one_rolled_back_record_after_the_filled_words() {
        let buffer = AtomicBuffer::alloc(128);
        // A reader filled the header word at 16 and the word after it.
        buffer.put_i64(16, variable_header(STATUS_ROLLBACK, 0));
        buffer.put_i64(24, variable_header(STATUS_ROLLBACK, 0));
        release_lost_allocation(&buffer, 16, 48);
        assert_eq!(buffer.get_i64(32), variable_header(STATUS_ROLLBACK, 24), "32 + 8 + 24 = 64, the end");
        assert_eq!(buffer.get_i64(40), 0);
        assert_eq!(buffer.get_i64(64), 0, "nothing written past the allocation");
        // A one-word allocation has nothing after its header.
        release_lost_allocation(&buffer, 80, 8);
        assert_eq!(buffer.get_i64(88), 0);
    }
}
