//! CUBIC congestion control (`cc=cubic`, RFC 8312 shaped as Aeron's C driver does it;
//! `spec/flow-congestion-loss.md` §2.3). The window is `cwnd × mtu`, with `cwnd` counted
//! in MTUs between 1 and `max_window / mtu`:
//!
//! * start: `cwnd = min(10, max_cwnd)`, `w_max = max_cwnd`, `K = ∛(w_max·B/C)`;
//! * loss: force an SM, `w_max = cwnd`, recompute `K`, `cwnd = max(1, ⌊cwnd·(1−B)⌋)`;
//! * otherwise, at most once per window-update timeout (the initial RTT), with `t` the
//!   seconds since the last loss: `cwnd = min(max_cwnd, w_max + trunc(C·(t−K)³))` —
//!   truncated toward zero as C's `(int32_t)` cast does, which `udp-rttm.pcap` confirms
//!   (the first grown window is 19 MTUs, not 18); in TCP mode, while below `w_max`, at
//!   least `⌊w_max·(1−B) + 3B/(2−B) · t/rtt⌋` (not capped by `max_cwnd`, as in C);
//! * with `cwnd == 1`, force an SM whenever consumption moved past the last SM.
//!
//! RTT is measured (when enabled) every `4 × max(rtt, initial rtt)`.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use super::{CongestionControl, RebuildProgress, WindowDecision};
use crate::concurrent::AtomicBuffer;
use crate::driver::context::DriverContext;
use crate::driver::flow_control::receiver_window::receiver_window_length;

/// CUBIC scaling constant.
pub const C: f64 = 0.4;
/// Multiplicative decrease factor.
pub const B: f64 = 0.2;
/// Initial congestion window, in MTUs.
pub const INITCWND: i32 = 10;
/// RTT measurement period as a multiple of the RTT.
pub const RTT_TIMEOUT_MULTIPLE: i64 = 4;
const SECOND_NS: f64 = 1_000_000_000.0;

/// `AERON_CUBICCONGESTIONCONTROL_*` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubicSettings {
    pub measure_rtt: bool,
    pub initial_rtt_ns: i64,
    pub tcp_mode: bool,
}

impl Default for CubicSettings {
    fn default() -> Self {
        Self { measure_rtt: false, initial_rtt_ns: 100_000, tcp_mode: false }
    }
}

impl CubicSettings {
    pub fn from_context(ctx: &DriverContext) -> Self {
        Self {
            measure_rtt: ctx.cubic_measure_rtt,
            initial_rtt_ns: i64::try_from(ctx.cubic_initial_rtt_ns).unwrap_or(i64::MAX),
            tcp_mode: ctx.cubic_tcp_mode,
        }
    }
}

/// The image's `rcv-cc-cubic-rtt` and `rcv-cc-cubic-wnd` counter values (8-byte views),
/// which the conductor allocates (type 10, per-image) and this strategy keeps current.
#[derive(Debug, Clone)]
pub struct CubicIndicators {
    pub rtt: AtomicBuffer,
    pub window: AtomicBuffer,
}

fn cube_root_of_w_max(w_max: i32) -> f64 {
    (f64::from(w_max) * B / C).cbrt()
}

#[derive(Debug)]
pub struct CubicCongestionControl {
    settings: CubicSettings,
    mtu: i32,
    max_cwnd: i32,
    initial_window_length: i32,
    max_window_length: i32,
    window_update_timeout_ns: i64,
    rtt_ns: i64,
    rtt_timeout_ns: i64,
    last_rtt_timestamp_ns: i64,
    last_loss_timestamp_ns: i64,
    last_update_timestamp_ns: i64,
    k: f64,
    cwnd: i32,
    w_max: i32,
    indicators: Option<CubicIndicators>,
}

impl CubicCongestionControl {
    /// For an image of `term_length` from a sender with `sender_mtu_length`, whose
    /// subscription's initial window is `initial_window_length`, created at `now_ns`.
    pub fn new(
        settings: CubicSettings,
        initial_window_length: usize,
        term_length: usize,
        sender_mtu_length: i32,
        now_ns: i64,
        indicators: Option<CubicIndicators>,
    ) -> Self {
        let mtu = sender_mtu_length.max(1);
        let max_window_length =
            i32::try_from(receiver_window_length(initial_window_length, term_length)).unwrap_or(i32::MAX);
        let max_cwnd = max_window_length / mtu;
        let cwnd = max_cwnd.min(INITCWND);
        let rtt_ns = settings.initial_rtt_ns;
        let this = Self {
            settings,
            mtu,
            max_cwnd,
            initial_window_length: cwnd * mtu,
            max_window_length,
            window_update_timeout_ns: rtt_ns,
            rtt_ns,
            rtt_timeout_ns: rtt_ns.saturating_mul(RTT_TIMEOUT_MULTIPLE),
            last_rtt_timestamp_ns: 0,
            last_loss_timestamp_ns: now_ns,
            last_update_timestamp_ns: now_ns,
            k: cube_root_of_w_max(max_cwnd),
            cwnd,
            w_max: max_cwnd,
            indicators,
        };
        if let Some(indicators) = &this.indicators {
            // Release: counter readers (aeron-stat) see whole values, as C's set_ordered.
            indicators.rtt.put_i64_release(0, 0);
            indicators.window.put_i64_release(0, i64::from(this.initial_window_length));
        }
        this
    }

    /// The congestion window in MTUs.
    #[cfg(test)]
    pub fn cwnd(&self) -> i32 {
        self.cwnd
    }

    #[cfg(test)]
    pub fn max_cwnd(&self) -> i32 {
        self.max_cwnd
    }

    /// The latest RTT sample (or the initial RTT).
    #[cfg(test)]
    pub fn rtt_ns(&self) -> i64 {
        self.rtt_ns
    }
}

impl CongestionControl for CubicCongestionControl {
    fn should_measure_rtt(&self, now_ns: i64) -> bool {
        self.settings.measure_rtt && self.last_rtt_timestamp_ns.saturating_add(self.rtt_timeout_ns) < now_ns
    }

    fn on_rttm_sent(&mut self, now_ns: i64) {
        self.last_rtt_timestamp_ns = now_ns;
    }

    fn on_rttm(&mut self, now_ns: i64, rtt_ns: i64, _source: SocketAddr) {
        self.last_rtt_timestamp_ns = now_ns;
        self.rtt_ns = rtt_ns;
        self.rtt_timeout_ns = rtt_ns.max(self.settings.initial_rtt_ns).saturating_mul(RTT_TIMEOUT_MULTIPLE);
        if let Some(indicators) = &self.indicators {
            indicators.rtt.put_i64_release(0, rtt_ns);
        }
    }

    fn on_track_rebuild(&mut self, now_ns: i64, progress: &RebuildProgress) -> WindowDecision {
        let mut force_status_message = false;
        if progress.loss_occurred {
            force_status_message = true;
            self.w_max = self.cwnd;
            self.k = cube_root_of_w_max(self.w_max);
            // `as i32` truncates like C's (int32_t) cast of a non-negative double.
            self.cwnd = ((f64::from(self.cwnd) * (1.0 - B)) as i32).max(1);
            self.last_loss_timestamp_ns = now_ns;
        } else if self.cwnd < self.max_cwnd
            && self.last_update_timestamp_ns.saturating_add(self.window_update_timeout_ns) < now_ns
        {
            let since_loss_s = (now_ns - self.last_loss_timestamp_ns) as f64 / SECOND_NS;
            let diff_to_k = since_loss_s - self.k;
            let increment = (C * diff_to_k * diff_to_k * diff_to_k) as i32;
            self.cwnd = self.w_max.saturating_add(increment).min(self.max_cwnd);
            if self.settings.tcp_mode && self.cwnd < self.w_max {
                let rtt_s = self.rtt_ns as f64 / SECOND_NS;
                let w_tcp =
                    f64::from(self.w_max) * (1.0 - B) + (3.0 * B / (2.0 - B)) * (since_loss_s / rtt_s);
                self.cwnd = self.cwnd.max(w_tcp as i32);
            }
            self.last_update_timestamp_ns = now_ns;
        } else if self.cwnd == 1 && progress.new_consumption_position > progress.last_sm_position {
            force_status_message = true;
        }
        let window_length = self.cwnd.saturating_mul(self.mtu);
        if let Some(indicators) = &self.indicators {
            indicators.window.put_i64_release(0, i64::from(window_length));
        }
        WindowDecision { window_length, force_status_message }
    }

    fn initial_window_length(&self) -> i32 {
        self.initial_window_length
    }

    fn max_window_length(&self) -> i32 {
        self.max_window_length
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const START: i64 = 1_000 * MS;

    fn progress(loss: bool) -> RebuildProgress {
        RebuildProgress {
            new_consumption_position: 0,
            last_sm_position: 0,
            hwm_position: 0,
            starting_rebuild_position: 0,
            ending_rebuild_position: 0,
            loss_occurred: loss,
        }
    }

    fn rttm_run(indicators: Option<CubicIndicators>) -> CubicCongestionControl {
        // udp-rttm.pcap: 64 KiB term, MTU 1408, default 128 KiB window, initial RTT 50 ms.
        let settings = CubicSettings { measure_rtt: true, initial_rtt_ns: 50 * MS, tcp_mode: false };
        CubicCongestionControl::new(settings, 128 * 1024, 65536, 1408, START, indicators)
    }

    #[test]
    fn window_grows_as_in_udp_rttm_pcap() {
        let buffer = AtomicBuffer::alloc(128);
        let indicators =
            CubicIndicators { rtt: buffer.view(0, 8).unwrap(), window: buffer.view(64, 8).unwrap() };
        let mut cc = rttm_run(Some(indicators));
        assert_eq!((cc.max_cwnd(), cc.cwnd()), (23, 10));
        assert_eq!((cc.initial_window_length(), cc.max_window_length()), (14080, 32768));
        assert_eq!(buffer.get_i64(64), 14080);
        // Before the update timeout (the initial RTT, 50 ms) nothing changes.
        assert_eq!(cc.on_track_rebuild(START + 50 * MS, &progress(false)).window_length, 14080);
        // K = ∛(23·0.2/0.4) = 2.2572 s; at t = 50 ms: 23 + trunc(0.4·(0.05 − K)³ = −4.30).
        let grown = cc.on_track_rebuild(START + 50 * MS + 1, &progress(false));
        assert_eq!(grown, WindowDecision { window_length: 26752, force_status_message: false });
        assert_eq!(buffer.get_i64(64), 26752);
        // The later windows of the capture: 28160 (20), 29568 (21), 30976 (22), 32384 (23).
        // trunc(0.4·(t − K)³) reaches −3 at t = 103 ms, −2 at 300 ms, −1 at 548 ms, 0 at
        // 900 ms; each update waits 50 ms after the previous one.
        let at =
            |cc: &mut CubicCongestionControl, ms: i64| cc.on_track_rebuild(START + ms * MS, &progress(false));
        assert_eq!(at(&mut cc, 103).window_length, 28160);
        assert_eq!(at(&mut cc, 299).window_length, 28160);
        assert_eq!(at(&mut cc, 300).window_length, 28160, "within 50 ms of the last update");
        assert_eq!(at(&mut cc, 350).window_length, 29568);
        assert_eq!(at(&mut cc, 548).window_length, 30976);
        assert_eq!(at(&mut cc, 899).window_length, 30976);
        assert_eq!(at(&mut cc, 950).window_length, 32384);
        assert_eq!(at(&mut cc, 9000).window_length, 32384);
        assert_eq!(cc.cwnd(), cc.max_cwnd());
    }

    #[test]
    fn loss_cuts_the_window_and_forces_a_status_message() {
        let mut cc = rttm_run(None);
        cc.on_track_rebuild(START + 2000 * MS, &progress(false));
        assert_eq!(cc.cwnd(), 23);
        let cut = cc.on_track_rebuild(START + 2001 * MS, &progress(true));
        // ⌊23 × 0.8⌋ = 18 MTUs.
        assert_eq!(cut, WindowDecision { window_length: 18 * 1408, force_status_message: true });
        // Right after the loss t ≈ 0 and K = ∛11.5 again: back to 23 − 4 = 19.
        let next = cc.on_track_rebuild(START + 2052 * MS, &progress(false));
        assert_eq!(next.window_length, 19 * 1408);
        // Repeated losses: 19 → 15 → 12 → 9 → 7 → 5 → 4 → 3 → 2 → 1, never below 1.
        let mut cwnds = Vec::new();
        for i in 0..11 {
            cc.on_track_rebuild(START + (2100 + i) * MS, &progress(true));
            cwnds.push(cc.cwnd());
        }
        assert_eq!(cwnds, vec![15, 12, 9, 7, 5, 4, 3, 2, 1, 1, 1]);
    }

    #[test]
    fn minimal_window_forces_status_messages_while_consumption_moves() {
        let settings = CubicSettings { measure_rtt: false, initial_rtt_ns: 100_000, tcp_mode: false };
        let mut cc = CubicCongestionControl::new(settings, 128 * 1024, 65536, 1408, START, None);
        for _ in 0..12 {
            cc.on_track_rebuild(START, &progress(true));
        }
        assert_eq!(cc.cwnd(), 1);
        // Within the update timeout (100 µs) the window is not recomputed.
        let moved =
            RebuildProgress { new_consumption_position: 2048, last_sm_position: 1024, ..progress(false) };
        let decision = cc.on_track_rebuild(START + 50_000, &moved);
        assert_eq!(decision, WindowDecision { window_length: 1408, force_status_message: true });
        let still =
            RebuildProgress { new_consumption_position: 1024, last_sm_position: 1024, ..progress(false) };
        assert!(!cc.on_track_rebuild(START + 60_000, &still).force_status_message);
    }

    #[test]
    fn tcp_mode_floor_after_loss() {
        let settings = CubicSettings { measure_rtt: false, initial_rtt_ns: 100_000, tcp_mode: true };
        let mut cc = CubicCongestionControl::new(settings, 128 * 1024, 65536, 1408, START, None);
        cc.on_track_rebuild(START + 3000 * MS, &progress(false));
        assert_eq!(cc.cwnd(), 23);
        cc.on_track_rebuild(START + 3000 * MS, &progress(true));
        assert_eq!(cc.cwnd(), 18);
        // t = 1 ms: cubic gives 23 + trunc(−4.60) = 19; TCP gives ⌊18.4 + (0.6/1.8)·(1 ms/100 µs)⌋ = 21.
        cc.on_track_rebuild(START + 3001 * MS, &progress(false));
        assert_eq!(cc.cwnd(), 21);
    }

    #[test]
    fn rtt_measurement_schedule() {
        let buffer = AtomicBuffer::alloc(128);
        let indicators =
            CubicIndicators { rtt: buffer.view(0, 8).unwrap(), window: buffer.view(64, 8).unwrap() };
        let mut cc = rttm_run(Some(indicators));
        let source: SocketAddr = "127.0.0.1:20122".parse().unwrap();
        // Never measured: due at once. Then every 4 × max(rtt, 50 ms) = 200 ms.
        assert!(cc.should_measure_rtt(START));
        cc.on_rttm_sent(START);
        assert!(!cc.should_measure_rtt(START + 200 * MS));
        assert!(cc.should_measure_rtt(START + 200 * MS + 1));
        // udp-rttm.pcap's counter: rcv-cc-cubic-rtt = 219998 ns.
        cc.on_rttm(START + 10 * MS, 219_998, source);
        assert_eq!((cc.rtt_ns(), buffer.get_i64(0)), (219_998, 219_998));
        assert!(!cc.should_measure_rtt(START + 210 * MS));
        assert!(cc.should_measure_rtt(START + 210 * MS + 1));
        // A sample above the initial RTT stretches the period: 4 × 300 ms.
        cc.on_rttm(START + 300 * MS, 300 * MS, source);
        assert!(!cc.should_measure_rtt(START + 1500 * MS));
        assert!(cc.should_measure_rtt(START + 1500 * MS + 1));
        let off = CubicCongestionControl::new(CubicSettings::default(), 131072, 65536, 1408, START, None);
        assert!(!off.should_measure_rtt(i64::MAX));
    }
}
