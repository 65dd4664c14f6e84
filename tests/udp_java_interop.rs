//! Our driver talks UDP to a real Java Aeron driver (aeron-all 1.47, `interop/java`):
//! a Java publisher on a Java driver sends to a Java subscriber on our driver, and the
//! reverse; with and without loss injection on our side. Every message is checked by the
//! Java subscriber (intact, in order, each once).

#[path = "support/java_procs.rs"]
mod java_procs;

use std::path::Path;
use std::time::{Duration, Instant};

use java_procs::{aeronmd, interop, interop_classpath, java_driver};

const STREAM: &str = "1001";

/// The tests run one at a time: each starts two drivers and two JVMs, and the machine is small.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A Java subscriber on `sub_dir`'s driver and a Java publisher on `pub_dir`'s exchange
/// `count` messages of `length` over `channel`.
fn exchange(
    classpath: &str,
    pub_dir: &Path,
    sub_dir: &Path,
    channel: &str,
    count: u64,
    length: usize,
) -> Duration {
    let (count_text, length_text) = (count.to_string(), length.to_string());
    let args = |mode| [mode, channel, STREAM, count_text.as_str(), length_text.as_str()];
    let mut sub = interop("java sub", classpath, sub_dir, &args("sub"));
    sub.expect_line("READY", Duration::from_secs(60));
    let start = Instant::now();
    let mut publisher = interop("java pub", classpath, pub_dir, &args("pub"));
    let done = publisher.expect_line("DONE", Duration::from_secs(180));
    assert!(done.starts_with(&format!("DONE {count} ")), "{done}");
    assert_eq!(sub.expect_line("DONE", Duration::from_secs(180)), format!("DONE {count}"));
    let elapsed = start.elapsed();
    publisher.wait_success(Duration::from_secs(30));
    sub.wait_success(Duration::from_secs(30));
    elapsed
}

fn report(direction: &str, count: u64, length: usize, elapsed: Duration) {
    eprintln!(
        "{direction}: {count} x {length} B verified in {elapsed:.2?} ({:.1} MB/s incl. JVM start of the publisher)",
        count as f64 * length as f64 / elapsed.as_secs_f64() / 1e6
    );
}

#[test]
fn java_and_aeronrs_drivers_exchange_over_udp_both_ways() {
    let _serial = serial();
    let Some(classpath) = interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (java_dir, ours_dir) = (tmp.path().join("java"), tmp.path().join("ours"));
    let mut java = java_driver(&classpath, &java_dir);
    let mut ours = aeronmd(&ours_dir, &[]);

    // Java publisher → Java driver → UDP → our driver → Java subscriber.
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let elapsed = exchange(&classpath, &java_dir, &ours_dir, &channel, 200_000, 64);
    report("java → aeronrs", 200_000, 64, elapsed);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}|mtu=8192", free_port());
    let elapsed = exchange(&classpath, &java_dir, &ours_dir, &channel, 200, 1 << 20);
    report("java → aeronrs (1 MiB, mtu 8k)", 200, 1 << 20, elapsed);

    // Java publisher → our driver → UDP → Java driver → Java subscriber.
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let elapsed = exchange(&classpath, &ours_dir, &java_dir, &channel, 200_000, 64);
    report("aeronrs → java", 200_000, 64, elapsed);
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let elapsed = exchange(&classpath, &ours_dir, &java_dir, &channel, 200, 1 << 20);
    report("aeronrs → java (1 MiB)", 200, 1 << 20, elapsed);

    ours.stop();
    java.stop();
}

#[test]
fn java_to_aeronrs_with_loss_on_our_side() {
    let _serial = serial();
    let Some(classpath) = interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (java_dir, ours_dir) = (tmp.path().join("java"), tmp.path().join("ours"));
    let mut java = java_driver(&classpath, &java_dir);
    // 10% of incoming DATA datagrams dropped at our receiver: Java's sender must resend
    // every NAKed range.
    let mut ours = aeronmd(
        &ours_dir,
        &[
            ("AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS", "loss"),
            ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS", "rate=0.1|seed=5|recv-msg-mask=0x2"),
        ],
    );
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let elapsed = exchange(&classpath, &java_dir, &ours_dir, &channel, 100_000, 200);
    report("java → aeronrs, 10% data loss", 100_000, 200, elapsed);
    let naks = counter(&ours_dir, 5);
    eprintln!("aeronrs NAKs sent: {naks}");
    assert!(naks > 0, "our receiver NAKed the losses");
    ours.stop();
    java.stop();
}

#[test]
fn aeronrs_to_java_with_loss_on_our_side() {
    let _serial = serial();
    let Some(classpath) = interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (java_dir, ours_dir) = (tmp.path().join("java"), tmp.path().join("ours"));
    let mut java = java_driver(&classpath, &java_dir);
    // Our sender loses 30% of the status messages Java's receiver sends it: flow control
    // and liveness must cope.
    let mut ours = aeronmd(
        &ours_dir,
        &[
            ("AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS", "loss"),
            ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS", "rate=0.3|seed=9|recv-msg-mask=0x8"),
        ],
    );
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let elapsed = exchange(&classpath, &ours_dir, &java_dir, &channel, 30_000, 200);
    report("aeronrs → java, 30% SM loss", 30_000, 200, elapsed);
    ours.stop();
    java.stop();
}

/// A system counter of the driver in `dir` (read from its cnc.dat).
fn counter(dir: &Path, id: usize) -> i64 {
    let cnc = aeronrs::concurrent::mapped_file::map_existing(&dir.join("cnc.dat")).unwrap();
    let a = cnc.get_i32(4) as usize;
    let b = cnc.get_i32(8) as usize;
    let c = cnc.get_i32(12) as usize;
    cnc.get_i64_acquire(128 + a + b + c + id * 128)
}
