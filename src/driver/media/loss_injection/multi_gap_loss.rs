//! The `multi-gap-loss` interceptor: drops a DATA gap at every multiple of a radix within
//! one term, once per stream.
//!
//! Arguments (`AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS`): `term-id`,
//! `gap-radix` (bytes, rounded up to a power of two), `gap-length` (bytes) and
//! `total-gaps`. Gaps are `[k·radix, k·radix + gap-length)` for k ≥ 1; frames whose term
//! offset is beyond `total-gaps · gap-radix + gap-length` (computed with the radix as
//! written, as the C driver does) are never dropped.
//!
//! Rule of the C driver, per stream, for DATA datagrams of `term-id`: a datagram starting
//! below the stream's tracked offset (a retransmission of something dropped) passes;
//! otherwise it is dropped if it starts on a radix multiple (other than 0), starts inside
//! the gap of the radix multiple below it, or reaches into the gap above it. A drop moves
//! the tracked offset to the datagram's end.
#![forbid(unsafe_code)]

use super::args::{for_each_param, parse_i32, parse_u32};
use super::fixed_loss::DataFrameKey;
use super::stream_offsets::StreamOffsets;
use crate::util::error::{Error, Result};

pub const MULTI_GAP_LOSS_ARGS_ENV_VAR: &str = "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MultiGapLossParams {
    pub term_id: i32,
    pub gap_radix: i32,
    pub gap_length: u32,
    pub total_gaps: i32,
}

impl MultiGapLossParams {
    pub fn parse(args: &str) -> Result<Self> {
        let mut params = Self::default();
        for_each_param(MULTI_GAP_LOSS_ARGS_ENV_VAR, args, |key, value| {
            match key {
                "term-id" => params.term_id = parse_i32(key, value)?,
                "gap-radix" => params.gap_radix = parse_i32(key, value)?,
                "gap-length" => params.gap_length = parse_u32(key, value)?,
                "total-gaps" => params.total_gaps = parse_i32(key, value)?,
                _ => {}
            }
            Ok(())
        })?;
        if !(1..=1 << 30).contains(&params.gap_radix) {
            return Err(Error::invalid_argument(format!(
                "{MULTI_GAP_LOSS_ARGS_ENV_VAR}={args:?}: gap-radix={} must be in 1..=2^30",
                params.gap_radix
            )));
        }
        Ok(params)
    }
}

/// One data path's `multi-gap-loss` stage.
#[derive(Debug, Clone)]
pub struct MultiGapLoss {
    term_id: i32,
    radix_bits: u32,
    radix_mask: i64,
    gap_length: i64,
    last_gap_limit: i64,
    tracked: StreamOffsets,
}

impl MultiGapLoss {
    /// `params` must come from [`MultiGapLossParams::parse`] (radix in range).
    pub fn new(params: &MultiGapLossParams) -> Self {
        let radix = (params.gap_radix.max(1) as u32).next_power_of_two();
        Self {
            term_id: params.term_id,
            radix_bits: radix.trailing_zeros(),
            radix_mask: i64::from(!(radix - 1)),
            gap_length: i64::from(params.gap_length),
            last_gap_limit: i64::from(params.total_gaps) * i64::from(params.gap_radix)
                + i64::from(params.gap_length),
            tracked: StreamOffsets::new(),
        }
    }

    fn is_in_a_gap(&self, offset: i64, limit: i64) -> bool {
        if offset != 0 && offset.trailing_zeros() >= self.radix_bits {
            return true;
        }
        let previous_gap = offset & self.radix_mask;
        if previous_gap > 0 && offset < previous_gap + self.gap_length {
            return true;
        }
        let next_gap = ((offset >> self.radix_bits) + 1) << self.radix_bits;
        limit > next_gap && offset < next_gap + self.gap_length
    }

    #[inline]
    pub fn should_drop(&mut self, datagram: &[u8]) -> bool {
        let Some(frame) = DataFrameKey::of(datagram) else { return false };
        let offset = i64::from(frame.term_offset);
        if frame.term_id != self.term_id || offset > self.last_gap_limit {
            return false;
        }
        let Some(tracking) = self.tracked.get_or_insert(frame.stream_id, frame.session_id, offset) else {
            return false;
        };
        if tracking > offset {
            return false;
        }
        let limit = offset + datagram.len() as i64;
        if self.is_in_a_gap(offset, limit) {
            self.tracked.set(frame.stream_id, frame.session_id, limit);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixed_loss::data;
    use super::*;

    #[test]
    fn parses_arguments_and_rejects_a_bad_radix() {
        let p = MultiGapLossParams::parse("term-id=9|gap-radix=4096|gap-length=1408|total-gaps=3").unwrap();
        assert_eq!(p, MultiGapLossParams { term_id: 9, gap_radix: 4096, gap_length: 1408, total_gaps: 3 });
        assert!(MultiGapLossParams::parse("gap-radix=0").unwrap_err().message().contains("gap-radix=0"));
        assert!(MultiGapLossParams::parse("").is_err());
    }

    #[test]
    fn drops_each_gap_once_up_to_total() {
        let params = MultiGapLossParams { term_id: 9, gap_radix: 4096, gap_length: 1024, total_gaps: 3 };
        let mut loss = MultiGapLoss::new(&params);
        // 1024-byte datagrams from 0 to 20480: gaps at 4096, 8192, 12288 (limit 3·4096+1024).
        let dropped: Vec<i32> =
            (0..20).map(|i| i * 1024).filter(|&o| loss.should_drop(&data(9, o, 1024))).collect();
        assert_eq!(dropped, vec![4096, 8192, 12288]);
        // Retransmissions pass; other terms are untouched.
        assert!(!loss.should_drop(&data(9, 4096, 1024)));
        assert!(!loss.should_drop(&data(10, 4096, 1024)));
    }

    #[test]
    fn unaligned_frames_crossing_into_a_gap_are_dropped() {
        // Radix 3000 rounds up to 4096; the limit uses 3000: 2 × 3000 + 1408 = 7408.
        let params = MultiGapLossParams { term_id: 1, gap_radix: 3000, gap_length: 1408, total_gaps: 2 };
        let mut loss = MultiGapLoss::new(&params);
        let dropped: Vec<i32> =
            (0..12).map(|i| i * 1408).filter(|&o| loss.should_drop(&data(1, o, 1408))).collect();
        // [2816, 4224) reaches into the gap at 4096; [4224, 5632) starts inside
        // [4096, 5504); [7040, 8448) starts below the limit and reaches into the gap at
        // 8192; later frames start beyond the limit.
        assert_eq!(dropped, vec![2816, 4224, 7040]);
    }
}
