//! TERMINATE_DRIVER body (`spec/control-protocol.md` §5.11).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, string_length};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const TOKEN_LENGTH_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const TOKEN_OFFSET: usize = TOKEN_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 20 bytes; total = 20 + token length.
pub const TERMINATE_DRIVER_MESSAGE_MIN_LENGTH: usize = TOKEN_OFFSET;

/// Asks the driver to shut down; its termination validator judges `token`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TerminateDriverMessage<'a> {
    pub correlated: CorrelatedMessage,
    /// Opaque bytes handed to the driver's termination validator.
    pub token: &'a [u8],
}

impl<'a> ControlMessage<'a> for TerminateDriverMessage<'a> {
    const NAME: &'static str = "terminate driver command";

    fn encoded_length(&self) -> usize {
        TOKEN_OFFSET + self.token.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let token_length = string_length(Self::NAME, "token", self.token)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.string(TOKEN_LENGTH_OFFSET, self.token, token_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        // Aeron's C driver only checks the fixed part and trusts the token length; we check
        // that the token lies inside the record.
        let reader = MessageReader::new(src, Self::NAME, TERMINATE_DRIVER_MESSAGE_MIN_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            token: reader.string(TOKEN_LENGTH_OFFSET, "token")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = TerminateDriverMessage { correlated: CorrelatedMessage::new(9, -1), token: &[0xDE, 0xAD] };
        let mut dst = [0xEEu8; 22];
        assert_eq!(msg.encode(&mut dst).unwrap(), 22);
        #[rustfmt::skip]
        let expected: [u8; 22] = [
            9, 0, 0, 0, 0, 0, 0, 0,                         // @0 client id
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // @8 correlation id -1
            2, 0, 0, 0,                                     // @16 token length
            0xDE, 0xAD,                                     // @20 token
        ];
        assert_eq!(dst, expected);
        assert_eq!(TerminateDriverMessage::decode(&dst).unwrap(), msg);
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            TerminateDriverMessage::decode(&[0u8; 19]).unwrap_err().message(),
            "terminate driver command: length 19 is below the minimum of 20"
        );
        let mut dst = [0u8; 21];
        dst[16] = 2;
        assert_eq!(
            TerminateDriverMessage::decode(&dst).unwrap_err().message(),
            "terminate driver command: token (2 bytes at offset 20) runs past the end of the 21-byte message"
        );
        dst[16..20].copy_from_slice(&(-2i32).to_le_bytes());
        assert_eq!(
            TerminateDriverMessage::decode(&dst).unwrap_err().message(),
            "terminate driver command: token length -2 is negative"
        );
    }
}
