//! The idle strategy exports of `aeron_idle_strategy.h`, for `src/ffi/util/idle_strategy.rs` to
//! include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`state` must be NULL or valid for a pointer write.";

pub fn generate() -> String {
    export_table::generate("build/util_idle_strategy_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_idle_strategy_sleeping_idle(state: *mut c_void, work_count: c_int)
    if work_count > 0 {
        return Ok(());
    }
    require_non_null!(state, "state");
    let period_ns = state.cast::<u64>().read();
    std::thread::sleep(Duration::from_nanos(period_ns));
    Ok(())
Sleeps for the period in `state` (a `uint64_t` of nanoseconds) when `work_count` is 0.
# Safety
`state` must be NULL or point to a `uint64_t` (as `aeron_idle_strategy_load` allocates).

aeron_idle_strategy_backoff_idle(state: *mut c_void, work_count: c_int)
    require_non_null!(state, "state");
    // state holds the IdleStrategy c_box wrote (backoff_state_init or load), one thread's.
    let strategy = &mut *state.cast::<IdleStrategy>();
    strategy.idle(work_count);
    Ok(())
Backs off when `work_count` is 0: spins, then yields, then parks for a period doubling
from the minimum to the maximum; any work resets it. Only the loading thread may use a
given state.
# Safety
`state` must be NULL or a state from `aeron_idle_strategy_backoff_state_init` or from
`aeron_idle_strategy_load("backoff", ...)`, used by one thread at a time.

aeron_idle_strategy_backoff_state_init(
state: *mut *mut c_void, max_spins: u64, max_yields: u64, min_park_period_ns: u64,
max_park_period_ns: u64) -> c_int
    require_non_null!(state, "state");
    let backoff = Backoff::new(max_spins, max_yields, min_park_period_ns, max_park_period_ns)?;
    let memory = c_box(IdleStrategy::Backoff(backoff), "idle strategy state")?;
    write_out(state, "state", memory)
Allocates a backoff state with the given limits into `*state` (free with `aeron_free`).
Returns 0, or -1: EINVAL for a NULL `state` or park periods not `0 < min <= max`,
ENOMEM when out of memory.

aeron_idle_strategy_init_null(
state: *mut *mut c_void, _env_var: *const c_char, _load_args: *const c_char) -> c_int
    write_out(state, "state", std::ptr::null_mut())
The init function of strategies without state: stores NULL in `*state`. Returns 0, or
-1 (EINVAL) if `state` is NULL.

aeron_idle_strategy_load(
idle_strategy_name: *const c_char, idle_strategy_state: *mut *mut c_void, env_var: *const c_char,
init_args: *const c_char) -> aeron_idle_strategy_func_t
    require_non_null!(idle_strategy_state, "idle_strategy_state");
    let name = c_str_arg(idle_strategy_name, "idle_strategy_name")?;
    let args = optional_c_str_arg(init_args, "init_args")?;
    let (idle, state) = match IdleStrategy::from_name(name, args) {
        Ok(strategy) => built_in(strategy)?,
        Err(err) => match custom(name, env_var, init_args) {
            Some(loaded) => loaded?,
            None => return Err(err),
        },
    };
    idle_strategy_state.write(state);
    Ok(idle)
Resolves the idle strategy `idle_strategy_name`, allocates its state from `init_args`
(NULL for defaults: sleeping 1 us; backoff `10-20-1us-1ms`, i.e.
max spins-max yields-min park-max park) into `*idle_strategy_state`, and returns its idle
function. `env_var` only names the setting in error messages. Returns NULL (EINVAL) for
NULL arguments, an unknown name or malformed init args. Free the state with `aeron_free`.
# Safety
`idle_strategy_name`, `env_var` and `init_args` must be NULL or NUL-terminated;
`idle_strategy_state` NULL or valid for a pointer write.
"#;
