//! An IPC publication as the driver conductor sees it (`spec/driver.md` §4.1,
//! `spec/log-buffer.md` §7, §9, §10): the log file it created, the publisher-limit and
//! sampled-position counters it maintains, the subscriber positions that hold it back,
//! and its ACTIVE → DRAINING → LINGER → DONE life.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::driver::conductor::client_proxy::ClientProxy;
use crate::driver::conductor::end_of_life::LogOwner;
use crate::driver::conductor::params::PublicationParams;
use crate::driver::conductor::subscriber_positions::{SourceStream, StreamSource, Subscriber};
use crate::driver::position_counters::{Position, free_counter};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::logbuffer::term_unblocker::unblock_log;

/// The channel IPC images and their notifications carry.
pub const IPC_CHANNEL: &str = "aeron:ipc";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicationState {
    Active,
    Draining,
    Linger,
    Done,
}

/// Whether a subscriber's position currently counts (`spec/driver.md` §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TetherState {
    Active,
    Linger,
    Resting,
}

/// One subscription's position on this publication.
#[derive(Debug)]
pub struct SubscriberPosition {
    pub subscription_registration_id: i64,
    pub position: Position,
    pub is_tether: bool,
    pub state: TetherState,
    pub time_of_last_update_ns: i64,
}

/// Identity and geometry of a publication, fixed at creation.
#[derive(Debug, Clone)]
pub struct IpcPublicationConfig {
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub channel: String,
    pub is_exclusive: bool,
    pub initial_term_id: i32,
    pub params: PublicationParams,
    pub unblock_timeout_ns: i64,
}

#[derive(Debug)]
pub struct IpcPublication {
    pub config: IpcPublicationConfig,
    pub log: LogBuffers,
    pub log_file_name: String,
    pub pub_pos: Position,
    pub pub_lmt: Position,
    pub subscribers: Vec<SubscriberPosition>,
    pub state: PublicationState,
    pub ref_count: i32,
    starting_term_id: i32,
    starting_term_offset: i32,
    position_bits_to_shift: u32,
    term_window_length: i64,
    trip_gain: i64,
    trip_limit: i64,
    consumer_position: i64,
    last_consumer_position: i64,
    clean_position: i64,
    time_of_last_consumer_position_change_ns: i64,
    resting_count: usize,
    reached_end_of_life: bool,
}

impl IpcPublication {
    /// Wraps a log whose metadata is already initialised (`log_file::create_publication_log`)
    /// and the counters allocated for it; one reference (the creating client's).
    pub fn new(
        config: IpcPublicationConfig,
        log: LogBuffers,
        log_file_name: String,
        pub_pos: Position,
        pub_lmt: Position,
        now_ns: i64,
    ) -> Self {
        let term_length = log.term_length();
        let (starting_term_id, starting_term_offset) = match config.params.position {
            Some(p) => (p.term_id, p.term_offset),
            None => (config.initial_term_id, 0),
        };
        let term_window_length = config.params.publication_window_length as i64;
        let mut publication = Self {
            log,
            log_file_name,
            pub_pos,
            pub_lmt,
            subscribers: Vec::new(),
            state: PublicationState::Active,
            ref_count: 1,
            starting_term_id,
            starting_term_offset,
            position_bits_to_shift: log::position_bits_to_shift(term_length),
            term_window_length,
            trip_gain: term_window_length / 8,
            trip_limit: 0,
            consumer_position: 0,
            last_consumer_position: 0,
            clean_position: 0,
            time_of_last_consumer_position_change_ns: now_ns,
            resting_count: 0,
            reached_end_of_life: false,
            config,
        };
        let producer = publication.producer_position();
        publication.consumer_position = producer;
        publication.last_consumer_position = producer;
        publication.clean_position = producer;
        publication
    }

    #[inline]
    pub fn registration_id(&self) -> i64 {
        self.config.registration_id
    }

    #[inline]
    pub fn session_id(&self) -> i32 {
        self.config.session_id
    }

    #[inline]
    pub fn stream_id(&self) -> i32 {
        self.config.stream_id
    }

    pub fn is_exclusive(&self) -> bool {
        self.config.is_exclusive
    }

    pub fn starting_term_id(&self) -> i32 {
        self.starting_term_id
    }

    pub fn starting_term_offset(&self) -> i32 {
        self.starting_term_offset
    }

    pub fn has_reached_end_of_life(&self) -> bool {
        self.reached_end_of_life
    }

    /// Where publishers have got to: the active partition's tail as a position.
    #[inline]
    pub fn producer_position(&self) -> i64 {
        let metadata = self.log.metadata();
        let term_count = log::active_term_count(metadata);
        let raw_tail = log::raw_tail_volatile(metadata, log::index_by_term_count(term_count as i64));
        log::compute_position(
            log::term_id(raw_tail),
            log::term_offset(raw_tail, self.log.term_length()),
            self.position_bits_to_shift,
            self.config.initial_term_id,
        )
    }

    /// Position a new subscriber starts at: the slowest counting subscriber, or where the
    /// conductor last saw consumption (the producer position when there is none).
    pub fn join_position(&self) -> i64 {
        self.subscribers
            .iter()
            .filter(|s| s.state != TetherState::Resting)
            .map(|s| s.position.get_acquire())
            .fold(self.consumer_position, i64::min)
    }

    /// Every counting subscriber has consumed everything published.
    pub fn is_drained(&self) -> bool {
        let producer = self.producer_position();
        self.subscribers
            .iter()
            .filter(|s| s.state != TetherState::Resting)
            .all(|s| s.position.get_acquire() >= producer)
    }

    /// New subscriptions may link while active, or while draining with data left to read.
    pub fn is_accepting_subscriptions(&self) -> bool {
        self.state == PublicationState::Active
            || (self.state == PublicationState::Draining && !self.is_drained())
    }

    pub fn is_linked(&self, subscription_registration_id: i64) -> bool {
        self.subscribers.iter().any(|s| s.subscription_registration_id == subscription_registration_id)
    }

    /// Links a subscriber whose counter is already set to its join position; the first one
    /// makes the publication connected.
    pub fn add_subscriber(
        &mut self,
        subscription_registration_id: i64,
        position: Position,
        is_tether: bool,
        now_ns: i64,
    ) {
        self.subscribers.push(SubscriberPosition {
            subscription_registration_id,
            position,
            is_tether,
            state: TetherState::Active,
            time_of_last_update_ns: now_ns,
        });
        // Release: publishers acquiring is_connected see the subscriber's counter in place.
        log::set_is_connected(self.log.metadata(), true);
    }

    /// Unlinks a subscription and returns its position counter for the caller to free. The
    /// limit is brought up to date first (with the leaving subscriber still counted, as Aeron
    /// does); the last one leaving makes the publication disconnected.
    pub fn remove_subscriber(&mut self, subscription_registration_id: i64) -> Option<Position> {
        let index = self
            .subscribers
            .iter()
            .position(|s| s.subscription_registration_id == subscription_registration_id)?;
        self.update_pub_pos_and_lmt();
        if self.subscribers.len() == 1 {
            log::set_is_connected(self.log.metadata(), false);
        }
        let removed = self.subscribers.swap_remove(index);
        if removed.state == TetherState::Resting {
            self.resting_count -= 1;
        }
        Some(removed.position)
    }

    /// Another client handle on the same (non-exclusive) publication.
    pub fn incref(&mut self) {
        self.ref_count += 1;
    }

    /// Drops a client handle; the last one ends the stream at the producer position and
    /// starts draining.
    pub fn decref(&mut self) {
        self.ref_count -= 1;
        if self.ref_count == 0 {
            let producer = self.producer_position();
            if self.pub_lmt.get() > producer {
                self.pub_lmt.set_release(producer);
            }
            // Release: subscribers acquiring the end-of-stream position see the final data.
            log::set_end_of_stream_position(self.log.metadata(), producer);
            self.state = PublicationState::Draining;
        }
    }

    /// Duty-cycle work (`spec/log-buffer.md` §7): sample the producer position and move the
    /// limit up to the slowest subscriber plus the window, cleaning behind it. Returns 1 when
    /// the limit moved. Allocation-free.
    pub fn update_pub_pos_and_lmt(&mut self) -> i32 {
        if self.state != PublicationState::Active {
            return 0;
        }
        let producer = self.producer_position();
        self.pub_pos.set_release(producer);
        let mut work = 0;
        if self.resting_count < self.subscribers.len() {
            let mut min_sub = i64::MAX;
            let mut max_sub = self.consumer_position;
            for s in self.subscribers.iter().filter(|s| s.state != TetherState::Resting) {
                let p = s.position.get_acquire();
                min_sub = min_sub.min(p);
                max_sub = max_sub.max(p);
            }
            let proposed_limit = min_sub + self.term_window_length;
            if proposed_limit > self.trip_limit {
                self.clean_buffer(min_sub);
                // Release: a publisher seeing the new limit also sees the cleaned space.
                self.pub_lmt.set_release(proposed_limit);
                self.trip_limit = proposed_limit + self.trip_gain;
                work = 1;
            }
            self.consumer_position = max_sub;
        } else if self.pub_lmt.get() > self.consumer_position {
            self.pub_lmt.set_release(self.consumer_position);
            self.trip_limit = self.consumer_position;
            self.clean_buffer(self.consumer_position);
        }
        work
    }

    /// Zeroes consumed log space up to `position`, at most to the end of the current term
    /// per call (`spec/log-buffer.md` §9): the body first, then the first 8 bytes with
    /// release, so a reader never sees a zero length in front of stale bytes.
    fn clean_buffer(&mut self, position: i64) {
        let clean = self.clean_position;
        if position <= clean {
            return;
        }
        let term_length = self.log.term_length();
        let index = log::index_by_position(clean, self.position_bits_to_shift);
        let term_offset = (clean & (term_length as i64 - 1)) as usize;
        let length = ((position - clean) as usize).min(term_length - term_offset);
        let term = self.log.term(index);
        if length > 8 {
            term.fill_bytes(term_offset + 8, length - 8, 0);
        }
        term.put_i64_release(term_offset, 0);
        self.clean_position = clean + length as i64;
    }

    /// Timer tick (`spec/driver.md` §4.1).
    pub fn on_time_event(&mut self, now_ns: i64, proxy: &mut ClientProxy, unblocked: &Position) {
        match self.state {
            PublicationState::Active => {
                let producer = self.producer_position();
                self.pub_pos.set_release(producer);
                if !self.config.is_exclusive {
                    self.check_for_blocked_publisher(producer, now_ns, unblocked);
                }
                self.check_untethered_subscriptions(now_ns, proxy);
            }
            PublicationState::Draining => {
                let producer = self.producer_position();
                self.pub_pos.set_release(producer);
                if self.is_drained() {
                    self.state = PublicationState::Linger;
                    for s in &self.subscribers {
                        proxy.on_unavailable_image(
                            self.config.registration_id,
                            s.subscription_registration_id,
                            self.config.stream_id,
                            IPC_CHANNEL,
                        );
                    }
                } else if unblock_log(&self.log, self.consumer_position) {
                    unblocked.add(1);
                }
            }
            PublicationState::Linger => {
                self.reached_end_of_life = true;
                self.state = PublicationState::Done;
            }
            PublicationState::Done => {}
        }
    }

    fn is_possibly_blocked(&self, producer: i64, consumer: i64) -> bool {
        let producer_term_count = log::active_term_count(self.log.metadata());
        let expected_term_count = (consumer >> self.position_bits_to_shift) as i32;
        producer_term_count != expected_term_count || producer > consumer
    }

    /// A publisher that died between claiming and committing stops every consumer at its
    /// frame; after the unblock timeout the frame is padded over (`spec/log-buffer.md` §10).
    fn check_for_blocked_publisher(&mut self, producer: i64, now_ns: i64, unblocked: &Position) {
        let consumer = self.consumer_position;
        if consumer == self.last_consumer_position && self.is_possibly_blocked(producer, consumer) {
            if now_ns > self.time_of_last_consumer_position_change_ns + self.config.unblock_timeout_ns
                && unblock_log(&self.log, consumer)
            {
                unblocked.add(1);
            }
        } else {
            self.time_of_last_consumer_position_change_ns = now_ns;
            self.last_consumer_position = consumer;
        }
    }

    fn set_tether_state(&mut self, index: usize, state: TetherState, now_ns: i64) {
        let s = &mut self.subscribers[index];
        if s.state != state {
            if state == TetherState::Resting {
                self.resting_count += 1;
            } else if s.state == TetherState::Resting {
                self.resting_count -= 1;
            }
        }
        s.state = state;
        s.time_of_last_update_ns = now_ns;
    }

    /// Untethered subscribers that fall too far behind are parked, then rejoined at the
    /// current join position (`spec/channel-uri.md` §4).
    fn check_untethered_subscriptions(&mut self, now_ns: i64, proxy: &mut ClientProxy) {
        let window = self.term_window_length;
        let untethered_window_limit = (self.consumer_position - window) + window / 4;
        let window_limit_timeout = self.config.params.untethered_window_limit_timeout_ns as i64;
        let resting_timeout = self.config.params.untethered_resting_timeout_ns as i64;
        for i in 0..self.subscribers.len() {
            let s = &mut self.subscribers[i];
            if s.is_tether {
                s.time_of_last_update_ns = now_ns;
                continue;
            }
            match s.state {
                TetherState::Active => {
                    if s.position.get_acquire() > untethered_window_limit {
                        s.time_of_last_update_ns = now_ns;
                    } else if now_ns > s.time_of_last_update_ns + window_limit_timeout {
                        proxy.on_unavailable_image(
                            self.config.registration_id,
                            s.subscription_registration_id,
                            self.config.stream_id,
                            IPC_CHANNEL,
                        );
                        self.set_tether_state(i, TetherState::Linger, now_ns);
                    }
                }
                TetherState::Linger => {
                    if now_ns > s.time_of_last_update_ns + window_limit_timeout {
                        self.set_tether_state(i, TetherState::Resting, now_ns);
                    }
                }
                TetherState::Resting => {
                    if now_ns > s.time_of_last_update_ns + resting_timeout {
                        let join = self.join_position();
                        let s = &self.subscribers[i];
                        s.position.set_release(join);
                        proxy.on_available_image(
                            self.config.registration_id,
                            self.config.session_id,
                            self.config.stream_id,
                            s.subscription_registration_id,
                            s.position.counter_id(),
                            &self.log_file_name,
                            IPC_CHANNEL,
                        );
                        self.set_tether_state(i, TetherState::Active, now_ns);
                    }
                }
            }
        }
    }
}

impl StreamSource for IpcPublication {
    fn stream(&self) -> SourceStream<'_> {
        SourceStream {
            registration_id: self.config.registration_id,
            session_id: self.config.session_id,
            stream_id: self.config.stream_id,
            join_position: self.join_position(),
            log_file_name: &self.log_file_name,
            source_identity: IPC_CHANNEL,
        }
    }

    fn add_subscriber_position(&mut self, subscriber: &Subscriber<'_>, position: Position, now_ns: i64) {
        self.add_subscriber(subscriber.registration_id, position, subscriber.is_tether, now_ns);
    }
}

impl LogOwner for IpcPublication {
    /// The publication's counters and those of its subscribers (end of life or driver
    /// shutdown).
    fn free_counters(&mut self, counters: &mut CountersManager, now_ms: i64) {
        free_counter(counters, self.pub_lmt.counter_id(), now_ms);
        free_counter(counters, self.pub_pos.counter_id(), now_ms);
        for s in self.subscribers.drain(..) {
            free_counter(counters, s.position.counter_id(), now_ms);
        }
        self.resting_count = 0;
    }

    fn into_log(self) -> (String, LogBuffers) {
        (self.log_file_name, self.log)
    }
}

#[cfg(test)]
#[path = "ipc_publication_tests.rs"]
mod tests;
