//! Two drivers in one process, each with its own directory, connected over UDP loopback:
//! a publication on one, a subscription on the other, driven with raw control-protocol
//! commands and the log buffers directly. Checks the driver's responses, counters and the
//! bytes that arrive.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::media::udp_transport::UdpIo;
use aeronrs::driver::{MediaDriver, ThreadingMode};
use log_client::{BACK_PRESSURED, TestImage, TestPublication};
use raw_client::{RawClient, wait_until};
use udp_pair::{Pair, connect, context, exchange, free_port, message, pair, pair_with_io};

#[test]
fn messages_cross_between_two_drivers_in_each_threading_mode() {
    // Batched I/O with offload by default; once more with one datagram per system call.
    let modes = [
        (ThreadingMode::Shared, UdpIo::default()),
        (ThreadingMode::SharedNetwork, UdpIo::default()),
        (ThreadingMode::Dedicated, UdpIo::default()),
        (ThreadingMode::SharedNetwork, UdpIo::PLAIN),
    ];
    for (mode, io) in modes {
        let mut p = pair_with_io(mode, None, io);
        let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
        let (publication, mut image, _) = connect(&mut p, &channel, 1001);
        exchange(&publication, &mut image, 20_000, 64);
        exchange(&publication, &mut image, 0, 64);
        let more = 200;
        let start = image.received.borrow().len();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut sent = 0;
        while image.received.borrow().len() < start + more {
            assert!(Instant::now() < deadline);
            if sent < more && publication.offer(&message(sent as u64, 5000)) > 0 {
                sent += 1;
            }
            image.poll(64);
        }
        let received = image.received.borrow();
        for (k, m) in received[start..].iter().enumerate() {
            assert_eq!(m, &message(k as u64, 5000), "fragmented message {k} in {mode:?}");
        }
        drop(received);
        // System counters on both sides saw the traffic.
        assert!(p.publisher.cnc.system_counter(0) > 20_000 * 64, "bytes sent");
        assert!(p.subscriber.cnc.system_counter(1) > 20_000 * 64, "bytes received");
        assert!(p.subscriber.cnc.system_counter(7) > 0, "status messages sent");
        assert!(p.publisher.cnc.system_counter(8) > 0, "status messages received");
        assert_eq!(p.subscriber.cnc.system_counter(14), 0, "no invalid packets");
        eprintln!(
            "{mode:?} {io:?}: received {} messages; bytes sent {} SMs {} NAKs {}",
            image.received.borrow().len(),
            p.publisher.cnc.system_counter(0),
            p.subscriber.cnc.system_counter(7),
            p.subscriber.cnc.system_counter(5)
        );
        p.pub_driver.close().unwrap();
        p.sub_driver.close().unwrap();
    }
}

/// System counter ids used below (`spec/counters.md` §8).
const NAKS_SENT: i32 = 5;
const NAKS_RECEIVED: i32 = 6;
const RETRANSMITS_SENT: i32 = 11;
const RETRANSMITTED_BYTES: i32 = 36;

#[test]
fn ten_percent_data_loss_is_recovered_in_order() {
    for io in [UdpIo::default(), UdpIo::PLAIN] {
        ten_percent_data_loss_is_recovered_with(io);
    }
}

fn ten_percent_data_loss_is_recovered_with(io: UdpIo) {
    let mut p = pair_with_io(ThreadingMode::SharedNetwork, Some("rate=0.1|seed=17|recv-msg-mask=0x2"), io);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    exchange(&publication, &mut image, 50_000, 64);
    let naks_sent = p.subscriber.cnc.system_counter(NAKS_SENT);
    let naks_received = p.publisher.cnc.system_counter(NAKS_RECEIVED);
    let retransmits = p.publisher.cnc.system_counter(RETRANSMITS_SENT);
    eprintln!(
        "10% loss: NAKs sent {naks_sent}, received {naks_received}, retransmits {retransmits}, retransmitted bytes {}",
        p.publisher.cnc.system_counter(RETRANSMITTED_BYTES)
    );
    assert!(naks_sent > 0 && naks_received > 0 && retransmits > 0);
    assert!(p.publisher.cnc.system_counter(RETRANSMITTED_BYTES) > 0);
}

#[test]
fn frames_dropped_again_and_again_still_arrive_once() {
    for io in [UdpIo::default(), UdpIo::PLAIN] {
        frames_dropped_again_and_again_with(io);
    }
}

fn frames_dropped_again_and_again_with(io: UdpIo) {
    // Half of all DATA datagrams vanish, retransmissions included: many frames are lost
    // several times before they get through.
    let mut p = pair_with_io(ThreadingMode::Shared, Some("rate=0.5|seed=3|recv-msg-mask=0x2"), io);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    exchange(&publication, &mut image, 5_000, 200);
    let naks_sent = p.subscriber.cnc.system_counter(NAKS_SENT);
    let retransmits = p.publisher.cnc.system_counter(RETRANSMITS_SENT);
    eprintln!("50% loss: NAKs sent {naks_sent}, retransmits {retransmits}");
    assert!(retransmits > 0 && naks_sent >= retransmits);
}

/// The image a subscription got (ON_AVAILABLE_IMAGE), mapped.
fn image_for(client: &mut RawClient, subscription_id: i64) -> (TestImage, i64) {
    let record = client.expect(
        "image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription_id),
    );
    let Response::AvailableImage(i) = record.response() else { unreachable!() };
    let image =
        TestImage::map(i.log_file_name_str().unwrap(), &client.cnc.counters_values, i.subscriber_position_id);
    (image, i.correlation_id)
}

/// Offers `count` messages numbered from `first`, polling `images` meanwhile; each image
/// must see contiguous messages.
fn send_and_poll(
    publication: &TestPublication,
    images: &mut [&mut TestImage],
    first: u64,
    count: u64,
    length: usize,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut next = first;
    let targets: Vec<usize> = images.iter().map(|i| i.received.borrow().len() + count as usize).collect();
    loop {
        assert!(Instant::now() < deadline, "sent up to {next}");
        if next < first + count && publication.offer(&message(next, length)) > 0 {
            next += 1;
            continue;
        }
        let mut done = next == first + count;
        for (image, target) in images.iter_mut().zip(&targets) {
            image.poll(256);
            done &= image.received.borrow().len() >= *target;
        }
        if done {
            break;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

fn assert_contiguous(image: &TestImage, length: usize) -> u64 {
    let received = image.received.borrow();
    let first = u64::from_le_bytes(received[0][..8].try_into().unwrap());
    for (k, m) in received.iter().enumerate() {
        assert_eq!(m, &message(first + k as u64, length), "message {k} after {first}");
    }
    first
}

#[test]
fn late_joiner_and_leaver_on_a_shared_image() {
    let mut p = pair(ThreadingMode::Shared);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut first_image, first_sub) = connect(&mut p, &channel, 1001);
    send_and_poll(&publication, &mut [&mut first_image], 0, 5000, 100);

    // A second subscription joins late: same image, starting where the first one is.
    let late_id = p.subscriber.add_subscription(&channel, 1001);
    let (mut late_image, _) = image_for(&mut p.subscriber, late_id);
    assert_eq!(late_image.position(), first_image.position(), "joins at the slowest subscriber");
    send_and_poll(&publication, &mut [&mut first_image, &mut late_image], 5000, 5000, 100);
    assert_eq!(assert_contiguous(&late_image, 100), 5000, "the late joiner starts with the next message");

    // The first subscription leaves; the late one carries on alone.
    let remove = p.subscriber.remove_subscription(first_sub);
    p.subscriber.expect_correlated(remove);
    send_and_poll(&publication, &mut [&mut late_image], 10_000, 5000, 100);
    assert_eq!(assert_contiguous(&late_image, 100), 5000);
    assert_eq!(late_image.received.borrow().len(), 10_000);
    assert!(publication.is_connected());
    assert_eq!(assert_contiguous(&first_image, 100), 0);
}

#[test]
fn closing_the_publication_ends_the_stream_at_the_subscriber() {
    let mut p = pair(ThreadingMode::SharedNetwork);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    send_and_poll(&publication, &mut [&mut image], 0, 3000, 64);
    let end = publication.position();
    let registration_id = publication.log.metadata().get_i64(256);
    let remove = p.publisher.remove_publication(registration_id);
    p.publisher.expect_correlated(remove);
    wait_until("end of stream at the subscriber", || {
        image.poll(64);
        aeronrs::logbuffer::descriptor::end_of_stream_position(image.log.metadata()) == end
    });
    assert!(image.is_end_of_stream());
    assert_eq!(image.received.borrow().len(), 3000);
    p.subscriber.expect("unavailable image", |r| matches!(r, Response::UnavailableImage(_)));
    assert!(p.publisher.cnc.system_counter(9) > 0, "heartbeats (with EOS) sent");
}

#[test]
fn a_slow_subscriber_back_pressures_the_publisher_without_loss() {
    let mut p = pair(ThreadingMode::Dedicated);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    // 512-byte frames fill the 32 KiB receiver window exactly, so the sender runs right into
    // its limit (Aeron counts a flow-control limit only when the window is used up).
    const LENGTH: usize = 480;
    // Nothing is read: the publisher runs into the window and is held back.
    let mut sent = 0u64;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline);
        let result = publication.offer(&message(sent, LENGTH));
        if result == BACK_PRESSURED {
            break;
        }
        assert!(result > 0, "{result}");
        sent += 1;
    }
    let window = 32 * 1024 + 64 * 1024 / 2;
    assert!(publication.position() <= window as i64 + 1024, "held within receiver window + term window");
    // A trickle of reading lets everything through, in order, with back pressure all along.
    let mut back_pressured = 1u64;
    let total = sent + 2000;
    while image.received.borrow().len() < total as usize {
        assert!(Instant::now() < deadline, "received {}", image.received.borrow().len());
        while sent < total {
            match publication.offer(&message(sent, LENGTH)) {
                BACK_PRESSURED => {
                    back_pressured += 1;
                    break;
                }
                r => {
                    assert!(r > 0);
                    sent += 1;
                }
            }
        }
        image.poll(4);
        std::thread::sleep(Duration::from_micros(200));
    }
    assert_eq!(assert_contiguous(&image, LENGTH), 0);
    assert!(back_pressured > 1);
    let bpe = p.publisher.cnc.system_counter(18);
    eprintln!("slow subscriber: {back_pressured} back-pressured offers, sender flow control limits {bpe}");
    assert!(bpe > 0, "sender flow-control limits counted");
}

/// The value of the counter with this label prefix, if one is allocated.
fn counter_by_label(client: &RawClient, prefix: &str) -> Option<(i32, i64)> {
    (0..500)
        .take_while(|&id| client.cnc.counter_state(id) != 0)
        .find(|&id| client.cnc.counter_state(id) == 1 && client.cnc.counter_label(id).starts_with(prefix))
        .map(|id| (id, client.cnc.counter_value(id)))
}

#[test]
fn cubic_congestion_control_measures_rtt_and_grows_the_window() {
    let tmp = tempfile::tempdir().unwrap();
    let pub_driver = MediaDriver::launch(context(&tmp.path().join("pub"), ThreadingMode::Shared)).unwrap();
    let mut sub_context = context(&tmp.path().join("sub"), ThreadingMode::Shared);
    sub_context.cubic_measure_rtt = true;
    sub_context.cubic_initial_rtt_ns = 10_000_000;
    let sub_driver = MediaDriver::launch(sub_context).unwrap();
    let mut p = Pair {
        publisher: RawClient::connect(&tmp.path().join("pub")),
        subscriber: RawClient::connect(&tmp.path().join("sub")),
        _tmp: tmp,
        pub_driver,
        sub_driver,
    };
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}|cc=cubic", free_port());
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    let (window_id, initial_window) =
        counter_by_label(&p.subscriber, "rcv-cc-cubic-wnd").expect("window counter");
    assert_eq!(p.subscriber.cnc.counter_type_id(window_id), 10);
    assert_eq!(initial_window, 14080, "10 x MTU, as udp-rttm.pcap");
    exchange(&publication, &mut image, 20_000, 100);
    wait_until("an RTT sample", || {
        counter_by_label(&p.subscriber, "rcv-cc-cubic-rtt").is_some_and(|(_, v)| v > 0)
    });
    let (_, rtt) = counter_by_label(&p.subscriber, "rcv-cc-cubic-rtt").unwrap();
    let (_, window) = counter_by_label(&p.subscriber, "rcv-cc-cubic-wnd").unwrap();
    eprintln!("cubic: rtt {rtt} ns, window {window}");
    assert!(rtt > 0 && rtt < 1_000_000_000);
    assert!((1408..=32768).contains(&window));
}

#[test]
fn a_spy_reads_the_local_network_publication() {
    let mut p = pair(ThreadingMode::Shared);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let spy_id = p.publisher.add_subscription(&format!("aeron-spy:{channel}"), 1001);
    let ready = p.publisher.expect_correlated(spy_id);
    assert!(
        matches!(ready.response(), Response::SubscriptionReady(r) if r.channel_status_indicator_id == -1)
    );
    let (publication, mut image, _) = connect(&mut p, &channel, 1001);
    let record = p.publisher.expect(
        "spy image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == spy_id),
    );
    let Response::AvailableImage(spy) = record.response() else { unreachable!() };
    assert_eq!(spy.source_identity_str().unwrap(), "aeron:ipc");
    assert!(spy.log_file_name_str().unwrap().contains("/publications/"), "a spy maps the publication's log");
    let mut spy = TestImage::map(
        spy.log_file_name_str().unwrap(),
        &p.publisher.cnc.counters_values,
        spy.subscriber_position_id,
    );
    send_and_poll(&publication, &mut [&mut image, &mut spy], 0, 5000, 200);
    assert_eq!(assert_contiguous(&spy, 200), 0);
    assert_eq!(spy.received.borrow().len(), 5000);
}

#[test]
fn several_streams_share_one_endpoint_each_way() {
    let mut p = pair(ThreadingMode::SharedNetwork);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (first_pub, mut first_image, _) = connect(&mut p, &channel, 1001);
    let (second_pub, mut second_image, _) = connect(&mut p, &channel, 1002);
    // One send endpoint and one receive endpoint: the status counters are shared.
    let statuses = |c: &RawClient, prefix: &str| {
        (0..200)
            .take_while(|&id| c.cnc.counter_state(id) != 0)
            .filter(|&id| c.cnc.counter_state(id) == 1 && c.cnc.counter_label(id).starts_with(prefix))
            .count()
    };
    assert_eq!(statuses(&p.publisher, "snd-channel"), 1);
    assert_eq!(statuses(&p.subscriber, "rcv-channel"), 1);
    for k in 0..3 {
        send_and_poll(&first_pub, &mut [&mut first_image], k * 1000, 1000, 64);
        send_and_poll(&second_pub, &mut [&mut second_image], k * 1000, 1000, 128);
    }
    assert_eq!((assert_contiguous(&first_image, 64), first_image.received.borrow().len()), (0, 3000));
    assert_eq!((assert_contiguous(&second_image, 128), second_image.received.borrow().len()), (0, 3000));
}

#[test]
fn a_resubscription_reuses_the_endpoint_and_an_unused_one_closes() {
    let mut p = pair(ThreadingMode::Shared);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let (publication, mut image, sub_id) = connect(&mut p, &channel, 1001);
    send_and_poll(&publication, &mut [&mut image], 0, 100, 64);
    // Removed and at once added again: the bound socket is reused, no "address in use".
    let remove = p.subscriber.remove_subscription(sub_id);
    p.subscriber.expect_correlated(remove);
    let again = p.subscriber.add_subscription(&channel, 1001);
    let ready = p.subscriber.expect_correlated(again);
    let Response::SubscriptionReady(ready) = ready.response() else { panic!("{:?}", ready.response()) };
    let status_id = ready.channel_status_indicator_id;
    let (mut image, _) = image_for(&mut p.subscriber, again);
    send_and_poll(&publication, &mut [&mut image], 100, 100, 64);
    assert_eq!(assert_contiguous(&image, 64), 100, "the new image starts where the stream is");
    // Without subscriptions and images the endpoint closes and its counters are freed.
    let remove = p.subscriber.remove_subscription(again);
    p.subscriber.expect_correlated(remove);
    wait_until("receive endpoint closed", || p.subscriber.cnc.counter_state(status_id) == -1);
}

/// An unused endpoint that a refused reuse found (a second subscription asking for another
/// `so-rcvbuf`) still closes a timer interval later instead of staying open for good.
#[test]
fn an_unused_endpoint_a_refused_reuse_found_still_closes() {
    let mut p = pair(ThreadingMode::Shared);
    // The endpoint closes one timer interval after its last subscription went: the refused
    // add must reach it before that, so a run whose add came too late is tried again.
    for attempt in 0..5 {
        let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
        let sub = p.subscriber.add_subscription(&channel, 1001);
        let ready = p.subscriber.expect_correlated(sub);
        let Response::SubscriptionReady(ready) = ready.response() else { panic!("{:?}", ready.response()) };
        let status_id = ready.channel_status_indicator_id;
        let remove = p.subscriber.remove_subscription(sub);
        p.subscriber.expect_correlated(remove);
        let refused = p.subscriber.add_subscription(&format!("{channel}|so-rcvbuf=262144"), 1001);
        let record = p.subscriber.expect_correlated(refused);
        let Response::Error(error) = record.response() else {
            assert!(attempt < 4, "the endpoint always closed before the second add: {:?}", record.response());
            continue;
        };
        let message = String::from_utf8_lossy(error.error_message).into_owned();
        assert!(message.contains("so-rcvbuf=262144 does not match existing value"), "{message}");
        wait_until("the unused endpoint closed", || p.subscriber.cnc.counter_state(status_id) == -1);
        return;
    }
}

#[test]
fn spies_simulate_a_connection_without_any_receiver() {
    let mut p = pair(ThreadingMode::Shared);
    // Nobody listens on this endpoint; with ssc=true a spy alone makes it connected.
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}|ssc=true", free_port());
    let spy_id = p.publisher.add_subscription(&format!("aeron-spy:{channel}"), 1001);
    p.publisher.expect_correlated(spy_id);
    let pub_id = p.publisher.add_publication(&channel, 1001, false);
    let record = p.publisher.expect_correlated(pub_id);
    let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
    let publication = TestPublication::map(
        ready.log_file_name_str().unwrap(),
        &p.publisher.cnc.counters_values,
        ready.position_limit_counter_id,
    );
    let (mut spy, _) = image_for(&mut p.publisher, spy_id);
    wait_until("connected through the spy", || publication.is_connected());
    send_and_poll(&publication, &mut [&mut spy], 0, 20_000, 100);
    assert_eq!(assert_contiguous(&spy, 100), 0);
    assert_eq!(spy.received.borrow().len(), 20_000, "the spy paces the publication; nothing is lost");
}
