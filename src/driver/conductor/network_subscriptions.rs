//! ADD_SUBSCRIPTION on UDP channels and spies (`spec/control-protocol.md` §5.4, §6.4,
//! `spec/channel-uri.md` §1): a network subscription shares the channel's receive endpoint
//! and links to the images of its stream as they appear; a spy (`aeron-spy:aeron:udp?...`)
//! links to the local network publications of the same channel and reads their logs
//! directly. Each link gets a `sub-pos` counter and an ON_AVAILABLE_IMAGE. A response
//! subscription (`control-mode=response`) links to nothing until its request publication
//! learns its session (`response_channels`).
#![forbid(unsafe_code)]

use std::sync::atomic::Ordering;

use crate::command::CorrelatedMessage;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED;
use crate::driver::conductor::ipc_publication::IPC_CHANNEL;
use crate::driver::conductor::network_params::NetworkSubscriptionParams;
use crate::driver::conductor::params::{SubscriptionParams, invalid_param};
use crate::driver::conductor::subscriber_positions::{LinkedStream, allocate_linked_position};
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::position_counters::free_counter;
use crate::util::error::Result;

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
}

/// One ADD_SUBSCRIPTION on a spy channel.
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

impl Conductor {
    pub(crate) fn on_add_network_subscription(
        &mut self,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
    ) -> Result<()> {
        let udp = UdpChannel::parse_with(channel, &mut self.name_resolver)?;
        let params = NetworkSubscriptionParams::parse(&self.ctx, &udp)
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.validate_experimental_features(&udp)?;
        if udp.has_explicit_control && udp.local_control.port() == 0 {
            return Err(invalid_param(format!("control has port=0 for subscription: channel={channel}")));
        }
        self.check_clashing_subscription(&udp, stream_id, &params)?;
        self.get_or_add_client(correlated.client_id)?;
        let index = self.get_or_add_receive_endpoint(&udp, &params, correlated.correlation_id)?;
        let endpoint_id = self.receive_endpoints[index].id;
        if params.is_response {
            self.incref_response_stream(index, stream_id);
        } else {
            self.incref_receive_stream(index, stream_id, params.common.session_id);
        }
        self.network_subscriptions.push(NetworkSubscriptionLink {
            registration_id: correlated.correlation_id,
            client_id: correlated.client_id,
            stream_id,
            channel: channel.to_string(),
            endpoint_id,
            is_response: params.is_response,
            params,
        });
        let link_index = self.network_subscriptions.len() - 1;
        let status_id = self.receive_endpoints[index].status.counter_id();
        self.proxy.on_subscription_ready(correlated.correlation_id, status_id);
        for image_index in 0..self.images.len() {
            let image = &self.images[image_index];
            let link = &self.network_subscriptions[link_index];
            if link.matches(image.identity.endpoint_id, image.identity.stream_id, image.identity.session_id)
                && image.is_accepting_subscriptions()
            {
                self.link_image_subscriber(link_index, image_index)?;
            }
        }
        Ok(())
    }

    /// Links network subscription `link_index` to image `image_index` at the image's join
    /// position, and tells the client.
    pub(crate) fn link_image_subscriber(&mut self, link_index: usize, image_index: usize) -> Result<()> {
        let link = &self.network_subscriptions[link_index];
        let image = &self.images[image_index];
        let position = allocate_linked_position(
            &mut self.counters,
            &LinkedStream {
                subscription_registration_id: link.registration_id,
                client_id: link.client_id,
                channel: &link.channel,
                session_id: image.identity.session_id,
                stream_id: image.identity.stream_id,
                source_registration_id: image.correlation_id(),
                join_position: image.join_position(),
            },
            self.now_ms,
        )?;
        let counter_id = position.counter_id();
        let (registration_id, is_tether) = (link.registration_id, link.params.common.is_tether);
        let image = &mut self.images[image_index];
        image.subscribers.add(registration_id, position, is_tether, self.now_ns);
        self.proxy.on_available_image(
            image.correlation_id(),
            image.identity.session_id,
            image.identity.stream_id,
            registration_id,
            counter_id,
            &image.log_file_name,
            &image.identity.source_identity,
        );
        Ok(())
    }

    pub(crate) fn on_add_spy_subscription(
        &mut self,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
    ) -> Result<()> {
        let udp = UdpChannel::parse_with(channel, &mut self.name_resolver)?;
        let params = SubscriptionParams::parse(&self.ctx, |key| udp.uri.get(key))
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.get_or_add_client(correlated.client_id)?;
        self.spy_subscriptions.push(SpySubscriptionLink {
            registration_id: correlated.correlation_id,
            client_id: correlated.client_id,
            stream_id,
            channel: channel.to_string(),
            canonical_form: udp.canonical_form.clone(),
            channel_tag: udp.channel_tag,
            params,
        });
        let link_index = self.spy_subscriptions.len() - 1;
        self.proxy.on_subscription_ready(correlated.correlation_id, CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED);
        for publication_index in 0..self.network_publications.len() {
            if self.spy_matches(link_index, publication_index)
                && self.network_publications[publication_index].is_accepting_subscriptions()
            {
                self.link_spy(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// Whether spy `link_index` watches network publication `publication_index`: same
    /// stream, and the same channel tag, or the same endpoint and a matching session.
    pub(crate) fn spy_matches(&self, link_index: usize, publication_index: usize) -> bool {
        let link = &self.spy_subscriptions[link_index];
        let publication = &self.network_publications[publication_index];
        let Some(endpoint) = self.send_endpoints.find(publication.identity.endpoint_id) else {
            return false;
        };
        let same_tag = link.channel_tag.is_some() && link.channel_tag == endpoint.channel.channel_tag;
        link.stream_id == publication.stream_id()
            && !publication.spies.is_linked(link.registration_id)
            && (same_tag
                || (link.params.session_id.is_none_or(|s| s == publication.session_id())
                    && link.canonical_form == endpoint.channel.canonical_form))
    }

    pub(crate) fn link_spy(&mut self, link_index: usize, publication_index: usize) -> Result<()> {
        let link = &self.spy_subscriptions[link_index];
        let publication = &self.network_publications[publication_index];
        let position = allocate_linked_position(
            &mut self.counters,
            &LinkedStream {
                subscription_registration_id: link.registration_id,
                client_id: link.client_id,
                channel: &link.channel,
                session_id: publication.session_id(),
                stream_id: publication.stream_id(),
                source_registration_id: publication.registration_id(),
                join_position: publication.join_position(),
            },
            self.now_ms,
        )?;
        let counter_id = position.counter_id();
        let (registration_id, is_tether) = (link.registration_id, link.params.is_tether);
        let publication = &mut self.network_publications[publication_index];
        publication.spies.add(registration_id, position, is_tether, self.now_ns);
        // Release: the sender reading the flag sees the spy's position in place.
        publication.status.has_spies.store(true, Ordering::Release);
        self.proxy.on_available_image(
            publication.registration_id(),
            publication.session_id(),
            publication.stream_id(),
            registration_id,
            counter_id,
            &publication.log_file_name,
            IPC_CHANNEL,
        );
        Ok(())
    }

    /// Links every matching spy not yet linked to network publication `publication_index`.
    pub(crate) fn link_matching_spies(&mut self, publication_index: usize) -> Result<()> {
        for link_index in 0..self.spy_subscriptions.len() {
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
        while let Some(index) =
            self.network_subscriptions.iter().position(|l| l.registration_id == registration_id)
        {
            let link = self.network_subscriptions.swap_remove(index);
            self.unlink_network_subscription(&link);
            found = true;
        }
        while let Some(index) =
            self.spy_subscriptions.iter().position(|l| l.registration_id == registration_id)
        {
            let link = self.spy_subscriptions.swap_remove(index);
            self.unlink_spy(&link, false);
            found = true;
        }
        found
    }

    /// Frees a removed spy link's positions on the publications it reads; `notify`: tell
    /// the client each image went away (the subscription itself stays).
    pub(crate) fn unlink_spy(&mut self, link: &SpySubscriptionLink, notify: bool) {
        for publication in &mut self.network_publications {
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
    pub(crate) fn unlink_network_subscription(&mut self, link: &NetworkSubscriptionLink) {
        for image in &mut self.images {
            if let Some(position) = image.subscribers.remove(link.registration_id) {
                free_counter(&mut self.counters, position.counter_id(), self.now_ms);
            }
        }
        if link.is_response {
            self.decref_response_stream(link.endpoint_id, link.stream_id);
        } else {
            self.decref_receive_stream(link.endpoint_id, link.stream_id, link.params.common.session_id);
        }
    }

    /// Removes every network and spy subscription of a client that is gone.
    pub(crate) fn remove_client_network_subscriptions(&mut self, client_id: i64) {
        let ids: Vec<i64> = self
            .network_subscriptions
            .iter()
            .map(|l| (l.client_id, l.registration_id))
            .chain(self.spy_subscriptions.iter().map(|l| (l.client_id, l.registration_id)))
            .filter(|(c, _)| *c == client_id)
            .map(|(_, id)| id)
            .collect();
        for id in ids {
            self.remove_network_or_spy_subscription(id);
        }
    }
}
