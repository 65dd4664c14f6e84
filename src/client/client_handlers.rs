//! Handlers added to a running client (Aeron `aeron_add_available_counter_handler` and
//! friends), besides the one of each kind its context holds. Each is known by the id its
//! `add_*` call returned, so it can be removed again.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};

use crate::client::context::{CloseClientHandler, CounterHandler};
use crate::util::error::{Error, Result};

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

/// The ids of handlers whose caller knows them only by a key (the C API names a handler by
/// its function and clientd), so it can remove them by that key.
pub(crate) struct HandlerIds<K>(Mutex<HashMap<(&'static str, K), i64>>);

impl<K> Default for HandlerIds<K> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<K: Eq + Hash> HandlerIds<K> {
    /// Adds a handler of `kind` known by `key` with `add`, remembering the id it returns;
    /// EINVAL, and nothing added, if a handler of that kind and key is already there.
    pub fn add(&self, kind: &'static str, key: K, add: impl FnOnce() -> i64) -> Result<()> {
        match self.0.lock().unwrap_or_else(PoisonError::into_inner).entry((kind, key)) {
            Entry::Occupied(_) => {
                Err(Error::invalid_argument(format!("this {kind} handler and clientd are already added")))
            }
            Entry::Vacant(slot) => {
                slot.insert(add());
                Ok(())
            }
        }
    }

    /// The id of the handler of `kind` known by `key`, forgotten now; EINVAL if there is none.
    pub fn remove(&self, kind: &'static str, key: K) -> Result<i64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(kind, key))
            .ok_or_else(|| Error::invalid_argument(format!("this {kind} handler and clientd were not added")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn handler_ids_are_kept_per_kind_and_key_once() {
        let ids = HandlerIds::default();
        ids.add("close", (1, 2), || 7).unwrap();
        let err = ids.add("close", (1, 2), || unreachable!("not added twice")).unwrap_err();
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("close handler and clientd are already added"), "{err}");
        ids.add("available counter", (1, 2), || 8).unwrap();
        assert_eq!(ids.remove("close", (1, 2)).unwrap(), 7);
        let err = ids.remove("close", (1, 2)).unwrap_err();
        assert!(err.message().contains("close handler and clientd were not added"), "{err}");
        assert_eq!(ids.remove("available counter", (1, 2)).unwrap(), 8);
    }

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
