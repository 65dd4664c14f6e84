//! Our client with real Java Aeron clients, on a Java media driver and on our `aeronmd`:
//! our publisher to a Java subscriber, and a Java publisher to our subscriber; every
//! message once, intact, in order.
mod client_support;

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, FragmentAssembler, Header, NOT_CONNECTED};
use client_support::{ErrorLog, JavaPeer, TestDriver, context, driver_tests, fill, verify, wait_until};

const CHANNEL: &str = "aeron:ipc?term-length=16m";

fn publish_to_java(driver: &TestDriver, count: u64, length: usize, stream_id: i32) {
    let mut java = JavaPeer::start(driver.aeron_dir(), "sub", CHANNEL, stream_id, count, length);
    java.output.wait_for("READY", Duration::from_secs(60), &mut java.child);
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let publication = aeron.add_publication(CHANNEL, stream_id).expect("publication");
    wait_until(Duration::from_secs(30), "Java subscriber", || publication.is_connected());
    let mut message = vec![0u8; length];
    for i in 0..count {
        fill(&mut message, i);
        loop {
            let result = publication.offer(&message).expect("offer");
            if result > 0 {
                break;
            }
            assert!(
                result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
                "offer {i}: {result}"
            );
            std::thread::yield_now();
        }
    }
    let output = java.finish(Duration::from_secs(120));
    assert!(output.iter().any(|l| *l == format!("DONE {count}")), "{output:?}");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn subscribe_to_java(driver: &TestDriver, count: u64, length: usize, stream_id: i32) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let mut subscription = aeron.add_subscription(CHANNEL, stream_id).expect("subscription");
    let java = JavaPeer::start(driver.aeron_dir(), "pub", CHANNEL, stream_id, count, length);
    let next = Cell::new(0u64);
    let failure = RefCell::new(None);
    let mut assembler = FragmentAssembler::new(|message: &[u8], _: &Header| {
        if failure.borrow().is_none() {
            *failure.borrow_mut() = verify(message, next.get(), length).err();
        }
        next.set(next.get() + 1);
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    while next.get() < count {
        if subscription.poll(|p, h| assembler.on_fragment(p, h), 256) == 0 {
            std::thread::yield_now();
        }
        assert!(Instant::now() < deadline, "received {} of {count}", next.get());
    }
    if let Some(failure) = failure.take() {
        panic!("{failure}");
    }
    let output = java.finish(Duration::from_secs(60));
    assert!(output.iter().any(|l| l.starts_with(&format!("DONE {count} "))), "{output:?}");
    // Nothing more than the count arrives (each message exactly once).
    std::thread::sleep(Duration::from_millis(50));
    subscription.poll(|p, h| assembler.on_fragment(p, h), 256);
    assert_eq!(next.get(), count);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn our_publisher_to_java_subscriber(driver: &mut TestDriver) {
    publish_to_java(driver, 200_000, 32, 2001);
}

fn our_fragmented_messages_to_java_subscriber(driver: &mut TestDriver) {
    publish_to_java(driver, 200, 1 << 20, 2002);
}

fn java_publisher_to_our_subscriber(driver: &mut TestDriver) {
    subscribe_to_java(driver, 200_000, 32, 2003);
}

fn java_fragmented_messages_to_our_subscriber(driver: &mut TestDriver) {
    subscribe_to_java(driver, 200, 1 << 20, 2004);
}

driver_tests!(
    our_publisher_to_java_subscriber,
    our_fragmented_messages_to_java_subscriber,
    java_publisher_to_our_subscriber,
    java_fragmented_messages_to_our_subscriber,
);
