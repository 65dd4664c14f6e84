//! `SendChannelEndpoint`: the socket the network publications of one channel (canonical
//! form) send from, and the dispatch of the control frames receivers send back to it
//! (`spec/wire-protocol.md` §5-9, Aeron C `aeron_send_channel_endpoint_dispatch`).
//!
//! The conductor opens the socket — bound to the channel's `interface` (wildcard by
//! default) and connected to its `endpoint`, so only that peer's datagrams arrive — and
//! hands the endpoint to the sender, which polls it. Publications hold the same transport
//! (an `Arc`) to send data.
//!
//! Every control frame is validated before use: the common header (length ≥ 8, version 0),
//! then the frame type's own checks (header length, frame length within the datagram).
//! Failures count as *Invalid packets* and are dropped. Frames for no publication of this
//! endpoint are ignored, as Aeron does.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use super::udp_channel::UdpChannel;
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::driver::network_publication::NetworkPublication;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::protocol::header::{FrameHeader, HDR_TYPE_ERR, HDR_TYPE_NAK, HDR_TYPE_RTTM, HDR_TYPE_SM};
use crate::protocol::{ErrorFrameFlyweight, NakFlyweight, RttmFlyweight, StatusMessageFlyweight};
use crate::util::error::Result;

/// A bound and connected send socket, identified by the registration id the conductor
/// gave the endpoint.
#[derive(Debug)]
pub struct SendChannelEndpoint {
    id: i64,
    transport: Arc<UdpTransport>,
}

impl AsRef<UdpTransport> for SendChannelEndpoint {
    fn as_ref(&self) -> &UdpTransport {
        &self.transport
    }
}

impl SendChannelEndpoint {
    /// Binds the channel's local address and, when `connect` (`AERON_DRIVER_CONNECT`),
    /// connects to its endpoint.
    pub fn open(id: i64, channel: &UdpChannel, buffers: SocketBuffers, connect: bool) -> Result<Self> {
        let mut transport = UdpTransport::bind(channel.local_data, buffers)
            .map_err(|e| e.context(format_args!("uri={}", channel.original_uri)))?;
        if connect {
            transport.connect(channel.remote_data)?;
        }
        Ok(Self { id, transport: Arc::new(transport) })
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
}

/// Validates one received control datagram and hands it to the publication it is for.
/// Errors are those of sending a reply (RTTM, resend); the frame itself never fails.
pub fn dispatch_control_frame(
    endpoint_id: i64,
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
            if let Some(i) = find(publications, sm.session_id(), sm.stream_id()) {
                if sm.is_send_setup() {
                    publications[i].on_setup_elicited(&sm, now_ns);
                } else {
                    publications[i].on_status_message(&sm, now_ns);
                }
            }
        }
        HDR_TYPE_NAK => {
            let Ok(nak) = NakFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            counters.increment(SystemCounterId::NakMessagesReceived);
            if let Some(i) = find(publications, nak.session_id(), nak.stream_id()) {
                publications[i].on_nak(&nak, now_ns)?;
            }
        }
        HDR_TYPE_RTTM => {
            let Ok(rttm) = RttmFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            if let Some(i) = find(publications, rttm.session_id(), rttm.stream_id()) {
                publications[i].on_rttm(&rttm)?;
            }
        }
        HDR_TYPE_ERR => {
            let Ok(err) = ErrorFrameFlyweight::parse(datagram) else {
                counters.increment(SystemCounterId::InvalidPackets);
                return Ok(());
            };
            counters.increment(SystemCounterId::ErrorFramesReceived);
            if let Some(i) = find(publications, err.session_id(), err.stream_id()) {
                publications[i].on_error(&err, source, now_ns);
            }
        }
        // DATA, SETUP, RSP_SETUP (response channels are not supported yet) and unknown
        // types are not for a sender: ignored, as Aeron does.
        _ => {}
    }
    Ok(())
}
