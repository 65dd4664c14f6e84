//! `Counter`: a counter this client asked the driver to allocate (ADD_COUNTER), written
//! and read through its value record in the CnC (`spec/counters.md` §2; Aeron
//! `aeron_counter_t`, `Counter`).
#![forbid(unsafe_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::client::conductor_handle::ConductorHandle;
use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::descriptor::counter_offset;
use crate::util::error::{Error, Result};

/// The 8-byte value of counter `counter_id` in `values`, checked against the buffer (ids
/// come from the driver, i.e. from shared memory).
pub(crate) fn counter_value_view(values: &AtomicBuffer, counter_id: i32) -> Result<AtomicBuffer> {
    if counter_id < 0 {
        return Err(Error::out_of_bounds(format!("counter id {counter_id} < 0")));
    }
    // i32::MAX × 128 fits a 64-bit usize; `view` checks it against the buffer.
    values.view(counter_offset(counter_id), 8).map_err(|_| {
        Error::out_of_bounds(format!("counter id {counter_id} outside the counters values buffer"))
    })
}

/// The shared part of a counter: the conductor closes it when the driver withdraws it.
pub(crate) struct CounterState {
    pub registration_id: i64,
    pub counter_id: i32,
    /// Made by ADD_STATIC_COUNTER: closing it leaves it in the driver.
    pub is_static: bool,
    value: AtomicBuffer,
    is_closed: AtomicBool,
}

impl CounterState {
    pub fn new(registration_id: i64, counter_id: i32, counters_values: &AtomicBuffer) -> Result<Self> {
        let value = counter_value_view(counters_values, counter_id)?;
        Ok(Self { registration_id, counter_id, is_static: false, value, is_closed: AtomicBool::new(false) })
    }

    /// A static counter: `registration_id` is the one the caller chose.
    pub fn new_static(registration_id: i64, counter_id: i32, counters_values: &AtomicBuffer) -> Result<Self> {
        Ok(Self { is_static: true, ..Self::new(registration_id, counter_id, counters_values)? })
    }

    /// True for the one call that closed it.
    pub fn close(&self) -> bool {
        !self.is_closed.swap(true, Ordering::AcqRel)
    }

    pub fn is_closed(&self) -> bool {
        self.is_closed.load(Ordering::Acquire)
    }
}

/// A client-allocated counter. Value operations are lock-free atomics on the shared
/// record, safe from any thread; once closed the driver may hand the id to someone else,
/// so stop using it. Dropping it (or [`close`](Self::close)) frees it in the driver.
pub struct Counter {
    state: Arc<CounterState>,
    client: Arc<ConductorHandle>,
}

impl Counter {
    pub(crate) fn new(state: Arc<CounterState>, client: Arc<ConductorHandle>) -> Self {
        Self { state, client }
    }

    /// Acquire load: sees everything the writer did before its release store.
    #[inline]
    pub fn get(&self) -> i64 {
        self.state.value.get_i64_acquire(0)
    }

    /// Release store: readers that see it also see what came before.
    #[inline]
    pub fn set(&self, value: i64) {
        self.state.value.put_i64_release(0, value)
    }

    /// Adds 1 and returns the value before.
    #[inline]
    pub fn increment(&self) -> i64 {
        self.state.value.get_and_add_i64(0, 1)
    }

    /// Adds `delta` and returns the value before.
    #[inline]
    pub fn get_and_add(&self, delta: i64) -> i64 {
        self.state.value.get_and_add_i64(0, delta)
    }

    /// Replaces `expected` with `update`; true when it did.
    #[inline]
    pub fn compare_and_set(&self, expected: i64, update: i64) -> bool {
        self.state.value.compare_and_set_i64(0, expected, update)
    }

    pub fn registration_id(&self) -> i64 {
        self.state.registration_id
    }

    pub fn counter_id(&self) -> i32 {
        self.state.counter_id
    }

    /// Whether this is a static counter (kept by the driver when closed).
    pub fn is_static(&self) -> bool {
        self.state.is_static
    }

    /// Address of the counter's 8-byte value in the mapped CnC, for C callers that update it
    /// with their own atomics (Aeron `aeron_counter_addr`). Valid while the client is open.
    pub fn value_ptr(&self) -> *mut i64 {
        self.state.value.as_ptr().cast()
    }

    pub fn is_closed(&self) -> bool {
        self.state.is_closed()
    }

    /// Asks the driver to free the counter (a static one stays in the driver); idempotent,
    /// also done on drop.
    pub fn close(&self) {
        if self.state.close() {
            self.client.release_counter(self.state.registration_id);
        }
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("registration_id", &self.state.registration_id)
            .field("counter_id", &self.state.counter_id)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_view_is_bounds_checked() {
        let values = AtomicBuffer::alloc(4 * 128);
        let view = counter_value_view(&values, 3).unwrap();
        view.put_i64_release(0, 42);
        assert_eq!(values.get_i64(3 * 128), 42);
        assert!(counter_value_view(&values, 4).is_err());
        assert!(counter_value_view(&values, -1).is_err());
        assert!(counter_value_view(&values, i32::MAX).is_err());
    }
}
