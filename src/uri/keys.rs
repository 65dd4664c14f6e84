//! Parameter keys and fixed values of channel URIs (`spec/channel-uri.md` §2-3).
#![forbid(unsafe_code)]

pub const AERON_SCHEME: &str = "aeron";
pub const SPY_QUALIFIER: &str = "aeron-spy";
pub const UDP_MEDIA: &str = "udp";
pub const IPC_MEDIA: &str = "ipc";

/// Longest URI Aeron accepts (C: 4096 bytes including the NUL).
pub const MAX_URI_LENGTH: usize = 4095;

pub const ENDPOINT: &str = "endpoint";
pub const INTERFACE: &str = "interface";
pub const CONTROL: &str = "control";
pub const CONTROL_MODE: &str = "control-mode";
pub const TTL: &str = "ttl";
pub const MTU: &str = "mtu";
pub const TERM_LENGTH: &str = "term-length";
pub const INITIAL_TERM_ID: &str = "init-term-id";
pub const TERM_ID: &str = "term-id";
pub const TERM_OFFSET: &str = "term-offset";
pub const SESSION_ID: &str = "session-id";
pub const LINGER: &str = "linger";
pub const RELIABLE: &str = "reliable";
pub const TAGS: &str = "tags";
pub const SPARSE: &str = "sparse";
pub const EOS: &str = "eos";
pub const TETHER: &str = "tether";
pub const GROUP: &str = "group";
pub const REJOIN: &str = "rejoin";
pub const SPIES_SIMULATE_CONNECTION: &str = "ssc";
pub const SOCKET_SNDBUF: &str = "so-sndbuf";
pub const SOCKET_RCVBUF: &str = "so-rcvbuf";
pub const RECEIVER_WINDOW: &str = "rcv-wnd";
pub const CONGESTION_CONTROL: &str = "cc";
pub const FLOW_CONTROL: &str = "fc";
pub const GROUP_TAG: &str = "gtag";
pub const ALIAS: &str = "alias";
pub const MEDIA_RCV_TIMESTAMP_OFFSET: &str = "media-rcv-ts-offset";
pub const CHANNEL_RCV_TIMESTAMP_OFFSET: &str = "channel-rcv-ts-offset";
pub const CHANNEL_SND_TIMESTAMP_OFFSET: &str = "channel-snd-ts-offset";
pub const RESPONSE_CORRELATION_ID: &str = "response-correlation-id";
pub const RESPONSE_ENDPOINT: &str = "response-endpoint";
pub const NAK_DELAY: &str = "nak-delay";
pub const UNTETHERED_WINDOW_LIMIT_TIMEOUT: &str = "untethered-window-limit-timeout";
pub const UNTETHERED_RESTING_TIMEOUT: &str = "untethered-resting-timeout";
pub const MAX_RESEND: &str = "max-resend";
pub const STREAM_ID: &str = "stream-id";
pub const PUBLICATION_WINDOW: &str = "pub-wnd";
pub const ATS: &str = "ats";

/// Every key of the spec. Other keys are kept and printed unchanged, as Aeron does.
pub const KNOWN_KEYS: &[&str] = &[
    ENDPOINT,
    INTERFACE,
    CONTROL,
    CONTROL_MODE,
    TTL,
    MTU,
    TERM_LENGTH,
    INITIAL_TERM_ID,
    TERM_ID,
    TERM_OFFSET,
    SESSION_ID,
    LINGER,
    RELIABLE,
    TAGS,
    SPARSE,
    EOS,
    TETHER,
    GROUP,
    REJOIN,
    SPIES_SIMULATE_CONNECTION,
    SOCKET_SNDBUF,
    SOCKET_RCVBUF,
    RECEIVER_WINDOW,
    CONGESTION_CONTROL,
    FLOW_CONTROL,
    GROUP_TAG,
    ALIAS,
    MEDIA_RCV_TIMESTAMP_OFFSET,
    CHANNEL_RCV_TIMESTAMP_OFFSET,
    CHANNEL_SND_TIMESTAMP_OFFSET,
    RESPONSE_CORRELATION_ID,
    RESPONSE_ENDPOINT,
    NAK_DELAY,
    UNTETHERED_WINDOW_LIMIT_TIMEOUT,
    UNTETHERED_RESTING_TIMEOUT,
    MAX_RESEND,
    STREAM_ID,
    PUBLICATION_WINDOW,
    ATS,
];

pub const CONTROL_MODE_MANUAL: &str = "manual";
pub const CONTROL_MODE_DYNAMIC: &str = "dynamic";
pub const CONTROL_MODE_RESPONSE: &str = "response";
pub const GROUP_INFER: &str = "infer";
pub const CC_STATIC: &str = "static";
pub const CC_CUBIC: &str = "cubic";
pub const FC_MAX: &str = "max";
pub const FC_MIN: &str = "min";
pub const FC_TAGGED: &str = "tagged";
/// `session-id=tag:<n>` refers to another publication by its entity tag.
pub const TAG_PREFIX: &str = "tag:";
/// Timestamp offsets may name the data header's reserved value field.
pub const TIMESTAMP_OFFSET_RESERVED: &str = "reserved";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_are_unique_and_well_formed() {
        let mut keys = KNOWN_KEYS.to_vec();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), KNOWN_KEYS.len());
        assert!(KNOWN_KEYS.iter().all(|k| !k.is_empty() && !k.contains(['|', '=', '?'])));
    }
}
