//! The conductor's side of the to-clients broadcast buffer: one method per response
//! (`spec/control-protocol.md` §6), each encoded into a preallocated scratch buffer and
//! transmitted. A failed transmit (a response longer than the buffer allows) is counted
//! and kept for the error log; the driver goes on.
#![forbid(unsafe_code)]

use crate::command::control_protocol_events as events;
use crate::command::{
    ClientTimeout, ControlMessage, CounterUpdate, ErrorResponse, ImageBuffersReady, ImageMessage,
    OperationSucceeded, PublicationBuffersReady, PublicationError, SubscriptionReady,
};
use crate::concurrent::broadcast::BroadcastTransmitter;
use crate::util::error::{AeronErrorCode, Error};

/// `snd-channel`/`rcv-channel` id for channels without one (IPC, spies).
pub const CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED: i32 = -1;

pub struct ClientProxy {
    transmitter: BroadcastTransmitter,
    scratch: Vec<u8>,
    failures: Vec<Error>,
}

impl ClientProxy {
    pub fn new(transmitter: BroadcastTransmitter) -> Self {
        let scratch = vec![0u8; transmitter.max_msg_length()];
        Self { transmitter, scratch, failures: Vec::new() }
    }

    /// Errors from transmits since the last call, for the error log.
    pub fn take_failures(&mut self) -> Vec<Error> {
        std::mem::take(&mut self.failures)
    }

    pub fn has_failures(&self) -> bool {
        !self.failures.is_empty()
    }

    fn send<'a>(&mut self, type_id: i32, message: &impl ControlMessage<'a>) {
        let result = message
            .encode(&mut self.scratch)
            .and_then(|length| self.transmitter.transmit(type_id, &self.scratch[..length]));
        if let Err(e) = result {
            self.failures.push(e.context(format_args!("failed to transmit response type 0x{type_id:x}")));
        }
    }

    pub fn on_error(&mut self, correlation_id: i64, code: AeronErrorCode, message: &str) {
        let response = ErrorResponse {
            offending_command_correlation_id: correlation_id,
            error_code_value: code as i32,
            error_message: message.as_bytes(),
        };
        self.send(events::ON_ERROR, &response);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_publication_ready(
        &mut self,
        correlation_id: i64,
        registration_id: i64,
        session_id: i32,
        stream_id: i32,
        position_limit_counter_id: i32,
        channel_status_indicator_id: i32,
        is_exclusive: bool,
        log_file_name: &str,
    ) {
        let response = PublicationBuffersReady {
            correlation_id,
            registration_id,
            session_id,
            stream_id,
            position_limit_counter_id,
            channel_status_indicator_id,
            log_file_name: log_file_name.as_bytes(),
        };
        let type_id =
            if is_exclusive { events::ON_EXCLUSIVE_PUBLICATION_READY } else { events::ON_PUBLICATION_READY };
        self.send(type_id, &response);
    }

    pub fn on_subscription_ready(&mut self, correlation_id: i64, channel_status_indicator_id: i32) {
        self.send(
            events::ON_SUBSCRIPTION_READY,
            &SubscriptionReady { correlation_id, channel_status_indicator_id },
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_available_image(
        &mut self,
        correlation_id: i64,
        session_id: i32,
        stream_id: i32,
        subscription_registration_id: i64,
        subscriber_position_id: i32,
        log_file_name: &str,
        source_identity: &str,
    ) {
        let response = ImageBuffersReady {
            correlation_id,
            session_id,
            stream_id,
            subscription_registration_id,
            subscriber_position_id,
            log_file_name: log_file_name.as_bytes(),
            source_identity: source_identity.as_bytes(),
        };
        self.send(events::ON_AVAILABLE_IMAGE, &response);
    }

    pub fn on_unavailable_image(
        &mut self,
        correlation_id: i64,
        subscription_registration_id: i64,
        stream_id: i32,
        channel: &str,
    ) {
        let response = ImageMessage {
            correlation_id,
            subscription_registration_id,
            stream_id,
            channel: channel.as_bytes(),
        };
        self.send(events::ON_UNAVAILABLE_IMAGE, &response);
    }

    pub fn on_operation_succeeded(&mut self, correlation_id: i64) {
        self.send(events::ON_OPERATION_SUCCESS, &OperationSucceeded { correlation_id });
    }

    pub fn on_counter_ready(&mut self, correlation_id: i64, counter_id: i32) {
        self.send(events::ON_COUNTER_READY, &CounterUpdate { correlation_id, counter_id });
    }

    pub fn on_unavailable_counter(&mut self, registration_id: i64, counter_id: i32) {
        self.send(
            events::ON_UNAVAILABLE_COUNTER,
            &CounterUpdate { correlation_id: registration_id, counter_id },
        );
    }

    pub fn on_static_counter(&mut self, correlation_id: i64, counter_id: i32) {
        self.send(events::ON_STATIC_COUNTER, &CounterUpdate { correlation_id, counter_id });
    }

    pub fn on_publication_error(&mut self, error: &PublicationError<'_>) {
        self.send(events::ON_PUBLICATION_ERROR, error);
    }

    pub fn on_client_timeout(&mut self, client_id: i64) {
        self.send(events::ON_CLIENT_TIMEOUT, &ClientTimeout { client_id });
    }
}
