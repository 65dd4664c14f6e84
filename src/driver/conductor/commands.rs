//! Dispatch of client commands (`spec/control-protocol.md` §2, §5, §7, §8) and the
//! handlers that concern clients themselves: registration, keepalive, close, terminate.
#![forbid(unsafe_code)]

use crate::command::Command;
use crate::concurrent::ring_buffer::ControlledReadAction;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::AeronClient;
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
                if channel.starts_with(IPC_CHANNEL_PREFIX) {
                    self.on_add_ipc_publication(m.correlated, m.stream_id, channel, exclusive)
                } else if channel.starts_with(SPY_CHANNEL_PREFIX) {
                    Err(Error::aeron(
                        AeronErrorCode::InvalidChannel,
                        format!("aeron-spy channels are for subscriptions only: channel={channel}"),
                    ))
                } else {
                    self.on_add_network_publication(m.correlated, m.stream_id, channel, exclusive)
                }
            }
            Command::RemovePublication(m) => self.on_remove_publication(m.correlated, m.registration_id),
            Command::AddSubscription(m) => {
                let channel = m.channel_str()?;
                if channel.starts_with(IPC_CHANNEL_PREFIX) {
                    self.on_add_ipc_subscription(m.correlated, m.stream_id, channel)
                } else if channel.starts_with(SPY_CHANNEL_PREFIX) {
                    self.on_add_spy_subscription(m.correlated, m.stream_id, channel)
                } else {
                    self.on_add_network_subscription(m.correlated, m.stream_id, channel)
                }
            }
            Command::RemoveSubscription(m) => self.on_remove_subscription(m.correlated, m.registration_id),
            Command::ClientKeepalive(m) => {
                self.on_client_keepalive(m.client_id);
                Ok(())
            }
            Command::ClientClose(m) => {
                self.on_client_close(m.client_id);
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

    pub(crate) fn find_client(&self, client_id: i64) -> Option<usize> {
        self.clients.iter().rposition(|c| c.client_id == client_id)
    }

    /// The client's index, registering it (heartbeat counter + ON_COUNTER_READY with the
    /// client id) on its first ADD_* command (`spec/control-protocol.md` §7).
    pub(crate) fn get_or_add_client(&mut self, client_id: i64) -> Result<usize> {
        if let Some(index) = self.find_client(client_id) {
            return Ok(index);
        }
        let heartbeat = allocate_client_heartbeat(&mut self.counters, client_id, self.now_ms)?;
        let counter_id = heartbeat.counter_id();
        let timeout_ms = self.ctx.client_liveness_timeout_ms();
        self.clients.push(AeronClient::new(client_id, heartbeat, timeout_ms, self.now_ms));
        self.proxy.on_counter_ready(client_id, counter_id);
        Ok(self.clients.len() - 1)
    }

    /// Legacy keepalive: refreshes the heartbeat of a known client.
    fn on_client_keepalive(&mut self, client_id: i64) {
        if let Some(index) = self.find_client(client_id) {
            self.clients[index].heartbeat.set_release(self.now_ms);
        }
    }

    /// The client is gone: it is removed at the next timer check, without ON_CLIENT_TIMEOUT.
    fn on_client_close(&mut self, client_id: i64) {
        if let Some(index) = self.find_client(client_id) {
            self.clients[index].close_by_command();
        }
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
