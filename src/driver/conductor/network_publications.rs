//! ADD_PUBLICATION / ADD_EXCLUSIVE_PUBLICATION on UDP channels (`spec/control-protocol.md`
//! §5.2, `spec/driver.md` §7, Aeron C `aeron_driver_conductor_get_or_add_network_publication`):
//! the send endpoint, the log, the counters (`pub-pos`, `pub-lmt`, `snd-pos`, `snd-lmt`,
//! `snd-bpe`), flow control and the retransmit handler; the sender gets its half, the
//! conductor keeps the other. Non-exclusive publications on the same endpoint and stream
//! share one log when their `response-correlation-id`s agree. A response publication
//! (`control-mode=response`) answers one request image, which then announces its session
//! (`response_channels`).
#![forbid(unsafe_code)]

use std::sync::Arc;

use crate::command::CorrelatedMessage;
use crate::concurrent::counters::type_ids::{
    PUBLISHER_LIMIT_NAME, PUBLISHER_LIMIT_TYPE_ID, PUBLISHER_POSITION_NAME, PUBLISHER_POSITION_TYPE_ID,
    SENDER_BPE_NAME, SENDER_BPE_TYPE_ID, SENDER_LIMIT_NAME, SENDER_LIMIT_TYPE_ID, SENDER_POSITION_NAME,
    SENDER_POSITION_TYPE_ID,
};
use crate::driver::agent_proxy::SenderCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::PublicationLink;
use crate::driver::conductor::ipc_publication::PublicationState;
use crate::driver::conductor::log_file::{LogIdentity, create_publication_log, publication_log_path};
use crate::driver::conductor::network_publication::{
    NetworkPublicationCounters, NetworkPublicationEntry, NetworkPublicationIdentity,
};
use crate::driver::conductor::params::{PublicationParams, SharedLogShape, TaggedPublication, invalid_param};
use crate::driver::conductor::session_ids::random_i32;
use crate::driver::flow_control::{FlowControlDefaults, flow_control_for_channel};
use crate::driver::loss::RetransmitHandler;
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::network_publication::{
    NetworkPublication, NetworkPublicationConfig, NetworkPublicationStatus, SenderPositions,
};
use crate::driver::position_counters::{
    Position, allocate_flow_control_receivers, allocate_stream_counter, free_counter,
};
use crate::logbuffer::descriptor as log;
use crate::uri::keys::{CONTROL_MODE, FLOW_CONTROL};
use crate::util::error::{Error, Result};

impl Conductor {
    pub(crate) fn on_add_network_publication(
        &mut self,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
        exclusive: bool,
    ) -> Result<()> {
        let udp = UdpChannel::parse_with(channel, &mut self.name_resolver)?;
        if !udp.is_multi_destination() && udp.has_explicit_endpoint && udp.remote_data.port() == 0 {
            return Err(Error::invalid_argument(format!(
                "endpoint has port=0 for publication: channel={channel}"
            )));
        }
        let mut params = PublicationParams::for_network(
            &self.ctx,
            stream_id,
            |key| udp.uri.get(key),
            |tag| self.find_tagged_network_publication(tag),
        )
        .map_err(|e| e.context(format_args!("channel={channel}")))?;
        params.is_response = udp.is_response();
        self.validate_experimental_features(&udp)?;
        if udp.has_explicit_control && !udp.has_explicit_endpoint && udp.uri.get(CONTROL_MODE).is_none() {
            return Err(Error::invalid_argument(format!(
                "'control' parameter requires that either 'endpoint' or 'control-mode' is specified, channel={channel}"
            )));
        }
        self.validate_response_subscription(&params)?;
        if udp.has_group_semantics() {
            // A bad `fc` fails the command before any socket is opened for it.
            flow_control_for_channel(
                true,
                udp.uri.get(FLOW_CONTROL),
                &self.ctx.unicast_flow_control_supplier,
                &self.ctx.multicast_flow_control_supplier,
            )?;
        }
        let client_index = self.get_or_add_client(correlated.client_id)?;
        let response_image = self.find_response_image(&params)?;
        let endpoint_index = self.get_or_add_send_endpoint(&udp, &params, correlated.correlation_id)?;
        let endpoint_id = self.send_endpoints[endpoint_index].id;
        let result =
            self.get_or_add_network_publication(&udp, &params, correlated, stream_id, exclusive, endpoint_id);
        let index = match result {
            Ok(index) => index,
            Err(e) => {
                if self.send_endpoints[endpoint_index].ref_count == 0 {
                    self.send_endpoints[endpoint_index].ref_count = 1;
                    self.release_send_endpoint(endpoint_id);
                }
                return Err(e);
            }
        };
        let p = &self.network_publications[index];
        self.clients[client_index].publication_links.push(PublicationLink {
            registration_id: correlated.correlation_id,
            publication_registration_id: p.registration_id(),
        });
        if let Some(image) = response_image {
            // The request image announces who answers it until that publication connects.
            self.images[image].status.set_response_session_id(Some(p.session_id()));
        }
        let status_id = self.send_endpoints[endpoint_index].status.counter_id();
        self.proxy.on_publication_ready(
            correlated.correlation_id,
            p.registration_id(),
            p.session_id(),
            p.stream_id(),
            p.counters.pub_lmt.counter_id(),
            status_id,
            exclusive,
            &p.log_file_name,
        );
        self.link_matching_spies(index)
    }

    /// The network publication whose entity tag is `tag` (`session-id=tag:<n>`).
    fn find_tagged_network_publication(&self, tag: i64) -> Option<TaggedPublication> {
        self.network_publications.iter().find(|p| p.params.entity_tag == tag).map(|p| TaggedPublication {
            session_id: p.session_id(),
            mtu_length: p.params.mtu_length,
            term_length: p.params.term_length,
        })
    }

    fn get_or_add_network_publication(
        &mut self,
        udp: &UdpChannel,
        params: &PublicationParams,
        correlated: CorrelatedMessage,
        stream_id: i32,
        exclusive: bool,
        endpoint_id: i64,
    ) -> Result<usize> {
        let mut existing = None;
        let mut session_id_in_use = false;
        for (i, p) in self.network_publications.iter().enumerate() {
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
                session_id_in_use = true;
            }
        }
        if session_id_in_use && (exclusive || existing.is_none()) {
            return Err(invalid_param(format!(
                "specified session-id is already in exclusive use for channel={} stream-id={stream_id}",
                udp.original_uri
            )));
        }
        if let Some(index) = existing {
            let p = &self.network_publications[index];
            if p.params.spies_simulate_connection != params.spies_simulate_connection {
                return Err(invalid_param(format!(
                    "existing publication has different spies simulate connection: requested={}",
                    params.spies_simulate_connection
                )));
            }
            params.confirm_shared(&SharedLogShape {
                session_id: p.session_id(),
                mtu_length: p.params.mtu_length as i32,
                term_length: p.params.term_length as i32,
                initial_term_id: p.identity.initial_term_id,
                starting_term_id: p.starting_term_id(),
                starting_term_offset: p.starting_term_offset(),
            })?;
            self.network_publications[index].incref();
            return Ok(index);
        }
        let entry =
            self.create_network_publication(udp, params, correlated, stream_id, exclusive, endpoint_id)?;
        self.network_publications.push(entry);
        if let Some(e) = self.send_endpoint_index(endpoint_id) {
            self.send_endpoints[e].ref_count += 1;
        }
        Ok(self.network_publications.len() - 1)
    }

    /// `pub-pos`, `pub-lmt` (owned by the client), `snd-pos`, `snd-lmt`, `snd-bpe`, in
    /// Aeron's order; none stay allocated if one fails.
    fn allocate_network_counters(
        &mut self,
        registration_id: i64,
        session_id: i32,
        stream_id: i32,
        channel: &str,
        client_id: i64,
    ) -> Result<NetworkPublicationCounters> {
        let kinds = [
            (PUBLISHER_POSITION_TYPE_ID, PUBLISHER_POSITION_NAME),
            (PUBLISHER_LIMIT_TYPE_ID, PUBLISHER_LIMIT_NAME),
            (SENDER_POSITION_TYPE_ID, SENDER_POSITION_NAME),
            (SENDER_LIMIT_TYPE_ID, SENDER_LIMIT_NAME),
            (SENDER_BPE_TYPE_ID, SENDER_BPE_NAME),
        ];
        let mut allocated: Vec<Position> = Vec::with_capacity(kinds.len());
        for (type_id, name) in kinds {
            let counters = &mut self.counters;
            match allocate_stream_counter(
                counters,
                type_id,
                name,
                registration_id,
                session_id,
                stream_id,
                channel,
                None,
                self.now_ms,
            ) {
                Ok(p) => allocated.push(p),
                Err(e) => {
                    for p in &allocated {
                        free_counter(&mut self.counters, p.counter_id(), self.now_ms);
                    }
                    return Err(e);
                }
            }
        }
        self.counters.set_counter_owner_id(allocated[1].counter_id(), client_id)?;
        let [pub_pos, pub_lmt, snd_pos, snd_lmt, snd_bpe]: [Position; 5] =
            allocated.try_into().map_err(|_| Error::illegal_state("five counters expected"))?;
        Ok(NetworkPublicationCounters { pub_pos, pub_lmt, snd_pos, snd_lmt, snd_bpe, fc_receivers: None })
    }

    fn create_network_publication(
        &mut self,
        udp: &UdpChannel,
        params: &PublicationParams,
        correlated: CorrelatedMessage,
        stream_id: i32,
        exclusive: bool,
        endpoint_id: i64,
    ) -> Result<NetworkPublicationEntry> {
        let registration_id = correlated.correlation_id;
        let session_id = match params.session_id {
            Some(id) => id,
            None => {
                let publications = &self.network_publications;
                self.session_ids.allocate(|candidate| {
                    publications.iter().any(|p| {
                        p.identity.endpoint_id == endpoint_id
                            && p.stream_id() == stream_id
                            && p.session_id() == candidate
                    })
                })
            }
        };
        let initial_term_id = params.position.map_or_else(random_i32, |p| p.initial_term_id);
        // A channel naming only a tag shares another's endpoint: that channel's semantics
        // and flow control apply.
        let Some(endpoint_index) = self.send_endpoint_index(endpoint_id) else {
            return Err(Error::illegal_state(format!("send endpoint {endpoint_id} is gone")));
        };
        let endpoint_channel = &self.send_endpoints[endpoint_index].channel;
        let has_group_semantics = endpoint_channel.has_group_semantics();
        let multicast_ttl = endpoint_channel.multicast_ttl;
        let selection = flow_control_for_channel(
            has_group_semantics,
            endpoint_channel.uri.get(FLOW_CONTROL),
            &self.ctx.unicast_flow_control_supplier,
            &self.ctx.multicast_flow_control_supplier,
        )?;
        let channel = udp.original_uri.as_str();
        let mut counters = self.allocate_network_counters(
            registration_id,
            session_id,
            stream_id,
            channel,
            correlated.client_id,
        )?;
        let free_all = |c: &mut Self, counters: &NetworkPublicationCounters| {
            for p in counters.all() {
                free_counter(&mut c.counters, p.counter_id(), c.now_ms);
            }
        };
        if selection.needs_receivers_counter() {
            match allocate_flow_control_receivers(
                &mut self.counters,
                registration_id,
                session_id,
                stream_id,
                channel,
                self.now_ms,
            ) {
                Ok(p) => counters.fc_receivers = Some(p),
                Err(e) => {
                    free_all(self, &counters);
                    return Err(e);
                }
            }
        }
        let flow_control =
            selection.build(&FlowControlDefaults::from(&self.ctx.network), counters.fc_receivers.clone());
        if let Some(start) = params.position {
            let bits = log::position_bits_to_shift(params.term_length);
            let position = log::compute_position(start.term_id, start.term_offset, bits, initial_term_id);
            for p in [&counters.pub_pos, &counters.pub_lmt, &counters.snd_pos, &counters.snd_lmt] {
                p.set_release(position);
            }
        }
        let path = publication_log_path(&self.ctx.aeron_dir, registration_id);
        let log_length = log::compute_log_length(params.term_length, self.ctx.file_page_size);
        if let Err(e) = self.check_storage(log_length) {
            free_all(self, &counters);
            return Err(e);
        }
        let identity = LogIdentity { registration_id, session_id, stream_id, initial_term_id };
        let log = match create_publication_log(
            &path,
            identity,
            params,
            self.ctx.file_page_size,
            self.os_buffer_lengths,
        ) {
            Ok(log) => log,
            Err(e) => {
                free_all(self, &counters);
                let _ = std::fs::remove_file(&path);
                return Err(e.context(format_args!("error creating network log {}", path.display())));
            }
        };
        log::set_socket_sndbuf_length(log.metadata(), udp.socket_sndbuf_length as i32);
        log::set_socket_rcvbuf_length(log.metadata(), udp.socket_rcvbuf_length as i32);
        log::set_group(log.metadata(), has_group_semantics);
        self.add_mapped_bytes(log.buffer().capacity() as i64);
        let status = Arc::new(NetworkPublicationStatus::default());
        let config = NetworkPublicationConfig {
            registration_id,
            endpoint_id,
            session_id,
            stream_id,
            initial_term_id,
            mtu_length: params.mtu_length,
            signal_eos: params.signal_eos,
            spies_simulate_connection: params.spies_simulate_connection,
            response_correlation_id: params.response_correlation_id,
            is_response: params.is_response,
            connection_timeout_ns: self.ctx.publication_connection_timeout_ns as i64,
            max_messages_per_send: self.ctx.network.network_publication_max_messages_per_send as usize,
            has_group_semantics,
            multicast_ttl,
        };
        let retransmit_handler = RetransmitHandler::new(
            self.ctx.retransmit_unicast_delay_ns,
            self.ctx.retransmit_unicast_linger_ns,
            has_group_semantics,
            params.max_resend as usize,
        );
        let sender_half = NetworkPublication::new(
            config,
            &log,
            SenderPositions {
                snd_pos: counters.snd_pos.clone(),
                snd_lmt: counters.snd_lmt.clone(),
                snd_bpe: counters.snd_bpe.clone(),
            },
            flow_control,
            retransmit_handler,
            Arc::clone(&status),
            self.system.clone(),
            self.conductor_proxy.clone(),
            self.now_ns,
        );
        self.sender_proxy.send(SenderCommand::AddPublication(Box::new(sender_half)));
        let identity = NetworkPublicationIdentity {
            registration_id,
            session_id,
            stream_id,
            endpoint_id,
            channel: channel.to_string(),
            is_exclusive: exclusive,
            initial_term_id,
        };
        Ok(NetworkPublicationEntry::new(
            identity,
            params.clone(),
            log,
            path.to_string_lossy().into_owned(),
            counters,
            status,
            self.ctx.publication_unblock_timeout_ns,
            self.now_ns,
        ))
    }

    /// One fewer reference on a network publication; `false` if there is none with the id.
    pub(crate) fn release_network_publication(&mut self, registration_id: i64) -> bool {
        let now_ns = self.now_ns;
        match self.network_publications.iter_mut().find(|p| p.registration_id() == registration_id) {
            Some(p) => {
                p.decref(now_ns);
                true
            }
            None => false,
        }
    }
}
