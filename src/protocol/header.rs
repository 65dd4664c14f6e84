//! Constants of the frame header common to every UDP frame and of the 32-byte data header
//! that also heads every frame in a log buffer term (`spec/wire-protocol.md` §1-3).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::le;

/// Aeron wire protocol version byte.
pub const CURRENT_VERSION: u8 = 0;

// Common 8-byte frame header.
pub const FRAME_LENGTH_OFFSET: usize = 0;
pub const VERSION_OFFSET: usize = 4;
pub const FLAGS_OFFSET: usize = 5;
pub const TYPE_OFFSET: usize = 6;
pub const FRAME_HEADER_LENGTH: usize = 8;

// Frame types.
pub const HDR_TYPE_PAD: u16 = 0x00;
pub const HDR_TYPE_DATA: u16 = 0x01;
pub const HDR_TYPE_NAK: u16 = 0x02;
pub const HDR_TYPE_SM: u16 = 0x03;
pub const HDR_TYPE_ERR: u16 = 0x04;
pub const HDR_TYPE_SETUP: u16 = 0x05;
pub const HDR_TYPE_RTTM: u16 = 0x06;
pub const HDR_TYPE_RES: u16 = 0x07;
pub const HDR_TYPE_ATS_DATA: u16 = 0x08;
pub const HDR_TYPE_RSP_SETUP: u16 = 0x0B;
pub const HDR_TYPE_EXT: u16 = 0xFFFF;

// Data header (DATA and PAD frames; every frame in a term).
pub const TERM_OFFSET_FIELD_OFFSET: usize = 8;
pub const SESSION_ID_FIELD_OFFSET: usize = 12;
pub const STREAM_ID_FIELD_OFFSET: usize = 16;
pub const TERM_ID_FIELD_OFFSET: usize = 20;
pub const RESERVED_VALUE_OFFSET: usize = 24;
pub const DATA_HEADER_LENGTH: usize = 32;
/// Payload starts right after the data header.
pub const DATA_OFFSET: usize = DATA_HEADER_LENGTH;

// DATA flags.
pub const BEGIN_FLAG: u8 = 0x80;
pub const END_FLAG: u8 = 0x40;
pub const EOS_FLAG: u8 = 0x20;
pub const UNFRAGMENTED: u8 = BEGIN_FLAG | END_FLAG;

/// Frames in a term start on 32-byte boundaries.
pub const FRAME_ALIGNMENT: usize = 32;

/// Largest UDP payload Aeron sends.
pub const MAX_UDP_PAYLOAD_LENGTH: usize = 65504;

/// Aeron's name for a frame type, for messages and logs.
pub fn frame_type_name(frame_type: u16) -> &'static str {
    match frame_type {
        HDR_TYPE_PAD => "PAD",
        HDR_TYPE_DATA => "DATA",
        HDR_TYPE_NAK => "NAK",
        HDR_TYPE_SM => "SM",
        HDR_TYPE_ERR => "ERR",
        HDR_TYPE_SETUP => "SETUP",
        HDR_TYPE_RTTM => "RTTM",
        HDR_TYPE_RES => "RES",
        HDR_TYPE_ATS_DATA => "ATS_DATA",
        // Aeron: C and Java disagree on which of 0x09/0x0A is ATS_SETUP (spec §2).
        0x09 | 0x0A => "ATS",
        HDR_TYPE_RSP_SETUP => "RSP_SETUP",
        HDR_TYPE_EXT => "EXT",
        _ => "UNKNOWN",
    }
}

/// Read-only view of the 8-byte header every frame starts with.
///
/// Parsing checks only what is common to all frames (length ≥ 8, version 0); the
/// per-type flyweights check their own header length and frame length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader<'a> {
    bytes: &'a [u8; FRAME_HEADER_LENGTH],
}

impl<'a> FrameHeader<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let bytes = buffer.first_chunk::<FRAME_HEADER_LENGTH>().ok_or(FrameError::Truncated {
            frame: "frame",
            needed: FRAME_HEADER_LENGTH,
            available: buffer.len(),
        })?;
        let version = bytes[VERSION_OFFSET];
        if version != CURRENT_VERSION {
            return Err(FrameError::UnsupportedVersion { frame: "frame", version });
        }
        Ok(Self { bytes })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn version(&self) -> u8 {
        self.bytes[VERSION_OFFSET]
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    pub fn frame_type(&self) -> u16 {
        le::get_u16(self.bytes, TYPE_OFFSET)
    }
}

/// Checks the common header of a frame expected to be of `frame_type` and returns its first
/// `N` bytes (the type's fixed header). The frame length field is left to the caller.
pub(crate) fn parse_header<'a, const N: usize>(
    buffer: &'a [u8],
    frame: &'static str,
    accepts_type: impl Fn(u16) -> bool,
) -> Result<&'a [u8; N], FrameError> {
    let bytes = buffer.first_chunk::<N>().ok_or(FrameError::Truncated {
        frame,
        needed: N,
        available: buffer.len(),
    })?;
    let version = bytes[VERSION_OFFSET];
    if version != CURRENT_VERSION {
        return Err(FrameError::UnsupportedVersion { frame, version });
    }
    let actual = le::get_u16(bytes, TYPE_OFFSET);
    if !accepts_type(actual) {
        return Err(FrameError::UnexpectedType { frame, actual });
    }
    Ok(bytes)
}

/// Checks `min <= frame_length <= available` and returns the frame length as a `usize`.
pub(crate) fn check_frame_length(
    frame: &'static str,
    frame_length: i32,
    min: usize,
    available: usize,
) -> Result<usize, FrameError> {
    let length = usize::try_from(frame_length)
        .ok()
        .filter(|&length| length >= min)
        .ok_or(FrameError::FrameLengthTooShort { frame, frame_length, min })?;
    if length > available {
        return Err(FrameError::FrameLengthExceedsBuffer { frame, frame_length, available });
    }
    Ok(length)
}

/// A frame of a fixed-length type: header checks plus `N <= frame length <= buffer length`.
pub(crate) fn parse_fixed<'a, const N: usize>(
    buffer: &'a [u8],
    frame: &'static str,
    frame_type: u16,
) -> Result<&'a [u8; N], FrameError> {
    let bytes = parse_header::<N>(buffer, frame, |actual| actual == frame_type)?;
    check_frame_length(frame, le::get_i32(bytes, FRAME_LENGTH_OFFSET), N, buffer.len())?;
    Ok(bytes)
}

/// The first `N` bytes of an output buffer, or `BufferTooShort`.
pub(crate) fn output<'b, const N: usize>(
    buffer: &'b mut [u8],
    frame: &'static str,
) -> Result<&'b mut [u8; N], FrameError> {
    let available = buffer.len();
    buffer.first_chunk_mut::<N>().ok_or(FrameError::BufferTooShort { frame, needed: N, available })
}

/// Writes the common header; the version is always `CURRENT_VERSION`.
pub(crate) fn write_header<const N: usize>(
    bytes: &mut [u8; N],
    frame_length: i32,
    flags: u8,
    frame_type: u16,
) {
    le::put_i32(bytes, FRAME_LENGTH_OFFSET, frame_length);
    bytes[VERSION_OFFSET] = CURRENT_VERSION;
    bytes[FLAGS_OFFSET] = flags;
    le::put_u16(bytes, TYPE_OFFSET, frame_type);
}

#[cfg(test)]
mod tests {
    use super::*;
    use static_assertions::const_assert_eq;

    const_assert_eq!(DATA_HEADER_LENGTH, 32);
    const_assert_eq!(RESERVED_VALUE_OFFSET + 8, DATA_HEADER_LENGTH);
    const_assert_eq!(UNFRAGMENTED, 0xC0);

    #[test]
    fn data_header_fields_are_contiguous() {
        assert_eq!(TERM_OFFSET_FIELD_OFFSET, FRAME_HEADER_LENGTH);
        assert_eq!(SESSION_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET + 4);
        assert_eq!(STREAM_ID_FIELD_OFFSET, SESSION_ID_FIELD_OFFSET + 4);
        assert_eq!(TERM_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET + 4);
        assert_eq!(RESERVED_VALUE_OFFSET, TERM_ID_FIELD_OFFSET + 4);
    }

    #[test]
    fn frame_header_reads_common_fields() {
        let bytes = [40, 0, 0, 0, 0, 0x80, 5, 0, 0xFF];
        let header = FrameHeader::parse(&bytes).unwrap();
        assert_eq!(header.frame_length(), 40);
        assert_eq!(header.version(), 0);
        assert_eq!(header.flags(), 0x80);
        assert_eq!(header.frame_type(), HDR_TYPE_SETUP);
        assert_eq!(frame_type_name(header.frame_type()), "SETUP");
    }

    #[test]
    fn frame_header_rejects_short_input_and_other_versions() {
        assert_eq!(
            FrameHeader::parse(&[0; 7]),
            Err(FrameError::Truncated { frame: "frame", needed: 8, available: 7 })
        );
        assert_eq!(
            FrameHeader::parse(&[8, 0, 0, 0, 1, 0, 1, 0]),
            Err(FrameError::UnsupportedVersion { frame: "frame", version: 1 })
        );
    }

    #[test]
    fn frame_length_checks() {
        assert_eq!(check_frame_length("NAK", 28, 28, 28), Ok(28));
        assert_eq!(
            check_frame_length("NAK", -1, 28, 28),
            Err(FrameError::FrameLengthTooShort { frame: "NAK", frame_length: -1, min: 28 })
        );
        assert_eq!(
            check_frame_length("NAK", 29, 28, 28),
            Err(FrameError::FrameLengthExceedsBuffer { frame: "NAK", frame_length: 29, available: 28 })
        );
    }
}
