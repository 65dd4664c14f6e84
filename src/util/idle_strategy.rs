//! Idle strategies: what an agent thread does when a duty cycle found no work.
//!
//! Names follow Aeron's C driver (`backoff`, `sleeping`/`sleep-ns`, `yield`, `spin`, `noop`)
//! and Java's Agrona class names, with `..._INIT_ARGS` parsed the same way.
#![forbid(unsafe_code)]

use std::time::Duration;

use crate::util::config::parse_duration_ns;
use crate::util::error::{Error, Result};

/// Aeron's backoff defaults: 10 spins, 20 yields, then park from 1 µs doubling to 1 ms.
pub const DEFAULT_MAX_SPINS: u64 = 10;
pub const DEFAULT_MAX_YIELDS: u64 = 20;
/// Yields of the driver's default idle strategy ([`IdleStrategy::default`]): none. When
/// other threads busy-spin on every CPU (a small machine running a spinning application),
/// `sched_yield` hands the CPU to a spinner for its whole time slice (milliseconds), so an
/// agent that backs off by yielding is starved: Aeron's yielding backoff measured a UDP
/// round trip p50 of 8–20 ms here, parking straight after the spins about 0.2 ms.
pub const DRIVER_DEFAULT_MAX_YIELDS: u64 = 0;
pub const DEFAULT_MIN_PARK_NS: u64 = 1_000;
pub const DEFAULT_MAX_PARK_NS: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BackoffPhase {
    NotIdle,
    Spinning,
    Yielding,
    Parking,
}

/// The parameters and progress of a backoff idle strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    pub max_spins: u64,
    pub max_yields: u64,
    pub min_park_ns: u64,
    pub max_park_ns: u64,
    phase: BackoffPhase,
    spins: u64,
    yields: u64,
    park_ns: u64,
}

impl Backoff {
    pub fn new(max_spins: u64, max_yields: u64, min_park_ns: u64, max_park_ns: u64) -> Result<Self> {
        if min_park_ns == 0 || max_park_ns < min_park_ns {
            return Err(Error::invalid_argument(format!(
                "backoff park periods must satisfy 0 < min ({min_park_ns}) <= max ({max_park_ns})"
            )));
        }
        Ok(Self {
            max_spins,
            max_yields,
            min_park_ns,
            max_park_ns,
            phase: BackoffPhase::NotIdle,
            spins: 0,
            yields: 0,
            park_ns: min_park_ns,
        })
    }

    fn idle(&mut self, park: impl FnOnce(Duration)) {
        match self.phase {
            BackoffPhase::NotIdle => {
                self.phase = BackoffPhase::Spinning;
                self.spins = 1;
                std::hint::spin_loop();
            }
            BackoffPhase::Spinning => {
                std::hint::spin_loop();
                self.spins += 1;
                if self.spins > self.max_spins {
                    self.yields = 0;
                    // With no yields configured, the next idle parks.
                    self.phase =
                        if self.max_yields == 0 { BackoffPhase::Parking } else { BackoffPhase::Yielding };
                    self.park_ns = self.min_park_ns;
                }
            }
            BackoffPhase::Yielding => {
                self.yields += 1;
                if self.yields > self.max_yields {
                    self.phase = BackoffPhase::Parking;
                    self.park_ns = self.min_park_ns;
                } else {
                    std::thread::yield_now();
                }
            }
            BackoffPhase::Parking => {
                park(Duration::from_nanos(self.park_ns));
                self.park_ns = (self.park_ns * 2).min(self.max_park_ns);
            }
        }
    }

    fn reset(&mut self) {
        self.phase = BackoffPhase::NotIdle;
        self.spins = 0;
        self.yields = 0;
        self.park_ns = self.min_park_ns;
    }
}

/// What to do when there was no work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdleStrategy {
    /// Return immediately (the caller loops).
    Noop,
    /// Spin with a CPU pause hint; lowest latency, burns a core.
    BusySpin,
    /// `sched_yield` each time.
    Yield,
    /// Sleep a fixed period each time.
    Sleep(Duration),
    /// Spin, then yield, then park with exponential backoff.
    Backoff(Backoff),
}

impl Default for IdleStrategy {
    /// The driver agents' default: Aeron's backoff without its yields
    /// ([`DRIVER_DEFAULT_MAX_YIELDS`]). By name (`backoff`) Aeron's own is built.
    fn default() -> Self {
        Self::Backoff(
            Backoff::new(
                DEFAULT_MAX_SPINS,
                DRIVER_DEFAULT_MAX_YIELDS,
                DEFAULT_MIN_PARK_NS,
                DEFAULT_MAX_PARK_NS,
            )
            .expect("default backoff parameters are valid"),
        )
    }
}

impl IdleStrategy {
    pub fn backoff_default() -> Self {
        Self::Backoff(
            Backoff::new(DEFAULT_MAX_SPINS, DEFAULT_MAX_YIELDS, DEFAULT_MIN_PARK_NS, DEFAULT_MAX_PARK_NS)
                .expect("default backoff parameters are valid"),
        )
    }

    /// Idles if `work_count` is 0, otherwise resets any backoff.
    #[inline]
    pub fn idle(&mut self, work_count: i32) {
        if work_count > 0 {
            self.reset();
        } else {
            self.idle_once();
        }
    }

    /// As [`idle`](Self::idle), with `park` doing the backoff's parking instead of
    /// `std::thread::park_timeout` (an agent that can wait for its input waits on it).
    #[inline]
    pub fn idle_with(&mut self, work_count: i32, park: impl FnOnce(Duration)) {
        match self {
            Self::Backoff(b) if work_count <= 0 => b.idle(park),
            _ => self.idle(work_count),
        }
    }

    /// One idle step regardless of work.
    #[inline]
    pub fn idle_once(&mut self) {
        match self {
            Self::Noop => {}
            Self::BusySpin => std::hint::spin_loop(),
            Self::Yield => std::thread::yield_now(),
            Self::Sleep(period) => std::thread::sleep(*period),
            Self::Backoff(b) => b.idle(std::thread::park_timeout),
        }
    }

    /// Forgets any backoff progress (called after a cycle that did work).
    #[inline]
    pub fn reset(&mut self) {
        if let Self::Backoff(b) = self {
            b.reset();
        }
    }

    /// Aeron's name for this strategy.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Noop => "noop",
            Self::BusySpin => "spin",
            Self::Yield => "yield",
            Self::Sleep(_) => "sleep-ns",
            Self::Backoff(_) => "backoff",
        }
    }

    /// Builds a strategy from an Aeron C name or an Agrona class name, with optional init
    /// args: a duration for sleeping (`100us`), or
    /// `max_spins,max_yields,min_park,max_park` for backoff.
    pub fn from_name(name: &str, init_args: Option<&str>) -> Result<Self> {
        let simple = name.trim().rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        match simple.as_str() {
            "noop" | "noopidlestrategy" | "aeron_idle_strategy_noop" => Ok(Self::Noop),
            "spin" | "busyspin" | "busyspinidlestrategy" | "aeron_idle_strategy_busy_spinning" => {
                Ok(Self::BusySpin)
            }
            "yield" | "yieldingidlestrategy" | "aeron_idle_strategy_yielding" => Ok(Self::Yield),
            "sleeping"
            | "sleep-ns"
            | "sleepingidlestrategy"
            | "sleepingmillisidlestrategy"
            | "aeron_idle_strategy_sleeping" => {
                let ns = match init_args {
                    Some(a) if !a.trim().is_empty() => parse_duration_ns("idle strategy init args", a)?,
                    _ => 1_000,
                };
                Ok(Self::Sleep(Duration::from_nanos(ns)))
            }
            "backoff" | "backoffidlestrategy" | "aeron_idle_strategy_backoff" => match init_args {
                Some(a) if !a.trim().is_empty() => {
                    // Aeron C separates the four values with '-' (no value is negative);
                    // ',' is accepted as well.
                    let separator = if a.contains(',') { ',' } else { '-' };
                    let parts: Vec<&str> = a.split(separator).map(str::trim).collect();
                    if parts.len() != 4 {
                        return Err(Error::invalid_argument(format!(
                            "backoff init args {a:?} must be max_spins-max_yields-min_park-max_park"
                        )));
                    }
                    let count = |s: &str| {
                        s.parse::<u64>().map_err(|_| {
                            Error::invalid_argument(format!("backoff init args {a:?}: {s:?} is not a count"))
                        })
                    };
                    Ok(Self::Backoff(Backoff::new(
                        count(parts[0])?,
                        count(parts[1])?,
                        parse_duration_ns("backoff min park", parts[2])?,
                        parse_duration_ns("backoff max park", parts[3])?,
                    )?))
                }
                _ => Ok(Self::backoff_default()),
            },
            _ => Err(Error::invalid_argument(format!(
                "unknown idle strategy {name:?} (backoff, sleeping, sleep-ns, yield, spin, noop)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_like_aeron() {
        assert_eq!(IdleStrategy::from_name("spin", None).unwrap(), IdleStrategy::BusySpin);
        assert_eq!(IdleStrategy::from_name("yield", None).unwrap(), IdleStrategy::Yield);
        assert_eq!(
            IdleStrategy::from_name("sleep-ns", Some("100us")).unwrap(),
            IdleStrategy::Sleep(Duration::from_micros(100))
        );
        assert_eq!(
            IdleStrategy::from_name("org.agrona.concurrent.BusySpinIdleStrategy", None).unwrap(),
            IdleStrategy::BusySpin
        );
        assert_eq!(IdleStrategy::from_name("backoff", None).unwrap(), IdleStrategy::backoff_default());
        let custom = IdleStrategy::from_name("backoff", Some("1,2,1us,1ms")).unwrap();
        let IdleStrategy::Backoff(b) = custom else { panic!("expected backoff") };
        assert_eq!((b.max_spins, b.max_yields, b.min_park_ns, b.max_park_ns), (1, 2, 1_000, 1_000_000));
        let dashed = IdleStrategy::from_name("aeron_idle_strategy_backoff", Some("3-4-2us-8us")).unwrap();
        let IdleStrategy::Backoff(b) = dashed else { panic!("expected backoff") };
        assert_eq!((b.max_spins, b.max_yields, b.min_park_ns, b.max_park_ns), (3, 4, 2_000, 8_000));
        assert_eq!(
            IdleStrategy::from_name("aeron_idle_strategy_yielding", None).unwrap(),
            IdleStrategy::Yield
        );
        assert!(IdleStrategy::from_name("bogus", None).is_err());
        assert!(IdleStrategy::from_name("backoff", Some("1,2")).is_err());
        assert!(IdleStrategy::from_name("backoff", Some("1,2,5ms,1ms")).is_err());
    }

    #[test]
    fn driver_default_parks_after_spinning_without_yielding() {
        let mut s = IdleStrategy::default();
        let mut parks = Vec::new();
        for _ in 0..(DEFAULT_MAX_SPINS + 4) {
            s.idle_with(0, |period| parks.push(period.as_nanos() as u64));
        }
        // 10 spins (the first idle starts spinning), then parks of 1, 2, 4 µs: no idle
        // is spent yielding.
        assert_eq!(parks, [1_000, 2_000, 4_000]);
        s.idle_with(3, |_| panic!("work resets, it does not park"));
        let IdleStrategy::Backoff(b) = &s else { unreachable!() };
        assert_eq!((b.phase, b.max_yields), (BackoffPhase::NotIdle, DRIVER_DEFAULT_MAX_YIELDS));
        assert_ne!(
            IdleStrategy::default(),
            IdleStrategy::backoff_default(),
            "by name: Aeron's yielding backoff"
        );
    }

    #[test]
    fn backoff_progresses_through_phases_and_resets() {
        let mut s = IdleStrategy::from_name("backoff", Some("2,2,1us,4us")).unwrap();
        for _ in 0..10 {
            s.idle(0);
        }
        let IdleStrategy::Backoff(b) = &s else { unreachable!() };
        assert_eq!(b.phase, BackoffPhase::Parking);
        assert_eq!(b.park_ns, 4_000, "park period doubles up to the max");
        s.idle(1);
        let IdleStrategy::Backoff(b) = &s else { unreachable!() };
        assert_eq!(b.phase, BackoffPhase::NotIdle);
    }
}
