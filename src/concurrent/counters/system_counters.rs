//! The driver's system counters (`spec/counters.md` §8): type id 0, key = int32 system
//! counter id, allocated at start-up in id order so that counter id = system counter id.
//!
//! Labels are the base text. The C driver appends run-time details to some of them,
//! which is what `cnc.dat` then shows:
//! * `Errors` and `Aeron software`: `": version=<v> commit=<sha>"`;
//! * `Resolution changes`: `": driverName=<name>"`;
//! * the six cycle-time counters (26..31): `": <threading mode>"`, and for the threshold
//!   counts `": threshold=<ns>ns <threading mode>"`.

/// Ids of the system counters, in allocation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// One row of the system counter table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemCounterDescriptor {
    pub id: SystemCounterId,
    /// Base label (see the module docs for the suffixes the driver appends).
    pub label: &'static str,
}

impl SystemCounterDescriptor {
    /// The counter key: the system counter id as a little-endian int32.
    pub fn key(&self) -> [u8; 4] {
        (self.id as i32).to_le_bytes()
    }
}

const fn row(id: SystemCounterId, label: &'static str) -> SystemCounterDescriptor {
    SystemCounterDescriptor { id, label }
}

/// Every system counter, indexed by id.
pub const SYSTEM_COUNTERS: [SystemCounterDescriptor; 40] = {
    use SystemCounterId::*;
    [
        row(BytesSent, "Bytes sent"),
        row(BytesReceived, "Bytes received"),
        row(ReceiverProxyFails, "Failed offers to ReceiverProxy"),
        row(SenderProxyFails, "Failed offers to SenderProxy"),
        row(ConductorProxyFails, "Failed offers to DriverConductorProxy"),
        row(NakMessagesSent, "NAKs sent"),
        row(NakMessagesReceived, "NAKs received"),
        row(StatusMessagesSent, "Status Messages sent"),
        row(StatusMessagesReceived, "Status Messages received"),
        row(HeartbeatsSent, "Heartbeats sent"),
        row(HeartbeatsReceived, "Heartbeats received"),
        row(RetransmitsSent, "Retransmits sent"),
        row(FlowControlUnderRuns, "Flow control under runs"),
        row(FlowControlOverRuns, "Flow control over runs"),
        row(InvalidPackets, "Invalid packets"),
        row(Errors, "Errors"),
        row(ShortSends, "Short sends"),
        row(FreeFails, "Failed attempts to free log buffers"),
        row(SenderFlowControlLimits, "Sender flow control limits, i.e. back-pressure events"),
        row(UnblockedPublications, "Unblocked Publications"),
        row(UnblockedCommands, "Unblocked Control Commands"),
        row(PossibleTtlAsymmetry, "Possible TTL Asymmetry"),
        row(ControllableIdleStrategy, "ControllableIdleStrategy status"),
        row(LossGapFills, "Loss gap fills"),
        row(ClientTimeouts, "Client liveness timeouts"),
        row(ResolutionChanges, "Resolution changes"),
        row(ConductorMaxCycleTime, "Conductor max cycle time doing its work in ns"),
        row(ConductorCycleTimeThresholdExceeded, "Conductor work cycle exceeded threshold count"),
        row(SenderMaxCycleTime, "Sender max cycle time doing its work in ns"),
        row(SenderCycleTimeThresholdExceeded, "Sender work cycle exceeded threshold count"),
        row(ReceiverMaxCycleTime, "Receiver max cycle time doing its work in ns"),
        row(ReceiverCycleTimeThresholdExceeded, "Receiver work cycle exceeded threshold count"),
        row(NameResolverMaxTime, "NameResolver max time in ns"),
        row(NameResolverTimeThresholdExceeded, "NameResolver exceeded threshold count"),
        row(AeronVersion, "Aeron software"),
        row(BytesCurrentlyMapped, "Bytes currently mapped"),
        row(RetransmittedBytes, "Retransmitted bytes"),
        row(RetransmitOverflow, "Retransmit Pool Overflow count"),
        row(ErrorFramesReceived, "Error Frames received"),
        row(ErrorFramesSent, "Error Frames sent"),
    ]
};

/// Number of system counters a 1.48 driver allocates.
pub const SYSTEM_COUNTER_COUNT: usize = SYSTEM_COUNTERS.len();

/// The value of the `AeronVersion` counter: `major << 16 | minor << 8 | patch`.
pub const fn semantic_version_compose(major: u8, minor: u8, patch: u8) -> i64 {
    ((major as i64) << 16) | ((minor as i64) << 8) | patch as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_id() {
        for (index, descriptor) in SYSTEM_COUNTERS.iter().enumerate() {
            assert_eq!(descriptor.id as usize, index);
        }
        assert_eq!(SYSTEM_COUNTER_COUNT, 40);
        assert_eq!(SYSTEM_COUNTERS[39].label, "Error Frames sent");
        assert_eq!(SYSTEM_COUNTERS[15].key(), [15, 0, 0, 0]);
        assert_eq!(semantic_version_compose(1, 48, 0), 77_824);
    }
}
