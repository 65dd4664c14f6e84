//! `UdpTransport`: the non-blocking UDP socket(s) of a channel endpoint, set up as Aeron's C
//! driver sets them up (`aeron_udp_channel_transport_init`):
//!
//! * **unicast**: one socket bound to the local address, `SO_RCVBUF` / `SO_SNDBUF` applied
//!   when non-zero (0 keeps the OS default), optionally connected to one remote address.
//! * **multicast**: a socket bound to the wildcard address with the group's port
//!   (`SO_REUSEADDR` and `SO_REUSEPORT`, so a publication and subscriptions of one host can
//!   all bind it), joined to the group on the channel's interface; sends leave through that
//!   interface (`IP_MULTICAST_IF` / `IPV6_MULTICAST_IF`) with the TTL / hop limit when one is
//!   set, and loop back to this host (`IP_MULTICAST_LOOP`, the OS default Aeron relies on).
//!   A publication connected to its group sends from a second, unbound socket, so the
//!   joined one still hears every receiver. Beyond Aeron, `IP_MULTICAST_ALL` is turned off
//!   on Linux: a socket hears only the groups it joined itself, so two channels that share
//!   a port but not a group never see each other's data.
//!
//! The duty-cycle calls (`send_to`, `send`, `recv_from`) make exactly one system call and
//! never allocate; "would block" is not an error but an empty result. A transport opened
//! through a media plug-in (`media_plugin.rs`) sends through the plug-in instead: one
//! branch on the duty-cycle path when there is none.
//!
//! Batched I/O ([`UdpTransport::receive_batch`], [`UdpTransport::send_batch`]) reads and
//! sends several datagrams per system call (`recvmmsg` / `sendmmsg`, as Aeron's C driver),
//! and beyond Aeron uses UDP segmentation offload for runs of equal-sized datagrams to one
//! destination (`UDP_SEGMENT`) and receive offload (`UDP_GRO`, whose glued datagrams the
//! poller splits again). Each is switchable ([`UdpIo`]); where the kernel refuses one the
//! transport falls back to the plain calls, once and for good. A plug-in's transport sends
//! one datagram at a time through the plug-in.
#![forbid(unsafe_code)]

use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use socket2::{Domain, Protocol, Socket, Type};

use super::media_plugin::{Media, PluginTransport, TransportSpec};
use super::udp_channel::UdpChannel;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::{self as sys_udp, MAX_BATCH, MAX_GSO_BYTES, MAX_GSO_SEGMENTS, OutgoingMessage};

pub use crate::util::sys::udp::ReceivedMessage;

/// Which batched and offloaded UDP calls a transport may use (`AERONRS_UDP_MMSG_ENABLED`,
/// `AERONRS_UDP_GSO_ENABLED`, `AERONRS_UDP_GRO_ENABLED`; all on by default: each only
/// changes how datagrams cross the system call boundary, never what goes on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpIo {
    /// `recvmmsg` / `sendmmsg` rather than one call per datagram.
    pub mmsg: bool,
    /// `UDP_SEGMENT` for runs of equal-sized datagrams to one destination.
    pub gso: bool,
    /// `UDP_GRO` on receiving sockets.
    pub gro: bool,
}

impl Default for UdpIo {
    fn default() -> Self {
        Self { mmsg: true, gso: true, gro: true }
    }
}

impl UdpIo {
    /// One datagram per system call, no offload: the unbatched paths.
    pub const PLAIN: Self = Self { mmsg: false, gso: false, gro: false };
}

/// What a native transport's batched calls may use now; the kernel's refusals switch
/// them off. Relaxed: each flag is only read and written by the thread that does the
/// transport's I/O (a stale read would only retry a refused call once more).
#[derive(Debug, Default)]
struct IoState {
    mmsg_receive: AtomicBool,
    mmsg_send: AtomicBool,
    gso: AtomicBool,
    /// Kernel timestamps or GRO asked for: receive with a control buffer.
    ancillary: AtomicBool,
    /// Tests: calls the kernel is to refuse, as an old kernel or a device without offload
    /// would (`ENOSYS` for the mmsg calls, `EIO` for a segmented send, an error for
    /// `UDP_GRO`), so the fallbacks run.
    #[cfg(test)]
    refuse: [AtomicBool; 3],
}

#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Refusal {
    Mmsg = 0,
    Gso = 1,
    Gro = 2,
}

impl IoState {
    /// The error the kernel is made to give for a call (tests only; never otherwise).
    #[inline]
    fn refused(&self, mmsg_call: bool, segmented: bool, gro: bool) -> Option<std::io::Error> {
        #[cfg(test)]
        {
            let refuses = |r: Refusal| self.refuse[r as usize].load(Ordering::Relaxed);
            if mmsg_call && refuses(Refusal::Mmsg) {
                return Some(std::io::Error::from_raw_os_error(libc::ENOSYS));
            }
            if segmented && refuses(Refusal::Gso) {
                return Some(std::io::Error::from_raw_os_error(libc::EIO));
            }
            if gro && refuses(Refusal::Gro) {
                return Some(std::io::Error::from_raw_os_error(libc::ENOPROTOOPT));
            }
        }
        let _ = (mmsg_call, segmented, gro);
        None
    }
}

/// Socket buffer sizes for a transport: the channel's `so-sndbuf` / `so-rcvbuf` or the
/// driver's `AERON_SOCKET_SO_SNDBUF` / `AERON_SOCKET_SO_RCVBUF`; 0 = OS default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketBuffers {
    pub so_sndbuf: usize,
    pub so_rcvbuf: usize,
}

/// Where a multicast transport joins its group and sends from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MulticastParams {
    /// The interface's address (IPv4 joins by address).
    pub interface_address: IpAddr,
    /// The interface's index (IPv6 joins by index); 0 = let the OS choose.
    pub interface_index: u32,
    /// TTL / hop limit of sent datagrams; 0 = the OS default.
    pub ttl: u8,
}

/// A bound, non-blocking UDP socket (two for a connected multicast publication), or a
/// transport a media plug-in opened.
#[derive(Debug)]
pub struct UdpTransport {
    io: Io,
    local_addr: SocketAddr,
    connected_addr: Option<SocketAddr>,
    state: IoState,
}

#[derive(Debug)]
enum Io {
    Socket {
        socket: UdpSocket,
        /// The socket that receives, when it is not `socket` (a connected multicast sender).
        receive_socket: Option<UdpSocket>,
    },
    /// Sends and receives go through the plug-in (C transport bindings, interceptors).
    Plugin(Arc<dyn PluginTransport>),
}

/// Whether an I/O error only means "nothing to do right now".
fn is_transient(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

fn new_socket(family: &SocketAddr) -> Result<Socket> {
    Socket::new(Domain::for_address(*family), Type::DGRAM, Some(Protocol::UDP))
        .map_err(|e| Error::io(&e, format_args!("socket for {family}")))
}

fn set_buffers(receive: &Socket, send: &Socket, buffers: SocketBuffers) -> Result<()> {
    if buffers.so_rcvbuf > 0 {
        receive
            .set_recv_buffer_size(buffers.so_rcvbuf)
            .map_err(|e| Error::io(&e, format_args!("setsockopt(SO_RCVBUF, {})", buffers.so_rcvbuf)))?;
    }
    if buffers.so_sndbuf > 0 {
        send.set_send_buffer_size(buffers.so_sndbuf)
            .map_err(|e| Error::io(&e, format_args!("setsockopt(SO_SNDBUF, {})", buffers.so_sndbuf)))?;
    }
    Ok(())
}

/// Joins `group` on the receiving socket and points the sending socket's multicast output
/// at the interface.
fn join_group(receive: &Socket, send: &Socket, group: &SocketAddr, params: &MulticastParams) -> Result<()> {
    let failed = |what: &str, e: std::io::Error| Error::io(&e, format_args!("failed to set {what}"));
    match (group.ip(), params.interface_address) {
        (IpAddr::V4(group_ip), interface) => {
            let interface = match interface {
                IpAddr::V4(v4) => v4,
                IpAddr::V6(_) => Ipv4Addr::UNSPECIFIED,
            };
            receive.join_multicast_v4(&group_ip, &interface).map_err(|e| {
                failed(&format!("IP_ADD_MEMBERSHIP (group {group_ip}, interface {interface})"), e)
            })?;
            #[cfg(target_os = "linux")]
            receive.set_multicast_all_v4(false).map_err(|e| failed("IP_MULTICAST_ALL off", e))?;
            send.set_multicast_if_v4(&interface)
                .map_err(|e| failed(&format!("IP_MULTICAST_IF ({interface})"), e))?;
            send.set_multicast_loop_v4(true).map_err(|e| failed("IP_MULTICAST_LOOP", e))?;
            if params.ttl > 0 {
                send.set_multicast_ttl_v4(u32::from(params.ttl))
                    .map_err(|e| failed(&format!("IP_MULTICAST_TTL ({})", params.ttl), e))?;
            }
        }
        (IpAddr::V6(group_ip), _) => {
            let index = params.interface_index;
            receive.join_multicast_v6(&group_ip, index).map_err(|e| {
                failed(&format!("IPV6_JOIN_GROUP (group {group_ip}, interface index {index})"), e)
            })?;
            #[cfg(target_os = "linux")]
            receive.set_multicast_all_v6(false).map_err(|e| failed("IPV6_MULTICAST_ALL off", e))?;
            send.set_multicast_if_v6(index)
                .map_err(|e| failed(&format!("IPV6_MULTICAST_IF ({index})"), e))?;
            send.set_multicast_loop_v6(true).map_err(|e| failed("IPV6_MULTICAST_LOOP", e))?;
            if params.ttl > 0 {
                send.set_multicast_hops_v6(u32::from(params.ttl))
                    .map_err(|e| failed(&format!("IPV6_MULTICAST_HOPS ({})", params.ttl), e))?;
            }
        }
    }
    Ok(())
}

fn non_blocking(socket: Socket) -> Result<UdpSocket> {
    socket.set_nonblocking(true).map_err(|e| Error::io(&e, "set_socket_non_blocking"))?;
    Ok(UdpSocket::from(socket))
}

impl UdpTransport {
    /// Opens a unicast socket of `bind_addr`'s family bound to it (port 0 = ephemeral).
    pub fn bind(bind_addr: SocketAddr, buffers: SocketBuffers) -> Result<Self> {
        if bind_addr.ip().is_multicast() {
            return Err(Error::invalid_argument(format!(
                "unicast bind of multicast address {bind_addr}: a multicast transport joins its group"
            )));
        }
        let socket = new_socket(&bind_addr)?;
        socket
            .bind(&bind_addr.into())
            .map_err(|e| Error::io(&e, format_args!("unicast bind {bind_addr}")))?;
        set_buffers(&socket, &socket, buffers)?;
        let socket = non_blocking(socket)?;
        let local_addr = socket.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
        Ok(Self {
            io: Io::Socket { socket, receive_socket: None },
            local_addr,
            connected_addr: None,
            state: IoState::default(),
        })
    }

    /// Opens a multicast transport that receives what is sent to `group` (joined on the
    /// interface in `params`) and sends through that interface; connected to `connect`
    /// (then from a second socket) when given.
    pub fn open_multicast(
        group: SocketAddr,
        params: &MulticastParams,
        connect: Option<SocketAddr>,
        buffers: SocketBuffers,
    ) -> Result<Self> {
        if !group.ip().is_multicast() {
            return Err(Error::invalid_argument(format!("{group} is not a multicast address")));
        }
        let receive = new_socket(&group)?;
        let separate_sender = connect.map(|_| new_socket(&group)).transpose()?;
        let reuse = |what: &str, e: std::io::Error| Error::io(&e, format_args!("failed to set {what}"));
        receive.set_reuse_address(true).map_err(|e| reuse("SO_REUSEADDR", e))?;
        receive.set_reuse_port(true).map_err(|e| reuse("SO_REUSEPORT", e))?;
        let wildcard = match group {
            SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, group.port())),
            SocketAddr::V6(_) => SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, group.port())),
        };
        receive
            .bind(&wildcard.into())
            .map_err(|e| Error::io(&e, format_args!("multicast bind {wildcard} for group {group}")))?;
        let send = separate_sender.as_ref().unwrap_or(&receive);
        join_group(&receive, send, &group, params)?;
        set_buffers(&receive, send, buffers)?;
        if let Some(remote) = connect {
            send.connect(&remote.into()).map_err(|e| Error::io(&e, format_args!("connect {remote}")))?;
        }
        let receive = non_blocking(receive)?;
        let local_addr = receive.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
        let (socket, receive_socket) = match separate_sender {
            Some(sender) => (non_blocking(sender)?, Some(receive)),
            None => (receive, None),
        };
        Ok(Self {
            io: Io::Socket { socket, receive_socket },
            local_addr,
            connected_addr: connect,
            state: IoState::default(),
        })
    }

    /// Opens the transport `spec` describes: through `media`'s plug-in when it has one,
    /// else as [`bind`](Self::bind) or [`open_multicast`](Self::open_multicast) (a
    /// multicast `bind` address), then connected when `spec.connect` is given.
    pub fn open(media: &Media, spec: &TransportSpec, channel: &UdpChannel) -> Result<Self> {
        if let Some(plugin) = media.plugin() {
            let transport = plugin.open(spec, channel)?;
            let local_addr = transport.local_addr()?;
            return Ok(Self {
                io: Io::Plugin(transport),
                local_addr,
                connected_addr: spec.connect,
                state: IoState::default(),
            });
        }
        let transport = Self::open_native(spec)?;
        transport.configure_io(media.io());
        Ok(transport)
    }

    /// Opens the transport `spec` describes with this driver's own sockets.
    pub fn open_native(spec: &TransportSpec) -> Result<Self> {
        if spec.bind.ip().is_multicast() {
            let params = MulticastParams {
                interface_address: spec.multicast_if.ip(),
                interface_index: spec.multicast_if_index,
                ttl: spec.ttl,
            };
            return Self::open_multicast(spec.bind, &params, spec.connect, spec.buffers);
        }
        let mut transport = Self::bind(spec.bind, spec.buffers)?;
        if let Some(remote) = spec.connect {
            transport.connect(remote)?;
        }
        Ok(transport)
    }

    /// Restricts the socket to one peer: `send` goes there and only its datagrams arrive.
    pub fn connect(&mut self, remote: SocketAddr) -> Result<()> {
        match &self.io {
            Io::Socket { socket, receive_socket } => {
                socket.connect(remote).map_err(|e| Error::io(&e, format_args!("connect {remote}")))?;
                if receive_socket.is_none() {
                    // A wildcard bind gets its address from the route to the peer: report it.
                    self.local_addr = socket.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
                }
            }
            Io::Plugin(transport) => {
                transport.connect(remote)?;
                self.local_addr = transport.local_addr()?;
            }
        }
        self.connected_addr = Some(remote);
        Ok(())
    }

    /// Connects the socket to another peer (a re-resolved endpoint, from the sender, which
    /// shares the transport). `connected_addr` keeps the peer it was opened with.
    pub fn reconnect(&self, remote: SocketAddr) -> Result<()> {
        match &self.io {
            Io::Socket { socket, .. } => {
                socket.connect(remote).map_err(|e| Error::io(&e, format_args!("connect {remote}")))
            }
            Io::Plugin(transport) => transport.connect(remote),
        }
    }

    /// The plug-in transport, if a plug-in opened this one.
    pub fn plugin(&self) -> Option<&Arc<dyn PluginTransport>> {
        match &self.io {
            Io::Plugin(transport) => Some(transport),
            Io::Socket { .. } => None,
        }
    }

    /// The sockets of a native transport: the sending one and, when separate, the
    /// receiving one (a connected multicast sender). `None` for a plug-in's transport.
    pub fn into_sockets(self) -> Option<(UdpSocket, Option<UdpSocket>)> {
        match self.io {
            Io::Socket { socket, receive_socket } => Some((socket, receive_socket)),
            Io::Plugin(_) => None,
        }
    }

    /// Sends one datagram to `dest`. Returns the bytes sent, or 0 when the socket buffer is
    /// full (a short send the caller retries later) or `dest` was unreachable last time.
    #[inline]
    pub fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize> {
        match &self.io {
            Io::Socket { socket, .. } => send_one(socket, datagram, Some(dest)),
            Io::Plugin(transport) => transport.send_to(datagram, dest),
        }
    }

    /// Sends one datagram to the connected peer; 0 when the socket buffer is full or the
    /// peer's port was unreachable last time (an earlier ICMP error reported now: the peer
    /// may come back, as Aeron's drivers assume).
    #[inline]
    pub fn send(&self, datagram: &[u8]) -> Result<usize> {
        match &self.io {
            Io::Socket { socket, .. } => send_one(socket, datagram, None),
            Io::Plugin(transport) => {
                let dest = self.connected_addr.unwrap_or(self.local_addr);
                transport.send_to(datagram, dest)
            }
        }
    }

    /// Receives one datagram into `buffer` (truncated if longer). `None` when nothing is
    /// queued. A socket may report an earlier ICMP "port unreachable" here; that says
    /// nothing about this receive and is reported as `None` too. A plug-in's transport
    /// receives through [`PluginTransport::receive`] (the transport poller does that).
    #[inline]
    pub fn recv_from(&self, buffer: &mut [u8]) -> Result<Option<(usize, SocketAddr)>> {
        let Io::Socket { socket, receive_socket } = &self.io else {
            return Err(Error::illegal_state("a plug-in's transport receives through its plug-in"));
        };
        receive_one(receive_socket.as_ref().unwrap_or(socket), buffer)
    }

    /// Lets the batched calls use what `io` allows; `UDP_GRO` is asked of the kernel here
    /// and silently left off where it is refused. A plug-in's transport stays unbatched.
    pub fn configure_io(&self, io: UdpIo) {
        let Io::Socket { socket, receive_socket } = &self.io else { return };
        self.state.mmsg_receive.store(io.mmsg, Ordering::Relaxed);
        self.state.mmsg_send.store(io.mmsg, Ordering::Relaxed);
        self.state.gso.store(io.gso, Ordering::Relaxed);
        let receiving = receive_socket.as_ref().unwrap_or(socket);
        let gro = match self.state.refused(false, false, true) {
            Some(error) => Err(error),
            None if io.gro => sys_udp::enable_udp_gro(receiving.as_raw_fd()),
            None => Ok(()),
        };
        if io.gro && gro.is_ok() {
            self.state.ancillary.store(true, Ordering::Relaxed);
        }
    }

    /// Whether sends may use segmentation offload now (not refused, not switched off).
    #[inline]
    pub fn is_segmenting(&self) -> bool {
        self.state.gso.load(Ordering::Relaxed)
    }

    /// Asks the kernel to timestamp every received datagram (`SO_TIMESTAMPNS`), for
    /// `media-rcv-ts-offset`. A plug-in's transport gives no kernel timestamps: refused.
    pub fn enable_media_timestamps(&self) -> Result<()> {
        let Io::Socket { socket, receive_socket } = &self.io else {
            return Err(Error::invalid_argument(
                "media receive timestamps need the driver's own sockets: a media plug-in's transport gives none",
            ));
        };
        let fd = receive_socket.as_ref().unwrap_or(socket).as_raw_fd();
        sys_udp::enable_receive_timestamps(fd).map_err(|e| Error::io(&e, "setsockopt(SO_TIMESTAMPNS)"))?;
        self.state.ancillary.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Reads up to `out.len()` (≤ 16) queued datagrams, the `i`th into slot `i` of `slots`
    /// (slots of `slot_length` bytes, each large enough for a GRO batch: 64 KiB), with one
    /// `recvmmsg` or, unbatched, one `recvmsg` each. Returns how many arrived; a plug-in's
    /// transport receives through its plug-in instead.
    pub fn receive_batch(
        &self,
        slots: &mut [u8],
        slot_length: usize,
        out: &mut [ReceivedMessage],
    ) -> Result<usize> {
        let Io::Socket { socket, receive_socket } = &self.io else {
            return Err(Error::illegal_state("a plug-in's transport receives through its plug-in"));
        };
        let fd = receive_socket.as_ref().unwrap_or(socket).as_raw_fd();
        let ancillary = self.state.ancillary.load(Ordering::Relaxed);
        let count = out.len().min(MAX_BATCH);
        if self.state.mmsg_receive.load(Ordering::Relaxed) && count > 1 {
            let result = match self.state.refused(true, false, false) {
                Some(error) => Err(error),
                None => sys_udp::receive_messages(fd, slots, slot_length, &mut out[..count], true, ancillary),
            };
            match result {
                Ok(received) => return Ok(received),
                Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
                    self.state.mmsg_receive.store(false, Ordering::Relaxed);
                }
                Err(e) => return Err(Error::io(&e, "recvmmsg")),
            }
        }
        let receiving = receive_socket.as_ref().unwrap_or(socket);
        let mut received = 0;
        for (slot, message) in slots.chunks_exact_mut(slot_length).zip(out.iter_mut()).take(count) {
            if !ancillary {
                // No control data wanted: `recvfrom`, which spares the kernel the message
                // header and I/O vector copies of `recvmsg` (one datagram per call).
                let Some((length, source)) = receive_one(receiving, slot)? else { break };
                *message = ReceivedMessage { length, source: Some(source), ..ReceivedMessage::default() };
                received += 1;
                continue;
            }
            let n = sys_udp::receive_messages(
                fd,
                slot,
                slot_length,
                std::slice::from_mut(message),
                false,
                ancillary,
            )
            .map_err(|e| Error::io(&e, "recvmsg"))?;
            if n == 0 {
                break;
            }
            received += 1;
        }
        Ok(received)
    }

    /// Sends `datagrams` in order to `dest` (the connected peer when `None`): with
    /// `sendmmsg`, runs of equal-sized datagrams as single `UDP_SEGMENT` messages, or one
    /// call per datagram when unbatched or a plug-in's transport. Returns how many
    /// datagrams went, all of each (fewer than given: the socket buffer filled, a short
    /// send the caller retries later).
    pub fn send_batch(&self, datagrams: &[&[u8]], dest: Option<SocketAddr>) -> Result<usize> {
        let Io::Socket { socket, .. } = &self.io else {
            let dest = dest.or(self.connected_addr).unwrap_or(self.local_addr);
            let mut sent = 0;
            for datagram in datagrams {
                if self.send_to(datagram, dest)? < datagram.len() {
                    break;
                }
                sent += 1;
            }
            return Ok(sent);
        };
        let fd = socket.as_raw_fd();
        if let [datagram] = datagrams {
            // One datagram: `send` / `sendto`, which spare the kernel the message header and
            // I/O vector copies of `sendmsg`; nothing to segment or batch.
            return Ok(usize::from(send_one(socket, datagram, dest)? == datagram.len()));
        }
        if !self.state.mmsg_send.load(Ordering::Relaxed) && !self.state.gso.load(Ordering::Relaxed) {
            // Neither batched nor segmented: nothing to plan, one plain send each.
            let mut sent = 0;
            for datagram in datagrams {
                if send_one(socket, datagram, dest)? < datagram.len() {
                    break;
                }
                sent += 1;
            }
            return Ok(sent);
        }
        let mut sent = 0;
        while sent < datagrams.len() {
            let gso = self.state.gso.load(Ordering::Relaxed);
            let mmsg = self.state.mmsg_send.load(Ordering::Relaxed);
            let mut plan = [OutgoingMessage { first: 0, count: 0, segment_size: None }; MAX_BATCH];
            let planned =
                plan_messages(&datagrams[sent..], sent, gso, if mmsg { MAX_BATCH } else { 1 }, &mut plan);
            let segmented = plan[..planned].iter().any(|m| m.count > 1);
            if planned == 1 && !segmented {
                // Unbatched: one plain send per datagram (as for a single one above).
                let datagram = datagrams[sent];
                if send_one(socket, datagram, dest)? < datagram.len() {
                    break;
                }
                sent += 1;
                continue;
            }
            let result = match self.state.refused(planned > 1, segmented, false) {
                Some(error) => Err(error),
                None => sys_udp::send_messages(fd, datagrams, &plan[..planned], dest),
            };
            match result {
                Ok(messages) => {
                    let went: usize = plan[..messages].iter().map(|m| m.count).sum();
                    sent += went;
                    if messages < planned {
                        break;
                    }
                }
                Err(e)
                    if gso
                        && sys_udp::is_offload_refusal(&e)
                        && plan[..planned].iter().any(|m| m.count > 1) =>
                {
                    // The kernel or device will not segment: plain datagrams from now on.
                    self.state.gso.store(false, Ordering::Relaxed);
                }
                Err(e) if mmsg && e.raw_os_error() == Some(libc::ENOSYS) => {
                    self.state.mmsg_send.store(false, Ordering::Relaxed);
                }
                Err(e) => {
                    return Err(Error::io(
                        &e,
                        format_args!(
                            "sendmmsg {}",
                            dest.map_or_else(|| "connected".to_string(), |d| d.to_string())
                        ),
                    ));
                }
            }
        }
        Ok(sent)
    }

    /// Makes the kernel refuse `refusal` from now on (see `IoState::refuse`).
    #[cfg(test)]
    pub(crate) fn refuse(&self, refusal: Refusal) {
        self.state.refuse[refusal as usize].store(true, Ordering::Relaxed);
    }

    /// Whether the batched calls still use (mmsg, gso, ancillary data).
    #[cfg(test)]
    pub(crate) fn io_in_use(&self) -> (bool, bool, bool) {
        let load = |flag: &AtomicBool| flag.load(Ordering::Relaxed);
        (
            load(&self.state.mmsg_send) && load(&self.state.mmsg_receive),
            load(&self.state.gso),
            load(&self.state.ancillary),
        )
    }

    /// The bound address of the receiving socket (with the actual port when bound to port
    /// 0; the wildcard address and the group's port for multicast, as Aeron reports it).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn connected_addr(&self) -> Option<SocketAddr> {
        self.connected_addr
    }

    /// `SO_RCVBUF` as the kernel reports it (Linux doubles the requested value).
    pub fn so_rcvbuf(&self) -> Result<usize> {
        match &self.io {
            Io::Socket { socket, receive_socket } => {
                socket2::SockRef::from(receive_socket.as_ref().unwrap_or(socket))
                    .recv_buffer_size()
                    .map_err(|e| Error::io(&e, "getsockopt(SO_RCVBUF)"))
            }
            Io::Plugin(transport) => transport.so_rcvbuf(),
        }
    }

    /// `SO_SNDBUF` as the kernel reports it.
    pub fn so_sndbuf(&self) -> Result<usize> {
        match &self.io {
            Io::Socket { socket, .. } => socket2::SockRef::from(socket)
                .send_buffer_size()
                .map_err(|e| Error::io(&e, "getsockopt(SO_SNDBUF)")),
            Io::Plugin(transport) => transport.so_sndbuf(),
        }
    }

    /// The multicast TTL / hop limit of the sending socket as the kernel reports it.
    pub fn multicast_ttl(&self) -> Result<u32> {
        let socket = match &self.io {
            Io::Socket { socket, .. } => socket2::SockRef::from(socket),
            Io::Plugin(transport) => return transport.multicast_ttl(self.local_addr.is_ipv6()),
        };
        let ttl =
            if self.local_addr.is_ipv6() { socket.multicast_hops_v6() } else { socket.multicast_ttl_v4() };
        ttl.map_err(|e| Error::io(&e, "getsockopt(multicast TTL)"))
    }
}

/// Sends one datagram through the native `socket` to `dest` (the connected peer when
/// `None`): the bytes sent, 0 when the socket buffer is full or an earlier ICMP error is
/// reported now.
#[inline]
fn send_one(socket: &UdpSocket, datagram: &[u8], dest: Option<SocketAddr>) -> Result<usize> {
    let result = match dest {
        Some(address) => socket.send_to(datagram, address),
        None => socket.send(datagram),
    };
    match result {
        Ok(n) => Ok(n),
        Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(0),
        Err(e) => Err(match dest {
            Some(address) => Error::io(&e, format_args!("sendto {address}")),
            None => Error::io(&e, "send"),
        }),
    }
}

/// One datagram from `socket` into `buffer` with `recvfrom`: `None` when nothing is queued
/// or the socket reports an earlier ICMP error (which says nothing about this receive).
#[inline]
fn receive_one(socket: &UdpSocket, buffer: &mut [u8]) -> Result<Option<(usize, SocketAddr)>> {
    match socket.recv_from(buffer) {
        Ok(received) => Ok(Some(received)),
        Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(None),
        Err(e) => Err(Error::io(&e, "recvfrom")),
    }
}

/// Groups `datagrams` (which start at index `base` of the caller's list) into at most
/// `max_messages` messages: with `gso`, each run of equal-sized datagrams (the last of a run
/// may be shorter) within the kernel's segment and byte limits is one message. Returns
/// how many messages it planned.
fn plan_messages(
    datagrams: &[&[u8]],
    base: usize,
    gso: bool,
    max_messages: usize,
    plan: &mut [OutgoingMessage; MAX_BATCH],
) -> usize {
    let mut planned = 0;
    let mut i = 0;
    let mut segments = 0;
    while i < datagrams.len() && planned < max_messages.min(MAX_BATCH) {
        let size = datagrams[i].len();
        let mut count = 1;
        let mut bytes = size;
        if gso && size > 0 && size <= usize::from(u16::MAX) {
            while i + count < datagrams.len()
                && segments + count < MAX_GSO_SEGMENTS
                && bytes + datagrams[i + count].len() <= MAX_GSO_BYTES
                && datagrams[i + count].len() <= size
                && datagrams[i + count - 1].len() == size
            {
                bytes += datagrams[i + count].len();
                count += 1;
            }
        }
        let segment_size = (count > 1).then_some(size as u16);
        plan[planned] = OutgoingMessage { first: base + i, count, segment_size };
        segments += count;
        planned += 1;
        i += count;
        if segments >= MAX_GSO_SEGMENTS {
            break;
        }
    }
    planned
}

impl AsRawFd for UdpTransport {
    /// The socket to wait on for received datagrams (a plug-in's receive descriptor).
    fn as_raw_fd(&self) -> RawFd {
        match &self.io {
            Io::Socket { socket, receive_socket } => receive_socket.as_ref().unwrap_or(socket).as_raw_fd(),
            Io::Plugin(transport) => transport.receive_fd(),
        }
    }
}

impl AsRef<UdpTransport> for UdpTransport {
    fn as_ref(&self) -> &UdpTransport {
        self
    }
}

#[cfg(test)]
#[path = "udp_transport_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "udp_batch_tests.rs"]
mod batch_tests;
