//! The mapped bus exports of `aeronrs.h`, for `src/ffi/extras/mapped_bus.rs` to include and
//! cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`config` must be NULL or point to writable memory for a config.";

pub fn generate() -> String {
    export_table::generate("build/mapped_bus_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeronrs_mapped_bus_config_init(config: *mut aeronrs_mapped_bus_config_t) -> c_int
    let defaults = aeronrs_mapped_bus_config_t {
        segment_length: DEFAULT_SEGMENT_LENGTH as u64,
        record_mode: AERONRS_MAPPED_BUS_RECORD_MODE_VARIABLE_LENGTH,
        record_size: 0,
        rollback_timeout_ns: DEFAULT_ROLLBACK_TIMEOUT.as_nanos() as i64,
        prefault: true,
    };
    write_out(config, "config", defaults)
Fills `config` with the defaults: variable-length records, 64 MiB segments, a 2 s
rollback timeout, prefaulted segments.

Returns 0, or -1 if `config` is NULL.

aeronrs_mapped_bus_writer_open(
writer: *mut *mut aeronrs_mapped_bus_writer_t, path: *const c_char,
config: *const aeronrs_mapped_bus_config_t) -> c_int
    require_non_null!(writer, "writer");
    let path = c_str_arg(path, "path")?;
    let config = config_arg(config)?;
    let opened = handles::into_raw(MappedBusWriter::open(path, &config)?);
    write_out(writer, "writer", opened)
Opens the bus at `path` for appending (creating its first segment file if none exists).

Returns 0 and sets `*writer`, or -1 (bad config, a file that is not a bus segment of this
config, I/O error) with `aeron_errmsg()` saying why.
# Safety
`writer` must be NULL or writable; `path` NULL or a NUL-terminated string; `config`
NULL or readable. Free the writer with `aeronrs_mapped_bus_writer_close`.

aeronrs_mapped_bus_writer_write(
writer: *mut aeronrs_mapped_bus_writer_t, payload: *const u8, length: usize,
position: *mut aeronrs_mapped_bus_position_t) -> c_int
    let writer = handles::borrow_mut(writer, "writer")?;
    let payload = bytes_arg(payload, length, "payload")?;
    let outcome = writer.write(payload)?;
    Ok(write_outcome(outcome, position))
Appends a byte message (metadata = `length`). In fixed-size mode `length` may be up to
the record size.

Returns 0 when committed, `AERONRS_MAPPED_BUS_ROLLED_BACK` when a reader rolled it back
first (write it again), -1 on error (too long, corrupt file, I/O). On 0 and
`AERONRS_MAPPED_BUS_ROLLED_BACK` `*position` (if not NULL) is where the record went.
# Safety
`writer` NULL or from `aeronrs_mapped_bus_writer_open`, used by one thread at a time;
`payload` readable for `length` bytes (NULL allowed when 0); `position` NULL or writable.

aeronrs_mapped_bus_writer_write_typed(
writer: *mut aeronrs_mapped_bus_writer_t, message_type: i32, body: *const u8, length: usize,
position: *mut aeronrs_mapped_bus_position_t) -> c_int
    let writer = handles::borrow_mut(writer, "writer")?;
    let body = bytes_arg(body, length, "body")?;
    let outcome = writer.write_typed(message_type, body)?;
    Ok(write_outcome(outcome, position))
Appends a typed message (fixed-size mode only): metadata = `message_type`, the body
(at most the record size) at the start of the record.

Returns as `aeronrs_mapped_bus_writer_write`.
# Safety
As for `aeronrs_mapped_bus_writer_write`.

aeronrs_mapped_bus_writer_flush(writer: *mut aeronrs_mapped_bus_writer_t) -> c_int
    let writer = handles::borrow_mut(writer, "writer")?;
    writer.flush()?;
    Ok(0)
Writes what this writer appended so far to disk (`msync`, plus `fsync` of the folder
after a move to a new segment file), for durability across power loss.

Returns 0, or -1 on error.
# Safety
`writer` NULL or from `aeronrs_mapped_bus_writer_open`, used by one thread at a time.

aeronrs_mapped_bus_writer_close(writer: *mut aeronrs_mapped_bus_writer_t) -> c_int
    drop(handles::reclaim(writer));
    Ok(0)
Closes and frees a writer (NULL is fine). Records stay in the files.

Returns 0.
# Safety
`writer` NULL or from `aeronrs_mapped_bus_writer_open`, not used afterwards.

aeronrs_mapped_bus_reader_poll(
reader: *mut aeronrs_mapped_bus_reader_t, record: *mut aeronrs_mapped_bus_record_t) -> c_int
    let reader = handles::borrow_mut(reader, "reader")?;
    require_non_null!(record, "record");
    let Some(next) = reader.poll()? else { return Ok(0) };
    let out = aeronrs_mapped_bus_record_t {
        position: position_to_c(next.position),
        metadata: next.metadata,
        body: next.body.as_ptr(),
        body_length: next.body.len(),
    };
    *record = out;
    Ok(1)
Reads the next committed record into `*record`, skipping rolled-back ones and rolling
back records whose writer stalled past the timeout.

Returns 1 with `*record` set, 0 when there is no record yet, -1 on error (a corrupt
segment). `record->body` stays valid until the next poll or close of this reader.
# Safety
`reader` NULL or from `aeronrs_mapped_bus_reader_open`, used by one thread at a time;
`record` NULL or writable.

aeronrs_mapped_bus_reader_has_recovered(reader: *mut aeronrs_mapped_bus_reader_t) -> bool
    let reader = handles::borrow_mut(reader, "reader")?;
    Ok(reader.has_recovered())
Whether the reader has reached the end the bus had when the reader was opened.

Returns false also when `reader` is NULL (with the error set).
# Safety
`reader` NULL or from `aeronrs_mapped_bus_reader_open`, used by one thread at a time.

aeronrs_mapped_bus_reader_position(
reader: *mut aeronrs_mapped_bus_reader_t, position: *mut aeronrs_mapped_bus_position_t) -> c_int
    let reader = handles::borrow_mut(reader, "reader")?;
    write_out(position, "position", position_to_c(reader.position()))
Where the reader will look for the next record; a reader opened there later continues
from the same record.

Returns 0, or -1 when an argument is NULL.
# Safety
`reader` NULL or from `aeronrs_mapped_bus_reader_open`, used by one thread at a time;
`position` NULL or writable.

aeronrs_mapped_bus_reader_close(reader: *mut aeronrs_mapped_bus_reader_t) -> c_int
    drop(handles::reclaim(reader));
    Ok(0)
Closes and frees a reader (NULL is fine).

Returns 0.
# Safety
`reader` NULL or from `aeronrs_mapped_bus_reader_open`, not used afterwards.
"#;
