//! Log buffer micro-benchmarks (plain `main`, `cargo bench --bench logbuffer`):
//! concurrent and exclusive appenders and the term reader on 32-byte messages, and one
//! exclusive append + poll round trip on one core.
use std::hint::black_box;
use std::time::{Duration, Instant};

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::logbuffer::{
    AppendOutcome, ExclusiveTermAppender, Header, HeaderWriter, LogBuffers, TermAppender, term_reader,
};

const MESSAGE: [u8; 32] = [7; 32];
const TERM_LENGTH: usize = 16 * 1024 * 1024;
/// Frames of a 32-byte message are 64 bytes, so a term holds this many.
const PER_TERM: usize = TERM_LENGTH / 64;

fn report(name: &str, ops: u64, elapsed: Duration) {
    let ns = elapsed.as_nanos() as f64 / ops as f64;
    println!("{name:<52} {ns:>8.2} ns/op {:>10.2} M msgs/s (wall)", 1e3 / ns);
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), so single-threaded figures
/// are not inflated by other processes on a shared machine; `None` where unavailable.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn report_cpu(name: &str, ops: u64, cpu_before: Option<u64>) {
    if let (Some(before), Some(after)) = (cpu_before, thread_cpu_ns()) {
        let ns = (after - before) as f64 / ops as f64;
        println!("{name:<52} {ns:>8.2} ns/op {:>10.2} M msgs/s (on-CPU time)", 1e3 / ns);
    }
}

fn fresh_log() -> LogBuffers {
    let log = LogBuffers::alloc(TERM_LENGTH, 4096).unwrap();
    d::initialise_tails(log.metadata(), 0, 0, 0).unwrap();
    log
}

/// Refills term 0 from scratch: tail back to 0 (the driver would have cleaned it; the
/// appenders overwrite whole frames, so zeroing is not needed for appending).
fn reset_tail(log: &LogBuffers) {
    log.metadata().put_i64_release(d::tail_counter_offset(0), d::pack_tail(0, 0));
}

fn concurrent_append(threads: usize, rounds: usize) {
    let log = fresh_log();
    let mut total = Duration::ZERO;
    let mut ops = 0u64;
    for _ in 0..rounds {
        reset_tail(&log);
        let start = Instant::now();
        let counts: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
                    s.spawn(move || {
                        let header = HeaderWriter::new(t as i32, 1);
                        let mut n = 0u64;
                        while let AppendOutcome::Appended { .. } =
                            appender.append_unfragmented(&header, black_box(&MESSAGE), None, 0)
                        {
                            n += 1;
                        }
                        n
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        total += start.elapsed();
        ops += counts.iter().sum::<u64>();
    }
    report(&format!("concurrent append, {threads} thread(s), 32 B"), ops, total);
}

fn exclusive_append(rounds: usize) {
    let log = fresh_log();
    let mut appender = ExclusiveTermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
    let header = HeaderWriter::new(1, 1);
    let mut total = Duration::ZERO;
    let mut ops = 0u64;
    let cpu = thread_cpu_ns();
    for _ in 0..rounds {
        let start = Instant::now();
        let mut offset = 0;
        while let AppendOutcome::Appended { resulting_offset, .. } =
            appender.append_unfragmented(&header, 0, offset, black_box(&MESSAGE), None)
        {
            offset = resulting_offset;
            ops += 1;
        }
        total += start.elapsed();
    }
    report("exclusive append, 1 thread, 32 B", ops, total);
    report_cpu("exclusive append, 1 thread, 32 B", ops, cpu);
}

fn term_read(rounds: usize) {
    let log = fresh_log();
    let mut appender = ExclusiveTermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
    let header = HeaderWriter::new(1, 1);
    for i in 0..PER_TERM {
        appender.append_unfragmented(&header, 0, (i * 64) as i32, &MESSAGE, None);
    }
    let mut total = Duration::ZERO;
    let mut ops = 0u64;
    let mut bytes = 0usize;
    let mut h = Header::new(0, d::position_bits_to_shift(TERM_LENGTH));
    let cpu = thread_cpu_ns();
    for _ in 0..rounds {
        let start = Instant::now();
        let mut offset = 0;
        while offset < TERM_LENGTH {
            let outcome =
                term_reader::read(log.term(0), offset, 64, &mut h, |p, _| bytes += black_box(p).len());
            offset = outcome.offset;
            ops += outcome.fragments_read as u64;
        }
        total += start.elapsed();
    }
    assert_eq!(bytes, ops as usize * 32);
    report("term reader poll (limit 64), 32 B", ops, total);
    report_cpu("term reader poll (limit 64), 32 B", ops, cpu);
}

fn exclusive_append_and_poll(iterations: usize) {
    // A small term stays in L1/L2 as it does for a consumer keeping up.
    let term_length = 64 * 1024;
    let log = LogBuffers::alloc(term_length, 4096).unwrap();
    d::initialise_tails(log.metadata(), 0, 0, 0).unwrap();
    let mut appender = ExclusiveTermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
    let term: &AtomicBuffer = log.term(0);
    let header = HeaderWriter::new(1, 1);
    let mut h = Header::new(0, 16);
    let mut offset = 0i32;
    let mut received = 0usize;
    let cpu = thread_cpu_ns();
    let start = Instant::now();
    for _ in 0..iterations {
        match appender.append_unfragmented(&header, 0, offset, black_box(&MESSAGE), None) {
            AppendOutcome::Appended { resulting_offset, .. } => {
                term_reader::read(term, offset as usize, 1, &mut h, |p, _| received += black_box(p).len());
                offset = resulting_offset;
            }
            _ => offset = 0, // wrap: frames are overwritten whole, the reader reads one
        }
    }
    let elapsed = start.elapsed();
    assert!(received >= (iterations - iterations / 1000) * 32);
    report("exclusive append + poll round trip, 1 core, 32 B", iterations as u64, elapsed);
    report_cpu("exclusive append + poll round trip, 1 core, 32 B", iterations as u64, cpu);
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this as a quick smoke
    // test without it.
    let full = std::env::args().any(|a| a == "--bench");
    let (repeats, rounds, round_trips) = if full { (2, 20, 20_000_000) } else { (1, 1, 10_000) };
    println!("log buffer benchmarks (term {} MiB unless noted)", TERM_LENGTH >> 20);
    for _ in 0..repeats {
        concurrent_append(1, rounds);
        concurrent_append(2, rounds);
        exclusive_append(rounds);
        term_read(rounds);
        exclusive_append_and_poll(round_trips);
    }
}
