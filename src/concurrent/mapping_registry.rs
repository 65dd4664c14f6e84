//! Mappings handed out by address to callers that cannot own an [`AtomicBuffer`] (the C
//! callers of `aeron_map_existing_file` and the raw log functions): each stays mapped here
//! until it is released by the address and length it was handed out with, so a release
//! frees exactly what was mapped and nothing else.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::AtomicBuffer;
use crate::util::error::{Error, Result};

/// The live mappings, by address.
#[derive(Debug, Default)]
pub struct MappingRegistry(Mutex<HashMap<usize, AtomicBuffer>>);

impl MappingRegistry {
    /// Keeps `buffer`'s mapping alive until [`release`](Self::release); returns its address
    /// and length.
    pub fn register(&self, buffer: AtomicBuffer) -> Result<(*mut u8, usize)> {
        let (addr, length) = (buffer.as_ptr(), buffer.capacity());
        self.lock()?.insert(addr as usize, buffer);
        Ok((addr, length))
    }

    /// Unmaps the mapping registered at `addr`, which must be `length` bytes long. EINVAL
    /// (and nothing released) for an address not registered or a length that differs.
    pub fn release(&self, addr: *mut u8, length: usize) -> Result<()> {
        let mut mappings = self.lock()?;
        match mappings.get(&(addr as usize)) {
            Some(buffer) if buffer.capacity() == length => {
                mappings.remove(&(addr as usize));
                Ok(())
            }
            Some(buffer) => Err(Error::invalid_argument(format!(
                "length {length} does not match the mapping at {addr:p} ({} bytes)",
                buffer.capacity()
            ))),
            None => Err(Error::invalid_argument(format!("{addr:p} was not mapped by this library"))),
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, HashMap<usize, AtomicBuffer>>> {
        self.0.lock().map_err(|_| Error::illegal_state("mapped file registry poisoned"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_only_what_was_registered_with_its_length() {
        let registry = MappingRegistry::default();
        let (addr, length) = registry.register(AtomicBuffer::alloc(64)).unwrap();
        assert_eq!(length, 64);
        let err = registry.release(addr, 32).unwrap_err();
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("does not match"), "{err}");
        registry.release(addr, 64).unwrap();
        let err = registry.release(addr, 64).unwrap_err();
        assert!(err.message().contains("was not mapped by this library"), "{err}");
    }

    #[test]
    fn unknown_addresses_are_refused() {
        let registry = MappingRegistry::default();
        let mut other = [0u8; 8];
        assert_eq!(registry.release(other.as_mut_ptr(), 8).unwrap_err().code(), libc::EINVAL);
    }
}
