//! `RetransmitHandler`: the sender's answer to NAKs (`spec/flow-congestion-loss.md` §4.1,
//! Aeron C `aeron_retransmit_handler.c`).
//!
//! A fixed pool of actions, allocated once: 1 for channels without group semantics (plain
//! unicast), `max-resend` / `AERON_MAX_RESEND` (default 16) otherwise. For a NAK:
//!
//! 1. `term_offset` outside `[0, term_length − 32]` is invalid (the caller counts it in
//!    *Invalid packets*);
//! 2. the length is limited by the flow control's `max_retransmission_length`;
//! 3. a NAK starting inside a range already delayed or lingering in the same term is a
//!    duplicate and ignored; otherwise a group channel takes the first inactive action
//!    (none left: *Retransmit Pool Overflow*), a unicast channel reuses its one action;
//! 4. with no retransmit delay (`AERON_RETRANSMIT_UNICAST_DELAY`, default 0) the range is
//!    resent at once and the action lingers for `AERON_RETRANSMIT_UNICAST_LINGER` (10 ms),
//!    absorbing repeated NAKs; otherwise it waits for the delay first.
//!
//! Timeouts (checked every sender duty cycle) resend delayed actions and retire lingering
//! ones, strictly after their expiry.
//!
//! A NAK may name the destination that asked (multi-destination-cast: the destination the
//! NAK came from), and then the resend goes only there; a NAK is a duplicate only of an
//! action for the same destination, so each receiver that asks gets the range once per
//! linger and receivers that did not ask get nothing. Without one (unicast, multicast) the
//! resend goes wherever the channel sends.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use crate::driver::flow_control::FlowControl;
use crate::protocol::header::DATA_HEADER_LENGTH;
use crate::protocol::nak::Nak;
use crate::util::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetransmitActionState {
    Inactive,
    Delayed,
    Lingering,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetransmitAction {
    pub state: RetransmitActionState,
    pub term_id: i32,
    pub term_offset: i32,
    pub length: usize,
    pub expiry_ns: i64,
    /// Where the resend goes: one destination, or `None` for wherever the channel sends.
    pub destination: Option<SocketAddr>,
}

impl RetransmitAction {
    const INACTIVE: Self = Self {
        state: RetransmitActionState::Inactive,
        term_id: 0,
        term_offset: 0,
        length: 0,
        expiry_ns: 0,
        destination: None,
    };

    fn covers(&self, term_id: i32, term_offset: i32, destination: Option<SocketAddr>) -> bool {
        self.destination == destination
            && self.term_id == term_id
            && self.term_offset <= term_offset
            && i64::from(term_offset) < i64::from(self.term_offset) + self.length as i64
    }
}

/// What became of a NAK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NakOutcome {
    /// Term offset out of range: count it as an invalid packet.
    Invalid,
    /// Already being resent or lingering: ignored.
    Duplicate,
    /// Group channel with every action busy: count a retransmit pool overflow.
    Overflow,
    /// Resent now (this many bytes were asked for) and lingering.
    Resent(usize),
    /// Will be resent when the retransmit delay expires.
    Delayed,
}

#[derive(Debug, Clone)]
pub struct RetransmitHandler {
    actions: Box<[RetransmitAction]>,
    active_count: usize,
    delay_ns: i64,
    linger_ns: i64,
    has_group_semantics: bool,
}

impl RetransmitHandler {
    /// `max_retransmits` (the pool size) applies only with group semantics.
    pub fn new(delay_ns: u64, linger_ns: u64, has_group_semantics: bool, max_retransmits: usize) -> Self {
        let pool = if has_group_semantics { max_retransmits.max(1) } else { 1 };
        Self {
            actions: vec![RetransmitAction::INACTIVE; pool].into_boxed_slice(),
            active_count: 0,
            delay_ns: i64::try_from(delay_ns).unwrap_or(i64::MAX),
            linger_ns: i64::try_from(linger_ns).unwrap_or(i64::MAX),
            has_group_semantics,
        }
    }

    pub fn actions(&self) -> &[RetransmitAction] {
        &self.actions
    }

    /// The action slot for a NAK: `Ok(index)`, or the reason there is none.
    fn find_slot(
        &mut self,
        term_id: i32,
        term_offset: i32,
        destination: Option<SocketAddr>,
    ) -> std::result::Result<usize, NakOutcome> {
        if self.active_count == 0 {
            self.active_count = 1;
            return Ok(0);
        }
        let mut available = None;
        for (index, action) in self.actions.iter().enumerate() {
            match action.state {
                RetransmitActionState::Inactive => {
                    available.get_or_insert(index);
                }
                RetransmitActionState::Delayed | RetransmitActionState::Lingering => {
                    if action.covers(term_id, term_offset, destination) {
                        return Err(NakOutcome::Duplicate);
                    }
                    if !self.has_group_semantics {
                        // Unicast has one action: a NAK for other data replaces it.
                        available = Some(index);
                    }
                }
            }
        }
        match available {
            Some(index) if self.has_group_semantics => {
                self.active_count += 1;
                Ok(index)
            }
            Some(index) => Ok(index),
            None => Err(NakOutcome::Overflow),
        }
    }

    /// Handles a NAK for a term of `term_length` from `destination` (see above);
    /// `resend(term_id, term_offset, length, destination)` sends the data now if no
    /// retransmit delay is configured.
    #[allow(clippy::too_many_arguments)] // one NAK and what judging it needs
    pub fn on_nak(
        &mut self,
        nak: &Nak,
        destination: Option<SocketAddr>,
        term_length: usize,
        mtu_length: usize,
        flow_control: &dyn FlowControl,
        now_ns: i64,
        mut resend: impl FnMut(i32, i32, usize, Option<SocketAddr>) -> Result<()>,
    ) -> Result<NakOutcome> {
        let last_valid = term_length as i64 - DATA_HEADER_LENGTH as i64;
        if nak.term_offset < 0 || i64::from(nak.term_offset) > last_valid {
            return Ok(NakOutcome::Invalid);
        }
        let requested = usize::try_from(nak.length).unwrap_or(0);
        let length = flow_control.max_retransmission_length(
            nak.term_offset as usize,
            requested,
            term_length,
            mtu_length,
        );
        let index = match self.find_slot(nak.term_id, nak.term_offset, destination) {
            Ok(index) => index,
            Err(outcome) => return Ok(outcome),
        };
        let action = &mut self.actions[index];
        action.term_id = nak.term_id;
        action.term_offset = nak.term_offset;
        action.length = length;
        action.destination = destination;
        if self.delay_ns == 0 {
            action.state = RetransmitActionState::Lingering;
            action.expiry_ns = now_ns.saturating_add(self.linger_ns);
            resend(nak.term_id, nak.term_offset, length, destination)?;
            Ok(NakOutcome::Resent(length))
        } else {
            action.state = RetransmitActionState::Delayed;
            action.expiry_ns = now_ns.saturating_add(self.delay_ns);
            Ok(NakOutcome::Delayed)
        }
    }

    /// Resends delayed actions whose delay has passed and retires lingering ones whose
    /// linger has passed. Returns how many actions changed state.
    pub fn process_timeouts(
        &mut self,
        now_ns: i64,
        mut resend: impl FnMut(i32, i32, usize, Option<SocketAddr>) -> Result<()>,
    ) -> Result<usize> {
        let mut changed = 0;
        if self.active_count == 0 {
            return Ok(0);
        }
        for action in self.actions.iter_mut() {
            match action.state {
                RetransmitActionState::Delayed if now_ns > action.expiry_ns => {
                    action.state = RetransmitActionState::Lingering;
                    action.expiry_ns = now_ns.saturating_add(self.linger_ns);
                    changed += 1;
                    resend(action.term_id, action.term_offset, action.length, action.destination)?;
                }
                RetransmitActionState::Lingering if now_ns > action.expiry_ns => {
                    action.state = RetransmitActionState::Inactive;
                    self.active_count = self.active_count.saturating_sub(1);
                    changed += 1;
                }
                _ => {}
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::flow_control::UnicastFlowControl;

    const TERM_ID: i32 = -2003285294;
    const TERM: usize = 65536;
    const MS: i64 = 1_000_000;

    fn nak(term_offset: i32, length: i32) -> Nak {
        Nak::new(1606141585, 1002, TERM_ID, term_offset, length)
    }

    struct Sent(Vec<(i32, i32, usize)>);

    impl Sent {
        fn record(&mut self) -> impl FnMut(i32, i32, usize, Option<SocketAddr>) -> Result<()> + '_ {
            |t, o, l, d| {
                assert_eq!(d, None);
                self.0.push((t, o, l));
                Ok(())
            }
        }
    }

    #[test]
    fn unicast_lingers_10ms_as_in_udp_loss_pcap() {
        // pcap: NAK 63232 at 30.255 ms → resent; NAK again at 40.297 ms (9.9 ms after the
        // resend, inside the linger) → ignored; again at 50.404 ms → resent.
        let fc = UnicastFlowControl::unicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, false, 16);
        let mut sent = Sent(Vec::new());
        let t0 = 30_255_000;
        assert_eq!(
            h.on_nak(&nak(63232, 1056), None, TERM, 1408, &fc, t0, sent.record()).unwrap(),
            NakOutcome::Resent(1056)
        );
        assert_eq!(h.process_timeouts(t0 + 10 * MS, sent.record()).unwrap(), 0, "expiry is exclusive");
        assert_eq!(
            h.on_nak(&nak(63232, 1056), None, TERM, 1408, &fc, 40_297_000, sent.record()).unwrap(),
            NakOutcome::Duplicate
        );
        assert_eq!(h.process_timeouts(t0 + 10 * MS + 1, sent.record()).unwrap(), 1);
        assert_eq!(h.actions()[0].state, RetransmitActionState::Inactive);
        assert_eq!(
            h.on_nak(&nak(63232, 1056), None, TERM, 1408, &fc, 50_404_000, sent.record()).unwrap(),
            NakOutcome::Resent(1056)
        );
        assert_eq!(sent.0, vec![(TERM_ID, 63232, 1056), (TERM_ID, 63232, 1056)]);
    }

    #[test]
    fn duplicates_are_naks_starting_inside_an_active_range() {
        let fc = UnicastFlowControl::unicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, false, 16);
        let mut sent = Sent(Vec::new());
        h.on_nak(&nak(23104, 2112), None, TERM, 1408, &fc, 0, sent.record()).unwrap();
        for offset in [23104, 24160, 25215] {
            assert_eq!(
                h.on_nak(&nak(offset, 1056), None, TERM, 1408, &fc, 1, sent.record()).unwrap(),
                NakOutcome::Duplicate
            );
        }
        // Outside the range, or another term: unicast reuses its single action at once.
        assert_eq!(
            h.on_nak(&nak(25216, 1056), None, TERM, 1408, &fc, 2, sent.record()).unwrap(),
            NakOutcome::Resent(1056)
        );
        let other_term = Nak { term_id: TERM_ID + 1, ..nak(25216, 1056) };
        assert_eq!(
            h.on_nak(&other_term, None, TERM, 1408, &fc, 3, sent.record()).unwrap(),
            NakOutcome::Resent(1056)
        );
        assert_eq!(sent.0.len(), 3);
        assert_eq!(h.actions().len(), 1);
    }

    #[test]
    fn invalid_offsets_and_length_limits() {
        let fc = UnicastFlowControl::unicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, false, 16);
        let mut sent = Sent(Vec::new());
        assert_eq!(
            h.on_nak(&nak(-32, 32), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Invalid
        );
        assert_eq!(
            h.on_nak(&nak(65536 - 31, 32), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Invalid
        );
        // The last frame slot is valid; the length is cut at the term end.
        assert_eq!(
            h.on_nak(&nak(65536 - 32, 4096), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Resent(32)
        );
        assert!(sent.0.iter().all(|s| s.2 == 32));
    }

    #[test]
    fn group_pool_overflows_after_max_resend_actions() {
        let fc = UnicastFlowControl::max_multicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, true, 3);
        let mut sent = Sent(Vec::new());
        for i in 0..3 {
            let outcome = h.on_nak(&nak(i * 4096, 1024), None, TERM, 1408, &fc, 0, sent.record()).unwrap();
            assert_eq!(outcome, NakOutcome::Resent(1024));
        }
        assert_eq!(
            h.on_nak(&nak(3 * 4096, 1024), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Overflow
        );
        // After the linger all three retire and the pool is free again.
        assert_eq!(h.process_timeouts(10 * MS + 1, sent.record()).unwrap(), 3);
        assert_eq!(
            h.on_nak(&nak(3 * 4096, 1024), None, TERM, 1408, &fc, 11 * MS, sent.record()).unwrap(),
            NakOutcome::Resent(1024)
        );
        assert_eq!(sent.0.len(), 4);
    }

    #[test]
    fn each_destination_that_asks_gets_the_range_once() {
        let fc = UnicastFlowControl::max_multicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, true, 16);
        let mut sent = Vec::new();
        let mut record = |t, o, l, d| {
            sent.push((t, o, l, d));
            Ok(())
        };
        let a: Option<SocketAddr> = Some("10.0.0.1:4000".parse().unwrap());
        let b: Option<SocketAddr> = Some("10.0.0.2:4000".parse().unwrap());
        assert_eq!(
            h.on_nak(&nak(1024, 512), a, TERM, 1408, &fc, 0, &mut record).unwrap(),
            NakOutcome::Resent(512)
        );
        assert_eq!(
            h.on_nak(&nak(1024, 512), b, TERM, 1408, &fc, 1, &mut record).unwrap(),
            NakOutcome::Resent(512)
        );
        assert_eq!(
            h.on_nak(&nak(1024, 512), a, TERM, 1408, &fc, 2, &mut record).unwrap(),
            NakOutcome::Duplicate
        );
        assert_eq!(
            h.on_nak(&nak(1280, 64), b, TERM, 1408, &fc, 3, &mut record).unwrap(),
            NakOutcome::Duplicate
        );
        assert_eq!(sent, vec![(TERM_ID, 1024, 512, a), (TERM_ID, 1024, 512, b)]);
    }

    #[test]
    fn multicast_answers_a_range_once_however_many_receivers_ask() {
        let fc = UnicastFlowControl::max_multicast();
        let mut h = RetransmitHandler::new(0, 10 * MS as u64, true, 16);
        let mut sent = Sent(Vec::new());
        // Three receivers of the group NAK the same loss within the linger: one resend.
        assert_eq!(
            h.on_nak(&nak(2048, 1024), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Resent(1024)
        );
        for t in [1, 2 * MS, 9 * MS] {
            assert_eq!(
                h.on_nak(&nak(2048, 1024), None, TERM, 1408, &fc, t, sent.record()).unwrap(),
                NakOutcome::Duplicate
            );
        }
        assert_eq!(sent.0.len(), 1);
        // After the linger a receiver still missing it is answered again.
        h.process_timeouts(10 * MS + 1, sent.record()).unwrap();
        assert_eq!(
            h.on_nak(&nak(2048, 1024), None, TERM, 1408, &fc, 11 * MS, sent.record()).unwrap(),
            NakOutcome::Resent(1024)
        );
    }

    #[test]
    fn delayed_retransmit_resends_after_the_delay_then_lingers() {
        let fc = UnicastFlowControl::unicast();
        let mut h = RetransmitHandler::new(MS as u64, 10 * MS as u64, true, 16);
        let mut sent = Sent(Vec::new());
        assert_eq!(
            h.on_nak(&nak(1056, 1056), None, TERM, 1408, &fc, 0, sent.record()).unwrap(),
            NakOutcome::Delayed
        );
        assert_eq!(
            h.on_nak(&nak(1056, 1056), None, TERM, 1408, &fc, 1, sent.record()).unwrap(),
            NakOutcome::Duplicate
        );
        assert!(sent.0.is_empty());
        assert_eq!(h.process_timeouts(MS, sent.record()).unwrap(), 0);
        assert_eq!(h.process_timeouts(MS + 1, sent.record()).unwrap(), 1);
        assert_eq!(sent.0, vec![(TERM_ID, 1056, 1056)]);
        assert_eq!(h.actions()[0].state, RetransmitActionState::Lingering);
        assert_eq!(h.actions()[0].expiry_ns, 11 * MS + 1);
        assert_eq!(h.process_timeouts(11 * MS + 2, sent.record()).unwrap(), 1);
        assert_eq!(h.actions()[0].state, RetransmitActionState::Inactive);
    }
}
