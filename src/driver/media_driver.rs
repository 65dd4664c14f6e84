//! `MediaDriver`: the embeddable driver (`spec/driver.md` §1-2). `init` prepares the
//! directory, `cnc.dat` (version written last), `loss-report.dat` and the conductor;
//! `start` runs it on a thread or leaves it to `do_work` (INVOKER / manual main loop);
//! `close` stops it and deletes the directory when configured. Shaped like `aeronmd.h`
//! (`aeron_driver_init`, `_start`, `_main_do_work`, `_main_idle_strategy`, `_close`) so
//! the C API can wrap it.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cnc::{CncConfig, CncFile};
use crate::concurrent::broadcast::BroadcastTransmitter;
use crate::concurrent::counters::CountersManager;
use crate::concurrent::error_log::DistinctErrorLog;
use crate::concurrent::mapped_file::{Allocation, create_mapped};
use crate::concurrent::ring_buffer::ManyToOneRingBuffer;
use crate::driver::agent_config::{ThreadStart, on_thread_start, role};
use crate::driver::agent_proxy::command_queue;
use crate::driver::conductor::client_proxy::ClientProxy;
use crate::driver::conductor::{ConductorParts, DriverConductor};
use crate::driver::context::{DriverContext, ThreadingMode};
use crate::driver::directory::{self, CNC_FILE, LOSS_REPORT_FILE};
use crate::driver::loss::LossReport;
use crate::driver::media::loss_injection::IncomingInterceptors;
use crate::driver::media::media_plugin::Media;
use crate::driver::media::name_resolver::{NameResolverResources, make_name_resolver};
use crate::driver::receiver::Receiver;
use crate::driver::sender::Sender;
use crate::driver::system_counters::{
    AERON_VERSION_MAJOR, AERON_VERSION_MINOR, AERON_VERSION_PATCH, DriverLabelDetails, SystemCounterId,
    SystemCounters, semantic_version_compose,
};
use crate::util::agent::{Agent, AgentInvoker, AgentRunner, CompositeAgent, ErrorHandler};
use crate::util::bits::align;
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;

/// The driver's three agents before they start.
struct Agents {
    conductor: Box<DriverConductor>,
    sender: Box<Sender>,
    receiver: Box<Receiver>,
}

enum Runner {
    /// Built, not started.
    Idle(Agents),
    /// Running on threads; the network agents' runners come first so they stop first.
    Threads(Vec<AgentRunner>),
    Invoker(AgentInvoker),
    Closed,
}

/// A media driver in this process.
pub struct MediaDriver {
    ctx: DriverContext,
    runner: Runner,
    main_idle: IdleStrategy,
    termination_requested: Arc<AtomicBool>,
    cnc: CncFile,
    /// The conductor's, shared with agent threads for warnings as they start.
    error_log: Arc<DistinctErrorLog>,
}

impl std::fmt::Debug for MediaDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaDriver").field("aeron_dir", &self.ctx.aeron_dir).finish()
    }
}

impl MediaDriver {
    /// `init` then `start(false)`: the driver runs on its own thread unless the threading mode
    /// is INVOKER, in which case the caller drives it with [`do_work`](Self::do_work).
    pub fn launch(ctx: DriverContext) -> Result<Self> {
        let mut driver = Self::init(ctx)?;
        driver.start(false)?;
        Ok(driver)
    }

    /// Creates the driver's files and its conductor; nothing runs yet. Fails if another
    /// driver is alive in the directory.
    pub fn init(ctx: DriverContext) -> Result<Self> {
        ctx.validate()?;
        if ctx.print_configuration {
            println!("{ctx:#?}");
        }
        directory::prepare(&ctx)?;
        let now_ms = epoch_ms();
        let config = CncConfig {
            to_driver_buffer_length: ctx.to_driver_buffer_length,
            to_clients_buffer_length: ctx.to_clients_buffer_length,
            counters_values_buffer_length: ctx.counters_values_buffer_length,
            error_buffer_length: ctx.error_buffer_length,
            client_liveness_timeout_ns: ctx.client_liveness_timeout_ns as i64,
            start_timestamp_ms: now_ms,
            pid: i64::from(crate::util::sys::pid()),
            file_page_size: ctx.file_page_size,
        };
        let cnc = CncFile::create(&ctx.aeron_dir.join(CNC_FILE), &config)?;
        let loss_report_length = align(ctx.loss_report_buffer_length, ctx.file_page_size);
        let loss_report = LossReport::new(
            create_mapped(&ctx.aeron_dir.join(LOSS_REPORT_FILE), loss_report_length, Allocation::Reserved)
                .map_err(|e| e.context("create loss report"))?,
        );

        let mut counters = CountersManager::new(
            cnc.counters_metadata_buffer().clone(),
            cnc.counters_values_buffer().clone(),
            (ctx.counters_free_to_reuse_timeout_ns / 1_000_000) as i64,
        )?;
        let system = SystemCounters::allocate(&mut counters, now_ms)?;
        system.append_driver_details(
            &counters,
            &DriverLabelDetails {
                resolver_name: ctx.network.resolver_name.as_deref().unwrap_or(""),
                threading_mode: ctx.threading_mode,
                conductor_threshold_ns: ctx.conductor_cycle_threshold_ns,
                sender_threshold_ns: ctx.agents.sender_cycle_threshold_ns,
                receiver_threshold_ns: ctx.agents.receiver_cycle_threshold_ns,
            },
        )?;
        system.set(
            SystemCounterId::AeronVersion,
            semantic_version_compose(AERON_VERSION_MAJOR, AERON_VERSION_MINOR, AERON_VERSION_PATCH),
        );
        system.set(
            SystemCounterId::BytesCurrentlyMapped,
            (cnc.buffer().capacity() + loss_report_length) as i64,
        );
        let error_log = Arc::new(DistinctErrorLog::new(cnc.error_log_buffer()?.clone())?);
        let to_driver = ManyToOneRingBuffer::new(cnc.to_driver_buffer().clone())?;
        let transmitter = BroadcastTransmitter::new(cnc.to_clients_buffer().clone())?;
        let termination_requested = Arc::new(AtomicBool::new(false));
        let (sender_proxy, sender_commands) =
            command_queue(system.position(SystemCounterId::SenderProxyFails).clone());
        let (receiver_proxy, receiver_commands) =
            command_queue(system.position(SystemCounterId::ReceiverProxyFails).clone());
        let (conductor_proxy, agent_commands) =
            command_queue(system.position(SystemCounterId::ConductorProxyFails).clone());
        let media = match &ctx.media_plugin_supplier {
            Some(supplier) => Media::with_plugin((supplier.0)()?),
            None => Media::default(),
        }
        .with_io(ctx.network.udp_io());
        // Interceptors supplied in code replace the configured loss injection.
        let interceptors = match media.plugin() {
            Some(plugin) if plugin.replaces_incoming_interceptors() => None,
            _ => IncomingInterceptors::from_context(&ctx)?,
        };
        let name_resolver = make_name_resolver(
            &ctx,
            NameResolverResources { counters: &mut counters, system: &system, error_log: &error_log, now_ms },
        )?;
        let (sender_port_manager, receiver_port_manager) = ctx.make_port_managers();
        let sender = Sender::new(
            &ctx,
            sender_commands,
            conductor_proxy.clone(),
            system.clone(),
            interceptors.as_ref().map(|i| i.new_chain()),
        );
        let receiver = Receiver::new(
            &ctx,
            receiver_commands,
            conductor_proxy.clone(),
            system.clone(),
            interceptors.as_ref().map(|i| i.new_chain()),
        );
        let conductor = DriverConductor::new(ConductorParts {
            ctx: ctx.clone(),
            to_driver,
            proxy: ClientProxy::new(transmitter),
            counters,
            error_log: Arc::clone(&error_log),
            system,
            termination_requested: Arc::clone(&termination_requested),
            sender_proxy,
            receiver_proxy,
            conductor_proxy,
            agent_commands,
            loss_report,
            name_resolver,
            media,
            sender_port_manager,
            receiver_port_manager,
        })?;
        // Everything above is in place before clients may connect: this takes correlation
        // id 0 (the first client gets 1), writes the heartbeat, then the version (release).
        cnc.signal_ready(epoch_ms())?;

        let main_idle = match ctx.threading_mode {
            ThreadingMode::Dedicated | ThreadingMode::SharedNetwork => ctx.conductor_idle_strategy.clone(),
            ThreadingMode::Shared | ThreadingMode::Invoker => ctx.shared_idle_strategy.clone(),
        };
        let agents =
            Agents { conductor: Box::new(conductor), sender: Box::new(sender), receiver: Box::new(receiver) };
        Ok(Self { ctx, runner: Runner::Idle(agents), main_idle, termination_requested, cnc, error_log })
    }

    /// Starts the agents as the threading mode says (`spec/driver.md` §1): DEDICATED runs
    /// conductor, sender and receiver on three threads; SHARED_NETWORK the conductor on one
    /// and sender + receiver on another; SHARED all three on one. INVOKER mode, or
    /// `manual_main_loop`, leaves all three to the caller's [`do_work`](Self::do_work).
    pub fn start(&mut self, manual_main_loop: bool) -> Result<()> {
        let agents = match std::mem::replace(&mut self.runner, Runner::Closed) {
            Runner::Idle(agents) => agents,
            other => {
                self.runner = other;
                return Err(Error::illegal_state("media driver already started or closed"));
            }
        };
        let Agents { conductor, sender, receiver } = agents;
        // The on-start hook runs once per agent thread, as Aeron calls it per agent runner.
        let on_start = self.ctx.agents.on_start.clone();
        let hooked = |agent: Box<dyn Agent>| {
            on_thread_start(agent, ThreadStart { hook: on_start.clone(), ..ThreadStart::default() })
        };
        let all = |c: Box<DriverConductor>, s: Box<Sender>, r: Box<Receiver>| -> Box<dyn Agent> {
            Box::new(CompositeAgent::named(role::ALL, vec![s, r, c]))
        };
        if manual_main_loop || self.ctx.threading_mode == ThreadingMode::Invoker {
            let mut invoker = AgentInvoker::new(hooked(all(conductor, sender, receiver)));
            invoker.start()?;
            self.runner = Runner::Invoker(invoker);
            return Ok(());
        }
        let on_error =
            |name: &'static str| -> ErrorHandler { Arc::new(move |e: &Error| eprintln!("{name}: {e}")) };
        let ctx = &self.ctx;
        // On the driver's own threads: the scheduler slice and the role's CPU affinity
        // (`AERON_*_CPU_AFFINITY`, applied as Aeron's aeronmd applies them).
        let hooked = |agent: Box<dyn Agent>| {
            let start = ThreadStart {
                hook: on_start.clone(),
                slice_ns: ctx.agents.agent_time_slice_ns,
                cpu: ctx.agents.cpu_affinity_for_role(agent.role_name()),
                error_log: Some(Arc::clone(&self.error_log)),
            };
            on_thread_start(agent, start)
        };
        let mut runners = Vec::with_capacity(3);
        match ctx.threading_mode {
            ThreadingMode::Dedicated => {
                runners.push(AgentRunner::start(
                    hooked(sender),
                    ctx.sender_idle_strategy.clone(),
                    on_error("sender"),
                )?);
                runners.push(AgentRunner::start(
                    hooked(receiver),
                    ctx.receiver_idle_strategy.clone(),
                    on_error("receiver"),
                )?);
                runners.push(AgentRunner::start(
                    hooked(conductor),
                    self.main_idle.clone(),
                    on_error("driver-conductor"),
                )?);
            }
            ThreadingMode::SharedNetwork => {
                let network: Box<dyn Agent> =
                    Box::new(CompositeAgent::named(role::SENDER_RECEIVER, vec![sender, receiver]));
                runners.push(AgentRunner::start(
                    hooked(network),
                    ctx.shared_network_idle_strategy.clone(),
                    on_error("sender-receiver"),
                )?);
                runners.push(AgentRunner::start(
                    hooked(conductor),
                    self.main_idle.clone(),
                    on_error("driver-conductor"),
                )?);
            }
            ThreadingMode::Shared | ThreadingMode::Invoker => {
                runners.push(AgentRunner::start(
                    hooked(all(conductor, sender, receiver)),
                    self.main_idle.clone(),
                    on_error("shared"),
                )?);
            }
        }
        self.runner = Runner::Threads(runners);
        Ok(())
    }

    /// One duty cycle of all agents (INVOKER mode or manual main loop); 0 otherwise.
    pub fn do_work(&mut self) -> Result<i32> {
        match &mut self.runner {
            Runner::Invoker(invoker) => invoker.invoke(),
            _ => Ok(0),
        }
    }

    /// Idles per the driver's main idle strategy after a `do_work` that did `work_count`.
    pub fn idle(&mut self, work_count: i32) {
        self.main_idle.idle(work_count);
    }

    pub fn context(&self) -> &DriverContext {
        &self.ctx
    }

    pub fn aeron_dir(&self) -> &PathBuf {
        &self.ctx.aeron_dir
    }

    /// Whether a client's TERMINATE_DRIVER was accepted (the driver keeps running until
    /// closed; the termination hook, if any, has been called).
    pub fn termination_requested(&self) -> bool {
        self.termination_requested.load(Ordering::Acquire)
    }

    /// Stops the conductor (which frees its resources and writes the -1 heartbeat), then
    /// deletes the directory if configured. Idempotent.
    pub fn close(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.runner, Runner::Closed) {
            Runner::Closed => return Ok(()),
            Runner::Threads(mut runners) => runners.iter_mut().for_each(AgentRunner::close),
            Runner::Invoker(mut invoker) => invoker.close(),
            Runner::Idle(mut agents) => agents.conductor.on_close(),
        }
        self.cnc.flush()?;
        if self.ctx.dir_delete_on_shutdown {
            directory::delete_directory(&self.ctx.aeron_dir)?;
        }
        Ok(())
    }
}

impl Drop for MediaDriver {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            eprintln!("media driver close: {e}");
        }
    }
}
