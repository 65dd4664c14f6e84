//! NAK (0x02), 28 bytes: a receiver asks the sender to resend a gap
//! (`spec/wire-protocol.md` §6).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_NAK};
use crate::protocol::le;

const NAME: &str = "NAK";

pub const NAK_SESSION_ID_OFFSET: usize = 8;
pub const NAK_STREAM_ID_OFFSET: usize = 12;
pub const NAK_TERM_ID_OFFSET: usize = 16;
pub const NAK_TERM_OFFSET_OFFSET: usize = 20;
pub const NAK_LENGTH_OFFSET: usize = 24;
pub const NAK_HEADER_LENGTH: usize = 28;

/// Read-only view of a NAK frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NakFlyweight<'a> {
    bytes: &'a [u8; NAK_HEADER_LENGTH],
}

impl<'a> NakFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        Ok(Self { bytes: header::parse_fixed(buffer, NAME, HDR_TYPE_NAK)? })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, NAK_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, NAK_STREAM_ID_OFFSET)
    }

    /// Term id of the gap.
    pub fn term_id(&self) -> i32 {
        le::get_i32(self.bytes, NAK_TERM_ID_OFFSET)
    }

    /// Term offset of the gap.
    pub fn term_offset(&self) -> i32 {
        le::get_i32(self.bytes, NAK_TERM_OFFSET_OFFSET)
    }

    /// Length of the gap in bytes.
    pub fn length(&self) -> i32 {
        le::get_i32(self.bytes, NAK_LENGTH_OFFSET)
    }

    pub fn to_nak(&self) -> Nak {
        Nak {
            flags: self.flags(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            term_id: self.term_id(),
            term_offset: self.term_offset(),
            length: self.length(),
        }
    }
}

/// Field values of a NAK frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nak {
    /// Aeron sends 0.
    pub flags: u8,
    pub session_id: i32,
    pub stream_id: i32,
    pub term_id: i32,
    pub term_offset: i32,
    pub length: i32,
}

impl Nak {
    pub fn new(session_id: i32, stream_id: i32, term_id: i32, term_offset: i32, length: i32) -> Self {
        Self { flags: 0, session_id, stream_id, term_id, term_offset, length }
    }

    /// Writes the 28-byte frame; returns 28.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let out = header::output::<NAK_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(out, NAK_HEADER_LENGTH as i32, self.flags, HDR_TYPE_NAK);
        le::put_i32(out, NAK_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(out, NAK_STREAM_ID_OFFSET, self.stream_id);
        le::put_i32(out, NAK_TERM_ID_OFFSET, self.term_id);
        le::put_i32(out, NAK_TERM_OFFSET_OFFSET, self.term_offset);
        le::put_i32(out, NAK_LENGTH_OFFSET, self.length);
        Ok(NAK_HEADER_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let nak = Nak::new(-5, 1002, -2003285294, 15712, 1056);
        let mut buf = [0u8; 30];
        assert_eq!(nak.encode(&mut buf), Ok(28));
        let view = NakFlyweight::parse(&buf).unwrap();
        assert_eq!(view.frame_length(), 28);
        assert_eq!(view.to_nak(), nak);
    }

    #[test]
    fn rejects_short_buffers() {
        assert_eq!(
            Nak::new(1, 2, 3, 4, 5).encode(&mut [0u8; 27]),
            Err(FrameError::BufferTooShort { frame: "NAK", needed: 28, available: 27 })
        );
        let mut buf = [0u8; 28];
        Nak::new(1, 2, 3, 4, 5).encode(&mut buf).unwrap();
        assert_eq!(
            NakFlyweight::parse(&buf[..27]),
            Err(FrameError::Truncated { frame: "NAK", needed: 28, available: 27 })
        );
    }
}
