//! Dispatch of client commands (`spec/control-protocol.md` §2, §5, §7, §8) and the
//! handlers that concern clients themselves: registration, keepalive, close, terminate.
#![forbid(unsafe_code)]

use crate::command::Command;
use crate::concurrent::ring_buffer::ControlledReadAction;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::AeronClient;
use crate::driver::conductor::publication_setup::PublicationCommand;
use crate::driver::conductor::subscription_registry::SubscriptionKey;
use crate::driver::position_counters::allocate_client_heartbeat;
use crate::util::error::{AeronErrorCode, Error, Result};

/// Channels the driver treats as IPC.
pub const IPC_CHANNEL_PREFIX: &str = "aeron:ipc";
/// Channels that spy on local network publications.
pub const SPY_CHANNEL_PREFIX: &str = "aeron-spy:";

impl Conductor {
    /// Handles one record of the to-driver buffer. Never asks to re-deliver: every command
    /// is complete when this returns.
    pub(crate) fn on_command(&mut self, type_id: i32, body: &[u8]) -> ControlledReadAction {
        match Command::decode(type_id, body) {
            Ok(command) => {
                let correlation_id = command.correlated().correlation_id;
                if let Err(error) = self.dispatch(command) {
                    self.on_command_error(correlation_id, &error);
                }
            }
            // An unknown or malformed command: answered with ON_ERROR carrying correlation
            // id 0, as Java's driver does (it validates before it reads the correlation id),
            // so a client waiting on it learns something; Aeron's C driver only logs it.
            Err(error) => self.on_command_error(0, &error),
        }
        ControlledReadAction::Continue
    }

    fn dispatch(&mut self, command: Command<'_>) -> Result<()> {
        match command {
            Command::AddPublication(m) | Command::AddExclusivePublication(m) => {
                let exclusive = matches!(command, Command::AddExclusivePublication(_));
                let channel = m.channel_str()?;
                let add = PublicationCommand {
                    correlated: m.correlated,
                    stream_id: m.stream_id,
                    channel,
                    exclusive,
                };
                if channel.starts_with(IPC_CHANNEL_PREFIX) {
                    self.on_add_ipc_publication(add)
                } else if channel.starts_with(SPY_CHANNEL_PREFIX) {
                    Err(Error::aeron(
                        AeronErrorCode::InvalidChannel,
                        format!("aeron-spy channels are for subscriptions only: channel={channel}"),
                    ))
                } else {
                    self.on_add_network_publication(add)
                }
            }
            Command::RemovePublication(m) => self.on_remove_publication(m.correlated, m.registration_id),
            Command::AddSubscription(m) => {
                let channel = m.channel_str()?;
                let add = SubscriptionKey {
                    registration_id: m.correlated.correlation_id,
                    client_id: m.correlated.client_id,
                    stream_id: m.stream_id,
                    channel,
                };
                if channel.starts_with(IPC_CHANNEL_PREFIX) {
                    self.on_add_ipc_subscription(add)
                } else if channel.starts_with(SPY_CHANNEL_PREFIX) {
                    self.on_add_spy_subscription(add)
                } else {
                    self.on_add_network_subscription(add)
                }
            }
            Command::RemoveSubscription(m) => self.on_remove_subscription(m.correlated, m.registration_id),
            // Legacy keepalive: refreshes the heartbeat of a known client.
            Command::ClientKeepalive(m) => {
                self.clients.keepalive(m.client_id, self.now_ms);
                Ok(())
            }
            // The client is gone: it is removed at the next timer check, without
            // ON_CLIENT_TIMEOUT.
            Command::ClientClose(m) => {
                self.clients.close_by_command(m.client_id);
                Ok(())
            }
            Command::AddCounter(m) => self.on_add_counter(m.correlated, m.type_id, m.key, m.label),
            Command::RemoveCounter(m) => self.on_remove_counter(m.correlated, m.registration_id),
            Command::AddStaticCounter(m) => {
                self.on_add_static_counter(m.correlated, m.registration_id, m.type_id, m.key, m.label)
            }
            Command::TerminateDriver(m) => {
                self.on_terminate_driver(m.token);
                Ok(())
            }
            Command::AddDestination(m) => self.on_add_destination(&m),
            Command::RemoveDestination(m) => self.on_remove_destination(&m),
            Command::AddRcvDestination(m) => self.on_add_rcv_destination(&m),
            Command::RemoveRcvDestination(m) => self.on_remove_rcv_destination(&m),
            Command::RemoveDestinationById(m) => self.on_remove_destination_by_id(&m),
            Command::RejectImage(m) => self.on_reject_image(&m),
        }
    }

    /// Registers a client (heartbeat counter + ON_COUNTER_READY with the client id) on its
    /// first ADD_* command (`spec/control-protocol.md` §7).
    pub(crate) fn get_or_add_client(&mut self, client_id: i64) -> Result<()> {
        if self.clients.contains(client_id) {
            return Ok(());
        }
        let heartbeat = allocate_client_heartbeat(&mut self.counters, client_id, self.now_ms)?;
        let counter_id = heartbeat.counter_id();
        let timeout_ms = self.ctx.client_liveness_timeout_ms();
        self.clients.add(AeronClient::new(client_id, heartbeat, timeout_ms, self.now_ms));
        self.proxy.on_counter_ready(client_id, counter_id);
        Ok(())
    }

    /// No response either way; a validated token runs the termination hook.
    fn on_terminate_driver(&mut self, token: &[u8]) {
        if self.ctx.validate_termination(token) {
            // Release: whoever sees the request also sees the state the conductor had then.
            self.termination_requested.store(true, std::sync::atomic::Ordering::Release);
            if let Some(hook) = &self.ctx.termination_hook {
                hook.run();
            }
        }
    }
}
