//! Our publisher and our subscriber in separate processes over `aeron:ipc`, through each
//! media driver (real Java Aeron, and our `aeronmd`): every message arrives once, intact and
//! in order (10 million small messages and 1,000 of 1 MiB through `aeronmd`). Plus two
//! publisher processes sharing a concurrent publication beside an exclusive one, held back
//! by a slow subscriber process; back pressure in one process; several threads sharing one
//! concurrent publication.
mod client_support;

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, FragmentAssembler, Header, NOT_CONNECTED};
use client_support::{
    DriverKind, DriverOptions, ErrorLog, TestDriver, connect_from_env, context, driver_tests, env_u64, fill,
    process_tests, role, spawn_role, spawn_role_captured, verify, wait_child, wait_until,
};

const CHANNEL: &str = "aeron:ipc?term-length=16m";
const STREAM_ID: i32 = 1001;

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
fn two_processes_ten_million_small_messages_rust_driver() {
    let test = "two_processes_ten_million_small_messages_rust_driver";
    two_processes(test, DriverKind::Rust, 10_000_000, 32);
}

/// 200-byte messages: the offer fast path's chunked inline copy, across many term ends.
#[test]
fn two_processes_half_a_million_mid_size_messages_rust_driver() {
    let test = "two_processes_half_a_million_mid_size_messages_rust_driver";
    two_processes(test, DriverKind::Rust, 500_000, 200);
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

/// `Image::has_nothing_to_poll` and `Subscription::has_nothing_to_poll` (the C API's
/// empty-poll shortcuts) agree with what a poll finds: true with nothing published, false
/// once a frame is there, true again once it is consumed (padding at each term end
/// included), and true once the image is closed; a subscription is unsure (false) until its
/// poll has taken in the current image list.
fn an_image_tells_when_a_poll_would_find_nothing(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 9).expect("subscription");
    let publication = aeron.add_publication(channel, 9).expect("publication");
    wait_until(Duration::from_secs(20), "connected", || {
        publication.is_connected() && subscription.image_count() > 0
    });
    let image = subscription.image_at_index(0).expect("image");
    assert!(image.has_nothing_to_poll(), "nothing published yet");
    assert!(!subscription.has_nothing_to_poll(), "the image list is not taken in yet");
    assert_eq!(subscription.poll(|_: &[u8], _: &Header| panic!("nothing was sent"), 10), 0);
    assert!(subscription.has_nothing_to_poll());
    // 1,000-byte messages: 200 of them cross the 64 KiB term end three times.
    for i in 0..200u64 {
        let message = vec![i as u8; 1000];
        while publication.offer(&message).expect("offer") < 0 {
            std::thread::yield_now();
        }
        assert!(!image.has_nothing_to_poll(), "message {i} is published");
        assert!(!subscription.has_nothing_to_poll(), "message {i} is published");
        let mut fragments = 0;
        while fragments == 0 {
            fragments = image.poll(|m: &[u8], _: &Header| assert_eq!(m, &message[..]), 1);
        }
        assert_eq!(image.poll(|_: &[u8], _: &Header| panic!("only message {i} was sent"), 10), 0);
        assert!(image.has_nothing_to_poll(), "message {i} is consumed");
        assert!(subscription.has_nothing_to_poll(), "message {i} is consumed");
    }
    while publication.offer(b"left unread").expect("offer") < 0 {
        std::thread::yield_now();
    }
    assert!(!image.has_nothing_to_poll());
    drop(subscription);
    wait_until(Duration::from_secs(20), "image closed", || image.is_closed());
    assert!(image.has_nothing_to_poll(), "a closed image polls nothing");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

driver_tests!(
    slow_subscriber_back_pressures_without_loss,
    threads_share_a_concurrent_publication,
    an_image_tells_when_a_poll_would_find_nothing
);

/// A 64 KiB term: a 32 KiB publication window, which a slow subscriber soon fills.
const SLOW_CHANNEL: &str = "aeron:ipc?term-length=64k";
const SLOW_STREAM_ID: i32 = 1002;
/// Message: bytes 0..8 = publisher tag, bytes 8.. = interop message `i` of the rest.
const TAGGED_LENGTH: usize = 64;
const TAGGED_COUNT: u64 = 10_000;

/// Child role: publisher `TAG` on the shared concurrent publication, or (`EXCLUSIVE=1`) on
/// its own exclusive one. Before any subscriber exists its offers are NOT_CONNECTED; then it
/// offers `TAGGED_COUNT` messages, retrying each while BACK_PRESSURED, and fails unless the
/// slow subscriber did back-pressure it.
fn tagged_publisher_role() {
    let (tag, exclusive) = (env_u64("TAG"), env_u64("EXCLUSIVE") == 1);
    let log = ErrorLog::default();
    let aeron = connect_from_env(&log);
    let mut message = [0u8; TAGGED_LENGTH];
    message[..8].copy_from_slice(&tag.to_le_bytes());
    let (mut concurrent, mut exclusive_publication) = (None, None);
    if exclusive {
        exclusive_publication =
            Some(aeron.add_exclusive_publication(SLOW_CHANNEL, SLOW_STREAM_ID).expect("add"));
    } else {
        concurrent = Some(aeron.add_publication(SLOW_CHANNEL, SLOW_STREAM_ID).expect("add"));
    }
    let mut offer = |message: &[u8]| match (&concurrent, &mut exclusive_publication) {
        (Some(publication), _) => publication.offer(message).expect("offer"),
        (None, Some(publication)) => publication.offer(message).expect("offer"),
        (None, None) => unreachable!(),
    };
    assert_eq!(offer(&message), NOT_CONNECTED, "no subscriber yet");
    println!("NOT_CONNECTED seen");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut back_pressured = 0u64;
    for i in 0..TAGGED_COUNT {
        fill(&mut message[8..], i);
        loop {
            let result = offer(&message);
            if result > 0 {
                break;
            }
            match result {
                BACK_PRESSURED => back_pressured += 1,
                // Before the subscriber arrives, and while a rotation is under way.
                NOT_CONNECTED | ADMIN_ACTION => {}
                other => panic!("publisher {tag}: offer {i} failed: {other}"),
            }
            assert!(Instant::now() < deadline, "publisher {tag}: offer {i} not accepted within 60 s");
            std::thread::yield_now();
        }
    }
    println!(
        "publisher {tag} (exclusive: {exclusive}): {TAGGED_COUNT} offered, {back_pressured} back pressured"
    );
    assert!(back_pressured > 0, "the slow subscriber never back pressured publisher {tag}");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn ipc_roles(role: &str) {
    match role {
        "tagged-pub" => tagged_publisher_role(),
        other => panic!("unknown role {other}"),
    }
}

/// Two publisher processes on one concurrent publication and a third on an exclusive one;
/// this process subscribes slowly. Every message arrives once, intact, in order per
/// publisher; the two concurrent ones share a session, the exclusive one has its own.
fn publisher_processes_and_a_slow_subscriber(test: &str, driver: &mut TestDriver) {
    let dir = driver.aeron_dir().display().to_string();
    let mut publishers: Vec<_> = (0..3u64)
        .map(|tag| {
            let envs = [
                ("AERON_DIR", dir.clone()),
                ("TAG", tag.to_string()),
                ("EXCLUSIVE", u64::from(tag == 2).to_string()),
            ];
            spawn_role_captured(test, "tagged-pub", &envs)
        })
        .collect();
    // Subscribe only once every publisher has seen NOT_CONNECTED.
    for publisher in &mut publishers {
        publisher.wait_for("NOT_CONNECTED seen", Duration::from_secs(60));
    }
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let mut subscription = aeron.add_subscription(SLOW_CHANNEL, SLOW_STREAM_ID).expect("subscription");
    let mut next = [0u64; 3];
    let mut sessions = [None::<i32>; 3];
    let mut failure = None;
    let deadline = Instant::now() + Duration::from_secs(90);
    while next.iter().sum::<u64>() < 3 * TAGGED_COUNT {
        subscription.poll(
            |message: &[u8], header: &Header| {
                let tag = u64::from_le_bytes(message[..8].try_into().unwrap()) as usize;
                if tag > 2 {
                    failure.get_or_insert(format!("unknown publisher tag {tag}"));
                    return;
                }
                if let Err(e) = verify(&message[8..], next[tag], TAGGED_LENGTH - 8) {
                    failure.get_or_insert(format!("publisher {tag}: {e}"));
                }
                if *sessions[tag].get_or_insert(header.session_id()) != header.session_id() {
                    failure.get_or_insert(format!("publisher {tag} changed session"));
                }
                next[tag] += 1;
            },
            20,
        );
        if let Some(failure) = &failure {
            panic!("{failure}");
        }
        assert!(Instant::now() < deadline, "received {next:?} of {TAGGED_COUNT} each within 90 s");
        // Slow: the publishers outrun us and must wait for the window to open.
        std::thread::sleep(Duration::from_micros(100));
    }
    for publisher in &mut publishers {
        publisher.finish(Duration::from_secs(60));
        println!("{}", publisher.wait_for("publisher ", Duration::from_secs(1)));
    }
    // Nothing beyond the counts arrives (each message exactly once).
    std::thread::sleep(Duration::from_millis(50));
    subscription.poll(|_: &[u8], _: &Header| panic!("a message beyond the counts"), 10);
    assert_eq!(next, [TAGGED_COUNT; 3]);
    assert_eq!(sessions[0], sessions[1], "the concurrent publishers share one session");
    assert_ne!(sessions[0], sessions[2], "the exclusive publication has its own session");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

process_tests!(ipc_roles; publisher_processes_and_a_slow_subscriber);
