//! The single writer of a broadcast buffer (the driver conductor for to-clients
//! responses). It never waits for receivers: a slow receiver is lapped and finds out
//! through the tail-intent counter (`spec/broadcast.md` §3).

use super::descriptor::{
    HEADER_LENGTH, LATEST_COUNTER_OFFSET, PADDING_MSG_TYPE_ID, RECORD_ALIGNMENT, TAIL_COUNTER_OFFSET,
    TAIL_INTENT_COUNTER_OFFSET, check_buffer, header_word, max_message_length, store_payload,
};
use crate::concurrent::AtomicBuffer;
use crate::util::bits::align;
use crate::util::error::{Error, Result};

/// Writes records into a broadcast buffer; one per buffer (`&mut self` on transmit).
#[derive(Debug)]
pub struct BroadcastTransmitter {
    buffer: AtomicBuffer,
    capacity: usize,
    max_msg_length: usize,
    tail_intent_index: usize,
    tail_index: usize,
    latest_index: usize,
}

impl BroadcastTransmitter {
    /// Wraps `buffer` (data region + 128-byte trailer). Existing counters are kept, so a
    /// transmitter can continue a buffer; a fresh one starts from zeroed memory.
    pub fn new(buffer: AtomicBuffer) -> Result<Self> {
        let capacity = check_buffer(&buffer)?;
        Ok(Self {
            capacity,
            max_msg_length: max_message_length(capacity),
            tail_intent_index: capacity + TAIL_INTENT_COUNTER_OFFSET,
            tail_index: capacity + TAIL_COUNTER_OFFSET,
            latest_index: capacity + LATEST_COUNTER_OFFSET,
            buffer,
        })
    }

    /// Data capacity in bytes (power of two).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Largest payload accepted by [`transmit`](Self::transmit).
    pub fn max_msg_length(&self) -> usize {
        self.max_msg_length
    }

    /// Broadcasts one record of type `msg_type_id` (>= 1) carrying `payload`.
    pub fn transmit(&mut self, msg_type_id: i32, payload: &[u8]) -> Result<()> {
        if msg_type_id < 1 {
            return Err(Error::invalid_argument(format!("message type id must be >= 1: {msg_type_id}")));
        }
        if payload.len() > self.max_msg_length {
            return Err(Error::invalid_argument(format!(
                "encoded message exceeds max message length of {}, length={}",
                self.max_msg_length,
                payload.len()
            )));
        }
        let record_length = payload.len() + HEADER_LENGTH;
        let aligned_length = align(record_length, RECORD_ALIGNMENT);
        if aligned_length > self.capacity {
            return Err(Error::invalid_argument(format!(
                "record of {aligned_length} bytes does not fit broadcast capacity {}",
                self.capacity
            )));
        }

        let buffer = &self.buffer;
        // Relaxed: this transmitter is the only writer of the tail counter.
        let mut current_tail = buffer.get_i64(self.tail_index);
        let mut record_offset = (current_tail as usize) & (self.capacity - 1);
        let new_tail = current_tail.wrapping_add(aligned_length as i64);
        let to_end_of_buffer = self.capacity - record_offset;

        if to_end_of_buffer < aligned_length {
            // Announce the padding and the record together before touching either.
            // What orders this store before the data stores is that each of those is a
            // release store: a receiver that acquires any byte of the new record also sees
            // this tail intent, and so fails validation. (Release here only matches Java.)
            buffer.put_i64_release(self.tail_intent_index, new_tail.wrapping_add(to_end_of_buffer as i64));
            buffer.put_i64_release(record_offset, header_word(to_end_of_buffer as i32, PADDING_MSG_TYPE_ID));
            current_tail = current_tail.wrapping_add(to_end_of_buffer as i64);
            record_offset = 0;
        } else {
            buffer.put_i64_release(self.tail_intent_index, new_tail);
        }

        buffer.put_i64_release(record_offset, header_word(record_length as i32, msg_type_id));
        store_payload(buffer, record_offset + HEADER_LENGTH, payload);

        // Release: a receiver joining at `latest` sees the complete record.
        buffer.put_i64_release(self.latest_index, current_tail);
        // Release: publishes the record to receivers polling the tail.
        buffer.put_i64_release(self.tail_index, current_tail.wrapping_add(aligned_length as i64));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::broadcast::descriptor::TRAILER_LENGTH;

    const CAPACITY: usize = 1024;

    fn transmitter() -> (AtomicBuffer, BroadcastTransmitter) {
        let buffer = AtomicBuffer::alloc(CAPACITY + TRAILER_LENGTH);
        (buffer.clone(), BroadcastTransmitter::new(buffer).unwrap())
    }

    #[test]
    fn rejects_bad_buffers_types_and_lengths() {
        assert!(BroadcastTransmitter::new(AtomicBuffer::alloc(1000 + TRAILER_LENGTH)).is_err());
        let (_, mut t) = transmitter();
        assert_eq!(t.max_msg_length(), 128);
        assert!(t.transmit(0, b"x").is_err());
        assert!(t.transmit(-1, b"x").is_err());
        assert!(t.transmit(1, &[0u8; 129]).is_err());
        assert!(t.transmit(1, &[0u8; 128]).is_ok());
    }

    #[test]
    fn first_record_bytes_and_trailer() {
        let (buffer, mut t) = transmitter();
        t.transmit(7, &[0xAA; 12]).unwrap();
        assert_eq!(buffer.get_i32(0), 20, "length = header + payload, unaligned");
        assert_eq!(buffer.get_i32(4), 7);
        assert_eq!(buffer.load_vec(8, 12), &[0xAA; 12]);
        assert_eq!(buffer.get_i64(CAPACITY), 24, "tail intent");
        assert_eq!(buffer.get_i64(CAPACITY + 8), 24, "tail");
        assert_eq!(buffer.get_i64(CAPACITY + 16), 0, "latest = start of the record");

        t.transmit(8, &[]).unwrap();
        assert_eq!(buffer.get_i32(24), 8);
        assert_eq!(buffer.get_i32(28), 8);
        assert_eq!(buffer.get_i64(CAPACITY + 8), 32);
        assert_eq!(buffer.get_i64(CAPACITY + 16), 24);
    }

    #[test]
    fn wraps_with_a_padding_record() {
        let (buffer, mut t) = transmitter();
        // 8 records of 120 bytes (aligned) = 960; the next 120-byte record does not fit in 64.
        for i in 0..8 {
            t.transmit(1, &[i as u8; 112]).unwrap();
        }
        assert_eq!(buffer.get_i64(CAPACITY + 8), 960);
        t.transmit(2, &[9; 112]).unwrap();
        assert_eq!(buffer.get_i32(960), 64, "padding covers the rest of the buffer");
        assert_eq!(buffer.get_i32(964), PADDING_MSG_TYPE_ID);
        assert_eq!(buffer.get_i32(0), 120);
        assert_eq!(buffer.get_i32(4), 2);
        assert_eq!(buffer.get_i64(CAPACITY), 960 + 64 + 120, "tail intent");
        assert_eq!(buffer.get_i64(CAPACITY + 8), 960 + 64 + 120, "tail");
        assert_eq!(buffer.get_i64(CAPACITY + 16), 1024, "latest = position of the real record");
    }
}
