//! UDP loopback round-trip latency (plain `main`, `cargo bench --bench udp_ping_pong`): a
//! pinger on driver A sends a 32-byte message over `aeron:udp` to a ponger on driver B,
//! which echoes it back on a second channel; round trips go into an HdrHistogram. Both
//! drivers are ours, embedded, each with its own directory. `cargo test --all-targets` runs
//! a quick smoke version.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, Context, ExclusivePublication, Header, Subscription,
};
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use hdrhistogram::Histogram;

fn driver(dir: &std::path::Path) -> MediaDriver {
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Shared,
        term_buffer_length: 1 << 20,
        ..DriverContext::default()
    })
    .expect("driver")
}

fn client(dir: &std::path::Path) -> Aeron {
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_idle_sleep_duration(Duration::from_millis(1));
    Aeron::connect(ctx).expect("client")
}

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
            std::thread::yield_now();
        }
    }
}

fn ping(publication: &mut ExclusivePublication, pongs: &mut Subscription, sequence: u64) -> u64 {
    let mut message = [0u8; 32];
    message[..8].copy_from_slice(&sequence.to_le_bytes());
    let start = Instant::now();
    send(publication, &message);
    let mut got = false;
    while !got {
        let polled = pongs.poll(
            |echo: &[u8], _: &Header| {
                assert_eq!(echo[..8], sequence.to_le_bytes(), "pong out of order");
                got = true;
            },
            1,
        );
        if polled == 0 {
            std::thread::yield_now();
        }
    }
    start.elapsed().as_nanos() as u64
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let tmp = tempfile::tempdir().expect("temp dir");
    let (dir_a, dir_b) = (tmp.path().join("a"), tmp.path().join("b"));
    let (mut driver_a, mut driver_b) = (driver(&dir_a), driver(&dir_b));
    let (a, b) = (client(&dir_a), client(&dir_b));
    let port = |_: ()| std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let ping_channel = format!("aeron:udp?endpoint=127.0.0.1:{}", port(()));
    let pong_channel = format!("aeron:udp?endpoint=127.0.0.1:{}", port(()));
    let ping_subscription = b.add_subscription(&ping_channel, 10).expect("ping subscription");
    let mut pong_subscription = a.add_subscription(&pong_channel, 11).expect("pong subscription");
    let mut ping_publication = a.add_exclusive_publication(&ping_channel, 10).expect("ping publication");
    let pong_publication = b.add_exclusive_publication(&pong_channel, 11).expect("pong publication");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(ping_publication.is_connected() && pong_publication.is_connected()) {
        assert!(Instant::now() < deadline, "not connected");
        std::thread::sleep(Duration::from_millis(1));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let ponger = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || pong(ping_subscription, pong_publication, stop))
    };
    let (warmup, measured) = if full { (20_000, 200_000) } else { (500, 2_000) };
    for i in 0..warmup {
        ping(&mut ping_publication, &mut pong_subscription, i);
    }
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).expect("histogram");
    let start = Instant::now();
    for i in 0..measured {
        histogram.saturating_record(ping(&mut ping_publication, &mut pong_subscription, warmup + i));
    }
    let elapsed = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    ponger.join().expect("ponger");
    println!(
        "UDP loopback ping-pong, 32 B, two embedded aeronrs drivers (SHARED, backoff idle), yielding clients"
    );
    println!(
        "{measured} round trips in {elapsed:.2?}: p50 {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns",
        histogram.value_at_quantile(0.5),
        histogram.value_at_quantile(0.9),
        histogram.value_at_quantile(0.99),
        histogram.value_at_quantile(0.999),
        histogram.max()
    );
    drop((pong_subscription, ping_publication, a, b));
    driver_a.close().expect("close");
    driver_b.close().expect("close");
}
