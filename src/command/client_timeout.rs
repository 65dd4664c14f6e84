//! ON_CLIENT_TIMEOUT body (`spec/control-protocol.md` §6.8).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I64};
use crate::util::error::Result;

pub const CLIENT_ID_OFFSET: usize = 0;
/// Aeron: client timeout = 8 bytes.
pub const CLIENT_TIMEOUT_LENGTH: usize = CLIENT_ID_OFFSET + SIZE_OF_I64;

/// The driver timed client `client_id` out; that client must consider itself closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientTimeout {
    pub client_id: i64,
}

impl<'a> ControlMessage<'a> for ClientTimeout {
    const NAME: &'static str = "client timeout";

    fn encoded_length(&self) -> usize {
        CLIENT_TIMEOUT_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, CLIENT_TIMEOUT_LENGTH)?;
        writer.i64(CLIENT_ID_OFFSET, self.client_id);
        Ok(CLIENT_TIMEOUT_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, CLIENT_TIMEOUT_LENGTH)?;
        Ok(Self { client_id: reader.i64(CLIENT_ID_OFFSET, "client id")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = ClientTimeout { client_id: -3 };
        let mut dst = [0u8; 8];
        assert_eq!(msg.encode(&mut dst).unwrap(), 8);
        assert_eq!(dst, [0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(ClientTimeout::decode(&dst).unwrap(), msg);
        assert_eq!(
            ClientTimeout::decode(&dst[..0]).unwrap_err().message(),
            "client timeout: length 0 is below the minimum of 8"
        );
    }
}
