//! Two of our drivers in one process, each with its own directory (publisher side and
//! subscriber side), for UDP tests over loopback: contexts with sleeping idle strategies,
//! connecting a publication to a subscription through the raw control protocol, and an
//! exchange that checks every message arrives once, intact, in order. Needs the
//! `log_client` and `raw_client` support modules at the test crate's root.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::media::udp_transport::UdpIo;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::idle_strategy::IdleStrategy;

use super::log_client::{BACK_PRESSURED, TestImage, TestPublication};
use super::raw_client::{RawClient, wait_until};

pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn context(dir: &std::path::Path, mode: ThreadingMode) -> DriverContext {
    let sleep = IdleStrategy::Sleep(Duration::from_micros(100));
    DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: mode,
        shared_idle_strategy: sleep.clone(),
        shared_network_idle_strategy: sleep.clone(),
        conductor_idle_strategy: sleep.clone(),
        sender_idle_strategy: sleep.clone(),
        receiver_idle_strategy: sleep,
        term_buffer_length: 64 * 1024,
        timer_interval_ns: 50_000_000,
        ..DriverContext::default()
    }
}

pub struct Pair {
    pub _tmp: tempfile::TempDir,
    pub pub_driver: MediaDriver,
    pub sub_driver: MediaDriver,
    pub publisher: RawClient,
    pub subscriber: RawClient,
}

pub fn pair(mode: ThreadingMode) -> Pair {
    pair_with_loss(mode, None)
}

/// A pair whose subscriber driver drops incoming DATA datagrams with `loss_args`.
pub fn pair_with_loss(mode: ThreadingMode, loss_args: Option<&str>) -> Pair {
    pair_with_io(mode, loss_args, UdpIo::default())
}

/// As [`pair_with_loss`], both drivers' sockets using the batched calls `io` allows
/// (`UdpIo::PLAIN`: one datagram per system call, no offload).
pub fn pair_with_io(mode: ThreadingMode, loss_args: Option<&str>, io: UdpIo) -> Pair {
    let tmp = tempfile::tempdir().unwrap();
    let mut pub_context = context(&tmp.path().join("pub"), mode);
    pub_context.network.set_udp_io(io);
    let pub_driver = MediaDriver::launch(pub_context).unwrap();
    let mut sub_context = context(&tmp.path().join("sub"), mode);
    sub_context.network.set_udp_io(io);
    if let Some(args) = loss_args {
        sub_context.udp_channel_incoming_interceptors = Some("loss".to_string());
        sub_context.udp_channel_loss_args = Some(args.to_string());
    }
    let sub_driver = MediaDriver::launch(sub_context).unwrap();
    let publisher = RawClient::connect(&tmp.path().join("pub"));
    let subscriber = RawClient::connect(&tmp.path().join("sub"));
    Pair { _tmp: tmp, pub_driver, sub_driver, publisher, subscriber }
}

/// Publication on the pub driver and subscription on the sub driver; returns both ends
/// once the image is available, and the subscription's registration id.
pub fn connect(p: &mut Pair, channel: &str, stream_id: i32) -> (TestPublication, TestImage, i64) {
    connect_channels(p, channel, channel, stream_id)
}

/// As [`connect`], with the publication's channel (its endpoint) and the subscription's
/// told apart, for a relay between them.
pub fn connect_channels(
    p: &mut Pair,
    pub_channel: &str,
    sub_channel: &str,
    stream_id: i32,
) -> (TestPublication, TestImage, i64) {
    let sub_id = p.subscriber.add_subscription(sub_channel, stream_id);
    let ready = p.subscriber.expect_correlated(sub_id);
    let Response::SubscriptionReady(ready) = ready.response() else { panic!("{:?}", ready.response()) };
    assert!(ready.channel_status_indicator_id >= 0, "UDP subscriptions have a channel status counter");
    let status_id = ready.channel_status_indicator_id;
    assert_eq!(p.subscriber.cnc.counter_value(status_id), 1, "rcv-channel ACTIVE");
    let pub_id = p.publisher.add_publication(pub_channel, stream_id, false);
    let record = p.publisher.expect_correlated(pub_id);
    let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
    let log_file = ready.log_file_name_str().unwrap().to_string();
    assert!(log_file.ends_with(&format!("publications/{pub_id}.logbuffer")), "{log_file}");
    let status_id = ready.channel_status_indicator_id;
    let label = p.publisher.cnc.counter_label(status_id);
    assert!(label.starts_with(&format!("snd-channel: {pub_channel} 127.0.0.1:")), "{label}");
    let publication =
        TestPublication::map(&log_file, &p.publisher.cnc.counters_values, ready.position_limit_counter_id);
    let image = p.subscriber.expect(
        "image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == sub_id),
    );
    let Response::AvailableImage(image) = image.response() else { unreachable!() };
    let source = image.source_identity_str().unwrap().to_string();
    assert!(source.starts_with("127.0.0.1:"), "{source}");
    let image_log = image.log_file_name_str().unwrap().to_string();
    assert!(image_log.contains("/images/"), "{image_log}");
    let image = TestImage::map(&image_log, &p.subscriber.cnc.counters_values, image.subscriber_position_id);
    wait_until("publication connected", || publication.is_connected());
    (publication, image, sub_id)
}

pub fn message(i: u64, length: usize) -> Vec<u8> {
    let mut m = vec![0u8; length];
    m[..8.min(length)].copy_from_slice(&i.to_le_bytes()[..8.min(length)]);
    for (j, b) in m.iter_mut().enumerate().skip(8) {
        *b = (i as usize + j) as u8;
    }
    m
}

/// Sends `count` messages of `length` and checks each arrives once, intact, in order.
pub fn exchange(publication: &TestPublication, image: &mut TestImage, count: u64, length: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut sent = 0u64;
    let mut checked = 0usize;
    while checked < count as usize {
        assert!(Instant::now() < deadline, "sent {sent}, received {checked} of {count}");
        while sent < count {
            let result = publication.offer(&message(sent, length));
            if result < 0 {
                assert_eq!(result, BACK_PRESSURED);
                break;
            }
            sent += 1;
        }
        if image.poll(256) == 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
        let received = image.received.borrow();
        while checked < received.len() {
            assert_eq!(received[checked], message(checked as u64, length), "message {checked}");
            checked += 1;
        }
    }
}
