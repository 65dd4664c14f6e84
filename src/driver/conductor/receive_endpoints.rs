//! Receive channel endpoints as the conductor manages them (`spec/channel-uri.md` §2.1,
//! `spec/counters.md` §7.2, §7.4): one per canonical form (or referred to by `tags=`),
//! shared by every network subscription on it, with its `rcv-channel` status counter, one
//! `rcv-local-sockaddr` counter per receive destination, and a reference count per
//! subscribed stream. Sockets are bound here (so a bind error reaches the client) and
//! handed to the receiver; the endpoint closes when no subscription and no image uses it
//! any more and the receiver released it. A multi-destination subscription's endpoint
//! (`control-mode=manual`) starts with no destination; ADD_RCV_DESTINATION brings them.
//! Response subscriptions still waiting for their session are counted apart: they keep the
//! endpoint open, but the receiver hears of them only once they have a session.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::concurrent::counters::type_ids::{
    RCV_LOCAL_SOCKADDR_NAME, RECEIVE_CHANNEL_STATUS_NAME, RECEIVE_CHANNEL_STATUS_TYPE_ID,
};
use crate::driver::agent_proxy::ReceiverCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::endpoint_registry::RegisteredEndpoint;
use crate::driver::conductor::endpoints::check_shared_buffers;
use crate::driver::conductor::network_params::NetworkSubscriptionParams;
use crate::driver::conductor::params::invalid_param;
use crate::driver::conductor::session_ids::random_i32;
use crate::driver::media::receive_channel_endpoint::{ReceiveChannelEndpoint, ReceiveEndpointSettings};
use crate::driver::media::socket_address::format_source_identity;
use crate::driver::media::timestamps::ChannelTimestamps;
use crate::driver::media::udp_channel::{UdpChannel, UdpControlMode};
use crate::driver::media::udp_transport::SocketBuffers;
use crate::driver::position_counters::{
    CHANNEL_STATUS_ACTIVE, Position, allocate_channel_status, allocate_local_sockaddr, free_counter,
};
use crate::util::error::Result;

/// Subscriptions to one stream (and optionally one session) on an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRef {
    pub stream_id: i32,
    pub session_id: Option<i32>,
    pub count: i32,
}

/// A receive destination of an endpoint, as the conductor remembers it.
#[derive(Debug)]
pub struct ReceiveDestinationRecord {
    /// The destination's id in the receiver (the subscription's registration id for the
    /// endpoint's own, the ADD_RCV_DESTINATION's correlation id otherwise).
    pub id: i64,
    pub canonical_form: String,
    pub local_sockaddr: Position,
    /// REMOVE_RCV_DESTINATION went to the receiver; freed when it answers.
    pub removing: bool,
    /// What the receiver's port manager said to bind; freed when the destination goes.
    pub bind_address: std::net::SocketAddr,
}

#[derive(Debug)]
pub struct ReceiveEndpointEntry {
    /// Registration id of the subscription that created it; names the endpoint.
    pub id: i64,
    pub channel: UdpChannel,
    pub status: Position,
    pub destinations: Vec<ReceiveDestinationRecord>,
    /// The socket buffer sizes its sockets were opened with (0 = OS default).
    pub buffers: SocketBuffers,
    pub stream_refs: Vec<StreamRef>,
    /// Response subscriptions per stream not yet given a session (Aeron's response stream
    /// reference counts); `session_id` is always `None`.
    pub response_stream_refs: Vec<StreamRef>,
    pub image_ref_count: i32,
}

impl RegisteredEndpoint for ReceiveEndpointEntry {
    fn id(&self) -> i64 {
        self.id
    }

    fn channel(&self) -> &UdpChannel {
        &self.channel
    }

    fn status(&self) -> &Position {
        &self.status
    }

    /// A subscription, a waiting response subscription or an image needs it.
    fn in_use(&self) -> bool {
        !(self.stream_refs.is_empty() && self.response_stream_refs.is_empty() && self.image_ref_count <= 0)
    }

    fn free_counters(&self, counters: &mut CountersManager, now_ms: i64) {
        for destination in &self.destinations {
            free_counter(counters, destination.local_sockaddr.counter_id(), now_ms);
        }
        free_counter(counters, self.status.counter_id(), now_ms);
    }

    fn bind_addresses(&self) -> Vec<std::net::SocketAddr> {
        self.destinations.iter().map(|d| d.bind_address).collect()
    }
}

impl Conductor {
    /// The open endpoint `channel` refers to by tag or shares by canonical form (Aeron C
    /// `aeron_driver_conductor_find_existing_receive_channel_endpoint`).
    pub(crate) fn find_existing_receive_endpoint(&self, channel: &UdpChannel) -> Result<Option<usize>> {
        if let Some(index) = self.endpoints.receive.find_by_tag(channel)? {
            return Ok(Some(index));
        }
        Ok(self.endpoints.receive.find_by_canonical_form(channel))
    }

    /// The open endpoint for `channel`'s canonical form, or a new one named
    /// `registration_id`. The initial window must fit the socket receive buffer.
    pub(crate) fn get_or_add_receive_endpoint(
        &mut self,
        channel: &UdpChannel,
        params: &NetworkSubscriptionParams,
        registration_id: i64,
    ) -> Result<usize> {
        let socket_rcvbuf = channel.socket_rcvbuf_or(self.ctx.socket_so_rcvbuf);
        let effective_rcvbuf = if socket_rcvbuf != 0 {
            socket_rcvbuf
        } else {
            usize::try_from(self.os_buffer_lengths.default_so_rcvbuf).unwrap_or(0)
        };
        if effective_rcvbuf != 0 && params.initial_window_length > effective_rcvbuf {
            return Err(invalid_param(format!(
                "initial window greater than SO_RCVBUF, increase so-rcvbuf or reduce rcv-wnd: window={} so-rcvbuf={effective_rcvbuf} channel={}",
                params.initial_window_length, channel.original_uri
            )));
        }
        if let Some(index) = self.find_existing_receive_endpoint(channel)? {
            ChannelTimestamps::check_shared(&self.endpoints.receive[index].channel, channel, true)?;
            self.endpoints.receive.reuse(index);
            let endpoint = &self.endpoints.receive[index];
            check_shared_buffers(
                &endpoint.channel,
                channel,
                [
                    ("so-rcvbuf", channel.socket_rcvbuf_length, endpoint.buffers.so_rcvbuf),
                    ("so-sndbuf", channel.socket_sndbuf_length, endpoint.buffers.so_sndbuf),
                ],
            )?;
            return Ok(index);
        }
        let buffers = SocketBuffers {
            so_sndbuf: channel.socket_sndbuf_or(self.ctx.socket_so_sndbuf),
            so_rcvbuf: socket_rcvbuf,
        };
        let receiver_id = (i64::from(random_i32()) << 32) ^ i64::from(random_i32() as u32);
        let settings = ReceiveEndpointSettings {
            buffers,
            receiver_id,
            group_tag: params.group_tag,
            stream_session_limit: usize::try_from(self.ctx.stream_session_limit).unwrap_or(usize::MAX),
            default_multicast_ttl: self.ctx.socket_multicast_ttl,
            max_images: self.ctx.network.max_images_per_endpoint as usize,
            max_images_per_source: self.ctx.network.max_images_per_source as usize,
            mtu_length: self.ctx.mtu_length,
            bind: channel.remote_data,
        };
        // A multi-destination endpoint binds nothing until destinations come.
        let bind = if channel.control_mode == UdpControlMode::Manual {
            None
        } else {
            Some(self.endpoints.receive_port(channel, channel.remote_data)?)
        };
        let opened = ReceiveChannelEndpoint::open(
            registration_id,
            channel,
            ReceiveEndpointSettings { bind: bind.unwrap_or(channel.remote_data), ..settings },
            self.endpoints.media(),
        );
        let endpoint = match opened {
            Ok(endpoint) => endpoint,
            Err(e) => {
                self.endpoints.free_receive_port(bind);
                return Err(e);
            }
        };
        let bound = endpoint.local_addr().map(|a| format_source_identity(&a)).unwrap_or_default();
        let status = match allocate_channel_status(
            &mut self.counters,
            RECEIVE_CHANNEL_STATUS_TYPE_ID,
            RECEIVE_CHANNEL_STATUS_NAME,
            registration_id,
            &channel.original_uri,
            &bound,
            self.now_ms,
        ) {
            Ok(status) => status,
            Err(e) => {
                drop(endpoint);
                self.endpoints.free_receive_port(bind);
                return Err(e);
            }
        };
        let mut destinations = Vec::with_capacity(1);
        for destination in endpoint.destinations() {
            match allocate_local_sockaddr(
                &mut self.counters,
                RCV_LOCAL_SOCKADDR_NAME,
                registration_id,
                status.counter_id(),
                &bound,
                self.now_ms,
            ) {
                Ok(local_sockaddr) => {
                    local_sockaddr.set_release(CHANNEL_STATUS_ACTIVE);
                    destinations.push(ReceiveDestinationRecord {
                        id: destination.id(),
                        canonical_form: destination.canonical_form().to_string(),
                        local_sockaddr,
                        removing: false,
                        bind_address: bind.unwrap_or(channel.remote_data),
                    });
                }
                Err(e) => {
                    free_counter(&mut self.counters, status.counter_id(), self.now_ms);
                    drop(endpoint);
                    self.endpoints.free_receive_port(bind);
                    return Err(e);
                }
            }
        }
        // Release: a client seeing ACTIVE may rely on the endpoint being bound.
        status.set_release(CHANNEL_STATUS_ACTIVE);
        self.receiver_proxy.send(ReceiverCommand::AddEndpoint(Box::new(endpoint)));
        Ok(self.endpoints.receive.push(ReceiveEndpointEntry {
            id: registration_id,
            channel: channel.clone(),
            status,
            destinations,
            buffers,
            stream_refs: Vec::new(),
            response_stream_refs: Vec::new(),
            image_ref_count: 0,
        }))
    }

    /// One more subscription to (`stream_id`, `session_id`): the first tells the receiver.
    pub(crate) fn incref_receive_stream(&mut self, index: usize, stream_id: i32, session_id: Option<i32>) {
        let endpoint = &mut self.endpoints.receive[index];
        match endpoint.stream_refs.iter_mut().find(|r| r.stream_id == stream_id && r.session_id == session_id)
        {
            Some(r) => r.count += 1,
            None => {
                endpoint.stream_refs.push(StreamRef { stream_id, session_id, count: 1 });
                self.receiver_proxy.send(ReceiverCommand::AddSubscription {
                    endpoint_id: endpoint.id,
                    stream_id,
                    session_id,
                });
            }
        }
    }

    /// One subscription fewer; the last tells the receiver, and an unused endpoint closes.
    pub(crate) fn decref_receive_stream(
        &mut self,
        endpoint_id: i64,
        stream_id: i32,
        session_id: Option<i32>,
    ) {
        let Some(endpoint) = self.endpoints.receive.find_mut(endpoint_id) else { return };
        if let Some(i) =
            endpoint.stream_refs.iter().position(|r| r.stream_id == stream_id && r.session_id == session_id)
        {
            endpoint.stream_refs[i].count -= 1;
            if endpoint.stream_refs[i].count <= 0 {
                endpoint.stream_refs.swap_remove(i);
                self.receiver_proxy.send(ReceiverCommand::RemoveSubscription {
                    endpoint_id,
                    stream_id,
                    session_id,
                });
            }
        }
        self.endpoints.receive.note_if_unused(endpoint_id, self.now_ns);
    }

    /// One more response subscription to `stream_id` waiting for its session.
    pub(crate) fn incref_response_stream(&mut self, index: usize, stream_id: i32) {
        let refs = &mut self.endpoints.receive[index].response_stream_refs;
        match refs.iter_mut().find(|r| r.stream_id == stream_id) {
            Some(r) => r.count += 1,
            None => refs.push(StreamRef { stream_id, session_id: None, count: 1 }),
        }
    }

    /// One waiting response subscription fewer (it got its session, or went away).
    pub(crate) fn decref_response_stream(&mut self, endpoint_id: i64, stream_id: i32) {
        let Some(endpoint) = self.endpoints.receive.find_mut(endpoint_id) else { return };
        let refs = &mut endpoint.response_stream_refs;
        if let Some(i) = refs.iter().position(|r| r.stream_id == stream_id) {
            refs[i].count -= 1;
            if refs[i].count <= 0 {
                refs.swap_remove(i);
            }
        }
        self.endpoints.receive.note_if_unused(endpoint_id, self.now_ns);
    }
}
