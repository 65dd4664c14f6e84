//! UDP between two processes, each with its own embedded driver and `AERON_DIR`: the
//! sender process publishes, the receiver process subscribes and checks every message
//! (intact, in order, once). Each test re-executes this binary in the child roles of
//! `support/udp_roles.rs`.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_roles.rs"]
mod udp_roles;

use std::time::{Duration, Instant};

use aeronrs::driver::ThreadingMode;
use udp_roles::{Proc, RoleConfig, field};

/// The test the children run as.
const ENTRY: &str = "child_role";
const LONG: Duration = Duration::from_secs(240);
const SHORT: Duration = Duration::from_secs(30);

#[test]
fn child_role() {
    // In the parent this does nothing; in a child it is the whole process.
    udp_roles::run_role_from_env();
}

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Run {
    _tmp: tempfile::TempDir,
    sender: RoleConfig,
    receiver: RoleConfig,
}

fn run_config(mode: ThreadingMode, count: u64, length: usize) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let mut sender = RoleConfig::new("sender", &tmp.path().join("snd"), mode, &channel);
    let mut receiver = RoleConfig::new("receiver", &tmp.path().join("rcv"), mode, &channel);
    sender.count = count;
    receiver.count = count;
    sender.length = length;
    receiver.length = length;
    Run { _tmp: tmp, sender, receiver }
}

/// Sends the configured messages; returns the sender's and receiver's counter lines.
fn transfer(run: &Run) -> (String, String, Duration) {
    let mut receiver = Proc::spawn(ENTRY, &run.receiver);
    receiver.expect("READY", SHORT);
    let start = Instant::now();
    let mut sender = Proc::spawn(ENTRY, &run.sender);
    sender.expect("READY", SHORT);
    receiver.expect("FIRST 0", SHORT);
    receiver.expect(&format!("DONE {}", run.receiver.count), LONG);
    let elapsed = start.elapsed();
    let receiver_counters = receiver.expect("COUNTERS", SHORT);
    sender.expect(&format!("SENT {}", run.sender.count), SHORT);
    sender.tell("counters");
    let sender_counters = sender.expect("COUNTERS", SHORT);
    for p in [&mut sender, &mut receiver] {
        p.tell("exit");
        p.expect("EXITED", SHORT);
        p.wait_success(SHORT);
    }
    (sender_counters, receiver_counters, elapsed)
}

fn report(what: &str, run: &Run, elapsed: Duration) {
    let bytes = run.sender.count as f64 * run.sender.length as f64;
    eprintln!(
        "{what} {}: {} x {} B in {elapsed:.2?} ({:.0} msg/s, {:.1} MB/s, incl. connection set-up)",
        run.sender.mode.name(),
        run.sender.count,
        run.sender.length,
        run.sender.count as f64 / elapsed.as_secs_f64(),
        bytes / elapsed.as_secs_f64() / 1e6
    );
}

#[test]
fn a_million_small_and_a_thousand_large_messages_in_each_threading_mode() {
    for mode in [ThreadingMode::Dedicated, ThreadingMode::SharedNetwork, ThreadingMode::Shared] {
        let run = run_config(mode, 1_000_000, 64);
        let (_, receiver_counters, elapsed) = transfer(&run);
        assert_eq!(field(&receiver_counters, "invalid"), 0, "{receiver_counters}");
        report("small", &run, elapsed);
        let run = run_config(mode, 1000, 1 << 20);
        let (_, receiver_counters, elapsed) = transfer(&run);
        assert_eq!(field(&receiver_counters, "invalid"), 0, "{receiver_counters}");
        report("large", &run, elapsed);
    }
}

#[test]
fn data_loss_at_the_receiver_is_recovered_between_processes() {
    // 10% of DATA datagrams dropped, then half of them (so frames are lost again and again).
    for (rate, count) in [("0.1", 200_000u64), ("0.5", 20_000)] {
        let mut run = run_config(ThreadingMode::SharedNetwork, count, 64);
        run.receiver.loss_args = Some(format!("rate={rate}|seed=11|recv-msg-mask=0x2"));
        let (sender_counters, receiver_counters, elapsed) = transfer(&run);
        eprintln!(
            "loss {rate}: {count} messages in {elapsed:.2?}; receiver {receiver_counters}; sender {sender_counters}"
        );
        assert!(field(&receiver_counters, "naks_sent") > 0, "{receiver_counters}");
        assert!(field(&sender_counters, "naks_received") > 0, "{sender_counters}");
        assert!(field(&sender_counters, "retransmits") > 0, "{sender_counters}");
        assert_eq!(field(&receiver_counters, "invalid"), 0);
    }
}

/// Asks the sender for its status until `connected=<expected>`.
fn wait_for_connected(sender: &mut Proc, expected: bool, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        sender.tell("status");
        let line = sender.expect("STATUS", SHORT);
        if line.contains(&format!("connected={expected}")) {
            return line;
        }
        assert!(Instant::now() < deadline, "sender still {line} after {timeout:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn killed_receiver_times_out_and_a_restarted_one_gets_the_image_back() {
    let mut run = run_config(ThreadingMode::Dedicated, 0, 64);
    run.sender.connection_timeout_ms = 1000;
    run.receiver.count = 20_000;
    let mut receiver = Proc::spawn(ENTRY, &run.receiver);
    receiver.expect("READY", SHORT);
    let mut sender = Proc::spawn(ENTRY, &run.sender);
    sender.expect("READY", SHORT);
    receiver.expect("FIRST 0", SHORT);
    receiver.expect("DONE", LONG);

    // The receiver's process dies: no more status messages, so the sender's connection
    // times out and the publication is no longer connected.
    receiver.kill();
    let killed = Instant::now();
    wait_for_connected(&mut sender, false, Duration::from_secs(20));
    eprintln!("sender saw the receiver gone after {:.2?}", killed.elapsed());

    // A new receiver driver on the same endpoint: the stream comes back, at the sender's
    // position (a late join), every message from there intact and in order.
    let mut restarted = Proc::spawn(ENTRY, &run.receiver);
    restarted.expect("READY", SHORT);
    let image = restarted.expect("IMAGE", SHORT);
    let first = restarted.expect("FIRST", SHORT);
    let first: u64 = first["FIRST ".len()..].trim().parse().unwrap();
    assert!(first >= 20_000, "the restarted receiver joins where the sender is: {first}");
    restarted.expect("DONE", LONG);
    wait_for_connected(&mut sender, true, SHORT);
    eprintln!("restarted receiver: {image}, first message {first}");
    sender.tell("stop");
    sender.expect("SENT", SHORT);
    for p in [&mut sender, &mut restarted] {
        p.tell("exit");
        p.expect("EXITED", SHORT);
        p.wait_success(SHORT);
    }
}

#[test]
fn end_of_stream_reaches_the_receiving_process() {
    let mut run = run_config(ThreadingMode::Shared, 10_000, 200);
    run.receiver.count = 0;
    let mut receiver = Proc::spawn(ENTRY, &run.receiver);
    receiver.expect("READY", SHORT);
    let mut sender = Proc::spawn(ENTRY, &run.sender);
    sender.expect("READY", SHORT);
    sender.expect("SENT 10000", LONG);
    sender.tell("close");
    sender.expect("CLOSED", SHORT);
    receiver.expect("EOS 10000", LONG);
    receiver.tell("unavailable");
    receiver.expect("UNAVAILABLE", SHORT);
    for p in [&mut sender, &mut receiver] {
        p.tell("exit");
        p.expect("EXITED", SHORT);
        p.wait_success(SHORT);
    }
}
