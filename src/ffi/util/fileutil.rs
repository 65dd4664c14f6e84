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

/// Maps the whole of the existing file `path` shared and read-write, filling in
/// `mapped_file` (`addr`, `length`). Returns 0, or -1: EINVAL for NULL arguments or an
/// empty file, the `errno` of a failed open/stat/mmap (ENOENT for a missing file).
/// Release the mapping with `aeron_unmap`.
///
/// # Safety
/// `mapped_file` must be NULL or valid for writes; `path` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_map_existing_file(
    mapped_file: *mut aeron_mapped_file_t,
    path: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_map_existing_file", {
        require_non_null!(mapped_file, "mapped_file");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        let mapped = register(map_existing(Path::new(path))?)?;
        // SAFETY: mapped_file is non-null and writable (contract).
        unsafe { write_out(mapped_file, "mapped_file", mapped) }
    })
}

/// Unmaps a file mapped by `aeron_map_existing_file`. A NULL `addr` is a no-op. Returns 0,
/// or -1: EINVAL for a NULL `mapped_file` or an address/length this library did not map.
/// The struct itself is left as it was.
///
/// # Safety
/// `mapped_file` must be NULL or valid for reads; no pointer into the mapping may be used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_unmap(mapped_file: *mut aeron_mapped_file_t) -> c_int {
    ffi_boundary!("aeron_unmap", {
        require_non_null!(mapped_file, "mapped_file");
        // SAFETY: mapped_file is non-null and readable (contract).
        let (addr, length) = unsafe { ((*mapped_file).addr, (*mapped_file).length) };
        unregister(addr, length)?;
        Ok(0)
    })
}

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

/// Deletes the directory `directory` and everything in it. Returns 0, or -1 with the
/// `errno` (ENOENT if it does not exist; EINVAL for NULL).
///
/// # Safety
/// `directory` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_delete_directory(directory: *const c_char) -> c_int {
    ffi_boundary!("aeron_delete_directory", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let directory = unsafe { c_str_arg(directory, "directory") }?;
        std::fs::remove_dir_all(directory).map_err(|e| Error::io(&e, format_args!("delete {directory}")))?;
        Ok(0)
    })
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

/// 1 if `path` is a directory (following links), else 0 (also for NULL).
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_is_directory(path: *const c_char) -> c_int {
    ffi_boundary!("aeron_is_directory", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        Ok(c_int::from(Path::new(path).is_dir()))
    })
}

/// Creates the directory `pathname` and any missing parents, with mode `permission`
/// (before the umask). Returns 0, or -1: EEXIST if it already exists, the `errno` of a
/// failed `mkdir`, EINVAL for NULL.
///
/// # Safety
/// `pathname` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_mkdir_recursive(pathname: *const c_char, permission: c_int) -> c_int {
    ffi_boundary!("aeron_mkdir_recursive", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let pathname = unsafe { c_str_arg(pathname, "pathname") }?;
        fileutil::mkdir_recursive(pathname, permission as u32)?;
        Ok(0)
    })
}

/// Creates the file `path` (it must not exist) of `mapped_file->length` bytes and maps it
/// shared read-write into `mapped_file->addr`: sparse, or with every page written up front
/// when `fill_with_zeroes`. Returns 0, or -1: EEXIST, the `errno` of a failed create or
/// map, EINVAL for NULL arguments or a length of 0. Release with `aeron_unmap`.
///
/// # Safety
/// `mapped_file` must be NULL or valid for reads and writes; `path` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_map_new_file(
    mapped_file: *mut aeron_mapped_file_t,
    path: *const c_char,
    fill_with_zeroes: bool,
) -> c_int {
    ffi_boundary!("aeron_map_new_file", {
        require_non_null!(mapped_file, "mapped_file");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        // SAFETY: mapped_file is non-null and readable (contract).
        let length = unsafe { (*mapped_file).length };
        let allocation = if fill_with_zeroes { Allocation::PreTouch } else { Allocation::Sparse };
        let mapped = register(create_new_mapped(Path::new(path), length, allocation)?)?;
        // SAFETY: mapped_file is non-null and writable (contract).
        unsafe { write_out(mapped_file, "mapped_file", mapped) }
    })
}

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

/// Deletes the file (or empty directory) `path`, as C `remove`. Returns 0, or -1 with the
/// `errno` (ENOENT if it does not exist; EINVAL for NULL).
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_delete_file(path: *const c_char) -> c_int {
    ffi_boundary!("aeron_delete_file", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        fileutil::remove(path)?;
        Ok(0)
    })
}

/// The length in bytes of the file `path`, or -1 if it cannot be read (also for NULL).
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_file_length(path: *const c_char) -> i64 {
    ffi_boundary!("aeron_file_length", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        fileutil::file_length(path)
    })
}

/// The bytes an unprivileged user may still write on the file system holding `path`, or 0
/// if it cannot be read (also for NULL).
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_usable_fs_space(path: *const c_char) -> u64 {
    ffi_boundary!("aeron_usable_fs_space", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        usable_disk_space(Path::new(path))
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

/// Writes the path of an IPC publication's log, `<aeron_dir>/publications/<id>.logbuffer`,
/// into `dst` (at most `length` bytes with the NUL, cut like `snprintf`); returns the
/// path's full length, or -1 (EINVAL) for NULL arguments.
///
/// # Safety
/// `dst` must be valid for writes of `length` bytes; `aeron_dir` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_ipc_publication_location(
    dst: *mut c_char,
    length: usize,
    aeron_dir: *const c_char,
    correlation_id: i64,
) -> c_int {
    ffi_boundary!("aeron_ipc_publication_location", {
        // SAFETY: as this function's contract.
        unsafe { log_location(dst, length, aeron_dir, "publications", correlation_id) }
    })
}

/// As `aeron_ipc_publication_location` for a network publication (same folder).
///
/// # Safety
/// As `aeron_ipc_publication_location`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_network_publication_location(
    dst: *mut c_char,
    length: usize,
    aeron_dir: *const c_char,
    correlation_id: i64,
) -> c_int {
    ffi_boundary!("aeron_network_publication_location", {
        // SAFETY: as this function's contract.
        unsafe { log_location(dst, length, aeron_dir, "publications", correlation_id) }
    })
}

/// As `aeron_ipc_publication_location` for a publication image:
/// `<aeron_dir>/images/<id>.logbuffer`.
///
/// # Safety
/// As `aeron_ipc_publication_location`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_image_location(
    dst: *mut c_char,
    length: usize,
    aeron_dir: *const c_char,
    correlation_id: i64,
) -> c_int {
    ffi_boundary!("aeron_publication_image_location", {
        // SAFETY: as this function's contract.
        unsafe { log_location(dst, length, aeron_dir, "images", correlation_id) }
    })
}

/// Writes a path no file has (`/tmp/aeron-c.XXXXXXX` made unique by `mkstemp`, the file
/// removed again) into `filename` (at most `length` bytes with the NUL); returns the
/// length written, 0 on failure.
///
/// # Safety
/// `filename` must be NULL or valid for writes of `length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_temp_filename(filename: *mut c_char, length: usize) -> usize {
    ffi_boundary!("aeron_temp_filename", {
        require_non_null!(filename, "filename");
        let path = unused_temp_path("/tmp/aeron-c.XXXXXXX").map_err(|e| Error::io(&e, "mkstemp"))?;
        // SAFETY: filename holds length bytes (contract).
        Ok(unsafe { write_c_string(path.as_bytes(), filename, length) })
    })
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

/// Creates the log buffer file `path` (it must not exist) for three terms of
/// `term_length` and the metadata, its length rounded up to `page_size`, maps it, records
/// the term length and page size in its metadata and fills in `mapped_raw_log`. Sparse
/// when `use_sparse_files`, else every page written up front. Returns 0, or -1: EINVAL for
/// NULL arguments or a term length / page size Aeron does not allow, EEXIST, the `errno`
/// of a failed create or map. Release with `aeron_raw_log_close` or `aeron_raw_log_free`.
///
/// # Safety
/// `mapped_raw_log` must be NULL or valid for writes; `path` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_raw_log_map(
    mapped_raw_log: *mut aeron_mapped_raw_log_t,
    path: *const c_char,
    use_sparse_files: bool,
    term_length: u64,
    page_size: u64,
) -> c_int {
    ffi_boundary!("aeron_raw_log_map", {
        require_non_null!(mapped_raw_log, "mapped_raw_log");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        let too_large = |what: &str, value: u64| Error::invalid_argument(format!("{what} {value} too large"));
        let term_length = usize::try_from(term_length).map_err(|_| too_large("term length", term_length))?;
        let page_size = usize::try_from(page_size).map_err(|_| too_large("page size", page_size))?;
        let allocation = if use_sparse_files { Allocation::Sparse } else { Allocation::PreTouch };
        let log = LogBuffers::create_new(Path::new(path), term_length, page_size, allocation)?;
        let raw = raw_log_views(&log)?;
        // SAFETY: mapped_raw_log is non-null and writable (contract).
        unsafe { write_out(mapped_raw_log, "mapped_raw_log", raw) }
    })
}

/// Maps the existing log buffer file `path`, taking its term length and page size from its
/// metadata (which must be valid and match the file's length), into `mapped_raw_log`.
/// `pre_touch` faults every page in up front. Returns 0, or -1: EINVAL for NULL arguments or a
/// malformed log, the `errno` of a failed open or map.
///
/// # Safety
/// `mapped_raw_log` must be NULL or valid for writes; `path` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_raw_log_map_existing(
    mapped_raw_log: *mut aeron_mapped_raw_log_t,
    path: *const c_char,
    pre_touch: bool,
) -> c_int {
    ffi_boundary!("aeron_raw_log_map_existing", {
        require_non_null!(mapped_raw_log, "mapped_raw_log");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let path = unsafe { c_str_arg(path, "path") }?;
        let log = LogBuffers::map_existing(Path::new(path))?;
        if pre_touch {
            log.touch_pages();
        }
        let raw = raw_log_views(&log)?;
        // SAFETY: mapped_raw_log is non-null and writable (contract).
        unsafe { write_out(mapped_raw_log, "mapped_raw_log", raw) }
    })
}

/// As `aeron_raw_log_free`, but returns 0, or -1 with the error recorded.
///
/// # Safety
/// As `aeron_raw_log_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_raw_log_close(
    mapped_raw_log: *mut aeron_mapped_raw_log_t,
    filename: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_raw_log_close", {
        // SAFETY: as this function's contract.
        unsafe { free_raw_log(mapped_raw_log, filename) }.map_err(|e| {
            // SAFETY: NULL or NUL-terminated (contract).
            let name = unsafe { c_str_arg(filename, "filename") }.unwrap_or("NULL");
            e.context(format_args!("Failed to close raw log, filename: {name}"))
        })?;
        Ok(0)
    })
}

/// Unmaps a raw log from `aeron_raw_log_map*` (clearing `mapped_file.addr`) and, with a
/// `filename`, deletes that file (clearing `mapped_file.length`); a missing or already
/// empty file counts as deleted. Calling it again is harmless. Returns true, or false on
/// failure (NULL `mapped_raw_log`, a mapping this library did not make, a failed delete).
///
/// # Safety
/// `mapped_raw_log` must be NULL or valid for reads and writes; `filename` NULL or
/// NUL-terminated; no pointer into the mapping may be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_raw_log_free(
    mapped_raw_log: *mut aeron_mapped_raw_log_t,
    filename: *const c_char,
) -> bool {
    ffi_boundary!("aeron_raw_log_free", {
        // SAFETY: as this function's contract.
        unsafe { free_raw_log(mapped_raw_log, filename) }?;
        Ok(true)
    })
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

/// Writes `<parent>/<child>` into `buffer` (at most `buffer_len` bytes with the NUL).
/// Returns its length, or -1: EINVAL for NULL arguments or a path that does not fit (the
/// buffer then holds it cut short).
///
/// # Safety
/// `parent` and `child` must be NULL or NUL-terminated; `buffer` NULL or valid for writes
/// of `buffer_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_file_resolve(
    parent: *const c_char,
    child: *const c_char,
    buffer: *mut c_char,
    buffer_len: usize,
) -> c_int {
    ffi_boundary!("aeron_file_resolve", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let parent = unsafe { c_str_arg(parent, "parent") }?;
        // SAFETY: as above.
        let child = unsafe { c_str_arg(child, "child") }?;
        require_non_null!(buffer, "buffer");
        let path = format!("{parent}/{child}");
        // SAFETY: buffer holds buffer_len bytes (contract).
        let length = unsafe { snprintf_c_string(path.as_bytes(), buffer, buffer_len, "buffer") }?;
        if path.len() >= buffer_len {
            return Err(Error::invalid_argument(format!(
                "Path name was truncated, required: {length}, supplied: {buffer_len}, result: {path}"
            )));
        }
        Ok(length)
    })
}
