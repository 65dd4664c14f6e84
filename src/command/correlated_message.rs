//! The correlated header that starts every command (client id, correlation id), and the
//! whole body of CLIENT_KEEPALIVE and CLIENT_CLOSE (`spec/control-protocol.md` §5.1, 5.9, 5.10).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter};
use crate::util::error::Result;

pub const CLIENT_ID_OFFSET: usize = 0;
pub const CORRELATION_ID_OFFSET: usize = 8;
/// Aeron: correlated header = 16 bytes.
pub const CORRELATED_MESSAGE_LENGTH: usize = 16;

/// Who sent a command and which response answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CorrelatedMessage {
    pub client_id: i64,
    /// For ADD commands, also the registration id of what gets created.
    pub correlation_id: i64,
}

impl CorrelatedMessage {
    pub fn new(client_id: i64, correlation_id: i64) -> Self {
        Self { client_id, correlation_id }
    }

    /// Reads the header of any command from a reader that checked at least 16 bytes.
    pub(crate) fn read(reader: &MessageReader<'_>) -> Result<Self> {
        Ok(Self {
            client_id: reader.i64(CLIENT_ID_OFFSET, "client id")?,
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
        })
    }

    pub(crate) fn write(&self, writer: &mut MessageWriter<'_>) {
        writer.i64(CLIENT_ID_OFFSET, self.client_id);
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
    }
}

impl<'a> ControlMessage<'a> for CorrelatedMessage {
    const NAME: &'static str = "correlated command";

    fn encoded_length(&self) -> usize {
        CORRELATED_MESSAGE_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, CORRELATED_MESSAGE_LENGTH)?;
        self.write(&mut writer);
        Ok(CORRELATED_MESSAGE_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, CORRELATED_MESSAGE_LENGTH)?;
        Self::read(&reader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::util::error::AeronErrorCode;

    #[test]
    fn layout_is_client_id_then_correlation_id() {
        let msg = CorrelatedMessage::new(0x0102_0304_0506_0708, -1);
        let mut dst = [0u8; 20];
        assert_eq!(msg.encode(&mut dst).unwrap(), 16);
        #[rustfmt::skip]
        let expected = [
            0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // client id
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // correlation id -1
            0, 0, 0, 0, // untouched
        ];
        assert_eq!(dst, expected);
        assert_eq!(CorrelatedMessage::decode(&dst).unwrap(), msg);
    }

    #[test]
    fn short_body_is_malformed() {
        let err = CorrelatedMessage::decode(&[0u8; 15]).unwrap_err();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand));
        assert_eq!(err.message(), "correlated command: length 15 is below the minimum of 16");
        assert!(CorrelatedMessage::new(1, 2).encode(&mut [0u8; 15]).is_err());
    }

    #[test]
    fn encodes_into_atomic_buffer_region() {
        let buffer = AtomicBuffer::alloc(64);
        assert_eq!(CorrelatedMessage::new(5, 9).encode_into(&buffer, 8).unwrap(), 16);
        assert_eq!(buffer.get_i64(8), 5);
        assert_eq!(buffer.get_i64(16), 9);
        assert!(CorrelatedMessage::new(5, 9).encode_into(&buffer, 56).is_err());
    }
}
