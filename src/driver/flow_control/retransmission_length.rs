//! How much of a NAKed range the sender resends at once (`spec/flow-congestion-loss.md`
//! §4.2, Aeron `aeron_flow_control_calculate_retransmission_length`): at most the rest of
//! the term, and at most an estimate of the receiver window times a per-strategy multiple.
//! The estimate uses the *default* initial window (128 KiB), not the configured one, since
//! the sender cannot know the receiver's setting.
#![forbid(unsafe_code)]

use super::receiver_window::{DEFAULT_INITIAL_WINDOW_LENGTH, receiver_window_length};

/// Unicast strategy's multiple of the estimated receiver window.
pub const UNICAST_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE: usize = 16;
/// Max multicast strategy's multiple.
pub const MAX_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE: usize = 4;
/// Min and tagged multicast strategies' multiple.
pub const MIN_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE: usize = 16;

pub fn retransmission_length(
    resend_length: usize,
    term_length: usize,
    term_offset: usize,
    receiver_window_multiple: usize,
) -> usize {
    let estimated_window = receiver_window_length(DEFAULT_INITIAL_WINDOW_LENGTH, term_length);
    let max_length = estimated_window.saturating_mul(receiver_window_multiple);
    let to_term_end = term_length.saturating_sub(term_offset);
    resend_length.min(to_term_end).min(max_length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_of_nak_term_end_and_window_multiple() {
        // The C unit cases: resend length smallest; clamped to the term end; to the window.
        assert_eq!(retransmission_length(1024, 64 * 1024, 0, 16), 1024);
        assert_eq!(retransmission_length(1024, 64 * 1024, 64 * 1024 - 512, 16), 512);
        let huge = 1 << 30;
        assert_eq!(retransmission_length(huge, huge, 0, 16), 128 * 1024 * 16);
        // A 1 MiB term: estimate min(512 KiB, 128 KiB); max multicast allows 4 × 128 KiB.
        assert_eq!(
            retransmission_length(1 << 20, 1 << 20, 0, MAX_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE),
            512 * 1024
        );
        assert_eq!(
            retransmission_length(2112, 65536, 23104, UNICAST_RETRANSMIT_RECEIVER_WINDOW_MULTIPLE),
            2112
        );
        assert_eq!(retransmission_length(100, 65536, 65536, 16), 0);
    }
}
