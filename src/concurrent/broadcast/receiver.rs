//! A receiver of a broadcast buffer (`spec/broadcast.md` §4). Each receiver keeps its own
//! cursor; the transmitter does not know it exists, so a receiver that falls more than a
//! buffer behind is *lapped*: it counts the lap and jumps to the latest record.

use super::descriptor::{
    HEADER_LENGTH, LATEST_COUNTER_OFFSET, PADDING_MSG_TYPE_ID, RECORD_ALIGNMENT, TAIL_COUNTER_OFFSET,
    TAIL_INTENT_COUNTER_OFFSET, check_buffer, header_length, header_type_id, load_payload,
    max_message_length,
};
use crate::concurrent::AtomicBuffer;
use crate::util::bits::align_i64;
use crate::util::error::{Error, Result};

/// Non-copying receiver: `receive_next` selects a record, the caller copies it out with
/// [`copy_payload`](Self::copy_payload) and then checks [`validate`](Self::validate).
#[derive(Debug)]
pub struct BroadcastReceiver {
    buffer: AtomicBuffer,
    capacity: usize,
    /// Masks a position to an 8-aligned offset inside the data region. Real positions are
    /// always 8-aligned; clearing the low bits keeps a corrupt file from causing a
    /// misaligned access.
    offset_mask: usize,
    tail_intent_index: usize,
    tail_index: usize,
    latest_index: usize,
    cursor: i64,
    next_record: i64,
    /// Lowest position the current selection read from (before a padding skip): the
    /// position `validate` checks, so an overwrite of any byte read is noticed.
    read_position: i64,
    record_offset: usize,
    record_header: i64,
    lapped_count: u64,
}

impl BroadcastReceiver {
    /// Joins the stream at the most recently transmitted record, as Aeron clients do (the
    /// first `receive_next` may therefore return one record sent before joining).
    pub fn new(buffer: AtomicBuffer) -> Result<Self> {
        let capacity = check_buffer(&buffer)?;
        // Acquire: the record at `latest` is complete once latest is visible.
        let latest = buffer.get_i64_acquire(capacity + LATEST_COUNTER_OFFSET);
        Self::at(buffer, capacity, latest)
    }

    /// Joins the stream at `position` instead (tools that decode a whole buffer from 0).
    pub fn with_start_position(buffer: AtomicBuffer, position: i64) -> Result<Self> {
        let capacity = check_buffer(&buffer)?;
        Self::at(buffer, capacity, position)
    }

    fn at(buffer: AtomicBuffer, capacity: usize, position: i64) -> Result<Self> {
        let offset_mask = (capacity - 1) & !(RECORD_ALIGNMENT - 1);
        Ok(Self {
            offset_mask,
            tail_intent_index: capacity + TAIL_INTENT_COUNTER_OFFSET,
            tail_index: capacity + TAIL_COUNTER_OFFSET,
            latest_index: capacity + LATEST_COUNTER_OFFSET,
            cursor: position,
            next_record: position,
            read_position: position,
            record_offset: (position as usize) & offset_mask,
            record_header: 0,
            lapped_count: 0,
            capacity,
            buffer,
        })
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many times the transmitter has lapped this receiver; each lap loses at least a
    /// buffer's worth of records.
    pub fn lapped_count(&self) -> u64 {
        self.lapped_count
    }

    /// Message type id of the selected record.
    pub fn type_id(&self) -> i32 {
        header_type_id(self.record_header)
    }

    /// Record length field of the selected record (header included, unaligned), as read.
    pub fn record_length(&self) -> i32 {
        header_length(self.record_header)
    }

    /// Offset of the selected record's payload in the buffer.
    pub fn offset(&self) -> usize {
        self.record_offset + HEADER_LENGTH
    }

    /// Payload length of the selected record, or `None` when its length field cannot be
    /// right (the record was being overwritten, or the buffer is corrupt): shorter than a
    /// header, longer than the max message length, or running past the data region.
    pub fn payload_length(&self) -> Option<usize> {
        let length = usize::try_from(self.record_length()).ok()?;
        let payload = length.checked_sub(HEADER_LENGTH)?;
        let fits =
            payload <= max_message_length(self.capacity) && self.record_offset + length <= self.capacity;
        fits.then_some(payload)
    }

    /// Position of the selected record.
    pub fn cursor(&self) -> i64 {
        self.cursor
    }

    /// Selects the next record; false when there is none yet. Counts a lap (and skips to
    /// the latest record) when the next record has already been overwritten.
    pub fn receive_next(&mut self) -> bool {
        let buffer = &self.buffer;
        // Acquire: every record before the tail is fully written.
        let tail = buffer.get_i64_acquire(self.tail_index);
        let mut cursor = self.next_record;
        if tail <= cursor {
            return false;
        }

        if !self.is_valid_at(cursor) {
            self.lapped_count += 1;
            // Acquire: the record at latest is complete.
            cursor = buffer.get_i64_acquire(self.latest_index);
        }
        let mut record_offset = (cursor as usize) & self.offset_mask;

        self.cursor = cursor;
        self.read_position = cursor;
        // Acquire: pairs with the transmitter's release stores so that validate() notices
        // if this header belongs to a record newer than the one at `cursor`.
        let mut header = buffer.get_i64_acquire(record_offset);
        self.next_record = cursor.wrapping_add(align_i64(i64::from(header_length(header)), 8));

        if header_type_id(header) == PADDING_MSG_TYPE_ID {
            record_offset = 0;
            self.cursor = self.next_record;
            header = buffer.get_i64_acquire(0);
            self.next_record = self.next_record.wrapping_add(align_i64(i64::from(header_length(header)), 8));
        }

        self.record_offset = record_offset;
        self.record_header = header;
        true
    }

    /// Whether the selected record is still intact, i.e. the transmitter has not begun to
    /// overwrite it; call once per record, after copying the payload out.
    ///
    /// When it is not, the header this receiver advanced by may be torn as well, so the
    /// next position cannot be trusted: the lap is counted and the receiver rejoins at the
    /// latest record, which the next `receive_next` selects. (Agrona and Aeron C keep the
    /// possibly torn next position; rejoining avoids drifting off record boundaries.)
    pub fn validate(&mut self) -> bool {
        // The acquire loads of the header and the copy come before this load in program
        // order, and each pairs with a release store sequenced after the transmitter's
        // tail-intent store, so a torn read always sees the newer tail intent here.
        if self.is_valid_at(self.read_position) {
            return true;
        }
        self.lapped_count += 1;
        // Acquire: the record at latest is complete.
        self.next_record = self.buffer.get_i64_acquire(self.latest_index);
        false
    }

    fn is_valid_at(&self, cursor: i64) -> bool {
        let tail_intent = self.buffer.get_i64_acquire(self.tail_intent_index);
        cursor.wrapping_add(self.capacity as i64) > tail_intent
    }

    /// Copies the selected record's payload into `dst`, which must be exactly
    /// [`payload_length`](Self::payload_length) bytes. The copy is only trustworthy if
    /// [`validate`](Self::validate) returns true afterwards.
    pub fn copy_payload(&self, dst: &mut [u8]) -> Result<()> {
        match self.payload_length() {
            Some(length) if length == dst.len() => {
                load_payload(&self.buffer, self.offset(), dst);
                Ok(())
            }
            Some(length) => Err(Error::invalid_argument(format!(
                "destination of {} bytes for a broadcast payload of {length}",
                dst.len()
            ))),
            None => Err(Error::out_of_bounds(format!(
                "broadcast record at offset {} has invalid length {}",
                self.record_offset,
                self.record_length()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::broadcast::BroadcastTransmitter;
    use crate::concurrent::broadcast::descriptor::TRAILER_LENGTH;

    const CAPACITY: usize = 1024;

    fn pair() -> (BroadcastTransmitter, BroadcastReceiver) {
        let (_, t, r) = buffer_pair();
        (t, r)
    }

    fn buffer_pair() -> (AtomicBuffer, BroadcastTransmitter, BroadcastReceiver) {
        let buffer = AtomicBuffer::alloc(CAPACITY + TRAILER_LENGTH);
        let t = BroadcastTransmitter::new(buffer.clone()).unwrap();
        let r = BroadcastReceiver::new(buffer.clone()).unwrap();
        (buffer, t, r)
    }

    fn payload_of(r: &BroadcastReceiver) -> Vec<u8> {
        let mut v = vec![0u8; r.payload_length().unwrap()];
        r.copy_payload(&mut v).unwrap();
        v
    }

    #[test]
    fn nothing_to_receive_on_an_empty_buffer() {
        let (_, mut r) = pair();
        assert!(!r.receive_next());
        assert_eq!(r.lapped_count(), 0);
    }

    #[test]
    fn receives_in_order_with_type_and_payload() {
        let (mut t, mut r) = pair();
        t.transmit(5, b"hello").unwrap();
        t.transmit(6, b"").unwrap();
        assert!(r.receive_next());
        assert_eq!(r.type_id(), 5);
        assert_eq!(r.record_length(), 13);
        assert_eq!(r.offset(), 8);
        assert_eq!(payload_of(&r), b"hello");
        assert!(r.validate());
        assert!(r.receive_next());
        assert_eq!(r.type_id(), 6);
        assert_eq!(r.cursor(), 16);
        assert_eq!(payload_of(&r), b"");
        assert!(!r.receive_next());
    }

    #[test]
    fn new_receiver_joins_at_latest_record() {
        let (buffer, mut t, _) = buffer_pair();
        t.transmit(1, b"old").unwrap();
        t.transmit(2, b"latest").unwrap();
        let mut r = BroadcastReceiver::new(buffer.clone()).unwrap();
        assert!(r.receive_next());
        assert_eq!(r.type_id(), 2);
        assert!(!r.receive_next());
        let mut from_zero = BroadcastReceiver::with_start_position(buffer, 0).unwrap();
        assert!(from_zero.receive_next());
        assert_eq!(from_zero.type_id(), 1);
    }

    #[test]
    fn skips_padding_at_the_wrap() {
        let (mut t, mut r) = pair();
        for i in 0..8u8 {
            t.transmit(1, &[i; 112]).unwrap();
            assert!(r.receive_next());
            assert_eq!(payload_of(&r), vec![i; 112]);
        }
        t.transmit(3, &[42; 112]).unwrap();
        assert!(r.receive_next());
        assert_eq!(r.type_id(), 3);
        assert_eq!(r.offset(), 8, "the real record is at the start of the buffer");
        assert_eq!(r.cursor(), 1024);
        assert_eq!(payload_of(&r), vec![42; 112]);
        assert!(r.validate());
        assert_eq!(r.lapped_count(), 0);
    }

    #[test]
    fn lapped_receiver_counts_the_lap_and_jumps_to_latest() {
        let (mut t, mut r) = pair();
        // 20 records of 64 bytes = 1280 bytes > capacity: the record at 0 is overwritten.
        for i in 0..20u8 {
            t.transmit(1, &[i; 56]).unwrap();
        }
        assert!(r.receive_next());
        assert_eq!(r.lapped_count(), 1);
        assert_eq!(payload_of(&r), vec![19; 56], "jumped to the latest record");
        assert!(r.validate());
        assert!(!r.receive_next());
        t.transmit(1, &[20; 56]).unwrap();
        assert!(r.receive_next());
        assert_eq!(payload_of(&r), vec![20; 56]);
        assert_eq!(r.lapped_count(), 1);
    }

    #[test]
    fn validate_fails_once_the_transmitter_overwrites_the_selected_record() {
        let (mut t, mut r) = pair();
        t.transmit(1, &[1; 56]).unwrap();
        assert!(r.receive_next());
        assert!(r.validate());
        for _ in 0..14 {
            t.transmit(1, &[2; 56]).unwrap();
        }
        assert!(r.validate(), "tail intent 960: cursor 0 + capacity is still ahead of it");
        t.transmit(1, &[3; 56]).unwrap();
        // Strictly greater is required: tail intent 1024 = cursor + capacity already
        // counts as lapped, one record before offset 0 is actually rewritten.
        assert!(!r.validate());
    }

    #[test]
    fn corrupt_lengths_are_reported_not_panicked_on() {
        let buffer = AtomicBuffer::alloc(CAPACITY + TRAILER_LENGTH);
        buffer.put_i64(CAPACITY + 8, 64);
        buffer.put_i64(0, crate::concurrent::broadcast::descriptor::header_word(4000, 1));
        let mut r = BroadcastReceiver::with_start_position(buffer.clone(), 3).unwrap();
        assert!(r.receive_next());
        assert_eq!(r.payload_length(), None);
        assert!(r.copy_payload(&mut []).is_err());
        buffer.put_i64(0, crate::concurrent::broadcast::descriptor::header_word(-8, 1));
        let mut r = BroadcastReceiver::with_start_position(buffer, 0).unwrap();
        assert!(r.receive_next());
        assert_eq!(r.payload_length(), None);
    }
}
