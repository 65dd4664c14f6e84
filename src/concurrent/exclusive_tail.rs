//! `ExclusiveTail`: the tail word of a buffer that one writer owns, as an exclusive
//! publication owns its log partitions' tails: claims are a release store of the new tail
//! rather than a get-and-add, which is sound only while nobody else claims in that buffer.
//! This type is that ownership: at most one lives per buffer range in the process (a second
//! one over overlapping memory is refused), it is not `Clone`, and claiming takes `&mut`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::concurrent::{AtomicBuffer, AtomicI64Word, ClaimedRange};
use crate::util::error::{Error, Result};

/// Address ranges `[start, end)` of the buffers an `ExclusiveTail` owns.
static OWNED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// The sole claimer of one buffer (see the module docs).
#[derive(Debug)]
pub struct ExclusiveTail {
    buffer: AtomicBuffer,
    tail: AtomicI64Word,
}

impl ExclusiveTail {
    /// Takes ownership of claiming in `buffer` through `tail`; an error while another
    /// `ExclusiveTail` owns any of `buffer`'s bytes.
    pub fn new(buffer: AtomicBuffer, tail: AtomicI64Word) -> Result<Self> {
        let start = buffer.as_ptr() as usize;
        let end = start + buffer.capacity();
        let mut owned = OWNED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if owned.iter().any(|&(s, e)| s < end.max(start + 1) && start < e.max(s + 1)) {
            return Err(Error::illegal_state(format!(
                "buffer at {start:#x} ({} bytes) already has an exclusive writer",
                buffer.capacity()
            )));
        }
        owned.push((start, end));
        Ok(Self { buffer, tail })
    }

    /// The buffer claims are made in.
    #[inline]
    pub fn buffer(&self) -> &AtomicBuffer {
        &self.buffer
    }

    /// The tail word, for reads (writes go through [`claim`](Self::claim)).
    #[inline]
    pub fn word(&self) -> &AtomicI64 {
        self.tail.get()
    }

    /// Claims `[offset, offset + length)` (clipped to the buffer) and stores `raw_tail`, the
    /// tail after it, with release so readers of the tail see a consistent value. The
    /// range is this owner's until the claim is published.
    #[inline]
    pub fn claim(&mut self, raw_tail: i64, offset: usize, length: usize) -> ClaimedRange<'_> {
        self.tail.get().store(raw_tail, Ordering::Release);
        let capacity = self.buffer.capacity();
        let start = offset.min(capacity);
        let len = length.min(capacity - start);
        // SAFETY: start + len <= capacity (clipped); this value is the buffer's only
        // claimer in the process (registered in `new`) and `&mut self` makes this its only
        // claim alive.
        unsafe { ClaimedRange::new(&self.buffer, start, len) }
    }
}

impl ExclusiveTail {
    /// [`claim`](Self::claim) that leaves the tail to the caller and claims only a range
    /// wholly inside the buffer: the range and the tail word, to store the new tail (with
    /// release) when it chooses, e.g. only once the frame is written; `None`, claiming
    /// nothing, when `[offset, offset + length)` does not lie in the buffer. The range is
    /// this owner's either way (`&mut self`).
    #[inline(always)]
    pub fn try_claim_deferred(
        &mut self,
        offset: usize,
        length: usize,
    ) -> Option<(ClaimedRange<'_>, &AtomicI64)> {
        if offset.checked_add(length)? > self.buffer.capacity() {
            return None;
        }
        // SAFETY: as in `claim`: in bounds (checked), and this value is the buffer's only
        // claimer with `&mut self` making this its only live claim.
        let claimed = unsafe { ClaimedRange::new(&self.buffer, offset, length) };
        Some((claimed, self.tail.get()))
    }
}

impl Drop for ExclusiveTail {
    fn drop(&mut self) {
        let start = self.buffer.as_ptr() as usize;
        let mut owned = OWNED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(i) = owned.iter().position(|&(s, _)| s == start) {
            owned.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_owner_per_buffer_until_dropped() {
        let buffer = AtomicBuffer::alloc(256);
        let words = AtomicBuffer::alloc(64);
        let first = ExclusiveTail::new(buffer.clone(), AtomicI64Word::new(&words, 0).unwrap()).unwrap();
        let overlapping = buffer.view(128, 64).unwrap();
        assert!(ExclusiveTail::new(overlapping.clone(), AtomicI64Word::new(&words, 8).unwrap()).is_err());
        drop(first);
        assert!(ExclusiveTail::new(overlapping, AtomicI64Word::new(&words, 8).unwrap()).is_ok());
    }

    #[test]
    fn claim_stores_the_tail_and_is_clipped_to_the_buffer() {
        let buffer = AtomicBuffer::alloc(128);
        let words = AtomicBuffer::alloc(64);
        let mut tail = ExclusiveTail::new(buffer.clone(), AtomicI64Word::new(&words, 16).unwrap()).unwrap();
        let mut claim = tail.claim(42, 96, 64);
        assert_eq!(claim.len(), 32);
        claim.put_bytes(0, &[7; 32]);
        assert_eq!(words.get_i64_acquire(16), 42);
        assert_eq!(tail.word().load(Ordering::Acquire), 42);
        assert_eq!(buffer.load_vec(96, 32), vec![7; 32]);
        assert!(tail.claim(43, 200, 8).is_empty(), "wholly past the end");
    }

    #[test]
    fn deferred_claim_is_whole_or_nothing_and_leaves_the_tail() {
        let buffer = AtomicBuffer::alloc(128);
        let words = AtomicBuffer::alloc(64);
        let mut tail = ExclusiveTail::new(buffer.clone(), AtomicI64Word::new(&words, 8).unwrap()).unwrap();
        assert!(tail.try_claim_deferred(96, 64).is_none(), "crosses the end");
        assert!(tail.try_claim_deferred(200, 0).is_none(), "starts past the end");
        assert!(tail.try_claim_deferred(64, usize::MAX).is_none(), "overflows");
        let (mut claim, word) = tail.try_claim_deferred(64, 64).expect("ends at the end");
        assert_eq!(claim.len(), 64);
        assert_eq!(word.load(Ordering::Relaxed), 0, "the tail is the caller's to store");
        claim.put_bytes(0, &[5; 64]);
        assert_eq!(buffer.load_vec(64, 64), vec![5; 64]);
    }
}
