//! The driver's subscription links (`spec/control-protocol.md` §5.4, §6.4,
//! `spec/channel-uri.md` §1): one per ADD_SUBSCRIPTION on an IPC, UDP or spy channel, plus
//! one per IPC or spy receive destination of a multi-destination subscription (which share
//! the subscription's registration id). A link is found by registration id (every link of
//! a removed subscription goes), or by client (every link of a dead client goes); what a
//! link reads is linked and unlinked by the conductor (`subscriptions`).
#![forbid(unsafe_code)]

use std::ops::{Index, IndexMut};

use crate::driver::conductor::ipc_publication::IpcPublication;
use crate::driver::conductor::network_params::NetworkSubscriptionParams;
use crate::driver::conductor::params::SubscriptionParams;
use crate::driver::conductor::subscriber_positions::Subscriber;
use crate::driver::media::udp_channel::UdpChannel;

/// Who subscribes to which stream on which channel: an ADD_SUBSCRIPTION (named by its
/// correlation id), or a receive destination of one (named by the subscription's).
#[derive(Debug, Clone, Copy)]
pub struct SubscriptionKey<'a> {
    pub registration_id: i64,
    pub client_id: i64,
    pub stream_id: i32,
    pub channel: &'a str,
}

/// One ADD_SUBSCRIPTION on an IPC channel (or an IPC receive destination).
#[derive(Debug)]
pub struct SubscriptionLink {
    pub registration_id: i64,
    pub client_id: i64,
    pub stream_id: i32,
    pub channel: String,
    pub params: SubscriptionParams,
    /// Registration ids of the publications this subscription currently reads.
    pub linked_publications: Vec<i64>,
}

impl SubscriptionLink {
    pub fn new(key: SubscriptionKey<'_>, params: SubscriptionParams) -> Self {
        Self {
            registration_id: key.registration_id,
            client_id: key.client_id,
            stream_id: key.stream_id,
            channel: key.channel.to_string(),
            params,
            linked_publications: Vec::new(),
        }
    }

    /// Same stream, and the publication's session if the subscription names one.
    pub fn matches(&self, publication: &IpcPublication) -> bool {
        self.stream_id == publication.stream_id()
            && self.params.session_id.is_none_or(|session_id| session_id == publication.session_id())
    }
}

impl Link for SubscriptionLink {
    fn subscriber(&self) -> Subscriber<'_> {
        Subscriber::new(self.registration_id, self.client_id, &self.channel, &self.params)
    }
}

/// One ADD_SUBSCRIPTION on a UDP channel.
#[derive(Debug)]
pub struct NetworkSubscriptionLink {
    pub registration_id: i64,
    pub client_id: i64,
    pub stream_id: i32,
    pub channel: String,
    pub endpoint_id: i64,
    /// `params.common.session_id` becomes the response session once RSP_SETUP names it.
    pub params: NetworkSubscriptionParams,
    /// A response subscription still waiting for its session: it matches no image.
    pub is_response: bool,
}

impl NetworkSubscriptionLink {
    pub fn new(key: SubscriptionKey<'_>, endpoint_id: i64, params: NetworkSubscriptionParams) -> Self {
        Self {
            registration_id: key.registration_id,
            client_id: key.client_id,
            stream_id: key.stream_id,
            channel: key.channel.to_string(),
            endpoint_id,
            is_response: params.is_response,
            params,
        }
    }

    /// Same endpoint and stream, and the session if the subscription names one (a waiting
    /// response subscription matches none).
    pub fn matches(&self, endpoint_id: i64, stream_id: i32, session_id: i32) -> bool {
        self.endpoint_id == endpoint_id
            && self.stream_id == stream_id
            && match self.params.common.session_id {
                Some(s) => s == session_id,
                None => !self.is_response,
            }
    }

    /// A waiting response subscription learnt its session: from now on it is an ordinary
    /// subscription to that session.
    pub fn assign_response_session(&mut self, session_id: i32) {
        self.params.common.session_id = Some(session_id);
        self.is_response = false;
    }
}

impl Link for NetworkSubscriptionLink {
    fn subscriber(&self) -> Subscriber<'_> {
        Subscriber::new(self.registration_id, self.client_id, &self.channel, &self.params.common)
    }
}

/// One ADD_SUBSCRIPTION on a spy channel (or a spy receive destination).
#[derive(Debug)]
pub struct SpySubscriptionLink {
    pub registration_id: i64,
    pub client_id: i64,
    pub stream_id: i32,
    pub channel: String,
    pub canonical_form: String,
    pub channel_tag: Option<i64>,
    pub params: SubscriptionParams,
}

impl SpySubscriptionLink {
    pub fn new(key: SubscriptionKey<'_>, udp: &UdpChannel, params: SubscriptionParams) -> Self {
        Self {
            registration_id: key.registration_id,
            client_id: key.client_id,
            stream_id: key.stream_id,
            channel: key.channel.to_string(),
            canonical_form: udp.canonical_form.clone(),
            channel_tag: udp.channel_tag,
            params,
        }
    }
}

impl Link for SpySubscriptionLink {
    fn subscriber(&self) -> Subscriber<'_> {
        Subscriber::new(self.registration_id, self.client_id, &self.channel, &self.params)
    }
}

/// What every kind of link is: a subscription of one client, on one channel.
pub(crate) trait Link {
    fn subscriber(&self) -> Subscriber<'_>;
}

/// The links of one kind, in the order they were added; taking one out moves the last
/// one into its place.
#[derive(Debug)]
pub(crate) struct Links<L> {
    links: Vec<L>,
}

impl<L> Default for Links<L> {
    fn default() -> Self {
        Self { links: Vec::new() }
    }
}

impl<L: Link> Links<L> {
    /// Adds a link; its index.
    pub(crate) fn add(&mut self, link: L) -> usize {
        self.links.push(link);
        self.links.len() - 1
    }

    pub(crate) fn len(&self) -> usize {
        self.links.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &L> {
        self.links.iter()
    }

    /// The index of a link of subscription `registration_id`.
    pub(crate) fn index_of(&self, registration_id: i64) -> Option<usize> {
        self.links.iter().position(|l| l.subscriber().registration_id == registration_id)
    }

    fn take_where(&mut self, matches: impl Fn(&Subscriber<'_>) -> bool) -> Option<L> {
        let index = self.links.iter().position(|l| matches(&l.subscriber()))?;
        Some(self.links.swap_remove(index))
    }

    /// Takes out a link of subscription `registration_id`.
    pub(crate) fn take(&mut self, registration_id: i64) -> Option<L> {
        self.take_where(|s| s.registration_id == registration_id)
    }

    /// Takes out a link of client `client_id`.
    pub(crate) fn take_of_client(&mut self, client_id: i64) -> Option<L> {
        self.take_where(|s| s.client_id == client_id)
    }

    /// Takes out subscription `registration_id`'s link on `channel` (one of its receive
    /// destinations).
    pub(crate) fn take_destination(&mut self, registration_id: i64, channel: &str) -> Option<L> {
        self.take_where(|s| s.registration_id == registration_id && s.channel == channel)
    }

    /// The registration ids of client `client_id`'s links.
    fn ids_of_client(&self, client_id: i64) -> impl Iterator<Item = i64> + '_ {
        self.links
            .iter()
            .map(|l| l.subscriber())
            .filter(move |s| s.client_id == client_id)
            .map(|s| s.registration_id)
    }
}

impl<L> Index<usize> for Links<L> {
    type Output = L;

    fn index(&self, index: usize) -> &L {
        &self.links[index]
    }
}

impl<L> IndexMut<usize> for Links<L> {
    fn index_mut(&mut self, index: usize) -> &mut L {
        &mut self.links[index]
    }
}

#[derive(Debug, Default)]
pub(crate) struct SubscriptionRegistry {
    pub(crate) ipc: Links<SubscriptionLink>,
    pub(crate) network: Links<NetworkSubscriptionLink>,
    pub(crate) spy: Links<SpySubscriptionLink>,
}

impl SubscriptionRegistry {
    /// An IPC publication has ended: no link reads it any more.
    pub(crate) fn forget_ipc_publication(&mut self, publication_registration_id: i64) {
        for link in &mut self.ipc.links {
            link.linked_publications.retain(|&id| id != publication_registration_id);
        }
    }

    /// The channel of network subscription `registration_id`; empty if there is none.
    pub(crate) fn network_channel(&self, registration_id: i64) -> String {
        self.network
            .iter()
            .find(|l| l.registration_id == registration_id)
            .map_or_else(String::new, |l| l.channel.clone())
    }

    /// The indices of the network links an image of (`endpoint_id`, `stream_id`,
    /// `session_id`) would feed.
    pub(crate) fn matching_network(&self, endpoint_id: i64, stream_id: i32, session_id: i32) -> Vec<usize> {
        let links = &self.network.links;
        (0..links.len()).filter(|&i| links[i].matches(endpoint_id, stream_id, session_id)).collect()
    }

    /// Whether any network link wants an image of (`endpoint_id`, `stream_id`, `session_id`).
    pub(crate) fn wants_image(&self, endpoint_id: i64, stream_id: i32, session_id: i32) -> bool {
        self.network.iter().any(|l| l.matches(endpoint_id, stream_id, session_id))
    }

    /// The registration ids of client `client_id`'s network links, then its spy links.
    pub(crate) fn network_and_spy_ids_of_client(&self, client_id: i64) -> Vec<i64> {
        self.network.ids_of_client(client_id).chain(self.spy.ids_of_client(client_id)).collect()
    }

    /// Forgets every link (the driver is closing; their counters go with their sources).
    pub(crate) fn clear(&mut self) {
        self.ipc.links.clear();
        self.network.links.clear();
        self.spy.links.clear();
    }
}
