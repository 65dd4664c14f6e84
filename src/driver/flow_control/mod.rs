//! Flow control: how far ahead of its receivers a network publication may send (the
//! sender limit, `snd-lmt`), decided in the sender from status messages
//! (`spec/flow-congestion-loss.md` §1): unicast and max in `unicast`, min and tagged in
//! `min`, both behind the [`FlowControl`] trait; [`supplier`] picks one for a channel.
//!
//! The receiver-side window that the SMs advertise is in `receiver_window`.
#![forbid(unsafe_code)]

pub(crate) mod min;
pub(crate) mod receiver_window;
pub(crate) mod retransmission_length;
pub mod supplier;
pub(crate) mod unicast;

pub use min::{MAX_TRACKED_RECEIVERS, MinMulticastFlowControl};
pub use supplier::{FlowControlDefaults, FlowControlKind, FlowControlSelection, flow_control_for_channel};
pub use unicast::UnicastFlowControl;

use crate::logbuffer::descriptor::compute_position;
use crate::protocol::status_message::StatusMessageFlyweight;

pub use crate::protocol::status_message::{SM_EOS_FLAG, SM_SEND_SETUP_FLAG};

/// What flow control reads from a status message (the sender fills it from the frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiverStatus {
    pub flags: u8,
    pub consumption_term_id: i32,
    pub consumption_term_offset: i32,
    pub receiver_window: i32,
    pub receiver_id: i64,
    /// The SM's group tag when it carried exactly 8 optional bytes.
    pub group_tag: Option<i64>,
    /// The SM carried optional bytes that are not a group tag (neither 0 nor 8 of them);
    /// `group_tag` is then `None`. Tagged flow control reports it (Aeron logs it).
    pub has_malformed_group_tag: bool,
}

impl From<&StatusMessageFlyweight<'_>> for ReceiverStatus {
    fn from(sm: &StatusMessageFlyweight<'_>) -> Self {
        let group_tag = sm.group_tag();
        Self {
            flags: sm.flags(),
            consumption_term_id: sm.consumption_term_id(),
            consumption_term_offset: sm.consumption_term_offset(),
            receiver_window: sm.receiver_window(),
            receiver_id: sm.receiver_id(),
            group_tag: group_tag.unwrap_or(None),
            has_malformed_group_tag: group_tag.is_err(),
        }
    }
}

impl ReceiverStatus {
    /// The receiver's consumption position.
    pub fn position(&self, initial_term_id: i32, position_bits_to_shift: u32) -> i64 {
        compute_position(
            self.consumption_term_id,
            self.consumption_term_offset,
            position_bits_to_shift,
            initial_term_id,
        )
    }

    /// How far the receiver lets the sender go: position + window.
    pub fn window_edge(&self, initial_term_id: i32, position_bits_to_shift: u32) -> i64 {
        self.position(initial_term_id, position_bits_to_shift) + i64::from(self.receiver_window)
    }

    pub fn is_end_of_stream(&self) -> bool {
        self.flags & SM_EOS_FLAG != 0
    }
}

/// A flow-control strategy of one network publication. Every method runs in the sender
/// duty cycle and must not allocate or block.
pub trait FlowControl: Send {
    /// The new sender limit after a status message.
    fn on_status_message(
        &mut self,
        status: &ReceiverStatus,
        sender_limit: i64,
        initial_term_id: i32,
        position_bits_to_shift: u32,
        now_ns: i64,
    ) -> i64;

    /// The new sender limit in a duty cycle that sent nothing.
    fn on_idle(
        &mut self,
        now_ns: i64,
        sender_limit: i64,
        sender_position: i64,
        is_end_of_stream: bool,
    ) -> i64;

    /// The new sender limit when the publication sends an elicited SETUP.
    fn on_setup(&mut self, now_ns: i64, sender_limit: i64, sender_position: i64) -> i64;

    /// A receiver asked for a SETUP (SM with the SEND_SETUP flag).
    fn on_trigger_send_setup(&mut self, status: &ReceiverStatus, now_ns: i64);

    /// A receiver sent an ERR frame (its image was rejected).
    fn on_error(&mut self, receiver_id: i64, group_tag: Option<i64>, now_ns: i64);

    /// Whether enough receivers are known for the publication to count as connected.
    fn has_required_receivers(&self) -> bool;

    /// How many status messages had optional bytes that are not a group tag, for a
    /// strategy that reads group tags (tagged); 0 for the others. The publication turns
    /// this into an error-log entry off the strategy's path, so the strategy never
    /// allocates or logs for it.
    fn malformed_group_tags(&self) -> u64 {
        0
    }

    /// How many bytes to resend for a NAK of `resend_length` at `term_offset`.
    fn max_retransmission_length(
        &self,
        term_offset: usize,
        resend_length: usize,
        term_length: usize,
        mtu_length: usize,
    ) -> usize;
}
