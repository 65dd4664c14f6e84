//! What the sender and receiver ask of the conductor (`driver::agent_proxy`): build an
//! image for a SETUP, note that a resource was released, broadcast a publication error,
//! pair a response subscription with its response publication, log an error.
#![forbid(unsafe_code)]

use crate::command::PublicationError;
use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::driver::agent_proxy::{COMMAND_DRAIN_LIMIT, ConductorCommand, PublicationErrorReport};
use crate::driver::conductor::Conductor;

impl Conductor {
    /// Handles up to the drain limit of queued agent commands; returns how many.
    pub(crate) fn process_agent_commands(&mut self, to_driver: &ManyToOneRingBuffer) -> i32 {
        let mut work = 0;
        while work < COMMAND_DRAIN_LIMIT {
            let Some(command) = self.agent_commands.next() else { break };
            self.on_agent_command(command, to_driver);
            work += 1;
        }
        work as i32
    }

    fn on_agent_command(&mut self, command: ConductorCommand, to_driver: &ManyToOneRingBuffer) {
        match command {
            ConductorCommand::CreateImage(request) => {
                // Image correlation ids come from the same counter as clients' ids.
                let correlation_id = to_driver.next_correlation_id();
                self.on_create_image(request, correlation_id);
            }
            ConductorCommand::PublicationReleased { registration_id } => {
                self.publications.on_sender_released(registration_id)
            }
            ConductorCommand::SendEndpointReleased { endpoint_id } => {
                self.endpoints.on_send_released(endpoint_id, &mut self.counters, self.now_ms)
            }
            ConductorCommand::ImageReleased { correlation_id } => {
                self.images.on_receiver_released(correlation_id)
            }
            ConductorCommand::ReceiveEndpointReleased { endpoint_id } => {
                self.endpoints.on_receive_released(endpoint_id, &mut self.counters, self.now_ms)
            }
            ConductorCommand::ReceiveDestinationReleased { endpoint_id, destination_id } => {
                if let Some(destination_id) = destination_id {
                    self.endpoints.on_receive_destination_released(
                        endpoint_id,
                        destination_id,
                        &mut self.counters,
                        self.now_ms,
                    );
                }
            }
            ConductorCommand::PublicationError(report) => self.on_publication_error(&report),
            ConductorCommand::ResponseSetup { response_correlation_id, response_session_id } => {
                self.on_response_setup(response_correlation_id, response_session_id)
            }
            ConductorCommand::ResponseConnected { response_correlation_id } => {
                self.on_response_connected(response_correlation_id)
            }
            ConductorCommand::ReResolveEndpoint { endpoint_id, endpoint_name, existing } => {
                self.on_re_resolve_endpoint(endpoint_id, endpoint_name, existing)
            }
            ConductorCommand::ReResolveControl { endpoint_id, destination_id, control_name, existing } => {
                self.on_re_resolve_control(endpoint_id, destination_id, control_name, existing)
            }
            ConductorCommand::Error(error) => self.log_error(&error),
        }
    }

    /// ON_PUBLICATION_ERROR for a receiver's ERR frame; counted as an error frame sent
    /// on to clients.
    fn on_publication_error(&mut self, report: &PublicationErrorReport) {
        let (address_type, source_port, source_address) =
            PublicationError::source_fields(Some(report.source));
        let message = PublicationError {
            registration_id: report.registration_id,
            destination_registration_id: report.destination_registration_id,
            session_id: report.session_id,
            stream_id: report.stream_id,
            receiver_id: report.receiver_id,
            group_tag: report.group_tag.unwrap_or(-1),
            address_type,
            source_port,
            source_address,
            error_code_value: report.error_code,
            error_message: &report.message,
        };
        self.proxy.on_publication_error(&message);
    }
}
