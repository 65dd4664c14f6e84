//! Where closed resources wait out the client's resource linger duration before they are
//! freed, as in Aeron C: a thread still using one (e.g. offering while another thread
//! closes the publication) then finds it closed instead of freed.
#![forbid(unsafe_code)]

use std::any::Any;
use std::sync::{Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// A closed resource and when its linger period ends.
type Lingering = (Instant, Box<dyn Any + Send>);

/// The closed resources of one client, each kept for the linger duration.
pub struct ResourceLinger {
    linger: Duration,
    lingering: Mutex<Vec<Lingering>>,
}

impl ResourceLinger {
    pub fn new(linger: Duration) -> Self {
        Self { linger, lingering: Mutex::new(Vec::new()) }
    }

    /// Keeps `closed` for the linger period, and frees resources whose period is over.
    pub fn linger(&self, closed: Box<dyn Any + Send>) {
        let now = Instant::now();
        let expired: Vec<Lingering> = {
            let mut lingering = self.lingering.lock().unwrap_or_else(PoisonError::into_inner);
            let (expired, kept) = std::mem::take(&mut *lingering).into_iter().partition(|(at, _)| *at <= now);
            *lingering = kept;
            lingering.push((now + self.linger, closed));
            expired
        };
        // Dropped outside the lock: a resource's drop may close others.
        drop(expired);
    }

    /// Frees every lingering resource (the client is closing).
    pub fn clear(&self) {
        let all = std::mem::take(&mut *self.lingering.lock().unwrap_or_else(PoisonError::into_inner));
        drop(all);
    }
}

/// Keeps a closed resource for the linger period of its client, or frees it now when the
/// client is gone (then nobody may use it any more: Aeron frees everything at close).
pub fn linger_or_drop(client: &Weak<ResourceLinger>, closed: Box<dyn Any + Send>) {
    match client.upgrade() {
        Some(linger) => linger.linger(closed),
        None => drop(closed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Dropped(Arc<AtomicUsize>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn lingering_handles_are_freed_after_the_period_or_at_clear() {
        let drops = Arc::new(AtomicUsize::new(0));
        let shared = Arc::new(ResourceLinger::new(Duration::ZERO));
        shared.linger(Box::new(Dropped(Arc::clone(&drops))));
        assert_eq!(drops.load(Ordering::Relaxed), 0, "kept until the next linger call");
        shared.linger(Box::new(Dropped(Arc::clone(&drops))));
        assert_eq!(drops.load(Ordering::Relaxed), 1, "the first one expired");
        shared.clear();
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        let weak = Arc::downgrade(&shared);
        drop(shared);
        linger_or_drop(&weak, Box::new(Dropped(Arc::clone(&drops))));
        assert_eq!(drops.load(Ordering::Relaxed), 3, "no client: freed at once");
    }
}
