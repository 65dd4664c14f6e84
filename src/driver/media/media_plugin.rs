//! Media plug-ins: transports opened, sent on and received from by code supplied with the
//! context rather than by this driver's own sockets. Aeron's C driver has this as its
//! UDP channel transport bindings (a table of transport and poller functions) and its
//! interceptor chains (outgoing and incoming stages between the endpoints and the
//! transport); the C API's `aeron_driver_context_set_udp_channel_transport_bindings` and
//! `..._set_udp_channel_{outgoing,incoming}_interceptors` install them through this
//! interface (`src/ffi/driver/media/`).
//!
//! The driver opens every UDP transport through [`Media`]: with no plug-in, its own
//! sockets (`UdpTransport::bind`, `open_multicast`); with one, [`MediaPlugin::open`] with
//! Aeron's transport init arguments ([`TransportSpec`]). Sends of a plug-in's transport
//! go to [`PluginTransport::send_to`], and the transport poller receives from it with
//! [`PluginTransport::receive`], which may deliver datagrams (through interceptors) to any
//! transport of the same agent: each carries the [`PluginTransport::key`] of the transport
//! the datagram is for.
#![forbid(unsafe_code)]

use std::fmt;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::sync::Arc;

use super::udp_channel::UdpChannel;
use super::udp_transport::{SocketBuffers, UdpIo};
use crate::util::error::Result;

/// Which agent a transport serves (Aeron's transport affinity): its sends and receives
/// happen on that agent's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportAffinity {
    Sender,
    Receiver,
    Conductor,
}

/// How a transport is opened: Aeron's transport init arguments.
#[derive(Debug, Clone, Copy)]
pub struct TransportSpec {
    /// The address to bind: a unicast local address, or a multicast group (bound as the
    /// wildcard address with the group's port, and joined).
    pub bind: SocketAddr,
    /// Multicast: the interface to join the group on and send through. Unicast: what
    /// Aeron passes there (the remote control address of a sender, the local data address
    /// of a receiver); unused by this driver's own sockets.
    pub multicast_if: SocketAddr,
    /// The interface's index (IPv6 joins by index); 0 = let the OS choose.
    pub multicast_if_index: u32,
    /// TTL / hop limit of multicast sends; 0 = the OS default.
    pub ttl: u8,
    /// Connect the transport to this peer.
    pub connect: Option<SocketAddr>,
    pub buffers: SocketBuffers,
    pub mtu_length: usize,
    pub affinity: TransportAffinity,
}

/// What one [`PluginTransport::receive`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReceiveOutcome {
    /// Datagrams read from the transport (delivered or dropped by an interceptor).
    pub messages: usize,
    /// Their bytes.
    pub bytes: u64,
}

/// Hands a received datagram to the driver: the key of the transport it is for, the
/// bytes (valid for the call only), the sender's address.
pub type Deliver<'a> = dyn FnMut(u64, &[u8], SocketAddr) + 'a;

/// A transport a plug-in opened; closed when dropped. The driver calls it from one thread
/// at a time: the conductor while opening it, then the agent of its affinity.
pub trait PluginTransport: Send + Sync + fmt::Debug {
    /// Identifies the transport among those of its agent (in [`Deliver`] calls).
    fn key(&self) -> u64;
    /// Sends one datagram to `dest` (a connected transport sends to its peer). Returns the
    /// bytes sent; 0 when nothing could be sent now (a short send).
    fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize>;
    /// Reads up to `vlen` queued datagrams into `buffers` (`vlen` slots of equal length)
    /// and passes them through the plug-in to `deliver`.
    fn receive(&self, buffers: &mut [u8], vlen: usize, deliver: &mut Deliver<'_>) -> Result<ReceiveOutcome>;
    /// Connects the transport to `remote` anew.
    fn connect(&self, remote: SocketAddr) -> Result<()>;
    /// The bound address (with the port the OS chose for port 0).
    fn local_addr(&self) -> Result<SocketAddr>;
    fn so_rcvbuf(&self) -> Result<usize>;
    fn so_sndbuf(&self) -> Result<usize>;
    fn multicast_ttl(&self, ipv6: bool) -> Result<u32>;
    /// The descriptor to wait on for received datagrams (-1 when there is none).
    fn receive_fd(&self) -> RawFd;
    /// The transport joined its agent's poller (`added`) or left it (Aeron's transport
    /// notifications to interceptors).
    fn on_poller_change(&self, added: bool) -> Result<()>;
}

/// Opens transports for the driver.
pub trait MediaPlugin: Send + Sync {
    /// Opens the transport `spec` describes for `channel`.
    fn open(&self, spec: &TransportSpec, channel: &UdpChannel) -> Result<Arc<dyn PluginTransport>>;
    /// Whether the plug-in has its own incoming interceptors, which then replace the
    /// driver's loss injection (`AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS`), as a chain set
    /// in code replaces the configured one in Aeron.
    fn replaces_incoming_interceptors(&self) -> bool;
}

/// The media a driver opens its transports with: its own sockets, or a plug-in; and
/// which batched calls its own sockets use.
#[derive(Clone, Default)]
pub struct Media {
    plugin: Option<Arc<dyn MediaPlugin>>,
    io: UdpIo,
}

impl Media {
    pub fn with_plugin(plugin: Arc<dyn MediaPlugin>) -> Self {
        Self { plugin: Some(plugin), io: UdpIo::default() }
    }

    /// The same media, its own sockets using `io`.
    pub fn with_io(self, io: UdpIo) -> Self {
        Self { io, ..self }
    }

    pub fn io(&self) -> UdpIo {
        self.io
    }

    pub fn plugin(&self) -> Option<&Arc<dyn MediaPlugin>> {
        self.plugin.as_ref()
    }
}

impl fmt::Debug for Media {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.plugin.is_some() { "Media(plug-in)" } else { "Media(sockets)" })
    }
}

/// Makes the driver's media plug-in (a context setting; called once, when the driver is
/// created, as Aeron initialises its agents' data paths then).
#[derive(Clone)]
pub struct MediaPluginSupplier(pub Arc<dyn Fn() -> Result<Arc<dyn MediaPlugin>> + Send + Sync>);

impl fmt::Debug for MediaPluginSupplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MediaPluginSupplier")
    }
}
