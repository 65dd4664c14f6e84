//! ADD_STATIC_COUNTER body (`spec/control-protocol.md` §5.8).
#![forbid(unsafe_code)]

use super::codec::{ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use super::counter_message::{
    key_and_label_length, key_and_label_lengths, read_key_and_label, write_key_and_label,
};
use crate::util::error::Result;

pub const REGISTRATION_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const TYPE_ID_OFFSET: usize = REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const KEY_LENGTH_OFFSET: usize = TYPE_ID_OFFSET + SIZE_OF_I32;
/// Smallest valid body: empty key and empty label (36 bytes).
pub const STATIC_COUNTER_MESSAGE_MIN_LENGTH: usize = KEY_LENGTH_OFFSET + 2 * SIZE_OF_I32;

/// Finds or allocates a counter identified by (`type_id`, `registration_id`) that belongs
/// to no client (owner id -1) and outlives the client that asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StaticCounterMessage<'a> {
    pub correlated: CorrelatedMessage,
    /// Chosen by the caller; identifies the static counter together with `type_id`.
    pub registration_id: i64,
    pub type_id: i32,
    pub key: &'a [u8],
    pub label: &'a [u8],
}

impl<'a> ControlMessage<'a> for StaticCounterMessage<'a> {
    const NAME: &'static str = "static counter command";

    fn encoded_length(&self) -> usize {
        KEY_LENGTH_OFFSET + key_and_label_length(self.key, self.label)
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let lengths = key_and_label_lengths(Self::NAME, self.key, self.label)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i64(REGISTRATION_ID_OFFSET, self.registration_id);
        writer.i32(TYPE_ID_OFFSET, self.type_id);
        write_key_and_label(&mut writer, KEY_LENGTH_OFFSET, self.key, self.label, lengths);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, STATIC_COUNTER_MESSAGE_MIN_LENGTH)?;
        let (key, label) = read_key_and_label(&reader, KEY_LENGTH_OFFSET)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            registration_id: reader.i64(REGISTRATION_ID_OFFSET, "registration id")?,
            type_id: reader.i32(TYPE_ID_OFFSET, "type id")?,
            key,
            label,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = StaticCounterMessage {
            correlated: CorrelatedMessage::new(1, 2),
            registration_id: 77,
            type_id: 5,
            key: &[1, 2, 3, 4],
            label: b"s",
        };
        assert_eq!(msg.encoded_length(), 36 + 4 + 1);
        let mut dst = [0xEEu8; 41];
        assert_eq!(msg.encode(&mut dst).unwrap(), 41);
        #[rustfmt::skip]
        let expected: [u8; 41] = [
            1, 0, 0, 0, 0, 0, 0, 0,   // @0 client id
            2, 0, 0, 0, 0, 0, 0, 0,   // @8 correlation id
            77, 0, 0, 0, 0, 0, 0, 0,  // @16 registration id
            5, 0, 0, 0,               // @24 type id
            4, 0, 0, 0,               // @28 key length
            1, 2, 3, 4,               // @32 key (already aligned)
            1, 0, 0, 0,               // @36 label length
            b's',                     // @40 label
        ];
        assert_eq!(dst, expected);
        assert_eq!(StaticCounterMessage::decode(&dst).unwrap(), msg);
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            StaticCounterMessage::decode(&[0u8; 35]).unwrap_err().message(),
            "static counter command: length 35 is below the minimum of 36"
        );
        let mut dst = [0u8; 36];
        dst[28] = 1; // key length 1 → label prefix at 36, past the end
        assert_eq!(
            StaticCounterMessage::decode(&dst).unwrap_err().message(),
            "static counter command: label (4 bytes at offset 36) runs past the end of the 36-byte message"
        );
    }
}
