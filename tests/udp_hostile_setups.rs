//! A flood of valid-looking SETUP frames from random session ids cannot make the driver
//! build images without bound, nor fill its distinct error log: one source gets at most
//! `AERONRS_MAX_IMAGES_PER_SOURCE` images on an endpoint (refusals counted as invalid
//! packets, reported once), the error log keeps a handful of entries however many
//! sessions there were, the images time out, and memory returns to where it was. A real
//! publisher from another address is served throughout, every message intact and in order.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::net::UdpSocket;
use std::time::Duration;

use aeronrs::command::Response;
use aeronrs::concurrent::counters::type_ids::RECEIVER_HWM_TYPE_ID;
use aeronrs::driver::{MediaDriver, ThreadingMode};
use aeronrs::protocol::setup::Setup;
use log_client::TestImage;
use raw_client::{RawClient, wait_until};
use udp_pair::{context, exchange, free_port};

const INVALID_PACKETS: i32 = 14;
const BYTES_MAPPED: i32 = 35;
const PER_SOURCE: u32 = 32;

fn images(client: &RawClient) -> usize {
    (0..4096)
        .filter(|&id| {
            client.cnc.counter_state(id) == 1 && client.cnc.counter_type_id(id) == RECEIVER_HWM_TYPE_ID
        })
        .count()
}

#[test]
fn forged_setups_from_random_sessions_are_bounded_and_forgotten() {
    let tmp = tempfile::tempdir().unwrap();
    let mut sub_ctx = context(&tmp.path().join("sub"), ThreadingMode::Shared);
    sub_ctx.network.max_images_per_source = PER_SOURCE;
    sub_ctx.image_liveness_timeout_ns = 1_000_000_000;
    let _sub_driver = MediaDriver::launch(sub_ctx).unwrap();
    let _pub_driver = MediaDriver::launch(context(&tmp.path().join("pub"), ThreadingMode::Shared)).unwrap();
    let mut subscriber = RawClient::connect(&tmp.path().join("sub"));
    let publisher = RawClient::connect(&tmp.path().join("pub"));
    let port = free_port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let sub_id = subscriber.add_subscription(&channel, 1001);
    subscriber.expect_correlated(sub_id);
    wait_until("driver settled", || {
        subscriber.cnc.system_counter(BYTES_MAPPED) > 0 || images(&subscriber) == 0
    });
    let baseline = subscriber.cnc.system_counter(BYTES_MAPPED);

    // 10,000 SETUPs for random sessions, from one host.
    let forger = UdpSocket::bind("127.0.0.3:0").unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut frame = [0u8; 40];
    for _ in 0..10_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let setup = Setup {
            flags: 0,
            term_offset: 0,
            session_id: seed as i32,
            stream_id: 1001,
            initial_term_id: (seed >> 32) as i32,
            active_term_id: (seed >> 32) as i32,
            term_length: 64 * 1024,
            mtu: 1408,
            ttl: 0,
        };
        setup.encode(&mut frame).unwrap();
        forger.send_to(&frame, ("127.0.0.1", port)).unwrap();
    }
    wait_until("refusals counted", || subscriber.cnc.system_counter(INVALID_PACKETS) > 0);
    assert!(images(&subscriber) <= PER_SOURCE as usize, "at most {PER_SOURCE} images from one source");

    // A real publisher on another address is not refused, and loses nothing.
    let pub_channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let pub_id = publisher.add_publication(&pub_channel, 1001, false);
    let mut publisher = publisher;
    let record = publisher.expect_correlated(pub_id);
    let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
    let publication = log_client::TestPublication::map(
        ready.log_file_name_str().unwrap(),
        &publisher.cnc.counters_values,
        ready.position_limit_counter_id,
    );
    let record = subscriber.expect(
        "the real image",
        |r| matches!(r, Response::AvailableImage(i) if i.source_identity_str().unwrap().starts_with("127.0.0.1:")),
    );
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    let mut image = TestImage::map(
        image.log_file_name_str().unwrap(),
        &subscriber.cnc.counters_values,
        image.subscriber_position_id,
    );
    wait_until("connected", || publication.is_connected());
    exchange(&publication, &mut image, 20_000, 100);

    // However many sessions, the error log holds a few entries, one of them the refusal.
    let errors = subscriber.cnc.errors();
    assert!(errors.len() <= 4, "{} distinct errors: {errors:?}", errors.len());
    assert!(
        errors.iter().any(|e| e.contains("per-source image limit of 32 reached for 127.0.0.3")),
        "{errors:?}"
    );

    // The forged images hear nothing more and go; their memory with them.
    drop(publication);
    let remove = publisher.remove_publication(pub_id);
    publisher.expect_correlated(remove);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while images(&subscriber) > 0 || subscriber.cnc.system_counter(BYTES_MAPPED) > baseline {
        assert!(
            std::time::Instant::now() < deadline,
            "{} images left, {} bytes mapped over the baseline",
            images(&subscriber),
            subscriber.cnc.system_counter(BYTES_MAPPED) - baseline
        );
        subscriber.poll();
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn forged_data_from_another_socket_leaves_the_stream_whole() {
    use aeronrs::logbuffer::descriptor as log;
    use aeronrs::protocol::data::DataHeader;
    let mut pair = udp_pair::pair(ThreadingMode::Shared);
    let port = free_port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let (publication, mut image, _) = udp_pair::connect(&mut pair, &channel, 1001);
    // The session and term of the real stream, as the image's log has them.
    let header = log::default_frame_header(image.log.metadata());
    let session_id = i32::from_le_bytes(header[12..16].try_into().unwrap());
    let initial_term_id = log::initial_term_id(image.log.metadata());
    let forger = UdpSocket::bind("127.0.0.3:0").unwrap();
    let mut frame = vec![0u8; 160];
    for k in 0..200 {
        // Data ahead of the stream (within the window), and end-of-stream heartbeats.
        let offset = 4096 + k * 160;
        DataHeader::data(session_id, 1001, initial_term_id, offset, 100)
            .encode_frame(&[0xEE; 100], &mut frame)
            .unwrap();
        forger.send_to(&frame, ("127.0.0.1", port)).unwrap();
        let mut heartbeat = [0u8; 32];
        DataHeader::heartbeat(session_id, 1001, initial_term_id, offset, true)
            .encode(&mut heartbeat)
            .unwrap();
        forger.send_to(&heartbeat, ("127.0.0.1", port)).unwrap();
    }
    wait_until("forgeries counted", || pair.subscriber.cnc.system_counter(INVALID_PACKETS) >= 400);
    exchange(&publication, &mut image, 50_000, 100);
    assert!(!image.is_end_of_stream(), "a forged end of stream ended nothing");
}
