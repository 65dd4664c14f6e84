//! The distinct error log exports of `aeron_distinct_error_log.h`, for `src/ffi/util/error_log.rs`
//! to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`buffer` must be NULL or valid for reads of `buffer_size` bytes during the \
                      call, written by others only as an Aeron error log; `reader` must be safe to \
                      call with `clientd` on this thread.";

pub fn generate() -> String {
    export_table::generate("build/error_log_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_error_log_read(
buffer: *const u8, buffer_size: usize, reader: aeron_error_log_reader_func_t, clientd: *mut c_void,
since_timestamp: i64) -> usize
    require_non_null!(buffer, "buffer");
    let log = AtomicBuffer::from_raw(buffer.cast_mut(), buffer_size)?;
    read_error_log(&log, reader, clientd, since_timestamp)
Reads the error log at `buffer` (`buffer_size` bytes, 8-byte aligned). See
`aeron_error_log_reader_func_t` for what `reader` receives.

aeron_distinct_error_log_num_observations(log: *mut aeron_distinct_error_log_t) -> usize
    require_non_null!(log, "log");
    let _locked = Locked::lock(std::ptr::addr_of_mut!((*log).mutex))?;
    // The list block belongs to the log, locked meanwhile.
    Ok((*(*log).observation_list).num_observations as usize)
The number of distinct errors `log` has recorded (0 for NULL, with EINVAL).
# Safety
`log` must be NULL or initialised.

aeron_error_log_exists(buffer: *const u8, buffer_size: usize) -> bool
    require_non_null!(buffer, "buffer");
    let log = AtomicBuffer::from_raw(buffer.cast_mut(), buffer_size)?;
    Ok(error_log::error_log_exists(&log))
Whether the error log at `buffer` holds any record (false for NULL, a buffer shorter
than a record header, or one not 8-byte aligned).
# Safety
`buffer` must be NULL or valid for reads of `buffer_size` bytes, written by others only
as an error log.
"#;
