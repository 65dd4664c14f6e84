//! Asynchronous adds: the handle an `async_add_*` call returns, polled until the driver
//! answers (Aeron `aeron_async_add_publication_t` + `aeron_async_add_publication_poll`
//! and friends). The command's correlation id is the registration id of the resource.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::client::client_conductor::Resource;
use crate::client::conductor_handle::ConductorHandle;
use crate::client::counter::Counter;
use crate::client::destination::AsyncDestination;
use crate::client::exclusive_publication::ExclusivePublication;
use crate::client::publication::Publication;
use crate::client::subscription::Subscription;
use crate::util::error::{Error, Result};

/// The registration an async handle waits on.
pub(crate) struct PendingRegistration {
    pub client: Arc<ConductorHandle>,
    pub registration_id: i64,
    pub done: bool,
}

impl PendingRegistration {
    pub fn new(client: Arc<ConductorHandle>, registration_id: i64) -> Self {
        Self { client, registration_id, done: false }
    }

    /// `None` while the driver has not answered; the resource or the error once.
    pub fn poll(&mut self) -> Result<Option<Resource>> {
        if self.done {
            return Err(Error::illegal_state(format!(
                "registration {} already completed",
                self.registration_id
            )));
        }
        let id = self.registration_id;
        let result = self.client.with(|c| c.poll_registration(id));
        self.done = !matches!(result, Ok(None));
        result
    }

    /// Gives back a resource of the wrong kind (a client bug, never the driver's answer).
    pub fn unexpected(&self, resource: Resource) -> Error {
        let id = self.registration_id;
        self.client.with(|c| c.release_resource(id, resource));
        Error::illegal_state(format!("registration {id} completed with a different resource kind"))
    }
}

impl Drop for PendingRegistration {
    fn drop(&mut self) {
        if !self.done {
            let id = self.registration_id;
            self.client.with(|c| c.abandon_registration(id));
        }
    }
}

macro_rules! async_add {
    ($(#[$doc:meta])* $name:ident, $resource:ty, $variant:ident, |$state:ident, $client:ident| $make:expr) => {
        $(#[$doc])*
        ///
        /// [`poll`](Self::poll) returns `Ok(None)` until the driver answers, then the
        /// resource, or the driver's error (ON_ERROR as `Error::aeron(code, message)`, or a
        /// driver-timeout error), exactly once. Dropping the handle before that releases
        /// whatever the driver creates.
        pub struct $name {
            pending: PendingRegistration,
        }

        impl $name {
            pub(crate) fn new(client: Arc<ConductorHandle>, registration_id: i64) -> Self {
                Self { pending: PendingRegistration::new(client, registration_id) }
            }

            /// The ADD command's correlation id: the resource's registration id.
            pub fn registration_id(&self) -> i64 {
                self.pending.registration_id
            }

            /// `Ok(None)` while waiting; the resource or the error once complete. Polling
            /// again after completion is an error.
            pub fn poll(&mut self) -> Result<Option<$resource>> {
                match self.pending.poll()? {
                    None => Ok(None),
                    Some(Resource::$variant($state)) => {
                        let $client = &self.pending.client;
                        $make.map(Some)
                    }
                    Some(other) => Err(self.pending.unexpected(other)),
                }
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("registration_id", &self.pending.registration_id)
                    .field("done", &self.pending.done)
                    .finish()
            }
        }
    };
}

async_add!(
    /// A pending `add_publication`.
    AsyncAddPublication, Publication, Publication, |core, client| {
        let id = core.info.registration_id;
        Publication::new(core, Arc::clone(client)).inspect_err(|_| client.release_publication(id))
    }
);

async_add!(
    /// A pending `add_exclusive_publication`.
    AsyncAddExclusivePublication, ExclusivePublication, ExclusivePublication, |core, client| {
        let id = core.info.registration_id;
        ExclusivePublication::new(core, Arc::clone(client)).inspect_err(|_| client.release_publication(id))
    }
);

async_add!(
    /// A pending `add_subscription`.
    AsyncAddSubscription, Subscription, Subscription, |state, client| {
        Ok::<_, Error>(Subscription::new(state, Arc::clone(client)))
    }
);

async_add!(
    /// A pending `add_counter`.
    AsyncAddCounter, Counter, Counter, |state, client| {
        Ok::<_, Error>(Counter::new(state, Arc::clone(client)))
    }
);

/// An add or destination command in flight, of any kind: what an API that hands out one
/// handle type for all of them (Aeron C's `aeron_client_registering_resource_t`) keeps.
/// `S` is what such an API keeps with a subscription add (its image handlers' target).
pub enum PendingAdd<S> {
    Publication(AsyncAddPublication),
    ExclusivePublication(AsyncAddExclusivePublication),
    Subscription(AsyncAddSubscription, S),
    Counter(AsyncAddCounter),
    Destination(AsyncDestination),
}

impl<S> PendingAdd<S> {
    /// The command's correlation id: the resource's (or destination's) registration id.
    pub fn registration_id(&self) -> i64 {
        match self {
            Self::Publication(p) => p.registration_id(),
            Self::ExclusivePublication(p) => p.registration_id(),
            Self::Subscription(s, _) => s.registration_id(),
            Self::Counter(c) => c.registration_id(),
            Self::Destination(d) => d.registration_id(),
        }
    }
}

/// The handles (`K`) of the adds in flight by registration id, so that the new-resource
/// handlers, which run on the conductor thread and may run before the add returned, can
/// name the add they answer.
pub struct AddsInFlight<K>(Mutex<HashMap<i64, K>>);

impl<K: Copy> AddsInFlight<K> {
    pub fn new() -> Arc<Self> {
        Arc::new(Self(Mutex::new(HashMap::new())))
    }

    /// The handle of the add with `registration_id`, if it is in flight.
    pub fn get(&self, registration_id: i64) -> Option<K> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get(&registration_id).copied()
    }
}

/// A [`PendingAdd`] known to its [`AddsInFlight`] from [`register`](Self::register) until
/// it is dropped (once complete).
pub struct RegisteredAdd<S, K: Copy> {
    pub pending: PendingAdd<S>,
    in_flight: Arc<AddsInFlight<K>>,
}

impl<S, K: Copy> RegisteredAdd<S, K> {
    pub fn new(pending: PendingAdd<S>, in_flight: &Arc<AddsInFlight<K>>) -> Self {
        Self { pending, in_flight: Arc::clone(in_flight) }
    }

    /// Makes `handle` the name of this add for the new-resource handlers. Destination
    /// commands make no resource, so they are not named.
    pub fn register(&self, handle: K) {
        if !matches!(self.pending, PendingAdd::Destination(_)) {
            let id = self.pending.registration_id();
            self.in_flight.0.lock().unwrap_or_else(PoisonError::into_inner).insert(id, handle);
        }
    }
}

impl<S, K: Copy> Drop for RegisteredAdd<S, K> {
    fn drop(&mut self) {
        let id = self.pending.registration_id();
        self.in_flight.0.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }
}
