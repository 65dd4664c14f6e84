//! What the conductor and the receiver tell each other about a publication image
//! (`spec/flow-congestion-loss.md` §2.4, §3): the conductor schedules status messages and
//! reports gaps to NAK; the receiver reports packet arrival, end of stream and RTT samples.
//!
//! A scheduled SM (position, window) and a gap (term id, offset, length) each span several
//! words, so each is published like Aeron's begin/end change numbers: the writer stores
//! `begin = n`, the fields (release), then `end = n` (release); a reader loads `end`
//! (acquire), the fields (acquire), then `begin`, and keeps the values only when `begin`
//! equals `end`. A field load that saw a later writer's store also sees that writer's
//! earlier `begin`, so a torn read is always detected; the reader just tries next cycle.
//!
//! For a response channel the conductor also leaves the session id of the response
//! publication answering the image, which the receiver announces in RSP_SETUP frames
//! until that publication is connected.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, Ordering};

/// No response session: any value outside the int32 range (Aeron's sentinel).
const NO_RESPONSE_SESSION_ID: i64 = 0xF000_0000_0000_0000_u64 as i64;

/// A status message the conductor asks the receiver to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduledStatusMessage {
    pub change_number: i64,
    pub position: i64,
    pub window_length: i32,
}

/// A gap the conductor asks the receiver to NAK (or fill).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingLoss {
    pub change_number: i64,
    pub term_id: i32,
    pub term_offset: i32,
    pub length: i32,
}

#[derive(Debug)]
pub struct ImageStatus {
    begin_sm_change: AtomicI64,
    end_sm_change: AtomicI64,
    next_sm_position: AtomicI64,
    next_sm_window: AtomicI32,
    begin_loss_change: AtomicI64,
    end_loss_change: AtomicI64,
    loss_term_id: AtomicI32,
    loss_term_offset: AtomicI32,
    loss_length: AtomicI32,
    /// Receiver: time of the last accepted DATA or heartbeat (image liveness).
    pub time_of_last_packet_ns: AtomicI64,
    /// Receiver: every connection has sent an EOS heartbeat.
    pub is_end_of_stream: AtomicBool,
    /// Conductor: the image is draining; SMs carry the EOS flag.
    pub is_sending_eos_sm: AtomicBool,
    /// Conductor: congestion control wants an RTT measurement sent.
    pub rttm_requested: AtomicBool,
    /// Receiver: the latest RTT sample in ns (−1 = none since the conductor last looked).
    pub rtt_sample_ns: AtomicI64,
    /// Conductor: the session id of the response publication answering this image, while
    /// the receiver should announce it (RSP_SETUP); [`NO_RESPONSE_SESSION_ID`] otherwise.
    response_session_id: AtomicI64,
}

impl ImageStatus {
    /// Nothing scheduled yet: change numbers −1, the first SM at `initial_position`.
    pub fn new(initial_position: i64, initial_window: i32, now_ns: i64) -> Self {
        Self {
            begin_sm_change: AtomicI64::new(-1),
            end_sm_change: AtomicI64::new(-1),
            next_sm_position: AtomicI64::new(initial_position),
            next_sm_window: AtomicI32::new(initial_window),
            begin_loss_change: AtomicI64::new(-1),
            end_loss_change: AtomicI64::new(-1),
            loss_term_id: AtomicI32::new(0),
            loss_term_offset: AtomicI32::new(0),
            loss_length: AtomicI32::new(0),
            time_of_last_packet_ns: AtomicI64::new(now_ns),
            is_end_of_stream: AtomicBool::new(false),
            is_sending_eos_sm: AtomicBool::new(false),
            rttm_requested: AtomicBool::new(false),
            rtt_sample_ns: AtomicI64::new(-1),
            response_session_id: AtomicI64::new(NO_RESPONSE_SESSION_ID),
        }
    }

    /// Conductor: the receiver announces `session_id` (a response publication's) in
    /// RSP_SETUP frames, or stops when `None`.
    pub fn set_response_session_id(&self, session_id: Option<i32>) {
        // Relaxed: one self-contained word that publishes nothing else; the receiver acts
        // on whichever value it sees, and a late one only delays or repeats an RSP_SETUP.
        self.response_session_id
            .store(session_id.map_or(NO_RESPONSE_SESSION_ID, i64::from), Ordering::Relaxed);
    }

    /// Receiver: the response session id to announce, if any.
    #[inline]
    pub fn response_session_id(&self) -> Option<i32> {
        // Relaxed: as for the store.
        i32::try_from(self.response_session_id.load(Ordering::Relaxed)).ok()
    }

    /// Conductor: publishes status message `change_number` (one more than the last).
    pub fn schedule_status_message(&self, change_number: i64, position: i64, window_length: i32) {
        self.begin_sm_change.store(change_number, Ordering::Relaxed);
        // Release: each field store is ordered after the begin store (see module docs).
        self.next_sm_position.store(position, Ordering::Release);
        self.next_sm_window.store(window_length, Ordering::Release);
        self.end_sm_change.store(change_number, Ordering::Release);
    }

    /// Receiver: the latest scheduled SM, or `None` while one is being written.
    #[inline]
    pub fn scheduled_status_message(&self) -> Option<ScheduledStatusMessage> {
        let change_number = self.end_sm_change.load(Ordering::Acquire);
        let position = self.next_sm_position.load(Ordering::Acquire);
        let window_length = self.next_sm_window.load(Ordering::Acquire);
        // Relaxed: the acquire loads above order this load after them.
        (self.begin_sm_change.load(Ordering::Relaxed) == change_number).then_some(ScheduledStatusMessage {
            change_number,
            position,
            window_length,
        })
    }

    /// Receiver: the change number of the latest scheduled SM (cheap "anything new?").
    #[inline]
    pub fn status_message_change_number(&self) -> i64 {
        self.end_sm_change.load(Ordering::Acquire)
    }

    /// Conductor: publishes gap `change_number`.
    pub fn report_loss(&self, change_number: i64, term_id: i32, term_offset: i32, length: i32) {
        self.begin_loss_change.store(change_number, Ordering::Relaxed);
        // Release: as for status messages.
        self.loss_term_id.store(term_id, Ordering::Release);
        self.loss_term_offset.store(term_offset, Ordering::Release);
        self.loss_length.store(length, Ordering::Release);
        self.end_loss_change.store(change_number, Ordering::Release);
    }

    /// Receiver: the latest reported gap if its change number differs from `last_seen`.
    #[inline]
    pub fn pending_loss(&self, last_seen: i64) -> Option<PendingLoss> {
        let change_number = self.end_loss_change.load(Ordering::Acquire);
        if change_number == last_seen {
            return None;
        }
        let term_id = self.loss_term_id.load(Ordering::Acquire);
        let term_offset = self.loss_term_offset.load(Ordering::Acquire);
        let length = self.loss_length.load(Ordering::Acquire);
        (self.begin_loss_change.load(Ordering::Relaxed) == change_number).then_some(PendingLoss {
            change_number,
            term_id,
            term_offset,
            length,
        })
    }

    /// Conductor: takes the RTT sample the receiver left, if any.
    pub fn take_rtt_sample(&self) -> Option<i64> {
        let sample = self.rtt_sample_ns.swap(-1, Ordering::AcqRel);
        (sample >= 0).then_some(sample)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn scheduled_values_are_read_whole() {
        let s = ImageStatus::new(4096, 32768, 0);
        assert_eq!(
            s.scheduled_status_message(),
            Some(ScheduledStatusMessage { change_number: -1, position: 4096, window_length: 32768 })
        );
        s.schedule_status_message(0, 8192, 14080);
        assert_eq!(s.status_message_change_number(), 0);
        assert_eq!(s.scheduled_status_message().unwrap().position, 8192);
        assert_eq!(s.pending_loss(-1), None);
        s.report_loss(0, 7, 1056, 2112);
        assert_eq!(
            s.pending_loss(-1),
            Some(PendingLoss { change_number: 0, term_id: 7, term_offset: 1056, length: 2112 })
        );
        assert_eq!(s.pending_loss(0), None, "already seen");
        assert_eq!(s.take_rtt_sample(), None);
        s.rtt_sample_ns.store(5000, Ordering::Release);
        assert_eq!(s.take_rtt_sample(), Some(5000));
        assert_eq!(s.take_rtt_sample(), None);
        assert_eq!(s.response_session_id(), None);
        for id in [i32::MIN, -1, 0, i32::MAX] {
            s.set_response_session_id(Some(id));
            assert_eq!(s.response_session_id(), Some(id));
        }
        s.set_response_session_id(None);
        assert_eq!(s.response_session_id(), None);
    }

    #[test]
    fn concurrent_reader_never_sees_a_torn_pair() {
        // The writer keeps position = 2 × window; a read that passes the check always agrees.
        let s = Arc::new(ImageStatus::new(0, 0, 0));
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (s, stop) = (Arc::clone(&s), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut n = 0i64;
                while !stop.load(Ordering::Relaxed) {
                    s.schedule_status_message(n, n * 2, n as i32);
                    n += 1;
                }
            })
        };
        for _ in 0..200_000 {
            if let Some(sm) = s.scheduled_status_message() {
                assert_eq!(sm.position, i64::from(sm.window_length) * 2, "{sm:?}");
            }
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
        let last = s.scheduled_status_message().expect("no writer: consistent");
        assert_eq!(last.position, i64::from(last.window_length) * 2);
    }
}
