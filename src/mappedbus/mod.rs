//! A persistent message bus in memory-mapped files, after Mappedbus
//! (github.com/caplogic/Mappedbus): writers in any number of processes append records,
//! readers in any number of processes read them live or replay them later, and a writer that
//! dies in the middle of a record does not stall anyone.
//!
//! # File format
//!
//! A bus is a sequence of segment files: `<name>` is segment 0, `<name>.1`, `<name>.2`, ...
//! follow. Every segment has the same configured length `L` (the bound records must stay
//! within); the file itself is `L` rounded up to a multiple of 4096 bytes, as Mappedbus
//! sizes its file. All integers are little-endian.
//!
//! ```text
//! offset 0   limit: i64   end of the last allocated record (8 when empty)
//! offset 8   record, record, ...   each: status i32 | metadata i32 | body
//! ```
//!
//! Status: 0 not set (allocated, not committed, or not allocated at all), 1 committed,
//! 2 rolled back, 3 end of segment (variable-length mode only).
//!
//! ## Fixed-size records: the Mappedbus layout
//!
//! Every record is `8 + record_size` bytes, so record `k` starts at `8 + k * (8 +
//! record_size)`. The metadata is the message type of a typed message, or the payload length
//! of a byte message whose payload is at the start of the body; body bytes past the payload
//! are left as they are (zeros). A bus with one segment is byte for byte the file Mappedbus
//! writes with the same record size and file size `L` (for example `limit` 48 after two
//! records of size 12). `record_size` must be a multiple of 4, so every status word is an
//! aligned 4-byte atomic. No end-of-segment marker is needed: a record cannot start at an
//! offset `o` when `o + 8 + record_size > L`, and readers compute that as writers do.
//!
//! ## Variable-length records
//!
//! The metadata is the payload length and each record takes `8 + length` bytes rounded up to
//! 8, so headers are aligned 8-byte words, written and compared as one atomic word. Typed
//! messages need fixed-size records (there is no room for a type). Three extra rules make it
//! crash-safe:
//!
//! - A writer puts the length in the header (CAS of the word from 0) before writing the body,
//!   so a reader that gives up on the record knows how far to skip.
//! - A header still 0 after the timeout means the writer died before that CAS; its length is
//!   unknown, but its whole space is still zeros. The reader rolls the word back to
//!   `status 2, length 0` (an 8-byte rolled-back record) and does the same, without waiting
//!   again, to each following zero word below `limit` until it meets a header. A writer that
//!   was merely that slow finds its header CAS failing, marks the rest of its lost space as
//!   one rolled-back record and allocates again; or, if its header was in place but not
//!   committed, sees its commit fail and reports the rollback.
//! - The one writer whose allocation straddles the segment end writes status 3 at its offset
//!   (when 8 bytes remain) before moving on; readers move on when they meet it. If that writer
//!   dies first, the timeout rolls its space back like any other.
//!
//! # Protocol
//!
//! - **Writers** allocate with a fetch-and-add of the record length on `limit`, write the
//!   metadata and body, and commit by CAS of the status from 0 to 1. A failed CAS means a
//!   reader rolled the record back: [`WriteOutcome::RolledBack`], write again. Opening a
//!   segment sets `limit` from 0 to 8 by CAS, so processes racing to create it agree.
//! - **Segment roll-over.** A fetch-and-add may take `limit` past `L`; the writer whose record
//!   does not fit writes nothing there (bar the variable-length marker), opens or creates the
//!   next segment and allocates again there. `limit >= L` (or too little room for a record)
//!   means the segment is full. Each writer passes the end at most once per segment, so a
//!   `limit` beyond `L` by more than 4096 segment lengths is treated as a corrupt file.
//! - **Readers** read the status with acquire ordering; a committed record is returned, a
//!   rolled-back one skipped. A record uncommitted for longer than the rollback timeout
//!   (default 2 s, monotonic clock) is rolled back by CAS from 0 to 2 and skipped; if the CAS
//!   fails the writer committed meanwhile and the record is read. The clock starts once the
//!   reader has seen `limit` beyond the record (it looks every millisecond while waiting, not
//!   on every poll, to stay out of the cache line writers allocate from), so nothing is rolled
//!   back before it was allocated for the whole timeout. A later reader sees status 2 and
//!   skips it at once. When no record can start at its offset, a reader continues at the
//!   start of the next segment, creating the file if no writer has yet.
//!
//! # Durability
//!
//! Records are written to shared pages of the files. Without [`MappedBusWriter::flush`] they
//! survive the crash of any process (the kernel holds the pages) but not a power loss or
//! kernel crash: the kernel writes them back to disk at its own pace. `flush` writes the
//! pages of the segments this writer used since its last flush (`fdatasync` by path of the
//! ones it left, `msync` of the current one), and `fsync`s the
//! folder after the writer moved to another segment file; once it returns, everything
//! committed in those segments before the call is on disk (to the extent the device honours
//! flushes). A record committed during the flush may or may not be included. Rollback marks
//! that readers write are not flushed: after a power loss such a record may read as
//! uncommitted again, and readers roll it back again after the timeout.
//!
//! # Bad input
//!
//! A file of the wrong length, a `limit` below 8 or past the bound above or off the record
//! grid, a header with an unknown status or a length past the segment end: each gives an
//! error naming the file and what is wrong; nothing is written outside the mapped file.
#![forbid(unsafe_code)]

pub(crate) mod layout;
mod preparer;
pub(crate) mod reader;
mod segment;
pub(crate) mod writer;

use std::time::Duration;

pub use layout::RecordMode;
pub use reader::{MappedBusReader, Record, StartAt};
pub use writer::{Claim, MappedBusWriter, WriteOutcome};

use crate::util::error::Result;

/// Segment length the C API's `aeronrs_mapped_bus_config_init` proposes (64 MiB).
pub const DEFAULT_SEGMENT_LENGTH: usize = 64 * 1024 * 1024;

/// Default time a reader waits for an allocated record to be committed (Mappedbus: 2 s).
pub const DEFAULT_ROLLBACK_TIMEOUT: Duration = Duration::from_secs(2);

/// Where a record is: segment index and byte offset in the segment. Ordered as the bus is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    pub segment: u64,
    pub offset: u64,
}

/// What every writer and reader of one bus must agree on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappedBusConfig {
    /// Bytes of each segment records may use (Mappedbus's file size); the file is this
    /// rounded up to 4096.
    pub segment_length: usize,
    pub record_mode: RecordMode,
    /// How long a reader waits for an allocated record's commit before rolling it back.
    pub rollback_timeout: Duration,
    /// Give each writer and reader a thread that maps its segment's pages ahead of it
    /// (`MADV_POPULATE_WRITE` / `_READ`), so reads and writes do not take a page fault each
    /// time they reach a new page, creates, sizes, maps and prefaults the next segment as
    /// soon as it enters one, so rolling over costs a hand-over, not a file creation and
    /// mapping, and unmaps the segments it left in steps. The memory of the next segment is
    /// then used early. Default true. Either way a writer or reader maps at most its
    /// current segment and, with this, the next one and the last few it left.
    pub prefault: bool,
}

impl MappedBusConfig {
    /// Mappedbus-compatible fixed-size records with bodies of `record_size` bytes.
    pub fn fixed_size(segment_length: usize, record_size: usize) -> Self {
        Self {
            segment_length,
            record_mode: RecordMode::FixedSize { record_size },
            rollback_timeout: DEFAULT_ROLLBACK_TIMEOUT,
            prefault: true,
        }
    }

    /// Variable-length records.
    pub fn variable_length(segment_length: usize) -> Self {
        Self {
            segment_length,
            record_mode: RecordMode::VariableLength,
            rollback_timeout: DEFAULT_ROLLBACK_TIMEOUT,
            prefault: true,
        }
    }

    pub fn with_rollback_timeout(mut self, timeout: Duration) -> Self {
        self.rollback_timeout = timeout;
        self
    }

    pub fn with_prefault(mut self, prefault: bool) -> Self {
        self.prefault = prefault;
        self
    }

    pub(crate) fn layout(&self) -> Result<layout::SegmentLayout> {
        layout::SegmentLayout::new(self.segment_length, self.record_mode)
    }
}
