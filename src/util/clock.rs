//! Monotonic nanosecond and epoch millisecond clocks.
#![forbid(unsafe_code)]

use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Monotonic nanoseconds since an arbitrary process-local origin. Never crosses process
/// boundaries (Aeron only ships monotonic values on the wire as opaque RTT echoes).
#[inline]
pub fn nano_time() -> i64 {
    origin().elapsed().as_nanos() as i64
}

/// Wall-clock milliseconds since the Unix epoch, the unit of every timestamp Aeron keeps in
/// shared memory.
#[inline]
pub fn epoch_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Wall-clock nanoseconds since the Unix epoch.
#[inline]
pub fn epoch_ns() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nano_time_is_monotonic() {
        let a = nano_time();
        let b = nano_time();
        assert!(b >= a);
    }

    #[test]
    fn epoch_ms_is_after_2020() {
        assert!(epoch_ms() > 1_577_836_800_000);
        assert!(epoch_ns() / 1_000_000 >= epoch_ms() - 1000);
    }
}
