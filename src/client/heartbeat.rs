//! The client's liveness signal to the driver (`spec/driver.md` §6.2, `counters.md` §6.1,
//! §7.3): find the `client-heartbeat` counter the driver allocated for this client, tag its
//! label with our name, and store the epoch time in it every keepalive interval.
#![forbid(unsafe_code)]

use crate::client::counter::counter_value_view;
use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::CountersReader;
use crate::concurrent::counters::descriptor::{RECORD_ALLOCATED, append_to_label};
use crate::concurrent::counters::type_ids::CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID;
use crate::util::error::Result;

/// This client's heartbeat counter, once the driver has created it.
pub(crate) struct HeartbeatCounter {
    counter_id: i32,
    value: AtomicBuffer,
}

impl HeartbeatCounter {
    /// Looks for the heartbeat counter of `client_id` (its registration id is the client
    /// id). The driver creates it on the client's first ADD command, so it is normal not
    /// to find it before that.
    pub fn find(counters: &CountersReader, client_id: i64) -> Option<Self> {
        let counter_id =
            counters.find_by_type_id_and_registration_id(CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID, client_id)?;
        let value = counter_value_view(counters.values_buffer(), counter_id).ok()?;
        Some(Self { counter_id, value })
    }

    pub fn counter_id(&self) -> i32 {
        self.counter_id
    }

    /// Whether the record is still this client's allocated heartbeat counter (the driver
    /// frees it when it considers the client dead).
    pub fn is_active(&self, counters: &CountersReader, client_id: i64) -> bool {
        let id = self.counter_id;
        counters.counter_state(id).is_ok_and(|state| state == RECORD_ALLOCATED)
            && counters.counter_type_id(id).is_ok_and(|type_id| type_id == CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID)
            && counters.counter_registration_id(id).is_ok_and(|registration_id| registration_id == client_id)
    }

    /// Appends `text` to the counter's label, as far as it fits.
    pub fn append_to_label(&self, counters: &CountersReader, text: &str) -> Result<()> {
        append_to_label(counters.metadata_buffer(), self.counter_id, text.as_bytes()).map(|_| ())
    }

    /// Stores the client's heartbeat time.
    pub fn set(&self, now_ms: i64) {
        // Release: the driver reads it with acquire.
        self.value.put_i64_release(0, now_ms);
    }
}

/// The label suffix the C client appends (`counters.md` §6.1).
pub(crate) fn label_suffix(client_name: &str) -> String {
    format!(" name={client_name} version=1.48.0 commit=aeronrs-{}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::counters::CountersManager;

    #[test]
    fn finds_tags_and_writes_own_heartbeat() {
        let mut manager =
            CountersManager::new(AtomicBuffer::alloc(8 * 512), AtomicBuffer::alloc(8 * 128), 0).unwrap();
        manager.allocate(0, &[], "Bytes sent", 0).unwrap();
        for (client_id, label) in [(7i64, "client-heartbeat: id=7"), (9, "client-heartbeat: id=9")] {
            let id = manager
                .allocate(CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID, &client_id.to_le_bytes(), label, 0)
                .unwrap();
            manager.set_counter_registration_id(id, client_id).unwrap();
        }
        let counters = manager.reader().clone();
        assert!(HeartbeatCounter::find(&counters, 5).is_none());
        let hb = HeartbeatCounter::find(&counters, 9).unwrap();
        assert_eq!(hb.counter_id(), 2);
        hb.append_to_label(&counters, &label_suffix("x")).unwrap();
        let label = counters.counter_label(2).unwrap();
        assert!(label.starts_with("client-heartbeat: id=9 name=x version=1.48.0 commit=aeronrs-"), "{label}");
        hb.set(1234);
        assert_eq!(counters.counter_value(2).unwrap(), 1234);
        assert!(hb.is_active(&counters, 9));
        assert!(!hb.is_active(&counters, 7));
        manager.free(2, 0).unwrap();
        assert!(!hb.is_active(&counters, 9));
    }
}
