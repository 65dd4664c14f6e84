//! Name resolution off the conductor's thread (`AERON_DRIVER_ASYNC_EXECUTOR_THREADS=1`,
//! the default), as Aeron C's conductor does it with its executor: a client command whose
//! channel or destination names an `endpoint` or `control` address is taken from the
//! to-driver buffer, its addresses are resolved on the executor thread, and only then is
//! the command carried out, with those results. While a command waits the conductor reads
//! no further client commands (their order is kept), but the rest of its duty cycle goes
//! on: timers, client liveness, publication limits, the sender's and receiver's requests,
//! the name resolver's own work. Re-resolutions of quiet endpoints also run there, without
//! holding up commands. With 0 threads everything is resolved on the conductor.
//!
//! The resolver is shared with the executor behind a mutex: the executor holds it while it
//! resolves; the conductor's `do_work` of the resolver only *tries* the lock and skips a
//! cycle when the executor has it, so a slow lookup never blocks the duty cycle.
#![forbid(unsafe_code)]

use std::net::{IpAddr, SocketAddr};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::command::Command;
use crate::concurrent::ring_buffer::ControlledReadAction;
use crate::driver::agent_proxy::{ReceiverCommand, SenderCommand};
use crate::driver::conductor::Conductor;
use crate::driver::conductor::commands::{IPC_CHANNEL_PREFIX, SPY_CHANNEL_PREFIX};
use crate::driver::media::name_resolver::{
    NameResolver, TimeTrackingNameResolver, resolve_host_and_port_with,
};
use crate::uri::ChannelUri;
use crate::uri::keys::{CONTROL, ENDPOINT};
use crate::util::error::{Error, Result};

/// `endpoint`/`control` value pairs a command will resolve.
type Names = Vec<(&'static str, String)>;
type Resolved = Vec<(&'static str, String, Result<SocketAddr>)>;

/// Whose name a re-resolution is for, and so which URI parameter it is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ReResolveTarget {
    /// A send endpoint's `endpoint`, or one of its manual destinations'.
    SendEndpoint { endpoint_id: i64 },
    /// The `control` of one destination of a receive endpoint.
    ReceiveControl { endpoint_id: i64, destination_id: i64 },
}

impl ReResolveTarget {
    fn uri_param_name(self) -> &'static str {
        match self {
            Self::SendEndpoint { .. } => ENDPOINT,
            Self::ReceiveControl { .. } => CONTROL,
        }
    }
}

/// A re-resolution: the name, what it resolved to before, and for whom.
struct ReResolve {
    target: ReResolveTarget,
    name: Arc<str>,
    existing: SocketAddr,
}

enum Task {
    Command(Names),
    ReResolve(ReResolve),
}

enum Completion {
    Command(Resolved),
    ReResolve(ReResolve, Result<SocketAddr>),
}

struct Executor {
    tasks: Option<Sender<Task>>,
    completions: Receiver<Completion>,
    thread: Option<JoinHandle<()>>,
}

type SharedResolver = Arc<Mutex<TimeTrackingNameResolver>>;

fn lock(shared: &SharedResolver) -> MutexGuard<'_, TimeTrackingNameResolver> {
    // A resolver that panicked mid-call is still the only one there is; go on with it.
    shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn run(task: Task, shared: &SharedResolver) -> Completion {
    let mut resolver = lock(shared);
    match task {
        Task::Command(names) => Completion::Command(
            names
                .into_iter()
                .map(|(key, value)| {
                    let result = resolve_host_and_port_with(&mut *resolver, key, &value, false);
                    (key, value, result)
                })
                .collect(),
        ),
        Task::ReResolve(re) => {
            let result =
                resolve_host_and_port_with(&mut *resolver, re.target.uri_param_name(), &re.name, true);
            Completion::ReResolve(re, result)
        }
    }
}

/// The conductor's resolver: the shared one, the executor, and the results of a command
/// that waits.
pub struct ConductorNameResolver {
    shared: SharedResolver,
    executor: Option<Executor>,
    memo: Resolved,
    /// The command whose addresses the executor resolves (type id, bytes).
    pending: Option<(i32, Vec<u8>)>,
}

impl ConductorNameResolver {
    /// `threads` 0: resolve on the conductor; otherwise one executor thread, pinned to
    /// `cpu` when given.
    pub fn new(resolver: TimeTrackingNameResolver, threads: u32, cpu: Option<usize>) -> Result<Self> {
        let shared = Arc::new(Mutex::new(resolver));
        let executor = if threads == 0 {
            None
        } else {
            let (tasks, task_rx) = mpsc::channel::<Task>();
            let (completion_tx, completions) = mpsc::channel();
            let worker = Arc::clone(&shared);
            let thread = std::thread::Builder::new()
                .name("aeron-executor".to_string())
                .spawn(move || {
                    if let Some(cpu) = cpu
                        && let Err(e) = crate::util::sys::set_current_thread_affinity(cpu)
                    {
                        eprintln!("WARNING: unable to apply affinity {cpu} to the async executor: {e}");
                    }
                    while let Ok(task) = task_rx.recv() {
                        if completion_tx.send(run(task, &worker)).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| Error::io(&e, "spawn async executor thread"))?;
            Some(Executor { tasks: Some(tasks), completions, thread: Some(thread) })
        };
        Ok(Self { shared, executor, memo: Vec::new(), pending: None })
    }

    /// A command is waiting for its addresses: no other client command is read.
    pub fn command_in_flight(&self) -> bool {
        self.pending.is_some()
    }

    fn submit(&mut self, task: Task) -> bool {
        self.executor.as_ref().and_then(|e| e.tasks.as_ref()).is_some_and(|t| t.send(task).is_ok())
    }

    /// Hands a re-resolution to the executor; back when there is none or it stopped.
    fn submit_re_resolve(&mut self, re: ReResolve) -> Option<ReResolve> {
        let Some(tasks) = self.executor.as_ref().and_then(|e| e.tasks.as_ref()) else { return Some(re) };
        match tasks.send(Task::ReResolve(re)) {
            Ok(()) => None,
            Err(mpsc::SendError(Task::ReResolve(re))) => Some(re),
            // Not sent: what came back is what was sent, a re-resolution.
            Err(mpsc::SendError(Task::Command(_))) => None,
        }
    }

    /// Stops the executor (after the task it runs) and closes the resolver.
    pub fn shut_down(&mut self) {
        if let Some(executor) = &mut self.executor {
            executor.tasks = None;
            if let Some(thread) = executor.thread.take() {
                let _ = thread.join();
            }
        }
        lock(&self.shared).close();
    }
}

impl NameResolver for ConductorNameResolver {
    fn lookup(&mut self, name: &str, uri_param_name: &str, is_re_lookup: bool) -> Result<Option<String>> {
        lock(&self.shared).lookup(name, uri_param_name, is_re_lookup)
    }

    fn resolve(&mut self, host: &str, uri_param_name: &str, is_re: bool, ipv6: bool) -> Result<IpAddr> {
        lock(&self.shared).resolve(host, uri_param_name, is_re, ipv6)
    }

    fn memoized(&mut self, uri_param_name: &str, value: &str, is_re: bool) -> Option<Result<SocketAddr>> {
        if is_re {
            return None;
        }
        let found = self.memo.iter().find(|(key, v, _)| *key == uri_param_name && v == value);
        found.map(|(_, _, result)| result.clone())
    }

    fn do_work(&mut self, now_ms: i64) -> Result<i32> {
        match self.shared.try_lock() {
            Ok(mut resolver) => resolver.do_work(now_ms),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner().do_work(now_ms),
            Err(std::sync::TryLockError::WouldBlock) => Ok(0),
        }
    }

    fn close(&mut self) {
        self.shut_down();
    }
}

/// The addresses `command` will resolve, when there are any.
fn names_to_resolve(command: &Command<'_>) -> Option<Names> {
    let channel = match command {
        Command::AddPublication(m) | Command::AddExclusivePublication(m) => m.channel_str().ok()?,
        Command::AddSubscription(m) => m.channel_str().ok()?,
        Command::AddDestination(m)
        | Command::RemoveDestination(m)
        | Command::AddRcvDestination(m)
        | Command::RemoveRcvDestination(m) => m.channel_str().ok()?,
        _ => return None,
    };
    if channel.starts_with(IPC_CHANNEL_PREFIX) {
        return None;
    }
    let uri = ChannelUri::parse(channel.strip_prefix(SPY_CHANNEL_PREFIX).unwrap_or(channel)).ok()?;
    let names: Names = [ENDPOINT, CONTROL]
        .into_iter()
        .filter_map(|key| uri.get(key).map(|v| (key, v.to_string())))
        .collect();
    (!names.is_empty()).then_some(names)
}

impl Conductor {
    /// A client command: carried out now, or (executor on, addresses to resolve) sent to
    /// the executor first.
    pub(crate) fn on_client_command(&mut self, type_id: i32, body: &[u8]) -> ControlledReadAction {
        if self.name_resolver.executor.is_some()
            && let Ok(command) = Command::decode(type_id, body)
            && let Some(names) = names_to_resolve(&command)
            && self.name_resolver.submit(Task::Command(names))
        {
            self.name_resolver.pending = Some((type_id, body.to_vec()));
            return ControlledReadAction::Break;
        }
        self.on_command(type_id, body)
    }

    /// Results from the executor: a waiting command is carried out, re-resolutions applied.
    pub(crate) fn poll_resolutions(&mut self) -> i32 {
        let Some(executor) = &self.name_resolver.executor else { return 0 };
        let completion = match executor.completions.try_recv() {
            Ok(completion) => completion,
            Err(TryRecvError::Empty) => return 0,
            Err(TryRecvError::Disconnected) => {
                let error = Error::invalid_argument("async executor thread stopped");
                if let Some((type_id, body)) = self.name_resolver.pending.take() {
                    let correlation_id =
                        Command::decode(type_id, &body).map_or(0, |c| c.correlated().correlation_id);
                    self.on_command_error(correlation_id, &error);
                }
                return 0;
            }
        };
        match completion {
            Completion::Command(resolved) => {
                self.name_resolver.memo = resolved;
                if let Some((type_id, body)) = self.name_resolver.pending.take() {
                    self.on_command(type_id, &body);
                }
                self.name_resolver.memo.clear();
            }
            Completion::ReResolve(re, result) => self.on_re_resolution(re, result),
        }
        1
    }

    /// The sender found `endpoint_id`'s receiver, or one of its manual destinations,
    /// quiet (Aeron's `on_re_resolve_endpoint`): resolve the name again.
    pub(crate) fn on_re_resolve_endpoint(&mut self, endpoint_id: i64, name: Arc<str>, existing: SocketAddr) {
        if self.endpoints.send.is_open(endpoint_id) {
            self.re_resolve(ReResolve {
                target: ReResolveTarget::SendEndpoint { endpoint_id },
                name,
                existing,
            });
        }
    }

    /// The receiver heard nothing on a destination with a `control` address (Aeron's
    /// `on_re_resolve_control`): resolve the control name again.
    pub(crate) fn on_re_resolve_control(
        &mut self,
        endpoint_id: i64,
        destination_id: i64,
        name: Arc<str>,
        existing: SocketAddr,
    ) {
        if self.endpoints.receive.is_open(endpoint_id) {
            let target = ReResolveTarget::ReceiveControl { endpoint_id, destination_id };
            self.re_resolve(ReResolve { target, name, existing });
        }
    }

    /// Resolves on the executor when there is one, else here.
    fn re_resolve(&mut self, re: ReResolve) {
        if let Some(re) = self.name_resolver.submit_re_resolve(re) {
            let key = re.target.uri_param_name();
            let result = resolve_host_and_port_with(&mut self.name_resolver, key, &re.name, true);
            self.on_re_resolution(re, result);
        }
    }

    fn on_re_resolution(&mut self, re: ReResolve, result: Result<SocketAddr>) {
        let address = match result {
            Err(e) => {
                let what = re.target.uri_param_name();
                return self.log_error(&e.context(format_args!("re-resolution of {what}={}", re.name)));
            }
            Ok(address) if address == re.existing => return,
            Ok(address) => address,
        };
        match re.target {
            ReResolveTarget::SendEndpoint { endpoint_id } => {
                if let Some(endpoint) = self.endpoints.send.find_mut(endpoint_id) {
                    for (_, destination, name) in &mut endpoint.manual_destinations {
                        if **name == *re.name {
                            *destination = address;
                        }
                    }
                }
                let endpoint_name = re.name;
                self.sender_proxy.send(SenderCommand::ResolutionChange {
                    endpoint_id,
                    endpoint_name,
                    address,
                })
            }
            ReResolveTarget::ReceiveControl { endpoint_id, destination_id } => self
                .receiver_proxy
                .send(ReceiverCommand::ResolutionChange { endpoint_id, destination_id, address }),
        }
    }
}
