//! What the Rust samples (`ping`, `pong`, `streaming_publisher`, `rate_subscriber`) share:
//! the C samples' options and defaults (`examples-c/sample_util.h`), the SIGINT flag, and
//! the same latency histogram and report lines, so `scripts/perf-c.sh` can set each C
//! sample beside its Rust twin and compare their output line for line.
#![allow(dead_code)]

use std::time::Duration;

use aeronrs::client::{Aeron, Context};
use aeronrs::util::sys::{install_shutdown_signal_handlers, shutdown_signalled};

pub const DEFAULT_CHANNEL: &str = "aeron:udp?endpoint=localhost:20121";
pub const DEFAULT_PING_CHANNEL: &str = "aeron:udp?endpoint=localhost:20123";
pub const DEFAULT_PONG_CHANNEL: &str = "aeron:udp?endpoint=localhost:20124";
pub const DEFAULT_STREAM_ID: i32 = 1001;
pub const DEFAULT_PING_STREAM_ID: i32 = 1002;
pub const DEFAULT_PONG_STREAM_ID: i32 = 1003;
pub const DEFAULT_NUMBER_OF_WARM_UP_MESSAGES: u64 = 100_000;
pub const DEFAULT_NUMBER_OF_MESSAGES: u64 = 10_000_000;
pub const DEFAULT_MESSAGE_LENGTH: usize = 32;
pub const DEFAULT_FRAGMENT_COUNT_LIMIT: usize = 10;

/// Command-line options in the C samples' getopt style (`-c uri -L 32 ...`), each option
/// one letter followed by its value; `-h` prints `usage` and exits.
pub struct Options(Vec<(char, String)>);

impl Options {
    /// Parses the process arguments; `flags_with_values` lists the letters that take a value.
    pub fn parse(usage: &str, flags_with_values: &str) -> Self {
        let program = std::env::args().next().unwrap_or_default();
        let mut args = std::env::args().skip(1);
        let mut options = Vec::new();
        while let Some(arg) = args.next() {
            let letter = arg.strip_prefix('-').and_then(|rest| rest.chars().next());
            match letter {
                Some('h') => {
                    println!("Usage: {program} {usage}");
                    std::process::exit(0);
                }
                Some(letter) if flags_with_values.contains(letter) => {
                    let inline = &arg[1 + letter.len_utf8()..];
                    let value = if inline.is_empty() { args.next() } else { Some(inline.to_string()) };
                    let Some(value) = value else { fail(&format!("option -{letter} needs a value")) };
                    options.push((letter, value));
                }
                _ => fail(&format!("unknown option {arg}\nUsage: {program} {usage}")),
            }
        }
        Self(options)
    }

    pub fn text(&self, letter: char, default: &str) -> String {
        self.0
            .iter()
            .rev()
            .find(|(l, _)| *l == letter)
            .map_or_else(|| default.to_string(), |(_, v)| v.clone())
    }

    pub fn number<T: std::str::FromStr>(&self, letter: char, default: T) -> T {
        match self.0.iter().rev().find(|(l, _)| *l == letter) {
            None => default,
            Some((_, v)) => {
                v.parse().unwrap_or_else(|_| fail(&format!("malformed value for -{letter}: {v}")))
            }
        }
    }
}

pub fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1)
}

/// Makes SIGINT/SIGTERM end the sample's loops instead of the process.
pub fn install_signal_handlers() {
    install_shutdown_signal_handlers().unwrap_or_else(|e| fail(&format!("signal handlers: {e}")));
}

pub fn is_running() -> bool {
    !shutdown_signalled()
}

/// A client of the driver in `aeron_dir` (empty: the default directory).
pub fn connect_client(aeron_dir: &str) -> Aeron {
    let mut context = Context::default();
    if !aeron_dir.is_empty() {
        context.set_aeron_dir(aeron_dir);
    }
    Aeron::connect(context).unwrap_or_else(|e| fail(&format!("connect: {e}")))
}

/// Waits (yielding) until `done`, or exits if interrupted.
pub fn await_or_exit(mut done: impl FnMut() -> bool) {
    while !done() {
        if !is_running() {
            std::process::exit(1);
        }
        std::thread::yield_now();
    }
}

/// The C samples' rate line: `1000ms, 2.5e+07 msgs/sec, ...`.
pub fn print_rate_report(duration: Duration, mps: f64, bps: f64, messages: u64, bytes: u64) {
    println!(
        "{}ms, {} msgs/sec, {} bytes/sec, totals {messages} messages {} MB payloads",
        duration.as_millis(),
        c_g4(mps),
        c_g4(bps),
        bytes / (1024 * 1024)
    );
}

/// `value` as C's `%.04g` prints it (4 significant digits, exponent form when large).
pub fn c_g4(value: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    let exponent = value.abs().log10().floor() as i32;
    if !(-4..4).contains(&exponent) {
        let text = format!("{value:.3e}");
        let (mantissa, power) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        let power: i32 = power.parse().unwrap_or(0);
        format!("{mantissa}e{}{:02}", if power < 0 { '-' } else { '+' }, power.abs())
    } else {
        let decimals = (3 - exponent).max(0) as usize;
        let text = format!("{value:.decimals$}");
        if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
    }
}

const SUB_BUCKETS: usize = 1024;
const BUCKETS: usize = 55;

/// Latencies in nanoseconds bucketed as the C samples' histogram does (values below 1024
/// exactly; above, 512 equal sub-buckets per power of two), so both report the same values.
pub struct LatencyHistogram {
    counts: Vec<u64>,
    total: u64,
    max: u64,
}

impl LatencyHistogram {
    pub fn new() -> Self {
        Self { counts: vec![0; SUB_BUCKETS + BUCKETS * (SUB_BUCKETS / 2)], total: 0, max: 0 }
    }

    pub fn reset(&mut self) {
        self.counts.fill(0);
        self.total = 0;
        self.max = 0;
    }

    fn index(value: u64) -> usize {
        if value < SUB_BUCKETS as u64 {
            return value as usize;
        }
        let shift = (63 - value.leading_zeros()) as usize - 9;
        let sub = (value >> shift) as usize; // 512..1023
        SUB_BUCKETS + (shift - 1) * (SUB_BUCKETS / 2) + (sub - 512)
    }

    fn highest_value(index: usize) -> u64 {
        if index < SUB_BUCKETS {
            return index as u64;
        }
        let above = index - SUB_BUCKETS;
        let shift = above / (SUB_BUCKETS / 2) + 1;
        let sub = 512 + (above % (SUB_BUCKETS / 2)) as u64;
        ((sub + 1) << shift) - 1
    }

    pub fn record(&mut self, value_ns: u64) {
        self.counts[Self::index(value_ns)] += 1;
        self.total += 1;
        self.max = self.max.max(value_ns);
    }

    /// The highest value the bucket at `quantile` holds (capped at the maximum seen).
    pub fn value_at(&self, quantile: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let wanted = ((quantile * self.total as f64 + 0.5) as u64).max(1);
        let mut seen = 0;
        for (index, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= wanted {
                return Self::highest_value(index).min(self.max);
            }
        }
        self.max
    }

    /// The mean of the lowest `fraction` of the values: the outliers (scheduler stalls of
    /// milliseconds) left out, it resolves differences far below the clock's tick, which
    /// the percentiles cannot. Values under 1024 ns are held exactly; above, each counts as
    /// its bucket's highest value.
    pub fn trimmed_mean(&self, fraction: f64) -> f64 {
        let wanted = ((fraction * self.total as f64) as u64).max(1);
        let (mut taken, mut sum) = (0u64, 0f64);
        for (index, &count) in self.counts.iter().enumerate() {
            let take = count.min(wanted - taken);
            sum += take as f64 * Self::highest_value(index).min(self.max) as f64;
            taken += take;
            if taken == wanted {
                break;
            }
        }
        if taken == 0 { 0.0 } else { sum / taken as f64 }
    }

    /// The percentile table and the summary line of the C samples.
    pub fn print(&self, what: &str, elapsed_s: f64) {
        println!("{:>12} {:>14} {:>10}", "Value (us)", "Percentile", "TotalCount");
        for quantile in [0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0] {
            let value = if quantile >= 1.0 { self.max } else { self.value_at(quantile) };
            println!(
                "{:>12.3} {quantile:>14.6} {:>10}",
                value as f64 / 1000.0,
                (quantile * self.total as f64) as u64
            );
        }
        println!(
            "{} {what} in {elapsed_s:.2}s: p50 {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns, mean99 {:.2} ns",
            self.total,
            self.value_at(0.5),
            self.value_at(0.9),
            self.value_at(0.99),
            self.value_at(0.999),
            self.max,
            self.trimmed_mean(0.99)
        );
    }
}

/// Totals one counting thread updates, printed as rates once a second by a reporter thread
/// (the C samples' `rate_reporter_t`).
pub struct RateReporter {
    totals: std::sync::Arc<RateTotals>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    messages: u64,
    bytes: u64,
}

#[derive(Default)]
struct RateTotals {
    messages: std::sync::atomic::AtomicU64,
    bytes: std::sync::atomic::AtomicU64,
}

impl RateReporter {
    pub fn start() -> Self {
        use std::sync::atomic::Ordering;
        let totals = std::sync::Arc::new(RateTotals::default());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = {
            let (totals, stop) = (std::sync::Arc::clone(&totals), std::sync::Arc::clone(&stop));
            std::thread::spawn(move || {
                let (mut last_messages, mut last_bytes) = (0u64, 0u64);
                let mut last = std::time::Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_secs(1));
                    // Acquire pairs with the counting thread's release stores.
                    let messages = totals.messages.load(Ordering::Acquire);
                    let bytes = totals.bytes.load(Ordering::Acquire);
                    let now = std::time::Instant::now();
                    let seconds = (now - last).as_secs_f64();
                    let mps = (messages - last_messages) as f64 / seconds;
                    let bps = (bytes - last_bytes) as f64 / seconds;
                    print_rate_report(now - last, mps, bps, messages, bytes);
                    (last_messages, last_bytes, last) = (messages, bytes, now);
                }
            })
        };
        Self { totals, stop, thread: Some(thread), messages: 0, bytes: 0 }
    }

    /// Counts one message (from the one counting thread).
    #[inline]
    pub fn on_message(&mut self, length: usize) {
        use std::sync::atomic::Ordering;
        self.messages += 1;
        self.bytes += length as u64;
        // Release: the reporter reads both totals with acquire loads.
        self.totals.bytes.store(self.bytes, Ordering::Release);
        self.totals.messages.store(self.messages, Ordering::Release);
    }

    pub fn halt(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
