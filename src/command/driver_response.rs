//! Every driver → clients response as one enum, decoded from a to-clients broadcast record
//! (type id + body) and encoded into a record for transmission.
#![forbid(unsafe_code)]

use super::client_timeout::ClientTimeout;
use super::control_protocol_events as events;
use super::counter_update::CounterUpdate;
use super::error_response::ErrorResponse;
use super::image_buffers_ready::ImageBuffersReady;
use super::image_message::ImageMessage;
use super::message_enum::control_message_enum;
use super::operation_succeeded::OperationSucceeded;
use super::publication_buffers_ready::PublicationBuffersReady;
use super::publication_error::PublicationError;
use super::subscription_ready::SubscriptionReady;

control_message_enum! {
    /// A decoded response, borrowing its strings from the record it came from. A client
    /// skips a type id it does not know (UNKNOWN_COMMAND_TYPE_ID from `decode`): a newer
    /// driver may send types this build does not know.
    pub enum Response<'a> (kind = "response", name_of = events::response_name) {
        Error(ErrorResponse<'a>) = events::ON_ERROR,
        AvailableImage(ImageBuffersReady<'a>) = events::ON_AVAILABLE_IMAGE,
        PublicationReady(PublicationBuffersReady<'a>) = events::ON_PUBLICATION_READY,
        OperationSuccess(OperationSucceeded) = events::ON_OPERATION_SUCCESS,
        UnavailableImage(ImageMessage<'a>) = events::ON_UNAVAILABLE_IMAGE,
        ExclusivePublicationReady(PublicationBuffersReady<'a>) = events::ON_EXCLUSIVE_PUBLICATION_READY,
        SubscriptionReady(SubscriptionReady) = events::ON_SUBSCRIPTION_READY,
        CounterReady(CounterUpdate) = events::ON_COUNTER_READY,
        UnavailableCounter(CounterUpdate) = events::ON_UNAVAILABLE_COUNTER,
        ClientTimeout(ClientTimeout) = events::ON_CLIENT_TIMEOUT,
        StaticCounter(CounterUpdate) = events::ON_STATIC_COUNTER,
        PublicationError(PublicationError<'a>) = events::ON_PUBLICATION_ERROR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::codec::ControlMessage;
    use crate::util::error::AeronErrorCode;

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
