//! Unicast (and max multicast) flow control (`spec/flow-congestion-loss.md` §1.2): the
//! sender limit is the furthest window edge any receiver has reported,
//! `max(snd_lmt, sm_position + receiver_window)`. Idle and SETUP leave it unchanged, and a
//! publication always has the receivers it needs. Unicast and max differ only in how much
//! of a NAK they resend at once.
#![forbid(unsafe_code)]

use super::retransmission_length::{
    MAX_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE, UNICAST_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE,
    retransmission_length,
};
use super::{FlowControl, ReceiverStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnicastFlowControl {
    retransmit_receiver_window_multiple: usize,
}

impl UnicastFlowControl {
    /// The unicast strategy (`aeron_unicast_flow_control_strategy_supplier`).
    pub const fn unicast() -> Self {
        Self { retransmit_receiver_window_multiple: UNICAST_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE }
    }

    /// The max multicast strategy (`aeron_max_multicast_flow_control_strategy_supplier`).
    pub const fn max_multicast() -> Self {
        Self { retransmit_receiver_window_multiple: MAX_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE }
    }
}

impl FlowControl for UnicastFlowControl {
    fn on_status_message(
        &mut self,
        status: &ReceiverStatus,
        sender_limit: i64,
        initial_term_id: i32,
        position_bits_to_shift: u32,
        _now_ns: i64,
    ) -> i64 {
        sender_limit.max(status.window_edge(initial_term_id, position_bits_to_shift))
    }

    fn on_idle(
        &mut self,
        _now_ns: i64,
        sender_limit: i64,
        _sender_position: i64,
        _is_end_of_stream: bool,
    ) -> i64 {
        sender_limit
    }

    fn on_setup(&mut self, _now_ns: i64, sender_limit: i64, _sender_position: i64) -> i64 {
        sender_limit
    }

    fn on_trigger_send_setup(&mut self, _status: &ReceiverStatus, _now_ns: i64) {}

    fn on_error(&mut self, _receiver_id: i64, _group_tag: Option<i64>, _now_ns: i64) {}

    fn has_required_receivers(&self) -> bool {
        true
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
            self.retransmit_receiver_window_multiple,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm(term_id: i32, term_offset: i32, window: i32) -> ReceiverStatus {
        ReceiverStatus {
            flags: 0,
            consumption_term_id: term_id,
            consumption_term_offset: term_offset,
            receiver_window: window,
            receiver_id: 7817558738737205717,
            group_tag: None,
            has_malformed_group_tag: false,
        }
    }

    #[test]
    fn sender_limit_follows_the_furthest_window_edge() {
        // udp-session.pcap: 64 KiB terms (16 bits), initial term id 1476212330, window 32768.
        let (initial, bits) = (1476212330, 16);
        let mut fc = UnicastFlowControl::unicast();
        let mut limit = 0;
        limit = fc.on_status_message(&sm(initial, 0, 32768), limit, initial, bits, 0);
        assert_eq!(limit, 32768);
        limit = fc.on_status_message(&sm(initial, 15712, 32768), limit, initial, bits, 1);
        assert_eq!(limit, 48480);
        // An SM in the next term: position 65536 + window.
        limit = fc.on_status_message(&sm(initial + 1, 0, 32768), limit, initial, bits, 2);
        assert_eq!(limit, 98304);
        // A late SM with an older position never lowers the limit.
        assert_eq!(fc.on_status_message(&sm(initial, 4224, 32768), limit, initial, bits, 3), 98304);
        assert_eq!(fc.on_idle(4, limit, 69760, false), 98304);
        assert_eq!(fc.on_setup(5, limit, 69760), 98304);
        assert!(fc.has_required_receivers());
    }

    #[test]
    fn status_from_a_parsed_frame() {
        use crate::protocol::status_message::StatusMessageFlyweight;
        // udp-session.pcap pkt 66: SM at term 1476212331 offset 0, window 32768.
        let mut frame = [0u8; 36];
        frame[0..4].copy_from_slice(&36i32.to_le_bytes());
        frame[6..8].copy_from_slice(&3u16.to_le_bytes());
        frame[16..20].copy_from_slice(&1476212331i32.to_le_bytes());
        frame[24..28].copy_from_slice(&32768i32.to_le_bytes());
        let status = ReceiverStatus::from(&StatusMessageFlyweight::parse(&frame).unwrap());
        assert_eq!(status.window_edge(1476212330, 16), 98304);
        assert!(!status.is_end_of_stream());
    }

    #[test]
    fn term_ids_wrap() {
        let mut fc = UnicastFlowControl::unicast();
        let limit = fc.on_status_message(&sm(i32::MIN, 100, 1000), 0, i32::MAX, 16, 0);
        assert_eq!(limit, 65536 + 100 + 1000);
    }

    #[test]
    fn unicast_and_max_resend_different_multiples() {
        let term = 16 << 20;
        assert_eq!(UnicastFlowControl::unicast().max_retransmission_length(0, 64 << 20, term, 1408), 2 << 20);
        assert_eq!(
            UnicastFlowControl::max_multicast().max_retransmission_length(0, 64 << 20, term, 1408),
            512 << 10
        );
    }
}
