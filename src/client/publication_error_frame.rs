//! What the client tells the application when a receiver sends an ERR frame about one of
//! its publications (ON_PUBLICATION_ERROR, `spec/control-protocol.md` §6.9; Aeron
//! `PublicationErrorFrame`, `aeron_publication_error_values_t`), e.g. after the receiving
//! side rejected the publication's image.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use crate::command::PublicationError;

/// An error frame a receiver sent about a publication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicationErrorFrame {
    /// The publication's (original) registration id.
    pub registration_id: i64,
    /// The multi-destination destination that reported it; -1 if none.
    pub destination_registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub receiver_id: i64,
    /// The receiver's group tag; -1 when it sent none.
    pub group_tag: i64,
    /// Where the frame came from (`None` for an unknown address type).
    pub source_address: Option<SocketAddr>,
    /// A control-protocol error code (13 IMAGE_REJECTED for a rejected image).
    pub error_code: i32,
    pub error_message: String,
}

impl PublicationErrorFrame {
    pub(crate) fn from_response(m: &PublicationError<'_>) -> Self {
        Self {
            registration_id: m.registration_id,
            destination_registration_id: m.destination_registration_id,
            session_id: m.session_id,
            stream_id: m.stream_id,
            receiver_id: m.receiver_id,
            group_tag: m.group_tag,
            source_address: m.source(),
            error_code: m.error_code_value,
            error_message: m.error_message_lossy().into_owned(),
        }
    }

    /// The frame as the driver's response body, the layout of the C API's
    /// `aeron_publication_error_values_t` (68 bytes, then the message).
    pub fn to_response(&self) -> PublicationError<'_> {
        let (address_type, source_port, source_address) =
            PublicationError::source_fields(self.source_address);
        PublicationError {
            registration_id: self.registration_id,
            destination_registration_id: self.destination_registration_id,
            session_id: self.session_id,
            stream_id: self.stream_id,
            receiver_id: self.receiver_id,
            group_tag: self.group_tag,
            address_type,
            source_port,
            source_address,
            error_code_value: self.error_code,
            error_message: self.error_message.as_bytes(),
        }
    }
}

/// Receives the error frames of this client's publications; runs on the conductor's
/// thread (or the `do_work` caller's), never while the client is locked.
pub type PublicationErrorFrameHandler = Arc<dyn Fn(&PublicationErrorFrame) + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::ControlMessage;

    #[test]
    fn round_trips_through_the_response_layout() {
        let frame = PublicationErrorFrame {
            registration_id: 5,
            destination_registration_id: -1,
            session_id: 7,
            stream_id: 1001,
            receiver_id: 99,
            group_tag: -1,
            source_address: Some("127.0.0.1:40123".parse().unwrap()),
            error_code: 13,
            error_message: "go away".to_string(),
        };
        let response = frame.to_response();
        let mut bytes = vec![0u8; response.encoded_length()];
        assert_eq!(response.encode(&mut bytes).unwrap(), 68 + 7);
        assert_eq!(&bytes[40..44], &[1, 0, 0xBB, 0x9C], "IPv4, port 40123 in host order");
        assert_eq!(&bytes[44..48], &[127, 0, 0, 1]);
        let decoded = PublicationError::decode(&bytes).unwrap();
        assert_eq!(PublicationErrorFrame::from_response(&decoded), frame);
    }
}
