//! IPC throughput (plain `main`): `cargo bench --bench ipc_throughput -- [--exclusive |
//! --try-claim] [--seconds N] [--message-length N] [--fragment-limit N] [--java-driver]
//! [--channel URI] [--threading-mode MODE]`.
//!
//! With `--channel aeron:udp?endpoint=localhost:20121` it is the counterpart of Java's
//! `EmbeddedThroughput` (one embedded driver, publisher and subscriber over UDP loopback),
//! run beside it by `scripts/bench-udp-vs-java.sh`; `--threading-mode` (default SHARED)
//! sets the embedded driver's mode.
//!
//! Shaped like Java Aeron's `EmbeddedIpcThroughput` / `EmbeddedExclusiveIpcThroughput` /
//! `EmbeddedBufferClaimIpcThroughput` samples, to be run beside them
//! (`scripts/bench-ipc-vs-java.sh`): our media driver embedded in SHARED mode with its
//! default (backoff) idle strategy, one publisher thread offering 32-byte messages to
//! `aeron:ipc` as fast as it can, one subscriber thread polling the image (10 fragments per
//! poll) through a fragment assembler, both busy-spinning, and a report each second in the
//! samples' format (`Duration 1000ms - 25,000,000 messages - 800,000,000 payload bytes`).
//! At the end every offered message must have been received.
//!
//! Without `--bench` (`cargo test --all-targets`) each mode runs for half a second.
#[path = "../tests/client_support/mod.rs"]
mod client_support;

#[path = "bench_support/mod.rs"]
mod bench_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, FragmentAssembler, Header};
use aeronrs::driver::context::ThreadingMode;
use bench_support::{Args, BenchDriver, print_rate};
use crossbeam_utils::CachePadded;

const DEFAULT_CHANNEL: &str = "aeron:ipc";
const STREAM_ID: i32 = 1001;
/// The publisher checks for the end of the run once per burst, as Java's does.
const BURST_LENGTH: u64 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Concurrent,
    Exclusive,
    TryClaim,
}

/// What the publisher and subscriber threads share.
struct Shared {
    running: AtomicBool,
    /// Payload bytes received, stored by the subscriber after every fragment.
    received_bytes: CachePadded<AtomicU64>,
}

/// Calls `attempt` (one offer; true when the message went in) until told to stop; returns
/// (messages sent, offers refused).
fn publish_loop(shared: &Shared, mut attempt: impl FnMut() -> bool) -> (u64, u64) {
    let (mut sent, mut refused) = (0u64, 0u64);
    'run: while shared.running.load(Ordering::Relaxed) {
        for _ in 0..BURST_LENGTH {
            while !attempt() {
                refused += 1;
                if !shared.running.load(Ordering::Relaxed) {
                    break 'run;
                }
            }
            sent += 1;
        }
    }
    (sent, refused)
}

fn publish(aeron: &Aeron, channel: &str, mode: Mode, length: usize, shared: &Shared) -> (u64, u64) {
    let message = vec![0xA5u8; length];
    match mode {
        Mode::Concurrent => {
            let publication = aeron.add_publication(channel, STREAM_ID).expect("publication");
            publish_loop(shared, || publication.offer(&message).expect("offer") > 0)
        }
        Mode::TryClaim => {
            let publication = aeron.add_publication(channel, STREAM_ID).expect("publication");
            publish_loop(shared, || match publication.try_claim(length).expect("try_claim") {
                (_, Some(mut claim)) => {
                    claim.buffer().copy_from_slice(&message);
                    claim.commit();
                    true
                }
                (_, None) => false,
            })
        }
        Mode::Exclusive => {
            let mut publication = aeron.add_exclusive_publication(channel, STREAM_ID).expect("publication");
            publish_loop(shared, || publication.offer(&message).expect("offer") > 0)
        }
    }
}

/// Polls the one image until told to stop and `expected` (set once the publisher stopped)
/// messages arrived; returns (messages received, empty polls, polls).
fn subscribe(
    aeron: &Aeron,
    channel: &str,
    fragment_limit: usize,
    shared: &Shared,
    expected: &AtomicU64,
) -> (u64, u64, u64) {
    let subscription = aeron.add_subscription(channel, STREAM_ID).expect("subscription");
    while subscription.image_count() == 0 {
        std::thread::yield_now();
    }
    let image = subscription.image_at_index(0).expect("image");
    let (mut bytes, mut messages) = (0u64, 0u64);
    let mut assembler = FragmentAssembler::new(|payload: &[u8], _: &Header| {
        bytes += payload.len() as u64;
        messages += 1;
        // Release: a plain store on x86, like the Java sample's lazySet.
        shared.received_bytes.store(bytes, Ordering::Release);
    });
    let (mut empty, mut polls) = (0u64, 0u64);
    loop {
        let fragments = image.poll(|p, h| assembler.on_fragment(p, h), fragment_limit);
        polls += 1;
        if fragments == 0 {
            empty += 1;
            // Done once the publisher stopped and all it sent is here.
            let expected = expected.load(Ordering::Acquire);
            if expected != u64::MAX && shared.received_bytes.load(Ordering::Relaxed) >= expected {
                break;
            }
        }
    }
    drop(assembler);
    (messages, empty, polls)
}

fn run(aeron: &Arc<Aeron>, channel: &str, mode: Mode, seconds: f64, length: usize, fragment_limit: usize) {
    let shared = Arc::new(Shared {
        running: AtomicBool::new(true),
        received_bytes: CachePadded::new(AtomicU64::new(0)),
    });
    // Bytes the subscriber must see before it stops; MAX until the publisher stopped.
    let expected = Arc::new(AtomicU64::new(u64::MAX));
    let subscriber = {
        let (aeron, shared, expected) = (Arc::clone(aeron), Arc::clone(&shared), Arc::clone(&expected));
        let channel = channel.to_string();
        std::thread::Builder::new()
            .name("subscriber".into())
            .spawn(move || subscribe(&aeron, &channel, fragment_limit, &shared, &expected))
            .unwrap()
    };
    let publisher = {
        let (aeron, shared) = (Arc::clone(aeron), Arc::clone(&shared));
        let channel = channel.to_string();
        std::thread::Builder::new()
            .name("publisher".into())
            .spawn(move || publish(&aeron, &channel, mode, length, &shared))
            .unwrap()
    };
    let interval = Duration::from_secs_f64(seconds.min(1.0));
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let (mut last_time, mut last_bytes) = (Instant::now(), shared.received_bytes.load(Ordering::Acquire));
    while Instant::now() < end {
        std::thread::sleep(interval);
        let (now, bytes) = (Instant::now(), shared.received_bytes.load(Ordering::Acquire));
        print_rate(now - last_time, bytes - last_bytes, length);
        (last_time, last_bytes) = (now, bytes);
    }
    shared.running.store(false, Ordering::Relaxed);
    let (sent, refused) = publisher.join().expect("publisher");
    expected.store(sent * length as u64, Ordering::Release);
    let (received, empty, polls) = subscriber.join().expect("subscriber");
    println!("Publisher back pressure ratio: {:.6}", refused as f64 / sent.max(1) as f64);
    println!("Subscriber poll failure ratio: {:.6}", empty as f64 / polls.max(1) as f64);
    assert_eq!(received, sent, "{mode:?}: every offered message arrives, once");
    println!("{mode:?}: {sent} messages of {length} B sent and received");
}

fn main() {
    let args = Args::from_env();
    let full = args.full();
    let seconds = args.value("--seconds", if full { 10.0 } else { 0.5 });
    let length = args.value("--message-length", 32usize);
    let fragment_limit = args.value("--fragment-limit", 10usize);
    let modes = if args.flag("--exclusive") {
        vec![Mode::Exclusive]
    } else if args.flag("--try-claim") {
        vec![Mode::TryClaim]
    } else if full || args.flag("--concurrent") {
        vec![Mode::Concurrent]
    } else {
        vec![Mode::Concurrent, Mode::Exclusive, Mode::TryClaim]
    };
    let channel: String = args.value("--channel", DEFAULT_CHANNEL.to_string());
    let threading: String = args.value("--threading-mode", "shared".to_string());
    let threading_mode = ThreadingMode::parse(&threading).expect("--threading-mode");
    // All driver agents on one thread (SHARED) unless told otherwise, with the default
    // idle strategy.
    let driver = BenchDriver::start(&args, |ctx| ctx.threading_mode = threading_mode);
    for mode in modes {
        let aeron = driver.connect(false);
        println!(
            "Throughput on {channel}: {mode:?} publication, {length} B messages, fragment limit {fragment_limit}, {} ({})",
            driver.name(),
            threading_mode.name()
        );
        run(&aeron, &channel, mode, seconds, length, fragment_limit);
        aeron.close();
    }
}
