//! The `loss` interceptor: drops incoming datagrams at random, by frame type.
//!
//! Arguments (`AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS`): `rate` (probability, a
//! number; default 0 = never), `seed` (decimal u64; default 0) and `recv-msg-mask`
//! (hexadecimal, `0x` optional; default 0): bit `1 << type` selects the frame types
//! (read from the first frame header of the datagram) that may be dropped, e.g. `0x2` =
//! DATA (heartbeats included), `0x8` = SM, `0x4` = NAK.
//!
//! A datagram of a selected type draws the next number `u` from the `erand48` sequence
//! seeded as Aeron seeds it and is dropped if `u <= rate`; other datagrams draw nothing.
//! As in the C driver, one sequence is shared by every data path (sender and receiver)
//! built from the same configuration, so a given seed and datagram order give the same
//! drops as a C driver.
#![forbid(unsafe_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::args::{for_each_param, parse_f64, parse_hex_u64, parse_u64};
use crate::protocol::header::{FRAME_HEADER_LENGTH, TYPE_OFFSET};
use crate::util::error::Result;
use crate::util::rand48::{Rand48, next_state, state_to_f64};

pub const LOSS_ARGS_ENV_VAR: &str = "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS";

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RandomLossParams {
    pub rate: f64,
    pub seed: u64,
    pub recv_msg_type_mask: u64,
}

impl RandomLossParams {
    pub fn parse(args: &str) -> Result<Self> {
        let mut params = Self::default();
        for_each_param(LOSS_ARGS_ENV_VAR, args, |key, value| {
            match key {
                "rate" => params.rate = parse_f64(key, value)?,
                "seed" => params.seed = parse_u64(key, value)?,
                "recv-msg-mask" => params.recv_msg_type_mask = parse_hex_u64(key, value)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(params)
    }
}

/// The generator state shared by all data paths of one configuration.
#[derive(Debug, Clone)]
pub struct SharedRand48(Arc<AtomicU64>);

impl SharedRand48 {
    pub fn new(generator: Rand48) -> Self {
        Self(Arc::new(AtomicU64::new(generator.state())))
    }

    /// The next value of the shared sequence in `[0, 1)`.
    #[inline]
    pub fn next_f64(&self) -> f64 {
        // Relaxed: the state is the only data; each draw must see and replace exactly one
        // state, which the read-modify-write guarantees without ordering other memory.
        let previous = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| Some(next_state(s)))
            .unwrap_or_else(|s| s);
        state_to_f64(next_state(previous))
    }
}

/// One data path's `loss` stage.
#[derive(Debug, Clone)]
pub struct RandomLoss {
    rate: f64,
    mask: u64,
    generator: SharedRand48,
}

impl RandomLoss {
    pub fn new(params: &RandomLossParams, generator: SharedRand48) -> Self {
        Self { rate: params.rate, mask: params.recv_msg_type_mask, generator }
    }

    #[inline]
    pub fn should_drop(&self, datagram: &[u8]) -> bool {
        if datagram.len() < FRAME_HEADER_LENGTH {
            return false;
        }
        let frame_type = u16::from_le_bytes([datagram[TYPE_OFFSET], datagram[TYPE_OFFSET + 1]]);
        // Types beyond bit 31 (EXT = 0xFFFF) cannot be selected: C shifts a 32-bit 1.
        let type_bit = if frame_type < 32 { 1u64 << frame_type } else { 0 };
        self.rate > 0.0 && type_bit & self.mask != 0 && self.generator.next_f64() <= self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(frame_type: u16) -> [u8; 32] {
        let mut f = [0u8; 32];
        f[6..8].copy_from_slice(&frame_type.to_le_bytes());
        f
    }

    #[test]
    fn parses_aeron_arguments() {
        let p = RandomLossParams::parse("rate=0.1|seed=42|recv-msg-mask=0x2").unwrap();
        assert_eq!(p, RandomLossParams { rate: 0.1, seed: 42, recv_msg_type_mask: 2 });
        assert_eq!(RandomLossParams::parse("").unwrap(), RandomLossParams::default());
        assert_eq!(RandomLossParams::parse("other=1|rate=1").unwrap().rate, 1.0);
        let err = RandomLossParams::parse("rate=0.1|seed=x").unwrap_err();
        assert!(err.message().starts_with(LOSS_ARGS_ENV_VAR), "{err}");
        assert!(err.message().contains("could not parse seed from 'x'"), "{err}");
    }

    #[test]
    fn same_seed_same_drops_and_mask_selects_types() {
        let params = RandomLossParams { rate: 0.5, seed: 42, recv_msg_type_mask: 0x2 };
        let pattern = |types: &[u16]| {
            let loss = RandomLoss::new(&params, SharedRand48::new(Rand48::from_aeron_loss_seed(42)));
            types.iter().map(|&t| loss.should_drop(&frame(t))).collect::<Vec<_>>()
        };
        let data = [1u16; 8];
        // erand48 from seed 42: 0.804, 0.709, 0.314, 0.773, 0.904, ... → drop iff <= 0.5.
        assert_eq!(&pattern(&data)[..5], &[false, false, true, false, false]);
        assert_eq!(pattern(&data), pattern(&data));
        // SM (3), NAK (2), SETUP (5) and PAD (0) draw nothing and pass; DATA draws.
        let mixed = pattern(&[3, 2, 5, 0, 1, 1, 1]);
        assert_eq!(mixed, vec![false, false, false, false, false, false, true]);
        // EXT (0xFFFF) and a runt datagram are never selected.
        let all = RandomLossParams { rate: 1.0, seed: 1, recv_msg_type_mask: u64::MAX };
        let loss = RandomLoss::new(&all, SharedRand48::new(Rand48::from_aeron_loss_seed(1)));
        assert!(!loss.should_drop(&frame(0xFFFF)));
        assert!(!loss.should_drop(&[0u8; 7]));
        assert!(loss.should_drop(&frame(31)));
    }

    #[test]
    fn zero_rate_never_drops_nor_draws() {
        let generator = SharedRand48::new(Rand48::from_aeron_loss_seed(9));
        let loss = RandomLoss::new(
            &RandomLossParams { rate: 0.0, seed: 9, recv_msg_type_mask: 0x2 },
            generator.clone(),
        );
        assert!((0..100).all(|_| !loss.should_drop(&frame(1))));
        let mut fresh = Rand48::from_aeron_loss_seed(9);
        assert_eq!(generator.next_f64(), fresh.next_f64());
    }
}
