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
//! never allocate; "would block" is not an error but an empty result.
#![forbid(unsafe_code)]

use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

use socket2::{Domain, Protocol, Socket, Type};

use crate::util::error::{Error, Result};

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

/// A bound, non-blocking UDP socket (two for a connected multicast publication).
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    /// The socket that receives, when it is not `socket` (a connected multicast sender).
    receive_socket: Option<UdpSocket>,
    local_addr: SocketAddr,
    connected_addr: Option<SocketAddr>,
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
        Ok(Self { socket, receive_socket: None, local_addr, connected_addr: None })
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
        Ok(Self { socket, receive_socket, local_addr, connected_addr: connect })
    }

    /// Restricts the socket to one peer: `send` goes there and only its datagrams arrive.
    pub fn connect(&mut self, remote: SocketAddr) -> Result<()> {
        self.socket.connect(remote).map_err(|e| Error::io(&e, format_args!("connect {remote}")))?;
        self.connected_addr = Some(remote);
        if self.receive_socket.is_none() {
            // A wildcard bind gets its address from the route to the peer: report that one.
            self.local_addr = self.socket.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
        }
        Ok(())
    }

    fn receiver(&self) -> &UdpSocket {
        self.receive_socket.as_ref().unwrap_or(&self.socket)
    }

    /// Sends one datagram to `dest`. Returns the bytes sent, or 0 when the socket buffer is
    /// full (a short send the caller retries later) or `dest` was unreachable last time.
    #[inline]
    pub fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize> {
        match self.socket.send_to(datagram, dest) {
            Ok(n) => Ok(n),
            Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(0),
            Err(e) => Err(Error::io(&e, format_args!("sendto {dest}"))),
        }
    }

    /// Sends one datagram to the connected peer; 0 when the socket buffer is full or the
    /// peer's port was unreachable last time (an earlier ICMP error reported now: the peer
    /// may come back, as Aeron's drivers assume).
    #[inline]
    pub fn send(&self, datagram: &[u8]) -> Result<usize> {
        match self.socket.send(datagram) {
            Ok(n) => Ok(n),
            Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(0),
            Err(e) => Err(Error::io(&e, "send")),
        }
    }

    /// Receives one datagram into `buffer` (truncated if longer). `None` when nothing is
    /// queued. A socket may report an earlier ICMP "port unreachable" here; that says
    /// nothing about this receive and is reported as `None` too.
    #[inline]
    pub fn recv_from(&self, buffer: &mut [u8]) -> Result<Option<(usize, SocketAddr)>> {
        match self.receiver().recv_from(buffer) {
            Ok(received) => Ok(Some(received)),
            Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(None),
            Err(e) => Err(Error::io(&e, "recvfrom")),
        }
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
        socket2::SockRef::from(self.receiver())
            .recv_buffer_size()
            .map_err(|e| Error::io(&e, "getsockopt(SO_RCVBUF)"))
    }

    /// `SO_SNDBUF` as the kernel reports it.
    pub fn so_sndbuf(&self) -> Result<usize> {
        socket2::SockRef::from(&self.socket)
            .send_buffer_size()
            .map_err(|e| Error::io(&e, "getsockopt(SO_SNDBUF)"))
    }

    /// The multicast TTL / hop limit of the sending socket as the kernel reports it.
    pub fn multicast_ttl(&self) -> Result<u32> {
        let socket = socket2::SockRef::from(&self.socket);
        let ttl =
            if self.local_addr.is_ipv6() { socket.multicast_hops_v6() } else { socket.multicast_ttl_v4() };
        ttl.map_err(|e| Error::io(&e, "getsockopt(multicast TTL)"))
    }
}

impl AsRawFd for UdpTransport {
    /// The socket to wait on for received datagrams.
    fn as_raw_fd(&self) -> RawFd {
        self.receiver().as_raw_fd()
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
