//! One-to-many UDP on loopback, between drivers of ours in one process (each with its own
//! directory): multicast to several receiving drivers, multi-destination-cast (dynamic and
//! manual, destinations added and removed while streaming), a multi-destination
//! subscription fed by two destinations, and the errors bad channels and destination
//! commands get. Every message is checked: once, intact, in order, at every receiver.
//! The same across simulated hosts is in `udp_hosts.rs`.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::concurrent::counters::type_ids::CHANNEL_NUM_DESTINATIONS_TYPE_ID;
use aeronrs::driver::{MediaDriver, ThreadingMode};
use log_client::{BACK_PRESSURED, NOT_CONNECTED, TestImage, TestPublication};
use raw_client::{RawClient, wait_until};
use udp_pair::{context, free_port, message};

const STREAM: i32 = 1001;
/// Aeron error codes.
const GENERIC_ERROR: i32 = 11;
const INVALID_CHANNEL: i32 = 1;
const UNKNOWN_SUBSCRIPTION: i32 = 2;
const UNKNOWN_PUBLICATION: i32 = 3;

struct Node {
    client: RawClient,
    _driver: MediaDriver,
}

fn node(tmp: &tempfile::TempDir, name: &str) -> Node {
    let dir = tmp.path().join(name);
    let mut ctx = context(&dir, ThreadingMode::Shared);
    // Half a term is how far a receiver may fall behind the fastest before max flow
    // control leaves it behind (over-runs, and NAKs beyond what can be resent): room for
    // the slower of two drivers sharing two cores with the test. Sparse, so the logs cost
    // only what is written.
    ctx.term_buffer_length = 16 << 20;
    ctx.term_buffer_sparse_file = true;
    let driver = MediaDriver::launch(ctx).unwrap();
    Node { client: RawClient::connect(&dir), _driver: driver }
}

impl Node {
    /// The system counters worth seeing when a transfer stalls.
    fn diagnostics(&self) -> String {
        let c = &self.client.cnc;
        let names = [
            (5, "naks_sent"),
            (6, "naks_rcvd"),
            (7, "sm_sent"),
            (8, "sm_rcvd"),
            (11, "retransmits"),
            (12, "underruns"),
            (13, "overruns"),
            (14, "invalid"),
            (15, "errors"),
            (16, "short_sends"),
            (37, "retransmit_overflow"),
        ];
        let mut out: Vec<String> =
            names.iter().map(|(id, n)| format!("{n}={}", c.system_counter(*id))).collect();
        out.extend(c.errors());
        out.join(" ")
    }

    fn subscribe(&mut self, channel: &str) -> i64 {
        let id = self.client.add_subscription(channel, STREAM);
        let record = self.client.expect_correlated(id);
        assert!(matches!(record.response(), Response::SubscriptionReady(_)), "{:?}", record.response());
        id
    }

    fn publish(&mut self, channel: &str) -> (TestPublication, i64) {
        let id = self.client.add_publication(channel, STREAM, false);
        let record = self.client.expect_correlated(id);
        let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
        let publication = TestPublication::map(
            ready.log_file_name_str().unwrap(),
            &self.client.cnc.counters_values,
            ready.position_limit_counter_id,
        );
        (publication, id)
    }

    fn image(&mut self, subscription_id: i64) -> TestImage {
        let record = self.client.expect(
            "image",
            |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription_id),
        );
        let Response::AvailableImage(image) = record.response() else { unreachable!() };
        TestImage::map(
            image.log_file_name_str().unwrap(),
            &self.client.cnc.counters_values,
            image.subscriber_position_id,
        )
    }

    fn succeeds(&mut self, correlation_id: i64) {
        let record = self.client.expect_correlated(correlation_id);
        assert!(matches!(record.response(), Response::OperationSuccess(_)), "{:?}", record.response());
    }

    /// The value of the first counter of `type_id`, if any.
    fn counter_of_type(&self, type_id: i32) -> Option<i64> {
        (0..1000)
            .find(|&id| {
                self.client.cnc.counter_state(id) == 1 && self.client.cnc.counter_type_id(id) == type_id
            })
            .map(|id| self.client.cnc.counter_value(id))
    }
}

/// Offers `count` messages of `length` (from index `first`) and polls every image until
/// each has them all; checks each image's messages are the expected ones, in order.
fn stream_to(
    nodes: &[&Node],
    publication: &TestPublication,
    images: &mut [&mut TestImage],
    first: u64,
    count: u64,
    length: usize,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut sent = first;
    let end = first + count;
    let done = |images: &[&mut TestImage]| images.iter().all(|i| i.received.borrow().len() as u64 >= end);
    while !done(images) {
        let progress: Vec<usize> = images.iter().map(|i| i.received.borrow().len()).collect();
        if Instant::now() >= deadline {
            let diagnostics: Vec<String> = nodes.iter().map(|n| n.diagnostics()).collect();
            panic!("sent {sent} of {end}, images have {progress:?}\n{}", diagnostics.join("\n"));
        }
        while sent < end {
            let result = publication.offer(&message(sent, length));
            if result < 0 {
                assert!(result == BACK_PRESSURED || result == NOT_CONNECTED, "offer {result}");
                break;
            }
            sent += 1;
        }
        let mut polled = 0;
        for image in images.iter_mut() {
            polled += image.poll(256);
        }
        if polled == 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    for (n, image) in images.iter().enumerate() {
        let received = image.received.borrow();
        for (i, m) in received.iter().enumerate().skip(first as usize) {
            assert_eq!(m, &message(i as u64, length), "image {n}, message {i}");
        }
    }
}

/// A multicast group on 239.255/16 unlikely to collide with a parallel test.
fn group() -> String {
    let p = free_port();
    format!("239.255.{}.{}:{p}", (p >> 8) as u8, (p as u8) | 1)
}

#[test]
fn multicast_reaches_every_receiving_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, mut b, mut sender) = (node(&tmp, "a"), node(&tmp, "b"), node(&tmp, "pub"));
    let channel = format!("aeron:udp?endpoint={}|interface=127.0.0.1|ttl=1|so-rcvbuf=2m", group());
    let (sub_a, sub_b) = (a.subscribe(&channel), b.subscribe(&channel));
    let (publication, _) = sender.publish(&channel);
    let mut image_a = a.image(sub_a);
    let mut image_b = b.image(sub_b);
    wait_until("connected", || publication.is_connected());
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a, &mut image_b], 0, 20_000, 200);
    // One NAK-free stream: nothing was retransmitted.
    assert_eq!(sender.client.cnc.system_counter(11), 0, "retransmits");
}

#[test]
fn dynamic_mdc_discovers_receivers_from_their_status_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, mut b, mut sender) = (node(&tmp, "a"), node(&tmp, "b"), node(&tmp, "pub"));
    let control = format!("127.0.0.1:{}", free_port());
    let (publication, _) = sender.publish(&format!("aeron:udp?control={control}|control-mode=dynamic"));
    let sub = |node: &mut Node| {
        node.subscribe(&format!(
            "aeron:udp?endpoint=127.0.0.1:{}|control={control}|control-mode=dynamic",
            free_port()
        ))
    };
    let (sub_a, sub_b) = (sub(&mut a), sub(&mut b));
    let mut image_a = a.image(sub_a);
    let mut image_b = b.image(sub_b);
    wait_until("two destinations", || sender.counter_of_type(CHANNEL_NUM_DESTINATIONS_TYPE_ID) == Some(2));
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a, &mut image_b], 0, 20_000, 100);
}

#[test]
fn manual_mdc_destinations_added_and_removed_while_streaming() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, mut b, mut sender) = (node(&tmp, "a"), node(&tmp, "b"), node(&tmp, "pub"));
    let (port_a, port_b) = (free_port(), free_port());
    let sub_a = a.subscribe(&format!("aeron:udp?endpoint=127.0.0.1:{port_a}"));
    let sub_b = b.subscribe(&format!("aeron:udp?endpoint=127.0.0.1:{port_b}"));
    let (publication, pub_id) = sender.publish("aeron:udp?control-mode=manual");
    assert_eq!(sender.counter_of_type(CHANNEL_NUM_DESTINATIONS_TYPE_ID), Some(0));
    let to_a = sender.client.add_destination(pub_id, &format!("aeron:udp?endpoint=127.0.0.1:{port_a}"));
    sender.succeeds(to_a);
    let mut image_a = a.image(sub_a);
    wait_until("connected", || publication.is_connected());
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a], 0, 5_000, 100);
    // A second destination joins mid-stream: its image starts where the stream is.
    let to_b = sender.client.add_destination(pub_id, &format!("aeron:udp?endpoint=127.0.0.1:{port_b}"));
    sender.succeeds(to_b);
    let mut image_b = b.image(sub_b);
    assert_eq!(sender.counter_of_type(CHANNEL_NUM_DESTINATIONS_TYPE_ID), Some(2));
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a], 5_000, 5_000, 100);
    wait_until("b caught up", || {
        image_b.poll(256);
        image_b.position() >= publication.position()
    });
    let b_first = image_b.received.borrow().len();
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a], 10_000, 5_000, 100);
    // b's frames may still be in flight when a has all of them: wait for b's share too, and
    // for b to hold everything published, so nothing sent before the removal arrives after it.
    wait_until("b receives while a destination", || {
        image_b.poll(256);
        image_b.received.borrow().len() >= b_first + 5_000 && image_b.position() >= publication.position()
    });
    // Removed by channel: a keeps receiving, b stops.
    let remove_b =
        sender.client.remove_destination(pub_id, &format!("aeron:udp?endpoint=127.0.0.1:{port_b}"));
    sender.succeeds(remove_b);
    wait_until("one destination", || sender.counter_of_type(CHANNEL_NUM_DESTINATIONS_TYPE_ID) == Some(1));
    image_b.poll(100_000);
    let b_at_removal = image_b.received.borrow().len();
    stream_to(&[&sender, &a, &b], &publication, &mut [&mut image_a], 15_000, 5_000, 100);
    image_b.poll(100_000);
    assert_eq!(image_b.received.borrow().len(), b_at_removal, "a removed destination gets nothing more");
    // Removed by registration id: none left.
    let remove_a = sender.client.remove_destination_by_id(pub_id, to_a);
    sender.succeeds(remove_a);
    wait_until("no destination", || sender.counter_of_type(CHANNEL_NUM_DESTINATIONS_TYPE_ID) == Some(0));
}

#[test]
fn mds_subscription_gets_each_message_once_from_two_destinations() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut receiver, mut sender) = (node(&tmp, "rcv"), node(&tmp, "pub"));
    let (port_a, port_b) = (free_port(), free_port());
    let sub = receiver.subscribe("aeron:udp?control-mode=manual");
    for port in [port_a, port_b] {
        let id = receiver.client.add_rcv_destination(sub, &format!("aeron:udp?endpoint=127.0.0.1:{port}"));
        receiver.succeeds(id);
    }
    let (publication, pub_id) = sender.publish("aeron:udp?control-mode=manual");
    for port in [port_a, port_b] {
        let id = sender.client.add_destination(pub_id, &format!("aeron:udp?endpoint=127.0.0.1:{port}"));
        sender.succeeds(id);
    }
    let mut image = receiver.image(sub);
    wait_until("connected", || publication.is_connected());
    stream_to(&[&sender, &receiver], &publication, &mut [&mut image], 0, 20_000, 100);
    assert_eq!(image.received.borrow().len(), 20_000, "each message once");
    // Without one destination the image goes on through the other.
    let id = receiver.client.remove_rcv_destination(sub, &format!("aeron:udp?endpoint=127.0.0.1:{port_a}"));
    receiver.succeeds(id);
    stream_to(&[&sender, &receiver], &publication, &mut [&mut image], 20_000, 5_000, 100);
}

#[test]
fn bad_channels_and_destination_commands_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let mut n = node(&tmp, "n");
    let port = free_port();
    let error = |n: &mut Node, id: i64| n.client.expect_error(id);
    let bad = [
        (
            format!("aeron:udp?endpoint=239.255.1.2:{port}"),
            GENERIC_ERROR,
            "multicast data address must be odd",
        ),
        ("aeron:udp?control-mode=dynamic".to_string(), INVALID_CHANNEL, "requires control"),
        (format!("aeron:udp?endpoint=239.255.1.3:{port}|fc=fastest"), GENERIC_ERROR, "fastest"),
        (
            format!("aeron:udp?control=127.0.0.1:{port}|control-mode=dynamic|fc=tagged,g:abc"),
            GENERIC_ERROR,
            "abc",
        ),
    ];
    for (channel, code, text) in &bad {
        let id = n.client.add_publication(channel, STREAM, false);
        let (got, message) = error(&mut n, id);
        assert_eq!(got, *code, "{channel}: {message}");
        assert!(message.contains(text), "{channel}: {message}");
    }
    // Destinations only for manual control.
    let (_, unicast) = n.publish(&format!("aeron:udp?endpoint=127.0.0.1:{port}"));
    let id = n.client.add_destination(unicast, &format!("aeron:udp?endpoint=127.0.0.1:{}", free_port()));
    let (code, message) = error(&mut n, id);
    assert_eq!(code, INVALID_CHANNEL);
    assert!(message.contains("does not allow manual control"), "{message}");
    let (_, manual) = n.publish("aeron:udp?control-mode=manual");
    for (channel, text) in [
        ("aeron:udp?endpoint=127.0.0.1:0", "port=0"),
        ("aeron:udp?endpoint=127.0.0.1:5000|mtu=8192", "must not contain the key: mtu"),
        ("aeron-spy:aeron:udp?endpoint=127.0.0.1:5000", "spies are invalid"),
        ("aeron:ipc", "incorrect URI format"),
    ] {
        let id = n.client.add_destination(manual, channel);
        let (_, message) = error(&mut n, id);
        assert!(message.contains(text), "{channel}: {message}");
    }
    let id = n.client.add_destination(4242, "aeron:udp?endpoint=127.0.0.1:5000");
    assert_eq!(error(&mut n, id).0, UNKNOWN_PUBLICATION);
    let id = n.client.remove_destination_by_id(4242, 1);
    assert_eq!(error(&mut n, id).0, UNKNOWN_PUBLICATION);
    // Removing a destination that was never added is an error (Aeron's drivers answer
    // success; the caller here hears that it named the wrong one).
    let id = n.client.remove_destination(manual, "aeron:udp?endpoint=127.0.0.1:5999");
    let (code, message) = error(&mut n, id);
    assert_eq!(code, GENERIC_ERROR);
    assert!(message.contains("unknown destination"), "{message}");
    let id = n.client.remove_destination_by_id(manual, 123_456);
    assert!(error(&mut n, id).1.contains("unknown destination registration_id=123456"));
    let id = n.client.add_destination(manual, "aeron:udp?endpoint=127.0.0.1:5999");
    n.succeeds(id);
    let remove = n.client.remove_destination(manual, "aeron:udp?endpoint=127.0.0.1:5999");
    n.succeeds(remove);
    let again = n.client.remove_destination_by_id(manual, id);
    assert!(error(&mut n, again).1.contains("unknown destination"), "removed already");
    // Receive destinations only for manual subscriptions.
    let plain = n.subscribe(&format!("aeron:udp?endpoint=127.0.0.1:{}", free_port()));
    let id = n.client.add_rcv_destination(plain, &format!("aeron:udp?endpoint=127.0.0.1:{}", free_port()));
    assert_eq!(error(&mut n, id).0, INVALID_CHANNEL);
    let id = n.client.add_rcv_destination(9999, &format!("aeron:udp?endpoint=127.0.0.1:{}", free_port()));
    assert_eq!(error(&mut n, id).0, UNKNOWN_SUBSCRIPTION);
    let mds = n.subscribe("aeron:udp?control-mode=manual");
    let id = n.client.remove_rcv_destination(mds, &format!("aeron:udp?endpoint=127.0.0.1:{}", free_port()));
    assert!(error(&mut n, id).1.contains("unknown destination"));
    // A shared endpoint keeps the buffers it was opened with.
    let shared = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    n.subscribe(&format!("{shared}|so-rcvbuf=256k"));
    let id = n.client.add_subscription(&format!("{shared}|so-rcvbuf=512k"), STREAM);
    let (code, message) = error(&mut n, id);
    assert_eq!(code, GENERIC_ERROR, "a parameter error, as Aeron C answers it");
    assert!(message.contains("so-rcvbuf=524288 does not match existing value of 262144"), "{message}");
    // The driver still serves a good command.
    let sub = n.subscribe(&format!("aeron:udp?endpoint={}|interface=127.0.0.1", group()));
    assert!(sub > 0);
}
