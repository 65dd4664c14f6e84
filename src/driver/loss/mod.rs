//! Loss: the receiver's loss detector and NAK timing, the sender's retransmit handler and
//! resend, and the loss report file (`spec/flow-congestion-loss.md` §3-4,
//! `spec/driver.md` §10.1).
#![forbid(unsafe_code)]

pub(crate) mod feedback_delay;
pub(crate) mod loss_detector;
pub mod loss_report;
pub mod resend;
pub mod retransmit_handler;

pub use feedback_delay::FeedbackDelay;
pub use loss_detector::{Gap, LossDetector, ScanOutcome, TermGeometry};
pub use loss_report::{LossReport, read_loss_report};
pub use retransmit_handler::{NakOutcome, RetransmitHandler};
