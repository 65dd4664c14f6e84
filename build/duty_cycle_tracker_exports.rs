//! The duty-cycle tracker (a setter and a getter per tracked agent) exports of `aeronmd.h`, for
//! `src/ffi/driver/duty_cycle_trackers.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/duty_cycle_tracker_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_set_conductor_duty_cycle_tracker(
context: *mut aeron_driver_context_t, value: *mut aeron_duty_cycle_tracker_t) -> c_int
    set_tracker(context, TrackedAgent::Conductor, value)
Sets the conductor's duty-cycle tracker: called with `update` when the conductor starts
and `measure_and_update` at the start of each of its duty cycles, in place of the
built-in tracker of system counters 26-27. NULL restores the built-in tracker. Returns
0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
conductor's thread, while a driver made from the context runs.

aeron_driver_context_get_conductor_duty_cycle_tracker(
context: *mut aeron_driver_context_t) -> *mut aeron_duty_cycle_tracker_t
    get_tracker(context, TrackedAgent::Conductor)
Returns the conductor's tracker set (NULL for the built-in one or a NULL context).

aeron_driver_context_set_sender_duty_cycle_tracker(
context: *mut aeron_driver_context_t, value: *mut aeron_duty_cycle_tracker_t) -> c_int
    set_tracker(context, TrackedAgent::Sender, value)
Sets the sender's duty-cycle tracker (system counters 28-29 when built in), as the
conductor's. Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
sender's thread, while a driver made from the context runs.

aeron_driver_context_get_sender_duty_cycle_tracker(
context: *mut aeron_driver_context_t) -> *mut aeron_duty_cycle_tracker_t
    get_tracker(context, TrackedAgent::Sender)
Returns the sender's tracker set (NULL for the built-in one or a NULL context).

aeron_driver_context_set_receiver_duty_cycle_tracker(
context: *mut aeron_driver_context_t, value: *mut aeron_duty_cycle_tracker_t) -> c_int
    set_tracker(context, TrackedAgent::Receiver, value)
Sets the receiver's duty-cycle tracker (system counters 30-31 when built in), as the
conductor's. Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
receiver's thread, while a driver made from the context runs.

aeron_driver_context_get_receiver_duty_cycle_tracker(
context: *mut aeron_driver_context_t) -> *mut aeron_duty_cycle_tracker_t
    get_tracker(context, TrackedAgent::Receiver)
Returns the receiver's tracker set (NULL for the built-in one or a NULL context).

aeron_driver_context_set_name_resolver_time_tracker(
context: *mut aeron_driver_context_t, value: *mut aeron_duty_cycle_tracker_t) -> c_int
    set_tracker(context, TrackedAgent::NameResolver, value)
Sets the name resolver's time tracker: `update` before and `measure_and_update` after
every name lookup and resolution the conductor makes (the built-in one writes system
counters 32-33 against `AERON_DRIVER_NAME_RESOLVER_THRESHOLD`). NULL restores the
built-in tracker. Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
conductor's thread, while a driver made from the context runs.

aeron_driver_context_get_name_resolver_time_tracker(
context: *mut aeron_driver_context_t) -> *mut aeron_duty_cycle_tracker_t
    get_tracker(context, TrackedAgent::NameResolver)
Returns the name resolver's time tracker set (NULL for the built-in one or a NULL
context).
"#;
