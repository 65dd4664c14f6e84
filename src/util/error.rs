//! The one error type of the crate, carrying an `aeron_errcode()`-compatible code.
//!
//! Codes follow Aeron's C convention so `ffi/` can hand them out unchanged: a positive
//! value is an `errno`, a negative value is `-AERON_ERROR_CODE_*` (the control protocol
//! codes) or one of the client codes (`AERON_CLIENT_ERROR_*`, -1000 and below).
#![forbid(unsafe_code)]

use std::fmt;

/// Control-protocol error codes (ON_ERROR `error_code`), as in Aeron 1.48.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum AeronErrorCode {
    Unused = 0,
    InvalidChannel = 1,
    UnknownSubscription = 2,
    UnknownPublication = 3,
    ChannelEndpointError = 4,
    UnknownCounter = 5,
    UnknownCommandTypeId = 6,
    MalformedCommand = 7,
    NotSupported = 8,
    UnknownHost = 9,
    ResourceTemporarilyUnavailable = 10,
    GenericError = 11,
    StorageSpace = 12,
    ImageRejected = 13,
    PublicationRevoked = 14,
}

impl AeronErrorCode {
    /// Aeron C's text for the code (`aeron_error_code_str`, hence a C string), the words
    /// after the code in its error messages: `(-11) generic error, see message`.
    pub fn description(code: i32) -> &'static std::ffi::CStr {
        use AeronErrorCode::*;
        match Self::from_i32(code) {
            Some(Unused | GenericError) => c"generic error, see message",
            Some(InvalidChannel) => c"invalid channel",
            Some(UnknownSubscription) => c"unknown subscription",
            Some(UnknownPublication) => c"unknown publication",
            Some(ChannelEndpointError) => c"channel endpoint error",
            Some(UnknownCounter) => c"unknown counter",
            Some(UnknownCommandTypeId) => c"unknown command type id",
            Some(MalformedCommand) => c"malformed command",
            Some(NotSupported) => c"not supported",
            Some(UnknownHost) => c"unknown host",
            Some(ResourceTemporarilyUnavailable) => c"resource temporarily unavailable",
            Some(StorageSpace) => c"insufficient storage space",
            Some(ImageRejected) => c"image rejected",
            Some(PublicationRevoked) => c"publication revoked",
            None => c"unknown error code",
        }
    }

    /// Maps a wire/shared-memory value back; unknown values become `None`.
    pub fn from_i32(value: i32) -> Option<Self> {
        use AeronErrorCode::*;
        Some(match value {
            0 => Unused,
            1 => InvalidChannel,
            2 => UnknownSubscription,
            3 => UnknownPublication,
            4 => ChannelEndpointError,
            5 => UnknownCounter,
            6 => UnknownCommandTypeId,
            7 => MalformedCommand,
            8 => NotSupported,
            9 => UnknownHost,
            10 => ResourceTemporarilyUnavailable,
            11 => GenericError,
            12 => StorageSpace,
            13 => ImageRejected,
            14 => PublicationRevoked,
            _ => return None,
        })
    }
}

/// What an `aeron_errcode()` value means in words: the system's text for an `errno` (> 0),
/// Aeron's for its codes (<= 0, negated).
pub fn code_description(code: i32) -> String {
    if code > 0 {
        let text = std::io::Error::from_raw_os_error(code).to_string();
        // std appends " (os error N)" to strerror's text.
        match text.rfind(" (os error ") {
            Some(cut) => text[..cut].to_string(),
            None => text,
        }
    } else {
        AeronErrorCode::description(code.saturating_neg()).to_string_lossy().into_owned()
    }
}

/// Client-side error codes of `aeronc.h` (`AERON_CLIENT_ERROR_*`).
pub const CLIENT_ERROR_DRIVER_TIMEOUT: i32 = -1000;
pub const CLIENT_ERROR_CLIENT_TIMEOUT: i32 = -1001;
pub const CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT: i32 = -1002;
pub const CLIENT_ERROR_BUFFER_FULL: i32 = -1003;

/// An error with an Aeron-style code and a human-readable message naming what was wrong.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    code: i32,
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with an explicit `aeron_errcode()` value.
    pub fn with_code(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// A bad argument from the caller (`EINVAL`).
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::with_code(libc::EINVAL, message)
    }

    /// A length, index or offset outside its buffer (`EINVAL`, as Aeron's C client uses).
    pub fn out_of_bounds(message: impl Into<String>) -> Self {
        Self::with_code(libc::EINVAL, message)
    }

    /// An operation that is valid but cannot be carried out in this state (`EPERM`).
    pub fn illegal_state(message: impl Into<String>) -> Self {
        Self::with_code(libc::EPERM, message)
    }

    /// A control-protocol style error: code is `-code` as Aeron's C client reports it.
    pub fn aeron(code: AeronErrorCode, message: impl Into<String>) -> Self {
        Self::with_code(-(code as i32), message)
    }

    /// A feature that exists in the API but not (yet) in this build.
    pub fn not_supported(message: impl Into<String>) -> Self {
        Self::aeron(AeronErrorCode::NotSupported, message)
    }

    /// An I/O failure with the context of what was attempted.
    pub fn io(err: &std::io::Error, context: impl fmt::Display) -> Self {
        let code = err.raw_os_error().unwrap_or(libc::EIO);
        Self::with_code(code, format!("{context}: {err}"))
    }

    /// The `aeron_errcode()` value: >0 errno, <0 Aeron code.
    pub fn code(&self) -> i32 {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// The control-protocol code, if this error carries one.
    pub fn aeron_code(&self) -> Option<AeronErrorCode> {
        if self.code <= 0 && self.code > -100 { AeronErrorCode::from_i32(-self.code) } else { None }
    }

    /// Prefixes the message with what the caller was doing, keeping the code.
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}) {}", self.code, self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self::io(&err, "I/O error")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_aeron_convention() {
        assert_eq!(Error::invalid_argument("x").code(), libc::EINVAL);
        let e = Error::aeron(AeronErrorCode::InvalidChannel, "bad uri");
        assert_eq!(e.code(), -1);
        assert_eq!(e.aeron_code(), Some(AeronErrorCode::InvalidChannel));
        assert_eq!(Error::with_code(CLIENT_ERROR_DRIVER_TIMEOUT, "t").aeron_code(), None);
        assert_eq!(AeronErrorCode::from_i32(14), Some(AeronErrorCode::PublicationRevoked));
        assert_eq!(AeronErrorCode::from_i32(15), None);
    }

    #[test]
    fn context_prefixes_message() {
        let e = Error::invalid_argument("capacity 0").context("ring buffer");
        assert_eq!(e.message(), "ring buffer: capacity 0");
        assert_eq!(e.to_string(), format!("({}) ring buffer: capacity 0", libc::EINVAL));
    }

    #[test]
    fn code_descriptions_as_aeron_c_words_them() {
        assert_eq!(code_description(libc::ENOENT), "No such file or directory");
        assert_eq!(code_description(-1), "invalid channel");
        assert_eq!(code_description(-11), "generic error, see message");
        assert_eq!(code_description(0), "generic error, see message");
        assert_eq!(code_description(-14), "publication revoked");
        assert_eq!(code_description(-15), "unknown error code");
        assert_eq!(code_description(CLIENT_ERROR_DRIVER_TIMEOUT), "unknown error code");
    }

    #[test]
    fn io_error_keeps_errno() {
        let err = std::io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(Error::io(&err, "open cnc.dat").code(), libc::ENOENT);
    }
}
