//! `ReceiveChannelEndpoint`: what every subscription on one channel (canonical form)
//! shares: its receive destinations (one socket bound to the channel's endpoint, or for a
//! multi-destination subscription one per ADD_RCV_DESTINATION), the dispatch of what
//! arrives on them (`spec/wire-protocol.md` §3-7, Aeron C
//! `aeron_receive_channel_endpoint_dispatch`), and the frames the receiver sends back:
//! status messages, NAKs, RTT measurements, each through the destination it answers.
//!
//! A destination with an explicit `control` address (a subscription to a dynamic
//! multi-destination-cast publication) announces itself there: a setup-eliciting status
//! message for session 0 when added and every second while streams are subscribed, so
//! the publication adds it as a destination before any data flowed. A subscription to one
//! session there (a response subscription that learnt its session) asks for that session's
//! SETUP straight away: the publication answers to where the request came from.
//!
//! Every datagram is validated before use: the common header (length ≥ 8, version 0), then
//! the type's own checks, then — for data — every frame against the image's term
//! (`data_datagram`). What fails counts as *Invalid packets* and is dropped. Frames of
//! streams nobody subscribed to are ignored, as Aeron does.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use super::data_datagram::{DataDatagram, validate_data_datagram};
use super::data_packet_dispatcher::{DataPacketDispatcher, SessionState};
use super::media_plugin::Media;
use super::receive_destination::ReceiveDestination;
use super::timestamps::{ChannelTimestamps, apply_timestamp};
use super::transport_poller::TransportSet;
use super::udp_channel::{UdpChannel, UdpControlMode};
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::driver::agent_proxy::{ConductorCommand, CreateImageRequest, Proxy};
use crate::driver::publication_image::{DestinationTransports, FrameSource, PublicationImage};
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::protocol::error_frame::{ErrorFrame, MAX_ERROR_FRAME_LENGTH};
use crate::protocol::header::{
    EOS_FLAG, FrameHeader, HDR_TYPE_DATA, HDR_TYPE_PAD, HDR_TYPE_RTTM, HDR_TYPE_SETUP,
};
use crate::protocol::rttm::{RTTM_HEADER_LENGTH, Rttm};
use crate::protocol::status_message::{SM_HEADER_LENGTH_WITH_GROUP_TAG, StatusMessage};
use crate::protocol::{DataFlyweight, RttmFlyweight, SetupFlyweight};
use crate::util::clock::epoch_ns;
use crate::util::error::{Error, Result};

/// A session that elicited a SETUP may do so again after this long (Aeron
/// `AERON_DRIVER_RECEIVER_PENDING_SETUP_TIMEOUT_NS`).
pub const PENDING_SETUP_TIMEOUT_NS: i64 = 1_000_000_000;

/// What the receiver lends an endpoint for one datagram or duty cycle.
pub struct ReceiveContext<'a> {
    pub counters: &'a SystemCounters,
    pub to_conductor: &'a Proxy<ConductorCommand>,
    pub now_ns: i64,
}

/// The endpoint's destinations, as images look their transports up.
struct Destinations(Vec<ReceiveDestination>);

impl DestinationTransports for Destinations {
    #[inline]
    fn transport_for(&self, destination_id: i64) -> Option<&UdpTransport> {
        self.0.iter().find(|d| d.id() == destination_id).map(ReceiveDestination::transport)
    }
}

/// What an endpoint is opened with.
#[derive(Debug, Clone, Copy)]
pub struct ReceiveEndpointSettings {
    pub buffers: SocketBuffers,
    pub receiver_id: i64,
    /// Sent in status messages when set (`gtag`, else `AERON_RECEIVER_GROUP_TAG`).
    pub group_tag: Option<i64>,
    pub stream_session_limit: usize,
    /// `AERON_SOCKET_MULTICAST_TTL`.
    pub default_multicast_ttl: u8,
    /// `AERONRS_MAX_IMAGES_PER_ENDPOINT` / `AERONRS_MAX_IMAGES_PER_SOURCE`.
    pub max_images: usize,
    pub max_images_per_source: usize,
    /// `AERON_MTU_LENGTH` (transport plug-ins are told).
    pub mtu_length: usize,
    /// Where the endpoint's own destination binds (its endpoint address, as the port
    /// manager gave it).
    pub bind: SocketAddr,
}

pub struct ReceiveChannelEndpoint {
    id: i64,
    destinations: Destinations,
    dispatcher: DataPacketDispatcher,
    receiver_id: i64,
    group_tag: Option<i64>,
    stream_session_limit: usize,
    max_images: usize,
    max_images_per_source: usize,
    /// A SETUP was refused for a limit: the error log has heard of it.
    reported_image_limit: bool,
    /// When destinations with a `control` address next announce themselves.
    next_control_announcement_ns: i64,
    /// The receive timestamps the endpoint's channel asks for.
    timestamps: ChannelTimestamps,
}

impl TransportSet for ReceiveChannelEndpoint {
    fn transport_count(&self) -> usize {
        self.destinations.0.len()
    }

    fn transport(&self, index: usize) -> &UdpTransport {
        self.destinations.0[index].transport()
    }
}

impl ReceiveChannelEndpoint {
    /// Opens the endpoint for `channel`: bound to its endpoint address, or, for a
    /// multi-destination subscription, with no destination until one is added.
    pub fn open(
        id: i64,
        channel: &UdpChannel,
        settings: ReceiveEndpointSettings,
        media: &Media,
    ) -> Result<Self> {
        let mut destinations = Vec::with_capacity(2);
        if channel.control_mode != UdpControlMode::Manual {
            destinations.push(ReceiveDestination::open(
                id,
                channel,
                settings.bind,
                settings.buffers,
                settings.default_multicast_ttl,
                settings.mtu_length,
                media,
            )?);
        }
        for destination in &destinations {
            destination.enable_timestamps(channel)?;
        }
        Ok(Self {
            id,
            destinations: Destinations(destinations),
            dispatcher: DataPacketDispatcher::new(),
            receiver_id: settings.receiver_id,
            group_tag: settings.group_tag,
            stream_session_limit: settings.stream_session_limit,
            max_images: settings.max_images,
            max_images_per_source: settings.max_images_per_source,
            reported_image_limit: false,
            next_control_announcement_ns: 0,
            timestamps: channel.timestamps,
        })
    }

    /// The bound address of the endpoint's own destination (the first one).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.destinations.0.first().map(ReceiveDestination::local_addr)
    }

    pub fn destinations(&self) -> &[ReceiveDestination] {
        &self.destinations.0
    }

    /// Adds a destination (ADD_RCV_DESTINATION); it announces itself if it has a
    /// `control` address. The receiver refreshes its poller afterwards.
    pub fn add_destination(&mut self, destination: ReceiveDestination) {
        self.destinations.0.push(destination);
        self.next_control_announcement_ns = 0;
    }

    /// Removes the destination with `canonical_form` (REMOVE_RCV_DESTINATION); images stop
    /// answering through it.
    pub fn remove_destination(&mut self, canonical_form: &str) -> Option<ReceiveDestination> {
        let index = self.destinations.0.iter().position(|d| d.canonical_form() == canonical_form)?;
        let destination = self.destinations.0.swap_remove(index);
        let id = destination.id();
        self.dispatcher.for_each_image(|image| image.remove_destination(id));
        Some(destination)
    }

    #[inline]
    pub fn id(&self) -> i64 {
        self.id
    }

    pub fn receiver_id(&self) -> i64 {
        self.receiver_id
    }

    pub fn dispatcher(&mut self) -> &mut DataPacketDispatcher {
        &mut self.dispatcher
    }

    /// Validates and dispatches one datagram that arrived on destination `destination`
    /// (its index). Errors are failures to reply or to rebuild, for the error log; invalid
    /// input is only counted.
    /// Data frames get the channel's receive timestamps first (`media_timestamp_ns`: the
    /// kernel's, when the socket gives them).
    pub fn on_datagram(
        &mut self,
        destination: usize,
        datagram: &mut [u8],
        source: SocketAddr,
        media_timestamp_ns: Option<i64>,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        let Some(d) = self.destinations.0.get_mut(destination) else { return Ok(()) };
        let from = FrameSource {
            destination_id: d.id(),
            control_address: d.control_address_for(source),
            address: source,
        };
        let Ok(header) = FrameHeader::parse(datagram) else {
            ctx.counters.increment(SystemCounterId::InvalidPackets);
            return Ok(());
        };
        let frame_type = header.frame_type();
        if matches!(frame_type, HDR_TYPE_DATA | HDR_TYPE_PAD | HDR_TYPE_SETUP | HDR_TYPE_RTTM) {
            d.note_activity(ctx.now_ns);
        }
        if frame_type == HDR_TYPE_DATA && self.timestamps.is_receive_stamping() {
            if let (Some(offset), Some(ns)) = (self.timestamps.media_rcv, media_timestamp_ns) {
                apply_timestamp(datagram, offset, ns);
            }
            if let Some(offset) = self.timestamps.channel_rcv {
                apply_timestamp(datagram, offset, epoch_ns());
            }
        }
        let datagram = &*datagram;
        match frame_type {
            HDR_TYPE_DATA | HDR_TYPE_PAD => match DataFlyweight::parse(datagram) {
                Ok(first) => self.on_data(&first, datagram, destination, &from, ctx),
                Err(_) => {
                    ctx.counters.increment(SystemCounterId::InvalidPackets);
                    Ok(())
                }
            },
            HDR_TYPE_SETUP => match SetupFlyweight::parse(datagram) {
                Ok(setup) => self.on_setup(&setup, destination, &from, source, ctx),
                Err(_) => {
                    ctx.counters.increment(SystemCounterId::InvalidPackets);
                    Ok(())
                }
            },
            HDR_TYPE_RTTM => match RttmFlyweight::parse(datagram) {
                Ok(rttm) => self.on_rttm(&rttm, destination, &from, ctx),
                Err(_) => {
                    ctx.counters.increment(SystemCounterId::InvalidPackets);
                    Ok(())
                }
            },
            // Status messages, NAKs and the rest are not for a receiver.
            _ => Ok(()),
        }
    }

    fn on_data(
        &mut self,
        first: &DataFlyweight<'_>,
        datagram: &[u8],
        destination: usize,
        from: &FrameSource,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        let session_id = first.session_id();
        let Some(stream) = self.dispatcher.stream(first.stream_id()) else { return Ok(()) };
        let wants = stream.wants_session(session_id);
        match stream.session(session_id) {
            Some(entry) => {
                if let SessionState::Active(image) = &mut entry.state {
                    match validate_data_datagram(datagram, first, image.term_length()) {
                        Ok(kind) => {
                            let is_heartbeat = kind == DataDatagram::Heartbeat;
                            image.insert_packet(
                                first.term_id(),
                                first.term_offset(),
                                datagram,
                                is_heartbeat,
                                from,
                                ctx.now_ns,
                            )?;
                        }
                        Err(_) => ctx.counters.increment(SystemCounterId::InvalidPackets),
                    }
                }
                Ok(())
            }
            None if wants && first.flags() & EOS_FLAG == 0 => {
                stream.set_state(session_id, SessionState::PendingSetup { since_ns: ctx.now_ns });
                let sm = StatusMessage::setup_elicitation(
                    session_id,
                    first.stream_id(),
                    self.receiver_id,
                    self.group_tag,
                );
                let transport = self.destinations.0[destination].transport();
                send_status_message(transport, &sm, from.control_address, ctx.counters)
            }
            None => Ok(()),
        }
    }

    fn on_setup(
        &mut self,
        setup: &SetupFlyweight<'_>,
        destination: usize,
        from: &FrameSource,
        source: SocketAddr,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        let session_id = setup.session_id();
        let endpoint_id = self.id;
        let d = &self.destinations.0[destination];
        let ttl_asymmetry = d.is_multicast() && i32::from(d.multicast_ttl()) < setup.ttl();
        let Some(stream) = self.dispatcher.stream(setup.stream_id()) else { return Ok(()) };
        let at_session_limit = stream.image_count() >= self.stream_session_limit;
        let create = match stream.session(session_id) {
            Some(entry) => match &mut entry.state {
                SessionState::Active(image) => {
                    image.add_connection_if_unknown(from, ctx.now_ns);
                    false
                }
                SessionState::PendingSetup { .. } => {
                    if ttl_asymmetry {
                        ctx.counters.increment(SystemCounterId::PossibleTtlAsymmetry);
                    }
                    true
                }
                _ => false,
            },
            None => stream.wants_session(session_id),
        };
        if !create {
            return Ok(());
        }
        if let Some(limit) = self.image_limit_reached(at_session_limit, source) {
            // Refused, as invalid input: counted each time, reported once per endpoint.
            ctx.counters.increment(SystemCounterId::InvalidPackets);
            if !self.reported_image_limit {
                self.reported_image_limit = true;
                ctx.to_conductor.send(ConductorCommand::Error(Error::invalid_argument(format!(
                    "receive endpoint {endpoint_id}: SETUP for stream-id={} session-id={session_id} from {source} refused: {limit} (further refusals are counted as invalid packets)",
                    setup.stream_id()
                ))));
            }
            return Ok(());
        }
        if let Some(stream) = self.dispatcher.stream(setup.stream_id()) {
            stream.set_building(session_id, *from);
            ctx.to_conductor.send(ConductorCommand::CreateImage(CreateImageRequest {
                endpoint_id,
                session_id,
                stream_id: setup.stream_id(),
                initial_term_id: setup.initial_term_id(),
                active_term_id: setup.active_term_id(),
                term_offset: setup.term_offset(),
                term_length: setup.term_length(),
                mtu_length: setup.mtu(),
                flags: setup.flags(),
                destination_id: from.destination_id,
                control_address: from.control_address,
                source_address: source,
            }));
        }
        Ok(())
    }

    /// Which limit a new image from `source` would exceed, if any: the stream's session
    /// limit (`AERON_DRIVER_STREAM_SESSION_LIMIT`), or the endpoint's or one source's share
    /// of images (`AERONRS_MAX_IMAGES_PER_ENDPOINT`, `AERONRS_MAX_IMAGES_PER_SOURCE`).
    fn image_limit_reached(&self, at_session_limit: bool, source: SocketAddr) -> Option<String> {
        if at_session_limit {
            return Some(format!("stream session limit of {} reached", self.stream_session_limit));
        }
        let (all, from_source) = self.dispatcher.image_load(source.ip());
        if all >= self.max_images {
            Some(format!("endpoint image limit of {} reached", self.max_images))
        } else if from_source >= self.max_images_per_source {
            Some(format!(
                "per-source image limit of {} reached for {}",
                self.max_images_per_source,
                source.ip()
            ))
        } else {
            None
        }
    }

    fn on_rttm(
        &mut self,
        rttm: &RttmFlyweight<'_>,
        destination: usize,
        from: &FrameSource,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        if rttm.receiver_id() != self.receiver_id && rttm.receiver_id() != 0 {
            return Ok(());
        }
        let Some(stream) = self.dispatcher.stream(rttm.stream_id()) else { return Ok(()) };
        let Some(entry) = stream.session(rttm.session_id()) else { return Ok(()) };
        let SessionState::Active(image) = &mut entry.state else { return Ok(()) };
        if rttm.is_reply_requested() {
            let reply = Rttm::reply_to(&rttm.to_rttm());
            let mut frame = [0u8; RTTM_HEADER_LENGTH];
            reply.encode(&mut frame)?;
            send_counted(
                self.destinations.0[destination].transport(),
                &frame,
                from.control_address,
                ctx.counters,
            )
        } else {
            image.on_rttm_reply(rttm.echo_timestamp_ns(), rttm.reception_delta_ns(), ctx.now_ns);
            Ok(())
        }
    }

    /// Status messages, NAKs and RTT requests every image has pending; expired pending
    /// setups; announcements to `control` addresses. Returns how many frames went out.
    pub fn send_pending(&mut self, ctx: &ReceiveContext<'_>) -> usize {
        let mut work = self.announce_to_control_addresses(ctx);
        let Self { destinations, dispatcher, receiver_id, group_tag, .. } = self;
        dispatcher.for_each_image(|image| {
            let results = [
                image.send_pending_status_message(ctx.now_ns, &*destinations, *receiver_id, *group_tag),
                image.send_pending_loss(ctx.now_ns, &*destinations),
                image.initiate_rttm(ctx.now_ns, &*destinations, *receiver_id),
            ];
            for result in results {
                match result {
                    Ok(n) => work += n,
                    Err(e) => ctx.to_conductor.send(ConductorCommand::Error(e.context("receiver send"))),
                }
            }
        });
        dispatcher.expire_pending_setups(ctx.now_ns, PENDING_SETUP_TIMEOUT_NS);
        work
    }

    /// Each destination with a `control` address tells the publication there it exists,
    /// once when added and then every [`PENDING_SETUP_TIMEOUT_NS`] while streams are
    /// subscribed (Aeron's periodic pending setup).
    fn announce_to_control_addresses(&mut self, ctx: &ReceiveContext<'_>) -> usize {
        if ctx.now_ns < self.next_control_announcement_ns {
            return 0;
        }
        let first = self.next_control_announcement_ns == 0;
        self.next_control_announcement_ns = ctx.now_ns + PENDING_SETUP_TIMEOUT_NS;
        if !first && !self.dispatcher.has_subscriptions() {
            return 0;
        }
        let sm = StatusMessage::setup_elicitation(0, 0, self.receiver_id, self.group_tag);
        let mut sent = 0;
        for destination in self.destinations.0.iter().filter(|d| d.has_explicit_control()) {
            let Some(control) = destination.control_address() else { continue };
            match send_status_message(destination.transport(), &sm, control, ctx.counters) {
                Ok(()) => sent += 1,
                Err(e) => {
                    ctx.to_conductor.send(ConductorCommand::Error(e.context("receiver announce to control")))
                }
            }
        }
        sent
    }

    /// Asks each destination's `control` address for a SETUP of (`stream_id`, `session_id`)
    /// (Aeron C `aeron_receive_channel_endpoint_elicit_setup`): a response publication
    /// learns from it where its response subscription is. Returns how many went out.
    pub fn elicit_setup(&mut self, stream_id: i32, session_id: i32, ctx: &ReceiveContext<'_>) -> usize {
        let sm = StatusMessage::setup_elicitation(session_id, stream_id, self.receiver_id, self.group_tag);
        let mut sent = 0;
        for destination in self.destinations.0.iter().filter(|d| d.has_explicit_control()) {
            let Some(control) = destination.control_address() else { continue };
            match send_status_message(destination.transport(), &sm, control, ctx.counters) {
                Ok(()) => sent += 1,
                Err(e) => ctx.to_conductor.send(ConductorCommand::Error(e.context("receiver elicit setup"))),
            }
        }
        sent
    }

    /// The conductor could not build the image `session_id` of `stream_id` asked for: the
    /// session may try again, and with a `refusal` its sender is told why by an ERR frame
    /// (an Aeron error code and text) where its SETUP came from.
    pub fn on_image_not_built(
        &mut self,
        session_id: i32,
        stream_id: i32,
        refusal: Option<(i32, Vec<u8>)>,
        ctx: &ReceiveContext<'_>,
    ) {
        let origin = self
            .dispatcher
            .stream(stream_id)
            .and_then(|s| s.session(session_id))
            .filter(|e| matches!(e.state, SessionState::InitInProgress))
            .and_then(|e| e.origin);
        self.dispatcher.remove_state(session_id, stream_id, |s| matches!(s, SessionState::InitInProgress));
        let (Some(origin), Some((code, reason))) = (origin, refusal) else { return };
        let Some(transport) = self.destinations.transport_for(origin.destination_id) else { return };
        let frame = ErrorFrame::new(session_id, stream_id, self.receiver_id, self.group_tag, code, &reason);
        let mut buffer = [0u8; MAX_ERROR_FRAME_LENGTH];
        let mut send = || -> Result<(usize, usize)> {
            let length = frame.encode(&mut buffer)?;
            Ok((length, transport.send_to(&buffer[..length], origin.control_address)?))
        };
        let sent = send();
        match sent {
            Ok((length, n)) if n == length => ctx.counters.increment(SystemCounterId::ErrorFramesSent),
            Ok(_) => ctx.counters.increment(SystemCounterId::ShortSends),
            Err(e) => ctx.to_conductor.send(ConductorCommand::Error(e.context("receiver ERR frame"))),
        }
    }

    /// Hands `re_resolve` each destination's `control` name that went quiet, with the
    /// destination's id and the address the name has now. Allocation-free.
    pub fn check_for_re_resolutions(
        &mut self,
        now_ns: i64,
        mut re_resolve: impl FnMut(i64, Arc<str>, SocketAddr),
    ) {
        for destination in &mut self.destinations.0 {
            if let Some((name, existing)) = destination.check_for_re_resolution(now_ns) {
                re_resolve(destination.id(), name, existing);
            }
        }
    }

    /// Destination `destination_id`'s `control` name now resolves to `address`; whether
    /// the endpoint has it.
    pub fn update_control_address(&mut self, destination_id: i64, address: SocketAddr) -> bool {
        let destination = self.destinations.0.iter_mut().find(|d| d.id() == destination_id);
        destination.map(|d| d.update_control_address(address)).is_some()
    }

    /// Hands a built image to the dispatcher.
    pub fn add_image(&mut self, image: Box<PublicationImage>) {
        self.dispatcher.add_image(image);
    }
}

fn send_counted(
    transport: &UdpTransport,
    frame: &[u8],
    address: SocketAddr,
    counters: &SystemCounters,
) -> Result<()> {
    if transport.send_to(frame, address)? < frame.len() {
        counters.increment(SystemCounterId::ShortSends);
    }
    Ok(())
}

fn send_status_message(
    transport: &UdpTransport,
    sm: &StatusMessage,
    address: SocketAddr,
    counters: &SystemCounters,
) -> Result<()> {
    let mut frame = [0u8; SM_HEADER_LENGTH_WITH_GROUP_TAG];
    let length = sm.encode(&mut frame)?;
    send_counted(transport, &frame[..length], address, counters)?;
    counters.increment(SystemCounterId::StatusMessagesSent);
    Ok(())
}
