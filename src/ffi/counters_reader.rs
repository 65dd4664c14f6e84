//! The counters reader functions of `aeronc.h` over a `CountersReader`: the counters of a
//! `cnc.dat` (from `aeron_cnc_counters_reader`, or a client's reader). Readers never
//! change counters; values and metadata are read with acquire where their writers publish
//! with release.
//!
//! An `aeron_counters_reader_t *` points to a `crate::concurrent::counters::CountersReader`
//! owned by whatever handed it out (a CnC handle, a client), valid as long as that owner.

use std::ffi::{c_char, c_int, c_void};

use crate::concurrent::counters::CountersReader;
use crate::concurrent::counters::descriptor::{
    COUNTER_VALUE_OFFSET, KEY_OFFSET, MAX_KEY_LENGTH, NULL_COUNTER_ID, counter_offset, metadata_offset,
};
use crate::ffi::handles::{self, Handle};
use crate::ffi::{ffi_boundary, require_non_null, write_out};
use crate::util::error::{Error, Result};

/// Read access to a set of counters. Opaque; owned by whoever returned it.
#[allow(non_camel_case_types)]
pub struct aeron_counters_reader_t {
    _private: [u8; 0],
}

/// Where a reader's buffers are.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_counters_reader_buffers_t {
    /// 128 bytes per counter: value, registration id, owner id, reference id.
    pub values: *mut u8,
    /// 512 bytes per counter: state, type id, free-for-reuse deadline, key, label.
    pub metadata: *mut u8,
    pub values_length: usize,
    pub metadata_length: usize,
}

/// Receives one allocated counter: its value, id, type id, key (`key_length` bytes) and
/// label (`label_length` bytes, not NUL-terminated), and `clientd`. Key and label are
/// valid only during the call.
#[allow(non_camel_case_types)]
pub type aeron_counters_reader_foreach_counter_func_t = Option<
    unsafe extern "C" fn(
        value: i64,
        id: i32,
        type_id: i32,
        key: *const u8,
        key_length: usize,
        label: *const c_char,
        label_length: usize,
        clientd: *mut c_void,
    ),
>;

/// A borrowed handle: the reader belongs to a CnC handle or a client, which outlive it.
impl Handle for aeron_counters_reader_t {
    type Target = CountersReader;
}

/// The reader pointer handed to C for `reader` (for the owners of readers: CnC, client).
pub(crate) fn as_c_reader(reader: &CountersReader) -> *mut aeron_counters_reader_t {
    (reader as *const CountersReader).cast_mut().cast()
}

/// The reader behind `reader`, or EINVAL for NULL.
///
/// # Safety
/// `reader` must be NULL or from `as_c_reader` with its owner still alive.
unsafe fn counters<'a>(reader: *mut aeron_counters_reader_t) -> Result<&'a CountersReader> {
    // SAFETY: NULL or a live CountersReader (contract); it is only read.
    unsafe { handles::borrow(reader, "counters_reader") }
}

/// Fills `buffers` with the addresses and lengths of the reader's values and metadata.
/// Returns 0, or -1 (EINVAL) for NULL arguments.
///
/// # Safety
/// `reader` NULL or live; `buffers` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counters_reader_get_buffers(
    reader: *mut aeron_counters_reader_t,
    buffers: *mut aeron_counters_reader_buffers_t,
) -> c_int {
    ffi_boundary!("aeron_counters_reader_get_buffers", {
        // SAFETY: NULL or live (contract).
        let r = unsafe { counters(reader) }?;
        let value = aeron_counters_reader_buffers_t {
            values: r.values_buffer().as_ptr(),
            metadata: r.metadata_buffer().as_ptr(),
            values_length: r.values_buffer().capacity(),
            metadata_length: r.metadata_buffer().capacity(),
        };
        // SAFETY: NULL or writable (contract).
        unsafe { write_out(buffers, "buffers", value) }
    })
}

/// Calls `func` for every allocated counter in id order, stopping at the first never-used
/// record, on the calling thread. Nothing happens (EINVAL) for NULL arguments.
///
/// # Safety
/// `counters_reader` NULL or live; `func` safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counters_reader_foreach_counter(
    counters_reader: *mut aeron_counters_reader_t,
    func: aeron_counters_reader_foreach_counter_func_t,
    clientd: *mut c_void,
) {
    ffi_boundary!("aeron_counters_reader_foreach_counter", {
        // SAFETY: NULL or live (contract).
        let r = unsafe { counters(counters_reader) }?;
        let func = func.ok_or_else(|| Error::invalid_argument("func must not be NULL"))?;
        r.for_each_counter(|counter| {
            let label = counter.label_bytes();
            // SAFETY: caller-supplied callback (contract); key and label are copies alive
            // until it returns.
            unsafe {
                func(
                    counter.value,
                    counter.id,
                    counter.type_id,
                    counter.key().as_ptr(),
                    MAX_KEY_LENGTH,
                    label.as_ptr().cast(),
                    label.len(),
                    clientd,
                )
            }
        });
        Ok(())
    })
}

/// The address of counter `counter_id`'s 64-bit value in shared memory (read it with an
/// acquire/volatile load), or NULL (EINVAL) for a NULL reader or an id out of range.
///
/// # Safety
/// `counters_reader` must be NULL or live; the address is valid as long as the reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counters_reader_addr(
    counters_reader: *mut aeron_counters_reader_t,
    counter_id: i32,
) -> *mut i64 {
    ffi_boundary!("aeron_counters_reader_addr", {
        // SAFETY: NULL or live (contract).
        let r = unsafe { counters(counters_reader) }?;
        check_id(r, counter_id)?;
        let offset = counter_offset(counter_id) + COUNTER_VALUE_OFFSET;
        r.values_buffer().check_bounds(offset, 8)?;
        // SAFETY: offset + 8 lies inside the values buffer (checked).
        Ok(unsafe { r.values_buffer().as_ptr().add(offset) }.cast::<i64>())
    })
}

fn check_id(reader: &CountersReader, counter_id: i32) -> Result<()> {
    if counter_id < 0 || counter_id > reader.max_counter_id() {
        return Err(Error::invalid_argument(format!(
            "counter id {counter_id} out of range 0..={}",
            reader.max_counter_id()
        )));
    }
    Ok(())
}

/// Stores in `*key_p` the address of counter `counter_id`'s key (`AERON_COUNTER_MAX_KEY_LENGTH`
/// bytes of metadata in shared memory). Returns 0, or -1 (EINVAL) for NULL arguments or an
/// id out of range.
///
/// # Safety
/// `counters_reader` NULL or live; `key_p` NULL or valid for a write. The key is valid as
/// long as the reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counters_reader_metadata_key(
    counters_reader: *mut aeron_counters_reader_t,
    counter_id: i32,
    key_p: *mut *mut u8,
) -> c_int {
    ffi_boundary!("aeron_counters_reader_metadata_key", {
        // SAFETY: NULL or live (contract).
        let r = unsafe { counters(counters_reader) }?;
        check_id(r, counter_id)?;
        let offset = metadata_offset(counter_id) + KEY_OFFSET;
        r.metadata_buffer().check_bounds(offset, MAX_KEY_LENGTH)?;
        // SAFETY: the key lies inside the metadata buffer (checked).
        let key = unsafe { r.metadata_buffer().as_ptr().add(offset) };
        // SAFETY: NULL or writable (contract).
        unsafe { write_out(key_p, "key_p", key) }
    })
}

/// Copies counter `counter_id`'s label into `buffer`, at most `buffer_length` bytes and
/// without a NUL terminator. Returns the number of bytes copied, or -1 (EINVAL) for NULL
/// arguments or an id out of range.
///
/// # Safety
/// `counters_reader` NULL or live; `buffer` NULL or valid for writes of `buffer_length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_counters_reader_counter_label(
    counters_reader: *mut aeron_counters_reader_t,
    counter_id: i32,
    buffer: *mut c_char,
    buffer_length: usize,
) -> c_int {
    ffi_boundary!("aeron_counters_reader_counter_label", {
        // SAFETY: NULL or live (contract).
        let r = unsafe { counters(counters_reader) }?;
        let out: &mut [u8] = if buffer_length == 0 {
            &mut []
        } else {
            require_non_null!(buffer, "buffer");
            // SAFETY: buffer is non-null and valid for buffer_length bytes (contract).
            unsafe { std::slice::from_raw_parts_mut(buffer.cast::<u8>(), buffer_length) }
        };
        Ok(r.copy_counter_label(counter_id, out)? as c_int)
    })
}

// The id lookup, the max id and the per-counter fields read into an out argument, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/counters_reader_ffi.rs"));
