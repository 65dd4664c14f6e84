//! ON_COUNTER_READY / ON_UNAVAILABLE_COUNTER / ON_STATIC_COUNTER body
//! (`spec/control-protocol.md` §6.7).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
pub const COUNTER_ID_OFFSET: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;
/// Aeron: counter update = 12 bytes.
pub const COUNTER_UPDATE_LENGTH: usize = COUNTER_ID_OFFSET + SIZE_OF_I32;

/// A counter became ready or unavailable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CounterUpdate {
    /// The ADD command's correlation id (= counter registration id), or a client id for the
    /// client's heartbeat counter.
    pub correlation_id: i64,
    pub counter_id: i32,
}

impl<'a> ControlMessage<'a> for CounterUpdate {
    const NAME: &'static str = "counter update";

    fn encoded_length(&self) -> usize {
        COUNTER_UPDATE_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, COUNTER_UPDATE_LENGTH)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        writer.i32(COUNTER_ID_OFFSET, self.counter_id);
        Ok(COUNTER_UPDATE_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, COUNTER_UPDATE_LENGTH)?;
        Ok(Self {
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
            counter_id: reader.i32(COUNTER_ID_OFFSET, "counter id")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = CounterUpdate { correlation_id: 7, counter_id: 48 };
        let mut dst = [0xEEu8; 12];
        assert_eq!(msg.encode(&mut dst).unwrap(), 12);
        assert_eq!(dst, [7, 0, 0, 0, 0, 0, 0, 0, 48, 0, 0, 0]);
        assert_eq!(CounterUpdate::decode(&dst).unwrap(), msg);
        assert_eq!(
            CounterUpdate::decode(&dst[..11]).unwrap_err().message(),
            "counter update: length 11 is below the minimum of 12"
        );
    }
}
