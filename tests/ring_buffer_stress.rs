//! Ring buffers under concurrent load: every message delivered exactly once and in
//! per-producer order, across threads and across processes sharing a mapped file, and a
//! producer process killed between `try_claim` and `commit` that the consumer unblocks.
//!
//! Child processes are this test binary re-executed (`--exact child_role`) with
//! `AERONRS_RB_CHILD` saying what to do. Every wait is bounded by `DEADLINE`; idle loops
//! yield (the CI machine has two cores).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, OneToOneRingBuffer, RingBuffer};

const DEADLINE: Duration = Duration::from_secs(120);
const CHILD_ENV: &str = "AERONRS_RB_CHILD";
const CLAIMED_LINE: &str = "AERONRS_RB_CLAIMED";
/// Type id of the record the killed producer claims; it must never be delivered.
const DEAD_CLAIM_TYPE: i32 = 99;

/// Payload of message `seq` of `producer`: producer id, sequence, then a fill pattern;
/// 12..=60 bytes so records of several sizes wrap around the buffer.
fn encode(producer: u32, seq: u64, out: &mut [u8; 64]) -> usize {
    let len = 12 + (seq % 7) as usize * 8;
    out[..4].copy_from_slice(&producer.to_le_bytes());
    out[4..12].copy_from_slice(&seq.to_le_bytes());
    out[12..len].fill(seq as u8 ^ producer as u8);
    len
}

/// Checks each message against what its producer must send next.
struct Validator {
    next: Vec<u64>,
    delivered: u64,
}

impl Validator {
    fn new(producers: usize) -> Self {
        Self { next: vec![0; producers + 1], delivered: 0 }
    }

    fn check(&mut self, msg_type_id: i32, payload: &[u8]) {
        assert_ne!(msg_type_id, DEAD_CLAIM_TYPE, "the dead producer's claim was delivered");
        let producer = u32::from_le_bytes(payload[..4].try_into().unwrap());
        let seq = u64::from_le_bytes(payload[4..12].try_into().unwrap());
        assert_eq!(msg_type_id, producer as i32, "type id is the producer id");
        let expected = &mut self.next[producer as usize];
        assert_eq!(seq, *expected, "producer {producer}: out of order, duplicated or lost");
        let mut want = [0u8; 64];
        let len = encode(producer, seq, &mut want);
        assert_eq!(payload, &want[..len], "producer {producer} seq {seq}: payload corrupted");
        *expected += 1;
        self.delivered += 1;
    }
}

/// Sends `count` messages; every 5th through try_claim + commit, every 13th first
/// claimed and aborted (never delivered) and then sent again. Yields while full.
fn produce(rb: &impl RingBuffer, producer: u32, count: u64) {
    let mut payload = [0u8; 64];
    let start = Instant::now();
    for seq in 0..count {
        let len = encode(producer, seq, &mut payload);
        let msg_type_id = producer as i32;
        loop {
            assert!(start.elapsed() < DEADLINE, "producer {producer} stuck at {seq}");
            if seq % 13 == 0 {
                if let Some(index) = rb.try_claim(msg_type_id, len).unwrap() {
                    rb.abort(index).unwrap();
                }
            }
            let sent = if seq % 5 == 0 {
                match rb.try_claim(msg_type_id, len).unwrap() {
                    Some(index) => {
                        rb.buffer().store_bytes(index, &payload[..len]);
                        rb.commit(index).unwrap();
                        true
                    }
                    None => false,
                }
            } else {
                rb.write(msg_type_id, &payload[..len]).unwrap()
            };
            if sent {
                break;
            }
            std::thread::yield_now();
        }
    }
}

/// Reads until `total` messages arrived, yielding when idle. `on_stall` runs when a read
/// makes no progress while producers are ahead, and says whether it freed something.
fn consume(
    rb: &impl RingBuffer,
    validator: &mut Validator,
    total: u64,
    mut on_stall: impl FnMut(&Duration) -> bool,
) {
    let start = Instant::now();
    let mut idle_since = Instant::now();
    while validator.delivered < total {
        assert!(
            start.elapsed() < DEADLINE,
            "consumer timed out after {} of {total} messages",
            validator.delivered
        );
        let before = rb.consumer_position();
        rb.read(|t, p| validator.check(t, p), 256).unwrap();
        if rb.consumer_position() != before {
            idle_since = Instant::now();
        } else {
            if rb.producer_position() > before && on_stall(&idle_since.elapsed()) {
                idle_since = Instant::now();
            }
            std::thread::yield_now();
        }
    }
}

fn run_producer_threads<R: RingBuffer + 'static>(rb: Arc<R>, producers: u32, per_producer: u64) {
    let threads: Vec<_> = (1..=producers)
        .map(|id| {
            let rb = rb.clone();
            std::thread::spawn(move || produce(&*rb, id, per_producer))
        })
        .collect();
    let mut validator = Validator::new(producers as usize);
    consume(&*rb, &mut validator, producers as u64 * per_producer, |_| false);
    threads.into_iter().for_each(|t| t.join().unwrap());
    assert!(validator.next[1..].iter().all(|&n| n == per_producer));
    assert_eq!(rb.size(), 0);
    assert_eq!(rb.producer_position(), rb.consumer_position());
}

#[test]
fn many_to_one_four_producer_threads() {
    let rb = Arc::new(ManyToOneRingBuffer::with_capacity(64 * 1024).unwrap());
    run_producer_threads(rb, 4, 750_000);
}

#[test]
fn one_to_one_single_producer_thread() {
    let rb = Arc::new(OneToOneRingBuffer::with_capacity(64 * 1024).unwrap());
    run_producer_threads(rb, 1, 3_000_000);
}

/// Kills and reaps a child process however the test ends.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_child(role: &str, path: &Path, producer: u32, count: u64, stdout: Stdio) -> ChildGuard {
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &exact_test_name("child_role"), "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, format!("{role}:{producer}:{count}:{}", path.display()))
        .stdout(stdout)
        .spawn()
        .expect("re-execute the test binary");
    ChildGuard(child)
}

/// Waits for a child to exit successfully, within the deadline.
fn wait_success(guard: &mut ChildGuard) {
    let start = Instant::now();
    loop {
        if let Some(status) = guard.0.try_wait().unwrap() {
            assert!(status.success(), "child failed: {status}");
            return;
        }
        assert!(start.elapsed() < DEADLINE, "child did not finish");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
fn child_role() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let mut parts = spec.splitn(4, ':');
    let role = parts.next().unwrap();
    let producer: u32 = parts.next().unwrap().parse().unwrap();
    let count: u64 = parts.next().unwrap().parse().unwrap();
    let rb = ManyToOneRingBuffer::open_mapped(Path::new(parts.next().unwrap())).unwrap();
    produce(&rb, producer, count);
    if role == "claim_and_hang" {
        let index = rb.try_claim(DEAD_CLAIM_TYPE, 40).unwrap().expect("room for the dead claim");
        rb.buffer().store_bytes(index, &[0xDD; 40]);
        println!("{CLAIMED_LINE}");
        // Wait to be killed; exit on our own if the parent never does.
        let start = Instant::now();
        while start.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::process::exit(3);
    }
}

#[test]
fn many_to_one_producer_processes_over_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mpsc.rb");
    let rb = ManyToOneRingBuffer::create_mapped(&path, 256 * 1024).unwrap();
    let per_producer = 250_000;
    let mut children: Vec<_> =
        (1..=4).map(|id| spawn_child("producer", &path, id, per_producer, Stdio::null())).collect();
    let mut validator = Validator::new(4);
    consume(&rb, &mut validator, 4 * per_producer, |_| false);
    children.iter_mut().for_each(wait_success);
    assert!(validator.next[1..].iter().all(|&n| n == per_producer));
    assert_eq!(rb.size(), 0);
}

#[test]
fn killed_producer_process_is_unblocked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mpsc.rb");
    let rb = Arc::new(ManyToOneRingBuffer::create_mapped(&path, 64 * 1024).unwrap());
    let before_death = 500;
    let mut dying = spawn_child("claim_and_hang", &path, 1, before_death, Stdio::piped());

    // Wait until the child holds its claim, then SIGKILL it between try_claim and commit.
    let stdout = dying.0.stdout.take().unwrap();
    let claimed =
        BufReader::new(stdout).lines().map_while(|l| l.ok()).any(|line| line.contains(CLAIMED_LINE));
    assert!(claimed, "child exited without claiming");
    dying.0.kill().unwrap();
    let status = dying.0.wait().unwrap();
    assert!(!status.success(), "child was killed: {status}");

    // A live producer keeps sending; its messages queue up behind the dead claim.
    let after_death = 200_000;
    let live = {
        let rb = rb.clone();
        std::thread::spawn(move || produce(&*rb, 2, after_death))
    };
    let mut validator = Validator::new(2);
    let mut unblocked = 0;
    consume(&*rb, &mut validator, before_death + after_death, |idle| {
        // Like the driver: unblock only after the head has not moved for a while. The dead
        // claim precedes every live record, so it is the only thing that can be unblocked.
        if unblocked == 0 && *idle > Duration::from_millis(50) {
            assert!(rb.unblock(), "the dead producer's claim is at the head");
            unblocked += 1;
            return true;
        }
        false
    });
    live.join().unwrap();
    assert_eq!(unblocked, 1);
    assert_eq!(validator.next[1], before_death, "everything the dead producer committed arrived");
    assert_eq!(validator.next[2], after_death, "the stream went on after the unblock");
    assert_eq!(rb.size(), 0);
}

/// `name` as the test harness knows it in this binary: prefixed with this file's module when
/// the file is one module of a combined test binary (tests/suite.rs).
fn exact_test_name(name: &str) -> String {
    let path: Vec<&str> = module_path!().split("::").collect();
    let mut segments = path[1..].to_vec();
    segments.push(name);
    segments.join("::")
}
