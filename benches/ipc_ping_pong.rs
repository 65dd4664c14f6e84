//! IPC round-trip latency (plain `main`): `cargo bench --bench ipc_ping_pong -- [--messages N]
//! [--warmup-iterations N] [--warmup-messages N] [--concurrent] [--java-driver]`.
//!
//! Shaped like Java Aeron's `EmbeddedPingPong` sample run by its `embedded-ping-pong` script
//! over `aeron:ipc`, to be run beside it (`scripts/bench-ipc-vs-java.sh`): our media driver
//! embedded, one client with pre-touched logs, exclusive publications
//! (`--concurrent` for concurrent ones), a ping thread sending 32-byte messages stamped with
//! the send time and a pong thread echoing them, both busy-spinning. The ping side records
//! each round trip in an HdrHistogram (1 ns..10 s, 3 digits) and prints its percentile
//! distribution in µs in HdrHistogram's format, then p50/p99/p99.9/max.
//!
//! Unlike the Java sample, whose driver runs conductor, sender and receiver on three threads
//! (DEDICATED; the conductor parks for 1 µs at a time, sender and receiver spin), ours runs
//! its agents on one thread (SHARED) with the default backoff idle strategy (parks growing
//! to 1 ms; `AERON_SHARED_IDLE_STRATEGY` overrides it): over IPC the driver is not on the
//! data path, and on a machine with few CPUs every wake-up of another thread preempts the
//! ping or the pong thread. `--sample-idle` uses the sample's setting instead (DEDICATED,
//! conductor parking 1 µs).
//!
//! Without `--bench` (`cargo test --all-targets`) it runs a few thousand round trips.
#[path = "../tests/client_support/mod.rs"]
mod client_support;

#[path = "bench_support/mod.rs"]
mod bench_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aeronrs::client::{Aeron, FragmentAssembler, Header, Image};
use aeronrs::driver::context::ThreadingMode;
use aeronrs::util::clock::nano_time;
use aeronrs::util::idle_strategy::{Backoff, IdleStrategy};
use bench_support::{Args, BenchDriver, Sender, print_percentile_distribution};
use client_support::wait_until;
use hdrhistogram::Histogram;

const PING_CHANNEL: &str = "aeron:ipc";
const PONG_CHANNEL: &str = "aeron:ipc";
const PING_STREAM_ID: i32 = 1002;
const PONG_STREAM_ID: i32 = 1003;
const MESSAGE_LENGTH: usize = 32;
const FRAGMENT_LIMIT: usize = 10;

/// Echoes every ping until told to stop.
fn pong(aeron: Arc<Aeron>, exclusive: bool, running: Arc<AtomicBool>) {
    let subscription = aeron.add_subscription(PING_CHANNEL, PING_STREAM_ID).expect("ping subscription");
    let mut publication = Sender::add(&aeron, PONG_CHANNEL, PONG_STREAM_ID, exclusive);
    wait_until(Duration::from_secs(30), "ping image", || subscription.image_count() == 1);
    let image = subscription.image_at_index(0).expect("ping image");
    let mut assembler = FragmentAssembler::new(|message: &[u8], _: &Header| {
        publication.send(message);
    });
    while running.load(Ordering::Relaxed) {
        if image.poll(|p, h| assembler.on_fragment(p, h), FRAGMENT_LIMIT) == 0 {
            std::hint::spin_loop();
        }
    }
}

/// `count` round trips: send a stamped ping, poll until its pong is in, record the time.
fn round_trips(publication: &mut Sender, pongs: &Image, histogram: &mut Histogram<u64>, count: u64) {
    let mut assembler = FragmentAssembler::new(|echo: &[u8], _: &Header| {
        let sent = i64::from_le_bytes(echo[..8].try_into().unwrap());
        histogram.saturating_record((nano_time() - sent) as u64);
    });
    let mut message = [0u8; MESSAGE_LENGTH];
    for _ in 0..count {
        message[..8].copy_from_slice(&nano_time().to_le_bytes());
        let position = publication.send(&message);
        while pongs.position() < position {
            if pongs.poll(|p, h| assembler.on_fragment(p, h), FRAGMENT_LIMIT) == 0 {
                std::hint::spin_loop();
            }
        }
    }
}

fn main() {
    let args = Args::from_env();
    let full = args.full();
    let messages = args.value("--messages", if full { 1_000_000 } else { 5_000 });
    let warmup_iterations = args.value("--warmup-iterations", if full { 10 } else { 1 });
    let warmup_messages = args.value("--warmup-messages", if full { 10_000 } else { 1_000 });
    let exclusive = !args.flag("--concurrent");
    let sample_idle = args.flag("--sample-idle");
    let driver = BenchDriver::start(&args, |ctx| {
        if sample_idle {
            ctx.threading_mode = ThreadingMode::Dedicated;
            ctx.conductor_idle_strategy = IdleStrategy::Backoff(Backoff::new(1, 1, 1000, 1000).unwrap());
        } else {
            ctx.threading_mode = ThreadingMode::Shared;
        }
    });
    let aeron = driver.connect(true);
    println!(
        "IPC ping-pong: {MESSAGE_LENGTH} B messages, {} publications, {}",
        if exclusive { "exclusive" } else { "concurrent" },
        driver.name()
    );
    let running = Arc::new(AtomicBool::new(true));
    let ponger = {
        let (aeron, running) = (Arc::clone(&aeron), Arc::clone(&running));
        std::thread::Builder::new()
            .name("pong".into())
            .spawn(move || pong(aeron, exclusive, running))
            .unwrap()
    };
    let pong_subscription = aeron.add_subscription(PONG_CHANNEL, PONG_STREAM_ID).expect("pong subscription");
    let mut ping_publication = Sender::add(&aeron, PING_CHANNEL, PING_STREAM_ID, exclusive);
    wait_until(Duration::from_secs(30), "pong image", || {
        pong_subscription.image_count() == 1 && ping_publication.is_connected()
    });
    let pongs = pong_subscription.image_at_index(0).expect("pong image");
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).expect("histogram");
    println!("Warming up... {warmup_iterations} iterations of {warmup_messages} messages");
    for _ in 0..warmup_iterations {
        round_trips(&mut ping_publication, &pongs, &mut histogram, warmup_messages);
    }
    histogram.reset();
    println!("Pinging {messages} messages");
    round_trips(&mut ping_publication, &pongs, &mut histogram, messages);
    running.store(false, Ordering::Relaxed);
    ponger.join().expect("pong thread");
    assert_eq!(histogram.len(), messages, "every ping came back once");
    println!("Histogram of RTT latencies in microseconds.");
    print_percentile_distribution(&histogram);
    println!(
        "aeronrs round trip: p50 {:.3} us, p99 {:.3} us, p99.9 {:.3} us, max {:.3} us",
        histogram.value_at_quantile(0.5) as f64 / 1000.0,
        histogram.value_at_quantile(0.99) as f64 / 1000.0,
        histogram.value_at_quantile(0.999) as f64 / 1000.0,
        histogram.max() as f64 / 1000.0
    );
    aeron.close();
}
