//! IPC round-trip latency of the client (plain `main`, `cargo bench --bench
//! ipc_ping_pong`): a pinger sends a 32-byte message on one stream, a ponger thread echoes
//! it on another, the pinger records the round trip in an HdrHistogram. Through our
//! `aeronmd` and a real Java media driver; both threads busy-spin. `cargo test --all-targets` runs a quick
//! smoke version.
#[path = "../tests/client_support/mod.rs"]
mod client_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, ExclusivePublication, Header, Subscription};
use client_support::{DriverKind, DriverOptions, ErrorLog, TestDriver, context, wait_until};
use hdrhistogram::Histogram;

const CHANNEL: &str = "aeron:ipc?term-length=64m";
const PING_STREAM: i32 = 10;
const PONG_STREAM: i32 = 11;

fn send(publication: &mut ExclusivePublication, message: &[u8]) {
    loop {
        let result = publication.offer(message).expect("offer");
        if result > 0 {
            return;
        }
        assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
        std::hint::spin_loop();
    }
}

/// Echoes every ping until told to stop.
fn pong(mut pings: Subscription, mut pongs: ExclusivePublication, stop: Arc<AtomicBool>) {
    let mut echo = [0u8; 32];
    while !stop.load(Ordering::Relaxed) {
        let mut got = false;
        pings.poll(
            |message: &[u8], _: &Header| {
                echo.copy_from_slice(message);
                got = true;
            },
            1,
        );
        if got {
            send(&mut pongs, &echo);
        } else {
            std::hint::spin_loop();
        }
    }
}

/// One round trip: returns its duration in ns.
fn ping(publication: &mut ExclusivePublication, pongs: &mut Subscription, sequence: u64) -> u64 {
    let mut message = [0u8; 32];
    message[..8].copy_from_slice(&sequence.to_le_bytes());
    let start = Instant::now();
    send(publication, &message);
    let mut got = false;
    while !got {
        pongs.poll(
            |echo: &[u8], _: &Header| {
                assert_eq!(echo[..8], sequence.to_le_bytes(), "pong out of order");
                got = true;
            },
            1,
        );
    }
    start.elapsed().as_nanos() as u64
}

fn ping_pong(aeron: &Aeron, full: bool) {
    let ping_subscription = aeron.add_subscription(CHANNEL, PING_STREAM).expect("ping subscription");
    let mut pong_subscription = aeron.add_subscription(CHANNEL, PONG_STREAM).expect("pong subscription");
    let mut ping_publication =
        aeron.add_exclusive_publication(CHANNEL, PING_STREAM).expect("ping publication");
    let pong_publication = aeron.add_exclusive_publication(CHANNEL, PONG_STREAM).expect("pong publication");
    wait_until(Duration::from_secs(20), "connections", || {
        ping_publication.is_connected() && pong_publication.is_connected()
    });
    let stop = Arc::new(AtomicBool::new(false));
    let ponger = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || pong(ping_subscription, pong_publication, stop))
    };
    let (warmup, measured) = if full { (100_000, 1_000_000) } else { (1_000, 10_000) };
    for i in 0..warmup {
        ping(&mut ping_publication, &mut pong_subscription, i);
    }
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).expect("histogram");
    let start = Instant::now();
    for i in 0..measured {
        let rtt = ping(&mut ping_publication, &mut pong_subscription, warmup + i);
        histogram.saturating_record(rtt);
    }
    let elapsed = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    ponger.join().expect("ponger");
    println!(
        "{measured} round trips in {elapsed:.2?}: p50 {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns",
        histogram.value_at_quantile(0.5),
        histogram.value_at_quantile(0.9),
        histogram.value_at_quantile(0.99),
        histogram.value_at_quantile(0.999),
        histogram.max()
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    for kind in [DriverKind::Rust, DriverKind::Java] {
        let Some(driver) = TestDriver::start(kind, DriverOptions::default()) else { continue };
        let log = ErrorLog::default();
        let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
        println!("IPC ping-pong, 32 B, exclusive publications, busy-spinning threads, {kind:?} media driver");
        ping_pong(&aeron, full);
        assert!(log.errors().is_empty(), "{:?}", log.errors());
    }
}
