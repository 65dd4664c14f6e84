//! DATA (0x01) and PAD (0x00) frames, and the heartbeat (a DATA header with frame length 0)
//! (`spec/wire-protocol.md` §3). The same 32-byte header starts every frame in a term.
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{
    self, BEGIN_FLAG, DATA_HEADER_LENGTH, END_FLAG, EOS_FLAG, FLAGS_OFFSET, FRAME_LENGTH_OFFSET,
    HDR_TYPE_DATA, HDR_TYPE_PAD, RESERVED_VALUE_OFFSET, SESSION_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET,
    TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET, UNFRAGMENTED,
};
use crate::protocol::le;

const NAME: &str = "DATA";

/// Read-only view of a DATA or PAD frame (or heartbeat) at the start of a buffer.
///
/// A DATA frame's length must be 0 (heartbeat) or at least 32 and fit the buffer. A PAD
/// frame's length may exceed the buffer: the sender puts only its 32-byte header into a
/// datagram while the length field keeps the full padded length (spec §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFlyweight<'a> {
    header: &'a [u8; DATA_HEADER_LENGTH],
    payload: &'a [u8],
}

impl<'a> DataFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let header = header::parse_header::<DATA_HEADER_LENGTH>(buffer, NAME, |t| {
            t == HDR_TYPE_DATA || t == HDR_TYPE_PAD
        })?;
        let frame_length = le::get_i32(header, FRAME_LENGTH_OFFSET);
        let payload = match le::get_u16(header, TYPE_OFFSET) {
            HDR_TYPE_PAD => {
                header::check_frame_length("PAD", frame_length, DATA_HEADER_LENGTH, usize::MAX)?;
                &[][..]
            }
            _ if frame_length == 0 => &[][..],
            _ => {
                let length =
                    header::check_frame_length(NAME, frame_length, DATA_HEADER_LENGTH, buffer.len())?;
                &buffer[DATA_HEADER_LENGTH..length]
            }
        };
        Ok(Self { header, payload })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.header, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.header[FLAGS_OFFSET]
    }

    /// `HDR_TYPE_DATA` or `HDR_TYPE_PAD`.
    pub fn frame_type(&self) -> u16 {
        le::get_u16(self.header, TYPE_OFFSET)
    }

    pub fn term_offset(&self) -> i32 {
        le::get_i32(self.header, TERM_OFFSET_FIELD_OFFSET)
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.header, SESSION_ID_FIELD_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.header, STREAM_ID_FIELD_OFFSET)
    }

    pub fn term_id(&self) -> i32 {
        le::get_i32(self.header, TERM_ID_FIELD_OFFSET)
    }

    pub fn reserved_value(&self) -> i64 {
        le::get_i64(self.header, RESERVED_VALUE_OFFSET)
    }

    /// Message bytes (empty for PAD frames and heartbeats).
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    pub fn header_bytes(&self) -> &'a [u8; DATA_HEADER_LENGTH] {
        self.header
    }

    pub fn is_padding(&self) -> bool {
        self.frame_type() == HDR_TYPE_PAD
    }

    /// Aeron: a DATA header with frame length 0 is a heartbeat.
    pub fn is_heartbeat(&self) -> bool {
        self.frame_type() == HDR_TYPE_DATA && self.frame_length() == 0
    }

    /// End of stream: only ever set on heartbeats.
    pub fn is_end_of_stream(&self) -> bool {
        self.flags() & EOS_FLAG != 0
    }

    pub fn is_begin_fragment(&self) -> bool {
        self.flags() & BEGIN_FLAG != 0
    }

    pub fn is_end_fragment(&self) -> bool {
        self.flags() & END_FLAG != 0
    }

    /// The header's field values, for re-encoding or storing.
    pub fn to_header(&self) -> DataHeader {
        DataHeader {
            frame_length: self.frame_length(),
            flags: self.flags(),
            frame_type: self.frame_type(),
            term_offset: self.term_offset(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            term_id: self.term_id(),
            reserved_value: self.reserved_value(),
        }
    }
}

/// Field values of a DATA/PAD header; writes the exact 32 bytes of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataHeader {
    pub frame_length: i32,
    pub flags: u8,
    /// `HDR_TYPE_DATA` or `HDR_TYPE_PAD`.
    pub frame_type: u16,
    pub term_offset: i32,
    pub session_id: i32,
    pub stream_id: i32,
    pub term_id: i32,
    pub reserved_value: i64,
}

impl DataHeader {
    /// An unfragmented DATA frame header for a payload of `payload_length` bytes.
    pub fn data(
        session_id: i32,
        stream_id: i32,
        term_id: i32,
        term_offset: i32,
        payload_length: usize,
    ) -> Self {
        Self {
            frame_length: (DATA_HEADER_LENGTH + payload_length).min(i32::MAX as usize) as i32,
            flags: UNFRAGMENTED,
            frame_type: HDR_TYPE_DATA,
            term_offset,
            session_id,
            stream_id,
            term_id,
            reserved_value: 0,
        }
    }

    /// A heartbeat at the sender position; `end_of_stream` sets the EOS flag (0xE0).
    pub fn heartbeat(
        session_id: i32,
        stream_id: i32,
        term_id: i32,
        term_offset: i32,
        end_of_stream: bool,
    ) -> Self {
        Self {
            frame_length: 0,
            flags: if end_of_stream { UNFRAGMENTED | EOS_FLAG } else { UNFRAGMENTED },
            ..Self::data(session_id, stream_id, term_id, term_offset, 0)
        }
    }

    /// A padding frame covering `frame_length` bytes of a term.
    pub fn pad(session_id: i32, stream_id: i32, term_id: i32, term_offset: i32, frame_length: i32) -> Self {
        Self {
            frame_length,
            frame_type: HDR_TYPE_PAD,
            ..Self::data(session_id, stream_id, term_id, term_offset, 0)
        }
    }

    /// Writes the 32-byte header as given; returns 32.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let out = header::output::<DATA_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(out, self.frame_length, self.flags, self.frame_type);
        le::put_i32(out, TERM_OFFSET_FIELD_OFFSET, self.term_offset);
        le::put_i32(out, SESSION_ID_FIELD_OFFSET, self.session_id);
        le::put_i32(out, STREAM_ID_FIELD_OFFSET, self.stream_id);
        le::put_i32(out, TERM_ID_FIELD_OFFSET, self.term_id);
        le::put_i64(out, RESERVED_VALUE_OFFSET, self.reserved_value);
        Ok(DATA_HEADER_LENGTH)
    }

    /// Writes the header followed by `payload`; the frame length must equal 32 + payload.
    /// Returns the frame length.
    pub fn encode_frame(&self, payload: &[u8], buffer: &mut [u8]) -> Result<usize, FrameError> {
        let length = DATA_HEADER_LENGTH + payload.len();
        if usize::try_from(self.frame_length) != Ok(length) {
            return Err(FrameError::InvalidField {
                frame: NAME,
                field: "frame length for payload",
                value: i64::from(self.frame_length),
            });
        }
        if buffer.len() < length {
            return Err(FrameError::BufferTooShort { frame: NAME, needed: length, available: buffer.len() });
        }
        self.encode(buffer)?;
        buffer[DATA_HEADER_LENGTH..length].copy_from_slice(payload);
        Ok(length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_frame_round_trips_with_payload() {
        let header = DataHeader { reserved_value: 7, ..DataHeader::data(11, 22, 33, 64, 3) };
        let mut buf = [0xAAu8; 40];
        assert_eq!(header.encode_frame(b"abc", &mut buf), Ok(35));
        let view = DataFlyweight::parse(&buf).unwrap();
        assert_eq!(view.payload(), b"abc");
        assert_eq!(view.to_header(), header);
        assert!(view.is_begin_fragment() && view.is_end_fragment());
        assert!(!view.is_heartbeat() && !view.is_padding() && !view.is_end_of_stream());
    }

    #[test]
    fn heartbeat_and_pad_are_recognised() {
        let mut buf = [0u8; 32];
        DataHeader::heartbeat(1, 2, 3, 4, true).encode(&mut buf).unwrap();
        assert_eq!(buf[5], 0xE0);
        let view = DataFlyweight::parse(&buf).unwrap();
        assert!(view.is_heartbeat() && view.is_end_of_stream());
        assert!(view.payload().is_empty());

        DataHeader::pad(1, 2, 3, 4, 192).encode(&mut buf).unwrap();
        let view = DataFlyweight::parse(&buf).unwrap();
        assert!(view.is_padding());
        assert_eq!(view.frame_length(), 192);
    }

    #[test]
    fn rejects_bad_lengths() {
        let mut buf = [0u8; 40];
        DataHeader::data(1, 2, 3, 0, 16).encode(&mut buf).unwrap();
        assert_eq!(
            DataFlyweight::parse(&buf),
            Err(FrameError::FrameLengthExceedsBuffer { frame: "DATA", frame_length: 48, available: 40 })
        );
        DataHeader { frame_length: 31, ..DataHeader::data(1, 2, 3, 0, 0) }.encode(&mut buf).unwrap();
        assert_eq!(
            DataFlyweight::parse(&buf),
            Err(FrameError::FrameLengthTooShort { frame: "DATA", frame_length: 31, min: 32 })
        );
        DataHeader::pad(1, 2, 3, 0, -32).encode(&mut buf).unwrap();
        assert_eq!(
            DataFlyweight::parse(&buf),
            Err(FrameError::FrameLengthTooShort { frame: "PAD", frame_length: -32, min: 32 })
        );
        assert_eq!(
            DataHeader::data(1, 2, 3, 0, 4).encode_frame(b"abc", &mut buf),
            Err(FrameError::InvalidField { frame: "DATA", field: "frame length for payload", value: 36 })
        );
    }
}
