//! The 48-bit linear congruential generator of POSIX `drand48`/`erand48`
//! (`X' = (0x5DEECE66D · X + 0xB) mod 2^48`, result `X' / 2^48`).
//!
//! Aeron's C driver draws from this generator (glibc's `erand48`) for the loss-injection
//! interceptor and `drand48` for the optimal multicast NAK delay. Using the same recurrence
//! and the same seeding makes a seeded loss pattern identical to the one a C driver
//! produces for the same datagram sequence (checked against `udp-loss.pcap` in tests).
#![forbid(unsafe_code)]

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;
const TWO_POW_48: f64 = (1u64 << 48) as f64;

/// One step of the recurrence on a 48-bit state.
#[inline]
pub const fn next_state(state: u64) -> u64 {
    (MULTIPLIER.wrapping_mul(state).wrapping_add(INCREMENT)) & MASK
}

/// The value in `[0, 1)` a 48-bit state stands for (exact: 48 bits fit a double).
#[inline]
pub fn state_to_f64(state: u64) -> f64 {
    state as f64 / TWO_POW_48
}

/// A `drand48`-family generator with its own state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rand48 {
    state: u64,
}

impl Rand48 {
    /// A generator whose 48-bit state is `state` (higher bits ignored).
    pub const fn from_state(state: u64) -> Self {
        Self { state: state & MASK }
    }

    /// The state Aeron's loss interceptor builds from its `seed` argument: the seed's low
    /// 16 bits become the most significant word of the state, bits 32..47 the least
    /// (`xsubi[2] = seed & 0xFFFF`, `xsubi[1] = seed >> 16`, `xsubi[0] = seed >> 32`).
    pub const fn aeron_loss_seed_state(seed: u64) -> u64 {
        ((seed & 0xFFFF) << 32) | (((seed >> 16) & 0xFFFF) << 16) | ((seed >> 32) & 0xFFFF)
    }

    /// Seeded as Aeron's loss interceptor seeds `erand48`.
    pub const fn from_aeron_loss_seed(seed: u64) -> Self {
        Self::from_state(Self::aeron_loss_seed_state(seed))
    }

    /// Seeded as `srand48(seed)`: the high 32 bits are the seed, the low 16 bits 0x330E.
    pub const fn from_srand48(seed: u32) -> Self {
        Self::from_state(((seed as u64) << 16) | 0x330E)
    }

    /// The next value in `[0, 1)`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        self.state = next_state(self.state);
        state_to_f64(self.state)
    }

    pub const fn state(&self) -> u64 {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: glibc `erand48` with xsubi set as Aeron sets it, and `srand48` +
    // `drand48`, printed through Python ctypes on this machine.
    #[test]
    fn matches_glibc_erand48_with_aeron_seeding() {
        let cases: [(u64, [f64; 5]); 2] = [
            (
                42,
                [
                    0.8042297363281641,
                    0.7089016544402753,
                    0.3138783160477381,
                    0.773474917933541,
                    0.9036952659687323,
                ],
            ),
            (
                0x1234_5678_9abc,
                [
                    0.286599243634722,
                    0.9343890928194512,
                    0.5352553825432587,
                    0.8853462597603254,
                    0.13192936876397354,
                ],
            ),
        ];
        for (seed, expected) in cases {
            let mut rng = Rand48::from_aeron_loss_seed(seed);
            for value in expected {
                assert_eq!(rng.next_f64(), value, "seed {seed}");
            }
        }
        // The state after five draws from seed 42, as erand48 left xsubi: e2bf 92ac e758.
        let mut rng = Rand48::from_aeron_loss_seed(42);
        (0..5).for_each(|_| {
            rng.next_f64();
        });
        assert_eq!(rng.state(), 0xe758_92ac_e2bf);
    }

    #[test]
    fn matches_glibc_srand48_drand48() {
        let mut rng = Rand48::from_srand48(12345);
        assert_eq!(rng.next_f64(), 0.22532851279629895);
        assert_eq!(rng.next_f64(), 0.919183068533556);
        assert_eq!(rng.next_f64(), 0.20684125324818226);
    }
}
