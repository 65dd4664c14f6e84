//! Congestion control: the window a receiver advertises in its status messages, decided
//! per image each time the conductor tracks the image's rebuild
//! (`spec/flow-congestion-loss.md` §2). Static window (`cc=static`, the default) and CUBIC
//! (`cc=cubic`) implement [`CongestionControl`]; [`supplier`] picks one per channel.
#![forbid(unsafe_code)]

pub(crate) mod cubic;
pub(crate) mod static_window;
pub(crate) mod supplier;

use std::net::SocketAddr;

pub use cubic::{CubicCongestionControl, CubicIndicators, CubicSettings};
pub use static_window::StaticWindowCongestionControl;
pub use supplier::{CongestionControlKind, congestion_control_for_channel};

/// Where the image's rebuild stands when congestion control is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RebuildProgress {
    /// Minimum subscriber position: where the next SM would say consumption is.
    pub new_consumption_position: i64,
    /// Position of the last SM sent.
    pub last_sm_position: i64,
    /// Highest position received.
    pub hwm_position: i64,
    pub starting_rebuild_position: i64,
    pub ending_rebuild_position: i64,
    /// The loss detector found a new gap in this scan.
    pub loss_occurred: bool,
}

/// What congestion control decided for the next status message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowDecision {
    /// Receiver window to advertise.
    pub window_length: i32,
    /// Send an SM now even if the position has not moved enough.
    pub force_status_message: bool,
}

/// A congestion-control strategy of one publication image. Called from the conductor
/// (track rebuild) and the receiver (RTT measurement); must not allocate or block.
pub trait CongestionControl: Send {
    /// Whether the receiver should send an RTT measurement request now.
    fn should_measure_rtt(&self, now_ns: i64) -> bool;

    /// The receiver sent an RTT measurement request.
    fn on_rttm_sent(&mut self, now_ns: i64);

    /// An RTT sample arrived from `source`.
    fn on_rttm(&mut self, now_ns: i64, rtt_ns: i64, source: SocketAddr);

    /// The window for the next status message, after a rebuild scan.
    fn on_track_rebuild(&mut self, now_ns: i64, progress: &RebuildProgress) -> WindowDecision;

    /// The window advertised before the first rebuild.
    fn initial_window_length(&self) -> i32;

    /// The largest window this strategy advertises.
    fn max_window_length(&self) -> i32;
}
