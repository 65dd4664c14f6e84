//! The receiver's half of a publication image (`spec/wire-protocol.md` §3.3, §5-7,
//! `spec/flow-congestion-loss.md` §2.4, `spec/log-buffer.md` §11, Aeron C
//! `aeron_publication_image.c`): received DATA datagrams are rebuilt into the image log at
//! their term offset and raise the high-water mark (`rcv-hwm`); heartbeats keep the image
//! alive and carry end of stream; status messages, NAKs and RTT measurement requests go
//! back to the sender when the conductor (which owns the other half,
//! `conductor::publication_image`) asks, or when the status-message timeout passes.
//!
//! A rejected image (REJECT_IMAGE, Aeron C `aeron_publication_image_invalidate`) drops all
//! data and heartbeats from then on, so it times out like a silent one, and in place of
//! status messages sends its sender an ERR frame (IMAGE_REJECTED and the reason) every
//! status-message timeout.
//!
//! An image hears its sender through one or more *connections*, one per receive
//! destination the frames arrive on (a multi-destination subscription has several; Aeron C
//! `aeron_publication_image_connection_t`). Each has a control address — the destination's
//! (multicast control group, explicit `control`) or else where its frames come from — and
//! status messages, NAKs and RTT requests go to every connection heard from within 5 s.
//! Frames are rebuilt once whichever connection brings them first; the stream ends when
//! every connection signalled end of stream.
//!
//! An image whose SETUP asked for a response channel (SEND_RESPONSE_SETUP) tells its sender,
//! once a response publication answers it, that publication's session id: an RSP_SETUP to
//! every live connection each status-message timeout, until the conductor hears the
//! response publication is connected.
//!
//! Data outside the receiver window is dropped and counted: beyond the last SM position
//! plus half a term is an *over-run*, before the last SM position an *under-run*.
//! Datagrams reach `insert_packet` already validated against the image's term
//! (`media::data_datagram`). Nothing here allocates or locks.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::concurrent::AtomicBuffer;
use crate::driver::image_status::ImageStatus;
use crate::driver::media::udp_channel::same_address;
use crate::driver::media::udp_transport::UdpTransport;
use crate::driver::position_counters::Position;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::logbuffer::term_gap_filler::try_fill_gap;
use crate::logbuffer::term_rebuilder;
use crate::protocol::error_frame::{ErrorFrame, MAX_ERROR_FRAME_LENGTH, MAX_ERROR_MESSAGE_LENGTH};
use crate::protocol::header::DATA_HEADER_LENGTH;
use crate::protocol::nak::{NAK_HEADER_LENGTH, Nak};
use crate::protocol::response_setup::{RSP_SETUP_HEADER_LENGTH, ResponseSetup};
use crate::protocol::rttm::{RTTM_HEADER_LENGTH, Rttm};
use crate::protocol::status_message::{SM_EOS_FLAG, SM_HEADER_LENGTH_WITH_GROUP_TAG, StatusMessage};
use crate::util::error::{AeronErrorCode, Result};

/// A source is alive (gets SMs and NAKs) while it sent something within this time
/// (Aeron `AERON_RECEIVE_DESTINATION_TIMEOUT_NS`).
pub const CONNECTION_TIMEOUT_NS: i64 = 5_000_000_000;

/// Where a frame reached the image: the receive destination (its id within the endpoint)
/// and the address to answer there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSource {
    pub destination_id: i64,
    /// The destination's control address if it has one, else the frame's source.
    pub control_address: SocketAddr,
    /// Where the datagram came from.
    pub address: SocketAddr,
}

/// The transports of an image's receive destinations, by destination id.
pub trait DestinationTransports {
    fn transport_for(&self, destination_id: i64) -> Option<&UdpTransport>;
}

/// One socket serves every destination (a plain endpoint, tests).
impl DestinationTransports for UdpTransport {
    fn transport_for(&self, _destination_id: i64) -> Option<&UdpTransport> {
        Some(self)
    }
}

/// The sender as heard through one receive destination.
#[derive(Debug, Clone, Copy)]
struct Connection {
    destination_id: i64,
    control_address: SocketAddr,
    time_of_last_activity_ns: i64,
    time_of_last_frame_ns: i64,
    is_eos: bool,
    eos_position: i64,
}

impl Connection {
    fn is_alive(&self, now_ns: i64) -> bool {
        now_ns < self.time_of_last_activity_ns + CONNECTION_TIMEOUT_NS
    }
}

/// Identity and settings of an image, fixed at creation.
#[derive(Debug, Clone, Copy)]
pub struct PublicationImageConfig {
    pub correlation_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub initial_term_id: i32,
    pub is_reliable: bool,
    /// Where the SETUP that made the image arrived: its first connection.
    pub source: FrameSource,
    /// A unicast image (neither multicast nor a multi-destination subscription) takes
    /// frames only from the address its SETUP came from: data another socket forges for
    /// the session, at any position, is dropped and counted as invalid.
    pub pinned_source: Option<SocketAddr>,
    pub initial_position: i64,
    pub sm_timeout_ns: i64,
    pub liveness_timeout_ns: i64,
    /// The most the receiver window can be: data this far behind the last SM is still
    /// from a live sender.
    pub max_receiver_window_length: i32,
}

/// What became of a DATA datagram given to an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertOutcome {
    /// Rebuilt into the log (or already there), or a heartbeat accepted.
    Accepted,
    /// Outside the window (counted as an over- or under-run), or before the initial term.
    Dropped,
}

pub struct PublicationImage {
    config: PublicationImageConfig,
    terms: [AtomicBuffer; log::PARTITION_COUNT],
    metadata: AtomicBuffer,
    default_header: [u8; DATA_HEADER_LENGTH],
    position_bits_to_shift: u32,
    term_length: i64,
    rcv_hwm: Position,
    status: Arc<ImageStatus>,
    /// Grows only when frames arrive on a destination not seen before (bounded by the
    /// endpoint's destinations).
    connections: Vec<Connection>,
    last_sm_change_number: i64,
    last_loss_change_number: i64,
    last_sm_position: i64,
    last_overrun_threshold: i64,
    next_sm_deadline_ns: i64,
    is_end_of_stream: bool,
    /// Set once by a REJECT_IMAGE: the ERR frame text (at most 1023 bytes, no NUL).
    rejection_reason: Option<Vec<u8>>,
    counters: SystemCounters,
}

impl PublicationImage {
    pub fn new(
        config: PublicationImageConfig,
        log: &LogBuffers,
        rcv_hwm: Position,
        status: Arc<ImageStatus>,
        counters: SystemCounters,
        now_ns: i64,
    ) -> Self {
        let term_length = log.term_length() as i64;
        Self {
            terms: log.terms().clone(),
            metadata: log.metadata().clone(),
            default_header: log::default_frame_header(log.metadata()),
            position_bits_to_shift: log::position_bits_to_shift(log.term_length()),
            term_length,
            rcv_hwm,
            status,
            connections: {
                let mut connections = Vec::with_capacity(2);
                connections.push(Connection {
                    destination_id: config.source.destination_id,
                    control_address: config.source.control_address,
                    time_of_last_activity_ns: now_ns,
                    time_of_last_frame_ns: 0,
                    is_eos: false,
                    eos_position: 0,
                });
                connections
            },
            last_sm_change_number: -1,
            last_loss_change_number: -1,
            last_sm_position: config.initial_position,
            last_overrun_threshold: config.initial_position + term_length / 2,
            next_sm_deadline_ns: 0,
            is_end_of_stream: false,
            rejection_reason: None,
            counters,
            config,
        }
    }

    #[inline]
    pub fn correlation_id(&self) -> i64 {
        self.config.correlation_id
    }

    #[inline]
    pub fn session_id(&self) -> i32 {
        self.config.session_id
    }

    #[inline]
    pub fn stream_id(&self) -> i32 {
        self.config.stream_id
    }

    #[inline]
    pub fn term_length(&self) -> i64 {
        self.term_length
    }

    /// The connection of `source`'s destination, made on its first frame.
    fn connection(&mut self, source: &FrameSource, now_ns: i64) -> &mut Connection {
        let index = match self.connections.iter().position(|c| c.destination_id == source.destination_id) {
            Some(index) => index,
            None => {
                self.connections.push(Connection {
                    destination_id: source.destination_id,
                    control_address: source.control_address,
                    time_of_last_activity_ns: now_ns,
                    time_of_last_frame_ns: 0,
                    is_eos: false,
                    eos_position: 0,
                });
                self.connections.len() - 1
            }
        };
        &mut self.connections[index]
    }

    #[inline]
    fn track_connection(&mut self, source: &FrameSource, now_ns: i64) {
        let connection = self.connection(source, now_ns);
        connection.time_of_last_activity_ns = now_ns;
        connection.time_of_last_frame_ns = now_ns;
    }

    /// A SETUP for this image arrived through `source`: its destination becomes a
    /// connection if it is not one yet.
    pub fn add_connection_if_unknown(&mut self, source: &FrameSource, now_ns: i64) {
        self.track_connection(source, now_ns);
    }

    /// The destination `destination_id` left the endpoint: forget its connection.
    pub fn remove_destination(&mut self, destination_id: i64) {
        self.connections.retain(|c| c.destination_id != destination_id);
    }

    /// Inserts a validated DATA/PAD datagram (or heartbeat) whose first frame is at
    /// (`term_id`, `term_offset`), arrived through `source`. `is_heartbeat`: a 32-byte DATA
    /// header of length 0.
    pub fn insert_packet(
        &mut self,
        term_id: i32,
        term_offset: i32,
        datagram: &[u8],
        is_heartbeat: bool,
        source: &FrameSource,
        now_ns: i64,
    ) -> Result<InsertOutcome> {
        if term_id.wrapping_sub(self.config.initial_term_id) < 0 || self.rejection_reason.is_some() {
            return Ok(InsertOutcome::Dropped);
        }
        if self.config.pinned_source.is_some_and(|pinned| !same_address(&pinned, &source.address)) {
            self.counters.increment(SystemCounterId::InvalidPackets);
            return Ok(InsertOutcome::Dropped);
        }
        let bits = self.position_bits_to_shift;
        let packet_position = log::compute_position(term_id, term_offset, bits, self.config.initial_term_id);
        let proposed_position =
            if is_heartbeat { packet_position } else { packet_position + datagram.len() as i64 };
        if proposed_position > self.last_overrun_threshold {
            self.counters.increment(SystemCounterId::FlowControlOverRuns);
            return Ok(InsertOutcome::Dropped);
        }
        if is_heartbeat {
            let window_bottom = (self.last_sm_position - self.term_length).max(0);
            if packet_position < window_bottom {
                self.counters.increment(SystemCounterId::FlowControlUnderRuns);
                return Ok(InsertOutcome::Dropped);
            }
            self.track_connection(source, now_ns);
            // Release: the conductor judging liveness sees a time it can trust.
            self.status.time_of_last_packet_ns.store(now_ns, Ordering::Release);
            let is_eos = datagram[5] & crate::protocol::header::EOS_FLAG != 0;
            if is_eos && !self.is_end_of_stream {
                let connection = self.connection(source, now_ns);
                connection.is_eos = true;
                connection.eos_position = packet_position;
                if self.connections.iter().all(|c| c.is_eos) {
                    let eos_position = self.connections.iter().map(|c| c.eos_position).max().unwrap_or(0);
                    self.is_end_of_stream = true;
                    // Release: subscribers acquiring end_of_stream_position, and the conductor
                    // acquiring the flag, see the data up to it.
                    log::set_end_of_stream_position(&self.metadata, eos_position);
                    self.status.is_end_of_stream.store(true, Ordering::Release);
                }
            }
            self.propose_hwm(proposed_position);
            self.counters.increment(SystemCounterId::HeartbeatsReceived);
            return Ok(InsertOutcome::Accepted);
        }
        if packet_position < self.last_sm_position {
            self.counters.increment(SystemCounterId::FlowControlUnderRuns);
            if proposed_position >= self.last_sm_position - i64::from(self.config.max_receiver_window_length)
            {
                self.track_connection(source, now_ns);
            }
            return Ok(InsertOutcome::Dropped);
        }
        self.track_connection(source, now_ns);
        self.status.time_of_last_packet_ns.store(now_ns, Ordering::Release);
        let term = &self.terms[log::index_by_position(packet_position, bits)];
        term_rebuilder::insert(term, term_offset as usize, datagram)?;
        self.propose_hwm(proposed_position);
        Ok(InsertOutcome::Accepted)
    }

    #[inline]
    fn propose_hwm(&self, position: i64) {
        // Only the receiver writes rcv-hwm, so a plain read of its own value suffices.
        if position > self.rcv_hwm.get() {
            // Release: the conductor's gap scan up to the hwm sees the frames below it.
            self.rcv_hwm.set_release(position);
        }
    }

    /// Sends `frame` to every connection (`only_alive`: heard from within 5 s) through its
    /// destination's transport; returns how many went out.
    fn send_to_connections(
        &self,
        frame: &[u8],
        transports: &impl DestinationTransports,
        now_ns: i64,
        only_alive: bool,
    ) -> Result<usize> {
        let mut sent = 0;
        for connection in &self.connections {
            if only_alive && !connection.is_alive(now_ns) {
                continue;
            }
            let Some(transport) = transports.transport_for(connection.destination_id) else { continue };
            send_counted(transport, frame, connection.control_address, &self.counters)?;
            sent += 1;
        }
        Ok(sent)
    }

    /// Rejects the image: no more data is accepted, and the sender gets ERR frames with
    /// `reason` (cut at a NUL and to 1023 bytes, as the C driver's text) instead of status
    /// messages. A second rejection keeps the first reason.
    pub fn reject(&mut self, mut reason: Vec<u8>) {
        if self.rejection_reason.is_none() {
            let end =
                reason.iter().position(|&b| b == 0).unwrap_or(reason.len()).min(MAX_ERROR_MESSAGE_LENGTH);
            reason.truncate(end);
            self.rejection_reason = Some(reason);
        }
    }

    pub fn is_rejected(&self) -> bool {
        self.rejection_reason.is_some()
    }

    /// Sends the status message the conductor scheduled, or repeats the last one when the
    /// SM timeout passed; for a rejected image, an ERR frame each SM timeout instead.
    /// Returns how many were sent.
    pub fn send_pending_status_message(
        &mut self,
        now_ns: i64,
        transports: &impl DestinationTransports,
        receiver_id: i64,
        group_tag: Option<i64>,
    ) -> Result<usize> {
        let change_number = self.status.status_message_change_number();
        let has_sm_timed_out = self.next_sm_deadline_ns < now_ns;
        if let Some(reason) = &self.rejection_reason {
            if !has_sm_timed_out {
                return Ok(0);
            }
            // Sent whether or not the sender was heard from lately, as Aeron does.
            self.next_sm_deadline_ns = now_ns + self.config.sm_timeout_ns;
            let frame = ErrorFrame::new(
                self.config.session_id,
                self.config.stream_id,
                receiver_id,
                group_tag,
                AeronErrorCode::ImageRejected as i32,
                reason,
            );
            let mut buffer = [0u8; MAX_ERROR_FRAME_LENGTH];
            let length = frame.encode(&mut buffer)?;
            for connection in &self.connections {
                let Some(transport) = transports.transport_for(connection.destination_id) else { continue };
                if transport.send_to(&buffer[..length], connection.control_address)? < length {
                    self.counters.increment(SystemCounterId::ShortSends);
                } else {
                    self.counters.increment(SystemCounterId::ErrorFramesSent);
                }
            }
            return Ok(1);
        }
        let mut announced = 0;
        if has_sm_timed_out && let Some(response_session_id) = self.status.response_session_id() {
            let frame =
                ResponseSetup::new(self.config.session_id, self.config.stream_id, response_session_id);
            let mut buffer = [0u8; RSP_SETUP_HEADER_LENGTH];
            frame.encode(&mut buffer)?;
            announced = self.send_to_connections(&buffer, transports, now_ns, true)?;
        }
        if change_number == self.last_sm_change_number && !has_sm_timed_out {
            return Ok(announced);
        }
        let Some(sm) = self.status.scheduled_status_message() else { return Ok(announced) };
        let bits = self.position_bits_to_shift;
        let eos = self.status.is_sending_eos_sm.load(Ordering::Acquire);
        let sent = {
            let frame = StatusMessage {
                flags: if eos { SM_EOS_FLAG } else { 0 },
                session_id: self.config.session_id,
                stream_id: self.config.stream_id,
                consumption_term_id: log::compute_term_id_from_position(
                    sm.position,
                    bits,
                    self.config.initial_term_id,
                ),
                consumption_term_offset: (sm.position & (self.term_length - 1)) as i32,
                receiver_window: sm.window_length,
                receiver_id,
                group_tag,
            };
            let mut buffer = [0u8; SM_HEADER_LENGTH_WITH_GROUP_TAG];
            let length = frame.encode(&mut buffer)?;
            let sent = self.send_to_connections(&buffer[..length], transports, now_ns, true)?;
            self.counters.add(SystemCounterId::StatusMessagesSent, sent as i64);
            sent
        };
        self.last_sm_position = sm.position;
        self.last_overrun_threshold = sm.position + self.term_length / 2;
        self.last_sm_change_number = sm.change_number;
        self.next_sm_deadline_ns = now_ns + self.config.sm_timeout_ns;
        let liveness = self.config.liveness_timeout_ns;
        let active =
            self.connections.iter().filter(|c| now_ns < c.time_of_last_frame_ns + liveness).count() as i32;
        if active != log::active_transport_count(&self.metadata) {
            log::set_active_transport_count(&self.metadata, active);
        }
        Ok(sent + announced)
    }

    /// NAKs (reliable, to every live connection) or pads (unreliable) the gap the
    /// conductor reported, once.
    pub fn send_pending_loss(
        &mut self,
        now_ns: i64,
        transports: &impl DestinationTransports,
    ) -> Result<usize> {
        let Some(loss) = self.status.pending_loss(self.last_loss_change_number) else { return Ok(0) };
        self.last_loss_change_number = loss.change_number;
        if !self.config.is_reliable {
            let term = &self.terms[log::index_by_term(self.config.initial_term_id, loss.term_id)];
            let (offset, length) = (loss.term_offset.max(0) as usize, loss.length.max(0) as usize);
            if try_fill_gap(&self.default_header, term, loss.term_id, offset, length) {
                self.counters.increment(SystemCounterId::LossGapFills);
            }
            return Ok(1);
        }
        let nak = Nak::new(
            self.config.session_id,
            self.config.stream_id,
            loss.term_id,
            loss.term_offset,
            loss.length,
        );
        let mut buffer = [0u8; NAK_HEADER_LENGTH];
        nak.encode(&mut buffer)?;
        let sent = self.send_to_connections(&buffer, transports, now_ns, true)?;
        self.counters.add(SystemCounterId::NakMessagesSent, sent as i64);
        Ok(sent)
    }

    /// Sends an RTT measurement request if congestion control asked for one.
    pub fn initiate_rttm(
        &mut self,
        now_ns: i64,
        transports: &impl DestinationTransports,
        receiver_id: i64,
    ) -> Result<usize> {
        if !self.status.rttm_requested.swap(false, Ordering::AcqRel) {
            return Ok(0);
        }
        let request = Rttm::request(self.config.session_id, self.config.stream_id, now_ns, receiver_id);
        let mut buffer = [0u8; RTTM_HEADER_LENGTH];
        request.encode(&mut buffer)?;
        self.send_to_connections(&buffer, transports, now_ns, true)
    }

    /// An RTT measurement reply: the sample goes to the conductor's congestion control.
    pub fn on_rttm_reply(&mut self, echo_timestamp_ns: i64, reception_delta_ns: i64, now_ns: i64) {
        let rtt = now_ns - echo_timestamp_ns - reception_delta_ns;
        if rtt >= 0 {
            // Release: the conductor takes it with an acquiring swap.
            self.status.rtt_sample_ns.store(rtt, Ordering::Release);
        }
    }

    /// Where the first connection is answered (the image's original source).
    pub fn control_address(&self) -> SocketAddr {
        self.connections.first().map_or(self.config.source.control_address, |c| c.control_address)
    }
}

/// Sends `frame` to `address`; a short send is counted.
fn send_counted(
    transport: &UdpTransport,
    frame: &[u8],
    address: SocketAddr,
    counters: &SystemCounters,
) -> Result<()> {
    if transport.send_to(frame, address)? < frame.len() {
        counters.increment(SystemCounterId::ShortSends);
    }
    Ok(())
}

#[cfg(test)]
#[path = "publication_image_tests.rs"]
mod tests;
