//! When the sender and the receiver next look for endpoints whose names should be resolved
//! again: every `AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL` (0: never).
#![forbid(unsafe_code)]

use crate::util::clock::nano_time;

#[derive(Debug)]
pub(crate) struct ReResolutionCheck {
    interval_ns: i64,
    deadline_ns: i64,
}

impl ReResolutionCheck {
    pub fn new(interval_ns: u64) -> Self {
        let interval_ns = i64::try_from(interval_ns).unwrap_or(i64::MAX);
        Self { interval_ns, deadline_ns: nano_time().saturating_add(interval_ns) }
    }

    /// Whether a check is due at `now_ns`; if so the next one is an interval later.
    #[inline]
    pub fn is_due(&mut self, now_ns: i64) -> bool {
        if self.interval_ns <= 0 || now_ns <= self.deadline_ns {
            return false;
        }
        self.deadline_ns = now_ns.saturating_add(self.interval_ns);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_once_per_interval_and_never_with_zero() {
        let mut check = ReResolutionCheck::new(1000);
        let start = check.deadline_ns - 1000;
        assert!(!check.is_due(start + 1000), "the deadline itself is not past");
        assert!(check.is_due(start + 1001));
        assert!(!check.is_due(start + 1500));
        assert!(check.is_due(start + 2002));
        let mut never = ReResolutionCheck::new(0);
        assert!(!never.is_due(i64::MAX));
    }
}
