//! How long a receiver waits before NAKing a gap, and before NAKing it again
//! (`spec/flow-congestion-loss.md` §3.3).
//!
//! * Unicast images: a static delay, `AERON_NAK_UNICAST_DELAY` (100 µs) or the
//!   subscription's `nak-delay`, and a retry delay of that times
//!   `AERON_NAK_UNICAST_RETRY_DELAY_RATIO` (100, so 10 ms).
//! * Images treated as multicast: the "optimal multicast" random back-off with maximum
//!   `T = AERON_NAK_MULTICAST_MAX_BACKOFF` (10 ms) for a group of
//!   `N = AERON_NAK_MULTICAST_GROUP_SIZE` (10) receivers, a fresh draw every time:
//!   with `λ = ln N + 1`, `delay = T/λ · ln((U·λ/T + λ/(T(e^λ − 1))) · (e^λ − 1)·T/λ)` for
//!   `U` uniform in `[0, 1)`, truncated to whole nanoseconds, so `0 ≤ delay < T`.
//!
//! The C driver draws `U` from `drand48` seeded once with the clock; here the caller
//! supplies the seed so tests can reproduce a sequence.
#![forbid(unsafe_code)]

use crate::driver::context::DriverContext;
use crate::util::rand48::Rand48;

/// The optimal multicast back-off's constants and its random source.
#[derive(Debug, Clone)]
pub struct OptimalMulticastDelay {
    rand_max: f64,
    base_x: f64,
    constant_t: f64,
    factor_t: f64,
    random: Rand48,
}

impl OptimalMulticastDelay {
    pub fn new(max_backoff_ns: u64, group_size: u32, seed: u32) -> Self {
        let lambda = f64::from(group_size.max(1)).ln() + 1.0;
        let max_backoff = max_backoff_ns as f64;
        let e_lambda_minus_1 = lambda.exp() - 1.0;
        Self {
            rand_max: lambda / max_backoff,
            base_x: lambda / (max_backoff * e_lambda_minus_1),
            constant_t: max_backoff / lambda,
            factor_t: e_lambda_minus_1 * (max_backoff / lambda),
            random: Rand48::from_srand48(seed),
        }
    }

    /// The delay for a given uniform draw `u` in `[0, 1)`.
    pub fn delay_for(&self, u: f64) -> i64 {
        let x = u * self.rand_max + self.base_x;
        (self.constant_t * (x * self.factor_t).ln()) as i64
    }

    fn generate(&mut self) -> i64 {
        let u = self.random.next_f64();
        self.delay_for(u)
    }
}

/// A feedback delay generator of one image.
#[derive(Debug, Clone)]
pub enum FeedbackDelay {
    Static { delay_ns: i64, retry_delay_ns: i64 },
    OptimalMulticast(OptimalMulticastDelay),
}

impl FeedbackDelay {
    /// The static unicast generator: `delay_ns`, retries after `delay_ns × retry_ratio`.
    pub fn unicast(delay_ns: u64, retry_ratio: u64) -> Self {
        let delay_ns = i64::try_from(delay_ns).unwrap_or(i64::MAX);
        let ratio = i64::try_from(retry_ratio).unwrap_or(i64::MAX);
        Self::Static { delay_ns, retry_delay_ns: delay_ns.saturating_mul(ratio) }
    }

    /// The generator for an image: optimal multicast when the image is treated as
    /// multicast, else static with the subscription's `nak-delay` or the driver's delay.
    /// `seed` seeds the multicast draws.
    pub fn for_image(
        ctx: &DriverContext,
        treat_as_multicast: bool,
        nak_delay_ns: Option<u64>,
        seed: u32,
    ) -> Self {
        if treat_as_multicast {
            Self::OptimalMulticast(OptimalMulticastDelay::new(
                ctx.nak_multicast_max_backoff_ns,
                ctx.nak_multicast_group_size,
                seed,
            ))
        } else {
            Self::unicast(nak_delay_ns.unwrap_or(ctx.nak_unicast_delay_ns), ctx.nak_unicast_retry_delay_ratio)
        }
    }

    /// The delay before the first NAK of a new gap (`retry = false`) or before repeating
    /// it (`retry = true`).
    #[inline]
    pub fn delay_ns(&mut self, retry: bool) -> i64 {
        match self {
            Self::Static { delay_ns, retry_delay_ns } => {
                if retry {
                    *retry_delay_ns
                } else {
                    *delay_ns
                }
            }
            Self::OptimalMulticast(generator) => generator.generate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicast_defaults_are_100us_and_10ms() {
        let ctx = DriverContext::default();
        let mut delay = FeedbackDelay::for_image(&ctx, false, None, 0);
        assert_eq!((delay.delay_ns(false), delay.delay_ns(true)), (100_000, 10_000_000));
        let mut custom = FeedbackDelay::for_image(&ctx, false, Some(2_000_000), 0);
        assert_eq!((custom.delay_ns(false), custom.delay_ns(true)), (2_000_000, 200_000_000));
        let mut immediate = FeedbackDelay::unicast(0, 100);
        assert_eq!((immediate.delay_ns(false), immediate.delay_ns(true)), (0, 0));
    }

    #[test]
    fn optimal_multicast_delay_spans_zero_to_max_backoff() {
        // T = 10 ms, N = 10 (the defaults); expected values from the formula in f64.
        let generator = OptimalMulticastDelay::new(10_000_000, 10, 0);
        assert_eq!(generator.delay_for(0.0), 0);
        assert_eq!(generator.delay_for(0.25), 6_119_383);
        assert_eq!(generator.delay_for(0.5), 8_010_589);
        assert_eq!(generator.delay_for(0.999999), 9_999_997);
    }

    /// The context's group size and maximum back-off reach a multicast image's generator:
    /// the same draws (seed 7) give the delays of the formula for those parameters.
    #[test]
    fn multicast_images_draw_with_the_context_group_size_and_back_off() {
        let ctx = DriverContext {
            nak_multicast_group_size: 1000,
            nak_multicast_max_backoff_ns: 50_000_000,
            ..Default::default()
        };
        let mut delay = FeedbackDelay::for_image(&ctx, true, None, 7);
        let draws: Vec<i64> = (0..4).map(|_| delay.delay_ns(false)).collect();
        let mut expected = OptimalMulticastDelay::new(50_000_000, 1000, 7);
        assert_eq!(draws, (0..4).map(|_| expected.generate()).collect::<Vec<_>>());
        let mut defaults = FeedbackDelay::for_image(&DriverContext::default(), true, None, 7);
        let default_draws: Vec<i64> = (0..4).map(|_| defaults.delay_ns(false)).collect();
        assert_eq!(default_draws, vec![6_287_406, 8_892_779, 6_277_913, 4_472_737]);
        // A larger group waits longer for the same draw (fewer receivers NAK early).
        let group_of_10 = OptimalMulticastDelay::new(50_000_000, 10, 0).delay_for(0.26644);
        assert!(draws[0] > group_of_10, "{} vs {group_of_10}", draws[0]);
    }

    #[test]
    fn optimal_multicast_draws_follow_drand48() {
        // srand48(7) then drand48(): 0.26644, 0.68204, 0.26549, 0.12911 → these delays.
        let ctx = DriverContext::default();
        let mut delay = FeedbackDelay::for_image(&ctx, true, Some(1), 7);
        let draws: Vec<i64> = (0..4).map(|i| delay.delay_ns(i % 2 == 1)).collect();
        assert_eq!(draws, vec![6_287_406, 8_892_779, 6_277_913, 4_472_737]);
        let mut many = OptimalMulticastDelay::new(10_000_000, 10, 99);
        assert!((0..10_000).map(|_| many.generate()).all(|d| (0..10_000_000).contains(&d)));
    }
}
