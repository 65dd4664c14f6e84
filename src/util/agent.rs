//! Agents (duty-cycle workers) and the ways to run them: on a dedicated thread
//! (`AgentRunner`), or driven by the caller (`AgentInvoker`). The driver's conductor,
//! sender and receiver and the client conductor are agents.
#![forbid(unsafe_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;

/// A unit of work run in a loop.
pub trait Agent: Send {
    /// Called once on the agent's thread before the first duty cycle.
    fn on_start(&mut self) -> Result<()> {
        Ok(())
    }

    /// One duty cycle; returns the amount of work done (0 = idle). An `Err` is reported
    /// to the error handler and the loop goes on: an agent that must stop says so through
    /// its own state (e.g. the driver's termination flag), not through the error.
    fn do_work(&mut self) -> Result<i32>;

    /// Called once on the agent's thread after the last duty cycle.
    fn on_close(&mut self) {}

    /// Name used for the thread and in error reports.
    fn role_name(&self) -> &str;

    /// Waits up to `period` when the idle strategy parks. An agent that can wait for its
    /// input (the receiver, on its sockets) waits on that instead, so it wakes as soon as
    /// there is work rather than when the period ends.
    fn park(&mut self, period: Duration) {
        std::thread::park_timeout(period);
    }

    /// Whether [`park`](Self::park) waits on the agent's input, not just for the period.
    fn parks_on_input(&self) -> bool {
        false
    }
}

/// Several agents run as one (`SHARED` / `SHARED_NETWORK` threading modes).
pub struct CompositeAgent {
    name: String,
    agents: Vec<Box<dyn Agent>>,
}

impl CompositeAgent {
    pub fn new(agents: Vec<Box<dyn Agent>>) -> Self {
        let name = format!("[{}]", agents.iter().map(|a| a.role_name()).collect::<Vec<_>>().join(","));
        Self { name, agents }
    }

    /// The agents run in the given order under a role name of the caller's choosing (the
    /// driver names its composites as Aeron's does, whatever order they run in).
    pub fn named(name: &str, agents: Vec<Box<dyn Agent>>) -> Self {
        Self { name: name.to_string(), agents }
    }
}

impl Agent for CompositeAgent {
    fn on_start(&mut self) -> Result<()> {
        self.agents.iter_mut().try_for_each(|a| a.on_start())
    }

    fn do_work(&mut self) -> Result<i32> {
        let mut work = 0;
        for agent in &mut self.agents {
            work += agent.do_work()?;
        }
        Ok(work)
    }

    fn on_close(&mut self) {
        self.agents.iter_mut().for_each(|a| a.on_close());
    }

    /// Parks on the input of the first agent that can (one thread cannot wait on two).
    fn park(&mut self, period: Duration) {
        match self.agents.iter_mut().find(|a| a.parks_on_input()) {
            Some(agent) => agent.park(period),
            None => std::thread::park_timeout(period),
        }
    }

    fn parks_on_input(&self) -> bool {
        self.agents.iter().any(|a| a.parks_on_input())
    }

    fn role_name(&self) -> &str {
        &self.name
    }
}

/// Receives errors from agent duty cycles.
pub type ErrorHandler = Arc<dyn Fn(&Error) + Send + Sync>;

/// Runs an agent on its own thread until `close`.
pub struct AgentRunner {
    running: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    name: String,
}

impl AgentRunner {
    /// Starts `agent` on a new thread named after it.
    pub fn start(agent: Box<dyn Agent>, idle: IdleStrategy, on_error: ErrorHandler) -> Result<Self> {
        let running = Arc::new(AtomicBool::new(true));
        let name = agent.role_name().to_string();
        let thread = spawn_agent(agent, idle, on_error, Arc::clone(&running))?;
        Ok(Self { running, thread: Some(thread), name })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// Asks the agent to stop and joins its thread (waking it if parked).
    pub fn close(&mut self) {
        self.running.store(false, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Drop for AgentRunner {
    fn drop(&mut self) {
        self.close();
    }
}

/// Starts `agent` on a new thread named after it, running its duty cycles until `running`
/// reads false: the loop of every runner. [`AgentRunner`] owns its flag; the C API's
/// runner keeps it in the caller's struct and joins the returned thread itself. An agent
/// whose `on_start` fails clears the flag, reports the error and closes without a cycle.
pub fn spawn_agent<F: AsRef<AtomicBool> + Send + 'static>(
    mut agent: Box<dyn Agent>,
    mut idle: IdleStrategy,
    on_error: ErrorHandler,
    running: F,
) -> Result<JoinHandle<()>> {
    let name = agent.role_name().to_string();
    std::thread::Builder::new()
        .name(name.chars().take(15).collect())
        .spawn(move || {
            let flag = running.as_ref();
            if let Err(e) = agent.on_start() {
                // Release: before the handler runs, so whoever it notifies sees the
                // runner as stopped (it will never run a duty cycle).
                flag.store(false, Ordering::Release);
                on_error(&e);
                agent.on_close();
                return;
            }
            // Acquire pairs with the Release of whoever stops the runner: false means stop.
            while flag.load(Ordering::Acquire) {
                match agent.do_work() {
                    Ok(work) => idle.idle_with(work, |period| agent.park(period)),
                    Err(e) => {
                        on_error(&e);
                        idle.idle_with(0, |period| agent.park(period));
                    }
                }
            }
            agent.on_close();
        })
        .map_err(|e| Error::io(&e, format_args!("spawn agent thread {name}")))
}

/// Drives an agent from the caller's thread (`INVOKER` mode, `aeron_main_do_work`).
pub struct AgentInvoker {
    agent: Box<dyn Agent>,
    started: bool,
    closed: bool,
}

impl AgentInvoker {
    pub fn new(agent: Box<dyn Agent>) -> Self {
        Self { agent, started: false, closed: false }
    }

    /// Runs `on_start` once.
    pub fn start(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            self.agent.on_start()?;
        }
        Ok(())
    }

    /// One duty cycle (starting the agent first if needed); 0 once closed.
    pub fn invoke(&mut self) -> Result<i32> {
        if self.closed {
            return Ok(0);
        }
        self.start()?;
        self.agent.do_work()
    }

    pub fn close(&mut self) {
        if self.started && !self.closed {
            self.agent.on_close();
        }
        self.closed = true;
    }

    pub fn agent_mut(&mut self) -> &mut dyn Agent {
        self.agent.as_mut()
    }
}

impl Drop for AgentInvoker {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicI64;

    struct Counting {
        name: &'static str,
        count: Arc<AtomicI64>,
        closed: Arc<AtomicBool>,
        fail_every: i64,
    }

    impl Agent for Counting {
        fn do_work(&mut self) -> Result<i32> {
            let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            if self.fail_every > 0 && n % self.fail_every == 0 {
                return Err(Error::illegal_state("planned failure"));
            }
            Ok(1)
        }
        fn on_close(&mut self) {
            self.closed.store(true, Ordering::Relaxed);
        }
        fn role_name(&self) -> &str {
            self.name
        }
    }

    #[test]
    fn runner_runs_until_closed_and_reports_errors() {
        let count = Arc::new(AtomicI64::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let errors = Arc::new(AtomicI64::new(0));
        let e2 = Arc::clone(&errors);
        let agent = Counting {
            name: "counter",
            count: Arc::clone(&count),
            closed: Arc::clone(&closed),
            fail_every: 100,
        };
        let mut runner = AgentRunner::start(
            Box::new(agent),
            IdleStrategy::Sleep(std::time::Duration::from_micros(10)),
            Arc::new(move |_| {
                e2.fetch_add(1, Ordering::Relaxed);
            }),
        )
        .unwrap();
        while count.load(Ordering::Relaxed) < 1000 {
            std::thread::yield_now();
        }
        runner.close();
        assert!(closed.load(Ordering::Relaxed));
        assert!(errors.load(Ordering::Relaxed) >= 10);
        assert!(!runner.is_running());
    }

    struct FailsToStart;

    impl Agent for FailsToStart {
        fn on_start(&mut self) -> Result<()> {
            Err(Error::illegal_state("cannot start"))
        }
        fn do_work(&mut self) -> Result<i32> {
            unreachable!("an agent that failed to start runs no duty cycle")
        }
        fn role_name(&self) -> &str {
            "fails"
        }
    }

    #[test]
    fn runner_whose_agent_fails_to_start_is_not_running() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut runner = AgentRunner::start(
            Box::new(FailsToStart),
            IdleStrategy::Sleep(std::time::Duration::from_micros(10)),
            Arc::new(move |e: &Error| tx.send(e.message().to_string()).unwrap()),
        )
        .unwrap();
        let message = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        assert!(message.contains("cannot start"), "{message}");
        assert!(!runner.is_running());
        runner.close();
    }

    #[test]
    fn invoker_and_composite() {
        let count = Arc::new(AtomicI64::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let mk = |name| {
            Box::new(Counting { name, count: Arc::clone(&count), closed: Arc::clone(&closed), fail_every: 0 })
                as Box<dyn Agent>
        };
        let composite = CompositeAgent::new(vec![mk("a"), mk("b")]);
        assert_eq!(composite.role_name(), "[a,b]");
        let mut invoker = AgentInvoker::new(Box::new(composite));
        assert_eq!(invoker.invoke().unwrap(), 2);
        assert_eq!(invoker.invoke().unwrap(), 2);
        invoker.close();
        assert_eq!(invoker.invoke().unwrap(), 0);
        assert!(closed.load(Ordering::Relaxed));
        assert_eq!(count.load(Ordering::Relaxed), 4);
    }
}
