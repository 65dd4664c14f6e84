//! Session id allocation (`spec/driver.md` §7): a counter starting at a random int32 that
//! skips the reserved range and ids already used on the same stream.
#![forbid(unsafe_code)]

use std::hash::{BuildHasher, Hasher};

/// A random int32 (initial session id counter, initial term ids). Not cryptographic: it
/// only has to make clashes between driver runs unlikely, as Aeron's does.
pub fn random_i32() -> i32 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_i64(crate::util::clock::epoch_ns());
    hasher.write_i64(crate::util::clock::nano_time());
    hasher.finish() as i32
}

/// Hands out session ids for publications without an explicit `session-id`.
#[derive(Debug, Clone)]
pub struct SessionIdAllocator {
    next: i32,
    reserved_low: i32,
    reserved_high: i32,
}

impl SessionIdAllocator {
    /// Starts at `first`; ids in `[reserved_low, reserved_high]` are never handed out.
    pub fn new(first: i32, reserved_low: i32, reserved_high: i32) -> Self {
        Self { next: first, reserved_low, reserved_high }
    }

    fn skip_reserved(&self, id: i32) -> i32 {
        if self.reserved_low <= id && id <= self.reserved_high {
            self.reserved_high.wrapping_add(1)
        } else {
            id
        }
    }

    /// The next id for which `in_use` is false; the counter then continues after it.
    pub fn allocate(&mut self, in_use: impl Fn(i32) -> bool) -> i32 {
        let mut id = self.skip_reserved(self.next);
        // The number of publications bounds the loop: each probe skips one id in use.
        while in_use(id) {
            id = self.skip_reserved(id.wrapping_add(1));
        }
        self.next = id.wrapping_add(1);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_reserved_range_and_ids_in_use() {
        let mut ids = SessionIdAllocator::new(-5, -1, 1000);
        assert_eq!(ids.allocate(|_| false), -5);
        assert_eq!(ids.allocate(|_| false), -4);
        assert_eq!(ids.allocate(|_| false), -3);
        assert_eq!(ids.allocate(|_| false), -2);
        assert_eq!(ids.allocate(|_| false), 1001, "reserved [-1, 1000] is skipped");
        assert_eq!(ids.allocate(|id| id == 1002 || id == 1003), 1004);
        let mut wrap = SessionIdAllocator::new(i32::MAX, -1, 1000);
        assert_eq!(wrap.allocate(|_| false), i32::MAX);
        assert_eq!(wrap.allocate(|_| false), i32::MIN);
        assert_ne!(random_i32(), random_i32());
    }
}
