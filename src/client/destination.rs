//! Destinations of multi-destination publications and subscriptions (Aeron
//! `Publication.addDestination`, `Subscription.addDestination`, the C client's
//! `aeron_*_async_*destination*`): the commands of `spec/control-protocol.md` §5.5-5.6,
//! each answered by the driver with ON_OPERATION_SUCCESS or ON_ERROR under the command's
//! correlation id.
//!
//! A multi-destination-cast publication (`aeron:udp?control-mode=manual`) sends every
//! frame to each destination added; a multi-destination subscription (`control-mode=manual`)
//! rebuilds one image from the frames arriving on every destination added. The
//! ADD_DESTINATION correlation id is the destination's registration id, which
//! REMOVE_DESTINATION_BY_ID takes.
#![forbid(unsafe_code)]

use std::sync::Arc;

use crate::client::aeron::check_channel;
use crate::client::async_add::PendingRegistration;
use crate::client::client_conductor::{RegistrationKind, Resource};
use crate::client::conductor_handle::ConductorHandle;
use crate::client::publication_core::PublicationCore;
use crate::client::subscription::SubscriptionState;
use crate::command::Command;
use crate::util::error::{Error, Result};

/// What to do with a destination.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DestinationCommand<'a> {
    /// Add the destination with this channel URI.
    Add(&'a str),
    /// Remove the destination with this channel URI.
    Remove(&'a str),
    /// Remove the destination an add with this correlation id made (publications only).
    RemoveById(i64),
}

/// The resource whose destinations change.
#[derive(Clone)]
enum Target {
    Publication(Arc<PublicationCore>),
    Subscription(Arc<SubscriptionState>),
}

/// Sends the destination commands of one publication or subscription. Holds only what
/// never changes or is thread-safe, so it may be used from any thread, also while another
/// thread offers to (or polls) the resource.
#[derive(Clone)]
pub(crate) struct Destinations {
    client: Arc<ConductorHandle>,
    target: Target,
}

impl Destinations {
    pub fn of_publication(client: Arc<ConductorHandle>, core: Arc<PublicationCore>) -> Self {
        Self { client, target: Target::Publication(core) }
    }

    pub fn of_subscription(client: Arc<ConductorHandle>, state: Arc<SubscriptionState>) -> Self {
        Self { client, target: Target::Subscription(state) }
    }

    /// Sends `command` and returns the handle to poll for the driver's answer. An error,
    /// with nothing sent, for a bad channel, a closed resource or a closed client.
    pub fn send(&self, command: DestinationCommand<'_>) -> Result<AsyncDestination> {
        if let DestinationCommand::Add(channel) | DestinationCommand::Remove(channel) = command {
            check_channel(channel)?;
        }
        let correlation_id = self.client.with(|c| {
            c.ensure_open()?;
            // The driver knows a publication by the registration id of its driver-side
            // publication, which every handle of a shared (concurrent) publication shares.
            let (resource_id, is_closed, what) = match &self.target {
                Target::Publication(core) => {
                    (core.info.original_registration_id, core.is_closed(), "publication")
                }
                Target::Subscription(state) => (state.registration_id, state.is_closed(), "subscription"),
            };
            if is_closed {
                return Err(Error::illegal_state(format!("{what} {resource_id} is closed")));
            }
            let publication = matches!(self.target, Target::Publication(_));
            let (name, sent) = match (publication, command) {
                (true, DestinationCommand::Add(channel)) => {
                    ("ADD_DESTINATION", c.driver.destination(Command::AddDestination, resource_id, channel))
                }
                (true, DestinationCommand::Remove(channel)) => (
                    "REMOVE_DESTINATION",
                    c.driver.destination(Command::RemoveDestination, resource_id, channel),
                ),
                (true, DestinationCommand::RemoveById(destination_id)) => (
                    "REMOVE_DESTINATION_BY_ID",
                    c.driver.remove_destination_by_id(resource_id, destination_id),
                ),
                (false, DestinationCommand::Add(channel)) => (
                    "ADD_RCV_DESTINATION",
                    c.driver.destination(Command::AddRcvDestination, resource_id, channel),
                ),
                (false, DestinationCommand::Remove(channel)) => (
                    "REMOVE_RCV_DESTINATION",
                    c.driver.destination(Command::RemoveRcvDestination, resource_id, channel),
                ),
                (false, DestinationCommand::RemoveById(_)) => {
                    return Err(Error::invalid_argument(
                        "a subscription's destinations are removed by channel, not by id",
                    ));
                }
            };
            let correlation_id = sent.map_err(|e| e.context(name))?;
            c.register(correlation_id, RegistrationKind::Destination(name));
            Ok(correlation_id)
        })?;
        Ok(AsyncDestination { pending: PendingRegistration::new(Arc::clone(&self.client), correlation_id) })
    }

    /// Sends `command` and waits for the driver's answer (up to the driver timeout).
    /// Returns the command's correlation id: for an add, the destination's registration id.
    pub fn run(&self, command: DestinationCommand<'_>) -> Result<i64> {
        let mut pending = self.send(command)?;
        let correlation_id = pending.registration_id();
        self.client.await_completion(|| pending.poll().map(|done| done.then_some(())))?;
        Ok(correlation_id)
    }
}

/// A destination command sent and not yet answered (Aeron C `aeron_async_destination_t`).
///
/// [`poll`](Self::poll) returns `Ok(false)` until the driver answers, then `Ok(true)`
/// (ON_OPERATION_SUCCESS), or the driver's error (ON_ERROR as `Error::aeron(code,
/// message)`, or a driver-timeout error), exactly once. Dropping it before that leaves the
/// command in flight; a refusal then goes to the client's error handler.
pub struct AsyncDestination {
    pending: PendingRegistration,
}

impl AsyncDestination {
    /// The command's correlation id. For an add, this is the destination's registration
    /// id, which `remove_destination_by_id` takes.
    pub fn registration_id(&self) -> i64 {
        self.pending.registration_id
    }

    /// `Ok(false)` while waiting; `Ok(true)` or the error once complete. Polling again
    /// after completion is an error.
    pub fn poll(&mut self) -> Result<bool> {
        match self.pending.poll()? {
            None => Ok(false),
            Some(Resource::Acknowledged) => Ok(true),
            Some(other) => Err(self.pending.unexpected(other)),
        }
    }
}

impl std::fmt::Debug for AsyncDestination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncDestination")
            .field("registration_id", &self.pending.registration_id)
            .field("done", &self.pending.done)
            .finish()
    }
}
