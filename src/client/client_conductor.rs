//! `ClientConductor`: the client's control plane. It sends commands through the
//! [`DriverProxy`], matches the driver's broadcast responses to them by correlation id,
//! maps logs, tracks live resources, keeps the client's heartbeat, watches the driver's,
//! and closes everything when either side times out (`spec/driver.md` §6,
//! `control-protocol.md`).
//!
//! It lives behind the mutex of a [`ConductorHandle`](crate::client::conductor_handle);
//! user callbacks are queued here and run by the handle after the lock is released, so a
//! callback may call back into the client.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use crate::concurrent::ring_buffer::RingBuffer;

use crate::client::client_handlers::ClientHandlers;
use crate::client::conductor_handle::ConductorHandle;
use crate::client::context::Context;
use crate::client::counter::CounterState;
use crate::client::driver_connect::DriverConnection;
use crate::client::driver_proxy::DriverProxy;
use crate::client::heartbeat::{HeartbeatCounter, label_suffix};
use crate::client::image::Image;
use crate::client::publication_core::PublicationCore;
use crate::client::subscription::SubscriptionState;
use crate::concurrent::AtomicBuffer;
use crate::concurrent::broadcast::{BroadcastReceiver, CopyBroadcastReceiver};
use crate::concurrent::counters::CountersReader;
use crate::util::clock::{epoch_ms, nano_time};
use crate::util::error::{
    AeronErrorCode, CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT, CLIENT_ERROR_DRIVER_TIMEOUT, Error, Result,
};

/// Responses taken from the broadcast buffer per duty cycle at most.
const RESPONSES_PER_CYCLE: usize = 16;

/// A resource the driver made for us, ready to be handed to the application.
pub(crate) enum Resource {
    Publication(Arc<PublicationCore>),
    ExclusivePublication(Arc<PublicationCore>),
    Subscription(Arc<SubscriptionState>),
    Counter(Arc<CounterState>),
    /// ON_OPERATION_SUCCESS for a command that makes nothing (REJECT_IMAGE, destinations).
    Acknowledged,
}

/// What an ADD command asked for.
pub(crate) enum RegistrationKind {
    Publication {
        channel: String,
        stream_id: i32,
    },
    ExclusivePublication {
        channel: String,
        stream_id: i32,
    },
    Subscription(Arc<SubscriptionState>),
    Counter,
    /// ADD_STATIC_COUNTER with the caller's registration id.
    StaticCounter {
        registration_id: i64,
    },
    /// REJECT_IMAGE, answered with ON_OPERATION_SUCCESS or ON_ERROR.
    RejectImage,
    /// A destination command (its name, e.g. ADD_DESTINATION), answered with
    /// ON_OPERATION_SUCCESS or ON_ERROR.
    Destination(&'static str),
}

impl RegistrationKind {
    fn name(&self) -> &'static str {
        match self {
            Self::Publication { .. } => "ADD_PUBLICATION",
            Self::ExclusivePublication { .. } => "ADD_EXCLUSIVE_PUBLICATION",
            Self::Subscription(_) => "ADD_SUBSCRIPTION",
            Self::Counter => "ADD_COUNTER",
            Self::StaticCounter { .. } => "ADD_STATIC_COUNTER",
            Self::RejectImage => "REJECT_IMAGE",
            Self::Destination(command) => command,
        }
    }
}

pub(crate) enum RegistrationState {
    Pending,
    Ready(Resource),
    Errored(Error),
}

/// An ADD command in flight or completed but not yet collected by its async handle.
pub(crate) struct Registration {
    pub kind: RegistrationKind,
    pub state: RegistrationState,
    pub deadline_ns: i64,
    /// The async handle was dropped: release the resource as soon as it exists.
    pub abandoned: bool,
}

/// A remove command awaiting ON_OPERATION_SUCCESS (or ON_ERROR).
pub(crate) struct PendingRemoval {
    pub what: &'static str,
    pub deadline_ns: i64,
}

/// Something closed that stays mapped for the linger period: holding the `Arc` is all
/// that is needed.
pub(crate) type Lingering = Arc<dyn std::any::Any + Send + Sync>;

pub(crate) type Callback = Box<dyn FnOnce() + Send>;

pub(crate) struct ClientConductor {
    pub ctx: Context,
    pub driver: DriverProxy,
    to_clients: Option<CopyBroadcastReceiver>,
    pub counters_reader: CountersReader,
    pub counters_values: AtomicBuffer,
    pub client_id: i64,
    driver_timeout_ns: i64,
    driver_timeout_ms: i64,
    keepalive_interval_ns: i64,
    inter_service_timeout_ns: i64,
    linger_ns: i64,
    time_of_last_keepalive_ns: i64,
    time_of_last_service_ns: i64,
    heartbeat: Option<HeartbeatCounter>,
    is_closed: bool,
    pub registrations: HashMap<i64, Registration>,
    pub publications: HashMap<i64, Arc<PublicationCore>>,
    pub subscriptions: HashMap<i64, Arc<SubscriptionState>>,
    pub counters: HashMap<i64, Arc<CounterState>>,
    pub pending_removals: HashMap<i64, PendingRemoval>,
    lingering: Vec<(i64, Lingering)>,
    callbacks: Vec<Callback>,
    pub handlers: ClientHandlers,
    /// The handle this conductor lives in, for images to send commands through.
    pub handle: Weak<ConductorHandle>,
}

fn nanos(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX)
}

impl ClientConductor {
    pub fn new(ctx: Context, connection: DriverConnection) -> Result<Self> {
        let DriverConnection {
            to_driver,
            to_clients,
            counters_metadata,
            counters_values,
            client_liveness_timeout_ns,
        } = connection;
        let receiver =
            BroadcastReceiver::new(to_clients).map_err(|e| e.context("CnC to-clients broadcast buffer"))?;
        let counters = CountersReader::new(counters_metadata, counters_values.clone())
            .map_err(|e| e.context("CnC counters buffers"))?;
        // Take the client id from the shared counter (`cnc.md` §5 step 8).
        let client_id = to_driver.next_correlation_id();
        let driver = DriverProxy::new(to_driver, client_id);
        let now = nano_time();
        Ok(Self {
            driver_timeout_ns: nanos(ctx.driver_timeout()),
            driver_timeout_ms: i64::try_from(ctx.driver_timeout().as_millis()).unwrap_or(i64::MAX),
            keepalive_interval_ns: nanos(ctx.keepalive_interval()),
            inter_service_timeout_ns: client_liveness_timeout_ns.max(1),
            linger_ns: nanos(ctx.resource_linger_duration()),
            time_of_last_keepalive_ns: now,
            time_of_last_service_ns: now,
            heartbeat: None,
            is_closed: false,
            registrations: HashMap::new(),
            publications: HashMap::new(),
            subscriptions: HashMap::new(),
            counters: HashMap::new(),
            pending_removals: HashMap::new(),
            lingering: Vec::new(),
            callbacks: Vec::new(),
            handlers: ClientHandlers::default(),
            handle: Weak::new(),
            to_clients: Some(CopyBroadcastReceiver::new(receiver)),
            driver,
            counters_reader: counters,
            counters_values,
            client_id,
            ctx,
        })
    }

    pub fn is_closed(&self) -> bool {
        self.is_closed
    }

    /// Callbacks queued during the last locked section, to run after unlocking.
    pub fn take_callbacks(&mut self) -> Vec<Callback> {
        std::mem::take(&mut self.callbacks)
    }

    pub fn queue(&mut self, callback: impl FnOnce() + Send + 'static) {
        self.callbacks.push(Box::new(callback));
    }

    /// Reports an error to the application's error handler (after unlocking).
    pub fn on_error(&mut self, error: Error) {
        let handler = Arc::clone(self.ctx.error_handler());
        self.queue(move || handler(&error));
    }

    /// One duty cycle: responses, then timers. Returns the work done.
    pub fn do_work(&mut self) -> i32 {
        if self.is_closed {
            return 0;
        }
        let now = nano_time();
        if now > self.time_of_last_service_ns.saturating_add(self.inter_service_timeout_ns) {
            let gap = now - self.time_of_last_service_ns;
            self.close_with_error(Error::with_code(
                CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT,
                format!(
                    "service interval exceeded: {gap} ns since the last duty cycle > timeout {} ns",
                    self.inter_service_timeout_ns
                ),
            ));
            return 1;
        }
        self.time_of_last_service_ns = now;
        let mut work = self.receive_responses();
        if !self.is_closed && now - self.time_of_last_keepalive_ns >= self.keepalive_interval_ns {
            self.time_of_last_keepalive_ns = now;
            work += self.on_keepalive_tick(now);
        }
        work
    }

    fn receive_responses(&mut self) -> i32 {
        let Some(mut receiver) = self.to_clients.take() else {
            return 0;
        };
        let mut work = 0;
        for _ in 0..RESPONSES_PER_CYCLE {
            match receiver.receive(|type_id, body| self.on_response(type_id, body)) {
                Ok(0) => break,
                Ok(n) => work += n as i32,
                Err(e) => {
                    self.on_error(e.context("client conductor"));
                    break;
                }
            }
            if self.is_closed {
                break;
            }
        }
        self.to_clients = Some(receiver);
        work
    }

    /// Liveness both ways, registration deadlines, linger expiry.
    fn on_keepalive_tick(&mut self, now: i64) -> i32 {
        let now_ms = epoch_ms();
        let driver_heartbeat_ms = self.driver.driver_heartbeat_ms();
        if driver_heartbeat_ms == -1 || now_ms > driver_heartbeat_ms.saturating_add(self.driver_timeout_ms) {
            let message = if driver_heartbeat_ms == -1 {
                "MediaDriver has been shut down".to_string()
            } else {
                format!(
                    "MediaDriver keepalive: driver heartbeat is {} ms old > driver timeout {} ms",
                    now_ms.saturating_sub(driver_heartbeat_ms),
                    self.driver_timeout_ms
                )
            };
            self.close_with_error(Error::with_code(CLIENT_ERROR_DRIVER_TIMEOUT, message));
            return 1;
        }
        self.keep_heartbeat(now_ms);
        if self.is_closed {
            return 1;
        }
        self.expire_registrations(now);
        self.lingering.retain(|(deadline, _)| *deadline > now);
        1
    }

    fn keep_heartbeat(&mut self, now_ms: i64) {
        let counters = &self.counters_reader;
        match &self.heartbeat {
            Some(hb) if hb.is_active(counters, self.client_id) => hb.set(now_ms),
            Some(hb) => {
                let id = hb.counter_id();
                self.close_with_error(Error::aeron(
                    AeronErrorCode::GenericError,
                    format!("unexpected close of heartbeat timestamp counter: {id}"),
                ));
            }
            None => {
                if let Some(hb) = HeartbeatCounter::find(counters, self.client_id) {
                    if let Err(e) = hb.append_to_label(counters, &label_suffix(self.ctx.client_name())) {
                        self.on_error(e.context("client heartbeat label"));
                    }
                    hb.set(now_ms);
                    self.heartbeat = Some(hb);
                }
            }
        }
    }

    /// Fails registrations the driver did not answer within the driver timeout.
    fn expire_registrations(&mut self, now: i64) {
        let expired: Vec<i64> = self
            .registrations
            .iter()
            .filter(|(_, r)| matches!(r.state, RegistrationState::Pending) && now > r.deadline_ns)
            .map(|(&id, _)| id)
            .collect();
        for id in expired {
            let timeout_ms = self.driver_timeout_ms;
            let error = |name: &str| {
                Error::with_code(
                    CLIENT_ERROR_DRIVER_TIMEOUT,
                    format!(
                        "no response from the driver to {name} (correlation id {id}) within {timeout_ms} ms"
                    ),
                )
            };
            self.fail_registration(id, |kind| error(kind.name()));
        }
        let late: Vec<(i64, &'static str)> = self
            .pending_removals
            .iter()
            .filter(|(_, p)| now > p.deadline_ns)
            .map(|(&id, p)| (id, p.what))
            .collect();
        for (id, what) in late {
            self.pending_removals.remove(&id);
            self.on_error(Error::with_code(
                CLIENT_ERROR_DRIVER_TIMEOUT,
                format!(
                    "no response from the driver to {what} (correlation id {id}) within {} ms",
                    self.driver_timeout_ms
                ),
            ));
        }
    }

    /// Marks a pending registration errored (dropping it if nobody will collect it).
    pub fn fail_registration(&mut self, id: i64, error: impl FnOnce(&RegistrationKind) -> Error) {
        let Some(registration) = self.registrations.get_mut(&id) else {
            return;
        };
        if !matches!(registration.state, RegistrationState::Pending) {
            return;
        }
        let error = error(&registration.kind);
        if let RegistrationKind::Subscription(state) = &registration.kind {
            self.subscriptions.remove(&state.registration_id);
            state.close();
        }
        if registration.abandoned {
            self.registrations.remove(&id);
            self.on_error(error);
        } else {
            registration.state = RegistrationState::Errored(error);
        }
    }

    /// Records an ADD command sent with `correlation_id`.
    pub fn register(&mut self, correlation_id: i64, kind: RegistrationKind) {
        if let RegistrationKind::Subscription(state) = &kind {
            // Known from now on, so images announced right after the ready arrive home.
            self.subscriptions.insert(correlation_id, Arc::clone(state));
        }
        let deadline_ns = nano_time().saturating_add(self.driver_timeout_ns);
        self.registrations.insert(
            correlation_id,
            Registration { kind, state: RegistrationState::Pending, deadline_ns, abandoned: false },
        );
    }

    /// Fails fast once the client is closed.
    pub fn ensure_open(&self) -> Result<()> {
        if self.is_closed {
            return Err(Error::illegal_state("Aeron client is closed"));
        }
        Ok(())
    }

    /// The async handle's poll: `None` while pending; the resource or error once, after
    /// which the registration is forgotten.
    pub fn poll_registration(&mut self, id: i64) -> Result<Option<Resource>> {
        let Some(registration) = self.registrations.get(&id) else {
            self.ensure_open()?;
            return Err(Error::illegal_state(format!("no registration with id {id} (already collected?)")));
        };
        if matches!(registration.state, RegistrationState::Pending) {
            self.ensure_open()?;
            return Ok(None);
        }
        match self.registrations.remove(&id).map(|r| r.state) {
            Some(RegistrationState::Ready(resource)) => Ok(Some(resource)),
            Some(RegistrationState::Errored(error)) => Err(error),
            _ => Ok(None),
        }
    }

    /// The async handle went away without collecting: release what it would have got.
    pub fn abandon_registration(&mut self, id: i64) {
        let Some(registration) = self.registrations.get_mut(&id) else {
            return;
        };
        match registration.state {
            RegistrationState::Pending => registration.abandoned = true,
            RegistrationState::Errored(_) => {
                self.registrations.remove(&id);
            }
            RegistrationState::Ready(_) => {
                if let Some(Registration { state: RegistrationState::Ready(resource), .. }) =
                    self.registrations.remove(&id)
                {
                    self.release_resource(id, resource);
                }
            }
        }
    }

    pub fn release_resource(&mut self, id: i64, resource: Resource) {
        match resource {
            Resource::Publication(_) | Resource::ExclusivePublication(_) => self.release_publication(id),
            Resource::Subscription(_) => self.release_subscription(id),
            Resource::Counter(_) => self.release_counter(id),
            Resource::Acknowledged => {}
        }
    }

    pub fn linger(&mut self, resource: Lingering) {
        self.lingering.push((nano_time().saturating_add(self.linger_ns), resource));
    }

    fn await_removal(&mut self, sent: Result<i64>, what: &'static str) {
        match sent {
            Ok(correlation_id) => {
                let deadline_ns = nano_time().saturating_add(self.driver_timeout_ns);
                self.pending_removals.insert(correlation_id, PendingRemoval { what, deadline_ns });
            }
            Err(e) => self.on_error(e.context(what)),
        }
    }

    pub fn release_publication(&mut self, registration_id: i64) {
        let Some(core) = self.publications.remove(&registration_id) else {
            return;
        };
        core.close();
        if !self.is_closed {
            let sent = self.driver.remove_publication(registration_id);
            self.await_removal(sent, "REMOVE_PUBLICATION");
        }
        self.linger(core);
    }

    pub fn release_subscription(&mut self, registration_id: i64) {
        let Some(state) = self.subscriptions.remove(&registration_id) else {
            return;
        };
        self.close_subscription_images(&state);
        if !self.is_closed {
            let sent = self.driver.remove_subscription(registration_id);
            self.await_removal(sent, "REMOVE_SUBSCRIPTION");
        }
    }

    pub fn release_counter(&mut self, registration_id: i64) {
        let Some(state) = self.counters.remove(&registration_id) else {
            return;
        };
        state.close();
        // A static counter belongs to no client: the driver keeps it.
        if !self.is_closed && !state.is_static {
            let sent = self.driver.remove_counter(registration_id);
            self.await_removal(sent, "REMOVE_COUNTER");
        }
    }

    /// Closes a subscription and its images, telling the unavailable-image handler.
    fn close_subscription_images(&mut self, state: &Arc<SubscriptionState>) {
        for image in state.close() {
            self.notify_unavailable_image(state, &image);
            self.linger(image);
        }
    }

    pub fn notify_unavailable_image(&mut self, state: &SubscriptionState, image: &Arc<Image>) {
        if let Some(handler) = state.on_unavailable_image.clone() {
            let image = Arc::clone(image);
            self.queue(move || handler(&image));
        }
    }

    /// Closes every resource; the client is unusable afterwards.
    fn force_close_resources(&mut self, error: &Error) {
        for (_, core) in std::mem::take(&mut self.publications) {
            core.close();
            self.linger(core);
        }
        for (_, state) in std::mem::take(&mut self.subscriptions) {
            self.close_subscription_images(&state);
        }
        for (_, counter) in std::mem::take(&mut self.counters) {
            counter.close();
        }
        let pending: Vec<i64> = self.registrations.keys().copied().collect();
        for id in pending {
            self.fail_registration(id, |_| error.clone());
        }
        self.pending_removals.clear();
    }

    /// The driver or this client's own duty cycle timed out: close everything and tell
    /// the error handler.
    pub fn close_with_error(&mut self, error: Error) {
        if self.is_closed {
            return;
        }
        self.is_closed = true;
        self.force_close_resources(&error);
        self.on_error(error);
        self.notify_close();
    }

    /// Application close: release everything and tell the driver we are gone.
    pub fn close(&mut self) {
        if self.is_closed {
            return;
        }
        self.is_closed = true;
        self.force_close_resources(&Error::illegal_state("Aeron client is closed"));
        if let Err(e) = self.driver.client_close() {
            self.on_error(e.context("CLIENT_CLOSE"));
        }
        self.notify_close();
    }

    fn notify_close(&mut self) {
        let handlers =
            self.ctx.on_close_client().cloned().into_iter().chain(self.handlers.close_client.snapshot());
        let handlers: Vec<_> = handlers.collect();
        for handler in handlers {
            self.queue(move || handler());
        }
    }
}
