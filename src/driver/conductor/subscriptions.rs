//! Subscriptions (`spec/control-protocol.md` §5.4, §6.4): ADD_SUBSCRIPTION on `aeron:ipc`,
//! REMOVE_SUBSCRIPTION for every kind, and the one way each kind of link is linked to what
//! it reads (an IPC link to IPC publications, a network link to images, a spy to local
//! network publications): a `sub-pos` counter at the join position and one
//! ON_AVAILABLE_IMAGE per (link, source) pair.
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED;
use crate::driver::conductor::params::{SubscriptionParams, invalid_channel};
use crate::driver::conductor::subscriber_positions::link_subscriber;
use crate::driver::conductor::subscription_registry::{Link, SubscriptionKey, SubscriptionLink};
use crate::driver::position_counters::free_counter;
use crate::uri::ChannelUri;
use crate::util::error::{AeronErrorCode, Error, Result};

impl Conductor {
    /// ADD_SUBSCRIPTION on `aeron:ipc`: ON_SUBSCRIPTION_READY, then one ON_AVAILABLE_IMAGE
    /// per matching publication still accepting subscribers.
    pub(crate) fn on_add_ipc_subscription(&mut self, add: SubscriptionKey<'_>) -> Result<()> {
        let channel = add.channel;
        let uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(e.message().to_string()))?;
        let params = SubscriptionParams::parse(&self.ctx, |key| uri.get(key))
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.get_or_add_client(add.client_id)?;
        let link_index = self.subscriptions.ipc.add(SubscriptionLink::new(add, params));
        self.proxy.on_subscription_ready(add.registration_id, CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED);
        self.link_new_ipc_subscription(link_index)
    }

    /// REMOVE_SUBSCRIPTION: found by registration id (whichever client sent it).
    pub(crate) fn on_remove_subscription(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
    ) -> Result<()> {
        let mut found = false;
        while let Some(link) = self.subscriptions.ipc.take(registration_id) {
            self.unlink_ipc_subscription(&link);
            found = true;
        }
        // A multi-destination subscription has IPC links beside its network one.
        if !self.remove_network_or_spy_subscription(registration_id) && !found {
            return Err(Error::aeron(
                AeronErrorCode::UnknownSubscription,
                format!(
                    "unknown subscription client_id={} registration_id={registration_id}",
                    correlated.client_id
                ),
            ));
        }
        self.proxy.on_operation_succeeded(correlated.correlation_id);
        Ok(())
    }

    /// Links new IPC link `link_index` to every matching publication still accepting
    /// subscribers.
    pub(crate) fn link_new_ipc_subscription(&mut self, link_index: usize) -> Result<()> {
        for publication_index in 0..self.publications.ipc_len() {
            let publication = self.publications.ipc(publication_index);
            if self.subscriptions.ipc[link_index].matches(publication)
                && publication.is_accepting_subscriptions()
            {
                self.link_ipc(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// Links every matching IPC link not yet linked to publication `publication_index`.
    pub(crate) fn link_new_ipc_publication(&mut self, publication_index: usize) -> Result<()> {
        for link_index in 0..self.subscriptions.ipc.len() {
            let link = &self.subscriptions.ipc[link_index];
            let publication = self.publications.ipc(publication_index);
            if link.matches(publication) && !publication.is_linked(link.registration_id) {
                self.link_ipc(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// Links IPC link `link_index` to IPC publication `publication_index`.
    fn link_ipc(&mut self, link_index: usize, publication_index: usize) -> Result<()> {
        let subscriber = self.subscriptions.ipc[link_index].subscriber();
        let publication = self.publications.ipc_mut(publication_index);
        let clock = (self.now_ms, self.now_ns);
        link_subscriber(&mut self.counters, &mut self.proxy, &subscriber, publication, clock)?;
        let publication_registration_id = publication.registration_id();
        self.subscriptions.ipc[link_index].linked_publications.push(publication_registration_id);
        Ok(())
    }

    /// Links network link `link_index` to image `image_index`.
    pub(crate) fn link_image(&mut self, link_index: usize, image_index: usize) -> Result<()> {
        let subscriber = self.subscriptions.network[link_index].subscriber();
        let image = self.images.get_mut(image_index);
        link_subscriber(&mut self.counters, &mut self.proxy, &subscriber, image, (self.now_ms, self.now_ns))
    }

    /// Links spy `link_index` to network publication `publication_index`.
    pub(crate) fn link_spy(&mut self, link_index: usize, publication_index: usize) -> Result<()> {
        let subscriber = self.subscriptions.spy[link_index].subscriber();
        let publication = self.publications.network_mut(publication_index);
        link_subscriber(
            &mut self.counters,
            &mut self.proxy,
            &subscriber,
            publication,
            (self.now_ms, self.now_ns),
        )
    }

    /// Unlinks a removed IPC link from every publication it reads, freeing its `sub-pos`
    /// counters.
    pub(crate) fn unlink_ipc_subscription(&mut self, link: &SubscriptionLink) {
        for &publication_registration_id in &link.linked_publications {
            if let Some(publication) = self.publications.find_ipc_mut(publication_registration_id)
                && let Some(position) = publication.remove_subscriber(link.registration_id)
            {
                free_counter(&mut self.counters, position.counter_id(), self.now_ms);
            }
        }
    }
}
