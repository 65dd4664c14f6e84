//! The driver's answers to IPC publication/subscription commands, checked byte for byte
//! with a raw client (`spec/control-protocol.md`, `spec/log-buffer.md` §3-4,
//! `spec/counters.md` §5-7).

#[path = "support/raw_client.rs"]
mod raw_client;

use aeronrs::command::Response;
use aeronrs::concurrent::mapped_file::map_existing;
use aeronrs::driver::MediaDriver;
use raw_client::{RawClient, test_context, wait_until};

const STREAM: i32 = 1001;

struct Ready {
    correlation_id: i64,
    registration_id: i64,
    session_id: i32,
    stream_id: i32,
    limit_counter_id: i32,
    status_id: i32,
    log_file: String,
    exclusive: bool,
}

fn expect_publication(client: &mut RawClient, correlation_id: i64) -> Ready {
    let record = client.expect_correlated(correlation_id);
    match record.response() {
        Response::PublicationReady(p) | Response::ExclusivePublicationReady(p) => Ready {
            correlation_id: p.correlation_id,
            registration_id: p.registration_id,
            session_id: p.session_id,
            stream_id: p.stream_id,
            limit_counter_id: p.position_limit_counter_id,
            status_id: p.channel_status_indicator_id,
            log_file: p.log_file_name_str().unwrap().to_string(),
            exclusive: matches!(record.response(), Response::ExclusivePublicationReady(_)),
        },
        other => panic!("expected publication ready for {correlation_id}, got {other:?}"),
    }
}

/// (image correlation id, session, stream, subscription id, sub-pos id, log file, source)
fn expect_image(client: &mut RawClient, subscription_id: i64) -> (i64, i32, i32, i64, i32, String, String) {
    let record = client.expect(
        "ON_AVAILABLE_IMAGE",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription_id),
    );
    let Response::AvailableImage(i) = record.response() else { unreachable!() };
    (
        i.correlation_id,
        i.session_id,
        i.stream_id,
        i.subscription_registration_id,
        i.subscriber_position_id,
        String::from_utf8(i.log_file_name.to_vec()).unwrap(),
        String::from_utf8(i.source_identity.to_vec()).unwrap(),
    )
}

#[test]
fn publication_subscription_and_sharing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    assert_eq!(client.client_id, 1, "the driver took correlation id 0 at start");

    // First publication: the client is registered first (heartbeat counter).
    let pub_id = client.add_publication("aeron:ipc", STREAM, false);
    let hb = client.expect(
        "heartbeat counter ready",
        |r| matches!(r, Response::CounterReady(c) if c.correlation_id == 1),
    );
    let Response::CounterReady(hb) = hb.response() else { unreachable!() };
    assert_eq!(client.cnc.counter_type_id(hb.counter_id), 11);
    assert_eq!(client.cnc.counter_label(hb.counter_id), "client-heartbeat: id=1");
    assert_eq!(&client.cnc.counter_key(hb.counter_id)[..8], &1i64.to_le_bytes());
    assert_eq!(client.cnc.counter_registration_id(hb.counter_id), 1);
    assert_eq!(client.cnc.counter_owner_id(hb.counter_id), 1);

    let ready = expect_publication(&mut client, pub_id);
    assert_eq!((ready.correlation_id, ready.registration_id), (pub_id, pub_id));
    assert_eq!(ready.stream_id, STREAM);
    assert!(!(-1..=1000).contains(&ready.session_id), "session id outside the reserved range");
    assert_eq!(ready.status_id, -1);
    assert!(!ready.exclusive);
    let expected_path = dir.join("publications").join(format!("{pub_id}.logbuffer"));
    assert_eq!(ready.log_file, expected_path.to_string_lossy());

    // pub-lmt counter: type 1, stream key, Java-style label, owner = client, value 0.
    let lmt = ready.limit_counter_id;
    assert_eq!(client.cnc.counter_type_id(lmt), 1);
    assert_eq!(
        client.cnc.counter_label(lmt),
        format!("pub-lmt: {pub_id} {} {STREAM} aeron:ipc", ready.session_id)
    );
    let key = client.cnc.counter_key(lmt);
    assert_eq!(&key[0..8], &pub_id.to_le_bytes());
    assert_eq!(&key[8..12], &ready.session_id.to_le_bytes());
    assert_eq!(&key[12..16], &STREAM.to_le_bytes());
    assert_eq!(&key[16..20], &9i32.to_le_bytes());
    assert_eq!(&key[20..29], b"aeron:ipc");
    assert_eq!(client.cnc.counter_registration_id(lmt), pub_id);
    assert_eq!(client.cnc.counter_owner_id(lmt), client.client_id);
    assert_eq!(client.cnc.counter_value(lmt), 0, "no subscriber: publishers are held at 0");
    // pub-pos (sampled) was allocated just before it.
    assert_eq!(client.cnc.counter_type_id(lmt - 1), 12);
    assert_eq!(
        client.cnc.counter_label(lmt - 1),
        format!("pub-pos (sampled): {pub_id} {} {STREAM} aeron:ipc", ready.session_id)
    );

    // The log file and its metadata (`spec/log-buffer.md` §3-4).
    let log = map_existing(&expected_path).unwrap();
    assert_eq!(log.capacity(), 3 * 65536 + 4096);
    let m = log.view(3 * 65536, 4096).unwrap();
    let initial_term_id = m.get_i32(264);
    assert_eq!(m.get_i64(0), (initial_term_id as i64) << 32);
    assert_eq!(m.get_i64(8), (initial_term_id.wrapping_sub(2) as i64) << 32);
    assert_eq!(m.get_i64(16), (initial_term_id.wrapping_sub(1) as i64) << 32);
    assert_eq!(m.get_i32(24), 0, "active term count");
    assert_eq!(m.get_i64(128), i64::MAX, "end of stream");
    assert_eq!(m.get_i32(136), 0, "not connected");
    assert_eq!(m.get_i64(256), pub_id, "correlation id");
    assert_eq!(m.get_i32(268), 32, "default frame header length");
    assert_eq!(m.get_i32(272), 1408, "mtu");
    assert_eq!(m.get_i32(276), 65536, "term length");
    assert_eq!(m.get_i32(280), 4096, "page size");
    assert_eq!(m.get_i32(284), 32768, "publication window = term / 2");
    assert_eq!(m.get_i32(288), 0, "receiver window");
    assert_eq!(m.get_i32(316), 16, "max resend");
    let mut header = [0u8; 32];
    m.load_bytes(320, &mut header);
    assert_eq!(&header[0..8], &[0, 0, 0, 0, 0, 0xC0, 1, 0]);
    assert_eq!(&header[12..16], &ready.session_id.to_le_bytes());
    assert_eq!(&header[16..20], &STREAM.to_le_bytes());
    assert_eq!(&header[20..24], &initial_term_id.to_le_bytes());
    assert_eq!(m.get_i64(448), -1, "entity tag");
    assert_eq!(m.get_i64(456), -1, "response correlation id");
    assert_eq!(m.get_i64(464), 5_000_000_000, "linger");
    assert_eq!(m.get_i64(472), 5_000_000_000, "untethered window limit timeout");
    assert_eq!(m.get_i64(480), 10_000_000_000, "untethered resting timeout");
    assert_eq!((m.get_u8(492), m.get_u8(493), m.get_u8(495)), (0, 1, 0), "sparse, signal eos, tether");

    // A subscription: ready, then the image of the existing publication.
    let sub_id = client.add_subscription("aeron:ipc", STREAM);
    let record = client.expect_correlated(sub_id);
    let Response::SubscriptionReady(s) = record.response() else { panic!("{record:?}") };
    assert_eq!((s.correlation_id, s.channel_status_indicator_id), (sub_id, -1));
    let (image_id, session, stream, sub, sub_pos, log_file, source) = expect_image(&mut client, sub_id);
    assert_eq!((image_id, session, stream, sub), (pub_id, ready.session_id, STREAM, sub_id));
    assert_eq!((log_file.as_str(), source.as_str()), (ready.log_file.as_str(), "aeron:ipc"));
    assert_eq!(client.cnc.counter_type_id(sub_pos), 4);
    assert_eq!(
        client.cnc.counter_label(sub_pos),
        format!("sub-pos: {sub_id} {} {STREAM} aeron:ipc @0", ready.session_id)
    );
    assert_eq!(client.cnc.counter_registration_id(sub_pos), sub_id);
    assert_eq!(client.cnc.counter_owner_id(sub_pos), client.client_id);
    assert_eq!(client.cnc.counter_reference_id(sub_pos), pub_id);
    assert_eq!(m.get_i32_acquire(136), 1, "connected once a subscriber links");
    wait_until("publisher limit = subscriber + window", || client.cnc.counter_value(lmt) == 32768);

    // The subscriber consumes: the limit follows it.
    client.cnc.set_counter_value(sub_pos, 8192);
    wait_until("limit moves past the trip gain", || client.cnc.counter_value(lmt) == 8192 + 32768);

    // A second non-exclusive ADD shares the log and session.
    let second_id = client.add_publication("aeron:ipc", STREAM, false);
    let second = expect_publication(&mut client, second_id);
    assert_eq!((second.correlation_id, second.registration_id), (second_id, pub_id));
    assert_eq!((second.session_id, second.limit_counter_id), (ready.session_id, lmt));
    assert_eq!(second.log_file, ready.log_file);

    // An exclusive one gets its own log, session and image.
    let excl_id = client.add_publication("aeron:ipc?term-length=128k", STREAM, true);
    let excl = expect_publication(&mut client, excl_id);
    assert!(excl.exclusive);
    assert_eq!(excl.registration_id, excl_id);
    assert_ne!(excl.session_id, ready.session_id);
    assert_ne!(excl.limit_counter_id, lmt);
    let (image_id, session, ..) = expect_image(&mut client, sub_id);
    assert_eq!((image_id, session), (excl_id, excl.session_id));
    assert_eq!(map_existing(std::path::Path::new(&excl.log_file)).unwrap().capacity(), 3 * 131072 + 4096);

    // Removing: two handles on the shared publication, then unknown ones.
    for id in [pub_id, second_id, excl_id] {
        let corr = client.remove_publication(id);
        let record = client.expect_correlated(corr);
        assert!(matches!(record.response(), Response::OperationSuccess(s) if s.correlation_id == corr));
    }
    let corr = client.remove_publication(pub_id);
    let (code, message) = client.expect_error(corr);
    assert_eq!(code, 3, "UNKNOWN_PUBLICATION: {message}");
    let corr = client.remove_subscription(sub_id);
    assert!(matches!(client.expect_correlated(corr).response(), Response::OperationSuccess(_)));
    let corr = client.remove_subscription(sub_id);
    assert_eq!(client.expect_error(corr).0, 2, "UNKNOWN_SUBSCRIPTION");

    // Drained publications linger, then their logs are deleted.
    wait_until("log files deleted", || {
        !expected_path.exists() && !std::path::Path::new(&excl.log_file).exists()
    });
    assert_eq!(client.cnc.counter_state(lmt), -1, "pub-lmt freed");
    assert_eq!(client.cnc.counter_state(sub_pos), -1, "sub-pos freed");
    driver.close().unwrap();
    assert!(!dir.exists(), "directory deleted on shutdown");
}

#[test]
fn errors_are_answered_and_the_driver_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);

    // The codes Aeron C's driver answers with (vectors §12 for the first, fifth and last
    // three): a bad parameter value is GENERIC_ERROR (11); a malformed URI or a UDP
    // channel with nothing to address INVALID_CHANNEL (1); a name that does not resolve
    // UNKNOWN_HOST (9); a response channel without experimental features GENERIC_ERROR.
    for (channel, code) in [
        ("aeron:ipc?term-length=1000", 11),
        ("aeron:ipc?term-length=2g", 11),
        ("aeron:ipc?mtu=100", 11),
        ("aeron:ipc?init-term-id=5", 11),
        ("aeron:ipc?sparse=perhaps", 11),
        ("aeron:ipc?novalue", 1),
        ("aeron:udp?mtu=1408", 1),
        ("aeron:udp?endpoint=224.0.1.2:40123", 11),
        ("aeron:udp?endpoint=localhost:40123|control-mode=response", 11),
        ("aeron:udp?endpoint=bad:xx", 11),
        ("aeron:udp?endpoint=127.0.0.1:20121|mtu=1000", 11),
        ("aeron:udp?endpoint=127.0.0.1:20121|term-length=1000", 11),
        ("aeron:udp?endpoint=no-such-host.invalid:20121", 9),
    ] {
        let corr = client.add_publication(channel, STREAM, false);
        let (got, message) = client.expect_error(corr);
        assert_eq!(got, code, "{channel}: {message}");
    }
    let corr = client.add_subscription("aeron:udp?endpoint=224.0.1.2:40123", STREAM);
    let (code, message) = client.expect_error(corr);
    assert_eq!(code, 11, "GENERIC_ERROR, as Aeron C's EINVAL");
    assert!(message.contains("multicast data address must be odd"), "{message}");
    let corr = client.add_subscription("aeron-spy:aeron:udp?endpoint=224.0.1.2:40123", STREAM);
    assert_eq!(client.expect_error(corr).0, 11);
    let corr = client.remove_counter(12345);
    assert_eq!(client.expect_error(corr).0, 5, "UNKNOWN_COUNTER");

    // Malformed (too short) and unknown commands: ON_ERROR with correlation id 0 (Java).
    client.send_raw(0x01, &[0u8; 10]);
    assert_eq!(client.expect_error(0).0, 7, "MALFORMED_COMMAND");
    client.send_raw(0x77, &[0u8; 16]);
    assert_eq!(client.expect_error(0).0, 6, "UNKNOWN_COMMAND_TYPE_ID");
    let mut body = vec![0u8; 24];
    body[0..8].copy_from_slice(&client.client_id.to_le_bytes());
    body[20..24].copy_from_slice(&1000i32.to_le_bytes());
    client.send_raw(0x01, &body);
    assert_eq!(client.expect_error(0).0, 7, "channel length beyond the record");

    // Still serving.
    let corr = client.add_publication("aeron:ipc", STREAM, false);
    assert!(matches!(client.expect_correlated(corr).response(), Response::PublicationReady(_)));
    wait_until("errors counted", || client.cnc.system_counter(15) >= 14);
    let errors = client.cnc.errors();
    assert!(errors.iter().any(|e| e.contains("term-length")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("0x77") || e.contains("119")), "{errors:?}");
    drop(driver);
    assert!(!dir.exists());
}

#[test]
fn explicit_session_and_position_parameters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);

    let channel = "aeron:ipc?session-id=77|init-term-id=10|term-id=12|term-offset=4096|pub-wnd=16k|linger=0";
    let id = client.add_publication(channel, STREAM, false);
    let ready = expect_publication(&mut client, id);
    assert_eq!(ready.session_id, 77);
    let position = 2 * 65536 + 4096;
    assert_eq!(client.cnc.counter_value(ready.limit_counter_id), position, "limit starts at the position");
    assert_eq!(
        client.cnc.counter_value(ready.limit_counter_id - 1),
        position,
        "pub-pos starts at the position"
    );
    let log = map_existing(std::path::Path::new(&ready.log_file)).unwrap();
    let m = log.view(3 * 65536, 4096).unwrap();
    assert_eq!(m.get_i32(264), 10);
    assert_eq!(m.get_i32(24), 2, "active term count");
    assert_eq!(m.get_i64(16), (12i64 << 32) | 4096, "partition 2 holds term 12");
    assert_eq!(m.get_i64(0), 10i64 << 32, "partition 0 carries term 12 + 1 - 3");
    assert_eq!(m.get_i64(8), 11i64 << 32, "partition 1 carries term 12 + 2 - 3");
    assert_eq!(m.get_i32(284), 16384, "pub-wnd");
    assert_eq!(m.get_i64(464), 0, "linger");

    // Same session on an exclusive publication clashes; a shared ADD must agree. Both are
    // parameter errors, GENERIC_ERROR (11) as Aeron C answers them.
    let clash = client.add_publication("aeron:ipc?session-id=77", STREAM, true);
    let (code, message) = client.expect_error(clash);
    assert_eq!(code, 11, "{message}");
    let mismatch = client.add_publication("aeron:ipc?term-length=128k", STREAM, false);
    let (code, message) = client.expect_error(mismatch);
    assert_eq!(code, 11, "{message}");
    assert!(message.contains("existing publication has different"), "{message}");

    // A subscriber joining later starts at the producer position.
    let sub = client.add_subscription("aeron:ipc?session-id=77", STREAM);
    let (_, _, _, _, sub_pos, _, _) = expect_image(&mut client, sub);
    assert_eq!(client.cnc.counter_value(sub_pos), position);
    assert!(client.cnc.counter_label(sub_pos).ends_with(&format!("@{position}")));
    // A subscription for another session sees nothing.
    let other = client.add_subscription("aeron:ipc?session-id=78", STREAM);
    client.expect_correlated(other);
    client.poll();
    assert!(!client.received.iter().any(
        |r| matches!(r.response(), Response::AvailableImage(i) if i.subscription_registration_id == other)
    ));
}

#[test]
fn client_counters_and_static_counters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);

    let corr = client.add_counter(1101, &[1, 2, 3, 4], "my counter");
    let record = client.expect_correlated(corr);
    let Response::CounterReady(c) = record.response() else { panic!("{record:?}") };
    let id = c.counter_id;
    assert_eq!(client.cnc.counter_type_id(id), 1101);
    assert_eq!(client.cnc.counter_label(id), "my counter");
    assert_eq!(&client.cnc.counter_key(id)[..5], &[1, 2, 3, 4, 0]);
    assert_eq!(client.cnc.counter_registration_id(id), corr);
    assert_eq!(client.cnc.counter_owner_id(id), client.client_id);

    let remove = client.remove_counter(corr);
    assert!(matches!(client.expect_correlated(remove).response(), Response::OperationSuccess(_)));
    let record = client.expect(
        "unavailable counter",
        |r| matches!(r, Response::UnavailableCounter(u) if u.counter_id == id),
    );
    let Response::UnavailableCounter(u) = record.response() else { unreachable!() };
    assert_eq!(u.correlation_id, corr);
    assert_eq!(client.cnc.counter_state(id), -1);

    let first = client.add_static_counter(555, 1102, b"k", "static one");
    let record = client.expect_correlated(first);
    let Response::StaticCounter(s1) = record.response() else { panic!("{record:?}") };
    assert_eq!(client.cnc.counter_owner_id(s1.counter_id), -1);
    assert_eq!(client.cnc.counter_registration_id(s1.counter_id), 555);
    let again = client.add_static_counter(555, 1102, b"k", "static one");
    let record = client.expect_correlated(again);
    let Response::StaticCounter(s2) = record.response() else { panic!("{record:?}") };
    assert_eq!(s2.counter_id, s1.counter_id);

    // A static counter may not take over a client counter's (type, registration id).
    let owned = client.add_counter(1103, &[], "owned");
    client.expect_correlated(owned);
    let clash = client.add_static_counter(owned, 1103, &[], "clash");
    assert_eq!(client.expect_error(clash).0, 11, "GENERIC_ERROR");

    // Long labels and keys are cut to 380 and 112 bytes.
    let long = client.add_counter(1104, &[7u8; 200], &"x".repeat(500));
    let record = client.expect_correlated(long);
    let Response::CounterReady(c) = record.response() else { panic!() };
    assert_eq!(client.cnc.counter_label(c.counter_id).len(), 380);
    assert_eq!(client.cnc.counter_key(c.counter_id), vec![7u8; 112]);
}
