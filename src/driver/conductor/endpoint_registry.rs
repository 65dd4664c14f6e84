//! The conductor's send and receive channel endpoints, each kind in one registry with the
//! same rules (`spec/channel-uri.md` §2.1): an endpoint is found by its registration id, by
//! a channel's tag, or by a channel's canonical form; a closing endpoint is never shared;
//! one that nothing uses closes a whole timer interval after it became unused (so a channel
//! removed and added again keeps its socket and port), and it leaves the registry only when
//! its agent released it, when its counters are freed and its ports given back. The
//! registry keeps where each endpoint is in that life itself.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::ops::{Index, IndexMut};

use crate::concurrent::counters::CountersManager;
use crate::driver::media::port_manager::PortManager;
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::position_counters::{CHANNEL_STATUS_CLOSING, Position};
use crate::util::error::Result;

/// What the registry needs of an endpoint record.
pub(crate) trait RegisteredEndpoint {
    /// The registration id that names it (the publication's or subscription's that made it).
    fn id(&self) -> i64;
    fn channel(&self) -> &UdpChannel;
    /// Its channel status counter, set to closing when the endpoint starts to close.
    fn status(&self) -> &Position;
    /// Some publication, subscription or image still uses it.
    fn in_use(&self) -> bool;
    fn free_counters(&self, counters: &mut CountersManager, now_ms: i64);
    /// Where its port manager bound its sockets.
    fn bind_addresses(&self) -> Vec<SocketAddr>;
}

/// An endpoint and where it is in its life.
#[derive(Debug)]
struct Registered<E> {
    endpoint: E,
    /// Its agent was told to drop it; it is not shared any more.
    closing: bool,
    /// Since when nothing has used it.
    unused_since_ns: Option<i64>,
}

/// The endpoints of one kind, in the order they were opened.
#[derive(Debug)]
pub(crate) struct EndpointRegistry<E> {
    entries: Vec<Registered<E>>,
}

impl<E> Default for EndpointRegistry<E> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<E: RegisteredEndpoint> EndpointRegistry<E> {
    /// Adds a new endpoint; its index.
    pub(crate) fn push(&mut self, endpoint: E) -> usize {
        self.entries.push(Registered { endpoint, closing: false, unused_since_ns: None });
        self.entries.len() - 1
    }

    pub(crate) fn index_of(&self, id: i64) -> Option<usize> {
        self.entries.iter().position(|e| e.endpoint.id() == id)
    }

    /// An open endpoint named by `id`.
    pub(crate) fn is_open(&self, id: i64) -> bool {
        self.entries.iter().any(|e| e.endpoint.id() == id && !e.closing)
    }

    pub(crate) fn find(&self, id: i64) -> Option<&E> {
        self.entries.iter().find(|e| e.endpoint.id() == id).map(|e| &e.endpoint)
    }

    pub(crate) fn find_mut(&mut self, id: i64) -> Option<&mut E> {
        self.entries.iter_mut().find(|e| e.endpoint.id() == id).map(|e| &mut e.endpoint)
    }

    /// The open endpoints, with their indices.
    fn open(&self) -> impl Iterator<Item = (usize, &E)> {
        self.entries.iter().enumerate().filter(|(_, e)| !e.closing).map(|(index, e)| (index, &e.endpoint))
    }

    /// The open endpoint a tagged `channel` refers to by its tag (Aeron's `tags=` reuse).
    pub(crate) fn find_by_tag(&self, channel: &UdpChannel) -> Result<Option<usize>> {
        if channel.channel_tag.is_none() {
            return Ok(None);
        }
        for (index, endpoint) in self.open() {
            if channel.matches_tag(endpoint.channel(), None, None)? {
                return Ok(Some(index));
            }
        }
        Ok(None)
    }

    /// The open endpoint with `channel`'s canonical form, unless both carry different tags.
    pub(crate) fn find_by_canonical_form(&self, channel: &UdpChannel) -> Option<usize> {
        self.open().find_map(|(index, e)| {
            let existing = e.channel();
            let same = existing.canonical_form == channel.canonical_form
                && !(existing.channel_tag.is_some()
                    && channel.channel_tag.is_some()
                    && existing.channel_tag != channel.channel_tag);
            same.then_some(index)
        })
    }

    /// Open endpoint `index` is shared again: whatever it was, it is not unused now.
    pub(crate) fn reuse(&mut self, index: usize) {
        self.entries[index].unused_since_ns = None;
    }

    /// Endpoint `id` may have lost its last user: unless something still uses it (or it is
    /// closing) it is unused from `now_ns` on, if it was not before.
    pub(crate) fn note_if_unused(&mut self, id: i64, now_ns: i64) {
        if let Some(entry) = self.entries.iter_mut().find(|e| e.endpoint.id() == id)
            && !entry.closing
            && !entry.endpoint.in_use()
        {
            entry.unused_since_ns.get_or_insert(now_ns);
        }
    }

    /// Timer: starts closing every endpoint unused since `expiry_ns` or before, calling
    /// `close` with the id of each (to tell its agent). One unused but not yet marked is
    /// marked unused from `now_ns`: a reuse that a later check refused (e.g. a mismatched
    /// socket buffer length) must not keep it open.
    pub(crate) fn close_unused(&mut self, now_ns: i64, expiry_ns: i64, mut close: impl FnMut(i64)) {
        for entry in &mut self.entries {
            let in_use = entry.endpoint.in_use();
            if in_use {
                entry.unused_since_ns = None;
            } else if !entry.closing {
                entry.unused_since_ns.get_or_insert(now_ns);
            }
            let expired = entry.unused_since_ns.is_some_and(|since| since <= expiry_ns);
            if !entry.closing && !in_use && expired {
                entry.closing = true;
                entry.endpoint.status().set_release(CHANNEL_STATUS_CLOSING);
                close(entry.endpoint.id());
            }
        }
    }

    /// Takes out the endpoint named `id` once its agent released it: frees its counters
    /// and, its sockets closed with it, gives its ports back to `ports`.
    pub(crate) fn release(
        &mut self,
        id: i64,
        counters: &mut CountersManager,
        now_ms: i64,
        ports: &mut dyn PortManager,
    ) {
        let Some(index) = self.index_of(id) else { return };
        let endpoint = self.entries.swap_remove(index).endpoint;
        endpoint.free_counters(counters, now_ms);
        let bound = endpoint.bind_addresses();
        // The socket closes with the conductor's share of the transport; then the port is free.
        drop(endpoint);
        for address in bound {
            ports.free_managed_port(address);
        }
    }

    /// Takes out every endpoint and frees its counters (the driver is closing).
    pub(crate) fn close_all(&mut self, counters: &mut CountersManager, now_ms: i64) {
        for entry in self.entries.drain(..) {
            entry.endpoint.free_counters(counters, now_ms);
        }
    }
}

impl<E> Index<usize> for EndpointRegistry<E> {
    type Output = E;

    fn index(&self, index: usize) -> &E {
        &self.entries[index].endpoint
    }
}

impl<E> IndexMut<usize> for EndpointRegistry<E> {
    fn index_mut(&mut self, index: usize) -> &mut E {
        &mut self.entries[index].endpoint
    }
}
