//! How the client API's opaque handles map to Rust values.
//!
//! A handle type (`aeron_publication_t`, ...) is a zero-sized C name for a Rust value
//! ([`Handle::Target`]), in one of three shapes, and the functions here are the only casts
//! between the two (the one place to audit for double frees and use after close):
//!
//! * **owned**: a box the C side owns — [`into_raw`], [`borrow`] / [`borrow_mut`],
//!   [`reclaim`] (contexts, drivers, CnC readers, ring buffers, bus readers and writers);
//! * **shared**: one reference of an `Arc` — [`share_into_raw`], [`shared_ptr`],
//!   [`retain_shared`] / [`release_shared`], [`reclaim_shared`], read through [`borrow`]
//!   (subscriptions, images);
//! * **borrowed**: a value some other owner keeps alive — only [`borrow`] (counters readers).
//!
//! Closed resource handles are not freed at once: they wait in the client's
//! [`ResourceLinger`](crate::client::resource_linger::ResourceLinger).

use crate::util::error::{Error, Result};

/// A C handle type and the Rust value behind it.
pub(crate) trait Handle {
    type Target;
}

/// Boxes `value` and returns it as the C handle.
pub(crate) fn into_raw<H: Handle>(value: H::Target) -> *mut H {
    Box::into_raw(Box::new(value)).cast()
}

/// The value behind `handle`; EINVAL naming `name` for NULL.
///
/// # Safety
/// `handle` must be NULL or from [`into_raw`] for the same `H`, not yet reclaimed, and used
/// by the caller within the thread-safety rules of that handle type.
pub(crate) unsafe fn borrow<'a, H: Handle>(handle: *const H, name: &str) -> Result<&'a H::Target> {
    if handle.is_null() {
        return Err(null_handle(name));
    }
    // SAFETY: non-null and points to a live boxed H::Target (contract).
    Ok(unsafe { &*handle.cast::<H::Target>() })
}

/// [`borrow`] without the error: `None` for NULL. For fast paths that leave every
/// failure to a slower path that reports it.
///
/// # Safety
/// As [`borrow`].
#[inline(always)]
pub(crate) unsafe fn try_borrow<'a, H: Handle>(handle: *const H) -> Option<&'a H::Target> {
    // SAFETY: NULL, or points to a live boxed H::Target (contract).
    unsafe { handle.cast::<H::Target>().as_ref() }
}

/// Out of line, keeping [`borrow`]'s callers' hot paths short.
#[cold]
#[inline(never)]
fn null_handle(name: &str) -> Error {
    Error::invalid_argument(format!("{name} must not be NULL"))
}

/// [`borrow`] for a handle one thread at a time may change (contexts, drivers).
///
/// # Safety
/// As [`borrow`], and no other reference to the value is in use meanwhile.
pub(crate) unsafe fn borrow_mut<'a, H: Handle>(handle: *mut H, name: &str) -> Result<&'a mut H::Target> {
    if handle.is_null() {
        return Err(null_handle(name));
    }
    // SAFETY: non-null, points to a live boxed H::Target, not aliased meanwhile (contract).
    Ok(unsafe { &mut *handle.cast::<H::Target>() })
}

/// Hands one reference of a shared value to C as the handle; [`borrow`] and
/// [`try_borrow`] read it as they read a boxed one, [`reclaim_shared`] gives it back.
pub(crate) fn share_into_raw<H: Handle>(value: std::sync::Arc<H::Target>) -> *mut H {
    std::sync::Arc::into_raw(value).cast_mut().cast()
}

/// Takes back the reference [`share_into_raw`] handed out (NULL gives `None`).
///
/// # Safety
/// `handle` must be NULL or from [`share_into_raw`] for the same `H`, and given back only
/// once; other references may live on.
pub(crate) unsafe fn reclaim_shared<H: Handle>(handle: *mut H) -> Option<std::sync::Arc<H::Target>> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: from Arc::into_raw of an H::Target, the reference given back once (contract).
    Some(unsafe { std::sync::Arc::from_raw(handle.cast_const().cast::<H::Target>()) })
}

/// The handle of a shared value the caller holds, handing over no reference (valid while
/// some reference lives).
pub(crate) fn shared_ptr<H: Handle>(value: &std::sync::Arc<H::Target>) -> *mut H {
    std::sync::Arc::as_ptr(value).cast_mut().cast()
}

/// Adds a reference to the shared value behind `handle` (the caller now owns one more).
///
/// # Safety
/// `handle` must be non-NULL and point into a live `Arc<H::Target>` ([`share_into_raw`] or
/// [`shared_ptr`]).
pub(crate) unsafe fn retain_shared<H: Handle>(handle: *mut H) {
    // SAFETY: points into a live Arc<H::Target> (contract), so its count may grow.
    unsafe { std::sync::Arc::increment_strong_count(handle.cast_const().cast::<H::Target>()) }
}

/// Gives back one reference the caller owns to the shared value behind `handle`.
///
/// # Safety
/// `handle` must be non-NULL, and the caller must own a reference it took with
/// [`share_into_raw`] or [`retain_shared`], given back once.
pub(crate) unsafe fn release_shared<H: Handle>(handle: *mut H) {
    // SAFETY: the caller owns one reference (contract), given back here once.
    unsafe { std::sync::Arc::decrement_strong_count(handle.cast_const().cast::<H::Target>()) }
}

/// Takes the box back from `handle` (NULL gives `None`).
///
/// # Safety
/// `handle` must be NULL or from [`into_raw`] for the same `H`, reclaimed only once, and no
/// longer used by any other thread.
pub(crate) unsafe fn reclaim<H: Handle>(handle: *mut H) -> Option<Box<H::Target>> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: from Box::into_raw of an H::Target and reclaimed once (contract).
    Some(unsafe { Box::from_raw(handle.cast::<H::Target>()) })
}

/// A `clientd` (or other C pointer) handed back to C untouched, possibly on another thread.
/// Aeron's API leaves what the pointer may be used for, and from where, to the application.
pub(crate) use crate::concurrent::opaque_pointer::OpaquePointer as ClientData;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    struct Opaque;
    impl Handle for Opaque {
        type Target = String;
    }

    #[test]
    fn shared_handles_hand_over_one_reference_and_read_like_boxed_ones() {
        let value = Arc::new("shared".to_string());
        let raw = share_into_raw::<Opaque>(Arc::clone(&value));
        assert_eq!(Arc::strong_count(&value), 2, "the handle holds one reference");
        // SAFETY: raw came from share_into_raw::<Opaque> just above and is live.
        assert_eq!(unsafe { borrow(raw, "h") }.unwrap(), "shared");
        // SAFETY: as above.
        assert_eq!(unsafe { try_borrow(raw) }.map(String::as_str), Some("shared"));
        // SAFETY: given back once.
        let back = unsafe { reclaim_shared(raw) }.unwrap();
        assert!(Arc::ptr_eq(&back, &value));
        drop(back);
        assert_eq!(Arc::strong_count(&value), 1, "the handle's reference is gone");
        // SAFETY: NULL is allowed.
        assert!(unsafe { reclaim_shared::<Opaque>(std::ptr::null_mut()) }.is_none());
    }

    #[test]
    fn mutable_handles_change_the_boxed_value() {
        let raw = into_raw::<Opaque>("a".to_string());
        // SAFETY: from into_raw just above; no other reference in use.
        unsafe { borrow_mut(raw, "h") }.unwrap().push('b');
        // SAFETY: as above.
        assert_eq!(unsafe { borrow(raw, "h") }.unwrap(), "ab");
        // SAFETY: NULL is allowed and reported.
        let err = unsafe { borrow_mut::<Opaque>(std::ptr::null_mut(), "h") }.unwrap_err();
        assert!(err.message().contains("h must not be NULL"), "{err}");
        // SAFETY: reclaimed once.
        drop(unsafe { reclaim(raw) });
    }

    #[test]
    fn handles_round_trip_and_null_is_einval() {
        let raw = into_raw::<Opaque>("x".to_string());
        // SAFETY: raw came from into_raw::<Opaque> just above.
        assert_eq!(unsafe { borrow(raw, "h") }.unwrap(), "x");
        // SAFETY: reclaimed once; nobody else has it.
        assert_eq!(*unsafe { reclaim(raw) }.unwrap(), "x");
        // SAFETY: NULL is allowed.
        let err = unsafe { borrow::<Opaque>(std::ptr::null(), "publication") }.unwrap_err();
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("publication"));
        // SAFETY: NULL is allowed.
        assert!(unsafe { reclaim::<Opaque>(std::ptr::null_mut()) }.is_none());
    }
}
