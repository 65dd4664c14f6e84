//! Static-window congestion control (`cc=static`, the default): the window is always the
//! receiver window length, `min(term_length / 2, initial window)`; never forces a status
//! message and never measures RTT.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use super::{CongestionControl, RebuildProgress, WindowDecision};
use crate::driver::flow_control::receiver_window::receiver_window_length;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticWindowCongestionControl {
    window_length: i32,
}

impl StaticWindowCongestionControl {
    /// For an image with `term_length` whose subscription's initial window (`rcv-wnd` or
    /// the driver's) is `initial_window_length`.
    pub fn new(initial_window_length: usize, term_length: usize) -> Self {
        let window = receiver_window_length(initial_window_length, term_length);
        Self { window_length: i32::try_from(window).unwrap_or(i32::MAX) }
    }
}

impl CongestionControl for StaticWindowCongestionControl {
    fn should_measure_rtt(&self, _now_ns: i64) -> bool {
        false
    }

    fn on_rttm_sent(&mut self, _now_ns: i64) {}

    fn on_rttm(&mut self, _now_ns: i64, _rtt_ns: i64, _source: SocketAddr) {}

    fn on_track_rebuild(&mut self, _now_ns: i64, _progress: &RebuildProgress) -> WindowDecision {
        WindowDecision { window_length: self.window_length, force_status_message: false }
    }

    fn initial_window_length(&self) -> i32 {
        self.window_length
    }

    fn max_window_length(&self) -> i32 {
        self.window_length
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_fixed() {
        // udp-session.pcap: 64 KiB term, 128 KiB default window → 32768 in every SM.
        let mut cc = StaticWindowCongestionControl::new(128 * 1024, 65536);
        assert_eq!((cc.initial_window_length(), cc.max_window_length()), (32768, 32768));
        let progress = RebuildProgress {
            new_consumption_position: 1 << 20,
            last_sm_position: 0,
            hwm_position: 1 << 20,
            starting_rebuild_position: 0,
            ending_rebuild_position: 0,
            loss_occurred: true,
        };
        let decision = cc.on_track_rebuild(1, &progress);
        assert_eq!(decision, WindowDecision { window_length: 32768, force_status_message: false });
        assert!(!cc.should_measure_rtt(i64::MAX));
        assert_eq!(StaticWindowCongestionControl::new(128 * 1024, 16 << 20).initial_window_length(), 131072);
        assert_eq!(StaticWindowCongestionControl::new(4096, 16 << 20).max_window_length(), 4096);
    }
}
