//! IPC throughput of the client (plain `main`, `cargo bench --bench ipc_throughput`): one
//! publisher thread and one subscriber thread over `aeron:ipc`, through a real Java media
//! driver (the driver is not on the IPC data path; it only grants the publication limit).
//! `cargo test --all-targets` runs it as a quick smoke test.
#[path = "../tests/client_support/mod.rs"]
mod client_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, Header, Subscription};
use client_support::{DriverKind, DriverOptions, ErrorLog, TestDriver, context, wait_until};

const CHANNEL: &str = "aeron:ipc?term-length=64m";

/// Polls until `count` messages arrived; returns when the last one did.
fn drain(mut subscription: Subscription, count: u64, stop: &AtomicBool) -> Instant {
    let mut received = 0u64;
    while received < count && !stop.load(Ordering::Relaxed) {
        let fragments = subscription.poll(|_: &[u8], _: &Header| received += 1, 1024);
        if fragments == 0 {
            std::hint::spin_loop();
        }
    }
    Instant::now()
}

fn report(name: &str, count: u64, length: usize, elapsed: Duration) {
    let rate = count as f64 / elapsed.as_secs_f64();
    println!(
        "{name:<44} {:>8.2} M msgs/s {:>9.1} MB/s payload ({count} x {length} B in {elapsed:.2?})",
        rate / 1e6,
        rate * length as f64 / 1e6
    );
}

enum Kind {
    Concurrent,
    Exclusive,
    TryClaim,
}

fn run(aeron: &Aeron, stream_id: i32, kind: Kind, count: u64, length: usize) {
    let subscription = aeron.add_subscription(CHANNEL, stream_id).expect("subscription");
    let stop = Arc::new(AtomicBool::new(false));
    let subscriber = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || drain(subscription, count, &stop))
    };
    let message = vec![0xA5u8; length];
    let name;
    let start = match kind {
        Kind::Concurrent | Kind::TryClaim => {
            let publication = aeron.add_publication(CHANNEL, stream_id).expect("publication");
            wait_until(Duration::from_secs(20), "subscriber", || publication.is_connected());
            let start = Instant::now();
            let claim = matches!(kind, Kind::TryClaim);
            name = if claim { "Publication::try_claim + commit" } else { "Publication::offer" };
            for _ in 0..count {
                loop {
                    let result = if claim {
                        match publication.try_claim(length).expect("try_claim") {
                            (position, Some(mut c)) => {
                                c.buffer().copy_from_slice(&message);
                                c.commit();
                                position
                            }
                            (code, None) => code,
                        }
                    } else {
                        publication.offer(&message).expect("offer")
                    };
                    if result > 0 {
                        break;
                    }
                    assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
                    std::hint::spin_loop();
                }
            }
            start
        }
        Kind::Exclusive => {
            let mut publication = aeron.add_exclusive_publication(CHANNEL, stream_id).expect("publication");
            wait_until(Duration::from_secs(20), "subscriber", || publication.is_connected());
            name = "ExclusivePublication::offer";
            let start = Instant::now();
            for _ in 0..count {
                loop {
                    let result = publication.offer(&message).expect("offer");
                    if result > 0 {
                        break;
                    }
                    assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
                    std::hint::spin_loop();
                }
            }
            start
        }
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while !subscriber.is_finished() {
        if Instant::now() > deadline {
            stop.store(true, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let end = subscriber.join().expect("subscriber thread");
    assert!(!stop.load(Ordering::Relaxed), "{name}: subscriber did not get all {count} messages");
    report(&format!("{name}, {length} B"), count, length, end - start);
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let count = if full { 20_000_000 } else { 10_000 };
    for kind in [DriverKind::Rust, DriverKind::Java] {
        let Some(driver) = TestDriver::start(kind, DriverOptions::default()) else { continue };
        let log = ErrorLog::default();
        let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
        println!("IPC throughput, publisher and subscriber threads, {kind:?} media driver");
        run(&aeron, 1, Kind::Concurrent, count, 32);
        run(&aeron, 2, Kind::Exclusive, count, 32);
        run(&aeron, 3, Kind::TryClaim, count, 32);
        run(&aeron, 4, Kind::Concurrent, count / 10, 1024);
        assert!(log.errors().is_empty(), "{:?}", log.errors());
    }
}
