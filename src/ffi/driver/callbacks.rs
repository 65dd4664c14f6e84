//! Driver context settings that are C functions: the termination validator and hook, the
//! agent on-start function, and the flow and congestion control suppliers.
//!
//! Suppliers: aeronrs builds its strategies in Rust, so a supplier pointer is a selector.
//! `aeron_flow_control_strategy_supplier_by_name` (and the getters) return one of this
//! library's supplier functions per built-in strategy; the setters accept exactly those and
//! store the strategy's name. Calling a supplier directly fails (-1, ENOTSUP): only the
//! driver instantiates strategies. Custom C suppliers are rejected with EINVAL.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::Arc;

use crate::concurrent::ForeignShared;
use crate::driver::agent_config::AgentOnStart;
use crate::driver::congestion::supplier as congestion;
use crate::driver::context::TerminationValidator;
use crate::driver::flow_control::supplier as flow_control;
use crate::driver::termination::{TerminationHook, TerminationValidatorFn};
use crate::ffi::driver::context::{aeron_driver_context_t, get, get_callback, handle, set};
use crate::ffi::driver::duty_cycle_trackers::aeron_duty_cycle_tracker_t;
use crate::ffi::driver::media::plugin::MediaPointers;
use crate::ffi::driver::name_resolver::aeron_name_resolver_supplier_func_t;
use crate::ffi::driver::port_managers::aeron_port_manager_t;
use crate::ffi::driver::{FnOf, marker_called};
use crate::ffi::util::agent::aeron_agent_on_start_func_t;
use crate::ffi::{c_str_arg, ffi_boundary};
use crate::util::error::{Error, Result};

/// Decides whether a client's TERMINATE_DRIVER with `length` bytes of token at `buffer` may
/// stop the driver; called on the conductor thread with the state given when set.
#[allow(non_camel_case_types)]
pub type aeron_driver_termination_validator_func_t =
    Option<unsafe extern "C" fn(state: *mut c_void, buffer: *mut u8, length: i32) -> bool>;

/// Called on the conductor thread when a TERMINATE_DRIVER has been accepted.
#[allow(non_camel_case_types)]
pub type aeron_driver_termination_hook_func_t = Option<unsafe extern "C" fn(clientd: *mut c_void)>;

/// A flow control strategy of the driver's (opaque; built by the driver only).
#[allow(non_camel_case_types)]
pub struct aeron_flow_control_strategy_t {
    _private: [u8; 0],
}

/// A congestion control strategy of the driver's (opaque; built by the driver only).
#[allow(non_camel_case_types)]
pub struct aeron_congestion_control_strategy_t {
    _private: [u8; 0],
}

/// A UDP channel of the driver's (opaque).
#[allow(non_camel_case_types)]
pub struct aeron_udp_channel_t {
    _private: [u8; 0],
}

/// The driver's counters manager (opaque).
#[allow(non_camel_case_types)]
pub struct aeron_counters_manager_t {
    _private: [u8; 0],
}

/// Selects a flow control strategy (see the module notes).
#[allow(non_camel_case_types)]
pub type aeron_flow_control_strategy_supplier_func_t = Option<
    unsafe extern "C" fn(
        strategy: *mut *mut aeron_flow_control_strategy_t,
        context: *mut aeron_driver_context_t,
        counters_manager: *mut aeron_counters_manager_t,
        channel: *const aeron_udp_channel_t,
        stream_id: i32,
        session_id: i32,
        registration_id: i64,
        initial_term_id: i32,
        term_length: usize,
    ) -> c_int,
>;

/// Selects a congestion control strategy (see the module notes).
#[allow(non_camel_case_types)]
pub type aeron_congestion_control_strategy_supplier_func_t = Option<
    unsafe extern "C" fn(
        strategy: *mut *mut aeron_congestion_control_strategy_t,
        channel: *mut aeron_udp_channel_t,
        stream_id: i32,
        session_id: i32,
        registration_id: i64,
        term_length: i32,
        sender_mtu_length: i32,
        control_address: *mut libc::sockaddr_storage,
        src_address: *mut libc::sockaddr_storage,
        context: *mut aeron_driver_context_t,
        counters_manager: *mut aeron_counters_manager_t,
    ) -> c_int,
>;

type ValidatorFn = FnOf<aeron_driver_termination_validator_func_t>;
/// A callback's state, handed back to the callback on the driver's threads.
type CState = ForeignShared<*mut c_void>;

/// The C functions and states behind a context's callbacks, for the getters.
pub(crate) struct CCallbacks {
    validator: Option<(ValidatorFn, CState)>,
    hook: Option<(FnOf<aeron_driver_termination_hook_func_t>, CState)>,
    on_start: Option<(FnOf<aeron_agent_on_start_func_t>, CState)>,
    /// The trackers as set, by `TrackedAgent` (NULL: built in).
    pub(crate) duty_cycle_trackers: [*mut aeron_duty_cycle_tracker_t; 4],
    /// The name resolver supplier set (None: the default).
    pub(crate) name_resolver_supplier: aeron_name_resolver_supplier_func_t,
    /// Transport bindings and interceptor chains as set.
    pub(crate) media: MediaPointers,
    /// Sender and receiver port managers as set (NULL: built in).
    pub(crate) port_managers: [*mut aeron_port_manager_t; 2],
}

impl Default for CCallbacks {
    fn default() -> Self {
        Self {
            validator: None,
            hook: None,
            on_start: None,
            duty_cycle_trackers: [std::ptr::null_mut(); 4],
            name_resolver_supplier: None,
            media: MediaPointers::default(),
            port_managers: [std::ptr::null_mut(); 2],
        }
    }
}

/// The state a callback set with one is called with (NULL when none is set).
fn state_of<F>(callback: &Option<(F, CState)>) -> *mut c_void {
    callback.as_ref().map_or(std::ptr::null_mut(), |(_, state)| state.value())
}

/// The validator `AERON_DRIVER_TERMINATION_VALIDATOR=deny` stands for: refuses every token.
#[inline(never)]
unsafe extern "C" fn termination_validator_deny(_state: *mut c_void, _buffer: *mut u8, _length: i32) -> bool {
    false
}

/// The validator `AERON_DRIVER_TERMINATION_VALIDATOR=allow` stands for: accepts every token.
#[inline(never)]
unsafe extern "C" fn termination_validator_allow(
    _state: *mut c_void,
    _buffer: *mut u8,
    _length: i32,
) -> bool {
    true
}

/// Sets the termination validator and the state it is called with. The built-in allow/deny
/// validators (as the getter returns them) select Aeron's `allow`/`deny`; NULL restores
/// `AERON_DRIVER_TERMINATION_VALIDATOR`'s choice as `deny`. Returns 0, or -1 (EINVAL) for a
/// NULL context.
///
/// # Safety
/// `context` NULL or live; `value` safe to call with `state` on the conductor thread while
/// a driver made from the context runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_driver_termination_validator(
    context: *mut aeron_driver_context_t,
    value: aeron_driver_termination_validator_func_t,
    state: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_driver_termination_validator", {
        // SAFETY: NULL or live (contract).
        let h = unsafe { handle(context) }?;
        // SAFETY: the function may be called with its state on the driver's threads (contract).
        let state = unsafe { CState::new(state) };
        h.ctx.termination_validator_fn = None;
        h.callbacks.validator = None;
        match value {
            None => h.ctx.termination_validator = TerminationValidator::Deny,
            Some(f) if std::ptr::fn_addr_eq(f, termination_validator_deny as ValidatorFn) => {
                h.ctx.termination_validator = TerminationValidator::Deny
            }
            Some(f) if std::ptr::fn_addr_eq(f, termination_validator_allow as ValidatorFn) => {
                h.ctx.termination_validator = TerminationValidator::Allow
            }
            Some(f) => {
                h.ctx.termination_validator_fn = Some(TerminationValidatorFn::new(move |token: &[u8]| {
                    let length = i32::try_from(token.len()).unwrap_or(i32::MAX);
                    // SAFETY: the caller's validator with its state (contract); the token
                    // lives for the call and the validator only reads it.
                    unsafe { f(state.value(), token.as_ptr().cast_mut(), length) }
                }));
                h.callbacks.validator = Some((f, state));
            }
        }
        Ok(0)
    })
}

/// Sets the function called (with `state`) on the conductor thread once a client's
/// TERMINATE_DRIVER is accepted; NULL for none. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` safe to call with `state` on the conductor thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_driver_termination_hook(
    context: *mut aeron_driver_context_t,
    value: aeron_driver_termination_hook_func_t,
    state: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_driver_termination_hook", {
        // SAFETY: NULL or live (contract).
        let h = unsafe { handle(context) }?;
        // SAFETY: the function may be called with its state on the driver's threads (contract).
        let state = unsafe { CState::new(state) };
        h.callbacks.hook = value.map(|f| (f, state));
        h.ctx.termination_hook = value.map(|f| {
            TerminationHook::new(move || {
                // SAFETY: the caller's hook with its state (contract).
                unsafe { f(state.value()) }
            })
        });
        Ok(0)
    })
}

/// Sets the function each driver agent thread calls (with `state` and its role name) before
/// its first duty cycle, e.g. `aeron_set_thread_affinity_on_start`; NULL for none. In a
/// manual main loop it runs on the thread that calls `aeron_driver_start`. Returns 0, or -1
/// (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` safe to call with `state` on the driver's threads.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_agent_on_start_function(
    context: *mut aeron_driver_context_t,
    value: aeron_agent_on_start_func_t,
    state: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_agent_on_start_function", {
        // SAFETY: NULL or live (contract).
        let h = unsafe { handle(context) }?;
        // SAFETY: the function may be called with its state on the driver's threads (contract).
        let state = unsafe { CState::new(state) };
        h.callbacks.on_start = value.map(|f| (f, state));
        h.ctx.agents.on_start = value.map(|f| {
            AgentOnStart(Arc::new(move |role_name: &str| {
                let role = CString::new(role_name).unwrap_or_default();
                // SAFETY: the caller's function with its state (contract); the role name
                // lives for the call.
                unsafe { f(state.value(), role.as_ptr()) }
            }))
        });
        Ok(0)
    })
}

/// Why calling a supplier selector fails.
const SELECTOR_CALLED: &str = "aeronrs suppliers select a built-in strategy; only the driver builds it";

/// The selector of the built-in strategy the driver calls `short_name`.
fn selector<F: Copy>(selectors: &[(&str, F)], short_name: &str) -> Result<F> {
    selectors
        .iter()
        .find(|(name, _)| *name == short_name)
        .map(|(_, f)| *f)
        .ok_or_else(|| Error::invalid_argument(format!("no supplier for strategy {short_name}")))
}

/// The short name of the strategy selector `f` stands for, if it is one of `selectors`.
/// Compared by address: the selectors have distinct bodies, so distinct addresses.
fn selected<F: Copy + PartialEq>(selectors: &[(&'static str, F)], f: F) -> Option<&'static str> {
    selectors.iter().find(|(_, s)| *s == f).map(|(name, _)| *name)
}

// Each selector passes its own name, so no two have the same code and a linker cannot fold
// them into one address (their addresses identify the strategy).
macro_rules! flow_control_supplier {
    ($name:ident) => {
        /// A flow control supplier selector (see the module notes); fails if called.
        #[inline(never)]
        unsafe extern "C" fn $name(
            _strategy: *mut *mut aeron_flow_control_strategy_t,
            _context: *mut aeron_driver_context_t,
            _counters_manager: *mut aeron_counters_manager_t,
            _channel: *const aeron_udp_channel_t,
            _stream_id: i32,
            _session_id: i32,
            _registration_id: i64,
            _initial_term_id: i32,
            _term_length: usize,
        ) -> c_int {
            marker_called(stringify!($name), SELECTOR_CALLED)
        }
    };
}

flow_control_supplier!(unicast_flow_control_supplier);
flow_control_supplier!(max_multicast_flow_control_supplier);
flow_control_supplier!(min_multicast_flow_control_supplier);
flow_control_supplier!(tagged_multicast_flow_control_supplier);

/// The built-in flow control strategies' selectors, by the driver's short names.
const FLOW_CONTROL_SUPPLIERS: [(&str, FnOf<aeron_flow_control_strategy_supplier_func_t>); 4] = [
    ("unicast_max", unicast_flow_control_supplier),
    ("multicast_max", max_multicast_flow_control_supplier),
    ("multicast_min", min_multicast_flow_control_supplier),
    ("multicast_tagged", tagged_multicast_flow_control_supplier),
];

/// The selector of the flow control supplier the driver calls `name`.
fn flow_supplier_for(name: &str) -> Result<aeron_flow_control_strategy_supplier_func_t> {
    selector(&FLOW_CONTROL_SUPPLIERS, flow_control::supplier_short_name(name)?).map(Some)
}

/// The short name of the flow control strategy `value` selects.
fn flow_supplier_name(value: aeron_flow_control_strategy_supplier_func_t) -> Result<&'static str> {
    let f = value.ok_or_else(|| Error::invalid_argument("value must not be NULL"))?;
    selected(&FLOW_CONTROL_SUPPLIERS, f).ok_or_else(|| {
        Error::invalid_argument("custom flow control suppliers are not supported; use aeron_flow_control_strategy_supplier_by_name")
    })
}

macro_rules! congestion_control_supplier {
    ($name:ident) => {
        /// A congestion control supplier selector (see the module notes); fails if called.
        #[inline(never)]
        unsafe extern "C" fn $name(
            _strategy: *mut *mut aeron_congestion_control_strategy_t,
            _channel: *mut aeron_udp_channel_t,
            _stream_id: i32,
            _session_id: i32,
            _registration_id: i64,
            _term_length: i32,
            _sender_mtu_length: i32,
            _control_address: *mut libc::sockaddr_storage,
            _src_address: *mut libc::sockaddr_storage,
            _context: *mut aeron_driver_context_t,
            _counters_manager: *mut aeron_counters_manager_t,
        ) -> c_int {
            marker_called(stringify!($name), SELECTOR_CALLED)
        }
    };
}

congestion_control_supplier!(default_congestion_control_supplier);
congestion_control_supplier!(static_window_congestion_control_supplier);
congestion_control_supplier!(cubic_congestion_control_supplier);

/// The driver-level congestion control choices' selectors, by the driver's short names.
const CONGESTION_CONTROL_SUPPLIERS: [(&str, FnOf<aeron_congestion_control_strategy_supplier_func_t>); 3] = [
    ("default", default_congestion_control_supplier),
    ("static", static_window_congestion_control_supplier),
    ("cubic", cubic_congestion_control_supplier),
];

// The exports, over the helpers above: generated from the table in build/driver_callbacks_exports.rs.
include!(concat!(env!("OUT_DIR"), "/driver_callbacks_ffi.rs"));
