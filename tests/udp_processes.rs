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
