//! The callbacks of an `aeron_context_t`: their C types, where the context keeps them, and
//! their setters and getters. `aeron_init` turns them into the Rust client's handlers
//! (`ffi/client.rs`). Setters return 0 (-1 for a NULL context); getters return NULL for a
//! NULL context or an unset callback.

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::context::{aeron_context_t, context_mut, context_ref};
use crate::ffi::counters_reader::aeron_counters_reader_t;
use crate::ffi::handles::ClientData;
use crate::ffi::util::agent::aeron_agent_on_start_func_t;
use crate::util::error::Result;

/// Receives errors the client reports asynchronously: `errcode` as `aeron_errcode()` would
/// give it and a message valid during the call.
#[allow(non_camel_case_types)]
pub type aeron_error_handler_t =
    Option<unsafe extern "C" fn(clientd: *mut c_void, errcode: c_int, message: *const c_char)>;

/// A callback with nothing but its `clientd` (e.g. a close completed).
#[allow(non_camel_case_types)]
pub type aeron_notification_t = Option<unsafe extern "C" fn(clientd: *mut c_void)>;

/// Told that a publication this client added is ready: `async` is the handle its add
/// returned (NULL if the answer came before the add returned), `channel` valid during the
/// call. Do little here: it runs on the conductor thread.
#[allow(non_camel_case_types)]
pub type aeron_on_new_publication_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        r#async: *mut crate::ffi::client::aeron_async_add_publication_t,
        channel: *const c_char,
        stream_id: i32,
        session_id: i32,
        correlation_id: i64,
    ),
>;

/// Told that a subscription this client added is ready (as `aeron_on_new_publication_t`).
#[allow(non_camel_case_types)]
pub type aeron_on_new_subscription_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        r#async: *mut crate::ffi::client::aeron_async_add_subscription_t,
        channel: *const c_char,
        stream_id: i32,
        correlation_id: i64,
    ),
>;

/// Told that a counter became available (any client's, or the driver's), with the
/// client's counters reader to look at it. Runs on the conductor thread.
#[allow(non_camel_case_types)]
pub type aeron_on_available_counter_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        counters_reader: *mut aeron_counters_reader_t,
        registration_id: i64,
        counter_id: i32,
    ),
>;

/// Told that a counter went away (as `aeron_on_available_counter_t`; its own typedef, as
/// upstream declares it).
#[allow(non_camel_case_types)]
pub type aeron_on_unavailable_counter_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        counters_reader: *mut aeron_counters_reader_t,
        registration_id: i64,
        counter_id: i32,
    ),
>;

/// Told that the client is closing.
#[allow(non_camel_case_types)]
pub type aeron_on_close_client_t = Option<unsafe extern "C" fn(clientd: *mut c_void)>;

/// A handler and the `clientd` it is called with.
#[derive(Clone, Copy)]
pub(crate) struct Callback<F> {
    pub func: F,
    pub clientd: ClientData,
}

impl<F: Default> Default for Callback<F> {
    fn default() -> Self {
        Self { func: F::default(), clientd: ClientData(std::ptr::null_mut()) }
    }
}

/// The C callbacks of a context, turned into Rust handlers by `aeron_init`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Callbacks {
    pub error: Callback<aeron_error_handler_t>,
    pub publication_error_frame:
        Callback<crate::ffi::publication_error::aeron_publication_error_frame_handler_t>,
    pub new_publication: Callback<aeron_on_new_publication_t>,
    pub new_exclusive_publication: Callback<aeron_on_new_publication_t>,
    pub new_subscription: Callback<aeron_on_new_subscription_t>,
    pub available_counter: Callback<aeron_on_available_counter_t>,
    pub unavailable_counter: Callback<aeron_on_unavailable_counter_t>,
    pub close_client: Callback<aeron_on_close_client_t>,
    pub agent_on_start: Callback<aeron_agent_on_start_func_t>,
}

/// Replaces the callback `pick` chooses with `func` and its `clientd` (a NULL `func`
/// removes it). Returns 0, or EINVAL for a NULL context.
///
/// # Safety
/// As [`context_mut`].
unsafe fn set_callback<F>(
    context: *mut aeron_context_t,
    pick: impl FnOnce(&mut Callbacks) -> &mut Callback<F>,
    func: F,
    clientd: *mut c_void,
) -> Result<c_int> {
    // SAFETY: as this function's contract.
    *pick(&mut unsafe { context_mut(context) }?.callbacks) = Callback { func, clientd: ClientData(clientd) };
    Ok(0)
}

/// What a callback getter reports: `read` of the context's callbacks, or EINVAL for a NULL
/// context.
///
/// # Safety
/// As [`context_ref`].
unsafe fn get_callback<T>(context: *mut aeron_context_t, read: impl FnOnce(&Callbacks) -> T) -> Result<T> {
    // SAFETY: as this function's contract.
    Ok(read(&unsafe { context_ref(context) }?.callbacks))
}

/// The handler of errors the client reports asynchronously (conductor errors, driver
/// timeouts, failures of closes). The default prints to stderr.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_error_handler(
    context: *mut aeron_context_t,
    handler: aeron_error_handler_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_error_handler", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.error, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_error_handler` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_error_handler(
    context: *mut aeron_context_t,
) -> aeron_error_handler_t {
    ffi_boundary!("aeron_context_get_error_handler", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.error.func) }
    })
}

/// The `clientd` set with `aeron_context_set_error_handler` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_error_handler_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_error_handler_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.error.clientd.0) }
    })
}

/// The handler of error frames receivers send about this client's publications (UDP
/// only), e.g. when a subscriber rejected a publication's image. Called once per
/// publication of this client with the frame's registration id, with a frame valid during
/// the call only.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_publication_error_frame_handler(
    context: *mut aeron_context_t,
    handler: crate::ffi::publication_error::aeron_publication_error_frame_handler_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_publication_error_frame_handler", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.publication_error_frame, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_publication_error_frame_handler` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_publication_error_frame_handler(
    context: *mut aeron_context_t,
) -> crate::ffi::publication_error::aeron_publication_error_frame_handler_t {
    ffi_boundary!("aeron_context_get_publication_error_frame_handler", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.publication_error_frame.func) }
    })
}

/// The `clientd` set with `aeron_context_set_publication_error_frame_handler` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_publication_error_frame_handler_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_publication_error_frame_handler_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.publication_error_frame.clientd.0) }
    })
}

/// Called when a publication this client added is ready.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_new_publication(
    context: *mut aeron_context_t,
    handler: aeron_on_new_publication_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_new_publication", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.new_publication, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_new_publication` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_publication(
    context: *mut aeron_context_t,
) -> aeron_on_new_publication_t {
    ffi_boundary!("aeron_context_get_on_new_publication", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_publication.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_new_publication` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_publication_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_new_publication_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_publication.clientd.0) }
    })
}

/// Called when an exclusive publication this client added is ready.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_new_exclusive_publication(
    context: *mut aeron_context_t,
    handler: aeron_on_new_publication_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_new_exclusive_publication", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.new_exclusive_publication, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_new_exclusive_publication` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_exclusive_publication(
    context: *mut aeron_context_t,
) -> aeron_on_new_publication_t {
    ffi_boundary!("aeron_context_get_on_new_exclusive_publication", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_exclusive_publication.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_new_exclusive_publication` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_exclusive_publication_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_new_exclusive_publication_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_exclusive_publication.clientd.0) }
    })
}

/// Called when a subscription this client added is ready.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_new_subscription(
    context: *mut aeron_context_t,
    handler: aeron_on_new_subscription_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_new_subscription", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.new_subscription, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_new_subscription` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_subscription(
    context: *mut aeron_context_t,
) -> aeron_on_new_subscription_t {
    ffi_boundary!("aeron_context_get_on_new_subscription", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_subscription.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_new_subscription` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_new_subscription_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_new_subscription_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.new_subscription.clientd.0) }
    })
}

/// Called when a counter becomes available in the driver.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_available_counter(
    context: *mut aeron_context_t,
    handler: aeron_on_available_counter_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_available_counter", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.available_counter, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_available_counter` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_available_counter(
    context: *mut aeron_context_t,
) -> aeron_on_available_counter_t {
    ffi_boundary!("aeron_context_get_on_available_counter", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.available_counter.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_available_counter` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_available_counter_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_available_counter_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.available_counter.clientd.0) }
    })
}

/// Called when a counter goes away.
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_unavailable_counter(
    context: *mut aeron_context_t,
    handler: aeron_on_unavailable_counter_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_unavailable_counter", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.unavailable_counter, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_unavailable_counter` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_unavailable_counter(
    context: *mut aeron_context_t,
) -> aeron_on_unavailable_counter_t {
    ffi_boundary!("aeron_context_get_on_unavailable_counter", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.unavailable_counter.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_unavailable_counter` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_unavailable_counter_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_unavailable_counter_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.unavailable_counter.clientd.0) }
    })
}

/// Called once when the client closes (by `aeron_close` or a timeout).
/// Replaces the previous one; NULL removes it. Returns 0, or -1 for a NULL context.
///
/// # Safety
/// `context` NULL or live; `handler` safe to call with `clientd` from the conductor thread
/// for as long as the client runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_on_close_client(
    context: *mut aeron_context_t,
    handler: aeron_on_close_client_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_on_close_client", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.close_client, handler, clientd) }
    })
}

/// The handler set with `aeron_context_set_on_close_client` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_close_client(
    context: *mut aeron_context_t,
) -> aeron_on_close_client_t {
    ffi_boundary!("aeron_context_get_on_close_client", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.close_client.func) }
    })
}

/// The `clientd` set with `aeron_context_set_on_close_client` (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_on_close_client_clientd(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_on_close_client_clientd", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.close_client.clientd.0) }
    })
}

/// Sets the function called with `state` and the role name when the conductor starts, on
/// its thread (in invoker mode: from `aeron_start`). NULL removes it. Returns 0, or -1 for
/// a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` safe to call with `state` from the conductor thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_agent_on_start_function(
    context: *mut aeron_context_t,
    value: aeron_agent_on_start_func_t,
    state: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_context_set_agent_on_start_function", {
        // SAFETY: NULL or live (contract).
        unsafe { set_callback(context, |c| &mut c.agent_on_start, value, state) }
    })
}

/// The agent start function (NULL if none).
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_agent_on_start_function(
    context: *mut aeron_context_t,
) -> aeron_agent_on_start_func_t {
    ffi_boundary!("aeron_context_get_agent_on_start_function", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.agent_on_start.func) }
    })
}

/// The `state` passed to the agent start function.
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_agent_on_start_state(
    context: *mut aeron_context_t,
) -> *mut c_void {
    ffi_boundary!("aeron_context_get_agent_on_start_state", {
        // SAFETY: NULL or live (contract).
        unsafe { get_callback(context, |c| c.agent_on_start.clientd.0) }
    })
}
