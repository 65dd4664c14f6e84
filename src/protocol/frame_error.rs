//! `FrameError`: why a datagram was not a valid frame, or why a frame did not fit.
//!
//! Parsing runs on the receiver and sender duty cycles, which must not allocate, so the
//! error is a small `Copy` value; it becomes a crate [`Error`] (with a message) only when a
//! caller wants to report it.
#![forbid(unsafe_code)]

use std::fmt;

use crate::util::error::Error;

/// A frame failed validation (parsing) or could not be written (encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// The input is shorter than the fixed header of the frame type.
    Truncated { frame: &'static str, needed: usize, available: usize },
    /// The version byte is not 0 (`CURRENT_VERSION`).
    UnsupportedVersion { frame: &'static str, version: u8 },
    /// The type field names another frame type than the one asked for.
    UnexpectedType { frame: &'static str, actual: u16 },
    /// The frame length field is negative or below the type's header length.
    FrameLengthTooShort { frame: &'static str, frame_length: i32, min: usize },
    /// The frame length field claims more bytes than the input holds.
    FrameLengthExceedsBuffer { frame: &'static str, frame_length: i32, available: usize },
    /// An inner field (a message or name length, a resolution type, ...) is invalid.
    InvalidField { frame: &'static str, field: &'static str, value: i64 },
    /// The output buffer is too small for the frame being written.
    BufferTooShort { frame: &'static str, needed: usize, available: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FrameError::Truncated { frame, needed, available } => {
                write!(f, "{frame}: truncated, {needed} bytes needed but {available} available")
            }
            FrameError::UnsupportedVersion { frame, version } => {
                write!(f, "{frame}: unsupported version {version} (expected 0)")
            }
            FrameError::UnexpectedType { frame, actual } => {
                write!(f, "{frame}: unexpected frame type {actual:#06x}")
            }
            FrameError::FrameLengthTooShort { frame, frame_length, min } => {
                write!(f, "{frame}: frame length {frame_length} is below the minimum {min}")
            }
            FrameError::FrameLengthExceedsBuffer { frame, frame_length, available } => {
                write!(f, "{frame}: frame length {frame_length} exceeds the {available} bytes available")
            }
            FrameError::InvalidField { frame, field, value } => write!(f, "{frame}: invalid {field} {value}"),
            FrameError::BufferTooShort { frame, needed, available } => {
                write!(f, "{frame}: {needed} bytes needed but the output buffer has {available}")
            }
        }
    }
}

impl std::error::Error for FrameError {}

impl From<FrameError> for Error {
    fn from(err: FrameError) -> Self {
        Error::invalid_argument(err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_to_einval_error_naming_the_frame() {
        let err: Error =
            FrameError::FrameLengthExceedsBuffer { frame: "SETUP", frame_length: 64, available: 40 }.into();
        assert_eq!(err.code(), libc::EINVAL);
        assert_eq!(err.message(), "SETUP: frame length 64 exceeds the 40 bytes available");
        let text = FrameError::UnexpectedType { frame: "NAK", actual: 3 }.to_string();
        assert_eq!(text, "NAK: unexpected frame type 0x0003");
        let text = FrameError::UnsupportedVersion { frame: "frame", version: 1 }.to_string();
        assert_eq!(text, "frame: unsupported version 1 (expected 0)");
    }
}
