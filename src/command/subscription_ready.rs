//! ON_SUBSCRIPTION_READY body (`spec/control-protocol.md` §6.3).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
pub const CHANNEL_STATUS_INDICATOR_ID_OFFSET: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;
/// Aeron: subscription ready = 12 bytes.
pub const SUBSCRIPTION_READY_LENGTH: usize = CHANNEL_STATUS_INDICATOR_ID_OFFSET + SIZE_OF_I32;

/// The driver created the subscription of ADD_SUBSCRIPTION `correlation_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionReady {
    /// = the subscription's registration id.
    pub correlation_id: i64,
    /// `rcv-channel` counter id; -1 for IPC and spy subscriptions.
    pub channel_status_indicator_id: i32,
}

impl<'a> ControlMessage<'a> for SubscriptionReady {
    const NAME: &'static str = "subscription ready";

    fn encoded_length(&self) -> usize {
        SUBSCRIPTION_READY_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, SUBSCRIPTION_READY_LENGTH)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        writer.i32(CHANNEL_STATUS_INDICATOR_ID_OFFSET, self.channel_status_indicator_id);
        Ok(SUBSCRIPTION_READY_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, SUBSCRIPTION_READY_LENGTH)?;
        Ok(Self {
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
            channel_status_indicator_id: reader
                .i32(CHANNEL_STATUS_INDICATOR_ID_OFFSET, "channel status indicator id")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = SubscriptionReady { correlation_id: 4, channel_status_indicator_id: 41 };
        let mut dst = [0xEEu8; 12];
        assert_eq!(msg.encode(&mut dst).unwrap(), 12);
        assert_eq!(dst, [4, 0, 0, 0, 0, 0, 0, 0, 41, 0, 0, 0]);
        assert_eq!(SubscriptionReady::decode(&dst).unwrap(), msg);
        assert_eq!(
            SubscriptionReady::decode(&dst[..11]).unwrap_err().message(),
            "subscription ready: length 11 is below the minimum of 12"
        );
    }
}
