//! `aeronrs_image_log`: where an image's log and subscriber position are in memory, for
//! bindings that poll in their own language instead of calling across the boundary per
//! poll (Java through FFM: a downcall and the describe-then-commit protocol cost more than
//! reading a few frames). The binding then follows the reader's side of the log-buffer
//! protocol itself (`spec/log-buffer.md` §8): acquire-load the frame length at the
//! subscriber position, skip padding, hand out the payload, release-store the new position.
//!
//! Lifetime: the addresses are the image's own mappings (the log file and the client's
//! counters file), which live as long as the image does. A binding keeps the image alive
//! with `aeron_subscription_image_retain` for as long as it may read them, and releases it
//! from the thread that reads them, once it no longer will. It tests `*is_closed` before
//! each read: once the image closed, its position counter is the driver's to free and its
//! terms are no longer the subscriber's to consume, exactly as for `aeron_image_poll`.

use std::ffi::c_int;

use crate::ffi::image::{aeron_image_t, image_ref};
use crate::ffi::{ffi_boundary, require_non_null};

/// An image's log in memory: three terms of `term_length` bytes back to back from `terms`,
/// the subscriber position counter and the image's closed flag. Plain data; the pointers
/// are valid while the image is (see `aeronrs_image_log`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeronrs_image_log_stct {
    /// Term 0; term `i` starts at `terms + i * term_length`.
    pub terms: *mut u8,
    /// Bytes per term (a power of two).
    pub term_length: usize,
    /// The whole mapping (terms and metadata).
    pub log_length: usize,
    /// The subscriber position counter (an 8-byte aligned int64, read with acquire, written
    /// with release by the subscription's poller only).
    pub subscriber_position: *mut i64,
    /// Non-zero once the image closed (a byte, read with acquire; set once, never cleared).
    pub is_closed: *const u8,
    pub initial_term_id: i32,
    /// log2 of `term_length`.
    pub position_bits_to_shift: i32,
}

/// The name bindings use for it.
#[allow(non_camel_case_types)]
pub type aeronrs_image_log_t = aeronrs_image_log_stct;

// The layout bindings hard-code (Java's FFM reads it by offset).
static_assertions::const_assert_eq!(std::mem::size_of::<aeronrs_image_log_t>(), 48);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeronrs_image_log_t, subscriber_position), 24);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeronrs_image_log_t, initial_term_id), 40);
// The closed flag is handed out as a byte: an AtomicBool is one.
static_assertions::const_assert_eq!(std::mem::size_of::<std::sync::atomic::AtomicBool>(), 1);

/// Fills `*log` with where `image`'s log, subscriber position and closed flag are. Returns
/// 0, or -1 for NULL arguments (EINVAL).
///
/// The pointers stay valid while the image does: until the unavailable-image handler ran
/// plus the resource linger duration, or longer while retained
/// (`aeron_subscription_image_retain`). Read the terms and write the position only from the
/// subscription's polling thread, and only while `*is_closed` is 0.
///
/// # Safety
/// `image` NULL or valid; `log` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_image_log(
    image: *mut aeron_image_t,
    log: *mut aeronrs_image_log_t,
) -> c_int {
    ffi_boundary!("aeronrs_image_log", {
        // SAFETY: forwarded contract.
        let image = unsafe { image_ref(image) }?;
        require_non_null!(log, "log");
        let buffers = image.log_buffers();
        let value = aeronrs_image_log_t {
            // The terms start the file (`spec/log-buffer.md` §2).
            terms: buffers.buffer().as_ptr(),
            term_length: buffers.term_length(),
            log_length: buffers.buffer().capacity(),
            subscriber_position: image.subscriber_position_counter().as_ptr().cast::<i64>(),
            is_closed: image.closed_flag().as_ptr().cast_const().cast::<u8>(),
            initial_term_id: image.initial_term_id(),
            position_bits_to_shift: image.position_bits_to_shift() as i32,
        };
        // SAFETY: non-NULL and writable (contract).
        unsafe { log.write(value) };
        Ok(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_arguments_fail_with_einval() {
        let mut log = std::mem::MaybeUninit::<aeronrs_image_log_t>::uninit();
        // SAFETY: NULL image is in the contract.
        assert_eq!(unsafe { aeronrs_image_log(std::ptr::null_mut(), log.as_mut_ptr()) }, -1);
        assert_eq!(crate::ffi::error::aeron_errcode(), libc::EINVAL);
    }
}
