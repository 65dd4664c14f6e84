//! `aeron_async_add_*` and their polls: adding publications, exclusive publications,
//! subscriptions, counters and static counters without blocking, over the Rust client's
//! `AsyncAdd*` handles.
//!
//! An add returns an async handle; poll it (one thread at a time) until it returns 1 (the
//! resource is stored in the out pointer) or -1 (the driver's error, or a timeout). Either
//! way the async handle is freed by that poll, as in Aeron: do not use it again. The
//! destination commands (`aeron_*_async_*destination*`, in the publication and
//! subscription modules) make async handles of the same type, polled by
//! [`poll_destination`].

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Arc, Weak};

use crate::client::async_add::{PendingAdd, RegisteredAdd};
use crate::client::destination::{DestinationCommand, Destinations};
use crate::client::resource_linger::ResourceLinger;
use crate::ffi::client::{ClientHandle, aeron_t, client_ref};
use crate::ffi::counter::{CounterHandle, aeron_counter_t};
use crate::ffi::exclusive_publication::aeron_exclusive_publication_t;
use crate::ffi::handles::{ClientData, Handle, into_raw, reclaim};
use crate::ffi::publication::{PublicationHandle, aeron_publication_t};
use crate::ffi::subscription::{
    SubscriptionHandle, aeron_on_available_image_t, aeron_on_unavailable_image_t, aeron_subscription_t,
};
use crate::ffi::{bytes_arg, c_str_arg};
use crate::util::error::{Error, Result};

/// An add (or destination command) in flight. Opaque; from an `aeron_async_add_*` call,
/// freed by the poll that completes it.
#[allow(non_camel_case_types)]
pub struct aeron_client_registering_resource_stct {
    _private: [u8; 0],
}

/// A pending `aeron_async_add_publication`.
#[allow(non_camel_case_types)]
pub type aeron_async_add_publication_t = aeron_client_registering_resource_stct;
/// A pending `aeron_async_add_exclusive_publication`.
#[allow(non_camel_case_types)]
pub type aeron_async_add_exclusive_publication_t = aeron_client_registering_resource_stct;
/// A pending `aeron_async_add_subscription`.
#[allow(non_camel_case_types)]
pub type aeron_async_add_subscription_t = aeron_client_registering_resource_stct;
/// A pending `aeron_async_add_counter` or `aeron_async_add_static_counter`.
#[allow(non_camel_case_types)]
pub type aeron_async_add_counter_t = aeron_client_registering_resource_stct;
/// A pending destination command (add, remove, remove by id) of a publication or
/// subscription.
#[allow(non_camel_case_types)]
pub type aeron_async_destination_t = aeron_client_registering_resource_stct;
/// A pending destination removal by id (upstream's name; the functions take
/// `aeron_async_destination_t`, the same type).
#[allow(non_camel_case_types)]
pub type aeron_async_destination_by_id_t = aeron_client_registering_resource_stct;

/// What is being added; the shell of a subscription add is its C handle, which the image
/// handlers name before the add completes.
type Pending = PendingAdd<Arc<SubscriptionHandle>>;

/// What an async handle points to.
pub(crate) struct AsyncHandle {
    add: RegisteredAdd<Arc<SubscriptionHandle>, ClientData>,
    client: Weak<ResourceLinger>,
}

impl Handle for aeron_client_registering_resource_stct {
    type Target = AsyncHandle;
}

/// The body of the exports that start an add or a destination command: checks `async` and
/// `client` (in Aeron's order, before what `start` checks), starts it with `start` and
/// stores its async handle in `*async`, known by its registration id to the new-resource
/// callbacks until it completes. Returns 0, or the error.
///
/// # Safety
/// `async` NULL or valid for a pointer write; `client` NULL or open.
unsafe fn start_add(
    r#async: *mut *mut aeron_client_registering_resource_stct,
    client: *mut aeron_t,
    start: impl FnOnce(&ClientHandle) -> Result<Pending>,
) -> Result<c_int> {
    require_non_null!(r#async, "async");
    // SAFETY: NULL or open (contract).
    let client = unsafe { client_ref(client) }?;
    let add = RegisteredAdd::new(start(client)?, &client.registering);
    let handle = AsyncHandle { add, client: Arc::downgrade(&client.shared) };
    let raw = into_raw::<aeron_client_registering_resource_stct>(handle);
    // SAFETY: just boxed, not yet handed out: only read here.
    unsafe { &*raw.cast::<AsyncHandle>() }.add.register(ClientData(raw.cast()));
    // SAFETY: async is writable (contract).
    unsafe { r#async.write(raw) };
    Ok(0)
}

/// The argument of a destination command: a channel (the command of it) or a
/// destination's registration id.
pub(crate) enum DestinationArg {
    Uri(*const c_char, fn(&str) -> DestinationCommand<'_>),
    Id(i64),
}

/// The body of every `aeron_*_async_*destination*` export: checks the arguments in
/// Aeron's order (async, client, the resource's `destinations`, then the URI), sets
/// `*async` to NULL, sends the command and stores its async handle in `*async`. Returns 0,
/// or the error (nothing sent, `*async` NULL once it is known to be writable).
///
/// # Safety
/// `async` NULL or valid for a pointer write; `client` NULL or open; a URI NULL or
/// NUL-terminated.
pub(crate) unsafe fn send_destination<'a>(
    r#async: *mut *mut aeron_async_destination_t,
    client: *mut aeron_t,
    destinations: impl FnOnce() -> Result<&'a Destinations>,
    arg: DestinationArg,
) -> Result<c_int> {
    let start = |_: &ClientHandle| {
        let destinations = destinations()?;
        let command = match arg {
            // SAFETY: NULL or NUL-terminated (contract).
            DestinationArg::Uri(uri, command) => command(unsafe { c_str_arg(uri, "uri") }?),
            DestinationArg::Id(id) => DestinationCommand::RemoveById(id),
        };
        // SAFETY: async is writable (contract), and not NULL (start_add checked).
        unsafe { r#async.write(std::ptr::null_mut()) };
        destinations.send(command).map(Pending::Destination)
    };
    // SAFETY: forwarded contract.
    unsafe { start_add(r#async, client, start) }
}

/// Polls a destination command: 0 while pending, 1 once the driver acknowledged it, -1 for
/// the driver's error (its code negated in `aeron_errcode()`) or a driver timeout. The
/// async handle is freed on 1 and -1. A handle of another kind is -1 (EINVAL), not freed.
///
/// # Safety
/// `r#async` NULL or a pending async handle, polled by one thread at a time.
pub(crate) unsafe fn poll_destination(r#async: *mut aeron_async_destination_t) -> Result<c_int> {
    let poll = |pending: &mut Pending, _: &Weak<ResourceLinger>| match pending {
        Pending::Destination(command) => Some(command.poll().map(|done| done.then_some(()))),
        _ => None,
    };
    // SAFETY: forwarded contract; the "resource" is a unit, written to a local.
    unsafe { poll_async(r#async, &mut (), "destination command", poll) }
}

/// Polls `r#async` with `poll`, which gives `None` for a handle of another kind (refused,
/// EINVAL, and left alone, as Aeron does) and else the add's poll: `Ok(None)` while
/// pending, or its result, the resource's handle stored in `*out`. The async handle is
/// freed once the add completes either way.
///
/// # Safety
/// `r#async` NULL or a live async handle, polled by one thread at a time; `out` valid for
/// a write.
unsafe fn poll_async<T>(
    r#async: *mut aeron_client_registering_resource_stct,
    out: *mut T,
    expected: &str,
    poll: impl FnOnce(&mut Pending, &Weak<ResourceLinger>) -> Option<Result<Option<T>>>,
) -> Result<c_int> {
    require_non_null!(r#async, "async");
    // SAFETY: a live async handle polled by this thread only (contract).
    let handle = unsafe { &mut *r#async.cast::<AsyncHandle>() };
    let result = match poll(&mut handle.add.pending, &handle.client).ok_or_else(|| wrong_kind(expected))? {
        Ok(None) => return Ok(0),
        Ok(Some(resource)) => Ok(resource),
        Err(err) => Err(err),
    };
    // SAFETY: completed: freed (and so unregistered) here, once; the caller may not use it
    // again (contract).
    drop(unsafe { reclaim(r#async) });
    // SAFETY: out is writable (contract).
    unsafe { out.write(result?) };
    Ok(1)
}

fn wrong_kind(expected: &str) -> Error {
    Error::invalid_argument(format!("async is not a pending {expected}"))
}

/// Starts adding a publication on `uri` and `stream_id`; poll `*async` with
/// `aeron_async_add_publication_poll`. Returns 0, or -1 (NULL argument, bad URI length,
/// client closed).
///
/// # Safety
/// `async` valid for a pointer write; `client` NULL or open; `uri` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_publication(
    r#async: *mut *mut aeron_async_add_publication_t,
    client: *mut aeron_t,
    uri: *const c_char,
    stream_id: i32,
) -> c_int {
    ffi_boundary!("aeron_async_add_publication", {
        let start = |client: &ClientHandle| {
            // SAFETY: NULL or NUL-terminated (contract).
            let uri = unsafe { c_str_arg(uri, "uri") }?;
            client.aeron.async_add_publication(uri, stream_id).map(Pending::Publication)
        };
        // SAFETY: async writable, client NULL or open (contract).
        unsafe { start_add(r#async, client, start) }
    })
}

/// Polls an add publication: 0 while pending, 1 with the publication stored in
/// `*publication`, -1 on error (the driver's, or a driver timeout). The async handle is
/// freed once the result is 1 or -1.
///
/// # Safety
/// `publication` valid for a pointer write; `async` NULL or pending, polled by one thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_publication_poll(
    publication: *mut *mut aeron_publication_t,
    r#async: *mut aeron_async_add_publication_t,
) -> c_int {
    ffi_boundary!("aeron_async_add_publication_poll", {
        require_non_null!(publication, "publication");
        let poll = |pending: &mut Pending, client: &Weak<ResourceLinger>| match pending {
            Pending::Publication(add) => Some(
                add.poll()
                    .map(|done| done.map(|p| into_raw(PublicationHandle::concurrent(p, client.clone())))),
            ),
            _ => None,
        };
        // SAFETY: NULL or pending, polled by this thread only; publication writable (contract).
        unsafe { poll_async(r#async, publication, "publication", poll) }
    })
}

/// Starts adding an exclusive publication; poll with
/// `aeron_async_add_exclusive_publication_poll`. Returns 0, or -1.
///
/// # Safety
/// As `aeron_async_add_publication`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_exclusive_publication(
    r#async: *mut *mut aeron_async_add_exclusive_publication_t,
    client: *mut aeron_t,
    uri: *const c_char,
    stream_id: i32,
) -> c_int {
    ffi_boundary!("aeron_async_add_exclusive_publication", {
        let start = |client: &ClientHandle| {
            // SAFETY: NULL or NUL-terminated (contract).
            let uri = unsafe { c_str_arg(uri, "uri") }?;
            client.aeron.async_add_exclusive_publication(uri, stream_id).map(Pending::ExclusivePublication)
        };
        // SAFETY: async writable, client NULL or open (contract).
        unsafe { start_add(r#async, client, start) }
    })
}

/// Polls an add exclusive publication: 0, 1 (stored in `*publication`) or -1; the async
/// handle is freed on 1 or -1.
///
/// # Safety
/// As `aeron_async_add_publication_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_exclusive_publication_poll(
    publication: *mut *mut aeron_exclusive_publication_t,
    r#async: *mut aeron_async_add_exclusive_publication_t,
) -> c_int {
    ffi_boundary!("aeron_async_add_exclusive_publication_poll", {
        require_non_null!(publication, "publication");
        let poll = |pending: &mut Pending, client: &Weak<ResourceLinger>| match pending {
            Pending::ExclusivePublication(add) => Some(
                add.poll()
                    .map(|done| done.map(|p| into_raw(PublicationHandle::exclusive(p, client.clone())))),
            ),
            _ => None,
        };
        // SAFETY: NULL or pending, polled by this thread only; publication writable (contract).
        unsafe { poll_async(r#async, publication, "exclusive publication", poll) }
    })
}

/// Starts adding a subscription. The image handlers (either may be NULL) are called on the
/// conductor thread, with their clientd, the subscription and the image, as publishers
/// join and leave; they may run before the poll below returned the subscription. Poll with
/// `aeron_async_add_subscription_poll`. Returns 0, or -1.
///
/// # Safety
/// As `aeron_async_add_publication`; the handlers safe to call with their clientd from the
/// conductor thread while the subscription exists.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_subscription(
    r#async: *mut *mut aeron_async_add_subscription_t,
    client: *mut aeron_t,
    uri: *const c_char,
    stream_id: i32,
    on_available_image_handler: aeron_on_available_image_t,
    on_available_image_clientd: *mut c_void,
    on_unavailable_image_handler: aeron_on_unavailable_image_t,
    on_unavailable_image_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_async_add_subscription", {
        let start = |client: &ClientHandle| {
            // SAFETY: NULL or NUL-terminated (contract).
            let uri = unsafe { c_str_arg(uri, "uri") }?;
            let mut shell = None;
            let pending = client.aeron.async_add_subscription_with_view(uri, stream_id, |view| {
                let (handle, available, unavailable) = SubscriptionHandle::begin(
                    view,
                    uri,
                    stream_id,
                    (on_available_image_handler, ClientData(on_available_image_clientd)),
                    (on_unavailable_image_handler, ClientData(on_unavailable_image_clientd)),
                    Arc::downgrade(&client.shared),
                );
                shell = Some(handle);
                (available, unavailable)
            })?;
            let shell = shell.ok_or_else(|| Error::illegal_state("subscription handlers were not made"))?;
            Ok(Pending::Subscription(pending, shell))
        };
        // SAFETY: async writable, client NULL or open (contract).
        unsafe { start_add(r#async, client, start) }
    })
}

/// Polls an add subscription: 0, 1 (stored in `*subscription`) or -1; the async handle is
/// freed on 1 or -1.
///
/// # Safety
/// As `aeron_async_add_publication_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_subscription_poll(
    subscription: *mut *mut aeron_subscription_t,
    r#async: *mut aeron_async_add_subscription_t,
) -> c_int {
    ffi_boundary!("aeron_async_add_subscription_poll", {
        require_non_null!(subscription, "subscription");
        let poll = |pending: &mut Pending, _: &Weak<ResourceLinger>| match pending {
            Pending::Subscription(add, shell) => Some(add.poll().map(|done| {
                done.map(|done| {
                    // Handed out only now: no thread polls it yet.
                    shell.complete(done);
                    SubscriptionHandle::into_c(Arc::clone(shell))
                })
            })),
            _ => None,
        };
        // SAFETY: NULL or pending, polled by this thread only; subscription writable (contract).
        unsafe { poll_async(r#async, subscription, "subscription", poll) }
    })
}

/// The key and label bytes of a counter add.
///
/// # Safety
/// Each pointer valid for its length (NULL allowed when 0).
unsafe fn key_and_label<'a>(
    key_buffer: *const u8,
    key_buffer_length: usize,
    label_buffer: *const c_char,
    label_buffer_length: usize,
) -> Result<(&'a [u8], &'a str)> {
    // SAFETY: valid for its length (contract).
    let key = unsafe { bytes_arg(key_buffer, key_buffer_length, "key_buffer") }?;
    // SAFETY: valid for its length (contract).
    let label = unsafe { bytes_arg(label_buffer.cast(), label_buffer_length, "label_buffer") }?;
    let label =
        std::str::from_utf8(label).map_err(|_| Error::invalid_argument("label is not valid UTF-8"))?;
    Ok((key, label))
}

/// Starts adding a counter of `type_id` with the key (at most 112 bytes) and label (at most
/// 380 bytes, not NUL-terminated); poll with `aeron_async_add_counter_poll`. Returns 0, or
/// -1.
///
/// # Safety
/// `async` writable; `client` NULL or open; buffers valid for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_counter(
    r#async: *mut *mut aeron_async_add_counter_t,
    client: *mut aeron_t,
    type_id: i32,
    key_buffer: *const u8,
    key_buffer_length: usize,
    label_buffer: *const c_char,
    label_buffer_length: usize,
) -> c_int {
    ffi_boundary!("aeron_async_add_counter", {
        let start = |client: &ClientHandle| {
            // SAFETY: valid for their lengths (contract).
            let (key, label) =
                unsafe { key_and_label(key_buffer, key_buffer_length, label_buffer, label_buffer_length) }?;
            client.aeron.async_add_counter(type_id, key, label).map(Pending::Counter)
        };
        // SAFETY: async writable, client NULL or open (contract).
        unsafe { start_add(r#async, client, start) }
    })
}

/// Starts finding or adding the static counter of `type_id` and `registration_id`: it
/// belongs to no client, outlives this one, and closing it leaves it in the driver. Poll
/// with `aeron_async_add_counter_poll`. Returns 0, or -1.
///
/// # Safety
/// As `aeron_async_add_counter`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_static_counter(
    r#async: *mut *mut aeron_async_add_counter_t,
    client: *mut aeron_t,
    type_id: i32,
    key_buffer: *const u8,
    key_buffer_length: usize,
    label_buffer: *const c_char,
    label_buffer_length: usize,
    registration_id: i64,
) -> c_int {
    ffi_boundary!("aeron_async_add_static_counter", {
        let start = |client: &ClientHandle| {
            // SAFETY: valid for their lengths (contract).
            let (key, label) =
                unsafe { key_and_label(key_buffer, key_buffer_length, label_buffer, label_buffer_length) }?;
            client.aeron.async_add_static_counter(type_id, key, label, registration_id).map(Pending::Counter)
        };
        // SAFETY: async writable, client NULL or open (contract).
        unsafe { start_add(r#async, client, start) }
    })
}

/// Polls a counter add (either kind): 0, 1 (stored in `*counter`) or -1; the async handle
/// is freed on 1 or -1.
///
/// # Safety
/// As `aeron_async_add_publication_poll`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_async_add_counter_poll(
    counter: *mut *mut aeron_counter_t,
    r#async: *mut aeron_async_add_counter_t,
) -> c_int {
    ffi_boundary!("aeron_async_add_counter_poll", {
        require_non_null!(counter, "counter");
        let poll = |pending: &mut Pending, client: &Weak<ResourceLinger>| match pending {
            Pending::Counter(add) => {
                Some(add.poll().map(|done| done.map(|c| into_raw(CounterHandle::new(c, client.clone())))))
            }
            _ => None,
        };
        // SAFETY: NULL or pending, polled by this thread only; counter writable (contract).
        unsafe { poll_async(r#async, counter, "counter", poll) }
    })
}

/// The registration id of a pending add (-1 for NULL). Not valid after its poll returned
/// 1 or -1 (the handle is freed then).
///
/// # Safety
/// `r#async` NULL or pending.
unsafe fn registration_id(r#async: *mut aeron_client_registering_resource_stct) -> Result<i64> {
    require_non_null!(r#async, "async");
    // SAFETY: a live async handle (contract); only read.
    Ok(unsafe { &*r#async.cast::<AsyncHandle>() }.add.pending.registration_id())
}

// The `*_get_registration_id` of each kind of async handle, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/async_add_ffi.rs"));
