//! One-to-one (SPSC) ring buffer, byte-identical to Agrona's `OneToOneRingBuffer`. The
//! single producer publishes the tail with a plain release store (no CAS) and pre-zeroes
//! the header after each record, so the consumer never has to zero what it consumed.

use std::sync::atomic::Ordering;

use super::RingBuffer;
use super::descriptor::{ALIGNMENT, HEADER_LENGTH, ONE_TO_ONE_MIN_CAPACITY, encoded_msg_offset};
use super::ring::{Ring, Words, ring_buffer_delegates, ring_buffer_kind};
use crate::util::bits::align;
use crate::util::error::Result;

/// One producer thread, one consumer thread (possibly in different processes). See
/// [`RingBuffer`] for the operations; calling the producer operations from two threads at
/// once corrupts the buffer. The data capacity is a power of two of at least 16 bytes (a
/// record header plus the pre-zeroed header after it).
///
/// A claim that must wrap but finds no room at the start of the buffer follows Java: the
/// tail advances over a padding record to the end and the claim reports "full". (Aeron's C
/// one-to-one buffer returns index 0 in that case, which upstream treats as a quirk.)
pub struct OneToOneRingBuffer {
    ring: Ring,
}

ring_buffer_kind!(OneToOneRingBuffer, min_capacity = ONE_TO_ONE_MIN_CAPACITY);

impl OneToOneRingBuffer {
    /// Claims `aligned` bytes plus room for the header after them; the record index, or
    /// `None` when full.
    #[inline]
    fn claim_capacity(&self, words: &Words<'_>, aligned: usize) -> Option<usize> {
        let layout = &self.ring.layout;
        let capacity = layout.capacity as i64;
        let required = aligned + HEADER_LENGTH;
        let tail_position = words.tail();
        let head_cache_position = words.head_cache();
        // Relaxed: the head cache and the tail are written only by this producer.
        let mut head = head_cache_position.load(Ordering::Relaxed);
        let tail = tail_position.load(Ordering::Relaxed);
        if required as i64 > capacity - (tail - head) {
            // Acquire: pairs with the consumer's release of head; it has finished reading
            // everything before it, so we may overwrite that space.
            head = words.head().load(Ordering::Acquire);
            if required as i64 > capacity - (tail - head) {
                return None;
            }
            head_cache_position.store(head, Ordering::Relaxed);
        }

        let record_index = layout.index_of(tail);
        let to_end = layout.capacity - record_index;
        if aligned == to_end {
            // Exactly fits the end: the next header is the one at index 0. Its pre-zeroing
            // and this record are both published by the record's release of its length.
            // Release (Java putLongRelease): producer_position readers see a tail no
            // further than what has been claimed.
            tail_position.store(tail + aligned as i64, Ordering::Release);
            words.header(0).zero();
            return Some(record_index);
        }

        let mut write_index = Some(record_index);
        let mut next_tail = tail + aligned as i64;
        let mut padding = 0;
        if required > to_end {
            write_index = Some(0);
            let mut head_index = layout.index_of(head);
            if required > head_index {
                head = words.head().load(Ordering::Acquire);
                head_index = layout.index_of(head);
                if required > head_index {
                    // Java: claim only the padding to the end and report full.
                    write_index = None;
                    next_tail = tail;
                }
                head_cache_position.store(head, Ordering::Relaxed);
            }
            padding = to_end;
            next_tail += padding as i64;
        }
        // Release: as above.
        tail_position.store(next_tail, Ordering::Release);
        if padding != 0 {
            // The consumer only reads the header at 0 after the padding's length, which is
            // released after this store.
            words.header(0).zero();
            words.write_padding(record_index, padding);
        }
        if let Some(index) = write_index {
            // Pre-zero the next header (stale from an earlier lap); published with this
            // record's length.
            words.header(index + aligned).zero();
        }
        write_index
    }
}

impl RingBuffer for OneToOneRingBuffer {
    ring_buffer_delegates!(zero_consumed = false);

    #[inline]
    /// Unlike Agrona's current `write` (but like earlier Agrona versions), the header is not
    /// first set to the negative "claimed" length: the producer pre-zeroed it, and a
    /// consumer stops at a zero length exactly as at a negative one, so no reader can tell
    /// the difference and the final bytes are the same. The skipped store would land on the
    /// cache line the consumer polls and roughly halved throughput between two threads.
    /// (`try_claim` does write the negative length: commit and abort check it.)
    fn write(&self, msg_type_id: i32, payload: &[u8]) -> Result<bool> {
        self.ring.layout.check_message(msg_type_id, payload.len())?;
        let record_length = payload.len() + HEADER_LENGTH;
        let words = self.ring.words();
        let Some(record_index) = self.claim_capacity(&words, align(record_length, ALIGNMENT)) else {
            return Ok(false);
        };
        let header = words.header(record_index);
        // SAFETY: claim_capacity reserved this record for the single producer; the consumer
        // stops at its zero length until `publish` stores the positive one.
        unsafe { self.ring.buffer.put_bytes(encoded_msg_offset(record_index), payload) };
        header.write_type(msg_type_id);
        header.publish(record_length);
        Ok(true)
    }

    /// A single producer can only die while holding the head of its own stream, and the
    /// consumer of a one-to-one buffer has no way to tell that apart: nothing to do.
    fn unblock(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::descriptor::PADDING_MSG_TYPE_ID;
    use super::super::tests::{CAPACITY, drain, header, set_positions};
    use super::*;

    /// A buffer whose data region holds stale bytes from "an earlier lap", except the
    /// first header, as a reused one-to-one buffer would.
    fn stale_rb() -> OneToOneRingBuffer {
        let rb = OneToOneRingBuffer::with_capacity(CAPACITY).unwrap();
        // SAFETY: a test's private buffer; no other thread touches it.
        unsafe { rb.buffer().set_memory(0, CAPACITY, 0xAA) }
        // SAFETY: a test's private buffer; no other thread touches it.
        unsafe { rb.buffer().set_memory(0, 8, 0) }
        rb
    }

    #[test]
    fn producer_pre_zeroes_the_next_header() {
        let rb = stale_rb();
        assert!(rb.write(7, b"abc").unwrap());
        assert_eq!(header(&rb, 0), (11, 7));
        // SAFETY: a test's private buffer; no other thread touches it.
        let record = unsafe { rb.buffer().published_slice(8, 8) };
        assert_eq!(record, &[b'a', b'b', b'c', 0xAA, 0xAA, 0xAA, 0xAA, 0xAA]);
        assert_eq!(header(&rb, 16), (0, 0), "next header pre-zeroed");
        assert_eq!(rb.buffer().get_u8(24), 0xAA, "nothing beyond it touched");
        assert_eq!(drain(&rb, usize::MAX).1, vec![(7, b"abc".to_vec())]);
        assert_eq!(rb.buffer().get_i32(0), 11, "the consumer does not zero");
        assert_eq!(drain(&rb, usize::MAX).0, 0, "stops at the pre-zeroed header");
    }

    #[test]
    fn exact_fit_and_wrap_pre_zero_the_header_at_start() {
        let rb = stale_rb();
        // SAFETY: a test's private buffer; no other thread touches it.
        unsafe { rb.buffer().set_memory(0, 8, 0xFF) }
        set_positions(&rb, 992, 992);
        assert!(rb.write(6, &[1; 24]).unwrap());
        assert_eq!(header(&rb, 0), (0, 0), "exact fit: header at 0 pre-zeroed");

        let rb = stale_rb();
        // SAFETY: a test's private buffer; no other thread touches it.
        unsafe { rb.buffer().set_memory(0, 8, 0xFF) }
        set_positions(&rb, 1008, 1008);
        assert!(rb.write(6, &[2; 24]).unwrap());
        assert_eq!(header(&rb, 1008), (16, PADDING_MSG_TYPE_ID));
        assert_eq!(header(&rb, 0), (32, 6));
        assert_eq!(header(&rb, 32), (0, 0), "header after the wrapped record pre-zeroed");
        assert_eq!(drain(&rb, usize::MAX).0, 0);
        assert_eq!(drain(&rb, usize::MAX).1, vec![(6, vec![2; 24])]);
    }

    #[test]
    fn unblock_is_a_no_op() {
        let rb = OneToOneRingBuffer::with_capacity(CAPACITY).unwrap();
        rb.try_claim(1, 8).unwrap().unwrap();
        assert!(!rb.unblock());
        assert_eq!(rb.buffer().get_i32(0), -16);
    }

    #[test]
    fn producer_and_consumer_threads() {
        let rb = std::sync::Arc::new(OneToOneRingBuffer::with_capacity(128).unwrap());
        let count: u32 = if cfg!(miri) { 40 } else { 5000 };
        let producer = {
            let rb = rb.clone();
            std::thread::spawn(move || {
                for seq in 0..count {
                    let len = (seq % 3) as usize * 4 + 4;
                    let bytes = seq.to_le_bytes().repeat(len / 4);
                    while !rb.write(1 + (seq % 2) as i32, &bytes).unwrap() {
                        std::thread::yield_now();
                    }
                }
            })
        };
        let mut next = 0u32;
        while next < count {
            let n = rb
                .read(
                    |t, p| {
                        assert_eq!(t, 1 + (next % 2) as i32);
                        assert_eq!(p, next.to_le_bytes().repeat((next % 3) as usize + 1).as_slice());
                        next += 1;
                    },
                    usize::MAX,
                )
                .unwrap();
            if n == 0 {
                std::thread::yield_now();
            }
        }
        producer.join().unwrap();
    }
}
