//! The plain byte copies behind [`ClaimedRange`](crate::concurrent::ClaimedRange) and the
//! `unsafe` copies of [`AtomicBuffer`](crate::concurrent::AtomicBuffer): short copies inline,
//! without a `memcpy` call, for the offer fast path.

/// Longest copy [`copy_small`] does.
pub const SMALL_COPY_MAX: usize = 64;

/// Longest copy [`ClaimedRange::try_put_small_bytes`](crate::concurrent::ClaimedRange::try_put_small_bytes) does inline: beyond it `memcpy`'s
/// wide copies win over a loop of 32-byte chunks.
pub const INLINE_COPY_MAX: usize = 256;

/// Copies `len` (> 32, ≤ [`INLINE_COPY_MAX`]) bytes as 32-byte chunks, the last one
/// overlapping the one before: the inline copy of messages longer than [`SMALL_COPY_MAX`].
///
/// # Safety
/// As [`copy_small`].
#[inline(always)]
pub(crate) unsafe fn copy_chunks(src: *const u8, dst: *mut u8, len: usize) {
    debug_assert!(len > 32 && len <= INLINE_COPY_MAX);
    // SAFETY: every access lies within [0, len) of src or dst: chunks start below len - 32,
    // and the last one starts at len - 32 >= 0.
    unsafe {
        let mut offset = 0;
        while offset + 32 < len {
            let low = src.add(offset).cast::<u128>().read_unaligned();
            let high = src.add(offset + 16).cast::<u128>().read_unaligned();
            dst.add(offset).cast::<u128>().write_unaligned(low);
            dst.add(offset + 16).cast::<u128>().write_unaligned(high);
            offset += 32;
        }
        let low = src.add(len - 32).cast::<u128>().read_unaligned();
        let high = src.add(len - 16).cast::<u128>().read_unaligned();
        dst.add(len - 32).cast::<u128>().write_unaligned(low);
        dst.add(len - 16).cast::<u128>().write_unaligned(high);
    }
}

/// Copies `len` (≤ [`SMALL_COPY_MAX`]) bytes with at most four unaligned loads and stores
/// (the first and last 4/8/16/32 bytes, overlapping in the middle) instead of calling the C
/// library's `memcpy`: small messages are the common case on the offer path, where the call
/// and its size dispatch cost more than the copy (and a wide vector store there slows the
/// subscriber's next read of the same cache line on some CPUs).
///
/// # Safety
/// `src` valid for reading and `dst` for writing `len` bytes; the ranges do not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_small(src: *const u8, dst: *mut u8, len: usize) {
    debug_assert!(len <= SMALL_COPY_MAX);
    // SAFETY: each access lies within [0, len) of src or dst (the caller's ranges): a head
    // access of w bytes is made only when len >= w, and the tail one starts at len - w.
    unsafe {
        if len >= 32 {
            // Four scalars rather than two [u128; 2] arrays: the arrays become stack slots,
            // which cost stores and keep callers from tail-calling.
            let head = src.cast::<u128>().read_unaligned();
            let head_next = src.add(16).cast::<u128>().read_unaligned();
            let tail = src.add(len - 32).cast::<u128>().read_unaligned();
            let tail_next = src.add(len - 16).cast::<u128>().read_unaligned();
            dst.cast::<u128>().write_unaligned(head);
            dst.add(16).cast::<u128>().write_unaligned(head_next);
            dst.add(len - 32).cast::<u128>().write_unaligned(tail);
            dst.add(len - 16).cast::<u128>().write_unaligned(tail_next);
        } else if len >= 16 {
            let head = src.cast::<u128>().read_unaligned();
            let tail = src.add(len - 16).cast::<u128>().read_unaligned();
            dst.cast::<u128>().write_unaligned(head);
            dst.add(len - 16).cast::<u128>().write_unaligned(tail);
        } else if len >= 8 {
            let head = src.cast::<u64>().read_unaligned();
            let tail = src.add(len - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(head);
            dst.add(len - 8).cast::<u64>().write_unaligned(tail);
        } else if len >= 4 {
            let head = src.cast::<u32>().read_unaligned();
            let tail = src.add(len - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(head);
            dst.add(len - 4).cast::<u32>().write_unaligned(tail);
        } else {
            for i in 0..len {
                dst.add(i).write(src.add(i).read());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    /// The destination offsets the copy tests try: aligned and not, fewer under Miri.
    fn test_offsets() -> &'static [usize] {
        if cfg!(miri) { &[0, 13] } else { &[0, 1, 3, 8, 13] }
    }

    #[test]
    fn try_put_small_bytes_copies_exactly_or_refuses_without_writing() {
        let source: Vec<u8> = (0..INLINE_COPY_MAX + 1).map(|i| (i % 251) as u8 + 1).collect();
        // Every length of the small copy's branches, then the chunked ones across the range.
        // Under Miri (about a millionth of the speed) the chunked range is sampled more thinly
        // and two offsets (aligned and not) stand for five; every branch still runs.
        let step = if cfg!(miri) { 61 } else { 13 };
        let lengths =
            (0..=96).chain((97..INLINE_COPY_MAX).step_by(step)).chain([INLINE_COPY_MAX - 1, INLINE_COPY_MAX]);
        for length in lengths {
            for &offset in test_offsets() {
                let b = AtomicBuffer::alloc(INLINE_COPY_MAX + 32);
                // SAFETY: a private buffer; nothing else touches it.
                let mut whole = unsafe { b.claim_unchecked(0, b.capacity()) };
                assert!(whole.try_put_small_bytes(offset, &source[..length]), "length {length}");
                let mut out = vec![0xEEu8; INLINE_COPY_MAX + 32];
                b.load_bytes(0, &mut out);
                assert!(out[..offset].iter().all(|&x| x == 0), "before, length {length}");
                assert_eq!(&out[offset..offset + length], &source[..length]);
                assert!(out[offset + length..].iter().all(|&x| x == 0), "after, length {length}");
            }
        }
        let b = AtomicBuffer::alloc(128);
        // SAFETY: a private buffer; nothing else touches it.
        let mut whole = unsafe { b.claim_unchecked(0, b.capacity()) };
        assert!(!whole.try_put_small_bytes(0, &source[..INLINE_COPY_MAX + 1]), "longer than the limit");
        assert!(!whole.try_put_small_bytes(100, &source[..29]), "past the end");
        assert!(!whole.try_put_small_bytes(usize::MAX, &source[..1]), "index past the end");
        assert!(whole.try_put_small_bytes(128, &[]), "empty at the end");
        let mut out = vec![0xEEu8; 128];
        b.load_bytes(0, &mut out);
        assert!(out.iter().all(|&x| x == 0), "refusals write nothing");
    }

    #[test]
    fn put_bytes_copies_every_small_and_large_length_exactly() {
        let source: Vec<u8> = (1..=200u8).collect();
        for &offset in test_offsets() {
            for length in 0..=(SMALL_COPY_MAX + 17) {
                let b = AtomicBuffer::alloc(256);
                // SAFETY: a private buffer; nothing else touches it.
                unsafe { b.put_bytes(offset, &source[..length]) };
                let mut out = vec![0xEEu8; 256];
                b.load_bytes(0, &mut out);
                assert!(out[..offset].iter().all(|&x| x == 0), "before, length {length}");
                assert_eq!(&out[offset..offset + length], &source[..length], "length {length}");
                assert!(out[offset + length..].iter().all(|&x| x == 0), "after, length {length}");
            }
        }
    }
}
