//! The agent runner of `aeron_agent.h`: a caller-owned `aeron_agent_runner_t` that runs a
//! `do_work` function on its own thread, idling between duty cycles, until stopped.
//!
//! Lifecycle: `aeron_agent_init` → `aeron_agent_start` (thread) → `aeron_agent_stop` (joins)
//! → `aeron_agent_close` (frees the role name, calls `on_close`). Instead of starting, the
//! caller may drive it with `aeron_agent_do_work` and `aeron_agent_idle`.

use std::ffi::{c_char, c_int, c_void};
use std::os::unix::thread::JoinHandleExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::concurrent::ForeignShared;
use crate::ffi::util::alloc::c_string_copy;
use crate::ffi::util::idle_strategy::aeron_idle_strategy_func_t;
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null};
use crate::util::agent::{Agent, spawn_agent};
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;

/// Called once on the agent's thread before its first duty cycle, with the state given
/// alongside it and the agent's role name.
#[allow(non_camel_case_types)]
pub type aeron_agent_on_start_func_t =
    Option<unsafe extern "C" fn(state: *mut c_void, role_name: *const c_char)>;

/// One duty cycle: returns the work done (0 = none, so the runner idles).
#[allow(non_camel_case_types)]
pub type aeron_agent_do_work_func_t = Option<unsafe extern "C" fn(state: *mut c_void) -> c_int>;

/// Called by `aeron_agent_close` to release the agent's state.
#[allow(non_camel_case_types)]
pub type aeron_agent_on_close_func_t = Option<unsafe extern "C" fn(state: *mut c_void)>;

/// The platform thread handle.
#[allow(non_camel_case_types)]
pub type aeron_thread_t = libc::pthread_t;

/// Runner states (`aeron_agent_runner_t.state`).
pub const AERON_AGENT_STATE_UNUSED: u8 = 0;
pub const AERON_AGENT_STATE_INITED: u8 = 1;
pub const AERON_AGENT_STATE_STARTED: u8 = 2;
pub const AERON_AGENT_STATE_MANUAL: u8 = 3;
pub const AERON_AGENT_STATE_STOPPING: u8 = 4;
pub const AERON_AGENT_STATE_STOPPED: u8 = 5;

/// An agent and how it runs: Aeron's `struct aeron_agent_runner_stct`, field for field,
/// because callers allocate it (often by value, as Aeron's samples do). Owned by the caller;
/// filled in by `aeron_agent_init`. While started, only `aeron_agent_stop` may touch it.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_agent_runner_stct {
    /// Copy of the name (thread name, `on_start` argument), freed by `aeron_agent_close`.
    pub role_name: *const c_char,
    pub agent_state: *mut c_void,
    pub idle_strategy_state: *mut c_void,
    pub on_start_state: *mut c_void,
    pub on_start: aeron_agent_on_start_func_t,
    pub do_work: aeron_agent_do_work_func_t,
    pub on_close: aeron_agent_on_close_func_t,
    pub idle_strategy: aeron_idle_strategy_func_t,
    pub thread: aeron_thread_t,
    /// Cleared (release) by `aeron_agent_stop`; the agent thread reads it with acquire.
    pub running: bool,
    pub state: u8,
}

/// Aeron's name for the runner (`typedef struct aeron_agent_runner_stct aeron_agent_runner_t`).
#[allow(non_camel_case_types)]
pub type aeron_agent_runner_t = aeron_agent_runner_stct;

// Aeron's layout on the 64-bit targets (LP64): eight pointers, the pthread_t, then the two
// one-byte fields, padded to 80 bytes. c-tests/test_util_headers.c asserts the same in C.
#[cfg(target_pointer_width = "64")]
mod layout {
    use super::aeron_agent_runner_stct as R;
    use std::mem::{align_of, offset_of, size_of};
    static_assertions::const_assert_eq!(offset_of!(R, role_name), 0);
    static_assertions::const_assert_eq!(offset_of!(R, agent_state), 8);
    static_assertions::const_assert_eq!(offset_of!(R, idle_strategy_state), 16);
    static_assertions::const_assert_eq!(offset_of!(R, on_start_state), 24);
    static_assertions::const_assert_eq!(offset_of!(R, on_start), 32);
    static_assertions::const_assert_eq!(offset_of!(R, do_work), 40);
    static_assertions::const_assert_eq!(offset_of!(R, on_close), 48);
    static_assertions::const_assert_eq!(offset_of!(R, idle_strategy), 56);
    static_assertions::const_assert_eq!(offset_of!(R, thread), 64);
    static_assertions::const_assert_eq!(offset_of!(R, running), 72);
    static_assertions::const_assert_eq!(offset_of!(R, state), 73);
    static_assertions::const_assert_eq!(size_of::<R>(), 80);
    static_assertions::const_assert_eq!(align_of::<R>(), 8);
    // `running` is read with AtomicBool::from_ptr, which needs bool's layout.
    static_assertions::assert_eq_size!(bool, std::sync::atomic::AtomicBool);
}

/// What the agent thread needs, copied out of the runner before the thread starts.
#[derive(Clone, Copy)]
struct AgentFunctions {
    role_name: *const c_char,
    agent_state: *mut c_void,
    idle_strategy_state: *mut c_void,
    on_start_state: *mut c_void,
    on_start: aeron_agent_on_start_func_t,
    do_work: unsafe extern "C" fn(*mut c_void) -> c_int,
    idle: unsafe extern "C" fn(*mut c_void, c_int),
}

/// The C agent as a `util::agent::Agent`, run by its duty-cycle loop. The C idle strategy
/// runs at the end of each cycle, so the loop's own strategy is `Noop`.
struct CAgent {
    name: String,
    /// Shared on the agent contract: the functions are callable with their states on the
    /// agent thread; role_name lives until aeron_agent_close, which follows the join.
    c: ForeignShared<AgentFunctions>,
}

impl Agent for CAgent {
    fn on_start(&mut self) -> Result<()> {
        let c = self.c.value();
        if let Some(on_start) = c.on_start {
            // SAFETY: caller-supplied callback and state (agent contract); role_name is the
            // runner's copy, alive until aeron_agent_close.
            unsafe { on_start(c.on_start_state, c.role_name) };
        }
        Ok(())
    }

    fn do_work(&mut self) -> Result<i32> {
        let c = self.c.value();
        // SAFETY: caller-supplied functions and states (agent contract).
        let work = unsafe { (c.do_work)(c.agent_state) };
        // SAFETY: as above.
        unsafe { (c.idle)(c.idle_strategy_state, work) };
        Ok(work)
    }

    fn role_name(&self) -> &str {
        &self.name
    }
}

/// The runner's `running` flag, as the agent thread reads it.
struct RunningFlag(ForeignShared<*const AtomicBool>);

impl AsRef<AtomicBool> for RunningFlag {
    fn as_ref(&self) -> &AtomicBool {
        // SAFETY: made by aeron_agent_start from a live runner, which the caller keeps at
        // its address until aeron_agent_stop has joined the thread holding this flag.
        unsafe { &*self.0.value() }
    }
}

/// The runner's `running` flag as an atomic.
///
/// # Safety
/// `runner` must point to a live runner.
unsafe fn running_flag<'a>(runner: *mut aeron_agent_runner_t) -> &'a AtomicBool {
    // SAFETY: bool and AtomicBool have the same layout; the field lives as long as the runner
    // and is accessed only atomically once the runner is initialised.
    unsafe { AtomicBool::from_ptr(std::ptr::addr_of_mut!((*runner).running)) }
}

/// Prepares `runner` to run `do_work` with `state`, idling with `idle_strategy_func` and
/// `idle_strategy_state`; `on_start` (may be NULL) runs first on the agent thread with
/// `on_start_state`; `on_close` (may be NULL) runs in `aeron_agent_close`. Returns 0, or -1
/// (EINVAL) if `runner`, `role_name`, `do_work` or `idle_strategy_func` is NULL.
///
/// # Safety
/// `runner` must be NULL or valid for writes of an `aeron_agent_runner_t`; `role_name` NULL
/// or NUL-terminated; the functions must be safe to call with their states on another thread.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aeron_agent_init(
    runner: *mut aeron_agent_runner_t,
    role_name: *const c_char,
    state: *mut c_void,
    on_start: aeron_agent_on_start_func_t,
    on_start_state: *mut c_void,
    do_work: aeron_agent_do_work_func_t,
    on_close: aeron_agent_on_close_func_t,
    idle_strategy_func: aeron_idle_strategy_func_t,
    idle_strategy_state: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_agent_init", {
        require_non_null!(runner, "runner");
        if do_work.is_none() {
            return Err(Error::invalid_argument("do_work must not be NULL"));
        }
        if idle_strategy_func.is_none() {
            return Err(Error::invalid_argument("idle_strategy_func must not be NULL"));
        }
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let name = unsafe { c_str_arg(role_name, "role_name") }?;
        let role_name = c_string_copy(name.as_bytes(), "failed to allocate role name")?;
        let initialised = aeron_agent_runner_t {
            role_name,
            agent_state: state,
            idle_strategy_state,
            on_start_state,
            on_start,
            do_work,
            on_close,
            idle_strategy: idle_strategy_func,
            // Overwritten by aeron_agent_start; only joined when the state says STARTED.
            thread: 0,
            running: true,
            state: AERON_AGENT_STATE_INITED,
        };
        // SAFETY: runner is non-null and writable (contract); the write does not read the
        // old (possibly uninitialised) contents.
        unsafe { runner.write(initialised) };
        Ok(0)
    })
}

/// Starts a thread (named after the role) that calls `on_start`, then `do_work` and the
/// idle strategy in a loop until `aeron_agent_stop`. Returns 0, or -1 (EINVAL for a NULL or
/// uninitialised runner, or the thread creation error).
///
/// # Safety
/// `runner` must be NULL or initialised by `aeron_agent_init`, and stay at its address
/// until `aeron_agent_stop` returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_agent_start(runner: *mut aeron_agent_runner_t) -> c_int {
    ffi_boundary!("aeron_agent_start", {
        require_non_null!(runner, "runner");
        let agent = {
            // SAFETY: runner is initialised (contract) and no thread uses it yet; the shared
            // borrow ends before the agent thread starts.
            let r = unsafe { &*runner };
            let (Some(do_work), Some(idle)) = (r.do_work, r.idle_strategy) else {
                return Err(Error::invalid_argument("runner is not initialised (aeron_agent_init)"));
            };
            if r.state != AERON_AGENT_STATE_INITED || r.role_name.is_null() {
                return Err(Error::illegal_state(format!("runner cannot start from state {}", r.state)));
            }
            // SAFETY: role_name is the runner's NUL-terminated copy.
            let name = unsafe { std::ffi::CStr::from_ptr(r.role_name) }.to_string_lossy().into_owned();
            let functions = AgentFunctions {
                role_name: r.role_name,
                agent_state: r.agent_state,
                idle_strategy_state: r.idle_strategy_state,
                on_start_state: r.on_start_state,
                on_start: r.on_start,
                do_work,
                idle,
            };
            // SAFETY: the agent contract (see CAgent::c).
            CAgent { name, c: unsafe { ForeignShared::new(functions) } }
        };
        // SAFETY: runner is live (contract); from here on the flag is only accessed atomically.
        let flag: *const AtomicBool = unsafe { running_flag(runner) };
        // SAFETY: the runner stays at its address until aeron_agent_stop has joined the
        // thread (contract).
        let running = RunningFlag(unsafe { ForeignShared::new(flag) });
        let handle = spawn_agent(Box::new(agent), IdleStrategy::Noop, Arc::new(|_: &Error| {}), running)?;
        // The handle's ownership of the thread passes to the runner: aeron_agent_stop joins it.
        // Fields other than `running` are written through raw places so no reference to the
        // whole runner overlaps the agent thread's atomic reads.
        // SAFETY: runner is live (contract); only this thread writes these fields.
        unsafe { std::ptr::addr_of_mut!((*runner).thread).write(handle.into_pthread_t()) };
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!((*runner).state).write(AERON_AGENT_STATE_STARTED) };
        Ok(0)
    })
}

/// Stops the agent: clears `running` and, if a thread was started, waits for it to finish
/// its current cycle and exit. Returns 0, or -1 (EINVAL for NULL; the join error).
///
/// # Safety
/// `runner` must be NULL or initialised; not called concurrently for the same runner.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_agent_stop(runner: *mut aeron_agent_runner_t) -> c_int {
    ffi_boundary!("aeron_agent_stop", {
        require_non_null!(runner, "runner");
        // SAFETY: runner is live (contract). Release: the agent thread's acquire load sees it.
        unsafe { running_flag(runner) }.store(false, Ordering::Release);
        // SAFETY: state and thread are only touched by the controlling thread (this one).
        let state = unsafe { std::ptr::addr_of!((*runner).state).read() };
        if state == AERON_AGENT_STATE_STARTED {
            // SAFETY: as above.
            unsafe { std::ptr::addr_of_mut!((*runner).state).write(AERON_AGENT_STATE_STOPPING) };
            // SAFETY: as above.
            let thread = unsafe { std::ptr::addr_of!((*runner).thread).read() };
            // SAFETY: thread came from into_pthread_t in aeron_agent_start and is joined once
            // (the state moves on from STARTED before the join).
            let rc = unsafe { libc::pthread_join(thread, std::ptr::null_mut()) };
            if rc != 0 {
                return Err(Error::with_code(rc, "pthread_join of the agent thread failed"));
            }
        }
        if state == AERON_AGENT_STATE_STARTED || state == AERON_AGENT_STATE_MANUAL {
            // SAFETY: as above.
            unsafe { std::ptr::addr_of_mut!((*runner).state).write(AERON_AGENT_STATE_STOPPED) };
        }
        Ok(0)
    })
}

/// Finds an `aeron_agent_on_start_func_t` exported under the symbol `name` in the process.
/// Returns NULL (EINVAL) if `name` is NULL or no such symbol exists.
///
/// # Safety
/// `name` must be NULL or NUL-terminated; a symbol of that name must be a function with the
/// on-start signature.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_agent_on_start_load(name: *const c_char) -> aeron_agent_on_start_func_t {
    ffi_boundary!("aeron_agent_on_start_load", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let text = unsafe { c_str_arg(name, "name") }?;
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only searches loaded objects.
        let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name) };
        if symbol.is_null() {
            return Err(Error::invalid_argument(format!("could not find agent on_start func {text}")));
        }
        // SAFETY: the symbol is a function of this signature (contract); function and data
        // pointers have the same size on the supported platforms.
        Ok(Some(unsafe {
            std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_void, *const c_char)>(symbol)
        }))
    })
}

// The exports, over the helpers above: generated from the table in build/agent_exports.rs.
include!(concat!(env!("OUT_DIR"), "/agent_ffi.rs"));
