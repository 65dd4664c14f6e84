//! `DriverProxy`: writes this client's commands into the driver's to-driver ring buffer
//! (`spec/control-protocol.md` §1, §5).
#![forbid(unsafe_code)]

use crate::command::{
    Command, CorrelatedMessage, CounterMessage, DestinationByIdMessage, DestinationMessage,
    PublicationMessage, RejectImageMessage, RemoveMessage, StaticCounterMessage, SubscriptionMessage,
    TerminateDriverMessage,
};
use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::util::error::{CLIENT_ERROR_BUFFER_FULL, Error, Result};

/// Claim attempts (with a yield between them) before a full ring buffer is reported, as the
/// C client does: a driver that keeps up drains it within a few of its duty cycles.
const CLAIM_ATTEMPTS: usize = 1000;

/// The client's writer of driver commands. Every command that expects an answer takes a
/// fresh correlation id from the ring buffer's shared counter and returns it.
pub struct DriverProxy {
    to_driver: ManyToOneRingBuffer,
    client_id: i64,
}

impl DriverProxy {
    pub fn new(to_driver: ManyToOneRingBuffer, client_id: i64) -> Self {
        Self { to_driver, client_id }
    }

    /// A fresh id from the counter the driver and all clients share.
    pub fn next_correlation_id(&self) -> i64 {
        self.to_driver.next_correlation_id()
    }

    /// The driver's heartbeat in the ring buffer trailer (epoch ms; −1 after a clean
    /// shutdown; 0 before the driver started).
    pub fn driver_heartbeat_ms(&self) -> i64 {
        self.to_driver.consumer_heartbeat_time()
    }

    pub fn add_publication(&self, channel: &str, stream_id: i32, exclusive: bool) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        let message = PublicationMessage {
            correlated: self.correlated(correlation_id),
            stream_id,
            channel: channel.as_bytes(),
        };
        let command = if exclusive {
            Command::AddExclusivePublication(message)
        } else {
            Command::AddPublication(message)
        };
        self.write(&command)?;
        Ok(correlation_id)
    }

    pub fn remove_publication(&self, registration_id: i64) -> Result<i64> {
        let (correlation_id, message) = self.remove_message(registration_id);
        self.write(&Command::RemovePublication(message))?;
        Ok(correlation_id)
    }

    pub fn add_subscription(&self, channel: &str, stream_id: i32) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        let message = SubscriptionMessage {
            correlated: self.correlated(correlation_id),
            // Ignored by the driver; Java sends −1.
            registration_correlation_id: -1,
            stream_id,
            channel: channel.as_bytes(),
        };
        self.write(&Command::AddSubscription(message))?;
        Ok(correlation_id)
    }

    pub fn remove_subscription(&self, registration_id: i64) -> Result<i64> {
        let (correlation_id, message) = self.remove_message(registration_id);
        self.write(&Command::RemoveSubscription(message))?;
        Ok(correlation_id)
    }

    pub fn add_counter(&self, type_id: i32, key: &[u8], label: &str) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        let message = CounterMessage {
            correlated: self.correlated(correlation_id),
            type_id,
            key,
            label: label.as_bytes(),
        };
        self.write(&Command::AddCounter(message))?;
        Ok(correlation_id)
    }

    pub fn add_static_counter(
        &self,
        type_id: i32,
        key: &[u8],
        label: &str,
        registration_id: i64,
    ) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        let message = StaticCounterMessage {
            correlated: self.correlated(correlation_id),
            registration_id,
            type_id,
            key,
            label: label.as_bytes(),
        };
        self.write(&Command::AddStaticCounter(message))?;
        Ok(correlation_id)
    }

    /// Asks the driver to terminate; its termination validator judges `token`. The driver
    /// does not answer.
    pub fn terminate_driver(&self, token: &[u8]) -> Result<()> {
        let correlated = self.correlated(self.next_correlation_id());
        self.write(&Command::TerminateDriver(TerminateDriverMessage { correlated, token }))
    }

    /// REJECT_IMAGE for image `image_correlation_id` at `position`, with `reason` for its
    /// sender; answered with ON_OPERATION_SUCCESS or ON_ERROR.
    pub fn reject_image(&self, image_correlation_id: i64, position: i64, reason: &str) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        self.write(&Command::RejectImage(RejectImageMessage {
            correlated: self.correlated(correlation_id),
            image_correlation_id,
            position,
            reason: reason.as_bytes(),
        }))?;
        Ok(correlation_id)
    }

    /// A destination command with a channel (ADD_/REMOVE_DESTINATION for publication
    /// `registration_id`, ADD_/REMOVE_RCV_DESTINATION for a subscription), made by `make`.
    /// The correlation id returned is, for an add, the destination's registration id.
    pub fn destination<'a>(
        &self,
        make: impl FnOnce(DestinationMessage<'a>) -> Command<'a>,
        registration_id: i64,
        channel: &'a str,
    ) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        let message = DestinationMessage {
            correlated: self.correlated(correlation_id),
            registration_id,
            channel: channel.as_bytes(),
        };
        self.write(&make(message))?;
        Ok(correlation_id)
    }

    /// REMOVE_DESTINATION_BY_ID: the destination of publication `resource_registration_id`
    /// that the ADD_DESTINATION with correlation id `destination_registration_id` added.
    pub fn remove_destination_by_id(
        &self,
        resource_registration_id: i64,
        destination_registration_id: i64,
    ) -> Result<i64> {
        let correlation_id = self.next_correlation_id();
        self.write(&Command::RemoveDestinationById(DestinationByIdMessage {
            correlated: self.correlated(correlation_id),
            resource_registration_id,
            destination_registration_id,
        }))?;
        Ok(correlation_id)
    }

    pub fn remove_counter(&self, registration_id: i64) -> Result<i64> {
        let (correlation_id, message) = self.remove_message(registration_id);
        self.write(&Command::RemoveCounter(message))?;
        Ok(correlation_id)
    }

    /// Tells the driver this client is going away, so it frees the client's resources now
    /// instead of after the liveness timeout (Java sends correlation id −1).
    pub fn client_close(&self) -> Result<()> {
        self.write(&Command::ClientClose(self.correlated(-1)))
    }

    fn correlated(&self, correlation_id: i64) -> CorrelatedMessage {
        CorrelatedMessage::new(self.client_id, correlation_id)
    }

    fn remove_message(&self, registration_id: i64) -> (i64, RemoveMessage) {
        let correlation_id = self.next_correlation_id();
        (correlation_id, RemoveMessage { correlated: self.correlated(correlation_id), registration_id })
    }

    /// Claims a record, encodes the command in place and commits it; a command the ring
    /// buffer rejects (too long) is an error naming it.
    fn write(&self, command: &Command<'_>) -> Result<()> {
        let length = command.encoded_length();
        let type_id = command.type_id();
        for attempt in 0..CLAIM_ATTEMPTS {
            if let Some(mut claim) = self.to_driver.try_claim_record(type_id, length)? {
                let encoded = command.encode(claim.payload().as_mut_slice());
                return match encoded {
                    Ok(_) => claim.commit(),
                    Err(e) => {
                        claim.abort()?;
                        Err(e)
                    }
                };
            }
            if attempt + 1 < CLAIM_ATTEMPTS {
                std::thread::yield_now();
            }
        }
        Err(Error::with_code(
            CLIENT_ERROR_BUFFER_FULL,
            format!("could not write {} command: to-driver ring buffer full", command.name()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHANNEL: &str = "aeron:udp?endpoint=127.0.0.1:40001";

    /// A proxy for client 77 and a second view of its ring buffer to read the commands.
    fn proxy() -> (DriverProxy, ManyToOneRingBuffer) {
        let to_driver = ManyToOneRingBuffer::with_capacity(4096).unwrap();
        let reader = ManyToOneRingBuffer::new(to_driver.buffer().clone()).unwrap();
        (DriverProxy::new(to_driver, 77), reader)
    }

    fn written(reader: &ManyToOneRingBuffer) -> Vec<(i32, Vec<u8>)> {
        let mut records = Vec::new();
        reader.read(|type_id, body| records.push((type_id, body.to_vec())), 16).unwrap();
        records
    }

    #[test]
    fn destination_commands_name_the_resource_and_the_channel() {
        let (proxy, reader) = proxy();
        let add = proxy.destination(Command::AddDestination, 5, CHANNEL).unwrap();
        let remove = proxy.destination(Command::RemoveRcvDestination, 6, CHANNEL).unwrap();
        assert!(remove > add, "fresh correlation ids");
        let records = written(&reader);
        // Aeron: ADD_DESTINATION 0x07, REMOVE_RCV_DESTINATION 0x0D; 28 B + channel.
        assert_eq!([records[0].0, records[1].0], [0x07, 0x0D]);
        assert!(records.iter().all(|(_, body)| body.len() == 28 + CHANNEL.len()));
        match Command::decode(records[0].0, &records[0].1).unwrap() {
            Command::AddDestination(m) => {
                assert_eq!(m.correlated, CorrelatedMessage::new(77, add));
                assert_eq!(m.registration_id, 5);
                assert_eq!(m.channel, CHANNEL.as_bytes());
            }
            other => panic!("{}", other.name()),
        }
        match Command::decode(records[1].0, &records[1].1).unwrap() {
            Command::RemoveRcvDestination(m) => {
                assert_eq!((m.correlated.correlation_id, m.registration_id), (remove, 6))
            }
            other => panic!("{}", other.name()),
        }
    }

    #[test]
    fn remove_destination_by_id_carries_the_destination_id() {
        let (proxy, reader) = proxy();
        let correlation_id = proxy.remove_destination_by_id(5, 1234).unwrap();
        let records = written(&reader);
        // Aeron: REMOVE_DESTINATION_BY_ID 0x11, 32 B.
        assert_eq!((records[0].0, records[0].1.len()), (0x11, 32));
        match Command::decode(records[0].0, &records[0].1).unwrap() {
            Command::RemoveDestinationById(m) => {
                assert_eq!(m.correlated, CorrelatedMessage::new(77, correlation_id));
                assert_eq!((m.resource_registration_id, m.destination_registration_id), (5, 1234));
            }
            other => panic!("{}", other.name()),
        }
    }
}
