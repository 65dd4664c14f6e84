//! ON_OPERATION_SUCCESS body (`spec/control-protocol.md` §6.6).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I64};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
/// Aeron: operation succeeded = 8 bytes.
pub const OPERATION_SUCCEEDED_LENGTH: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;

/// The command with `correlation_id` (a remove or destination command) succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperationSucceeded {
    pub correlation_id: i64,
}

impl<'a> ControlMessage<'a> for OperationSucceeded {
    const NAME: &'static str = "operation succeeded";

    fn encoded_length(&self) -> usize {
        OPERATION_SUCCEEDED_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, OPERATION_SUCCEEDED_LENGTH)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        Ok(OPERATION_SUCCEEDED_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, OPERATION_SUCCEEDED_LENGTH)?;
        Ok(Self { correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = OperationSucceeded { correlation_id: 0x0102_0304_0506_0708 };
        let mut dst = [0xEEu8; 8];
        assert_eq!(msg.encode(&mut dst).unwrap(), 8);
        assert_eq!(dst, [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(OperationSucceeded::decode(&dst).unwrap(), msg);
        assert_eq!(
            OperationSucceeded::decode(&dst[..7]).unwrap_err().message(),
            "operation succeeded: length 7 is below the minimum of 8"
        );
    }
}
