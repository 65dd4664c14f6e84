//! The driver's publications (`spec/driver.md` §4.1-4.2, §7), IPC and network, and the
//! session ids they are given: a publication is found by its registration id; a new
//! non-exclusive one shares the log of an active non-exclusive one on the same stream (and,
//! on the network, the same endpoint and response correlation); a session id is never
//! given to two live publications of one stream; a publication leaves only at its end of
//! life (IPC: drained and unreferenced; network: released by the sender).
#![forbid(unsafe_code)]

use crate::driver::conductor::client_proxy::ClientProxy;
use crate::driver::conductor::ipc_publication::{IpcPublication, PublicationState};
use crate::driver::conductor::network_publication::NetworkPublicationEntry;
use crate::driver::conductor::params::{PublicationParams, TaggedPublication, invalid_param};
use crate::driver::conductor::session_ids::SessionIdAllocator;
use crate::driver::position_counters::Position;
use crate::util::error::{Error, Result};

pub(crate) struct PublicationRegistry {
    ipc: Vec<IpcPublication>,
    network: Vec<NetworkPublicationEntry>,
    session_ids: SessionIdAllocator,
}

/// A requested session id an exclusive publication, or one that shares no log, may not take.
fn session_id_in_use(channel: &str, stream_id: i32) -> Error {
    invalid_param(format!(
        "specified session-id is already in exclusive use for channel={channel} stream-id={stream_id}"
    ))
}

impl PublicationRegistry {
    pub(crate) fn new(session_ids: SessionIdAllocator) -> Self {
        Self { ipc: Vec::new(), network: Vec::new(), session_ids }
    }

    pub(crate) fn ipc_len(&self) -> usize {
        self.ipc.len()
    }

    pub(crate) fn ipc(&self, index: usize) -> &IpcPublication {
        &self.ipc[index]
    }

    pub(crate) fn ipc_mut(&mut self, index: usize) -> &mut IpcPublication {
        &mut self.ipc[index]
    }

    pub(crate) fn network_len(&self) -> usize {
        self.network.len()
    }

    pub(crate) fn network(&self, index: usize) -> &NetworkPublicationEntry {
        &self.network[index]
    }

    pub(crate) fn network_mut(&mut self, index: usize) -> &mut NetworkPublicationEntry {
        &mut self.network[index]
    }

    pub(crate) fn find_ipc_mut(&mut self, registration_id: i64) -> Option<&mut IpcPublication> {
        self.ipc.iter_mut().find(|p| p.registration_id() == registration_id)
    }

    pub(crate) fn find_network(&self, registration_id: i64) -> Option<&NetworkPublicationEntry> {
        self.network.iter().find(|p| p.registration_id() == registration_id)
    }

    fn find_network_mut(&mut self, registration_id: i64) -> Option<&mut NetworkPublicationEntry> {
        self.network.iter_mut().find(|p| p.registration_id() == registration_id)
    }

    /// Java's `session-id=tag:<n>` on IPC: the IPC publication whose entity tag is `n`.
    pub(crate) fn tagged_ipc(&self, tag: i64) -> Option<TaggedPublication> {
        self.ipc.iter().find(|p| p.config.params.entity_tag == tag).map(|p| TaggedPublication {
            session_id: p.session_id(),
            mtu_length: p.config.params.mtu_length,
            term_length: p.config.params.term_length,
        })
    }

    /// The network publication whose entity tag is `tag` (`session-id=tag:<n>`).
    pub(crate) fn tagged_network(&self, tag: i64) -> Option<TaggedPublication> {
        self.network.iter().find(|p| p.params.entity_tag == tag).map(|p| TaggedPublication {
            session_id: p.session_id(),
            mtu_length: p.params.mtu_length,
            term_length: p.params.term_length,
        })
    }

    /// The active IPC publication a new one on `stream_id` shares (none for an exclusive
    /// one); refuses the requested `session_id` when a live publication of the stream has
    /// it and no log is shared.
    pub(crate) fn shared_ipc(
        &self,
        stream_id: i32,
        exclusive: bool,
        session_id: Option<i32>,
        channel: &str,
    ) -> Result<Option<usize>> {
        let mut existing = None;
        let mut session_id_taken = false;
        for (i, p) in self.ipc.iter().enumerate().filter(|(_, p)| p.stream_id() == stream_id) {
            if p.state == PublicationState::Active && existing.is_none() && !exclusive && !p.is_exclusive() {
                existing = Some(i);
            }
            let counts = matches!(p.state, PublicationState::Active | PublicationState::Draining);
            if counts && session_id == Some(p.session_id()) {
                session_id_taken = true;
            }
        }
        if session_id_taken && (exclusive || existing.is_none()) {
            return Err(session_id_in_use(channel, stream_id));
        }
        Ok(existing)
    }

    /// The active network publication on `endpoint_id` and `stream_id` a new one shares
    /// (none for an exclusive one; the response correlation must agree); refuses the
    /// requested session id when a publication of that endpoint and stream has it and no
    /// log is shared.
    pub(crate) fn shared_network(
        &self,
        endpoint_id: i64,
        stream_id: i32,
        exclusive: bool,
        params: &PublicationParams,
        channel: &str,
    ) -> Result<Option<usize>> {
        let mut existing = None;
        let mut session_id_taken = false;
        for (i, p) in self.network.iter().enumerate() {
            if p.identity.endpoint_id != endpoint_id || p.stream_id() != stream_id {
                continue;
            }
            if p.state == PublicationState::Active
                && existing.is_none()
                && !exclusive
                && !p.identity.is_exclusive
                && p.params.response_correlation_id == params.response_correlation_id
            {
                existing = Some(i);
            }
            if params.session_id == Some(p.session_id()) {
                session_id_taken = true;
            }
        }
        if session_id_taken && (exclusive || existing.is_none()) {
            return Err(session_id_in_use(channel, stream_id));
        }
        Ok(existing)
    }

    /// A session id no active or draining IPC publication of `stream_id` has.
    pub(crate) fn new_ipc_session_id(&mut self, stream_id: i32) -> i32 {
        let publications = &self.ipc;
        self.session_ids.allocate(|candidate| {
            publications.iter().any(|p| {
                p.stream_id() == stream_id
                    && p.session_id() == candidate
                    && matches!(p.state, PublicationState::Active | PublicationState::Draining)
            })
        })
    }

    /// A session id no network publication of `endpoint_id` and `stream_id` has.
    pub(crate) fn new_network_session_id(&mut self, endpoint_id: i64, stream_id: i32) -> i32 {
        let publications = &self.network;
        self.session_ids.allocate(|candidate| {
            publications.iter().any(|p| {
                p.identity.endpoint_id == endpoint_id
                    && p.stream_id() == stream_id
                    && p.session_id() == candidate
            })
        })
    }

    /// Adds a new IPC publication; its index.
    pub(crate) fn add_ipc(&mut self, publication: IpcPublication) -> usize {
        self.ipc.push(publication);
        self.ipc.len() - 1
    }

    /// Adds a new network publication; its index.
    pub(crate) fn add_network(&mut self, publication: NetworkPublicationEntry) -> usize {
        self.network.push(publication);
        self.network.len() - 1
    }

    /// One fewer reference on a publication (removed handle or dead client).
    pub(crate) fn release(&mut self, registration_id: i64, now_ns: i64) {
        if let Some(p) = self.find_ipc_mut(registration_id) {
            p.decref();
        } else if let Some(p) = self.find_network_mut(registration_id) {
            p.decref(now_ns);
        }
    }

    /// The sender removed its half of a network publication.
    pub(crate) fn on_sender_released(&mut self, registration_id: i64) {
        if let Some(p) = self.find_network_mut(registration_id) {
            p.sender_released = true;
        }
    }

    /// Duty cycle: every publication's position and limit; how many limits moved.
    pub(crate) fn update_limits(&mut self) -> i32 {
        let mut work = 0;
        for publication in &mut self.ipc {
            work += publication.update_pub_pos_and_lmt();
        }
        for publication in &mut self.network {
            work += publication.update_pub_pos_and_lmt();
        }
        work
    }

    /// Timer: each IPC publication's time event (last added first); one that reached its
    /// end of life is taken out and handed to `ended`.
    pub(crate) fn check_ipc(
        &mut self,
        now_ns: i64,
        proxy: &mut ClientProxy,
        unblocked: &Position,
        mut ended: impl FnMut(IpcPublication),
    ) {
        for index in (0..self.ipc.len()).rev() {
            self.ipc[index].on_time_event(now_ns, proxy, unblocked);
            if self.ipc[index].has_reached_end_of_life() {
                ended(self.ipc.swap_remove(index));
            }
        }
    }

    /// Takes out network publication `index` once the sender released it.
    pub(crate) fn take_released_network(&mut self, index: usize) -> Option<NetworkPublicationEntry> {
        self.network[index].sender_released.then(|| self.network.swap_remove(index))
    }

    /// Takes out every IPC publication (the driver is closing).
    pub(crate) fn drain_ipc(&mut self) -> impl Iterator<Item = IpcPublication> + '_ {
        self.ipc.drain(..)
    }

    /// Takes out every network publication (the driver is closing).
    pub(crate) fn drain_network(&mut self) -> impl Iterator<Item = NetworkPublicationEntry> + '_ {
        self.network.drain(..)
    }
}
