//! How the client conductor reacts to each driver response (`spec/control-protocol.md`
//! §6): responses to our own commands complete registrations; image and counter
//! notifications update subscriptions and call the application's handlers; responses for
//! other clients are ignored.
#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;

use crate::client::client_conductor::{
    ClientConductor, Registration, RegistrationKind, RegistrationState, Resource,
};
use crate::client::counter::CounterState;
use crate::client::image::{Image, ImageInfo};
use crate::client::publication_core::{PublicationCore, PublicationInfo};
use crate::client::publication_error_frame::PublicationErrorFrame;
use crate::command::driver_response::Response;
use crate::command::{
    ClientTimeout, CounterUpdate, ErrorResponse, ImageBuffersReady, ImageMessage, PublicationBuffersReady,
    PublicationError, SubscriptionReady,
};
use crate::util::error::{AeronErrorCode, CLIENT_ERROR_CLIENT_TIMEOUT, Error, Result};

/// The error an ON_ERROR response stands for, code included.
pub(crate) fn error_from_response(response: &ErrorResponse<'_>) -> Error {
    let message = response.error_message_lossy().into_owned();
    match AeronErrorCode::from_i32(response.error_code_value) {
        Some(code) => Error::aeron(code, message),
        None => Error::aeron(
            AeronErrorCode::GenericError,
            format!("(driver code {}) {message}", response.error_code_value),
        ),
    }
}

impl ClientConductor {
    pub(crate) fn on_response(&mut self, type_id: i32, body: &[u8]) {
        let response = match Response::decode(type_id, body) {
            Ok(response) => response,
            // A newer driver may send responses this build does not know.
            Err(e) if e.aeron_code() == Some(AeronErrorCode::UnknownCommandTypeId) => return,
            Err(e) => return self.on_error(e.context("driver response")),
        };
        match response {
            Response::Error(m) => self.on_error_response(&m),
            Response::PublicationReady(m) => self.on_publication_ready(&m, false),
            Response::ExclusivePublicationReady(m) => self.on_publication_ready(&m, true),
            Response::SubscriptionReady(m) => self.on_subscription_ready(&m),
            Response::AvailableImage(m) => self.on_available_image(&m),
            Response::UnavailableImage(m) => self.on_unavailable_image(&m),
            Response::OperationSuccess(m) => {
                self.pending_removals.remove(&m.correlation_id);
                self.complete(m.correlation_id, Resource::Acknowledged);
            }
            Response::CounterReady(m) => self.on_counter_ready(&m),
            Response::UnavailableCounter(m) => self.on_unavailable_counter(&m),
            Response::ClientTimeout(m) => self.on_client_timeout(&m),
            Response::StaticCounter(m) => self.on_static_counter(&m),
            Response::PublicationError(m) => self.on_publication_error(&m),
        }
    }

    fn on_error_response(&mut self, m: &ErrorResponse<'_>) {
        let id = m.offending_command_correlation_id;
        if self.registrations.contains_key(&id) {
            let error = error_from_response(m);
            self.fail_registration(id, |_| error);
        } else if let Some(removal) = self.pending_removals.remove(&id) {
            self.on_error(error_from_response(m).context(removal.what));
        }
    }

    /// The pending registration `id`, if it is ours and still waiting.
    fn pending(&mut self, id: i64) -> Option<&mut Registration> {
        self.registrations.get_mut(&id).filter(|r| matches!(r.state, RegistrationState::Pending))
    }

    /// Completes registration `id` with `resource`, or releases it at once if its async
    /// handle is gone.
    fn complete(&mut self, id: i64, resource: Resource) {
        let Some(registration) = self.registrations.get_mut(&id) else {
            return;
        };
        if registration.abandoned {
            self.registrations.remove(&id);
            self.release_resource(id, resource);
        } else {
            registration.state = RegistrationState::Ready(resource);
        }
    }

    fn on_publication_ready(&mut self, m: &PublicationBuffersReady<'_>, exclusive: bool) {
        let id = m.correlation_id;
        let Some(registration) = self.pending(id) else {
            return;
        };
        let (channel, stream_id) = match (&registration.kind, exclusive) {
            (RegistrationKind::Publication { channel, stream_id }, false)
            | (RegistrationKind::ExclusivePublication { channel, stream_id }, true) => {
                (channel.clone(), *stream_id)
            }
            _ => return,
        };
        let info = PublicationInfo {
            channel,
            stream_id,
            session_id: m.session_id,
            registration_id: id,
            original_registration_id: m.registration_id,
            position_limit_id: m.position_limit_counter_id,
            channel_status_id: m.channel_status_indicator_id,
        };
        let mapped = m.log_file_name_str().and_then(|path| {
            PublicationCore::map(
                info.clone(),
                Path::new(path),
                &self.counters_values,
                self.ctx.pre_touch_mapped_memory(),
            )
        });
        let core = match mapped {
            Ok(core) => Arc::new(core),
            Err(e) => {
                // The driver made it; give it back, then tell the waiting handle.
                let sent = self.driver.remove_publication(id);
                if let Err(send_error) = sent {
                    self.on_error(send_error.context("REMOVE_PUBLICATION"));
                }
                return self.fail_registration(id, |_| e.context("map publication log"));
            }
        };
        self.publications.insert(id, Arc::clone(&core));
        let handler =
            if exclusive { self.ctx.on_new_exclusive_publication() } else { self.ctx.on_new_publication() }
                .cloned();
        if let Some(handler) = handler {
            let (channel, session_id) = (info.channel.clone(), info.session_id);
            self.queue(move || handler(&channel, stream_id, session_id, id));
        }
        let resource =
            if exclusive { Resource::ExclusivePublication(core) } else { Resource::Publication(core) };
        self.complete(id, resource);
    }

    fn on_subscription_ready(&mut self, m: &SubscriptionReady) {
        let id = m.correlation_id;
        let Some(registration) = self.pending(id) else {
            return;
        };
        let RegistrationKind::Subscription(state) = &registration.kind else {
            return;
        };
        let state = Arc::clone(state);
        state.set_channel_status_id(m.channel_status_indicator_id);
        if let Some(handler) = self.ctx.on_new_subscription().cloned() {
            let (channel, stream_id) = (state.channel.clone(), state.stream_id);
            self.queue(move || handler(&channel, stream_id, id));
        }
        self.complete(id, Resource::Subscription(state));
    }

    fn on_available_image(&mut self, m: &ImageBuffersReady<'_>) {
        let Some(state) = self.subscriptions.get(&m.subscription_registration_id).cloned() else {
            return;
        };
        if state.images().iter().any(|i| i.correlation_id() == m.correlation_id) {
            return;
        }
        let image = self.map_image(m);
        match image {
            Ok(image) => {
                let image = Arc::new(image);
                if state.add_image(Arc::clone(&image)) {
                    if let Some(handler) = state.on_available_image.clone() {
                        self.queue(move || handler(&image));
                    }
                }
            }
            Err(e) => self.on_error(e.context(format_args!(
                "image {} of subscription {}",
                m.correlation_id, m.subscription_registration_id
            ))),
        }
    }

    fn map_image(&self, m: &ImageBuffersReady<'_>) -> Result<Image> {
        let info = ImageInfo {
            correlation_id: m.correlation_id,
            subscription_registration_id: m.subscription_registration_id,
            session_id: m.session_id,
            stream_id: m.stream_id,
            subscriber_position_id: m.subscriber_position_id,
            source_identity: m.source_identity_str()?.to_string(),
        };
        let path = m.log_file_name_str()?;
        let pre_touch = self.ctx.pre_touch_mapped_memory();
        Image::map(info, Path::new(path), &self.counters_values, pre_touch, self.handle.clone())
    }

    fn on_unavailable_image(&mut self, m: &ImageMessage<'_>) {
        let Some(state) = self.subscriptions.get(&m.subscription_registration_id).cloned() else {
            return;
        };
        if let Some(image) = state.remove_image(m.correlation_id) {
            image.close();
            self.notify_unavailable_image(&state, &image);
            self.linger(image);
        }
    }

    /// A receiver sent an ERR frame about a publication: the context's handler hears of it
    /// once per publication of this client with that registration id (as Aeron's clients
    /// do; none for other clients' publications).
    fn on_publication_error(&mut self, m: &PublicationError<'_>) {
        let Some(handler) = self.ctx.publication_error_frame_handler().cloned() else {
            return;
        };
        let frame = Arc::new(PublicationErrorFrame::from_response(m));
        let matching = self
            .publications
            .values()
            .filter(|p| p.info.original_registration_id == m.registration_id)
            .count();
        for _ in 0..matching {
            let (handler, frame) = (Arc::clone(&handler), Arc::clone(&frame));
            self.queue(move || handler(&frame));
        }
    }

    fn on_counter_ready(&mut self, m: &CounterUpdate) {
        let id = m.correlation_id;
        if self.pending(id).is_some_and(|r| matches!(r.kind, RegistrationKind::Counter)) {
            match CounterState::new(id, m.counter_id, &self.counters_values) {
                Ok(state) => {
                    let state = Arc::new(state);
                    self.counters.insert(id, Arc::clone(&state));
                    self.complete(id, Resource::Counter(state));
                }
                Err(e) => self.fail_registration(id, |_| e.context("counter")),
            }
        }
        let handlers: Vec<_> = self
            .ctx
            .on_available_counter()
            .cloned()
            .into_iter()
            .chain(self.handlers.available_counter.snapshot())
            .collect();
        let counter_id = m.counter_id;
        for handler in handlers {
            self.queue(move || handler(id, counter_id));
        }
    }

    fn on_static_counter(&mut self, m: &CounterUpdate) {
        let id = m.correlation_id;
        let registration_id = match self.pending(id).map(|r| &r.kind) {
            Some(RegistrationKind::StaticCounter { registration_id }) => *registration_id,
            _ => return,
        };
        match CounterState::new_static(registration_id, m.counter_id, &self.counters_values) {
            Ok(state) => self.complete(id, Resource::Counter(Arc::new(state))),
            Err(e) => self.fail_registration(id, |_| e.context("static counter")),
        }
    }

    fn on_unavailable_counter(&mut self, m: &CounterUpdate) {
        let id = m.correlation_id;
        if let Some(state) = self.counters.remove(&id) {
            state.close();
        }
        let handlers: Vec<_> = self
            .ctx
            .on_unavailable_counter()
            .cloned()
            .into_iter()
            .chain(self.handlers.unavailable_counter.snapshot())
            .collect();
        let counter_id = m.counter_id;
        for handler in handlers {
            self.queue(move || handler(id, counter_id));
        }
    }

    fn on_client_timeout(&mut self, m: &ClientTimeout) {
        if m.client_id == self.client_id {
            self.close_with_error(Error::with_code(
                CLIENT_ERROR_CLIENT_TIMEOUT,
                format!("client timeout from driver: client id {}", self.client_id),
            ));
        }
    }
}
