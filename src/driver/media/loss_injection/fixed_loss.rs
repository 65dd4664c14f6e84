//! The `fixed-loss` interceptor: drops one block of DATA of one term, once per stream.
//!
//! Arguments (`AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS`): `term-id`,
//! `term-offset` (decimal int32) and `length` (decimal, bytes); each defaults to 0.
//!
//! Semantics of the C driver (which differ from Java's `FixedLossGenerator`): for DATA
//! datagrams of `term-id`, each stream (stream id, session id) tracks an offset that
//! starts at the term offset of its first such datagram. A datagram is dropped when the
//! tracked offset lies inside it and is below `term-offset + length`; the tracked offset
//! then moves to the datagram's end. So the drop runs from the first datagram seen in the
//! term up to `term-offset + length`, and retransmissions (which start below the tracked
//! offset) pass.
#![forbid(unsafe_code)]

use super::args::{for_each_param, parse_i32, parse_u32};
use super::stream_offsets::StreamOffsets;
use crate::protocol::header::{
    DATA_HEADER_LENGTH, HDR_TYPE_DATA, SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET,
    TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET,
};
use crate::util::error::Result;

pub const FIXED_LOSS_ARGS_ENV_VAR: &str = "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FixedLossParams {
    pub term_id: i32,
    pub term_offset: i32,
    pub length: u32,
}

impl FixedLossParams {
    pub fn parse(args: &str) -> Result<Self> {
        let mut params = Self::default();
        for_each_param(FIXED_LOSS_ARGS_ENV_VAR, args, |key, value| {
            match key {
                "term-id" => params.term_id = parse_i32(key, value)?,
                "term-offset" => params.term_offset = parse_i32(key, value)?,
                "length" => params.length = parse_u32(key, value)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(params)
    }
}

/// The fields of a DATA datagram's first header the offset-based interceptors look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFrameKey {
    pub term_offset: i32,
    pub session_id: i32,
    pub stream_id: i32,
    pub term_id: i32,
}

fn i32_at(datagram: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes([datagram[offset], datagram[offset + 1], datagram[offset + 2], datagram[offset + 3]])
}

impl DataFrameKey {
    /// The key of a DATA datagram; `None` for other types or a datagram too short.
    #[inline]
    pub fn of(datagram: &[u8]) -> Option<Self> {
        if datagram.len() < DATA_HEADER_LENGTH
            || u16::from_le_bytes([datagram[TYPE_OFFSET], datagram[TYPE_OFFSET + 1]]) != HDR_TYPE_DATA
        {
            return None;
        }
        Some(Self {
            term_offset: i32_at(datagram, TERM_OFFSET_FIELD_OFFSET),
            session_id: i32_at(datagram, SESSION_ID_FIELD_OFFSET),
            stream_id: i32_at(datagram, STREAM_ID_FIELD_OFFSET),
            term_id: i32_at(datagram, TERM_ID_FIELD_OFFSET),
        })
    }
}

/// One data path's `fixed-loss` stage.
#[derive(Debug, Clone)]
pub struct FixedLoss {
    params: FixedLossParams,
    tracked: StreamOffsets,
}

impl FixedLoss {
    pub fn new(params: &FixedLossParams) -> Self {
        Self { params: *params, tracked: StreamOffsets::new() }
    }

    #[inline]
    pub fn should_drop(&mut self, datagram: &[u8]) -> bool {
        let Some(frame) = DataFrameKey::of(datagram) else { return false };
        if frame.term_id != self.params.term_id {
            return false;
        }
        let start = i64::from(frame.term_offset);
        let Some(tracking) = self.tracked.get_or_insert(frame.stream_id, frame.session_id, start) else {
            return false;
        };
        let end = start + datagram.len() as i64;
        let drop_limit = i64::from(self.params.term_offset) + i64::from(self.params.length);
        if tracking < drop_limit && start <= tracking && tracking < end {
            self.tracked.set(frame.stream_id, frame.session_id, end);
            return true;
        }
        false
    }
}

/// A DATA datagram of `length` bytes at `term_id`/`term_offset` (session 77, stream 1001).
#[cfg(test)]
pub(super) fn data(term_id: i32, term_offset: i32, length: usize) -> Vec<u8> {
    let mut d = vec![0u8; length];
    d[6..8].copy_from_slice(&HDR_TYPE_DATA.to_le_bytes());
    d[8..12].copy_from_slice(&term_offset.to_le_bytes());
    d[12..16].copy_from_slice(&77i32.to_le_bytes());
    d[16..20].copy_from_slice(&1001i32.to_le_bytes());
    d[20..24].copy_from_slice(&term_id.to_le_bytes());
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_arguments() {
        let p = FixedLossParams::parse("term-id=-5|term-offset=1408|length=2816").unwrap();
        assert_eq!(p, FixedLossParams { term_id: -5, term_offset: 1408, length: 2816 });
        assert!(FixedLossParams::parse("length=-1").is_err());
    }

    #[test]
    fn drops_from_first_seen_to_the_region_end_once() {
        let mut loss = FixedLoss::new(&FixedLossParams { term_id: 3, term_offset: 1408, length: 1408 });
        let offsets: Vec<bool> = (0..5).map(|i| loss.should_drop(&data(3, i * 1408, 1408))).collect();
        // [0, 1408) and [1408, 2816) hold the tracked offset below 2816; 2816 does not.
        assert_eq!(offsets, vec![true, true, false, false, false]);
        // Retransmissions of the dropped block pass, as does every other term.
        assert!(!loss.should_drop(&data(3, 0, 1408)));
        assert!(!loss.should_drop(&data(3, 1408, 1408)));
        assert!(!loss.should_drop(&data(4, 0, 1408)));
    }

    #[test]
    fn unaligned_region_and_later_first_frame() {
        // Java's FixedLossGeneratorTest case, which the C rule also gives: (0, 50, 1408)
        // drops the first two 1408-byte frames.
        let mut loss = FixedLoss::new(&FixedLossParams { term_id: 0, term_offset: 50, length: 1408 });
        let drops: Vec<bool> = (0..3).map(|i| loss.should_drop(&data(0, i * 1408, 1408))).collect();
        assert_eq!(drops, vec![true, true, false]);
        // A stream first seen beyond the region is never dropped.
        let mut late = FixedLoss::new(&FixedLossParams { term_id: 0, term_offset: 0, length: 1024 });
        assert!(!late.should_drop(&data(0, 4096, 1024)));
        // Non-DATA types and runts pass.
        let mut pad = data(0, 0, 64);
        pad[6] = 0;
        assert!(!late.should_drop(&pad));
        assert!(!late.should_drop(&data(0, 0, 32)[..31]));
    }
}
