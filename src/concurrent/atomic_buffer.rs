//! `AtomicBuffer`: the only type that touches raw shared memory.
//!
//! A buffer is a pointer and a length plus an optional owner that keeps the memory alive
//! (a heap allocation or a file mapping). Views share the owner, so a ring buffer, a
//! counters manager and a log buffer can all hold `AtomicBuffer`s into one `cnc.dat`
//! mapping without lifetimes. Every word access is an atomic (`AtomicI64::from_ptr`),
//! with the ordering in the method name as Agrona names them; every index is
//! bounds- and alignment-checked, so a bad index is a panic (a bug), never UB. Indices
//! that come from shared memory or the network must be validated by the caller with
//! [`AtomicBuffer::check_bounds`] first, turning bad input into an `Err`.
//!
//! Bytes are reached safely either with atomic word copies ([`AtomicBuffer::store_bytes`],
//! [`AtomicBuffer::load_bytes`], [`AtomicBuffer::fill_bytes`]) or, with plain accesses,
//! only through the values a protocol step makes: a [`ClaimedRange`](super::ClaimedRange)
//! from a claim, a [`PublishedRange`](super::PublishedRange) from an acquire load of a
//! positive length (see `byte_range`; the steps are in `atomic_buffer/ranges.rs`). The
//! plain copies that take a bare index are `unsafe fn`s stating the exclusivity they need.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU8, AtomicU16, AtomicU64, Ordering};

use crate::util::error::{Error, Result};

/// A heap block aligned to a cache line, so i64 atomics and cache-line padded layouts
/// behave as they do in page-aligned mappings.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct CacheLineBlock([u8; 64]);

/// What keeps the memory alive.
enum Owner {
    /// A `Vec`, not a `Box`: moving a `Box` asserts unique access to its allocation, which
    /// would invalidate `ptr` (Miri: Stacked Borrows); moving a `Vec` does not.
    Heap(#[allow(dead_code)] Vec<CacheLineBlock>),
    Mapped(#[allow(dead_code)] memmap2::MmapMut),
}

/// A bounds-checked, atomically accessed view of raw memory.
#[derive(Clone)]
pub struct AtomicBuffer {
    ptr: NonNull<u8>,
    len: usize,
    owner: Option<Arc<Owner>>,
}

// SAFETY: the buffer only hands out atomic accessors, plain byte access through the claim
// and publication values (`byte_range`) or `unsafe` fns with that contract; the memory
// is either owned by `owner` (kept alive by the Arc) or guaranteed alive by the caller of
// `from_raw`. Concurrent use from several threads is the whole point of the type.
unsafe impl Send for AtomicBuffer {}
// SAFETY: as for Send: all access goes through atomics or copies whose races are excluded
// by the protocols built on top (release/acquire publication).
unsafe impl Sync for AtomicBuffer {}

/// The claim and publication steps that hand out byte ranges, and the plain copies whose
/// exclusivity the caller states.
mod ranges;

impl std::fmt::Debug for AtomicBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicBuffer").field("ptr", &self.ptr).field("len", &self.len).finish()
    }
}

impl AtomicBuffer {
    /// A zeroed heap buffer of `len` bytes, aligned to 64 bytes.
    pub fn alloc(len: usize) -> Self {
        let blocks = len.div_ceil(64).max(1);
        let mut storage = vec![CacheLineBlock([0; 64]); blocks];
        let ptr = NonNull::new(storage.as_mut_ptr().cast::<u8>()).expect("Vec pointer is non-null");
        Self { ptr, len, owner: Some(Arc::new(Owner::Heap(storage))) }
    }

    /// Takes ownership of a writable mapping of a file (`MAP_SHARED`: what `mapped_file`
    /// makes; page-level calls such as `mapped_file::release_pages` rely on it).
    pub(crate) fn from_mmap(mut map: memmap2::MmapMut) -> Self {
        let len = map.len();
        let ptr = NonNull::new(map.as_mut_ptr()).unwrap_or(NonNull::dangling());
        Self { ptr, len, owner: Some(Arc::new(Owner::Mapped(map))) }
    }

    /// Wraps memory the caller owns (a C caller's buffer).
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for as long as this buffer
    /// or any view of it is alive, and must only be accessed by others through atomics or
    /// by protocols compatible with the ones used on it.
    pub unsafe fn from_raw(ptr: *mut u8, len: usize) -> Result<Self> {
        let ptr = NonNull::new(ptr).ok_or_else(|| Error::invalid_argument("buffer pointer is null"))?;
        Ok(Self { ptr, len, owner: None })
    }

    /// A view of `[offset, offset + len)` sharing this buffer's owner.
    pub fn view(&self, offset: usize, len: usize) -> Result<Self> {
        self.check_bounds(offset, len)?;
        // SAFETY: offset + len <= self.len was just checked, so the result stays inside
        // the same allocation.
        let ptr = unsafe { self.ptr.add(offset) };
        Ok(Self { ptr, len, owner: self.owner.clone() })
    }

    /// Whether the memory is a shared file mapping made by `mapped_file` (its start is
    /// then page-aligned), rather than heap or caller memory.
    pub fn is_file_mapping(&self) -> bool {
        matches!(self.owner.as_deref(), Some(Owner::Mapped(_)))
    }

    /// Length in bytes.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.len
    }

    /// Base address, for handing to C or for address-based alignment checks.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// `Ok` when `[index, index + length)` lies inside the buffer; use on every index or
    /// length read from shared memory, the network or a user.
    #[inline]
    pub fn check_bounds(&self, index: usize, length: usize) -> Result<()> {
        match index.checked_add(length) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::out_of_bounds(format!(
                "index {index} + length {length} outside buffer of {} bytes",
                self.len
            ))),
        }
    }

    /// Start of `[index, index + length)` after checking it lies in the buffer. The panics
    /// live in cold functions so the hot path is two compares and no argument spills.
    #[inline]
    #[track_caller]
    fn checked_range(&self, index: usize, length: usize) -> *mut u8 {
        if index > self.len || length > self.len - index {
            out_of_bounds(index, length, self.len);
        }
        // SAFETY: index + length <= len, so the pointer stays within the allocation.
        unsafe { self.ptr.as_ptr().add(index) }
    }

    #[inline]
    #[track_caller]
    fn checked_ptr(&self, index: usize, size: usize) -> *mut u8 {
        let p = self.checked_range(index, size);
        // Sizes are 1, 2, 4 or 8, so the mask tests alignment to `size`.
        if (p as usize) & (size - 1) != 0 {
            misaligned(index, size);
        }
        p
    }

    #[inline]
    #[track_caller]
    fn i64_at(&self, index: usize) -> &AtomicI64 {
        let p = self.checked_ptr(index, 8).cast::<i64>();
        // SAFETY: p is in bounds and 8-byte aligned (checked); the memory lives as long as
        // &self (owner or from_raw contract) and is only accessed atomically.
        unsafe { AtomicI64::from_ptr(p) }
    }

    #[inline]
    #[track_caller]
    fn i32_at(&self, index: usize) -> &AtomicI32 {
        let p = self.checked_ptr(index, 4).cast::<i32>();
        // SAFETY: in bounds and 4-byte aligned (checked); lives as long as &self.
        unsafe { AtomicI32::from_ptr(p) }
    }

    #[inline]
    #[track_caller]
    fn u16_at(&self, index: usize) -> &AtomicU16 {
        let p = self.checked_ptr(index, 2).cast::<u16>();
        // SAFETY: in bounds and 2-byte aligned (checked); lives as long as &self.
        unsafe { AtomicU16::from_ptr(p) }
    }

    #[inline]
    #[track_caller]
    fn u8_at(&self, index: usize) -> &AtomicU8 {
        let p = self.checked_ptr(index, 1);
        // SAFETY: in bounds (checked); a byte is always aligned; lives as long as &self.
        unsafe { AtomicU8::from_ptr(p) }
    }

    /// The i64 word at `index` itself, checked once, for hot paths that perform several
    /// operations on the same word (each call site names its ordering).
    #[inline]
    #[track_caller]
    pub fn atomic_i64(&self, index: usize) -> &AtomicI64 {
        self.i64_at(index)
    }

    /// The i32 word at `index` itself, checked once; see [`AtomicBuffer::atomic_i64`].
    #[inline]
    #[track_caller]
    pub fn atomic_i32(&self, index: usize) -> &AtomicI32 {
        self.i32_at(index)
    }

    /// `count` consecutive i32 words from `index`, checked once, for hot paths that touch
    /// several words of one region (indexing the slice is then a register compare).
    #[inline]
    #[track_caller]
    pub fn atomic_i32_slice(&self, index: usize, count: usize) -> &[AtomicI32] {
        let p = self.checked_range(index, count.saturating_mul(4));
        if (p as usize) & 3 != 0 {
            misaligned(index, 4);
        }
        // SAFETY: [index, index + 4 * count) is in bounds and 4-aligned (checked); the memory
        // lives as long as &self and is only accessed atomically through these references.
        unsafe { std::slice::from_raw_parts(p.cast::<AtomicI32>(), count) }
    }

    /// `count` consecutive i64 words from `index`; see [`AtomicBuffer::atomic_i32_slice`].
    #[inline]
    #[track_caller]
    pub fn atomic_i64_slice(&self, index: usize, count: usize) -> &[AtomicI64] {
        let p = self.checked_range(index, count.saturating_mul(8));
        if (p as usize) & 7 != 0 {
            misaligned(index, 8);
        }
        // SAFETY: as for atomic_i32_slice, with 8-byte words.
        unsafe { std::slice::from_raw_parts(p.cast::<AtomicI64>(), count) }
    }

    /// The i64 word at `index`, or `None` when it does not lie inside the buffer 8-byte
    /// aligned: the non-panicking form of [`AtomicBuffer::atomic_i64`] (see
    /// [`AtomicBuffer::try_atomic_i32_array`]).
    #[inline(always)]
    pub fn try_atomic_i64(&self, index: usize) -> Option<&AtomicI64> {
        if index > self.len || 8 > self.len - index {
            return None;
        }
        // SAFETY: index <= len, so the pointer stays within (or one past) the allocation.
        let p = unsafe { self.ptr.as_ptr().add(index) };
        if (p as usize) & 7 != 0 {
            return None;
        }
        // SAFETY: [index, index + 8) is in bounds and 8-aligned (checked); the memory lives
        // as long as &self and is only accessed atomically.
        Some(unsafe { AtomicI64::from_ptr(p.cast::<i64>()) })
    }

    /// `N` consecutive i32 words from `index` as an array, or `None` when they do not lie
    /// inside the buffer on a 4-byte boundary: the non-panicking form of
    /// [`AtomicBuffer::atomic_i32_slice`], for paths that must not panic (the C API's offer
    /// fast path) and hand a failed check to a slower path instead.
    #[inline(always)]
    pub fn try_atomic_i32_array<const N: usize>(&self, index: usize) -> Option<&[AtomicI32; N]> {
        if index > self.len || N * 4 > self.len - index {
            return None;
        }
        // SAFETY: index <= len, so the pointer stays within (or one past) the allocation.
        let p = unsafe { self.ptr.as_ptr().add(index) };
        if (p as usize) & 3 != 0 {
            return None;
        }
        // SAFETY: [index, index + 4 * N) is in bounds and 4-aligned (checked); the memory
        // lives as long as &self and is only accessed atomically through these references.
        Some(unsafe { &*p.cast::<[AtomicI32; N]>() })
    }

    // ---- i64 ----

    /// Plain (Relaxed) load: for fields only this thread writes, or that are published by
    /// a separate acquire.
    #[inline]
    #[track_caller]
    pub fn get_i64(&self, index: usize) -> i64 {
        self.i64_at(index).load(Ordering::Relaxed)
    }

    /// Plain (Relaxed) store.
    #[inline]
    #[track_caller]
    pub fn put_i64(&self, index: usize, value: i64) {
        self.i64_at(index).store(value, Ordering::Relaxed)
    }

    /// Acquire load (Agrona `getLongVolatile`): sees everything released before the value.
    #[inline]
    #[track_caller]
    pub fn get_i64_acquire(&self, index: usize) -> i64 {
        self.i64_at(index).load(Ordering::Acquire)
    }

    /// Release store (Agrona `putLongOrdered`): publishes every earlier write.
    #[inline]
    #[track_caller]
    pub fn put_i64_release(&self, index: usize, value: i64) {
        self.i64_at(index).store(value, Ordering::Release)
    }

    /// Sequentially consistent load, for the rare Dekker-style checks.
    #[inline]
    #[track_caller]
    pub fn get_i64_volatile(&self, index: usize) -> i64 {
        self.i64_at(index).load(Ordering::SeqCst)
    }

    /// Sequentially consistent store (Agrona `putLongVolatile`).
    #[inline]
    #[track_caller]
    pub fn put_i64_volatile(&self, index: usize, value: i64) {
        self.i64_at(index).store(value, Ordering::SeqCst)
    }

    /// SeqCst compare-and-set; true when `expected` was replaced by `update`.
    #[inline]
    #[track_caller]
    pub fn compare_and_set_i64(&self, index: usize, expected: i64, update: i64) -> bool {
        self.i64_at(index).compare_exchange(expected, update, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }

    /// SeqCst fetch-and-add; returns the value before the add.
    #[inline]
    #[track_caller]
    pub fn get_and_add_i64(&self, index: usize, delta: i64) -> i64 {
        self.i64_at(index).fetch_add(delta, Ordering::SeqCst)
    }

    /// Release fetch-and-add for single-writer counters that only publish a value.
    #[inline]
    #[track_caller]
    pub fn get_and_add_i64_release(&self, index: usize, delta: i64) -> i64 {
        self.i64_at(index).fetch_add(delta, Ordering::Release)
    }

    // ---- i32 ----

    #[inline]
    #[track_caller]
    pub fn get_i32(&self, index: usize) -> i32 {
        self.i32_at(index).load(Ordering::Relaxed)
    }

    #[inline]
    #[track_caller]
    pub fn put_i32(&self, index: usize, value: i32) {
        self.i32_at(index).store(value, Ordering::Relaxed)
    }

    #[inline]
    #[track_caller]
    pub fn get_i32_acquire(&self, index: usize) -> i32 {
        self.i32_at(index).load(Ordering::Acquire)
    }

    #[inline]
    #[track_caller]
    pub fn put_i32_release(&self, index: usize, value: i32) {
        self.i32_at(index).store(value, Ordering::Release)
    }

    #[inline]
    #[track_caller]
    pub fn get_i32_volatile(&self, index: usize) -> i32 {
        self.i32_at(index).load(Ordering::SeqCst)
    }

    #[inline]
    #[track_caller]
    pub fn put_i32_volatile(&self, index: usize, value: i32) {
        self.i32_at(index).store(value, Ordering::SeqCst)
    }

    #[inline]
    #[track_caller]
    pub fn compare_and_set_i32(&self, index: usize, expected: i32, update: i32) -> bool {
        self.i32_at(index).compare_exchange(expected, update, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }

    #[inline]
    #[track_caller]
    pub fn get_and_add_i32(&self, index: usize, delta: i32) -> i32 {
        self.i32_at(index).fetch_add(delta, Ordering::SeqCst)
    }

    // ---- small fields (frame headers) ----

    #[inline]
    #[track_caller]
    pub fn get_u16(&self, index: usize) -> u16 {
        self.u16_at(index).load(Ordering::Relaxed)
    }

    #[inline]
    #[track_caller]
    pub fn put_u16(&self, index: usize, value: u16) {
        self.u16_at(index).store(value, Ordering::Relaxed)
    }

    #[inline]
    #[track_caller]
    pub fn get_u8(&self, index: usize) -> u8 {
        self.u8_at(index).load(Ordering::Relaxed)
    }

    #[inline]
    #[track_caller]
    pub fn put_u8(&self, index: usize, value: u8) {
        self.u8_at(index).store(value, Ordering::Relaxed)
    }

    // ---- bytes ----

    /// Copies `src` to `index` with Relaxed atomic stores (8-byte words where aligned, single
    /// bytes at the ends): word accesses like [`put_i64`](Self::put_i64), so never a plain
    /// access that could race. For single-writer protocols off the offer path (a received
    /// datagram, a gap's padding header, a report entry) and for setting up buffers; readers
    /// see the bytes once a later release store publishes them.
    #[track_caller]
    pub fn store_bytes(&self, index: usize, src: &[u8]) {
        let base = self.checked_range(index, src.len());
        let head = base.align_offset(8).min(src.len());
        let (head_bytes, rest) = src.split_at(head);
        let mut words = rest.chunks_exact(8);
        // SAFETY: every access lies in [index, index + src.len()), checked above, and the
        // word accesses are 8-aligned (they start `head` bytes in, at the first aligned
        // address); the memory lives as long as &self and is accessed atomically only.
        unsafe {
            for (i, &byte) in head_bytes.iter().enumerate() {
                AtomicU8::from_ptr(base.add(i)).store(byte, Ordering::Relaxed);
            }
            let mut at = head;
            for word in &mut words {
                let value = u64::from_ne_bytes(word.try_into().expect("8 bytes"));
                AtomicU64::from_ptr(base.add(at).cast::<u64>()).store(value, Ordering::Relaxed);
                at += 8;
            }
            for (i, &byte) in words.remainder().iter().enumerate() {
                AtomicU8::from_ptr(base.add(at + i)).store(byte, Ordering::Relaxed);
            }
        }
    }

    /// Copies `dst.len()` bytes from `index` into `dst` with Relaxed atomic loads (as
    /// [`store_bytes`](Self::store_bytes) stores): a snapshot, consistent when the range was
    /// published or is no longer written.
    #[track_caller]
    pub fn load_bytes(&self, index: usize, dst: &mut [u8]) {
        let base = self.checked_range(index, dst.len());
        let head = base.align_offset(8).min(dst.len());
        let (head_bytes, rest) = dst.split_at_mut(head);
        let mut words = rest.chunks_exact_mut(8);
        // SAFETY: as in store_bytes: in bounds (checked), aligned words, atomic accesses only.
        unsafe {
            for (i, byte) in head_bytes.iter_mut().enumerate() {
                *byte = AtomicU8::from_ptr(base.add(i)).load(Ordering::Relaxed);
            }
            let mut at = head;
            for word in &mut words {
                let value = AtomicU64::from_ptr(base.add(at).cast::<u64>()).load(Ordering::Relaxed);
                word.copy_from_slice(&value.to_ne_bytes());
                at += 8;
            }
            for (i, byte) in words.into_remainder().iter_mut().enumerate() {
                *byte = AtomicU8::from_ptr(base.add(at + i)).load(Ordering::Relaxed);
            }
        }
    }

    /// [`load_bytes`](Self::load_bytes) of `[index, index + length)` into a new `Vec`.
    #[track_caller]
    pub fn load_vec(&self, index: usize, length: usize) -> Vec<u8> {
        let mut bytes = vec![0; length];
        self.load_bytes(index, &mut bytes);
        bytes
    }

    /// Fills `[index, index + length)` with `value` by Relaxed atomic stores (as
    /// [`store_bytes`](Self::store_bytes)): for cleaning consumed space, which the protocol
    /// then publishes with a release store.
    #[track_caller]
    pub fn fill_bytes(&self, index: usize, length: usize, value: u8) {
        let base = self.checked_range(index, length);
        let head = base.align_offset(8).min(length);
        let words = (length - head) / 8;
        let word = u64::from_ne_bytes([value; 8]);
        // SAFETY: as in store_bytes: in bounds (checked), aligned words, atomic accesses only.
        unsafe {
            for i in 0..head {
                AtomicU8::from_ptr(base.add(i)).store(value, Ordering::Relaxed);
            }
            for w in 0..words {
                AtomicU64::from_ptr(base.add(head + w * 8).cast::<u64>()).store(word, Ordering::Relaxed);
            }
            for i in head + words * 8..length {
                AtomicU8::from_ptr(base.add(i)).store(value, Ordering::Relaxed);
            }
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(index: usize, size: usize, capacity: usize) -> ! {
    panic!("AtomicBuffer index {index} + {size} out of bounds (capacity {capacity})")
}

#[cold]
#[inline(never)]
#[track_caller]
fn misaligned(index: usize, size: usize) -> ! {
    panic!("AtomicBuffer index {index} not aligned to {size}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_atomic_word_accessors_check_bounds_and_alignment() {
        let b = AtomicBuffer::alloc(64);
        let words = b.try_atomic_i32_array::<6>(40).expect("40 + 24 = 64 fits");
        words[5].store(7, Ordering::Relaxed);
        assert_eq!(b.get_i32(60), 7);
        assert!(b.try_atomic_i32_array::<6>(44).is_none(), "one word past the end");
        assert!(b.try_atomic_i32_array::<1>(2).is_none(), "misaligned");
        assert!(b.try_atomic_i32_array::<1>(usize::MAX).is_none(), "index past the end");
        b.try_atomic_i64(56).expect("the last word").store(-9, Ordering::Relaxed);
        assert_eq!(b.get_i64(56), -9);
        assert!(b.try_atomic_i64(60).is_none(), "past the end");
        assert!(b.try_atomic_i64(4).is_none(), "misaligned");
        assert!(b.try_atomic_i64(usize::MAX).is_none(), "index past the end");
    }

    #[test]
    fn alloc_is_zeroed_and_aligned() {
        let b = AtomicBuffer::alloc(1000);
        assert_eq!(b.capacity(), 1000);
        assert_eq!(b.as_ptr() as usize % 64, 0);
        for i in (0..1000).step_by(8).take_while(|i| i + 8 <= 1000) {
            assert_eq!(b.get_i64(i), 0);
        }
    }

    #[test]
    fn word_accessors_round_trip_little_endian() {
        let b = AtomicBuffer::alloc(64);
        b.put_i64_release(8, 0x0102_0304_0506_0708);
        assert_eq!(b.get_i64_acquire(8), 0x0102_0304_0506_0708);
        let mut bytes = [0u8; 8];
        // SAFETY: published by the release store above, on this thread.
        unsafe { b.get_bytes(8, &mut bytes) };
        assert_eq!(bytes, [8, 7, 6, 5, 4, 3, 2, 1]);
        b.put_i32(0, -5);
        assert_eq!(b.get_i32_volatile(0), -5);
        assert!(b.compare_and_set_i32(0, -5, 7));
        assert!(!b.compare_and_set_i32(0, -5, 9));
        assert_eq!(b.get_and_add_i32(0, 3), 7);
        assert_eq!(b.get_i32(0), 10);
        assert!(b.compare_and_set_i64(16, 0, 42));
        assert_eq!(b.get_and_add_i64(16, 1), 42);
        b.put_u16(24, 0xBEEF);
        b.put_u8(26, 0xAA);
        assert_eq!(b.get_u16(24), 0xBEEF);
        assert_eq!(b.get_u8(26), 0xAA);
        assert_eq!(b.get_u8(24), 0xEF);
    }

    #[test]
    fn byte_copies_and_views() {
        let b = AtomicBuffer::alloc(128);
        // SAFETY: a private buffer used by this thread alone (so for each block below).
        unsafe { b.put_bytes(10, b"hello") };
        let v = b.view(8, 16).unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { v.published_slice(2, 5) }, b"hello");
        // SAFETY: as above.
        unsafe { v.set_memory(2, 2, b'x') };
        // SAFETY: as above.
        assert_eq!(unsafe { b.published_slice(10, 5) }, b"xxllo");
        // SAFETY: as above.
        unsafe { b.put_buffer(64, &b, 10, 5) };
        // SAFETY: as above.
        assert_eq!(unsafe { b.published_slice(64, 5) }, b"xxllo");
        assert!(b.view(120, 16).is_err());
    }

    #[test]
    fn atomic_byte_copies_match_at_every_alignment() {
        let source: Vec<u8> = (1..=100).collect();
        for offset in 0..9 {
            for length in [0usize, 1, 7, 8, 9, 15, 16, 17, 40, 100] {
                let b = AtomicBuffer::alloc(128);
                b.store_bytes(offset, &source[..length]);
                let out = b.load_vec(0, 128);
                assert!(out[..offset].iter().all(|&x| x == 0), "before, {offset}+{length}");
                assert_eq!(&out[offset..offset + length], &source[..length], "{offset}+{length}");
                assert!(out[offset + length..].iter().all(|&x| x == 0), "after, {offset}+{length}");
                b.fill_bytes(offset, length, 0xAB);
                let mut filled = vec![0; length];
                b.load_bytes(offset, &mut filled);
                assert!(filled.iter().all(|&x| x == 0xAB));
                assert_eq!(
                    b.load_vec(offset + length, 128 - offset - length),
                    vec![0; 128 - offset - length]
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn atomic_byte_copy_past_the_end_panics() {
        AtomicBuffer::alloc(16).store_bytes(9, &[0; 8]);
    }

    #[test]
    fn check_bounds_rejects_overflow() {
        let b = AtomicBuffer::alloc(64);
        assert!(b.check_bounds(0, 64).is_ok());
        assert!(b.check_bounds(64, 0).is_ok());
        assert!(b.check_bounds(60, 8).is_err());
        assert!(b.check_bounds(usize::MAX, 2).is_err());
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn out_of_bounds_word_access_panics_instead_of_ub() {
        AtomicBuffer::alloc(16).get_i64(16);
    }

    #[test]
    #[should_panic(expected = "not aligned")]
    fn misaligned_word_access_panics_instead_of_ub() {
        AtomicBuffer::alloc(16).get_i64(4);
    }

    #[test]
    fn word_references_and_slices_share_the_memory() {
        let b = AtomicBuffer::alloc(64);
        b.atomic_i64(8).store(-2, Ordering::Release);
        assert_eq!(b.get_i64(8), -2);
        b.atomic_i32(20).store(9, Ordering::Relaxed);
        let words = b.atomic_i32_slice(16, 4);
        assert_eq!(words.len(), 4);
        assert_eq!(words[1].load(Ordering::Acquire), 9);
        words[3].store(5, Ordering::Relaxed);
        assert_eq!(b.get_i32(28), 5);
        let longs = b.atomic_i64_slice(0, 8);
        assert_eq!(longs[1].load(Ordering::Relaxed), -2);
        assert!(b.atomic_i32_slice(64, 0).is_empty());
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn word_slice_past_the_end_panics() {
        AtomicBuffer::alloc(64).atomic_i64_slice(8, 8);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn word_slice_count_overflow_panics() {
        AtomicBuffer::alloc(64).atomic_i32_slice(0, usize::MAX / 2);
    }

    #[test]
    #[should_panic(expected = "not aligned")]
    fn misaligned_word_slice_panics() {
        AtomicBuffer::alloc(64).atomic_i32_slice(2, 1);
    }

    #[test]
    fn from_raw_rejects_null() {
        // SAFETY: a null pointer is rejected before any access.
        assert!(unsafe { AtomicBuffer::from_raw(std::ptr::null_mut(), 8) }.is_err());
    }
}
