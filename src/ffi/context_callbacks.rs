//! The callbacks of an `aeron_context_t`: their C types, where the context keeps them, and
//! their setters and getters. `aeron_init` turns them into the Rust client's handlers
//! (`ffi/client.rs`). Setters return 0 (-1 for a NULL context); getters return NULL for a
//! NULL context or an unset callback.

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::context::{aeron_context_t, context_mut, context_ref};
use crate::ffi::counters_reader::aeron_counters_reader_t;
use crate::ffi::handles::ClientData;
use crate::ffi::publication_error::aeron_publication_error_frame_handler_t;
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
    pub publication_error_frame: Callback<aeron_publication_error_frame_handler_t>,
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

// `aeron_context_set_*`/`_get_*` of each callback above, generated by build.rs from its
// table (`build/context_callback_exports.rs`).
include!(concat!(env!("OUT_DIR"), "/context_callback_ffi.rs"));
