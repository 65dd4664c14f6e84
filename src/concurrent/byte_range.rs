//! `ClaimedRange` and `PublishedRange`: the only safe ways to reach the bytes of shared
//! memory with plain (non-atomic) accesses.
//!
//! A plain byte copy races, and so is undefined behaviour, unless no other thread touches
//! the bytes meanwhile. Aeron's protocols give that guarantee in two forms, and each form
//! is a value here that only the protocol step itself can make:
//! - a claim (a get-and-add on a tail, a ring buffer's or error log's claim, an exclusive
//!   tail's store) hands one writer a range no one else reads or writes until the writer
//!   publishes it: a [`ClaimedRange`], made by [`AtomicBuffer::claim_get_and_add`],
//!   [`ExclusiveTail::claim`](crate::concurrent::ExclusiveTail::claim) or, inside
//!   `concurrent/`, the `unsafe` [`AtomicBuffer::claim_unchecked`];
//! - an acquire load of a positive frame or record length shows a reader a range its writer
//!   has finished and will not touch again until readers move past it: a
//!   [`PublishedRange`], made by [`AtomicBuffer::acquire_record`].
//!
//! Both are a pointer, a length and a lifetime borrowed from the buffer, so the hot paths
//! pay nothing for them.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::AtomicI32;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::byte_copy::{INLINE_COPY_MAX, SMALL_COPY_MAX, copy_chunks, copy_small};

/// Bytes of shared memory this writer alone owns until it publishes them. Not `Clone`: a
/// claim has one owner, and commit or abort (of the claim that holds it) consume it.
#[derive(Debug)]
pub struct ClaimedRange<'a> {
    ptr: NonNull<u8>,
    len: usize,
    _buffer: PhantomData<&'a AtomicBuffer>,
}

// SAFETY: a claim is exclusive access to its bytes, as a `&mut [u8]` is, so it may move to
// another thread (the claim moves with it).
unsafe impl Send for ClaimedRange<'_> {}
// SAFETY: through `&ClaimedRange` only `as_slice` reads the bytes, and no one writes them
// while that borrow lives (writes need `&mut self`).
unsafe impl Sync for ClaimedRange<'_> {}

impl<'a> ClaimedRange<'a> {
    /// The range `[index, index + len)` of `buffer`, which the caller has claimed.
    ///
    /// # Safety
    /// `index + len <= buffer.capacity()`, and until the returned value is dropped no other
    /// thread or process reads or writes those bytes, other than through atomics after the
    /// claimer publishes them (the exclusivity a claim grants).
    #[inline(always)]
    pub(crate) unsafe fn new(buffer: &'a AtomicBuffer, index: usize, len: usize) -> Self {
        debug_assert!(index <= buffer.capacity() && len <= buffer.capacity() - index);
        // SAFETY: index <= capacity (contract), so the pointer stays within (or one past) the
        // allocation.
        let ptr = unsafe { NonNull::new_unchecked(buffer.as_ptr().add(index)) };
        Self { ptr, len, _buffer: PhantomData }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    #[track_caller]
    fn checked(&self, offset: usize, length: usize) -> *mut u8 {
        if offset > self.len || length > self.len - offset {
            range_out_of_bounds(offset, length, self.len);
        }
        // SAFETY: offset <= len, so the pointer stays within (or one past) the range.
        unsafe { self.ptr.as_ptr().add(offset) }
    }

    /// Copies `src` to `offset` of the range; panics if it does not fit.
    #[inline]
    #[track_caller]
    pub fn put_bytes(&mut self, offset: usize, src: &[u8]) {
        if src.is_empty() {
            return;
        }
        let dst = self.checked(offset, src.len());
        if src.len() <= SMALL_COPY_MAX {
            // SAFETY: as below, and the length is within copy_small's limit.
            unsafe { copy_small(src.as_ptr(), dst, src.len()) };
            return;
        }
        // SAFETY: [offset, offset + src.len()) is inside the range (checked), which this
        // claim owns exclusively; src is a distinct Rust slice, so no overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) }
    }

    /// As [`put_bytes`](Self::put_bytes) for at most
    /// `INLINE_COPY_MAX` (256) bytes, copied
    /// inline (no `memcpy` call); `false`, copying nothing, when `src` is longer or does not
    /// fit at `offset`. Never panics: for the offer fast path.
    #[inline(always)]
    pub fn try_put_small_bytes(&mut self, offset: usize, src: &[u8]) -> bool {
        if src.len() > INLINE_COPY_MAX || offset > self.len || src.len() > self.len - offset {
            return false;
        }
        // SAFETY: offset <= len (checked), so the pointer stays within the range.
        let dst = unsafe { self.ptr.as_ptr().add(offset) };
        // SAFETY: [offset, offset + src.len()) is inside the claimed range (checked), which
        // no one else touches; src is a distinct Rust slice, so no overlap; src is at most
        // INLINE_COPY_MAX bytes (checked).
        unsafe { copy_inline(src, dst) };
        true
    }

    /// This range as one frame: `HEAD` bytes of header, whose first `WORDS` i32 words the
    /// writer stores atomically (the first of them publishes the frame), then `body`. Made
    /// when the range is exactly `body` and the header aligned up to `ALIGN` (a power of
    /// two) long, starts on a 4-byte boundary, and `body` is at most
    /// `INLINE_COPY_MAX` bytes; else the range comes back untouched. The one check of the
    /// offer fast path: what the frame's writes need follows from it, so
    /// [`ClaimedFrame`]'s methods check nothing (and a caller that claimed exactly that
    /// length lets the optimizer drop the length comparison too).
    #[inline(always)]
    pub fn try_frame<'s, const HEAD: usize, const ALIGN: usize, const WORDS: usize>(
        self,
        body: &'s [u8],
    ) -> Result<ClaimedFrame<'a, 's, WORDS>, Self> {
        const { assert!(ALIGN.is_power_of_two() && HEAD % 4 == 0 && WORDS * 4 <= HEAD) };
        if body.len() > INLINE_COPY_MAX {
            return Err(self);
        }
        // No overflow: body is at most INLINE_COPY_MAX bytes. The aligned length is at least
        // HEAD + body.len(), so both parts lie in a range of exactly that length.
        let framed = (HEAD + body.len() + (ALIGN - 1)) & !(ALIGN - 1);
        if self.len != framed || self.ptr.as_ptr().addr() & 3 != 0 {
            return Err(self);
        }
        // SAFETY: [0, 4 * WORDS) lies in the range (4 * WORDS <= HEAD <= len, checked) and
        // starts 4-byte aligned (checked); the memory lives for 'a and this claim owns it, and
        // the frame accesses these bytes only through these atomics (the body starts at HEAD).
        let head = unsafe { &*self.ptr.as_ptr().cast::<[AtomicI32; WORDS]>() };
        // SAFETY: HEAD <= len (checked above), so the pointer stays within the range.
        let body_dst = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(HEAD)) };
        Ok(ClaimedFrame { head, body_dst, body, _claim: PhantomData })
    }

    /// Fills `[offset, offset + length)` of the range with `value`; panics if it does not fit.
    #[inline]
    #[track_caller]
    pub fn fill(&mut self, offset: usize, length: usize, value: u8) {
        let dst = self.checked(offset, length);
        // SAFETY: inside the claimed range (checked), which no one else touches.
        unsafe { std::ptr::write_bytes(dst, value, length) }
    }

    /// The claimed bytes, to write in place; the borrow ends before the claim is published.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: the range is live for 'a and owned by this claim; `&mut self` makes the
        // slice the only access through it while it lives.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The claimed bytes as written so far (e.g. for a reserved value computed over a frame
    /// just before it is published).
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the range is live for 'a and owned by this claim; no one writes it while
        // `&self` is borrowed (writes need `&mut self`, others do not touch it).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

/// A claimed frame whose layout [`ClaimedRange::try_frame`] checked: its header words, and
/// the body still to be copied in after them. Consuming it (copying the body) ends the
/// claim's plain writes; the header words stay, to publish the frame through.
#[derive(Debug)]
pub struct ClaimedFrame<'a, 's, const WORDS: usize> {
    head: &'a [AtomicI32; WORDS],
    /// Where the body goes: `body.len()` bytes of the claimed range, after the header.
    body_dst: NonNull<u8>,
    body: &'s [u8],
    _claim: PhantomData<ClaimedRange<'a>>,
}

impl<'a, const WORDS: usize> ClaimedFrame<'a, '_, WORDS> {
    /// The header's words, to store with atomics (before or after the body).
    #[inline(always)]
    pub fn head(&self) -> &'a [AtomicI32; WORDS] {
        self.head
    }

    /// Copies the body into place, inline; the header words, to publish the frame through.
    #[inline(always)]
    pub fn put_body(self) -> &'a [AtomicI32; WORDS] {
        // SAFETY: `try_frame` checked that [HEAD, HEAD + body.len()) lies in the claimed
        // range, which this value owns (it consumed the claim) and which no one else touches;
        // the header words lie before it; body is a distinct Rust slice (no overlap) of at
        // most INLINE_COPY_MAX bytes (checked there).
        unsafe { copy_inline(self.body, self.body_dst.as_ptr()) };
        self.head
    }
}

/// Copies `src` to `dst` without a `memcpy` call.
///
/// # Safety
/// `dst` valid for writing `src.len()` bytes, not overlapping `src`, and no one else
/// accessing them meanwhile; `src.len() <= INLINE_COPY_MAX`.
#[inline(always)]
unsafe fn copy_inline(src: &[u8], dst: *mut u8) {
    if src.len() <= SMALL_COPY_MAX {
        // SAFETY: the caller's contract, and the length is within copy_small's limit.
        unsafe { copy_small(src.as_ptr(), dst, src.len()) };
    } else {
        // SAFETY: the caller's contract, and the length is within copy_chunks' limits
        // (above SMALL_COPY_MAX, at most INLINE_COPY_MAX).
        unsafe { copy_chunks(src.as_ptr(), dst, src.len()) };
    }
}

/// A [`ClaimedRange`] that keeps its buffer's memory alive, for a claim that must outlive
/// the borrow it was made from (a mapped bus claim, made while the writer may move to a
/// new segment). Costs a reference count on the buffer.
#[derive(Debug)]
pub struct OwnedClaimedRange {
    buffer: AtomicBuffer,
    index: usize,
    len: usize,
}

impl OwnedClaimedRange {
    /// Takes over `claimed`, which must lie in `buffer`'s memory (panics otherwise).
    pub fn new(buffer: &AtomicBuffer, claimed: ClaimedRange<'_>) -> Self {
        let index = (claimed.ptr.as_ptr() as usize).wrapping_sub(buffer.as_ptr() as usize);
        assert!(
            index <= buffer.capacity() && claimed.len <= buffer.capacity() - index,
            "claimed range does not lie in the buffer"
        );
        Self { buffer: buffer.clone(), index, len: claimed.len }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The claimed bytes, to write in place.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: in bounds (checked in `new`), live while the buffer is (held); this value
        // owns the claim and `&mut self` makes the slice its only live use.
        unsafe { std::slice::from_raw_parts_mut(self.buffer.as_ptr().add(self.index), self.len) }
    }

    /// The claimed range, for writing.
    #[inline]
    pub fn range(&mut self) -> ClaimedRange<'_> {
        // SAFETY: in bounds (checked in `new`); the range was claimed and this value owns the
        // claim (made from the `ClaimedRange`, which it consumed); `&mut self` makes the
        // returned one its only live use.
        unsafe { ClaimedRange::new(&self.buffer, self.index, self.len) }
    }
}

/// Bytes of shared memory a writer published (release store of a positive length, seen with
/// an acquire load) and will not write again while the reader holds them: the protocols
/// reuse space only after every reader moved past it.
#[derive(Debug, Clone, Copy)]
pub struct PublishedRange<'a> {
    ptr: NonNull<u8>,
    len: usize,
    _buffer: PhantomData<&'a [u8]>,
}

// SAFETY: a published range is read-only for as long as 'a, as a `&[u8]` is.
unsafe impl Send for PublishedRange<'_> {}
// SAFETY: as for Send.
unsafe impl Sync for PublishedRange<'_> {}

impl<'a> PublishedRange<'a> {
    /// The range `[index, index + len)` of `buffer`, which its writer has published.
    ///
    /// # Safety
    /// `index + len <= buffer.capacity()`; the caller observed, with an acquire load, a
    /// release store made after the last write to those bytes, and no one writes them for
    /// as long as 'a.
    #[inline(always)]
    pub(crate) unsafe fn new(buffer: &'a AtomicBuffer, index: usize, len: usize) -> Self {
        debug_assert!(index <= buffer.capacity() && len <= buffer.capacity() - index);
        // SAFETY: index <= capacity (contract), so the pointer stays within (or one past) the
        // allocation.
        let ptr = unsafe { NonNull::new_unchecked(buffer.as_ptr().add(index)) };
        Self { ptr, len, _buffer: PhantomData }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The published bytes.
    #[inline]
    pub fn as_slice(&self) -> &'a [u8] {
        // SAFETY: published and not written for 'a (how the value was made); live for 'a.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// `[offset, offset + length)` of this range; `None` if it does not lie inside it.
    #[inline]
    pub fn sub_range(&self, offset: usize, length: usize) -> Option<PublishedRange<'a>> {
        if offset > self.len || length > self.len - offset {
            return None;
        }
        // SAFETY: offset <= len, so the pointer stays within (or one past) the range.
        let ptr = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(offset)) };
        Some(PublishedRange { ptr, len: length, _buffer: PhantomData })
    }

    /// This range followed by `next`, when `next` starts where this one ends (a run of
    /// consecutive published frames, as the scanners send them); `None` otherwise.
    #[inline]
    pub fn join(&self, next: PublishedRange<'a>) -> Option<PublishedRange<'a>> {
        if self.ptr.as_ptr().wrapping_add(self.len) != next.ptr.as_ptr() {
            return None;
        }
        // Both lie in one buffer (adjacent), so the sum cannot overflow its length.
        Some(PublishedRange { ptr: self.ptr, len: self.len + next.len, _buffer: PhantomData })
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn range_out_of_bounds(offset: usize, length: usize, len: usize) -> ! {
    panic!("range offset {offset} + {length} out of bounds (range of {len} bytes)")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};

    use super::*;

    #[test]
    fn get_and_add_claim_is_the_range_the_tail_reserved() {
        let buffer = AtomicBuffer::alloc(256);
        let tail = AtomicI64::new((7i64 << 32) | 64);
        let (before, mut claim) = buffer.claim_get_and_add(&tail, 96);
        assert_eq!(before, (7i64 << 32) | 64, "the raw tail before the add");
        assert_eq!(tail.load(Ordering::Relaxed), (7i64 << 32) | 160);
        assert_eq!(claim.len(), 96);
        claim.put_bytes(0, &[1; 96]);
        assert_eq!(buffer.load_vec(0, 256), [vec![0; 64], vec![1; 96], vec![0; 96]].concat());
        let (_, second) = buffer.claim_get_and_add(&tail, 32);
        assert_eq!(second.len(), 32);
        assert_eq!(second.as_slice(), &[0; 32], "the next claim starts after the first");
    }

    #[test]
    fn get_and_add_claim_is_clipped_to_the_buffer() {
        let buffer = AtomicBuffer::alloc(128);
        let tail = AtomicI64::new(96);
        let (_, claim) = buffer.claim_get_and_add(&tail, 64);
        assert_eq!(claim.len(), 32, "only the part inside the buffer");
        let (before, past) = buffer.claim_get_and_add(&tail, 64);
        assert_eq!(before, 160);
        assert!(past.is_empty(), "a claim wholly past the end is empty");
        let zero = AtomicI64::new(0);
        let (_, empty) = buffer.claim_get_and_add(&zero, 0);
        assert!(empty.is_empty());
    }

    #[test]
    fn claimed_range_writes_stay_inside_and_refuse_what_does_not_fit() {
        let buffer = AtomicBuffer::alloc(128);
        let source: Vec<u8> = (1..=255).collect();
        // SAFETY: a private buffer; nothing else touches it.
        let mut claim = unsafe { buffer.claim_unchecked(32, 64) };
        assert!(claim.try_put_small_bytes(0, &source[..64]));
        assert!(!claim.try_put_small_bytes(1, &source[..64]), "one byte past the end");
        assert!(!claim.try_put_small_bytes(usize::MAX, &source[..1]), "offset past the end");
        assert!(claim.try_put_small_bytes(64, &[]), "empty at the end");
        claim.fill(60, 4, 0xAA);
        claim.as_mut_slice()[0] = 0xBB;
        assert_eq!(claim.as_slice()[..2], [0xBB, 2]);
        let bytes = buffer.load_vec(0, 128);
        assert!(bytes[..32].iter().chain(&bytes[96..]).all(|&b| b == 0), "outside untouched");
        assert_eq!(bytes[32], 0xBB);
        assert_eq!(&bytes[33..92], &source[1..60]);
        assert_eq!(&bytes[92..96], &[0xAA; 4]);
    }

    #[test]
    fn exact_claim_is_whole_or_clipped_as_claim_get_and_add() {
        let buffer = AtomicBuffer::alloc(128);
        let tail = AtomicI64::new((3i64 << 32) | 64);
        let (before, claim) = buffer.claim_get_and_add_exact(&tail, 64);
        assert_eq!(before, (3i64 << 32) | 64);
        assert_eq!(claim.expect("ends at the end").len(), 64);
        let tail = AtomicI64::new(96);
        let (_, crossing) = buffer.claim_get_and_add_exact(&tail, 64);
        assert_eq!(crossing.expect_err("crosses the end").len(), 32, "clipped to the end");
        let (before, past) = buffer.claim_get_and_add_exact(&tail, 64);
        assert_eq!(before, 160);
        assert!(past.expect_err("past the end").is_empty());
        let (_, huge) = buffer.claim_get_and_add_exact(&AtomicI64::new(64), usize::MAX);
        assert_eq!(huge.expect_err("overflows").len(), 64);
    }

    #[test]
    fn frame_needs_the_exact_aligned_length_and_writes_head_and_body() {
        let buffer = AtomicBuffer::alloc(256);
        let body: Vec<u8> = (1..=100).collect();
        // SAFETY: a private buffer; nothing else touches it.
        let claim = |index, length| unsafe { buffer.claim_unchecked(index, length) };
        // 32 + 33 aligned to 32 is 96.
        assert!(claim(32, 64).try_frame::<32, 32, 6>(&body[..33]).is_err(), "shorter");
        assert!(claim(32, 128).try_frame::<32, 32, 6>(&body[..33]).is_err(), "longer");
        assert!(claim(34, 96).try_frame::<32, 32, 6>(&body[..33]).is_err(), "misaligned");
        let long = vec![0; INLINE_COPY_MAX + 1];
        assert!(claim(0, 256).try_frame::<0, 256, 0>(&long).is_err(), "beyond INLINE_COPY_MAX");
        assert!(buffer.load_vec(0, 256).iter().all(|&b| b == 0), "refusals write nothing");
        let frame = claim(32, 96).try_frame::<32, 32, 6>(&body[..33]).expect("exact");
        frame.head()[5].store(-7, std::sync::atomic::Ordering::Relaxed);
        let words = frame.put_body();
        words[0].store(65, std::sync::atomic::Ordering::Release);
        let bytes = buffer.load_vec(0, 256);
        assert_eq!(&bytes[32..36], &65i32.to_le_bytes());
        assert_eq!(&bytes[52..56], &(-7i32).to_le_bytes());
        assert_eq!(&bytes[64..97], &body[..33]);
        assert!(
            bytes[..32]
                .iter()
                .chain(&bytes[36..52])
                .chain(&bytes[56..64])
                .chain(&bytes[97..])
                .all(|&b| b == 0)
        );
        let empty = claim(128, 32).try_frame::<32, 32, 8>(&[]).expect("header only");
        assert_eq!(empty.put_body().len(), 8);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn claimed_range_put_past_its_end_panics() {
        let buffer = AtomicBuffer::alloc(128);
        let tail = AtomicI64::new(0);
        let (_, mut claim) = buffer.claim_get_and_add(&tail, 8);
        claim.put_bytes(4, &[0; 5]);
    }

    #[test]
    fn acquire_record_needs_a_positive_in_bounds_length() {
        let buffer = AtomicBuffer::alloc(128);
        assert!(buffer.acquire_record(0).is_none(), "zero length");
        buffer.put_i32_release(0, -32);
        assert!(buffer.acquire_record(0).is_none(), "negative length (a claim)");
        buffer.put_i32_release(64, 65);
        assert!(buffer.acquire_record(64).is_none(), "past the end");
        buffer.put_i32_release(96, i32::MAX);
        assert!(buffer.acquire_record(96).is_none(), "far past the end");
        buffer.store_bytes(36, b"body");
        buffer.put_i32_release(32, 8);
        let record = buffer.acquire_record(32).expect("published");
        assert_eq!(record.len(), 8);
        assert_eq!(record.as_slice(), &[8, 0, 0, 0, b'b', b'o', b'd', b'y']);
        assert_eq!(record.sub_range(4, 4).unwrap().as_slice(), b"body");
        assert!(record.sub_range(4, 5).is_none());
        assert!(record.sub_range(9, 0).is_none());
        assert!(record.sub_range(8, 0).unwrap().is_empty());
        buffer.put_i32_release(64, 64);
        let last = buffer.acquire_record(64).expect("ends at the end");
        assert_eq!(last.len(), 64);
    }

    #[test]
    fn published_ranges_join_only_when_adjacent() {
        let buffer = AtomicBuffer::alloc(128);
        buffer.put_i32_release(0, 32);
        buffer.put_i32_release(32, 64);
        buffer.put_i32_release(96, 32);
        let first = buffer.acquire_record(0).unwrap();
        let second = buffer.acquire_record(32).unwrap();
        let third = buffer.acquire_record(96).unwrap();
        let run = first.join(second).expect("adjacent");
        assert_eq!(run.len(), 96);
        assert_eq!(run.join(third).unwrap().len(), 128);
        assert!(first.join(third).is_none(), "a gap between them");
        assert!(second.join(first).is_none(), "out of order");
    }

    #[test]
    fn claims_from_two_threads_never_overlap() {
        let buffer = AtomicBuffer::alloc(64 * 8);
        let tail = AtomicI64::new(0);
        std::thread::scope(|s| {
            for id in 1..=2u8 {
                let (buffer, tail) = (&buffer, &tail);
                s.spawn(move || {
                    for _ in 0..4 {
                        let (before, mut claim) = buffer.claim_get_and_add(tail, 64);
                        claim.put_bytes(4, &[id; 60]);
                        // Release: the body is visible before the length.
                        buffer.put_i32_release(before as usize, 64);
                    }
                });
            }
        });
        let mut counts = [0; 3];
        for index in (0..64 * 8).step_by(64) {
            let record = buffer.acquire_record(index).expect("every slot published");
            let body = record.sub_range(4, 60).unwrap().as_slice();
            assert!(body.iter().all(|&b| b == body[0]));
            counts[usize::from(body[0])] += 1;
        }
        assert_eq!(counts, [0, 4, 4]);
    }
}
