//! Reading records in file order: committed ones are returned, rolled-back ones skipped, and
//! records whose writer stalls past the timeout rolled back; the reader follows the bus
//! from segment to segment.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use super::layout::{
    DATA_OFFSET, HEADER_LENGTH, METADATA_OFFSET, RecordMode, STATUS_COMMIT, STATUS_END_OF_SEGMENT,
    STATUS_NOT_SET, STATUS_ROLLBACK, SegmentLayout, header_metadata, header_status, not_a_bus_file,
    variable_header,
};
use super::preparer::SegmentPreparer;
use super::segment::{self, Segment};
use super::{MappedBusConfig, Position};
use crate::concurrent::mapped_file::PageAccess;
use crate::util::clock::nano_time;
use crate::util::error::{Error, Result};

/// Polls of an uncommitted status before the reader starts looking at the clock: a writer
/// is usually mid-record, and the poll then costs one load of the status word.
const POLLS_BEFORE_CLOCK: u32 = 64;
/// How often a waiting reader looks at `limit` to learn whether the record it waits on is
/// allocated at all (the rollback clock starts only then). Rare, so the reader keeps out of
/// the cache line every writer's fetch-and-add needs.
const LIMIT_PROBE_INTERVAL_NS: i64 = 1_000_000;
/// Skipped records and segment moves one `poll` works through before returning `None`, so
/// a long run of rolled-back space cannot stall the caller.
const MAX_STEPS_PER_POLL: usize = 4096;

/// Where a new reader starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartAt {
    /// At the first record of the oldest segment: replay everything the bus holds.
    Replay,
    /// At the current end (the `limit` of the newest segment): only records allocated from
    /// now on.
    Live,
    /// At a record boundary, e.g. a [`Record::position`] saved earlier.
    Position(Position),
}

/// A committed record. Its bytes stay valid while the reader is borrowed: committed
/// records are never written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Where the record is; a reader opened at this position reads this record first.
    pub position: Position,
    /// The message type of a typed message, or the payload length of a byte message.
    pub metadata: i32,
    /// In fixed-size mode the whole record body (the record size); in variable-length mode
    /// exactly the payload.
    pub body: &'a [u8],
}

impl<'a> Record<'a> {
    /// The payload of a byte message: the first `metadata` bytes of the body, or `None`
    /// when the metadata is not a length that fits (it is then a message type).
    pub fn payload(&self) -> Option<&'a [u8]> {
        usize::try_from(self.metadata).ok().and_then(|length| self.body.get(..length))
    }
}

enum Step {
    /// A committed record: offset, metadata, body length.
    Record(usize, i32, usize),
    /// The reader moved (skipped a record, or changed segment): step again.
    Moved,
    /// Nothing to read now.
    Idle,
}

/// Reads a bus from one position onward. Any number of readers, in any processes, may read
/// one bus; each reads every committed record once, in file order.
pub struct MappedBusReader {
    base: PathBuf,
    layout: SegmentLayout,
    segment: Segment,
    offset: usize,
    recovered_at: Position,
    rollback_timeout_ns: i64,
    not_set_polls: u32,
    /// When to look at `limit` next, while waiting on a record not known to be allocated.
    next_limit_probe: Option<i64>,
    /// Since when the record waited on is known to be allocated (the rollback clock).
    pending_since: Option<i64>,
    /// Variable-length mode, after rolling back a header nobody wrote: the writer died
    /// between allocation and header, so its length is unknown. Its space is all zeros up
    /// to the next header, so the reader rolls back zero words one at a time, without
    /// waiting again, until it meets a header or the `limit`.
    filling: bool,
    /// With `prefault`: maps the next segment before this reader gets there.
    preparer: Option<SegmentPreparer>,
}

impl MappedBusReader {
    /// Opens the bus at `path` (creating segment 0 if no segment exists) for reading from
    /// `start`.
    pub fn open(path: impl AsRef<Path>, config: &MappedBusConfig, start: StartAt) -> Result<Self> {
        let base = path.as_ref().to_path_buf();
        let layout = config.layout()?;
        let segments = segment::list_segments(&base)?;
        // The segment being appended to: not one prepared ahead of the writers.
        let newest_index = segment::current_index(&base, layout)?;
        let newest = Segment::open_or_create(&base, newest_index, layout)?;
        let end = newest.limit()?.min(layout.capacity());
        let recovered_at = Position { segment: newest_index, offset: end as u64 };
        let (segment, offset) = match start {
            StartAt::Replay => match segments.first() {
                Some(&oldest) if oldest != newest_index => {
                    (Segment::open_existing(&base, oldest, layout)?, DATA_OFFSET)
                }
                _ => (newest, DATA_OFFSET),
            },
            StartAt::Live => (newest, end),
            StartAt::Position(position) => {
                let offset = usize::try_from(position.offset).map_err(|_| {
                    Error::invalid_argument(format!("offset {} is too large", position.offset))
                })?;
                layout.validate_record_offset(offset)?;
                let segment = if position.segment == newest_index {
                    newest
                } else {
                    Segment::open_existing(&base, position.segment, layout)?
                };
                (segment, offset)
            }
        };
        let preparer = match config.prefault {
            true => Some(SegmentPreparer::start(base.clone(), layout, PageAccess::Read)?),
            false => None,
        };
        if let Some(preparer) = &preparer {
            preparer.prefault_current(&segment, offset);
            preparer.prepare(segment.index() + 1);
        }
        Ok(Self {
            base,
            layout,
            segment,
            offset,
            recovered_at,
            rollback_timeout_ns: i64::try_from(config.rollback_timeout.as_nanos()).unwrap_or(i64::MAX),
            not_set_polls: 0,
            next_limit_probe: None,
            pending_since: None,
            filling: false,
            preparer,
        })
    }

    /// The next committed record, or `None` when there is none yet (or when this call
    /// skipped a long run of rolled-back space: poll again). Records rolled back (by a
    /// writer, another reader, or this one after the timeout) are skipped.
    pub fn poll(&mut self) -> Result<Option<Record<'_>>> {
        for _ in 0..MAX_STEPS_PER_POLL {
            match self.step()? {
                Step::Record(offset, metadata, body_length) => {
                    let position = Position { segment: self.segment.index(), offset: offset as u64 };
                    // Committed (status read with acquire in `step`) and never written again:
                    // the status is acquired again (a load from a line in cache) to take the
                    // body as published.
                    let buffer = self.segment.buffer();
                    let body = match self.layout.mode() {
                        RecordMode::FixedSize { .. } => buffer.acquire_status_i32(
                            offset,
                            STATUS_COMMIT,
                            offset + HEADER_LENGTH,
                            body_length,
                        ),
                        RecordMode::VariableLength => buffer.acquire_status_i64(
                            offset,
                            variable_header(STATUS_COMMIT, metadata as u32),
                            offset + HEADER_LENGTH,
                            body_length,
                        ),
                    };
                    let Some(body) = body else {
                        return Err(self.corrupt(offset, format_args!("committed record changed status")));
                    };
                    return Ok(Some(Record { position, metadata, body: body.as_slice() }));
                }
                Step::Moved => {}
                Step::Idle => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Whether the reader has reached the end the bus had when it was opened.
    pub fn has_recovered(&self) -> bool {
        self.position() >= self.recovered_at
    }

    /// Where the next record will be looked for.
    pub fn position(&self) -> Position {
        Position { segment: self.segment.index(), offset: self.offset as u64 }
    }

    fn step(&mut self) -> Result<Step> {
        let offset = self.offset;
        if !self.layout.has_room_at(offset) {
            return self.next_segment();
        }
        match self.layout.mode() {
            RecordMode::FixedSize { record_size } => self.step_fixed(offset, record_size),
            RecordMode::VariableLength => self.step_variable(offset),
        }
    }

    fn step_fixed(&mut self, offset: usize, record_size: usize) -> Result<Step> {
        let stride = HEADER_LENGTH + record_size;
        // Acquire: pairs with the writer's commit CAS, so metadata and body are visible.
        let status = self.segment.buffer().get_i32_acquire(offset);
        match status {
            STATUS_COMMIT => {
                let metadata = self.segment.buffer().get_i32(offset + METADATA_OFFSET);
                self.advance(offset + stride);
                Ok(Step::Record(offset, metadata, record_size))
            }
            STATUS_ROLLBACK => {
                self.advance(offset + stride);
                Ok(Step::Moved)
            }
            STATUS_NOT_SET => {
                if !self.rollback_due(offset)? {
                    return Ok(Step::Idle);
                }
                if self.segment.buffer().compare_and_set_i32(offset, STATUS_NOT_SET, STATUS_ROLLBACK) {
                    self.advance(offset + stride);
                } else {
                    // The writer committed, or another reader rolled it back: read it again.
                    self.reset_wait();
                }
                Ok(Step::Moved)
            }
            other => Err(self.corrupt(offset, format_args!("unknown status {other}"))),
        }
    }

    fn step_variable(&mut self, offset: usize) -> Result<Step> {
        // Acquire: pairs with the writer's commit CAS, so the body is visible.
        let header = self.segment.buffer().get_i64_acquire(offset);
        let status = header_status(header);
        let length = header_metadata(header);
        let stride = usize::try_from(length).map(|l| self.layout.stride(l)).unwrap_or(usize::MAX);
        if !self.layout.fits(offset, stride) {
            return Err(self.corrupt(offset, format_args!("length {length} runs past the segment end")));
        }
        if header != 0 && status != STATUS_ROLLBACK {
            self.filling = false;
        }
        match status {
            STATUS_COMMIT => {
                self.advance(offset + stride);
                Ok(Step::Record(offset, length, length as usize))
            }
            STATUS_ROLLBACK => {
                self.advance(offset + stride);
                Ok(Step::Moved)
            }
            STATUS_END_OF_SEGMENT => self.next_segment(),
            STATUS_NOT_SET => {
                if header == 0 && self.filling {
                    if offset < self.segment.limit()? {
                        if self.segment.buffer().compare_and_set_i64(
                            offset,
                            0,
                            variable_header(STATUS_ROLLBACK, 0),
                        ) {
                            self.advance(offset + HEADER_LENGTH);
                        }
                        return Ok(Step::Moved);
                    }
                    // Reached the end of what was allocated: the dead writer's space is done.
                    self.filling = false;
                }
                if !self.rollback_due(offset)? {
                    return Ok(Step::Idle);
                }
                // A header of 0 is a writer that died before writing its length (or a pending
                // empty record): roll back this word and fill on from here.
                let rolled_back = variable_header(STATUS_ROLLBACK, length as u32);
                if self.segment.buffer().compare_and_set_i64(offset, header, rolled_back) {
                    self.filling = header == 0;
                    self.advance(offset + stride);
                } else {
                    self.reset_wait();
                }
                Ok(Step::Moved)
            }
            other => Err(self.corrupt(offset, format_args!("unknown status {other}"))),
        }
    }

    /// Whether the uncommitted record at `offset` has waited out the rollback timeout. The
    /// clock starts once `limit` shows the record is allocated, so a record is never rolled
    /// back before it has been allocated for the whole timeout (at most one probe interval
    /// more).
    fn rollback_due(&mut self, offset: usize) -> Result<bool> {
        if self.not_set_polls < POLLS_BEFORE_CLOCK {
            self.not_set_polls += 1;
            return Ok(false);
        }
        let now = nano_time();
        if let Some(since) = self.pending_since {
            return Ok(now - since >= self.rollback_timeout_ns);
        }
        let interval = LIMIT_PROBE_INTERVAL_NS.min(self.rollback_timeout_ns);
        match self.next_limit_probe {
            Some(due) if now >= due => {
                if self.segment.limit()? > offset {
                    self.pending_since = Some(now);
                } else {
                    self.next_limit_probe = Some(now + interval);
                }
            }
            Some(_) => {}
            None => self.next_limit_probe = Some(now + interval),
        }
        Ok(false)
    }

    fn advance(&mut self, offset: usize) {
        self.offset = offset;
        self.reset_wait();
    }

    fn reset_wait(&mut self) {
        self.not_set_polls = 0;
        self.next_limit_probe = None;
        self.pending_since = None;
    }

    /// No record can start at the current offset: continue at the start of the next
    /// segment, creating it if no writer has yet (harmless: writers use it as it is).
    fn next_segment(&mut self) -> Result<Step> {
        let index = self.segment.index() + 1;
        let next = match self.preparer.as_ref().and_then(|p| p.take(index)) {
            Some(prepared) => prepared,
            None => Segment::open_or_create(&self.base, index, self.layout)?,
        };
        let left = std::mem::replace(&mut self.segment, next);
        match &self.preparer {
            Some(preparer) => {
                preparer.prepare(index + 1);
                preparer.retire(left);
            }
            None => drop(left),
        }
        self.filling = false;
        self.advance(DATA_OFFSET);
        Ok(Step::Moved)
    }

    fn corrupt(&self, offset: usize, what: std::fmt::Arguments<'_>) -> Error {
        not_a_bus_file(self.segment.path(), format_args!("record at offset {offset}: {what}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mappedbus::{MappedBusWriter, WriteOutcome};
    use std::time::Duration;

    #[test]
    fn waiting_at_the_end_never_rolls_back_what_is_not_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        for config in [MappedBusConfig::fixed_size(4096, 8), MappedBusConfig::variable_length(4096)] {
            let config = config.with_rollback_timeout(Duration::ZERO).with_prefault(false);
            let _ = std::fs::remove_file(&path);
            let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
            // Far more polls than it takes to start the clock and probe `limit`.
            for _ in 0..10 * POLLS_BEFORE_CLOCK {
                assert!(reader.poll().unwrap().is_none());
            }
            assert_eq!(reader.position(), Position { segment: 0, offset: 8 });
            let mut writer = MappedBusWriter::open(&path, &config).unwrap();
            assert!(matches!(writer.write(b"late").unwrap(), WriteOutcome::Committed(_)));
            let record = reader.poll().unwrap().expect("the record written after the wait");
            assert_eq!(record.payload(), Some(&b"late"[..]));
        }
    }

    #[test]
    fn a_pending_record_is_rolled_back_only_after_it_is_seen_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let config = MappedBusConfig::fixed_size(4096, 8).with_rollback_timeout(Duration::from_secs(3600));
        let mut writer = MappedBusWriter::open(&path, &config).unwrap();
        let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
        let claim = writer.try_claim(1).unwrap();
        for _ in 0..10 * POLLS_BEFORE_CLOCK {
            assert!(reader.poll().unwrap().is_none());
        }
        assert_eq!(reader.position().offset, 8, "an hour has not passed");
        drop(claim); // the writer gives it up: skipped at once
        assert!(reader.poll().unwrap().is_none());
        assert_eq!(reader.position().offset, 24);
    }
}
