//! Read access to the counters any process may use (`spec/counters.md` §4 "Reading"):
//! values, ids, and the metadata of allocated counters.

use std::borrow::Cow;

use super::descriptor::{
    COUNTER_VALUE_OFFSET, FREE_FOR_REUSE_DEADLINE_OFFSET, KEY_OFFSET, LABEL_BYTES_OFFSET, LABEL_OFFSET,
    MAX_KEY_LENGTH, MAX_LABEL_LENGTH, OWNER_ID_OFFSET, RECORD_ALLOCATED, RECORD_STATE_OFFSET, RECORD_UNUSED,
    REFERENCE_ID_OFFSET, REGISTRATION_ID_OFFSET, TYPE_ID_OFFSET, clamp_label_length, counter_offset,
    load_bytes, max_counter_id_of, metadata_offset,
};
use crate::concurrent::AtomicBuffer;
use crate::util::error::{Error, Result};

/// A snapshot of one allocated counter, copied out of shared memory.
#[derive(Clone)]
pub struct CounterRecord {
    pub id: i32,
    pub type_id: i32,
    pub value: i64,
    pub registration_id: i64,
    pub owner_id: i64,
    pub reference_id: i64,
    pub free_for_reuse_deadline_ms: i64,
    key: [u8; MAX_KEY_LENGTH],
    label: [u8; MAX_LABEL_LENGTH],
    label_length: usize,
}

impl CounterRecord {
    /// All 112 key bytes (the meaningful length depends on the type, `spec/counters.md` §7).
    pub fn key(&self) -> &[u8; MAX_KEY_LENGTH] {
        &self.key
    }

    pub fn label_bytes(&self) -> &[u8] {
        &self.label[..self.label_length]
    }

    /// The label as text (labels are ASCII; anything else is replaced).
    pub fn label(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.label_bytes())
    }
}

impl std::fmt::Debug for CounterRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CounterRecord")
            .field("id", &self.id)
            .field("type_id", &self.type_id)
            .field("value", &self.value)
            .field("registration_id", &self.registration_id)
            .field("owner_id", &self.owner_id)
            .field("reference_id", &self.reference_id)
            .field("label", &self.label())
            .finish()
    }
}

/// Reads counters from a metadata buffer and a values buffer (e.g. the two `cnc.dat`
/// sections). Cheap to clone: both buffers are shared views.
#[derive(Clone, Debug)]
pub struct CountersReader {
    metadata: AtomicBuffer,
    values: AtomicBuffer,
    max_counter_id: i32,
}

impl CountersReader {
    /// Wraps the buffers; the metadata buffer must be at least 4x the values buffer.
    pub fn new(metadata: AtomicBuffer, values: AtomicBuffer) -> Result<Self> {
        let max_counter_id = max_counter_id_of(&metadata, &values)?;
        Ok(Self { metadata, values, max_counter_id })
    }

    pub fn metadata_buffer(&self) -> &AtomicBuffer {
        &self.metadata
    }

    pub fn values_buffer(&self) -> &AtomicBuffer {
        &self.values
    }

    /// Highest counter id these buffers can hold (`values_length / 128 - 1`).
    pub fn max_counter_id(&self) -> i32 {
        self.max_counter_id
    }

    fn check_id(&self, counter_id: i32) -> Result<()> {
        if counter_id < 0 || counter_id > self.max_counter_id {
            return Err(Error::invalid_argument(format!(
                "counter id {counter_id} out of range: 0..={}",
                self.max_counter_id
            )));
        }
        Ok(())
    }

    /// The counter's value (acquire: pairs with owners' release stores).
    pub fn counter_value(&self, counter_id: i32) -> Result<i64> {
        self.check_id(counter_id)?;
        Ok(self.values.get_i64_acquire(counter_offset(counter_id) + COUNTER_VALUE_OFFSET))
    }

    /// Record state: [`RECORD_UNUSED`], [`RECORD_ALLOCATED`] or `RECORD_RECLAIMED`.
    pub fn counter_state(&self, counter_id: i32) -> Result<i32> {
        self.check_id(counter_id)?;
        // Acquire: a reader that sees ALLOCATED also sees the metadata written before it.
        Ok(self.metadata.get_i32_acquire(metadata_offset(counter_id) + RECORD_STATE_OFFSET))
    }

    pub fn counter_type_id(&self, counter_id: i32) -> Result<i32> {
        self.check_id(counter_id)?;
        // Relaxed: published by the state; callers that care read the state first.
        Ok(self.metadata.get_i32(metadata_offset(counter_id) + TYPE_ID_OFFSET))
    }

    pub fn free_for_reuse_deadline_ms(&self, counter_id: i32) -> Result<i64> {
        self.check_id(counter_id)?;
        Ok(self.metadata.get_i64_acquire(metadata_offset(counter_id) + FREE_FOR_REUSE_DEADLINE_OFFSET))
    }

    /// Registration id (acquire: the driver stores it with release after allocating).
    pub fn counter_registration_id(&self, counter_id: i32) -> Result<i64> {
        self.check_id(counter_id)?;
        Ok(self.values.get_i64_acquire(counter_offset(counter_id) + REGISTRATION_ID_OFFSET))
    }

    pub fn counter_owner_id(&self, counter_id: i32) -> Result<i64> {
        self.check_id(counter_id)?;
        // Relaxed: Aeron writes it with a plain store right after the registration id.
        Ok(self.values.get_i64(counter_offset(counter_id) + OWNER_ID_OFFSET))
    }

    pub fn counter_reference_id(&self, counter_id: i32) -> Result<i64> {
        self.check_id(counter_id)?;
        // Relaxed: as the owner id.
        Ok(self.values.get_i64(counter_offset(counter_id) + REFERENCE_ID_OFFSET))
    }

    /// The 112 key bytes.
    pub fn counter_key(&self, counter_id: i32) -> Result<[u8; MAX_KEY_LENGTH]> {
        self.check_id(counter_id)?;
        let mut key = [0u8; MAX_KEY_LENGTH];
        load_bytes(&self.metadata, metadata_offset(counter_id) + KEY_OFFSET, &mut key);
        Ok(key)
    }

    /// The label text.
    pub fn counter_label(&self, counter_id: i32) -> Result<String> {
        self.check_id(counter_id)?;
        let mut label = [0u8; MAX_LABEL_LENGTH];
        let length = self.load_label(metadata_offset(counter_id), &mut label);
        Ok(String::from_utf8_lossy(&label[..length]).into_owned())
    }

    /// Copies the label's bytes into `out`, as many as fit; returns how many were copied.
    pub fn copy_counter_label(&self, counter_id: i32, out: &mut [u8]) -> Result<usize> {
        self.check_id(counter_id)?;
        let mut label = [0u8; MAX_LABEL_LENGTH];
        let length = self.load_label(metadata_offset(counter_id), &mut label).min(out.len());
        out[..length].copy_from_slice(&label[..length]);
        Ok(length)
    }

    fn load_label(&self, record: usize, label: &mut [u8; MAX_LABEL_LENGTH]) -> usize {
        // Acquire: label updates store the bytes before the length (release).
        let length = clamp_label_length(self.metadata.get_i32_acquire(record + LABEL_OFFSET));
        load_bytes(&self.metadata, record + LABEL_BYTES_OFFSET, &mut label[..length]);
        length
    }

    /// Snapshot of counter `counter_id` if it is allocated.
    pub fn counter(&self, counter_id: i32) -> Result<Option<CounterRecord>> {
        if self.counter_state(counter_id)? != RECORD_ALLOCATED {
            return Ok(None);
        }
        Ok(Some(self.snapshot(counter_id)))
    }

    fn snapshot(&self, id: i32) -> CounterRecord {
        let record = metadata_offset(id);
        let value = counter_offset(id);
        let mut key = [0u8; MAX_KEY_LENGTH];
        load_bytes(&self.metadata, record + KEY_OFFSET, &mut key);
        let mut label = [0u8; MAX_LABEL_LENGTH];
        let label_length = self.load_label(record, &mut label);
        // Relaxed loads of type, owner and reference id: the caller acquired the ALLOCATED
        // state that published them (see `counter_type_id`, `counter_owner_id`).
        CounterRecord {
            id,
            type_id: self.metadata.get_i32(record + TYPE_ID_OFFSET),
            value: self.values.get_i64_acquire(value + COUNTER_VALUE_OFFSET),
            registration_id: self.values.get_i64_acquire(value + REGISTRATION_ID_OFFSET),
            owner_id: self.values.get_i64(value + OWNER_ID_OFFSET),
            reference_id: self.values.get_i64(value + REFERENCE_ID_OFFSET),
            free_for_reuse_deadline_ms: self
                .metadata
                .get_i64_acquire(record + FREE_FOR_REUSE_DEADLINE_OFFSET),
            key,
            label,
            label_length,
        }
    }

    /// Ids whose record is allocated, scanning from 0 and stopping at the first UNUSED
    /// record (ids are handed out from the bottom, so nothing lies beyond it).
    fn allocated_ids(&self) -> impl Iterator<Item = i32> + '_ {
        (0..=self.max_counter_id)
            .map(|id| (id, self.metadata.get_i32_acquire(metadata_offset(id) + RECORD_STATE_OFFSET)))
            .take_while(|&(_, state)| state != RECORD_UNUSED)
            .filter(|&(_, state)| state == RECORD_ALLOCATED)
            .map(|(id, _)| id)
    }

    /// Calls `f` with a snapshot of every allocated counter, in id order.
    pub fn for_each_counter<F: FnMut(&CounterRecord)>(&self, mut f: F) {
        for id in self.allocated_ids() {
            f(&self.snapshot(id));
        }
    }

    /// Snapshots of every allocated counter, in id order.
    pub fn counters(&self) -> Vec<CounterRecord> {
        self.allocated_ids().map(|id| self.snapshot(id)).collect()
    }

    /// The id of the allocated counter with this type and registration id, if any.
    pub fn find_by_type_id_and_registration_id(&self, type_id: i32, registration_id: i64) -> Option<i32> {
        self.allocated_ids().find(|&id| {
            // Relaxed type id: published by the state `allocated_ids` acquired.
            self.metadata.get_i32(metadata_offset(id) + TYPE_ID_OFFSET) == type_id
                && self.values.get_i64_acquire(counter_offset(id) + REGISTRATION_ID_OFFSET) == registration_id
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::counters::descriptor::{METADATA_LENGTH, RECORD_RECLAIMED};

    fn reader(counters: usize) -> CountersReader {
        CountersReader::new(
            AtomicBuffer::alloc(counters * METADATA_LENGTH),
            AtomicBuffer::alloc(counters * 128),
        )
        .unwrap()
    }

    fn put_counter(r: &CountersReader, id: i32, state: i32, type_id: i32, label: &[u8]) {
        let m = r.metadata_buffer();
        let rec = metadata_offset(id);
        m.put_i32(rec + TYPE_ID_OFFSET, type_id);
        m.store_bytes(rec + LABEL_BYTES_OFFSET, label);
        m.put_i32(rec + LABEL_OFFSET, label.len() as i32);
        m.put_i32_release(rec, state);
    }

    #[test]
    fn scan_skips_reclaimed_and_stops_at_unused() {
        let r = reader(8);
        put_counter(&r, 0, RECORD_ALLOCATED, 0, b"zero");
        put_counter(&r, 1, RECORD_RECLAIMED, 3, b"gone");
        put_counter(&r, 2, RECORD_ALLOCATED, 11, b"two");
        put_counter(&r, 4, RECORD_ALLOCATED, 11, b"beyond unused 3");
        r.values_buffer().put_i64(counter_offset(2) + REGISTRATION_ID_OFFSET, 77);
        r.values_buffer().put_i64(counter_offset(2), 5);
        let all = r.counters();
        assert_eq!(all.iter().map(|c| c.id).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(all[1].label(), "two");
        assert_eq!(all[1].value, 5);
        assert_eq!(r.find_by_type_id_and_registration_id(11, 77), Some(2));
        assert_eq!(r.find_by_type_id_and_registration_id(11, 78), None);
        assert_eq!(r.find_by_type_id_and_registration_id(11, 0), None, "counter 4 is past the scan end");
        assert!(r.counter(1).unwrap().is_none());
        assert_eq!(r.counter_state(1).unwrap(), RECORD_RECLAIMED);
    }

    #[test]
    fn ids_out_of_range_are_errors() {
        let r = reader(4);
        assert_eq!(r.max_counter_id(), 3);
        assert!(r.counter_value(4).is_err());
        assert!(r.counter_value(-1).is_err());
        assert!(r.counter_label(4).is_err());
        assert!(r.counter_key(3).is_ok());
    }

    #[test]
    fn corrupt_label_length_is_clamped() {
        let r = reader(2);
        put_counter(&r, 0, RECORD_ALLOCATED, 1, b"abc");
        r.metadata_buffer().put_i32(LABEL_OFFSET, 100_000);
        assert_eq!(r.counter_label(0).unwrap().len(), MAX_LABEL_LENGTH);
        r.metadata_buffer().put_i32(LABEL_OFFSET, -4);
        assert_eq!(r.counter_label(0).unwrap(), "");
    }

    #[test]
    fn label_bytes_are_copied_as_far_as_they_fit() {
        let r = reader(2);
        put_counter(&r, 1, RECORD_ALLOCATED, 1, b"label");
        let mut out = [0u8; 8];
        assert_eq!(r.copy_counter_label(1, &mut out).unwrap(), 5);
        assert_eq!(&out[..5], b"label");
        let mut short = [0u8; 3];
        assert_eq!(r.copy_counter_label(1, &mut short).unwrap(), 3);
        assert_eq!(&short, b"lab");
        assert_eq!(r.copy_counter_label(1, &mut []).unwrap(), 0);
        assert!(r.copy_counter_label(2, &mut out).is_err());
    }
}
