//! SETUP (0x05), 40 bytes: the sender announces a stream's log geometry and position
//! (`spec/wire-protocol.md` §4).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_SETUP};
use crate::protocol::le;

const NAME: &str = "SETUP";

pub const SETUP_TERM_OFFSET_OFFSET: usize = 8;
pub const SETUP_SESSION_ID_OFFSET: usize = 12;
pub const SETUP_STREAM_ID_OFFSET: usize = 16;
pub const SETUP_INITIAL_TERM_ID_OFFSET: usize = 20;
pub const SETUP_ACTIVE_TERM_ID_OFFSET: usize = 24;
pub const SETUP_TERM_LENGTH_OFFSET: usize = 28;
pub const SETUP_MTU_OFFSET: usize = 32;
pub const SETUP_TTL_OFFSET: usize = 36;
pub const SETUP_HEADER_LENGTH: usize = 40;

/// The publication expects a response channel: the receiver should answer with RSP_SETUP.
pub const SETUP_SEND_RESPONSE_SETUP_FLAG: u8 = 0x80;
/// The sender channel has group semantics (multicast or MDC).
pub const SETUP_GROUP_FLAG: u8 = 0x40;

/// Read-only view of a SETUP frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetupFlyweight<'a> {
    bytes: &'a [u8; SETUP_HEADER_LENGTH],
}

impl<'a> SetupFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        Ok(Self { bytes: header::parse_fixed(buffer, NAME, HDR_TYPE_SETUP)? })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    pub fn is_send_response_setup(&self) -> bool {
        self.flags() & SETUP_SEND_RESPONSE_SETUP_FLAG != 0
    }

    pub fn is_group(&self) -> bool {
        self.flags() & SETUP_GROUP_FLAG != 0
    }

    /// Term offset of the sender position.
    pub fn term_offset(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_TERM_OFFSET_OFFSET)
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_STREAM_ID_OFFSET)
    }

    pub fn initial_term_id(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_INITIAL_TERM_ID_OFFSET)
    }

    /// Term id of the sender position.
    pub fn active_term_id(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_ACTIVE_TERM_ID_OFFSET)
    }

    pub fn term_length(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_TERM_LENGTH_OFFSET)
    }

    pub fn mtu(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_MTU_OFFSET)
    }

    /// Multicast TTL of the sender channel (0 for unicast).
    pub fn ttl(&self) -> i32 {
        le::get_i32(self.bytes, SETUP_TTL_OFFSET)
    }

    pub fn to_setup(&self) -> Setup {
        Setup {
            flags: self.flags(),
            term_offset: self.term_offset(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            initial_term_id: self.initial_term_id(),
            active_term_id: self.active_term_id(),
            term_length: self.term_length(),
            mtu: self.mtu(),
            ttl: self.ttl(),
        }
    }
}

/// Field values of a SETUP frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setup {
    pub flags: u8,
    pub term_offset: i32,
    pub session_id: i32,
    pub stream_id: i32,
    pub initial_term_id: i32,
    pub active_term_id: i32,
    pub term_length: i32,
    pub mtu: i32,
    pub ttl: i32,
}

impl Setup {
    /// Writes the 40-byte frame; returns 40.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let out = header::output::<SETUP_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(out, SETUP_HEADER_LENGTH as i32, self.flags, HDR_TYPE_SETUP);
        le::put_i32(out, SETUP_TERM_OFFSET_OFFSET, self.term_offset);
        le::put_i32(out, SETUP_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(out, SETUP_STREAM_ID_OFFSET, self.stream_id);
        le::put_i32(out, SETUP_INITIAL_TERM_ID_OFFSET, self.initial_term_id);
        le::put_i32(out, SETUP_ACTIVE_TERM_ID_OFFSET, self.active_term_id);
        le::put_i32(out, SETUP_TERM_LENGTH_OFFSET, self.term_length);
        le::put_i32(out, SETUP_MTU_OFFSET, self.mtu);
        le::put_i32(out, SETUP_TTL_OFFSET, self.ttl);
        Ok(SETUP_HEADER_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Setup {
        Setup {
            flags: SETUP_GROUP_FLAG,
            term_offset: 4224,
            session_id: 394850090,
            stream_id: 1002,
            initial_term_id: 1476212330,
            active_term_id: 1476212331,
            term_length: 65536,
            mtu: 1408,
            ttl: 4,
        }
    }

    #[test]
    fn round_trips_and_reads_flags() {
        let mut buf = [0u8; 40];
        assert_eq!(sample().encode(&mut buf), Ok(40));
        let view = SetupFlyweight::parse(&buf).unwrap();
        assert_eq!(view.to_setup(), sample());
        assert!(view.is_group() && !view.is_send_response_setup());
    }

    #[test]
    fn rejects_other_types_and_versions() {
        let mut buf = [0u8; 40];
        sample().encode(&mut buf).unwrap();
        buf[6] = 3;
        assert_eq!(
            SetupFlyweight::parse(&buf),
            Err(FrameError::UnexpectedType { frame: "SETUP", actual: 3 })
        );
        buf[6] = 5;
        buf[4] = 2;
        assert_eq!(
            SetupFlyweight::parse(&buf),
            Err(FrameError::UnsupportedVersion { frame: "SETUP", version: 2 })
        );
        buf[4] = 0;
        buf[0] = 41;
        assert_eq!(
            SetupFlyweight::parse(&buf),
            Err(FrameError::FrameLengthExceedsBuffer { frame: "SETUP", frame_length: 41, available: 40 })
        );
    }
}
