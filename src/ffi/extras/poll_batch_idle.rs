//! `aeronrs_subscription_has_nothing_to_poll`: the empty-poll test that
//! `aeron_subscription_poll` makes before its work, for bindings that poll through
//! `aeronrs_subscription_poll_batch`. A spinning subscriber mostly polls nothing; the batch
//! poll's full path (the controlled poll with its per-image peek) costs several times a
//! call across the boundary, so a binding asks this first and calls the batch poll only
//! when it may find something.
//!
//! Threading: for the subscription's one polling thread, as the polls.

use crate::ffi::subscription::{aeron_subscription_t, poller};

/// Whether a poll of `subscription` now would certainly find nothing: its image list is
/// the one its last poll took and no image has a frame at its subscriber position. False
/// when unsure, for NULL, and before the subscription's add completed (the poll then
/// reports why). Sets no error.
///
/// # Safety
/// `subscription` NULL or open, polled by this thread only now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_subscription_has_nothing_to_poll(
    subscription: *mut aeron_subscription_t,
) -> bool {
    // Outside the panic boundary, as `aeron_subscription_poll`'s own test: a pointer test,
    // then `has_nothing_to_poll`, which neither panics nor calls out.
    // SAFETY: NULL or open, polled by this thread only (contract).
    match unsafe { poller(subscription) } {
        Ok(subscription) => subscription.has_nothing_to_poll(),
        Err(_) => false,
    }
}
