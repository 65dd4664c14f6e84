//! The conductor's half of a network publication (`spec/driver.md` §4.2, §5.1,
//! `spec/log-buffer.md` §7, §9, Aeron C `aeron_network_publication.c` conductor fields):
//! the publisher limit (sender position or slowest spy plus the window, while receivers are
//! connected), cleaning behind it, spies, blocked-publisher detection, and the life cycle
//! ACTIVE → DRAINING → LINGER → DONE. The sender keeps the other half
//! (`driver::network_publication`).
#![forbid(unsafe_code)]

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::concurrent::counters::CountersManager;
use crate::driver::conductor::end_of_life::LogOwner;
use crate::driver::conductor::ipc_publication::{IPC_CHANNEL, PublicationState};
use crate::driver::conductor::log_cleaner::clean_log_to;
use crate::driver::conductor::params::PublicationParams;
use crate::driver::conductor::subscriber_positions::{
    SourceStream, StreamSource, Subscriber, SubscriberPositions, TetherEvent, UntetheredTimeouts,
};
use crate::driver::network_publication::NetworkPublicationStatus;
use crate::driver::position_counters::{Position, free_counter};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::logbuffer::term_unblocker::unblock_log;

/// The counters a network publication owns.
#[derive(Debug, Clone)]
pub struct NetworkPublicationCounters {
    pub pub_pos: Position,
    pub pub_lmt: Position,
    pub snd_pos: Position,
    pub snd_lmt: Position,
    pub snd_bpe: Position,
    /// `fc-receivers` of a min or tagged flow-controlled publication.
    pub fc_receivers: Option<Position>,
}

impl NetworkPublicationCounters {
    /// Every counter, in allocation order.
    pub fn all(&self) -> impl Iterator<Item = &Position> {
        [&self.pub_pos, &self.pub_lmt, &self.snd_pos, &self.snd_lmt, &self.snd_bpe]
            .into_iter()
            .chain(self.fc_receivers.as_ref())
    }
}

/// Identity of a network publication.
#[derive(Debug, Clone)]
pub struct NetworkPublicationIdentity {
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub endpoint_id: i64,
    pub channel: String,
    pub is_exclusive: bool,
    pub initial_term_id: i32,
}

/// What clients must be told after a timer tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkPublicationEvent {
    Tether(TetherEvent),
    /// Spies consumed everything: each gets ON_UNAVAILABLE_IMAGE and is unlinked.
    SpiesFinished,
    /// Lingered long enough: tell the sender to stop.
    Cleanup,
}

#[derive(Debug)]
pub struct NetworkPublicationEntry {
    pub identity: NetworkPublicationIdentity,
    pub params: PublicationParams,
    pub log: LogBuffers,
    pub log_file_name: String,
    pub counters: NetworkPublicationCounters,
    pub status: Arc<NetworkPublicationStatus>,
    pub spies: SubscriberPositions,
    pub state: PublicationState,
    pub ref_count: i32,
    /// The sender let go of its half (after cleanup): the log may be freed.
    pub sender_released: bool,
    position_bits_to_shift: u32,
    term_window_length: i64,
    clean_position: i64,
    last_snd_pos: i64,
    time_of_last_activity_ns: i64,
    unblock_timeout_ns: i64,
    starting_term_id: i32,
    starting_term_offset: i32,
}

impl NetworkPublicationEntry {
    #[allow(clippy::too_many_arguments)] // the parts the conductor built the publication from
    pub fn new(
        identity: NetworkPublicationIdentity,
        params: PublicationParams,
        log: LogBuffers,
        log_file_name: String,
        counters: NetworkPublicationCounters,
        status: Arc<NetworkPublicationStatus>,
        unblock_timeout_ns: u64,
        now_ns: i64,
    ) -> Self {
        let snd_pos = counters.snd_pos.get();
        let (starting_term_id, starting_term_offset) = match params.position {
            Some(p) => (p.term_id, p.term_offset),
            None => (identity.initial_term_id, 0),
        };
        Self {
            position_bits_to_shift: log::position_bits_to_shift(log.term_length()),
            term_window_length: params.publication_window_length as i64,
            clean_position: snd_pos,
            last_snd_pos: snd_pos,
            time_of_last_activity_ns: now_ns,
            unblock_timeout_ns: i64::try_from(unblock_timeout_ns).unwrap_or(i64::MAX),
            starting_term_id,
            starting_term_offset,
            identity,
            params,
            log,
            log_file_name,
            counters,
            status,
            spies: SubscriberPositions::default(),
            state: PublicationState::Active,
            ref_count: 1,
            sender_released: false,
        }
    }

    #[inline]
    pub fn registration_id(&self) -> i64 {
        self.identity.registration_id
    }

    #[inline]
    pub fn session_id(&self) -> i32 {
        self.identity.session_id
    }

    #[inline]
    pub fn stream_id(&self) -> i32 {
        self.identity.stream_id
    }

    pub fn starting_term_id(&self) -> i32 {
        self.starting_term_id
    }

    pub fn starting_term_offset(&self) -> i32 {
        self.starting_term_offset
    }

    /// Where publishers have got to.
    pub fn producer_position(&self) -> i64 {
        let metadata = self.log.metadata();
        let term_count = log::active_term_count(metadata);
        let raw_tail = log::raw_tail_volatile(metadata, log::index_by_term_count(i64::from(term_count)));
        log::compute_position(
            log::term_id(raw_tail),
            log::term_offset(raw_tail, self.log.term_length()),
            self.position_bits_to_shift,
            self.identity.initial_term_id,
        )
    }

    /// Spies join at the sender position.
    pub fn join_position(&self) -> i64 {
        self.counters.snd_pos.get_acquire()
    }

    /// New spies may link while active, or while draining with data still to send.
    pub fn is_accepting_subscriptions(&self) -> bool {
        self.state == PublicationState::Active
            || (self.state == PublicationState::Draining
                && self.spies.has_working_positions()
                && self.producer_position() > self.counters.snd_pos.get_acquire())
    }

    fn has_required_receivers(&self) -> bool {
        self.status.has_required_receivers.load(Ordering::Acquire)
    }

    fn is_connected_now(&self) -> bool {
        self.has_required_receivers()
            || (self.params.spies_simulate_connection && self.spies.has_working_positions())
    }

    /// Duty-cycle work: sample the producer position; while connected move the limit to
    /// the slowest of sender and spies plus the window (cleaning a term behind); else pull
    /// it back to the sender position. Keeps the spies' furthest position for the sender.
    pub fn update_pub_pos_and_lmt(&mut self) -> i32 {
        if self.state != PublicationState::Active {
            return 0;
        }
        let producer = self.producer_position();
        let snd_pos = self.counters.snd_pos.get_acquire();
        self.counters.pub_pos.set_release(producer);
        let (min_spy, max_spy) = self.spies.min_max(snd_pos, snd_pos);
        if self.spies.has_working_positions() {
            // Release: the sender reading it sees the spies' progress it reflects.
            self.status.max_spy_position.store(max_spy, Ordering::Release);
        }
        let term_length = self.log.term_length() as i64;
        if self.is_connected_now() {
            let proposed = min_spy + self.term_window_length;
            if proposed > self.counters.pub_lmt.get() {
                self.clean_position = clean_log_to(&self.log, self.clean_position, min_spy - term_length);
                // Release: a publisher seeing the new limit also sees the cleaned space.
                self.counters.pub_lmt.set_release(proposed);
                return 1;
            }
        } else if self.counters.pub_lmt.get() > snd_pos {
            self.counters.pub_lmt.set_release(snd_pos);
            self.clean_position = clean_log_to(&self.log, self.clean_position, snd_pos - term_length);
            return 1;
        }
        0
    }

    pub fn incref(&mut self) {
        self.ref_count += 1;
    }

    /// The last client reference gone: the stream ends at the producer position.
    pub fn decref(&mut self, now_ns: i64) {
        self.ref_count -= 1;
        if self.ref_count == 0 {
            let producer = self.producer_position();
            self.state = PublicationState::Draining;
            self.time_of_last_activity_ns = now_ns;
            self.counters.pub_lmt.set_release(producer);
            // Release: subscribers acquiring it see everything up to the position.
            log::set_end_of_stream_position(self.log.metadata(), producer);
            if self.counters.snd_pos.get_acquire() >= producer {
                self.status.is_end_of_stream.store(true, Ordering::Release);
            }
        }
    }

    /// Timer tick (`spec/driver.md` §4.2). `unblocked` counts unblocked publications.
    pub fn on_time_event(
        &mut self,
        now_ns: i64,
        unblocked: &Position,
        mut on_event: impl FnMut(&Self, NetworkPublicationEvent),
    ) {
        match self.state {
            PublicationState::Active => {
                let snd_pos = self.counters.snd_pos.get_acquire();
                let window = self.term_window_length;
                let limit = (snd_pos - window) + window / 4;
                let timeouts = UntetheredTimeouts {
                    window_limit_ns: self.params.untethered_window_limit_timeout_ns as i64,
                    resting_ns: self.params.untethered_resting_timeout_ns as i64,
                };
                let mut events = [None; 4];
                let mut n = 0;
                self.spies.check_untethered(now_ns, limit, snd_pos, timeouts, |e| {
                    if n < events.len() {
                        events[n] = Some(e);
                        n += 1;
                    }
                });
                for e in events.into_iter().flatten() {
                    on_event(self, NetworkPublicationEvent::Tether(e));
                }
                let connected = self.is_connected_now();
                self.status.update_connected(self.log.metadata(), connected);
                let producer = self.producer_position();
                self.counters.pub_pos.set_release(producer);
                if !self.identity.is_exclusive {
                    self.check_for_blocked_publisher(now_ns, producer, snd_pos, unblocked);
                }
            }
            PublicationState::Draining => {
                let producer = self.producer_position();
                self.counters.pub_pos.set_release(producer);
                let snd_pos = self.counters.snd_pos.get_acquire();
                if producer > snd_pos {
                    if unblock_log(&self.log, snd_pos) {
                        unblocked.add(1);
                        return;
                    }
                    if self.status.has_receivers.load(Ordering::Acquire) {
                        return;
                    }
                } else {
                    // Release: the sender starts EOS heartbeats.
                    self.status.is_end_of_stream.store(true, Ordering::Release);
                }
                let (min_spy, _) = self.spies.min_max(i64::MAX, 0);
                if self.spies.has_working_positions() && min_spy < producer {
                    return;
                }
                if !self.spies.is_empty() {
                    self.status.has_spies.store(false, Ordering::Release);
                    on_event(self, NetworkPublicationEvent::SpiesFinished);
                }
                self.time_of_last_activity_ns = now_ns;
                self.state = PublicationState::Linger;
            }
            PublicationState::Linger => {
                if self.status.has_received_unicast_eos.load(Ordering::Acquire)
                    || now_ns > self.time_of_last_activity_ns + self.params.linger_timeout_ns as i64
                {
                    on_event(self, NetworkPublicationEvent::Cleanup);
                    self.state = PublicationState::Done;
                }
            }
            PublicationState::Done => {}
        }
    }

    fn check_for_blocked_publisher(
        &mut self,
        now_ns: i64,
        producer: i64,
        snd_pos: i64,
        unblocked: &Position,
    ) {
        let possibly_blocked = log::active_term_count(self.log.metadata())
            != (snd_pos >> self.position_bits_to_shift) as i32
            || producer > snd_pos;
        if snd_pos == self.last_snd_pos && possibly_blocked {
            if now_ns > self.time_of_last_activity_ns + self.unblock_timeout_ns
                && unblock_log(&self.log, snd_pos)
            {
                unblocked.add(1);
            }
        } else {
            self.time_of_last_activity_ns = now_ns;
            self.last_snd_pos = snd_pos;
        }
    }

    /// The channel clients see for spies of this publication.
    pub fn spy_source_identity(&self) -> &'static str {
        IPC_CHANNEL
    }
}

/// What a spy reads.
impl StreamSource for NetworkPublicationEntry {
    fn stream(&self) -> SourceStream<'_> {
        SourceStream {
            registration_id: self.identity.registration_id,
            session_id: self.identity.session_id,
            stream_id: self.identity.stream_id,
            join_position: self.join_position(),
            log_file_name: &self.log_file_name,
            source_identity: self.spy_source_identity(),
        }
    }

    fn add_subscriber_position(&mut self, subscriber: &Subscriber<'_>, position: Position, now_ns: i64) {
        self.spies.add(subscriber.registration_id, position, subscriber.is_tether, now_ns);
        // Release: the sender reading the flag sees the spy's position in place.
        self.status.has_spies.store(true, Ordering::Release);
    }
}

impl LogOwner for NetworkPublicationEntry {
    /// Every counter the publication and its spies own.
    fn free_counters(&mut self, counters: &mut CountersManager, now_ms: i64) {
        for p in self.counters.all() {
            free_counter(counters, p.counter_id(), now_ms);
        }
        self.spies.free_all(counters, now_ms);
    }

    fn into_log(self) -> (String, LogBuffers) {
        (self.log_file_name, self.log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::driver::context::DriverContext;

    const TERM: usize = 65536;
    const MS: i64 = 1_000_000;

    fn entry(values: &AtomicBuffer) -> NetworkPublicationEntry {
        let ctx = DriverContext { term_buffer_length: TERM, ..DriverContext::default() };
        let mut params = PublicationParams::for_network(&ctx, 1001, |_| None, |_| None).unwrap();
        params.linger_timeout_ns = 1_000 * MS as u64;
        let log = LogBuffers::alloc(TERM, 4096).unwrap();
        log::initialise_tails(log.metadata(), 100, 100, 0).unwrap();
        let identity = NetworkPublicationIdentity {
            registration_id: 2,
            session_id: 7,
            stream_id: 1001,
            endpoint_id: 2,
            channel: "aeron:udp?endpoint=127.0.0.1:20121".to_string(),
            is_exclusive: false,
            initial_term_id: 100,
        };
        let counters = NetworkPublicationCounters {
            pub_pos: Position::new(values, 0),
            pub_lmt: Position::new(values, 1),
            snd_pos: Position::new(values, 2),
            snd_lmt: Position::new(values, 3),
            snd_bpe: Position::new(values, 4),
            fc_receivers: None,
        };
        let status = Arc::new(NetworkPublicationStatus::default());
        NetworkPublicationEntry::new(
            identity,
            params,
            log,
            "x".to_string(),
            counters,
            status,
            15_000 * MS as u64,
            0,
        )
    }

    #[test]
    fn publisher_limit_follows_the_sender_while_receivers_are_connected() {
        let values = AtomicBuffer::alloc(8 * 128);
        let mut p = entry(&values);
        assert_eq!(p.update_pub_pos_and_lmt(), 0, "not connected: the limit stays at 0");
        assert_eq!(values.get_i64(128), 0);
        p.status.has_required_receivers.store(true, Ordering::Release);
        assert_eq!(p.update_pub_pos_and_lmt(), 1);
        assert_eq!(values.get_i64(128), TERM as i64 / 2, "snd-pos + term window");
        values.put_i64(2 * 128, 4096);
        p.log.metadata().put_i64(0, log::pack_tail(100, 4096));
        p.update_pub_pos_and_lmt();
        assert_eq!((values.get_i64(0), values.get_i64(128)), (4096, 4096 + TERM as i64 / 2));
        // Receivers gone: the limit is pulled back to what was sent.
        p.status.has_required_receivers.store(false, Ordering::Release);
        p.update_pub_pos_and_lmt();
        assert_eq!(values.get_i64(128), 4096);
    }

    #[test]
    fn closing_drains_to_end_of_stream_then_lingers_then_cleans_up() {
        let values = AtomicBuffer::alloc(8 * 128);
        let mut p = entry(&values);
        p.log.metadata().put_i64(0, log::pack_tail(100, 1024));
        p.decref(10 * MS);
        assert_eq!(p.state, PublicationState::Draining);
        assert_eq!(log::end_of_stream_position(p.log.metadata()), 1024);
        assert_eq!(values.get_i64(128), 1024, "limit at the producer position");
        assert!(!p.status.is_end_of_stream.load(Ordering::Acquire), "not all sent yet");
        let unblocked = Position::new(&values, 7);
        let mut events = Vec::new();
        p.status.has_receivers.store(true, Ordering::Release);
        p.on_time_event(20 * MS, &unblocked, |_, e| events.push(e));
        assert_eq!(p.state, PublicationState::Draining, "receivers still taking data");
        values.put_i64(2 * 128, 1024);
        p.on_time_event(30 * MS, &unblocked, |_, e| events.push(e));
        assert!(p.status.is_end_of_stream.load(Ordering::Acquire), "all sent: EOS heartbeats");
        assert_eq!(p.state, PublicationState::Linger);
        p.on_time_event(500 * MS, &unblocked, |_, e| events.push(e));
        assert!(events.is_empty(), "lingering for the 1 s linger timeout");
        p.on_time_event(1_031 * MS, &unblocked, |_, e| events.push(e));
        assert_eq!(
            (p.state, events.as_slice()),
            (PublicationState::Done, &[NetworkPublicationEvent::Cleanup][..])
        );
    }

    #[test]
    fn an_eos_status_message_ends_the_linger_early() {
        let values = AtomicBuffer::alloc(8 * 128);
        let mut p = entry(&values);
        p.decref(0);
        let unblocked = Position::new(&values, 7);
        p.on_time_event(MS, &unblocked, |_, _| {});
        assert_eq!(p.state, PublicationState::Linger);
        p.status.has_received_unicast_eos.store(true, Ordering::Release);
        let mut events = Vec::new();
        p.on_time_event(2 * MS, &unblocked, |_, e| events.push(e));
        assert_eq!(events, vec![NetworkPublicationEvent::Cleanup]);
    }
}
