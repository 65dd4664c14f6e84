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

use crate::concurrent::counters::type_ids::{
    SENDER_BPE_NAME, SENDER_BPE_TYPE_ID, SENDER_LIMIT_NAME, SENDER_LIMIT_TYPE_ID, SENDER_POSITION_NAME,
    SENDER_POSITION_TYPE_ID,
};
use crate::driver::agent_proxy::SenderCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::PublicationLink;
use crate::driver::conductor::log_file::LogIdentity;
use crate::driver::conductor::network_publication::{
    NetworkPublicationCounters, NetworkPublicationEntry, NetworkPublicationIdentity,
};
use crate::driver::conductor::params::{PublicationParams, SharedLogShape, invalid_param};
use crate::driver::conductor::publication_setup::{
    PUBLISHER_COUNTERS, PublicationCommand, PublicationRequest,
};
use crate::driver::flow_control::{FlowControlDefaults, flow_control_for_channel};
use crate::driver::loss::RetransmitHandler;
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::network_publication::{
    NetworkPublication, NetworkPublicationConfig, NetworkPublicationStatus, SenderPositions,
};
use crate::driver::position_counters::allocate_flow_control_receivers;
use crate::logbuffer::descriptor as log;
use crate::uri::keys::{CONTROL_MODE, FLOW_CONTROL};
use crate::util::error::{Error, Result};

/// The counters of a network publication, in Aeron's order.
const NETWORK_PUBLICATION_COUNTERS: [(i32, &str); 5] = [
    PUBLISHER_COUNTERS[0],
    PUBLISHER_COUNTERS[1],
    (SENDER_POSITION_TYPE_ID, SENDER_POSITION_NAME),
    (SENDER_LIMIT_TYPE_ID, SENDER_LIMIT_NAME),
    (SENDER_BPE_TYPE_ID, SENDER_BPE_NAME),
];

impl Conductor {
    pub(crate) fn on_add_network_publication(&mut self, add: PublicationCommand<'_>) -> Result<()> {
        let PublicationCommand { correlated, stream_id, channel, exclusive } = add;
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
            |tag| self.publications.tagged_network(tag),
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
        self.get_or_add_client(correlated.client_id)?;
        let response_image = self.find_response_image(&params)?;
        let endpoint_index = self.get_or_add_send_endpoint(&udp, &params, correlated.correlation_id)?;
        let endpoint_id = self.endpoints.send[endpoint_index].id;
        let request = PublicationRequest {
            params: &params,
            correlated,
            stream_id,
            channel: &udp.original_uri,
            exclusive,
        };
        let index = match self.get_or_add_network_publication(&request, &udp, endpoint_id) {
            Ok(index) => index,
            Err(e) => {
                // An endpoint opened for this publication alone closes again.
                if self.endpoints.send[endpoint_index].ref_count == 0 {
                    self.endpoints.send[endpoint_index].ref_count = 1;
                    self.endpoints.release_send(endpoint_id, self.now_ns);
                }
                return Err(e);
            }
        };
        let p = self.publications.network(index);
        let link = PublicationLink {
            registration_id: correlated.correlation_id,
            publication_registration_id: p.registration_id(),
        };
        self.clients.add_publication_link(correlated.client_id, link);
        if let Some(image) = response_image {
            // The request image announces who answers it until that publication connects.
            self.images.get(image).status.set_response_session_id(Some(p.session_id()));
        }
        let status_id = self.endpoints.send[endpoint_index].status.counter_id();
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
        self.link_new_network_publication(index)
    }

    fn get_or_add_network_publication(
        &mut self,
        request: &PublicationRequest<'_>,
        udp: &UdpChannel,
        endpoint_id: i64,
    ) -> Result<usize> {
        let params = request.params;
        let existing = self.publications.shared_network(
            endpoint_id,
            request.stream_id,
            request.exclusive,
            params,
            request.channel,
        )?;
        if let Some(index) = existing {
            let p = self.publications.network(index);
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
            self.publications.network_mut(index).incref();
            return Ok(index);
        }
        let entry = self.create_network_publication(request, udp, endpoint_id)?;
        let index = self.publications.add_network(entry);
        if let Some(endpoint) = self.endpoints.send.find_mut(endpoint_id) {
            endpoint.ref_count += 1;
        }
        Ok(index)
    }

    /// `pub-pos`, `pub-lmt` (owned by the client), `snd-pos`, `snd-lmt`, `snd-bpe`, in
    /// Aeron's order; none stay allocated if one fails.
    fn allocate_network_counters(
        &mut self,
        request: &PublicationRequest<'_>,
        identity: &LogIdentity,
    ) -> Result<NetworkPublicationCounters> {
        let [pub_pos, pub_lmt, snd_pos, snd_lmt, snd_bpe] =
            self.allocate_publication_counters(&NETWORK_PUBLICATION_COUNTERS, request, identity)?;
        Ok(NetworkPublicationCounters { pub_pos, pub_lmt, snd_pos, snd_lmt, snd_bpe, fc_receivers: None })
    }

    fn create_network_publication(
        &mut self,
        request: &PublicationRequest<'_>,
        udp: &UdpChannel,
        endpoint_id: i64,
    ) -> Result<NetworkPublicationEntry> {
        let (params, stream_id) = (request.params, request.stream_id);
        let identity = request.identity(|| self.publications.new_network_session_id(endpoint_id, stream_id));
        let LogIdentity { registration_id, session_id, initial_term_id, .. } = identity;
        // A channel naming only a tag shares another's endpoint: that channel's semantics
        // and flow control apply.
        let Some(endpoint) = self.endpoints.send.find(endpoint_id) else {
            return Err(Error::illegal_state(format!("send endpoint {endpoint_id} is gone")));
        };
        let endpoint_channel = &endpoint.channel;
        let has_group_semantics = endpoint_channel.has_group_semantics();
        let multicast_ttl = endpoint_channel.multicast_ttl;
        let selection = flow_control_for_channel(
            has_group_semantics,
            endpoint_channel.uri.get(FLOW_CONTROL),
            &self.ctx.unicast_flow_control_supplier,
            &self.ctx.multicast_flow_control_supplier,
        )?;
        let channel = request.channel;
        let mut counters = self.allocate_network_counters(request, &identity)?;
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
                    self.free_positions(counters.all());
                    return Err(e);
                }
            }
        }
        let flow_control =
            selection.build(&FlowControlDefaults::from(&self.ctx.network), counters.fc_receivers.clone());
        if let Some(position) = request.start_position(initial_term_id) {
            for p in [&counters.pub_pos, &counters.pub_lmt, &counters.snd_pos, &counters.snd_lmt] {
                p.set_release(position);
            }
        }
        let all: Vec<_> = counters.all().collect();
        let (log, log_file_name) = self.make_publication_log(identity, params, &all, "network")?;
        log::set_socket_sndbuf_length(log.metadata(), udp.socket_sndbuf_length as i32);
        log::set_socket_rcvbuf_length(log.metadata(), udp.socket_rcvbuf_length as i32);
        log::set_group(log.metadata(), has_group_semantics);
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
            is_exclusive: request.exclusive,
            initial_term_id,
        };
        Ok(NetworkPublicationEntry::new(
            identity,
            params.clone(),
            log,
            log_file_name,
            counters,
            status,
            self.ctx.publication_unblock_timeout_ns,
            self.now_ns,
        ))
    }
}
