//! The duty-cycle tracker (a setter and a getter per tracked agent) exports of `aeronmd.h`, for
//! `src/ffi/driver/duty_cycle_trackers.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    let mut table = String::new();
    for (agent, variant, counters) in AGENTS {
        let rows = AGENT_ROWS.replace("{agent}", agent).replace("{variant}", variant);
        table.push_str(&rows.replace("{counters}", counters));
    }
    table.push_str(NAME_RESOLVER_ROWS);
    export_table::generate("build/duty_cycle_tracker_exports.rs", &table, SAFETY)
}

/// The agents with a duty-cycle tracker each: the name in the C functions, the
/// `TrackedAgent` variant, and the system counters of the built-in tracker.
const AGENTS: [(&str, &str, &str); 3] =
    [("conductor", "Conductor", "26-27"), ("sender", "Sender", "28-29"), ("receiver", "Receiver", "30-31")];

const AGENT_ROWS: &str = r#"
aeron_driver_context_set_{agent}_duty_cycle_tracker(
context: *mut aeron_driver_context_t, value: *mut aeron_duty_cycle_tracker_t) -> c_int
    set_tracker(context, TrackedAgent::{variant}, value)
Sets the {agent}'s duty-cycle tracker: called with `update` when the {agent} starts
and `measure_and_update` at the start of each of its duty cycles, in place of the
built-in tracker of system counters {counters}. NULL restores the built-in tracker. Returns
0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
{agent}'s thread, while a driver made from the context runs.

aeron_driver_context_get_{agent}_duty_cycle_tracker(
context: *mut aeron_driver_context_t) -> *mut aeron_duty_cycle_tracker_t
    get_tracker(context, TrackedAgent::{variant})
Returns the {agent}'s tracker set (NULL for the built-in one or a NULL context).
"#;

const NAME_RESOLVER_ROWS: &str = r#"
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
