//! UDP loopback throughput (plain `main`, `cargo bench --bench udp_throughput`): one
//! publisher thread on driver A, one subscriber thread on driver B, both drivers ours and
//! embedded, each with its own directory, connected over `aeron:udp` on 127.0.0.1. Reports
//! messages and payload bytes per second for several message sizes. `cargo test
//! --all-targets` runs a quick smoke version.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, Context, FragmentAssembler, Header, NOT_CONNECTED, Subscription,
};
use aeronrs::driver::network_config::NetworkConfig;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};

fn driver(dir: &std::path::Path, mode: ThreadingMode) -> MediaDriver {
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: mode,
        term_buffer_length: 16 << 20,
        // A bigger window than the 128 KiB default keeps loopback busy.
        rcv_initial_window_length: 2 << 20,
        socket_so_rcvbuf: 2 << 20,
        socket_so_sndbuf: 2 << 20,
        // `AERONRS_UDP_{MMSG,GSO,GRO}_ENABLED` and the other network settings, to compare.
        network: NetworkConfig::from_env().expect("network settings"),
        ..DriverContext::default()
    })
    .expect("driver")
}

fn client(dir: &std::path::Path) -> Aeron {
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_idle_sleep_duration(Duration::from_millis(1));
    Aeron::connect(ctx).expect("client")
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn drain(mut subscription: Subscription, count: u64, stop: &AtomicBool) -> Instant {
    // Messages longer than the MTU arrive in several fragments: count whole messages.
    let received = Cell::new(0u64);
    let mut assembler = FragmentAssembler::new(|_: &[u8], _: &Header| received.set(received.get() + 1));
    while received.get() < count && !stop.load(Ordering::Relaxed) {
        if subscription.poll(|payload: &[u8], header: &Header| assembler.on_fragment(payload, header), 1024)
            == 0
        {
            std::thread::yield_now();
        }
    }
    Instant::now()
}

fn run(publisher: &Aeron, subscriber: &Aeron, channel: &str, stream_id: i32, count: u64, length: usize) {
    let subscription = subscriber.add_subscription(channel, stream_id).expect("subscription");
    let publication = publisher.add_publication(channel, stream_id).expect("publication");
    wait_until("connection", || publication.is_connected() && subscription.image_count() == 1);
    let stop = Arc::new(AtomicBool::new(false));
    let receiver = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || drain(subscription, count, &stop))
    };
    let message = vec![0xA5u8; length];
    let start = Instant::now();
    let mut back_pressured = 0u64;
    for _ in 0..count {
        loop {
            let result = publication.offer(&message).expect("offer");
            if result > 0 {
                break;
            }
            assert!(matches!(result, BACK_PRESSURED | ADMIN_ACTION | NOT_CONNECTED), "offer: {result}");
            back_pressured += 1;
            std::thread::yield_now();
        }
    }
    let end = receiver.join().expect("subscriber");
    stop.store(true, Ordering::Relaxed);
    let elapsed = end - start;
    let rate = count as f64 / elapsed.as_secs_f64();
    println!(
        "{length:>6} B: {:>6.2} M msgs/s {:>8.1} MB/s payload ({count} msgs in {elapsed:.2?}, {back_pressured} back-pressured offers)",
        rate / 1e6,
        rate * length as f64 / 1e6
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let tmp = tempfile::tempdir().expect("temp dir");
    let (dir_a, dir_b) = (tmp.path().join("a"), tmp.path().join("b"));
    let mode = ThreadingMode::Shared;
    let (mut driver_a, mut driver_b) = (driver(&dir_a, mode), driver(&dir_b, mode));
    let (publisher, subscriber) = (client(&dir_a), client(&dir_b));
    println!(
        "UDP loopback throughput, two embedded aeronrs drivers ({}), one publisher and one subscriber thread",
        mode.name()
    );
    let port = std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let sizes = [(1, 32usize, 10_000_000u64), (2, 256, 4_000_000), (3, 1024, 1_000_000), (4, 8192, 150_000)];
    for (stream_id, length, count) in sizes {
        let count = if full { count } else { count / 100 };
        run(&publisher, &subscriber, &channel, stream_id, count, length);
    }
    drop((publisher, subscriber));
    driver_a.close().expect("close");
    driver_b.close().expect("close");
}
