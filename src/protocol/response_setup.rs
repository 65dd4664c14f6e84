//! RSP_SETUP (0x0B), 20 bytes: a receiver tells the requesting side which session id its
//! response stream uses (`spec/wire-protocol.md` §9).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_RSP_SETUP};
use crate::protocol::le;

const NAME: &str = "RSP_SETUP";

pub const RSP_SETUP_SESSION_ID_OFFSET: usize = 8;
pub const RSP_SETUP_STREAM_ID_OFFSET: usize = 12;
pub const RSP_SETUP_RESPONSE_SESSION_ID_OFFSET: usize = 16;
pub const RSP_SETUP_HEADER_LENGTH: usize = 20;

/// Read-only view of an RSP_SETUP frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseSetupFlyweight<'a> {
    bytes: &'a [u8; RSP_SETUP_HEADER_LENGTH],
}

impl<'a> ResponseSetupFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        Ok(Self { bytes: header::parse_fixed(buffer, NAME, HDR_TYPE_RSP_SETUP)? })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    /// Session id of the request publication.
    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, RSP_SETUP_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, RSP_SETUP_STREAM_ID_OFFSET)
    }

    pub fn response_session_id(&self) -> i32 {
        le::get_i32(self.bytes, RSP_SETUP_RESPONSE_SESSION_ID_OFFSET)
    }

    pub fn to_response_setup(&self) -> ResponseSetup {
        ResponseSetup {
            flags: self.flags(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            response_session_id: self.response_session_id(),
        }
    }
}

/// Field values of an RSP_SETUP frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResponseSetup {
    /// Aeron sends 0.
    pub flags: u8,
    pub session_id: i32,
    pub stream_id: i32,
    pub response_session_id: i32,
}

impl ResponseSetup {
    pub fn new(session_id: i32, stream_id: i32, response_session_id: i32) -> Self {
        Self { flags: 0, session_id, stream_id, response_session_id }
    }

    /// Writes the 20-byte frame; returns 20.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let out = header::output::<RSP_SETUP_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(out, RSP_SETUP_HEADER_LENGTH as i32, self.flags, HDR_TYPE_RSP_SETUP);
        le::put_i32(out, RSP_SETUP_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(out, RSP_SETUP_STREAM_ID_OFFSET, self.stream_id);
        le::put_i32(out, RSP_SETUP_RESPONSE_SESSION_ID_OFFSET, self.response_session_id);
        Ok(RSP_SETUP_HEADER_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let frame = ResponseSetup::new(7, 1001, -9);
        let mut buf = [0u8; 20];
        assert_eq!(frame.encode(&mut buf), Ok(20));
        let view = ResponseSetupFlyweight::parse(&buf).unwrap();
        assert_eq!(view.frame_length(), 20);
        assert_eq!(view.to_response_setup(), frame);
        assert_eq!(
            ResponseSetupFlyweight::parse(&buf[..19]),
            Err(FrameError::Truncated { frame: "RSP_SETUP", needed: 20, available: 19 })
        );
    }
}
