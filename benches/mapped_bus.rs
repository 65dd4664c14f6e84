//! Mapped bus benchmark: one writer thread and one reader thread.
//!
//! - Throughput: the writer writes flat out, the reader busy-polls; messages per second
//!   from the first write to the last read. Shapes: 12-byte typed messages in fixed-size
//!   mode (Mappedbus's benchmark: a 3-int PriceUpdate, record size 12, which Mappedbus
//!   reports at about 14 million messages per second), and 64-byte byte messages in
//!   variable-length and fixed-size mode.
//! - One-way latency: the writer sends at a steady rate with a monotonic timestamp in the
//!   message; the reader records `now - timestamp` (both threads share one clock). To
//!   tell where the tail comes from it also reports the time inside each `write`, each
//!   thread's context switches, and every sample above 10/100/1000 us attributed to the
//!   writer (its `write` took at least half of it), the reader (it was away from `poll`
//!   at least half of it: descheduled), a backlog (the reader had not caught up since an
//!   earlier stall) or neither.
//!
//! `cargo bench --bench mapped_bus`; `AERONRS_BENCH_ONLY=throughput|latency` runs one
//! half; `AERONRS_BENCH_MESSAGES` sets the throughput run's
//! message count (default 50 million 12-byte messages, 1 GB of records; the 64-byte runs
//! use at most 20 million, 1.4 GB), `AERONRS_BENCH_DIR` the folder (default /dev/shm when
//! present: the page cache is what a bus on disk writes to as well).

use std::path::{Path, PathBuf};
use std::time::Instant;

use aeronrs::mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter, StartAt, WriteOutcome};
use aeronrs::util::clock::nano_time;
use hdrhistogram::Histogram;

const PRICE_UPDATE_TYPE: i32 = 1;
/// 256 MiB segments: the throughput runs roll over a few times, as a long-lived bus would.
const SEGMENT_LENGTH: usize = 256 * 1024 * 1024;
/// 1 MiB segments in the second latency run: 12-byte records roll over every ~50k
/// messages (half a second at the latency run's rate), 64-byte ones every ~15k.
const ROLLOVER_SEGMENT_LENGTH: usize = 1024 * 1024;
const LATENCY_MESSAGES: u64 = 500_000;
/// One message every 10 us (100k messages per second) in the latency runs.
const LATENCY_INTERVAL_NS: i64 = 10_000;
const WARMUP_MESSAGES: u64 = 50_000;
/// Pause hints a reader spins after an empty poll before polling again (Agrona's busy-spin
/// idle strategy is one). More back-off lets the writer fill whole cache lines before the
/// reader pulls them over (a little more throughput) at the cost of latency.
const IDLE_SPINS: u32 = 1;
/// Throughput runs per shape; the best and the median are reported.
const RUNS: usize = 3;

/// The reader's idle strategy: a short busy back-off (`AERONRS_BENCH_IDLE_SPINS` pause hints).
#[inline]
fn idle(spins: u32) {
    for _ in 0..spins {
        std::hint::spin_loop();
    }
}

fn idle_spins() -> u32 {
    std::env::var("AERONRS_BENCH_IDLE_SPINS").ok().and_then(|v| v.parse().ok()).unwrap_or(IDLE_SPINS)
}

#[derive(Clone, Copy)]
enum Shape {
    Typed12,
    Bytes64Variable,
    Bytes64Fixed,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Typed12 => "12-byte typed, fixed-size records",
            Shape::Bytes64Variable => "64-byte bytes, variable-length records",
            Shape::Bytes64Fixed => "64-byte bytes, fixed-size records",
        }
    }

    fn config(self, segment_length: usize) -> MappedBusConfig {
        match self {
            Shape::Typed12 => MappedBusConfig::fixed_size(segment_length, 12),
            Shape::Bytes64Variable => MappedBusConfig::variable_length(segment_length),
            Shape::Bytes64Fixed => MappedBusConfig::fixed_size(segment_length, 64),
        }
    }

    /// Writes message `seq` carrying `stamp` (0 in throughput runs).
    #[inline]
    fn write(self, writer: &mut MappedBusWriter, seq: u64, stamp: i64) {
        let outcome = match self {
            Shape::Typed12 => {
                // PriceUpdate{source, price, quantity}: the stamp rides in price+quantity.
                let mut body = [0u8; 12];
                body[..4].copy_from_slice(&(seq as u32).to_le_bytes());
                body[4..].copy_from_slice(&stamp.to_le_bytes());
                writer.write_typed(PRICE_UPDATE_TYPE, &body)
            }
            Shape::Bytes64Variable | Shape::Bytes64Fixed => {
                let mut payload = [0u8; 64];
                payload[..8].copy_from_slice(&seq.to_le_bytes());
                payload[8..16].copy_from_slice(&stamp.to_le_bytes());
                writer.write(&payload)
            }
        };
        assert!(matches!(outcome, Ok(WriteOutcome::Committed(_))), "write {seq}: {outcome:?}");
    }

    /// Reads the sequence number and stamp of a record, checking its shape.
    #[inline]
    fn decode(self, metadata: i32, body: &[u8]) -> (u64, i64) {
        match self {
            Shape::Typed12 => {
                assert_eq!(metadata, PRICE_UPDATE_TYPE);
                let seq = u32::from_le_bytes(body[..4].try_into().unwrap());
                (u64::from(seq), i64::from_le_bytes(body[4..12].try_into().unwrap()))
            }
            Shape::Bytes64Variable | Shape::Bytes64Fixed => {
                assert_eq!(metadata, 64);
                let seq = u64::from_le_bytes(body[..8].try_into().unwrap());
                (seq, i64::from_le_bytes(body[8..16].try_into().unwrap()))
            }
        }
    }
}

fn bench_dir() -> tempfile::TempDir {
    let base = std::env::var_os("AERONRS_BENCH_DIR").map(PathBuf::from).unwrap_or_else(|| {
        if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() }
    });
    tempfile::tempdir_in(base).expect("bench folder")
}

/// Messages per second with the writer flat out.
fn throughput(shape: Shape, messages: u64, segment_length: usize) -> f64 {
    let dir = bench_dir();
    let path = dir.path().join("bus");
    let config = shape.config(segment_length);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut reader = MappedBusReader::open(&path, &config, StartAt::Live).unwrap();
    let spins = idle_spins();
    let start = Instant::now();
    let consumer = std::thread::spawn(move || {
        let mut expected = 0u64;
        while expected < messages {
            if let Some(record) = reader.poll().unwrap() {
                let (seq, _) = shape.decode(record.metadata, record.body);
                assert_eq!(seq, expected, "lost or reordered");
                expected += 1;
            } else {
                idle(spins);
            }
        }
        Instant::now()
    });
    for seq in 0..messages {
        shape.write(&mut writer, seq, 0);
    }
    let end = consumer.join().unwrap();
    messages as f64 / (end - start).as_secs_f64()
}

/// One-way latencies above this are attributed to the writer, the reader or neither.
const TAIL_NS: i64 = 10_000;

/// What a latency run measured: the one-way histogram and where its tail came from.
struct LatencyRun {
    one_way: Histogram<u64>,
    /// Time inside `write` (stamp to commit) of every message, ns.
    write_cost: Histogram<u64>,
    /// Samples above [`TAIL_NS`].
    tail: Vec<TailSample>,
    /// Context switches (voluntary, involuntary) of the writer and reader threads.
    writer_switches: (u64, u64),
    reader_switches: (u64, u64),
}

#[derive(Clone, Copy)]
struct TailSample {
    one_way: i64,
    /// Time inside the record's `write`.
    write_cost: i64,
    /// The longest the reader was away from `poll` since the record before.
    reader_gap: i64,
    /// Whether the reader polled in vain since the record before; if not, it was still
    /// working through a backlog, and the record waited behind an earlier stall.
    caught_up: bool,
}

/// This thread's (voluntary, involuntary) context switches so far.
fn context_switches() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
    let field = |name: &str| {
        status.lines().find_map(|l| l.strip_prefix(name)).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
    };
    (field("voluntary_ctxt_switches:"), field("nonvoluntary_ctxt_switches:"))
}

fn since(start: (u64, u64)) -> (u64, u64) {
    let now = context_switches();
    (now.0 - start.0, now.1 - start.1)
}

/// One-way latency at a steady send rate, with segments of `segment_length` (small ones
/// make the run roll over every few hundred milliseconds), and where the tail came from:
/// the writer (a slow `write`: page fault, roll-over, preemption between stamp and commit),
/// the reader (away from `poll` for long: preempted), or neither.
fn latency(shape: Shape, segment_length: usize) -> LatencyRun {
    let dir = bench_dir();
    let path = dir.path().join("bus");
    let config = shape.config(segment_length);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut reader = MappedBusReader::open(&path, &config, StartAt::Live).unwrap();
    let total = WARMUP_MESSAGES + LATENCY_MESSAGES;
    let spins = idle_spins();
    let consumer = std::thread::spawn(move || {
        let switches = context_switches();
        let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).unwrap();
        // (seq, one-way, reader gap) of tail samples; preallocated, so no allocation while
        // measuring unless the tail is enormous.
        let mut tail = Vec::with_capacity(100_000);
        let mut received = 0u64;
        let mut last_poll = nano_time();
        let mut longest_gap = 0i64;
        let mut caught_up = true;
        while received < total {
            let polled_at = nano_time();
            longest_gap = longest_gap.max(polled_at - last_poll);
            last_poll = polled_at;
            if let Some(record) = reader.poll().unwrap() {
                let (seq, stamp) = shape.decode(record.metadata, record.body);
                let now = nano_time();
                let one_way = now - stamp;
                if received >= WARMUP_MESSAGES {
                    histogram.saturating_record(one_way.max(1) as u64);
                    if one_way > TAIL_NS {
                        tail.push((seq, one_way, longest_gap, caught_up));
                    }
                }
                longest_gap = 0;
                caught_up = false;
                received += 1;
            } else {
                caught_up = true;
                idle(spins);
            }
        }
        (histogram, tail, since(switches))
    });
    let switches = context_switches();
    let mut costs = vec![0i64; total as usize];
    let mut next_send = nano_time();
    for seq in 0..total {
        while nano_time() < next_send {
            std::hint::spin_loop();
        }
        let stamp = nano_time();
        shape.write(&mut writer, seq, stamp);
        costs[seq as usize] = nano_time() - stamp;
        next_send += LATENCY_INTERVAL_NS;
    }
    let writer_switches = since(switches);
    let (one_way, tail, reader_switches) = consumer.join().unwrap();
    let mut write_cost = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).unwrap();
    for &cost in &costs[WARMUP_MESSAGES as usize..] {
        write_cost.saturating_record(cost.max(1) as u64);
    }
    let tail = tail
        .into_iter()
        .map(|(seq, one_way, reader_gap, caught_up)| TailSample {
            one_way,
            write_cost: costs[seq as usize],
            reader_gap,
            caught_up,
        })
        .collect();
    LatencyRun { one_way, write_cost, tail, writer_switches, reader_switches }
}

/// Counts tail samples by cause: the write took at least half the latency (writer), else
/// the reader was away from `poll` at least half of it (reader away), else the reader was
/// still catching up on earlier records (queued behind an earlier stall), else neither.
fn tail_causes(tail: &[TailSample], above: i64) -> [usize; 4] {
    let mut causes = [0; 4];
    for sample in tail.iter().filter(|s| s.one_way > above) {
        let cause = if 2 * sample.write_cost >= sample.one_way {
            0
        } else if 2 * sample.reader_gap >= sample.one_way {
            1
        } else if !sample.caught_up {
            2
        } else {
            3
        };
        causes[cause] += 1;
    }
    causes
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench`-less args; stay quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let messages = std::env::var("AERONRS_BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 100_000 } else { 50_000_000 });
    if quick {
        for shape in [Shape::Typed12, Shape::Bytes64Variable, Shape::Bytes64Fixed] {
            throughput(shape, messages, 1 << 20); // small segments: roll-over on the way
        }
        println!("mapped_bus bench: quick check done (run with cargo bench for figures)");
        return;
    }
    let only = std::env::var("AERONRS_BENCH_ONLY").ok();
    let only = only.as_deref();
    println!("mapped bus, one writer thread and one reader thread");
    for shape in [Shape::Typed12, Shape::Bytes64Variable, Shape::Bytes64Fixed] {
        if only != Some("latency") {
            let messages = if matches!(shape, Shape::Typed12) { messages } else { messages.min(20_000_000) };
            throughput(shape, messages.min(5_000_000), SEGMENT_LENGTH); // warm-up: page cache, CPU frequency
            let mut rates: Vec<f64> =
                (0..RUNS).map(|_| throughput(shape, messages, SEGMENT_LENGTH)).collect();
            rates.sort_by(|a, b| a.total_cmp(b));
            println!(
                "{:<38} {messages} msgs x {RUNS}: best {:.2} M msgs/s, median {:.2} M msgs/s",
                shape.name(),
                rates[RUNS - 1] / 1e6,
                rates[RUNS / 2] / 1e6,
            );
        }
        if only == Some("throughput") {
            continue;
        }
        for (segment_length, what) in
            [(SEGMENT_LENGTH, "one segment"), (ROLLOVER_SEGMENT_LENGTH, "1 MiB segments, rolling over")]
        {
            let run = latency(shape, segment_length);
            let h = &run.one_way;
            println!(
                "{:<38} one-way latency at {}k msgs/s, {what} (ns): p50 {} p90 {} p99 {} p99.9 {} p99.99 {} max {}",
                "",
                1_000_000 / LATENCY_INTERVAL_NS,
                h.value_at_quantile(0.5),
                h.value_at_quantile(0.9),
                h.value_at_quantile(0.99),
                h.value_at_quantile(0.999),
                h.value_at_quantile(0.9999),
                h.max()
            );
            let w = &run.write_cost;
            println!(
                "{:<38}   write cost (ns): p50 {} p99 {} p99.9 {} p99.99 {} max {}; context switches (voluntary, involuntary) writer {:?} reader {:?}",
                "",
                w.value_at_quantile(0.5),
                w.value_at_quantile(0.99),
                w.value_at_quantile(0.999),
                w.value_at_quantile(0.9999),
                w.max(),
                run.writer_switches,
                run.reader_switches,
            );
            for above in [TAIL_NS, 100_000, 1_000_000] {
                let [writer, reader, queued, neither] = tail_causes(&run.tail, above);
                println!(
                    "{:<38}   samples above {} us: {} (writer {writer}, reader away {reader}, queued behind a stall {queued}, neither {neither})",
                    "",
                    above / 1000,
                    writer + reader + queued + neither,
                );
            }
        }
    }
}
