//! `aeron_error_log_read` (`concurrent/aeron_distinct_error_log.h`): the distinct errors
//! recorded in an error log buffer, such as the one in `cnc.dat`.

use std::ffi::c_void;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::error_log;
use crate::ffi::cnc::aeron_error_log_reader_func_t;
use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

/// Calls `reader` for each distinct error in the log at `buffer` whose last observation is
/// at or after `since_timestamp` (epoch ms; 0 for all), on the calling thread.
/// Returns the number of errors passed to it; 0 on error (NULL arguments, misaligned buffer,
/// corrupt record), with `aeron_errcode()` set.
///
/// # Safety
/// `buffer` must be NULL or valid for reads of `buffer_size` bytes during the call, written
/// by others only as an Aeron error log; `reader` must be safe to call with `clientd`.
/// The error text passed to `reader` is valid only during that call and not NUL-terminated.
pub(crate) unsafe fn read_error_log(
    buffer: &AtomicBuffer,
    reader: aeron_error_log_reader_func_t,
    clientd: *mut c_void,
    since_timestamp: i64,
) -> Result<usize> {
    let reader = reader.ok_or_else(|| Error::invalid_argument("reader must not be NULL"))?;
    error_log::read(buffer, since_timestamp, |observation| {
        // SAFETY: caller-supplied callback (contract); the text lives until it returns.
        unsafe {
            reader(
                observation.observation_count,
                observation.first_observation_timestamp,
                observation.last_observation_timestamp,
                observation.encoded_error.as_ptr().cast(),
                observation.encoded_error.len(),
                clientd,
            )
        }
    })
}

/// Reads the error log at `buffer` (`buffer_size` bytes, 8-byte aligned). See
/// `aeron_error_log_reader_func_t` for what `reader` receives.
///
/// # Safety
/// As `read_error_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_error_log_read(
    buffer: *const u8,
    buffer_size: usize,
    reader: aeron_error_log_reader_func_t,
    clientd: *mut c_void,
    since_timestamp: i64,
) -> usize {
    ffi_boundary!("aeron_error_log_read", {
        require_non_null!(buffer, "buffer");
        // SAFETY: buffer is valid for buffer_size bytes during the call (contract); the
        // reader only loads from it.
        let log = unsafe { AtomicBuffer::from_raw(buffer.cast_mut(), buffer_size) }?;
        // SAFETY: as this function's contract.
        unsafe { read_error_log(&log, reader, clientd, since_timestamp) }
    })
}
