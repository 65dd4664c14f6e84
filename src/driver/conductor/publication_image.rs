//! The conductor's half of a publication image (`spec/flow-congestion-loss.md` §2.4, §3,
//! `spec/driver.md` §4.3, Aeron C `aeron_publication_image.c` conductor side): every duty
//! cycle it scans the image for gaps up to the high-water mark (the loss detector times
//! the NAKs), moves the rebuild position (`rcv-pos`), asks congestion control for the
//! window and schedules a status message when the subscribers moved a quarter window or
//! the window changed; on timer ticks it runs the life cycle ACTIVE → DRAINING → LINGER →
//! DONE. The receiver keeps the other half (`driver::publication_image`).
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::concurrent::counters::CountersManager;
use crate::driver::conductor::end_of_life::LogOwner;
use crate::driver::conductor::log_cleaner::clean_log_to;
use crate::driver::conductor::subscriber_positions::{
    SourceStream, StreamSource, Subscriber, SubscriberPositions, TetherEvent, UntetheredTimeouts,
};
use crate::driver::congestion::{CongestionControl, RebuildProgress};
use crate::driver::image_status::ImageStatus;
use crate::driver::loss::loss_report::LossEntryOffset;
use crate::driver::loss::{Gap, LossDetector, LossReport, TermGeometry};
use crate::driver::position_counters::{Position, free_counter};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;

/// Draining ends no sooner than this many status-message timeouts after it began, so the
/// sender hears the EOS status messages (Aeron `AERON_IMAGE_SM_EOS_MULTIPLE`).
pub const SM_EOS_MULTIPLE: i64 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageState {
    Active,
    Draining,
    Linger,
    Done,
}

/// Identity of an image and where it came from.
#[derive(Debug, Clone)]
pub struct ImageIdentity {
    pub correlation_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub endpoint_id: i64,
    /// The channel of the subscription that made the image (counters, loss report).
    pub channel: String,
    pub source_address: SocketAddr,
    pub source_identity: String,
    pub initial_term_id: i32,
    /// The flags of the SETUP that made it (SEND_RESPONSE_SETUP, GROUP).
    pub setup_flags: u8,
}

/// Settings an image runs with.
#[derive(Debug, Clone, Copy)]
pub struct ImageSettings {
    pub liveness_timeout_ns: i64,
    pub sm_timeout_ns: i64,
    pub untethered: UntetheredTimeouts,
}

/// What the conductor must act on after a timer tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageEvent {
    Tether(TetherEvent),
    /// Drained: remove from the receiver, tell subscribers the image is gone.
    Linger,
}

pub struct ImageEntry {
    pub identity: ImageIdentity,
    pub settings: ImageSettings,
    pub log: LogBuffers,
    pub log_file_name: String,
    pub rcv_hwm: Position,
    pub rcv_pos: Position,
    /// `rcv-cc-cubic-*` counters, freed with the image.
    pub extra_counters: Vec<Position>,
    pub status: Arc<ImageStatus>,
    pub subscribers: SubscriberPositions,
    pub state: ImageState,
    /// The receiver removed its half: the log may be freed once DONE.
    pub receiver_released: bool,
    loss_detector: LossDetector,
    congestion_control: Box<dyn CongestionControl>,
    loss_entry: Option<LossEntryOffset>,
    loss_report_full: bool,
    geometry: TermGeometry,
    clean_position: i64,
    next_sm_position: i64,
    next_sm_window: i32,
    sm_change_number: i64,
    loss_change_number: i64,
    time_of_last_state_change_ns: i64,
}

impl ImageEntry {
    #[allow(clippy::too_many_arguments)] // the parts the conductor built the image from
    pub fn new(
        identity: ImageIdentity,
        settings: ImageSettings,
        log: LogBuffers,
        log_file_name: String,
        rcv_hwm: Position,
        rcv_pos: Position,
        status: Arc<ImageStatus>,
        loss_detector: LossDetector,
        congestion_control: Box<dyn CongestionControl>,
        initial_position: i64,
        now_ns: i64,
    ) -> Self {
        let geometry = TermGeometry {
            initial_term_id: identity.initial_term_id,
            position_bits_to_shift: log::position_bits_to_shift(log.term_length()),
        };
        let next_sm_window = congestion_control.initial_window_length();
        Self {
            identity,
            settings,
            log,
            log_file_name,
            rcv_hwm,
            rcv_pos,
            extra_counters: Vec::new(),
            status,
            subscribers: SubscriberPositions::default(),
            state: ImageState::Active,
            receiver_released: false,
            loss_detector,
            congestion_control,
            loss_entry: None,
            loss_report_full: false,
            geometry,
            clean_position: initial_position,
            next_sm_position: initial_position,
            next_sm_window,
            sm_change_number: -1,
            loss_change_number: -1,
            time_of_last_state_change_ns: now_ns,
        }
    }

    #[inline]
    pub fn correlation_id(&self) -> i64 {
        self.identity.correlation_id
    }

    /// Its publication asked for a response channel (SETUP flag SEND_RESPONSE_SETUP).
    pub fn has_send_response_setup(&self) -> bool {
        self.identity.setup_flags & crate::protocol::setup::SETUP_SEND_RESPONSE_SETUP_FLAG != 0
    }

    /// Where a new subscriber starts: the slowest counting subscriber or the rebuild position.
    pub fn join_position(&self) -> i64 {
        let rcv_pos = self.rcv_pos.get();
        self.subscribers.min_max(rcv_pos, 0).0
    }

    fn is_drained(&self) -> bool {
        let rcv_pos = self.rcv_pos.get();
        self.subscribers.min_max(i64::MAX, 0).0 >= rcv_pos
    }

    /// Subscriptions may link while active, or while draining with data left to read.
    pub fn is_accepting_subscriptions(&self) -> bool {
        self.subscribers.has_working_positions()
            && (self.state == ImageState::Active
                || (self.state == ImageState::Draining && !self.is_drained()))
    }

    /// Duty-cycle work; `loss_report` and `now_ms` record gaps. Returns 1 when an SM was
    /// scheduled. Allocation-free.
    pub fn track_rebuild(&mut self, now_ns: i64, now_ms: i64, loss_report: &mut LossReport) -> i32 {
        if !self.subscribers.has_working_positions() {
            return 0;
        }
        // Acquire: the frames below the hwm were written before it was raised.
        let hwm = self.rcv_hwm.get_acquire();
        let (min_sub, max_sub) = self.subscribers.min_max(i64::MAX, 0);
        let rebuild_position = self.rcv_pos.get().max(max_sub);
        let term =
            self.log.term(log::index_by_position(rebuild_position, self.geometry.position_bits_to_shift));
        let mut found_gap = None;
        let outcome = self
            .loss_detector
            .scan(term, rebuild_position, hwm, self.geometry, now_ns, |gap| found_gap = Some(gap));
        if let Some(gap) = found_gap {
            self.on_gap(gap, now_ms, loss_report);
        }
        let term_mask = self.geometry.term_length() - 1;
        let new_rebuild_position =
            (rebuild_position - (rebuild_position & term_mask)) + i64::from(outcome.rebuild_offset);
        if new_rebuild_position > self.rcv_pos.get() {
            // Release: readers of rcv-pos (tools, the draining check) see a settled value.
            self.rcv_pos.set_release(new_rebuild_position);
        }
        if let Some(rtt) = self.status.take_rtt_sample() {
            self.congestion_control.on_rttm(now_ns, rtt, self.identity.source_address);
        }
        if self.congestion_control.should_measure_rtt(now_ns) {
            // Release: the receiver sending the request acquires the flag.
            self.status.rttm_requested.store(true, Ordering::Release);
            self.congestion_control.on_rttm_sent(now_ns);
        }
        let decision = self.congestion_control.on_track_rebuild(
            now_ns,
            &RebuildProgress {
                new_consumption_position: min_sub,
                last_sm_position: self.next_sm_position,
                hwm_position: hwm,
                starting_rebuild_position: rebuild_position,
                ending_rebuild_position: new_rebuild_position,
                loss_occurred: outcome.loss_found,
            },
        );
        let window = decision.window_length;
        if decision.force_status_message
            || min_sub > self.next_sm_position + i64::from(window / 4)
            || window != self.next_sm_window
        {
            let term_length = self.geometry.term_length();
            self.clean_position = clean_log_to(&self.log, self.clean_position, min_sub - term_length);
            self.sm_change_number += 1;
            self.next_sm_position = min_sub;
            self.next_sm_window = window;
            self.status.schedule_status_message(self.sm_change_number, min_sub, window);
            return 1;
        }
        0
    }

    /// The loss detector's timer fired for `gap`: the receiver NAKs (or fills) it, and the
    /// loss report records it.
    fn on_gap(&mut self, gap: Gap, now_ms: i64, loss_report: &mut LossReport) {
        self.loss_change_number += 1;
        self.status.report_loss(self.loss_change_number, gap.term_id, gap.term_offset, gap.length);
        match self.loss_entry {
            Some(entry) => loss_report.record_observation(entry, i64::from(gap.length), now_ms),
            None if !self.loss_report_full => {
                self.loss_entry = loss_report.create_entry(
                    i64::from(gap.length),
                    now_ms,
                    self.identity.session_id,
                    self.identity.stream_id,
                    &self.identity.channel,
                    &self.identity.source_identity,
                );
                self.loss_report_full = self.loss_entry.is_none();
            }
            None => {}
        }
    }

    /// Timer tick (`spec/driver.md` §4.3).
    pub fn on_time_event(&mut self, now_ns: i64, mut on_event: impl FnMut(&Self, ImageEvent)) {
        match self.state {
            ImageState::Active => {
                // Acquire: pairs with the receiver's release of each.
                let last_packet_ns = self.status.time_of_last_packet_ns.load(Ordering::Acquire);
                let is_eos = self.status.is_end_of_stream.load(Ordering::Acquire);
                if !self.subscribers.has_working_positions()
                    || now_ns > last_packet_ns + self.settings.liveness_timeout_ns
                    || (is_eos && self.rcv_pos.get() >= self.rcv_hwm.get_acquire())
                {
                    self.state = ImageState::Draining;
                    self.time_of_last_state_change_ns = now_ns;
                    self.status.is_sending_eos_sm.store(true, Ordering::Release);
                }
                let (_, max_tethered) = self.max_tethered_position();
                let window = i64::from(self.next_sm_window);
                let limit = (max_tethered - window) + window / 8;
                let join = self.join_position();
                let mut events = [None; 4];
                let mut n = 0;
                self.subscribers.check_untethered(now_ns, limit, join, self.settings.untethered, |e| {
                    if n < events.len() {
                        events[n] = Some(e);
                        n += 1;
                    }
                });
                for e in events.into_iter().flatten() {
                    on_event(self, ImageEvent::Tether(e));
                }
            }
            ImageState::Draining => {
                if self.is_drained()
                    && now_ns
                        > self.time_of_last_state_change_ns + SM_EOS_MULTIPLE * self.settings.sm_timeout_ns
                {
                    self.state = ImageState::Linger;
                    self.time_of_last_state_change_ns = now_ns;
                    on_event(self, ImageEvent::Linger);
                }
            }
            ImageState::Linger => {
                if self.subscribers.is_empty()
                    || now_ns > self.time_of_last_state_change_ns + self.settings.liveness_timeout_ns
                {
                    self.state = ImageState::Done;
                }
            }
            ImageState::Done => {}
        }
    }

    /// (count, max) over tethered subscribers' positions.
    fn max_tethered_position(&self) -> (usize, i64) {
        self.subscribers
            .iter()
            .filter(|s| s.is_tether)
            .fold((0, 0), |(n, max), s| (n + 1, max.max(s.position.get_acquire())))
    }

    pub fn has_reached_end_of_life(&self) -> bool {
        self.state == ImageState::Done && self.receiver_released
    }
}

impl StreamSource for ImageEntry {
    fn stream(&self) -> SourceStream<'_> {
        SourceStream {
            registration_id: self.correlation_id(),
            session_id: self.identity.session_id,
            stream_id: self.identity.stream_id,
            join_position: self.join_position(),
            log_file_name: &self.log_file_name,
            source_identity: &self.identity.source_identity,
        }
    }

    fn add_subscriber_position(&mut self, subscriber: &Subscriber<'_>, position: Position, now_ns: i64) {
        self.subscribers.add(subscriber.registration_id, position, subscriber.is_tether, now_ns);
    }
}

impl LogOwner for ImageEntry {
    /// The image's counters and its subscribers'.
    fn free_counters(&mut self, counters: &mut CountersManager, now_ms: i64) {
        free_counter(counters, self.rcv_hwm.counter_id(), now_ms);
        free_counter(counters, self.rcv_pos.counter_id(), now_ms);
        for p in self.extra_counters.drain(..) {
            free_counter(counters, p.counter_id(), now_ms);
        }
        self.subscribers.free_all(counters, now_ms);
    }

    fn into_log(self) -> (String, LogBuffers) {
        (self.log_file_name, self.log)
    }
}

#[cfg(test)]
#[path = "publication_image_tests.rs"]
mod tests;
