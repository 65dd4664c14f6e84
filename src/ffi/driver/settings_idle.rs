//! The idle strategy settings of `aeronmd.h`: each agent's strategy by name and its init
//! args. Names are Aeron's (`backoff`, `sleep-ns`/`sleeping`, `yield`, `spin`, `noop`, the
//! `aeron_idle_strategy_*` symbol names) or Agrona class names; init args are a duration for
//! sleeping and `max_spins-max_yields-min_park-max_park` for backoff.

use std::ffi::{c_char, c_int};

use crate::driver::agent_config::DriverAgent;
use crate::ffi::driver::context::{aeron_driver_context_t, get_string, handle, try_set};
use crate::ffi::{c_str_arg, ffi_boundary};
use crate::util::error::Result;

/// What the name getters report for a NULL context, as Aeron does.
static DEFAULT_IDLE_STRATEGY: &[u8] = b"aeron_idle_strategy_backoff\0";

/// Selects `agent`'s idle strategy by the name at `value`.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
unsafe fn set_name(
    context: *mut aeron_driver_context_t,
    agent: DriverAgent,
    value: *const c_char,
) -> Result<c_int> {
    // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
    let name = unsafe { c_str_arg(value, "value") }?;
    // SAFETY: NULL or live (contract).
    unsafe { try_set(context, |c| c.set_idle_strategy(agent, name)) }
}

/// Sets (or with NULL clears) `agent`'s init args.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
unsafe fn set_args(
    context: *mut aeron_driver_context_t,
    agent: DriverAgent,
    value: *const c_char,
) -> Result<c_int> {
    let args = if value.is_null() {
        None
    } else {
        // SAFETY: non-null and NUL-terminated (contract).
        Some(unsafe { c_str_arg(value, "value") }?)
    };
    // SAFETY: NULL or live (contract).
    unsafe { handle(context) }?.ctx.set_idle_strategy_init_args(agent, args);
    Ok(0)
}

/// `agent`'s idle strategy name, owned by the context.
///
/// # Safety
/// `context` must be NULL or live.
unsafe fn name(
    context: *mut aeron_driver_context_t,
    key: &'static str,
    agent: DriverAgent,
) -> Result<*const c_char> {
    // SAFETY: NULL or live (contract).
    unsafe {
        get_string(context, key, DEFAULT_IDLE_STRATEGY.as_ptr().cast(), |c| {
            Some(c.idle_strategy_spec(agent).name.clone())
        })
    }
}

/// `agent`'s init args, owned by the context; NULL when unset.
///
/// # Safety
/// `context` must be NULL or live.
unsafe fn args(
    context: *mut aeron_driver_context_t,
    key: &'static str,
    agent: DriverAgent,
) -> Result<*const c_char> {
    // SAFETY: NULL or live (contract).
    unsafe { get_string(context, key, std::ptr::null(), |c| c.idle_strategy_spec(agent).init_args.clone()) }
}

/// Selects the idle strategy of the sender by name (`AERON_SENDER_IDLE_STRATEGY`; default
/// `backoff`), built with the init args set for it. Returns 0, or -1 (EINVAL) for NULL
/// arguments, an unknown name or unsuitable init args (the setting is then unchanged).
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_idle_strategy(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sender_idle_strategy", {
        // SAFETY: as this function's contract.
        unsafe { set_name(context, DriverAgent::Sender, value) }
    })
}

/// Returns the idle strategy name of the sender, owned by the context (valid until it changes
/// or the context closes); `aeron_idle_strategy_backoff` for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_idle_strategy(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_sender_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe { name(context, "aeron_driver_context_get_sender_idle_strategy", DriverAgent::Sender) }
    })
}

/// Sets the init args of the sender's idle strategy (`AERON_SENDER_IDLE_STRATEGY_INIT_ARGS`;
/// NULL clears them). They apply when the strategy is next selected by name. Returns 0, or -1
/// (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sender_idle_strategy_init_args", {
        // SAFETY: as this function's contract.
        unsafe { set_args(context, DriverAgent::Sender, value) }
    })
}

/// Returns the init args of the sender's idle strategy, owned by the context; NULL when unset
/// or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_sender_idle_strategy_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            args(context, "aeron_driver_context_get_sender_idle_strategy_init_args", DriverAgent::Sender)
        }
    })
}

/// Selects the idle strategy of the conductor by name (`AERON_CONDUCTOR_IDLE_STRATEGY`; default
/// `backoff`), built with the init args set for it. Returns 0, or -1 (EINVAL) for NULL
/// arguments, an unknown name or unsuitable init args (the setting is then unchanged).
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_conductor_idle_strategy(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_conductor_idle_strategy", {
        // SAFETY: as this function's contract.
        unsafe { set_name(context, DriverAgent::Conductor, value) }
    })
}

/// Returns the idle strategy name of the conductor, owned by the context (valid until it
/// changes or the context closes); `aeron_idle_strategy_backoff` for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_conductor_idle_strategy(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_conductor_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe { name(context, "aeron_driver_context_get_conductor_idle_strategy", DriverAgent::Conductor) }
    })
}

/// Sets the init args of the conductor's idle strategy
/// (`AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS`; NULL clears them). They apply when the strategy
/// is next selected by name. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_conductor_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_conductor_idle_strategy_init_args", {
        // SAFETY: as this function's contract.
        unsafe { set_args(context, DriverAgent::Conductor, value) }
    })
}

/// Returns the init args of the conductor's idle strategy, owned by the context; NULL when
/// unset or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_conductor_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_conductor_idle_strategy_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            args(
                context,
                "aeron_driver_context_get_conductor_idle_strategy_init_args",
                DriverAgent::Conductor,
            )
        }
    })
}

/// Selects the idle strategy of the receiver by name (`AERON_RECEIVER_IDLE_STRATEGY`; default
/// `backoff`), built with the init args set for it. Returns 0, or -1 (EINVAL) for NULL
/// arguments, an unknown name or unsuitable init args (the setting is then unchanged).
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_idle_strategy(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_idle_strategy", {
        // SAFETY: as this function's contract.
        unsafe { set_name(context, DriverAgent::Receiver, value) }
    })
}

/// Returns the idle strategy name of the receiver, owned by the context (valid until it changes
/// or the context closes); `aeron_idle_strategy_backoff` for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_idle_strategy(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_receiver_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe { name(context, "aeron_driver_context_get_receiver_idle_strategy", DriverAgent::Receiver) }
    })
}

/// Sets the init args of the receiver's idle strategy
/// (`AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS`; NULL clears them). They apply when the strategy
/// is next selected by name. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_idle_strategy_init_args", {
        // SAFETY: as this function's contract.
        unsafe { set_args(context, DriverAgent::Receiver, value) }
    })
}

/// Returns the init args of the receiver's idle strategy, owned by the context; NULL when unset
/// or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_receiver_idle_strategy_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            args(context, "aeron_driver_context_get_receiver_idle_strategy_init_args", DriverAgent::Receiver)
        }
    })
}

/// Selects the idle strategy of the shared sender/receiver thread (SHARED_NETWORK) by name
/// (`AERON_SHAREDNETWORK_IDLE_STRATEGY`; default `backoff`), built with the init args set for
/// it. Returns 0, or -1 (EINVAL) for NULL arguments, an unknown name or unsuitable init args
/// (the setting is then unchanged).
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sharednetwork_idle_strategy(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sharednetwork_idle_strategy", {
        // SAFETY: as this function's contract.
        unsafe { set_name(context, DriverAgent::SharedNetwork, value) }
    })
}

/// Returns the idle strategy name of the shared sender/receiver thread (SHARED_NETWORK), owned
/// by the context (valid until it changes or the context closes); `aeron_idle_strategy_backoff`
/// for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sharednetwork_idle_strategy(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_sharednetwork_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe {
            name(context, "aeron_driver_context_get_sharednetwork_idle_strategy", DriverAgent::SharedNetwork)
        }
    })
}

/// Sets the init args of the shared sender/receiver thread (SHARED_NETWORK)'s idle strategy
/// (`AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS`; NULL clears them). They apply when the
/// strategy is next selected by name. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sharednetwork_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sharednetwork_idle_strategy_init_args", {
        // SAFETY: as this function's contract.
        unsafe { set_args(context, DriverAgent::SharedNetwork, value) }
    })
}

/// Returns the init args of the shared sender/receiver thread (SHARED_NETWORK)'s idle strategy,
/// owned by the context; NULL when unset or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sharednetwork_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_sharednetwork_idle_strategy_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            args(
                context,
                "aeron_driver_context_get_sharednetwork_idle_strategy_init_args",
                DriverAgent::SharedNetwork,
            )
        }
    })
}

/// Selects the idle strategy of the single agent thread (SHARED, INVOKER) by name
/// (`AERON_SHARED_IDLE_STRATEGY`; default `backoff`), built with the init args set for it.
/// Returns 0, or -1 (EINVAL) for NULL arguments, an unknown name or unsuitable init args (the
/// setting is then unchanged).
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_shared_idle_strategy(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_shared_idle_strategy", {
        // SAFETY: as this function's contract.
        unsafe { set_name(context, DriverAgent::Shared, value) }
    })
}

/// Returns the idle strategy name of the single agent thread (SHARED, INVOKER), owned by the
/// context (valid until it changes or the context closes); `aeron_idle_strategy_backoff` for a
/// NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_shared_idle_strategy(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_shared_idle_strategy", {
        // SAFETY: NULL or live (contract).
        unsafe { name(context, "aeron_driver_context_get_shared_idle_strategy", DriverAgent::Shared) }
    })
}

/// Sets the init args of the single agent thread (SHARED, INVOKER)'s idle strategy
/// (`AERON_SHARED_IDLE_STRATEGY_INIT_ARGS`; NULL clears them). They apply when the strategy is
/// next selected by name. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_shared_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_shared_idle_strategy_init_args", {
        // SAFETY: as this function's contract.
        unsafe { set_args(context, DriverAgent::Shared, value) }
    })
}

/// Returns the init args of the single agent thread (SHARED, INVOKER)'s idle strategy, owned by
/// the context; NULL when unset or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_shared_idle_strategy_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_shared_idle_strategy_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            args(context, "aeron_driver_context_get_shared_idle_strategy_init_args", DriverAgent::Shared)
        }
    })
}
