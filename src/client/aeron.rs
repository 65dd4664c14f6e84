//! `Aeron`: a connected client (Aeron `aeron_t`, `Aeron`). Connects to the driver, runs
//! the client conductor (on its own thread, or through [`Aeron::do_work`] in invoker mode)
//! and adds publications, subscriptions and counters.
#![forbid(unsafe_code)]

use std::sync::{Arc, Mutex, PoisonError};

use crate::client::async_add::{
    AsyncAddCounter, AsyncAddExclusivePublication, AsyncAddPublication, AsyncAddSubscription,
};
use crate::client::client_conductor::{ClientConductor, RegistrationKind};
use crate::client::conductor_handle::{ConductorAgent, ConductorHandle};
use crate::client::context::{Context, ImageHandler};
use crate::client::counter::Counter;
use crate::client::driver_connect::connect;
use crate::client::exclusive_publication::ExclusivePublication;
use crate::client::image::Image;
use crate::client::publication::Publication;
use crate::client::subscription::{Subscription, SubscriptionState, SubscriptionView};
use crate::concurrent::counters::CountersReader;
use crate::util::agent::{AgentInvoker, AgentRunner};
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;

/// Longest channel URI the driver accepts (`control-protocol.md` §1).
const MAX_CHANNEL_LENGTH: usize = 4095;
/// Longest counter key and label the driver stores (`counters.md` §3).
const MAX_KEY_LENGTH: usize = 112;
const MAX_LABEL_LENGTH: usize = 380;

/// Rejects a channel URI the driver would not take (empty or too long).
pub(crate) fn check_channel(channel: &str) -> Result<()> {
    if channel.is_empty() || channel.len() > MAX_CHANNEL_LENGTH {
        return Err(Error::invalid_argument(format!(
            "channel length {} must be 1..={MAX_CHANNEL_LENGTH}",
            channel.len()
        )));
    }
    Ok(())
}

/// How the conductor runs.
enum ConductorDriver {
    /// Connected but not started yet (between [`Aeron::init`] and [`Aeron::start`]).
    Ready(Box<ConductorAgent>),
    Thread(AgentRunner),
    Invoker(AgentInvoker),
}

/// A client connected to a media driver. Thread-safe: share it by reference or `Arc`.
/// Dropping it (or [`close`](Self::close)) closes every resource it created.
pub struct Aeron {
    handle: Arc<ConductorHandle>,
    runner: Mutex<Option<ConductorDriver>>,
    client_id: i64,
    counters_reader: CountersReader,
    ctx: Context,
}

impl Aeron {
    /// Connects to the driver in `ctx.aeron_dir()` (waiting up to the driver timeout for
    /// it) and starts the conductor.
    pub fn connect(ctx: Context) -> Result<Self> {
        let aeron = Self::init(ctx)?;
        aeron.start()?;
        Ok(aeron)
    }

    /// Connects to the driver without starting the conductor (Aeron's `aeron_init`); call
    /// [`start`](Self::start) next. Commands may be sent in between; their responses are
    /// read once the conductor runs.
    pub fn init(ctx: Context) -> Result<Self> {
        ctx.validate()?;
        let connection = connect(&ctx)?;
        let conductor = ClientConductor::new(ctx.clone(), connection)?;
        let client_id = conductor.client_id;
        let counters_reader = conductor.counters_reader.clone();
        let handle = Arc::new_cyclic(move |weak| {
            let mut conductor = conductor;
            conductor.handle = weak.clone();
            ConductorHandle::new(conductor)
        });
        let agent = Box::new(ConductorAgent { handle: Arc::clone(&handle) });
        let runner = Mutex::new(Some(ConductorDriver::Ready(agent)));
        Ok(Self { handle, runner, client_id, counters_reader, ctx })
    }

    /// Starts the conductor: its own thread, or in invoker mode (`use_conductor_agent_invoker`)
    /// just its start hook, after which the application calls [`do_work`](Self::do_work).
    /// Idempotent; an error once closed.
    pub fn start(&self) -> Result<()> {
        let mut runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
        let agent = match runner.take() {
            Some(ConductorDriver::Ready(agent)) => agent,
            Some(started) => {
                *runner = Some(started);
                return Ok(());
            }
            None => return Err(Error::illegal_state("Aeron client is closed")),
        };
        if self.ctx.use_conductor_agent_invoker() {
            let mut invoker = AgentInvoker::new(agent);
            let result = invoker.start();
            *runner = Some(ConductorDriver::Invoker(invoker));
            result
        } else {
            let error_handler = Arc::clone(self.ctx.error_handler());
            let idle = IdleStrategy::Sleep(self.ctx.idle_sleep_duration());
            AgentRunner::start(agent, idle, error_handler)
                .map(|thread| *runner = Some(ConductorDriver::Thread(thread)))
        }
    }

    /// What the conductor's idle strategy does after a duty cycle that did `work_count`
    /// units of work: nothing after work, else sleep the idle sleep duration (Aeron's
    /// `aeron_main_idle_strategy`, for invoker mode).
    pub fn idle(&self, work_count: i32) {
        if work_count <= 0 {
            std::thread::sleep(self.ctx.idle_sleep_duration());
        }
    }

    /// This client's id (from the driver's correlation counter).
    pub fn client_id(&self) -> i64 {
        self.client_id
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Reader of the driver's counters (values, labels, states) in the CnC.
    pub fn counters_reader(&self) -> &CountersReader {
        &self.counters_reader
    }

    /// A fresh id from the counter the driver and all clients share.
    pub fn next_correlation_id(&self) -> i64 {
        self.handle.with(|c| c.driver.next_correlation_id())
    }

    /// Whether the client closed (by `close`, or a driver or client timeout).
    pub fn is_closed(&self) -> bool {
        self.handle.is_closed()
    }

    /// Runs one conductor duty cycle in invoker mode (`use_conductor_agent_invoker`);
    /// returns the work done. An error in threaded mode, where the conductor runs itself.
    pub fn do_work(&self) -> Result<i32> {
        let mut runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
        match runner.as_mut() {
            Some(ConductorDriver::Invoker(invoker)) => invoker.invoke(),
            Some(ConductorDriver::Thread(_)) => Err(Error::illegal_state(
                "do_work needs use_conductor_agent_invoker; the conductor has its own thread",
            )),
            Some(ConductorDriver::Ready(_)) => Err(Error::illegal_state("the client is not started")),
            None => Ok(0),
        }
    }

    /// Stops the conductor and closes every publication, subscription, image and counter
    /// of this client, telling the driver. Idempotent. Must not be called from a client
    /// callback (those run on the conductor thread).
    pub fn close(&self) {
        let runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner).take();
        match runner {
            Some(ConductorDriver::Thread(mut runner)) => runner.close(),
            Some(ConductorDriver::Invoker(mut invoker)) => invoker.close(),
            Some(ConductorDriver::Ready(_)) | None => {}
        }
        self.handle.with(|c| c.close());
    }

    fn check_channel(channel: &str) -> Result<()> {
        check_channel(channel)
    }

    fn check_counter(key: &[u8], label: &str) -> Result<()> {
        if key.len() > MAX_KEY_LENGTH || label.len() > MAX_LABEL_LENGTH {
            return Err(Error::invalid_argument(format!(
                "counter key length {} (max {MAX_KEY_LENGTH}) or label length {} (max {MAX_LABEL_LENGTH}) too long",
                key.len(),
                label.len()
            )));
        }
        Ok(())
    }

    /// Sends ADD_PUBLICATION; poll the handle for the result.
    pub fn async_add_publication(&self, channel: &str, stream_id: i32) -> Result<AsyncAddPublication> {
        Self::check_channel(channel)?;
        let id = self.handle.with(|c| {
            c.ensure_open()?;
            let id = c.driver.add_publication(channel, stream_id, false)?;
            c.register(id, RegistrationKind::Publication { channel: channel.to_string(), stream_id });
            Ok::<_, Error>(id)
        })?;
        Ok(AsyncAddPublication::new(Arc::clone(&self.handle), id))
    }

    /// Sends ADD_EXCLUSIVE_PUBLICATION; poll the handle for the result.
    pub fn async_add_exclusive_publication(
        &self,
        channel: &str,
        stream_id: i32,
    ) -> Result<AsyncAddExclusivePublication> {
        Self::check_channel(channel)?;
        let id = self.handle.with(|c| {
            c.ensure_open()?;
            let id = c.driver.add_publication(channel, stream_id, true)?;
            c.register(
                id,
                RegistrationKind::ExclusivePublication { channel: channel.to_string(), stream_id },
            );
            Ok::<_, Error>(id)
        })?;
        Ok(AsyncAddExclusivePublication::new(Arc::clone(&self.handle), id))
    }

    /// Sends ADD_SUBSCRIPTION with the context's image handlers.
    pub fn async_add_subscription(&self, channel: &str, stream_id: i32) -> Result<AsyncAddSubscription> {
        let available = self.ctx.on_available_image().cloned();
        let unavailable = self.ctx.on_unavailable_image().cloned();
        self.async_add_subscription_with_handlers(channel, stream_id, available, unavailable)
    }

    /// Sends ADD_SUBSCRIPTION; `on_available_image`/`on_unavailable_image` are called as
    /// images come and go (on the conductor's thread, after the subscription's image list
    /// changed).
    pub fn async_add_subscription_with_handlers(
        &self,
        channel: &str,
        stream_id: i32,
        on_available_image: Option<ImageHandler>,
        on_unavailable_image: Option<ImageHandler>,
    ) -> Result<AsyncAddSubscription> {
        self.async_add_subscription_with_view(channel, stream_id, |_| {
            (on_available_image, on_unavailable_image)
        })
    }

    /// As [`async_add_subscription_with_handlers`](Self::async_add_subscription_with_handlers),
    /// with the handlers made by `make_handlers` from a view of the subscription being
    /// added, so a handler can query the subscription it serves (the C API hands it to
    /// them). `make_handlers` runs once, with the client locked: it must not call the client.
    pub fn async_add_subscription_with_view(
        &self,
        channel: &str,
        stream_id: i32,
        make_handlers: impl FnOnce(SubscriptionView) -> (Option<ImageHandler>, Option<ImageHandler>),
    ) -> Result<AsyncAddSubscription> {
        Self::check_channel(channel)?;
        let id = self.handle.with(|c| {
            c.ensure_open()?;
            let id = c.driver.add_subscription(channel, stream_id)?;
            let counters_values = c.counters_values.clone();
            let state = Arc::new_cyclic(|weak| {
                let (on_available_image, on_unavailable_image) =
                    make_handlers(SubscriptionView::new(weak.clone()));
                SubscriptionState::new(
                    id,
                    channel,
                    stream_id,
                    counters_values,
                    on_available_image,
                    on_unavailable_image,
                )
            });
            c.register(id, RegistrationKind::Subscription(state));
            Ok::<_, Error>(id)
        })?;
        Ok(AsyncAddSubscription::new(Arc::clone(&self.handle), id))
    }

    /// Sends ADD_COUNTER for a counter of `type_id` with `key` (≤ 112 bytes) and `label`
    /// (≤ 380 bytes).
    pub fn async_add_counter(&self, type_id: i32, key: &[u8], label: &str) -> Result<AsyncAddCounter> {
        Self::check_counter(key, label)?;
        let id = self.handle.with(|c| {
            c.ensure_open()?;
            let id = c.driver.add_counter(type_id, key, label)?;
            c.register(id, RegistrationKind::Counter);
            Ok::<_, Error>(id)
        })?;
        Ok(AsyncAddCounter::new(Arc::clone(&self.handle), id))
    }

    /// Sends ADD_STATIC_COUNTER: finds or makes the counter of `type_id` and the caller's
    /// `registration_id`, which belongs to no client and outlives this one.
    pub fn async_add_static_counter(
        &self,
        type_id: i32,
        key: &[u8],
        label: &str,
        registration_id: i64,
    ) -> Result<AsyncAddCounter> {
        Self::check_counter(key, label)?;
        let id = self.handle.with(|c| {
            c.ensure_open()?;
            let id = c.driver.add_static_counter(type_id, key, label, registration_id)?;
            c.register(id, RegistrationKind::StaticCounter { registration_id });
            Ok::<_, Error>(id)
        })?;
        Ok(AsyncAddCounter::new(Arc::clone(&self.handle), id))
    }

    /// Adds a static counter and waits for it.
    pub fn add_static_counter(
        &self,
        type_id: i32,
        key: &[u8],
        label: &str,
        registration_id: i64,
    ) -> Result<Counter> {
        let mut pending = self.async_add_static_counter(type_id, key, label, registration_id)?;
        self.await_completion(|| pending.poll())
    }

    /// Adds a handler called with `(registration id, counter id)` whenever a counter becomes
    /// available, besides the context's; returns the id to remove it with.
    pub fn add_available_counter_handler(&self, handler: impl Fn(i64, i32) + Send + Sync + 'static) -> i64 {
        self.handle.with(|c| {
            let id = c.handlers.next_id();
            c.handlers.available_counter.add(id, Arc::new(handler));
            id
        })
    }

    /// Removes a handler added by `add_available_counter_handler`; false if unknown.
    pub fn remove_available_counter_handler(&self, id: i64) -> bool {
        self.handle.with(|c| c.handlers.available_counter.remove(id))
    }

    /// As `add_available_counter_handler`, for counters going away.
    pub fn add_unavailable_counter_handler(&self, handler: impl Fn(i64, i32) + Send + Sync + 'static) -> i64 {
        self.handle.with(|c| {
            let id = c.handlers.next_id();
            c.handlers.unavailable_counter.add(id, Arc::new(handler));
            id
        })
    }

    pub fn remove_unavailable_counter_handler(&self, id: i64) -> bool {
        self.handle.with(|c| c.handlers.unavailable_counter.remove(id))
    }

    /// Adds a handler called once when the client closes, besides the context's.
    pub fn add_close_handler(&self, handler: impl Fn() + Send + Sync + 'static) -> i64 {
        self.handle.with(|c| {
            let id = c.handlers.next_id();
            c.handlers.close_client.add(id, Arc::new(handler));
            id
        })
    }

    pub fn remove_close_handler(&self, id: i64) -> bool {
        self.handle.with(|c| c.handlers.close_client.remove(id))
    }

    /// Adds a publication and waits for it (up to the driver timeout).
    pub fn add_publication(&self, channel: &str, stream_id: i32) -> Result<Publication> {
        let mut pending = self.async_add_publication(channel, stream_id)?;
        self.await_completion(|| pending.poll())
    }

    /// Adds an exclusive publication and waits for it.
    pub fn add_exclusive_publication(&self, channel: &str, stream_id: i32) -> Result<ExclusivePublication> {
        let mut pending = self.async_add_exclusive_publication(channel, stream_id)?;
        self.await_completion(|| pending.poll())
    }

    /// Adds a subscription (with the context's image handlers) and waits for it.
    pub fn add_subscription(&self, channel: &str, stream_id: i32) -> Result<Subscription> {
        let mut pending = self.async_add_subscription(channel, stream_id)?;
        self.await_completion(|| pending.poll())
    }

    /// Adds a subscription with its own image handlers and waits for it.
    pub fn add_subscription_with_handlers(
        &self,
        channel: &str,
        stream_id: i32,
        on_available_image: impl Fn(&Arc<Image>) + Send + Sync + 'static,
        on_unavailable_image: impl Fn(&Arc<Image>) + Send + Sync + 'static,
    ) -> Result<Subscription> {
        let mut pending = self.async_add_subscription_with_handlers(
            channel,
            stream_id,
            Some(Arc::new(on_available_image)),
            Some(Arc::new(on_unavailable_image)),
        )?;
        self.await_completion(|| pending.poll())
    }

    /// Adds a counter and waits for it.
    pub fn add_counter(&self, type_id: i32, key: &[u8], label: &str) -> Result<Counter> {
        let mut pending = self.async_add_counter(type_id, key, label)?;
        self.await_completion(|| pending.poll())
    }

    /// Polls until done, bounded by the driver timeout (see
    /// [`ConductorHandle::await_completion`]).
    fn await_completion<T>(&self, poll: impl FnMut() -> Result<Option<T>>) -> Result<T> {
        self.handle.await_completion(poll)
    }
}

impl Drop for Aeron {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Aeron {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Aeron")
            .field("client_id", &self.client_id)
            .field("aeron_dir", &self.ctx.aeron_dir())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{AsyncAddPublication, AsyncAddSubscription};
    use static_assertions::assert_impl_all;

    // What aeronc.h promises about threads: the client and publications may be used from
    // any thread; a subscription or exclusive publication moves between threads but is
    // driven by one at a time (its `&mut self` methods).
    assert_impl_all!(Aeron: Send, Sync);
    assert_impl_all!(Publication: Send, Sync);
    assert_impl_all!(ExclusivePublication: Send, Sync);
    assert_impl_all!(Subscription: Send, Sync);
    assert_impl_all!(Image: Send, Sync);
    assert_impl_all!(Counter: Send, Sync);
    assert_impl_all!(Context: Send, Sync);
    assert_impl_all!(AsyncAddPublication: Send, Sync);
    assert_impl_all!(AsyncAddSubscription: Send, Sync);

    #[test]
    fn bad_arguments_fail_before_any_driver_contact() {
        assert!(Aeron::check_channel("").is_err());
        assert!(Aeron::check_channel(&"a".repeat(MAX_CHANNEL_LENGTH + 1)).is_err());
        assert!(Aeron::check_channel("aeron:ipc").is_ok());
    }
}
