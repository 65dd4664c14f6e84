//! Status message SM (0x03), 36 bytes or 44 with a group tag: the receiver's consumption
//! position and window (`spec/wire-protocol.md` §5).
#![forbid(unsafe_code)]

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_SM};
use crate::protocol::le;

const NAME: &str = "SM";

pub const SM_SESSION_ID_OFFSET: usize = 8;
pub const SM_STREAM_ID_OFFSET: usize = 12;
pub const SM_CONSUMPTION_TERM_ID_OFFSET: usize = 16;
pub const SM_CONSUMPTION_TERM_OFFSET_OFFSET: usize = 20;
pub const SM_RECEIVER_WINDOW_OFFSET: usize = 24;
pub const SM_RECEIVER_ID_OFFSET: usize = 28;
pub const SM_HEADER_LENGTH: usize = 36;
/// The optional group tag follows the fixed part.
pub const SM_GROUP_TAG_OFFSET: usize = SM_HEADER_LENGTH;
pub const SM_HEADER_LENGTH_WITH_GROUP_TAG: usize = SM_HEADER_LENGTH + 8;

/// The receiver wants a SETUP.
pub const SM_SEND_SETUP_FLAG: u8 = 0x80;
/// The receiver is going away (end of stream).
pub const SM_EOS_FLAG: u8 = 0x40;

/// Read-only view of a status message.
///
/// Like Aeron's C sender, any frame length from 36 up to the buffer length is accepted;
/// what follows byte 36 is the optional group tag, checked by [`Self::group_tag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusMessageFlyweight<'a> {
    bytes: &'a [u8; SM_HEADER_LENGTH],
    optional: &'a [u8],
}

impl<'a> StatusMessageFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let bytes = header::parse_header::<SM_HEADER_LENGTH>(buffer, NAME, |t| t == HDR_TYPE_SM)?;
        let frame_length = header::check_frame_length(
            NAME,
            le::get_i32(bytes, FRAME_LENGTH_OFFSET),
            SM_HEADER_LENGTH,
            buffer.len(),
        )?;
        Ok(Self { bytes, optional: &buffer[SM_HEADER_LENGTH..frame_length] })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.bytes, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.bytes[FLAGS_OFFSET]
    }

    pub fn is_send_setup(&self) -> bool {
        self.flags() & SM_SEND_SETUP_FLAG != 0
    }

    pub fn is_end_of_stream(&self) -> bool {
        self.flags() & SM_EOS_FLAG != 0
    }

    pub fn session_id(&self) -> i32 {
        le::get_i32(self.bytes, SM_SESSION_ID_OFFSET)
    }

    pub fn stream_id(&self) -> i32 {
        le::get_i32(self.bytes, SM_STREAM_ID_OFFSET)
    }

    pub fn consumption_term_id(&self) -> i32 {
        le::get_i32(self.bytes, SM_CONSUMPTION_TERM_ID_OFFSET)
    }

    pub fn consumption_term_offset(&self) -> i32 {
        le::get_i32(self.bytes, SM_CONSUMPTION_TERM_OFFSET_OFFSET)
    }

    pub fn receiver_window(&self) -> i32 {
        le::get_i32(self.bytes, SM_RECEIVER_WINDOW_OFFSET)
    }

    pub fn receiver_id(&self) -> i64 {
        le::get_i64(self.bytes, SM_RECEIVER_ID_OFFSET)
    }

    /// The group tag: `None` when the frame ends at 36 bytes, the tag when exactly 8 bytes
    /// follow, an error for any other length (Aeron's tagged flow control logs that and
    /// treats the tag as absent).
    pub fn group_tag(&self) -> Result<Option<i64>, FrameError> {
        match self.optional.first_chunk::<8>() {
            None if self.optional.is_empty() => Ok(None),
            Some(tag) if self.optional.len() == 8 => Ok(Some(i64::from_le_bytes(*tag))),
            _ => Err(FrameError::InvalidField {
                frame: NAME,
                field: "group tag length",
                value: self.optional.len() as i64,
            }),
        }
    }

    /// Field values; a malformed group tag becomes `None`.
    pub fn to_status_message(&self) -> StatusMessage {
        StatusMessage {
            flags: self.flags(),
            session_id: self.session_id(),
            stream_id: self.stream_id(),
            consumption_term_id: self.consumption_term_id(),
            consumption_term_offset: self.consumption_term_offset(),
            receiver_window: self.receiver_window(),
            receiver_id: self.receiver_id(),
            group_tag: self.group_tag().unwrap_or(None),
        }
    }
}

/// Field values of a status message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatusMessage {
    pub flags: u8,
    pub session_id: i32,
    pub stream_id: i32,
    pub consumption_term_id: i32,
    pub consumption_term_offset: i32,
    pub receiver_window: i32,
    pub receiver_id: i64,
    /// Written (frame length 44) only when present.
    pub group_tag: Option<i64>,
}

impl StatusMessage {
    /// The SM a receiver sends to elicit a SETUP: flag 0x80, positions and window 0.
    pub fn setup_elicitation(
        session_id: i32,
        stream_id: i32,
        receiver_id: i64,
        group_tag: Option<i64>,
    ) -> Self {
        Self {
            flags: SM_SEND_SETUP_FLAG,
            session_id,
            stream_id,
            consumption_term_id: 0,
            consumption_term_offset: 0,
            receiver_window: 0,
            receiver_id,
            group_tag,
        }
    }

    pub fn encoded_length(&self) -> usize {
        if self.group_tag.is_some() { SM_HEADER_LENGTH_WITH_GROUP_TAG } else { SM_HEADER_LENGTH }
    }

    /// Writes 36 bytes, or 44 with a group tag; returns the frame length.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        let length = self.encoded_length();
        if buffer.len() < length {
            return Err(FrameError::BufferTooShort { frame: NAME, needed: length, available: buffer.len() });
        }
        let fixed = header::output::<SM_HEADER_LENGTH>(buffer, NAME)?;
        header::write_header(fixed, length as i32, self.flags, HDR_TYPE_SM);
        le::put_i32(fixed, SM_SESSION_ID_OFFSET, self.session_id);
        le::put_i32(fixed, SM_STREAM_ID_OFFSET, self.stream_id);
        le::put_i32(fixed, SM_CONSUMPTION_TERM_ID_OFFSET, self.consumption_term_id);
        le::put_i32(fixed, SM_CONSUMPTION_TERM_OFFSET_OFFSET, self.consumption_term_offset);
        le::put_i32(fixed, SM_RECEIVER_WINDOW_OFFSET, self.receiver_window);
        le::put_i64(fixed, SM_RECEIVER_ID_OFFSET, self.receiver_id);
        if let Some(tag) = self.group_tag {
            buffer[SM_GROUP_TAG_OFFSET..SM_HEADER_LENGTH_WITH_GROUP_TAG].copy_from_slice(&tag.to_le_bytes());
        }
        Ok(length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(group_tag: Option<i64>) -> StatusMessage {
        StatusMessage {
            flags: SM_EOS_FLAG,
            session_id: 394850090,
            stream_id: 1002,
            consumption_term_id: 1476212331,
            consumption_term_offset: 4224,
            receiver_window: 32768,
            receiver_id: 7817558738737205717,
            group_tag,
        }
    }

    #[test]
    fn round_trips_with_and_without_group_tag() {
        for tag in [None, Some(-42)] {
            let mut buf = [0u8; 44];
            let length = sample(tag).encode(&mut buf).unwrap();
            assert_eq!(length, if tag.is_some() { 44 } else { 36 });
            let view = StatusMessageFlyweight::parse(&buf[..length]).unwrap();
            assert_eq!(view.to_status_message(), sample(tag));
            assert_eq!(view.group_tag(), Ok(tag));
            assert!(view.is_end_of_stream() && !view.is_send_setup());
        }
    }

    #[test]
    fn encodes_into_exactly_sized_buffers() {
        assert_eq!(sample(None).encode(&mut [0u8; 36]), Ok(36));
        assert_eq!(
            sample(Some(1)).encode(&mut [0u8; 43]),
            Err(FrameError::BufferTooShort { frame: "SM", needed: 44, available: 43 })
        );
        assert_eq!(
            sample(None).encode(&mut [0u8; 35]),
            Err(FrameError::BufferTooShort { frame: "SM", needed: 36, available: 35 })
        );
    }

    #[test]
    fn odd_optional_length_is_reported_by_group_tag() {
        let mut buf = [0u8; 40];
        sample(None).encode(&mut buf).unwrap();
        buf[0] = 40;
        let view = StatusMessageFlyweight::parse(&buf).unwrap();
        assert_eq!(
            view.group_tag(),
            Err(FrameError::InvalidField { frame: "SM", field: "group tag length", value: 4 })
        );
        assert_eq!(view.to_status_message().group_tag, None);
    }
}
