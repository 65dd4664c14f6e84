//! REMOVE_PUBLICATION / REMOVE_SUBSCRIPTION / REMOVE_COUNTER body
//! (`spec/control-protocol.md` §5.3).
//!
//! The 1.48 snapshot has no flags after the registration id (a later Aeron appends an int64
//! of flags for publication revocation); such trailing bytes are accepted and ignored.
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I64};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const REGISTRATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
/// Aeron: remove command = 24 bytes.
pub const REMOVE_MESSAGE_LENGTH: usize = REGISTRATION_ID_OFFSET + SIZE_OF_I64;

/// Asks the driver to remove the publication, subscription or counter `registration_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RemoveMessage {
    pub correlated: CorrelatedMessage,
    pub registration_id: i64,
}

impl<'a> ControlMessage<'a> for RemoveMessage {
    const NAME: &'static str = "remove command";

    fn encoded_length(&self) -> usize {
        REMOVE_MESSAGE_LENGTH
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let mut writer = MessageWriter::new(dst, Self::NAME, REMOVE_MESSAGE_LENGTH)?;
        self.correlated.write(&mut writer);
        writer.i64(REGISTRATION_ID_OFFSET, self.registration_id);
        Ok(REMOVE_MESSAGE_LENGTH)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, REMOVE_MESSAGE_LENGTH)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            registration_id: reader.i64(REGISTRATION_ID_OFFSET, "registration id")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = RemoveMessage { correlated: CorrelatedMessage::new(7, 12), registration_id: 8 };
        let mut dst = [0xEEu8; 24];
        assert_eq!(msg.encode(&mut dst).unwrap(), 24);
        #[rustfmt::skip]
        let expected: [u8; 24] = [
            7, 0, 0, 0, 0, 0, 0, 0,  // @0 client id
            12, 0, 0, 0, 0, 0, 0, 0, // @8 correlation id
            8, 0, 0, 0, 0, 0, 0, 0,  // @16 registration id
        ];
        assert_eq!(dst, expected);
        assert_eq!(RemoveMessage::decode(&dst).unwrap(), msg);
        assert_eq!(
            RemoveMessage::decode(&dst[..23]).unwrap_err().message(),
            "remove command: length 23 is below the minimum of 24"
        );
    }
}
