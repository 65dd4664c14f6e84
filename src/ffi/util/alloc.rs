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

// The exports, over the helpers above: generated from the table in build/alloc_exports.rs.
include!(concat!(env!("OUT_DIR"), "/alloc_ffi.rs"));
