//! ERR (0x04), 40 bytes + message: a receiver rejects an image
//! (`spec/wire-protocol.md` §8).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_ERR};
use crate::protocol::le;

const NAME: &str = "ERR";

pub const ERR_SESSION_ID_OFFSET: usize = 8;
pub const ERR_STREAM_ID_OFFSET: usize = 12;
pub const ERR_RECEIVER_ID_OFFSET: usize = 16;
pub const ERR_GROUP_TAG_OFFSET: usize = 24;
pub const ERR_ERROR_CODE_OFFSET: usize = 32;
pub const ERR_ERROR_MESSAGE_LENGTH_OFFSET: usize = 36;
pub const ERR_HEADER_LENGTH: usize = 40;
/// Aeron caps the message so a frame never exceeds 40 + 1023 bytes.
pub const MAX_ERROR_MESSAGE_LENGTH: usize = 1023;
pub const MAX_ERROR_FRAME_LENGTH: usize = ERR_HEADER_LENGTH + MAX_ERROR_MESSAGE_LENGTH;

/// The group tag field is meaningful.
pub const ERR_HAS_GROUP_TAG_FLAG: u8 = 0x08;

/// Read-only view of an error frame. The message must fit inside the frame length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorFrameFlyweight<'a> {
    bytes: &'a [u8; ERR_HEADER_LENGTH],
    message: &'a [u8],
}

impl<'a> ErrorFrameFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let bytes = header::parse_header::<ERR_HEADER_LENGTH>(buffer, NAME, |t| t == HDR_TYPE_ERR)?;
        let frame_length = header::check_frame_length(
            NAME,
            le::get_i32(bytes, FRAME_LENGTH_OFFSET),
            ERR_HEADER_LENGTH,
            buffer.len(),
        )?;
        let message_length = le::get_i32(bytes, ERR_ERROR_MESSAGE_LENGTH_OFFSET);
        let end = usize::try_from(message_length)
            .ok()
            .filter(|&length| length <= MAX_ERROR_MESSAGE_LENGTH)
            .map(|length| ERR_HEADER_LENGTH + length)
            .filter(|&end| end <= frame_length)
            .ok_or(FrameError::InvalidField {
                frame: NAME,
                field: "error message length",
                value: i64::from(message_length),
            })?;
        Ok(Self { bytes, message: &buffer[ERR_HEADER_LENGTH..end] })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, ERR_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, ERR_STREAM_ID_OFFSET)
    }

    pub fn receiver_id(&self) -> i64 {
        le::get_i64(self.bytes, ERR_RECEIVER_ID_OFFSET)
    }

    /// The group tag, present only with the HAS_GROUP_TAG flag.
    pub fn group_tag(&self) -> Option<i64> {
        (self.flags() & ERR_HAS_GROUP_TAG_FLAG != 0).then(|| self.raw_group_tag())
    }

    /// The group tag field whatever the flags say.
    pub fn raw_group_tag(&self) -> i64 {
        le::get_i64(self.bytes, ERR_GROUP_TAG_OFFSET)
    }

    /// A control-protocol error code (13 IMAGE_REJECTED in practice).
    pub fn error_code(&self) -> i32 {
        le::get_i32(self.bytes, ERR_ERROR_CODE_OFFSET)
    }

    /// Message bytes (no NUL).
    pub fn message(&self) -> &'a [u8] {
        self.message
    }

    /// The message as text, if it is UTF-8.
    pub fn message_str(&self) -> Option<&'a str> {
        std::str::from_utf8(self.message).ok()
    }

    pub fn to_error_frame(&self) -> ErrorFrame<'a> {
        ErrorFrame {
            flags: self.flags(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            receiver_id: self.receiver_id(),
            group_tag: self.raw_group_tag(),
            error_code: self.error_code(),
            message: self.message,
        }
    }
}

/// Field values of an error frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorFrame<'a> {
    pub flags: u8,
    pub session_id: i32,
    pub stream_id: i32,
    pub receiver_id: i64,
    /// Written as is; meaningful only with `ERR_HAS_GROUP_TAG_FLAG`.
    pub group_tag: i64,
    pub error_code: i32,
    /// At most `MAX_ERROR_MESSAGE_LENGTH` bytes.
    pub message: &'a [u8],
}

impl<'a> ErrorFrame<'a> {
    /// Sets the HAS_GROUP_TAG flag iff `group_tag` is given.
    pub fn new(
        session_id: i32,
        stream_id: i32,
        receiver_id: i64,
        group_tag: Option<i64>,
        error_code: i32,
        message: &'a [u8],
    ) -> Self {
        Self {
            flags: if group_tag.is_some() { ERR_HAS_GROUP_TAG_FLAG } else { 0 },
            session_id,
            stream_id,
            receiver_id,
            group_tag: group_tag.unwrap_or(0),
            error_code,
            message,
        }
    }

    pub fn encoded_length(&self) -> usize {
        ERR_HEADER_LENGTH + self.message.len()
    }

    /// Writes header and message; returns the frame length (40 + message length).
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        if self.message.len() > MAX_ERROR_MESSAGE_LENGTH {
            return Err(FrameError::InvalidField {
                frame: NAME,
                field: "error message length",
                value: self.message.len() as i64,
            });
        }
        let length = self.encoded_length();
        if buffer.len() < length {
            return Err(FrameError::BufferTooShort { frame: NAME, needed: length, available: buffer.len() });
        }
        let fixed = header::output::<ERR_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(fixed, length as i32, self.flags, HDR_TYPE_ERR);
        le::put_i32(fixed, ERR_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(fixed, ERR_STREAM_ID_OFFSET, self.stream_id);
        le::put_i64(fixed, ERR_RECEIVER_ID_OFFSET, self.receiver_id);
        le::put_i64(fixed, ERR_GROUP_TAG_OFFSET, self.group_tag);
        le::put_i32(fixed, ERR_ERROR_CODE_OFFSET, self.error_code);
        le::put_i32(fixed, ERR_ERROR_MESSAGE_LENGTH_OFFSET, self.message.len() as i32);
        buffer[ERR_HEADER_LENGTH..length].copy_from_slice(self.message);
        Ok(length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_group_tag_flag() {
        let frame = ErrorFrame::new(5, 1001, -77, Some(42), 13, b"image rejected");
        let mut buf = [0u8; 64];
        assert_eq!(frame.encode(&mut buf), Ok(54));
        let view = ErrorFrameFlyweight::parse(&buf[..54]).unwrap();
        assert_eq!(view.flags(), ERR_HAS_GROUP_TAG_FLAG);
        assert_eq!(view.group_tag(), Some(42));
        assert_eq!(view.message_str(), Some("image rejected"));
        assert_eq!(view.to_error_frame(), frame);

        let untagged = ErrorFrame::new(5, 1001, -77, None, 13, b"");
        assert_eq!(untagged.encode(&mut buf), Ok(40));
        assert_eq!(ErrorFrameFlyweight::parse(&buf[..40]).unwrap().group_tag(), None);
    }

    #[test]
    fn rejects_message_lengths_outside_the_frame() {
        let mut buf = [0u8; 48];
        ErrorFrame::new(1, 2, 3, None, 13, b"12345678").encode(&mut buf).unwrap();
        buf[36] = 9;
        assert_eq!(
            ErrorFrameFlyweight::parse(&buf),
            Err(FrameError::InvalidField { frame: "ERR", field: "error message length", value: 9 })
        );
        buf[36..40].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            ErrorFrameFlyweight::parse(&buf),
            Err(FrameError::InvalidField { frame: "ERR", field: "error message length", value: -1 })
        );
        let long = [b'x'; MAX_ERROR_MESSAGE_LENGTH + 1];
        assert_eq!(
            ErrorFrame::new(1, 2, 3, None, 13, &long).encode(&mut [0u8; 2048]),
            Err(FrameError::InvalidField { frame: "ERR", field: "error message length", value: 1024 })
        );
    }
}
