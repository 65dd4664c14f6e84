//! The agent runner exports of `aeron_agent.h`, for `src/ffi/util/agent.rs` to include and cbindgen
//! to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`runner` must be NULL or initialised, and not started on a thread.";

pub fn generate() -> String {
    export_table::generate("build/agent_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_agent_do_work(runner: *mut aeron_agent_runner_t) -> c_int
    require_non_null!(runner, "runner");
    let r = &*runner;
    let do_work = r.do_work.ok_or_else(|| Error::invalid_argument("runner has no do_work"))?;
    // Beyond this contract: aeron_agent_init's caller vouched for the function and state.
    Ok(do_work(r.agent_state))
One duty cycle on the calling thread: returns what `do_work` returned, or -1 (EINVAL)
for a NULL or uninitialised runner.

aeron_agent_is_running(runner: *mut aeron_agent_runner_t) -> bool
    require_non_null!(runner, "runner");
    // Acquire: pairs with the release in aeron_agent_stop.
    Ok(running_flag(runner).load(Ordering::Acquire))
Whether the runner has not been stopped (false for NULL).
# Safety
`runner` must be NULL or initialised.

aeron_agent_idle(runner: *mut aeron_agent_runner_t, work_count: c_int)
    require_non_null!(runner, "runner");
    let r = &*runner;
    let idle = r.idle_strategy.ok_or_else(|| Error::invalid_argument("runner has no idle strategy"))?;
    // Beyond this contract: aeron_agent_init's caller vouched for the function and state.
    idle(r.idle_strategy_state, work_count);
    Ok(())
Runs the runner's idle strategy once after a cycle that did `work_count` (NULL or
uninitialised runner: EINVAL, nothing happens).

aeron_agent_close(runner: *mut aeron_agent_runner_t) -> c_int
    require_non_null!(runner, "runner");
    let r = &mut *runner;
    // role_name is NULL or the calloc'd copy from aeron_agent_init; clearing it keeps a
    // second close from freeing it again.
    libc::free(r.role_name.cast_mut().cast::<c_void>());
    r.role_name = std::ptr::null();
    if let Some(on_close) = r.on_close.take() {
        // Beyond this contract: aeron_agent_init's caller vouched for the function and state.
        on_close(r.agent_state);
    }
    Ok(0)
Releases what `aeron_agent_init` allocated and calls `on_close` with the agent state.
Call after `aeron_agent_stop`. Returns 0, or -1 (EINVAL) for NULL.
# Safety
`runner` must be NULL or initialised and not running on a thread.
"#;
