//! The byte ranges an `AtomicBuffer` hands out: a [`ClaimedRange`] from a claim (a
//! get-and-add on a tail, or a caller's stated exclusivity), a [`PublishedRange`] from an
//! acquire load of a positive length, and the plain copies over a bare index whose
//! exclusivity the caller states (`unsafe fn`s).

use std::sync::atomic::{AtomicI64, Ordering};

use super::AtomicBuffer;
use crate::concurrent::byte_range::{ClaimedRange, PublishedRange};

impl AtomicBuffer {
    /// Claims `length` bytes with a SeqCst get-and-add on `tail`, whose low 32 bits are the
    /// offset in this buffer the next claim starts at (a log partition's raw tail, a
    /// bus's or report's next free offset); returns the tail before the add and the range
    /// reserved, clipped to the buffer (a claim that crosses the end reaches only to it).
    /// Every claimer of the buffer adding to the same tail gets a distinct range, which is
    /// what makes the range exclusive.
    #[inline]
    pub fn claim_get_and_add(&self, tail: &AtomicI64, length: usize) -> (i64, ClaimedRange<'_>) {
        let (before, range) = self.claim_get_and_add_exact(tail, length);
        (before, range.unwrap_or_else(|clipped| clipped))
    }

    /// [`claim_get_and_add`](Self::claim_get_and_add) that tells whether the reserved range
    /// lies wholly in the buffer: `Ok` with it when it does, `Err` with the part inside
    /// (clipped to the buffer) when it crosses or starts past the end. One comparison, for a
    /// claimer that treats the two cases differently (a log appender trips the term).
    #[inline(always)]
    pub fn claim_get_and_add_exact(
        &self,
        tail: &AtomicI64,
        length: usize,
    ) -> (i64, std::result::Result<ClaimedRange<'_>, ClaimedRange<'_>>) {
        // SeqCst, as Aeron's get-and-add on the tail: every claimer's add is one total order,
        // which is what makes the reserved ranges distinct.
        let before = tail.fetch_add(length as i64, Ordering::SeqCst);
        let offset = (before & 0xFFFF_FFFF) as usize;
        if offset.checked_add(length).is_some_and(|end| end <= self.len) {
            // SAFETY: offset + length <= self.len (checked); the get-and-add reserved
            // [offset, offset + length) of the tail's space for this caller alone.
            return (before, Ok(unsafe { ClaimedRange::new(self, offset, length) }));
        }
        let start = offset.min(self.len);
        let len = length.min(self.len - start);
        // SAFETY: start + len <= self.len (clipped); inside the reserved space, as above.
        (before, Err(unsafe { ClaimedRange::new(self, start, len) }))
    }

    /// Claims `length` bytes with a SeqCst get-and-add on the i64 at `tail_index` of this
    /// buffer, whose value is the offset the next claim starts at (a mapped bus segment's
    /// limit); returns the value before the add and the range reserved, clipped to the
    /// buffer and to the space after the tail word (a corrupt tail never hands out the word
    /// itself). Panics if the word is out of bounds or misaligned.
    #[inline]
    #[track_caller]
    pub fn claim_get_and_add_i64(&self, tail_index: usize, length: usize) -> (i64, ClaimedRange<'_>) {
        let before = self.i64_at(tail_index).fetch_add(length as i64, Ordering::SeqCst);
        let floor = tail_index + 8;
        let start = usize::try_from(before).unwrap_or(usize::MAX);
        let len = if start < floor { 0 } else { length.min(self.len - start.min(self.len)) };
        let start = if len == 0 { self.len } else { start };
        // SAFETY: start + len <= self.len (clipped above) and the range lies after the tail
        // word; the get-and-add reserved [before, before + length) for this caller alone.
        (before, unsafe { ClaimedRange::new(self, start, len) })
    }

    /// The range `[index, index + length)`, claimed by a protocol the caller follows;
    /// panics if it does not lie in the buffer.
    ///
    /// # Safety
    /// Until the returned range is dropped no other thread or process reads or writes those
    /// bytes (except through atomics after the caller publishes them): the caller holds a
    /// claim on them (a ring buffer or error log record it reserved, a private buffer).
    #[inline]
    #[track_caller]
    pub unsafe fn claim_unchecked(&self, index: usize, length: usize) -> ClaimedRange<'_> {
        self.checked_range(index, length);
        // SAFETY: in bounds (checked); exclusive by the caller's contract.
        unsafe { ClaimedRange::new(self, index, length) }
    }

    /// Acquire load of the i32 length of the frame or record starting at `index`; the
    /// record `[index, index + length)` when the length is positive and the record lies in
    /// the buffer, else `None` (nothing published there yet, a claim in progress, or a
    /// corrupt length). The release store of that length by the writer came after the last
    /// write to the record, so the bytes are complete and stay so until readers move on.
    /// Panics if `index` itself is out of bounds or not 4-aligned, as the word accessors do.
    #[inline]
    #[track_caller]
    pub fn acquire_record(&self, index: usize) -> Option<PublishedRange<'_>> {
        let length = self.i32_at(index).load(Ordering::Acquire);
        self.published_record(index, length)
    }

    /// [`acquire_record`](Self::acquire_record) whose range extends to the length aligned up
    /// to `alignment` (a power of two): for protocols whose records are claimed aligned (log
    /// frames, 32 bytes), so the bytes up to the next record belong to the same claim and
    /// were published with it. `None` also when the aligned record does not fit.
    #[inline]
    #[track_caller]
    pub fn acquire_record_aligned(&self, index: usize, alignment: usize) -> Option<PublishedRange<'_>> {
        debug_assert!(alignment.is_power_of_two());
        let length = self.i32_at(index).load(Ordering::Acquire);
        if length <= 0 {
            return None;
        }
        let aligned = (length as usize).checked_add(alignment - 1)? & !(alignment - 1);
        if index > self.len || aligned > self.len - index {
            return None;
        }
        // SAFETY: in bounds (checked); the acquire load saw the writer's release store of a
        // positive length, made after its last write to the aligned record it claimed.
        Some(unsafe { PublishedRange::new(self, index, aligned) })
    }

    /// Acquire load of the status word (i32) at `index`; `[body_index, body_index +
    /// body_length)` as published when it holds `published`, the value whose release store
    /// (or SeqCst CAS) the writer made after the body (a mapped bus record's commit). `None`
    /// otherwise or when the body does not lie in the buffer.
    #[inline]
    #[track_caller]
    pub fn acquire_status_i32(
        &self,
        index: usize,
        published: i32,
        body_index: usize,
        body_length: usize,
    ) -> Option<PublishedRange<'_>> {
        if self.i32_at(index).load(Ordering::Acquire) != published {
            return None;
        }
        self.check_bounds(body_index, body_length).ok()?;
        // SAFETY: in bounds (checked); the acquire load saw the store that published the body.
        Some(unsafe { PublishedRange::new(self, body_index, body_length) })
    }

    /// [`acquire_status_i32`](Self::acquire_status_i32) for an i64 status word.
    #[inline]
    #[track_caller]
    pub fn acquire_status_i64(
        &self,
        index: usize,
        published: i64,
        body_index: usize,
        body_length: usize,
    ) -> Option<PublishedRange<'_>> {
        if self.i64_at(index).load(Ordering::Acquire) != published {
            return None;
        }
        self.check_bounds(body_index, body_length).ok()?;
        // SAFETY: in bounds (checked); the acquire load saw the store that published the body.
        Some(unsafe { PublishedRange::new(self, body_index, body_length) })
    }

    /// [`acquire_record`](Self::acquire_record) that says what the length was when there is
    /// no record: `Err(length)` for a zero, negative or out-of-bounds length, from the same
    /// single acquire load.
    #[inline]
    #[track_caller]
    pub fn acquire_record_or_length(&self, index: usize) -> std::result::Result<PublishedRange<'_>, i32> {
        let length = self.i32_at(index).load(Ordering::Acquire);
        self.published_record(index, length).ok_or(length)
    }

    #[inline(always)]
    fn published_record(&self, index: usize, length: i32) -> Option<PublishedRange<'_>> {
        if length <= 0 {
            return None;
        }
        let length = length as usize;
        if index > self.len || length > self.len - index {
            return None;
        }
        // SAFETY: in bounds (checked); the acquire load saw the writer's release store of a
        // positive length, made after its last write to the record.
        Some(unsafe { PublishedRange::new(self, index, length) })
    }

    /// The range `[index, index + length)` as published bytes; panics if it does not lie in
    /// the buffer.
    ///
    /// # Safety
    /// The caller observed, with an acquire load, a release store made after the last write
    /// to those bytes, and no one writes them while the returned range lives.
    #[inline]
    #[track_caller]
    pub unsafe fn published_unchecked(&self, index: usize, length: usize) -> PublishedRange<'_> {
        self.checked_range(index, length);
        // SAFETY: in bounds (checked); published and not rewritten (contract).
        unsafe { PublishedRange::new(self, index, length) }
    }

    /// Copies `src` into the buffer at `index` with plain stores.
    ///
    /// # Safety
    /// No other thread or process accesses `[index, index + src.len())` during the copy
    /// (the caller holds a claim on it); readers see it after a later release store.
    #[inline]
    #[track_caller]
    pub unsafe fn put_bytes(&self, index: usize, src: &[u8]) {
        // SAFETY: exclusive by the caller's contract.
        unsafe { self.claim_unchecked(index, src.len()) }.put_bytes(0, src)
    }

    /// Copies `dst.len()` bytes from `index` into `dst` with plain loads.
    ///
    /// # Safety
    /// The range was published (release store observed with acquire) and no one writes it
    /// during the copy.
    #[inline]
    #[track_caller]
    pub unsafe fn get_bytes(&self, index: usize, dst: &mut [u8]) {
        // SAFETY: published and not written meanwhile (the caller's contract).
        let range = unsafe { self.published_unchecked(index, dst.len()) };
        dst.copy_from_slice(range.as_slice());
    }

    /// Fills `[index, index + length)` with `value` with plain stores.
    ///
    /// # Safety
    /// As [`put_bytes`](Self::put_bytes): the caller owns the range (consumed space, a
    /// claimed record) until it publishes it.
    #[inline]
    #[track_caller]
    pub unsafe fn set_memory(&self, index: usize, length: usize, value: u8) {
        // SAFETY: exclusive by the caller's contract.
        unsafe { self.claim_unchecked(index, length) }.fill(0, length, value)
    }

    /// Copies `length` bytes from `src[src_index..]` into this buffer at `index` with plain
    /// accesses (`memmove` semantics, so the two may be views of the same memory).
    ///
    /// # Safety
    /// The destination range is the caller's as for [`put_bytes`](Self::put_bytes), and
    /// the source range is published and not written during the copy.
    #[inline]
    #[track_caller]
    pub unsafe fn put_buffer(&self, index: usize, src: &AtomicBuffer, src_index: usize, length: usize) {
        if length == 0 {
            return;
        }
        let dst = self.checked_range(index, length);
        let s = src.checked_range(src_index, length);
        // SAFETY: both ranges are in bounds of live buffers (checked); `copy` tolerates
        // overlap; no one else touches either range meanwhile (the caller's contract).
        unsafe { std::ptr::copy(s, dst, length) }
    }

    /// Borrows `[index, index + length)` as a slice.
    ///
    /// # Safety
    /// As [`published_unchecked`](Self::published_unchecked): the range was published and
    /// no one writes it while the slice lives.
    #[inline]
    #[track_caller]
    pub unsafe fn published_slice(&self, index: usize, length: usize) -> &[u8] {
        // SAFETY: the caller's contract is published_unchecked's.
        unsafe { self.published_unchecked(index, length) }.as_slice()
    }
}
