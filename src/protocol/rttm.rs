//! RTTM (0x06), 40 bytes: round-trip-time measurement between receiver and sender
//! (`spec/wire-protocol.md` §7).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_RTTM};
use crate::protocol::le;

const NAME: &str = "RTTM";

pub const RTTM_SESSION_ID_OFFSET: usize = 8;
pub const RTTM_STREAM_ID_OFFSET: usize = 12;
pub const RTTM_ECHO_TIMESTAMP_OFFSET: usize = 16;
pub const RTTM_RECEPTION_DELTA_OFFSET: usize = 24;
pub const RTTM_RECEIVER_ID_OFFSET: usize = 32;
pub const RTTM_HEADER_LENGTH: usize = 40;

/// "Please reply": the frame is a measurement request.
pub const RTTM_REPLY_FLAG: u8 = 0x80;

/// Read-only view of an RTTM frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttmFlyweight<'a> {
    bytes: &'a [u8; RTTM_HEADER_LENGTH],
}

impl<'a> RttmFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        Ok(Self { bytes: header::parse_fixed(buffer, NAME, HDR_TYPE_RTTM)? })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    /// A request (reply wanted) rather than a reply.
    pub fn is_reply_requested(&self) -> bool {
        self.flags() & RTTM_REPLY_FLAG != 0
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, RTTM_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, RTTM_STREAM_ID_OFFSET)
    }

    /// Nanoseconds on the originator's clock.
    pub fn echo_timestamp_ns(&self) -> i64 {
        le::get_i64(self.bytes, RTTM_ECHO_TIMESTAMP_OFFSET)
    }

    pub fn reception_delta_ns(&self) -> i64 {
        le::get_i64(self.bytes, RTTM_RECEPTION_DELTA_OFFSET)
    }

    pub fn receiver_id(&self) -> i64 {
        le::get_i64(self.bytes, RTTM_RECEIVER_ID_OFFSET)
    }

    pub fn to_rttm(&self) -> Rttm {
        Rttm {
            flags: self.flags(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            echo_timestamp_ns: self.echo_timestamp_ns(),
            reception_delta_ns: self.reception_delta_ns(),
            receiver_id: self.receiver_id(),
        }
    }
}

/// Field values of an RTTM frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rttm {
    pub flags: u8,
    pub session_id: i32,
    pub stream_id: i32,
    pub echo_timestamp_ns: i64,
    pub reception_delta_ns: i64,
    pub receiver_id: i64,
}

impl Rttm {
    /// A measurement request (flag 0x80, delta 0), as a receiver sends it.
    pub fn request(session_id: i32, stream_id: i32, now_ns: i64, receiver_id: i64) -> Self {
        Self {
            flags: RTTM_REPLY_FLAG,
            session_id,
            stream_id,
            echo_timestamp_ns: now_ns,
            reception_delta_ns: 0,
            receiver_id,
        }
    }

    /// The answer to `request`: flags 0, same echo timestamp and receiver id, delta 0.
    pub fn reply_to(request: &Rttm) -> Self {
        Self { flags: 0, reception_delta_ns: 0, ..*request }
    }

    /// Writes the 40-byte frame; returns 40.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let out = header::output::<RTTM_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(out, RTTM_HEADER_LENGTH as i32, self.flags, HDR_TYPE_RTTM);
        le::put_i32(out, RTTM_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(out, RTTM_STREAM_ID_OFFSET, self.stream_id);
        le::put_i64(out, RTTM_ECHO_TIMESTAMP_OFFSET, self.echo_timestamp_ns);
        le::put_i64(out, RTTM_RECEPTION_DELTA_OFFSET, self.reception_delta_ns);
        le::put_i64(out, RTTM_RECEIVER_ID_OFFSET, self.receiver_id);
        Ok(RTTM_HEADER_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_and_reply_round_trip() {
        let request = Rttm::request(-556070390, 1002, 2037571849479, 9034009517472226646);
        let mut buf = [0u8; 40];
        request.encode(&mut buf).unwrap();
        let view = RttmFlyweight::parse(&buf).unwrap();
        assert!(view.is_reply_requested());
        assert_eq!(view.to_rttm(), request);

        let reply = Rttm::reply_to(&view.to_rttm());
        reply.encode(&mut buf).unwrap();
        let view = RttmFlyweight::parse(&buf).unwrap();
        assert!(!view.is_reply_requested());
        assert_eq!(view.echo_timestamp_ns(), 2037571849479);
        assert_eq!(view.receiver_id(), 9034009517472226646);
    }

    #[test]
    fn rejects_frame_length_below_header() {
        let mut buf = [0u8; 40];
        Rttm::request(1, 2, 3, 4).encode(&mut buf).unwrap();
        buf[0] = 36;
        assert_eq!(
            RttmFlyweight::parse(&buf),
            Err(FrameError::FrameLengthTooShort { frame: "RTTM", frame_length: 36, min: 40 })
        );
    }
}
