//! `LossDetector`: finds the first gap in an image's term between the rebuild position
//! and the high-water mark and times the NAK for it (`spec/flow-congestion-loss.md` §3.2,
//! Aeron C `aeron_loss_detector_scan`).
//!
//! One gap is tracked at a time. A gap at a different term id or offset than the active
//! one becomes active, reports "loss found" (for congestion control) and arms the timer
//! with the feedback delay; an unchanged gap keeps its timer, and — as in the C and Java
//! drivers — keeps the length it had when it became active. When the timer expires the
//! gap is handed to `on_gap` (which NAKs it, or pads it for unreliable streams) and the
//! timer re-arms with the retry delay.
#![forbid(unsafe_code)]

use super::feedback_delay::FeedbackDelay;
use crate::concurrent::AtomicBuffer;
use crate::logbuffer::term_gap_scanner::scan_for_gap;

/// A range of a term that has not been received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub term_id: i32,
    pub term_offset: i32,
    pub length: i32,
}

/// Where terms start: what turns positions into term ids and offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermGeometry {
    pub initial_term_id: i32,
    pub position_bits_to_shift: u32,
}

impl TermGeometry {
    pub fn term_length(&self) -> i64 {
        1i64 << self.position_bits_to_shift
    }
}

/// The result of one scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanOutcome {
    /// Offset in the rebuild term up to which the term is complete.
    pub rebuild_offset: i32,
    /// A new gap became active in this scan.
    pub loss_found: bool,
}

#[derive(Debug, Clone)]
pub struct LossDetector {
    delay: FeedbackDelay,
    active: Option<Gap>,
    expiry_ns: i64,
}

impl LossDetector {
    pub fn new(delay: FeedbackDelay) -> Self {
        Self { delay, active: None, expiry_ns: i64::MAX }
    }

    /// The gap being NAKed, if any.
    pub fn active_gap(&self) -> Option<Gap> {
        self.active
    }

    /// Scans `term` (the partition holding `rebuild_position`) from the rebuild position up
    /// to `hwm_position` (or the term's end if the high-water mark is in a later term).
    pub fn scan(
        &mut self,
        term: &AtomicBuffer,
        rebuild_position: i64,
        hwm_position: i64,
        geometry: TermGeometry,
        now_ns: i64,
        mut on_gap: impl FnMut(Gap),
    ) -> ScanOutcome {
        let bits = geometry.position_bits_to_shift;
        let mask = geometry.term_length() - 1;
        let mut rebuild_offset = (rebuild_position & mask) as i32;
        let mut loss_found = false;
        if rebuild_position < hwm_position {
            let rebuild_term_count = (rebuild_position >> bits) as i32;
            let hwm_term_count = (hwm_position >> bits) as i32;
            let rebuild_term_id = geometry.initial_term_id.wrapping_add(rebuild_term_count);
            let limit_offset = if rebuild_term_count == hwm_term_count {
                (hwm_position & mask) as usize
            } else {
                mask as usize + 1
            };
            let mut scanned = None;
            let offset =
                scan_for_gap(term, rebuild_term_id, rebuild_offset as usize, limit_offset, |t, o, l| {
                    scanned = Some(Gap { term_id: t, term_offset: o as i32, length: l as i32 })
                });
            rebuild_offset = offset as i32;
            if let Some(gap) = scanned {
                let same =
                    self.active.is_some_and(|a| a.term_id == gap.term_id && a.term_offset == gap.term_offset);
                if !same {
                    self.active = Some(gap);
                    self.expiry_ns = now_ns.saturating_add(self.delay.delay_ns(false));
                    loss_found = true;
                }
                if now_ns >= self.expiry_ns {
                    if let Some(active) = self.active {
                        on_gap(active);
                    }
                    self.expiry_ns = now_ns.saturating_add(self.delay.delay_ns(true));
                }
            }
        }
        ScanOutcome { rebuild_offset, loss_found }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TERM_ID: i32 = -2003285294;
    const GEOMETRY: TermGeometry = TermGeometry { initial_term_id: TERM_ID, position_bits_to_shift: 16 };
    const US: i64 = 1_000;
    const MS: i64 = 1_000_000;

    /// A 64 KiB term holding 1056-byte frames (1032 bytes + padding to 32) at `offsets`.
    fn term_with(offsets: &[usize]) -> AtomicBuffer {
        let term = AtomicBuffer::alloc(65536);
        for &o in offsets {
            term.put_i32_release(o, 1032);
        }
        term
    }

    fn detector() -> LossDetector {
        LossDetector::new(FeedbackDelay::unicast(100_000, 100))
    }

    #[test]
    fn naks_after_the_delay_then_every_retry_delay() {
        // udp-loss.pcap: F10 at 15712 lost, F11.. at 16768.. received.
        let received: Vec<usize> = (0..15).map(|i| i * 1056 + 5152).filter(|&o| o != 15712).collect();
        let term = term_with(&received);
        let hwm = 5152 + 15 * 1056;
        let mut d = detector();
        let mut naks = Vec::new();
        let t0 = 1_000 * MS;
        let first = d.scan(&term, 5152, hwm, GEOMETRY, t0, |g| naks.push(g));
        assert_eq!(first, ScanOutcome { rebuild_offset: 15712, loss_found: true });
        assert!(naks.is_empty(), "not before the 100 µs delay");
        let again = d.scan(&term, 15712, hwm, GEOMETRY, t0 + 99 * US, |g| naks.push(g));
        assert_eq!(again, ScanOutcome { rebuild_offset: 15712, loss_found: false });
        d.scan(&term, 15712, hwm, GEOMETRY, t0 + 100 * US, |g| naks.push(g));
        assert_eq!(naks, vec![Gap { term_id: TERM_ID, term_offset: 15712, length: 1056 }]);
        // Retry only after 10 ms (the pcap's repeated NAKs of 63232 are 10 ms apart).
        d.scan(&term, 15712, hwm, GEOMETRY, t0 + 100 * US + 10 * MS - 1, |g| naks.push(g));
        assert_eq!(naks.len(), 1);
        d.scan(&term, 15712, hwm, GEOMETRY, t0 + 100 * US + 10 * MS, |g| naks.push(g));
        assert_eq!(naks.len(), 2);
    }

    #[test]
    fn a_filled_gap_moves_on_to_the_next_one() {
        // Two lost fillers: 23104 and 24160 form one 2112-byte gap (as the pcap's NAK).
        let mut received: Vec<usize> = (0..12).map(|i| 19936 + i * 1056).collect();
        received.retain(|&o| o != 23104 && o != 24160 && o != 26272);
        let term = term_with(&received);
        let hwm = (19936 + 12 * 1056) as i64;
        let mut d = detector();
        let mut naks = Vec::new();
        let first = d.scan(&term, 19936, hwm, GEOMETRY, 0, |g| naks.push(g));
        assert_eq!(first, ScanOutcome { rebuild_offset: 23104, loss_found: true });
        d.scan(&term, 23104, hwm, GEOMETRY, 100 * US, |g| naks.push(g));
        assert_eq!(naks, vec![Gap { term_id: TERM_ID, term_offset: 23104, length: 2112 }]);
        // The retransmission fills the first half only: the gap now starts at 24160, which
        // is a new gap with its own delay.
        term.put_i32_release(23104, 1032);
        let partial = d.scan(&term, 23104, hwm, GEOMETRY, 200 * US, |g| naks.push(g));
        assert_eq!(partial, ScanOutcome { rebuild_offset: 24160, loss_found: true });
        term.put_i32_release(24160, 1032);
        let next = d.scan(&term, 24160, hwm, GEOMETRY, 300 * US, |g| naks.push(g));
        assert_eq!(next, ScanOutcome { rebuild_offset: 26272, loss_found: true });
        // 24160 was never NAKed: it was replaced before its delay ran out.
        d.scan(&term, 26272, hwm, GEOMETRY, 400 * US, |g| naks.push(g));
        assert_eq!(naks.len(), 2);
        assert_eq!(naks[1], Gap { term_id: TERM_ID, term_offset: 26272, length: 1056 });
        term.put_i32_release(26272, 1032);
        let done = d.scan(&term, 26272, hwm, GEOMETRY, 500 * US, |g| naks.push(g));
        assert_eq!(done, ScanOutcome { rebuild_offset: hwm as i32, loss_found: false });
    }

    #[test]
    fn same_offset_keeps_the_length_it_was_activated_with() {
        let term = term_with(&[0, 4224]);
        let mut d = detector();
        let mut naks = Vec::new();
        d.scan(&term, 0, 5280, GEOMETRY, 0, |g| naks.push(g));
        assert_eq!(d.active_gap(), Some(Gap { term_id: TERM_ID, term_offset: 1056, length: 3168 }));
        // 3168 arrives: the gap at 1056 is now 2112 long, but it is the same gap.
        term.put_i32_release(3168, 1032);
        let outcome = d.scan(&term, 1056, 5280, GEOMETRY, 100 * US, |g| naks.push(g));
        assert!(!outcome.loss_found);
        assert_eq!(naks, vec![Gap { term_id: TERM_ID, term_offset: 1056, length: 3168 }]);
    }

    #[test]
    fn hwm_in_the_next_term_scans_to_the_end_of_this_one() {
        let term = term_with(&[0]);
        let mut d = detector();
        let mut naks = Vec::new();
        let outcome = d.scan(&term, 0, 65536 + 1056, GEOMETRY, 0, |g| naks.push(g));
        assert_eq!(outcome, ScanOutcome { rebuild_offset: 1056, loss_found: true });
        assert_eq!(d.active_gap(), Some(Gap { term_id: TERM_ID, term_offset: 1056, length: 65536 - 1056 }));
        // Next term: the term id follows the position (and wraps past i32::MAX).
        let geometry = TermGeometry { initial_term_id: i32::MAX, position_bits_to_shift: 16 };
        let next_term = term_with(&[]);
        d.scan(&next_term, 65536, 65536 + 1056, geometry, 0, |g| naks.push(g));
        assert_eq!(d.active_gap().unwrap().term_id, i32::MIN);
        // Nothing to scan when rebuild has caught up with the high-water mark.
        let idle = d.scan(&next_term, 65536 + 1056, 65536 + 1056, geometry, 0, |g| naks.push(g));
        assert_eq!(idle, ScanOutcome { rebuild_offset: 1056, loss_found: false });
    }

    #[test]
    fn zero_delay_naks_on_the_first_scan() {
        let term = term_with(&[1056]);
        let mut d = LossDetector::new(FeedbackDelay::unicast(0, 100));
        let mut naks = Vec::new();
        d.scan(&term, 0, 2112, GEOMETRY, 5, |g| naks.push(g));
        assert_eq!(naks, vec![Gap { term_id: TERM_ID, term_offset: 0, length: 1056 }]);
    }
}
