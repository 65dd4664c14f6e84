//! Child-process roles for UDP tests: the test binary re-executes itself with
//! `AERONRS_UDP_ROLE` set, and the child runs an embedded driver plus a publisher or a
//! subscriber, talking to the parent on stdin/stdout. Sender and receiver are thus separate
//! processes with separate drivers, as in a real deployment.
//!
//! Messages: message `i` of length `len` has bytes 0..8 = `i` (little endian) and byte
//! `j >= 8` = `(i + j) & 0xFF`, so the receiver checks every byte and the order.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::idle_strategy::IdleStrategy;

use super::log_client::{BACK_PRESSURED, NOT_CONNECTED, TestImage, TestPublication};
use super::raw_client::RawClient;

pub const ROLE_VAR: &str = "AERONRS_UDP_ROLE";

/// Everything a child needs, passed as environment variables.
#[derive(Debug, Clone)]
pub struct RoleConfig {
    pub role: &'static str,
    pub dir: std::path::PathBuf,
    pub mode: ThreadingMode,
    pub channel: String,
    pub count: u64,
    pub length: usize,
    /// Receiver: pause this long between polls (a slow consumer).
    pub poll_pause_us: u64,
    /// Receiver driver: `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS` for a `loss` interceptor.
    pub loss_args: Option<String>,
    pub term_length: usize,
    pub connection_timeout_ms: u64,
    /// Sender: ADD_DESTINATION of each (a manual multi-destination-cast publication).
    /// Receiver: ADD_RCV_DESTINATION of each (a multi-destination subscription).
    pub destinations: Vec<String>,
    /// Sender: after `READY`, wait for `go` on stdin before offering (e.g. until every
    /// receiver of a dynamic MDC publication has been discovered).
    pub hold: bool,
    /// The driver's logs are sparse files (`term_buffer_sparse_file`), not pre-touched: for
    /// long terms, where touching every page costs more than the test's traffic.
    pub sparse_logs: bool,
    /// Run the child inside this network namespace (`ip netns exec`, a host of
    /// `support/netns.rs`); `None`: in the test's own namespace.
    pub netns: Option<String>,
}

impl RoleConfig {
    pub fn new(role: &'static str, dir: &std::path::Path, mode: ThreadingMode, channel: &str) -> Self {
        Self {
            role,
            dir: dir.to_path_buf(),
            mode,
            channel: channel.to_string(),
            count: 0,
            length: 64,
            poll_pause_us: 0,
            loss_args: None,
            term_length: 16 << 20,
            connection_timeout_ms: 5000,
            destinations: Vec::new(),
            hold: false,
            sparse_logs: false,
            netns: None,
        }
    }

    fn apply(&self, cmd: &mut Command) {
        cmd.env(ROLE_VAR, self.role)
            .env("AERONRS_DIR", &self.dir)
            .env("AERONRS_MODE", self.mode.name())
            .env("AERONRS_CHANNEL", &self.channel)
            .env("AERONRS_COUNT", self.count.to_string())
            .env("AERONRS_LENGTH", self.length.to_string())
            .env("AERONRS_POLL_PAUSE_US", self.poll_pause_us.to_string())
            .env("AERONRS_TERM_LENGTH", self.term_length.to_string())
            .env("AERONRS_CONNECTION_TIMEOUT_MS", self.connection_timeout_ms.to_string())
            .env("AERONRS_DESTINATIONS", self.destinations.join(" "))
            .env("AERONRS_HOLD", if self.hold { "1" } else { "0" })
            .env("AERONRS_SPARSE_LOGS", if self.sparse_logs { "1" } else { "0" });
        if let Some(args) = &self.loss_args {
            cmd.env("AERONRS_LOSS_ARGS", args);
        }
    }

    fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"));
        let role = match var(ROLE_VAR).as_str() {
            "sender" => "sender",
            "receiver" => "receiver",
            other => panic!("unknown role {other}"),
        };
        Self {
            role,
            dir: var("AERONRS_DIR").into(),
            mode: ThreadingMode::parse(&var("AERONRS_MODE")).unwrap(),
            channel: var("AERONRS_CHANNEL"),
            count: var("AERONRS_COUNT").parse().unwrap(),
            length: var("AERONRS_LENGTH").parse().unwrap(),
            poll_pause_us: var("AERONRS_POLL_PAUSE_US").parse().unwrap(),
            loss_args: std::env::var("AERONRS_LOSS_ARGS").ok(),
            term_length: var("AERONRS_TERM_LENGTH").parse().unwrap(),
            connection_timeout_ms: var("AERONRS_CONNECTION_TIMEOUT_MS").parse().unwrap(),
            destinations: var("AERONRS_DESTINATIONS").split_whitespace().map(str::to_string).collect(),
            hold: var("AERONRS_HOLD") == "1",
            sparse_logs: var("AERONRS_SPARSE_LOGS") == "1",
            // The child is already wherever the parent put it.
            netns: None,
        }
    }

    fn driver_context(&self) -> DriverContext {
        let sleep = IdleStrategy::Sleep(Duration::from_micros(100));
        let mut ctx = DriverContext {
            aeron_dir: self.dir.clone(),
            dir_delete_on_shutdown: true,
            dir_delete_on_start: true,
            threading_mode: self.mode,
            shared_idle_strategy: sleep.clone(),
            shared_network_idle_strategy: sleep.clone(),
            conductor_idle_strategy: sleep.clone(),
            sender_idle_strategy: sleep.clone(),
            receiver_idle_strategy: sleep,
            term_buffer_length: self.term_length,
            term_buffer_sparse_file: self.sparse_logs,
            timer_interval_ns: 100_000_000,
            publication_connection_timeout_ns: self.connection_timeout_ms * 1_000_000,
            image_liveness_timeout_ns: 2 * self.connection_timeout_ms * 1_000_000,
            publication_linger_timeout_ns: 1_000_000_000,
            ..DriverContext::default()
        };
        if let Some(args) = &self.loss_args {
            ctx.udp_channel_incoming_interceptors = Some("loss".to_string());
            ctx.udp_channel_loss_args = Some(args.clone());
        }
        ctx
    }
}

pub fn message(i: u64, length: usize) -> Vec<u8> {
    let mut m = vec![0u8; length];
    let n = length.min(8);
    m[..n].copy_from_slice(&i.to_le_bytes()[..n]);
    for (j, b) in m.iter_mut().enumerate().skip(8) {
        *b = (i as usize + j) as u8;
    }
    m
}

fn index_of(message: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = message.len().min(8);
    bytes[..n].copy_from_slice(&message[..n]);
    u64::from_le_bytes(bytes)
}

/// Runs the role named in the environment, if any; returns whether one ran.
pub fn run_role_from_env() -> bool {
    if std::env::var(ROLE_VAR).is_err() {
        return false;
    }
    let config = RoleConfig::from_env();
    match config.role {
        "sender" => run_sender(&config),
        _ => run_receiver(&config),
    }
    true
}

/// Keeps the raw client alive: it writes its heartbeat counter as 1.48 clients do.
struct Keepalive {
    counter_id: i32,
    next: Instant,
}

impl Keepalive {
    /// Finds the client's heartbeat counter (ON_COUNTER_READY with the client id).
    fn new(client: &mut RawClient) -> Self {
        let client_id = client.client_id;
        let record = client.expect(
            "heartbeat counter",
            |r| matches!(r, Response::CounterReady(c) if c.correlation_id == client_id),
        );
        let Response::CounterReady(c) = record.response() else { unreachable!() };
        Self { counter_id: c.counter_id, next: Instant::now() }
    }

    fn tick(&mut self, client: &RawClient) {
        if Instant::now() >= self.next {
            client.heartbeat(self.counter_id);
            self.next = Instant::now() + Duration::from_millis(200);
        }
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

/// Stdin lines, read on their own thread.
fn stdin_lines() -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Sender: publishes `count` messages (forever with count 0) as fast as allowed (with `hold`,
/// from the `go` command on), counting back pressure; then waits for `close` (remove the publication: end of stream) and
/// `exit`. Prints `READY`, `SENT <n> bpe=<back-pressured offers> nc=<not connected>`.
fn run_sender(config: &RoleConfig) {
    let mut driver = MediaDriver::launch(config.driver_context()).unwrap();
    let mut client = RawClient::connect(&config.dir);
    let pub_id = client.add_publication(&config.channel, 1001, false);
    let mut keepalive = Keepalive::new(&mut client);
    let record = client.expect_correlated(pub_id);
    let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
    let publication = TestPublication::map(
        ready.log_file_name_str().unwrap(),
        &client.cnc.counters_values,
        ready.position_limit_counter_id,
    );
    for destination in &config.destinations {
        let id = client.add_destination(pub_id, destination);
        let record = client.expect_correlated(id);
        assert!(matches!(record.response(), Response::OperationSuccess(_)), "{:?}", record.response());
    }
    say("PUBLICATION");
    let commands = stdin_lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !publication.is_connected() {
        assert!(Instant::now() < deadline, "sender never connected");
        keepalive.tick(&client);
        if let Ok(line) = commands.try_recv() {
            if line == "status" {
                say("STATUS sent=0 connected=false");
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    say("READY");
    if config.hold {
        loop {
            keepalive.tick(&client);
            match commands.recv_timeout(Duration::from_millis(100)) {
                Ok(line) if line == "go" => break,
                Ok(line) if line == "status" => {
                    say(&format!("STATUS sent=0 connected={}", publication.is_connected()))
                }
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("stdin closed before go"),
            }
        }
    }
    let (mut sent, mut back_pressured, mut not_connected) = (0u64, 0u64, 0u64);
    let mut stop = false;
    while !stop && (config.count == 0 || sent < config.count) {
        let result = publication.offer(&message(sent, config.length));
        match result {
            BACK_PRESSURED => {
                back_pressured += 1;
                std::thread::yield_now();
            }
            NOT_CONNECTED => {
                not_connected += 1;
                std::thread::sleep(Duration::from_micros(100));
            }
            _ => sent += 1,
        }
        if result < 0 || sent % 1024 == 0 {
            keepalive.tick(&client);
            match commands.try_recv() {
                Ok(line) if line == "stop" => stop = true,
                Ok(line) if line == "status" => {
                    say(&format!("STATUS sent={sent} connected={}", publication.is_connected()))
                }
                _ => {}
            }
        }
    }
    say(&format!("SENT {sent} bpe={back_pressured} nc={not_connected}"));
    loop {
        keepalive.tick(&client);
        let line = match commands.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match line.as_str() {
            "close" => {
                let id = client.remove_publication(pub_id);
                client.expect_correlated(id);
                say("CLOSED");
            }
            "status" => say(&format!("STATUS sent={sent} connected={}", publication.is_connected())),
            "offer" => say(&format!("OFFER {}", publication.offer(&message(sent, config.length)))),
            "counters" => {
                let c = &client.cnc;
                say(&format!(
                    "COUNTERS naks_received={} retransmits={} sm_received={} heartbeats_sent={}",
                    c.system_counter(6),
                    c.system_counter(11),
                    c.system_counter(8),
                    c.system_counter(9)
                ))
            }
            "exit" => break,
            _ => {}
        }
    }
    driver.close().unwrap();
    say("EXITED");
}

/// Receiver: subscribes, checks every message (contiguous from the first one seen, intact),
/// and prints `IMAGE first=<index>` on the first, then `DONE <n>` after `count` messages or
/// `EOS <n>` at end of stream. Then waits for `exit`.
fn run_receiver(config: &RoleConfig) {
    let mut driver = MediaDriver::launch(config.driver_context()).unwrap();
    let mut client = RawClient::connect(&config.dir);
    let sub_id = client.add_subscription(&config.channel, 1001);
    let mut keepalive = Keepalive::new(&mut client);
    client.expect_correlated(sub_id);
    for destination in &config.destinations {
        let id = client.add_rcv_destination(sub_id, destination);
        let record = client.expect_correlated(id);
        assert!(matches!(record.response(), Response::OperationSuccess(_)), "{:?}", record.response());
    }
    let commands = stdin_lines();
    say("READY");
    let deadline = Instant::now() + Duration::from_secs(60);
    let image = loop {
        keepalive.tick(&client);
        client.poll();
        if let Some(i) =
            client.received.iter().position(|r| matches!(r.response(), Response::AvailableImage(_)))
        {
            break client.received.remove(i);
        }
        assert!(Instant::now() < deadline, "no image");
        std::thread::sleep(Duration::from_millis(1));
    };
    let Response::AvailableImage(ready) = image.response() else { unreachable!() };
    let mut image = TestImage::map(
        ready.log_file_name_str().unwrap(),
        &client.cnc.counters_values,
        ready.subscriber_position_id,
    );
    say(&format!("IMAGE source={}", ready.source_identity_str().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut next_expected: Option<u64> = None;
    let mut total = 0u64;
    let receiver_counters = |c: &super::raw_client::Cnc| {
        format!(
            "COUNTERS naks_sent={} invalid={} sm_sent={} overruns={} underruns={} kernel_drops={}",
            c.system_counter(5),
            c.system_counter(14),
            c.system_counter(7),
            c.system_counter(13),
            c.system_counter(12),
            kernel_receive_drops()
        )
    };
    let mut polls = 0u64;
    // Commands meant for after the stream wait their turn.
    let mut deferred = std::collections::VecDeque::new();
    loop {
        assert!(Instant::now() < deadline, "receiver timed out after {total} messages");
        keepalive.tick(&client);
        polls += 1;
        if polls % 64 == 0 {
            while let Ok(line) = commands.try_recv() {
                match line.as_str() {
                    "status" => say(&format!("STATUS received={total} next={}", next_expected.unwrap_or(0))),
                    "counters" => say(&receiver_counters(&client.cnc)),
                    _ => deferred.push_back(line),
                }
            }
        }
        let fragments = image.poll(if config.poll_pause_us > 0 { 4 } else { 512 });
        for m in image.received.borrow_mut().drain(..) {
            let expected = *next_expected.get_or_insert_with(|| {
                let first = index_of(&m);
                say(&format!("FIRST {first}"));
                first
            });
            assert!(
                m == message(expected, config.length),
                "message {expected} differs (got index {})",
                index_of(&m)
            );
            next_expected = Some(expected + 1);
            total += 1;
        }
        // Done once message `count - 1` arrived: all of them for a receiver that joined
        // at the start, the rest of them for one that joined later.
        if config.count > 0 && next_expected.is_some_and(|next| next >= config.count) {
            say(&format!("DONE {total}"));
            break;
        }
        if image.is_end_of_stream() {
            say(&format!("EOS {total}"));
            break;
        }
        if fragments == 0 || config.poll_pause_us > 0 {
            std::thread::sleep(Duration::from_micros(config.poll_pause_us.max(100)));
        }
    }
    say(&receiver_counters(&client.cnc));
    loop {
        keepalive.tick(&client);
        let next = match deferred.pop_front() {
            Some(line) => Ok(line),
            None => commands.recv_timeout(Duration::from_millis(100)),
        };
        let line = match next {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match line.as_str() {
            "unavailable" => {
                client.expect("unavailable image", |r| matches!(r, Response::UnavailableImage(_)));
                say("UNAVAILABLE");
            }
            "status" => say(&format!("STATUS received={total} next={}", next_expected.unwrap_or(0))),
            "counters" => say(&receiver_counters(&client.cnc)),
            "exit" => break,
            _ => {}
        }
    }
    driver.close().unwrap();
    say("EXITED");
}

/// A child process whose stdout lines arrive on a channel; killed if dropped running.
pub struct Proc {
    pub name: String,
    pub child: Child,
    lines: mpsc::Receiver<String>,
}

impl Proc {
    /// Re-executes this test binary (test `entry`) in the role `config` describes, inside
    /// `config.netns` if set.
    pub fn spawn(entry: &str, config: &RoleConfig) -> Proc {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = match &config.netns {
            Some(ns) => {
                // `ip netns exec` execs the binary: the child's pid is the role's.
                let mut cmd = Command::new("ip");
                cmd.args(["netns", "exec", ns]).arg(exe);
                cmd
            }
            None => Command::new(exe),
        };
        cmd.args(["--exact", &exact_test_name(entry), "--nocapture", "--test-threads=1"]);
        config.apply(&mut cmd);
        let mut name = format!("{} {}", config.role, config.mode.name());
        if let Some(ns) = &config.netns {
            name = format!("{name} in {ns}");
        }
        Proc::spawn_command(name, cmd)
    }

    /// Spawns `cmd` with piped stdin and stdout (stderr inherited); `name` is for messages.
    pub fn spawn_command(name: String, mut cmd: Command) -> Proc {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {name}: {e}"));
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Proc { name, child, lines }
    }

    /// Waits for a line starting with `prefix` and returns it; the panic for a timeout shows
    /// the last lines passed over while waiting.
    pub fn expect(&self, prefix: &str, timeout: Duration) -> String {
        self.try_expect(prefix, timeout).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Proc::expect`] returning the timeout's description instead of panicking, so a
    /// caller can gather the other processes' state first.
    pub fn try_expect(&self, prefix: &str, timeout: Duration) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        let mut skipped = std::collections::VecDeque::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                // The test harness may have printed "test child_role ... " on the same line.
                Ok(line) if line.contains(prefix) => {
                    return Ok(line[line.find(prefix).unwrap_or(0)..].to_string());
                }
                Ok(line) => {
                    if skipped.len() == 20 {
                        skipped.pop_front();
                    }
                    skipped.push_back(line);
                }
                Err(_) => {
                    return Err(format!(
                        "{}: no line starting with {prefix:?} within {timeout:?}; lines passed over: {skipped:?}",
                        self.name
                    ));
                }
            }
        }
    }

    /// The process's `STATUS` and `COUNTERS` lines (or why they did not come), for a
    /// failure message; a role answers `counters` only in some phases.
    pub fn report(&mut self) -> String {
        if self.child.try_wait().ok().flatten().is_some() {
            return format!("{}: exited", self.name);
        }
        self.tell("status");
        self.tell("counters");
        let status = self.try_expect("STATUS", Duration::from_secs(10)).unwrap_or_else(|e| e);
        let counters = self.try_expect("COUNTERS", Duration::from_secs(2)).unwrap_or_else(|e| e);
        format!("{}: {status}; {counters}", self.name)
    }

    pub fn tell(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.kill();
        }
    }
}

/// A field `key=<number>` of a status line.
/// The datagrams the kernel dropped on the way in, in this process's network namespace:
/// UDP's `InErrors` (`/proc/net/snmp`: no receive buffer space, bad checksums) and every
/// interface's `rx_dropped` (a veth whose receive backlog was full). `ip netns exec` mounts
/// the namespace's own `/sys`, so these count this host's drops only; 0 where unreadable.
/// A receiver that lost these has gaps to NAK that no interceptor made.
fn kernel_receive_drops() -> u64 {
    let snmp = std::fs::read_to_string("/proc/net/snmp").unwrap_or_default();
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let udp_errors = match (udp.next(), udp.next()) {
        (Some(names), Some(values)) => names
            .split_whitespace()
            .zip(values.split_whitespace())
            .find(|(name, _)| *name == "InErrors")
            .and_then(|(_, value)| value.parse().ok())
            .unwrap_or(0),
        _ => 0,
    };
    let interfaces = std::fs::read_dir("/sys/class/net").into_iter().flatten().flatten();
    let rx_dropped: u64 = interfaces
        .filter_map(|i| std::fs::read_to_string(i.path().join("statistics/rx_dropped")).ok())
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .sum();
    udp_errors + rx_dropped
}

pub fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
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
