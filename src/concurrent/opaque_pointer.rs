//! `OpaquePointer`: an application's pointer (a C `void *clientd`, a handle it gave us)
//! that Rust only stores and hands back, possibly on another thread.
//!
//! Rust never reads or writes through it, so moving or sharing the pointer value between
//! threads cannot by itself be a data race: only a dereference could, and that needs
//! `unsafe` code at the place that makes it, whose contract (Aeron's C API documents which
//! thread calls each callback) then covers the thread.

use std::ffi::c_void;

/// See the module docs. The field is public: wrapping and unwrapping a pointer is safe.
#[derive(Debug, Clone, Copy)]
pub struct OpaquePointer(pub *mut c_void);

// SAFETY: the wrapper gives no access to what the pointer points to (dereferencing a raw
// pointer is unsafe wherever it happens), so sending the address to another thread can not
// make safe code race.
unsafe impl Send for OpaquePointer {}
// SAFETY: as above; a shared reference yields only a copy of the address.
unsafe impl Sync for OpaquePointer {}

impl OpaquePointer {
    /// The pointer. A method (rather than `.0`) so closures capture the Send wrapper.
    #[inline(always)]
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_crosses_threads_unchanged() {
        let mut value = 7u32;
        let pointer = OpaquePointer((&raw mut value).cast());
        let seen = std::thread::spawn(move || pointer.get() as usize).join().unwrap();
        assert_eq!(seen, (&raw mut value) as usize);
    }
}
