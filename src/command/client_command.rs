//! Every client → driver command as one enum, decoded from a to-driver ring-buffer record
//! (type id + body) and encoded into a claimed record.
#![forbid(unsafe_code)]

use super::control_protocol_events as events;
use super::correlated_message::CorrelatedMessage;
use super::counter_message::CounterMessage;
use super::destination_message::{DestinationByIdMessage, DestinationMessage};
use super::message_enum::control_message_enum;
use super::publication_message::PublicationMessage;
use super::reject_image::RejectImageMessage;
use super::remove_message::RemoveMessage;
use super::static_counter_message::StaticCounterMessage;
use super::subscription_message::SubscriptionMessage;
use super::terminate_driver::TerminateDriverMessage;

control_message_enum! {
    /// A decoded command, borrowing its strings from the record it came from.
    pub enum Command<'a> (kind = "command", name_of = events::command_name) {
        AddPublication(PublicationMessage<'a>) = events::ADD_PUBLICATION,
        RemovePublication(RemoveMessage) = events::REMOVE_PUBLICATION,
        AddExclusivePublication(PublicationMessage<'a>) = events::ADD_EXCLUSIVE_PUBLICATION,
        AddSubscription(SubscriptionMessage<'a>) = events::ADD_SUBSCRIPTION,
        RemoveSubscription(RemoveMessage) = events::REMOVE_SUBSCRIPTION,
        ClientKeepalive(CorrelatedMessage) = events::CLIENT_KEEPALIVE,
        AddDestination(DestinationMessage<'a>) = events::ADD_DESTINATION,
        RemoveDestination(DestinationMessage<'a>) = events::REMOVE_DESTINATION,
        AddCounter(CounterMessage<'a>) = events::ADD_COUNTER,
        RemoveCounter(RemoveMessage) = events::REMOVE_COUNTER,
        ClientClose(CorrelatedMessage) = events::CLIENT_CLOSE,
        AddRcvDestination(DestinationMessage<'a>) = events::ADD_RCV_DESTINATION,
        RemoveRcvDestination(DestinationMessage<'a>) = events::REMOVE_RCV_DESTINATION,
        TerminateDriver(TerminateDriverMessage<'a>) = events::TERMINATE_DRIVER,
        AddStaticCounter(StaticCounterMessage<'a>) = events::ADD_STATIC_COUNTER,
        RejectImage(RejectImageMessage<'a>) = events::REJECT_IMAGE,
        RemoveDestinationById(DestinationByIdMessage) = events::REMOVE_DESTINATION_BY_ID,
    }
}

impl Command<'_> {
    /// The header every command starts with: sender's client id and the correlation id the
    /// driver answers with.
    pub fn correlated(&self) -> CorrelatedMessage {
        match self {
            Self::ClientKeepalive(m) | Self::ClientClose(m) => *m,
            Self::AddPublication(m) | Self::AddExclusivePublication(m) => m.correlated,
            Self::RemovePublication(m) | Self::RemoveSubscription(m) | Self::RemoveCounter(m) => m.correlated,
            Self::AddSubscription(m) => m.correlated,
            Self::AddDestination(m)
            | Self::RemoveDestination(m)
            | Self::AddRcvDestination(m)
            | Self::RemoveRcvDestination(m) => m.correlated,
            Self::AddCounter(m) => m.correlated,
            Self::TerminateDriver(m) => m.correlated,
            Self::AddStaticCounter(m) => m.correlated,
            Self::RejectImage(m) => m.correlated,
            Self::RemoveDestinationById(m) => m.correlated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::codec::ControlMessage;
    use crate::util::error::AeronErrorCode;

    #[test]
    fn decode_dispatches_on_type_id() {
        let header = CorrelatedMessage::new(3, 4);
        let mut dst = [0u8; 16];
        header.encode(&mut dst).unwrap();
        assert_eq!(
            Command::decode(events::CLIENT_KEEPALIVE, &dst).unwrap(),
            Command::ClientKeepalive(header)
        );
        let close = Command::decode(events::CLIENT_CLOSE, &dst).unwrap();
        assert_eq!(close, Command::ClientClose(header));
        assert_eq!(close.correlated(), header);
        assert_eq!(close.name(), "CLIENT_CLOSE");
        assert_eq!(close.type_id(), 0x0B);
    }

    #[test]
    fn same_body_different_ids_give_different_commands() {
        let msg =
            PublicationMessage { correlated: CorrelatedMessage::new(1, 2), stream_id: 7, channel: b"x" };
        let mut dst = [0u8; 25];
        msg.encode(&mut dst).unwrap();
        let shared = Command::decode(events::ADD_PUBLICATION, &dst).unwrap();
        let exclusive = Command::decode(events::ADD_EXCLUSIVE_PUBLICATION, &dst).unwrap();
        assert_eq!(shared, Command::AddPublication(msg));
        assert_eq!(exclusive, Command::AddExclusivePublication(msg));
        assert_eq!(exclusive.correlated().correlation_id, 2);
        assert_eq!(exclusive.encoded_length(), 25);
        let mut again = [0u8; 25];
        assert_eq!(exclusive.encode(&mut again).unwrap(), 25);
        assert_eq!(again, dst);
    }

    #[test]
    fn unknown_type_id_is_unknown_command() {
        for type_id in [0, -1, 0x12, 0x0F01, i32::MAX] {
            let err = Command::decode(type_id, &[0u8; 64]).unwrap_err();
            assert_eq!(err.aeron_code(), Some(AeronErrorCode::UnknownCommandTypeId));
            assert_eq!(err.code(), -6);
        }
        assert_eq!(Command::decode(0x12, &[]).unwrap_err().message(), "command type id 18 (0x12) unknown");
    }

    #[test]
    fn malformed_error_names_the_command() {
        let err = Command::decode(events::ADD_EXCLUSIVE_PUBLICATION, &[0u8; 10]).unwrap_err();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand));
        assert_eq!(
            err.message(),
            "ADD_EXCLUSIVE_PUBLICATION: publication command: length 10 is below the minimum of 24"
        );
        let err = Command::decode(events::REMOVE_COUNTER, &[0u8; 16]).unwrap_err();
        assert_eq!(err.message(), "REMOVE_COUNTER: remove command: length 16 is below the minimum of 24");
    }
}
