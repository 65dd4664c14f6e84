//! The driver-wide statistics counters (`spec/counters.md` §8): allocated at start from the
//! system counter table, in id order, type id 0, key = the int32 system counter id; the
//! `Errors` and `Aeron software` labels carry the version, as Aeron's do.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::concurrent::counters::system_counters::{SYSTEM_COUNTER_COUNT, SYSTEM_COUNTERS};
pub use crate::concurrent::counters::system_counters::{SystemCounterId, semantic_version_compose};
use crate::concurrent::counters::type_ids::SYSTEM_COUNTER_TYPE_ID;
use crate::driver::context::ThreadingMode;
use crate::driver::position_counters::{Position, free_counter};
use crate::util::error::Result;

/// Aeron version this driver speaks, as reported in counter 34 and the version labels.
pub const AERON_VERSION_MAJOR: u8 = 1;
pub const AERON_VERSION_MINOR: u8 = 48;
pub const AERON_VERSION_PATCH: u8 = 0;
/// Printable version for labels (`version=<v>`).
pub const AERON_VERSION_TEXT: &str = "1.48.0";
/// What `commit=` shows: this crate, since there is no upstream git sha to report.
pub const AERON_COMMIT_TEXT: &str = concat!("aeronrs-", env!("CARGO_PKG_VERSION"));

/// The label of system counter `id`.
pub fn system_counter_label(id: SystemCounterId) -> String {
    let base = SYSTEM_COUNTERS[id as usize].label;
    match id {
        SystemCounterId::Errors | SystemCounterId::AeronVersion => {
            format!("{base}: version={AERON_VERSION_TEXT} commit={AERON_COMMIT_TEXT}")
        }
        _ => base.to_string(),
    }
}

/// What a running driver adds to some system counter labels, as Aeron's conductor does once
/// it starts: the resolver name on `Resolution changes`, the threading mode on the six
/// duty-cycle counters and each agent's threshold on its exceeded-count counter.
#[derive(Debug, Clone, Copy)]
pub struct DriverLabelDetails<'a> {
    pub resolver_name: &'a str,
    pub threading_mode: ThreadingMode,
    pub conductor_threshold_ns: u64,
    pub sender_threshold_ns: u64,
    pub receiver_threshold_ns: u64,
}

impl DriverLabelDetails<'_> {
    /// The suffix counter `id` takes, if any.
    pub fn suffix(&self, id: SystemCounterId) -> Option<String> {
        let mode = self.threading_mode.as_str();
        let threshold = |ns: u64| Some(format!(": threshold={ns}ns {mode}"));
        match id {
            SystemCounterId::ResolutionChanges => Some(format!(": driverName={}", self.resolver_name)),
            SystemCounterId::ConductorMaxCycleTime
            | SystemCounterId::SenderMaxCycleTime
            | SystemCounterId::ReceiverMaxCycleTime => Some(format!(": {mode}")),
            SystemCounterId::ConductorCycleTimeThresholdExceeded => threshold(self.conductor_threshold_ns),
            SystemCounterId::SenderCycleTimeThresholdExceeded => threshold(self.sender_threshold_ns),
            SystemCounterId::ReceiverCycleTimeThresholdExceeded => threshold(self.receiver_threshold_ns),
            _ => None,
        }
    }
}

/// The allocated system counters: increments and stores by [`SystemCounterId`].
#[derive(Debug, Clone)]
pub struct SystemCounters {
    counters: Vec<Position>,
}

impl SystemCounters {
    /// Allocates all 40 counters in id order. Registration id = counter id and owner id =
    /// -1, as Java's driver sets them (C leaves both 0; readers ignore them either way).
    pub fn allocate(manager: &mut CountersManager, now_ms: i64) -> Result<Self> {
        let mut counters = Vec::with_capacity(SYSTEM_COUNTER_COUNT);
        for descriptor in &SYSTEM_COUNTERS {
            let label = system_counter_label(descriptor.id);
            let counter_id = manager.allocate(SYSTEM_COUNTER_TYPE_ID, &descriptor.key(), &label, now_ms)?;
            manager.set_counter_registration_id(counter_id, counter_id as i64)?;
            manager.set_counter_owner_id(counter_id, -1)?;
            counters.push(Position::new(manager.reader().values_buffer(), counter_id));
        }
        Ok(Self { counters })
    }

    /// Appends the running driver's details to the labels that carry them (see
    /// [`DriverLabelDetails`]); a label already at the maximum length is cut, as Aeron's is.
    pub fn append_driver_details(
        &self,
        manager: &CountersManager,
        details: &DriverLabelDetails,
    ) -> Result<()> {
        for descriptor in &SYSTEM_COUNTERS {
            if let Some(suffix) = details.suffix(descriptor.id) {
                manager.append_to_label(self.counter_id(descriptor.id), &suffix)?;
            }
        }
        Ok(())
    }

    /// The counter's value slot, for code that bumps it without the whole set.
    #[inline]
    pub fn position(&self, id: SystemCounterId) -> &Position {
        &self.counters[id as usize]
    }

    /// Adds `delta` (atomic, so readers in other processes never see a torn update).
    #[inline]
    pub fn add(&self, id: SystemCounterId, delta: i64) {
        self.position(id).add(delta);
    }

    #[inline]
    pub fn increment(&self, id: SystemCounterId) {
        self.add(id, 1);
    }

    #[inline]
    pub fn set(&self, id: SystemCounterId, value: i64) {
        self.position(id).set_release(value);
    }

    #[inline]
    pub fn value(&self, id: SystemCounterId) -> i64 {
        self.position(id).get_acquire()
    }

    /// The counter id of `id` (equal to `id` on a fresh CnC).
    pub fn counter_id(&self, id: SystemCounterId) -> i32 {
        self.position(id).counter_id()
    }

    /// Frees every system counter (driver shutdown).
    pub fn free(&self, manager: &mut CountersManager, now_ms: i64) {
        for c in &self.counters {
            free_counter(manager, c.counter_id(), now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    #[test]
    fn labels_match_aeron() {
        assert_eq!(system_counter_label(SystemCounterId::BytesSent), "Bytes sent");
        assert_eq!(system_counter_label(SystemCounterId::UnblockedPublications), "Unblocked Publications");
        assert!(system_counter_label(SystemCounterId::Errors).starts_with("Errors: version=1.48.0 commit="));
        assert!(
            system_counter_label(SystemCounterId::AeronVersion)
                .starts_with("Aeron software: version=1.48.0 commit=")
        );
    }

    #[test]
    fn driver_details_suffix_the_labels_aeron_c_suffixes() {
        let values = AtomicBuffer::alloc(64 * 128);
        let metadata = AtomicBuffer::alloc(64 * 512);
        let mut manager = CountersManager::new(metadata, values.clone(), 1000).unwrap();
        let counters = SystemCounters::allocate(&mut manager, 1).unwrap();
        let details = DriverLabelDetails {
            resolver_name: "",
            threading_mode: ThreadingMode::Shared,
            conductor_threshold_ns: 1_000_000_000,
            sender_threshold_ns: 2_000,
            receiver_threshold_ns: 3,
        };
        counters.append_driver_details(&manager, &details).unwrap();
        let label = |id: i32| manager.reader().counter_label(id).unwrap();
        // The exact labels of a 1.48 C driver's fresh cnc.dat (vectors README §3).
        assert_eq!(label(25), "Resolution changes: driverName=");
        assert_eq!(label(26), "Conductor max cycle time doing its work in ns: SHARED");
        assert_eq!(label(27), "Conductor work cycle exceeded threshold count: threshold=1000000000ns SHARED");
        assert_eq!(label(28), "Sender max cycle time doing its work in ns: SHARED");
        assert_eq!(label(29), "Sender work cycle exceeded threshold count: threshold=2000ns SHARED");
        assert_eq!(label(31), "Receiver work cycle exceeded threshold count: threshold=3ns SHARED");
        assert_eq!(label(32), "NameResolver max time in ns", "no suffix on the resolver counters");
        assert_eq!(label(24), "Client liveness timeouts");

        let named = DriverLabelDetails {
            resolver_name: "node-a",
            threading_mode: ThreadingMode::Dedicated,
            ..details
        };
        assert_eq!(named.suffix(SystemCounterId::ResolutionChanges).unwrap(), ": driverName=node-a");
        assert_eq!(named.suffix(SystemCounterId::ReceiverMaxCycleTime).unwrap(), ": DEDICATED");
        assert_eq!(ThreadingMode::SharedNetwork.as_str(), "SHARED_NETWORK");
        assert_eq!(ThreadingMode::Invoker.as_str(), "INVOKER");
    }

    #[test]
    fn allocated_in_id_order_with_java_ids() {
        let values = AtomicBuffer::alloc(64 * 128);
        let metadata = AtomicBuffer::alloc(64 * 512);
        let mut manager = CountersManager::new(metadata, values.clone(), 1000).unwrap();
        let counters = SystemCounters::allocate(&mut manager, 1).unwrap();
        for descriptor in &SYSTEM_COUNTERS {
            let id = counters.counter_id(descriptor.id);
            assert_eq!(id, descriptor.id as i32);
            assert_eq!(manager.reader().counter_type_id(id).unwrap(), 0);
            assert_eq!(manager.reader().counter_key(id).unwrap()[..4], (id).to_le_bytes());
            assert_eq!(manager.reader().counter_registration_id(id).unwrap(), id as i64);
            assert_eq!(manager.reader().counter_owner_id(id).unwrap(), -1);
        }
        counters.increment(SystemCounterId::ClientTimeouts);
        counters.add(SystemCounterId::BytesCurrentlyMapped, 10);
        assert_eq!(values.get_i64(24 * 128), 1);
        assert_eq!(counters.value(SystemCounterId::BytesCurrentlyMapped), 10);
        counters.free(&mut manager, 2);
        assert_eq!(manager.reader().counter_state(5).unwrap(), -1);
    }
}
