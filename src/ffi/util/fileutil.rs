//! Files of `util/aeron_fileutil.h`: mapping files (new or existing, shared read-write)
//! and raw logs (`.logbuffer` files split into terms and metadata) and releasing them,
//! directories, lengths and free space, and the paths Aeron gives its files.
//!
//! Every mapping handed to C is kept in a registry by address, so `aeron_unmap` releases
//! exactly what this library mapped.

use std::ffi::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::LazyLock;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::{Allocation, create_new_mapped, map_existing, sync_range};
use crate::concurrent::mapping_registry::MappingRegistry;
use crate::ffi::util::strutil::{snprintf_c_string, write_c_string};
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null, write_out};
use crate::logbuffer::log_buffers::LogBuffers;
use crate::util::error::{Error, Result};
use crate::util::fileutil;
use crate::util::sys::{unused_temp_path, usable_disk_space};

/// A file mapped into memory: `length` bytes at `addr` (Aeron's
/// `struct aeron_mapped_file_stct`).
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_mapped_file_stct {
    pub addr: *mut c_void,
    pub length: usize,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_mapped_file_t = aeron_mapped_file_stct;

static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_mapped_file_stct, length),
    std::mem::size_of::<usize>()
);
static_assertions::const_assert_eq!(
    std::mem::size_of::<aeron_mapped_file_stct>(),
    2 * std::mem::size_of::<usize>()
);

/// The mappings handed out to C, kept alive until `aeron_unmap` (or `aeron_raw_log_free`).
static MAPPINGS: LazyLock<MappingRegistry> = LazyLock::new(MappingRegistry::default);

/// Keeps `buffer`'s mapping alive until `aeron_unmap` (or `aeron_raw_log_free`) releases
/// it by address; returns the C view of it.
pub(crate) fn register(buffer: AtomicBuffer) -> Result<aeron_mapped_file_t> {
    let (addr, length) = MAPPINGS.register(buffer)?;
    Ok(aeron_mapped_file_t { addr: addr.cast::<c_void>(), length })
}

/// Releases the mapping [`register`] handed out at `addr` (NULL: nothing to do).
fn unregister(addr: *mut c_void, length: usize) -> Result<()> {
    if addr.is_null() { Ok(()) } else { MAPPINGS.release(addr.cast(), length) }
}

/// A mapped range (`struct aeron_mapped_buffer_stct`): `length` bytes at `addr`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_mapped_buffer_stct {
    pub addr: *mut u8,
    pub length: usize,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_mapped_buffer_t = aeron_mapped_buffer_stct;

/// A mapped log buffer file (`struct aeron_mapped_raw_log_stct`): its three terms
/// (`AERON_LOGBUFFER_PARTITION_COUNT`), the metadata section and the whole mapping.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_mapped_raw_log_stct {
    pub term_buffers: [aeron_mapped_buffer_t; 3],
    pub log_meta_data: aeron_mapped_buffer_t,
    pub mapped_file: aeron_mapped_file_t,
    pub term_length: usize,
}

/// Aeron's name for it.
#[allow(non_camel_case_types)]
pub type aeron_mapped_raw_log_t = aeron_mapped_raw_log_stct;

static_assertions::const_assert_eq!(crate::logbuffer::descriptor::PARTITION_COUNT, 3);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_mapped_raw_log_stct, term_length),
    5 * std::mem::size_of::<aeron_mapped_buffer_stct>()
);

/// A function reporting the usable space (bytes) of the file system holding a path.
#[allow(non_camel_case_types)]
pub type aeron_usable_fs_space_func_t = Option<unsafe extern "C" fn(path: *const c_char) -> u64>;
/// The shape of `aeron_raw_log_map`.
#[allow(non_camel_case_types)]
pub type aeron_raw_log_map_func_t = Option<
    unsafe extern "C" fn(
        mapped_raw_log: *mut aeron_mapped_raw_log_t,
        path: *const c_char,
        use_sparse_files: bool,
        term_length: u64,
        page_size: u64,
    ) -> c_int,
>;
/// The shape of `aeron_raw_log_close`.
#[allow(non_camel_case_types)]
pub type aeron_raw_log_close_func_t = Option<
    unsafe extern "C" fn(mapped_raw_log: *mut aeron_mapped_raw_log_t, filename: *const c_char) -> c_int,
>;
/// The shape of `aeron_raw_log_free`.
#[allow(non_camel_case_types)]
pub type aeron_raw_log_free_func_t = Option<
    unsafe extern "C" fn(mapped_raw_log: *mut aeron_mapped_raw_log_t, filename: *const c_char) -> bool,
>;

/// Flushes `length` bytes of a shared mapping from the page-aligned `addr` to its file
/// (`msync` with `MS_SYNC | MS_INVALIDATE`). NULL does nothing. Returns 0, or -1 with the
/// `errno` (ENOMEM: not mapped; EINVAL: not page-aligned).
#[unsafe(no_mangle)]
pub extern "C" fn aeron_msync(addr: *mut c_void, length: usize) -> c_int {
    ffi_boundary!("aeron_msync", {
        if !addr.is_null() {
            sync_range(addr.cast(), length)?;
        }
        Ok(0)
    })
}

/// The `aeron_usable_fs_space_func_t` for storage checks turned off: always `UINT64_MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_usable_fs_space_disabled(_path: *const c_char) -> u64 {
    u64::MAX
}

/// # Safety
/// As the location functions: `dst` valid for `length` bytes, `aeron_dir` NULL or
/// NUL-terminated.
unsafe fn log_location(
    dst: *mut c_char,
    length: usize,
    aeron_dir: *const c_char,
    folder: &str,
    correlation_id: i64,
) -> Result<c_int> {
    // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
    let aeron_dir = unsafe { c_str_arg(aeron_dir, "aeron_dir") }?;
    let location = fileutil::log_location(aeron_dir, folder, correlation_id);
    // SAFETY: as this function's contract.
    unsafe { snprintf_c_string(location.as_bytes(), dst, length, "dst") }
}

/// Fills `raw` with the views of `log`, whose mapping the registry now keeps.
fn raw_log_views(log: &LogBuffers) -> Result<aeron_mapped_raw_log_t> {
    let view =
        |buffer: &AtomicBuffer| aeron_mapped_buffer_t { addr: buffer.as_ptr(), length: buffer.capacity() };
    let terms = log.terms();
    let raw = aeron_mapped_raw_log_t {
        term_buffers: [view(&terms[0]), view(&terms[1]), view(&terms[2])],
        log_meta_data: view(log.metadata()),
        mapped_file: register(log.buffer().clone())?,
        term_length: log.term_length(),
    };
    Ok(raw)
}

/// # Safety
/// As `aeron_raw_log_free`.
unsafe fn free_raw_log(mapped_raw_log: *mut aeron_mapped_raw_log_t, filename: *const c_char) -> Result<()> {
    require_non_null!(mapped_raw_log, "mapped_raw_log");
    // SAFETY: non-null, readable and writable (contract); no other reference exists.
    let raw = unsafe { &mut *mapped_raw_log };
    if !raw.mapped_file.addr.is_null() {
        unregister(raw.mapped_file.addr, raw.mapped_file.length)?;
        raw.mapped_file.addr = std::ptr::null_mut();
    }
    if !filename.is_null() && raw.mapped_file.length > 0 {
        // SAFETY: non-null and NUL-terminated (contract).
        let filename = unsafe { c_str_arg(filename, "filename") }?;
        fileutil::remove_log_file(filename)?;
        raw.mapped_file.length = 0;
    }
    Ok(())
}

// The exports, over the helpers above: generated from the table in build/fileutil_exports.rs.
include!(concat!(env!("OUT_DIR"), "/fileutil_ffi.rs"));
