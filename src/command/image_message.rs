//! ON_UNAVAILABLE_IMAGE body (`spec/control-protocol.md` §6.5).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text,
};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
pub const SUBSCRIPTION_REGISTRATION_ID_OFFSET: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const STREAM_ID_OFFSET: usize = SUBSCRIPTION_REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const CHANNEL_LENGTH_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const CHANNEL_OFFSET: usize = CHANNEL_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 24 bytes; total = 24 + channel length.
pub const IMAGE_MESSAGE_MIN_LENGTH: usize = CHANNEL_OFFSET;

/// Image `correlation_id` went away from subscription `subscription_registration_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageMessage<'a> {
    /// Image correlation id.
    pub correlation_id: i64,
    pub subscription_registration_id: i64,
    pub stream_id: i32,
    /// The subscription's channel (`aeron:ipc` for IPC).
    pub channel: &'a [u8],
}

impl<'a> ImageMessage<'a> {
    /// The channel as text.
    pub fn channel_str(&self) -> Result<&'a str> {
        text(Self::NAME, "channel", self.channel)
    }
}

impl<'a> ControlMessage<'a> for ImageMessage<'a> {
    const NAME: &'static str = "image message";

    fn encoded_length(&self) -> usize {
        CHANNEL_OFFSET + self.channel.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let channel_length = string_length(Self::NAME, "channel", self.channel)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        writer.i64(SUBSCRIPTION_REGISTRATION_ID_OFFSET, self.subscription_registration_id);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.string(CHANNEL_LENGTH_OFFSET, self.channel, channel_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, IMAGE_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
            subscription_registration_id: reader
                .i64(SUBSCRIPTION_REGISTRATION_ID_OFFSET, "subscription registration id")?,
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
        let msg = ImageMessage {
            correlation_id: 6,
            subscription_registration_id: 2,
            stream_id: 1001,
            channel: b"aeron:ipc",
        };
        let mut dst = [0xEEu8; 33];
        assert_eq!(msg.encode(&mut dst).unwrap(), 33);
        #[rustfmt::skip]
        let expected: [u8; 33] = [
            6, 0, 0, 0, 0, 0, 0, 0, // @0 image correlation id
            2, 0, 0, 0, 0, 0, 0, 0, // @8 subscription registration id
            0xE9, 0x03, 0, 0,       // @16 stream id 1001
            9, 0, 0, 0,             // @20 channel length
            b'a', b'e', b'r', b'o', b'n', b':', b'i', b'p', b'c', // @24 channel
        ];
        assert_eq!(dst, expected);
        let decoded = ImageMessage::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.channel_str().unwrap(), "aeron:ipc");
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            ImageMessage::decode(&[0u8; 23]).unwrap_err().message(),
            "image message: length 23 is below the minimum of 24"
        );
        let mut dst = [0u8; 24];
        dst[20] = 1;
        assert_eq!(
            ImageMessage::decode(&dst).unwrap_err().message(),
            "image message: channel (1 bytes at offset 24) runs past the end of the 24-byte message"
        );
        dst[20..24].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            ImageMessage::decode(&dst).unwrap_err().message(),
            "image message: channel length -1 is negative"
        );
    }
}
