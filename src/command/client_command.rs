//! Every client → driver command as one enum, decoded from a to-driver ring-buffer record
//! (type id + body) and encoded into a claimed record.
#![forbid(unsafe_code)]

use super::codec::ControlMessage;
use super::control_protocol_events as events;
use super::correlated_message::CorrelatedMessage;
use super::counter_message::CounterMessage;
use super::destination_message::{DestinationByIdMessage, DestinationMessage};
use super::publication_message::PublicationMessage;
use super::reject_image::RejectImageMessage;
use super::remove_message::RemoveMessage;
use super::static_counter_message::StaticCounterMessage;
use super::subscription_message::SubscriptionMessage;
use super::terminate_driver::TerminateDriverMessage;
use crate::util::error::{AeronErrorCode, Error, Result};

/// A decoded command, borrowing its strings from the record it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command<'a> {
    AddPublication(PublicationMessage<'a>),
    RemovePublication(RemoveMessage),
    AddExclusivePublication(PublicationMessage<'a>),
    AddSubscription(SubscriptionMessage<'a>),
    RemoveSubscription(RemoveMessage),
    ClientKeepalive(CorrelatedMessage),
    AddDestination(DestinationMessage<'a>),
    RemoveDestination(DestinationMessage<'a>),
    AddCounter(CounterMessage<'a>),
    RemoveCounter(RemoveMessage),
    ClientClose(CorrelatedMessage),
    AddRcvDestination(DestinationMessage<'a>),
    RemoveRcvDestination(DestinationMessage<'a>),
    TerminateDriver(TerminateDriverMessage<'a>),
    AddStaticCounter(StaticCounterMessage<'a>),
    RejectImage(RejectImageMessage<'a>),
    RemoveDestinationById(DestinationByIdMessage),
}

/// Runs `$body` with `$m` bound to the message inside any variant.
macro_rules! with_message {
    ($command:expr, $m:ident => $body:expr) => {
        match $command {
            Command::AddPublication($m) | Command::AddExclusivePublication($m) => $body,
            Command::RemovePublication($m) | Command::RemoveSubscription($m) | Command::RemoveCounter($m) => {
                $body
            }
            Command::AddSubscription($m) => $body,
            Command::ClientKeepalive($m) | Command::ClientClose($m) => $body,
            Command::AddDestination($m)
            | Command::RemoveDestination($m)
            | Command::AddRcvDestination($m)
            | Command::RemoveRcvDestination($m) => $body,
            Command::AddCounter($m) => $body,
            Command::TerminateDriver($m) => $body,
            Command::AddStaticCounter($m) => $body,
            Command::RejectImage($m) => $body,
            Command::RemoveDestinationById($m) => $body,
        }
    };
}

impl<'a> Command<'a> {
    /// Parses the body of a record of type `type_id`. An unknown type id is an
    /// UNKNOWN_COMMAND_TYPE_ID error, a body that does not fit its type a MALFORMED_COMMAND
    /// error naming the command and the field.
    pub fn decode(type_id: i32, src: &'a [u8]) -> Result<Self> {
        Self::decode_body(type_id, src).map_err(|e| match events::command_name(type_id) {
            Some(name) => e.context(name),
            None => e,
        })
    }

    fn decode_body(type_id: i32, src: &'a [u8]) -> Result<Self> {
        Ok(match type_id {
            events::ADD_PUBLICATION => Self::AddPublication(PublicationMessage::decode(src)?),
            events::REMOVE_PUBLICATION => Self::RemovePublication(RemoveMessage::decode(src)?),
            events::ADD_EXCLUSIVE_PUBLICATION => {
                Self::AddExclusivePublication(PublicationMessage::decode(src)?)
            }
            events::ADD_SUBSCRIPTION => Self::AddSubscription(SubscriptionMessage::decode(src)?),
            events::REMOVE_SUBSCRIPTION => Self::RemoveSubscription(RemoveMessage::decode(src)?),
            events::CLIENT_KEEPALIVE => Self::ClientKeepalive(CorrelatedMessage::decode(src)?),
            events::ADD_DESTINATION => Self::AddDestination(DestinationMessage::decode(src)?),
            events::REMOVE_DESTINATION => Self::RemoveDestination(DestinationMessage::decode(src)?),
            events::ADD_COUNTER => Self::AddCounter(CounterMessage::decode(src)?),
            events::REMOVE_COUNTER => Self::RemoveCounter(RemoveMessage::decode(src)?),
            events::CLIENT_CLOSE => Self::ClientClose(CorrelatedMessage::decode(src)?),
            events::ADD_RCV_DESTINATION => Self::AddRcvDestination(DestinationMessage::decode(src)?),
            events::REMOVE_RCV_DESTINATION => Self::RemoveRcvDestination(DestinationMessage::decode(src)?),
            events::TERMINATE_DRIVER => Self::TerminateDriver(TerminateDriverMessage::decode(src)?),
            events::ADD_STATIC_COUNTER => Self::AddStaticCounter(StaticCounterMessage::decode(src)?),
            events::REJECT_IMAGE => Self::RejectImage(RejectImageMessage::decode(src)?),
            events::REMOVE_DESTINATION_BY_ID => {
                Self::RemoveDestinationById(DestinationByIdMessage::decode(src)?)
            }
            _ => {
                return Err(Error::aeron(
                    AeronErrorCode::UnknownCommandTypeId,
                    format!("command type id {type_id} (0x{type_id:x}) unknown"),
                ));
            }
        })
    }

    /// The record type id this command travels under.
    pub fn type_id(&self) -> i32 {
        match self {
            Self::AddPublication(_) => events::ADD_PUBLICATION,
            Self::RemovePublication(_) => events::REMOVE_PUBLICATION,
            Self::AddExclusivePublication(_) => events::ADD_EXCLUSIVE_PUBLICATION,
            Self::AddSubscription(_) => events::ADD_SUBSCRIPTION,
            Self::RemoveSubscription(_) => events::REMOVE_SUBSCRIPTION,
            Self::ClientKeepalive(_) => events::CLIENT_KEEPALIVE,
            Self::AddDestination(_) => events::ADD_DESTINATION,
            Self::RemoveDestination(_) => events::REMOVE_DESTINATION,
            Self::AddCounter(_) => events::ADD_COUNTER,
            Self::RemoveCounter(_) => events::REMOVE_COUNTER,
            Self::ClientClose(_) => events::CLIENT_CLOSE,
            Self::AddRcvDestination(_) => events::ADD_RCV_DESTINATION,
            Self::RemoveRcvDestination(_) => events::REMOVE_RCV_DESTINATION,
            Self::TerminateDriver(_) => events::TERMINATE_DRIVER,
            Self::AddStaticCounter(_) => events::ADD_STATIC_COUNTER,
            Self::RejectImage(_) => events::REJECT_IMAGE,
            Self::RemoveDestinationById(_) => events::REMOVE_DESTINATION_BY_ID,
        }
    }

    /// Aeron's name for this command.
    pub fn name(&self) -> &'static str {
        events::command_name(self.type_id()).unwrap_or("UNKNOWN")
    }

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

    /// Bytes `encode` writes; claim this much in the ring buffer.
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
