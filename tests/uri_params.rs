//! Typed URI parameters: every key of `spec/channel-uri.md` read from a URI, and each bad
//! value rejected naming the parameter, as a parameter error (EINVAL, which the driver
//! answers as GENERIC_ERROR, as Aeron C's does).
use aeronrs::Error;
use aeronrs::uri::{
    ChannelUri, CongestionControl, ControlMode, FlowControlStrategy, InferableBoolean, InitialPosition,
    Media, SessionIdParam, Tags, TimestampOffset,
};
use aeronrs::util::error::AeronErrorCode;

fn uri(text: &str) -> ChannelUri {
    ChannelUri::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn assert_invalid<T: std::fmt::Debug>(result: Result<T, Error>, starts: &str, contains: &str) {
    let err = result.expect_err(starts);
    assert_eq!((err.code(), err.aeron_code()), (libc::EINVAL, None), "{err}");
    assert!(err.message().starts_with(starts), "{err} should start with {starts}");
    assert!(err.message().contains(contains), "{err} should contain {contains}");
}

#[test]
fn every_udp_parameter_reads_typed() {
    let u = uri("aeron:udp?endpoint=224.0.1.1:40456|interface=192.168.1.0/24|control=10.0.0.1:40457\
        |control-mode=dynamic|ttl=300|mtu=8k|term-length=128k|init-term-id=100|term-id=102|term-offset=4096\
        |session-id=tag:77|linger=5s|reliable=false|tags=1001,1002|sparse=true|eos=false|tether=false\
        |group=infer|rejoin=false|ssc=true|so-sndbuf=2m|so-rcvbuf=256k|rcv-wnd=64k|cc=cubic\
        |fc=tagged,g:42/2,t:1s|gtag=-9|alias=my stream|media-rcv-ts-offset=reserved\
        |channel-rcv-ts-offset=8|channel-snd-ts-offset=16|response-correlation-id=0x10\
        |response-endpoint=[::1]:5000|nak-delay=100us|untethered-window-limit-timeout=3s\
        |untethered-resting-timeout=1500ms|max-resend=13|stream-id=-654|pub-wnd=32k|ats=false");
    assert_eq!(u.media(), Media::Udp);
    assert_eq!(u.endpoint().unwrap().unwrap().to_string(), "224.0.1.1:40456");
    assert_eq!(u.interface().unwrap().unwrap().prefix_length, Some(24));
    assert_eq!(u.control().unwrap().unwrap().port, 40457);
    assert_eq!(u.control_mode().unwrap(), Some(ControlMode::Dynamic));
    assert_eq!(u.ttl().unwrap(), Some(255), "clamped");
    assert_eq!(u.mtu().unwrap(), Some(8192));
    assert_eq!(u.term_length().unwrap(), Some(131072));
    let position = u.initial_position(16 << 20).unwrap().unwrap();
    assert_eq!(position, InitialPosition { initial_term_id: 100, term_id: 102, term_offset: 4096 });
    assert_eq!(position.position(131072), 2 * 131072 + 4096);
    assert_eq!(u.session_id().unwrap(), Some(SessionIdParam::Tag(77)));
    assert_eq!(u.linger_ns().unwrap(), Some(5_000_000_000));
    assert_eq!(u.reliable().unwrap(), Some(false));
    assert_eq!(u.tags().unwrap(), Some(Tags { channel_tag: Some(1001), entity_tag: Some(1002) }));
    assert_eq!(
        (u.sparse().unwrap(), u.eos().unwrap(), u.tether().unwrap()),
        (Some(true), Some(false), Some(false))
    );
    assert_eq!(u.group().unwrap(), Some(InferableBoolean::Infer));
    assert_eq!(u.rejoin().unwrap(), Some(false));
    assert_eq!(u.spies_simulate_connection().unwrap(), Some(true));
    assert_eq!(u.socket_sndbuf_length().unwrap(), Some(2 << 20));
    assert_eq!(u.socket_rcvbuf_length().unwrap(), Some(256 << 10));
    assert_eq!(u.receiver_window_length().unwrap(), Some(64 << 10));
    assert_eq!(u.congestion_control().unwrap(), Some(CongestionControl::Cubic));
    let fc = u.flow_control().unwrap().unwrap();
    assert_eq!(
        (fc.strategy, fc.group_tag, fc.group_min_size),
        (FlowControlStrategy::Tagged, Some(42), Some(2))
    );
    assert_eq!(fc.receiver_timeout_ns, Some(1_000_000_000));
    assert_eq!(u.group_tag().unwrap(), Some(-9));
    assert_eq!(u.alias(), Some("my stream"));
    assert_eq!(u.media_rcv_timestamp_offset().unwrap(), Some(TimestampOffset::Reserved));
    assert_eq!(u.channel_rcv_timestamp_offset().unwrap(), Some(TimestampOffset::Offset(8)));
    assert_eq!(u.channel_snd_timestamp_offset().unwrap(), Some(TimestampOffset::Offset(16)));
    assert_eq!(u.response_correlation_id().unwrap(), Some(16), "C strtoll base 0");
    assert_eq!(u.response_endpoint().unwrap().unwrap().host, "::1");
    assert_eq!(u.nak_delay_ns().unwrap(), Some(100_000));
    assert_eq!(u.untethered_window_limit_timeout_ns().unwrap(), Some(3_000_000_000));
    assert_eq!(u.untethered_resting_timeout_ns().unwrap(), Some(1_500_000_000));
    assert_eq!(u.max_resend().unwrap(), Some(13));
    assert_eq!(u.stream_id().unwrap(), Some(-654));
    assert_eq!(u.publication_window_length(8192, 131072).unwrap(), Some(32768));
    assert_eq!(u.ats().unwrap(), Some(false));
    u.validate_known_params().unwrap();
    u.validate_udp_channel().unwrap();
}

#[test]
fn absent_parameters_are_none() {
    let u = uri("aeron:ipc");
    assert_eq!(u.endpoint().unwrap(), None);
    assert_eq!(u.mtu().unwrap(), None);
    assert_eq!(u.initial_position(65536).unwrap(), None);
    assert_eq!(u.flow_control().unwrap(), None);
    assert_eq!(u.alias(), None);
    assert_eq!(u.publication_window_length(1408, 65536).unwrap(), None);
    u.validate_known_params().unwrap();
}

#[test]
fn bad_values_name_the_parameter() {
    let cases: &[(&str, &str, &str)] = &[
        ("endpoint=127.0.0.1", "invalid endpoint=127.0.0.1:", "missing port"),
        ("mtu=1000", "invalid mtu=1000:", "multiple of 32"),
        ("mtu=32", "invalid mtu=32:", "> 32"),
        ("mtu=65536", "invalid mtu=65536:", "<= 65504"),
        ("mtu=1.5k", "invalid mtu=1.5k:", "not a size"),
        ("term-length=1000", "invalid term-length=1000:", "65536..=1073741824"),
        ("term-length=96k", "invalid term-length=96k:", "power of two"),
        ("term-length=2g", "invalid term-length=2g:", "65536..=1073741824"),
        ("sparse=yes", "invalid sparse=yes:", "true or false"),
        ("reliable=1", "invalid reliable=1:", "true or false"),
        ("linger=5min", "invalid linger=5min:", "duration unit"),
        ("control-mode=auto", "invalid control-mode=auto:", "manual, dynamic or response"),
        ("group=maybe", "invalid group=maybe:", "true, false or infer"),
        ("cc=bbr", "invalid cc=bbr:", "static or cubic"),
        ("fc=fastest", "invalid fc=fastest:", "unknown strategy"),
        ("ttl=-1", "invalid ttl=-1:", ">= 0"),
        ("session-id=abc", "invalid session-id=abc:", "32-bit integer"),
        ("session-id=tag:x", "invalid session-id=tag:x:", "unsigned decimal"),
        ("tags=a,b", "invalid tags=a,b:", "tag 'a'"),
        ("so-sndbuf=4g", "invalid so-sndbuf=4g:", "<= 2147483647"),
        ("rcv-wnd=0", "invalid rcv-wnd=0:", "> 0"),
        ("max-resend=0", "invalid max-resend=0:", "1..=256"),
        ("max-resend=257", "invalid max-resend=257:", "1..=256"),
        ("channel-rcv-ts-offset=-8", "invalid channel-rcv-ts-offset=-8:", "reserved"),
        ("gtag=0x", "invalid gtag=0x:", "64-bit integer"),
        ("stream-id=99999999999", "invalid stream-id=99999999999:", "32-bit"),
        ("interface=10.0.0.1/40", "invalid interface=10.0.0.1/40:", "prefix length"),
        ("response-endpoint=host", "invalid response-endpoint=host:", "missing port"),
        ("ats=on", "invalid ats=on:", "true or false"),
    ];
    for (param, starts, contains) in cases {
        let u = uri(&format!("aeron:udp?endpoint=127.0.0.1:1|{param}"));
        assert_invalid(u.validate_known_params(), starts, contains);
    }
}

#[test]
fn initial_position_rules() {
    let partial = uri("aeron:ipc?init-term-id=1|term-id=2");
    assert_invalid(partial.initial_position(65536), "init-term-id, term-id and term-offset", "together");
    let before = uri("aeron:ipc?init-term-id=5|term-id=4|term-offset=0");
    assert_invalid(before.initial_position(65536), "invalid term-id=4:", "before init-term-id=5");
    let wrapped = uri("aeron:ipc?init-term-id=2147483647|term-id=-2147483648|term-offset=0");
    assert_eq!(wrapped.initial_position(65536).unwrap().unwrap().position(65536), 65536, "term ids wrap");
    let unaligned = uri("aeron:ipc?init-term-id=0|term-id=0|term-offset=33");
    assert_invalid(unaligned.initial_position(65536), "invalid term-offset=33:", "multiple of 32");
    let beyond = uri("aeron:ipc?init-term-id=0|term-id=0|term-offset=65568");
    assert_invalid(beyond.initial_position(65536), "invalid term-offset=65568:", "0..=65536");
    let own_length = uri("aeron:ipc?term-length=128k|init-term-id=0|term-id=0|term-offset=65568");
    assert!(own_length.initial_position(65536).unwrap().is_some(), "uses the URI's term-length");
    let at_end = uri("aeron:ipc?init-term-id=0|term-id=0|term-offset=65536");
    assert!(at_end.initial_position(65536).unwrap().is_some());
}

#[test]
fn publication_window_bounds() {
    let u = uri("aeron:ipc?pub-wnd=1k");
    assert_invalid(u.publication_window_length(1408, 65536), "invalid pub-wnd=1k:", "1408..=32768");
    let u = uri("aeron:ipc?pub-wnd=64k");
    assert_invalid(u.publication_window_length(1408, 65536), "invalid pub-wnd=64k:", "mtu..=term-length/2");
    assert_eq!(uri("aeron:ipc?pub-wnd=32k").publication_window_length(1408, 65536).unwrap(), Some(32768));
}

#[test]
fn udp_channel_rules() {
    for ok in [
        "aeron:udp?endpoint=localhost:40123",
        "aeron:udp?control=localhost:40124|control-mode=dynamic",
        "aeron:udp?control-mode=manual",
        "aeron:udp?control-mode=response|control=localhost:1",
        "aeron:udp?tags=7",
        "aeron-spy:aeron:udp?endpoint=224.0.1.1:40456",
    ] {
        uri(ok).validate_udp_channel().unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    let err = uri("aeron:udp?control-mode=dynamic").validate_udp_channel().unwrap_err();
    assert!(err.message().contains("control-mode=dynamic requires control"), "{err}");
    let err = uri("aeron:udp?mtu=1408").validate_udp_channel().unwrap_err();
    assert!(err.message().contains("needs endpoint, control, tags or control-mode"), "{err}");
    assert_eq!(err.aeron_code(), Some(AeronErrorCode::InvalidChannel));
    assert!(uri("aeron:udp").validate_udp_channel().is_err());
    assert!(uri("aeron:ipc").validate_udp_channel().is_err());
    assert_invalid(
        uri("aeron:udp?endpoint=bad:xx").validate_udp_channel(),
        "invalid endpoint=bad:xx:",
        "port 'xx'",
    );
}

#[test]
fn vector_channels_parse() {
    // Channels used to make the golden vectors (vectors/README.md).
    for text in [
        "aeron:udp?endpoint=127.0.0.1:20121",
        "aeron:udp?endpoint=127.0.0.1:20121|interface=127.0.0.1:20122",
        "aeron:ipc?init-term-id=1000|term-id=1000|term-offset=40960",
        "aeron:udp?endpoint=127.0.0.1:20121|cc=cubic",
    ] {
        let u = uri(text);
        assert_eq!(u.to_string(), text);
        u.validate_known_params().unwrap();
    }
    let ipc = uri("aeron:ipc?init-term-id=1000|term-id=1000|term-offset=40960");
    assert_eq!(ipc.initial_position(65536).unwrap().unwrap().position(65536), 40960);
    // The channels that made the driver log errors in cnc-with-errors.
    assert!(uri("aeron:udp?endpoint=bad:xx").validate_udp_channel().is_err());
    assert!(uri("aeron:ipc?term-length=1000").term_length().is_err());
    assert!(uri("aeron:udp?endpoint=127.0.0.1:20121|mtu=1000").mtu().is_err());
}
