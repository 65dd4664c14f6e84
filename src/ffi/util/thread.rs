//! Thread naming and pinning of `concurrent/aeron_thread.h` (the sleeps are in `clock.rs`).

use std::ffi::{CStr, c_char, c_int};

use crate::ffi::ffi_boundary;
use crate::util::error::Error;
use crate::util::sys::{set_current_thread_affinity, set_current_thread_name};

/// Names the calling thread `role_name` (Linux keeps the first 15 bytes), as tools such as
/// `top -H` show it. NULL does nothing; a failure is recorded in `aeron_errcode()`.
///
/// # Safety
/// `role_name` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_thread_set_name(role_name: *const c_char) {
    ffi_boundary!("aeron_thread_set_name", {
        if role_name.is_null() {
            return Ok(());
        }
        // SAFETY: non-null and NUL-terminated (contract).
        let name = unsafe { CStr::from_ptr(role_name) };
        set_current_thread_name(name.to_bytes()).map_err(|e| Error::io(&e, "pthread_setname_np"))
    })
}

/// Pins the calling thread to CPU `cpu_affinity_no`. Returns 0, or -1 with the `errno` of
/// `sched_setaffinity` (EINVAL for a CPU the thread may not use); `role_name` (may be
/// NULL) only names the thread in the message.
///
/// # Safety
/// `role_name` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_thread_set_affinity(role_name: *const c_char, cpu_affinity_no: u8) -> c_int {
    ffi_boundary!("aeron_thread_set_affinity", {
        set_current_thread_affinity(usize::from(cpu_affinity_no)).map_err(|e| {
            let role = if role_name.is_null() {
                "NULL".into()
            } else {
                // SAFETY: non-null and NUL-terminated (contract).
                unsafe { CStr::from_ptr(role_name) }.to_string_lossy()
            };
            Error::io(
                &e,
                format_args!(
                    "failed to set thread affinity role_name={role}, cpu_affinity_no={cpu_affinity_no}"
                ),
            )
        })?;
        Ok(0)
    })
}
