//! The driver-side allocator of counters (`spec/counters.md` §4). Only the driver
//! conductor allocates and frees, so the manager is single-threaded (`&mut self`); any
//! process may read the buffers concurrently through a [`CountersReader`].

use super::descriptor::{
    COUNTER_VALUE_OFFSET, DEFAULT_OWNER_ID, DEFAULT_REFERENCE_ID, DEFAULT_REGISTRATION_ID,
    FREE_FOR_REUSE_DEADLINE_OFFSET, KEY_OFFSET, MAX_KEY_LENGTH, NOT_FREE_TO_REUSE, OWNER_ID_OFFSET,
    RECORD_ALLOCATED, RECORD_RECLAIMED, RECORD_STATE_OFFSET, REFERENCE_ID_OFFSET, REGISTRATION_ID_OFFSET,
    TYPE_ID_OFFSET, append_to_label, counter_offset, metadata_offset, store_bytes, store_label,
};
use super::reader::CountersReader;
use crate::concurrent::AtomicBuffer;
use crate::util::error::{Error, Result};

/// Allocates, frees and labels counters in a metadata + values buffer pair.
#[derive(Debug)]
pub struct CountersManager {
    reader: CountersReader,
    free_to_reuse_timeout_ms: i64,
    /// Highest id ever handed out; -1 before the first allocation.
    high_water_mark_id: i32,
    /// Freed ids in the order they were freed.
    free_list: Vec<i32>,
}

impl CountersManager {
    /// Wraps zeroed (or previously managed by nobody) buffers; the metadata buffer must be
    /// at least 4x the values buffer. Freed ids become reusable `free_to_reuse_timeout_ms`
    /// after they were freed.
    pub fn new(metadata: AtomicBuffer, values: AtomicBuffer, free_to_reuse_timeout_ms: i64) -> Result<Self> {
        let reader = CountersReader::new(metadata, values)?;
        Ok(Self { reader, free_to_reuse_timeout_ms, high_water_mark_id: -1, free_list: Vec::new() })
    }

    /// A reader over the same buffers.
    pub fn reader(&self) -> &CountersReader {
        &self.reader
    }

    pub fn max_counter_id(&self) -> i32 {
        self.reader.max_counter_id()
    }

    /// Highest id handed out so far (-1 when none).
    pub fn high_water_mark_id(&self) -> i32 {
        self.high_water_mark_id
    }

    /// Freed ids awaiting reuse, oldest first.
    pub fn free_list(&self) -> &[i32] {
        &self.free_list
    }

    fn metadata(&self) -> &AtomicBuffer {
        self.reader.metadata_buffer()
    }

    fn values(&self) -> &AtomicBuffer {
        self.reader.values_buffer()
    }

    /// Allocates a counter of `type_id` with `key` (first 112 bytes kept) and `label`
    /// (first 380 bytes kept) and returns its id. `now_ms` is the driver's cached epoch
    /// clock, used to decide whether a freed id may be reused yet.
    pub fn allocate(&mut self, type_id: i32, key: &[u8], label: &str, now_ms: i64) -> Result<i32> {
        let counter_id = self
            .next_counter_id(now_ms)
            .map_err(|e| e.context(format!("unable to allocate counter: type: {type_id}, label: {label}")))?;
        let record = metadata_offset(counter_id);
        let metadata = self.metadata();
        // Relaxed stores: the record is UNUSED or RECLAIMED, so scanners skip it until the
        // state store below publishes everything at once.
        metadata.put_i32(record + TYPE_ID_OFFSET, type_id);
        metadata.put_i64(record + FREE_FOR_REUSE_DEADLINE_OFFSET, NOT_FREE_TO_REUSE);
        store_bytes(metadata, record + KEY_OFFSET, &key[..key.len().min(MAX_KEY_LENGTH)]);
        store_label(metadata, record, label.as_bytes());
        // Release: readers that see ALLOCATED see the type, deadline, key and label.
        metadata.put_i32_release(record + RECORD_STATE_OFFSET, RECORD_ALLOCATED);
        Ok(counter_id)
    }

    fn next_counter_id(&mut self, now_ms: i64) -> Result<i32> {
        let metadata = self.reader.metadata_buffer();
        // Relaxed: this manager is the only writer of the deadlines it reads back.
        let reusable = self
            .free_list
            .iter()
            .position(|&id| metadata.get_i64(metadata_offset(id) + FREE_FOR_REUSE_DEADLINE_OFFSET) <= now_ms);
        if let Some(index) = reusable {
            let counter_id = self.free_list.remove(index);
            let values = self.values();
            let value = counter_offset(counter_id);
            // Release: a reader matching on registration id never pairs the old id with
            // the new counter's value.
            values.put_i64_release(value + REGISTRATION_ID_OFFSET, DEFAULT_REGISTRATION_ID);
            // Relaxed: as in `set_counter_owner_id`; the record is not ALLOCATED yet, and
            // `allocate`'s release of the state publishes these to readers.
            values.put_i64(value + OWNER_ID_OFFSET, DEFAULT_OWNER_ID);
            values.put_i64(value + REFERENCE_ID_OFFSET, DEFAULT_REFERENCE_ID);
            values.put_i64_release(value + COUNTER_VALUE_OFFSET, 0);
            return Ok(counter_id);
        }
        if self.high_water_mark_id >= self.max_counter_id() {
            return Err(Error::with_code(
                libc::ENOMEM,
                format!("max counter id ({}) exceeded", self.max_counter_id()),
            ));
        }
        self.high_water_mark_id += 1;
        Ok(self.high_water_mark_id)
    }

    /// Frees an allocated counter: its record becomes RECLAIMED, its key is zeroed, and the
    /// id may be reused from `now_ms + free_to_reuse_timeout_ms`. The value record is left
    /// as it is until reuse.
    pub fn free(&mut self, counter_id: i32, now_ms: i64) -> Result<()> {
        self.check_allocated(counter_id)?;
        let record = metadata_offset(counter_id);
        let metadata = self.metadata();
        // Release: ordered after everything done to the counter while it was live.
        metadata.put_i32_release(record + RECORD_STATE_OFFSET, RECORD_RECLAIMED);
        store_bytes(metadata, record + KEY_OFFSET, &[0u8; MAX_KEY_LENGTH]);
        // Release: a reader checking reusability sees the zeroed key first.
        metadata.put_i64_release(
            record + FREE_FOR_REUSE_DEADLINE_OFFSET,
            now_ms.saturating_add(self.free_to_reuse_timeout_ms),
        );
        self.free_list.push(counter_id);
        Ok(())
    }

    fn check_allocated(&self, counter_id: i32) -> Result<()> {
        let state = self.reader.counter_state(counter_id)?;
        if state != RECORD_ALLOCATED {
            return Err(Error::illegal_state(format!("counter {counter_id} not allocated: state={state}")));
        }
        Ok(())
    }

    /// Sets the value (release: the value is how owners publish progress).
    pub fn set_counter_value(&self, counter_id: i32, value: i64) -> Result<()> {
        self.reader.counter_value(counter_id)?;
        self.values().put_i64_release(counter_offset(counter_id) + COUNTER_VALUE_OFFSET, value);
        Ok(())
    }

    /// Sets the registration id (release, so finders matching on it see a live counter).
    pub fn set_counter_registration_id(&self, counter_id: i32, registration_id: i64) -> Result<()> {
        self.reader.counter_value(counter_id)?;
        self.values().put_i64_release(counter_offset(counter_id) + REGISTRATION_ID_OFFSET, registration_id);
        Ok(())
    }

    pub fn set_counter_owner_id(&self, counter_id: i32, owner_id: i64) -> Result<()> {
        self.reader.counter_value(counter_id)?;
        // Relaxed: Aeron stores it plainly; readers get it after the registration id.
        self.values().put_i64(counter_offset(counter_id) + OWNER_ID_OFFSET, owner_id);
        Ok(())
    }

    pub fn set_counter_reference_id(&self, counter_id: i32, reference_id: i64) -> Result<()> {
        self.reader.counter_value(counter_id)?;
        // Relaxed: as the owner id.
        self.values().put_i64(counter_offset(counter_id) + REFERENCE_ID_OFFSET, reference_id);
        Ok(())
    }

    /// Replaces the label (first 380 bytes kept): bytes first, then the length (release).
    pub fn update_label(&self, counter_id: i32, label: &str) -> Result<()> {
        self.check_allocated(counter_id)?;
        store_label(self.metadata(), metadata_offset(counter_id), label.as_bytes());
        Ok(())
    }

    /// Appends as much of `value` as fits in the 380-byte label; returns the bytes added.
    pub fn append_to_label(&self, counter_id: i32, value: &str) -> Result<usize> {
        self.check_allocated(counter_id)?;
        append_to_label(self.metadata(), counter_id, value.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::counters::descriptor::{
        LABEL_BYTES_OFFSET, LABEL_OFFSET, MAX_LABEL_LENGTH, METADATA_LENGTH, RECORD_UNUSED,
    };

    const TIMEOUT_MS: i64 = 1000;

    fn manager(counters: usize) -> CountersManager {
        CountersManager::new(
            AtomicBuffer::alloc(counters * METADATA_LENGTH),
            AtomicBuffer::alloc(counters * 128),
            TIMEOUT_MS,
        )
        .unwrap()
    }

    #[test]
    fn allocate_writes_the_metadata_record_byte_exactly() {
        let mut m = manager(4);
        let id = m.allocate(11, &7i64.to_le_bytes(), "client-heartbeat: id=7", 0).unwrap();
        assert_eq!(id, 0);
        let md = m.reader().metadata_buffer().clone();
        let mut record = [0u8; METADATA_LENGTH];
        md.load_bytes(0, &mut record);
        let mut expected = [0u8; METADATA_LENGTH];
        expected[0..4].copy_from_slice(&1i32.to_le_bytes());
        expected[4..8].copy_from_slice(&11i32.to_le_bytes());
        expected[8..16].copy_from_slice(&i64::MAX.to_le_bytes());
        expected[16..24].copy_from_slice(&7i64.to_le_bytes());
        expected[128..132].copy_from_slice(&22i32.to_le_bytes());
        expected[132..154].copy_from_slice(b"client-heartbeat: id=7");
        assert_eq!(record, expected);
        assert_eq!(md.get_i32(METADATA_LENGTH), RECORD_UNUSED);
        assert_eq!(m.high_water_mark_id(), 0);
    }

    #[test]
    fn ids_set_and_read_back() {
        let mut m = manager(4);
        let id = m.allocate(4, &[], "sub-pos", 0).unwrap();
        m.set_counter_registration_id(id, 2).unwrap();
        m.set_counter_owner_id(id, 1).unwrap();
        m.set_counter_reference_id(id, 6).unwrap();
        m.set_counter_value(id, 256).unwrap();
        let r = m.reader();
        assert_eq!(r.counter_registration_id(id).unwrap(), 2);
        assert_eq!(r.counter_owner_id(id).unwrap(), 1);
        assert_eq!(r.counter_reference_id(id).unwrap(), 6);
        assert_eq!(r.counter_value(id).unwrap(), 256);
        let v = r.values_buffer();
        assert_eq!((v.get_i64(0), v.get_i64(8), v.get_i64(16), v.get_i64(24)), (256, 2, 1, 6));
        assert!(m.set_counter_value(4, 1).is_err());
    }

    #[test]
    fn long_keys_and_labels_are_truncated() {
        let mut m = manager(2);
        let key: Vec<u8> = (0..200u32).map(|i| i as u8).collect();
        let label = "L".repeat(500);
        let id = m.allocate(1, &key, &label, 0).unwrap();
        let r = m.reader();
        assert_eq!(&r.counter_key(id).unwrap()[..], &key[..112]);
        assert_eq!(r.counter_label(id).unwrap(), "L".repeat(MAX_LABEL_LENGTH));
        let md = r.metadata_buffer();
        assert_eq!(md.get_i32(LABEL_OFFSET), 380);
        assert_eq!(md.get_u8(LABEL_BYTES_OFFSET + 379), b'L');
        // The next record is untouched.
        assert_eq!(md.get_i64(METADATA_LENGTH), 0);
    }

    #[test]
    fn exhaustion_is_an_error_naming_the_max_id() {
        let mut m = manager(3);
        for expected in 0..3 {
            assert_eq!(m.allocate(1, &[], "c", 0).unwrap(), expected);
        }
        let err = m.allocate(1, &[], "one too many", 0).unwrap_err();
        assert_eq!(err.code(), libc::ENOMEM);
        assert!(err.message().contains("max counter id (2) exceeded"), "{}", err.message());
        assert!(err.message().contains("one too many"));
        assert_eq!(m.high_water_mark_id(), 2);
    }

    #[test]
    fn free_reclaims_zeroes_key_and_sets_deadline() {
        let mut m = manager(4);
        let id = m.allocate(2, &[0xAB; 16], "snd-pos", 100).unwrap();
        m.set_counter_value(id, 99).unwrap();
        m.set_counter_registration_id(id, 5).unwrap();
        m.free(id, 500).unwrap();
        let r = m.reader();
        assert_eq!(r.counter_state(id).unwrap(), RECORD_RECLAIMED);
        assert_eq!(r.counter_key(id).unwrap(), [0u8; 112]);
        assert_eq!(r.free_for_reuse_deadline_ms(id).unwrap(), 1500);
        assert_eq!(r.counter_value(id).unwrap(), 99, "values are kept until reuse");
        assert_eq!(r.counter_label(id).unwrap(), "snd-pos", "the label stays");
        assert!(r.counters().is_empty());
        assert_eq!(m.free_list(), &[id]);
        assert!(m.free(id, 600).unwrap_err().message().contains("not allocated"));
        assert!(m.free(3, 600).is_err(), "never allocated");
    }

    #[test]
    fn freed_ids_are_reused_only_after_the_deadline_oldest_first() {
        let mut m = manager(8);
        for _ in 0..4 {
            m.allocate(1, &[], "c", 0).unwrap();
        }
        m.set_counter_value(2, 42).unwrap();
        m.set_counter_registration_id(2, 9).unwrap();
        m.set_counter_owner_id(2, 8).unwrap();
        m.set_counter_reference_id(2, 7).unwrap();
        m.free(2, 1000).unwrap(); // reusable from 2000
        m.free(0, 1500).unwrap(); // reusable from 2500
        m.free(3, 1200).unwrap(); // reusable from 2200
        assert_eq!(m.free_list(), &[2, 0, 3]);

        assert_eq!(m.allocate(1, &[], "new", 1999).unwrap(), 4, "nothing reusable yet");
        assert_eq!(m.allocate(1, &[], "new", 2300).unwrap(), 2, "first freed whose deadline passed");
        let r = m.reader();
        assert_eq!(r.counter_value(2).unwrap(), 0);
        assert_eq!(r.counter_registration_id(2).unwrap(), 0);
        assert_eq!(r.counter_owner_id(2).unwrap(), 0);
        assert_eq!(r.counter_reference_id(2).unwrap(), 0);
        assert_eq!(r.counter_label(2).unwrap(), "new");
        assert_eq!(r.free_for_reuse_deadline_ms(2).unwrap(), NOT_FREE_TO_REUSE);
        assert_eq!(m.allocate(1, &[], "new", 2300).unwrap(), 3, "0 is not due until 2500, 3 is");
        assert_eq!(m.allocate(1, &[], "new", 2300).unwrap(), 5);
        assert_eq!(m.allocate(1, &[], "new", 2500).unwrap(), 0);
        assert!(m.free_list().is_empty());
        assert_eq!(m.high_water_mark_id(), 5);
    }

    #[test]
    fn label_update_and_append() {
        let mut m = manager(2);
        let id = m.allocate(7, &[], "rcv-channel: aeron:udp?endpoint=127.0.0.1:20121", 0).unwrap();
        m.append_to_label(id, " 127.0.0.1:20121").unwrap();
        assert_eq!(
            m.reader().counter_label(id).unwrap(),
            "rcv-channel: aeron:udp?endpoint=127.0.0.1:20121 127.0.0.1:20121"
        );
        m.update_label(id, "short").unwrap();
        assert_eq!(m.reader().counter_label(id).unwrap(), "short");
        assert_eq!(m.append_to_label(id, &"x".repeat(400)).unwrap(), 375);
        assert_eq!(m.reader().counter_label(id).unwrap().len(), MAX_LABEL_LENGTH);
        assert!(m.update_label(1, "unallocated").is_err());
    }
}
