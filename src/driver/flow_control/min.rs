//! Min and tagged multicast flow control (`spec/flow-congestion-loss.md` §1.3, Aeron
//! `aeron_min_flow_control.c`, `AbstractMinMulticastFlowControl`): the sender goes no further
//! than the slowest receiver it tracks lets it. Tagged is min over only the receivers whose
//! status messages carry the publication's group tag.
//!
//! A receiver is tracked from its first status message, unless that message is EOS, lacks
//! the tag, or reports a window edge so far behind the current minimum (more than one
//! window) that waiting for it would stall everyone: such a receiver has to catch up on its
//! own. A receiver is dropped on idle once it has been silent for the receiver timeout or said
//! EOS (SM flag or ERR frame). Until `group_min_size` receivers are tracked, the sender limit
//! does not move.
//!
//! After an elicited SETUP answered a matching receiver while others were tracked, the sender
//! limit of that moment caps the limit for one receiver timeout, or until a receiver is
//! added, so a late joiner gets the chance to report before the others run away from it.
//!
//! The receiver list is allocated once, for [`MAX_TRACKED_RECEIVERS`]; nothing here
//! allocates in the sender duty cycle.
#![forbid(unsafe_code)]

use super::retransmission_length::{MIN_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE, retransmission_length};
use super::{FlowControl, ReceiverStatus};
use crate::driver::position_counters::Position;

/// Receivers one publication tracks at most. Anyone who can send a status message to the
/// control address can invent receiver ids, so the list must be bounded: 4096 is far beyond
/// the largest multicast groups Aeron is used with, and the list preallocated for it (32
/// bytes per receiver, 128 KiB) is small beside the publication's log (three terms of at
/// least 64 KiB). Every SM scans the list, so the cap also bounds the work per SM.
///
/// A receiver seen while the list is full is not tracked until a slot frees up: it neither
/// holds the sender back (it may fall behind and recover only through NAKs, or lose data
/// once the sender is more than a term ahead) nor counts towards `group_min_size`.
pub const MAX_TRACKED_RECEIVERS: usize = 4096;

/// One tracked receiver. Aeron also keeps the last position, session and stream ids, but
/// only logs them; the window edge is what the limit is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Receiver {
    receiver_id: i64,
    /// Position + window of its last status message.
    window_edge: i64,
    time_of_last_status_message_ns: i64,
    /// EOS flag of its last SM, or an ERR frame since: dropped on the next idle.
    is_end_of_stream: bool,
}

/// The limit in force after an elicited SETUP, and when that SETUP went out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SetupHold {
    sender_limit: i64,
    time_ns: i64,
}

/// The min (`fc=min`) or tagged (`fc=tagged`) strategy of one publication.
#[derive(Debug)]
pub struct MinMulticastFlowControl {
    receivers: Vec<Receiver>,
    /// `Some`: tagged; only SMs with exactly this group tag count.
    group_tag: Option<i64>,
    group_min_size: usize,
    receiver_timeout_ns: i64,
    setup_hold: Option<SetupHold>,
    /// A matching receiver asked for a SETUP since the last one went out.
    has_matching_setup_trigger: bool,
    /// `fc-receivers`: the number of tracked receivers, for tools.
    receivers_counter: Option<Position>,
    malformed_group_tags: u64,
}

impl MinMulticastFlowControl {
    /// The min strategy (`aeron_min_flow_control_strategy_supplier`).
    pub fn min(group_min_size: i32, receiver_timeout_ns: i64, receivers_counter: Option<Position>) -> Self {
        Self::new(None, group_min_size, receiver_timeout_ns, receivers_counter)
    }

    /// The tagged strategy (`aeron_tagged_flow_control_strategy_supplier`) for `group_tag`.
    pub fn tagged(
        group_tag: i64,
        group_min_size: i32,
        receiver_timeout_ns: i64,
        receivers_counter: Option<Position>,
    ) -> Self {
        Self::new(Some(group_tag), group_min_size, receiver_timeout_ns, receivers_counter)
    }

    fn new(
        group_tag: Option<i64>,
        group_min_size: i32,
        receiver_timeout_ns: i64,
        receivers_counter: Option<Position>,
    ) -> Self {
        let strategy = Self {
            receivers: Vec::with_capacity(MAX_TRACKED_RECEIVERS),
            group_tag,
            // A negative size (the parsers refuse one) would mean "no minimum".
            group_min_size: usize::try_from(group_min_size).unwrap_or(0),
            receiver_timeout_ns,
            setup_hold: None,
            has_matching_setup_trigger: false,
            receivers_counter,
            malformed_group_tags: 0,
        };
        strategy.publish_receiver_count();
        strategy
    }

    /// How many receivers are tracked.
    pub fn receiver_count(&self) -> usize {
        self.receivers.len()
    }

    fn publish_receiver_count(&self) {
        if let Some(counter) = &self.receivers_counter {
            // Release, as Aeron's ordered set: the count is all the counter publishes.
            counter.set_release(self.receivers.len() as i64);
        }
    }

    /// Whether `status` is from a member of the group: always for min; for tagged, only
    /// with the publication's tag. A malformed tag is counted and does not match.
    fn matches_tag(&mut self, status: &ReceiverStatus) -> bool {
        let Some(group_tag) = self.group_tag else {
            return true;
        };
        if status.has_malformed_group_tag {
            self.malformed_group_tags = self.malformed_group_tags.saturating_add(1);
        }
        status.group_tag == Some(group_tag)
    }

    /// The limit the last elicited SETUP holds the sender to, or `i64::MAX` once it is
    /// older than the receiver timeout (or there is none).
    fn setup_limit(&mut self, now_ns: i64) -> i64 {
        match self.setup_hold {
            Some(hold) if !has_timed_out(hold.time_ns, now_ns, self.receiver_timeout_ns) => hold.sender_limit,
            _ => {
                self.setup_hold = None;
                i64::MAX
            }
        }
    }

    fn limit_for(&self, sender_limit: i64, min_edge: i64) -> i64 {
        if self.receivers.len() < self.group_min_size || self.receivers.is_empty() {
            sender_limit
        } else {
            min_edge
        }
    }
}

/// Strictly more than `timeout_ns` since `then_ns`. Aeron writes this as
/// `then + timeout - now < 0`, which wraps for huge timeouts; this form does not.
fn has_timed_out(then_ns: i64, now_ns: i64, timeout_ns: i64) -> bool {
    now_ns.saturating_sub(then_ns) > timeout_ns
}

impl FlowControl for MinMulticastFlowControl {
    fn on_status_message(
        &mut self,
        status: &ReceiverStatus,
        sender_limit: i64,
        initial_term_id: i32,
        position_bits_to_shift: u32,
        now_ns: i64,
    ) -> i64 {
        let window = i64::from(status.receiver_window);
        let edge = status.window_edge(initial_term_id, position_bits_to_shift);
        let is_end_of_stream = status.is_end_of_stream();
        let matches_tag = self.matches_tag(status);
        let mut min_edge = self.setup_limit(now_ns);
        let mut is_known = false;
        for receiver in &mut self.receivers {
            if matches_tag && receiver.receiver_id == status.receiver_id {
                receiver.is_end_of_stream = is_end_of_stream;
                receiver.window_edge = edge;
                receiver.time_of_last_status_message_ns = now_ns;
                is_known = true;
            }
            min_edge = min_edge.min(receiver.window_edge);
        }
        // Aeron: join only within one window of the slowest (or as the first receiver).
        let may_join = self.receivers.is_empty() || edge >= min_edge.saturating_sub(window);
        if !is_known
            && !is_end_of_stream
            && matches_tag
            && may_join
            && self.receivers.len() < MAX_TRACKED_RECEIVERS
        {
            self.receivers.push(Receiver {
                receiver_id: status.receiver_id,
                window_edge: edge,
                time_of_last_status_message_ns: now_ns,
                is_end_of_stream: false,
            });
            min_edge = min_edge.min(edge);
            // The receiver the SETUP was for has probably reported: stop holding back.
            self.setup_hold = None;
            self.publish_receiver_count();
        }
        if self.receivers.len() < self.group_min_size {
            sender_limit
        } else if self.receivers.is_empty() {
            sender_limit.max(edge)
        } else {
            sender_limit.max(min_edge)
        }
    }

    /// Drops silent and EOS receivers. Unlike a status message, the result is the minimum
    /// itself, so the limit may go down (as in Aeron).
    fn on_idle(
        &mut self,
        now_ns: i64,
        sender_limit: i64,
        _sender_position: i64,
        _is_end_of_stream: bool,
    ) -> i64 {
        let mut min_edge = self.setup_limit(now_ns);
        let count = self.receivers.len();
        let timeout_ns = self.receiver_timeout_ns;
        self.receivers.retain(|r| {
            !r.is_end_of_stream && !has_timed_out(r.time_of_last_status_message_ns, now_ns, timeout_ns)
        });
        for receiver in &self.receivers {
            min_edge = min_edge.min(receiver.window_edge);
        }
        if self.receivers.len() != count {
            self.publish_receiver_count();
        }
        self.limit_for(sender_limit, min_edge)
    }

    fn on_setup(&mut self, now_ns: i64, sender_limit: i64, _sender_position: i64) -> i64 {
        if self.has_matching_setup_trigger && !self.receivers.is_empty() {
            self.setup_hold = Some(SetupHold { sender_limit, time_ns: now_ns });
        }
        self.has_matching_setup_trigger = false;
        sender_limit
    }

    fn on_trigger_send_setup(&mut self, status: &ReceiverStatus, _now_ns: i64) {
        let matches_tag = self.matches_tag(status);
        self.has_matching_setup_trigger |= matches_tag;
    }

    /// Aeron C marks the receiver whatever the ERR frame's tag (Java's tagged strategy
    /// requires it to match); a tracked receiver id is a member either way.
    fn on_error(&mut self, receiver_id: i64, _group_tag: Option<i64>, _now_ns: i64) {
        for receiver in &mut self.receivers {
            if receiver.receiver_id == receiver_id {
                receiver.is_end_of_stream = true;
            }
        }
    }

    fn has_required_receivers(&self) -> bool {
        self.receivers.len() >= self.group_min_size
    }

    fn malformed_group_tags(&self) -> u64 {
        self.malformed_group_tags
    }

    fn max_retransmission_length(
        &self,
        term_offset: usize,
        resend_length: usize,
        term_length: usize,
        _mtu_length: usize,
    ) -> usize {
        retransmission_length(
            resend_length,
            term_length,
            term_offset,
            MIN_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::protocol::status_message::{SM_EOS_FLAG, StatusMessage, StatusMessageFlyweight};

    // 64 KiB terms; positions below are in the first terms of initial term id 1000.
    const INITIAL: i32 = 1000;
    const BITS: u32 = 16;
    const WINDOW: i32 = 4096;
    const S: i64 = 1_000_000_000;
    const TIMEOUT: i64 = 5 * S;

    fn status(receiver_id: i64, position: i64, group_tag: Option<i64>) -> ReceiverStatus {
        ReceiverStatus {
            flags: 0,
            consumption_term_id: INITIAL + (position >> BITS) as i32,
            consumption_term_offset: (position & 0xFFFF) as i32,
            receiver_window: WINDOW,
            receiver_id,
            group_tag,
            has_malformed_group_tag: false,
        }
    }

    fn eos(receiver_id: i64, position: i64) -> ReceiverStatus {
        ReceiverStatus { flags: SM_EOS_FLAG, ..status(receiver_id, position, None) }
    }

    /// Feeds SMs to a strategy, keeping the sender limit as the publication does.
    struct Sender<F> {
        fc: F,
        limit: i64,
    }

    impl<F: FlowControl> Sender<F> {
        fn new(fc: F) -> Self {
            Self { fc, limit: 0 }
        }

        fn sm(&mut self, status: &ReceiverStatus, now_ns: i64) -> i64 {
            self.limit = self.fc.on_status_message(status, self.limit, INITIAL, BITS, now_ns);
            self.limit
        }

        fn at(&mut self, receiver_id: i64, position: i64, now_ns: i64) -> i64 {
            self.sm(&status(receiver_id, position, None), now_ns)
        }

        fn idle(&mut self, now_ns: i64) -> i64 {
            self.limit = self.fc.on_idle(now_ns, self.limit, 0, false);
            self.limit
        }
    }

    fn min() -> Sender<MinMulticastFlowControl> {
        Sender::new(MinMulticastFlowControl::min(0, TIMEOUT, None))
    }

    #[test]
    fn the_slowest_receiver_holds_the_limit() {
        let mut s = min();
        assert!(s.fc.has_required_receivers(), "group min size 0");
        assert_eq!(s.at(1, 0, 0), 4096);
        assert_eq!(s.at(2, 1000, 1), 4096, "B joins ahead of A; A still holds the limit");
        assert_eq!(s.at(2, 3000, 2), 4096);
        assert_eq!(s.at(1, 2000, 3), 6096, "A moved: its new edge");
        // However far B runs, the sender stays within a window of A.
        assert_eq!(s.at(2, 200_000, 4), 6096);
        assert_eq!(s.idle(5), 6096);
        assert_eq!(s.at(1, 70_000, 6), 74_096, "A into the next term");
        assert_eq!(s.fc.receiver_count(), 2);
        // A late SM never lowers the limit.
        assert_eq!(s.at(1, 0, 7), 74_096);
    }

    #[test]
    fn a_receiver_more_than_a_window_behind_does_not_join() {
        let mut s = min();
        assert_eq!(s.at(1, 20_000, 0), 24_096);
        // Edge 19_999 < min edge 24_096 − window 4096 = 20_000.
        assert_eq!(s.at(2, 15_903, 1), 24_096);
        assert_eq!(s.fc.receiver_count(), 1);
        // Edge exactly 20_000 joins; an SM never lowers the limit...
        assert_eq!(s.at(3, 15_904, 2), 24_096);
        assert_eq!(s.fc.receiver_count(), 2);
        // ...but idle takes the minimum itself, as Aeron does.
        assert_eq!(s.idle(3), 20_000);
        // Refused receiver 2 joins once within a window.
        assert_eq!(s.at(2, 16_000, 4), 20_000);
        assert_eq!(s.fc.receiver_count(), 3);
    }

    #[test]
    fn a_silent_receiver_times_out_on_idle_and_the_limit_moves_up() {
        let mut s = min();
        s.at(1, 0, 0);
        assert_eq!(s.at(2, 8000, 0), 4096);
        assert_eq!(s.at(2, 9000, 4 * S), 4096);
        // Exactly the timeout since A's last SM: still tracked.
        assert_eq!(s.idle(TIMEOUT), 4096);
        assert_eq!(s.fc.receiver_count(), 2);
        assert_eq!(s.idle(TIMEOUT + 1), 13_096);
        assert_eq!(s.fc.receiver_count(), 1);
        // The last one goes silent too: nobody left, the limit stays.
        assert_eq!(s.idle(4 * S + TIMEOUT + 1), 13_096);
        assert_eq!(s.fc.receiver_count(), 0);
        // A new first receiver joins wherever it is.
        assert_eq!(s.at(3, 0, 10 * S), 13_096);
        assert_eq!(s.idle(10 * S), 4096);
    }

    #[test]
    fn eos_status_messages_and_error_frames_remove_receivers_on_the_next_idle() {
        let mut s = min();
        s.at(1, 0, 0);
        s.at(2, 1000, 0);
        s.at(3, 2000, 0);
        // Receiver 1 says EOS: still counted (with the EOS SM's edge) until idle.
        assert_eq!(s.sm(&eos(1, 3000), 1), 5096);
        assert_eq!(s.fc.receiver_count(), 3);
        assert_eq!(s.idle(2), 5096);
        assert_eq!(s.fc.receiver_count(), 2);
        // An ERR frame from receiver 2 (whatever its tag); unknown ids change nothing.
        s.fc.on_error(2, Some(5), 3);
        s.fc.on_error(77, None, 3);
        assert_eq!(s.fc.receiver_count(), 2);
        assert_eq!(s.idle(4), 6096);
        assert_eq!(s.fc.receiver_count(), 1);
        // An EOS SM from an unknown receiver does not add it.
        s.sm(&eos(4, 0), 5);
        assert_eq!(s.fc.receiver_count(), 1);
        // A receiver that said EOS and speaks again before idle is back.
        s.sm(&eos(3, 2000), 6);
        s.at(3, 2000, 7);
        s.idle(8);
        assert_eq!(s.fc.receiver_count(), 1);
    }

    #[test]
    fn group_min_size_gates_the_limit_and_required_receivers() {
        let mut s = Sender::new(MinMulticastFlowControl::min(2, TIMEOUT, None));
        assert!(!s.fc.has_required_receivers());
        s.limit = 100;
        assert_eq!(s.at(1, 0, 0), 100, "one of two: the limit stays");
        assert!(!s.fc.has_required_receivers());
        assert_eq!(s.idle(1), 100);
        assert_eq!(s.at(2, 1000, 2), 4096);
        assert!(s.fc.has_required_receivers());
        assert_eq!(s.at(1, 5000, 3), 5096);
        // Receiver 2 goes silent: below the group size again, idle leaves the limit.
        s.at(1, 9000, TIMEOUT);
        assert_eq!(s.idle(TIMEOUT + 3), 5096);
        assert!(!s.fc.has_required_receivers());
        assert_eq!(s.at(1, 20_000, TIMEOUT + 4), 5096);
    }

    #[test]
    fn an_elicited_setup_holds_the_limit_for_a_receiver_timeout() {
        let mut s = min();
        s.at(1, 10_000, 0);
        assert_eq!(s.limit, 14_096);
        // A new receiver asks for a SETUP; the SETUP goes out at 14_096.
        s.fc.on_trigger_send_setup(&status(2, 0, None), S);
        assert_eq!(s.fc.on_setup(S, s.limit, 0), 14_096);
        assert_eq!(s.at(1, 20_000, 2 * S), 14_096, "held at the SETUP's limit");
        assert_eq!(s.idle(3 * S), 14_096);
        // Exactly the timeout after the SETUP: still held; then released.
        assert_eq!(s.at(1, 20_000, S + TIMEOUT), 14_096);
        assert_eq!(s.at(1, 20_000, S + TIMEOUT + 1), 24_096);
        assert_eq!(s.idle(S + TIMEOUT + 2), 24_096);
    }

    #[test]
    fn a_joining_receiver_ends_the_setup_hold() {
        let mut s = min();
        s.at(1, 10_000, 0);
        s.fc.on_trigger_send_setup(&status(2, 0, None), S);
        s.fc.on_setup(S, s.limit, 0);
        assert_eq!(s.at(1, 20_000, 2 * S), 14_096);
        // Receiver 2 joins (edge 16_096 ≥ held 14_096 − 4096): the hold ends after this SM.
        assert_eq!(s.at(2, 12_000, 3 * S), 14_096);
        assert_eq!(s.fc.receiver_count(), 2);
        assert_eq!(s.at(1, 20_000, 4 * S), 16_096);
    }

    #[test]
    fn only_a_triggered_setup_with_receivers_holds_the_limit() {
        let mut s = min();
        // No receivers yet: nothing to hold back for.
        s.fc.on_trigger_send_setup(&status(2, 0, None), 0);
        s.fc.on_setup(0, 0, 0);
        s.at(1, 10_000, 1);
        // A SETUP nobody asked for (or the trigger already used) does not hold.
        s.fc.on_setup(2, s.limit, 0);
        assert_eq!(s.at(1, 20_000, 3), 24_096);
        // Tagged: a trigger without the tag does not hold either.
        let mut t = Sender::new(MinMulticastFlowControl::tagged(42, 0, TIMEOUT, None));
        t.sm(&status(1, 10_000, Some(42)), 0);
        t.fc.on_trigger_send_setup(&status(2, 0, Some(7)), 1);
        t.fc.on_setup(1, t.limit, 0);
        assert_eq!(t.sm(&status(1, 20_000, Some(42)), 2), 24_096);
        t.fc.on_trigger_send_setup(&status(2, 0, Some(42)), 3);
        t.fc.on_setup(3, t.limit, 0);
        assert_eq!(t.sm(&status(1, 30_000, Some(42)), 4), 24_096);
    }

    #[test]
    fn tagged_counts_only_receivers_with_the_group_tag() {
        let mut s = Sender::new(MinMulticastFlowControl::tagged(42, 0, TIMEOUT, None));
        // Nobody tracked and group size 0: an untagged SM still moves the limit, as max would.
        assert_eq!(s.at(9, 1000, 0), 5096);
        assert_eq!(s.fc.receiver_count(), 0);
        assert_eq!(s.sm(&status(1, 2000, Some(42)), 1), 6096);
        assert_eq!(s.fc.receiver_count(), 1);
        // Far ahead, but untagged, a different tag, or a malformed tag: not members.
        assert_eq!(s.at(9, 50_000, 2), 6096);
        assert_eq!(s.sm(&status(8, 50_000, Some(7)), 3), 6096);
        let malformed = ReceiverStatus { has_malformed_group_tag: true, ..status(7, 50_000, None) };
        assert_eq!(s.sm(&malformed, 4), 6096);
        assert_eq!(s.fc.receiver_count(), 1);
        assert_eq!(s.fc.malformed_group_tags(), 1);
        // A member's own SM without its tag does not update it.
        assert_eq!(s.at(1, 50_000, 5), 6096);
        assert_eq!(s.sm(&status(1, 50_000, Some(42)), 6), 54_096);
        s.fc.on_trigger_send_setup(&malformed, 7);
        assert_eq!(s.fc.malformed_group_tags(), 2);
        // Min ignores tags altogether and never counts them as malformed.
        let mut m = min();
        m.sm(&malformed, 0);
        m.sm(&status(2, 50_000, Some(7)), 0);
        assert_eq!((m.fc.receiver_count(), m.fc.malformed_group_tags()), (2, 0));
    }

    #[test]
    fn group_tags_from_status_message_frames() {
        let mut frame = [0u8; 48];
        let sm = StatusMessage {
            flags: 0,
            session_id: 1,
            stream_id: 2,
            consumption_term_id: INITIAL,
            consumption_term_offset: 64,
            receiver_window: WINDOW,
            receiver_id: 5,
            group_tag: Some(42),
        };
        let length = sm.encode(&mut frame).unwrap();
        let tagged = ReceiverStatus::from(&StatusMessageFlyweight::parse(&frame[..length]).unwrap());
        assert_eq!((tagged.group_tag, tagged.has_malformed_group_tag), (Some(42), false));
        frame[0..4].copy_from_slice(&36i32.to_le_bytes());
        let untagged = ReceiverStatus::from(&StatusMessageFlyweight::parse(&frame[..36]).unwrap());
        assert_eq!((untagged.group_tag, untagged.has_malformed_group_tag), (None, false));
        // 4 or 12 optional bytes: no tag, and flagged (the frame length says how many).
        for odd in [40usize, 48] {
            frame[0..4].copy_from_slice(&(odd as i32).to_le_bytes());
            let bad = ReceiverStatus::from(&StatusMessageFlyweight::parse(&frame[..odd]).unwrap());
            assert_eq!((bad.group_tag, bad.has_malformed_group_tag), (None, true), "{odd}");
            assert_eq!(bad.window_edge(INITIAL, BITS), 64 + 4096);
        }
    }

    #[test]
    fn the_receiver_list_is_capped_and_never_grows() {
        let mut s = min();
        for id in 0..MAX_TRACKED_RECEIVERS as i64 {
            s.at(id, 10_000, 0);
        }
        assert_eq!(s.fc.receiver_count(), MAX_TRACKED_RECEIVERS);
        assert_eq!(s.fc.receivers.capacity(), MAX_TRACKED_RECEIVERS);
        assert_eq!(size_of::<Receiver>() * MAX_TRACKED_RECEIVERS, 128 << 10, "as documented");
        // One more, slower but within a window: not tracked, so it does not hold the limit.
        assert_eq!(s.at(-1, 9000, 1), 14_096);
        assert_eq!(s.idle(2), 14_096);
        assert_eq!(s.fc.receiver_count(), MAX_TRACKED_RECEIVERS);
        assert_eq!(s.fc.receivers.capacity(), MAX_TRACKED_RECEIVERS);
        // Known receivers still update at the cap.
        for id in 0..MAX_TRACKED_RECEIVERS as i64 {
            s.at(id, 20_000, 3);
        }
        assert_eq!(s.limit, 24_096);
        // One slot frees up (ERR frame): the next new receiver takes it.
        s.fc.on_error(0, None, 4);
        s.idle(5);
        s.at(-1, 19_000, 6);
        assert_eq!(s.fc.receiver_count(), MAX_TRACKED_RECEIVERS);
        assert_eq!(s.idle(7), 23_096);
    }

    #[test]
    fn the_receivers_counter_follows_the_count() {
        let values = AtomicBuffer::alloc(4 * 128);
        values.put_i64(128, 99);
        let counter = Position::new(&values, 1);
        let mut s = Sender::new(MinMulticastFlowControl::min(0, TIMEOUT, Some(counter)));
        assert_eq!(values.get_i64(128), 0, "zeroed at creation");
        s.at(1, 0, 0);
        assert_eq!(values.get_i64(128), 1);
        s.at(2, 0, 0);
        s.at(2, 100, 1);
        assert_eq!(values.get_i64(128), 2);
        s.sm(&eos(2, 100), 2);
        assert_eq!(values.get_i64(128), 2);
        s.idle(3);
        assert_eq!(values.get_i64(128), 1);
        s.idle(TIMEOUT + 1);
        assert_eq!(values.get_i64(128), 0);
    }

    #[test]
    fn huge_timeouts_and_negative_windows_do_not_overflow() {
        let mut s = Sender::new(MinMulticastFlowControl::min(0, i64::MAX, None));
        // A forged window pointing backwards: the edge is behind the position.
        let backwards = ReceiverStatus { receiver_window: i32::MIN, ..status(1, 0, None) };
        assert_eq!(s.sm(&backwards, 0), 0);
        s.at(2, 0, 1);
        assert_eq!(s.fc.receiver_count(), 2);
        assert_eq!(s.idle(i64::MAX), i64::from(i32::MIN), "never times out");
        assert_eq!(s.fc.receiver_count(), 2);
    }

    #[test]
    fn retransmits_sixteen_estimated_windows() {
        let fc = MinMulticastFlowControl::tagged(1, 0, TIMEOUT, None);
        assert_eq!(fc.max_retransmission_length(0, 64 << 20, 16 << 20, 1408), 2 << 20);
        assert_eq!(fc.max_retransmission_length(65536 - 512, 1024, 65536, 1408), 512);
    }
}
