//! `concurrent/aeron_distinct_error_log.h`: reading the distinct errors recorded in an
//! error log buffer (such as the one in `cnc.dat`), and writing one through Aeron's
//! caller-owned `aeron_distinct_error_log_t`.
//!
//! The writer's state is Aeron's struct, which the caller allocates and may look into (the
//! observation list, the next offset), so it is kept as Aeron keeps it: the list in C
//! memory, guarded by the struct's own pthread mutex. The records themselves are written
//! by `concurrent::error_log` (`append_record`, `observe`).

use std::ffi::{CStr, c_char, c_int, c_void};

use crate::concurrent::AtomicBuffer;
use crate::concurrent::error_log::{self, distinct_error_log};
use crate::ffi::cnc::aeron_error_log_reader_func_t;
use crate::ffi::util::alloc::c_string_copy;
use crate::ffi::util::clock::aeron_clock_func_t;
use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};
use crate::util::format::{TimeZone, format_epoch_ms};

/// The platform mutex (`pthread_mutex_t`), as `concurrent/aeron_thread.h` names it.
#[allow(non_camel_case_types)]
pub type aeron_mutex_t = libc::pthread_mutex_t;

/// One distinct error a writer has recorded (`struct aeron_distinct_observation_stct`):
/// its text (a C-allocated copy), code, and record offset in the buffer.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_distinct_observation_stct {
    pub description: *const c_char,
    pub error_code: c_int,
    pub offset: usize,
    pub description_length: usize,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_distinct_observation_t = aeron_distinct_observation_stct;

/// The observations so far, newest first (`struct
/// aeron_distinct_error_log_observation_list_stct`); one C allocation holding this header
/// and the array after it, replaced whole when an error is added.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_distinct_error_log_observation_list_stct {
    pub num_observations: u64,
    pub observations: *mut aeron_distinct_observation_t,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_distinct_error_log_observation_list_t = aeron_distinct_error_log_observation_list_stct;

/// A distinct error log writer over a caller's buffer (`struct aeron_distinct_error_log_stct`),
/// set up by `aeron_distinct_error_log_init`, released by `aeron_distinct_error_log_close`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_distinct_error_log_stct {
    pub buffer: *mut u8,
    pub observation_list: *mut aeron_distinct_error_log_observation_list_t,
    pub buffer_capacity: usize,
    pub next_offset: usize,
    pub clock: aeron_clock_func_t,
    pub mutex: aeron_mutex_t,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_distinct_error_log_t = aeron_distinct_error_log_stct;

// Aeron's layouts on LP64; c-tests/test_util_headers.c asserts them from C.
#[cfg(target_pointer_width = "64")]
mod layout {
    use super::*;
    use std::mem::{offset_of, size_of};
    static_assertions::const_assert_eq!(offset_of!(aeron_distinct_observation_stct, error_code), 8);
    static_assertions::const_assert_eq!(offset_of!(aeron_distinct_observation_stct, offset), 16);
    static_assertions::const_assert_eq!(size_of::<aeron_distinct_observation_stct>(), 32);
    static_assertions::const_assert_eq!(size_of::<aeron_distinct_error_log_observation_list_stct>(), 16);
    static_assertions::const_assert_eq!(offset_of!(aeron_distinct_error_log_stct, next_offset), 24);
    static_assertions::const_assert_eq!(offset_of!(aeron_distinct_error_log_stct, clock), 32);
    static_assertions::const_assert_eq!(offset_of!(aeron_distinct_error_log_stct, mutex), 40);
    static_assertions::const_assert_eq!(
        size_of::<aeron_distinct_error_log_stct>(),
        40 + size_of::<libc::pthread_mutex_t>()
    );
}

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

/// Holds a writer's mutex; unlocks when dropped, also when a callback panics.
struct Locked(*mut aeron_mutex_t);

impl Locked {
    /// # Safety
    /// `mutex` must be an initialised mutex that outlives the guard.
    unsafe fn lock(mutex: *mut aeron_mutex_t) -> Result<Self> {
        // SAFETY: an initialised mutex (contract).
        let rc = unsafe { libc::pthread_mutex_lock(mutex) };
        if rc != 0 {
            return Err(Error::with_code(rc, "pthread_mutex_lock of the error log"));
        }
        Ok(Self(mutex))
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // SAFETY: locked by this guard on this thread (lock).
        unsafe { libc::pthread_mutex_unlock(self.0) };
    }
}

/// A list block with room for `count` observations (header, then the array), zeroed.
fn alloc_list(count: usize) -> Result<*mut aeron_distinct_error_log_observation_list_t> {
    let header = std::mem::size_of::<aeron_distinct_error_log_observation_list_t>();
    let bytes = count
        .checked_mul(std::mem::size_of::<aeron_distinct_observation_t>())
        .and_then(|array| array.checked_add(header))
        .ok_or_else(|| Error::with_code(libc::ENOMEM, "too many distinct errors"))?;
    // SAFETY: calloc has no preconditions.
    let list = unsafe { libc::calloc(1, bytes) }.cast::<aeron_distinct_error_log_observation_list_t>();
    if list.is_null() {
        return Err(Error::with_code(libc::ENOMEM, "Unable to allocate distinct error log"));
    }
    // The array follows the header; malloc alignment (16) suits both.
    let observations = if count == 0 {
        std::ptr::null_mut()
    } else {
        // SAFETY: the block holds header + count observations.
        unsafe { list.cast::<u8>().add(header) }.cast::<aeron_distinct_observation_t>()
    };
    // SAFETY: list is a fresh, writable block large enough for its header.
    unsafe {
        list.write(aeron_distinct_error_log_observation_list_t {
            num_observations: count as u64,
            observations,
        })
    };
    Ok(list)
}

/// Sets up `log` to record into `buffer` (`buffer_size` bytes, 8-byte aligned, zeroed as a
/// new error log is), stamping observations with `clock` (epoch ms). Returns 0, or -1:
/// EINVAL for a NULL `log`, `clock` or `buffer`, or a misaligned buffer; ENOMEM.
///
/// # Safety
/// `log` must be NULL or valid for writes of an `aeron_distinct_error_log_t`; `buffer`
/// valid for reads and writes of `buffer_size` bytes until `aeron_distinct_error_log_close`,
/// and written by others only as an error log; `clock` safe to call from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_distinct_error_log_init(
    log: *mut aeron_distinct_error_log_t,
    buffer: *mut u8,
    buffer_size: usize,
    clock: aeron_clock_func_t,
) -> c_int {
    ffi_boundary!("aeron_distinct_error_log_init", {
        require_non_null!(log, "log");
        require_non_null!(buffer, "buffer");
        if clock.is_none() {
            return Err(Error::invalid_argument("clock must not be NULL"));
        }
        if buffer as usize % 8 != 0 {
            return Err(Error::invalid_argument("error log buffer must be 8-byte aligned"));
        }
        let observation_list = alloc_list(0)?;
        // SAFETY: pthread_mutex_t is plain old data; the all-zero placeholder is replaced by
        // pthread_mutex_init below before any use.
        let mutex: aeron_mutex_t = unsafe { std::mem::zeroed() };
        let initialised = aeron_distinct_error_log_t {
            buffer,
            observation_list,
            buffer_capacity: buffer_size,
            next_offset: 0,
            clock,
            mutex,
        };
        // SAFETY: log is non-null and writable (contract).
        unsafe { log.write(initialised) };
        // SAFETY: the mutex lives in the caller's struct (contract); default attributes.
        let rc = unsafe { libc::pthread_mutex_init(std::ptr::addr_of_mut!((*log).mutex), std::ptr::null()) };
        if rc != 0 {
            // SAFETY: allocated above, not yet shared.
            unsafe { libc::free(observation_list.cast()) };
            return Err(Error::with_code(rc, "pthread_mutex_init of the error log"));
        }
        Ok(0)
    })
}

/// Frees what `aeron_distinct_error_log_init` and the records allocated (the list and the
/// copies of the descriptions) and destroys the mutex. The buffer is the caller's and keeps
/// its records. NULL does nothing.
///
/// # Safety
/// `log` must be NULL or initialised and not closed; no other thread may use it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_distinct_error_log_close(log: *mut aeron_distinct_error_log_t) {
    ffi_boundary!("aeron_distinct_error_log_close", {
        if log.is_null() {
            return Ok(());
        }
        {
            // SAFETY: initialised mutex inside the live log (contract).
            let _locked = unsafe { Locked::lock(std::ptr::addr_of_mut!((*log).mutex)) }?;
            // SAFETY: the log is initialised (contract) and locked.
            let list =
                unsafe { std::ptr::addr_of_mut!((*log).observation_list).replace(std::ptr::null_mut()) };
            if !list.is_null() {
                // SAFETY: the list block written by alloc_list, owned by the log.
                let list_ref = unsafe { &*list };
                for i in 0..list_ref.num_observations as usize {
                    // SAFETY: i < num_observations entries in the block.
                    let description = unsafe { (*list_ref.observations.add(i)).description };
                    // SAFETY: each description is a calloc'd copy owned by the list.
                    unsafe { libc::free(description.cast_mut().cast()) };
                }
                // SAFETY: the block came from calloc and is no longer referenced.
                unsafe { libc::free(list.cast()) };
            }
        }
        // SAFETY: unlocked above; nobody else uses the log (contract).
        unsafe { libc::pthread_mutex_destroy(std::ptr::addr_of_mut!((*log).mutex)) };
        Ok(())
    })
}

/// Records one observation of the error (`error_code`, `description`): the first time as
/// a new record, then by counting it and updating its last observation time. An error is
/// the same as a recorded one when the codes are equal and `description` starts with the
/// recorded text. Returns 0, or -1: EINVAL for NULL arguments; ENOMEM when a new error no
/// longer fits in the buffer (then also printed to stderr as "unrecordable error").
///
/// # Safety
/// `log` must be NULL or initialised; `description` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_distinct_error_log_record(
    log: *mut aeron_distinct_error_log_t,
    error_code: c_int,
    description: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_distinct_error_log_record", {
        require_non_null!(log, "log");
        require_non_null!(description, "description");
        // SAFETY: non-null and NUL-terminated (contract).
        let text = unsafe { CStr::from_ptr(description) }.to_bytes();
        // SAFETY: the log is initialised (contract); these fields do not change after init.
        let (buffer, capacity, clock) = unsafe { ((*log).buffer, (*log).buffer_capacity, (*log).clock) };
        // SAFETY: the caller's buffer, live and shared only as an error log (init contract).
        let buffer = unsafe { AtomicBuffer::from_raw(buffer, capacity) }?;
        let clock = clock.ok_or_else(|| Error::invalid_argument("log has no clock"))?;
        let (offset, timestamp) = {
            // SAFETY: initialised mutex inside the live log (contract).
            let _locked = unsafe { Locked::lock(std::ptr::addr_of_mut!((*log).mutex)) }?;
            // SAFETY: the caller's clock, safe to call (init contract).
            let timestamp = unsafe { clock() };
            // SAFETY: the list and next offset belong to the locked log.
            let offset = match unsafe { find(log, error_code, text) } {
                Some(offset) => offset,
                // SAFETY: as above.
                None => unsafe { add(log, &buffer, timestamp, error_code, text) }.inspect_err(|_| {
                    let date = format_epoch_ms(timestamp, TimeZone::Local);
                    eprintln!("{date} - unrecordable error {}", String::from_utf8_lossy(text));
                })?,
            };
            (offset, timestamp)
        };
        distinct_error_log::observe(&buffer, offset, timestamp);
        Ok(0)
    })
}

/// The record offset of a recorded error matching (`error_code`, `text`), if any.
///
/// # Safety
/// `log` must be initialised and locked by the caller.
unsafe fn find(log: *mut aeron_distinct_error_log_t, error_code: c_int, text: &[u8]) -> Option<usize> {
    // SAFETY: the list block belongs to the locked log (contract).
    let list = unsafe { &*(*log).observation_list };
    (0..list.num_observations as usize).find_map(|i| {
        // SAFETY: i < num_observations entries in the block.
        let observation = unsafe { &*list.observations.add(i) };
        // SAFETY: the description copy holds description_length bytes and a NUL.
        let recorded = unsafe {
            std::slice::from_raw_parts(observation.description.cast::<u8>(), observation.description_length)
        };
        (observation.error_code == error_code && text.starts_with(recorded)).then_some(observation.offset)
    })
}

/// Writes a new record and puts its observation first in a new list. Returns its offset.
///
/// # Safety
/// `log` must be initialised and locked by the caller; `buffer` its buffer.
unsafe fn add(
    log: *mut aeron_distinct_error_log_t,
    buffer: &AtomicBuffer,
    timestamp: i64,
    error_code: c_int,
    text: &[u8],
) -> Result<usize> {
    // SAFETY: the locked log's fields (contract).
    let (old, offset) = unsafe { ((*log).observation_list, (*log).next_offset) };
    // SAFETY: the list block belongs to the locked log (contract).
    let count = unsafe { (*old).num_observations } as usize;
    let list = alloc_list(count + 1)?;
    let copy = match c_string_copy(text, "Unable to allocate distinct error description") {
        Ok(copy) => copy,
        Err(e) => {
            // SAFETY: allocated above, not shared.
            unsafe { libc::free(list.cast()) };
            return Err(e);
        }
    };
    // SAFETY: the log is locked (contract) and next_offset is where its unused space begins.
    let next_offset =
        match unsafe { distinct_error_log::append_record(buffer, offset, timestamp, error_code, text) } {
            Ok(next) => next,
            Err(e) => {
                // SAFETY: both allocated above, not shared.
                unsafe { libc::free(copy.cast_mut().cast()) };
                // SAFETY: as above.
                unsafe { libc::free(list.cast()) };
                return Err(e);
            }
        };
    let observation = aeron_distinct_observation_t {
        description: copy,
        error_code,
        offset,
        description_length: text.len(),
    };
    // SAFETY: the new block, written by alloc_list, is not shared yet.
    let observations = unsafe { (*list).observations };
    // SAFETY: the new block holds count + 1 entries, the first for the new error.
    unsafe { observations.write(observation) };
    if count > 0 {
        // SAFETY: the old block holds count entries, the new one room for them after the
        // first; distinct allocations.
        unsafe { std::ptr::copy_nonoverlapping((*old).observations, observations.add(1), count) };
    }
    // SAFETY: the locked log's fields (contract).
    unsafe { (*log).observation_list = list };
    // SAFETY: as above.
    unsafe { (*log).next_offset = next_offset };
    // SAFETY: the old block came from calloc; its descriptions now belong to the new block,
    // so only the block itself is freed.
    unsafe { libc::free(old.cast()) };
    Ok(offset)
}

// The exports, over the helpers above: generated from the table in build/error_log_exports.rs.
include!(concat!(env!("OUT_DIR"), "/error_log_ffi.rs"));
