//! `aeron_subscription_*` over [`crate::client::Subscription`].
//!
//! Threading: as in Aeron, a subscription is polled by one thread at a time (`poll`,
//! `controlled_poll`, `block_poll`, `close`). The queries (`is_connected`, `constants`,
//! `image_count`, `image_by_session_id`, `image_at_index`, `for_each_image`,
//! `image_retain`/`release`, `is_closed`, `channel_status`) may be called from any thread,
//! also while it is polled, e.g. from the image handlers, which run on the conductor
//! thread.
//!
//! Images handed to the image handlers and the fragment handlers stay valid until the
//! unavailable-image handler was called for them plus the resource linger duration.
//! `image_by_session_id` and `image_at_index` return a retained image: release it with
//! `aeron_subscription_image_release`.

use std::ffi::{CString, c_char, c_int, c_long, c_void};
use std::sync::{Arc, OnceLock, Weak};

use crate::client::context::ImageHandler;
use crate::client::destination::{DestinationCommand, Destinations};
use crate::client::local_socket_addresses::resolved_channel_parts;
use crate::client::resource_linger::{ResourceLinger, linger_or_drop};
use crate::client::subscription::{ReadyPoll, SubscriptionReadiness};
use crate::client::{Image, Subscription, SubscriptionView};
use crate::concurrent::caller_synchronized::CallerSynchronized;
use crate::concurrent::counters::CountersReader;
use crate::ffi::async_add::{DestinationArg, poll_destination, send_destination};
use crate::ffi::client::{aeron_async_destination_t, aeron_t, lossless_c_string};
use crate::ffi::context_callbacks::aeron_notification_t;
use crate::ffi::handles::{self, ClientData, Handle};
use crate::ffi::header::{
    FragmentHandlerFn, aeron_block_handler_t, aeron_controlled_fragment_handler_t, aeron_fragment_handler_t,
    deliver, deliver_controlled, with_known_fragment_handler,
};
use crate::ffi::image::{aeron_image_t, image_ptr, release, retain, retained_image};
use crate::ffi::local_addresses::{check_address_vec, write_addresses, write_parts};
use crate::ffi::publication::aeron_iovec_t;
use crate::util::error::{Error, Result};

/// A subscription. Opaque; from `aeron_async_add_subscription_poll`, freed by
/// `aeron_subscription_close`.
#[allow(non_camel_case_types)]
pub struct aeron_subscription_t {
    _private: [u8; 0],
}

/// Told that an image (a publisher's stream) joined the subscription. Runs on the
/// conductor thread.
#[allow(non_camel_case_types)]
pub type aeron_on_available_image_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        subscription: *mut aeron_subscription_t,
        image: *mut aeron_image_t,
    ),
>;

/// Told that an image left the subscription: stop using it (it stays mapped for the
/// resource linger duration). Runs on the conductor thread, or in `aeron_subscription_close`
/// on the closing thread.
#[allow(non_camel_case_types)]
pub type aeron_on_unavailable_image_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        subscription: *mut aeron_subscription_t,
        image: *mut aeron_image_t,
    ),
>;

/// What does not change during a subscription's life.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_subscription_constants_t {
    /// The channel URI, valid while the subscription is.
    pub channel: *const c_char,
    pub on_available_image: aeron_on_available_image_t,
    pub on_unavailable_image: aeron_on_unavailable_image_t,
    pub registration_id: i64,
    pub stream_id: i32,
    pub channel_status_indicator_id: i32,
}

/// What an `aeron_subscription_t` points to; shared (`Arc`) by the C handle and, weakly,
/// by the image handlers. It exists from the add on, so the handlers can name the
/// subscription before its poll returned it.
pub(crate) struct SubscriptionHandle {
    view: SubscriptionView,
    channel: CString,
    stream_id: i32,
    on_available_image: (aeron_on_available_image_t, ClientData),
    on_unavailable_image: (aeron_on_unavailable_image_t, ClientData),
    /// Set once by the add's poll; then used by the one polling thread only.
    poller: CallerSynchronized<Option<Subscription>>,
    /// The client's counters, for the address queries from any thread; set with `poller`.
    counters: OnceLock<CountersReader>,
    /// The destination commands, usable from any thread; set with `poller`.
    destinations: OnceLock<Destinations>,
    client: Weak<ResourceLinger>,
}

/// An image handler calling the C one with the subscription and image pointers.
fn image_handler(
    shell: &Arc<SubscriptionHandle>,
    (handler, clientd): (aeron_on_available_image_t, ClientData),
) -> Option<ImageHandler> {
    let handler = handler?;
    let shell = Arc::downgrade(shell);
    Some(Arc::new(move |image: &Arc<Image>| {
        // The handle is gone only after close; late notifications are dropped then.
        if let Some(shell) = shell.upgrade() {
            let subscription = handles::shared_ptr::<aeron_subscription_t>(&shell);
            // SAFETY: the application's handler with its clientd (add contract).
            unsafe { handler(clientd.get(), subscription, image_ptr(image)) };
        }
    }))
}

impl SubscriptionHandle {
    /// The handle for a subscription being added, and the image handlers to give the
    /// Rust client.
    pub(crate) fn begin(
        view: SubscriptionView,
        channel: &str,
        stream_id: i32,
        on_available_image: (aeron_on_available_image_t, ClientData),
        on_unavailable_image: (aeron_on_unavailable_image_t, ClientData),
        client: Weak<ResourceLinger>,
    ) -> (Arc<Self>, Option<ImageHandler>, Option<ImageHandler>) {
        let shell = Arc::new(Self {
            view,
            channel: lossless_c_string(channel),
            stream_id,
            on_available_image,
            on_unavailable_image,
            poller: CallerSynchronized::new(None),
            counters: OnceLock::new(),
            destinations: OnceLock::new(),
            client,
        });
        let available = image_handler(&shell, on_available_image);
        // Same C signature: the unavailable handler is converted the same way.
        let unavailable = image_handler(&shell, on_unavailable_image);
        (shell, available, unavailable)
    }

    /// Stores the subscription the add completed with. Called once, before the handle is
    /// handed to the application, so no poller runs yet.
    pub(crate) fn complete(&self, subscription: Subscription) {
        let _ = self.counters.set(subscription.counters_reader());
        let _ = self.destinations.set(subscription.destinations());
        // SAFETY: nobody else touches `poller` before the handle is handed out (the image
        // handlers never do), so this write is the only access.
        unsafe { *self.poller.get_mut() = Some(subscription) };
    }

    /// The C handle, owning one reference.
    pub(crate) fn into_c(this: Arc<Self>) -> *mut aeron_subscription_t {
        handles::share_into_raw(this)
    }
}

impl Handle for aeron_subscription_t {
    type Target = SubscriptionHandle;
}

/// The shared handle behind `subscription`.
///
/// # Safety
/// `subscription` NULL or from `aeron_async_add_subscription_poll` (or an image handler),
/// not closed past its linger period.
unsafe fn handle<'a>(subscription: *mut aeron_subscription_t) -> Result<&'a SubscriptionHandle> {
    // SAFETY: NULL or a live SubscriptionHandle in an Arc (contract).
    unsafe { handles::borrow(subscription, "subscription") }
}

/// The subscription for polling.
///
/// # Safety
/// As [`handle`], and no other thread polls or closes it during the call.
pub(crate) unsafe fn poller<'a>(subscription: *mut aeron_subscription_t) -> Result<&'a mut Subscription> {
    // SAFETY: forwarded contract.
    let handle = unsafe { handle(subscription) }?;
    // SAFETY: one polling thread at a time (contract): the only reference to the poller.
    let poller = unsafe { handle.poller.get_mut() };
    poller.as_mut().ok_or_else(|| Error::illegal_state("the subscription's add has not completed"))
}

/// Delivers up to `fragment_limit` fragments from the images in turn to `handler`.
/// Returns the fragments delivered, or -1 (NULL arguments).
///
/// # Safety
/// `subscription` NULL or open, polled by this thread only now; `handler` safe to call
/// with `clientd` on this thread.
#[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_poll(
    subscription: *mut aeron_subscription_t,
    handler: aeron_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    // What a spinning subscriber mostly makes, an empty poll, is answered here, outside the
    // panic boundary, by pointer tests and `poll_readiness`, which cannot panic; a poll with
    // something to read starts at the image and position `poll_readiness` found.
    if let Some(handler) = handler {
        // SAFETY: NULL or a live SubscriptionHandle (contract, as in `handle`).
        if let Some(handle) = unsafe { handles::try_borrow(subscription) } {
            // SAFETY: one polling thread at a time (contract): the only reference to the
            // poller, and it ends before the checked poll below takes another.
            if let Some(poller) = unsafe { handle.poller.get_mut() } {
                match poller.poll_readiness() {
                    SubscriptionReadiness::Empty => return 0,
                    SubscriptionReadiness::Ready(ready) => {
                        return subscription_poll_from(ready, handler, clientd, fragment_limit);
                    }
                    SubscriptionReadiness::Unsure => {}
                }
            }
        }
    }
    // SAFETY: the arguments of this call, forwarded.
    unsafe { subscription_poll(subscription, handler, clientd, fragment_limit) }
}

/// `aeron_subscription_poll` behind the panic boundary, from the image and position
/// `poll_readiness` found. `handler` is called with `clientd` (the caller's contract).
#[inline(always)]
fn subscription_poll_from(
    ready: ReadyPoll<'_>,
    handler: FragmentHandlerFn,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_subscription_poll", {
        let fragments = with_known_fragment_handler!(
            handler,
            ready.poll(
                |payload, header, image| deliver(handler, clientd, payload, header, image_ptr(image).cast()),
                fragment_limit,
            )
        );
        Ok(fragments as c_int)
    })
}

/// `aeron_subscription_poll` behind the panic boundary, every argument checked.
///
/// # Safety
/// As `aeron_subscription_poll`.
#[inline(never)]
unsafe fn subscription_poll(
    subscription: *mut aeron_subscription_t,
    handler: aeron_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_subscription_poll", {
        // SAFETY: forwarded contract.
        let subscription = unsafe { poller(subscription) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        let fragments = with_known_fragment_handler!(
            handler,
            subscription.poll_with_image(
                |payload, header, image| deliver(handler, clientd, payload, header, image_ptr(image).cast()),
                fragment_limit,
            )
        );
        Ok(fragments as c_int)
    })
}

/// As `aeron_subscription_poll`, with the handler choosing per fragment (ABORT, BREAK,
/// COMMIT, CONTINUE) within each image.
///
/// # Safety
/// As `aeron_subscription_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_controlled_poll(
    subscription: *mut aeron_subscription_t,
    handler: aeron_controlled_fragment_handler_t,
    clientd: *mut c_void,
    fragment_limit: usize,
) -> c_int {
    ffi_boundary!("aeron_subscription_controlled_poll", {
        // SAFETY: forwarded contract.
        let subscription = unsafe { poller(subscription) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        let fragments = subscription.controlled_poll_with_image(
            |payload, header, image| {
                deliver_controlled(handler, clientd, payload, header, image_ptr(image).cast())
            },
            fragment_limit,
        );
        Ok(fragments as c_int)
    })
}

/// Hands each image's next run of whole frames (at most `block_length_limit` bytes) to
/// `handler`. Returns the bytes consumed, or -1.
///
/// # Safety
/// As `aeron_subscription_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_block_poll(
    subscription: *mut aeron_subscription_t,
    handler: aeron_block_handler_t,
    clientd: *mut c_void,
    block_length_limit: usize,
) -> c_long {
    ffi_boundary!("aeron_subscription_block_poll", {
        // SAFETY: forwarded contract.
        let subscription = unsafe { poller(subscription) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        let bytes = subscription.block_poll(
            |block, session_id, term_id| {
                // SAFETY: the application's handler; the block outlives the call.
                unsafe { handler(clientd, block.as_ptr(), block.len(), session_id, term_id) }
            },
            block_length_limit,
        );
        Ok(c_long::try_from(bytes).unwrap_or(c_long::MAX))
    })
}

/// Fills `*constants`. Returns 0, or -1 for NULL arguments.
///
/// # Safety
/// `subscription` NULL or open; `constants` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_constants(
    subscription: *mut aeron_subscription_t,
    constants: *mut aeron_subscription_constants_t,
) -> c_int {
    ffi_boundary!("aeron_subscription_constants", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(subscription) }?;
        require_non_null!(constants, "constants");
        let value = aeron_subscription_constants_t {
            channel: h.channel.as_ptr(),
            on_available_image: h.on_available_image.0,
            on_unavailable_image: h.on_unavailable_image.0,
            registration_id: h.view.registration_id(),
            stream_id: h.stream_id,
            channel_status_indicator_id: h.view.channel_status_indicator_id(),
        };
        // SAFETY: non-null and writable (contract).
        unsafe { constants.write(value) };
        Ok(0)
    })
}

/// Calls `handler(image, clientd)` for each current image, on this thread; each image is
/// valid during its call.
///
/// # Safety
/// `subscription` NULL or open; `handler` safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_for_each_image(
    subscription: *mut aeron_subscription_t,
    handler: Option<unsafe extern "C" fn(image: *mut aeron_image_t, clientd: *mut c_void)>,
    clientd: *mut c_void,
) {
    ffi_boundary!("aeron_subscription_for_each_image", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(subscription) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        for image in h.view.images() {
            // SAFETY: the caller's handler; `image` holds the image alive during the call.
            unsafe { handler(image_ptr(&image), clientd) };
        }
        Ok(())
    })
}

/// Closes the subscription: its images become unavailable (the unavailable-image handler
/// runs for each, on this thread) and the driver is told. Then calls
/// `on_close_complete(on_close_complete_clientd)` if not NULL. The handle stays readable
/// (reporting closed) for the resource linger duration. NULL is accepted. Returns 0.
///
/// # Safety
/// `subscription` NULL or open, closed once, by its polling thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_close(
    subscription: *mut aeron_subscription_t,
    on_close_complete: aeron_notification_t,
    on_close_complete_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_subscription_close", {
        if subscription.is_null() {
            return Ok(0);
        }
        // SAFETY: open, used by this thread only (contract).
        unsafe { poller(subscription) }?.close();
        if let Some(notify) = on_close_complete {
            // SAFETY: the caller's callback with its clientd.
            unsafe { notify(on_close_complete_clientd) };
        }
        // SAFETY: non-NULL: the reference into_c handed out, given back once (closed once).
        let Some(shell) = (unsafe { handles::reclaim_shared(subscription) }) else { return Ok(0) };
        let client = shell.client.clone();
        linger_or_drop(&client, Box::new(shell));
        Ok(0)
    })
}

impl SubscriptionHandle {
    /// The receive endpoint's bound addresses (none before the add completed, for IPC, or
    /// while the channel is not ACTIVE).
    fn local_socket_addresses(&self) -> Vec<String> {
        self.counters.get().map_or_else(Vec::new, |counters| {
            crate::client::local_socket_addresses::local_socket_addresses(
                counters,
                self.view.channel_status_indicator_id(),
            )
        })
    }
}

/// Writes the first address the receive endpoint is bound to into `address`
/// (`address_len` bytes, NUL-terminated, truncated to fit). Returns 1 when there is one
/// (the number of bound addresses), 0 when not (IPC, or the channel is not ACTIVE), -1 (EINVAL) for a NULL `address` or
/// `address_len` < 1. (`address` is written although the header declares it `const`, as
/// in Aeron.)
///
/// # Safety
/// `subscription` NULL or open; `address` valid for `address_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_resolved_endpoint(
    subscription: *mut aeron_subscription_t,
    address: *const c_char,
    address_len: usize,
) -> c_int {
    ffi_boundary!("aeron_subscription_resolved_endpoint", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(subscription) }?;
        require_non_null!(address, "address");
        // SAFETY: forwarded contract.
        unsafe { resolved_endpoint(h, address.cast_mut(), address_len) }
    })
}

/// The bound addresses into `address_vec`: the body of `aeron_subscription_local_sockaddrs`.
///
/// # Safety
/// `address_vec` valid for `address_vec_len` entries, each `iov_base` valid for `iov_len`.
unsafe fn local_sockaddrs(
    h: &SubscriptionHandle,
    address_vec: *mut aeron_iovec_t,
    address_vec_len: usize,
) -> Result<c_int> {
    check_address_vec(address_vec, address_vec_len)?;
    // SAFETY: forwarded contract.
    unsafe { write_addresses(&h.local_socket_addresses(), address_vec, address_vec_len) }
}

/// The first bound address into `address`; the count of addresses found, as Aeron's
/// (one unless the subscription had several destinations).
///
/// # Safety
/// `address` non-NULL and valid for `address_len` bytes.
unsafe fn resolved_endpoint(
    h: &SubscriptionHandle,
    address: *mut c_char,
    address_len: usize,
) -> Result<c_int> {
    if address_len < 1 {
        return Err(Error::invalid_argument(format!("address_len ({address_len}) < 1")));
    }
    let entry = aeron_iovec_t { iov_base: address.cast(), iov_len: address_len };
    // SAFETY: one entry, valid for address_len bytes (contract).
    unsafe { write_addresses(&h.local_socket_addresses(), &entry, 1) }
}

/// Writes the channel URI into `uri` (`uri_len` bytes, NUL-terminated), printed as Aeron's
/// C client prints a parsed URI (see `c_print_order`), with a wildcard UDP endpoint port
/// (`endpoint=host:0`) replaced by the bound address. Returns the URI's length (a result
/// of `uri_len` or more means it was truncated), 0 with an empty `uri` while a wildcard
/// port is not resolved yet (channel not ACTIVE), or -1 (NULL arguments, `uri_len` < 1).
///
/// # Safety
/// `subscription` NULL or open; `uri` valid for `uri_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_subscription_try_resolve_channel_endpoint_port(
    subscription: *mut aeron_subscription_t,
    uri: *mut c_char,
    uri_len: usize,
) -> c_int {
    ffi_boundary!("aeron_subscription_try_resolve_channel_endpoint_port", {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(subscription) }?;
        require_non_null!(uri, "uri");
        if uri_len < 1 {
            return Err(Error::invalid_argument(format!("uri_len ({uri_len}) < 1")));
        }
        let text = std::str::from_utf8(h.channel.to_bytes())
            .map_err(|_| Error::invalid_argument("channel is not UTF-8"))?;
        let Some(parts) = resolved_channel_parts(text, || h.local_socket_addresses())? else {
            // SAFETY: uri_len >= 1 (checked).
            unsafe { uri.write(0) };
            return Ok(0);
        };
        // SAFETY: uri valid for uri_len bytes (contract).
        Ok(unsafe { write_parts(&parts, uri, uri_len) })
    })
}

/// The subscription's destination commands.
///
/// # Safety
/// `subscription` NULL or open.
unsafe fn destinations<'a>(subscription: *mut aeron_subscription_t) -> Result<&'a Destinations> {
    // SAFETY: forwarded contract.
    let h = unsafe { handle(subscription) }?;
    h.destinations.get().ok_or_else(|| Error::illegal_state("the subscription's add has not completed"))
}

// The queries, image retains, bound addresses and destination commands, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/subscription_ffi.rs"));
