//! Processes for interop tests: real Java Aeron (`interop/java`: `Interop driver|pub|sub`,
//! Java's own media driver and clients) and our `aeronmd`. Needs `java` and `mvn`; without
//! them `interop_classpath` returns `None` (skip) unless `AERONRS_REQUIRE_INTEROP=1`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const JAVA_FLAGS: [&str; 4] = [
    "--add-exports",
    "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens",
    "java.base/sun.nio.ch=ALL-UNNAMED",
];

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// The interop classpath, building the Maven project if needed; `None` = skip.
pub fn interop_classpath() -> Option<String> {
    let required = std::env::var("AERONRS_REQUIRE_INTEROP").as_deref() == Ok("1");
    if !have("java") || !have("mvn") {
        assert!(!required, "java and mvn are required for interop tests (AERONRS_REQUIRE_INTEROP=1)");
        eprintln!("SKIP: java or mvn not found; Java interop not tested");
        return None;
    }
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/java");
    let jar = project.join("target/aeronrs-interop-0.1.0.jar");
    if !jar.exists() || !project.join("target/dependency").is_dir() || stale(&jar, &project) {
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

/// Whether the jar is older than the pom or any interop source (a checkout that changed
/// or added a peer program after the last build).
fn stale(jar: &Path, project: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(built) = modified(jar) else { return true };
    let mut sources = vec![project.join("pom.xml")];
    if let Ok(entries) = std::fs::read_dir(project.join("src/main/java/aeronrs/interop")) {
        sources.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    sources.iter().any(|s| modified(s).is_some_and(|m| m > built))
}

/// A child whose stdout lines arrive on a channel; killed if dropped while running.
pub struct Proc {
    pub name: String,
    pub child: Child,
    lines: mpsc::Receiver<String>,
}

impl Proc {
    pub fn spawn(name: &str, mut cmd: Command) -> Proc {
        let mut child =
            cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("spawn");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Proc { name: name.to_string(), child, lines }
    }

    pub fn expect_line(&self, prefix: &str, timeout: Duration) -> String {
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

    pub fn wait_success(&mut self, timeout: Duration) {
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

    /// Ends a driver: SIGTERM for ours, closing stdin for Java's `Interop driver`.
    pub fn stop(&mut self) {
        drop(self.child.stdin.take());
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
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

/// Our driver in its own process, with `env` added (e.g. loss injection).
pub fn aeronmd(dir: &Path, env: &[(&str, &str)]) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_aeronmd"));
    cmd.env("AERON_DIR", dir)
        .env("AERON_DIR_DELETE_ON_SHUTDOWN", "true")
        .env("AERON_THREADING_MODE", "SHARED_NETWORK")
        .env("AERON_SHAREDNETWORK_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS", "50us")
        .env("AERON_CONDUCTOR_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS", "100us");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let driver = Proc::spawn("aeronmd", cmd);
    driver.expect_line("aeronmd: driver started", Duration::from_secs(30));
    driver
}

fn java_command(classpath: &str, dir: &Path, main: &str, args: &[&str]) -> Command {
    java_command_in(None, classpath, dir, &[], main, args)
}

/// `java` (run inside network namespace `netns` if set, through `ip netns exec`, which execs
/// it: the child's pid is the JVM's) with `options` (e.g. `-Dinterop.hold=true`) before
/// the main class.
fn java_command_in(
    netns: Option<&str>,
    classpath: &str,
    dir: &Path,
    options: &[&str],
    main: &str,
    args: &[&str],
) -> Command {
    let mut cmd = match netns {
        Some(ns) => {
            let mut cmd = Command::new("ip");
            cmd.args(["netns", "exec", ns, "java"]);
            cmd
        }
        None => Command::new("java"),
    };
    cmd.args(JAVA_FLAGS)
        .args(options)
        .arg(format!("-Daeron.dir={}", dir.display()))
        .arg("-cp")
        .arg(classpath)
        .arg(main)
        .args(args)
        .env("AERON_DIR", dir);
    cmd
}

/// `Interop pub|sub|driver ...` on the Aeron directory `dir`.
pub fn interop(name: &str, classpath: &str, dir: &Path, args: &[&str]) -> Proc {
    Proc::spawn(name, java_command(classpath, dir, "aeronrs.interop.Interop", args))
}

/// The command of `Interop <args>` on the Aeron directory `dir`, inside network namespace
/// `netns` if set, with JVM `options`.
pub fn interop_command(
    netns: Option<&str>,
    classpath: &str,
    dir: &Path,
    options: &[&str],
    args: &[&str],
) -> Command {
    java_command_in(netns, classpath, dir, options, "aeronrs.interop.Interop", args)
}

/// A Java media driver (SHARED, sleeping idle) in `dir`.
pub fn java_driver(classpath: &str, dir: &Path) -> Proc {
    java_driver_with(classpath, dir, &[])
}

/// A Java media driver in `dir` with JVM `options` (e.g.
/// `-Daeron.enable.experimental.features=true`).
pub fn java_driver_with(classpath: &str, dir: &Path, options: &[&str]) -> Proc {
    let command = java_command_in(None, classpath, dir, options, "aeronrs.interop.Interop", &["driver"]);
    let driver = Proc::spawn("java driver", command);
    driver.expect_line("READY", Duration::from_secs(60));
    driver
}

/// `Response <args>` (the response channel peer) on the Aeron directory `dir`.
pub fn response_peer(name: &str, classpath: &str, dir: &Path, args: &[&str]) -> Proc {
    Proc::spawn(name, java_command_in(None, classpath, dir, &[], "aeronrs.interop.Response", args))
}
