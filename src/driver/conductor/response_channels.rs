//! Response channels (the request/response pattern; Aeron C
//! `aeron_driver_conductor_on_response_setup` and friends, `spec/wire-protocol.md` §9):
//!
//! 1. A client subscribes with `control-mode=response` (its `control` names the server's
//!    response address). The subscription waits: it has no session yet, links to no image,
//!    and the receiver does not hear of it.
//! 2. The client publishes its requests with `response-correlation-id=<that subscription's
//!    registration id>`; the SETUP carries SEND_RESPONSE_SETUP.
//! 3. The server's image of that request publication keeps the flag. The server publishes
//!    its answers with `control-mode=response|response-correlation-id=<the image's
//!    correlation id>`; the image then announces that publication's session id to the
//!    request publication in RSP_SETUP frames.
//! 4. The client's sender passes the RSP_SETUP on (`Conductor::on_response_setup`): the
//!    waiting subscription takes that session and asks the server's `control` address for
//!    its SETUP, which tells the response publication where to send.
//! 5. The response publication's first status message (`Conductor::on_response_connected`)
//!    ends the announcements.
//!
//! All of it is refused unless `AERON_ENABLE_EXPERIMENTAL_FEATURES` is set, exactly where
//! Aeron 1.48 refuses it (network publications and subscriptions with `control-mode=response`
//! or a `response-correlation-id`).
#![forbid(unsafe_code)]

use crate::driver::agent_proxy::ReceiverCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::network_params::NetworkSubscriptionParams;
use crate::driver::conductor::params::{PublicationParams, invalid_param};
use crate::driver::media::udp_channel::UdpChannel;
use crate::uri::keys::RESPONSE_CORRELATION_ID;
use crate::util::error::Result;

/// Aeron's text for the refusal, which names the Java setting.
pub const EXPERIMENTAL_REFUSAL: &str = "Response Channels is an experimental feature, and MediaDriver.Context.enableExperimentalFeatures is false";

impl Conductor {
    /// Response channels need `AERON_ENABLE_EXPERIMENTAL_FEATURES`.
    pub(crate) fn validate_experimental_features(&self, udp: &UdpChannel) -> Result<()> {
        if self.ctx.enable_experimental_features
            || (!udp.is_response() && !udp.uri.contains(RESPONSE_CORRELATION_ID))
        {
            return Ok(());
        }
        Err(invalid_param(EXPERIMENTAL_REFUSAL))
    }

    /// A request publication (`response-correlation-id`, not itself a response
    /// publication) names a network subscription that exists.
    pub(crate) fn validate_response_subscription(&self, params: &PublicationParams) -> Result<()> {
        let id = params.response_correlation_id;
        if params.is_response || id == -1 || self.subscriptions.network.index_of(id).is_some() {
            return Ok(());
        }
        Err(invalid_param(format!("unable to find response subscription for response-correlation-id={id}")))
    }

    /// The image a response publication answers: it must exist and have asked for a
    /// response channel. `None` for any other publication.
    pub(crate) fn find_response_image(&self, params: &PublicationParams) -> Result<Option<usize>> {
        if !params.is_response {
            return Ok(None);
        }
        let id = params.response_correlation_id;
        if id == -1 {
            return Err(invalid_param(
                "control-mode=response was specified, but no response-correlation-id set",
            ));
        }
        match self.images.index_of(id) {
            Some(index) if self.images.get(index).has_send_response_setup() => Ok(Some(index)),
            Some(_) => {
                Err(invalid_param(format!("image.correlationId={id} did not request a response channel")))
            }
            None => Err(invalid_param(format!("image.correlationId={id} not found"))),
        }
    }

    /// A second subscription to the same endpoint, stream and session must agree with the
    /// first on `reliable`, `rejoin` and being a response subscription (Aeron C
    /// `aeron_driver_conductor_has_clashing_subscription`).
    pub(crate) fn check_clashing_subscription(
        &self,
        udp: &UdpChannel,
        stream_id: i32,
        params: &NetworkSubscriptionParams,
    ) -> Result<()> {
        let Some(index) = self.find_existing_receive_endpoint(udp)? else { return Ok(()) };
        let endpoint_id = self.endpoints.receive[index].id;
        let session_id = params.common.session_id;
        let same = self.subscriptions.network.iter().filter(|l| {
            l.endpoint_id == endpoint_id
                && l.stream_id == stream_id
                && l.params.common.session_id == session_id
        });
        for link in same {
            let clash = if params.common.is_reliable != link.params.common.is_reliable {
                Some(("reliable", params.common.is_reliable))
            } else if params.common.is_rejoin != link.params.common.is_rejoin {
                Some(("rejoin", params.common.is_rejoin))
            } else if params.is_response != link.is_response {
                Some(("isResponse", params.is_response))
            } else {
                None
            };
            if let Some((name, value)) = clash {
                return Err(invalid_param(format!(
                    "option conflicts with existing subscription: {name}={value} existingChannel={} channel={}",
                    link.channel, udp.original_uri
                )));
            }
        }
        Ok(())
    }

    /// RSP_SETUP reached the request publication of response subscription
    /// `response_correlation_id`: a waiting subscription takes session
    /// `response_session_id` (and the receiver asks for its SETUP); one that already has its
    /// session asks for the SETUP again.
    pub(crate) fn on_response_setup(&mut self, response_correlation_id: i64, response_session_id: i32) {
        for index in 0..self.subscriptions.network.len() {
            let link = &self.subscriptions.network[index];
            if link.registration_id != response_correlation_id {
                continue;
            }
            let (endpoint_id, stream_id) = (link.endpoint_id, link.stream_id);
            match link.params.common.session_id {
                Some(session_id) => {
                    self.receiver_proxy.send(ReceiverCommand::RequestSetup {
                        endpoint_id,
                        stream_id,
                        session_id,
                    });
                }
                None => {
                    self.subscriptions.network[index].assign_response_session(response_session_id);
                    if let Some(e) = self.endpoints.receive.index_of(endpoint_id) {
                        self.incref_receive_stream(e, stream_id, Some(response_session_id));
                    }
                    self.decref_response_stream(endpoint_id, stream_id);
                }
            }
        }
    }

    /// The response publication answering image `response_correlation_id` is connected:
    /// the image stops announcing it.
    pub(crate) fn on_response_connected(&mut self, response_correlation_id: i64) {
        for image in self.images.iter().filter(|i| i.correlation_id() == response_correlation_id) {
            image.status.set_response_session_id(None);
        }
    }
}
