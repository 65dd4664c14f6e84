//! What every control message shares: the encode/decode contract and the bounds-checked
//! little-endian reader and writer the messages are built from (`spec/control-protocol.md` §1).
//!
//! Decoding reads untrusted bytes (a ring-buffer record written by any client process, or a
//! broadcast record written by any driver), so every read is checked and every failure is a
//! MALFORMED_COMMAND error naming the message and the field; nothing here can panic on input.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use crate::concurrent::AtomicBuffer;
use crate::util::bits::align;
use crate::util::error::{AeronErrorCode, Error, Result};

pub const SIZE_OF_I16: usize = 2;
pub const SIZE_OF_I32: usize = 4;
pub const SIZE_OF_I64: usize = 8;

/// Variable-length fields that follow another variable-length field start on a 4-byte
/// boundary (Aeron: `AERON_ALIGN(length, sizeof(int32_t))`), so their length prefix is an
/// aligned int32.
pub const STRING_FIELD_ALIGNMENT: usize = SIZE_OF_I32;

/// One control-protocol body: its exact encoded size, an encoder and a zero-copy decoder.
///
/// The decoder accepts bytes beyond the declared content (both Aeron drivers only require
/// `length >= content`), and borrows its variable-length fields from `src`.
pub trait ControlMessage<'a>: Sized {
    /// Names the message in error messages.
    const NAME: &'static str;

    /// Bytes `encode` writes.
    fn encoded_length(&self) -> usize;

    /// Writes the body at the start of `dst` and returns its length. Fails, writing nothing,
    /// when `dst` is shorter than `encoded_length()` or a field cannot be represented
    /// (a string longer than `i32::MAX`).
    fn encode(&self, dst: &mut [u8]) -> Result<usize>;

    /// Parses a body from untrusted bytes.
    fn decode(src: &'a [u8]) -> Result<Self>;

    /// Encodes into `[index, index + encoded_length())` of `buffer` through a scratch copy
    /// stored with atomic word stores (off the hot paths: tests and setup). Writers into a
    /// ring-buffer claim encode straight into its [`ClaimedRange`](crate::concurrent::ClaimedRange).
    fn encode_into(&self, buffer: &AtomicBuffer, index: usize) -> Result<usize> {
        let length = self.encoded_length();
        buffer.check_bounds(index, length).map_err(|e| e.context(Self::NAME))?;
        let mut scratch = vec![0; length];
        let written = self.encode(&mut scratch)?;
        buffer.store_bytes(index, &scratch[..written]);
        Ok(written)
    }
}

/// The error every decoder returns for bytes that do not form a valid message.
pub fn malformed(name: &str, detail: impl std::fmt::Display) -> Error {
    Error::aeron(AeronErrorCode::MalformedCommand, format!("{name}: {detail}"))
}

/// `bytes` as text; the protocol's strings are ASCII, so anything that is not UTF-8 is
/// malformed.
pub fn text<'a>(name: &str, field: &str, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| malformed(name, format_args!("{field} is not valid text: {e}")))
}

/// `bytes` as text for display (error messages), replacing anything that is not UTF-8.
pub fn text_lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Space a string field occupies when another field follows it: prefix + aligned body.
pub const fn aligned_string_field_length(length: usize) -> usize {
    SIZE_OF_I32 + align(length, STRING_FIELD_ALIGNMENT)
}

/// Bounds-checked little-endian reads from one untrusted message body.
pub struct MessageReader<'a> {
    src: &'a [u8],
    name: &'static str,
}

impl<'a> MessageReader<'a> {
    /// A reader over `src`, which must hold at least the `min_length` bytes of the message's
    /// fixed part.
    pub fn new(src: &'a [u8], name: &'static str, min_length: usize) -> Result<Self> {
        if src.len() < min_length {
            return Err(malformed(
                name,
                format_args!("length {} is below the minimum of {min_length}", src.len()),
            ));
        }
        Ok(Self { src, name })
    }

    fn array<const N: usize>(&self, offset: usize, field: &str) -> Result<[u8; N]> {
        self.src
            .get(offset..)
            .and_then(|tail| tail.first_chunk::<N>())
            .copied()
            .ok_or_else(|| self.past_end(field, offset, N))
    }

    pub fn i64(&self, offset: usize, field: &str) -> Result<i64> {
        self.array(offset, field).map(i64::from_le_bytes)
    }

    pub fn i32(&self, offset: usize, field: &str) -> Result<i32> {
        self.array(offset, field).map(i32::from_le_bytes)
    }

    pub fn i16(&self, offset: usize, field: &str) -> Result<i16> {
        self.array(offset, field).map(i16::from_le_bytes)
    }

    pub fn u16(&self, offset: usize, field: &str) -> Result<u16> {
        self.array(offset, field).map(u16::from_le_bytes)
    }

    /// `length` raw bytes at `offset`.
    pub fn bytes(&self, offset: usize, length: usize, field: &str) -> Result<&'a [u8]> {
        offset
            .checked_add(length)
            .and_then(|end| self.src.get(offset..end))
            .ok_or_else(|| self.past_end(field, offset, length))
    }

    /// The string whose int32 length prefix sits at `offset`, and the offset just past its
    /// last byte. A negative length or one running past the end is malformed.
    pub fn string(&self, offset: usize, field: &str) -> Result<(&'a [u8], usize)> {
        let length = self.i32(offset, field)?;
        let length = usize::try_from(length)
            .map_err(|_| malformed(self.name, format_args!("{field} length {length} is negative")))?;
        let body = offset + SIZE_OF_I32;
        let bytes = self.bytes(body, length, field)?;
        Ok((bytes, body + length))
    }

    fn past_end(&self, field: &str, offset: usize, length: usize) -> Error {
        malformed(
            self.name,
            format_args!(
                "{field} ({length} bytes at offset {offset}) runs past the end of the {}-byte message",
                self.src.len()
            ),
        )
    }
}

/// Little-endian writes into a destination already checked to hold the whole message.
pub struct MessageWriter<'b> {
    dst: &'b mut [u8],
}

impl<'b> MessageWriter<'b> {
    /// A writer over `dst`, which must hold `length` bytes (the message's encoded length).
    pub fn new(dst: &'b mut [u8], name: &str, length: usize) -> Result<Self> {
        if dst.len() < length {
            return Err(Error::out_of_bounds(format!(
                "{name}: destination of {} bytes is shorter than the {length}-byte message",
                dst.len()
            )));
        }
        Ok(Self { dst })
    }

    // Offsets below are the message's own layout constants and lengths already summed into
    // the length checked in `new`, so the slices are in bounds by construction.

    pub fn i64(&mut self, offset: usize, value: i64) {
        self.bytes(offset, &value.to_le_bytes());
    }

    pub fn i32(&mut self, offset: usize, value: i32) {
        self.bytes(offset, &value.to_le_bytes());
    }

    pub fn i16(&mut self, offset: usize, value: i16) {
        self.bytes(offset, &value.to_le_bytes());
    }

    pub fn u16(&mut self, offset: usize, value: u16) {
        self.bytes(offset, &value.to_le_bytes());
    }

    pub fn bytes(&mut self, offset: usize, src: &[u8]) {
        self.dst[offset..offset + src.len()].copy_from_slice(src);
    }

    pub fn zeros(&mut self, offset: usize, length: usize) {
        self.dst[offset..offset + length].fill(0);
    }

    /// Writes `bytes` with its int32 length prefix at `offset`; returns the offset just past
    /// the last byte. The length must have been checked with [`string_length`].
    pub fn string(&mut self, offset: usize, bytes: &[u8], length: i32) -> usize {
        self.i32(offset, length);
        let body = offset + SIZE_OF_I32;
        self.bytes(body, bytes);
        body + bytes.len()
    }

    /// As [`string`](Self::string), then zero padding up to the 4-byte boundary at which the
    /// next field starts; returns that boundary.
    pub fn aligned_string(&mut self, offset: usize, bytes: &[u8], length: i32) -> usize {
        let end = self.string(offset, bytes, length);
        let next = offset + aligned_string_field_length(bytes.len());
        self.zeros(end, next - end);
        next
    }
}

/// The int32 length prefix for `bytes`, or an error naming the field when it does not fit.
pub fn string_length(name: &str, field: &str, bytes: &[u8]) -> Result<i32> {
    i32::try_from(bytes.len()).map_err(|_| {
        Error::invalid_argument(format!("{name}: {field} of {} bytes exceeds i32::MAX", bytes.len()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "test message";

    #[test]
    fn reader_rejects_short_message_with_malformed_command() {
        let err = MessageReader::new(&[0u8; 3], NAME, 4).err().unwrap();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand));
        assert_eq!(err.code(), -7);
        assert_eq!(err.message(), "test message: length 3 is below the minimum of 4");
    }

    #[test]
    fn reader_reads_little_endian_fields() {
        let src = [1, 0, 0, 0, 0, 0, 0, 0x80, 0xFE, 0xFF, 0xFF, 0xFF, 0x34, 0x12, 0xFF, 0xFF];
        let r = MessageReader::new(&src, NAME, 16).unwrap();
        assert_eq!(r.i64(0, "a").unwrap(), i64::MIN + 1);
        assert_eq!(r.i32(8, "b").unwrap(), -2);
        assert_eq!(r.u16(12, "c").unwrap(), 0x1234);
        assert_eq!(r.i16(14, "d").unwrap(), -1);
        let err = r.i64(9, "late").unwrap_err();
        assert_eq!(
            err.message(),
            "test message: late (8 bytes at offset 9) runs past the end of the 16-byte message"
        );
        assert!(r.i32(usize::MAX, "huge").is_err());
        assert!(r.bytes(usize::MAX, 2, "huge").is_err());
    }

    #[test]
    fn reader_string_checks_sign_and_extent() {
        let mut src = vec![3, 0, 0, 0, b'a', b'b', b'c', b'x'];
        let r = MessageReader::new(&src, NAME, 4).unwrap();
        assert_eq!(r.string(0, "s").unwrap(), (&b"abc"[..], 7));
        src[0] = 5;
        let r = MessageReader::new(&src, NAME, 4).unwrap();
        assert_eq!(
            r.string(0, "s").unwrap_err().message(),
            "test message: s (5 bytes at offset 4) runs past the end of the 8-byte message"
        );
        let neg = (-1i32).to_le_bytes();
        let r = MessageReader::new(&neg, NAME, 4).unwrap();
        assert_eq!(r.string(0, "s").unwrap_err().message(), "test message: s length -1 is negative");
    }

    #[test]
    fn writer_pads_aligned_strings_with_zeros() {
        let mut dst = [0xAAu8; 12];
        let mut w = MessageWriter::new(&mut dst, NAME, 12).unwrap();
        assert_eq!(w.aligned_string(0, b"hello", 5), 12);
        assert_eq!(dst, [5, 0, 0, 0, b'h', b'e', b'l', b'l', b'o', 0, 0, 0]);
        let mut small = [0u8; 4];
        assert!(MessageWriter::new(&mut small, NAME, 5).is_err());
    }

    #[test]
    fn text_requires_utf8() {
        assert_eq!(text(NAME, "channel", b"aeron:ipc").unwrap(), "aeron:ipc");
        let err = text(NAME, "channel", &[0xFF]).unwrap_err();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand));
        assert_eq!(text_lossy(&[b'a', 0xFF]), "a\u{FFFD}");
    }

    #[test]
    fn aligned_string_field_lengths() {
        assert_eq!(aligned_string_field_length(0), 4);
        assert_eq!(aligned_string_field_length(1), 8);
        assert_eq!(aligned_string_field_length(4), 8);
        assert_eq!(aligned_string_field_length(45), 52);
    }
}
