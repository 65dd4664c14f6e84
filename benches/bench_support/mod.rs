//! Shared by the IPC benchmarks: command-line options, our media driver embedded in the
//! benchmark process (as Java Aeron's `Embedded*` samples embed theirs), or — with
//! `--java-driver` — a real Java driver from the client tests' support, and output in the
//! format of those samples, so `scripts/bench-ipc-vs-java.sh` reads both the same way.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, Context, ExclusivePublication, NOT_CONNECTED, Publication,
};
use aeronrs::driver::MediaDriver;
use aeronrs::driver::context::DriverContext;
use aeronrs::util::format::format_number_grouped;
use hdrhistogram::Histogram;

use crate::client_support::{DriverKind, DriverOptions, TestDriver};

/// The benchmark's arguments (after the binary name). `cargo bench` adds `--bench`; without
/// it (`cargo test --all-targets`) the benchmarks run as short smoke tests.
pub struct Args(Vec<String>);

impl Args {
    pub fn from_env() -> Self {
        Self(std::env::args().skip(1).collect())
    }

    /// Arguments given as words (a benchmark running cells of its own).
    pub fn new(words: Vec<String>) -> Self {
        Self(words)
    }

    /// Run at full length (`cargo bench`), not as a smoke test.
    pub fn full(&self) -> bool {
        self.flag("--bench")
    }

    pub fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }

    /// The value after `name`, or `default` when absent.
    pub fn value<T: FromStr>(&self, name: &str, default: T) -> T {
        match self.0.iter().position(|a| a == name) {
            None => default,
            Some(i) => {
                let text = self.0.get(i + 1).unwrap_or_else(|| panic!("{name} needs a value"));
                text.parse().unwrap_or_else(|_| panic!("{name}: bad value {text:?}"))
            }
        }
    }
}

/// The media driver a benchmark runs against.
pub enum BenchDriver {
    /// Ours, in this process; its directory is deleted on close.
    Embedded(Box<MediaDriver>),
    /// Real Java Aeron in a child process (`--java-driver`).
    Java(TestDriver),
}

impl BenchDriver {
    /// Ours, embedded, configured by `AERON_*` variables and then `configure`; its directory is
    /// on tmpfs (`/dev/shm`) when there is one, as Aeron's default directory is on Linux.
    /// With `--java-driver`, a Java driver instead (`configure` does not apply).
    pub fn start(args: &Args, configure: impl FnOnce(&mut DriverContext)) -> Self {
        if args.flag("--java-driver") {
            let driver = TestDriver::start(DriverKind::Java, DriverOptions::default())
                .expect("--java-driver needs java and the interop jar");
            return Self::Java(driver);
        }
        let base =
            if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let mut ctx = DriverContext::from_env().expect("AERON_* driver settings");
        ctx.aeron_dir = base.join(format!("aeronrs-bench-{}", std::process::id()));
        ctx.dir_delete_on_start = true;
        ctx.dir_delete_on_shutdown = true;
        configure(&mut ctx);
        Self::Embedded(Box::new(MediaDriver::launch(ctx).expect("launch the embedded media driver")))
    }

    pub fn aeron_dir(&self) -> &Path {
        match self {
            Self::Embedded(driver) => driver.aeron_dir(),
            Self::Java(driver) => driver.aeron_dir(),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Self::Embedded(_) => "aeronrs media driver (embedded)",
            Self::Java(_) => "Java media driver (separate process)",
        }
    }

    /// A client of this driver; any error reported to the client's handler aborts the run.
    pub fn connect(&self, pre_touch: bool) -> Arc<Aeron> {
        let mut ctx = Context::default();
        ctx.set_aeron_dir(self.aeron_dir())
            .set_pre_touch_mapped_memory(pre_touch)
            .set_error_handler(|e| panic!("client error: {e}"));
        Arc::new(Aeron::connect(ctx).expect("connect"))
    }
}

/// One rate line in the format of Java's `ImageRateReporter`.
pub fn print_rate(interval: Duration, bytes: u64, message_length: usize) {
    println!(
        "Duration {}ms - {} messages - {} payload bytes",
        interval.as_millis(),
        format_number_grouped((bytes / message_length as u64) as i64, ","),
        format_number_grouped(bytes as i64, ",")
    );
}

/// Prints `histogram` (ns) in µs as HdrHistogram's `outputPercentileDistribution(out, 1000.0)`
/// does: one row per percentile tick (5 per half distance), then mean and max.
pub fn print_percentile_distribution(histogram: &Histogram<u64>) {
    let mut out = std::io::stdout().lock();
    write_percentile_distribution(histogram, &mut out).expect("write to stdout");
}

/// Writes `histogram` (ns) in µs in HdrHistogram's percentile distribution format (the
/// `.hgrm` files Aeron users plot): the "Value Percentile TotalCount 1/(1-Percentile)"
/// header, one row per percentile tick (5 per half distance to 100 %), then mean, standard
/// deviation, max, count and the bucket summary lines.
pub fn write_percentile_distribution(
    histogram: &Histogram<u64>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(out, "{:>12} {:>14} {:>10} {:>14}\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")?;
    let mut total = 0;
    for tick in histogram.iter_quantiles(5) {
        total += tick.count_since_last_iteration();
        let quantile = tick.quantile_iterated_to();
        let value = tick.value_iterated_to() as f64 / 1000.0;
        if quantile < 1.0 {
            writeln!(out, "{value:>12.3} {quantile:>2.12} {total:>10} {:>14.2}", 1.0 / (1.0 - quantile))?;
        } else {
            writeln!(out, "{value:>12.3} {quantile:>2.12} {total:>10}")?;
        }
    }
    writeln!(
        out,
        "#[Mean    = {:>12.3}, StdDeviation   = {:>12.3}]",
        histogram.mean() / 1000.0,
        histogram.stdev() / 1000.0
    )?;
    writeln!(
        out,
        "#[Max     = {:>12.3}, Total count    = {:>12}]",
        histogram.max() as f64 / 1000.0,
        histogram.len()
    )?;
    writeln!(
        out,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        histogram.buckets(),
        // HdrHistogram's sub-bucket count: the power of two holding 2 × 10^digits values.
        (2 * 10u64.pow(u32::from(histogram.sigfig()))).next_power_of_two()
    )
}

/// Either kind of publication, offering until accepted (the ping-pong benchmarks' senders).
pub enum Sender {
    Concurrent(Publication),
    Exclusive(ExclusivePublication),
}

impl Sender {
    pub fn add(aeron: &Aeron, channel: &str, stream_id: i32, exclusive: bool) -> Self {
        if exclusive {
            Self::Exclusive(aeron.add_exclusive_publication(channel, stream_id).expect("publication"))
        } else {
            Self::Concurrent(aeron.add_publication(channel, stream_id).expect("publication"))
        }
    }

    pub fn is_connected(&self) -> bool {
        match self {
            Self::Concurrent(p) => p.is_connected(),
            Self::Exclusive(p) => p.is_connected(),
        }
    }

    /// Offers until accepted (the peer keeps up, so back pressure is brief); returns the
    /// new position. Any result but a retry one is a failure of the benchmark.
    #[inline]
    pub fn send(&mut self, message: &[u8]) -> i64 {
        loop {
            let result = match self {
                Self::Concurrent(p) => p.offer(message),
                Self::Exclusive(p) => p.offer(message),
            }
            .expect("offer");
            if result > 0 {
                return result;
            }
            assert!(
                result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
                "offer: {result}"
            );
            std::hint::spin_loop();
        }
    }
}
