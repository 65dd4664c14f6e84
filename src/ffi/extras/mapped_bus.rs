//! `aeronrs_mapped_bus_*`: the persistent memory-mapped message bus (`crate::mappedbus`), a
//! Mappedbus-style file of records that writers in many processes append to and readers in
//! many processes read live or replay.
//!
//! Threading: a writer or reader handle is used by one thread at a time; open one handle per
//! thread (or process) that writes or reads. Handles of one bus in different threads and
//! processes work together without locks.
#![allow(non_camel_case_types)] // C names, as in aeronc.h

use std::ffi::{c_char, c_int};
use std::time::Duration;

use crate::ffi::handles::{self, Handle};
use crate::ffi::{bytes_arg, c_str_arg, ffi_boundary, require_non_null, write_out};
use crate::mappedbus::{
    DEFAULT_ROLLBACK_TIMEOUT, DEFAULT_SEGMENT_LENGTH, MappedBusConfig, MappedBusReader, MappedBusWriter,
    Position, RecordMode, StartAt, WriteOutcome,
};
use crate::util::error::{Error, Result};

/// Record mode: every record body has `record_size` bytes (the Mappedbus layout).
pub const AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE: c_int = 0;
/// Record mode: records are as long as their payload (rounded up to 8).
pub const AERONRS_MAPPED_BUS_RECORD_MODE_VARIABLE_LENGTH: c_int = 1;

/// Reader start: the first record of the oldest segment.
pub const AERONRS_MAPPED_BUS_START_REPLAY: c_int = 0;
/// Reader start: the current end of the bus.
pub const AERONRS_MAPPED_BUS_START_LIVE: c_int = 1;
/// Reader start: the given position (a record boundary).
pub const AERONRS_MAPPED_BUS_START_AT_POSITION: c_int = 2;

/// Write result: a reader rolled the record back before its commit; write it again.
pub const AERONRS_MAPPED_BUS_ROLLED_BACK: c_int = -2;

/// Where a record is: segment index (file `<name>` is 0, `<name>.<n>` is n) and byte offset.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct aeronrs_mapped_bus_position_t {
    pub segment: u64,
    pub offset: u64,
}

/// What every writer and reader of one bus must agree on. Fill with
/// `aeronrs_mapped_bus_config_init`, then change what differs.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeronrs_mapped_bus_config_t {
    /// Bytes of each segment records may use; the file is this rounded up to 4096.
    pub segment_length: u64,
    /// `AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE` or `..._VARIABLE_LENGTH`.
    pub record_mode: c_int,
    /// Body bytes of every record in fixed-size mode (a multiple of 4); ignored otherwise.
    pub record_size: u32,
    /// How long a reader waits for an allocated record's commit before rolling it back.
    pub rollback_timeout_ns: i64,
    /// Map each segment's pages when opening it, so reads and writes do not page-fault on
    /// the way (opening takes longer instead); each writer and reader then also has a
    /// thread that prepares the next segment ahead, so roll-over does not wait for it.
    pub prefault: bool,
}

/// A committed record handed out by `aeronrs_mapped_bus_reader_poll`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeronrs_mapped_bus_record_t {
    pub position: aeronrs_mapped_bus_position_t,
    /// Message type of a typed message, or payload length of a byte message.
    pub metadata: i32,
    /// The body: the whole record body in fixed-size mode, the payload in variable-length
    /// mode. Valid until the next poll or close of the reader.
    pub body: *const u8,
    pub body_length: usize,
}

/// Opaque writer handle.
pub struct aeronrs_mapped_bus_writer_t {
    _private: [u8; 0],
}

/// Opaque reader handle.
pub struct aeronrs_mapped_bus_reader_t {
    _private: [u8; 0],
}

impl Handle for aeronrs_mapped_bus_writer_t {
    type Target = MappedBusWriter;
}

impl Handle for aeronrs_mapped_bus_reader_t {
    type Target = MappedBusReader;
}

fn position_to_c(position: Position) -> aeronrs_mapped_bus_position_t {
    aeronrs_mapped_bus_position_t { segment: position.segment, offset: position.offset }
}

/// # Safety
/// `config` must be NULL or point to a readable config.
unsafe fn config_arg(config: *const aeronrs_mapped_bus_config_t) -> Result<MappedBusConfig> {
    require_non_null!(config, "config");
    // SAFETY: non-null and readable per the contract.
    let config = unsafe { *config };
    let segment_length = usize::try_from(config.segment_length).map_err(|_| {
        Error::invalid_argument(format!("segment_length {} is too large", config.segment_length))
    })?;
    let record_mode = match config.record_mode {
        AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE => {
            RecordMode::FixedSize { record_size: config.record_size as usize }
        }
        AERONRS_MAPPED_BUS_RECORD_MODE_VARIABLE_LENGTH => RecordMode::VariableLength,
        other => return Err(Error::invalid_argument(format!("unknown record_mode {other}"))),
    };
    let timeout = u64::try_from(config.rollback_timeout_ns).map_err(|_| {
        Error::invalid_argument(format!("rollback_timeout_ns {} is negative", config.rollback_timeout_ns))
    })?;
    Ok(MappedBusConfig {
        segment_length,
        record_mode,
        rollback_timeout: Duration::from_nanos(timeout),
        prefault: config.prefault,
    })
}

/// # Safety
/// `out` must be NULL or writable.
unsafe fn write_outcome(outcome: WriteOutcome, out: *mut aeronrs_mapped_bus_position_t) -> c_int {
    let (position, code) = match outcome {
        WriteOutcome::Committed(p) => (p, 0),
        WriteOutcome::RolledBack(p) => (p, AERONRS_MAPPED_BUS_ROLLED_BACK),
    };
    if !out.is_null() {
        // SAFETY: non-null and writable per the contract.
        unsafe { *out = position_to_c(position) };
    }
    code
}

/// Opens the bus at `path` for reading from `start`: `AERONRS_MAPPED_BUS_START_REPLAY`,
/// `AERONRS_MAPPED_BUS_START_LIVE`, or `AERONRS_MAPPED_BUS_START_AT_POSITION` with
/// `*position` a record boundary (ignored, may be NULL, otherwise).
///
/// Returns 0 and sets `*reader`, or -1 with `aeron_errmsg()` saying why.
///
/// # Safety
/// `reader` NULL or writable; `path` NULL or NUL-terminated; `config` NULL or readable;
/// `position` NULL or readable. Free the reader with `aeronrs_mapped_bus_reader_close`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_reader_open(
    reader: *mut *mut aeronrs_mapped_bus_reader_t,
    path: *const c_char,
    config: *const aeronrs_mapped_bus_config_t,
    start: c_int,
    position: *const aeronrs_mapped_bus_position_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_reader_open", {
        require_non_null!(reader, "reader");
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = unsafe { c_str_arg(path, "path") }?;
        // SAFETY: NULL or readable per the contract.
        let config = unsafe { config_arg(config) }?;
        let start = match start {
            AERONRS_MAPPED_BUS_START_REPLAY => StartAt::Replay,
            AERONRS_MAPPED_BUS_START_LIVE => StartAt::Live,
            AERONRS_MAPPED_BUS_START_AT_POSITION => {
                require_non_null!(position, "position");
                // SAFETY: non-null and readable per the contract.
                let position = unsafe { *position };
                StartAt::Position(Position { segment: position.segment, offset: position.offset })
            }
            other => return Err(Error::invalid_argument(format!("unknown start {other}"))),
        };
        let opened = handles::into_raw(MappedBusReader::open(path, &config, start)?);
        // SAFETY: non-null and writable per the contract.
        unsafe { write_out(reader, "reader", opened) }
    })
}

// The exports, over the helpers above: generated from the table in build/mapped_bus_exports.rs.
include!(concat!(env!("OUT_DIR"), "/mapped_bus_ffi.rs"));
