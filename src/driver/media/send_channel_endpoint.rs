//! `SendChannelEndpoint`: the socket the network publications of one channel (canonical
//! form) send from, where their data goes, and the dispatch of the control frames
//! receivers send back to it (`spec/wire-protocol.md` §5-9, Aeron C
//! `aeron_send_channel_endpoint.c`).
//!
//! Where data goes depends on the channel:
//! * unicast: to the `endpoint`, through a socket bound to the `interface` and connected to
//!   the endpoint when `AERON_DRIVER_CONNECT` (then only that peer's frames arrive);
//! * multicast: to the group, from a socket joined to the control group (group + 1) where
//!   the receivers' status messages and NAKs arrive;
//! * multi-destination-cast: to every destination of its [`DestinationTracker`], from a
//!   socket bound to the `control` address (dynamic) or the interface (manual).
//!
//! The conductor opens the endpoint, so a bind error reaches the client as ON_ERROR, and
//! hands it to the sender, which owns it from then on: the publications send through it.
//!
//! An RSP_SETUP (response channels) goes to the request publication it names, which hands
//! it on to the conductor.
//!
//! Every control frame is validated before use: the common header (length ≥ 8, version 0),
//! then the frame type's own checks (header length, frame length within the datagram).
//! Failures count as *Invalid packets* and are dropped. Frames for no publication of this
//! endpoint are ignored, as Aeron does.
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::net::SocketAddr;
use std::sync::Arc;

use super::destination_tracker::{DestinationTracker, MAX_DYNAMIC_DESTINATIONS};
use super::media_plugin::{Media, TransportAffinity, TransportSpec};
use super::timestamps::apply_timestamp;
use super::transport_poller::TransportSet;
use super::udp_channel::{UdpChannel, UdpControlMode};
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::driver::network_publication::NetworkPublication;
use crate::driver::position_counters::Position;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::protocol::header::{
    FrameHeader, HDR_TYPE_ERR, HDR_TYPE_NAK, HDR_TYPE_RSP_SETUP, HDR_TYPE_RTTM, HDR_TYPE_SM,
    MAX_UDP_PAYLOAD_LENGTH,
};
use crate::protocol::{
    ErrorFrameFlyweight, NakFlyweight, ResponseSetupFlyweight, RttmFlyweight, StatusMessageFlyweight,
};
use crate::uri::TimestampOffset;
use crate::util::clock::epoch_ns;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::MAX_BATCH;

/// Datagrams a publication scans into one send message when the socket segments (aeronrs
/// only): eight MTU datagrams are one system-call message of ~11 KiB at the default MTU.
pub const GSO_DATAGRAMS_PER_MESSAGE: usize = 8;

/// How an endpoint is opened, beyond its channel.
#[derive(Debug, Clone)]
pub struct SendEndpointSettings {
    pub buffers: SocketBuffers,
    /// `AERON_DRIVER_CONNECT`: connect a unicast or multicast socket to its endpoint.
    pub connect: bool,
    /// `AERON_SOCKET_MULTICAST_TTL`, used when the channel gives no `ttl` (0 = OS default).
    pub default_multicast_ttl: u8,
    /// The `mdc-num-dest` counter of a multi-destination endpoint.
    pub num_destinations: Option<Position>,
    /// The MTU of the publication that opens it (transport plug-ins are told).
    pub mtu_length: usize,
    /// The driver's media: its own sockets or a plug-in.
    pub media: Media,
    /// What to bind, as the sender's port manager gave it (default: [`SendChannelEndpoint::bind_address`]).
    pub bind: Option<SocketAddr>,
}

/// Where the endpoint's data goes.
#[derive(Debug)]
enum Route {
    /// The socket is connected to the endpoint.
    Connected,
    /// Unconnected: every datagram names this address (unicast endpoint or group).
    To(SocketAddr),
    /// Multi-destination-cast.
    Destinations(DestinationTracker),
}

/// A bound send socket and its route, identified by the registration id the conductor
/// gave the endpoint.
#[derive(Debug)]
pub struct SendChannelEndpoint {
    id: i64,
    transport: Arc<UdpTransport>,
    route: Route,
    is_unicast: bool,
    /// A forged or runaway receiver set hit the dynamic bound; reported once.
    reported_destination_bound: bool,
    /// `channel-snd-ts-offset`, and where stamped copies of datagrams are made (the log
    /// the datagrams come from is shared memory the sender does not write).
    send_timestamp: Option<(TimestampOffset, RefCell<Box<[u8]>>)>,
    /// The `endpoint` text of a unicast channel (not multicast, not multi-destination),
    /// re-resolved when its receiver goes quiet.
    endpoint_name: Option<Arc<str>>,
    /// Where data goes now (unicast: the endpoint as last resolved).
    current_data_address: SocketAddr,
    /// When a status message last arrived (from the opening on).
    time_of_last_sm_ns: i64,
    /// When the endpoint's name was last handed out for re-resolution: once per quiet
    /// timeout, as Aeron.
    time_of_last_resolution_ns: i64,
}

/// A unicast receiver silent this long has its endpoint re-resolved (Aeron: 5 s).
pub const RE_RESOLUTION_QUIET_TIMEOUT_NS: i64 = 5_000_000_000;

impl TransportSet for SendChannelEndpoint {
    fn transport_count(&self) -> usize {
        1
    }

    fn transport(&self, _: usize) -> &UdpTransport {
        &self.transport
    }
}

impl SendChannelEndpoint {
    /// Opens the socket for `channel` as described above, through `settings.media`.
    pub fn open(id: i64, channel: &UdpChannel, settings: SendEndpointSettings) -> Result<Self> {
        let context = |e: Error| e.context(format_args!("uri={}", channel.original_uri));
        // A response channel sends to whichever subscription asked it: never connected (as
        // Java's driver).
        let connect = settings.connect
            && channel.has_explicit_endpoint
            && !channel.is_multi_destination()
            && !channel.is_response();
        let ttl =
            if channel.multicast_ttl != 0 { channel.multicast_ttl } else { settings.default_multicast_ttl };
        // Aeron's arguments: the "interface" of a unicast channel is its remote address.
        let multicast_if = if channel.is_multicast && !channel.is_multi_destination() {
            channel.local_control
        } else {
            channel.remote_control
        };
        let spec = TransportSpec {
            bind: settings.bind.unwrap_or_else(|| Self::bind_address(channel)),
            multicast_if,
            multicast_if_index: channel.interface_index,
            ttl,
            connect: connect.then_some(channel.remote_data),
            buffers: settings.buffers,
            mtu_length: settings.mtu_length,
            affinity: TransportAffinity::Sender,
        };
        let transport = UdpTransport::open(&settings.media, &spec, channel).map_err(context)?;
        let route = if channel.is_multi_destination() {
            let is_manual = channel.control_mode == UdpControlMode::Manual;
            Route::Destinations(DestinationTracker::new(is_manual, settings.num_destinations))
        } else if connect {
            Route::Connected
        } else {
            Route::To(channel.remote_data)
        };
        let is_unicast = !channel.is_multicast && !channel.is_multi_destination();
        let send_timestamp = channel.timestamps.channel_snd.map(|offset| {
            (offset, RefCell::new(vec![0u8; MAX_BATCH * MAX_UDP_PAYLOAD_LENGTH].into_boxed_slice()))
        });
        let endpoint_name = (is_unicast && channel.has_explicit_endpoint)
            .then(|| channel.uri.get(crate::uri::keys::ENDPOINT).map(Arc::from))
            .flatten();
        Ok(Self {
            id,
            transport: Arc::new(transport),
            route,
            is_unicast,
            reported_destination_bound: false,
            send_timestamp,
            endpoint_name,
            current_data_address: channel.remote_data,
            time_of_last_sm_ns: crate::util::clock::nano_time(),
            time_of_last_resolution_ns: crate::util::clock::nano_time(),
        })
    }

    /// The address the endpoint of `channel` binds before the port manager has its say
    /// (Aeron's): the control group of a multicast channel, else the local control address.
    pub fn bind_address(channel: &UdpChannel) -> SocketAddr {
        if channel.is_multicast && !channel.is_multi_destination() {
            channel.remote_control
        } else {
            channel.local_control
        }
    }

    #[inline]
    pub fn id(&self) -> i64 {
        self.id
    }

    pub fn transport(&self) -> &Arc<UdpTransport> {
        &self.transport
    }

    /// The bound address (after connect, the local address the kernel chose).
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Plain unicast: one receiver, whose EOS status message ends the publication's linger.
    pub fn is_unicast(&self) -> bool {
        self.is_unicast
    }

    pub fn destination_tracker(&self) -> Option<&DestinationTracker> {
        match &self.route {
            Route::Destinations(tracker) => Some(tracker),
            _ => None,
        }
    }

    pub fn destination_tracker_mut(&mut self) -> Option<&mut DestinationTracker> {
        match &mut self.route {
            Route::Destinations(tracker) => Some(tracker),
            _ => None,
        }
    }

    /// How many destinations were ever added (0 without a tracker): a publication sends
    /// SETUP when this moves, so a new receiver builds its image without waiting for data.
    #[inline]
    pub fn destination_additions(&self) -> u64 {
        self.destination_tracker().map_or(0, DestinationTracker::additions)
    }

    /// Sends `datagrams` in order wherever the channel sends (`destination` only, when
    /// given: a resend one receiver asked for), as one batch, stamped with the send time
    /// when the channel asks (`channel-snd-ts-offset`). Returns how many went whole (the
    /// fewest over all destinations); fewer than given is a short send.
    pub fn send_batch(&self, datagrams: &[&[u8]], destination: Option<SocketAddr>) -> Result<usize> {
        let Some((offset, scratch)) = &self.send_timestamp else {
            return self.send_batch_unstamped(datagrams, destination);
        };
        let mut scratch = scratch.borrow_mut();
        let now_ns = epoch_ns();
        let mut stamped: [&[u8]; MAX_BATCH] = [&[]; MAX_BATCH];
        let count = datagrams.len().min(MAX_BATCH);
        let mut slots = scratch.chunks_exact_mut(MAX_UDP_PAYLOAD_LENGTH);
        for (datagram, stamped) in datagrams.iter().zip(stamped.iter_mut()).take(count) {
            let Some(slot) = slots.next().and_then(|s| s.get_mut(..datagram.len())) else {
                return Err(Error::invalid_argument(format!("datagram of {} bytes", datagram.len())));
            };
            slot.copy_from_slice(datagram);
            apply_timestamp(slot, *offset, now_ns);
            *stamped = slot;
        }
        self.send_batch_unstamped(&stamped[..count], destination)
    }

    fn send_batch_unstamped(&self, datagrams: &[&[u8]], destination: Option<SocketAddr>) -> Result<usize> {
        if let Some(address) = destination {
            return self.transport.send_batch(datagrams, Some(address));
        }
        match &self.route {
            Route::Connected => self.transport.send_batch(datagrams, None),
            Route::To(address) => self.transport.send_batch(datagrams, Some(*address)),
            Route::Destinations(tracker) => tracker.send_batch(&self.transport, datagrams),
        }
    }

    /// How many MTU datagrams one send message may carry: with segmentation offload in use
    /// on the socket, [`GSO_DATAGRAMS_PER_MESSAGE`]; else one.
    #[inline]
    pub fn datagrams_per_message(&self) -> usize {
        if self.transport.is_segmenting() { GSO_DATAGRAMS_PER_MESSAGE } else { 1 }
    }

    /// Sends one datagram wherever the channel sends. Returns the bytes sent (fewest over
    /// all destinations); fewer than the datagram is a short send.
    #[inline]
    pub fn send(&self, datagram: &[u8]) -> Result<usize> {
        if self.send_timestamp.is_some() {
            let sent = self.send_batch(&[datagram], None)?;
            return Ok(if sent == 1 { datagram.len() } else { 0 });
        }
        match &self.route {
            Route::Connected => self.transport.send(datagram),
            Route::To(address) => self.transport.send_to(datagram, *address),
            Route::Destinations(tracker) => tracker.send(&self.transport, datagram),
        }
    }

    /// Sends one datagram to `destination` only (a resend one receiver asked for), or
    /// wherever the channel sends when `None`.
    #[inline]
    pub fn send_to(&self, datagram: &[u8], destination: Option<SocketAddr>) -> Result<usize> {
        if self.send_timestamp.is_some() {
            let sent = self.send_batch(&[datagram], destination)?;
            return Ok(if sent == 1 { datagram.len() } else { 0 });
        }
        match destination {
            Some(address) => self.transport.send_to(datagram, address),
            None => self.send(datagram),
        }
    }

    /// Hands `re_resolve` each name to resolve again with the address it has now: a
    /// unicast endpoint given by `endpoint` whose receiver has been quiet too long, or each
    /// quiet manual destination (the sender asks every
    /// `AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL`). Allocation-free.
    pub fn check_for_re_resolution(&mut self, now_ns: i64, mut re_resolve: impl FnMut(Arc<str>, SocketAddr)) {
        if let Route::Destinations(tracker) = &mut self.route {
            tracker.check_for_re_resolution(now_ns, re_resolve);
            return;
        }
        if let Some(name) = &self.endpoint_name
            && now_ns > self.time_of_last_sm_ns + RE_RESOLUTION_QUIET_TIMEOUT_NS
            && now_ns > self.time_of_last_resolution_ns + RE_RESOLUTION_QUIET_TIMEOUT_NS
        {
            self.time_of_last_resolution_ns = now_ns;
            re_resolve(Arc::clone(name), self.current_data_address);
        }
    }

    /// `endpoint_name` now resolves to `address`: data for it goes there from now on (a
    /// connected socket is connected to it; manual destinations of that name move).
    /// Whether anything moved.
    pub fn resolution_change(&mut self, endpoint_name: &str, address: SocketAddr) -> Result<bool> {
        match &mut self.route {
            Route::Connected => self.transport.reconnect(address).map_err(|e| {
                e.context(format_args!(
                    "failed to reconnect transport with re-resolved address: {}",
                    super::socket_address::format_source_identity(&address)
                ))
            })?,
            Route::To(to) => *to = address,
            Route::Destinations(tracker) => return Ok(tracker.update_address(endpoint_name, address) > 0),
        }
        self.current_data_address = address;
        Ok(true)
    }

    /// Drops dynamic destinations that went quiet (the sender's idle work).
    pub fn remove_inactive_destinations(&mut self, now_ns: i64) -> usize {
        self.destination_tracker_mut().map_or(0, |t| t.remove_inactive(now_ns))
    }

    /// Tracks a status message's receiver; an error once if the dynamic bound refused one.
    fn track_receiver(&mut self, receiver_id: i64, source: SocketAddr, now_ns: i64) -> Result<()> {
        let Route::Destinations(tracker) = &mut self.route else { return Ok(()) };
        if !tracker.on_status_message(receiver_id, source, now_ns) && !self.reported_destination_bound {
            self.reported_destination_bound = true;
            return Err(Error::invalid_argument(format!(
                "dynamic destinations of send endpoint {} at their bound of {MAX_DYNAMIC_DESTINATIONS}: receiver {receiver_id} at {source} not tracked",
                self.id
            )));
        }
        Ok(())
    }
}

/// Validates one received control datagram and hands it to the publication it is for.
/// Errors are those of sending a reply (RTTM, resend) or a refused receiver; the frame
/// itself never fails.
pub fn dispatch_control_frame(
    endpoint: &mut SendChannelEndpoint,
    datagram: &[u8],
    source: SocketAddr,
    publications: &mut [NetworkPublication],
    counters: &SystemCounters,
    now_ns: i64,
) -> Result<()> {
    let Ok(header) = FrameHeader::parse(datagram) else {
        counters.increment(SystemCounterId::InvalidPackets);
        return Ok(());
    };
    let endpoint_id = endpoint.id();
    let find = |publications: &mut [NetworkPublication], session_id: i32, stream_id: i32| {
        publications.iter_mut().position(|p| p.matches(endpoint_id, session_id, stream_id))
    };
    match header.frame_type() {
        HDR_TYPE_SM => {
            let Ok(sm) = StatusMessageFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            counters.increment(SystemCounterId::StatusMessagesReceived);
            endpoint.time_of_last_sm_ns = now_ns;
            let tracked = endpoint.track_receiver(sm.receiver_id(), source, now_ns);
            if let Some(i) = find(publications, sm.session_id(), sm.stream_id()) {
                if sm.is_send_setup() {
                    publications[i].on_setup_elicited(&sm, source, now_ns);
                } else {
                    publications[i].on_status_message(&sm, endpoint.is_unicast(), now_ns);
                }
            }
            tracked?;
        }
        HDR_TYPE_NAK => {
            let Ok(nak) = NakFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            counters.increment(SystemCounterId::NakMessagesReceived);
            if let Some(i) = find(publications, nak.session_id(), nak.stream_id()) {
                let destination = endpoint.destination_tracker().and_then(|t| t.find_for_nak(&source));
                publications[i].on_nak(&nak, destination, endpoint, now_ns)?;
            }
        }
        HDR_TYPE_RTTM => {
            let Ok(rttm) = RttmFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            if let Some(i) = find(publications, rttm.session_id(), rttm.stream_id()) {
                publications[i].on_rttm(&rttm, endpoint)?;
            }
        }
        HDR_TYPE_ERR => {
            let Ok(err) = ErrorFrameFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            counters.increment(SystemCounterId::ErrorFramesReceived);
            if let Some(i) = find(publications, err.session_id(), err.stream_id()) {
                let destination_registration_id = endpoint
                    .destination_tracker()
                    .map_or(-1, |t| t.find_registration_id(err.receiver_id(), &source));
                publications[i].on_error(&err, source, destination_registration_id, now_ns);
            }
        }
        HDR_TYPE_RSP_SETUP => {
            let Ok(rsp) = ResponseSetupFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            if let Some(i) = find(publications, rsp.session_id(), rsp.stream_id()) {
                publications[i].on_response_setup(&rsp);
            }
        }
        // DATA, SETUP and unknown types are not for a sender: ignored, as Aeron does.
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn settings(default_multicast_ttl: u8) -> SendEndpointSettings {
        SendEndpointSettings {
            buffers: SocketBuffers::default(),
            connect: true,
            default_multicast_ttl,
            num_destinations: None,
            mtu_length: 1408,
            media: Media::default(),
            bind: None,
        }
    }

    fn receive(socket: &std::net::UdpSocket) -> Option<Vec<u8>> {
        let mut buffer = [0u8; 64];
        socket.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        socket.recv(&mut buffer).ok().map(|n| buffer[..n].to_vec())
    }

    #[test]
    fn multicast_ttl_is_the_channels_else_the_drivers() {
        let port = std::net::UdpSocket::bind("0.0.0.0:0").unwrap().local_addr().unwrap().port();
        let channel = |extra: &str| {
            UdpChannel::parse(&format!("aeron:udp?endpoint=239.255.78.1:{port}|interface=127.0.0.1{extra}"))
                .unwrap()
        };
        let by_driver = SendChannelEndpoint::open(1, &channel(""), settings(5)).unwrap();
        assert_eq!(by_driver.transport().multicast_ttl().unwrap(), 5);
        assert!(!by_driver.is_unicast());
        let by_channel = SendChannelEndpoint::open(2, &channel("|ttl=9"), settings(5)).unwrap();
        assert_eq!(by_channel.transport().multicast_ttl().unwrap(), 9);
        // Bound to the control group's port on the wildcard address, as Aeron reports it.
        assert_eq!(by_channel.local_addr(), SocketAddr::from(([0, 0, 0, 0], port)));
    }

    #[test]
    fn manual_mdc_sends_to_every_destination_and_a_resend_to_one() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let channel = UdpChannel::parse("aeron:udp?control-mode=manual|interface=127.0.0.1").unwrap();
        let mut endpoint = SendChannelEndpoint::open(1, &channel, settings(0)).unwrap();
        assert!(!endpoint.is_unicast());
        let tracker = endpoint.destination_tracker_mut().unwrap();
        tracker.add_manual(a.local_addr().unwrap(), 10, None, 0);
        tracker.add_manual(b.local_addr().unwrap(), 11, None, 0);
        assert_eq!(endpoint.destination_additions(), 2);
        assert_eq!(endpoint.send(b"to all").unwrap(), 6);
        assert_eq!((receive(&a).unwrap(), receive(&b).unwrap()), (b"to all".to_vec(), b"to all".to_vec()));
        assert_eq!(endpoint.send_to(b"to a", Some(a.local_addr().unwrap())).unwrap(), 4);
        assert_eq!(receive(&a).unwrap(), b"to a");
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            assert_eq!(receive(&b), None, "a resend for a alone reached b");
        }
    }

    #[test]
    fn dynamic_mdc_learns_receivers_from_status_messages() {
        use crate::concurrent::AtomicBuffer;
        use crate::concurrent::counters::CountersManager;
        use crate::protocol::status_message::StatusMessage;
        let values = AtomicBuffer::alloc(64 * 128);
        let mut manager = CountersManager::new(AtomicBuffer::alloc(64 * 512), values, 0).unwrap();
        let counters = SystemCounters::allocate(&mut manager, 0).unwrap();
        let channel = UdpChannel::parse("aeron:udp?control=127.0.0.1:0|control-mode=dynamic").unwrap();
        let mut endpoint = SendChannelEndpoint::open(1, &channel, settings(0)).unwrap();
        let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let sm = StatusMessage::setup_elicitation(0, 0, 77, None);
        let mut frame = [0u8; 44];
        let length = sm.encode(&mut frame).unwrap();
        let source = receiver.local_addr().unwrap();
        dispatch_control_frame(&mut endpoint, &frame[..length], source, &mut [], &counters, 0).unwrap();
        let tracker = endpoint.destination_tracker().unwrap();
        assert_eq!(tracker.len(), 1);
        assert_eq!(
            (tracker.destinations()[0].address, tracker.destinations()[0].receiver_id),
            (source, Some(77))
        );
        assert_eq!(counters.value(SystemCounterId::StatusMessagesReceived), 1);
        endpoint.send(b"data").unwrap();
        assert_eq!(receive(&receiver).unwrap(), b"data");
        // Silent for the destination timeout: dropped.
        assert_eq!(
            endpoint
                .remove_inactive_destinations(super::super::destination_tracker::DESTINATION_TIMEOUT_NS + 1),
            1
        );
        // A truncated SM is an invalid packet, not a destination.
        dispatch_control_frame(&mut endpoint, &frame[..20], source, &mut [], &counters, 0).unwrap();
        assert_eq!(counters.value(SystemCounterId::InvalidPackets), 1);
        assert!(endpoint.destination_tracker().unwrap().is_empty());
    }
}
