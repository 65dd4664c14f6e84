//! Many-to-one (MPSC) ring buffer, byte-identical to Agrona's `ManyToOneRingBuffer`: the
//! to-driver command buffer in `cnc.dat`. Producers in any thread or process claim space
//! with a CAS on the tail; one consumer reads, zeroing what it consumed.

use std::sync::atomic::Ordering;

use super::RingBuffer;
use super::descriptor::{
    ALIGNMENT, MANY_TO_ONE_MIN_CAPACITY, PADDING_MSG_TYPE_ID, length_offset, type_offset,
};
use super::ring::{Ring, Words, ring_buffer_delegates, ring_buffer_kind};
use crate::util::error::Result;

/// Many producers, one consumer. See [`RingBuffer`] for the operations. The data capacity
/// is a power of two of at least 8 bytes (one record header).
///
/// A claim that must wrap but finds no room at the start of the buffer follows Java: the
/// tail still advances over a padding record to the end and the claim reports "full" (C
/// gives up without moving the tail). Either is valid for every consumer.
pub struct ManyToOneRingBuffer {
    ring: Ring,
}

ring_buffer_kind!(ManyToOneRingBuffer, min_capacity = MANY_TO_ONE_MIN_CAPACITY);

impl ManyToOneRingBuffer {
    /// Claims `required` (aligned) bytes; the record index, or `None` when full.
    #[inline]
    fn claim_capacity(&self, words: &Words<'_>, required: usize) -> Option<usize> {
        let layout = &self.ring.layout;
        let capacity = layout.capacity as i64;
        let required_len = required as i64;
        let tail_position = words.tail();
        let head_cache_position = words.head_cache();
        // Acquire: pairs with the release store of the head cache, which producers make
        // only after acquiring head; so the space the consumer zeroed reads zero to us.
        let mut head = head_cache_position.load(Ordering::Acquire);
        let (tail_index, padding, write_index) = loop {
            // Acquire (Java volatile); the CAS below is what actually validates the tail.
            let tail = tail_position.load(Ordering::Acquire);
            if required_len > capacity - (tail - head) {
                // Acquire: pairs with the consumer's release of head after zeroing.
                head = words.head().load(Ordering::Acquire);
                if required_len > capacity - (tail - head) {
                    return None;
                }
                // Release: see the acquire of the head cache above.
                head_cache_position.store(head, Ordering::Release);
            }
            let mut new_tail = tail + required_len;
            let tail_index = layout.index_of(tail);
            let to_end = layout.capacity - tail_index;
            let mut padding = 0;
            let mut write_index = Some(tail_index);
            if required > to_end {
                // The record goes at index 0 after padding out the end; it needs room there.
                write_index = Some(0);
                let mut head_index = layout.index_of(head);
                if required > head_index {
                    head = words.head().load(Ordering::Acquire);
                    head_index = layout.index_of(head);
                    if required > head_index {
                        // Java: claim only the padding to the end and report full.
                        write_index = None;
                        new_tail = tail;
                    }
                    head_cache_position.store(head, Ordering::Release);
                }
                padding = to_end;
                new_tail += padding as i64;
            }
            // SeqCst CAS: the one point where producers agree who owns [tail, new_tail).
            if tail_position.compare_exchange(tail, new_tail, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                break (tail_index, padding, write_index);
            }
        };
        if padding != 0 {
            words.write_padding(tail_index, padding);
        }
        write_index
    }
}

impl RingBuffer for ManyToOneRingBuffer {
    ring_buffer_delegates!(zero_consumed = true);

    #[inline]
    fn write(&self, msg_type_id: i32, payload: &[u8]) -> Result<bool> {
        match self.claim(msg_type_id, payload.len())? {
            Some((record_index, record_length, header)) => {
                self.ring.complete_record(header, record_index, record_length, payload);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Agrona `unblock` (spec §6). Only the consumer may call this, and only once it is sure
    /// the producer at the head is gone (the driver waits for the client liveness timeout):
    /// a live producer's claim would be destroyed.
    fn unblock(&self) -> bool {
        let buffer = &self.ring.buffer;
        let layout = &self.ring.layout;
        let head = buffer.get_i64_acquire(layout.head_position_index);
        let tail = buffer.get_i64_acquire(layout.tail_position_index);
        if head == tail {
            return false;
        }
        let consumer_index = layout.index_of(head);
        let producer_index = layout.index_of(tail);
        let length = buffer.get_i32_acquire(length_offset(consumer_index));
        if length < 0 {
            // Claimed, never committed: the claim becomes padding. A length no producer
            // could have claimed becomes a padding record the read then finds corrupt and
            // skips (`skip_corrupt_head`); i32::MIN does not negate, so it saturates.
            buffer.put_i32(type_offset(consumer_index), PADDING_MSG_TYPE_ID);
            buffer.put_i32_release(length_offset(consumer_index), length.saturating_neg());
            return true;
        }
        if length > 0 {
            return false;
        }
        // Zero: the tail CAS succeeded but the header was never written. Find the next
        // record header; everything before it belongs to the dead claim.
        let limit = if producer_index > consumer_index { producer_index } else { layout.capacity };
        let mut i = consumer_index + ALIGNMENT;
        // Java checks the first slot before the limit (do/while); the slot at `capacity` is
        // the trailer's zero padding, so reading it is harmless.
        loop {
            if buffer.get_i32_acquire(length_offset(i)) != 0 {
                if self.still_zeroed(i, consumer_index) {
                    buffer.put_i32(type_offset(consumer_index), PADDING_MSG_TYPE_ID);
                    buffer.put_i32_release(length_offset(consumer_index), (i - consumer_index) as i32);
                    return true;
                }
                return false;
            }
            i += ALIGNMENT;
            if i >= limit {
                break;
            }
        }
        // No header up to the end of the buffer, and the tail has wrapped past it: every
        // claim there is dead (a claim never crosses the end; a producer that must wrap
        // pads first), so the rest of the buffer becomes padding. Agrona stays blocked
        // here for good (its next record is at index 0, beyond its scan).
        let to_end = layout.capacity - consumer_index;
        let wrapped = i64::try_from(to_end).is_ok_and(|to_end| tail - head >= to_end);
        if limit == layout.capacity && wrapped && self.still_zeroed(layout.capacity, consumer_index) {
            buffer.put_i32(type_offset(consumer_index), PADDING_MSG_TYPE_ID);
            buffer.put_i32_release(length_offset(consumer_index), to_end as i32);
            return true;
        }
        false
    }
}

impl ManyToOneRingBuffer {
    /// Consumer only: recovery from a record no producer could have written (a length
    /// shorter than a header, past the buffer's end, or ending beyond the tail): it and
    /// everything claimed after it up to the tail are discarded and zeroed, so reading
    /// goes on with the next record written. Returns the bytes skipped, or `None` when
    /// the record at the head is fine (or not there yet).
    pub fn skip_corrupt_head(&self) -> Option<usize> {
        self.ring.skip_corrupt_head()
    }

    /// Whether every header slot in `[from_index, found)` still reads zero, i.e. no producer
    /// started a record there while unblock was scanning.
    fn still_zeroed(&self, found: usize, from_index: usize) -> bool {
        let mut i = found;
        while i > from_index {
            i -= ALIGNMENT;
            if self.ring.buffer.get_i32_acquire(length_offset(i)) != 0 {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::descriptor::{HEAD_POSITION_OFFSET, TAIL_POSITION_OFFSET, TRAILER_LENGTH};
    use super::super::tests::{CAPACITY, drain, set_positions};
    use super::*;

    fn rb() -> ManyToOneRingBuffer {
        ManyToOneRingBuffer::with_capacity(CAPACITY).unwrap()
    }

    /// A producer that died after its tail CAS, before writing any header.
    fn claim_without_header(rb: &ManyToOneRingBuffer, bytes: i64) {
        let tail = rb.producer_position();
        assert!(rb.buffer().compare_and_set_i64(CAPACITY + TAIL_POSITION_OFFSET, tail, tail + bytes));
    }

    #[test]
    fn consumed_space_is_zeroed() {
        let rb = rb();
        assert!(rb.write(3, &[0xFF; 100]).unwrap());
        drain(&rb, usize::MAX);
        // SAFETY: a test's private buffer; no other thread touches it.
        assert!(unsafe { rb.buffer().published_slice(0, CAPACITY) }.iter().all(|&b| b == 0));
        assert_eq!(rb.buffer().get_i64(CAPACITY + HEAD_POSITION_OFFSET), 112);
    }

    #[test]
    fn unblock_nothing_to_do() {
        let rb = rb();
        assert!(!rb.unblock(), "empty");
        assert!(rb.write(1, b"fine").unwrap());
        assert!(!rb.unblock(), "positive length at head");
        assert_eq!(drain(&rb, usize::MAX).0, 1);
        assert!(!rb.unblock(), "consumed");
    }

    #[test]
    fn unblock_turns_negative_length_into_padding() {
        let rb = rb();
        let index = rb.try_claim(5, 20).unwrap().unwrap();
        assert!(rb.write(6, b"behind").unwrap());
        assert_eq!(drain(&rb, usize::MAX).0, 0);
        assert!(rb.unblock());
        assert_eq!(rb.buffer().get_i32(0), 28);
        assert_eq!(rb.buffer().get_i32(4), PADDING_MSG_TYPE_ID);
        assert_eq!(drain(&rb, usize::MAX).1, vec![(6, b"behind".to_vec())]);
        assert!(rb.commit(index).is_err(), "the dead claim is gone");
    }

    /// A negative length no producer could have claimed (shorter than a header, longer
    /// than the claimed space, across the buffer's end, or `i32::MIN`, which does not
    /// negate) becomes padding the read finds corrupt; it is skipped up to the tail, and the
    /// buffer serves the next write.
    #[test]
    fn unblock_then_skip_an_implausible_negative_length() {
        for (head, length, claimed) in [(0, i32::MIN, 8), (0, -4, 16), (0, -40, 32), (1016, -16, 8)] {
            let rb = rb();
            set_positions(&rb, head, head);
            claim_without_header(&rb, claimed);
            rb.buffer().put_i32(head as usize % CAPACITY, length);
            assert_eq!(drain(&rb, usize::MAX).0, 0, "{length} at {head}: nothing readable");
            assert!(rb.unblock(), "{length} at {head}");
            let err = rb.read(|_, _| {}, usize::MAX).unwrap_err();
            assert!(err.message().contains("ring buffer corrupt"), "{length}: {err}");
            assert_eq!(rb.skip_corrupt_head(), Some(claimed as usize), "{length}");
            assert_eq!(rb.consumer_position(), head + claimed, "{length}: the claim is gone");
            assert!(rb.write(9, b"after").unwrap());
            let after = drain(&rb, usize::MAX).1;
            let after = if after.is_empty() { drain(&rb, usize::MAX).1 } else { after };
            assert_eq!(after, vec![(9, b"after".to_vec())], "{length}");
        }
    }

    /// A dead claim without a header in the last slots, the next record wrapped to index 0:
    /// the scan finds no header before the end, so the rest of the buffer becomes padding
    /// and reading goes on at the start (the conductor_commands fuzz case).
    #[test]
    fn unblock_dead_claim_at_the_end_pads_to_the_end() {
        let rb = rb();
        set_positions(&rb, CAPACITY as i64 - 16, CAPACITY as i64 - 16);
        claim_without_header(&rb, 16);
        assert!(rb.write(5, b"wrapped").unwrap());
        assert_eq!(rb.buffer().get_i32(0), 15, "the next record is at the start");
        assert_eq!(drain(&rb, usize::MAX).0, 0);
        assert!(rb.unblock());
        let end = CAPACITY - 16;
        assert_eq!((rb.buffer().get_i32(end), rb.buffer().get_i32(end + 4)), (16, PADDING_MSG_TYPE_ID));
        // One read stops at the end of the buffer; the next starts at index 0.
        assert_eq!(drain(&rb, usize::MAX).0, 0);
        assert_eq!(drain(&rb, usize::MAX).1, vec![(5, b"wrapped".to_vec())]);
        // Not wrapped yet: the dead claim's end is unknown, so it waits.
        let rb2 = super::ManyToOneRingBuffer::with_capacity(CAPACITY).unwrap();
        set_positions(&rb2, CAPACITY as i64 - 16, CAPACITY as i64 - 16);
        claim_without_header(&rb2, 8);
        assert!(!rb2.unblock());
    }

    #[test]
    fn unblock_zero_length_gap_pads_to_next_record() {
        let rb = rb();
        claim_without_header(&rb, 32);
        assert!(rb.write(7, b"next").unwrap());
        assert_eq!(rb.buffer().get_i32(32), 12);
        assert_eq!(drain(&rb, usize::MAX).0, 0);
        assert!(rb.unblock());
        assert_eq!(rb.buffer().get_i32(0), 32);
        assert_eq!(rb.buffer().get_i32(4), PADDING_MSG_TYPE_ID);
        assert_eq!(drain(&rb, usize::MAX).1, vec![(7, b"next".to_vec())]);
        assert_eq!(rb.consumer_position(), 48);
    }

    #[test]
    fn unblock_zero_length_gap_with_nothing_after_waits() {
        let rb = rb();
        claim_without_header(&rb, 64);
        assert!(!rb.unblock(), "no later record yet: the dead claim's length is unknown");
        // A later producer that has only claimed (negative length) still marks the end.
        let index = rb.try_claim(2, 8).unwrap().unwrap();
        assert_eq!(index, 64 + 8);
        assert!(rb.unblock());
        assert_eq!(rb.buffer().get_i32(0), 64);
        rb.commit(index).unwrap();
        assert_eq!(drain(&rb, usize::MAX).1, vec![(2, vec![0; 8])]);
    }

    #[test]
    fn unblock_scan_stops_at_end_of_buffer_when_wrapped() {
        let rb = rb();
        // Head near the end, tail wrapped past it: the scan limit is the capacity.
        set_positions(&rb, 960, 960);
        claim_without_header(&rb, 32);
        assert!(rb.write(3, &[9; 16]).unwrap());
        assert_eq!(rb.buffer().get_i32(992), 24);
        // A second record must wrap, so the tail index (48) ends up below the head index
        // (960): the scan must run to the capacity, not to the tail index.
        assert!(rb.write(4, &[8; 40]).unwrap());
        assert!(rb.producer_position() > 1024);
        assert!(rb.unblock());
        assert_eq!((rb.buffer().get_i32(960), rb.buffer().get_i32(964)), (32, PADDING_MSG_TYPE_ID));
        let (n, got) = drain(&rb, usize::MAX);
        assert_eq!((n, got[0].0), (1, 3));
        assert_eq!(drain(&rb, usize::MAX).1, vec![(4, vec![8; 40])]);
    }

    #[test]
    fn unblock_gap_at_last_slot_reads_trailer_padding_and_pads_to_the_end() {
        let rb = rb();
        set_positions(&rb, 1016, 1016);
        claim_without_header(&rb, 8);
        // The slot after is the trailer's zero padding, read harmlessly; the claim runs to
        // the end of the buffer, so it becomes padding.
        assert_eq!(rb.buffer().capacity(), CAPACITY + TRAILER_LENGTH);
        assert!(rb.unblock());
        assert_eq!((rb.buffer().get_i32(1016), rb.buffer().get_i32(1020)), (8, PADDING_MSG_TYPE_ID));
    }

    #[test]
    fn scan_back_sees_a_header_written_during_the_scan() {
        let rb = rb();
        rb.buffer().put_i32(16, -8);
        assert!(!rb.still_zeroed(32, 0));
        assert!(rb.still_zeroed(16, 0));
        assert!(rb.still_zeroed(8, 0));
    }

    #[test]
    fn many_producer_threads_each_stay_in_order() {
        let rb = std::sync::Arc::new(ManyToOneRingBuffer::with_capacity(256).unwrap());
        let per_producer: u32 = if cfg!(miri) { 20 } else { 2000 };
        let producers: Vec<_> = (1..=2)
            .map(|id: i32| {
                let rb = rb.clone();
                std::thread::spawn(move || {
                    for seq in 0..per_producer {
                        while !rb.write(id, &seq.to_le_bytes()).unwrap() {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        let mut next = [0u32; 3];
        while next[1] < per_producer || next[2] < per_producer {
            let n = rb
                .read(
                    |id, p| {
                        let seq = u32::from_le_bytes(p.try_into().unwrap());
                        assert_eq!(seq, next[id as usize]);
                        next[id as usize] += 1;
                    },
                    usize::MAX,
                )
                .unwrap();
            if n == 0 {
                std::thread::yield_now();
            }
        }
        producers.into_iter().for_each(|p| p.join().unwrap());
        assert_eq!(rb.size(), 0);
    }

    #[test]
    fn a_corrupt_head_is_skipped_to_the_tail() {
        let rb = rb();
        assert_eq!(rb.skip_corrupt_head(), None, "empty");
        assert!(rb.write(1, b"fine").unwrap());
        assert_eq!(rb.skip_corrupt_head(), None, "a good record");
        assert_eq!(drain(&rb, usize::MAX).0, 1);
        // A length beyond the buffer, with two good records claimed and written after it.
        let head = rb.consumer_position() as usize;
        assert!(rb.write(2, b"lost").unwrap());
        assert!(rb.write(3, b"lost too").unwrap());
        rb.buffer().put_i32_release(head, 1 << 20);
        assert!(rb.read(|_, _| {}, usize::MAX).is_err());
        let tail = rb.producer_position();
        assert_eq!(rb.skip_corrupt_head(), Some((tail - head as i64) as usize));
        assert_eq!(rb.consumer_position(), tail);
        assert!((head..tail as usize).all(|i| rb.buffer().get_u8(i) == 0), "zeroed as consumed");
        assert!(rb.write(4, b"after").unwrap());
        assert_eq!(drain(&rb, usize::MAX).1, vec![(4, b"after".to_vec())]);
    }

    #[test]
    fn a_record_ending_beyond_the_tail_is_corrupt_and_only_its_header_goes() {
        let rb = rb();
        let head = rb.consumer_position() as usize;
        // Nothing was claimed, yet a committed 64-byte record sits at the head.
        rb.buffer().put_i32(head + 4, 1);
        rb.buffer().put_i32_release(head, 64);
        let error = rb.read(|_, _| panic!("a record nobody claimed was delivered"), usize::MAX).unwrap_err();
        assert!(error.message().contains("end beyond the tail"), "{error}");
        assert_eq!(rb.skip_corrupt_head(), Some(8), "nothing to skip but the header");
        assert_eq!(rb.consumer_position(), head as i64, "the head stays at the tail");
        assert!(rb.write(5, b"next").unwrap());
        assert_eq!(drain(&rb, usize::MAX).1, vec![(5, b"next".to_vec())]);
    }

    #[test]
    fn a_skip_across_the_end_of_the_buffer_zeroes_both_parts() {
        let rb = rb();
        set_positions(&rb, (CAPACITY - 16) as i64, (CAPACITY + 32) as i64);
        // SAFETY: a test's private buffer; no other thread touches it.
        unsafe { rb.buffer().set_memory(0, CAPACITY, 0xFF) }
        rb.buffer().put_i32_release(CAPACITY - 16, 3);
        assert_eq!(rb.skip_corrupt_head(), Some(48));
        assert!((CAPACITY - 16..CAPACITY).chain(0..32).all(|i| rb.buffer().get_u8(i) == 0));
        assert_eq!(rb.buffer().get_u8(32), 0xFF, "nothing beyond the tail touched");
        assert_eq!(rb.consumer_position(), (CAPACITY + 32) as i64);
    }
}
