//! The sender agent (`spec/driver.md` §1, §4.2, Aeron C `aeron_driver_sender.c`): every duty
//! cycle it drains its commands, lets each network publication send (starting one further
//! each cycle, so no publication always goes first), and polls the send endpoints for
//! status messages, NAKs, RTT measurements and error frames — every
//! `AERON_SEND_TO_STATUS_POLL_RATIO` cycles, or sooner when nothing was sent, a send came up
//! short, or half the status-message timeout passed. The endpoints are the sender's: each
//! publication sends through its own, and the destinations of multi-destination endpoints
//! change here (by command, or as dynamic receivers come and go).
//!
//! The duty cycle allocates nothing and takes no lock; errors go to the conductor's error log.
#![forbid(unsafe_code)]

use crate::driver::agent_proxy::{COMMAND_DRAIN_LIMIT, CommandQueue, ConductorCommand, Proxy, SenderCommand};
use crate::driver::context::DriverContext;
use crate::driver::duty_cycle_tracker::DutyCycleTracker;
use crate::driver::media::destination_tracker::DestinationTracker;
use crate::driver::media::loss_injection::IncomingInterceptorChain;
use crate::driver::media::send_channel_endpoint::{SendChannelEndpoint, dispatch_control_frame};
use crate::driver::media::transport_poller::{TransportPoller, notify_plugins};
use crate::driver::network_publication::NetworkPublication;
use crate::driver::re_resolution_check::ReResolutionCheck;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::util::agent::Agent;
use crate::util::clock::nano_time;
use crate::util::error::{Error, Result};

pub struct Sender {
    commands: CommandQueue<SenderCommand>,
    to_conductor: Proxy<ConductorCommand>,
    poller: TransportPoller<SendChannelEndpoint>,
    publications: Vec<NetworkPublication>,
    round_robin_index: usize,
    duty_cycle_counter: u32,
    duty_cycle_ratio: u32,
    control_poll_deadline_ns: i64,
    status_message_read_timeout_ns: i64,
    counters: SystemCounters,
    tracker: DutyCycleTracker,
    re_resolution_check: ReResolutionCheck,
}

impl Sender {
    pub fn new(
        ctx: &DriverContext,
        commands: CommandQueue<SenderCommand>,
        to_conductor: Proxy<ConductorCommand>,
        counters: SystemCounters,
        interceptors: Option<IncomingInterceptorChain>,
    ) -> Self {
        let tracker = DutyCycleTracker::new(
            counters.position(SystemCounterId::SenderMaxCycleTime).clone(),
            counters.position(SystemCounterId::SenderCycleTimeThresholdExceeded).clone(),
            ctx.agents.sender_cycle_threshold_ns,
            ctx.agents.sender_duty_cycle_tracker.clone(),
        );
        Self {
            commands,
            to_conductor,
            // Control datagrams read per endpoint per poll (`AERON_SENDER_IO_VECTOR_CAPACITY`).
            poller: TransportPoller::new(ctx.network.sender_io_vector_capacity as usize, interceptors),
            publications: Vec::new(),
            round_robin_index: 0,
            duty_cycle_counter: 0,
            duty_cycle_ratio: ctx.send_to_status_poll_ratio.max(1),
            control_poll_deadline_ns: 0,
            status_message_read_timeout_ns: (ctx.status_message_timeout_ns / 2) as i64,
            counters,
            tracker,
            re_resolution_check: ReResolutionCheck::new(ctx.network.re_resolution_check_interval_ns),
        }
    }

    /// Asks the conductor to re-resolve the endpoints whose receivers went quiet.
    fn check_for_re_resolutions(&mut self, now_ns: i64) {
        let to_conductor = &self.to_conductor;
        for endpoint in self.poller.entries_mut() {
            let endpoint_id = endpoint.id();
            endpoint.check_for_re_resolution(now_ns, |endpoint_name, existing| {
                to_conductor.send(ConductorCommand::ReResolveEndpoint {
                    endpoint_id,
                    endpoint_name,
                    existing,
                });
            });
        }
    }

    fn report(&self, error: Error) {
        self.to_conductor.send(ConductorCommand::Error(error));
    }

    fn on_command(&mut self, command: SenderCommand) {
        match command {
            SenderCommand::AddEndpoint(endpoint) => {
                if let Err(e) = notify_plugins(endpoint.as_ref(), true) {
                    self.report(e.context("sender on_add_endpoint interceptors transport notifications"));
                }
                self.poller.add(*endpoint);
            }
            SenderCommand::RemoveEndpoint { endpoint_id } => {
                if let Some(endpoint) = self.poller.entries().iter().find(|e| e.id() == endpoint_id)
                    && let Err(e) = notify_plugins(endpoint, false)
                {
                    self.report(e.context("sender on_remove_endpoint interceptors transport notifications"));
                }
                self.poller.remove(|e| e.id() == endpoint_id);
                self.to_conductor.send(ConductorCommand::SendEndpointReleased { endpoint_id });
            }
            SenderCommand::AddPublication(publication) => self.publications.push(*publication),
            SenderCommand::AddDestination { endpoint_id, address, registration_id, endpoint_name } => {
                let now_ns = nano_time();
                if let Some(tracker) = self.tracker(endpoint_id) {
                    tracker.add_manual(address, registration_id, Some(endpoint_name), now_ns);
                }
            }
            SenderCommand::RemoveDestination { endpoint_id, address } => {
                if let Some(tracker) = self.tracker(endpoint_id) {
                    tracker.remove_by_address(&address);
                }
            }
            SenderCommand::RemoveDestinationById { endpoint_id, registration_id } => {
                if let Some(tracker) = self.tracker(endpoint_id) {
                    tracker.remove_by_registration_id(registration_id);
                }
            }
            SenderCommand::ResolutionChange { endpoint_id, endpoint_name, address } => {
                let endpoint = self.poller.entries_mut().iter_mut().find(|e| e.id() == endpoint_id);
                if let Some(endpoint) = endpoint {
                    match endpoint.resolution_change(&endpoint_name, address) {
                        Ok(true) => self.counters.increment(SystemCounterId::ResolutionChanges),
                        Ok(false) => {}
                        Err(e) => self.report(e),
                    }
                }
            }
            SenderCommand::RemovePublication { registration_id } => {
                if let Some(i) = self.publications.iter().position(|p| p.registration_id() == registration_id)
                {
                    self.publications.swap_remove(i);
                }
                self.to_conductor.send(ConductorCommand::PublicationReleased { registration_id });
            }
        }
    }

    fn tracker(&mut self, endpoint_id: i64) -> Option<&mut DestinationTracker> {
        let endpoint = self.poller.entries_mut().iter_mut().find(|e| e.id() == endpoint_id)?;
        endpoint.destination_tracker_mut()
    }

    /// Each publication sends once through its endpoint, round robin; returns bytes sent.
    fn do_send(&mut self, now_ns: i64) -> usize {
        let length = self.publications.len();
        if self.round_robin_index >= length {
            self.round_robin_index = 0;
        }
        let start = self.round_robin_index;
        self.round_robin_index += 1;
        let mut bytes_sent = 0;
        let endpoints = self.poller.entries();
        for k in 0..length {
            let publication = &mut self.publications[(start + k) % length];
            // The conductor adds an endpoint before its publications and removes it after.
            let Some(e) = publication.find_endpoint(endpoints) else { continue };
            match publication.send(now_ns, &endpoints[e]) {
                Ok(bytes) => bytes_sent += bytes,
                Err(e) => self.to_conductor.send(ConductorCommand::Error(e.context("sender do_send"))),
            }
        }
        self.counters.add(SystemCounterId::BytesSent, bytes_sent as i64);
        bytes_sent
    }

    fn poll_control(&mut self, now_ns: i64) -> usize {
        let Self { poller, publications, counters, to_conductor, .. } = self;
        let mut failure = None;
        let outcome = poller.poll(|endpoint, _, datagram, source, _| {
            if let Err(e) = dispatch_control_frame(endpoint, datagram, source, publications, counters, now_ns)
            {
                failure = Some(e);
            }
        });
        for endpoint in poller.entries_mut() {
            endpoint.remove_inactive_destinations(now_ns);
        }
        if let Some(e) = failure {
            to_conductor.send(ConductorCommand::Error(e.context("sender control frame")));
        }
        match outcome {
            Ok(outcome) => outcome.bytes as usize,
            Err(e) => {
                self.report(e.context("sender poll"));
                0
            }
        }
    }
}

impl Agent for Sender {
    fn on_start(&mut self) -> Result<()> {
        self.tracker.update(nano_time());
        Ok(())
    }

    fn do_work(&mut self) -> Result<i32> {
        let now_ns = nano_time();
        self.tracker.measure_and_update(now_ns);
        let mut work = 0;
        while work < COMMAND_DRAIN_LIMIT {
            let Some(command) = self.commands.next() else { break };
            self.on_command(command);
            work += 1;
        }
        let short_sends_before = self.counters.value(SystemCounterId::ShortSends);
        let bytes_sent = self.do_send(now_ns);
        let mut bytes_received = 0;
        self.duty_cycle_counter += 1;
        if bytes_sent == 0
            || self.duty_cycle_counter >= self.duty_cycle_ratio
            || now_ns > self.control_poll_deadline_ns
            || short_sends_before < self.counters.value(SystemCounterId::ShortSends)
        {
            bytes_received = self.poll_control(now_ns);
            self.duty_cycle_counter = 0;
            self.control_poll_deadline_ns = now_ns + self.status_message_read_timeout_ns;
            if self.re_resolution_check.is_due(now_ns) {
                self.check_for_re_resolutions(now_ns);
            }
        }
        Ok((work + bytes_sent + bytes_received) as i32)
    }

    fn role_name(&self) -> &str {
        crate::driver::agent_config::role::SENDER
    }
}
