//! Our publisher and our subscriber in two processes over `aeron:ipc`, through each media
//! driver (real Java Aeron, and our `aeronmd`): every message arrives once, intact and in order. Plus back pressure with
//! a slow subscriber and several threads sharing one concurrent publication.
mod client_support;

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, FragmentAssembler, Header, NOT_CONNECTED};
use client_support::{
    DriverKind, DriverOptions, ErrorLog, TestDriver, context, driver_tests, fill, role, spawn_role, verify,
    wait_child, wait_until,
};

const CHANNEL: &str = "aeron:ipc?term-length=16m";
const STREAM_ID: i32 = 1001;

fn env_u64(name: &str) -> u64 {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set")).parse().unwrap()
}

/// Child role: publish `COUNT` interop messages of `LENGTH` bytes.
fn publisher_role() {
    let (count, length) = (env_u64("COUNT"), env_u64("LENGTH") as usize);
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(std::env::var("AERON_DIR").unwrap().as_ref(), &log)).expect("connect");
    let publication = aeron.add_publication(CHANNEL, STREAM_ID).expect("publication");
    wait_until(Duration::from_secs(30), "subscriber", || publication.is_connected());
    let mut message = vec![0u8; length];
    let (mut back_pressured, mut admin) = (0u64, 0u64);
    let start = Instant::now();
    for i in 0..count {
        fill(&mut message, i);
        loop {
            let result = publication.offer(&message).expect("offer");
            if result > 0 {
                break;
            }
            match result {
                BACK_PRESSURED => back_pressured += 1,
                ADMIN_ACTION => admin += 1,
                _ => panic!("offer {i} failed: {result}"),
            }
            std::thread::yield_now();
        }
    }
    let elapsed = start.elapsed();
    println!(
        "publisher: {count} x {length} B in {elapsed:?} ({:.0} msg/s), back pressured {back_pressured}, admin {admin}",
        count as f64 / elapsed.as_secs_f64()
    );
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// Child role: receive and verify `COUNT` interop messages of `LENGTH` bytes, in order.
fn subscriber_role() {
    let (count, length) = (env_u64("COUNT"), env_u64("LENGTH") as usize);
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(std::env::var("AERON_DIR").unwrap().as_ref(), &log)).expect("connect");
    let mut subscription = aeron.add_subscription(CHANNEL, STREAM_ID).expect("subscription");
    let next = Cell::new(0u64);
    let failure = RefCell::new(None);
    let mut assembler = FragmentAssembler::new(|message: &[u8], _: &Header| {
        if failure.borrow().is_none() {
            *failure.borrow_mut() = verify(message, next.get(), length).err();
        }
        next.set(next.get() + 1);
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut start = None;
    while next.get() < count {
        let fragments = subscription.poll(|p, h| assembler.on_fragment(p, h), 256);
        if fragments > 0 && start.is_none() {
            start = Some(Instant::now());
        }
        assert!(Instant::now() < deadline, "received {} of {count} within 120 s", next.get());
        if fragments == 0 {
            std::thread::yield_now();
        }
    }
    if let Some(failure) = failure.take() {
        panic!("{failure}");
    }
    assert_eq!(next.get(), count, "each message exactly once");
    let elapsed = start.map(|s| s.elapsed()).unwrap_or_default();
    println!("subscriber: {count} x {length} B verified in {elapsed:?}");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// Runs publisher and subscriber children of `test` against one driver of `kind`.
fn two_processes(test: &str, kind: DriverKind, count: u64, length: usize) {
    if let Some(role) = role() {
        return match role.as_str() {
            "pub" => publisher_role(),
            "sub" => subscriber_role(),
            other => panic!("unknown role {other}"),
        };
    }
    let Some(driver) = TestDriver::start(kind, DriverOptions::default()) else { return };
    let envs = [
        ("AERON_DIR", driver.aeron_dir().display().to_string()),
        ("COUNT", count.to_string()),
        ("LENGTH", length.to_string()),
    ];
    let mut subscriber = spawn_role(test, "sub", &envs);
    let mut publisher = spawn_role(test, "pub", &envs);
    wait_child(&mut publisher, "publisher process", Duration::from_secs(150));
    wait_child(&mut subscriber, "subscriber process", Duration::from_secs(150));
}

#[test]
fn two_processes_one_million_small_messages_java_driver() {
    let test = "two_processes_one_million_small_messages_java_driver";
    two_processes(test, DriverKind::Java, 1_000_000, 32);
}

#[test]
fn two_processes_one_million_small_messages_rust_driver() {
    let test = "two_processes_one_million_small_messages_rust_driver";
    two_processes(test, DriverKind::Rust, 1_000_000, 32);
}

#[test]
fn two_processes_one_thousand_fragmented_messages_java_driver() {
    let test = "two_processes_one_thousand_fragmented_messages_java_driver";
    two_processes(test, DriverKind::Java, 1_000, 1 << 20);
}

#[test]
fn two_processes_one_thousand_fragmented_messages_rust_driver() {
    let test = "two_processes_one_thousand_fragmented_messages_rust_driver";
    two_processes(test, DriverKind::Rust, 1_000, 1 << 20);
}

fn slow_subscriber_back_pressures_without_loss(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    // A 64 KiB term gives a 32 KiB publication window: the publisher soon runs into it.
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 7).expect("subscription");
    let publication = aeron.add_publication(channel, 7).expect("publication");
    wait_until(Duration::from_secs(20), "connected", || publication.is_connected());
    let count = 20_000u64;
    let done = Arc::new(AtomicBool::new(false));
    let back_pressured = Arc::new(AtomicU64::new(0));
    let publisher = {
        let (done, back_pressured) = (Arc::clone(&done), Arc::clone(&back_pressured));
        std::thread::spawn(move || {
            let mut message = [0u8; 100];
            for i in 0..count {
                fill(&mut message, i);
                loop {
                    let result = publication.offer(&message).expect("offer");
                    if result > 0 {
                        break;
                    }
                    match result {
                        BACK_PRESSURED => back_pressured.fetch_add(1, Ordering::Relaxed),
                        ADMIN_ACTION => 0,
                        other => panic!("offer {i}: {other}"),
                    };
                    std::thread::yield_now();
                }
            }
            done.store(true, Ordering::Release);
            publication
        })
    };
    let mut next = 0u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    while next < count {
        // Slow: a few fragments, then a pause, so the publisher outruns us.
        subscription.poll(
            |message: &[u8], _: &Header| {
                verify(message, next, 100).unwrap();
                next += 1;
            },
            if done.load(Ordering::Acquire) { 1000 } else { 50 },
        );
        assert!(Instant::now() < deadline, "received {next} of {count}");
        std::thread::sleep(Duration::from_micros(200));
    }
    let _publication = publisher.join().expect("publisher thread");
    assert_eq!(next, count);
    assert!(
        back_pressured.load(Ordering::Relaxed) > 0,
        "the slow subscriber never back pressured the publisher"
    );
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn threads_share_a_concurrent_publication(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 8).expect("subscription");
    let publication = Arc::new(aeron.add_publication(channel, 8).expect("publication"));
    wait_until(Duration::from_secs(20), "connected", || publication.is_connected());
    let (threads, per_thread) = (3u64, 20_000u64);
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let publication = Arc::clone(&publication);
            std::thread::spawn(move || {
                for i in 0..per_thread {
                    let message = (t << 32 | i).to_le_bytes();
                    loop {
                        let result = publication.offer(&message).expect("offer");
                        if result > 0 {
                            break;
                        }
                        assert!(
                            result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
                            "offer: {result}"
                        );
                        std::thread::yield_now();
                    }
                }
            })
        })
        .collect();
    let mut next = vec![0u64; threads as usize];
    let mut total = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while total < threads * per_thread {
        let fragments = subscription.poll(
            |message: &[u8], _: &Header| {
                let value = u64::from_le_bytes(message.try_into().unwrap());
                let (t, i) = ((value >> 32) as usize, value & 0xFFFF_FFFF);
                assert_eq!(i, next[t], "thread {t}: messages in order, each once");
                next[t] += 1;
                total += 1;
            },
            256,
        );
        assert!(Instant::now() < deadline, "received {total}");
        if fragments == 0 {
            std::thread::yield_now();
        }
    }
    workers.into_iter().for_each(|w| w.join().unwrap());
    assert!(next.iter().all(|&n| n == per_thread));
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

driver_tests!(slow_subscriber_back_pressures_without_loss, threads_share_a_concurrent_publication);
