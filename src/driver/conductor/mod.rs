//! The driver conductor (`spec/driver.md` §3): reads client commands from the to-driver
//! ring buffer, manages clients, publications, subscriptions and counters, answers on the
//! to-clients broadcast buffer, and on each timer tick heartbeats, times out clients and
//! moves resources through their life cycles.
//!
//! [`DriverConductor`] is the agent; [`Conductor`] its state, split from the command ring
//! buffer so the read handler can borrow the state mutably while the buffer is read.
#![forbid(unsafe_code)]

pub mod agent_commands;
pub mod async_resolution;
pub mod client_proxy;
pub mod client_registry;
pub mod clients;
pub mod commands;
pub mod counters;
pub mod destinations;
pub mod end_of_life;
pub mod endpoint_registry;
pub mod endpoints;
pub mod image_registry;
pub mod images;
pub mod ipc_publication;
pub mod log_cleaner;
pub mod log_file;
pub mod network_lifecycle;
pub mod network_params;
pub mod network_publication;
pub mod network_publications;
pub mod network_subscriptions;
pub mod params;
pub mod publication_image;
pub mod publication_registry;
pub mod publication_setup;
pub mod publications;
pub mod receive_endpoints;
pub mod reject_image;
pub mod response_channels;
pub mod send_endpoints;
pub mod session_ids;
pub mod subscriber_positions;
pub mod subscription_registry;
pub mod subscriptions;
pub mod timers;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::concurrent::counters::CountersManager;
use crate::concurrent::error_log::DistinctErrorLog;
use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::driver::agent_proxy::{CommandQueue, ConductorCommand, Proxy, ReceiverCommand, SenderCommand};
use crate::driver::context::DriverContext;
use crate::driver::duty_cycle_tracker::DutyCycleTracker;
use crate::driver::loss::LossReport;
use crate::driver::media::media_plugin::Media;
use crate::driver::media::name_resolver::{NameResolver, TimeTrackingNameResolver};
use crate::driver::media::port_manager::PortManager;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::util::agent::Agent;
use crate::util::clock::{epoch_ms, nano_time};
use crate::util::error::{AeronErrorCode, Error, Result};
use async_resolution::ConductorNameResolver;

use client_proxy::ClientProxy;
use client_registry::ClientRegistry;
use end_of_life::EndOfLifeLogs;
use endpoints::Endpoints;
use image_registry::ImageRegistry;
use log_file::OsBufferLengths;
use publication_registry::PublicationRegistry;
use session_ids::{SessionIdAllocator, random_i32};
use subscription_registry::SubscriptionRegistry;
use timers::CommandBufferWatch;

/// Commands read per duty cycle (Aeron's C driver: 2).
pub const COMMAND_DRAIN_LIMIT: usize = 2;
/// How often the cached epoch clock is refreshed.
const CLOCK_UPDATE_INTERVAL_NS: i64 = 1_000_000;

/// What the conductor works on, apart from the command buffer: the registries of what
/// clients made (each keeping its own rules), the proxies to clients and agents, the
/// clocks, and what it was built with.
pub struct Conductor {
    ctx: DriverContext,
    proxy: ClientProxy,
    counters: CountersManager,
    error_log: Arc<DistinctErrorLog>,
    system: SystemCounters,
    clients: ClientRegistry,
    publications: PublicationRegistry,
    subscriptions: SubscriptionRegistry,
    images: ImageRegistry,
    endpoints: Endpoints,
    end_of_life: EndOfLifeLogs,
    sender_proxy: Proxy<SenderCommand>,
    receiver_proxy: Proxy<ReceiverCommand>,
    /// Handed to the sender's publications so they can report to the conductor.
    conductor_proxy: Proxy<ConductorCommand>,
    agent_commands: CommandQueue<ConductorCommand>,
    os_buffer_lengths: OsBufferLengths,
    termination_requested: Arc<AtomicBool>,
    now_ns: i64,
    now_ms: i64,
    clock_update_deadline_ns: i64,
    timeout_check_deadline_ns: i64,
    command_watch: CommandBufferWatch,
    /// Conductor duty cycles (system counters 26, 27) or the supplied tracker.
    duty_cycle_tracker: DutyCycleTracker,
    /// Resolves channel and destination addresses, off the conductor's thread when the
    /// async executor runs; each call timed (counters 32, 33).
    name_resolver: ConductorNameResolver,
}

impl Conductor {
    /// Aeron's mapping of a failure onto an ON_ERROR code: an Aeron code as is, a full
    /// disk as STORAGE_SPACE, anything else GENERIC_ERROR.
    pub(crate) fn error_code_of(error: &Error) -> AeronErrorCode {
        match error.aeron_code() {
            Some(code) if code != AeronErrorCode::Unused => code,
            _ if error.code() == libc::ENOSPC => AeronErrorCode::StorageSpace,
            _ => AeronErrorCode::GenericError,
        }
    }

    /// Records a distinct error and counts it (system counter 15).
    pub(crate) fn log_error(&mut self, error: &Error) {
        if let Err(e) = self.error_log.record(self.now_ms, error.code(), &error.to_string()) {
            // As Aeron's C driver: an error the full log cannot take goes to stderr.
            eprintln!("unrecordable error {error}: {e}");
        }
        self.system.increment(SystemCounterId::Errors);
    }

    /// Answers a failed command with ON_ERROR and records the error.
    pub(crate) fn on_command_error(&mut self, correlation_id: i64, error: &Error) {
        self.proxy.on_error(correlation_id, Self::error_code_of(error), error.message());
        self.log_error(error);
    }

    pub(crate) fn flush_proxy_failures(&mut self) {
        if self.proxy.has_failures() {
            for error in self.proxy.take_failures() {
                self.log_error(&error);
            }
        }
    }

    /// Cached clocks (`spec/driver.md` §3 step 1) and the duty-cycle tracker.
    fn track_time(&mut self, now_ns: i64) {
        self.now_ns = now_ns;
        self.duty_cycle_tracker.measure_and_update(now_ns);
        if now_ns >= self.clock_update_deadline_ns {
            self.clock_update_deadline_ns = now_ns + CLOCK_UPDATE_INTERVAL_NS;
            self.now_ms = epoch_ms();
        }
    }

    /// Adds `delta` to the bytes-currently-mapped counter (35).
    pub(crate) fn add_mapped_bytes(&self, delta: i64) {
        self.system.add(SystemCounterId::BytesCurrentlyMapped, delta);
    }
}

/// The conductor agent.
pub struct DriverConductor {
    to_driver: ManyToOneRingBuffer,
    conductor: Conductor,
}

/// What the conductor is built from (made by `MediaDriver::launch`).
pub struct ConductorParts {
    pub ctx: DriverContext,
    pub to_driver: ManyToOneRingBuffer,
    pub proxy: ClientProxy,
    pub counters: CountersManager,
    /// Shared with the agent threads' start-up, which records affinity warnings in it.
    pub error_log: Arc<DistinctErrorLog>,
    pub system: SystemCounters,
    pub termination_requested: Arc<AtomicBool>,
    pub sender_proxy: Proxy<SenderCommand>,
    pub receiver_proxy: Proxy<ReceiverCommand>,
    pub conductor_proxy: Proxy<ConductorCommand>,
    pub agent_commands: CommandQueue<ConductorCommand>,
    pub loss_report: LossReport,
    /// The default resolver or the one the context's supplier made.
    pub name_resolver: Box<dyn NameResolver>,
    pub media: Media,
    pub sender_port_manager: Box<dyn PortManager>,
    pub receiver_port_manager: Box<dyn PortManager>,
}

impl DriverConductor {
    /// Fails only when the async executor thread cannot be started.
    pub fn new(parts: ConductorParts) -> Result<Self> {
        let now_ns = nano_time();
        let ctx = parts.ctx;
        let session_ids = SessionIdAllocator::new(
            random_i32(),
            ctx.publication_reserved_session_id_low,
            ctx.publication_reserved_session_id_high,
        );
        let duty_cycle_tracker = DutyCycleTracker::new(
            parts.system.position(SystemCounterId::ConductorMaxCycleTime).clone(),
            parts.system.position(SystemCounterId::ConductorCycleTimeThresholdExceeded).clone(),
            ctx.conductor_cycle_threshold_ns,
            ctx.agents.conductor_duty_cycle_tracker.clone(),
        );
        let name_resolver = TimeTrackingNameResolver::new(
            parts.name_resolver,
            DutyCycleTracker::new(
                parts.system.position(SystemCounterId::NameResolverMaxTime).clone(),
                parts.system.position(SystemCounterId::NameResolverTimeThresholdExceeded).clone(),
                ctx.agents.name_resolver_threshold_ns,
                ctx.agents.name_resolver_time_tracker.clone(),
            ),
        );
        let name_resolver = ConductorNameResolver::new(
            name_resolver,
            ctx.agents.async_executor_threads,
            usize::try_from(ctx.agents.async_executor_cpu_affinity).ok(),
        )?;
        let conductor = Conductor {
            proxy: parts.proxy,
            counters: parts.counters,
            error_log: parts.error_log,
            system: parts.system,
            clients: ClientRegistry::default(),
            publications: PublicationRegistry::new(session_ids),
            subscriptions: SubscriptionRegistry::default(),
            images: ImageRegistry::new(parts.loss_report),
            endpoints: Endpoints::new(parts.media, parts.sender_port_manager, parts.receiver_port_manager),
            end_of_life: EndOfLifeLogs::default(),
            sender_proxy: parts.sender_proxy,
            receiver_proxy: parts.receiver_proxy,
            conductor_proxy: parts.conductor_proxy,
            agent_commands: parts.agent_commands,
            os_buffer_lengths: OsBufferLengths::probe(),
            termination_requested: parts.termination_requested,
            now_ns,
            now_ms: epoch_ms(),
            clock_update_deadline_ns: now_ns + CLOCK_UPDATE_INTERVAL_NS,
            timeout_check_deadline_ns: now_ns + ctx.timer_interval_ns as i64,
            command_watch: CommandBufferWatch::new(parts.to_driver.consumer_position(), now_ns),
            duty_cycle_tracker,
            name_resolver,
            ctx,
        };
        Ok(Self { to_driver: parts.to_driver, conductor })
    }
}

impl Agent for DriverConductor {
    fn on_start(&mut self) -> Result<()> {
        self.conductor.duty_cycle_tracker.update(nano_time());
        Ok(())
    }

    /// One duty cycle. Allocation-free when there is nothing to do.
    fn do_work(&mut self) -> Result<i32> {
        let c = &mut self.conductor;
        c.track_time(nano_time());
        let mut work = 0;
        if c.now_ns > c.timeout_check_deadline_ns {
            c.on_timer(&self.to_driver);
            c.timeout_check_deadline_ns = c.now_ns + c.ctx.timer_interval_ns as i64;
            work += 1;
        }
        let read = if c.name_resolver.command_in_flight() {
            Ok(0)
        } else {
            self.to_driver
                .controlled_read(|type_id, body| c.on_client_command(type_id, body), COMMAND_DRAIN_LIMIT)
        };
        match read {
            Ok(n) => work += n as i32,
            Err(e) => {
                // A record no client could have written: skip past it (and whatever was
                // claimed after it) once, record that once, and serve everyone else.
                match self.to_driver.skip_corrupt_head() {
                    Some(skipped) => {
                        c.system.increment(SystemCounterId::UnblockedCommands);
                        c.log_error(&e.context(format_args!(
                            "reading client commands: skipped {skipped} bytes to the producers' position"
                        )));
                    }
                    None => c.log_error(&e.context("reading client commands")),
                }
            }
        }
        work += c.process_agent_commands(&self.to_driver);
        work += c.images.track_rebuilds(c.now_ns, c.now_ms);
        work += c.publications.update_limits();
        work += c.end_of_life.free(c.ctx.resource_free_limit as usize, &c.system);
        work += c.poll_resolutions();
        match c.name_resolver.do_work(c.now_ms) {
            Ok(n) => work += n,
            Err(e) => c.log_error(&e.context("name resolver do_work")),
        }
        c.flush_proxy_failures();
        Ok(work)
    }

    /// Frees every resource and writes the -1 "shut down" heartbeat clients look for.
    fn on_close(&mut self) {
        self.conductor.close_all();
        self.conductor.name_resolver.close();
        self.to_driver.set_consumer_heartbeat_time(-1);
    }

    fn role_name(&self) -> &str {
        crate::driver::agent_config::role::CONDUCTOR
    }
}
