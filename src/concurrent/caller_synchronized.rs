//! `CallerSynchronized<T>`: a value shared between threads whose *callers* promise to use
//! it one thread at a time, as Aeron's C API asks of an exclusive publication's writer or a
//! subscription's poller. The promise is the caller's, so every access is `unsafe` with
//! that contract; the type itself only lets the value cross threads (it is `Sync` for a
//! `Send` value, as a mutex is) without a lock on the hot path.

use std::cell::UnsafeCell;

pub struct CallerSynchronized<T> {
    value: UnsafeCell<T>,
}

// SAFETY: a `&CallerSynchronized<T>` on another thread reaches `T` only through the unsafe
// accessors below, whose contract rules out concurrent use; so at most one thread uses the
// value at a time and moving that use between threads needs only `T: Send` (as `Mutex<T>`).
unsafe impl<T: Send> Sync for CallerSynchronized<T> {}

impl<T> CallerSynchronized<T> {
    pub const fn new(value: T) -> Self {
        Self { value: UnsafeCell::new(value) }
    }

    /// The value, to change it.
    ///
    /// # Safety
    /// No other reference from [`get`](Self::get) or `get_mut` is alive, on any thread,
    /// while the returned one is (the caller's one-thread-at-a-time contract).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get_mut(&self) -> &mut T {
        // SAFETY: exclusive for as long as the reference lives (contract).
        unsafe { &mut *self.value.get() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_reach_the_one_value() {
        let cell = CallerSynchronized::new(1u64);
        // SAFETY: one thread, no other reference alive.
        unsafe { *cell.get_mut() += 1 };
        // SAFETY: one thread, the reference above is gone.
        assert_eq!(unsafe { *cell.get_mut() }, 2);
    }

    #[test]
    fn one_thread_at_a_time_may_move_between_threads() {
        let cell = std::sync::Arc::new(CallerSynchronized::new(Vec::new()));
        for i in 0..4 {
            let cell = std::sync::Arc::clone(&cell);
            // Joined before the next starts: one thread at a time.
            std::thread::spawn(move || {
                // SAFETY: the threads run one after another.
                unsafe { cell.get_mut() }.push(i)
            })
            .join()
            .unwrap();
        }
        // SAFETY: every writer thread ended.
        assert_eq!(unsafe { cell.get_mut() }, &vec![0, 1, 2, 3]);
    }
}
