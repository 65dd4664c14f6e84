//! `aeron_alloc` / `aeron_free` (`aeron_alloc.h`): zeroed heap memory from the C allocator,
//! so memory one side allocates the other may free (idle strategy states, for example).

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

/// A NUL-terminated copy of `text` in C-allocator memory (freed with `free`); ENOMEM with
/// the message `failure` when out of memory.
pub(crate) fn c_string_copy(text: &[u8], failure: &str) -> Result<*const c_char> {
    // SAFETY: calloc has no preconditions; the extra byte stays 0 as the terminator.
    let memory = unsafe { libc::calloc(1, text.len() + 1) }.cast::<u8>();
    if memory.is_null() {
        return Err(Error::with_code(libc::ENOMEM, failure));
    }
    // SAFETY: memory holds text.len() + 1 bytes; the regions are distinct.
    unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), memory, text.len()) };
    Ok(memory.cast::<c_char>().cast_const())
}

/// Moves `value` into C-allocator memory, released by `aeron_free`, which runs no
/// destructor: only for types without one that need at most malloc's alignment (16 on the
/// supported targets), both checked when compiled.
pub(crate) fn c_box<T>(value: T, what: &str) -> Result<*mut c_void> {
    const { assert!(!std::mem::needs_drop::<T>() && std::mem::align_of::<T>() <= 16) };
    // SAFETY: calloc has no preconditions.
    let memory = unsafe { libc::calloc(1, std::mem::size_of::<T>()) };
    if memory.is_null() {
        return Err(Error::with_code(libc::ENOMEM, format!("failed to allocate {what}")));
    }
    // SAFETY: memory is fresh, large enough for T and aligned for it (asserted above).
    unsafe { memory.cast::<T>().write(value) };
    Ok(memory)
}

/// Allocates `size` zeroed bytes (C `malloc` alignment) and stores the address in `*ptr`.
/// Returns 0, or -1 with `*ptr` set to NULL and `aeron_errcode()` ENOMEM when the memory is
/// not available (EINVAL if `ptr` is NULL). Free it with `aeron_free`.
///
/// # Safety
/// `ptr` must be NULL or valid for a pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_alloc(ptr: *mut *mut c_void, size: usize) -> c_int {
    ffi_boundary!("aeron_alloc", {
        require_non_null!(ptr, "ptr");
        // SAFETY: calloc has no preconditions; a zero size may return NULL or a unique
        // pointer, both of which free() accepts.
        let bytes = unsafe { libc::calloc(1, size.max(1)) };
        // SAFETY: ptr is non-null and writable (contract).
        unsafe { ptr.write(bytes) };
        if bytes.is_null() {
            return Err(Error::with_code(libc::ENOMEM, format!("Failed to allocate {size} bytes")));
        }
        Ok(0)
    })
}

/// Frees memory from `aeron_alloc` (or anything the C allocator handed out). NULL is a
/// no-op.
///
/// # Safety
/// `ptr` must be NULL or a live allocation of the C allocator, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_free(ptr: *mut c_void) {
    ffi_boundary!("aeron_free", {
        // SAFETY: ptr is NULL or a live C allocation (contract); free(NULL) is a no-op.
        unsafe { libc::free(ptr) };
        Ok(())
    })
}

/// As `aeron_alloc` but records no error on failure (for callers that report running out
/// of memory their own way): 0, or -1 with `*ptr` NULL (also for a NULL `ptr`).
///
/// # Safety
/// `ptr` must be NULL or valid for a pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_alloc_no_err(ptr: *mut *mut c_void, size: usize) -> c_int {
    ffi_boundary!("aeron_alloc_no_err", {
        if ptr.is_null() {
            return Ok(-1);
        }
        // SAFETY: calloc has no preconditions.
        let bytes = unsafe { libc::calloc(1, size.max(1)) };
        // SAFETY: ptr is non-null and writable (contract).
        unsafe { ptr.write(bytes) };
        Ok(if bytes.is_null() { -1 } else { 0 })
    })
}

/// Allocates `size` zeroed bytes aligned to `alignment` (a power of two) into `*ptr`, with
/// `*offset` the distance from `*ptr` to the aligned start: always 0 here, the allocation
/// itself is aligned. Free with `aeron_free`. Returns 0, or -1: EINVAL for NULL pointers or
/// an alignment that is not a power of two, ENOMEM.
///
/// # Safety
/// `ptr` and `offset` must be NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_alloc_aligned(
    ptr: *mut *mut c_void,
    offset: *mut usize,
    size: usize,
    alignment: usize,
) -> c_int {
    ffi_boundary!("aeron_alloc_aligned", {
        require_non_null!(ptr, "ptr");
        require_non_null!(offset, "offset");
        if !alignment.is_power_of_two() {
            return Err(Error::invalid_argument(format!("alignment {alignment} is not a power of two")));
        }
        // posix_memalign wants a multiple of the pointer size; a larger power of two is
        // still aligned to the smaller one asked for.
        let alignment = alignment.max(std::mem::size_of::<*mut c_void>());
        let mut bytes = std::ptr::null_mut();
        // SAFETY: bytes is a valid out-pointer; alignment is a power of two and a multiple
        // of sizeof(void *), as posix_memalign requires.
        let rc = unsafe { libc::posix_memalign(&mut bytes, alignment, size.max(1)) };
        if rc != 0 {
            return Err(Error::with_code(
                rc,
                format!("Failed to allocate {size} bytes aligned to {alignment}"),
            ));
        }
        // SAFETY: bytes holds at least size bytes, freshly allocated.
        unsafe { bytes.cast::<u8>().write_bytes(0, size) };
        // SAFETY: ptr and offset are non-null and writable (contract).
        unsafe { ptr.write(bytes) };
        // SAFETY: as above.
        unsafe { offset.write(0) };
        Ok(0)
    })
}

/// Resizes `*ptr` (NULL: a new allocation) to `size` bytes, like BSD `reallocf`: on
/// failure the old memory is freed, `*ptr` set to NULL and -1 returned (ENOMEM); a `size`
/// of 0 frees it (`*ptr` may become NULL) and returns 0. Bytes beyond the old size are not
/// zeroed.
///
/// # Safety
/// `ptr` must be NULL or valid for reads and writes, `*ptr` NULL or a live allocation of
/// the C allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_reallocf(ptr: *mut *mut c_void, size: usize) -> c_int {
    ffi_boundary!("aeron_reallocf", {
        require_non_null!(ptr, "ptr");
        // SAFETY: ptr is non-null and readable (contract).
        let old = unsafe { ptr.read() };
        // SAFETY: old is NULL or a live C allocation (contract); realloc takes ownership.
        let new = unsafe { libc::realloc(old, size) };
        if new.is_null() && size != 0 {
            // SAFETY: realloc failed, so old is still live and ours to free.
            unsafe { libc::free(old) };
            // SAFETY: ptr is writable (contract).
            unsafe { ptr.write(std::ptr::null_mut()) };
            return Err(Error::with_code(libc::ENOMEM, format!("Failed to reallocate {size} bytes")));
        }
        // SAFETY: as above.
        unsafe { ptr.write(new) };
        Ok(0)
    })
}
