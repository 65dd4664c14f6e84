//! Many publishers append concurrently with the concurrent term appender — threads in one
//! process, and separate processes over one mapped `.logbuffer` — while one reader polls
//! with the term reader and fragment assembler. Every message must arrive exactly once,
//! intact, in per-publisher order, across many rotations (padding, TRIPPED/FAILED retries).
//!
//! The test plays the driver's part in miniature: the reader publishes its position in a
//! small shared "limit" buffer, publishers stay within half a term of it (the publication
//! window), and the reader zeroes each term it has finished before moving its position on
//! (the driver's cleaning), so a partition is clean before it is reused.
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::mapped_file::{Allocation, create_mapped, map_existing};
use aeronrs::logbuffer::descriptor as d;
use aeronrs::logbuffer::{
    AppendOutcome, FragmentAssembler, Header, HeaderWriter, LogBuffers, TermAppender, term_reader,
};

const TERM_LENGTH: usize = 65536;
const MAX_PAYLOAD: usize = 1376;
const INITIAL_TERM_ID: i32 = 0x7FFF_FFF0; // wraps to negative term ids during the run
const SUB_POS_OFFSET: usize = 0;
/// Start barrier for publisher processes: how many are ready, and the go flag.
const READY_COUNT_OFFSET: usize = 8;
const GO_OFFSET: usize = 16;
/// Payload lengths cycled through by each publisher: tiny, MTU-sized and fragmented.
const LENGTHS: [usize; 8] = [8, 8, 40, 100, 8, 500, 1376, 3000];
const DEADLINE: Duration = Duration::from_secs(60);

fn message(publisher: u32, seq: u32, out: &mut Vec<u8>) {
    let length = LENGTHS[seq as usize % LENGTHS.len()];
    out.clear();
    out.extend_from_slice(&publisher.to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend((8..length).map(|j| (j as u32 ^ seq ^ (publisher << 4)) as u8));
}

fn new_log(log: &LogBuffers) {
    let meta = log.metadata();
    d::initialise_tails(meta, INITIAL_TERM_ID, INITIAL_TERM_ID, 0).unwrap();
    d::set_initial_term_id(meta, INITIAL_TERM_ID);
    d::set_mtu_length(meta, (MAX_PAYLOAD + 32) as i32);
}

#[derive(Default, Debug)]
struct PublisherStats {
    admin_actions: u64,
    back_pressured: u64,
}

/// Publishes `count` messages, retrying on back pressure and rotation as a publication does.
fn publish(log: &LogBuffers, limit: &AtomicBuffer, publisher: u32, count: u32) -> PublisherStats {
    let meta = log.metadata();
    let appenders: Vec<TermAppender> =
        (0..3).map(|i| TermAppender::new(log.term(i).clone(), meta.clone(), i).unwrap()).collect();
    let header = HeaderWriter::new(publisher as i32, 1001);
    let bits = d::position_bits_to_shift(TERM_LENGTH);
    let window = (TERM_LENGTH / 2) as i64;
    let mut stats = PublisherStats::default();
    let mut payload = Vec::with_capacity(4096);
    let start = Instant::now();
    for seq in 0..count {
        message(publisher, seq, &mut payload);
        loop {
            assert!(start.elapsed() < DEADLINE, "publisher {publisher} stuck at {seq}");
            // Acquire: the reader zeroed consumed terms before releasing its position.
            let publication_limit = limit.get_i64_acquire(SUB_POS_OFFSET) + window;
            let term_count = d::active_term_count(meta);
            let index = d::index_by_term_count(term_count.into());
            let raw_tail = d::raw_tail_volatile(meta, index);
            let term_id = d::term_id(raw_tail);
            if d::compute_term_count(term_id, INITIAL_TERM_ID) != term_count {
                stats.admin_actions += 1;
                std::thread::yield_now();
                continue;
            }
            let position =
                d::compute_position(term_id, d::term_offset(raw_tail, TERM_LENGTH), bits, INITIAL_TERM_ID);
            if position >= publication_limit {
                stats.back_pressured += 1;
                std::thread::yield_now();
                continue;
            }
            match appenders[index].append(&header, &payload, MAX_PAYLOAD, None, term_id).unwrap() {
                AppendOutcome::Appended { .. } => break,
                AppendOutcome::Tripped { .. } | AppendOutcome::Failed { .. } => {
                    d::rotate_log(meta, term_count, term_id);
                    stats.admin_actions += 1;
                }
            }
        }
    }
    stats
}

/// Reads until `publishers × count` messages arrived; checks each one. Returns the final
/// position.
fn consume(
    log: &LogBuffers,
    limit: &AtomicBuffer,
    publishers: u32,
    count: u32,
    mut alive: impl FnMut() -> bool,
) -> i64 {
    let bits = d::position_bits_to_shift(TERM_LENGTH);
    let mut next_seq = vec![0u32; publishers as usize];
    let received = Cell::new(0u64);
    let total = u64::from(publishers) * u64::from(count);
    let mut expected = Vec::with_capacity(4096);
    let mut assembler = FragmentAssembler::new(|payload: &[u8], header: &Header| {
        let publisher = u32::from_le_bytes(payload[0..4].try_into().unwrap());
        let seq = u32::from_le_bytes(payload[4..8].try_into().unwrap());
        assert_eq!(header.session_id() as u32, publisher);
        assert_eq!(seq, next_seq[publisher as usize], "publisher {publisher} order");
        message(publisher, seq, &mut expected);
        assert!(payload == &expected[..], "publisher {publisher} message {seq} intact");
        next_seq[publisher as usize] += 1;
        received.set(received.get() + 1);
    });
    let mut header = Header::new(INITIAL_TERM_ID, bits);
    let mut position = 0i64;
    let start = Instant::now();
    while received.get() < total {
        assert!(start.elapsed() < DEADLINE, "reader stuck at position {position}");
        let index = d::index_by_position(position, bits);
        let offset = d::compute_term_offset_from_position(position, bits) as usize;
        let outcome =
            term_reader::read(log.term(index), offset, 64, &mut header, |p, h| assembler.on_fragment(p, h));
        if outcome.offset == offset {
            assert!(alive(), "a publisher died before publishing everything");
            std::thread::yield_now();
            continue;
        }
        position += (outcome.offset - offset) as i64;
        if outcome.offset == TERM_LENGTH {
            // Clean the finished term before publishers may reuse its partition.
            log.term(index).fill_bytes(0, TERM_LENGTH, 0);
        }
        // Release: the cleaning above is visible to publishers that see the new position.
        limit.put_i64_release(SUB_POS_OFFSET, position);
    }
    position
}

#[test]
fn threads_append_concurrently_and_reader_sees_each_message_once() {
    const PUBLISHERS: u32 = 4;
    const COUNT: u32 = 100_000;
    let log = LogBuffers::alloc(TERM_LENGTH, 4096).unwrap();
    new_log(&log);
    let limit = AtomicBuffer::alloc(64);
    let handles: Vec<_> = (0..PUBLISHERS)
        .map(|p| {
            let (log, limit) = (log.clone(), limit.clone());
            std::thread::spawn(move || publish(&log, &limit, p, COUNT))
        })
        .collect();
    let position = consume(&log, &limit, PUBLISHERS, COUNT, || true);
    let stats: Vec<PublisherStats> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let rotations = d::active_term_count(log.metadata());
    eprintln!("threads: position {position}, {rotations} rotations, publishers {stats:?}");
    assert!(rotations > 100, "the run crossed many terms");
    assert!(stats.iter().any(|s| s.admin_actions > 0));
}

const CHILD_ENV: &str = "AERONRS_LOGBUF_TEST_CHILD";
const MP_TEST: &str = "processes_append_concurrently_over_one_mapped_log";

/// Kills and reaps children still running when the test fails.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

fn spawn_publisher(log_path: &Path, limit_path: &Path, publisher: u32, count: u32) -> Child {
    let spec = format!("{}|{}|{publisher}|{count}", log_path.display(), limit_path.display());
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &exact_test_name(MP_TEST), "--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, spec)
        // The child's own libtest summary would read like a second test run; keep stderr.
        .stdout(Stdio::null())
        .spawn()
        .expect("re-execute the test binary as a publisher")
}

/// Child role: map the parent's files and publish.
fn run_child(spec: &str) {
    let parts: Vec<&str> = spec.split('|').collect();
    let log = LogBuffers::map_existing(&PathBuf::from(parts[0])).unwrap();
    let limit = map_existing(&PathBuf::from(parts[1])).unwrap();
    // Start together so the processes really contend on the tail.
    limit.get_and_add_i64(READY_COUNT_OFFSET, 1);
    let start = Instant::now();
    while limit.get_i64_acquire(GO_OFFSET) == 0 {
        assert!(start.elapsed() < DEADLINE, "never told to start");
        std::thread::yield_now();
    }
    let stats = publish(&log, &limit, parts[2].parse().unwrap(), parts[3].parse().unwrap());
    eprintln!("child {} done: {stats:?}", parts[2]);
}

#[test]
fn processes_append_concurrently_over_one_mapped_log() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        run_child(&spec);
        return;
    }
    const PUBLISHERS: u32 = 3;
    const COUNT: u32 = 200_000;
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("1.logbuffer");
    let limit_path = dir.path().join("limit");
    let log = LogBuffers::create(&log_path, TERM_LENGTH, 4096, Allocation::PreTouch).unwrap();
    new_log(&log);
    let limit = create_mapped(&limit_path, 4096, Allocation::PreTouch).unwrap();
    let mut children =
        Children((0..PUBLISHERS).map(|p| spawn_publisher(&log_path, &limit_path, p, COUNT)).collect());
    let start = Instant::now();
    while limit.get_i64_acquire(READY_COUNT_OFFSET) < i64::from(PUBLISHERS) {
        assert!(start.elapsed() < DEADLINE, "publisher processes did not start");
        assert!(
            !children.0.iter_mut().any(|c| matches!(c.try_wait(), Ok(Some(_)))),
            "a publisher exited early"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    limit.put_i64_release(GO_OFFSET, 1);
    let mut failed = false;
    let position = consume(&log, &limit, PUBLISHERS, COUNT, || {
        // A child that exited early (failed) will never complete its messages.
        failed |=
            children.0.iter_mut().any(|c| matches!(c.try_wait(), Ok(Some(status)) if !status.success()));
        !failed
    });
    for child in &mut children.0 {
        assert!(child.wait().unwrap().success(), "publisher process failed");
    }
    let rotations = d::active_term_count(log.metadata());
    eprintln!("processes: position {position}, {rotations} rotations");
    assert!(rotations > 100, "the run crossed many terms");
}

/// `name` as the test harness knows it in this binary: prefixed with this file's module when
/// the file is one module of a combined test binary (tests/suite.rs).
fn exact_test_name(name: &str) -> String {
    let path: Vec<&str> = module_path!().split("::").collect();
    let mut segments = path[1..].to_vec();
    segments.push(name);
    segments.join("::")
}
