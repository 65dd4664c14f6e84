//! How the driver's agents run, beyond the threading mode: each agent's idle strategy as
//! it was named (`AERON_<AGENT>_IDLE_STRATEGY` + `_INIT_ARGS`), CPU affinities, duty cycle
//! thresholds, the async executor, and a hook run on each agent thread as it starts.
//! Every setting reads Aeron's environment variable with Aeron's default.
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

use crate::concurrent::error_log::DistinctErrorLog;
use crate::driver::context::DriverContext;
use crate::driver::duty_cycle_tracker::SuppliedDutyCycleTracker;
use crate::util::agent::Agent;
use crate::util::clock::epoch_ms;
use crate::util::config::{check_range, env, env_or, parse_duration_ns};
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;
use crate::util::settings::{Setting, SettingsTable};

/// The driver agents that have their own idle strategy setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverAgent {
    Conductor,
    Sender,
    Receiver,
    /// Sender and receiver together (`SHARED_NETWORK`).
    SharedNetwork,
    /// All three together (`SHARED`, `INVOKER`).
    Shared,
}

impl DriverAgent {
    pub const ALL: [Self; 5] =
        [Self::Conductor, Self::Sender, Self::Receiver, Self::SharedNetwork, Self::Shared];

    /// The variable naming this agent's idle strategy; `<it>_INIT_ARGS` holds its arguments.
    pub fn idle_strategy_env_var(self) -> &'static str {
        match self {
            Self::Conductor => "AERON_CONDUCTOR_IDLE_STRATEGY",
            Self::Sender => "AERON_SENDER_IDLE_STRATEGY",
            Self::Receiver => "AERON_RECEIVER_IDLE_STRATEGY",
            Self::SharedNetwork => "AERON_SHAREDNETWORK_IDLE_STRATEGY",
            Self::Shared => "AERON_SHARED_IDLE_STRATEGY",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// An idle strategy as configured: the name and init args it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleStrategySpec {
    pub name: String,
    pub init_args: Option<String>,
}

/// Aeron's default idle strategy name.
pub const DEFAULT_IDLE_STRATEGY_NAME: &str = "backoff";

/// Runs on each agent thread before its first duty cycle, with the agent's role name.
#[derive(Clone)]
pub struct AgentOnStart(pub Arc<dyn Fn(&str) + Send + Sync>);

impl fmt::Debug for AgentOnStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AgentOnStart")
    }
}

/// The role names of the driver's agents, as Aeron C's driver names them (what an on-start
/// hook such as `aeron_set_thread_affinity_on_start` sees, and the threads' names).
pub mod role {
    pub const CONDUCTOR: &str = "conductor";
    pub const SENDER: &str = "sender";
    pub const RECEIVER: &str = "receiver";
    /// `SHARED_NETWORK`: sender and receiver on one thread.
    pub const SENDER_RECEIVER: &str = "[sender, receiver]";
    /// `SHARED` and `INVOKER`: all three together.
    pub const ALL: &str = "[conductor, sender, receiver]";
}

/// What a driver agent thread does as it starts, before the agent's own `on_start`.
#[derive(Clone, Default)]
pub struct ThreadStart {
    pub hook: Option<AgentOnStart>,
    /// 0: leave the thread's scheduler slice as it is.
    pub slice_ns: u64,
    /// The CPU to pin the thread to (`AERON_*_CPU_AFFINITY` for its role).
    pub cpu: Option<usize>,
    /// Where a failure to pin is recorded as a warning (the agent runs on regardless).
    pub error_log: Option<Arc<DistinctErrorLog>>,
}

/// An agent whose thread first asks for a scheduler time slice, pins itself to its CPU and
/// runs the context's on-start hook, when given.
struct OnStartOfThread {
    agent: Box<dyn Agent>,
    start: ThreadStart,
}

impl OnStartOfThread {
    /// As Aeron's affinity on-start function: a CPU that cannot be used is a warning in the
    /// error log, not a reason to stop the driver.
    fn pin(&self, cpu: usize) {
        let Err(e) = crate::util::sys::set_current_thread_affinity(cpu) else { return };
        let role = self.agent.role_name();
        let warning = Error::io(&e, format_args!("WARNING: unable to apply affinity {cpu} to {role}"));
        match &self.start.error_log {
            Some(log) if log.record(epoch_ms(), warning.code(), &warning.to_string()).is_ok() => {}
            _ => eprintln!("{warning}"),
        }
    }
}

impl Agent for OnStartOfThread {
    fn on_start(&mut self) -> Result<()> {
        if self.start.slice_ns > 0 {
            // A hint: kernels without custom slices (before 6.12) ignore or refuse it, and
            // the agent works the same, only with the scheduler's usual slices.
            let _ = crate::util::sys::set_current_thread_time_slice(self.start.slice_ns);
        }
        if let Some(cpu) = self.start.cpu {
            self.pin(cpu);
        }
        if let Some(hook) = &self.start.hook {
            (hook.0)(self.agent.role_name());
        }
        self.agent.on_start()
    }

    fn do_work(&mut self) -> Result<i32> {
        self.agent.do_work()
    }

    fn on_close(&mut self) {
        self.agent.on_close()
    }

    fn role_name(&self) -> &str {
        self.agent.role_name()
    }

    fn park(&mut self, period: std::time::Duration) {
        self.agent.park(period)
    }

    fn parks_on_input(&self) -> bool {
        self.agent.parks_on_input()
    }
}

/// `agent`, made to do `start` on its thread before its own `on_start`. A slice and a CPU
/// only for agents on the driver's own threads, never the caller's (INVOKER).
pub fn on_thread_start(agent: Box<dyn Agent>, start: ThreadStart) -> Box<dyn Agent> {
    if start.hook.is_none() && start.slice_ns == 0 && start.cpu.is_none() {
        return agent;
    }
    Box::new(OnStartOfThread { agent, start })
}

/// Shortest and longest time slice Linux accepts (`sched_setattr` clamps to this range).
pub const MIN_AGENT_TIME_SLICE_NS: u64 = 100_000;
pub const MAX_AGENT_TIME_SLICE_NS: u64 = 100_000_000;
/// Default slice of the driver's agent threads: the shortest. A parked agent that wakes
/// with a shorter slice than the thread on its CPU may preempt it at once (EEVDF), so with
/// busy-spinning applications on every CPU the driver still gets to run within
/// microseconds, not at the end of a spinner's multi-millisecond slice.
pub const DEFAULT_AGENT_TIME_SLICE_NS: u64 = MIN_AGENT_TIME_SLICE_NS;

crate::settings_table! {
    /// Agent settings of the driver context (`DriverContext::agents`), one row each.
    #[derive(Debug, Clone)]
    pub struct AgentConfig {
        /// Indexed by `DriverAgent`; kept in step with the context's `IdleStrategy` fields.
        idle_strategy_specs: [IdleStrategySpec; 5] = default_idle_strategy_specs(); custom;
        /// the CPU the conductor thread is pinned to by `aeron_set_thread_affinity_on_start`; -1 for none (default -1)
        pub conductor_cpu_affinity: i32 = -1; int env "AERON_CONDUCTOR_CPU_AFFINITY" in [-1, 255], c(aeron, conductor_cpu_affinity, i32);
        /// the CPU the sender thread is pinned to; -1 for none (default -1)
        pub sender_cpu_affinity: i32 = -1; int env "AERON_SENDER_CPU_AFFINITY" in [-1, 255], c(aeron, sender_cpu_affinity, i32);
        /// the CPU the receiver thread is pinned to; -1 for none (default -1)
        pub receiver_cpu_affinity: i32 = -1; int env "AERON_RECEIVER_CPU_AFFINITY" in [-1, 255], c(aeron, receiver_cpu_affinity, i32);
        /// threads for the conductor's slow tasks, 0 or 1 (default 1)
        pub async_executor_threads: u32 = 1; int env "AERON_DRIVER_ASYNC_EXECUTOR_THREADS" in [0, 1], c(aeron, async_executor_threads, u32);
        /// the CPU of the async executor thread; -1 for none (default -1)
        pub async_executor_cpu_affinity: i32 = -1; int env "AERON_DRIVER_ASYNC_EXECUTOR_CPU_AFFINITY" in [-1, 255], c(aeron, async_executor_cpu_affinity, i32);
        /// the sender duty cycle time above which a cycle is counted as exceeding, in ns (default 1 s)
        pub sender_cycle_threshold_ns: u64 = SECOND_NS; duration env "AERON_DRIVER_SENDER_CYCLE_THRESHOLD" in [0, HOUR_NS], c(aeron, sender_cycle_threshold_ns, u64 -> i64, ret i64);
        /// the scheduler time slice the driver's agent threads ask for (Linux 6.12+; aeronrs
        /// only): 0 leaves the system's, else 100 us to 100 ms (default 100 us)
        pub agent_time_slice_ns: u64 = DEFAULT_AGENT_TIME_SLICE_NS; custom env "AERONRS_DRIVER_AGENT_TIME_SLICE";
        /// the receiver duty cycle time above which a cycle is counted as exceeding, in ns (default 1 s)
        pub receiver_cycle_threshold_ns: u64 = SECOND_NS; duration env "AERON_DRIVER_RECEIVER_CYCLE_THRESHOLD" in [0, HOUR_NS], c(aeron, receiver_cycle_threshold_ns, u64 -> i64, ret i64);
        /// the name resolution time above which a resolution is counted as exceeding, in ns (default 5 s)
        pub name_resolver_threshold_ns: u64 = 5 * SECOND_NS; duration env "AERON_DRIVER_NAME_RESOLVER_THRESHOLD" in [0, HOUR_NS], c(aeron, name_resolver_threshold_ns, u64 -> i64, ret i64);
        /// Set in code only (Aeron's `AERON_AGENT_ON_START_FUNCTION` names a C symbol).
        pub on_start: Option<AgentOnStart> = None; code;
        /// Trackers supplied in code (`aeron_driver_context_set_*_duty_cycle_tracker`,
        /// `..._set_name_resolver_time_tracker`), replacing the built-in ones.
        pub conductor_duty_cycle_tracker: Option<SuppliedDutyCycleTracker> = None; code;
        pub sender_duty_cycle_tracker: Option<SuppliedDutyCycleTracker> = None; code;
        pub receiver_duty_cycle_tracker: Option<SuppliedDutyCycleTracker> = None; code;
        pub name_resolver_time_tracker: Option<SuppliedDutyCycleTracker> = None; code;
    }
}

/// What a duty-cycle tracker supplied in code times: an agent's duty cycles, or the name
/// resolver's lookups and resolutions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackedAgent {
    Conductor,
    Sender,
    Receiver,
    NameResolver,
}

const SECOND_NS: u64 = 1_000_000_000;
const HOUR_NS: u64 = 3600 * SECOND_NS;

fn default_idle_strategy_specs() -> [IdleStrategySpec; 5] {
    let spec = || IdleStrategySpec { name: DEFAULT_IDLE_STRATEGY_NAME.to_string(), init_args: None };
    [spec(), spec(), spec(), spec(), spec()]
}

impl AgentConfig {
    /// The CPU an agent thread with `role_name` is pinned to, as Aeron's affinity on-start
    /// function chooses it: the conductor's for the conductor and the all-in-one agent, the
    /// sender's for the sender and the sender-receiver pair, the receiver's for the receiver.
    pub fn cpu_affinity_for_role(&self, role_name: &str) -> Option<usize> {
        let cpu = match role_name {
            role::CONDUCTOR | role::ALL => self.conductor_cpu_affinity,
            role::SENDER | role::SENDER_RECEIVER => self.sender_cpu_affinity,
            role::RECEIVER => self.receiver_cpu_affinity,
            _ => -1,
        };
        usize::try_from(cpu).ok()
    }

    /// Pins the calling thread, an agent thread with `role_name`, to the CPU
    /// [`Self::cpu_affinity_for_role`] names (none: the thread is left alone). A failure is
    /// also reported on stderr, as a warning: the thread runs on.
    pub fn apply_cpu_affinity(&self, role_name: &str) -> Result<()> {
        let Some(cpu) = self.cpu_affinity_for_role(role_name) else { return Ok(()) };
        crate::util::sys::set_current_thread_affinity(cpu).map_err(|e| {
            let err = Error::io(&e, format_args!("WARNING: unable to apply affinity {cpu} to {role_name}"));
            eprintln!("{err}");
            err
        })
    }

    /// Where the tracker supplied in code for `agent` is kept (None: the built-in one).
    pub fn supplied_tracker(&mut self, agent: TrackedAgent) -> &mut Option<SuppliedDutyCycleTracker> {
        match agent {
            TrackedAgent::Conductor => &mut self.conductor_duty_cycle_tracker,
            TrackedAgent::Sender => &mut self.sender_duty_cycle_tracker,
            TrackedAgent::Receiver => &mut self.receiver_duty_cycle_tracker,
            TrackedAgent::NameResolver => &mut self.name_resolver_time_tracker,
        }
    }

    /// Defaults overridden by the environment. The idle strategies themselves are parsed
    /// by `DriverContext::from_env` from the same variables.
    pub fn from_env() -> Result<Self> {
        <Self as SettingsTable>::from_env()
    }
}

impl SettingsTable for AgentConfig {
    fn from_env() -> Result<Self> {
        let mut config = Self::load_rows(env)?;
        for agent in DriverAgent::ALL {
            let var = agent.idle_strategy_env_var();
            let spec = &mut config.idle_strategy_specs[agent.index()];
            if let Some(name) = env(var) {
                spec.name = name;
            }
            spec.init_args = env(&format!("{var}_INIT_ARGS"));
        }
        config.agent_time_slice_ns = agent_time_slice(config.agent_time_slice_ns)?;
        config.check_row_ranges()?;
        Ok(config)
    }

    fn settings() -> Vec<Setting> {
        Self::settings()
    }

    fn check_ranges(&self) -> Result<()> {
        self.check_row_ranges()
    }
}

/// `AERONRS_DRIVER_AGENT_TIME_SLICE`: 0, or a duration Linux accepts as a slice.
fn agent_time_slice(default: u64) -> Result<u64> {
    const NAME: &str = "AERONRS_DRIVER_AGENT_TIME_SLICE";
    let slice = env_or(NAME, default, parse_duration_ns)?;
    if slice == 0 {
        return Ok(0);
    }
    check_range(NAME, slice, MIN_AGENT_TIME_SLICE_NS, MAX_AGENT_TIME_SLICE_NS)
}

impl DriverContext {
    /// The idle strategy `agent` uses.
    pub fn idle_strategy(&self, agent: DriverAgent) -> &IdleStrategy {
        match agent {
            DriverAgent::Conductor => &self.conductor_idle_strategy,
            DriverAgent::Sender => &self.sender_idle_strategy,
            DriverAgent::Receiver => &self.receiver_idle_strategy,
            DriverAgent::SharedNetwork => &self.shared_network_idle_strategy,
            DriverAgent::Shared => &self.shared_idle_strategy,
        }
    }

    pub(crate) fn idle_strategy_mut(&mut self, agent: DriverAgent) -> &mut IdleStrategy {
        match agent {
            DriverAgent::Conductor => &mut self.conductor_idle_strategy,
            DriverAgent::Sender => &mut self.sender_idle_strategy,
            DriverAgent::Receiver => &mut self.receiver_idle_strategy,
            DriverAgent::SharedNetwork => &mut self.shared_network_idle_strategy,
            DriverAgent::Shared => &mut self.shared_idle_strategy,
        }
    }

    /// The name and init args `agent`'s idle strategy was configured with.
    pub fn idle_strategy_spec(&self, agent: DriverAgent) -> &IdleStrategySpec {
        &self.agents.idle_strategy_specs[agent.index()]
    }

    /// Selects `agent`'s idle strategy by name (`backoff`, `sleep-ns`, `yield`, `spin`,
    /// `noop`, or an Agrona class name) with the init args set for it. Unknown names or
    /// init args that do not suit the strategy are errors and change nothing.
    pub fn set_idle_strategy(&mut self, agent: DriverAgent, name: &str) -> Result<()> {
        let spec = &self.agents.idle_strategy_specs[agent.index()];
        let strategy = IdleStrategy::from_name(name, spec.init_args.as_deref())
            .map_err(|e| e.context(agent.idle_strategy_env_var()))?;
        *self.idle_strategy_mut(agent) = strategy;
        self.agents.idle_strategy_specs[agent.index()].name = name.to_string();
        Ok(())
    }

    /// Sets the init args for `agent`'s idle strategy. As in Aeron they take effect when
    /// the strategy is next selected with [`set_idle_strategy`](Self::set_idle_strategy).
    pub fn set_idle_strategy_init_args(&mut self, agent: DriverAgent, init_args: Option<&str>) {
        self.agents.idle_strategy_specs[agent.index()].init_args = init_args.map(str::to_string);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_strategies_are_selected_by_name_with_their_init_args() {
        let mut ctx = DriverContext::default();
        assert_eq!(ctx.idle_strategy_spec(DriverAgent::Sender).name, "backoff");
        ctx.set_idle_strategy_init_args(DriverAgent::Sender, Some("250us"));
        assert_eq!(ctx.sender_idle_strategy, IdleStrategy::default(), "args alone change nothing");
        ctx.set_idle_strategy(DriverAgent::Sender, "sleep-ns").unwrap();
        assert_eq!(ctx.sender_idle_strategy, IdleStrategy::Sleep(std::time::Duration::from_micros(250)));
        let spec = ctx.idle_strategy_spec(DriverAgent::Sender);
        assert_eq!((spec.name.as_str(), spec.init_args.as_deref()), ("sleep-ns", Some("250us")));
        let err = ctx.set_idle_strategy(DriverAgent::Shared, "fastest").unwrap_err();
        assert!(err.message().contains("AERON_SHARED_IDLE_STRATEGY"), "{err}");
        assert_eq!(ctx.idle_strategy_spec(DriverAgent::Shared).name, "backoff");
        ctx.set_idle_strategy(DriverAgent::Shared, "yield").unwrap();
        assert_eq!(ctx.idle_strategy(DriverAgent::Shared), &IdleStrategy::Yield);
        assert_eq!(ctx.idle_strategy(DriverAgent::Conductor), &IdleStrategy::default());
    }

    #[test]
    fn agent_time_slice_is_zero_or_a_slice_linux_accepts() {
        use crate::util::config::set_override;
        const NAME: &str = "AERONRS_DRIVER_AGENT_TIME_SLICE";
        assert_eq!(AgentConfig::default().agent_time_slice_ns, 100_000);
        set_override(NAME, "250us");
        assert_eq!(AgentConfig::from_env().unwrap().agent_time_slice_ns, 250_000);
        set_override(NAME, "0");
        assert_eq!(AgentConfig::from_env().unwrap().agent_time_slice_ns, 0);
        set_override(NAME, "10us");
        let err = AgentConfig::from_env().unwrap_err();
        assert!(err.message().contains(NAME), "{err}");
        set_override(NAME, "");
        assert_eq!(AgentConfig::from_env().unwrap().agent_time_slice_ns, DEFAULT_AGENT_TIME_SLICE_NS);
    }

    #[test]
    fn each_role_is_pinned_to_its_cpu_as_aeron_chooses() {
        let a = AgentConfig {
            conductor_cpu_affinity: 0,
            sender_cpu_affinity: 1,
            receiver_cpu_affinity: 2,
            ..AgentConfig::default()
        };
        let cpus: Vec<_> =
            [role::CONDUCTOR, role::ALL, role::SENDER, role::SENDER_RECEIVER, role::RECEIVER, "x"]
                .iter()
                .map(|r| a.cpu_affinity_for_role(r))
                .collect();
        assert_eq!(cpus, [Some(0), Some(0), Some(1), Some(1), Some(2), None]);
        assert_eq!(AgentConfig::default().cpu_affinity_for_role(role::CONDUCTOR), None, "-1: not pinned");
    }

    #[test]
    fn defaults_match_aeron() {
        let a = AgentConfig::default();
        assert_eq!((a.conductor_cpu_affinity, a.sender_cpu_affinity, a.receiver_cpu_affinity), (-1, -1, -1));
        assert_eq!((a.async_executor_threads, a.async_executor_cpu_affinity), (1, -1));
        assert_eq!(a.name_resolver_threshold_ns, 5_000_000_000);
        assert_eq!(a.sender_cycle_threshold_ns, 1_000_000_000);
    }

    #[test]
    fn on_start_hook_runs_before_the_agent_with_its_role() {
        struct Named(Arc<std::sync::Mutex<Vec<String>>>);
        impl Agent for Named {
            fn on_start(&mut self) -> Result<()> {
                self.0.lock().unwrap().push("agent".into());
                Ok(())
            }
            fn do_work(&mut self) -> Result<i32> {
                Ok(7)
            }
            fn role_name(&self) -> &str {
                role::CONDUCTOR
            }
        }
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&log);
        let hook =
            AgentOnStart(Arc::new(move |role: &str| seen.lock().unwrap().push(format!("hook {role}"))));
        let start = ThreadStart { hook: Some(hook), ..ThreadStart::default() };
        let mut agent = on_thread_start(Box::new(Named(Arc::clone(&log))), start);
        agent.on_start().unwrap();
        assert_eq!(agent.do_work().unwrap(), 7);
        assert_eq!(*log.lock().unwrap(), ["hook conductor", "agent"]);
        assert_eq!(on_thread_start(Box::new(Named(log)), ThreadStart::default()).role_name(), "conductor");
    }
}
