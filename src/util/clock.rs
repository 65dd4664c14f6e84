//! Monotonic nanosecond and epoch millisecond clocks.
#![forbid(unsafe_code)]

use std::time::{SystemTime, UNIX_EPOCH};

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`, from boot): the same clock as Aeron's C
/// `aeron_nano_clock` and Java's `System.nanoTime`, so a stamp taken in one process can be
/// compared in another on the same host. Aeron only ships these values on the wire as
/// opaque RTT echoes.
#[inline]
pub fn nano_time() -> i64 {
    crate::util::sys::monotonic_ns()
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
