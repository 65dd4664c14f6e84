//! REJECT_IMAGE (`spec/control-protocol.md` §5.12; Aeron 1.48 C
//! `aeron_driver_conductor_on_invalidate_image`, Java `DriverConductor.onRejectImage`): a
//! subscriber refuses a network image. The conductor checks the request and hands the
//! reason to the receiver, which from then on drops the image's data and answers its sender
//! with ERR frames instead of status messages. The image is left to its usual life cycle:
//! with no data accepted it times out, goes unavailable to its subscribers and, after the
//! cool-down, the sender may set up a new one.
#![forbid(unsafe_code)]

use crate::command::reject_image::MAX_REASON_LENGTH;
use crate::command::{CorrelatedMessage, RejectImageMessage};
use crate::driver::agent_proxy::ReceiverCommand;
use crate::driver::conductor::Conductor;
use crate::util::error::{AeronErrorCode, Error, Result};

impl Conductor {
    pub(crate) fn on_reject_image(&mut self, command: &RejectImageMessage<'_>) -> Result<()> {
        let CorrelatedMessage { correlation_id, .. } = command.correlated;
        if command.reason.len() > MAX_REASON_LENGTH {
            return Err(Error::aeron(
                AeronErrorCode::GenericError,
                format!(
                    "rejection reason must be {MAX_REASON_LENGTH} bytes or less, was {}",
                    command.reason.len()
                ),
            ));
        }
        let image_correlation_id = command.image_correlation_id;
        let Some(image) = self.images.find(image_correlation_id) else {
            return Err(Error::aeron(
                AeronErrorCode::GenericError,
                format!("unable to resolve image for correlationId={image_correlation_id}"),
            ));
        };
        // The position is carried but, as in Aeron, not acted on: rejection is immediate.
        self.receiver_proxy.send(ReceiverCommand::RejectImage {
            endpoint_id: image.identity.endpoint_id,
            correlation_id: image_correlation_id,
            reason: command.reason.to_vec(),
        });
        self.proxy.on_operation_succeeded(correlation_id);
        Ok(())
    }
}
