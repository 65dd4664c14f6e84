//! Counter type ids (`spec/counters.md` §5), as `aeron_counters.h` / `AeronCounters.java`
//! number them, with the label prefixes the driver uses.

// ---- Driver ----

/// Driver-wide statistics (`system_counters`); also the default type id.
pub const SYSTEM_COUNTER_TYPE_ID: i32 = 0;
/// Position a publication may write up to.
pub const PUBLISHER_LIMIT_TYPE_ID: i32 = 1;
pub const PUBLISHER_LIMIT_NAME: &str = "pub-lmt";
/// Bytes sent by a network publication.
pub const SENDER_POSITION_TYPE_ID: i32 = 2;
pub const SENDER_POSITION_NAME: &str = "snd-pos";
/// Highest position received on an image.
pub const RECEIVER_HWM_TYPE_ID: i32 = 3;
pub const RECEIVER_HWM_NAME: &str = "rcv-hwm";
/// One subscription's position on one image.
pub const SUBSCRIBER_POSITION_TYPE_ID: i32 = 4;
pub const SUBSCRIBER_POSITION_NAME: &str = "sub-pos";
/// Rebuild position of an image.
pub const RECEIVER_POSITION_TYPE_ID: i32 = 5;
pub const RECEIVER_POSITION_NAME: &str = "rcv-pos";
/// Send channel endpoint status.
pub const SEND_CHANNEL_STATUS_TYPE_ID: i32 = 6;
pub const SEND_CHANNEL_STATUS_NAME: &str = "snd-channel";
/// Receive channel endpoint status.
pub const RECEIVE_CHANNEL_STATUS_TYPE_ID: i32 = 7;
pub const RECEIVE_CHANNEL_STATUS_NAME: &str = "rcv-channel";
// Type id 8 is unused.
/// Flow-control window edge of a network publication.
pub const SENDER_LIMIT_TYPE_ID: i32 = 9;
pub const SENDER_LIMIT_NAME: &str = "snd-lmt";
/// Per-image indicators (cubic congestion control RTT and window).
pub const PER_IMAGE_TYPE_ID: i32 = 10;
/// Client liveness timestamp (epoch ms).
pub const CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID: i32 = 11;
pub const CLIENT_HEARTBEAT_TIMESTAMP_NAME: &str = "client-heartbeat";
/// Publisher position sampled by the conductor.
pub const PUBLISHER_POSITION_TYPE_ID: i32 = 12;
pub const PUBLISHER_POSITION_NAME: &str = "pub-pos (sampled)";
/// Sender back-pressure events.
pub const SENDER_BPE_TYPE_ID: i32 = 13;
pub const SENDER_BPE_NAME: &str = "snd-bpe";
/// Bound local socket address of a channel endpoint.
pub const LOCAL_SOCKADDR_TYPE_ID: i32 = 14;
pub const RCV_LOCAL_SOCKADDR_NAME: &str = "rcv-local-sockaddr";
pub const SND_LOCAL_SOCKADDR_NAME: &str = "snd-local-sockaddr";
/// Driver name resolver neighbours.
pub const NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID: i32 = 15;
/// Driver name resolver cache entries.
pub const NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID: i32 = 16;
/// Receivers tracked by min/tagged flow control.
pub const FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID: i32 = 17;
pub const FLOW_CONTROL_RECEIVERS_NAME: &str = "fc-receivers";
/// Number of MDC destinations of a send endpoint.
pub const CHANNEL_NUM_DESTINATIONS_TYPE_ID: i32 = 18;
pub const CHANNEL_NUM_DESTINATIONS_NAME: &str = "mdc-num-dest";
/// Reserved for the ef_vi transport (inclusive range).
pub const EF_VI_RESERVED_TYPE_IDS: std::ops::RangeInclusive<i32> = 50..=74;
/// Reserved for the DPDK transport (inclusive range).
pub const DPDK_RESERVED_TYPE_IDS: std::ops::RangeInclusive<i32> = 75..=99;

// ---- Archive (created by the archive, listed so tools can name them) ----

pub const ARCHIVE_RECORDING_POSITION_TYPE_ID: i32 = 100;
pub const ARCHIVE_ERROR_COUNT_TYPE_ID: i32 = 101;
pub const ARCHIVE_CONTROL_SESSIONS_TYPE_ID: i32 = 102;
pub const ARCHIVE_MAX_CYCLE_TIME_TYPE_ID: i32 = 103;
pub const ARCHIVE_CYCLE_TIME_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 104;
pub const ARCHIVE_RECORDER_MAX_WRITE_TIME_TYPE_ID: i32 = 105;
pub const ARCHIVE_RECORDER_TOTAL_WRITE_BYTES_TYPE_ID: i32 = 106;
pub const ARCHIVE_RECORDER_TOTAL_WRITE_TIME_TYPE_ID: i32 = 107;
pub const ARCHIVE_REPLAYER_MAX_READ_TIME_TYPE_ID: i32 = 108;
pub const ARCHIVE_REPLAYER_TOTAL_READ_BYTES_TYPE_ID: i32 = 109;
pub const ARCHIVE_REPLAYER_TOTAL_READ_TIME_TYPE_ID: i32 = 110;
pub const ARCHIVE_RECORDING_SESSION_COUNT_TYPE_ID: i32 = 111;
pub const ARCHIVE_REPLAY_SESSION_COUNT_TYPE_ID: i32 = 112;

// ---- Cluster (created by the cluster components) ----

pub const CLUSTER_CONSENSUS_MODULE_STATE_TYPE_ID: i32 = 200;
pub const CLUSTER_NODE_ROLE_TYPE_ID: i32 = 201;
pub const CLUSTER_CONTROL_TOGGLE_TYPE_ID: i32 = 202;
pub const CLUSTER_COMMIT_POSITION_TYPE_ID: i32 = 203;
pub const CLUSTER_RECOVERY_STATE_TYPE_ID: i32 = 204;
pub const CLUSTER_SNAPSHOT_COUNTER_TYPE_ID: i32 = 205;
pub const CLUSTER_ELECTION_STATE_TYPE_ID: i32 = 207;
pub const CLUSTER_BACKUP_STATE_TYPE_ID: i32 = 208;
pub const CLUSTER_BACKUP_LIVE_LOG_POSITION_TYPE_ID: i32 = 209;
pub const CLUSTER_BACKUP_QUERY_DEADLINE_TYPE_ID: i32 = 210;
pub const CLUSTER_BACKUP_ERROR_COUNT_TYPE_ID: i32 = 211;
pub const CLUSTER_CONSENSUS_MODULE_ERROR_COUNT_TYPE_ID: i32 = 212;
pub const CLUSTER_CLIENT_TIMEOUT_COUNT_TYPE_ID: i32 = 213;
pub const CLUSTER_INVALID_REQUEST_COUNT_TYPE_ID: i32 = 214;
pub const CLUSTER_CLUSTERED_SERVICE_ERROR_COUNT_TYPE_ID: i32 = 215;
pub const CLUSTER_MAX_CYCLE_TIME_TYPE_ID: i32 = 216;
pub const CLUSTER_CYCLE_TIME_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 217;
pub const CLUSTER_CLUSTERED_SERVICE_MAX_CYCLE_TIME_TYPE_ID: i32 = 218;
pub const CLUSTER_CLUSTERED_SERVICE_CYCLE_TIME_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 219;
pub const CLUSTER_STANDBY_STATE_TYPE_ID: i32 = 220;
pub const CLUSTER_STANDBY_ERROR_COUNT_TYPE_ID: i32 = 221;
pub const CLUSTER_STANDBY_HEARTBEAT_RESPONSE_COUNT_TYPE_ID: i32 = 222;
pub const CLUSTER_STANDBY_CONTROL_TOGGLE_TYPE_ID: i32 = 223;
pub const TRANSITION_MODULE_STATE_TYPE_ID: i32 = 224;
pub const TRANSITION_MODULE_CONTROL_TOGGLE_TYPE_ID: i32 = 225;
pub const TRANSITION_MODULE_ERROR_COUNT_TYPE_ID: i32 = 226;
pub const CLUSTER_STANDBY_MAX_CYCLE_TIME_TYPE_ID: i32 = 227;
pub const CLUSTER_STANDBY_CYCLE_TIME_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 228;
pub const TRANSITION_MODULE_MAX_CYCLE_TIME_TYPE_ID: i32 = 229;
pub const TRANSITION_MODULE_CYCLE_TIME_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 230;
pub const CLUSTER_STANDBY_SOURCE_MEMBER_ID_TYPE_ID: i32 = 231;
pub const CLUSTER_STANDBY_SNAPSHOT_COUNTER_TYPE_ID: i32 = 232;
pub const NODE_CONTROL_TOGGLE_TYPE_ID: i32 = 233;
pub const CLUSTER_TOTAL_MAX_SNAPSHOT_DURATION_TYPE_ID: i32 = 234;
pub const CLUSTER_TOTAL_SNAPSHOT_DURATION_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 235;
pub const CLUSTERED_SERVICE_MAX_SNAPSHOT_DURATION_TYPE_ID: i32 = 236;
pub const CLUSTERED_SERVICE_SNAPSHOT_DURATION_THRESHOLD_EXCEEDED_TYPE_ID: i32 = 237;
pub const CLUSTER_ELECTION_COUNT_TYPE_ID: i32 = 238;
pub const CLUSTER_LEADERSHIP_TERM_ID_TYPE_ID: i32 = 239;
pub const CLUSTER_BACKUP_SNAPSHOT_RETRIEVE_COUNT_TYPE_ID: i32 = 240;

/// Short name of a driver counter type, for tools (`None` for other types).
pub fn driver_type_name(type_id: i32) -> Option<&'static str> {
    Some(match type_id {
        SYSTEM_COUNTER_TYPE_ID => "system",
        PUBLISHER_LIMIT_TYPE_ID => PUBLISHER_LIMIT_NAME,
        SENDER_POSITION_TYPE_ID => SENDER_POSITION_NAME,
        RECEIVER_HWM_TYPE_ID => RECEIVER_HWM_NAME,
        SUBSCRIBER_POSITION_TYPE_ID => SUBSCRIBER_POSITION_NAME,
        RECEIVER_POSITION_TYPE_ID => RECEIVER_POSITION_NAME,
        SEND_CHANNEL_STATUS_TYPE_ID => SEND_CHANNEL_STATUS_NAME,
        RECEIVE_CHANNEL_STATUS_TYPE_ID => RECEIVE_CHANNEL_STATUS_NAME,
        SENDER_LIMIT_TYPE_ID => SENDER_LIMIT_NAME,
        PER_IMAGE_TYPE_ID => "per-image",
        CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID => CLIENT_HEARTBEAT_TIMESTAMP_NAME,
        PUBLISHER_POSITION_TYPE_ID => "pub-pos",
        SENDER_BPE_TYPE_ID => SENDER_BPE_NAME,
        LOCAL_SOCKADDR_TYPE_ID => "local-sockaddr",
        NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID => "name-resolver-neighbors",
        NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID => "name-resolver-cache-entries",
        FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID => FLOW_CONTROL_RECEIVERS_NAME,
        CHANNEL_NUM_DESTINATIONS_TYPE_ID => CHANNEL_NUM_DESTINATIONS_NAME,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_type_ids_match_the_spec_table() {
        let ids = [
            SYSTEM_COUNTER_TYPE_ID,
            PUBLISHER_LIMIT_TYPE_ID,
            SENDER_POSITION_TYPE_ID,
            RECEIVER_HWM_TYPE_ID,
            SUBSCRIBER_POSITION_TYPE_ID,
            RECEIVER_POSITION_TYPE_ID,
            SEND_CHANNEL_STATUS_TYPE_ID,
            RECEIVE_CHANNEL_STATUS_TYPE_ID,
            SENDER_LIMIT_TYPE_ID,
            PER_IMAGE_TYPE_ID,
            CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID,
            PUBLISHER_POSITION_TYPE_ID,
            SENDER_BPE_TYPE_ID,
            LOCAL_SOCKADDR_TYPE_ID,
            NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID,
            NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID,
            FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID,
            CHANNEL_NUM_DESTINATIONS_TYPE_ID,
        ];
        assert_eq!(ids, [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
        assert!(ids.iter().all(|&id| driver_type_name(id).is_some()));
        assert_eq!(driver_type_name(8), None);
        assert_eq!(driver_type_name(PUBLISHER_POSITION_TYPE_ID), Some("pub-pos"));
        assert_eq!(CLUSTER_BACKUP_SNAPSHOT_RETRIEVE_COUNT_TYPE_ID, 240);
    }
}
