//! Destination commands (`spec/control-protocol.md` §5.5-5.6, Aeron C
//! `aeron_driver_conductor_on_{add,remove}_send_destination`,
//! `..._on_add_receive_{network,ipc,spy}_destination` and their removals):
//!
//! * ADD_DESTINATION / REMOVE_DESTINATION / REMOVE_DESTINATION_BY_ID change the destination
//!   set of a publication whose channel has `control-mode=manual` (multi-destination-cast).
//!   The ADD's correlation id is the destination's registration id.
//! * ADD_RCV_DESTINATION / REMOVE_RCV_DESTINATION change the receive destinations of a
//!   subscription with `control-mode=manual` (multi-destination subscription): a UDP
//!   channel becomes another socket feeding the same images; `aeron:ipc` and `aeron-spy:`
//!   channels link the subscription to IPC publications or spied network publications.
//!
//! A destination channel must not set what only the endpoint may (`mtu`, `rcv-wnd`,
//! `so-rcvbuf`, `so-sndbuf`, `response-correlation-id`) nor `control-mode=response`, and
//! a send destination needs a UDP `endpoint` with a port. Removing a destination the
//! channel does not have is an error here, where Aeron's drivers answer success: the
//! conductor knows every destination, and a caller that named the wrong one should hear
//! of it. Each failure is an ON_ERROR with Aeron's code (Java's where Aeron C answers a
//! bare errno); REMOVE_DESTINATION_BY_ID answers failures with ON_ERROR as Java's driver
//! does (Aeron C's stays silent, leaving the client to time out).
#![forbid(unsafe_code)]

use std::sync::Arc;

use crate::command::{DestinationByIdMessage, DestinationMessage};
use crate::concurrent::counters::type_ids::RCV_LOCAL_SOCKADDR_NAME;
use crate::driver::agent_proxy::{ReceiverCommand, SenderCommand};
use crate::driver::conductor::Conductor;
use crate::driver::conductor::commands::{IPC_CHANNEL_PREFIX, SPY_CHANNEL_PREFIX};
use crate::driver::conductor::params::{SubscriptionParams, invalid_channel};
use crate::driver::conductor::receive_endpoints::ReceiveDestinationRecord;
use crate::driver::conductor::subscription_registry::{
    SpySubscriptionLink, SubscriptionKey, SubscriptionLink,
};
use crate::driver::media::name_resolver::resolve_host_and_port_with;
use crate::driver::media::receive_destination::ReceiveDestination;
use crate::driver::media::socket_address::format_source_identity;
use crate::driver::media::udp_channel::{UdpChannel, UdpControlMode, same_address};
use crate::driver::media::udp_transport::SocketBuffers;
use crate::driver::position_counters::{CHANNEL_STATUS_ACTIVE, allocate_local_sockaddr};
use crate::uri::keys::{
    CONTROL_MODE, CONTROL_MODE_RESPONSE, ENDPOINT, MTU, RECEIVER_WINDOW, RESPONSE_CORRELATION_ID,
    SOCKET_RCVBUF, SOCKET_SNDBUF,
};
use crate::uri::{ChannelUri, Media};
use crate::util::error::{AeronErrorCode, Error, Result};

/// Keys only a channel endpoint may set, never one of its destinations.
const INVALID_DESTINATION_KEYS: [&str; 5] =
    [MTU, RECEIVER_WINDOW, SOCKET_RCVBUF, SOCKET_SNDBUF, RESPONSE_CORRELATION_ID];

fn check_destination_params(uri: &ChannelUri, channel: &str) -> Result<()> {
    if let Some(key) = INVALID_DESTINATION_KEYS.iter().find(|k| uri.contains(k)) {
        return Err(invalid_channel(format!(
            "destinations must not contain the key: {key} channel={channel}"
        )));
    }
    if uri.get(CONTROL_MODE) == Some(CONTROL_MODE_RESPONSE) {
        return Err(invalid_channel(format!(
            "destinations may not specify {CONTROL_MODE}={CONTROL_MODE_RESPONSE}: channel={channel}"
        )));
    }
    Ok(())
}

/// INVALID_CHANNEL as Java's driver answers (Aeron C: EINVAL, a generic error).
fn manual_control_refused(channel: &str) -> Error {
    invalid_channel(format!("channel does not allow manual control of destinations: {channel}"))
}

impl Conductor {
    /// The send endpoint of network publication `registration_id` (its id and index),
    /// which must allow manual destinations.
    fn manual_send_endpoint(
        &self,
        client_id: i64,
        registration_id: i64,
        what: &str,
        shown: &str,
    ) -> Result<(i64, usize)> {
        let publication = self.publications.find_network(registration_id).ok_or_else(|| {
            Error::aeron(
                AeronErrorCode::UnknownPublication,
                format!("unknown {what} client_id={client_id} registration_id={registration_id}"),
            )
        })?;
        let endpoint_id = publication.identity.endpoint_id;
        let index = self
            .endpoints
            .send
            .index_of(endpoint_id)
            .ok_or_else(|| Error::illegal_state(format!("send endpoint {endpoint_id} is gone")))?;
        if !self.endpoints.send[index].is_manual() {
            return Err(manual_control_refused(shown));
        }
        Ok((endpoint_id, index))
    }

    /// The address of a send destination's `endpoint`, and the `endpoint` text.
    fn send_destination_address(&mut self, channel: &str) -> Result<(std::net::SocketAddr, Arc<str>)> {
        if channel.starts_with(SPY_CHANNEL_PREFIX) {
            return Err(invalid_channel(format!("Aeron spies are invalid as send destinations: {channel}")));
        }
        let uri = ChannelUri::parse(channel)
            .map_err(|e| invalid_channel(format!("{} channel={channel}", e.message())))?;
        check_destination_params(&uri, channel)?;
        let endpoint = match (uri.media(), uri.get(ENDPOINT)) {
            (Media::Udp, Some(endpoint)) => endpoint,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "incorrect URI format for destination: {channel}"
                )));
            }
        };
        let address = resolve_host_and_port_with(&mut self.name_resolver, ENDPOINT, endpoint, false)?;
        if address.port() == 0 {
            return Err(Error::invalid_argument(format!(
                "{ENDPOINT} has port=0 for send destination: channel={channel}"
            )));
        }
        Ok((address, Arc::from(endpoint)))
    }

    pub(crate) fn on_add_destination(&mut self, m: &DestinationMessage<'_>) -> Result<()> {
        let channel = m.channel_str()?;
        let (endpoint_id, index) =
            self.manual_send_endpoint(m.correlated.client_id, m.registration_id, "add destination", channel)?;
        let (address, endpoint_name) = self.send_destination_address(channel)?;
        let registration_id = m.correlated.correlation_id;
        let destinations = &mut self.endpoints.send[index].manual_destinations;
        destinations.push((registration_id, address, Arc::clone(&endpoint_name)));
        self.sender_proxy.send(SenderCommand::AddDestination {
            endpoint_id,
            address,
            registration_id,
            endpoint_name,
        });
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        Ok(())
    }

    pub(crate) fn on_remove_destination(&mut self, m: &DestinationMessage<'_>) -> Result<()> {
        let channel = m.channel_str()?;
        let (endpoint_id, index) = self.manual_send_endpoint(
            m.correlated.client_id,
            m.registration_id,
            "remove destination",
            channel,
        )?;
        let (address, _) = self.send_destination_address(channel)?;
        let destinations = &mut self.endpoints.send[index].manual_destinations;
        let Some(i) = destinations.iter().position(|(_, a, _)| same_address(a, &address)) else {
            return Err(Error::invalid_argument(format!("unknown destination: {channel}")));
        };
        destinations.remove(i);
        self.sender_proxy.send(SenderCommand::RemoveDestination { endpoint_id, address });
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        Ok(())
    }

    pub(crate) fn on_remove_destination_by_id(&mut self, m: &DestinationByIdMessage) -> Result<()> {
        let shown = m.resource_registration_id.to_string();
        let (endpoint_id, index) = self.manual_send_endpoint(
            m.correlated.client_id,
            m.resource_registration_id,
            "remove destination",
            &shown,
        )?;
        let destinations = &mut self.endpoints.send[index].manual_destinations;
        let Some(i) = destinations.iter().position(|(id, _, _)| *id == m.destination_registration_id) else {
            return Err(Error::invalid_argument(format!(
                "unknown destination registration_id={}",
                m.destination_registration_id
            )));
        };
        destinations.remove(i);
        self.sender_proxy.send(SenderCommand::RemoveDestinationById {
            endpoint_id,
            registration_id: m.destination_registration_id,
        });
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        Ok(())
    }

    /// The network subscription `registration_id`, which must be a multi-destination one:
    /// its index, its endpoint's index.
    fn mds_subscription(&self, client_id: i64, registration_id: i64) -> Result<(usize, usize)> {
        let Some(link) = self.subscriptions.network.index_of(registration_id) else {
            return Err(Error::aeron(
                AeronErrorCode::UnknownSubscription,
                format!("unknown subscription client_id={client_id} registration_id={registration_id}"),
            ));
        };
        let endpoint_id = self.subscriptions.network[link].endpoint_id;
        let endpoint = self
            .endpoints
            .receive
            .index_of(endpoint_id)
            .ok_or_else(|| Error::illegal_state(format!("receive endpoint {endpoint_id} is gone")))?;
        if self.endpoints.receive[endpoint].channel.control_mode != UdpControlMode::Manual {
            return Err(invalid_channel("channel does not allow manual control"));
        }
        Ok((link, endpoint))
    }

    pub(crate) fn on_add_rcv_destination(&mut self, m: &DestinationMessage<'_>) -> Result<()> {
        let channel = m.channel_str()?;
        let (link, endpoint) = self.mds_subscription(m.correlated.client_id, m.registration_id)?;
        if channel.starts_with(IPC_CHANNEL_PREFIX) {
            return self.add_ipc_rcv_destination(m, link, channel);
        }
        if channel.starts_with(SPY_CHANNEL_PREFIX) {
            return self.add_spy_rcv_destination(m, link, channel);
        }
        let udp = UdpChannel::parse_destination(channel, &mut self.name_resolver)?;
        check_destination_params(&udp.uri, channel)?;
        let endpoint_channel = &self.endpoints.receive[endpoint].channel;
        let buffers = SocketBuffers {
            so_sndbuf: endpoint_channel.socket_sndbuf_or(self.ctx.socket_so_sndbuf),
            so_rcvbuf: endpoint_channel.socket_rcvbuf_or(self.ctx.socket_so_rcvbuf),
        };
        let destination_id = m.correlated.correlation_id;
        let bind_address = self.endpoints.receive_port(&udp, udp.remote_data)?;
        let opened = ReceiveDestination::open(
            destination_id,
            &udp,
            bind_address,
            buffers,
            self.ctx.socket_multicast_ttl,
            self.ctx.mtu_length,
            self.endpoints.media(),
        );
        let endpoint_channel = &self.endpoints.receive[endpoint].channel;
        let opened = opened.and_then(|d| d.enable_timestamps(endpoint_channel).map(|()| d));
        let destination = match opened {
            Ok(destination) => destination,
            Err(e) => {
                self.endpoints.free_receive_port(Some(bind_address));
                return Err(e);
            }
        };
        let bound = format_source_identity(&destination.local_addr());
        let status_counter_id = self.endpoints.receive[endpoint].status.counter_id();
        let local_sockaddr = match allocate_local_sockaddr(
            &mut self.counters,
            RCV_LOCAL_SOCKADDR_NAME,
            m.registration_id,
            status_counter_id,
            &bound,
            self.now_ms,
        ) {
            Ok(local_sockaddr) => local_sockaddr,
            Err(e) => {
                drop(destination);
                self.endpoints.free_receive_port(Some(bind_address));
                return Err(e);
            }
        };
        local_sockaddr.set_release(CHANNEL_STATUS_ACTIVE);
        let entry = &mut self.endpoints.receive[endpoint];
        entry.destinations.push(ReceiveDestinationRecord {
            id: destination_id,
            canonical_form: destination.canonical_form().to_string(),
            local_sockaddr,
            removing: false,
            bind_address,
        });
        self.receiver_proxy.send(ReceiverCommand::AddDestination {
            endpoint_id: entry.id,
            destination: Box::new(destination),
        });
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        Ok(())
    }

    /// A receive destination on `channel` of the subscription whose network link is `link`.
    fn destination_key<'c>(
        &self,
        m: &DestinationMessage<'_>,
        link: usize,
        channel: &'c str,
    ) -> SubscriptionKey<'c> {
        SubscriptionKey {
            registration_id: m.registration_id,
            client_id: m.correlated.client_id,
            stream_id: self.subscriptions.network[link].stream_id,
            channel,
        }
    }

    /// An `aeron:ipc` destination: the subscription also reads matching IPC publications.
    fn add_ipc_rcv_destination(
        &mut self,
        m: &DestinationMessage<'_>,
        link: usize,
        channel: &str,
    ) -> Result<()> {
        let uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(e.message().to_string()))?;
        let params = SubscriptionParams::parse(&self.ctx, |key| uri.get(key))?;
        let key = self.destination_key(m, link, channel);
        let link_index = self.subscriptions.ipc.add(SubscriptionLink::new(key, params));
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        self.link_new_ipc_subscription(link_index)
    }

    /// An `aeron-spy:` destination: the subscription also reads matching local network
    /// publications.
    fn add_spy_rcv_destination(
        &mut self,
        m: &DestinationMessage<'_>,
        link: usize,
        channel: &str,
    ) -> Result<()> {
        let udp = UdpChannel::parse_destination(channel, &mut self.name_resolver)?;
        let params = SubscriptionParams::parse(&self.ctx, |key| udp.uri.get(key))?;
        let key = self.destination_key(m, link, channel);
        let link_index = self.subscriptions.spy.add(SpySubscriptionLink::new(key, &udp, params));
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        self.link_new_spy(link_index)
    }

    pub(crate) fn on_remove_rcv_destination(&mut self, m: &DestinationMessage<'_>) -> Result<()> {
        let channel = m.channel_str()?;
        if channel.starts_with(IPC_CHANNEL_PREFIX) || channel.starts_with(SPY_CHANNEL_PREFIX) {
            return self.remove_local_rcv_destination(m, channel);
        }
        let (_, endpoint) = self.mds_subscription(m.correlated.client_id, m.registration_id)?;
        let udp = UdpChannel::parse_destination(channel, &mut self.name_resolver)?;
        let entry = &mut self.endpoints.receive[endpoint];
        let record =
            entry.destinations.iter_mut().find(|d| !d.removing && d.canonical_form == udp.canonical_form);
        let Some(record) = record else {
            return Err(Error::invalid_argument(format!("unknown destination: {channel}")));
        };
        record.removing = true;
        let endpoint_id = entry.id;
        // The receiver closes it and answers; its counter is freed then.
        self.receiver_proxy
            .send(ReceiverCommand::RemoveDestination { endpoint_id, canonical_form: udp.canonical_form });
        self.proxy.on_operation_succeeded(m.correlated.correlation_id);
        Ok(())
    }

    /// Removes the IPC or spy destination link with exactly this channel.
    fn remove_local_rcv_destination(&mut self, m: &DestinationMessage<'_>, channel: &str) -> Result<()> {
        let unknown = || {
            Error::aeron(
                AeronErrorCode::UnknownSubscription,
                format!(
                    "unknown subscription client_id={} registration_id={}",
                    m.correlated.client_id, m.registration_id
                ),
            )
        };
        if channel.starts_with(IPC_CHANNEL_PREFIX) {
            let link =
                self.subscriptions.ipc.take_destination(m.registration_id, channel).ok_or_else(unknown)?;
            self.proxy.on_operation_succeeded(m.correlated.correlation_id);
            for publication_id in &link.linked_publications {
                self.proxy.on_unavailable_image(
                    *publication_id,
                    link.registration_id,
                    link.stream_id,
                    channel,
                );
            }
            self.unlink_ipc_subscription(&link);
        } else {
            let link =
                self.subscriptions.spy.take_destination(m.registration_id, channel).ok_or_else(unknown)?;
            self.proxy.on_operation_succeeded(m.correlated.correlation_id);
            self.unlink_spy(&link, true);
        }
        Ok(())
    }
}
