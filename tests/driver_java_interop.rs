//! Real Java Aeron (aeron-all, `interop/java`) clients over our `aeronmd`: a Java publisher
//! and a Java subscriber exchange messages through an IPC publication our driver manages,
//! every message verified by the subscriber. Needs `java` and `mvn`; without them the test
//! skips with a message, unless `AERONRS_REQUIRE_INTEROP=1`, when it fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const JAVA_FLAGS: [&str; 4] = [
    "--add-exports",
    "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens",
    "java.base/sun.nio.ch=ALL-UNNAMED",
];

fn java_project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/java")
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// The interop classpath, building the Maven project if needed; `None` = skip.
fn interop_classpath() -> Option<String> {
    let required = std::env::var("AERONRS_REQUIRE_INTEROP").as_deref() == Ok("1");
    if !have("java") || !have("mvn") {
        assert!(!required, "java and mvn are required for interop tests (AERONRS_REQUIRE_INTEROP=1)");
        eprintln!("SKIP: java or mvn not found; Java interop not tested");
        return None;
    }
    let project = java_project();
    let jar = project.join("target/aeronrs-interop-0.1.0.jar");
    if !jar.exists() || !project.join("target/dependency").is_dir() {
        let build = |offline: bool| {
            let mut cmd = Command::new("mvn");
            cmd.args(["-q", "-B", "package", "-DskipTests"]).current_dir(&project);
            if offline {
                cmd.arg("-o");
            }
            cmd.status().map(|s| s.success()).unwrap_or(false)
        };
        if !build(true) && !build(false) {
            assert!(!required, "mvn package failed in {}", project.display());
            eprintln!("SKIP: could not build {}", project.display());
            return None;
        }
    }
    Some(format!("{}:{}/*", jar.display(), project.join("target/dependency").display()))
}

/// A child whose stdout lines arrive on a channel; killed if dropped while running.
struct Proc {
    name: &'static str,
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Proc {
    fn spawn(name: &'static str, mut cmd: Command) -> Proc {
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("spawn");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Proc { name, child, lines }
    }

    /// Waits for a line starting with `prefix`.
    fn expect_line(&self, prefix: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(_) => panic!("{}: no line starting with {prefix:?} within {timeout:?}", self.name),
            }
        }
    }

    fn wait_success(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{} exited with {status}", self.name);
                return;
            }
            assert!(Instant::now() < deadline, "{} still running after {timeout:?}", self.name);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn aeronmd(dir: &Path, term_length: &str) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_aeronmd"));
    cmd.env("AERON_DIR", dir)
        .env("AERON_DIR_DELETE_ON_SHUTDOWN", "true")
        .env("AERON_THREADING_MODE", "SHARED")
        .env("AERON_SHARED_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "100us")
        .arg(format!("-Daeron.ipc.term.buffer.length={term_length}"));
    Proc::spawn("aeronmd", cmd)
}

fn java_command(classpath: &str, dir: &Path, main: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("java");
    cmd.args(JAVA_FLAGS)
        .arg(format!("-Daeron.dir={}", dir.display()))
        .arg("-cp")
        .arg(classpath)
        .arg(main)
        .args(args)
        .env("AERON_DIR", dir);
    cmd
}

fn java(name: &'static str, classpath: &str, dir: &Path, args: &[&str]) -> Proc {
    Proc::spawn(name, java_command(classpath, dir, "aeronrs.interop.Interop", args))
}

/// Java's AeronStat reads our counters: one screen while a Java client is connected.
fn check_aeron_stat(classpath: &str, dir: &Path) {
    let mut sub = java("java sub", classpath, dir, &["sub", "aeron:ipc", "1001", "1", "64"]);
    sub.expect_line("READY", Duration::from_secs(60));
    let stat = Proc::spawn("AeronStat", java_command(classpath, dir, "io.aeron.samples.AeronStat", &[]));
    let mut screen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !screen.iter().any(|l: &String| l.contains("client-heartbeat: id=")) {
        let left = deadline.saturating_duration_since(Instant::now());
        screen.push(stat.lines.recv_timeout(left).expect("AeronStat screen with the client's heartbeat"));
    }
    drop(stat);
    let text = screen.join("\n");
    for expected in [
        "Aeron Stat (CnC v0.2.0)",
        "  0:                    0 - Bytes sent",
        " 15:                    0 - Errors: version=1.48.0 commit=",
        " 24:                    0 - Client liveness timeouts",
        " 34:               77,824 - Aeron software: version=1.48.0 commit=",
        " 39:                    0 - Error Frames sent",
    ] {
        assert!(text.contains(expected), "AeronStat lacks {expected:?}:\n{text}");
    }
    eprintln!("AeronStat over aeronrs aeronmd:\n{text}");
    let mut publisher = java("java pub", classpath, dir, &["pub", "aeron:ipc", "1001", "1", "64"]);
    publisher.wait_success(Duration::from_secs(60));
    sub.wait_success(Duration::from_secs(60));
}

/// A refused command reaches the Java client as an error, and Java's ErrorStat reads our
/// distinct error log.
fn check_error_stat(classpath: &str, dir: &Path) {
    // Response channels are the one UDP feature still refused (multicast works now).
    let channel = "aeron:udp?endpoint=127.0.0.1:40456|control-mode=response";
    let refused =
        java_command(classpath, dir, "aeronrs.interop.Interop", &["pub", channel, "1001", "1", "64"])
            .output()
            .unwrap();
    assert!(!refused.status.success(), "a response-channel publication is refused for now");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("not supported yet"), "{stderr}");
    let stat = java_command(classpath, dir, "io.aeron.samples.ErrorStat", &[]).output().unwrap();
    assert!(stat.status.success());
    let text = String::from_utf8_lossy(&stat.stdout);
    assert!(text.contains("1 distinct errors observed."), "{text}");
    assert!(text.contains("not supported yet"), "{text}");
}

fn exchange(classpath: &str, dir: &Path, channel: &str, count: u64, length: usize) {
    let count_text = count.to_string();
    let length_text = length.to_string();
    let args = |mode| [mode, channel, "1001", count_text.as_str(), length_text.as_str()];
    let mut sub = java("java sub", classpath, dir, &args("sub"));
    sub.expect_line("READY", Duration::from_secs(60));
    let start = Instant::now();
    let mut publisher = java("java pub", classpath, dir, &args("pub"));
    let done = publisher.expect_line("DONE", Duration::from_secs(120));
    assert!(done.starts_with(&format!("DONE {count} ")), "{done}");
    let received = sub.expect_line("DONE", Duration::from_secs(120));
    let elapsed = start.elapsed();
    assert_eq!(received, format!("DONE {count}"));
    publisher.wait_success(Duration::from_secs(30));
    sub.wait_success(Duration::from_secs(30));
    let rate = count as f64 / elapsed.as_secs_f64();
    eprintln!(
        "java interop over aeronrs aeronmd: {count} x {length} B on {channel} verified in {elapsed:.2?} \
         (incl. JVM start of the publisher): {rate:.0} msg/s, {:.1} MB/s; publisher: {done}",
        rate * length as f64 / 1e6
    );
}

#[test]
fn java_publisher_to_java_subscriber_over_our_driver() {
    let Some(classpath) = interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut driver = aeronmd(&dir, "1m");
    driver.expect_line("aeronmd: driver started", Duration::from_secs(30));
    check_aeron_stat(&classpath, &dir);

    // 1,000,000 small messages: ~96 MB through a 1 MiB-term log, so the log rotates and the
    // driver cleans terms and moves the publisher limit ~90 times.
    exchange(&classpath, &dir, "aeron:ipc", 1_000_000, 64);
    // Messages above the MTU arrive fragmented and are reassembled by the Java subscriber.
    exchange(&classpath, &dir, "aeron:ipc?term-length=4m", 20_000, 5000);
    check_error_stat(&classpath, &dir);

    let status = Command::new("kill").args(["-TERM", &driver.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    driver.expect_line("Shutting down driver", Duration::from_secs(30));
    driver.wait_success(Duration::from_secs(30));
    assert!(!dir.exists(), "aeronmd deleted its directory on shutdown");
}
