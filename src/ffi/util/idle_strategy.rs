//! Idle strategies as C functions (`aeron_agent.h`): each is an `aeron_idle_strategy_func_t`
//! taking the state its loader allocated. `aeron_idle_strategy_load` picks one by Aeron's
//! name (`sleeping`/`sleep-ns`, `yield`, `spin`, `noop`, `backoff`, or the upstream symbol
//! names such as `aeron_idle_strategy_backoff`), or, like Aeron, looks up an
//! `aeron_idle_strategy_t` object of that symbol name in the process for a custom one.
//!
//! States are allocated with the C allocator: free them with `aeron_free`.

use std::ffi::{c_char, c_int, c_void};
use std::time::Duration;

use crate::ffi::util::alloc::c_box;
use crate::ffi::{c_str_arg, ffi_boundary, optional_c_str_arg, require_non_null, write_out};
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::{Backoff, IdleStrategy};

/// Idles according to `state` after a duty cycle that did `work_count` units of work.
#[allow(non_camel_case_types)]
pub type aeron_idle_strategy_func_t = Option<unsafe extern "C" fn(state: *mut c_void, work_count: c_int)>;

/// Allocates an idle strategy's state from its init args (NULL for defaults); `env_var`
/// names the setting for error messages. Returns 0 or -1.
#[allow(non_camel_case_types)]
pub type aeron_idle_strategy_init_func_t = Option<
    unsafe extern "C" fn(state: *mut *mut c_void, env_var: *const c_char, init_args: *const c_char) -> c_int,
>;

/// An idle strategy as a pair of functions (Aeron's `struct aeron_idle_strategy_stct`), the
/// shape of the objects `aeron_idle_strategy_load` finds by symbol name for custom strategies.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_idle_strategy_stct {
    pub idle: aeron_idle_strategy_func_t,
    pub init: aeron_idle_strategy_init_func_t,
}

/// Aeron's name for it (`typedef struct aeron_idle_strategy_stct aeron_idle_strategy_t`).
#[allow(non_camel_case_types)]
pub type aeron_idle_strategy_t = aeron_idle_strategy_stct;

// Two function pointers, as Aeron's; c-tests/test_util_headers.c asserts the same in C.
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_idle_strategy_stct, idle), 0);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_idle_strategy_stct, init),
    std::mem::size_of::<usize>()
);
static_assertions::const_assert_eq!(
    std::mem::size_of::<aeron_idle_strategy_stct>(),
    2 * std::mem::size_of::<usize>()
);

/// Backoff default: busy spins before yielding.
pub const AERON_IDLE_STRATEGY_BACKOFF_MAX_SPINS: u64 = 10;
/// Backoff default: yields before parking.
pub const AERON_IDLE_STRATEGY_BACKOFF_MAX_YIELDS: u64 = 20;
/// Backoff default: first park period (ns), doubled on each idle up to the max.
pub const AERON_IDLE_STRATEGY_BACKOFF_MIN_PARK_PERIOD_NS: u64 = 1_000;
/// Backoff default: longest park period (ns).
pub const AERON_IDLE_STRATEGY_BACKOFF_MAX_PARK_PERIOD_NS: u64 = 1_000_000;

static_assertions::const_assert_eq!(
    AERON_IDLE_STRATEGY_BACKOFF_MAX_SPINS,
    crate::util::idle_strategy::DEFAULT_MAX_SPINS
);
static_assertions::const_assert_eq!(
    AERON_IDLE_STRATEGY_BACKOFF_MAX_YIELDS,
    crate::util::idle_strategy::DEFAULT_MAX_YIELDS
);
static_assertions::const_assert_eq!(
    AERON_IDLE_STRATEGY_BACKOFF_MIN_PARK_PERIOD_NS,
    crate::util::idle_strategy::DEFAULT_MIN_PARK_NS
);
static_assertions::const_assert_eq!(
    AERON_IDLE_STRATEGY_BACKOFF_MAX_PARK_PERIOD_NS,
    crate::util::idle_strategy::DEFAULT_MAX_PARK_NS
);

/// Yields the processor (`sched_yield`) when `work_count` is 0. `state` is unused.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_idle_strategy_yielding_idle(_state: *mut c_void, work_count: c_int) {
    if work_count <= 0 {
        std::thread::yield_now();
    }
}

/// Spins once with the CPU's pause hint when `work_count` is 0. `state` is unused.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_idle_strategy_busy_spinning_idle(_state: *mut c_void, work_count: c_int) {
    if work_count <= 0 {
        std::hint::spin_loop();
    }
}

/// Does nothing: the caller's loop spins at full speed. `state` is unused.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_idle_strategy_noop_idle(_state: *mut c_void, _work_count: c_int) {}

/// The idle function and a new state for a built-in strategy.
fn built_in(strategy: IdleStrategy) -> Result<(aeron_idle_strategy_func_t, *mut c_void)> {
    Ok(match strategy {
        IdleStrategy::Noop => (Some(aeron_idle_strategy_noop_idle), std::ptr::null_mut()),
        IdleStrategy::BusySpin => (Some(aeron_idle_strategy_busy_spinning_idle), std::ptr::null_mut()),
        IdleStrategy::Yield => (Some(aeron_idle_strategy_yielding_idle), std::ptr::null_mut()),
        IdleStrategy::Sleep(period) => {
            let ns = u64::try_from(period.as_nanos()).unwrap_or(u64::MAX);
            (Some(aeron_idle_strategy_sleeping_idle), c_box(ns, "idle strategy state")?)
        }
        IdleStrategy::Backoff(backoff) => (
            Some(aeron_idle_strategy_backoff_idle),
            c_box(IdleStrategy::Backoff(backoff), "idle strategy state")?,
        ),
    })
}

/// Looks up a custom strategy: an `aeron_idle_strategy_t` object exported under `name`.
///
/// # Safety
/// A symbol of that name, if any, must be an `aeron_idle_strategy_t` (Aeron's contract for
/// custom strategies); `env_var` and `init_args` NULL or NUL-terminated.
unsafe fn custom(
    name: &str,
    env_var: *const c_char,
    init_args: *const c_char,
) -> Option<Result<(aeron_idle_strategy_func_t, *mut c_void)>> {
    let symbol = std::ffi::CString::new(name).ok()?;
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only searches loaded objects.
    let object = unsafe { libc::dlsym(libc::RTLD_DEFAULT, symbol.as_ptr()) };
    if object.is_null() {
        return None;
    }
    // SAFETY: the symbol is an aeron_idle_strategy_t (contract), alive as long as its object.
    let strategy = unsafe { &*object.cast::<aeron_idle_strategy_t>() };
    let (Some(idle), Some(init)) = (strategy.idle, strategy.init) else {
        return Some(Err(Error::invalid_argument(format!("idle strategy object {name} has NULL functions"))));
    };
    let mut state = std::ptr::null_mut();
    // SAFETY: a custom init function with Aeron's signature; every pointer is valid.
    if unsafe { init(&mut state, env_var, init_args) } < 0 {
        return Some(Err(Error::invalid_argument(format!("idle strategy {name}: init failed"))));
    }
    Some(Ok((Some(idle), state)))
}

// The exports, over the helpers above: generated from the table in build/util_idle_strategy_exports.rs.
include!(concat!(env!("OUT_DIR"), "/util_idle_strategy_ffi.rs"));
