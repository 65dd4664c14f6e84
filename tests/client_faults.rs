//! Faults across processes, through each media driver (real Java Aeron, and our `aeronmd`)
//! with short timeouts (client liveness 2 s, publication unblock 3 s, timer 100 ms):
//! a publisher killed between `try_claim` and commit, a subscriber killed while it holds
//! the publisher back, and a publication closed with messages still unconsumed. A killed
//! driver is in `client_liveness.rs`. Every wait is bounded; children die with the test.
mod client_support;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, Header, NOT_CONNECTED, Publication, Subscription,
};
use aeronrs::concurrent::counters::CountersReader;
use client_support::{
    DriverOptions, ErrorLog, TestDriver, connect_from_env, context, env_u64, fill, process_tests,
    spawn_role_captured, verify, wait_until,
};

/// A 64 KiB term: a 32 KiB publication window.
const CHANNEL: &str = "aeron:ipc?term-length=64k";
const STREAM_ID: i32 = 3001;
/// Message: bytes 0..8 = publisher tag, bytes 8.. = interop message `i` of the rest.
const LENGTH: usize = 64;
const WAIT: Duration = Duration::from_secs(30);

/// Counter type ids (`spec/counters.md`): subscriber position, client heartbeat.
const SUBSCRIBER_POSITION_TYPE_ID: i32 = 4;
const CLIENT_HEARTBEAT_TYPE_ID: i32 = 11;
/// System counter id of "Unblocked Publications".
const UNBLOCKED_PUBLICATIONS: i32 = 19;

fn tagged(tag: u64, i: u64) -> [u8; LENGTH] {
    let mut message = [0u8; LENGTH];
    message[..8].copy_from_slice(&tag.to_le_bytes());
    fill(&mut message[8..], i);
    message
}

/// Checks a tagged message: returns its tag if its body is message `next[tag]`.
fn check_tagged(message: &[u8], next: &[u64]) -> Result<usize, String> {
    if message.len() != LENGTH {
        return Err(format!("message of {} bytes", message.len()));
    }
    let tag = u64::from_le_bytes(message[..8].try_into().unwrap()) as usize;
    let expected = *next.get(tag).ok_or_else(|| format!("unknown tag {tag}"))?;
    verify(&message[8..], expected, LENGTH - 8).map_err(|e| format!("publisher {tag}: {e}"))?;
    Ok(tag)
}

/// Offers until accepted (retrying BACK_PRESSURED, NOT_CONNECTED and ADMIN_ACTION), within
/// `deadline`.
fn offer(publication: &Publication, message: &[u8], deadline: Instant) -> i64 {
    loop {
        let result = publication.offer(message).expect("offer");
        if result > 0 {
            return result;
        }
        assert!([BACK_PRESSURED, NOT_CONNECTED, ADMIN_ACTION].contains(&result), "offer failed: {result}");
        assert!(Instant::now() < deadline, "offer not accepted in time (last result {result})");
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Counts the allocated counters of `type_id`.
fn count_counters(counters: &CountersReader, type_id: i32) -> usize {
    counters.counters().iter().filter(|c| c.type_id == type_id).count()
}

fn envs(driver: &TestDriver, extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut envs = vec![("AERON_DIR", driver.aeron_dir().display().to_string())];
    envs.extend_from_slice(extra);
    envs
}

/// Child role: offers `COUNT` messages tagged `TAG`, then claims one more frame and — as if
/// it crashed there — never commits it, waiting to be killed.
fn claimer_role() {
    let (tag, count) = (env_u64("TAG"), env_u64("COUNT"));
    let log = ErrorLog::default();
    let aeron = connect_from_env(&log);
    let publication = aeron.add_publication(CHANNEL, STREAM_ID).expect("publication");
    wait_until(WAIT, "subscriber", || publication.is_connected());
    let deadline = Instant::now() + WAIT;
    for i in 0..count {
        offer(&publication, &tagged(tag, i), deadline);
    }
    let (position, mut claim) = loop {
        match publication.try_claim(LENGTH).expect("try_claim") {
            (position, Some(claim)) => break (position, claim),
            (code, None) => assert!(code == BACK_PRESSURED || code == ADMIN_ACTION, "try_claim: {code}"),
        }
    };
    claim.buffer().copy_from_slice(&tagged(tag, count));
    println!("CLAIMED {position}");
    std::thread::sleep(Duration::from_secs(60));
    panic!("the claimer was not killed within 60 s");
}

/// Child role: offers `COUNT` messages tagged `TAG`, waiting out back pressure.
fn steady_publisher_role() {
    let (tag, count) = (env_u64("TAG"), env_u64("COUNT"));
    let log = ErrorLog::default();
    let aeron = connect_from_env(&log);
    let publication = aeron.add_publication(CHANNEL, STREAM_ID).expect("publication");
    wait_until(WAIT, "subscriber", || publication.is_connected());
    println!("CONNECTED");
    let deadline = Instant::now() + WAIT;
    for i in 0..count {
        offer(&publication, &tagged(tag, i), deadline);
    }
    println!("DONE");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// Child role: subscribes, says so once its image is there, and never polls.
fn idle_subscriber_role() {
    let log = ErrorLog::default();
    let aeron = connect_from_env(&log);
    let subscription = aeron.add_subscription(CHANNEL, STREAM_ID).expect("subscription");
    wait_until(WAIT, "image", || subscription.image_count() == 1);
    println!("SUBSCRIBED");
    std::thread::sleep(Duration::from_secs(60));
    panic!("the subscriber was not killed within 60 s");
}

/// Child role: offers `COUNT` messages tagged 0, then closes its publication and exits.
fn closing_publisher_role() {
    let count = env_u64("COUNT");
    let log = ErrorLog::default();
    let aeron = connect_from_env(&log);
    let publication = aeron.add_publication(DRAIN_CHANNEL, STREAM_ID).expect("publication");
    wait_until(WAIT, "subscribers", || publication.is_connected());
    let deadline = Instant::now() + WAIT;
    for i in 0..count {
        offer(&publication, &tagged(0, i), deadline);
    }
    println!("CLOSING at {}", publication.position());
    publication.close();
    aeron.close();
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn fault_roles(role: &str) {
    match role {
        "claimer" => claimer_role(),
        "steady" => steady_publisher_role(),
        "idle-sub" => idle_subscriber_role(),
        "closer" => closing_publisher_role(),
        other => panic!("unknown role {other}"),
    }
}

/// Polls `subscription` until `done` (bounded by `WAIT`), checking each message.
fn poll_until(
    subscription: &mut Subscription,
    next: &mut [u64],
    what: &str,
    mut done: impl FnMut(&[u64]) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    let mut failure = None;
    while !done(next) {
        let fragments = subscription.poll(
            |message: &[u8], _: &Header| match check_tagged(message, next) {
                Ok(tag) => next[tag] += 1,
                Err(e) => drop(failure.get_or_insert(e)),
            },
            100,
        );
        if let Some(failure) = failure.take() {
            panic!("{failure}");
        }
        assert!(Instant::now() < deadline, "{what}: received {next:?} within {WAIT:?}");
        if fragments == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// (a) Publisher A dies with a claimed, uncommitted frame; publisher B, on the same
/// publication, appends behind it. The subscriber is stuck at the claim until the driver's
/// unblock timeout, then receives all of B's messages.
fn killed_publisher_mid_claim_is_unblocked(test: &str, driver: &mut TestDriver) {
    const BEFORE: u64 = 100;
    const AFTER: u64 = 2_000;
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let mut subscription = aeron.add_subscription(CHANNEL, STREAM_ID).expect("subscription");
    let mut claimer = spawn_role_captured(
        test,
        "claimer",
        &envs(driver, &[("TAG", "0".into()), ("COUNT", BEFORE.to_string())]),
    );
    let claimed = claimer.wait_for("CLAIMED ", WAIT);
    let mut next = [0u64; 2];
    poll_until(&mut subscription, &mut next, "A's messages", |next| next[0] == BEFORE);
    let image = subscription.image_at_index(0).expect("image");
    assert_eq!(claimed, format!("CLAIMED {}", image.position() + 96), "the claim follows A's messages");

    let mut steady = spawn_role_captured(
        test,
        "steady",
        &envs(driver, &[("TAG", "1".into()), ("COUNT", AFTER.to_string())]),
    );
    steady.wait_for("CONNECTED", WAIT);
    claimer.kill();
    let killed = Instant::now();
    // B's messages lie behind the dead claim: none can arrive before the driver unblocks.
    poll_until(&mut subscription, &mut next, "B's messages after the unblock", |next| next[1] == AFTER);
    println!("subscriber resumed {:?} after the kill (unblock timeout 3 s)", killed.elapsed());
    steady.finish(WAIT);
    assert_eq!(next, [BEFORE, AFTER], "A's claimed frame became padding, nothing else was lost");
    assert_eq!(aeron.counters_reader().counter_value(UNBLOCKED_PUBLICATIONS).unwrap(), 1);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// (b) A subscriber process that never polls holds the publisher at its window; killed,
/// it is timed out by the driver, which frees its counters, and the publisher moves on at
/// the pace of the remaining subscriber.
fn killed_subscriber_stops_holding_the_publisher_back(test: &str, driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let counters = aeron.counters_reader().clone();
    let publication = aeron.add_publication(CHANNEL, STREAM_ID).expect("publication");
    let mut subscription = aeron.add_subscription(CHANNEL, STREAM_ID).expect("subscription");
    let mut victim = spawn_role_captured(test, "idle-sub", &envs(driver, &[]));
    victim.wait_for("SUBSCRIBED", WAIT);
    assert_eq!(count_counters(&counters, SUBSCRIBER_POSITION_TYPE_ID), 2);
    assert_eq!(count_counters(&counters, CLIENT_HEARTBEAT_TYPE_ID), 2);

    // Fill the window: our own subscriber keeps up, yet the publisher stays held back.
    let mut next = [0u64; 1];
    let mut published = 0u64;
    let mut held = false;
    while !held {
        let result = publication.offer(&tagged(0, published)).expect("offer");
        if result > 0 {
            published += 1;
            continue;
        }
        assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
        poll_until(&mut subscription, &mut next, "messages before the window closed", |n| n[0] == published);
        // Ours has read everything, so a limit still at the position is the idle subscriber's.
        held = result == BACK_PRESSURED && publication.position() >= publication.position_limit();
    }
    assert!(published * 96 >= 32 * 1024 - 96, "held back at the window, after {published} messages");

    victim.kill();
    let killed = Instant::now();
    let deadline = killed + WAIT;
    offer(&publication, &tagged(0, published), deadline);
    published += 1;
    println!("publisher released {:?} after the kill (client liveness timeout 2 s)", killed.elapsed());
    wait_until(WAIT, "the victim's counters freed", || {
        count_counters(&counters, SUBSCRIBER_POSITION_TYPE_ID) == 1
            && count_counters(&counters, CLIENT_HEARTBEAT_TYPE_ID) == 1
    });
    // Far past the old window: only our subscriber sets the pace now.
    let total = published + 10_000;
    while published < total {
        let result = publication.offer(&tagged(0, published)).expect("offer");
        if result > 0 {
            published += 1;
        } else {
            assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
            poll_until(&mut subscription, &mut next, "catching up", |n| n[0] + 100 >= published);
        }
    }
    poll_until(&mut subscription, &mut next, "all messages", |n| n[0] == total);
    assert!(publication.is_connected());
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// 1 MiB terms: a 512 KiB window holds every message of the closing publisher, so it can
/// publish them all and close before anyone has read one.
const DRAIN_CHANNEL: &str = "aeron:ipc?term-length=1m";

/// (d) A publisher process publishes, closes its publication and exits while two
/// subscribers have read nothing. Both drain every message, then see end of stream, then
/// the image goes (unavailable-image handler, image count 0).
fn closed_publication_drains_then_ends_the_stream(test: &str, driver: &mut TestDriver) {
    const COUNT: u64 = 4_000;
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let received: Arc<[AtomicU64; 2]> = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    // (subscriber, messages it had received when its image went)
    let gone = Arc::new(Mutex::new(Vec::<(usize, u64)>::new()));
    let mut subscriptions: Vec<Subscription> = (0..2)
        .map(|s| {
            let (received, gone) = (Arc::clone(&received), Arc::clone(&gone));
            aeron
                .add_subscription_with_handlers(
                    DRAIN_CHANNEL,
                    STREAM_ID,
                    |_| {},
                    move |_| gone.lock().unwrap().push((s, received[s].load(Ordering::Acquire))),
                )
                .expect("subscription")
        })
        .collect();
    let mut closer = spawn_role_captured(test, "closer", &envs(driver, &[("COUNT", COUNT.to_string())]));
    let closing = closer.wait_for("CLOSING at ", WAIT);
    assert_eq!(closing, format!("CLOSING at {}", COUNT * 96));
    closer.finish(WAIT);
    // The images cannot go before we read: only their arrival may still be in flight.
    wait_until(WAIT, "both images", || subscriptions.iter().all(|s| s.image_count() == 1));
    let images: Vec<_> = subscriptions.iter().map(|s| s.image_at_index(0).expect("image")).collect();
    assert!(images.iter().all(|image| image.position() == 0 && !image.is_end_of_stream()));

    let deadline = Instant::now() + WAIT;
    let mut next = [[0u64; 1]; 2];
    while gone.lock().unwrap().len() < 2 {
        for (s, subscription) in subscriptions.iter_mut().enumerate() {
            let mut failure = None;
            let next = &mut next[s];
            subscription.poll(
                |message: &[u8], _: &Header| match check_tagged(message, next) {
                    Ok(_) => {
                        next[0] += 1;
                        received[s].store(next[0], Ordering::Release);
                    }
                    Err(e) => drop(failure.get_or_insert(e)),
                },
                50,
            );
            if let Some(failure) = failure {
                panic!("subscriber {s}: {failure}");
            }
            if next[0] == COUNT {
                assert!(
                    images[s].is_end_of_stream() || gone.lock().unwrap().iter().any(|&(g, _)| g == s),
                    "subscriber {s}: drained but no end of stream"
                );
            }
        }
        assert!(Instant::now() < deadline, "received {next:?} of {COUNT}; gone {:?}", gone.lock().unwrap());
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut gone = gone.lock().unwrap().clone();
    gone.sort_unstable();
    assert_eq!(gone, vec![(0, COUNT), (1, COUNT)], "each image went only after all was read");
    assert!(images.iter().all(|image| image.is_end_of_stream() && image.is_closed()));
    assert!(subscriptions.iter().all(|s| s.image_count() == 0));
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

const FAST: DriverOptions = DriverOptions::FAST_TIMEOUTS;

process_tests!(
    fault_roles;
    killed_publisher_mid_claim_is_unblocked with super::FAST,
    killed_subscriber_stops_holding_the_publisher_back with super::FAST,
    closed_publication_drains_then_ends_the_stream with super::FAST,
);
