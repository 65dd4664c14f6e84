use super::*;

fn parse(uri: &str) -> UdpChannel {
    UdpChannel::parse(uri).unwrap_or_else(|e| panic!("{uri}: {e}"))
}

#[test]
fn unicast_endpoint_and_defaults() {
    let c = parse("aeron:udp?endpoint=127.0.0.1:20121");
    assert_eq!(c.remote_data, "127.0.0.1:20121".parse().unwrap());
    assert_eq!(c.remote_control, c.remote_data);
    assert_eq!(c.local_data, "0.0.0.0:0".parse().unwrap());
    assert_eq!(c.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:20121");
    assert!(!c.is_multicast && !c.has_explicit_control && c.has_explicit_endpoint);
    assert!(!c.has_group_semantics() && !c.is_multi_destination());
    assert_eq!((c.socket_sndbuf_length, c.socket_rcvbuf_length, c.receiver_window_length), (0, 0, None));
    assert_eq!(c.socket_rcvbuf_or(131072), 131072);
    let same = parse("aeron:udp?endpoint=127.0.0.1:20121|term-length=64k");
    assert_eq!(same.canonical_form, c.canonical_form, "stream parameters do not change the endpoint");
}

#[test]
fn interface_buffers_and_window() {
    let c = parse(
        "aeron:udp?endpoint=localhost:20121|interface=127.0.0.1:20122|so-sndbuf=64k|so-rcvbuf=1m|rcv-wnd=8k",
    );
    assert_eq!(c.local_data, "127.0.0.1:20122".parse().unwrap());
    assert_eq!(c.canonical_form, "UDP-127.0.0.1:20122-localhost:20121");
    assert_eq!((c.socket_sndbuf_length, c.socket_rcvbuf_length), (65536, 1 << 20));
    assert_eq!(c.receiver_window_length, Some(8192));
    assert_eq!(c.socket_sndbuf_or(7), 65536);
}

#[test]
fn ephemeral_endpoints_are_never_shared() {
    let a = parse("aeron:udp?endpoint=127.0.0.1:0");
    let b = parse("aeron:udp?endpoint=127.0.0.1:0");
    assert_ne!(a.canonical_form, b.canonical_form);
    let t = parse("aeron:udp?endpoint=127.0.0.1:0|tags=77");
    assert_eq!(t.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:0#77");
    assert_eq!(t.channel_tag, Some(77));
}

#[test]
fn ipv4_multicast_group_control_and_interface() {
    let c = parse("aeron:udp?endpoint=239.1.2.3:40456|interface=127.0.0.1|ttl=7");
    assert!(c.is_multicast && c.has_group_semantics() && !c.is_multi_destination());
    assert_eq!(c.remote_data, "239.1.2.3:40456".parse().unwrap());
    assert_eq!(c.remote_control, "239.1.2.4:40456".parse().unwrap());
    assert_eq!(c.local_data, "127.0.0.1:0".parse().unwrap());
    assert_eq!(c.local_control, c.local_data);
    assert!(c.interface_index > 0);
    assert_eq!(c.multicast_ttl, 7);
    assert_eq!(c.canonical_form, "UDP-127.0.0.1:0-239.1.2.3:40456");
    assert_eq!(parse("aeron:udp?endpoint=239.1.2.3:40456|interface=127.0.0.1").multicast_ttl, 0);
    // The default interface: one of this host's, never a unique suffix.
    let d = parse("aeron:udp?endpoint=239.1.2.3:40456");
    assert!(d.local_data.is_ipv4());
    assert_eq!(d.canonical_form, format!("UDP-{}-239.1.2.3:40456", format_source_identity(&d.local_data)));
}

#[test]
fn ipv6_multicast_group_control() {
    let c = parse("aeron:udp?endpoint=[ff0e::1:3]:40456|interface=[::1]");
    assert!(c.is_multicast);
    assert_eq!(c.remote_control, "[ff0e::1:4]:40456".parse().unwrap());
    assert_eq!(c.canonical_form, "UDP-[::1]:0-[ff0e::1:3]:40456");
    assert!(c.interface_index > 0);
}

#[test]
fn multicast_control_address_needs_an_odd_group() {
    for even in ["aeron:udp?endpoint=239.1.2.2:40456", "aeron:udp?endpoint=[ff0e::2]:40456"] {
        let e = UdpChannel::parse(even).unwrap_err();
        assert!(e.message().contains("multicast data address must be odd"), "{e}");
        assert_eq!(e.code(), libc::EINVAL);
    }
    // 255 is odd: the control group wraps to .0, as Aeron's byte arithmetic does.
    assert_eq!(
        multicast_control_address(&"224.0.1.255:9".parse().unwrap()).unwrap(),
        "224.0.1.0:9".parse().unwrap()
    );
}

#[test]
fn dynamic_mdc_publication_and_its_subscription() {
    let p = parse("aeron:udp?control=127.0.0.1:40457|control-mode=dynamic");
    assert!(p.is_multi_destination() && p.has_group_semantics() && p.has_explicit_control);
    assert_eq!(p.control_mode, UdpControlMode::Dynamic);
    assert_eq!(p.local_control, "127.0.0.1:40457".parse().unwrap());
    assert_eq!(p.remote_data, "0.0.0.0:0".parse().unwrap());
    assert_eq!(p.canonical_form, "UDP-127.0.0.1:40457-0.0.0.0:0");
    let s = parse("aeron:udp?endpoint=127.0.0.1:40458|control=127.0.0.1:40457|control-mode=dynamic");
    assert_eq!(s.remote_data, "127.0.0.1:40458".parse().unwrap());
    assert_eq!(s.local_control, "127.0.0.1:40457".parse().unwrap());
    assert_eq!(s.canonical_form, "UDP-127.0.0.1:40457-127.0.0.1:40458");
    let e = UdpChannel::parse("aeron:udp?control-mode=dynamic").unwrap_err();
    assert_eq!(e.aeron_code(), Some(AeronErrorCode::InvalidChannel));
    assert!(e.message().contains("requires control"), "{e}");
    let ephemeral = parse("aeron:udp?control=127.0.0.1:0|control-mode=dynamic");
    assert!(
        ephemeral.canonical_form.starts_with("UDP-127.0.0.1:0-0.0.0.0:0-"),
        "{}",
        ephemeral.canonical_form
    );
}

#[test]
fn manual_and_tag_only_channels() {
    let a = parse("aeron:udp?control-mode=manual");
    let b = parse("aeron:udp?control-mode=manual");
    assert_eq!(a.control_mode, UdpControlMode::Manual);
    assert!(a.is_wildcard() && a.is_multi_destination());
    assert!(a.canonical_form.starts_with("UDP-0.0.0.0:0-0.0.0.0:0-"));
    assert_ne!(a.canonical_form, b.canonical_form);
    assert_eq!(parse("aeron:udp?control-mode=manual|tags=9").canonical_form, "UDP-0.0.0.0:0-0.0.0.0:0#9");
    let t = parse("aeron:udp?tags=5");
    assert!(t.is_wildcard() && !t.has_explicit_endpoint);
    assert_eq!(t.canonical_form, "UDP-0.0.0.0:0-0.0.0.0:0#5");
    let d =
        UdpChannel::parse_destination("aeron:udp?endpoint=127.0.0.1:0", &mut DefaultNameResolver).unwrap();
    assert_eq!(d.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:0", "destinations are never made unique");
}

#[test]
fn tag_references() {
    let endpoint = parse("aeron:udp?endpoint=127.0.0.1:5000|tags=7");
    assert!(parse("aeron:udp?tags=7").matches_tag(&endpoint, None, None).unwrap());
    assert!(parse("aeron:udp?endpoint=127.0.0.1:5000|tags=7").matches_tag(&endpoint, None, None).unwrap());
    assert!(!parse("aeron:udp?tags=8").matches_tag(&endpoint, None, None).unwrap());
    assert!(!parse("aeron:udp?endpoint=127.0.0.1:5000").matches_tag(&endpoint, None, None).unwrap());
    let e = parse("aeron:udp?endpoint=127.0.0.1:5001|tags=7").matches_tag(&endpoint, None, None).unwrap_err();
    assert!(e.message().contains("mismatched endpoint or control"), "{e}");
    let e = parse("aeron:udp?tags=7|control-mode=manual").matches_tag(&endpoint, None, None).unwrap_err();
    assert!(e.message().contains("mismatched control-mode"), "{e}");
    // An ephemeral endpoint is matched by its bound address.
    let ephemeral = parse("aeron:udp?endpoint=127.0.0.1:0|tags=3");
    let bound = Some("127.0.0.1:41000".parse().unwrap());
    assert!(parse("aeron:udp?endpoint=127.0.0.1:41000|tags=3").matches_tag(&ephemeral, None, bound).unwrap());
}

#[test]
fn refusals_say_why() {
    let refused = |uri: &str| UdpChannel::parse(uri).unwrap_err();
    let e = refused("aeron:udp?mtu=1408");
    assert_eq!(e.aeron_code(), Some(AeronErrorCode::InvalidChannel));
    // As Aeron C's driver: a bad port is EINVAL (GENERIC_ERROR on the wire, vectors §12),
    // a name that does not resolve UNKNOWN_HOST.
    let e = refused("aeron:udp?endpoint=bad:xx");
    assert!(e.message().contains("xx"), "{e}");
    assert_eq!((e.code(), e.aeron_code()), (libc::EINVAL, None));
    let e = refused("aeron:udp?endpoint=no-such-host.invalid:40456");
    assert_eq!(e.aeron_code(), Some(AeronErrorCode::UnknownHost), "{e}");
    assert!(e.message().contains("unable to resolve host=(no-such-host.invalid)"), "{e}");
    assert!(e.message().ends_with("channel=aeron:udp?endpoint=no-such-host.invalid:40456"), "{e}");
    assert!(refused("aeron:ipc").message().contains("UDP channels must use UDP URIs"));
    let e = refused("aeron:udp?endpoint=239.1.2.3:40456|interface=203.0.113.77");
    assert!(e.message().contains("could not find matching interface"), "{e}");
    let spy = parse("aeron-spy:aeron:udp?endpoint=127.0.0.1:20121");
    assert_eq!(spy.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:20121");
}

#[test]
fn response_channels_take_the_shape_of_their_addresses() {
    // A response subscription (and a response publication) naming the responder's control
    // address: bound there (publication) or sending there (subscription), and shared.
    let c = parse("aeron:udp?control=127.0.0.1:20126|control-mode=response");
    assert!(c.is_response() && c.has_explicit_control && !c.has_explicit_endpoint);
    assert!(!c.is_multi_destination() && !c.has_group_semantics());
    assert_eq!(c.local_control, "127.0.0.1:20126".parse().unwrap());
    assert_eq!(c.remote_data, "0.0.0.0:0".parse().unwrap());
    assert_eq!(c.canonical_form, "UDP-127.0.0.1:20126-0.0.0.0:0");
    assert_eq!(
        parse("aeron:udp?control-mode=response|control=127.0.0.1:20126").canonical_form,
        c.canonical_form
    );
    // With no address at all it is valid, and never shared.
    let (a, b) = (parse("aeron:udp?control-mode=response"), parse("aeron:udp?control-mode=response"));
    assert!(a.is_response() && a.is_wildcard());
    assert_ne!(a.canonical_form, b.canonical_form);
    // The control mode is no part of the canonical form: a plain channel on the same
    // address shares the endpoint (the conductor refuses mixing them on one stream).
    assert_eq!(parse("aeron:udp?control=127.0.0.1:20126").canonical_form, c.canonical_form);
    assert!(!parse("aeron:udp?control=127.0.0.1:20126").is_response());
}
