//! REJECT_IMAGE body (`spec/control-protocol.md` §5.12).
//!
//! The reason text starts at offset 36, but Aeron's C driver rejects any REJECT_IMAGE record
//! shorter than 40 bytes (its packed struct with a one-byte text array rounds up to 40), so a
//! reason under 4 bytes sent as the Java client does (36 + R bytes) would be dropped by it as
//! malformed. The encoder therefore writes what the C client writes: the reason, a NUL and
//! zero padding, 40 + R bytes in all. The decoder accepts anything from 36 + R, as the
//! Java driver does.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text_lossy,
};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const IMAGE_CORRELATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const POSITION_OFFSET: usize = IMAGE_CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const REASON_LENGTH_OFFSET: usize = POSITION_OFFSET + SIZE_OF_I64;
pub const REASON_OFFSET: usize = REASON_LENGTH_OFFSET + SIZE_OF_I32;
/// Smallest body a decoder accepts: an empty reason (36 bytes).
pub const REJECT_IMAGE_MESSAGE_MIN_LENGTH: usize = REASON_OFFSET;
/// Bytes the encoder writes after the reason: a NUL terminator and padding, so that every
/// encoded record meets the C driver's 40-byte minimum.
pub const REASON_TRAILER_LENGTH: usize = 4;
/// Longest reason the driver accepts (Aeron's error text limit).
pub const MAX_REASON_LENGTH: usize = 1023;

/// Asks the driver to stop accepting data for image `image_correlation_id` and to tell its
/// sender why, with ERR frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RejectImageMessage<'a> {
    pub correlated: CorrelatedMessage,
    pub image_correlation_id: i64,
    /// Position at which the image is rejected.
    pub position: i64,
    /// Reason text bytes (ASCII); the driver refuses more than [`MAX_REASON_LENGTH`].
    pub reason: &'a [u8],
}

impl RejectImageMessage<'_> {
    /// The reason as text, for logs and ERR frames.
    pub fn reason_lossy(&self) -> Cow<'_, str> {
        text_lossy(self.reason)
    }
}

impl<'a> ControlMessage<'a> for RejectImageMessage<'a> {
    const NAME: &'static str = "reject image command";

    fn encoded_length(&self) -> usize {
        REASON_OFFSET + self.reason.len() + REASON_TRAILER_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let reason_length = string_length(Self::NAME, "reason", self.reason)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i64(IMAGE_CORRELATION_ID_OFFSET, self.image_correlation_id);
        writer.i64(POSITION_OFFSET, self.position);
        let end = writer.string(REASON_LENGTH_OFFSET, self.reason, reason_length);
        writer.zeros(end, REASON_TRAILER_LENGTH);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, REJECT_IMAGE_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            image_correlation_id: reader.i64(IMAGE_CORRELATION_ID_OFFSET, "image correlation id")?,
            position: reader.i64(POSITION_OFFSET, "position")?,
            reason: reader.string(REASON_LENGTH_OFFSET, "reason")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes_as_the_c_client_writes_them() {
        let msg = RejectImageMessage {
            correlated: CorrelatedMessage::new(1, 2),
            image_correlation_id: 9,
            position: 4096,
            reason: b"bad",
        };
        assert_eq!(msg.encoded_length(), 43);
        let mut dst = [0xEEu8; 43];
        assert_eq!(msg.encode(&mut dst).unwrap(), 43);
        #[rustfmt::skip]
        let expected: [u8; 43] = [
            1, 0, 0, 0, 0, 0, 0, 0,   // @0 client id
            2, 0, 0, 0, 0, 0, 0, 0,   // @8 correlation id
            9, 0, 0, 0, 0, 0, 0, 0,   // @16 image correlation id
            0, 0x10, 0, 0, 0, 0, 0, 0, // @24 position 4096
            3, 0, 0, 0,               // @32 reason length
            b'b', b'a', b'd',         // @36 reason
            0, 0, 0, 0,               // @39 NUL + padding (C client layout)
        ];
        assert_eq!(dst, expected);
        assert_eq!(RejectImageMessage::decode(&dst).unwrap(), msg);
        // The Java client's shorter form (no trailer) decodes the same.
        assert_eq!(RejectImageMessage::decode(&dst[..39]).unwrap(), msg);
        assert_eq!(msg.reason_lossy(), "bad");
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            RejectImageMessage::decode(&[0u8; 35]).unwrap_err().message(),
            "reject image command: length 35 is below the minimum of 36"
        );
        let mut dst = [0u8; 40];
        dst[32] = 5;
        assert_eq!(
            RejectImageMessage::decode(&dst).unwrap_err().message(),
            "reject image command: reason (5 bytes at offset 36) runs past the end of the 40-byte message"
        );
        dst[32..36].copy_from_slice(&(-5i32).to_le_bytes());
        assert_eq!(
            RejectImageMessage::decode(&dst).unwrap_err().message(),
            "reject image command: reason length -5 is negative"
        );
    }
}
