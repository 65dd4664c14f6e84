//! The driver-wide statistics counters (`spec/counters.md` §8): allocated at start in id
//! order, type id 0, key = the int32 system counter id, labels exactly as Aeron's.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::CountersManager;
use crate::driver::position_counters::Position;
use crate::util::error::Result;

/// Type id shared by all system counters.
pub const SYSTEM_COUNTER_TYPE_ID: i32 = 0;

/// Aeron version this driver speaks, as reported in counter 34 and the version labels.
pub const AERON_VERSION_MAJOR: u8 = 1;
pub const AERON_VERSION_MINOR: u8 = 48;
pub const AERON_VERSION_PATCH: u8 = 0;
/// Printable version for labels (`version=<v>`).
pub const AERON_VERSION_TEXT: &str = "1.48.0";
/// What `commit=` shows: this crate, since there is no upstream git sha to report.
pub const AERON_COMMIT_TEXT: &str = concat!("aeronrs-", env!("CARGO_PKG_VERSION"));

/// `(major << 16) | (minor << 8) | patch`.
pub const fn semantic_version(major: u8, minor: u8, patch: u8) -> i64 {
    ((major as i64) << 16) | ((minor as i64) << 8) | patch as i64
}

/// The system counters by id (the id is also the key and, on a fresh CnC, the counter id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum SystemCounterId {
    BytesSent = 0,
    BytesReceived = 1,
    ReceiverProxyFails = 2,
    SenderProxyFails = 3,
    ConductorProxyFails = 4,
    NakMessagesSent = 5,
    NakMessagesReceived = 6,
    StatusMessagesSent = 7,
    StatusMessagesReceived = 8,
    HeartbeatsSent = 9,
    HeartbeatsReceived = 10,
    RetransmitsSent = 11,
    FlowControlUnderRuns = 12,
    FlowControlOverRuns = 13,
    InvalidPackets = 14,
    Errors = 15,
    ShortSends = 16,
    FreeFails = 17,
    SenderFlowControlLimits = 18,
    UnblockedPublications = 19,
    UnblockedCommands = 20,
    PossibleTtlAsymmetry = 21,
    ControllableIdleStrategy = 22,
    LossGapFills = 23,
    ClientTimeouts = 24,
    ResolutionChanges = 25,
    ConductorMaxCycleTime = 26,
    ConductorCycleTimeThresholdExceeded = 27,
    SenderMaxCycleTime = 28,
    SenderCycleTimeThresholdExceeded = 29,
    ReceiverMaxCycleTime = 30,
    ReceiverCycleTimeThresholdExceeded = 31,
    NameResolverMaxTime = 32,
    NameResolverTimeThresholdExceeded = 33,
    AeronVersion = 34,
    BytesCurrentlyMapped = 35,
    RetransmittedBytes = 36,
    RetransmitOverflow = 37,
    ErrorFramesReceived = 38,
    ErrorFramesSent = 39,
}

/// Number of system counters.
pub const SYSTEM_COUNTER_COUNT: usize = 40;

/// The label of system counter `id` (index = id).
pub fn system_counter_label(id: usize) -> String {
    const PLAIN: [&str; SYSTEM_COUNTER_COUNT] = [
        "Bytes sent",
        "Bytes received",
        "Failed offers to ReceiverProxy",
        "Failed offers to SenderProxy",
        "Failed offers to DriverConductorProxy",
        "NAKs sent",
        "NAKs received",
        "Status Messages sent",
        "Status Messages received",
        "Heartbeats sent",
        "Heartbeats received",
        "Retransmits sent",
        "Flow control under runs",
        "Flow control over runs",
        "Invalid packets",
        "Errors",
        "Short sends",
        "Failed attempts to free log buffers",
        "Sender flow control limits, i.e. back-pressure events",
        "Unblocked Publications",
        "Unblocked Control Commands",
        "Possible TTL Asymmetry",
        "ControllableIdleStrategy status",
        "Loss gap fills",
        "Client liveness timeouts",
        "Resolution changes",
        "Conductor max cycle time doing its work in ns",
        "Conductor work cycle exceeded threshold count",
        "Sender max cycle time doing its work in ns",
        "Sender work cycle exceeded threshold count",
        "Receiver max cycle time doing its work in ns",
        "Receiver work cycle exceeded threshold count",
        "NameResolver max time in ns",
        "NameResolver exceeded threshold count",
        "Aeron software",
        "Bytes currently mapped",
        "Retransmitted bytes",
        "Retransmit Pool Overflow count",
        "Error Frames received",
        "Error Frames sent",
    ];
    let name = PLAIN.get(id).copied().unwrap_or("unknown");
    if id == SystemCounterId::Errors as usize || id == SystemCounterId::AeronVersion as usize {
        format!("{name}: version={AERON_VERSION_TEXT} commit={AERON_COMMIT_TEXT}")
    } else {
        name.to_string()
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
    pub fn allocate(manager: &mut CountersManager) -> Result<Self> {
        let mut counters = Vec::with_capacity(SYSTEM_COUNTER_COUNT);
        for id in 0..SYSTEM_COUNTER_COUNT {
            let key = (id as i32).to_le_bytes();
            let counter_id =
                manager.allocate(SYSTEM_COUNTER_TYPE_ID, &key, system_counter_label(id).as_bytes())?;
            manager.set_counter_registration_id(counter_id, counter_id as i64);
            manager.set_counter_owner_id(counter_id, -1);
            counters.push(Position::new(manager.values_buffer(), counter_id));
        }
        Ok(Self { counters })
    }

    /// The counter's value slot, for code that bumps it without the whole set.
    #[inline]
    pub fn position(&self, id: SystemCounterId) -> &Position {
        &self.counters[id as usize]
    }

    #[inline]
    fn get(&self, id: SystemCounterId) -> &Position {
        self.position(id)
    }

    /// Adds `delta` (atomic, so readers in other processes never see a torn update).
    #[inline]
    pub fn add(&self, id: SystemCounterId, delta: i64) {
        self.get(id).add(delta);
    }

    #[inline]
    pub fn increment(&self, id: SystemCounterId) {
        self.add(id, 1);
    }

    #[inline]
    pub fn set(&self, id: SystemCounterId, value: i64) {
        self.get(id).set_release(value);
    }

    #[inline]
    pub fn value(&self, id: SystemCounterId) -> i64 {
        self.get(id).get_acquire()
    }

    /// The counter id of `id` (equal to `id` on a fresh CnC).
    pub fn counter_id(&self, id: SystemCounterId) -> i32 {
        self.get(id).counter_id()
    }

    /// The values buffer the counters live in.
    pub fn values(&self) -> &AtomicBuffer {
        self.counters[0].values()
    }

    /// Frees every system counter (driver shutdown).
    pub fn free(&self, manager: &mut CountersManager) {
        for c in &self.counters {
            manager.free(c.counter_id());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_match_aeron() {
        assert_eq!(system_counter_label(0), "Bytes sent");
        assert_eq!(system_counter_label(19), "Unblocked Publications");
        assert_eq!(system_counter_label(20), "Unblocked Control Commands");
        assert_eq!(system_counter_label(24), "Client liveness timeouts");
        assert_eq!(system_counter_label(39), "Error Frames sent");
        assert!(system_counter_label(15).starts_with("Errors: version=1.48.0 commit="));
        assert!(system_counter_label(34).starts_with("Aeron software: version=1.48.0 commit="));
        assert_eq!(SystemCounterId::ErrorFramesSent as usize + 1, SYSTEM_COUNTER_COUNT);
        assert_eq!(semantic_version(1, 48, 0), 0x01_30_00);
    }
}
