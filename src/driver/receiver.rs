//! The receiver agent (`spec/driver.md` §1, Aeron C `aeron_driver_receiver.c`): every duty
//! cycle it drains its commands, reads what arrived on the receive endpoints (through the
//! loss-injection interceptors when configured) into the images, and sends each image's
//! pending status messages, NAKs and RTT measurement requests.
//!
//! The duty cycle allocates nothing and takes no lock; errors go to the conductor's error log.
#![forbid(unsafe_code)]

use crate::driver::agent_proxy::{
    COMMAND_DRAIN_LIMIT, CommandQueue, ConductorCommand, Proxy, ReceiverCommand,
};
use crate::driver::context::DriverContext;
use crate::driver::duty_cycle_tracker::DutyCycleTracker;
use crate::driver::media::data_packet_dispatcher::SessionState;
use crate::driver::media::loss_injection::IncomingInterceptorChain;
use crate::driver::media::receive_channel_endpoint::{ReceiveChannelEndpoint, ReceiveContext};
use crate::driver::media::transport_poller::{TransportPoller, TransportSet, notify_plugins};
use crate::driver::re_resolution_check::ReResolutionCheck;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::util::agent::Agent;
use crate::util::clock::nano_time;
use crate::util::error::Result;

pub struct Receiver {
    commands: CommandQueue<ReceiverCommand>,
    to_conductor: Proxy<ConductorCommand>,
    poller: TransportPoller<ReceiveChannelEndpoint>,
    counters: SystemCounters,
    tracker: DutyCycleTracker,
    re_resolution_check: ReResolutionCheck,
}

impl Receiver {
    pub fn new(
        ctx: &DriverContext,
        commands: CommandQueue<ReceiverCommand>,
        to_conductor: Proxy<ConductorCommand>,
        counters: SystemCounters,
        interceptors: Option<IncomingInterceptorChain>,
    ) -> Self {
        let tracker = DutyCycleTracker::new(
            counters.position(SystemCounterId::ReceiverMaxCycleTime).clone(),
            counters.position(SystemCounterId::ReceiverCycleTimeThresholdExceeded).clone(),
            ctx.agents.receiver_cycle_threshold_ns,
            ctx.agents.receiver_duty_cycle_tracker.clone(),
        );
        Self {
            commands,
            to_conductor,
            // Datagrams read per endpoint per poll (`AERON_RECEIVER_IO_VECTOR_CAPACITY`).
            poller: TransportPoller::new(ctx.network.receiver_io_vector_capacity as usize, interceptors),
            counters,
            tracker,
            re_resolution_check: ReResolutionCheck::new(ctx.network.re_resolution_check_interval_ns),
        }
    }

    /// Asks the conductor to re-resolve the `control` names whose destinations went quiet.
    fn check_for_re_resolutions(&mut self, now_ns: i64) {
        let to_conductor = &self.to_conductor;
        for endpoint in self.poller.entries_mut() {
            let endpoint_id = endpoint.id();
            endpoint.check_for_re_resolutions(now_ns, |destination_id, control_name, existing| {
                to_conductor.send(ConductorCommand::ReResolveControl {
                    endpoint_id,
                    destination_id,
                    control_name,
                    existing,
                });
            });
        }
    }

    /// Transport notifications of plug-in transports joining or leaving the poller; a
    /// failure goes to the error log.
    fn notify<T: TransportSet + ?Sized>(&self, transports: &T, added: bool) {
        if let Err(e) = notify_plugins(transports, added) {
            self.to_conductor
                .send(ConductorCommand::Error(e.context("receiver interceptors transport notifications")));
        }
    }

    fn endpoint(&mut self, endpoint_id: i64) -> Option<&mut ReceiveChannelEndpoint> {
        self.poller.entries_mut().iter_mut().find(|e| e.id() == endpoint_id)
    }

    fn on_command(&mut self, command: ReceiverCommand) {
        match command {
            ReceiverCommand::AddEndpoint(endpoint) => {
                self.notify(endpoint.as_ref(), true);
                self.poller.add(*endpoint);
            }
            ReceiverCommand::AddDestination { endpoint_id, destination } => {
                self.notify(destination.transport(), true);
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint.add_destination(*destination);
                    self.poller.refresh();
                }
            }
            ReceiverCommand::RemoveDestination { endpoint_id, canonical_form } => {
                let removed = self.endpoint(endpoint_id).and_then(|e| e.remove_destination(&canonical_form));
                if let Some(destination) = &removed {
                    self.notify(destination.transport(), false);
                }
                self.poller.refresh();
                let destination_id = removed.map(|d| d.id());
                self.to_conductor
                    .send(ConductorCommand::ReceiveDestinationReleased { endpoint_id, destination_id });
            }
            ReceiverCommand::RemoveEndpoint { endpoint_id } => {
                if let Some(endpoint) = self.poller.entries().iter().find(|e| e.id() == endpoint_id) {
                    self.notify(endpoint, false);
                }
                self.poller.remove(|e| e.id() == endpoint_id);
                self.to_conductor.send(ConductorCommand::ReceiveEndpointReleased { endpoint_id });
            }
            ReceiverCommand::AddSubscription { endpoint_id, stream_id, session_id } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint.dispatcher().add_subscription(stream_id, session_id);
                }
                // One session behind a `control` address: ask for its SETUP now, as Aeron.
                if let Some(session_id) = session_id {
                    self.elicit_setup(endpoint_id, stream_id, session_id);
                }
            }
            ReceiverCommand::RequestSetup { endpoint_id, stream_id, session_id } => {
                self.elicit_setup(endpoint_id, stream_id, session_id);
            }
            ReceiverCommand::RemoveSubscription { endpoint_id, stream_id, session_id } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint.dispatcher().remove_subscription(stream_id, session_id);
                }
            }
            ReceiverCommand::AddImage { endpoint_id, image } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint.add_image(image);
                }
            }
            ReceiverCommand::RemoveImage { endpoint_id, correlation_id, session_id, stream_id } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint.dispatcher().remove_image(correlation_id, session_id, stream_id);
                }
                self.to_conductor.send(ConductorCommand::ImageReleased { correlation_id });
            }
            ReceiverCommand::RemoveCoolDown { endpoint_id, session_id, stream_id } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    endpoint
                        .dispatcher()
                        .remove_state(session_id, stream_id, |s| matches!(s, SessionState::CoolDown));
                }
            }
            ReceiverCommand::RejectImage { endpoint_id, correlation_id, reason } => {
                if let Some(endpoint) = self.endpoint(endpoint_id) {
                    let mut reason = Some(reason);
                    endpoint.dispatcher().for_each_image(|image| {
                        if image.correlation_id() == correlation_id
                            && let Some(reason) = reason.take()
                        {
                            image.reject(reason);
                        }
                    });
                }
            }
            ReceiverCommand::ResolutionChange { endpoint_id, destination_id, address } => {
                if self
                    .endpoint(endpoint_id)
                    .is_some_and(|e| e.update_control_address(destination_id, address))
                {
                    self.counters.increment(SystemCounterId::ResolutionChanges);
                }
            }
            ReceiverCommand::RemoveInitInProgress { endpoint_id, session_id, stream_id, refusal } => {
                let now_ns = nano_time();
                let Self { poller, counters, to_conductor, .. } = self;
                let ctx = ReceiveContext { counters, to_conductor, now_ns };
                if let Some(endpoint) = poller.entries_mut().iter_mut().find(|e| e.id() == endpoint_id) {
                    endpoint.on_image_not_built(session_id, stream_id, refusal, &ctx);
                }
            }
        }
    }
}

impl Receiver {
    fn elicit_setup(&mut self, endpoint_id: i64, stream_id: i32, session_id: i32) {
        let Self { poller, counters, to_conductor, .. } = self;
        let ctx = ReceiveContext { counters, to_conductor, now_ns: nano_time() };
        if let Some(endpoint) = poller.entries_mut().iter_mut().find(|e| e.id() == endpoint_id) {
            endpoint.elicit_setup(stream_id, session_id, &ctx);
        }
    }
}

impl Agent for Receiver {
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
        let Self { poller, counters, to_conductor, .. } = self;
        let ctx = ReceiveContext { counters: &*counters, to_conductor: &*to_conductor, now_ns };
        let outcome = poller.poll(|endpoint, destination, datagram, source, media_timestamp_ns| {
            if let Err(e) = endpoint.on_datagram(destination, datagram, source, media_timestamp_ns, &ctx) {
                ctx.to_conductor.send(ConductorCommand::Error(e.context("receiver on datagram")));
            }
        });
        let bytes_received = match outcome {
            Ok(outcome) => outcome.bytes,
            Err(e) => {
                to_conductor.send(ConductorCommand::Error(e.context("receiver poll")));
                0
            }
        };
        counters.add(SystemCounterId::BytesReceived, bytes_received as i64);
        let mut sent = 0;
        for endpoint in poller.entries_mut() {
            sent += endpoint.send_pending(&ctx);
        }
        if self.re_resolution_check.is_due(now_ns) {
            self.check_for_re_resolutions(now_ns);
        }
        Ok((work + sent) as i32 + i32::try_from(bytes_received).unwrap_or(i32::MAX))
    }

    fn role_name(&self) -> &str {
        crate::driver::agent_config::role::RECEIVER
    }

    /// Waits on the endpoints' sockets: a datagram ends the park at once.
    fn park(&mut self, period: std::time::Duration) {
        if let Err(e) = self.poller.wait_readable(period) {
            self.to_conductor.send(ConductorCommand::Error(e.context("receiver park")));
            std::thread::park_timeout(period);
        }
    }

    fn parks_on_input(&self) -> bool {
        true
    }
}
