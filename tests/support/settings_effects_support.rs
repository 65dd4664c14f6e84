//! What the `settings_effects*.rs` tests share: a raw client's publications and
//! subscriptions, free ports, and bounded waits.
#![allow(dead_code)]

use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use aeronrs::command::Response;

use super::raw_client::RawClient;

/// What ON_PUBLICATION_READY / ON_EXCLUSIVE_PUBLICATION_READY says of a publication.
pub struct Ready {
    pub registration_id: i64,
    pub log_file: String,
    pub session_id: i32,
    pub limit_counter_id: i32,
}

pub fn add_publication(client: &mut RawClient, channel: &str, stream_id: i32, exclusive: bool) -> Ready {
    let id = client.add_publication(channel, stream_id, exclusive);
    let record = client.expect_correlated(id);
    match record.response() {
        Response::PublicationReady(p) | Response::ExclusivePublicationReady(p) => Ready {
            registration_id: p.registration_id,
            log_file: p.log_file_name_str().unwrap().to_string(),
            session_id: p.session_id,
            limit_counter_id: p.position_limit_counter_id,
        },
        other => panic!("{channel}: expected a publication, got {other:?}"),
    }
}

pub fn add_subscription(client: &mut RawClient, channel: &str, stream_id: i32) {
    let id = client.add_subscription(channel, stream_id);
    let record = client.expect_correlated(id);
    assert!(
        matches!(record.response(), Response::SubscriptionReady(_)),
        "{channel}: {:?}",
        record.response()
    );
}

/// A free UDP port on 127.0.0.1 for an endpoint.
pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until `condition`, failing after `bound`: for a timeout set well below its
/// default, a bound under the default shows the setting made it fire.
pub fn wait_within(bound: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + bound;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} not within {bound:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// x86-64 system call numbers of the sleeps `std::thread::sleep` makes through glibc.
const SYS_NANOSLEEP: u64 = 35;
const SYS_CLOCK_NANOSLEEP: u64 = 230;

/// Names of this process's threads with, for each one blocked in a relative sleep, the
/// period it asked for: `/proc/self/task/<tid>/syscall` gives the call and the address of
/// its `struct timespec`, `/proc/self/mem` the timespec (on the sleeping thread's stack).
pub fn sleeping_threads() -> Vec<(String, Option<Duration>)> {
    let mem = std::fs::File::open("/proc/self/mem").unwrap();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    let mut threads = Vec::new();
    for task in tasks.flatten() {
        let path = task.path();
        let (Ok(name), Ok(call)) =
            (std::fs::read_to_string(path.join("comm")), std::fs::read_to_string(path.join("syscall")))
        else {
            continue;
        };
        let words: Vec<u64> = call
            .split_whitespace()
            .map(|w| {
                u64::from_str_radix(w.trim_start_matches("0x"), if w.starts_with("0x") { 16 } else { 10 })
            })
            .map_while(Result::ok)
            .collect();
        // clock_nanosleep(clock, flags, request, remain) with flags 0 is relative.
        let request = match words.as_slice() {
            [SYS_NANOSLEEP, request, ..] => Some(*request),
            [SYS_CLOCK_NANOSLEEP, _, 0, request, ..] => Some(*request),
            _ => None,
        };
        let period = request.and_then(|address| {
            let mut timespec = [0u8; 16];
            mem.read_exact_at(&mut timespec, address).ok()?;
            // Still the same call: the timespec was read while the thread slept on it.
            (std::fs::read_to_string(path.join("syscall")).ok()? == call).then(|| {
                let seconds = u64::from_le_bytes(timespec[..8].try_into().unwrap());
                let nanos = u64::from_le_bytes(timespec[8..].try_into().unwrap());
                Duration::from_secs(seconds) + Duration::from_nanos(nanos)
            })
        });
        threads.push((name.trim().to_string(), period));
    }
    threads
}
