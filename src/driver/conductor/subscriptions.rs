//! IPC subscriptions and their links to IPC publications (`spec/control-protocol.md` §5.4,
//! §6.4): each (subscription, publication) pair gets a `sub-pos` counter, set to the join
//! position, and one ON_AVAILABLE_IMAGE.
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED;
use crate::driver::conductor::ipc_publication::{IPC_CHANNEL, IpcPublication};
use crate::driver::conductor::params::{SubscriptionParams, invalid_channel};
use crate::driver::conductor::subscriber_positions::{LinkedStream, allocate_linked_position};
use crate::driver::position_counters::free_counter;
use crate::uri::ChannelUri;
use crate::util::error::{AeronErrorCode, Error, Result};

/// One ADD_SUBSCRIPTION on an IPC channel.
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
    /// Same stream, and the publication's session if the subscription names one.
    pub fn matches(&self, publication: &IpcPublication) -> bool {
        self.stream_id == publication.stream_id()
            && self.params.session_id.is_none_or(|session_id| session_id == publication.session_id())
    }
}

impl Conductor {
    /// ADD_SUBSCRIPTION on `aeron:ipc`: ON_SUBSCRIPTION_READY, then one ON_AVAILABLE_IMAGE
    /// per matching publication still accepting subscribers.
    pub(crate) fn on_add_ipc_subscription(
        &mut self,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
    ) -> Result<()> {
        let uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(e.message().to_string()))?;
        let params = SubscriptionParams::parse(&self.ctx, |key| uri.get(key))
            .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.get_or_add_client(correlated.client_id)?;
        self.ipc_subscriptions.push(SubscriptionLink {
            registration_id: correlated.correlation_id,
            client_id: correlated.client_id,
            stream_id,
            channel: channel.to_string(),
            params,
            linked_publications: Vec::new(),
        });
        let link_index = self.ipc_subscriptions.len() - 1;
        self.proxy.on_subscription_ready(correlated.correlation_id, CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED);
        for publication_index in 0..self.ipc_publications.len() {
            let publication = &self.ipc_publications[publication_index];
            if self.ipc_subscriptions[link_index].matches(publication)
                && publication.is_accepting_subscriptions()
            {
                self.link_subscription(link_index, publication_index)?;
            }
        }
        Ok(())
    }

    /// REMOVE_SUBSCRIPTION: found by registration id (whichever client sent it).
    pub(crate) fn on_remove_subscription(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
    ) -> Result<()> {
        let mut found = false;
        while let Some(index) =
            self.ipc_subscriptions.iter().position(|l| l.registration_id == registration_id)
        {
            let link = self.ipc_subscriptions.swap_remove(index);
            self.unlink_subscription(&link);
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

    /// Links subscription `link_index` to publication `publication_index`: allocates the
    /// `sub-pos` counter at the join position and tells clients the image is available.
    pub(crate) fn link_subscription(&mut self, link_index: usize, publication_index: usize) -> Result<()> {
        let link = &self.ipc_subscriptions[link_index];
        let publication = &self.ipc_publications[publication_index];
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
        let publication = &mut self.ipc_publications[publication_index];
        publication.add_subscriber(registration_id, position, is_tether, self.now_ns);
        self.ipc_subscriptions[link_index].linked_publications.push(publication.registration_id());
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

    /// Unlinks a removed subscription from every publication it reads, freeing its
    /// `sub-pos` counters.
    pub(crate) fn unlink_subscription(&mut self, link: &SubscriptionLink) {
        for publication_registration_id in &link.linked_publications {
            if let Some(publication) =
                self.ipc_publications.iter_mut().find(|p| p.registration_id() == *publication_registration_id)
            {
                if let Some(position) = publication.remove_subscriber(link.registration_id) {
                    free_counter(&mut self.counters, position.counter_id(), self.now_ms);
                }
            }
        }
    }

    /// Links every matching subscription not yet linked to publication `publication_index`.
    pub(crate) fn link_matching_subscriptions(&mut self, publication_index: usize) -> Result<()> {
        for link_index in 0..self.ipc_subscriptions.len() {
            let link = &self.ipc_subscriptions[link_index];
            let publication = &self.ipc_publications[publication_index];
            if link.matches(publication) && !publication.is_linked(link.registration_id) {
                self.link_subscription(link_index, publication_index)?;
            }
        }
        Ok(())
    }
}
