//! Scale and cost of the driver (plain `main`): `cargo bench --bench scale -- [--driver
//! ours|java] [--streams N] [--idle-seconds S]`.
//!
//! Against a standalone driver in a child process with every setting at its default (ours:
//! `target/release/aeronmd`, build it first; Java: `io.aeron.driver.MediaDriver` from the
//! aeron-all jar of `interop/java`), our client measures:
//! - client connect time (median and max of 20 connects);
//! - adding N IPC publications (distinct stream ids) one after another through one client,
//!   then N subscriptions to them, as microseconds per add in each quarter of the run (a
//!   quarter costing more than the first says the driver's work grows with what it has);
//! - the driver's CPU use over S seconds with nothing registered and again with the N
//!   streams idle (utime + stime of `/proc/<pid>/stat`), and its resident memory (VmRSS).
//!
//! `scripts/bench-scale.sh` runs it for both drivers and for two stream counts. Without
//! `--bench` (`cargo test --all-targets`) it runs a small pass against our driver when
//! `target/release/aeronmd` exists, and does nothing otherwise.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context};

struct Args(Vec<String>);

impl Args {
    fn value<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.0.iter().position(|a| a == name) {
            None => default,
            Some(i) => self.0.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("bad {name}")),
        }
    }
}

/// A standalone driver in a child process, killed when dropped.
struct Driver {
    child: Child,
    dir: tempfile::TempDir,
}

impl Driver {
    fn start(kind: &str) -> Option<Self> {
        let dir =
            tempfile::tempdir_in(if Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" }).unwrap();
        let aeron_dir = dir.path().join("aeron");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut command = match kind {
            "ours" => {
                let aeronmd = root.join("target/release/aeronmd");
                if !aeronmd.exists() {
                    return None;
                }
                let mut c = Command::new(aeronmd);
                c.env("AERON_DIR", &aeron_dir);
                c
            }
            "java" => {
                let mut c = Command::new("java");
                c.args(["--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED"])
                    .arg(format!("-Daeron.dir={}", aeron_dir.display()))
                    .arg("-cp")
                    .arg(format!("{}/interop/java/target/dependency/*", root.display()))
                    .arg("io.aeron.driver.MediaDriver");
                c
            }
            other => panic!("--driver ours|java, not {other}"),
        };
        let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()?;
        let driver = Self { child, dir };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !aeronrs::cnc::is_driver_active(&aeron_dir, 10_000).unwrap_or(false) {
            assert!(Instant::now() < deadline, "{kind} driver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(driver)
    }

    fn aeron_dir(&self) -> PathBuf {
        self.dir.path().join("aeron")
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(dir: &Path) -> Aeron {
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_error_handler(|e| panic!("client error: {e}"));
    Aeron::connect(ctx).expect("connect")
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The driver's CPU use (percent of one CPU) over `seconds`, and its RSS afterwards.
fn idle_cost(pid: u32, seconds: u64) -> (f64, u64) {
    let ticks_per_second = 100.0; // USER_HZ on Linux
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(seconds));
    let used = (cpu_ticks(pid) - before) as f64 / ticks_per_second;
    (100.0 * used / seconds as f64, rss_kib(pid))
}

/// Microseconds per add in each quarter of `n` adds.
fn quarters(n: usize, mut add: impl FnMut(usize)) -> [f64; 4] {
    let mut result = [0.0; 4];
    for (q, slot) in result.iter_mut().enumerate() {
        let (from, to) = (q * n / 4, (q + 1) * n / 4);
        let start = Instant::now();
        for i in from..to {
            add(i);
        }
        *slot = start.elapsed().as_secs_f64() * 1e6 / (to - from).max(1) as f64;
    }
    result
}

fn main() {
    let args = Args(std::env::args().collect());
    let full = args.0.iter().any(|a| a == "--bench");
    let kind: String = args.value("--driver", "ours".to_string());
    let streams: usize = args.value("--streams", if full { 1000 } else { 40 });
    let idle_seconds: u64 = args.value("--idle-seconds", if full { 10 } else { 1 });
    let Some(driver) = Driver::start(&kind) else {
        println!("scale bench: no {kind} driver to run (build target/release/aeronmd); skipped");
        return;
    };
    let dir = driver.aeron_dir();

    let (idle_cpu, idle_rss) = idle_cost(driver.pid(), idle_seconds);

    let mut connects: Vec<Duration> = (0..20)
        .map(|_| {
            let start = Instant::now();
            let aeron = connect(&dir);
            let took = start.elapsed();
            drop(aeron);
            took
        })
        .collect();
    connects.sort();

    let aeron = connect(&dir);
    let mut publications = Vec::with_capacity(streams);
    let pubs = quarters(streams, |i| {
        publications
            .push(aeron.add_exclusive_publication("aeron:ipc?term-length=64k", 10_000 + i as i32).unwrap());
    });
    let mut subscriptions = Vec::with_capacity(streams);
    let subs = quarters(streams, |i| {
        subscriptions.push(aeron.add_subscription("aeron:ipc", 10_000 + i as i32).unwrap());
    });
    let (busy_cpu, busy_rss) = idle_cost(driver.pid(), idle_seconds);

    let fmt = |q: [f64; 4]| format!("{:.0} {:.0} {:.0} {:.0}", q[0], q[1], q[2], q[3]);
    println!(
        "{kind} driver: connect median {:.2} ms max {:.2} ms | {streams} publications, us/add by quarter: {} | \
         {streams} subscriptions: {} | idle CPU {idle_cpu:.1}% RSS {idle_rss} KiB; with {streams} idle IPC streams \
         CPU {busy_cpu:.1}% RSS {busy_rss} KiB",
        connects[connects.len() / 2].as_secs_f64() * 1e3,
        connects[connects.len() - 1].as_secs_f64() * 1e3,
        fmt(pubs),
        fmt(subs),
    );
}
