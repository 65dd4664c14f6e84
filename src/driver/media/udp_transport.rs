//! `UdpTransport`: one non-blocking UDP socket of a channel endpoint, set up as Aeron's C
//! driver sets it up (`aeron_udp_channel_transport_init`): bound to the local address,
//! `SO_RCVBUF` / `SO_SNDBUF` applied when non-zero (0 keeps the OS default), optionally
//! connected to one remote address. Multicast is not supported yet and is refused.
//!
//! The duty-cycle calls (`send_to`, `send`, `recv_from`) make exactly one system call and
//! never allocate; "would block" is not an error but an empty result.
#![forbid(unsafe_code)]

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

use socket2::{Domain, Protocol, Socket, Type};

use super::socket_address::reject_multicast;
use crate::util::error::{Error, Result};

/// Socket buffer sizes for a transport: the channel's `so-sndbuf` / `so-rcvbuf` or the
/// driver's `AERON_SOCKET_SO_SNDBUF` / `AERON_SOCKET_SO_RCVBUF`; 0 = OS default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketBuffers {
    pub so_sndbuf: usize,
    pub so_rcvbuf: usize,
}

/// A bound, non-blocking UDP socket.
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    local_addr: SocketAddr,
    connected_addr: Option<SocketAddr>,
}

/// Whether an I/O error only means "nothing to do right now".
fn is_transient(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

impl UdpTransport {
    /// Opens a socket of `bind_addr`'s family bound to it (port 0 = ephemeral).
    pub fn bind(bind_addr: SocketAddr, buffers: SocketBuffers) -> Result<Self> {
        reject_multicast("bind address", bind_addr)?;
        let socket = Socket::new(Domain::for_address(bind_addr), Type::DGRAM, Some(Protocol::UDP))
            .map_err(|e| Error::io(&e, format_args!("socket for {bind_addr}")))?;
        socket
            .bind(&bind_addr.into())
            .map_err(|e| Error::io(&e, format_args!("unicast bind {bind_addr}")))?;
        if buffers.so_rcvbuf > 0 {
            socket
                .set_recv_buffer_size(buffers.so_rcvbuf)
                .map_err(|e| Error::io(&e, format_args!("setsockopt(SO_RCVBUF, {})", buffers.so_rcvbuf)))?;
        }
        if buffers.so_sndbuf > 0 {
            socket
                .set_send_buffer_size(buffers.so_sndbuf)
                .map_err(|e| Error::io(&e, format_args!("setsockopt(SO_SNDBUF, {})", buffers.so_sndbuf)))?;
        }
        socket.set_nonblocking(true).map_err(|e| Error::io(&e, "set_socket_non_blocking"))?;
        let socket = UdpSocket::from(socket);
        let local_addr = socket.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
        Ok(Self { socket, local_addr, connected_addr: None })
    }

    /// Restricts the socket to one peer: `send` goes there and only its datagrams arrive.
    pub fn connect(&mut self, remote: SocketAddr) -> Result<()> {
        reject_multicast("connect address", remote)?;
        self.socket.connect(remote).map_err(|e| Error::io(&e, format_args!("connect {remote}")))?;
        self.connected_addr = Some(remote);
        // A wildcard bind gets its address from the route to the peer: report that one.
        self.local_addr = self.socket.local_addr().map_err(|e| Error::io(&e, "getsockname"))?;
        Ok(())
    }

    /// Sends one datagram to `dest`. Returns the bytes sent, or 0 when the socket buffer is
    /// full (a short send the caller retries later).
    #[inline]
    pub fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize> {
        match self.socket.send_to(datagram, dest) {
            Ok(n) => Ok(n),
            Err(e) if is_transient(e.kind()) => Ok(0),
            Err(e) => Err(Error::io(&e, "sendto")),
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
    /// queued. A connected socket may report an earlier ICMP "port unreachable" here; that
    /// says nothing about this receive and is reported as `None` too.
    #[inline]
    pub fn recv_from(&self, buffer: &mut [u8]) -> Result<Option<(usize, SocketAddr)>> {
        match self.socket.recv_from(buffer) {
            Ok(received) => Ok(Some(received)),
            Err(e) if is_transient(e.kind()) || e.kind() == ErrorKind::ConnectionRefused => Ok(None),
            Err(e) => Err(Error::io(&e, "recvfrom")),
        }
    }

    /// The bound address (with the actual port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn connected_addr(&self) -> Option<SocketAddr> {
        self.connected_addr
    }

    /// `SO_RCVBUF` as the kernel reports it (Linux doubles the requested value).
    pub fn so_rcvbuf(&self) -> Result<usize> {
        socket2::SockRef::from(&self.socket)
            .recv_buffer_size()
            .map_err(|e| Error::io(&e, "getsockopt(SO_RCVBUF)"))
    }

    /// `SO_SNDBUF` as the kernel reports it.
    pub fn so_sndbuf(&self) -> Result<usize> {
        socket2::SockRef::from(&self.socket)
            .send_buffer_size()
            .map_err(|e| Error::io(&e, "getsockopt(SO_SNDBUF)"))
    }
}

impl AsRawFd for UdpTransport {
    fn as_raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }
}

impl AsRef<UdpTransport> for UdpTransport {
    fn as_ref(&self) -> &UdpTransport {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(addr: &str) -> UdpTransport {
        UdpTransport::bind(addr.parse().unwrap(), SocketBuffers::default()).unwrap()
    }

    /// Receives one datagram, waiting (bounded) should loopback delivery be deferred.
    fn recv_wait(t: &UdpTransport, buf: &mut [u8]) -> (usize, SocketAddr) {
        for _ in 0..5000 {
            if let Some(received) = t.recv_from(buf).unwrap() {
                return received;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("nothing received within 5 s");
    }

    #[test]
    fn ephemeral_bind_reports_actual_port() {
        let t = bind("127.0.0.1:0");
        assert!(t.local_addr().port() != 0);
        assert!(t.local_addr().ip().is_loopback());
        let mut buf = [0u8; 64];
        assert_eq!(t.recv_from(&mut buf).unwrap(), None);
    }

    #[test]
    fn buffers_are_applied() {
        let t = UdpTransport::bind(
            "127.0.0.1:0".parse().unwrap(),
            SocketBuffers { so_sndbuf: 64 * 1024, so_rcvbuf: 128 * 1024 },
        )
        .unwrap();
        // Linux doubles the value for bookkeeping; at least what was asked is in effect.
        assert!(t.so_rcvbuf().unwrap() >= 128 * 1024);
        assert!(t.so_sndbuf().unwrap() >= 64 * 1024);
    }

    #[test]
    fn connected_send_and_receive() {
        let rx = bind("127.0.0.1:0");
        let mut tx = bind("127.0.0.1:0");
        tx.connect(rx.local_addr()).unwrap();
        assert_eq!(tx.connected_addr(), Some(rx.local_addr()));
        assert_eq!(tx.send(b"hello").unwrap(), 5);
        let mut buf = [0u8; 64];
        let (n, from) = recv_wait(&rx, &mut buf);
        assert_eq!((&buf[..n], from), (&b"hello"[..], tx.local_addr()));
    }

    #[test]
    fn address_in_use_and_multicast_are_errors() {
        let a = bind("127.0.0.1:0");
        let err = UdpTransport::bind(a.local_addr(), SocketBuffers::default()).unwrap_err();
        assert_eq!(err.code(), libc::EADDRINUSE);
        assert!(err.message().contains("unicast bind"), "{err}");
        let err = UdpTransport::bind("239.1.1.1:0".parse().unwrap(), SocketBuffers::default()).unwrap_err();
        assert!(err.message().contains("not supported yet"), "{err}");
        let mut t = bind("127.0.0.1:0");
        assert!(t.connect("224.0.0.9:4000".parse().unwrap()).is_err());
    }
}
