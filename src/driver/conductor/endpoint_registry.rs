//! The conductor's send and receive channel endpoints, each kind in one registry with the
//! same rules (`spec/channel-uri.md` §2.1): an endpoint is found by its registration id, by
//! a channel's tag, or by a channel's canonical form; a closing endpoint is never shared;
//! one that nothing uses closes a whole timer interval after it became unused (so a channel
//! removed and added again keeps its socket and port), and it leaves the registry only when
//! its agent released it.
#![forbid(unsafe_code)]

use std::ops::{Index, IndexMut};

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
    fn closing(&self) -> bool;
    fn set_closing(&mut self);
    /// Since when nothing has used it.
    fn unused_since_ns(&mut self) -> &mut Option<i64>;
}

/// The endpoints of one kind, in the order they were opened.
#[derive(Debug)]
pub(crate) struct EndpointRegistry<E> {
    entries: Vec<E>,
}

impl<E> Default for EndpointRegistry<E> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<E: RegisteredEndpoint> EndpointRegistry<E> {
    /// Adds a new endpoint; its index.
    pub(crate) fn push(&mut self, endpoint: E) -> usize {
        self.entries.push(endpoint);
        self.entries.len() - 1
    }

    pub(crate) fn index_of(&self, id: i64) -> Option<usize> {
        self.entries.iter().position(|e| e.id() == id)
    }

    /// An open endpoint named by `id`.
    pub(crate) fn is_open(&self, id: i64) -> bool {
        self.entries.iter().any(|e| e.id() == id && !e.closing())
    }

    pub(crate) fn find(&self, id: i64) -> Option<&E> {
        self.entries.iter().find(|e| e.id() == id)
    }

    pub(crate) fn find_mut(&mut self, id: i64) -> Option<&mut E> {
        self.entries.iter_mut().find(|e| e.id() == id)
    }

    /// The open endpoint a tagged `channel` refers to by its tag (Aeron's `tags=` reuse).
    pub(crate) fn find_by_tag(&self, channel: &UdpChannel) -> Result<Option<usize>> {
        if channel.channel_tag.is_none() {
            return Ok(None);
        }
        for (index, endpoint) in self.entries.iter().enumerate().filter(|(_, e)| !e.closing()) {
            if channel.matches_tag(endpoint.channel(), None, None)? {
                return Ok(Some(index));
            }
        }
        Ok(None)
    }

    /// The open endpoint with `channel`'s canonical form, unless both carry different tags.
    pub(crate) fn find_by_canonical_form(&self, channel: &UdpChannel) -> Option<usize> {
        self.entries.iter().position(|e| {
            let existing = e.channel();
            !e.closing()
                && existing.canonical_form == channel.canonical_form
                && !(existing.channel_tag.is_some()
                    && channel.channel_tag.is_some()
                    && existing.channel_tag != channel.channel_tag)
        })
    }

    /// Timer: starts closing every endpoint unused since `expiry_ns` or before, calling
    /// `close` with the id of each (to tell its agent). One unused but not yet marked is
    /// marked unused from `now_ns`: a reuse that a later check refused (e.g. a mismatched
    /// socket buffer length) must not keep it open.
    pub(crate) fn close_unused(&mut self, now_ns: i64, expiry_ns: i64, mut close: impl FnMut(i64)) {
        for endpoint in &mut self.entries {
            let in_use = endpoint.in_use();
            if in_use {
                *endpoint.unused_since_ns() = None;
            } else if !endpoint.closing() {
                endpoint.unused_since_ns().get_or_insert(now_ns);
            }
            let expired = endpoint.unused_since_ns().is_some_and(|since| since <= expiry_ns);
            if !endpoint.closing() && !in_use && expired {
                endpoint.set_closing();
                endpoint.status().set_release(CHANNEL_STATUS_CLOSING);
                close(endpoint.id());
            }
        }
    }

    /// Takes out the endpoint named `id`, once its agent released it.
    pub(crate) fn remove(&mut self, id: i64) -> Option<E> {
        self.index_of(id).map(|index| self.entries.swap_remove(index))
    }

    /// Takes out every endpoint (the driver is closing).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = E> + '_ {
        self.entries.drain(..)
    }
}

impl<E> Index<usize> for EndpointRegistry<E> {
    type Output = E;

    fn index(&self, index: usize) -> &E {
        &self.entries[index]
    }
}

impl<E> IndexMut<usize> for EndpointRegistry<E> {
    fn index_mut(&mut self, index: usize) -> &mut E {
        &mut self.entries[index]
    }
}
