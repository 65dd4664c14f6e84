//! `aeron_alloc` / `aeron_free` (`aeron_alloc.h`): zeroed heap memory from the C allocator,
//! so memory one side allocates the other may free (idle strategy states, for example).

use std::ffi::{c_int, c_void};

use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::Error;

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
