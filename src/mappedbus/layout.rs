//! The byte layout of one bus segment: where `limit` and records sit, what a record header
//! holds, how long a record is in each mode, and which `limit` values a segment can hold.
//! Pure arithmetic; nothing here touches memory.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::util::bits::align;
use crate::util::error::{Error, Result};

/// Offset of the 8-byte `limit`: the end of the last allocated record.
pub const LIMIT_OFFSET: usize = 0;
/// Offset of the first record (Mappedbus: `Structure.Data`).
pub const DATA_OFFSET: usize = 8;
/// Record header: 4-byte status, then 4-byte metadata (Mappedbus: `Length.RecordHeader`).
pub const HEADER_LENGTH: usize = 8;
/// Offset of the metadata inside a record header.
pub const METADATA_OFFSET: usize = 4;

/// Status of a record whose writer has not committed yet (or that is not allocated).
pub const STATUS_NOT_SET: i32 = 0;
/// Status of a committed record (Mappedbus: `StatusFlag.Commit`).
pub const STATUS_COMMIT: i32 = 1;
/// Status of a record a reader (or its writer) gave up on (Mappedbus: `StatusFlag.Rollback`).
pub const STATUS_ROLLBACK: i32 = 2;
/// Variable-length mode only: the writer whose record did not fit marks where the segment
/// ends; readers move on to the next segment. Never written in fixed-size mode.
pub const STATUS_END_OF_SEGMENT: i32 = 3;

/// Variable-length records start on 8-byte boundaries, so the header is one aligned word.
pub const RECORD_ALIGNMENT: usize = 8;
/// Mappedbus rounds the file length up to a multiple of 4096 (whatever the page size) and
/// keeps using the unrounded length as the bound for allocations; so do we.
pub const FILE_LENGTH_ALIGNMENT: usize = 4096;
/// Largest segment we map (1 TiB); keeps every offset sum far from overflow.
pub const MAX_SEGMENT_LENGTH: usize = 1 << 40;
/// `limit` may pass the segment end: every writer whose fetch-and-add raced past it adds one
/// record (each smaller than the segment) before moving on. A `limit` beyond this many
/// segment lengths past the end cannot come from writers, so the file is not a bus file.
pub const MAX_LIMIT_OVERSHOOT_SEGMENTS: usize = 4096;

/// How records are sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordMode {
    /// Every record has a body of exactly `record_size` bytes: the Mappedbus layout. The
    /// metadata is the message type of a typed message or the payload length of a byte
    /// message. `record_size` must be a multiple of 4 so every status word is aligned.
    FixedSize { record_size: usize },
    /// The metadata is the payload length; records are padded to 8 bytes.
    VariableLength,
}

/// The layout of every segment of one bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLayout {
    capacity: usize,
    file_length: usize,
    mode: RecordMode,
}

impl SegmentLayout {
    /// `segment_length` is the allocation bound (Mappedbus's `fileSize`); the file is that
    /// rounded up to 4096 bytes.
    pub fn new(segment_length: usize, mode: RecordMode) -> Result<Self> {
        if !(DATA_OFFSET + HEADER_LENGTH..=MAX_SEGMENT_LENGTH).contains(&segment_length) {
            return Err(Error::invalid_argument(format!(
                "segment length {segment_length} must be in [{}, {MAX_SEGMENT_LENGTH}]",
                DATA_OFFSET + HEADER_LENGTH
            )));
        }
        if let RecordMode::FixedSize { record_size } = mode {
            if record_size % 4 != 0 {
                return Err(Error::invalid_argument(format!(
                    "record size {record_size} must be a multiple of 4 (status words are 4-byte atomics)"
                )));
            }
            if DATA_OFFSET + HEADER_LENGTH + record_size > segment_length {
                return Err(Error::invalid_argument(format!(
                    "record size {record_size} does not fit a segment of {segment_length} bytes"
                )));
            }
        }
        Ok(Self { capacity: segment_length, file_length: align(segment_length, FILE_LENGTH_ALIGNMENT), mode })
    }

    /// Records end at or before this offset.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Length of each segment file.
    #[inline]
    pub fn file_length(&self) -> usize {
        self.file_length
    }

    #[inline]
    pub fn mode(&self) -> RecordMode {
        self.mode
    }

    /// Largest payload one record can carry.
    pub fn max_payload_length(&self) -> usize {
        match self.mode {
            RecordMode::FixedSize { record_size } => record_size,
            RecordMode::VariableLength => {
                let largest = (self.capacity - DATA_OFFSET - HEADER_LENGTH) & !(RECORD_ALIGNMENT - 1);
                largest.min(i32::MAX as usize)
            }
        }
    }

    /// Bytes a record with a `payload_length`-byte payload occupies (header included).
    #[inline]
    pub fn stride(&self, payload_length: usize) -> usize {
        match self.mode {
            RecordMode::FixedSize { record_size } => HEADER_LENGTH + record_size,
            RecordMode::VariableLength => align(HEADER_LENGTH + payload_length, RECORD_ALIGNMENT),
        }
    }

    /// Whether a record of `stride` bytes starting at `offset` ends inside the segment.
    #[inline]
    pub fn fits(&self, offset: usize, stride: usize) -> bool {
        offset <= self.capacity && stride <= self.capacity - offset
    }

    /// Whether any record can still start at `offset`; when not, readers and writers move on
    /// to the next segment. In fixed-size mode this needs no marker: every record has the
    /// same length, so readers compute it exactly as writers do.
    #[inline]
    pub fn has_room_at(&self, offset: usize) -> bool {
        self.fits(offset, self.stride(0))
    }

    /// `raw` as an offset when it is a `limit` writers can have made, bar the grid check.
    #[inline]
    pub fn limit_in_range(&self, raw: i64) -> Option<usize> {
        let max = self.capacity + MAX_LIMIT_OVERSHOOT_SEGMENTS * self.capacity;
        usize::try_from(raw).ok().filter(|l| (DATA_OFFSET..=max).contains(l))
    }

    /// Checks a raw `limit` word and returns it as an offset (0, a segment nobody has
    /// initialised yet, reads as the start of data).
    pub fn validate_limit(&self, raw: i64, path: &Path) -> Result<usize> {
        if raw == 0 {
            return Ok(DATA_OFFSET);
        }
        let limit = self.limit_in_range(raw).ok_or_else(|| {
            not_a_bus_file(
                path,
                format_args!("limit {raw} is outside the file (data starts at {DATA_OFFSET})"),
            )
        })?;
        let step = match self.mode {
            RecordMode::FixedSize { record_size } => HEADER_LENGTH + record_size,
            RecordMode::VariableLength => RECORD_ALIGNMENT,
        };
        if (limit - DATA_OFFSET) % step != 0 {
            return Err(not_a_bus_file(
                path,
                format_args!(
                    "limit {limit} is not on a record boundary (records of {step} bytes from {DATA_OFFSET})"
                ),
            ));
        }
        Ok(limit)
    }

    /// Checks that `offset` can start a record: inside the data area and on a record
    /// boundary for this mode.
    pub fn validate_record_offset(&self, offset: usize) -> Result<()> {
        let step = match self.mode {
            RecordMode::FixedSize { record_size } => HEADER_LENGTH + record_size,
            RecordMode::VariableLength => RECORD_ALIGNMENT,
        };
        if offset < DATA_OFFSET || offset > self.capacity || (offset - DATA_OFFSET) % step != 0 {
            return Err(Error::invalid_argument(format!(
                "offset {offset} is not a record boundary of a {}-byte segment (records of {step} bytes from {DATA_OFFSET})",
                self.capacity
            )));
        }
        Ok(())
    }
}

/// The one header word of a variable-length record: status in the low 4 bytes and length in
/// the high 4 bytes, which in little-endian memory is status then metadata, the same bytes
/// as a fixed-size header.
#[inline]
pub fn variable_header(status: i32, length: u32) -> i64 {
    (status as u32 as i64) | ((length as i64) << 32)
}

/// Status of a variable-length header word.
#[inline]
pub fn header_status(word: i64) -> i32 {
    word as i32
}

/// Metadata (payload length) of a variable-length header word.
#[inline]
pub fn header_metadata(word: i64) -> i32 {
    (word >> 32) as i32
}

/// The error for a file whose bytes cannot come from a bus with this configuration.
pub fn not_a_bus_file(path: &Path, what: std::fmt::Arguments<'_>) -> Error {
    Error::invalid_argument(format!("{} is not a mapped bus segment: {what}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(len: usize, record_size: usize) -> SegmentLayout {
        SegmentLayout::new(len, RecordMode::FixedSize { record_size }).unwrap()
    }

    #[test]
    fn fixed_size_strides_match_mappedbus() {
        let layout = fixed(1000, 12);
        assert_eq!(layout.stride(0), 20);
        assert_eq!(layout.stride(12), 20);
        assert_eq!(layout.capacity(), 1000);
        assert_eq!(layout.file_length(), 4096);
        assert_eq!(layout.max_payload_length(), 12);
        // 8 + 49 * 20 = 988; a 50th record would end at 1008 > 1000.
        assert!(layout.has_room_at(968));
        assert!(!layout.has_room_at(988));
    }

    #[test]
    fn variable_strides_align_to_eight() {
        let layout = SegmentLayout::new(4096, RecordMode::VariableLength).unwrap();
        assert_eq!(layout.stride(0), 8);
        assert_eq!(layout.stride(1), 16);
        assert_eq!(layout.stride(8), 16);
        assert_eq!(layout.stride(9), 24);
        assert_eq!(layout.max_payload_length(), 4080);
        assert!(layout.has_room_at(4088));
        assert!(!layout.has_room_at(4092));
        assert!(!layout.has_room_at(4096));
    }

    #[test]
    fn bad_configurations_are_rejected() {
        assert!(SegmentLayout::new(15, RecordMode::VariableLength).is_err());
        assert!(SegmentLayout::new(MAX_SEGMENT_LENGTH + 1, RecordMode::VariableLength).is_err());
        assert!(SegmentLayout::new(4096, RecordMode::FixedSize { record_size: 13 }).is_err());
        assert!(SegmentLayout::new(64, RecordMode::FixedSize { record_size: 52 }).is_err());
        assert!(SegmentLayout::new(64, RecordMode::FixedSize { record_size: 48 }).is_ok());
    }

    #[test]
    fn limits_are_validated() {
        let path = Path::new("bus");
        let layout = fixed(1000, 12);
        assert_eq!(layout.validate_limit(0, path).unwrap(), 8);
        assert_eq!(layout.validate_limit(8, path).unwrap(), 8);
        assert_eq!(layout.validate_limit(48, path).unwrap(), 48);
        assert_eq!(layout.validate_limit(1008, path).unwrap(), 1008, "overshoot past the end is legal");
        for bad in [-8, 4, 40, 1000 * 5000] {
            let err = layout.validate_limit(bad, path).unwrap_err();
            assert_eq!(err.code(), libc::EINVAL);
            assert!(err.message().contains("is not a mapped bus segment"), "{err}");
        }
        let variable = SegmentLayout::new(4096, RecordMode::VariableLength).unwrap();
        assert_eq!(variable.validate_limit(24, path).unwrap(), 24);
        assert!(variable.validate_limit(20, path).is_err());
    }

    #[test]
    fn record_offsets_are_validated() {
        let layout = fixed(1000, 12);
        assert!(layout.validate_record_offset(8).is_ok());
        assert!(layout.validate_record_offset(28).is_ok());
        assert!(layout.validate_record_offset(30).is_err());
        assert!(layout.validate_record_offset(0).is_err());
        assert!(layout.validate_record_offset(1008).is_err());
    }

    #[test]
    fn header_word_puts_status_then_metadata_in_memory() {
        let word = variable_header(STATUS_COMMIT, 0x0102_0304);
        assert_eq!(word.to_le_bytes(), [1, 0, 0, 0, 4, 3, 2, 1]);
        assert_eq!(header_status(word), STATUS_COMMIT);
        assert_eq!(header_metadata(word), 0x0102_0304);
        assert_eq!(variable_header(STATUS_NOT_SET, 0), 0);
    }
}
