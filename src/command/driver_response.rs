//! Every driver → clients response as one enum, decoded from a to-clients broadcast record
//! (type id + body) and encoded into a record for transmission.
#![forbid(unsafe_code)]

use super::client_timeout::ClientTimeout;
use super::codec::ControlMessage;
use super::control_protocol_events as events;
use super::counter_update::CounterUpdate;
use super::error_response::ErrorResponse;
use super::image_buffers_ready::ImageBuffersReady;
use super::image_message::ImageMessage;
use super::operation_succeeded::OperationSucceeded;
use super::publication_buffers_ready::PublicationBuffersReady;
use super::publication_error::PublicationError;
use super::subscription_ready::SubscriptionReady;
use crate::util::error::{AeronErrorCode, Error, Result};

/// A decoded response, borrowing its strings from the record it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Response<'a> {
    Error(ErrorResponse<'a>),
    AvailableImage(ImageBuffersReady<'a>),
    PublicationReady(PublicationBuffersReady<'a>),
    OperationSuccess(OperationSucceeded),
    UnavailableImage(ImageMessage<'a>),
    ExclusivePublicationReady(PublicationBuffersReady<'a>),
    SubscriptionReady(SubscriptionReady),
    CounterReady(CounterUpdate),
    UnavailableCounter(CounterUpdate),
    ClientTimeout(ClientTimeout),
    StaticCounter(CounterUpdate),
    PublicationError(PublicationError<'a>),
}

/// Runs `$body` with `$m` bound to the message inside any variant.
macro_rules! with_message {
    ($response:expr, $m:ident => $body:expr) => {
        match $response {
            Response::Error($m) => $body,
            Response::AvailableImage($m) => $body,
            Response::PublicationReady($m) | Response::ExclusivePublicationReady($m) => $body,
            Response::OperationSuccess($m) => $body,
            Response::UnavailableImage($m) => $body,
            Response::SubscriptionReady($m) => $body,
            Response::CounterReady($m) | Response::UnavailableCounter($m) | Response::StaticCounter($m) => {
                $body
            }
            Response::ClientTimeout($m) => $body,
            Response::PublicationError($m) => $body,
        }
    };
}

impl<'a> Response<'a> {
    /// Parses the body of a record of type `type_id`. An unknown type id is an
    /// UNKNOWN_COMMAND_TYPE_ID error (a client skips those: a newer driver may send types
    /// this build does not know); a body that does not fit its type is MALFORMED_COMMAND.
    pub fn decode(type_id: i32, src: &'a [u8]) -> Result<Self> {
        Self::decode_body(type_id, src).map_err(|e| match events::response_name(type_id) {
            Some(name) => e.context(name),
            None => e,
        })
    }

    fn decode_body(type_id: i32, src: &'a [u8]) -> Result<Self> {
        Ok(match type_id {
            events::ON_ERROR => Self::Error(ErrorResponse::decode(src)?),
            events::ON_AVAILABLE_IMAGE => Self::AvailableImage(ImageBuffersReady::decode(src)?),
            events::ON_PUBLICATION_READY => Self::PublicationReady(PublicationBuffersReady::decode(src)?),
            events::ON_OPERATION_SUCCESS => Self::OperationSuccess(OperationSucceeded::decode(src)?),
            events::ON_UNAVAILABLE_IMAGE => Self::UnavailableImage(ImageMessage::decode(src)?),
            events::ON_EXCLUSIVE_PUBLICATION_READY => {
                Self::ExclusivePublicationReady(PublicationBuffersReady::decode(src)?)
            }
            events::ON_SUBSCRIPTION_READY => Self::SubscriptionReady(SubscriptionReady::decode(src)?),
            events::ON_COUNTER_READY => Self::CounterReady(CounterUpdate::decode(src)?),
            events::ON_UNAVAILABLE_COUNTER => Self::UnavailableCounter(CounterUpdate::decode(src)?),
            events::ON_CLIENT_TIMEOUT => Self::ClientTimeout(ClientTimeout::decode(src)?),
            events::ON_STATIC_COUNTER => Self::StaticCounter(CounterUpdate::decode(src)?),
            events::ON_PUBLICATION_ERROR => Self::PublicationError(PublicationError::decode(src)?),
            _ => {
                return Err(Error::aeron(
                    AeronErrorCode::UnknownCommandTypeId,
                    format!("response type id {type_id} (0x{type_id:x}) unknown"),
                ));
            }
        })
    }

    /// The record type id this response travels under.
    pub fn type_id(&self) -> i32 {
        match self {
            Self::Error(_) => events::ON_ERROR,
            Self::AvailableImage(_) => events::ON_AVAILABLE_IMAGE,
            Self::PublicationReady(_) => events::ON_PUBLICATION_READY,
            Self::OperationSuccess(_) => events::ON_OPERATION_SUCCESS,
            Self::UnavailableImage(_) => events::ON_UNAVAILABLE_IMAGE,
            Self::ExclusivePublicationReady(_) => events::ON_EXCLUSIVE_PUBLICATION_READY,
            Self::SubscriptionReady(_) => events::ON_SUBSCRIPTION_READY,
            Self::CounterReady(_) => events::ON_COUNTER_READY,
            Self::UnavailableCounter(_) => events::ON_UNAVAILABLE_COUNTER,
            Self::ClientTimeout(_) => events::ON_CLIENT_TIMEOUT,
            Self::StaticCounter(_) => events::ON_STATIC_COUNTER,
            Self::PublicationError(_) => events::ON_PUBLICATION_ERROR,
        }
    }

    /// Aeron's name for this response.
    pub fn name(&self) -> &'static str {
        events::response_name(self.type_id()).unwrap_or("UNKNOWN")
    }

    /// Bytes `encode` writes.
    pub fn encoded_length(&self) -> usize {
        with_message!(self, m => m.encoded_length())
    }

    /// Writes the body at the start of `dst`; returns its length.
    pub fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        with_message!(self, m => m.encode(dst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_dispatches_on_type_id() {
        let update = CounterUpdate { correlation_id: 1, counter_id: 40 };
        let mut dst = [0u8; 12];
        update.encode(&mut dst).unwrap();
        assert_eq!(Response::decode(events::ON_COUNTER_READY, &dst).unwrap(), Response::CounterReady(update));
        assert_eq!(
            Response::decode(events::ON_UNAVAILABLE_COUNTER, &dst).unwrap(),
            Response::UnavailableCounter(update)
        );
        let static_counter = Response::decode(events::ON_STATIC_COUNTER, &dst).unwrap();
        assert_eq!(static_counter, Response::StaticCounter(update));
        assert_eq!(static_counter.name(), "ON_STATIC_COUNTER");
        assert_eq!(static_counter.type_id(), 0x0F0B);
        assert_eq!(static_counter.encoded_length(), 12);
        // The first 8 bytes alone are a whole OPERATION_SUCCESS / CLIENT_TIMEOUT body.
        assert_eq!(
            Response::decode(events::ON_CLIENT_TIMEOUT, &dst).unwrap(),
            Response::ClientTimeout(ClientTimeout { client_id: 1 })
        );
    }

    #[test]
    fn unknown_type_id_is_reported_not_panicked() {
        for type_id in [0, -1, 0x0F00, 0x0F0D, 0x01] {
            let err = Response::decode(type_id, &[0u8; 128]).unwrap_err();
            assert_eq!(err.aeron_code(), Some(AeronErrorCode::UnknownCommandTypeId));
        }
        assert_eq!(
            Response::decode(0x0F0D, &[]).unwrap_err().message(),
            "response type id 3853 (0xf0d) unknown"
        );
    }

    #[test]
    fn malformed_error_names_the_response() {
        let err = Response::decode(events::ON_EXCLUSIVE_PUBLICATION_READY, &[0u8; 4]).unwrap_err();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand));
        assert_eq!(
            err.message(),
            "ON_EXCLUSIVE_PUBLICATION_READY: publication buffers ready: length 4 is below the minimum of 36"
        );
    }
}
