//! Duty-cycle trackers supplied from C (`aeron_duty_cycle_tracker_t`, Aeron's
//! `struct aeron_duty_cycle_tracker_stct`): the conductor, sender and receiver call
//! `update` when they start and `measure_and_update` at the start of every duty cycle; the
//! name resolver calls `update` before and `measure_and_update` after every lookup and
//! resolution (`src/driver/duty_cycle_tracker.rs`). A supplied tracker replaces the
//! built-in one of that agent, as in Aeron. The functions and state are read from the
//! caller's struct at every call, as Aeron's agents read them.
//!
//! Getters return the tracker set, or NULL while the built-in one is in use (Aeron returns
//! a pointer to its built-in tracker, which is internal here); setting NULL restores it.

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use crate::concurrent::ForeignShared;
use crate::driver::agent_config::TrackedAgent;
use crate::driver::duty_cycle_tracker::{DutyCycleTrackerHooks, SuppliedDutyCycleTracker};
use crate::ffi::driver::assert_layout;
use crate::ffi::driver::context::{aeron_driver_context_t, get_callback, handle};
use crate::ffi::ffi_boundary;
use crate::util::error::Result;

/// `update(state, now_ns)`: the timed interval starts at `now_ns`.
#[allow(non_camel_case_types)]
pub type aeron_duty_cycle_tracker_update_func_t =
    Option<unsafe extern "C" fn(state: *mut c_void, now_ns: i64)>;

/// `measure_and_update(state, now_ns)`: the interval ends at `now_ns`; the next starts.
#[allow(non_camel_case_types)]
pub type aeron_duty_cycle_tracker_measure_and_update_func_t =
    Option<unsafe extern "C" fn(state: *mut c_void, now_ns: i64)>;

/// A duty-cycle tracker: Aeron's `struct aeron_duty_cycle_tracker_stct`, field for field.
/// Filled in and owned by the caller; must stay valid while a driver using it runs.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_duty_cycle_tracker_stct {
    pub update: aeron_duty_cycle_tracker_update_func_t,
    pub measure_and_update: aeron_duty_cycle_tracker_measure_and_update_func_t,
    pub state: *mut c_void,
}

/// Aeron's name for the tracker (`typedef struct aeron_duty_cycle_tracker_stct ...`).
#[allow(non_camel_case_types)]
pub type aeron_duty_cycle_tracker_t = aeron_duty_cycle_tracker_stct;

assert_layout!(aeron_duty_cycle_tracker_stct, size 24, update @ 0, measure_and_update @ 8, state @ 16);

/// The caller's tracker, called from the agent that uses it (shared on the setter's
/// contract: it stays valid while the driver runs and may be called on the driver's agent
/// threads, Aeron's own contract for supplied trackers; Rust only reads its fields).
struct CDutyCycleTracker(ForeignShared<*mut aeron_duty_cycle_tracker_t>);

impl CDutyCycleTracker {
    /// Calls the function `pick` reads from the caller's struct, with the struct's state.
    fn call(
        &self,
        pick: fn(&aeron_duty_cycle_tracker_t) -> aeron_duty_cycle_tracker_update_func_t,
        now_ns: i64,
    ) {
        // SAFETY: valid while the driver runs (setter's contract); read at each call.
        let (f, state) = unsafe { (pick(&*self.0.value()), (*self.0.value()).state) };
        if let Some(f) = f {
            // SAFETY: the caller's function with its own state (setter's contract).
            unsafe { f(state, now_ns) }
        }
    }
}

impl DutyCycleTrackerHooks for CDutyCycleTracker {
    fn update(&self, now_ns: i64) {
        self.call(|t| t.update, now_ns);
    }

    fn measure_and_update(&self, now_ns: i64) {
        self.call(|t| t.measure_and_update, now_ns);
    }
}

/// Stores `value` as the context's tracker for `role` (NULL: the built-in one).
///
/// # Safety
/// `context` NULL or live; `value` NULL or valid (with callable functions) while a driver
/// made from the context runs.
unsafe fn set_tracker(
    context: *mut aeron_driver_context_t,
    role: TrackedAgent,
    value: *mut aeron_duty_cycle_tracker_t,
) -> Result<c_int> {
    // SAFETY: NULL or live (contract).
    let h = unsafe { handle(context) }?;
    let supplied = (!value.is_null()).then(|| {
        // SAFETY: valid and callable on the agents' threads while the driver runs (contract).
        let tracker = CDutyCycleTracker(unsafe { ForeignShared::new(value) });
        SuppliedDutyCycleTracker(Arc::new(tracker) as Arc<dyn DutyCycleTrackerHooks>)
    });
    *h.ctx.agents.supplied_tracker(role) = supplied;
    h.callbacks.duty_cycle_trackers[role as usize] = value;
    Ok(0)
}

/// The tracker set for `role`, or NULL.
///
/// # Safety
/// `context` must be NULL or live.
unsafe fn get_tracker(
    context: *mut aeron_driver_context_t,
    role: TrackedAgent,
) -> Result<*mut aeron_duty_cycle_tracker_t> {
    // SAFETY: NULL or live (contract).
    Ok(unsafe { get_callback(context, std::ptr::null_mut(), |c| c.duty_cycle_trackers[role as usize]) })
}

// The exports, over the helpers above: generated from the table in build/duty_cycle_tracker_exports.rs.
include!(concat!(env!("OUT_DIR"), "/duty_cycle_tracker_ffi.rs"));
