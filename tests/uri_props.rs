//! Property tests of channel URIs: printing then parsing gives back the same URI, typed
//! accessors agree with what was written, and no input makes parsing or access panic.
use aeronrs::uri::keys::KNOWN_KEYS;
use aeronrs::uri::string_builder::{MEDIA_KEY, PREFIX_KEY};
use aeronrs::uri::value_parse::{parse_duration_ns, parse_size};
use aeronrs::uri::{ChannelUri, Media, UriStringBuilder};
use proptest::prelude::*;

fn key() -> impl Strategy<Value = String> {
    prop_oneof![prop::sample::select(KNOWN_KEYS).prop_map(str::to_string), "[a-z][a-z0-9.-]{0,15}"]
}

/// Any printable text without the parameter separator.
fn value() -> impl Strategy<Value = String> {
    "[^|\\x00-\\x1f]{1,24}"
}

fn channel_uri() -> impl Strategy<Value = ChannelUri> {
    (any::<bool>(), any::<bool>(), prop::collection::vec((key(), value()), 0..12)).prop_map(
        |(spy, udp, params)| {
            let mut uri = ChannelUri::new(if udp { Media::Udp } else { Media::Ipc });
            uri.set_spy(spy);
            for (k, v) in params {
                uri.put(&k, &v).unwrap();
            }
            uri
        },
    )
}

/// Text shaped like a URI, so parsing gets past the scheme and into parameters.
fn uri_like() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "aeron:udp?",
            "aeron:ipc?",
            "aeron-spy:aeron:udp?",
            "aeron:ipc",
            "aeron:",
            "",
        ]),
        prop::collection::vec((key(), "[^|]{0,12}", prop::sample::select(vec!["=", "", "=="])), 0..8),
    )
        .prop_map(|(start, params)| {
            let params: Vec<String> = params.into_iter().map(|(k, v, eq)| format!("{k}{eq}{v}")).collect();
            format!("{start}{}", params.join("|"))
        })
}

fn exercise_accessors(uri: &ChannelUri) {
    let _ = uri.validate_known_params();
    let _ = uri.validate_udp_channel();
    let _ = uri.initial_position(65536).map(|p| p.map(|p| p.position(65536)));
    let _ = uri.publication_window_length(1408, 65536);
    let _ = (uri.endpoint(), uri.interface(), uri.flow_control(), uri.tags(), uri.session_id());
}

proptest! {
    #[test]
    fn printed_uris_parse_back_equal(uri in channel_uri()) {
        let text = uri.to_string();
        let parsed = ChannelUri::parse(&text).unwrap();
        prop_assert_eq!(&parsed, &uri);
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn parsing_is_canonical(text in uri_like()) {
        if let Ok(uri) = ChannelUri::parse(&text) {
            let again = ChannelUri::parse(&uri.to_string()).unwrap();
            prop_assert_eq!(&again, &uri);
            exercise_accessors(&uri);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,64}") {
        if let Ok(uri) = ChannelUri::parse(&text) {
            exercise_accessors(&uri);
        }
        let _ = UriStringBuilder::parse(&text);
    }

    #[test]
    fn typed_values_read_back(mtu_units in 2u32..=2047, shift in 16u32..=30, ttl in 0i64..100_000,
                              linger_ms in 0u64..1_000_000, session in any::<i32>(), gtag in any::<i64>()) {
        let text = format!(
            "aeron:udp?endpoint=localhost:1|mtu={}|term-length={}|ttl={ttl}|linger={linger_ms}ms\
             |session-id={session}|gtag={gtag}",
            mtu_units * 32, 1u64 << shift
        );
        let uri = ChannelUri::parse(&text).unwrap();
        prop_assert_eq!(uri.mtu().unwrap(), Some(mtu_units * 32));
        prop_assert_eq!(uri.term_length().unwrap(), Some(1u32 << shift));
        prop_assert_eq!(uri.ttl().unwrap(), Some(ttl.min(255) as u8));
        prop_assert_eq!(uri.linger_ns().unwrap(), Some(linger_ms * 1_000_000));
        prop_assert_eq!(uri.session_id().unwrap(), Some(aeronrs::uri::SessionIdParam::Id(session)));
        prop_assert_eq!(uri.group_tag().unwrap(), Some(gtag));
    }

    #[test]
    fn sizes_and_durations_scale(n in 0u64..1 << 33, unit in 0usize..4) {
        let (suffix, shift) = [("", 0), ("k", 10), ("M", 20), ("g", 30)][unit];
        prop_assert_eq!(parse_size("x", &format!("{n}{suffix}")).unwrap(), n << shift);
        let (suffix, scale) = [("ns", 1u64), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)][unit];
        prop_assert_eq!(parse_duration_ns("x", &format!("{n}{suffix}")).unwrap(), n * scale);
    }

    #[test]
    fn string_builder_round_trips(prefix in prop::option::of("[a-z-]{1,10}"), media in "[a-z]{1,5}",
                                  params in prop::collection::vec((key(), "[^|=?]{1,16}"), 0..8)) {
        let mut builder = UriStringBuilder::new();
        builder.put(PREFIX_KEY, prefix.as_deref()).unwrap();
        builder.put(MEDIA_KEY, Some(&media)).unwrap();
        for (k, v) in &params {
            builder.put(k, Some(v)).unwrap();
        }
        let text = builder.build().unwrap();
        let parsed = UriStringBuilder::parse(&text).unwrap();
        prop_assert_eq!(parsed.build().unwrap(), text);
        for (k, _) in &params {
            prop_assert_eq!(parsed.get(k), builder.get(k));
        }
    }
}
