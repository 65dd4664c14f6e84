//! `ForeignShared<T>`: a value made of what a C caller handed over (function pointers,
//! their `void *` states, caller-owned structs, tables the C side keeps alive) that Aeron's
//! C API lets the driver's and client's threads use. Rust cannot see that promise in a raw
//! pointer, so the type states it once: constructing one is `unsafe` with the C side's
//! contract, and the value may then cross threads like any `Send + Sync` value.

/// A value whose thread-safety is the C side's promise, not the compiler's.
#[derive(Clone, Copy, Debug)]
pub struct ForeignShared<T>(T);

// SAFETY: `ForeignShared::new`'s contract: whoever wraps the value promises, on the C
// API's terms, that what it reaches may be moved to and used from the threads the value
// is sent to or shared with; nothing else constructs one.
unsafe impl<T> Send for ForeignShared<T> {}
// SAFETY: as above: shared use from several threads is part of that same promise (the C
// functions reached through it are callable from those threads; what is used one thread
// at a time is kept so by its owner, e.g. behind a mutex or in one agent).
unsafe impl<T> Sync for ForeignShared<T> {}

impl<T> ForeignShared<T> {
    /// Wraps `value`.
    ///
    /// # Safety
    /// What `value` reaches (memory it points to, functions and the states they are given)
    /// must be usable from any thread the wrapper is moved to or shared with, for as long
    /// as the wrapper lives, as the C API's contract for it says: e.g. a callback set on a
    /// driver context may be called on the driver's threads with its state, a caller-owned
    /// struct stays valid and readable while the driver runs. Uses that the contract
    /// restricts to one thread at a time must be kept so by the wrapper's owner.
    pub const unsafe fn new(value: T) -> Self {
        Self(value)
    }

    /// The value.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The value, to change it.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Copy> ForeignShared<T> {
    /// A copy of the value (a method, so closures capture the wrapper, not the field).
    pub fn value(&self) -> T {
        self.0
    }
}
