//! `aeron_cnc_file_descriptor.h`: finding and mapping a driver's `cnc.dat` step by step, as
//! Aeron's tools do, and the header fields (`aeron_cnc_metadata_t`, hand-written in
//! `include/aeronrs_util.h.in` because Aeron packs it to 4 bytes).

use std::ffi::{c_char, c_int};
use std::path::Path;

use crate::cnc::cnc_file::{CncLoad, load};
use crate::cnc::descriptor::{
    CLIENT_LIVENESS_TIMEOUT_OFFSET, CNC_FILE, CNC_VERSION_OFFSET, ERROR_LOG_BUFFER_LENGTH_OFFSET, PID_OFFSET,
    START_TIMESTAMP_OFFSET, TO_CLIENTS_BUFFER_LENGTH_OFFSET,
};
use crate::concurrent::AtomicBuffer;
use crate::ffi::cnc::aeron_cnc_constants_t;
use crate::ffi::util::fileutil::{aeron_file_resolve, aeron_mapped_file_t, register};
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null};

/// The header at the start of `cnc.dat` (`struct aeron_cnc_metadata_stct`, packed to 4):
/// the same fields as `aeron_cnc_constants_t`, which Aeron declares twice.
#[allow(non_camel_case_types)]
pub type aeron_cnc_metadata_t = aeron_cnc_constants_t;

// The struct is the file's header, field for field (spec/cnc.md).
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_cnc_metadata_t, cnc_version),
    CNC_VERSION_OFFSET
);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_cnc_metadata_t, to_clients_buffer_length),
    TO_CLIENTS_BUFFER_LENGTH_OFFSET
);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_cnc_metadata_t, error_log_buffer_length),
    ERROR_LOG_BUFFER_LENGTH_OFFSET
);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_cnc_metadata_t, client_liveness_timeout),
    CLIENT_LIVENESS_TIMEOUT_OFFSET
);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_cnc_metadata_t, start_timestamp),
    START_TIMESTAMP_OFFSET
);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_cnc_metadata_t, pid), PID_OFFSET);

/// What `aeron_cnc_map_file_and_load_metadata` found (`enum aeron_cnc_load_result_stct`):
/// success, failure, or the step to wait for before trying again.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum aeron_cnc_load_result_stct {
    AERON_CNC_LOAD_FAILED = -1,
    AERON_CNC_LOAD_SUCCESS = 0,
    AERON_CNC_LOAD_AWAIT_FILE = 1,
    AERON_CNC_LOAD_AWAIT_MMAP = 2,
    AERON_CNC_LOAD_AWAIT_VERSION = 3,
    AERON_CNC_LOAD_AWAIT_CNC_DATA = 4,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_cnc_load_result_t = aeron_cnc_load_result_stct;

impl crate::ffi::FailureValue for aeron_cnc_load_result_t {
    fn failure() -> Self {
        aeron_cnc_load_result_t::AERON_CNC_LOAD_FAILED
    }
}

/// The CnC version in the header, read with acquire (0 until the driver has finished
/// creating the file; -1 with EINVAL for NULL).
///
/// # Safety
/// `metadata` must be NULL or point to the start of a mapped `cnc.dat` (4-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_version_volatile(metadata: *mut aeron_cnc_metadata_t) -> i32 {
    ffi_boundary!("aeron_cnc_version_volatile", {
        // SAFETY: the header of a mapped cnc.dat (contract), shared with the driver, which
        // writes the version with release.
        let header = unsafe {
            AtomicBuffer::from_raw(metadata.cast::<u8>(), std::mem::size_of::<aeron_cnc_metadata_t>())
        }?;
        // Acquire: pairs with the driver's release of the version once the file is ready.
        Ok(header.get_i32_acquire(CNC_VERSION_OFFSET))
    })
}

/// Maps `<dir>/cnc.dat` into `mapped_file` and points `*metadata` at its header, if the
/// driver has finished creating it. Returns `AERON_CNC_LOAD_SUCCESS` (release the mapping
/// with `aeron_unmap`); an `AERON_CNC_LOAD_AWAIT_*` step (nothing is left mapped: try again
/// later); or `AERON_CNC_LOAD_FAILED` with the error recorded: NULL arguments (EINVAL), an
/// incompatible CnC version (EINVAL), a file that cannot be mapped.
///
/// # Safety
/// `dir` must be NULL or NUL-terminated; `mapped_file` and `metadata` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_map_file_and_load_metadata(
    dir: *const c_char,
    mapped_file: *mut aeron_mapped_file_t,
    metadata: *mut *mut aeron_cnc_metadata_t,
) -> aeron_cnc_load_result_t {
    ffi_boundary!("aeron_cnc_map_file_and_load_metadata", {
        use aeron_cnc_load_result_stct::*;
        require_non_null!(metadata, "metadata");
        require_non_null!(mapped_file, "mapped_file");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let dir = unsafe { c_str_arg(dir, "dir") }?;
        let buffer = match load(&Path::new(dir).join(CNC_FILE))? {
            CncLoad::AwaitFile => return Ok(AERON_CNC_LOAD_AWAIT_FILE),
            CncLoad::AwaitMmap => return Ok(AERON_CNC_LOAD_AWAIT_MMAP),
            CncLoad::AwaitVersion => return Ok(AERON_CNC_LOAD_AWAIT_VERSION),
            CncLoad::AwaitCncData => return Ok(AERON_CNC_LOAD_AWAIT_CNC_DATA),
            CncLoad::Loaded(buffer) => buffer,
        };
        let mapped = register(buffer)?;
        // SAFETY: metadata is non-null and writable (contract).
        unsafe { metadata.write(mapped.addr.cast::<aeron_cnc_metadata_t>()) };
        // SAFETY: mapped_file is non-null and writable (contract).
        unsafe { mapped_file.write(mapped) };
        Ok(AERON_CNC_LOAD_SUCCESS)
    })
}

/// Writes `<directory>/cnc.dat` into `filename_buffer` as `aeron_file_resolve` does:
/// returns its length, or -1 (EINVAL) for NULL arguments or a buffer that is too short.
///
/// # Safety
/// `directory` must be NULL or NUL-terminated; `filename_buffer` NULL or valid for writes
/// of `filename_buffer_length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_resolve_filename(
    directory: *const c_char,
    filename_buffer: *mut c_char,
    filename_buffer_length: usize,
) -> c_int {
    // SAFETY: as this function's contract; the child is a NUL-terminated literal.
    unsafe { aeron_file_resolve(directory, c"cnc.dat".as_ptr(), filename_buffer, filename_buffer_length) }
}
