//! `aeron_init` .. `aeron_close`: the client handle over [`crate::client::Aeron`], its
//! life cycle, ids, counters printout and the handlers added at run time.
//!
//! Threading: `aeron_t` may be used from any thread (adding resources, ids, handlers),
//! except that `aeron_main_do_work` / `aeron_main_idle_strategy` (invoker mode) are for one
//! thread at a time, and `aeron_close` must run once no other thread uses the client nor
//! any of its resources, and never from a client callback.

use std::ffi::{CString, c_char, c_int};
use std::sync::{Arc, OnceLock};

use crate::client::Aeron;
use crate::client::async_add::AddsInFlight;
use crate::client::client_handlers::HandlerIds;
use crate::client::resource_linger::ResourceLinger;
use crate::ffi::context::{aeron_context_t, context_ref};
use crate::ffi::context_callbacks::{
    Callback, Callbacks, aeron_on_available_counter_t, aeron_on_new_publication_t,
};
use crate::ffi::counters_reader::{aeron_counters_reader_t, as_c_reader};
use crate::ffi::handles::{ClientData, Handle, borrow, into_raw, reclaim};
use crate::util::error::{Error, Result};

pub use crate::ffi::async_add::{
    aeron_async_add_counter_t, aeron_async_add_exclusive_publication_t, aeron_async_add_publication_t,
    aeron_async_add_subscription_t, aeron_async_destination_by_id_t, aeron_async_destination_t,
};

/// A client connected to a media driver. Opaque; made by `aeron_init`, freed by
/// `aeron_close`.
#[allow(non_camel_case_types)]
pub struct aeron_t {
    _private: [u8; 0],
}

/// `AERON_NULL_VALUE`: "no value" for ids and positions.
pub const AERON_NULL_VALUE: c_int = -1;
/// The client heard nothing from the driver within the driver timeout.
pub const AERON_CLIENT_ERROR_DRIVER_TIMEOUT: c_int = -1000;
/// The driver timed this client out (it did not heartbeat in time).
pub const AERON_CLIENT_ERROR_CLIENT_TIMEOUT: c_int = -1001;
/// The conductor ran too rarely (e.g. invoker mode not driven) and the client closed.
pub const AERON_CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT: c_int = -1002;
/// The command buffer to the driver stayed full.
pub const AERON_CLIENT_ERROR_BUFFER_FULL: c_int = -1003;
/// Room for a formatted local socket address, NUL included.
pub const AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN: c_int = 64;
/// Address types of response channels.
pub const AERON_RESPONSE_ADDRESS_TYPE_IPV4: c_int = 0x1;
pub const AERON_RESPONSE_ADDRESS_TYPE_IPV6: c_int = 0x2;

static_assertions::const_assert_eq!(
    AERON_CLIENT_ERROR_DRIVER_TIMEOUT,
    crate::util::error::CLIENT_ERROR_DRIVER_TIMEOUT
);
static_assertions::const_assert_eq!(
    AERON_CLIENT_ERROR_CLIENT_TIMEOUT,
    crate::util::error::CLIENT_ERROR_CLIENT_TIMEOUT
);
static_assertions::const_assert_eq!(
    AERON_CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT,
    crate::util::error::CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT
);
static_assertions::const_assert_eq!(
    AERON_CLIENT_ERROR_BUFFER_FULL,
    crate::util::error::CLIENT_ERROR_BUFFER_FULL
);

/// The async handles of registrations in flight, by registration id, so the new
/// publication and subscription callbacks can name them.
pub(crate) type Registering = Arc<AddsInFlight<ClientData>>;

/// The client's counters reader as C sees it, known once the client is boxed (before its
/// conductor starts, so before any counter callback).
pub(crate) type ReaderSlot = Arc<OnceLock<ClientData>>;

/// A counter handler calling the C one with the client's counters reader.
pub(crate) fn counter_handler(
    callback: Callback<aeron_on_available_counter_t>,
    reader: &ReaderSlot,
) -> Option<impl Fn(i64, i32) + Send + Sync + 'static> {
    let handler = callback.func?;
    let reader = Arc::clone(reader);
    Some(move |registration_id: i64, counter_id: i32| {
        let reader = reader.get().map_or(std::ptr::null_mut(), |r| r.get().cast());
        // SAFETY: the application's handler with its clientd (context or add contract).
        unsafe { handler(callback.clientd.get(), reader, registration_id, counter_id) };
    })
}

/// A handler given to the `aeron_add_*_handler` functions: its function and clientd, which
/// identify it for removal.
pub(crate) type HandlerKey = (usize, usize);

/// What an `aeron_t` points to.
pub(crate) struct ClientHandle {
    pub aeron: Aeron,
    context: ClientData,
    pub shared: Arc<ResourceLinger>,
    pub registering: Registering,
    pub(crate) reader: ReaderSlot,
    pub(crate) added_handlers: HandlerIds<HandlerKey>,
}

impl Handle for aeron_t {
    type Target = ClientHandle;
}

/// The client behind `client`.
///
/// # Safety
/// `client` NULL or from `aeron_init`, not closed.
pub(crate) unsafe fn client_ref<'a>(client: *mut aeron_t) -> Result<&'a ClientHandle> {
    // SAFETY: forwarded contract.
    unsafe { borrow(client, "client") }
}

/// A copy of `text` for C; interior NULs (never in Aeron's text) become spaces.
pub(crate) fn lossless_c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Installs the context's C callbacks as the Rust context's handlers.
fn install_callbacks(
    ctx: &mut crate::client::Context,
    callbacks: &Callbacks,
    registering: &Registering,
    reader: &ReaderSlot,
) {
    if let Some(handler) = counter_handler(callbacks.available_counter, reader) {
        ctx.set_on_available_counter(handler);
    }
    // The unavailable handler has the same C signature as the available one.
    if let Some(handler) = counter_handler(callbacks.unavailable_counter, reader) {
        ctx.set_on_unavailable_counter(handler);
    }
    let error = callbacks.error;
    ctx.set_error_handler(move |e| {
        if let Some(handler) = error.func {
            let message = lossless_c_string(e.message());
            // SAFETY: the application's error handler with its clientd (context contract).
            unsafe { handler(error.clientd.get(), e.code(), message.as_ptr()) };
        }
    });
    let publication_callback = |callback: Callback<aeron_on_new_publication_t>| {
        let registering = Arc::clone(registering);
        move |channel: &str, stream_id: i32, session_id: i32, correlation_id: i64| {
            let Some(handler) = callback.func else { return };
            let pending = registering.get(correlation_id);
            let r#async = pending.map_or(std::ptr::null_mut(), |a| a.0.cast());
            let channel = lossless_c_string(channel);
            // SAFETY: the application's handler with its clientd (context contract).
            unsafe {
                handler(
                    callback.clientd.get(),
                    r#async,
                    channel.as_ptr(),
                    stream_id,
                    session_id,
                    correlation_id,
                )
            };
        }
    };
    if callbacks.new_publication.func.is_some() {
        ctx.set_on_new_publication(publication_callback(callbacks.new_publication));
    }
    if callbacks.new_exclusive_publication.func.is_some() {
        ctx.set_on_new_exclusive_publication(publication_callback(callbacks.new_exclusive_publication));
    }
    let subscription = callbacks.new_subscription;
    if let Some(handler) = subscription.func {
        let registering = Arc::clone(registering);
        ctx.set_on_new_subscription(move |channel, stream_id, correlation_id| {
            let pending = registering.get(correlation_id);
            let r#async = pending.map_or(std::ptr::null_mut(), |a| a.0.cast());
            let channel = lossless_c_string(channel);
            // SAFETY: the application's handler with its clientd (context contract).
            unsafe {
                handler(subscription.clientd.get(), r#async, channel.as_ptr(), stream_id, correlation_id)
            };
        });
    }
    let error_frame = callbacks.publication_error_frame;
    if let Some(handler) = error_frame.func {
        ctx.set_publication_error_frame_handler(move |frame| {
            crate::ffi::publication_error::with_error_values(frame, |values| {
                // SAFETY: the application's handler with its clientd (context contract);
                // `values` is a complete frame for the duration of the call.
                unsafe { handler(error_frame.clientd.get(), values) }
            });
        });
    }
    let close = callbacks.close_client;
    if let Some(handler) = close.func {
        // SAFETY: the application's handler with its clientd (context contract).
        ctx.set_on_close_client(move || unsafe { handler(close.clientd.get()) });
    }
    let on_start = callbacks.agent_on_start;
    if let Some(hook) = on_start.func {
        ctx.set_agent_on_start(move |role_name| {
            let role_name = lossless_c_string(role_name);
            // SAFETY: the application's function with its state (context contract).
            unsafe { hook(on_start.clientd.get(), role_name.as_ptr()) };
        });
    }
}

/// Connects to the driver of the context's directory (waiting up to its driver timeout)
/// and stores a new client in `*client`; start it with `aeron_start`. The client uses
/// `context` from now on: keep it open until after `aeron_close` and do not give it to
/// another client. Returns 0, or -1 (NULL argument, no driver, bad settings).
///
/// # Safety
/// `client` valid for a pointer write; `context` NULL or from `aeron_context_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_init(client: *mut *mut aeron_t, context: *mut aeron_context_t) -> c_int {
    ffi_boundary!("aeron_init", {
        require_non_null!(client, "client");
        // SAFETY: NULL or live (contract).
        let handle = unsafe { context_ref(context) }?;
        let registering: Registering = AddsInFlight::new();
        let reader: ReaderSlot = Arc::default();
        let mut ctx = handle.ctx.clone();
        install_callbacks(&mut ctx, &handle.callbacks, &registering, &reader);
        let linger = ctx.resource_linger_duration();
        let aeron = Aeron::init(ctx)?;
        let value = ClientHandle {
            aeron,
            context: ClientData(context.cast()),
            shared: Arc::new(ResourceLinger::new(linger)),
            registering,
            reader: Arc::clone(&reader),
            added_handlers: HandlerIds::default(),
        };
        let raw = into_raw::<aeron_t>(value);
        // SAFETY: just boxed; the reader's address is fixed from now on.
        let boxed = unsafe { client_ref(raw) }?;
        let _ = reader.set(ClientData(as_c_reader(boxed.aeron.counters_reader()).cast()));
        // SAFETY: client is non-null and writable (contract).
        unsafe { client.write(raw) };
        Ok(0)
    })
}

/// Idles as the conductor would after a duty cycle that did `work_count` work: sleeps the
/// idle sleep duration when it did none. Does nothing for NULL.
///
/// # Safety
/// `client` NULL or open.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_main_idle_strategy(client: *mut aeron_t, work_count: c_int) {
    ffi_boundary!("aeron_main_idle_strategy", {
        // SAFETY: NULL or open (contract).
        unsafe { client_ref(client) }?.aeron.idle(work_count);
        Ok(())
    })
}

/// Closes the client: stops the conductor, closes every publication, subscription, image
/// and counter it made (their handles then report closed; free them with their own close
/// functions, or leave them: closed handles of a closed client are not used again) and
/// tells the driver. Frees the client; NULL is accepted. Returns 0.
///
/// # Safety
/// `client` NULL or open, closed once, with no other thread using it; not from a client
/// callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_close(client: *mut aeron_t) -> c_int {
    ffi_boundary!("aeron_close", {
        // SAFETY: NULL or open, closed once (contract).
        if let Some(handle) = unsafe { reclaim(client) } {
            handle.aeron.close();
            handle.shared.clear();
        }
        Ok(0)
    })
}

/// Calls `stream_out` with one line (`"%3d: %20lld - label\r\n"`) per allocated counter of
/// the driver, in id order, on this thread. Does nothing for NULL arguments.
///
/// # Safety
/// `client` NULL or open; `stream_out` safe to call with a string valid during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_print_counters(
    client: *mut aeron_t,
    stream_out: Option<unsafe extern "C" fn(line: *const c_char)>,
) {
    ffi_boundary!("aeron_print_counters", {
        // SAFETY: NULL or open (contract).
        let handle = unsafe { client_ref(client) }?;
        let stream_out = stream_out.ok_or_else(|| Error::invalid_argument("stream_out must not be NULL"))?;
        handle.aeron.counters_reader().for_each_counter(|counter| {
            let line = lossless_c_string(&format!(
                "{:3}: {:20} - {}\r\n",
                counter.id,
                counter.value,
                counter.label()
            ));
            // SAFETY: the caller's function, with a string valid during the call.
            unsafe { stream_out(line.as_ptr()) };
        });
        Ok(())
    })
}

// The client's single-call exports (start, do work, queries), generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/client_ffi.rs"));
