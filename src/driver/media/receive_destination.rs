//! `ReceiveDestination`: one socket a receive channel endpoint reads from (Aeron C
//! `aeron_receive_destination.c`). A plain subscription's endpoint has one, made from its
//! own channel; a multi-destination subscription (`control-mode=manual`) has one per
//! ADD_RCV_DESTINATION, each a unicast or multicast channel of its own.
//!
//! The socket binds the destination channel's `endpoint` (for multicast: the group's port,
//! joined on the `interface`). Control frames (status messages, NAKs, RTT requests) are
//! answered to the destination's control address when it has one — the control group for
//! multicast, the `control` address for a dynamic multi-destination-cast publication —
//! else to wherever the sender's frames come from.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use super::media_plugin::{Media, TransportAffinity, TransportSpec};
use super::udp_channel::UdpChannel;
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::util::error::{Error, Result};

/// A destination with a `control` address that heard nothing this long has the name
/// resolved again (Aeron's `DESTINATION_ADDRESS_TIMEOUT`, 5 s).
pub const CONTROL_QUIET_TIMEOUT_NS: i64 = 5_000_000_000;

#[derive(Debug)]
pub struct ReceiveDestination {
    /// Unique within the driver: the registration id of the subscription (the endpoint's
    /// own destination) or of the ADD_RCV_DESTINATION command.
    id: i64,
    /// The destination channel's canonical form: how REMOVE_RCV_DESTINATION finds it.
    canonical_form: String,
    transport: UdpTransport,
    control_address: Option<SocketAddr>,
    /// A dynamic MDC subscription: it must announce itself to the publication's `control`.
    has_explicit_control: bool,
    /// The `control` text of such a destination, resolved again when it goes quiet.
    control_name: Option<Arc<str>>,
    /// When a data, setup or RTT frame last arrived on it (from the opening on).
    time_of_last_activity_ns: i64,
    is_multicast: bool,
    /// The channel's TTL (0 when not given), to judge SETUPs from other hosts.
    multicast_ttl: u8,
}

impl ReceiveDestination {
    /// Binds `bind` (`channel`'s endpoint as the receiver's port manager gave it) as
    /// described above, through `media`; `default_ttl` is `AERON_SOCKET_MULTICAST_TTL`.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        id: i64,
        channel: &UdpChannel,
        bind: SocketAddr,
        buffers: SocketBuffers,
        default_ttl: u8,
        mtu_length: usize,
        media: &Media,
    ) -> Result<Self> {
        let context = |e: Error| e.context(format_args!("uri={}", channel.original_uri));
        let spec = TransportSpec {
            bind,
            multicast_if: channel.local_data,
            multicast_if_index: channel.interface_index,
            ttl: if channel.multicast_ttl != 0 { channel.multicast_ttl } else { default_ttl },
            connect: None,
            buffers,
            mtu_length,
            affinity: TransportAffinity::Receiver,
        };
        let transport = UdpTransport::open(media, &spec, channel).map_err(context)?;
        let control_address = if channel.is_multicast {
            Some(channel.remote_control)
        } else if channel.has_explicit_control {
            Some(channel.local_control)
        } else {
            None
        };
        Ok(Self {
            id,
            canonical_form: channel.canonical_form.clone(),
            transport,
            control_address,
            has_explicit_control: channel.has_explicit_control,
            control_name: (channel.has_explicit_control && !channel.is_multicast)
                .then(|| channel.uri.get(crate::uri::keys::CONTROL).map(Arc::from))
                .flatten(),
            time_of_last_activity_ns: crate::util::clock::nano_time(),
            is_multicast: channel.is_multicast,
            multicast_ttl: channel.multicast_ttl,
        })
    }

    #[inline]
    pub fn id(&self) -> i64 {
        self.id
    }

    pub fn canonical_form(&self) -> &str {
        &self.canonical_form
    }

    #[inline]
    pub fn transport(&self) -> &UdpTransport {
        &self.transport
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Asks the socket for kernel receive timestamps when `endpoint_channel` (the channel
    /// of the endpoint this destination serves) wants them written (`media-rcv-ts-offset`).
    pub fn enable_timestamps(&self, endpoint_channel: &UdpChannel) -> Result<()> {
        if endpoint_channel.timestamps.media_rcv.is_some() {
            self.transport
                .enable_media_timestamps()
                .map_err(|e| e.context(format_args!("uri={}", endpoint_channel.original_uri)))?;
        }
        Ok(())
    }

    /// Where to answer a frame that came from `source`.
    #[inline]
    pub fn control_address_for(&self, source: SocketAddr) -> SocketAddr {
        self.control_address.unwrap_or(source)
    }

    pub fn control_address(&self) -> Option<SocketAddr> {
        self.control_address
    }

    /// A frame from a sender arrived: the `control` address is alive.
    #[inline]
    pub fn note_activity(&mut self, now_ns: i64) {
        self.time_of_last_activity_ns = now_ns;
    }

    /// The `control` name to resolve again and the address it has now, when this
    /// destination has one and heard nothing for [`CONTROL_QUIET_TIMEOUT_NS`]; it then
    /// counts as active again, so it is asked about once per timeout (Aeron's
    /// `checkForReResolution`). Allocation-free.
    pub fn check_for_re_resolution(&mut self, now_ns: i64) -> Option<(Arc<str>, SocketAddr)> {
        let (name, address) = (self.control_name.as_ref()?, self.control_address?);
        if now_ns <= self.time_of_last_activity_ns + CONTROL_QUIET_TIMEOUT_NS {
            return None;
        }
        self.time_of_last_activity_ns = now_ns;
        Some((Arc::clone(name), address))
    }

    /// The `control` name now resolves to `address`: announcements and answers go there.
    pub fn update_control_address(&mut self, address: SocketAddr) {
        if self.control_name.is_some() {
            self.control_address = Some(address);
        }
    }

    pub fn has_explicit_control(&self) -> bool {
        self.has_explicit_control
    }

    pub fn is_multicast(&self) -> bool {
        self.is_multicast
    }

    pub fn multicast_ttl(&self) -> u8 {
        self.multicast_ttl
    }
}
