//! How long an agent's duty cycles take (system counters 26-31): the longest cycle seen,
//! and how many exceeded the configured threshold (`AERON_DRIVER_*_CYCLE_THRESHOLD`).
#![forbid(unsafe_code)]

use crate::driver::position_counters::Position;

#[derive(Debug, Clone)]
pub struct DutyCycleTracker {
    max_cycle_time: Position,
    threshold_exceeded: Position,
    threshold_ns: i64,
    last_cycle_ns: i64,
    max_cycle_ns: i64,
}

impl DutyCycleTracker {
    pub fn new(max_cycle_time: Position, threshold_exceeded: Position, threshold_ns: u64) -> Self {
        Self {
            max_cycle_time,
            threshold_exceeded,
            threshold_ns: i64::try_from(threshold_ns).unwrap_or(i64::MAX),
            last_cycle_ns: 0,
            max_cycle_ns: 0,
        }
    }

    /// Call at the start of each duty cycle with the current time.
    #[inline]
    pub fn measure_and_update(&mut self, now_ns: i64) {
        if self.last_cycle_ns != 0 {
            let cycle = now_ns - self.last_cycle_ns;
            if cycle > self.max_cycle_ns {
                self.max_cycle_ns = cycle;
                self.max_cycle_time.set_release(cycle);
            }
            if cycle > self.threshold_ns {
                self.threshold_exceeded.add(1);
            }
        }
        self.last_cycle_ns = now_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    #[test]
    fn records_the_longest_cycle_and_counts_slow_ones() {
        let values = AtomicBuffer::alloc(256);
        let mut t = DutyCycleTracker::new(Position::new(&values, 0), Position::new(&values, 1), 100);
        t.measure_and_update(1000);
        assert_eq!(values.get_i64(0), 0, "first call only starts timing");
        t.measure_and_update(1050);
        t.measure_and_update(1200);
        t.measure_and_update(1210);
        assert_eq!(values.get_i64(0), 150);
        assert_eq!(values.get_i64(128), 1, "only the 150 ns cycle exceeded 100 ns");
    }
}
