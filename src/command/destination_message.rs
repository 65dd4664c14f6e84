//! Destination commands: ADD_DESTINATION / REMOVE_DESTINATION (send side) and
//! ADD_RCV_DESTINATION / REMOVE_RCV_DESTINATION (receive side) carry a channel; send-side
//! REMOVE_DESTINATION_BY_ID carries the destination's registration id instead
//! (`spec/control-protocol.md` §5.5, 5.6).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text,
};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const REGISTRATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const CHANNEL_LENGTH_OFFSET: usize = REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const CHANNEL_OFFSET: usize = CHANNEL_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 28 bytes; total = 28 + channel length.
pub const DESTINATION_MESSAGE_MIN_LENGTH: usize = CHANNEL_OFFSET;

pub const RESOURCE_REGISTRATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const DESTINATION_REGISTRATION_ID_OFFSET: usize = RESOURCE_REGISTRATION_ID_OFFSET + SIZE_OF_I64;
/// Aeron: destination-by-id command = 32 bytes.
pub const DESTINATION_BY_ID_MESSAGE_LENGTH: usize = DESTINATION_REGISTRATION_ID_OFFSET + SIZE_OF_I64;

/// Adds or removes destination `channel` on publication or subscription `registration_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DestinationMessage<'a> {
    /// For ADD_DESTINATION the correlation id becomes the destination's registration id.
    pub correlated: CorrelatedMessage,
    /// The publication (send side) or subscription (receive side) registration id.
    pub registration_id: i64,
    /// Destination channel URI bytes (ASCII).
    pub channel: &'a [u8],
}

impl<'a> DestinationMessage<'a> {
    /// The destination channel URI as text.
    pub fn channel_str(&self) -> Result<&'a str> {
        text(Self::NAME, "channel", self.channel)
    }
}

impl<'a> ControlMessage<'a> for DestinationMessage<'a> {
    const NAME: &'static str = "destination command";

    fn encoded_length(&self) -> usize {
        CHANNEL_OFFSET + self.channel.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let channel_length = string_length(Self::NAME, "channel", self.channel)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i64(REGISTRATION_ID_OFFSET, self.registration_id);
        writer.string(CHANNEL_LENGTH_OFFSET, self.channel, channel_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, DESTINATION_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            registration_id: reader.i64(REGISTRATION_ID_OFFSET, "registration id")?,
            channel: reader.string(CHANNEL_LENGTH_OFFSET, "channel")?.0,
        })
    }
}

/// Removes the send-side destination that ADD_DESTINATION `destination_registration_id`
/// added to publication `resource_registration_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DestinationByIdMessage {
    pub correlated: CorrelatedMessage,
    pub resource_registration_id: i64,
    pub destination_registration_id: i64,
}

impl<'a> ControlMessage<'a> for DestinationByIdMessage {
    const NAME: &'static str = "destination by id command";

    fn encoded_length(&self) -> usize {
        DESTINATION_BY_ID_MESSAGE_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, DESTINATION_BY_ID_MESSAGE_LENGTH)?;
        self.correlated.write(&mut writer);
        writer.i64(RESOURCE_REGISTRATION_ID_OFFSET, self.resource_registration_id);
        writer.i64(DESTINATION_REGISTRATION_ID_OFFSET, self.destination_registration_id);
        Ok(DESTINATION_BY_ID_MESSAGE_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, DESTINATION_BY_ID_MESSAGE_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            resource_registration_id: reader
                .i64(RESOURCE_REGISTRATION_ID_OFFSET, "resource registration id")?,
            destination_registration_id: reader
                .i64(DESTINATION_REGISTRATION_ID_OFFSET, "destination registration id")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destination_exact_bytes() {
        let msg = DestinationMessage {
            correlated: CorrelatedMessage::new(3, 4),
            registration_id: 0x1122,
            channel: b"aeron:udp?endpoint=h:1",
        };
        assert_eq!(msg.encoded_length(), 50);
        let mut dst = [0xEEu8; 50];
        assert_eq!(msg.encode(&mut dst).unwrap(), 50);
        #[rustfmt::skip]
        let expected_head: [u8; 28] = [
            3, 0, 0, 0, 0, 0, 0, 0,       // @0 client id
            4, 0, 0, 0, 0, 0, 0, 0,       // @8 correlation id
            0x22, 0x11, 0, 0, 0, 0, 0, 0, // @16 publication/subscription registration id
            22, 0, 0, 0,                  // @24 channel length
        ];
        assert_eq!(dst[..28], expected_head);
        assert_eq!(&dst[28..], b"aeron:udp?endpoint=h:1");
        let decoded = DestinationMessage::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.channel_str().unwrap(), "aeron:udp?endpoint=h:1");
    }

    #[test]
    fn destination_malformed() {
        let mut dst = [0u8; 30];
        assert_eq!(
            DestinationMessage::decode(&dst[..27]).unwrap_err().message(),
            "destination command: length 27 is below the minimum of 28"
        );
        dst[24] = 3;
        assert_eq!(
            DestinationMessage::decode(&dst).unwrap_err().message(),
            "destination command: channel (3 bytes at offset 28) runs past the end of the 30-byte message"
        );
        dst[24..28].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            DestinationMessage::decode(&dst).unwrap_err().message(),
            "destination command: channel length -1 is negative"
        );
    }

    #[test]
    fn destination_by_id_exact_bytes() {
        let msg = DestinationByIdMessage {
            correlated: CorrelatedMessage::new(1, 2),
            resource_registration_id: 3,
            destination_registration_id: -2,
        };
        let mut dst = [0xEEu8; 32];
        assert_eq!(msg.encode(&mut dst).unwrap(), 32);
        #[rustfmt::skip]
        let expected: [u8; 32] = [
            1, 0, 0, 0, 0, 0, 0, 0,                         // @0 client id
            2, 0, 0, 0, 0, 0, 0, 0,                         // @8 correlation id
            3, 0, 0, 0, 0, 0, 0, 0,                         // @16 publication registration id
            0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // @24 destination registration id
        ];
        assert_eq!(dst, expected);
        assert_eq!(DestinationByIdMessage::decode(&dst).unwrap(), msg);
        assert_eq!(
            DestinationByIdMessage::decode(&dst[..31]).unwrap_err().message(),
            "destination by id command: length 31 is below the minimum of 32"
        );
    }
}
