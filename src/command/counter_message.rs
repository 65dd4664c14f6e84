//! ADD_COUNTER body, and the key + label pair it shares with ADD_STATIC_COUNTER
//! (`spec/control-protocol.md` §5.7).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, aligned_string_field_length, string_length,
};
use super::correlated_message::{CORRELATED_MESSAGE_LENGTH, CorrelatedMessage};
use crate::util::error::Result;

pub const TYPE_ID_OFFSET: usize = CORRELATED_MESSAGE_LENGTH;
pub const KEY_LENGTH_OFFSET: usize = TYPE_ID_OFFSET + SIZE_OF_I32;
/// Smallest valid body: empty key and empty label (28 bytes).
pub const COUNTER_MESSAGE_MIN_LENGTH: usize = KEY_LENGTH_OFFSET + 2 * SIZE_OF_I32;

/// Asks the driver to allocate a counter owned by the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CounterMessage<'a> {
    /// The correlation id becomes the counter's registration id; the client id its owner id.
    pub correlated: CorrelatedMessage,
    pub type_id: i32,
    /// Opaque key bytes (the driver keeps at most 112).
    pub key: &'a [u8],
    /// Label bytes, ASCII (the driver keeps at most 380).
    pub label: &'a [u8],
}

impl<'a> ControlMessage<'a> for CounterMessage<'a> {
    const NAME: &'static str = "counter command";

    fn encoded_length(&self) -> usize {
        KEY_LENGTH_OFFSET + key_and_label_length(self.key, self.label)
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let lengths = key_and_label_lengths(Self::NAME, self.key, self.label)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        self.correlated.write(&mut writer);
        writer.i32(TYPE_ID_OFFSET, self.type_id);
        write_key_and_label(&mut writer, KEY_LENGTH_OFFSET, self.key, self.label, lengths);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, COUNTER_MESSAGE_MIN_LENGTH)?;
        let (key, label) = read_key_and_label(&reader, KEY_LENGTH_OFFSET)?;
        Ok(Self {
            correlated: CorrelatedMessage::read(&reader)?,
            type_id: reader.i32(TYPE_ID_OFFSET, "type id")?,
            key,
            label,
        })
    }
}

/// Bytes of `key length, key, padding to 4, label length, label`.
pub(crate) fn key_and_label_length(key: &[u8], label: &[u8]) -> usize {
    aligned_string_field_length(key.len()).saturating_add(SIZE_OF_I32).saturating_add(label.len())
}

/// The two int32 length prefixes, or an error when either does not fit.
pub(crate) fn key_and_label_lengths(name: &str, key: &[u8], label: &[u8]) -> Result<(i32, i32)> {
    Ok((string_length(name, "key", key)?, string_length(name, "label", label)?))
}

pub(crate) fn write_key_and_label(
    writer: &mut MessageWriter<'_>,
    key_length_offset: usize,
    key: &[u8],
    label: &[u8],
    (key_length, label_length): (i32, i32),
) {
    // Aeron: the label's length prefix starts at the next 4-byte boundary after the key.
    let label_length_offset = writer.aligned_string(key_length_offset, key, key_length);
    writer.string(label_length_offset, label, label_length);
}

pub(crate) fn read_key_and_label<'a>(
    reader: &MessageReader<'a>,
    key_length_offset: usize,
) -> Result<(&'a [u8], &'a [u8])> {
    let (key, _) = reader.string(key_length_offset, "key")?;
    let label_length_offset = key_length_offset + aligned_string_field_length(key.len());
    let (label, _) = reader.string(label_length_offset, "label")?;
    Ok((key, label))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CounterMessage<'static> {
        CounterMessage {
            correlated: CorrelatedMessage::new(1, 2),
            type_id: 1001,
            key: &[0xAB, 0xCD, 0xEF, 0x01, 0x23],
            label: b"ctr",
        }
    }

    #[test]
    fn exact_bytes_with_key_padding() {
        let msg = sample();
        assert_eq!(msg.encoded_length(), 28 + 8 + 3);
        let mut dst = [0xEEu8; 39];
        assert_eq!(msg.encode(&mut dst).unwrap(), 39);
        #[rustfmt::skip]
        let expected: [u8; 39] = [
            1, 0, 0, 0, 0, 0, 0, 0,             // @0 client id
            2, 0, 0, 0, 0, 0, 0, 0,             // @8 correlation id
            0xE9, 0x03, 0, 0,                   // @16 type id 1001
            5, 0, 0, 0,                         // @20 key length
            0xAB, 0xCD, 0xEF, 0x01, 0x23,       // @24 key
            0, 0, 0,                            // @29 padding to align(5, 4) = 8
            3, 0, 0, 0,                         // @32 label length
            b'c', b't', b'r',                   // @36 label
        ];
        assert_eq!(dst, expected);
        assert_eq!(CounterMessage::decode(&dst).unwrap(), msg);
    }

    #[test]
    fn empty_key_and_label_is_the_minimum() {
        let msg = CounterMessage { key: b"", label: b"", ..sample() };
        let mut dst = [0xEEu8; 28];
        assert_eq!(msg.encode(&mut dst).unwrap(), 28);
        assert_eq!(dst[20..28], [0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(CounterMessage::decode(&dst).unwrap(), msg);
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        let mut dst = [0u8; 39];
        sample().encode(&mut dst).unwrap();
        assert_eq!(
            CounterMessage::decode(&dst[..27]).unwrap_err().message(),
            "counter command: length 27 is below the minimum of 28"
        );
        assert_eq!(
            CounterMessage::decode(&dst[..38]).unwrap_err().message(),
            "counter command: label (3 bytes at offset 36) runs past the end of the 38-byte message"
        );
        assert_eq!(
            CounterMessage::decode(&dst[..35]).unwrap_err().message(),
            "counter command: label (4 bytes at offset 32) runs past the end of the 35-byte message"
        );
        let mut bad_key = dst;
        bad_key[20..24].copy_from_slice(&100i32.to_le_bytes());
        assert_eq!(
            CounterMessage::decode(&bad_key).unwrap_err().message(),
            "counter command: key (100 bytes at offset 24) runs past the end of the 39-byte message"
        );
        bad_key[20..24].copy_from_slice(&(-4i32).to_le_bytes());
        assert_eq!(
            CounterMessage::decode(&bad_key).unwrap_err().message(),
            "counter command: key length -4 is negative"
        );
        dst[32..36].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            CounterMessage::decode(&dst).unwrap_err().message(),
            "counter command: label length -1 is negative"
        );
    }
}
