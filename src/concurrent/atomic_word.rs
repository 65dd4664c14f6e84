//! One word of an [`AtomicBuffer`], bounds- and alignment-checked once, when it is made.
//!
//! For the words a hot path touches on every call: a publication's limit counter, its log's
//! active term count and tails. Through `AtomicBuffer` each access re-checks its index; a
//! Rust caller's loop hoists those checks, but a call through the C API cannot, so they
//! would be paid per message. A word keeps its buffer (and so the memory) alive.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, AtomicI64};

use crate::concurrent::AtomicBuffer;
use crate::util::error::{Error, Result};

macro_rules! atomic_word {
    ($(#[$doc:meta])* $name:ident, $atomic:ty, $accessor:ident, $size:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            word: NonNull<$atomic>,
            /// Keeps the memory `word` points into alive.
            _memory: AtomicBuffer,
        }

        // SAFETY: `word` points into memory kept alive by `_memory` and is only used through
        // the atomic type, which is itself Send and Sync.
        unsafe impl Send for $name {}
        // SAFETY: as for Send.
        unsafe impl Sync for $name {}

        impl $name {
            /// The word at `index` of `buffer`; an error if it is outside the buffer or not
            /// aligned to its size.
            pub fn new(buffer: &AtomicBuffer, index: usize) -> Result<Self> {
                let memory = buffer.view(index, $size)?;
                if memory.as_ptr() as usize % $size != 0 {
                    return Err(Error::invalid_argument(format!(
                        "word at index {index} is not aligned to {} bytes",
                        $size
                    )));
                }
                // In bounds and aligned (checked above), so the checked accessor cannot panic.
                let word = NonNull::from(memory.$accessor(0));
                Ok(Self { word, _memory: memory })
            }

            /// The word itself; each caller names its ordering.
            #[inline(always)]
            pub fn get(&self) -> &$atomic {
                // SAFETY: in bounds and aligned (checked in `new`); the memory lives as long as
                // `_memory`, so as long as `&self`; it is only accessed atomically.
                unsafe { self.word.as_ref() }
            }
        }
    };
}

atomic_word!(
    /// An `i64` word checked once (see the module docs).
    AtomicI64Word,
    AtomicI64,
    atomic_i64,
    8
);
atomic_word!(
    /// An `i32` word checked once (see the module docs).
    AtomicI32Word,
    AtomicI32,
    atomic_i32,
    4
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn word_reads_and_writes_the_buffer_at_its_index() {
        let buffer = AtomicBuffer::alloc(64);
        let word = AtomicI64Word::new(&buffer, 16).expect("in bounds");
        word.get().store(0x0102_0304_0506_0708, Ordering::Release);
        assert_eq!(buffer.get_i64_acquire(16), 0x0102_0304_0506_0708);
        buffer.put_i32_release(60, -7);
        assert_eq!(AtomicI32Word::new(&buffer, 60).expect("in bounds").get().load(Ordering::Acquire), -7);
    }

    #[test]
    fn word_outlives_the_buffer_it_came_from() {
        let word = {
            let buffer = AtomicBuffer::alloc(8);
            buffer.put_i64(0, 42);
            AtomicI64Word::new(&buffer, 0).expect("in bounds")
        };
        assert_eq!(word.get().load(Ordering::Acquire), 42);
    }

    #[test]
    fn out_of_bounds_or_misaligned_words_are_errors() {
        let buffer = AtomicBuffer::alloc(64);
        assert!(AtomicI64Word::new(&buffer, 57).is_err(), "past the end");
        assert!(AtomicI64Word::new(&buffer, usize::MAX).is_err(), "overflowing index");
        assert!(AtomicI64Word::new(&buffer, 4).is_err(), "misaligned");
        assert!(AtomicI32Word::new(&buffer, 2).is_err(), "misaligned");
        assert!(AtomicI32Word::new(&buffer, 60).is_ok());
    }
}
