//! `TransportPoller`: receives from many UDP transports in one duty cycle, the way Aeron's
//! C poller does (`aeron_udp_transport_poller_poll`): with up to 5 transports it simply
//! tries each one; with more it first asks `poll(2)` which are readable. Each ready
//! transport yields up to `messages_per_transport` datagrams per call (the receiver's and
//! sender's I/O vector capacity, default 2, at most 16), read with one `recvmmsg` where the
//! transport batches; a `UDP_GRO` read counts as the datagrams it holds.
//!
//! Entries are the caller's endpoint objects, each lending one or more `UdpTransport`s (a
//! receive endpoint has one per destination), so a datagram is handed to its endpoint
//! directly with the index of the transport it came from. The loss-injection interceptors,
//! when configured, sit between the socket and the handler. A media plug-in's transport
//! reads and delivers through the plug-in (`media_plugin.rs`), which may hand a datagram
//! to another transport of the same poller. Adding and removing entries
//! or transports allocates (call [`TransportPoller::refresh`] after changing an entry's
//! transports); polling does not.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::time::Duration;

use std::sync::Arc;

use super::loss_injection::IncomingInterceptorChain;
use super::media_plugin::PluginTransport;
use super::udp_transport::{ReceivedMessage, UdpTransport};
use crate::util::error::{Error, Result};
use crate::util::sys::udp::MAX_BATCH;
use crate::util::sys::{poll_now, poll_wait};

/// Up to this many transports are polled by trying each; beyond, `poll(2)` selects.
pub const ITERATION_THRESHOLD: usize = 5;

/// Size of a receive buffer that holds any UDP datagram Aeron sends.
pub const RECEIVE_BUFFER_LENGTH: usize = 64 * 1024;

/// An endpoint's sockets, as the poller sees them.
pub trait TransportSet {
    fn transport_count(&self) -> usize;
    /// Transport `index` (< `transport_count()`).
    fn transport(&self, index: usize) -> &UdpTransport;
}

/// A bare socket is a set of one.
impl TransportSet for UdpTransport {
    fn transport_count(&self) -> usize {
        1
    }

    fn transport(&self, _index: usize) -> &UdpTransport {
        self
    }
}

/// Tells the plug-in transports of `entry` that they joined (`added`) or are leaving the
/// agent's poller (Aeron's transport notifications to interceptors).
pub fn notify_plugins<T: TransportSet + ?Sized>(entry: &T, added: bool) -> Result<()> {
    for t in 0..entry.transport_count() {
        if let Some(plugin) = entry.transport(t).plugin() {
            plugin.on_poller_change(added)?;
        }
    }
    Ok(())
}

/// What one poll did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PollOutcome {
    /// Datagrams read from sockets (including those an interceptor dropped).
    pub messages: usize,
    /// Bytes of those datagrams.
    pub bytes: u64,
    /// Datagrams dropped by loss injection.
    pub dropped: usize,
}

pub struct TransportPoller<T> {
    entries: Vec<T>,
    /// One per transport of every entry, in entry order; used beyond the threshold.
    poll_fds: Vec<libc::pollfd>,
    /// (entry index, transport index) of each `poll_fds` slot.
    owners: Vec<(usize, usize)>,
    /// The plug-in transport of each slot (`None` for the driver's own sockets).
    plugins: Vec<Option<Arc<dyn PluginTransport>>>,
    /// The plug-in key of each slot (0 for the driver's own sockets).
    keys: Vec<u64>,
    /// `messages_per_transport` receive slots for plug-in transports (allocated with the
    /// first one).
    plugin_buffers: Vec<u8>,
    /// `messages_per_transport` receive slots of the driver's own sockets (one, for the
    /// copy of a plug-in's datagram, is all a plug-in-only poller uses).
    slots: Vec<u8>,
    received: [ReceivedMessage; MAX_BATCH],
    messages_per_transport: usize,
    interceptors: Option<IncomingInterceptorChain>,
}

impl<T: TransportSet> TransportPoller<T> {
    /// A poller reading up to `messages_per_transport` (≥ 1) datagrams per transport per
    /// poll, passing each through `interceptors` when given.
    pub fn new(messages_per_transport: usize, interceptors: Option<IncomingInterceptorChain>) -> Self {
        Self {
            entries: Vec::new(),
            poll_fds: Vec::new(),
            owners: Vec::new(),
            plugins: Vec::new(),
            keys: Vec::new(),
            plugin_buffers: Vec::new(),
            slots: vec![0u8; messages_per_transport.clamp(1, MAX_BATCH) * RECEIVE_BUFFER_LENGTH],
            received: [ReceivedMessage::default(); MAX_BATCH],
            messages_per_transport: messages_per_transport.clamp(1, MAX_BATCH),
            interceptors,
        }
    }

    pub fn add(&mut self, entry: T) {
        self.entries.push(entry);
        self.refresh();
    }

    /// Removes and returns the first entry `matches` accepts (order of the rest may change).
    pub fn remove(&mut self, mut matches: impl FnMut(&T) -> bool) -> Option<T> {
        let index = self.entries.iter().position(&mut matches)?;
        let entry = self.entries.swap_remove(index);
        self.refresh();
        Some(entry)
    }

    /// Rebuilds the descriptor list after an entry's transports changed.
    pub fn refresh(&mut self) {
        self.poll_fds.clear();
        self.owners.clear();
        self.plugins.clear();
        self.keys.clear();
        for (e, entry) in self.entries.iter().enumerate() {
            for t in 0..entry.transport_count() {
                let transport = entry.transport(t);
                let fd = transport.as_raw_fd();
                self.poll_fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
                self.owners.push((e, t));
                self.plugins.push(transport.plugin().cloned());
                self.keys.push(transport.plugin().map_or(0, |p| p.key()));
            }
        }
        if self.plugins.iter().any(Option::is_some) && self.plugin_buffers.is_empty() {
            self.plugin_buffers = vec![0u8; self.messages_per_transport * RECEIVE_BUFFER_LENGTH];
        }
    }

    pub fn entries(&self) -> &[T] {
        &self.entries
    }

    pub fn entries_mut(&mut self) -> &mut [T] {
        &mut self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Waits up to `timeout` for a datagram on any transport (with none, simply waits):
    /// how the receiver idles, so that it wakes when data arrives rather than when a park
    /// ends. Returns whether a transport is readable.
    pub fn wait_readable(&mut self, timeout: Duration) -> Result<bool> {
        let ready = poll_wait(&mut self.poll_fds, timeout).map_err(|e| Error::io(&e, "ppoll"))?;
        Ok(ready > 0)
    }

    /// Reads what is queued (up to `messages_per_transport` datagrams per transport, in one
    /// batched call where the transport allows) and calls `on_datagram(entry, transport
    /// index, datagram, source, kernel receive time)` for each datagram the interceptors
    /// let through; a GRO read is split into its datagrams first. The datagram is the
    /// poller's buffer, which the handler may write (receive timestamps).
    pub fn poll(
        &mut self,
        mut on_datagram: impl FnMut(&mut T, usize, &mut [u8], SocketAddr, Option<i64>),
    ) -> Result<PollOutcome> {
        let mut outcome = PollOutcome::default();
        let selective = self.poll_fds.len() > ITERATION_THRESHOLD;
        if selective {
            let ready = poll_now(&mut self.poll_fds).map_err(|e| Error::io(&e, "poll"))?;
            if ready == 0 {
                return Ok(outcome);
            }
        }
        for (slot, (&(e, t), poll_fd)) in self.owners.iter().zip(self.poll_fds.iter_mut()).enumerate() {
            if selective {
                let readable = poll_fd.revents & libc::POLLIN != 0;
                poll_fd.revents = 0;
                if !readable {
                    continue;
                }
            }
            if let Some(plugin) = &self.plugins[slot] {
                let (entries, owners, keys, interceptors, scratch) =
                    (&mut self.entries, &self.owners, &self.keys, &mut self.interceptors, &mut self.slots);
                let mut deliver = |key: u64, datagram: &[u8], source: SocketAddr| {
                    // Usually the transport just read; an interceptor may pass on a datagram
                    // it held back from another transport of this agent.
                    let target =
                        if keys[slot] == key { Some(slot) } else { keys.iter().position(|&k| k == key) };
                    let Some(target) = target else { return };
                    if let Some(chain) = interceptors.as_mut() {
                        if chain.should_drop(datagram) {
                            outcome.dropped += 1;
                            return;
                        }
                    }
                    // The plug-in lends its bytes read-only: the handler gets a copy.
                    let Some(copy) = scratch.get_mut(..datagram.len()) else { return };
                    copy.copy_from_slice(datagram);
                    let (e, t) = owners[target];
                    on_datagram(&mut entries[e], t, copy, source, None);
                };
                let read =
                    plugin.receive(&mut self.plugin_buffers, self.messages_per_transport, &mut deliver)?;
                outcome.messages += read.messages;
                outcome.bytes += read.bytes;
                continue;
            }
            let entry = &mut self.entries[e];
            let count = self.messages_per_transport.min(MAX_BATCH);
            let received = entry.transport(t).receive_batch(
                &mut self.slots,
                RECEIVE_BUFFER_LENGTH,
                &mut self.received[..count],
            )?;
            for (message, buffer) in
                self.received[..received].iter().zip(self.slots.chunks_exact_mut(RECEIVE_BUFFER_LENGTH))
            {
                let Some(source) = message.source else { continue };
                let length = message.length.min(buffer.len());
                // A GRO read holds datagrams of `segment_size` bytes, the last maybe shorter.
                let segment_size = message.segment_size.unwrap_or(length).max(1);
                for datagram in buffer[..length].chunks_mut(segment_size) {
                    outcome.messages += 1;
                    outcome.bytes += datagram.len() as u64;
                    if let Some(chain) = self.interceptors.as_mut() {
                        if chain.should_drop(datagram) {
                            outcome.dropped += 1;
                            continue;
                        }
                    }
                    on_datagram(entry, t, datagram, source, message.timestamp_ns);
                }
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::media::udp_transport::SocketBuffers;

    struct Endpoint {
        id: usize,
        transport: UdpTransport,
    }

    impl TransportSet for Endpoint {
        fn transport_count(&self) -> usize {
            1
        }

        fn transport(&self, _: usize) -> &UdpTransport {
            &self.transport
        }
    }

    fn endpoints(n: usize) -> Vec<Endpoint> {
        (0..n)
            .map(|id| Endpoint {
                id,
                transport: UdpTransport::bind("127.0.0.1:0".parse().unwrap(), SocketBuffers::default())
                    .unwrap(),
            })
            .collect()
    }

    /// Datagrams seen as (endpoint id, bytes), and per poll the count per endpoint id.
    type Seen = (Vec<(usize, Vec<u8>)>, Vec<Vec<usize>>);

    /// Polls until `count` datagrams arrived (bounded: loopback may defer delivery a
    /// little under load) and returns them with, per poll, how many each endpoint gave.
    fn poll_until(poller: &mut TransportPoller<Endpoint>, count: usize) -> Seen {
        let mut seen = Vec::new();
        let mut per_poll = Vec::new();
        for _ in 0..5000 {
            let mut counts = vec![0usize; 16];
            let outcome = poller
                .poll(|e, _, d, _, _| {
                    counts[e.id] += 1;
                    seen.push((e.id, d.to_vec()));
                })
                .unwrap();
            assert_eq!(
                outcome.bytes,
                seen.iter().rev().take(outcome.messages).map(|s| s.1.len() as u64).sum()
            );
            per_poll.push(counts);
            if seen.len() >= count {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        seen.sort();
        (seen, per_poll)
    }

    #[test]
    fn iterates_few_transports_and_selects_among_many() {
        for n in [1, ITERATION_THRESHOLD, ITERATION_THRESHOLD + 3] {
            let mut poller = TransportPoller::new(2, None);
            let eps = endpoints(n);
            let addrs: Vec<SocketAddr> = eps.iter().map(|e| e.transport.local_addr()).collect();
            eps.into_iter().for_each(|e| poller.add(e));
            let tx = UdpTransport::bind("127.0.0.1:0".parse().unwrap(), SocketBuffers::default()).unwrap();
            // Only every other endpoint gets data, three datagrams each.
            for (i, addr) in addrs.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
                for k in 0..3u8 {
                    tx.send_to(&[i as u8, k], *addr).unwrap();
                }
            }
            let expected: Vec<(usize, Vec<u8>)> =
                (0..n).step_by(2).flat_map(|i| (0..3u8).map(move |k| (i, vec![i as u8, k]))).collect();
            let (seen, per_poll) = poll_until(&mut poller, expected.len());
            assert_eq!(seen, expected, "n={n}");
            // At most two datagrams per transport per poll (the I/O vector capacity), so
            // the third of each always needs a second poll.
            assert!(per_poll.iter().flatten().all(|&c| c <= 2), "n={n}: {per_poll:?}");
            assert!(per_poll.len() >= 2, "n={n}");
        }
    }

    #[test]
    fn remove_keeps_descriptors_in_step() {
        let mut poller = TransportPoller::new(4, None);
        let eps = endpoints(ITERATION_THRESHOLD + 2);
        let addrs: Vec<SocketAddr> = eps.iter().map(|e| e.transport.local_addr()).collect();
        eps.into_iter().for_each(|e| poller.add(e));
        let removed = poller.remove(|e| e.id == 1).unwrap();
        assert_eq!(removed.id, 1);
        assert_eq!(poller.len(), ITERATION_THRESHOLD + 1);
        let tx = UdpTransport::bind("127.0.0.1:0".parse().unwrap(), SocketBuffers::default()).unwrap();
        for (i, addr) in addrs.iter().enumerate() {
            tx.send_to(&[i as u8], *addr).unwrap();
        }
        let (seen, _) = poll_until(&mut poller, ITERATION_THRESHOLD + 1);
        let ids: Vec<usize> = seen.iter().map(|(i, _)| *i).collect();
        assert_eq!(ids, vec![0, 2, 3, 4, 5, 6]);
        assert!(seen.iter().all(|(i, d)| d == &vec![*i as u8]));
    }
}
