//! A media plug-in over plain UDP sockets that records what the driver asks of it: the
//! multicast TTL of each transport it opens, the `vlen` of each `receive` by agent, and how
//! many DATA datagrams went out.
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aeronrs::driver::media::media_plugin::{
    Deliver, MediaPlugin, PluginTransport, ReceiveOutcome, TransportAffinity, TransportSpec,
};
use aeronrs::driver::media::udp_channel::UdpChannel;
use aeronrs::util::error::{Error, Result};

#[derive(Default)]
pub struct Record {
    /// (affinity, TTL) of each transport opened.
    pub opened: Vec<(TransportAffinity, u8)>,
    /// (affinity, vlen) of each distinct receive.
    pub receives: Vec<(TransportAffinity, usize)>,
    /// DATA datagrams with a payload sent, over all transports.
    pub data_sent: usize,
    /// `receive` calls on the sender's transports.
    pub sender_receives: usize,
}

#[derive(Default)]
pub struct RecordingMedia {
    pub record: Arc<Mutex<Record>>,
    next_key: AtomicU64,
}

#[derive(Debug)]
struct Transport {
    socket: UdpSocket,
    key: u64,
    ttl: u8,
    affinity: TransportAffinity,
    record: Arc<Mutex<Record>>,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "opened {:?}, receives {:?}", self.opened, self.receives)
    }
}

fn io(e: std::io::Error) -> Error {
    Error::io(&e, "recording media")
}

impl MediaPlugin for RecordingMedia {
    fn open(&self, spec: &TransportSpec, _channel: &UdpChannel) -> Result<Arc<dyn PluginTransport>> {
        let socket = UdpSocket::bind(spec.bind).map_err(io)?;
        socket.set_nonblocking(true).map_err(io)?;
        if let Some(remote) = spec.connect {
            socket.connect(remote).map_err(io)?;
        }
        self.record.lock().unwrap().opened.push((spec.affinity, spec.ttl));
        Ok(Arc::new(Transport {
            socket,
            key: self.next_key.fetch_add(1, Ordering::Relaxed),
            ttl: spec.ttl,
            affinity: spec.affinity,
            record: self.record.clone(),
        }))
    }

    fn replaces_incoming_interceptors(&self) -> bool {
        false
    }
}

impl PluginTransport for Transport {
    fn key(&self) -> u64 {
        self.key
    }

    fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize> {
        // Aeron: frame length (4 bytes), flags, then type 0x01 for DATA; heartbeats have length 0.
        let is_data = datagram.len() > 32 && datagram[6..8] == [1, 0] && datagram[..4] != [0; 4];
        if is_data {
            self.record.lock().unwrap().data_sent += 1;
        }
        let sent = match self.socket.peer_addr() {
            Ok(_) => self.socket.send(datagram),
            Err(_) => self.socket.send_to(datagram, dest),
        };
        match sent {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(0),
            Err(e) => Err(io(e)),
        }
    }

    fn receive(&self, buffers: &mut [u8], vlen: usize, deliver: &mut Deliver<'_>) -> Result<ReceiveOutcome> {
        let entry = (self.affinity, vlen);
        let mut record = self.record.lock().unwrap();
        if self.affinity == TransportAffinity::Sender {
            record.sender_receives += 1;
        }
        if !record.receives.contains(&entry) {
            record.receives.push(entry);
        }
        drop(record);
        let slot = buffers.len() / vlen.max(1);
        let mut outcome = ReceiveOutcome::default();
        for chunk in buffers.chunks_mut(slot).take(vlen) {
            match self.socket.recv_from(chunk) {
                Ok((n, from)) => {
                    deliver(self.key, &chunk[..n], from);
                    outcome.messages += 1;
                    outcome.bytes += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(io(e)),
            }
        }
        Ok(outcome)
    }

    fn connect(&self, remote: SocketAddr) -> Result<()> {
        self.socket.connect(remote).map_err(io)
    }

    fn local_addr(&self) -> Result<SocketAddr> {
        self.socket.local_addr().map_err(io)
    }

    fn so_rcvbuf(&self) -> Result<usize> {
        Ok(0)
    }

    fn so_sndbuf(&self) -> Result<usize> {
        Ok(0)
    }

    fn multicast_ttl(&self, _ipv6: bool) -> Result<u32> {
        Ok(u32::from(self.ttl))
    }

    fn receive_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }

    fn on_poller_change(&self, _added: bool) -> Result<()> {
        Ok(())
    }
}
