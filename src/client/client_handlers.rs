//! Handlers added to a running client (Aeron `aeron_add_available_counter_handler` and
//! friends), besides the one of each kind its context holds. Each is known by the id its
//! `add_*` call returned, so it can be removed again.
#![forbid(unsafe_code)]

use crate::client::context::{CloseClientHandler, CounterHandler};

/// One list of handlers with the ids they were added under.
pub(crate) struct HandlerList<H> {
    entries: Vec<(i64, H)>,
}

impl<H: Clone> HandlerList<H> {
    pub fn add(&mut self, id: i64, handler: H) {
        self.entries.push((id, handler));
    }

    /// True when a handler with `id` was there.
    pub fn remove(&mut self, id: i64) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(entry_id, _)| *entry_id != id);
        self.entries.len() != before
    }

    /// Copies of the handlers, to call after the client is unlocked.
    pub fn snapshot(&self) -> Vec<H> {
        self.entries.iter().map(|(_, h)| h.clone()).collect()
    }
}

impl<H> Default for HandlerList<H> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

/// The handlers added at run time.
#[derive(Default)]
pub(crate) struct ClientHandlers {
    pub available_counter: HandlerList<CounterHandler>,
    pub unavailable_counter: HandlerList<CounterHandler>,
    pub close_client: HandlerList<CloseClientHandler>,
    next_id: i64,
}

impl ClientHandlers {
    /// A fresh id for a handler being added.
    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn handlers_are_removed_by_id_only_once() {
        let mut handlers = ClientHandlers::default();
        let first = handlers.next_id();
        let second = handlers.next_id();
        assert_ne!(first, second);
        handlers.close_client.add(first, Arc::new(|| {}));
        handlers.close_client.add(second, Arc::new(|| {}));
        assert_eq!(handlers.close_client.snapshot().len(), 2);
        assert!(handlers.close_client.remove(first));
        assert!(!handlers.close_client.remove(first));
        assert_eq!(handlers.close_client.snapshot().len(), 1);
    }
}
