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

/// Fills `config` with the defaults: variable-length records, 64 MiB segments, a 2 s
/// rollback timeout, prefaulted segments.
///
/// Returns 0, or -1 if `config` is NULL.
///
/// # Safety
/// `config` must be NULL or point to writable memory for a config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_config_init(config: *mut aeronrs_mapped_bus_config_t) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_config_init", {
        let defaults = aeronrs_mapped_bus_config_t {
            segment_length: DEFAULT_SEGMENT_LENGTH as u64,
            record_mode: AERONRS_MAPPED_BUS_RECORD_MODE_VARIABLE_LENGTH,
            record_size: 0,
            rollback_timeout_ns: DEFAULT_ROLLBACK_TIMEOUT.as_nanos() as i64,
            prefault: true,
        };
        // SAFETY: NULL or writable per the contract.
        unsafe { write_out(config, "config", defaults) }
    })
}

/// Opens the bus at `path` for appending (creating its first segment file if none exists).
///
/// Returns 0 and sets `*writer`, or -1 (bad config, a file that is not a bus segment of this
/// config, I/O error) with `aeron_errmsg()` saying why.
///
/// # Safety
/// `writer` must be NULL or writable; `path` NULL or a NUL-terminated string; `config`
/// NULL or readable. Free the writer with `aeronrs_mapped_bus_writer_close`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_writer_open(
    writer: *mut *mut aeronrs_mapped_bus_writer_t,
    path: *const c_char,
    config: *const aeronrs_mapped_bus_config_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_writer_open", {
        require_non_null!(writer, "writer");
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = unsafe { c_str_arg(path, "path") }?;
        // SAFETY: NULL or readable per the contract.
        let config = unsafe { config_arg(config) }?;
        let opened = handles::into_raw(MappedBusWriter::open(path, &config)?);
        // SAFETY: non-null and writable per the contract.
        unsafe { write_out(writer, "writer", opened) }
    })
}

/// Appends a byte message (metadata = `length`). In fixed-size mode `length` may be up to
/// the record size.
///
/// Returns 0 when committed, `AERONRS_MAPPED_BUS_ROLLED_BACK` when a reader rolled it back
/// first (write it again), -1 on error (too long, corrupt file, I/O). On 0 and
/// `AERONRS_MAPPED_BUS_ROLLED_BACK` `*position` (if not NULL) is where the record went.
///
/// # Safety
/// `writer` from `aeronrs_mapped_bus_writer_open`; `payload` readable for `length` bytes
/// (NULL allowed when 0); `position` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_writer_write(
    writer: *mut aeronrs_mapped_bus_writer_t,
    payload: *const u8,
    length: usize,
    position: *mut aeronrs_mapped_bus_position_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_writer_write", {
        // SAFETY: a live writer handle used by this thread only, per the contract.
        let writer = unsafe { handles::borrow_mut(writer, "writer") }?;
        // SAFETY: readable for `length` bytes per the contract.
        let payload = unsafe { bytes_arg(payload, length, "payload") }?;
        let outcome = writer.write(payload)?;
        // SAFETY: NULL or writable per the contract.
        Ok(unsafe { write_outcome(outcome, position) })
    })
}

/// Appends a typed message (fixed-size mode only): metadata = `message_type`, the body
/// (at most the record size) at the start of the record.
///
/// Returns as `aeronrs_mapped_bus_writer_write`.
///
/// # Safety
/// As for `aeronrs_mapped_bus_writer_write`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_writer_write_typed(
    writer: *mut aeronrs_mapped_bus_writer_t,
    message_type: i32,
    body: *const u8,
    length: usize,
    position: *mut aeronrs_mapped_bus_position_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_writer_write_typed", {
        // SAFETY: a live writer handle used by this thread only, per the contract.
        let writer = unsafe { handles::borrow_mut(writer, "writer") }?;
        // SAFETY: readable for `length` bytes per the contract.
        let body = unsafe { bytes_arg(body, length, "body") }?;
        let outcome = writer.write_typed(message_type, body)?;
        // SAFETY: NULL or writable per the contract.
        Ok(unsafe { write_outcome(outcome, position) })
    })
}

/// Writes what this writer appended so far to disk (`msync`, plus `fsync` of the folder
/// after a move to a new segment file), for durability across power loss.
///
/// Returns 0, or -1 on error.
///
/// # Safety
/// `writer` from `aeronrs_mapped_bus_writer_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_writer_flush(writer: *mut aeronrs_mapped_bus_writer_t) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_writer_flush", {
        // SAFETY: a live writer handle used by this thread only, per the contract.
        let writer = unsafe { handles::borrow_mut(writer, "writer") }?;
        writer.flush()?;
        Ok(0)
    })
}

/// Closes and frees a writer (NULL is fine). Records stay in the files.
///
/// Returns 0.
///
/// # Safety
/// `writer` NULL or from `aeronrs_mapped_bus_writer_open`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_writer_close(writer: *mut aeronrs_mapped_bus_writer_t) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_writer_close", {
        // SAFETY: NULL or a live handle, freed once here, per the contract.
        drop(unsafe { handles::reclaim(writer) });
        Ok(0)
    })
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

/// Reads the next committed record into `*record`, skipping rolled-back ones and rolling
/// back records whose writer stalled past the timeout.
///
/// Returns 1 with `*record` set, 0 when there is no record yet, -1 on error (a corrupt
/// segment). `record->body` stays valid until the next poll or close of this reader.
///
/// # Safety
/// `reader` from `aeronrs_mapped_bus_reader_open`; `record` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_reader_poll(
    reader: *mut aeronrs_mapped_bus_reader_t,
    record: *mut aeronrs_mapped_bus_record_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_reader_poll", {
        // SAFETY: a live reader handle used by this thread only, per the contract.
        let reader = unsafe { handles::borrow_mut(reader, "reader") }?;
        require_non_null!(record, "record");
        let Some(next) = reader.poll()? else { return Ok(0) };
        let out = aeronrs_mapped_bus_record_t {
            position: position_to_c(next.position),
            metadata: next.metadata,
            body: next.body.as_ptr(),
            body_length: next.body.len(),
        };
        // SAFETY: non-null and writable per the contract.
        unsafe { *record = out };
        Ok(1)
    })
}

/// Whether the reader has reached the end the bus had when the reader was opened.
///
/// Returns false also when `reader` is NULL (with the error set).
///
/// # Safety
/// `reader` NULL or from `aeronrs_mapped_bus_reader_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_reader_has_recovered(
    reader: *mut aeronrs_mapped_bus_reader_t,
) -> bool {
    ffi_boundary!("aeronrs_mapped_bus_reader_has_recovered", {
        // SAFETY: a live reader handle used by this thread only, per the contract.
        let reader = unsafe { handles::borrow_mut(reader, "reader") }?;
        Ok(reader.has_recovered())
    })
}

/// Where the reader will look for the next record; a reader opened there later continues
/// from the same record.
///
/// Returns 0, or -1 when an argument is NULL.
///
/// # Safety
/// `reader` from `aeronrs_mapped_bus_reader_open`; `position` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_reader_position(
    reader: *mut aeronrs_mapped_bus_reader_t,
    position: *mut aeronrs_mapped_bus_position_t,
) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_reader_position", {
        // SAFETY: a live reader handle used by this thread only, per the contract.
        let reader = unsafe { handles::borrow_mut(reader, "reader") }?;
        // SAFETY: NULL or writable per the contract.
        unsafe { write_out(position, "position", position_to_c(reader.position())) }
    })
}

/// Closes and frees a reader (NULL is fine).
///
/// Returns 0.
///
/// # Safety
/// `reader` NULL or from `aeronrs_mapped_bus_reader_open`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_mapped_bus_reader_close(reader: *mut aeronrs_mapped_bus_reader_t) -> c_int {
    ffi_boundary!("aeronrs_mapped_bus_reader_close", {
        // SAFETY: NULL or a live handle, freed once here, per the contract.
        drop(unsafe { handles::reclaim(reader) });
        Ok(0)
    })
}
