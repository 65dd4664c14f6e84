//! `ConductorHandle`: the client conductor behind a mutex, shared by the `Aeron` handle,
//! the conductor agent and every resource handle. Commands, duty cycles and closes lock it
//! briefly; none of the data paths (`offer`, `poll`) do. Callbacks the conductor queued
//! run after the lock is released, so they may call back into the client.
#![forbid(unsafe_code)]

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::client::client_conductor::ClientConductor;
use crate::util::agent::Agent;
use crate::util::error::{AeronErrorCode, Error, Result};

pub(crate) struct ConductorHandle {
    conductor: Mutex<ClientConductor>,
}

impl ConductorHandle {
    pub fn new(conductor: ClientConductor) -> Self {
        Self { conductor: Mutex::new(conductor) }
    }

    fn lock(&self) -> MutexGuard<'_, ClientConductor> {
        // A panic in a conductor method leaves plain data behind, still consistent
        // enough to close: keep going rather than poisoning every later call.
        self.conductor.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the locked conductor, then the callbacks it queued, unlocked. A
    /// callback that panics is reported to the error handler (as Aeron reports handler
    /// exceptions) instead of taking the conductor thread down with it.
    pub fn with<R>(&self, f: impl FnOnce(&mut ClientConductor) -> R) -> R {
        let (result, callbacks, error_handler) = {
            let mut conductor = self.lock();
            let result = f(&mut conductor);
            (result, conductor.take_callbacks(), Arc::clone(conductor.ctx.error_handler()))
        };
        for callback in callbacks {
            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(callback)) {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-text panic".to_string());
                let error =
                    Error::aeron(AeronErrorCode::GenericError, format!("client callback panicked: {what}"));
                // The error handler itself may be what panicked: never let that escape.
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| error_handler(&error)));
            }
        }
        result
    }

    /// The client's view of the driver's counters.
    pub fn counters_reader(&self) -> crate::concurrent::counters::CountersReader {
        self.lock().counters_reader.clone()
    }

    pub fn do_work(&self) -> i32 {
        self.with(|c| c.do_work())
    }

    /// Calls `poll` until it gives a value or an error. The conductor fails a registration
    /// the driver did not answer within the driver timeout, which bounds the wait; duty
    /// cycles run here too, so answers are picked up without waiting for the conductor
    /// thread's idle sleep (and in invoker mode at all).
    pub fn await_completion<T>(&self, mut poll: impl FnMut() -> Result<Option<T>>) -> Result<T> {
        loop {
            if let Some(value) = poll()? {
                return Ok(value);
            }
            self.do_work();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    pub fn is_closed(&self) -> bool {
        self.lock().is_closed()
    }

    pub fn release_publication(&self, registration_id: i64) {
        self.with(|c| c.release_publication(registration_id))
    }

    pub fn release_subscription(&self, registration_id: i64) {
        self.with(|c| c.release_subscription(registration_id))
    }

    pub fn release_counter(&self, registration_id: i64) {
        self.with(|c| c.release_counter(registration_id))
    }
}

/// The client conductor as an agent, for an `AgentRunner` thread or an `AgentInvoker`.
pub(crate) struct ConductorAgent {
    pub handle: Arc<ConductorHandle>,
}

impl Agent for ConductorAgent {
    fn on_start(&mut self) -> Result<()> {
        let hook = self.handle.with(|c| c.ctx.agent_on_start().cloned());
        if let Some(hook) = hook {
            hook(self.role_name());
        }
        Ok(())
    }

    fn do_work(&mut self) -> Result<i32> {
        Ok(self.handle.do_work())
    }

    fn role_name(&self) -> &str {
        "aeron-client-conductor"
    }
}
