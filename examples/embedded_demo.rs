//! The main job: an embedded aeronrs media driver, publishers and subscribers exchanging
//! messages over `aeron:ipc`, printing throughput and round-trip latency.
//!
//! `cargo run --release --example embedded_demo -- [messages] [pings]`
//!
//! * Throughput: two publisher threads share one concurrent publication, one subscriber
//!   thread receives; every message is checked for content and per-publisher order.
//! * Latency: ping/pong over two streams with 32-byte messages, HdrHistogram percentiles.
//!
//! The driver runs in SHARED mode with a sleeping idle strategy: over IPC it is not on the
//! data path, so it only needs to keep the publisher limit moving.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, Context, Header, NOT_CONNECTED};
use aeronrs::driver::MediaDriver;
use aeronrs::driver::context::{DriverContext, ThreadingMode};
use aeronrs::util::idle_strategy::IdleStrategy;
use hdrhistogram::Histogram;

const CHANNEL: &str = "aeron:ipc?term-length=64m";
const MESSAGE_LENGTH: usize = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let messages: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(20_000_000);
    let pings: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(200_000);

    let dir = std::env::temp_dir().join(format!("aeronrs-demo-{}", std::process::id()));
    let driver_ctx = DriverContext {
        aeron_dir: dir.clone(),
        dir_delete_on_start: true,
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Shared,
        shared_idle_strategy: IdleStrategy::Sleep(Duration::from_micros(100)),
        ..DriverContext::default()
    };
    let mut driver = MediaDriver::launch(driver_ctx)?;
    println!("aeronrs embedded demo, Rust API (examples/embedded_demo.rs)");
    println!(
        "media driver: embedded, threading mode SHARED (conductor, sender and receiver on one thread, \
         sleeping 100 us when idle), directory {}",
        dir.display()
    );

    let mut ctx = Context::default();
    ctx.set_aeron_dir(&dir);
    let aeron = Arc::new(Aeron::connect(ctx)?);

    throughput(&aeron, messages)?;
    latency(&aeron, pings)?;

    aeron.close();
    driver.close()?;
    Ok(())
}

fn throughput(aeron: &Arc<Aeron>, messages: u64) -> Result<(), Box<dyn std::error::Error>> {
    const PUBLISHERS: u64 = 2;
    let mut subscription = aeron.add_subscription(CHANNEL, 1001)?;
    let publication = Arc::new(aeron.add_publication(CHANNEL, 1001)?);
    while !publication.is_connected() {
        std::thread::yield_now();
    }
    let per_publisher = messages / PUBLISHERS;
    let start = Instant::now();
    let publishers: Vec<_> = (0..PUBLISHERS)
        .map(|p| {
            let publication = Arc::clone(&publication);
            std::thread::spawn(move || {
                let mut message = [0u8; MESSAGE_LENGTH];
                message[8..16].copy_from_slice(&p.to_le_bytes());
                let mut back_pressured = 0u64;
                for seq in 0..per_publisher {
                    message[..8].copy_from_slice(&seq.to_le_bytes());
                    loop {
                        match publication.offer(&message).expect("offer") {
                            r if r > 0 => break,
                            BACK_PRESSURED | ADMIN_ACTION => {
                                back_pressured += 1;
                                std::hint::spin_loop()
                            }
                            NOT_CONNECTED => panic!("publication lost its subscriber"),
                            r => panic!("offer failed: {r}"),
                        }
                    }
                }
                back_pressured
            })
        })
        .collect();

    let mut next = [0u64; PUBLISHERS as usize];
    let mut received = 0u64;
    while received < per_publisher * PUBLISHERS {
        let fragments = subscription.poll(
            |msg: &[u8], _: &Header| {
                let seq = u64::from_le_bytes(msg[..8].try_into().unwrap());
                let p = u64::from_le_bytes(msg[8..16].try_into().unwrap()) as usize;
                assert_eq!(msg.len(), MESSAGE_LENGTH);
                assert_eq!(seq, next[p], "publisher {p} out of order");
                next[p] += 1;
                received += 1;
            },
            256,
        );
        if fragments == 0 {
            std::hint::spin_loop();
        }
    }
    let elapsed = start.elapsed();
    let back_pressured: u64 = publishers.into_iter().map(|h| h.join().unwrap()).sum();
    let rate = received as f64 / elapsed.as_secs_f64();
    println!(
        "throughput over {CHANNEL}, stream 1001: {PUBLISHERS} publishers (one concurrent publication) -> 1 subscriber, \
         {received} messages of {MESSAGE_LENGTH} bytes ({:.1} MB) in {:.2} s",
        (received * MESSAGE_LENGTH as u64) as f64 / 1e6,
        elapsed.as_secs_f64()
    );
    println!(
        "  = {:.2} M msgs/s, {:.1} MB/s; every message checked intact and in order; {back_pressured} offers back-pressured",
        rate / 1e6,
        rate * MESSAGE_LENGTH as f64 / 1e6
    );
    publication.close();
    subscription.close();
    Ok(())
}

fn latency(aeron: &Arc<Aeron>, pings: u64) -> Result<(), Box<dyn std::error::Error>> {
    let mut ping_publication = aeron.add_exclusive_publication(CHANNEL, 1002)?;
    let mut ping_subscription = aeron.add_subscription(CHANNEL, 1002)?;
    let mut pong_publication = aeron.add_exclusive_publication(CHANNEL, 1003)?;
    let mut pong_subscription = aeron.add_subscription(CHANNEL, 1003)?;
    while !ping_publication.is_connected() || !pong_publication.is_connected() {
        std::thread::yield_now();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stop_ponger = Arc::clone(&stop);
    let ponger = std::thread::spawn(move || {
        let mut echo = [0u8; MESSAGE_LENGTH];
        while !stop_ponger.load(Ordering::Relaxed) {
            let mut got = false;
            ping_subscription.poll(
                |msg: &[u8], _: &Header| {
                    echo.copy_from_slice(msg);
                    got = true;
                },
                1,
            );
            if got {
                while pong_publication.offer(&echo).expect("pong offer") < 0 {
                    std::hint::spin_loop();
                }
            }
        }
    });

    let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3)?;
    let mut message = [0u8; MESSAGE_LENGTH];
    let warmup = pings / 10;
    for i in 0..warmup + pings {
        message[..8].copy_from_slice(&i.to_le_bytes());
        let sent = Instant::now();
        while ping_publication.offer(&message).expect("ping offer") < 0 {
            std::hint::spin_loop();
        }
        let mut got = false;
        while !got {
            pong_subscription.poll(
                |msg: &[u8], _: &Header| {
                    assert_eq!(u64::from_le_bytes(msg[..8].try_into().unwrap()), i, "pong echoes the ping");
                    got = true;
                },
                1,
            );
        }
        if i >= warmup {
            histogram.record(sent.elapsed().as_nanos() as u64)?;
        }
    }
    stop.store(true, Ordering::Relaxed);
    ponger.join().unwrap();
    println!(
        "round trip over {CHANNEL} (exclusive publications, ping stream 1002, pong stream 1003): \
         {pings} pings of {MESSAGE_LENGTH} bytes after {warmup} warm-up"
    );
    println!(
        "  p50 {:.2} us, p90 {:.2} us, p99 {:.2} us, p99.9 {:.2} us, max {:.2} us",
        histogram.value_at_quantile(0.50) as f64 / 1000.0,
        histogram.value_at_quantile(0.90) as f64 / 1000.0,
        histogram.value_at_quantile(0.99) as f64 / 1000.0,
        histogram.value_at_quantile(0.999) as f64 / 1000.0,
        histogram.max() as f64 / 1000.0
    );
    Ok(())
}
