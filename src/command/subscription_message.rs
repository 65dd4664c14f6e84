//! ADD_SUBSCRIPTION body (`spec/control-protocol.md` §5.4).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text,
};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const REGISTRATION_CORRELATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const STREAM_ID_OFFSET: usize = REGISTRATION_CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const CHANNEL_LENGTH_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const CHANNEL_OFFSET: usize = CHANNEL_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 32 bytes; total = 32 + channel length.
pub const SUBSCRIPTION_MESSAGE_MIN_LENGTH: usize = CHANNEL_OFFSET;

/// Asks the driver for a subscription on `channel` / `stream_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionMessage<'a> {
    /// The correlation id becomes the subscription's registration id.
    pub correlated: CorrelatedMessage,
    /// Ignored by both drivers: the Java client sends -1, the C client leaves it 0.
    pub registration_correlation_id: i64,
    pub stream_id: i32,
    /// Channel URI bytes (ASCII); `aeron:ipc`, `aeron-spy:...` or a UDP channel.
    pub channel: &'a [u8],
}

impl<'a> SubscriptionMessage<'a> {
    /// The channel URI as text.
    pub fn channel_str(&self) -> Result<&'a str> {
        text(Self::NAME, "channel", self.channel)
    }
}

impl<'a> ControlMessage<'a> for SubscriptionMessage<'a> {
    const NAME: &'static str = "subscription command";

    fn encoded_length(&self) -> usize {
        CHANNEL_OFFSET + self.channel.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let channel_length = string_length(Self::NAME, "channel", self.channel)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i64(REGISTRATION_CORRELATION_ID_OFFSET, self.registration_correlation_id);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.string(CHANNEL_LENGTH_OFFSET, self.channel, channel_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, SUBSCRIPTION_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            registration_correlation_id: reader
                .i64(REGISTRATION_CORRELATION_ID_OFFSET, "registration correlation id")?,
            stream_id: reader.i32(STREAM_ID_OFFSET, "stream id")?,
            channel: reader.string(CHANNEL_LENGTH_OFFSET, "channel")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = SubscriptionMessage {
            correlated: CorrelatedMessage::new(1, 2),
            registration_correlation_id: -1,
            stream_id: 1001,
            channel: b"aeron:ipc",
        };
        assert_eq!(msg.encoded_length(), 41);
        let mut dst = [0xEEu8; 41];
        assert_eq!(msg.encode(&mut dst).unwrap(), 41);
        #[rustfmt::skip]
        let expected: [u8; 41] = [
            1, 0, 0, 0, 0, 0, 0, 0,                         // @0 client id
            2, 0, 0, 0, 0, 0, 0, 0,                         // @8 correlation id
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // @16 registration correlation id
            0xE9, 0x03, 0, 0,                               // @24 stream id 1001
            9, 0, 0, 0,                                     // @28 channel length
            b'a', b'e', b'r', b'o', b'n', b':', b'i', b'p', b'c', // @32 channel
        ];
        assert_eq!(dst, expected);
        let decoded = SubscriptionMessage::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.channel_str().unwrap(), "aeron:ipc");
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        let mut dst = [0u8; 32];
        assert_eq!(
            SubscriptionMessage::decode(&dst[..31]).unwrap_err().message(),
            "subscription command: length 31 is below the minimum of 32"
        );
        dst[28] = 1;
        assert_eq!(
            SubscriptionMessage::decode(&dst).unwrap_err().message(),
            "subscription command: channel (1 bytes at offset 32) runs past the end of the 32-byte message"
        );
        dst[28..32].copy_from_slice(&i32::MIN.to_le_bytes());
        assert_eq!(
            SubscriptionMessage::decode(&dst).unwrap_err().message(),
            "subscription command: channel length -2147483648 is negative"
        );
    }
}
