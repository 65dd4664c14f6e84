//! The client's liveness signal to the driver (`spec/driver.md` §6.2, `counters.md` §6.1,
//! §7.3): find the `client-heartbeat` counter the driver allocated for this client, tag its
//! label with our name, and store the epoch time in it every keepalive interval.
#![forbid(unsafe_code)]

use crate::client::counter::{COUNTER_LENGTH, counter_value_view};
use crate::concurrent::AtomicBuffer;
use crate::util::error::Result;

/// Counters metadata record layout (`counters.md` §3).
const METADATA_LENGTH: usize = 512;
const TYPE_ID_OFFSET: usize = 4;
const KEY_OFFSET: usize = 16;
const LABEL_LENGTH_OFFSET: usize = 128;
const LABEL_OFFSET: usize = 132;
const MAX_LABEL_LENGTH: usize = 380;
const RECORD_UNUSED: i32 = 0;
const RECORD_ALLOCATED: i32 = 1;
/// Type id of `client-heartbeat` counters.
pub(crate) const CLIENT_HEARTBEAT_TYPE_ID: i32 = 11;

/// This client's heartbeat counter, once the driver has created it.
pub(crate) struct HeartbeatCounter {
    counter_id: i32,
    value: AtomicBuffer,
}

impl HeartbeatCounter {
    /// Looks for the heartbeat counter of `client_id`; the driver creates it on the
    /// client's first ADD command, so it is normal not to find it before that.
    pub fn find(metadata: &AtomicBuffer, values: &AtomicBuffer, client_id: i64) -> Option<Self> {
        let max_id = (values.capacity() / COUNTER_LENGTH).min(metadata.capacity() / METADATA_LENGTH);
        for id in 0..max_id {
            let record = id * METADATA_LENGTH;
            // Acquire: pairs with the driver's release of ALLOCATED after type, key, label.
            let state = metadata.get_i32_acquire(record);
            if state == RECORD_UNUSED {
                break;
            }
            if state == RECORD_ALLOCATED && is_heartbeat_of(metadata, record, client_id) {
                let counter_id = id as i32;
                let value = counter_value_view(values, counter_id).ok()?;
                return Some(Self { counter_id, value });
            }
        }
        None
    }

    pub fn counter_id(&self) -> i32 {
        self.counter_id
    }

    /// Whether the record is still this client's allocated heartbeat counter (the driver
    /// frees it when it considers the client dead).
    pub fn is_active(&self, metadata: &AtomicBuffer, client_id: i64) -> bool {
        let record = self.counter_id as usize * METADATA_LENGTH;
        metadata.get_i32_acquire(record) == RECORD_ALLOCATED && is_heartbeat_of(metadata, record, client_id)
    }

    /// Appends `text` to the counter's label, as far as it fits.
    pub fn append_to_label(&self, metadata: &AtomicBuffer, text: &str) -> Result<()> {
        let record = self.counter_id as usize * METADATA_LENGTH;
        // Acquire: see the driver's label before extending it.
        let current = metadata.get_i32_acquire(record + LABEL_LENGTH_OFFSET);
        let current = usize::try_from(current).unwrap_or(0).min(MAX_LABEL_LENGTH);
        let extra = &text.as_bytes()[..text.len().min(MAX_LABEL_LENGTH - current)];
        metadata.check_bounds(record + LABEL_OFFSET + current, extra.len())?;
        metadata.put_bytes(record + LABEL_OFFSET + current, extra);
        // Release: readers that see the new length see the bytes.
        metadata.put_i32_release(record + LABEL_LENGTH_OFFSET, (current + extra.len()) as i32);
        Ok(())
    }

    /// Stores the client's heartbeat time.
    pub fn set(&self, now_ms: i64) {
        // Release: the driver reads it with acquire; ordering with our other writes keeps
        // a live client from looking stale.
        self.value.put_i64_release(0, now_ms);
    }
}

fn is_heartbeat_of(metadata: &AtomicBuffer, record: usize, client_id: i64) -> bool {
    metadata.get_i32(record + TYPE_ID_OFFSET) == CLIENT_HEARTBEAT_TYPE_ID
        && metadata.get_i64(record + KEY_OFFSET) == client_id
}

/// The label suffix the C client appends (`counters.md` §6.1).
pub(crate) fn label_suffix(client_name: &str) -> String {
    format!(" name={client_name} version=1.48.0 commit=aeronrs-{}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allocate(metadata: &AtomicBuffer, id: usize, type_id: i32, key: i64, label: &str) {
        let record = id * METADATA_LENGTH;
        metadata.put_i32(record + TYPE_ID_OFFSET, type_id);
        metadata.put_i64(record + KEY_OFFSET, key);
        metadata.put_bytes(record + LABEL_OFFSET, label.as_bytes());
        metadata.put_i32(record + LABEL_LENGTH_OFFSET, label.len() as i32);
        metadata.put_i32_release(record, RECORD_ALLOCATED);
    }

    #[test]
    fn finds_tags_and_writes_own_heartbeat() {
        let metadata = AtomicBuffer::alloc(8 * METADATA_LENGTH);
        let values = AtomicBuffer::alloc(8 * COUNTER_LENGTH);
        allocate(&metadata, 0, 0, 0, "Bytes sent");
        allocate(&metadata, 1, CLIENT_HEARTBEAT_TYPE_ID, 7, "client-heartbeat: id=7");
        allocate(&metadata, 2, CLIENT_HEARTBEAT_TYPE_ID, 9, "client-heartbeat: id=9");
        assert!(HeartbeatCounter::find(&metadata, &values, 5).is_none());
        let hb = HeartbeatCounter::find(&metadata, &values, 9).unwrap();
        assert_eq!(hb.counter_id(), 2);
        hb.append_to_label(&metadata, " name=x").unwrap();
        let record = 2 * METADATA_LENGTH;
        let length = metadata.get_i32(record + LABEL_LENGTH_OFFSET) as usize;
        let mut label = vec![0u8; length];
        metadata.get_bytes(record + LABEL_OFFSET, &mut label);
        assert_eq!(label, b"client-heartbeat: id=9 name=x");
        hb.set(1234);
        assert_eq!(values.get_i64(2 * COUNTER_LENGTH), 1234);
        assert!(hb.is_active(&metadata, 9));
        metadata.put_i32_release(record, -1);
        assert!(!hb.is_active(&metadata, 9));
    }

    #[test]
    fn label_append_is_capped() {
        let metadata = AtomicBuffer::alloc(METADATA_LENGTH);
        let values = AtomicBuffer::alloc(COUNTER_LENGTH);
        allocate(&metadata, 0, CLIENT_HEARTBEAT_TYPE_ID, 3, &"l".repeat(370));
        let hb = HeartbeatCounter::find(&metadata, &values, 3).unwrap();
        hb.append_to_label(&metadata, &"x".repeat(50)).unwrap();
        assert_eq!(metadata.get_i32(LABEL_LENGTH_OFFSET), MAX_LABEL_LENGTH as i32);
        assert!(label_suffix("me").starts_with(" name=me version=1.48.0 commit="));
    }
}
