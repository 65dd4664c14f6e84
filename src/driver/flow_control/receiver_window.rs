//! The receiver window advertised in status messages (`spec/flow-congestion-loss.md` §2):
//! the initial window is the subscription's `rcv-wnd` or `AERON_RCV_INITIAL_WINDOW_LENGTH`
//! (default 128 KiB), and the window used is at most half a term.
#![forbid(unsafe_code)]

use crate::util::error::{Error, Result};

/// `AERON_RCV_INITIAL_WINDOW_LENGTH` default.
pub const DEFAULT_INITIAL_WINDOW_LENGTH: usize = 128 * 1024;

/// The window a receiver advertises: `min(term_length / 2, initial_window_length)`.
pub fn receiver_window_length(initial_window_length: usize, term_length: usize) -> usize {
    (term_length / 2).min(initial_window_length)
}

/// An image cannot be built for a sender whose MTU exceeds the receiver's initial window.
pub fn check_mtu_within_window(sender_mtu_length: usize, initial_window_length: usize) -> Result<()> {
    if sender_mtu_length > initial_window_length {
        return Err(Error::invalid_argument(format!(
            "sender MTU {sender_mtu_length} greater than the initial receiver window {initial_window_length}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_half_a_term_at_most() {
        // udp-session.pcap: 64 KiB term, default window → SMs advertise 32768.
        assert_eq!(receiver_window_length(DEFAULT_INITIAL_WINDOW_LENGTH, 65536), 32768);
        assert_eq!(receiver_window_length(DEFAULT_INITIAL_WINDOW_LENGTH, 16 << 20), 131072);
        assert_eq!(receiver_window_length(8192, 16 << 20), 8192);
    }

    #[test]
    fn mtu_must_fit_the_initial_window() {
        check_mtu_within_window(1408, 131072).unwrap();
        check_mtu_within_window(4096, 4096).unwrap();
        let err = check_mtu_within_window(8192, 4096).unwrap_err();
        assert!(err.message().contains("sender MTU 8192"), "{err}");
    }
}
