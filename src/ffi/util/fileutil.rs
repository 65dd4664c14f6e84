//! Mapped files and directories of `util/aeron_fileutil.h`: map an existing file into
//! memory (shared, read-write) and release it, delete a directory tree.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::Mutex;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::map_existing;
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

/// A file mapped into memory: `length` bytes at `addr`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_mapped_file_t {
    pub addr: *mut c_void,
    pub length: usize,
}

/// The mappings handed out by `aeron_map_existing_file`, by address, kept alive until
/// `aeron_unmap`.
fn mappings() -> &'static Mutex<HashMap<usize, AtomicBuffer>> {
    static MAPPINGS: std::sync::OnceLock<Mutex<HashMap<usize, AtomicBuffer>>> = std::sync::OnceLock::new();
    MAPPINGS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn lock_mappings() -> Result<std::sync::MutexGuard<'static, HashMap<usize, AtomicBuffer>>> {
    mappings().lock().map_err(|_| Error::illegal_state("mapped file registry poisoned"))
}

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
        let buffer = map_existing(Path::new(path))?;
        let (addr, length) = (buffer.as_ptr(), buffer.capacity());
        lock_mappings()?.insert(addr as usize, buffer);
        // SAFETY: mapped_file is non-null and writable (contract).
        unsafe { mapped_file.write(aeron_mapped_file_t { addr: addr.cast::<c_void>(), length }) };
        Ok(0)
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
        if addr.is_null() {
            return Ok(0);
        }
        let mut mappings = lock_mappings()?;
        match mappings.get(&(addr as usize)) {
            Some(buffer) if buffer.capacity() == length => {
                mappings.remove(&(addr as usize));
                Ok(0)
            }
            Some(buffer) => Err(Error::invalid_argument(format!(
                "length {length} does not match the mapping at {addr:p} ({} bytes)",
                buffer.capacity()
            ))),
            None => {
                Err(Error::invalid_argument(format!("{addr:p} was not mapped by aeron_map_existing_file")))
            }
        }
    })
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
