//! How long an agent's duty cycles take (system counters 26-31), and how long name
//! resolutions take (32-33): the longest interval seen, and how many exceeded the
//! configured threshold (`AERON_DRIVER_*_CYCLE_THRESHOLD`, `..._NAME_RESOLVER_THRESHOLD`).
//!
//! As in Aeron, a tracker is told `update(now)` once when its agent starts (the name
//! resolver: before each lookup or resolution) and `measure_and_update(now)` at the start
//! of every duty cycle (after each lookup or resolution). A tracker supplied in code
//! (`aeron_driver_context_set_*_duty_cycle_tracker`) replaces the built-in one, as it does
//! in Aeron: the counters then stay at zero unless the supplied tracker writes them.
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

use crate::driver::position_counters::Position;

/// A duty-cycle tracker supplied in code. Called on the agent's thread only.
pub trait DutyCycleTrackerHooks: Send + Sync {
    /// The interval being timed starts at `now_ns`.
    fn update(&self, now_ns: i64);
    /// The interval ends at `now_ns` (and the next one starts).
    fn measure_and_update(&self, now_ns: i64);
}

/// A shared handle to a supplied tracker (a context setting, cloned into the driver).
#[derive(Clone)]
pub struct SuppliedDutyCycleTracker(pub Arc<dyn DutyCycleTrackerHooks>);

impl fmt::Debug for SuppliedDutyCycleTracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SuppliedDutyCycleTracker")
    }
}

/// The built-in tracker: Aeron's stall tracker over two system counters.
#[derive(Debug, Clone)]
struct StallTracker {
    max_cycle_time: Position,
    threshold_exceeded: Position,
    threshold_ns: i64,
    last_update_ns: i64,
    max_cycle_ns: i64,
}

#[derive(Debug, Clone)]
enum Tracker {
    BuiltIn(StallTracker),
    Supplied(SuppliedDutyCycleTracker),
}

/// One agent's (or the name resolver's) tracker: the built-in one unless one was supplied.
#[derive(Debug, Clone)]
pub struct DutyCycleTracker {
    tracker: Tracker,
}

impl DutyCycleTracker {
    /// The built-in tracker writing `max_cycle_time` and counting intervals longer than
    /// `threshold_ns` in `threshold_exceeded`; or `supplied` instead, when given.
    pub fn new(
        max_cycle_time: Position,
        threshold_exceeded: Position,
        threshold_ns: u64,
        supplied: Option<SuppliedDutyCycleTracker>,
    ) -> Self {
        let tracker = match supplied {
            Some(s) => Tracker::Supplied(s),
            None => Tracker::BuiltIn(StallTracker {
                max_cycle_time,
                threshold_exceeded,
                threshold_ns: i64::try_from(threshold_ns).unwrap_or(i64::MAX),
                last_update_ns: 0,
                max_cycle_ns: 0,
            }),
        };
        Self { tracker }
    }

    /// Starts timing at `now_ns` (an agent's start; before a name lookup).
    #[inline]
    pub fn update(&mut self, now_ns: i64) {
        match &mut self.tracker {
            Tracker::BuiltIn(t) => t.last_update_ns = now_ns,
            Tracker::Supplied(s) => s.0.update(now_ns),
        }
    }

    /// Ends the interval at `now_ns`, counts it, and starts the next one.
    #[inline]
    pub fn measure_and_update(&mut self, now_ns: i64) {
        match &mut self.tracker {
            Tracker::BuiltIn(t) => t.measure_and_update(now_ns),
            Tracker::Supplied(s) => s.0.measure_and_update(now_ns),
        }
    }
}

impl StallTracker {
    #[inline]
    fn measure_and_update(&mut self, now_ns: i64) {
        // Never updated (an agent driven without `on_start`): this only starts timing,
        // rather than counting the time since boot as one cycle.
        if self.last_update_ns != 0 {
            let cycle = now_ns - self.last_update_ns;
            if cycle > self.max_cycle_ns {
                self.max_cycle_ns = cycle;
                self.max_cycle_time.set_release(cycle);
            }
            if cycle > self.threshold_ns {
                self.threshold_exceeded.add(1);
            }
        }
        self.last_update_ns = now_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use std::sync::Mutex;

    #[test]
    fn records_the_longest_cycle_and_counts_slow_ones() {
        let values = AtomicBuffer::alloc(256);
        let mut t = DutyCycleTracker::new(Position::new(&values, 0), Position::new(&values, 1), 100, None);
        t.measure_and_update(1000);
        assert_eq!(values.get_i64(0), 0, "never updated: the first call only starts timing");
        t.measure_and_update(1050);
        t.measure_and_update(1200);
        t.measure_and_update(1210);
        assert_eq!(values.get_i64(0), 150);
        assert_eq!(values.get_i64(128), 1, "only the 150 ns cycle exceeded 100 ns");
        t.update(5000);
        t.measure_and_update(5400);
        assert_eq!(values.get_i64(0), 400, "timed from the update");
        assert_eq!(values.get_i64(128), 2);
    }

    #[derive(Default)]
    struct Recorder(Mutex<Vec<(&'static str, i64)>>);

    impl DutyCycleTrackerHooks for Recorder {
        fn update(&self, now_ns: i64) {
            self.0.lock().unwrap().push(("update", now_ns));
        }

        fn measure_and_update(&self, now_ns: i64) {
            self.0.lock().unwrap().push(("measure", now_ns));
        }
    }

    #[test]
    fn a_supplied_tracker_replaces_the_built_in_one() {
        let values = AtomicBuffer::alloc(256);
        let recorder = Arc::new(Recorder::default());
        let supplied = SuppliedDutyCycleTracker(recorder.clone());
        let mut t =
            DutyCycleTracker::new(Position::new(&values, 0), Position::new(&values, 1), 0, Some(supplied));
        t.update(10);
        t.measure_and_update(20);
        t.measure_and_update(2000);
        assert_eq!(*recorder.0.lock().unwrap(), vec![("update", 10), ("measure", 20), ("measure", 2000)]);
        assert_eq!(
            (values.get_i64(0), values.get_i64(128)),
            (0, 0),
            "the counters are the built-in tracker's"
        );
    }
}
