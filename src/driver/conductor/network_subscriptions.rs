//! ADD_SUBSCRIPTION on UDP channels and spies (`spec/control-protocol.md` §5.4, §6.4,
//! `spec/channel-uri.md` §1): a network subscription shares the channel's receive endpoint
//! and links to the images of its stream as they appear; a spy (`aeron-spy:aeron:udp?...`)
//! links to the local network publications of the same channel and reads their logs
//! directly. Each link gets a `sub-pos` counter and an ON_AVAILABLE_IMAGE. A response
//! subscription (`control-mode=response`) links to nothing until its request publication
//! learns its session (`response_channels`).
#![forbid(unsafe_code)]

use std::sync::atomic::Ordering;

use crate::driver::conductor::Conductor;
use crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED;
use crate::driver::conductor::network_params::NetworkSubscriptionParams;
use crate::driver::conductor::params::{SubscriptionParams, invalid_param};
use crate::driver::conductor::subscription_registry::{
    NetworkSubscriptionLink, SpySubscriptionLink, SubscriptionKey,
};
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::position_counters::free_counter;
use crate::util::error::Result;

impl Conductor {
    pub(crate) fn on_add_network_subscription(&mut self, add: SubscriptionKey<'_>) -> Result<()> {
        let (channel, stream_id) = (add.channel, add.stream_id);
        let udp = UdpChannel::parse_with(channel, &mut self.name_resolver)?;
        let params = NetworkSubscriptionParams::parse(&self.ctx, &udp)
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.validate_experimental_features(&udp)?;
        if udp.has_explicit_control && udp.local_control.port() == 0 {
            return Err(invalid_param(format!("control has port=0 for subscription: channel={channel}")));
        }
        self.check_clashing_subscription(&udp, stream_id, &params)?;
        self.get_or_add_client(add.client_id)?;
        let index = self.get_or_add_receive_endpoint(&udp, &params, add.registration_id)?;
        let endpoint_id = self.endpoints.receive[index].id;
        if params.is_response {
            self.incref_response_stream(index, stream_id);
        } else {
            self.incref_receive_stream(index, stream_id, params.common.session_id);
        }
        let link_index =
            self.subscriptions.network.add(NetworkSubscriptionLink::new(add, endpoint_id, params));
        let status_id = self.endpoints.receive[index].status.counter_id();
        self.proxy.on_subscription_ready(add.registration_id, status_id);
        for image_index in 0..self.images.len() {
            let image = self.images.get(image_index);
            let link = &self.subscriptions.network[link_index];
            if link.matches(image.identity.endpoint_id, image.identity.stream_id, image.identity.session_id)
                && image.is_accepting_subscriptions()
            {
                self.link_image(link_index, image_index)?;
            }
        }
        Ok(())
    }

    pub(crate) fn on_add_spy_subscription(&mut self, add: SubscriptionKey<'_>) -> Result<()> {
        let channel = add.channel;
        let udp = UdpChannel::parse_with(channel, &mut self.name_resolver)?;
        let params = SubscriptionParams::parse(&self.ctx, |key| udp.uri.get(key))
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.get_or_add_client(add.client_id)?;
        let link_index = self.subscriptions.spy.add(SpySubscriptionLink::new(add, &udp, params));
        self.proxy.on_subscription_ready(add.registration_id, CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED);
        self.link_new_spy(link_index)
    }

    /// Whether spy `link_index` watches network publication `publication_index`: same
    /// stream, and the same channel tag, or the same endpoint and a matching session.
    fn spy_matches(&self, link_index: usize, publication_index: usize) -> bool {
        let link = &self.subscriptions.spy[link_index];
        let publication = self.publications.network(publication_index);
        let Some(endpoint) = self.endpoints.send.find(publication.identity.endpoint_id) else {
            return false;
        };
        let same_tag = link.channel_tag.is_some() && link.channel_tag == endpoint.channel.channel_tag;
        link.stream_id == publication.stream_id()
            && !publication.spies.is_linked(link.registration_id)
            && (same_tag
                || (link.params.session_id.is_none_or(|s| s == publication.session_id())
                    && link.canonical_form == endpoint.channel.canonical_form))
    }

    /// Links new spy `link_index` to every network publication it watches that still
    /// accepts subscribers.
    pub(crate) fn link_new_spy(&mut self, link_index: usize) -> Result<()> {
        for publication_index in 0..self.publications.network_len() {
            if self.spy_matches(link_index, publication_index)
                && self.publications.network(publication_index).is_accepting_subscriptions()
            {
                self.link_spy(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// Links every matching spy not yet linked to network publication `publication_index`.
    pub(crate) fn link_new_network_publication(&mut self, publication_index: usize) -> Result<()> {
        for link_index in 0..self.subscriptions.spy.len() {
            if self.spy_matches(link_index, publication_index) {
                self.link_spy(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// Removes every network and spy subscription link `registration_id` has (a
    /// multi-destination subscription may have several); false if there is none.
    pub(crate) fn remove_network_or_spy_subscription(&mut self, registration_id: i64) -> bool {
        let mut found = false;
        while let Some(link) = self.subscriptions.network.take(registration_id) {
            self.unlink_network_subscription(&link);
            found = true;
        }
        while let Some(link) = self.subscriptions.spy.take(registration_id) {
            self.unlink_spy(&link, false);
            found = true;
        }
        found
    }

    /// Frees a removed spy link's positions on the publications it reads; `notify`: tell
    /// the client each image went away (the subscription itself stays).
    pub(crate) fn unlink_spy(&mut self, link: &SpySubscriptionLink, notify: bool) {
        for index in 0..self.publications.network_len() {
            let publication = self.publications.network_mut(index);
            if let Some(position) = publication.spies.remove(link.registration_id) {
                free_counter(&mut self.counters, position.counter_id(), self.now_ms);
                if notify {
                    self.proxy.on_unavailable_image(
                        publication.registration_id(),
                        link.registration_id,
                        link.stream_id,
                        &link.channel,
                    );
                }
                if publication.spies.is_empty() {
                    publication.status.has_spies.store(false, Ordering::Release);
                }
            }
        }
    }

    /// Frees the link's positions on its images and drops its stream interest.
    fn unlink_network_subscription(&mut self, link: &NetworkSubscriptionLink) {
        self.images.unlink_subscriber(link.registration_id, &mut self.counters, self.now_ms);
        if link.is_response {
            self.decref_response_stream(link.endpoint_id, link.stream_id);
        } else {
            self.decref_receive_stream(link.endpoint_id, link.stream_id, link.params.common.session_id);
        }
    }

    /// Removes every network and spy subscription of a client that is gone.
    pub(crate) fn remove_client_network_subscriptions(&mut self, client_id: i64) {
        for id in self.subscriptions.network_and_spy_ids_of_client(client_id) {
            self.remove_network_or_spy_subscription(id);
        }
    }
}
