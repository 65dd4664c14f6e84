//! ON_ERROR body (`spec/control-protocol.md` §6.1).
#![forbid(unsafe_code)]

use std::borrow::Cow;

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text_lossy,
};
use crate::util::error::{AeronErrorCode, Result};

pub const OFFENDING_COMMAND_CORRELATION_ID_OFFSET: usize = 0;
pub const ERROR_CODE_OFFSET: usize = OFFENDING_COMMAND_CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const ERROR_MESSAGE_LENGTH_OFFSET: usize = ERROR_CODE_OFFSET + SIZE_OF_I32;
pub const ERROR_MESSAGE_OFFSET: usize = ERROR_MESSAGE_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 16 bytes; total = 16 + message length.
pub const ERROR_RESPONSE_MIN_LENGTH: usize = ERROR_MESSAGE_OFFSET;

/// The driver could not carry out the command with correlation id
/// `offending_command_correlation_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorResponse<'a> {
    pub offending_command_correlation_id: i64,
    /// An `AERON_ERROR_CODE_*` value; kept raw because a newer driver may send codes this
    /// build does not know (see [`ErrorResponse::error_code`]).
    pub error_code_value: i32,
    /// The driver's error text (ASCII).
    pub error_message: &'a [u8],
}

impl ErrorResponse<'_> {
    /// The error code, or `None` for a value this build does not know (Aeron's clients
    /// report those as UNKNOWN_CODE_VALUE, -1).
    pub fn error_code(&self) -> Option<AeronErrorCode> {
        AeronErrorCode::from_i32(self.error_code_value)
    }

    /// The error text for display.
    pub fn error_message_lossy(&self) -> Cow<'_, str> {
        text_lossy(self.error_message)
    }
}

impl<'a> ControlMessage<'a> for ErrorResponse<'a> {
    const NAME: &'static str = "error response";

    fn encoded_length(&self) -> usize {
        ERROR_MESSAGE_OFFSET + self.error_message.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let message_length = string_length(Self::NAME, "error message", self.error_message)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        writer.i64(OFFENDING_COMMAND_CORRELATION_ID_OFFSET, self.offending_command_correlation_id);
        writer.i32(ERROR_CODE_OFFSET, self.error_code_value);
        writer.string(ERROR_MESSAGE_LENGTH_OFFSET, self.error_message, message_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, ERROR_RESPONSE_MIN_LENGTH)?;
        Ok(Self {
            offending_command_correlation_id: reader
                .i64(OFFENDING_COMMAND_CORRELATION_ID_OFFSET, "offending command correlation id")?,
            error_code_value: reader.i32(ERROR_CODE_OFFSET, "error code")?,
            error_message: reader.string(ERROR_MESSAGE_LENGTH_OFFSET, "error message")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = ErrorResponse {
            offending_command_correlation_id: 2,
            error_code_value: AeronErrorCode::GenericError as i32,
            error_message: b"oops",
        };
        let mut dst = [0xEEu8; 20];
        assert_eq!(msg.encode(&mut dst).unwrap(), 20);
        #[rustfmt::skip]
        let expected: [u8; 20] = [
            2, 0, 0, 0, 0, 0, 0, 0,   // @0 offending command correlation id
            11, 0, 0, 0,              // @8 error code GENERIC_ERROR
            4, 0, 0, 0,               // @12 message length
            b'o', b'o', b'p', b's',   // @16 message
        ];
        assert_eq!(dst, expected);
        let decoded = ErrorResponse::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.error_code(), Some(AeronErrorCode::GenericError));
        assert_eq!(decoded.error_message_lossy(), "oops");
    }

    #[test]
    fn unknown_code_is_kept_raw() {
        let msg =
            ErrorResponse { offending_command_correlation_id: 0, error_code_value: 99, error_message: b"" };
        let mut dst = [0u8; 16];
        msg.encode(&mut dst).unwrap();
        let decoded = ErrorResponse::decode(&dst).unwrap();
        assert_eq!(decoded.error_code_value, 99);
        assert_eq!(decoded.error_code(), None);
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            ErrorResponse::decode(&[0u8; 15]).unwrap_err().message(),
            "error response: length 15 is below the minimum of 16"
        );
        let mut dst = [0u8; 16];
        dst[12] = 1;
        assert_eq!(
            ErrorResponse::decode(&dst).unwrap_err().message(),
            "error response: error message (1 bytes at offset 16) runs past the end of the 16-byte message"
        );
        dst[12..16].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            ErrorResponse::decode(&dst).unwrap_err().message(),
            "error response: error message length -1 is negative"
        );
    }
}
