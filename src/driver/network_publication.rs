//! The sender's half of a network publication (`spec/wire-protocol.md` §3-7,
//! `spec/flow-congestion-loss.md` §1, §4): every sender duty cycle it sends what the
//! publishers wrote, in MTU-sized datagrams straight from the term, up to the sender limit
//! that flow control keeps from status messages; SETUP frames until a receiver answers;
//! heartbeats when idle; retransmissions for NAKs; EOS heartbeats once the conductor says
//! the stream ended.
//!
//! The conductor keeps the other half (`conductor::network_publication`): the publisher
//! limit, spies and the life cycle. What both need lives in [`NetworkPublicationStatus`].
//! Data goes out through the channel's send endpoint, which the sender lends for each call:
//! to the unicast endpoint, the multicast group, or every destination of a
//! multi-destination-cast channel; a resend one destination asked for goes only there. A
//! destination new to the endpoint gets a SETUP straight away.
//!
//! A response publication (`control-mode=response`) sends nothing until a response
//! subscription asks it for SETUP (a status message with SEND_SETUP), and from then on
//! sends everything to that subscription alone; its first receiver tells the conductor the
//! request image need not announce it any more. A request publication
//! (`response-correlation-id`) asks its receiver for RSP_SETUP with its SETUP flags, and
//! passes the RSP_SETUP it gets on to the conductor.
//!
//! Everything here runs in the sender duty cycle: no allocation (the receiver liveness list
//! only grows when a new receiver appears), no locks. The datagrams of one scan (up to
//! `AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND`) and of one resend go out as one
//! batch per destination (`UdpTransport::send_batch`: one `sendmmsg`, where allowed).
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use crate::concurrent::AtomicBuffer;
use crate::driver::agent_proxy::{ConductorCommand, Proxy, PublicationErrorReport};
use crate::driver::flow_control::{FlowControl, ReceiverStatus};
use crate::driver::loss::resend::{is_in_resend_window, resend_from_term};
use crate::driver::loss::{NakOutcome, RetransmitHandler};
use crate::driver::media::send_channel_endpoint::SendChannelEndpoint;
use crate::driver::position_counters::Position;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::logbuffer::term_scanner::scan_published;
use crate::protocol::data::DataHeader;
use crate::protocol::header::DATA_HEADER_LENGTH;
use crate::protocol::setup::{SETUP_GROUP_FLAG, SETUP_HEADER_LENGTH, SETUP_SEND_RESPONSE_SETUP_FLAG, Setup};
use crate::protocol::{
    ErrorFrameFlyweight, NakFlyweight, ResponseSetupFlyweight, Rttm, RttmFlyweight, StatusMessageFlyweight,
};
use crate::util::error::{AeronErrorCode, Error, Result};
use crate::util::sys::udp::MAX_BATCH;

/// SETUP frames go out this often until a receiver answers (Aeron: 100 ms).
pub const SETUP_TIMEOUT_NS: i64 = 100_000_000;
/// An idle publication heartbeats this often (Aeron: 100 ms).
pub const HEARTBEAT_TIMEOUT_NS: i64 = 100_000_000;
/// Aeron's error-log text for an SM whose optional bytes are not a group tag.
pub const MALFORMED_GROUP_TAG_MESSAGE: &str =
    "Received a status message for tagged flow control that did not have 0 or 8 bytes for the group_tag";

/// What the conductor and the sender tell each other about a publication. Each flag has
/// one writer except `is_connected`, which both set (as Aeron does): a benign race, as the
/// next status message or timer tick corrects it.
#[derive(Debug, Default)]
pub struct NetworkPublicationStatus {
    /// Sender: some receiver sent a status message within the connection timeout.
    pub has_receivers: AtomicBool,
    /// Sender: flow control has the receivers it requires (always, for unicast).
    pub has_required_receivers: AtomicBool,
    /// Both: the log's `is_connected` as last written.
    pub is_connected: AtomicBool,
    /// Conductor: the publication is closed and everything was sent: send EOS heartbeats.
    pub is_end_of_stream: AtomicBool,
    /// Sender: the receiver of a plain unicast channel said it is going away (EOS status
    /// message); with several receivers one leaving ends nothing.
    pub has_received_unicast_eos: AtomicBool,
    /// Conductor: spies are linked, and the furthest of their positions.
    pub has_spies: AtomicBool,
    pub max_spy_position: AtomicI64,
}

impl NetworkPublicationStatus {
    /// Writes `is_connected` to the log and this flag if it changed. Release: a publisher
    /// that sees the log flag also sees the state that made it connected.
    pub fn update_connected(&self, metadata: &AtomicBuffer, connected: bool) {
        if self.is_connected.load(Ordering::Acquire) != connected {
            log::set_is_connected(metadata, connected);
            self.is_connected.store(connected, Ordering::Release);
        }
    }
}

/// Identity and configuration of a publication, fixed at creation.
#[derive(Debug, Clone)]
pub struct NetworkPublicationConfig {
    pub registration_id: i64,
    pub endpoint_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub initial_term_id: i32,
    pub mtu_length: usize,
    pub signal_eos: bool,
    pub spies_simulate_connection: bool,
    /// `response-correlation-id` (−1 none): of a request publication, the registration id
    /// of the response subscription waiting for the answer; of a response publication, the
    /// correlation id of the request image it answers.
    pub response_correlation_id: i64,
    /// `control-mode=response`: sends only to the response subscription that elicited SETUP.
    pub is_response: bool,
    pub connection_timeout_ns: i64,
    /// Datagrams per duty cycle at most (`AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND`).
    pub max_messages_per_send: usize,
    /// Multicast or multi-destination: SETUP carries the GROUP flag.
    pub has_group_semantics: bool,
    /// The channel's `ttl` (0 when not given), carried in SETUP as Aeron does.
    pub multicast_ttl: u8,
}

/// The positions the sender keeps in counters.
#[derive(Debug, Clone)]
pub struct SenderPositions {
    pub snd_pos: Position,
    pub snd_lmt: Position,
    pub snd_bpe: Position,
}

/// Where a publication's datagrams go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataRoute {
    /// Wherever the endpoint sends (its endpoint, group or destinations).
    Endpoint,
    /// A response publication: to the response subscription that asked for SETUP, and
    /// nowhere before one has.
    Response(Option<SocketAddr>),
}

/// Reads the terms and sends datagrams; split out so resends can run while the retransmit
/// handler is borrowed.
struct TermSender {
    route: DataRoute,
    terms: [AtomicBuffer; log::PARTITION_COUNT],
    snd_pos: Position,
    initial_term_id: i32,
    position_bits_to_shift: u32,
    term_length: usize,
    mtu_length: usize,
    counters: SystemCounters,
}

impl TermSender {
    /// Sends one datagram along the route; counts a short send. Returns whether all of it
    /// went (nothing goes while a response publication has nowhere to send).
    #[inline]
    fn send(&self, endpoint: &SendChannelEndpoint, datagram: &[u8]) -> Result<bool> {
        let sent = match self.route {
            DataRoute::Endpoint => endpoint.send(datagram)?,
            DataRoute::Response(Some(address)) => endpoint.send_to(datagram, Some(address))?,
            DataRoute::Response(None) => return Ok(false),
        };
        if sent < datagram.len() {
            self.counters.increment(SystemCounterId::ShortSends);
            return Ok(false);
        }
        Ok(true)
    }

    /// Sends `datagrams` as one batch along the route; counts a short send. Returns how
    /// many went whole (none while a response publication has nowhere to send).
    #[inline]
    fn send_batch(&self, endpoint: &SendChannelEndpoint, datagrams: &[&[u8]]) -> Result<usize> {
        let sent = match self.route {
            DataRoute::Endpoint => endpoint.send_batch(datagrams, None)?,
            DataRoute::Response(Some(address)) => endpoint.send_batch(datagrams, Some(address))?,
            DataRoute::Response(None) => return Ok(0),
        };
        if sent < datagrams.len() {
            self.counters.increment(SystemCounterId::ShortSends);
        }
        Ok(sent)
    }

    /// Resends a NAKed range if it is still within the resend window, to `destination`
    /// only when given.
    fn resend(
        &self,
        endpoint: &SendChannelEndpoint,
        term_id: i32,
        term_offset: i32,
        length: usize,
        destination: Option<SocketAddr>,
    ) -> Result<()> {
        let sender_position = self.snd_pos.get();
        let resend_position =
            log::compute_position(term_id, term_offset, self.position_bits_to_shift, self.initial_term_id);
        if !is_in_resend_window(sender_position, resend_position, self.term_length) || term_offset < 0 {
            return Ok(());
        }
        let destination = match self.route {
            DataRoute::Endpoint => destination,
            DataRoute::Response(Some(address)) => Some(address),
            DataRoute::Response(None) => return Ok(()),
        };
        let term = &self.terms[log::index_by_position(resend_position, self.position_bits_to_shift)];
        let outcome = resend_from_term(term, term_offset as usize, length, self.mtu_length, |batch| {
            endpoint.send_batch(batch, destination)
        })?;
        if outcome.short_send {
            self.counters.increment(SystemCounterId::ShortSends);
        }
        if outcome.bytes > 0 {
            self.counters.increment(SystemCounterId::RetransmitsSent);
            self.counters.add(SystemCounterId::RetransmittedBytes, outcome.bytes as i64);
        }
        Ok(())
    }
}

pub struct NetworkPublication {
    config: NetworkPublicationConfig,
    metadata: AtomicBuffer,
    term_sender: TermSender,
    snd_lmt: Position,
    snd_bpe: Position,
    flow_control: Box<dyn FlowControl>,
    retransmit_handler: RetransmitHandler,
    status: Arc<NetworkPublicationStatus>,
    to_conductor: Proxy<ConductorCommand>,
    /// (receiver id, time of its last status message).
    receivers: Vec<(i64, i64)>,
    time_of_last_data_or_heartbeat_ns: i64,
    time_of_last_setup_ns: i64,
    has_initial_connection: bool,
    is_setup_elicited: bool,
    /// The endpoint's destination additions this publication has sent SETUP for.
    seen_destination_additions: u64,
    has_reported_malformed_group_tag: bool,
    track_sender_limits: bool,
    current_messages_per_send: usize,
    term_length_mask: i64,
    /// Where the sender last found this publication's endpoint among its own.
    endpoint_index_hint: usize,
    /// When an ERR frame from a receiver without an image may be logged next.
    next_refusal_log_ns: i64,
}

impl NetworkPublication {
    #[allow(clippy::too_many_arguments)] // the pieces the conductor built for it
    pub fn new(
        config: NetworkPublicationConfig,
        log: &LogBuffers,
        positions: SenderPositions,
        flow_control: Box<dyn FlowControl>,
        retransmit_handler: RetransmitHandler,
        status: Arc<NetworkPublicationStatus>,
        counters: SystemCounters,
        to_conductor: Proxy<ConductorCommand>,
        now_ns: i64,
    ) -> Self {
        let term_length = log.term_length();
        let term_sender = TermSender {
            route: if config.is_response { DataRoute::Response(None) } else { DataRoute::Endpoint },
            terms: log.terms().clone(),
            snd_pos: positions.snd_pos,
            initial_term_id: config.initial_term_id,
            position_bits_to_shift: log::position_bits_to_shift(term_length),
            term_length,
            mtu_length: config.mtu_length,
            counters,
        };
        Self {
            metadata: log.metadata().clone(),
            term_sender,
            snd_lmt: positions.snd_lmt,
            snd_bpe: positions.snd_bpe,
            flow_control,
            retransmit_handler,
            status,
            to_conductor,
            receivers: Vec::with_capacity(4),
            time_of_last_data_or_heartbeat_ns: now_ns - HEARTBEAT_TIMEOUT_NS - 1,
            time_of_last_setup_ns: now_ns - SETUP_TIMEOUT_NS - 1,
            has_initial_connection: false,
            is_setup_elicited: false,
            seen_destination_additions: 0,
            has_reported_malformed_group_tag: false,
            track_sender_limits: false,
            current_messages_per_send: config.max_messages_per_send.max(1),
            term_length_mask: term_length as i64 - 1,
            endpoint_index_hint: 0,
            next_refusal_log_ns: now_ns,
            config,
        }
    }

    #[inline]
    pub fn registration_id(&self) -> i64 {
        self.config.registration_id
    }

    #[inline]
    pub fn endpoint_id(&self) -> i64 {
        self.config.endpoint_id
    }

    /// Whether a control frame for (`session_id`, `stream_id`) on endpoint `endpoint_id` is
    /// for this publication.
    #[inline]
    pub fn matches(&self, endpoint_id: i64, session_id: i32, stream_id: i32) -> bool {
        self.config.endpoint_id == endpoint_id
            && self.config.session_id == session_id
            && self.config.stream_id == stream_id
    }

    /// The index of this publication's endpoint in `endpoints`, trying the last one found
    /// first, so the sender's duty cycle does not search.
    #[inline]
    pub fn find_endpoint(&mut self, endpoints: &[SendChannelEndpoint]) -> Option<usize> {
        let id = self.config.endpoint_id;
        if endpoints.get(self.endpoint_index_hint).is_some_and(|e| e.id() == id) {
            return Some(self.endpoint_index_hint);
        }
        let index = endpoints.iter().position(|e| e.id() == id)?;
        self.endpoint_index_hint = index;
        Some(index)
    }

    pub fn status(&self) -> &Arc<NetworkPublicationStatus> {
        &self.status
    }

    /// One duty cycle through `endpoint`: SETUP if due, data up to the sender limit, or a
    /// heartbeat; flow control's idle hook, receiver liveness and retransmit timeouts.
    /// Returns bytes sent.
    pub fn send(&mut self, now_ns: i64, endpoint: &SendChannelEndpoint) -> Result<usize> {
        let additions = endpoint.destination_additions();
        if additions != self.seen_destination_additions {
            self.seen_destination_additions = additions;
            // A new destination: SETUP now rather than when its data elicits one.
            if !self.status.is_end_of_stream.load(Ordering::Acquire) {
                self.is_setup_elicited = true;
                self.time_of_last_setup_ns = now_ns - SETUP_TIMEOUT_NS - 1;
            }
        }
        let snd_pos = self.term_sender.snd_pos.get();
        let bits = self.term_sender.position_bits_to_shift;
        let active_term_id = log::compute_term_id_from_position(snd_pos, bits, self.config.initial_term_id);
        let term_offset = (snd_pos & self.term_length_mask) as i32;
        if !self.has_initial_connection || self.is_setup_elicited {
            self.setup_message_check(now_ns, active_term_id, term_offset, endpoint)?;
        }
        let mut bytes_sent = self.send_data(now_ns, snd_pos, term_offset, endpoint)?;
        if bytes_sent == 0 {
            // Acquire: pairs with the conductor's release when the stream ended.
            let is_end_of_stream = self.status.is_end_of_stream.load(Ordering::Acquire);
            bytes_sent = self.heartbeat_message_check(
                now_ns,
                active_term_id,
                term_offset,
                self.config.signal_eos && is_end_of_stream,
                endpoint,
            )?;
            let has_spies = self.status.has_spies.load(Ordering::Acquire);
            if self.config.spies_simulate_connection && has_spies && !self.has_receivers() {
                // With only spies, the sender keeps pace with the furthest spy.
                let spy = self.status.max_spy_position.load(Ordering::Acquire).max(snd_pos);
                self.term_sender.snd_pos.set_release(spy);
                let limit = self.flow_control.on_idle(now_ns, spy, spy, is_end_of_stream);
                self.snd_lmt.set_release(limit);
            } else {
                let limit = self.flow_control.on_idle(now_ns, self.snd_lmt.get(), snd_pos, is_end_of_stream);
                self.snd_lmt.set_release(limit);
            }
            self.update_has_receivers(now_ns);
        }
        let sender = &self.term_sender;
        self.retransmit_handler.process_timeouts(now_ns, |t, o, l, d| sender.resend(endpoint, t, o, l, d))?;
        Ok(bytes_sent)
    }

    fn has_receivers(&self) -> bool {
        self.status.has_receivers.load(Ordering::Relaxed)
    }

    fn setup_message_check(
        &mut self,
        now_ns: i64,
        active_term_id: i32,
        term_offset: i32,
        endpoint: &SendChannelEndpoint,
    ) -> Result<()> {
        if now_ns <= self.time_of_last_setup_ns + SETUP_TIMEOUT_NS {
            return Ok(());
        }
        // A request publication asks for RSP_SETUP; a response publication never does.
        let response = if !self.config.is_response && self.config.response_correlation_id != -1 {
            SETUP_SEND_RESPONSE_SETUP_FLAG
        } else {
            0
        };
        let group = if self.config.has_group_semantics { SETUP_GROUP_FLAG } else { 0 };
        let flags = response | group;
        let setup = Setup {
            flags,
            term_offset,
            session_id: self.config.session_id,
            stream_id: self.config.stream_id,
            initial_term_id: self.config.initial_term_id,
            active_term_id,
            term_length: self.term_sender.term_length as i32,
            mtu: self.config.mtu_length as i32,
            ttl: i32::from(self.config.multicast_ttl),
        };
        let mut frame = [0u8; SETUP_HEADER_LENGTH];
        setup.encode(&mut frame)?;
        if self.is_setup_elicited {
            let limit =
                self.flow_control.on_setup(now_ns, self.snd_lmt.get(), self.term_sender.snd_pos.get());
            self.snd_lmt.set_release(limit);
        }
        self.term_sender.send(endpoint, &frame)?;
        self.time_of_last_setup_ns = now_ns;
        if self.has_receivers() {
            self.is_setup_elicited = false;
        }
        Ok(())
    }

    fn heartbeat_message_check(
        &mut self,
        now_ns: i64,
        active_term_id: i32,
        term_offset: i32,
        end_of_stream: bool,
        endpoint: &SendChannelEndpoint,
    ) -> Result<usize> {
        if !self.has_initial_connection
            || now_ns <= self.time_of_last_data_or_heartbeat_ns + HEARTBEAT_TIMEOUT_NS
        {
            return Ok(0);
        }
        let heartbeat = DataHeader::heartbeat(
            self.config.session_id,
            self.config.stream_id,
            active_term_id,
            term_offset,
            end_of_stream,
        );
        let mut frame = [0u8; DATA_HEADER_LENGTH];
        heartbeat.encode(&mut frame)?;
        self.term_sender.send(endpoint, &frame)?;
        self.term_sender.counters.increment(SystemCounterId::HeartbeatsSent);
        self.time_of_last_data_or_heartbeat_ns = now_ns;
        Ok(DATA_HEADER_LENGTH)
    }

    /// Up to `current_messages_per_send` messages of datagrams of complete frames from
    /// `snd_pos` (a message is one datagram, or with segmentation offload up to
    /// `GSO_DATAGRAMS_PER_MESSAGE`), each
    /// at most one MTU and within the sender limit, sent as one batch; a padding frame ends
    /// a datagram with its header and the position skips its body. A short send moves the
    /// position past the datagrams that went (the rest go next time) and sends one
    /// datagram at a time until a batch goes whole again, as Aeron.
    fn send_data(
        &mut self,
        now_ns: i64,
        snd_pos: i64,
        mut term_offset: i32,
        endpoint: &SendChannelEndpoint,
    ) -> Result<usize> {
        let sender = &self.term_sender;
        let term_length = sender.term_length;
        let term = &sender.terms[log::index_by_position(snd_pos, sender.position_bits_to_shift)];
        let mut available_window = self.snd_lmt.get() - snd_pos;
        let mut batch: [&[u8]; MAX_BATCH] = [&[]; MAX_BATCH];
        let mut consumed = [0i32; MAX_BATCH];
        let mut scanned = 0usize;
        // A segmented message carries several MTU datagrams in one: with offload a send
        // message may be that many datagrams (the window still bounds the burst).
        let limit = (self.current_messages_per_send * endpoint.datagrams_per_message()).min(MAX_BATCH);
        while scanned < limit && available_window > 0 {
            let scan_limit = (available_window as usize).min(sender.mtu_length);
            let (availability, run) = scan_published(term, term_offset as usize, scan_limit);
            let Some(run) = run.filter(|_| availability.available > 0) else {
                break;
            };
            let available = availability.available as usize;
            // The frames whose lengths the scanner acquired.
            batch[scanned] = run.as_slice();
            consumed[scanned] = (available + availability.padding as usize) as i32;
            available_window -= i64::from(consumed[scanned]);
            term_offset += consumed[scanned];
            scanned += 1;
            if term_offset as usize >= term_length {
                break;
            }
        }
        if scanned == 0 {
            if self.track_sender_limits && available_window <= 0 {
                self.snd_bpe.add(1);
                sender.counters.increment(SystemCounterId::SenderFlowControlLimits);
                self.track_sender_limits = false;
            }
            return Ok(0);
        }
        let sent = sender.send_batch(endpoint, &batch[..scanned])?.min(scanned);
        let bytes_sent: usize = batch[..sent].iter().map(|d| d.len()).sum();
        if sent > 0 {
            self.time_of_last_data_or_heartbeat_ns = now_ns;
            self.track_sender_limits = true;
            let advanced: i64 = consumed[..sent].iter().map(|&c| i64::from(c)).sum();
            // Release: the conductor and spies reading snd-pos see a position that was sent.
            sender.snd_pos.set_release(snd_pos + advanced);
        }
        if sent < scanned {
            self.current_messages_per_send = 1;
        } else if sent == limit {
            self.current_messages_per_send = self.config.max_messages_per_send.clamp(1, MAX_BATCH);
        }
        Ok(bytes_sent)
    }

    /// Drops receivers silent for the connection timeout; publishes whether any is left.
    fn update_has_receivers(&mut self, now_ns: i64) {
        let expiry = now_ns - self.config.connection_timeout_ns;
        self.receivers.retain(|&(_, last_sm_ns)| last_sm_ns > expiry);
        let is_live = !self.receivers.is_empty();
        if is_live != self.status.has_receivers.load(Ordering::Relaxed) {
            // Release: the conductor acting on it sees the sender's state before it.
            self.status.has_receivers.store(is_live, Ordering::Release);
        }
        // Min/tagged flow control may have dropped receivers below its group size on idle.
        self.publish_required_receivers();
    }

    fn publish_required_receivers(&self) {
        let required = self.has_receivers() && self.flow_control.has_required_receivers();
        // Only the sender writes it; the store is skipped when nothing changed.
        if required != self.status.has_required_receivers.load(Ordering::Relaxed) {
            self.status.has_required_receivers.store(required, Ordering::Release);
        }
    }

    /// Aeron logs every SM whose optional bytes are not a group tag. One error-log entry
    /// per publication tells the operator as much, and a flood of such SMs then costs the
    /// sender nothing (the error's message is the one allocation).
    fn report_malformed_group_tag(&mut self) {
        if !self.has_reported_malformed_group_tag && self.flow_control.malformed_group_tags() > 0 {
            self.has_reported_malformed_group_tag = true;
            self.to_conductor
                .send(ConductorCommand::Error(Error::invalid_argument(MALFORMED_GROUP_TAG_MESSAGE)));
        }
    }

    /// A status message (not a setup elicitation) from a receiver; `is_unicast`: the
    /// endpoint is plain unicast (one receiver).
    pub fn on_status_message(&mut self, sm: &StatusMessageFlyweight<'_>, is_unicast: bool, now_ns: i64) {
        let receiver_id = sm.receiver_id();
        if sm.is_end_of_stream() {
            self.receivers.retain(|&(id, _)| id != receiver_id);
            if is_unicast {
                // Release: the lingering conductor may finish as soon as it sees this.
                self.status.has_received_unicast_eos.store(true, Ordering::Release);
            }
        } else {
            match self.receivers.iter_mut().find(|(id, _)| *id == receiver_id) {
                Some(entry) => entry.1 = now_ns,
                None => self.receivers.push((receiver_id, now_ns)),
            }
        }
        let is_live = !self.receivers.is_empty();
        if is_live != self.has_receivers() {
            if is_live && self.config.is_response {
                // Connected: the request image may stop announcing this publication.
                self.to_conductor.send(ConductorCommand::ResponseConnected {
                    response_correlation_id: self.config.response_correlation_id,
                });
            }
            self.status.has_receivers.store(is_live, Ordering::Release);
        }
        self.has_initial_connection = true;
        let status = ReceiverStatus::from(sm);
        let limit = self.flow_control.on_status_message(
            &status,
            self.snd_lmt.get(),
            self.config.initial_term_id,
            self.term_sender.position_bits_to_shift,
            now_ns,
        );
        // Release: the sender limit is read by the conductor (publisher limit) and tools.
        self.snd_lmt.set_release(limit);
        self.publish_required_receivers();
        let connected = self.has_receivers() && self.flow_control.has_required_receivers();
        self.status.update_connected(&self.metadata, connected);
        self.report_malformed_group_tag();
    }

    /// A status message with the SEND_SETUP flag from `source`: answer with SETUP unless
    /// the stream ended. A response publication sends to `source` from now on.
    pub fn on_setup_elicited(&mut self, sm: &StatusMessageFlyweight<'_>, source: SocketAddr, now_ns: i64) {
        if !self.status.is_end_of_stream.load(Ordering::Acquire) {
            self.is_setup_elicited = true;
            self.flow_control.on_trigger_send_setup(&ReceiverStatus::from(sm), now_ns);
            if self.config.is_response {
                self.term_sender.route = DataRoute::Response(Some(source));
            }
            self.report_malformed_group_tag();
        }
    }

    /// An RSP_SETUP from this request publication's receiver: the conductor gives the
    /// response subscription waiting for it the response publication's session id.
    pub fn on_response_setup(&self, rsp: &ResponseSetupFlyweight<'_>) {
        if self.config.response_correlation_id != -1 {
            self.to_conductor.send(ConductorCommand::ResponseSetup {
                response_correlation_id: self.config.response_correlation_id,
                response_session_id: rsp.response_session_id(),
            });
        }
    }

    /// A NAK: resend (or schedule) through the retransmit handler, to `destination` only
    /// when the NAK came from a known destination of a multi-destination channel. An
    /// offset outside the term counts as an invalid packet.
    pub fn on_nak(
        &mut self,
        nak: &NakFlyweight<'_>,
        destination: Option<SocketAddr>,
        endpoint: &SendChannelEndpoint,
        now_ns: i64,
    ) -> Result<()> {
        let sender = &self.term_sender;
        let outcome = self.retransmit_handler.on_nak(
            &nak.to_nak(),
            destination,
            sender.term_length,
            sender.mtu_length,
            self.flow_control.as_ref(),
            now_ns,
            |t, o, l, d| sender.resend(endpoint, t, o, l, d),
        )?;
        match outcome {
            NakOutcome::Invalid => sender.counters.increment(SystemCounterId::InvalidPackets),
            NakOutcome::Overflow => sender.counters.increment(SystemCounterId::RetransmitOverflow),
            NakOutcome::Duplicate | NakOutcome::Resent(_) | NakOutcome::Delayed => {}
        }
        Ok(())
    }

    /// An RTT measurement request: reply at once with the same echo timestamp.
    pub fn on_rttm(&mut self, rttm: &RttmFlyweight<'_>, endpoint: &SendChannelEndpoint) -> Result<()> {
        if rttm.is_reply_requested() {
            let mut reply = Rttm::reply_to(&rttm.to_rttm());
            reply.session_id = self.config.session_id;
            reply.stream_id = self.config.stream_id;
            let mut frame = [0u8; crate::protocol::rttm::RTTM_HEADER_LENGTH];
            reply.encode(&mut frame)?;
            self.term_sender.send(endpoint, &frame)?;
        }
        Ok(())
    }

    /// An ERR frame: the receiver rejected the stream. Flow control forgets it; if it was a
    /// live receiver, clients hear of it through the conductor, with the registration id
    /// of the multi-destination destination it came from (−1 if none).
    pub fn on_error(
        &mut self,
        err: &ErrorFrameFlyweight<'_>,
        source: SocketAddr,
        destination_registration_id: i64,
        now_ns: i64,
    ) {
        let receiver_id = err.receiver_id();
        self.flow_control.on_error(receiver_id, err.group_tag(), now_ns);
        let before = self.receivers.len();
        self.receivers.retain(|&(id, _)| id != receiver_id);
        if self.receivers.len() != before {
            self.to_conductor.send(ConductorCommand::PublicationError(Box::new(PublicationErrorReport {
                registration_id: self.config.registration_id,
                session_id: err.session_id(),
                stream_id: err.stream_id(),
                receiver_id,
                destination_registration_id,
                group_tag: err.group_tag(),
                source,
                error_code: err.error_code(),
                message: err.message().to_vec(),
            })));
        } else if err.error_code() != AeronErrorCode::ImageRejected as i32
            && now_ns >= self.next_refusal_log_ns
        {
            // A receiver that never had an image (it could not build one, e.g. its disk is
            // full): nobody is told through a client, so the error log says why the
            // publication does not connect, at most once a second.
            self.next_refusal_log_ns = now_ns + REFUSAL_LOG_INTERVAL_NS;
            self.to_conductor.send(ConductorCommand::Error(Error::invalid_argument(format!(
                "publication {} stream-id={} session-id={}: receiver {receiver_id} at {source} has no image: ({}) {}",
                self.config.registration_id,
                err.stream_id(),
                err.session_id(),
                err.error_code(),
                String::from_utf8_lossy(err.message())
            ))));
        }
    }
}

/// How often an ERR frame from a receiver without an image is logged.
const REFUSAL_LOG_INTERVAL_NS: i64 = 1_000_000_000;

#[cfg(test)]
#[path = "network_publication_tests.rs"]
mod tests;
