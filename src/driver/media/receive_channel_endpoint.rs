//! `ReceiveChannelEndpoint`: the socket bound to a channel's endpoint address that every
//! subscription on the channel (canonical form) shares, the dispatch of what arrives on it
//! (`spec/wire-protocol.md` §3-7, Aeron C `aeron_receive_channel_endpoint_dispatch`), and the
//! frames the receiver sends back from it: status messages, NAKs, RTT measurements.
//!
//! Every datagram is validated before use: the common header (length ≥ 8, version 0), then
//! the type's own checks, then — for data — every frame against the image's term
//! (`data_datagram`). What fails counts as *Invalid packets* and is dropped. Frames of
//! streams nobody subscribed to are ignored, as Aeron does.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use super::data_datagram::{DataDatagram, validate_data_datagram};
use super::data_packet_dispatcher::{DataPacketDispatcher, SessionState};
use super::udp_channel::UdpChannel;
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::driver::agent_proxy::{ConductorCommand, CreateImageRequest, Proxy};
use crate::driver::publication_image::PublicationImage;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::protocol::header::{
    EOS_FLAG, FrameHeader, HDR_TYPE_DATA, HDR_TYPE_PAD, HDR_TYPE_RTTM, HDR_TYPE_SETUP,
};
use crate::protocol::rttm::{RTTM_HEADER_LENGTH, Rttm};
use crate::protocol::status_message::{SM_HEADER_LENGTH_WITH_GROUP_TAG, StatusMessage};
use crate::protocol::{DataFlyweight, RttmFlyweight, SetupFlyweight};
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

pub struct ReceiveChannelEndpoint {
    id: i64,
    transport: UdpTransport,
    dispatcher: DataPacketDispatcher,
    receiver_id: i64,
    group_tag: Option<i64>,
    stream_session_limit: usize,
}

impl AsRef<UdpTransport> for ReceiveChannelEndpoint {
    fn as_ref(&self) -> &UdpTransport {
        &self.transport
    }
}

impl ReceiveChannelEndpoint {
    /// Binds the channel's endpoint address.
    pub fn open(
        id: i64,
        channel: &UdpChannel,
        buffers: SocketBuffers,
        receiver_id: i64,
        group_tag: Option<i64>,
        stream_session_limit: usize,
    ) -> Result<Self> {
        let transport = UdpTransport::bind(channel.remote_data, buffers)
            .map_err(|e| e.context(format_args!("uri={}", channel.original_uri)))?;
        Ok(Self {
            id,
            transport,
            dispatcher: DataPacketDispatcher::new(),
            receiver_id,
            group_tag,
            stream_session_limit,
        })
    }

    #[inline]
    pub fn id(&self) -> i64 {
        self.id
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    pub fn receiver_id(&self) -> i64 {
        self.receiver_id
    }

    pub fn dispatcher(&mut self) -> &mut DataPacketDispatcher {
        &mut self.dispatcher
    }

    /// Validates and dispatches one datagram. Errors are failures to reply or to rebuild,
    /// for the error log; invalid input is only counted.
    pub fn on_datagram(
        &mut self,
        datagram: &[u8],
        source: SocketAddr,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        let Ok(header) = FrameHeader::parse(datagram) else {
            ctx.counters.increment(SystemCounterId::InvalidPackets);
            return Ok(());
        };
        match header.frame_type() {
            HDR_TYPE_DATA | HDR_TYPE_PAD => match DataFlyweight::parse(datagram) {
                Ok(first) => self.on_data(&first, datagram, source, ctx),
                Err(_) => {
                    ctx.counters.increment(SystemCounterId::InvalidPackets);
                    Ok(())
                }
            },
            HDR_TYPE_SETUP => match SetupFlyweight::parse(datagram) {
                Ok(setup) => self.on_setup(&setup, source, ctx),
                Err(_) => {
                    ctx.counters.increment(SystemCounterId::InvalidPackets);
                    Ok(())
                }
            },
            HDR_TYPE_RTTM => match RttmFlyweight::parse(datagram) {
                Ok(rttm) => self.on_rttm(&rttm, source, ctx),
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
        source: SocketAddr,
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
                send_status_message(&self.transport, &sm, source, ctx.counters)
            }
            None => Ok(()),
        }
    }

    fn on_setup(
        &mut self,
        setup: &SetupFlyweight<'_>,
        source: SocketAddr,
        ctx: &ReceiveContext<'_>,
    ) -> Result<()> {
        let session_id = setup.session_id();
        let limit = self.stream_session_limit;
        let endpoint_id = self.id;
        let Some(stream) = self.dispatcher.stream(setup.stream_id()) else { return Ok(()) };
        if stream.image_count() >= limit {
            return Err(Error::invalid_argument(format!(
                "exceeded session limit, stream-id={}",
                setup.stream_id()
            )));
        }
        let create = match stream.session(session_id) {
            Some(entry) => matches!(entry.state, SessionState::PendingSetup { .. }),
            None => stream.wants_session(session_id),
        };
        if create {
            stream.set_state(session_id, SessionState::InitInProgress);
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
                control_address: source,
                source_address: source,
            }));
        }
        Ok(())
    }

    fn on_rttm(
        &mut self,
        rttm: &RttmFlyweight<'_>,
        source: SocketAddr,
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
            send_counted(&self.transport, &frame, source, ctx.counters)
        } else {
            image.on_rttm_reply(rttm.echo_timestamp_ns(), rttm.reception_delta_ns(), ctx.now_ns);
            Ok(())
        }
    }

    /// Status messages, NAKs and RTT requests every image has pending; expired pending
    /// setups. Returns how many frames went out.
    pub fn send_pending(&mut self, ctx: &ReceiveContext<'_>) -> usize {
        let Self { transport, dispatcher, receiver_id, group_tag, .. } = self;
        let mut work = 0;
        dispatcher.for_each_image(|image| {
            let results = [
                image.send_pending_status_message(ctx.now_ns, transport, *receiver_id, *group_tag),
                image.send_pending_loss(ctx.now_ns, transport),
                image.initiate_rttm(ctx.now_ns, transport, *receiver_id),
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
