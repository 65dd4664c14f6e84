//! The conductor's channel endpoints, send and receive (each kind one `EndpointRegistry`),
//! and what they are opened with: the media (transport bindings) and the two port managers
//! that say where sockets bind. A port a bind took goes back to its manager when the
//! endpoint or receive destination is released by its agent, or when opening it failed.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use crate::concurrent::counters::CountersManager;
use crate::driver::agent_proxy::{Proxy, ReceiverCommand, SenderCommand};
use crate::driver::conductor::endpoint_registry::EndpointRegistry;
use crate::driver::conductor::params::invalid_param;
use crate::driver::conductor::receive_endpoints::ReceiveEndpointEntry;
use crate::driver::conductor::send_endpoints::SendEndpointEntry;
use crate::driver::media::media_plugin::Media;
use crate::driver::media::port_manager::PortManager;
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::position_counters::{CHANNEL_STATUS_CLOSING, free_counter};
use crate::util::error::Result;

pub(crate) struct Endpoints {
    pub(crate) send: EndpointRegistry<SendEndpointEntry>,
    pub(crate) receive: EndpointRegistry<ReceiveEndpointEntry>,
    media: Media,
    /// Where send endpoints bind.
    sender_ports: Box<dyn PortManager>,
    /// Where receive endpoints and receive destinations bind.
    receiver_ports: Box<dyn PortManager>,
}

impl Endpoints {
    pub(crate) fn new(
        media: Media,
        sender_ports: Box<dyn PortManager>,
        receiver_ports: Box<dyn PortManager>,
    ) -> Self {
        Self {
            send: EndpointRegistry::default(),
            receive: EndpointRegistry::default(),
            media,
            sender_ports,
            receiver_ports,
        }
    }

    /// What endpoints open their transports with.
    pub(crate) fn media(&self) -> &Media {
        &self.media
    }

    /// Where a new send endpoint for `channel` binds (`bind` unless the manager says else).
    pub(crate) fn send_port(&mut self, channel: &UdpChannel, bind: SocketAddr) -> Result<SocketAddr> {
        self.sender_ports.get_managed_port(channel, bind)
    }

    /// A send endpoint that was to bind at `bind` did not open.
    pub(crate) fn free_send_port(&mut self, bind: SocketAddr) {
        self.sender_ports.free_managed_port(bind);
    }

    /// Where a new receive endpoint or destination for `channel` binds.
    pub(crate) fn receive_port(&mut self, channel: &UdpChannel, bind: SocketAddr) -> Result<SocketAddr> {
        self.receiver_ports.get_managed_port(channel, bind)
    }

    /// A receive endpoint or destination that was to bind at `bind` did not open.
    pub(crate) fn free_receive_port(&mut self, bind: Option<SocketAddr>) {
        if let Some(bind) = bind {
            self.receiver_ports.free_managed_port(bind);
        }
    }

    /// One publication fewer on send endpoint `id`; after the last one it becomes unused.
    pub(crate) fn release_send(&mut self, id: i64, now_ns: i64) {
        if let Some(endpoint) = self.send.find_mut(id) {
            endpoint.ref_count -= 1;
            self.send.note_if_unused(id, now_ns);
        }
    }

    /// Timer: closes the endpoints nothing used for a whole timer interval, and tells their
    /// agents.
    pub(crate) fn close_unused(
        &mut self,
        now_ns: i64,
        timer_interval_ns: i64,
        sender: &Proxy<SenderCommand>,
        receiver: &Proxy<ReceiverCommand>,
    ) {
        let expiry = now_ns - timer_interval_ns;
        self.send.close_unused(now_ns, expiry, |endpoint_id| {
            sender.send(SenderCommand::RemoveEndpoint { endpoint_id });
        });
        self.receive.close_unused(now_ns, expiry, |endpoint_id| {
            receiver.send(ReceiverCommand::RemoveEndpoint { endpoint_id });
        });
    }

    /// The sender dropped send endpoint `id`.
    pub(crate) fn on_send_released(&mut self, id: i64, counters: &mut CountersManager, now_ms: i64) {
        self.send.release(id, counters, now_ms, self.sender_ports.as_mut());
    }

    /// The receiver dropped receive endpoint `id`.
    pub(crate) fn on_receive_released(&mut self, id: i64, counters: &mut CountersManager, now_ms: i64) {
        self.receive.release(id, counters, now_ms, self.receiver_ports.as_mut());
    }

    /// The receiver closed a removed destination: its `rcv-local-sockaddr` is freed and its
    /// port given back.
    pub(crate) fn on_receive_destination_released(
        &mut self,
        endpoint_id: i64,
        destination_id: i64,
        counters: &mut CountersManager,
        now_ms: i64,
    ) {
        let Some(endpoint) = self.receive.find_mut(endpoint_id) else { return };
        if let Some(i) = endpoint.destinations.iter().position(|d| d.id == destination_id) {
            let record = endpoint.destinations.swap_remove(i);
            record.local_sockaddr.set_release(CHANNEL_STATUS_CLOSING);
            free_counter(counters, record.local_sockaddr.counter_id(), now_ms);
            self.receiver_ports.free_managed_port(record.bind_address);
        }
    }

    /// Frees every endpoint's counters (the driver is closing).
    pub(crate) fn close_all(&mut self, counters: &mut CountersManager, now_ms: i64) {
        self.send.close_all(counters, now_ms);
        self.receive.close_all(counters, now_ms);
    }
}

/// A channel sharing an endpoint may not ask its sockets for other buffers: each of
/// `buffers` (key, requested, the endpoint's) is either not requested (0) or the same.
pub(crate) fn check_shared_buffers(
    existing_channel: &UdpChannel,
    channel: &UdpChannel,
    buffers: [(&str, usize, usize); 2],
) -> Result<()> {
    for (key, requested, existing) in buffers {
        if requested != 0 && requested != existing {
            return Err(invalid_param(format!(
                "{key}={requested} does not match existing value of {existing}: existingChannel={} channel={}",
                existing_channel.original_uri, channel.original_uri
            )));
        }
    }
    Ok(())
}
