//! Mapped bus benchmark: one writer thread and one reader thread.
//!
//! - Throughput: the writer writes flat out, the reader busy-polls; messages per second
//!   from the first write to the last read. Shapes: 12-byte typed messages in fixed-size
//!   mode (Mappedbus's benchmark: a 3-int PriceUpdate, record size 12, which Mappedbus
//!   reports at about 14 million messages per second), and 64-byte byte messages in
//!   variable-length and fixed-size mode.
//! - One-way latency: the writer sends at a steady rate with a monotonic timestamp in the
//!   message; the reader records `now - timestamp` (both threads share one clock).
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

/// One-way latency histogram (ns) at a steady send rate, with segments of
/// `segment_length` (small ones make the run roll over every few hundred milliseconds).
fn latency(shape: Shape, segment_length: usize) -> Histogram<u64> {
    let dir = bench_dir();
    let path = dir.path().join("bus");
    let config = shape.config(segment_length);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut reader = MappedBusReader::open(&path, &config, StartAt::Live).unwrap();
    let total = WARMUP_MESSAGES + LATENCY_MESSAGES;
    let spins = idle_spins();
    let consumer = std::thread::spawn(move || {
        let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).unwrap();
        let mut received = 0u64;
        while received < total {
            if let Some(record) = reader.poll().unwrap() {
                let (_, stamp) = shape.decode(record.metadata, record.body);
                let now = nano_time();
                if received >= WARMUP_MESSAGES {
                    histogram.saturating_record((now - stamp).max(1) as u64);
                }
                received += 1;
            } else {
                idle(spins);
            }
        }
        histogram
    });
    let mut next_send = nano_time();
    for seq in 0..total {
        while nano_time() < next_send {
            std::hint::spin_loop();
        }
        shape.write(&mut writer, seq, nano_time());
        next_send += LATENCY_INTERVAL_NS;
    }
    consumer.join().unwrap()
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
            let h = latency(shape, segment_length);
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
        }
    }
}
