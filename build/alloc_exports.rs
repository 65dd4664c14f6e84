//! The allocation exports of `aeron_alloc.h`, for `src/ffi/util/alloc.rs` to include and cbindgen
//! to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`ptr` must be NULL or valid for a pointer write.";

pub fn generate() -> String {
    export_table::generate("build/alloc_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_alloc(ptr: *mut *mut c_void, size: usize) -> c_int
    require_non_null!(ptr, "ptr");
    let bytes = libc::calloc(1, size.max(1));
    ptr.write(bytes);
    if bytes.is_null() {
        return Err(Error::with_code(libc::ENOMEM, format!("Failed to allocate {size} bytes")));
    }
    Ok(0)
Allocates `size` zeroed bytes (C `malloc` alignment) and stores the address in `*ptr`.
Returns 0, or -1 with `*ptr` set to NULL and `aeron_errcode()` ENOMEM when the memory is
not available (EINVAL if `ptr` is NULL). Free it with `aeron_free`.

aeron_free(ptr: *mut c_void)
    libc::free(ptr);
    Ok(())
Frees memory from `aeron_alloc` (or anything the C allocator handed out). NULL is a
no-op.
# Safety
`ptr` must be NULL or a live allocation of the C allocator, not used afterwards.

aeron_alloc_no_err(ptr: *mut *mut c_void, size: usize) -> c_int
    if ptr.is_null() {
        return Ok(-1);
    }
    let bytes = libc::calloc(1, size.max(1));
    ptr.write(bytes);
    Ok(if bytes.is_null() { -1 } else { 0 })
As `aeron_alloc` but records no error on failure (for callers that report running out
of memory their own way): 0, or -1 with `*ptr` NULL (also for a NULL `ptr`).

aeron_reallocf(ptr: *mut *mut c_void, size: usize) -> c_int
    require_non_null!(ptr, "ptr");
    let old = ptr.read();
    let new = libc::realloc(old, size);
    if new.is_null() && size != 0 {
        // realloc failed, so old is still live and ours to free.
        libc::free(old);
        ptr.write(std::ptr::null_mut());
        return Err(Error::with_code(libc::ENOMEM, format!("Failed to reallocate {size} bytes")));
    }
    ptr.write(new);
    Ok(0)
Resizes `*ptr` (NULL: a new allocation) to `size` bytes, like BSD `reallocf`: on
failure the old memory is freed, `*ptr` set to NULL and -1 returned (ENOMEM); a `size`
of 0 frees it (`*ptr` may become NULL) and returns 0. Bytes beyond the old size are not
zeroed.
# Safety
`ptr` must be NULL or valid for reads and writes, `*ptr` NULL or a live allocation of
the C allocator.
"#;
