//! Shared helpers of the client integration tests: a real Java media driver (and Java
//! publisher/subscriber peers) from `interop/java`, child processes that re-run the test
//! binary in a role, the interop message pattern, and bounded waiting.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aeronrs::client::Context;
use aeronrs::util::error::Error;

/// Env var that puts a re-executed test binary into a child role.
pub const ROLE_ENV: &str = "AERONRS_CLIENT_TEST_ROLE";

fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/java")
}

fn jar() -> PathBuf {
    interop_dir().join("target/aeronrs-interop-0.1.0.jar")
}

fn skip_or_fail(reason: &str) -> Option<()> {
    if std::env::var("AERONRS_REQUIRE_INTEROP").as_deref() == Ok("1") {
        panic!("Java interop unavailable and AERONRS_REQUIRE_INTEROP=1: {reason}");
    }
    eprintln!("SKIP: Java interop unavailable: {reason}");
    None
}

fn command_works(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Makes sure the interop jar exists, building it with Maven once (across processes, via a
/// lock directory) if needed. `None` = skip.
fn ensure_jar() -> Option<()> {
    if !command_works("java", "-version") {
        return skip_or_fail("`java` not found");
    }
    if jar().is_file() && interop_dir().join("target/dependency").is_dir() {
        return Some(());
    }
    if !command_works("mvn", "-v") {
        return skip_or_fail("interop jar missing and `mvn` not found");
    }
    std::fs::create_dir_all(interop_dir().join("target")).ok()?;
    let lock = interop_dir().join("target/.aeronrs-build-lock");
    let deadline = Instant::now() + Duration::from_secs(600);
    // A lock left by a build that was killed is older than any real build takes.
    let stale = std::fs::metadata(&lock)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(900));
    if stale {
        let _ = std::fs::remove_dir(&lock);
    }
    if std::fs::create_dir(&lock).is_ok() {
        let status = Command::new("mvn")
            .args(["-q", "-B", "package", "-DskipTests"])
            .current_dir(interop_dir())
            .status();
        let _ = std::fs::remove_dir(&lock);
        if !status.map(|s| s.success()).unwrap_or(false) {
            return skip_or_fail("`mvn package` of interop/java failed");
        }
    } else {
        while lock.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    if jar().is_file() { Some(()) } else { skip_or_fail("interop jar not built") }
}

/// `java` with the interop classpath and the JDK 17 flags Agrona needs.
fn java_command(aeron_dir: &Path, properties: &[&str]) -> Command {
    let classpath = format!("{}:{}/target/dependency/*", jar().display(), interop_dir().display());
    let mut command = Command::new("java");
    command
        .arg("--add-opens")
        .arg("java.base/jdk.internal.misc=ALL-UNNAMED")
        .arg("--add-exports")
        .arg("java.base/jdk.internal.misc=ALL-UNNAMED")
        .arg("-XX:+UseSerialGC")
        .arg("-Xmx256m")
        .arg(format!("-Daeron.dir={}", aeron_dir.display()))
        .args(properties)
        .arg("-cp")
        .arg(classpath)
        .arg("aeronrs.interop.Interop");
    command
}

/// Reads lines of a child's stdout in the background, so tests can wait for markers.
pub struct LineReader {
    lines: Arc<Mutex<Vec<String>>>,
}

impl LineReader {
    fn spawn(stdout: impl Read + Send + 'static) -> Self {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        Self { lines }
    }

    /// Waits until a line starting with `prefix` appears; returns it.
    pub fn wait_for(&self, prefix: &str, timeout: Duration, child: &mut Child) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(line) = self.lines.lock().unwrap().iter().find(|l| l.starts_with(prefix)) {
                return line.clone();
            }
            if let Ok(Some(status)) = child.try_wait() {
                // Give the reader a moment to drain what the child printed before exiting.
                std::thread::sleep(Duration::from_millis(100));
                if let Some(line) = self.lines.lock().unwrap().iter().find(|l| l.starts_with(prefix)) {
                    return line.clone();
                }
                panic!("child exited ({status}) before printing {prefix:?}; output: {:?}", self.lines());
            }
            assert!(
                Instant::now() < deadline,
                "no {prefix:?} within {timeout:?}; output: {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// A real Java media driver in its own temporary Aeron directory. Closing its stdin
/// stops it; dropping it stops it (and kills it if it does not stop in time).
pub struct JavaDriver {
    child: Child,
    stdin: Option<ChildStdin>,
    _dir: tempfile::TempDir,
    aeron_dir: PathBuf,
}

impl JavaDriver {
    /// Starts a driver with extra `-D` properties. `None` (after a SKIP message) when Java
    /// is unavailable, unless `AERONRS_REQUIRE_INTEROP=1`.
    pub fn start(properties: &[&str]) -> Option<Self> {
        ensure_jar()?;
        let dir = tempfile::tempdir().expect("temp dir");
        let aeron_dir = dir.path().join("aeron");
        let mut child = java_command(&aeron_dir, properties)
            .arg("driver")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn java driver");
        let stdin = child.stdin.take();
        let reader = LineReader::spawn(child.stdout.take().unwrap());
        reader.wait_for("READY", Duration::from_secs(60), &mut child);
        Some(Self { child, stdin, _dir: dir, aeron_dir })
    }

    pub fn aeron_dir(&self) -> &Path {
        &self.aeron_dir
    }

    /// `kill -9`: the driver dies without any clean-up.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Clean shutdown (stdin closed), then SIGKILL if it does not exit within 10 s.
    pub fn stop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

impl Drop for JavaDriver {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Our own media driver (`aeronmd`) as a child process in its own temporary Aeron
/// directory; SIGTERM stops it cleanly, dropping it stops it.
pub struct RustDriver {
    child: Child,
    _dir: tempfile::TempDir,
    aeron_dir: PathBuf,
}

impl RustDriver {
    /// Starts `aeronmd` with extra `AERON_*` environment variables.
    pub fn start(envs: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let aeron_dir = dir.path().join("aeron");
        let mut child = Command::new(env!("CARGO_BIN_EXE_aeronmd"))
            .env("AERON_DIR", &aeron_dir)
            .env("AERON_DIR_DELETE_ON_START", "true")
            .env("AERON_DIR_DELETE_ON_SHUTDOWN", "true")
            .env("AERON_TERM_BUFFER_SPARSE_FILE", "true")
            .env("AERON_THREADING_MODE", "SHARED")
            // As the Java test driver: sleep 1 ms when idle, leaving the CPUs to the clients.
            .env("AERON_SHARED_IDLE_STRATEGY", "sleeping")
            .env("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "1ms")
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn aeronmd");
        let reader = LineReader::spawn(child.stdout.take().unwrap());
        reader.wait_for("aeronmd: driver started", Duration::from_secs(30), &mut child);
        Self { child, _dir: dir, aeron_dir }
    }

    pub fn aeron_dir(&self) -> &Path {
        &self.aeron_dir
    }

    /// `kill -9`.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM (clean shutdown), then SIGKILL if it does not exit within 10 s.
    pub fn stop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.kill();
    }
}

impl Drop for RustDriver {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Which media driver a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    /// Real Java Aeron (`interop/java`).
    Java,
    /// Our `aeronmd`.
    Rust,
}

/// Driver settings a test needs, applied to either driver (durations as `"2s"`, `"100ms"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct DriverOptions {
    /// Client liveness timeout (default 10 s).
    pub client_liveness_timeout: Option<&'static str>,
    /// Publication unblock timeout (default 15 s; must exceed the client liveness timeout).
    pub publication_unblock_timeout: Option<&'static str>,
    /// Timer interval of the driver conductor's liveness and unblock checks (default 1 s).
    pub timer_interval: Option<&'static str>,
}

impl DriverOptions {
    /// Every setting at the driver's default (usable in `const`s, unlike `default()`).
    pub const DEFAULT: Self =
        Self { client_liveness_timeout: None, publication_unblock_timeout: None, timer_interval: None };

    /// Short timeouts for fault tests: clients time out after 2 s, blocked publications are
    /// unblocked after 3 s, checked every 100 ms.
    pub const FAST_TIMEOUTS: Self = Self {
        client_liveness_timeout: Some("2s"),
        publication_unblock_timeout: Some("3s"),
        timer_interval: Some("100ms"),
    };

    /// (Java system property, environment variable of our driver, value) of each setting.
    fn settings(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        [
            ("aeron.client.liveness.timeout", "AERON_CLIENT_LIVENESS_TIMEOUT", self.client_liveness_timeout),
            (
                "aeron.publication.unblock.timeout",
                "AERON_PUBLICATION_UNBLOCK_TIMEOUT",
                self.publication_unblock_timeout,
            ),
            ("aeron.timer.interval", "AERON_TIMER_INTERVAL", self.timer_interval),
        ]
        .into_iter()
        .filter_map(|(property, env, value)| value.map(|v| (property, env, v)))
        .collect()
    }
}

/// A running media driver of either kind.
pub enum TestDriver {
    Java(JavaDriver),
    Rust(RustDriver),
}

impl TestDriver {
    /// `None` (after a SKIP message) when Java is needed but unavailable.
    pub fn start(kind: DriverKind, options: DriverOptions) -> Option<Self> {
        match kind {
            DriverKind::Java => {
                let mut properties = vec!["-Daeron.term.buffer.sparse.file=true".to_string()];
                for (property, _, value) in options.settings() {
                    properties.push(format!("-D{property}={value}"));
                }
                let properties: Vec<&str> = properties.iter().map(String::as_str).collect();
                JavaDriver::start(&properties).map(Self::Java)
            }
            DriverKind::Rust => {
                let envs: Vec<_> =
                    options.settings().into_iter().map(|(_, env, value)| (env, value)).collect();
                Some(Self::Rust(RustDriver::start(&envs)))
            }
        }
    }

    pub fn aeron_dir(&self) -> &Path {
        match self {
            Self::Java(d) => d.aeron_dir(),
            Self::Rust(d) => d.aeron_dir(),
        }
    }

    /// `kill -9`: the driver dies without any clean-up.
    pub fn kill(&mut self) {
        match self {
            Self::Java(d) => d.kill(),
            Self::Rust(d) => d.kill(),
        }
    }

    /// Clean shutdown: the driver writes its final heartbeat (−1) and exits.
    pub fn stop(&mut self) {
        match self {
            Self::Java(d) => d.stop(),
            Self::Rust(d) => d.stop(),
        }
    }
}

/// Runs `scenario` against a driver of `kind` started with `options`.
pub fn run_with(kind: DriverKind, options: DriverOptions, scenario: fn(&mut TestDriver)) {
    if let Some(mut driver) = TestDriver::start(kind, options) {
        scenario(&mut driver);
    }
}

/// `driver_tests!(scenario, other with OPTIONS, ...)` makes `scenario::java` and
/// `scenario::rust` tests running `fn scenario(&mut TestDriver)` against each driver.
#[allow(unused_macros)]
macro_rules! driver_tests {
    ($($scenario:ident $(with $options:expr)?),* $(,)?) => {$(
        mod $scenario {
            use super::client_support::{DriverKind, DriverOptions, run_with};

            #[allow(unused_variables)]
            fn options() -> DriverOptions {
                let options = DriverOptions::default();
                $(let options = $options;)?
                options
            }

            #[test]
            fn java() {
                run_with(DriverKind::Java, options(), super::$scenario);
            }

            #[test]
            fn rust() {
                run_with(DriverKind::Rust, options(), super::$scenario);
            }
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use driver_tests;

/// Runs multi-process scenario `test` (its exact test name) against a driver of `kind`: in
/// a child started by [`spawn_role`] it runs `roles(role)` instead (children attach to the
/// parent's driver through `AERON_DIR`).
pub fn run_processes(
    test: &str,
    kind: DriverKind,
    options: DriverOptions,
    roles: fn(&str),
    scenario: fn(&str, &mut TestDriver),
) {
    if let Some(role) = role() {
        return roles(&role);
    }
    if let Some(mut driver) = TestDriver::start(kind, options) {
        scenario(test, &mut driver);
    }
}

/// `process_tests!(roles; scenario, other with OPTIONS, ...)` makes `scenario::java` and
/// `scenario::rust` tests running `fn scenario(test_name: &str, &mut TestDriver)` against
/// each driver; the children it spawns (by `test_name`) run `fn roles(role: &str)`.
#[allow(unused_macros)]
macro_rules! process_tests {
    ($roles:ident; $($scenario:ident $(with $options:expr)?),* $(,)?) => {$(
        mod $scenario {
            use super::client_support::{DriverKind, DriverOptions, run_processes};

            #[allow(unused_variables)]
            fn options() -> DriverOptions {
                let options = DriverOptions::default();
                $(let options = $options;)?
                options
            }

            #[test]
            fn java() {
                let test = concat!(stringify!($scenario), "::java");
                run_processes(test, DriverKind::Java, options(), super::$roles, super::$scenario);
            }

            #[test]
            fn rust() {
                let test = concat!(stringify!($scenario), "::rust");
                run_processes(test, DriverKind::Rust, options(), super::$roles, super::$scenario);
            }
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use process_tests;

/// A Java `Interop pub|sub` peer.
pub struct JavaPeer {
    pub child: Child,
    pub output: LineReader,
}

impl JavaPeer {
    pub fn start(
        aeron_dir: &Path,
        mode: &str,
        channel: &str,
        stream_id: i32,
        count: u64,
        length: usize,
    ) -> Self {
        let mut child = java_command(aeron_dir, &[])
            .args([mode, channel, &stream_id.to_string(), &count.to_string(), &length.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn java peer");
        let output = LineReader::spawn(child.stdout.take().unwrap());
        Self { child, output }
    }

    /// Waits for the peer to exit successfully and returns its output.
    pub fn finish(mut self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait java peer") {
                std::thread::sleep(Duration::from_millis(100));
                assert!(status.success(), "java peer failed ({status}): {:?}", self.output.lines());
                return self.output.lines();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("java peer did not finish within {timeout:?}: {:?}", self.output.lines());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for JavaPeer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Errors the client reported to its error handler.
#[derive(Clone, Default)]
pub struct ErrorLog(Arc<Mutex<Vec<Error>>>);

impl ErrorLog {
    pub fn errors(&self) -> Vec<Error> {
        self.0.lock().unwrap().clone()
    }
}

/// A context for `aeron_dir` with a short idle sleep and an error handler feeding `log`.
pub fn context(aeron_dir: &Path, log: &ErrorLog) -> Context {
    let mut ctx = Context::default();
    let sink = Arc::clone(&log.0);
    ctx.set_aeron_dir(aeron_dir)
        .set_idle_sleep_duration(Duration::from_millis(1))
        .set_error_handler(move |e| sink.lock().unwrap().push(e.clone()));
    ctx
}

/// A child role's client, connected to the driver of the `AERON_DIR` its parent set.
pub fn connect_from_env(log: &ErrorLog) -> aeronrs::client::Aeron {
    let dir = std::env::var("AERON_DIR").expect("AERON_DIR set by the parent");
    aeronrs::client::Aeron::connect(context(dir.as_ref(), log)).expect("connect")
}

/// Bytes `k & 0xFF` for k in 0..len: message i's bytes 8.. are a slice of it starting at
/// `(i + 8) & 0xFF`, so filling and checking are memcpy/memcmp.
fn with_pattern<R>(length: usize, f: impl FnOnce(&[u8]) -> R) -> R {
    thread_local! {
        static PATTERN: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    PATTERN.with(|pattern| {
        let mut pattern = pattern.borrow_mut();
        if pattern.len() < length + 256 {
            *pattern = (0..length + 256).map(|k| (k & 0xFF) as u8).collect();
        }
        f(&pattern)
    })
}

/// Interop message `i` of `length` bytes: bytes 0..8 = i (LE), byte j ≥ 8 = (i + j) & 0xFF.
pub fn fill(buffer: &mut [u8], i: u64) {
    let start = if buffer.len() >= 8 {
        buffer[..8].copy_from_slice(&i.to_le_bytes());
        8
    } else {
        0
    };
    let length = buffer.len();
    with_pattern(length, |pattern| {
        let from = ((i + start as u64) & 0xFF) as usize;
        buffer[start..].copy_from_slice(&pattern[from..from + length - start]);
    });
}

/// Checks `message` is interop message `i` of `length` bytes.
pub fn verify(message: &[u8], i: u64, length: usize) -> Result<(), String> {
    if message.len() != length {
        return Err(format!("message {i}: length {} != {length}", message.len()));
    }
    if length >= 8 {
        let got = u64::from_le_bytes(message[..8].try_into().unwrap());
        if got != i {
            return Err(format!("message {i}: sequence {got}"));
        }
    }
    let start = if length >= 8 { 8 } else { 0 };
    with_pattern(length, |pattern| {
        let from = ((i + start as u64) & 0xFF) as usize;
        let expected = &pattern[from..from + length - start];
        if &message[start..] == expected {
            return Ok(());
        }
        let j = message[start..].iter().zip(expected).position(|(a, b)| a != b).unwrap_or(0) + start;
        Err(format!("message {i}: byte {j} is {}", message[j]))
    })
}

/// Polls `done` (yielding) until it is true, panicking with `what` after `timeout`.
pub fn wait_until(timeout: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A child process running this test binary in a role. Killed (`kill -9`) when dropped
/// while still running, so a failing test leaves no process behind.
pub struct RoleChild {
    child: Child,
    output: Option<LineReader>,
    what: String,
}

impl RoleChild {
    /// Waits for a line of the child's output starting with `prefix` (children started with
    /// [`spawn_role_captured`] only).
    pub fn wait_for(&mut self, prefix: &str, timeout: Duration) -> String {
        let output = self.output.as_ref().expect("output captured");
        output.wait_for(prefix, timeout, &mut self.child)
    }

    /// `kill -9`, then reap.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the child to exit successfully within `timeout`, killing it otherwise.
    pub fn finish(&mut self, timeout: Duration) {
        let what = self.what.clone();
        wait_child(&mut self.child, &what, timeout);
    }
}

impl std::ops::Deref for RoleChild {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.child
    }
}

impl std::ops::DerefMut for RoleChild {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for RoleChild {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

fn role_command(test_name: &str, role: &str, envs: &[(&str, String)]) -> Command {
    let exe = std::env::current_exe().expect("current exe");
    let mut command = Command::new(exe);
    // Quiet: the harness prints no "test … " prefix, so the role's lines start its output lines.
    command
        .args(["--exact", &exact_test_name(test_name), "--nocapture", "--test-threads", "1", "-q"])
        .env(ROLE_ENV, role);
    for (key, value) in envs {
        command.env(key, value);
    }
    command
}

/// Re-runs this test binary as a child executing test `test_name` with `ROLE_ENV=role`.
pub fn spawn_role(test_name: &str, role: &str, envs: &[(&str, String)]) -> RoleChild {
    let child = role_command(test_name, role, envs).spawn().expect("spawn child role");
    RoleChild { child, output: None, what: format!("{role} process") }
}

/// As [`spawn_role`], reading the child's stdout lines for [`RoleChild::wait_for`].
pub fn spawn_role_captured(test_name: &str, role: &str, envs: &[(&str, String)]) -> RoleChild {
    let mut child =
        role_command(test_name, role, envs).stdout(Stdio::piped()).spawn().expect("spawn child role");
    let output = Some(LineReader::spawn(child.stdout.take().unwrap()));
    RoleChild { child, output, what: format!("{role} process") }
}

/// The role this process was started in, if it is a child.
pub fn role() -> Option<String> {
    std::env::var(ROLE_ENV).ok()
}

/// Waits for a child role to exit successfully within `timeout`, killing it otherwise.
pub fn wait_child(child: &mut Child, what: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("wait child") {
            assert!(status.success(), "{what} failed ({status})");
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads environment variable `name` (set by the parent for a child role) as a number.
pub fn env_u64(name: &str) -> u64 {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set")).parse().expect("a number")
}

/// `name` as the test harness knows it in this binary: when the test file that includes this
/// module is itself one module of a combined test binary (tests/suite.rs), its tests' names
/// start with that file's module, which `module_path!()` (`<crate>[::<file>]::<this module>`)
/// tells.
fn exact_test_name(name: &str) -> String {
    let path: Vec<&str> = module_path!().split("::").collect();
    let mut segments = path[1..path.len() - 1].to_vec();
    segments.push(name);
    segments.join("::")
}
