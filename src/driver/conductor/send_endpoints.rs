//! Send channel endpoints as the conductor manages them (`spec/channel-uri.md` §2.1,
//! `spec/counters.md` §7.2, §7.4): one per canonical form, shared by every network
//! publication on it, with its `snd-channel` status, `mdc-num-dest` (multi-destination
//! channels) and `snd-local-sockaddr` counters. A channel naming only `tags=<n>` (or the
//! same tag with the same addresses) reuses the endpoint opened with that tag. The socket
//! is opened here, so a bind error reaches the client as ON_ERROR, then handed to the
//! sender; it closes once the last publication is gone and the sender released it.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::concurrent::counters::type_ids::{
    CHANNEL_NUM_DESTINATIONS_NAME, CHANNEL_NUM_DESTINATIONS_TYPE_ID, SEND_CHANNEL_STATUS_NAME,
    SEND_CHANNEL_STATUS_TYPE_ID, SND_LOCAL_SOCKADDR_NAME,
};
use crate::driver::agent_proxy::SenderCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::endpoint_registry::RegisteredEndpoint;
use crate::driver::conductor::endpoints::check_shared_buffers;
use crate::driver::conductor::params::{PublicationParams, invalid_param};
use crate::driver::media::send_channel_endpoint::{SendChannelEndpoint, SendEndpointSettings};
use crate::driver::media::socket_address::format_source_identity;
use crate::driver::media::timestamps::ChannelTimestamps;
use crate::driver::media::udp_channel::{UdpChannel, UdpControlMode};
use crate::driver::media::udp_transport::{SocketBuffers, UdpTransport};
use crate::driver::position_counters::{
    CHANNEL_STATUS_ACTIVE, Position, allocate_channel_counter, allocate_channel_status,
    allocate_local_sockaddr, free_counter,
};
use crate::util::error::{Error, Result};
use std::sync::Arc;

/// The conductor's record of a send endpoint.
#[derive(Debug)]
pub struct SendEndpointEntry {
    /// Registration id of the publication that created it; names the endpoint.
    pub id: i64,
    pub channel: UdpChannel,
    pub transport: Arc<UdpTransport>,
    pub ref_count: i32,
    pub status: Position,
    pub local_sockaddr: Position,
    /// `mdc-num-dest` of a multi-destination endpoint.
    pub num_destinations: Option<Position>,
    /// Destinations added by command (manual control), as (registration id, address,
    /// `endpoint` text); the address follows the name when it is re-resolved.
    pub manual_destinations: Vec<(i64, std::net::SocketAddr, Arc<str>)>,
    pub socket_sndbuf_length: usize,
    pub socket_rcvbuf_length: usize,
    /// What the sender's port manager said to bind; freed when the endpoint is released.
    pub bind_address: std::net::SocketAddr,
}

impl RegisteredEndpoint for SendEndpointEntry {
    fn id(&self) -> i64 {
        self.id
    }

    fn channel(&self) -> &UdpChannel {
        &self.channel
    }

    fn status(&self) -> &Position {
        &self.status
    }

    fn in_use(&self) -> bool {
        self.ref_count > 0
    }

    fn free_counters(&self, counters: &mut CountersManager, now_ms: i64) {
        free_counter(counters, self.local_sockaddr.counter_id(), now_ms);
        if let Some(p) = &self.num_destinations {
            free_counter(counters, p.counter_id(), now_ms);
        }
        free_counter(counters, self.status.counter_id(), now_ms);
    }

    fn bind_addresses(&self) -> Vec<std::net::SocketAddr> {
        vec![self.bind_address]
    }
}

impl SendEndpointEntry {
    /// A manual multi-destination endpoint: destinations come by command.
    pub fn is_manual(&self) -> bool {
        self.channel.control_mode == UdpControlMode::Manual
    }
}

impl Conductor {
    /// The open endpoint `channel` refers to by tag or shares by canonical form (Aeron C
    /// `aeron_driver_conductor_find_existing_send_channel_endpoint`).
    fn find_existing_send_endpoint(&self, channel: &UdpChannel) -> Result<Option<usize>> {
        // An endpoint's remote address is where it sends: its channel's.
        if let Some(index) = self.endpoints.send.find_by_tag(channel)? {
            return Ok(Some(index));
        }
        // A tag no endpoint has yet makes this the original: it needs addresses of its own.
        if channel.channel_tag.is_some()
            && !channel.has_explicit_control
            && channel.control_mode != UdpControlMode::Manual
            && !channel.has_explicit_endpoint
        {
            return Err(Error::invalid_argument(format!(
                "URI must have explicit control, endpoint, or be manual control-mode when original: channel={}",
                channel.original_uri
            )));
        }
        Ok(self.endpoints.send.find_by_canonical_form(channel))
    }

    /// The open endpoint for `channel`, or a new one. `registration_id` names a new
    /// endpoint. The MTU must fit the socket send buffer in effect.
    pub(crate) fn get_or_add_send_endpoint(
        &mut self,
        channel: &UdpChannel,
        params: &PublicationParams,
        registration_id: i64,
    ) -> Result<usize> {
        if let Some(index) = self.find_existing_send_endpoint(channel)? {
            self.endpoints.send.reuse(index);
            let endpoint = &self.endpoints.send[index];
            ChannelTimestamps::check_shared(&endpoint.channel, channel, false)?;
            check_shared_buffers(
                &endpoint.channel,
                channel,
                [
                    ("so-sndbuf", channel.socket_sndbuf_length, endpoint.socket_sndbuf_length),
                    ("so-rcvbuf", channel.socket_rcvbuf_length, endpoint.socket_rcvbuf_length),
                ],
            )?;
            self.check_mtu_for_sndbuf(params, endpoint.socket_sndbuf_length)?;
            return Ok(index);
        }
        let socket_sndbuf_length = channel.socket_sndbuf_or(self.ctx.socket_so_sndbuf);
        let socket_rcvbuf_length = channel.socket_rcvbuf_or(self.ctx.socket_so_rcvbuf);
        self.check_mtu_for_sndbuf(params, socket_sndbuf_length)?;
        let settings = SendEndpointSettings {
            buffers: SocketBuffers { so_sndbuf: socket_sndbuf_length, so_rcvbuf: socket_rcvbuf_length },
            connect: self.ctx.network.connect_enabled,
            default_multicast_ttl: self.ctx.socket_multicast_ttl,
            num_destinations: None,
            mtu_length: params.mtu_length,
            media: self.endpoints.media().clone(),
            bind: None,
        };
        let bind_address = self.endpoints.send_port(channel, SendChannelEndpoint::bind_address(channel))?;
        let opened = SendChannelEndpoint::open(
            registration_id,
            channel,
            SendEndpointSettings { bind: Some(bind_address), ..settings },
        );
        let mut endpoint = match opened {
            Ok(endpoint) => endpoint,
            Err(e) => {
                self.endpoints.free_send_port(bind_address);
                return Err(e);
            }
        };
        let bound = format_source_identity(&endpoint.local_addr());
        let (status, num_destinations, local_sockaddr) =
            match self.allocate_send_endpoint_counters(channel, registration_id, &bound) {
                Ok(counters) => counters,
                Err(e) => {
                    drop(endpoint);
                    self.endpoints.free_send_port(bind_address);
                    return Err(e);
                }
            };
        if let (Some(tracker), Some(counter)) = (endpoint.destination_tracker_mut(), &num_destinations) {
            tracker.set_num_destinations_counter(counter.clone());
        }
        // Release: a client seeing ACTIVE may rely on the endpoint being open.
        status.set_release(CHANNEL_STATUS_ACTIVE);
        local_sockaddr.set_release(CHANNEL_STATUS_ACTIVE);
        let transport = Arc::clone(endpoint.transport());
        self.sender_proxy.send(SenderCommand::AddEndpoint(Box::new(endpoint)));
        Ok(self.endpoints.send.push(SendEndpointEntry {
            id: registration_id,
            channel: channel.clone(),
            transport,
            ref_count: 0,
            status,
            local_sockaddr,
            num_destinations,
            manual_destinations: Vec::new(),
            socket_sndbuf_length,
            socket_rcvbuf_length,
            bind_address,
        }))
    }

    /// `snd-channel`, `mdc-num-dest` (multi-destination only) and `snd-local-sockaddr`,
    /// in Aeron's order; none stay allocated if one fails.
    fn allocate_send_endpoint_counters(
        &mut self,
        channel: &UdpChannel,
        registration_id: i64,
        bound: &str,
    ) -> Result<(Position, Option<Position>, Position)> {
        let now_ms = self.now_ms;
        let status = allocate_channel_status(
            &mut self.counters,
            SEND_CHANNEL_STATUS_TYPE_ID,
            SEND_CHANNEL_STATUS_NAME,
            registration_id,
            &channel.original_uri,
            bound,
            now_ms,
        )?;
        let num_destinations = if channel.is_multi_destination() {
            match allocate_channel_counter(
                &mut self.counters,
                CHANNEL_NUM_DESTINATIONS_TYPE_ID,
                CHANNEL_NUM_DESTINATIONS_NAME,
                registration_id,
                &channel.original_uri,
                now_ms,
            ) {
                Ok(p) => Some(p),
                Err(e) => {
                    free_counter(&mut self.counters, status.counter_id(), now_ms);
                    return Err(e);
                }
            }
        } else {
            None
        };
        match allocate_local_sockaddr(
            &mut self.counters,
            SND_LOCAL_SOCKADDR_NAME,
            registration_id,
            status.counter_id(),
            bound,
            now_ms,
        ) {
            Ok(local_sockaddr) => Ok((status, num_destinations, local_sockaddr)),
            Err(e) => {
                if let Some(p) = &num_destinations {
                    free_counter(&mut self.counters, p.counter_id(), now_ms);
                }
                free_counter(&mut self.counters, status.counter_id(), now_ms);
                Err(e)
            }
        }
    }

    /// The MTU must not exceed the socket send buffer (the channel's, the driver's, else
    /// the OS default).
    fn check_mtu_for_sndbuf(&self, params: &PublicationParams, socket_sndbuf_length: usize) -> Result<()> {
        let sndbuf = if socket_sndbuf_length != 0 {
            socket_sndbuf_length
        } else {
            usize::try_from(self.os_buffer_lengths.default_so_sndbuf).unwrap_or(0)
        };
        if sndbuf != 0 && params.mtu_length > sndbuf {
            return Err(invalid_param(format!(
                "MTU greater than SO_SNDBUF: mtu={} so-sndbuf={sndbuf}",
                params.mtu_length
            )));
        }
        Ok(())
    }
}
