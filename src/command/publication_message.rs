//! ADD_PUBLICATION / ADD_EXCLUSIVE_PUBLICATION body (`spec/control-protocol.md` §5.2).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, string_length, text};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const STREAM_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const CHANNEL_LENGTH_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const CHANNEL_OFFSET: usize = CHANNEL_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 24 bytes; total = 24 + channel length.
pub const PUBLICATION_MESSAGE_MIN_LENGTH: usize = CHANNEL_OFFSET;

/// Asks the driver for a (shared or exclusive) publication on `channel` / `stream_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicationMessage<'a> {
    /// The correlation id becomes the registration id of this publication handle.
    pub correlated: CorrelatedMessage,
    pub stream_id: i32,
    /// Channel URI bytes (ASCII).
    pub channel: &'a [u8],
}

impl<'a> PublicationMessage<'a> {
    /// The channel URI as text.
    pub fn channel_str(&self) -> Result<&'a str> {
        text(Self::NAME, "channel", self.channel)
    }
}

impl<'a> ControlMessage<'a> for PublicationMessage<'a> {
    const NAME: &'static str = "publication command";

    fn encoded_length(&self) -> usize {
        CHANNEL_OFFSET + self.channel.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let channel_length = string_length(Self::NAME, "channel", self.channel)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.string(CHANNEL_LENGTH_OFFSET, self.channel, channel_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, PUBLICATION_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            stream_id: reader.i32(STREAM_ID_OFFSET, "stream id")?,
            channel: reader.string(CHANNEL_LENGTH_OFFSET, "channel")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PublicationMessage<'static> {
        PublicationMessage {
            correlated: CorrelatedMessage::new(5, 6),
            stream_id: 1001,
            channel: b"aeron:ipc",
        }
    }

    #[test]
    fn exact_bytes() {
        let msg = sample();
        assert_eq!(msg.encoded_length(), 33);
        let mut dst = [0xEEu8; 33];
        assert_eq!(msg.encode(&mut dst).unwrap(), 33);
        #[rustfmt::skip]
        let expected: [u8; 33] = [
            5, 0, 0, 0, 0, 0, 0, 0,       // @0 client id
            6, 0, 0, 0, 0, 0, 0, 0,       // @8 correlation id
            0xE9, 0x03, 0, 0,             // @16 stream id 1001
            9, 0, 0, 0,                   // @20 channel length
            b'a', b'e', b'r', b'o', b'n', b':', b'i', b'p', b'c', // @24 channel
        ];
        assert_eq!(dst, expected);
        let decoded = PublicationMessage::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.channel_str().unwrap(), "aeron:ipc");
    }

    #[test]
    fn trailing_bytes_are_ignored() {
        let mut dst = [0u8; 40];
        sample().encode(&mut dst).unwrap();
        assert_eq!(PublicationMessage::decode(&dst).unwrap(), sample());
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        let mut dst = [0u8; 33];
        sample().encode(&mut dst).unwrap();
        assert_eq!(
            PublicationMessage::decode(&dst[..23]).unwrap_err().message(),
            "publication command: length 23 is below the minimum of 24"
        );
        assert_eq!(
            PublicationMessage::decode(&dst[..32]).unwrap_err().message(),
            "publication command: channel (9 bytes at offset 24) runs past the end of the 32-byte message"
        );
        dst[20..24].copy_from_slice(&(-3i32).to_le_bytes());
        let err = PublicationMessage::decode(&dst).unwrap_err();
        assert_eq!(err.code(), -7);
        assert_eq!(err.message(), "publication command: channel length -3 is negative");
    }

    #[test]
    fn empty_channel_is_the_minimum() {
        let msg = PublicationMessage { channel: b"", ..sample() };
        let mut dst = [0u8; 24];
        assert_eq!(msg.encode(&mut dst).unwrap(), 24);
        assert_eq!(PublicationMessage::decode(&dst).unwrap(), msg);
    }
}
