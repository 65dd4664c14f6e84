//! The monitoring tools as users run them: the real `aeron-stat`, `aeron-errors` and
//! `aeron-loss` binaries against (a) files made by real Aeron 1.48 (golden vectors; the
//! output must equal what Aeron's own tools printed for them), (b) our driver with known
//! counters, a provoked error and a lossy UDP stream, (c) no driver, and (d) a Java media
//! driver when the interop jar can be built.

mod common;
#[path = "support/java_procs.rs"]
mod java_procs;
#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{MediaDriver, ThreadingMode};
use aeronrs::tools::loss::LOSS_HEADER;
use aeronrs::tools::stat::CLEAR_SCREEN;
use raw_client::RawClient;

const STAT: &str = env!("CARGO_BIN_EXE_aeron-stat");
const ERRORS: &str = env!("CARGO_BIN_EXE_aeron-errors");
const LOSS: &str = env!("CARGO_BIN_EXE_aeron-loss");
const DRIVER_TOOL: &str = env!("CARGO_BIN_EXE_aeron-driver-tool");
const AERONMD: &str = env!("CARGO_BIN_EXE_aeronmd");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `tool` with `args` in UTC (so dates compare with the vectors), killing it after
/// 30 s.
fn run(tool: &str, args: &[&str]) -> Run {
    let mut child = Command::new(tool)
        .args(args)
        .env("TZ", "UTC")
        .env_remove("AERON_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tool} {args:?} still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn dir_arg(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

/// A temp Aeron directory holding vector `cnc` as `cnc.dat` (and `loss` as the loss report).
fn vector_dir(cnc: &str, loss: Option<&str>) -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cnc.dat"), common::read_vector(cnc)?).unwrap();
    if let Some(loss) = loss {
        std::fs::write(dir.path().join("loss-report.dat"), common::read_vector(loss)?).unwrap();
    }
    Some(dir)
}

// ---- (a) real Aeron 1.48 files: output identical to Aeron's tools ----

#[test]
fn aeron_stat_prints_a_c_driver_cnc_as_aeron_stat_did() {
    for name in ["cnc-fresh", "cnc-with-clients"] {
        let Some(dir) = vector_dir(&format!("{name}.dat.gz"), None) else { return };
        let expected = common::read_vector_text(&format!("{name}.aeronstat.txt")).unwrap();
        let r = run(STAT, &["-d", &dir_arg(dir.path()), "-w", "false"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let (header, rest) = r.stdout.split_once('\n').unwrap();
        let (expected_header, expected_rest) = expected.split_once('\n').unwrap();
        // Only the time and the heartbeat age differ from the moment Aeron's tool ran.
        let pid = if name == "cnc-fresh" { 24528 } else { 24547 };
        assert!(
            header.contains(&format!(" - Aeron Stat (CnC v0.2.0), pid {pid}, heartbeat age ")),
            "{header}"
        );
        assert!(expected_header.contains(&format!(" - Aeron Stat (CnC v0.2.0), pid {pid}, heartbeat age ")));
        assert_eq!(rest, expected_rest, "{name}: counters differ from AeronStat's output");
        assert!(
            r.stderr.contains("WARNING: the driver heartbeat in")
                && r.stderr.contains("the driver is not running"),
            "a dead driver's file is shown with a warning: {}",
            r.stderr
        );
    }
}

#[test]
fn aeron_stat_filters_a_c_driver_cnc() {
    let Some(dir) = vector_dir("cnc-with-clients.dat.gz", None) else { return };
    let lines = |args: &[&str]| {
        let mut all = vec!["-d".to_string(), dir_arg(dir.path()), "-w".into(), "false".into()];
        all.extend(args.iter().map(|a| a.to_string()));
        let r = run(STAT, &all.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout.lines().skip(2).map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&["type=^1$"]),
        [
            " 46 :               32,768 - pub-lmt: 6 1698638129 1001 aeron:ipc ",
            " 52 :               33,024 - pub-lmt: 8 1698638130 1002 aeron:udp?endpoint=127.0.0.1:20121 ",
        ]
    );
    // Java semantics: the type pattern is found in the id, so "4" alone would also show type 14.
    assert_eq!(
        lines(&["type=^4$", "stream=1002"]),
        [" 58 :                  256 - sub-pos: 4 1698638130 1002 aeron:udp?endpoint=127.0.0.1:20121 @0"]
    );
    assert_eq!(lines(&["--type", "^0$", "--identity", "^3[45]$"]).len(), 2);
    let channel = lines(&["type=^[67]$", "channel=20121"]);
    assert_eq!(channel.len(), 2, "{channel:?}");
    assert!(channel[0].starts_with(" 41 :                    1 - rcv-channel: "));
}

#[test]
fn aeron_errors_prints_a_c_driver_error_log_as_error_stat_did() {
    let Some(dir) = vector_dir("cnc-with-errors.dat.gz", None) else { return };
    let expected = common::read_vector_text("cnc-with-errors.errorstat.txt").unwrap();
    let r = run(ERRORS, &["-d", &dir_arg(dir.path())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected);
    assert!(r.stdout.starts_with("***\n2 observations from 2026-11-29 14:30:27.767+0000 to 2026-11-29 14:30:28.443+0000 for:\n (22) Invalid argument\n"));
    assert!(r.stdout.ends_with("\n\n3 distinct errors observed.\n"));
    // The same log read as a plain file at its offset in cnc.dat (spec: 7 341 056).
    let r = run(ERRORS, &["-f", &dir_arg(&dir.path().join("cnc.dat")), "-o", "7341056"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, expected.as_str()), "{}", r.stderr);
}

#[test]
fn aeron_loss_prints_a_c_driver_loss_report_as_loss_stat_did() {
    let Some(dir) = vector_dir("cnc-fresh.dat.gz", Some("udp-loss.loss-report.dat.gz")) else { return };
    let expected = common::read_vector_text("udp-loss.subdriver.lossstat.txt").unwrap();
    let r = run(LOSS, &["-d", &dir_arg(dir.path())]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected);
    assert_eq!(
        r.stdout.lines().nth(1).unwrap(),
        "13,16896,2026-11-29 14:30:17.371+0000,2026-11-29 14:30:17.415+0000,1606141585,1002,\
         aeron:udp?endpoint=127.0.0.1:20121,127.0.0.1:20122"
    );
}

// ---- (b) our driver ----

fn launch(dir: &Path) -> MediaDriver {
    MediaDriver::launch(udp_pair::context(dir, ThreadingMode::Shared)).unwrap()
}

#[test]
fn aeron_stat_shows_our_drivers_counters_live() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut driver = launch(&dir);
    let mut client = RawClient::connect(&dir);
    let add = client.add_counter(1001, &42i64.to_le_bytes(), "tools test counter");
    let Response::CounterReady(ready) = client.expect_correlated(add).response() else { panic!("counter") };
    let counter_id = ready.counter_id;
    client.cnc.set_counter_value(counter_id, 1_234_567);
    let publication = client.add_publication("aeron:ipc?term-length=65536", 1001, false);
    let record = client.expect_correlated(publication);
    let Response::PublicationReady(ready) = record.response() else { panic!("publication") };
    let limit_id = ready.position_limit_counter_id;

    let r = run(STAT, &["-d", &dir_arg(&dir), "-w", "false"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "", "a live driver draws no warning");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].contains(&format!(" - Aeron Stat (CnC v0.2.0), pid {}, heartbeat age ", std::process::id()))
    );
    assert_eq!(lines[1], "===========================");
    assert_eq!(lines[2], "  0 :                    0 - Bytes sent");
    assert!(
        lines.contains(&format!("{counter_id:3} : {:>20} - tools test counter", "1,234,567").as_str()),
        "{lines:?}"
    );
    let limit_line = lines.iter().find(|l| l.starts_with(&format!("{limit_id:3} : "))).unwrap();
    assert!(limit_line.contains(&format!(" - pub-lmt: {publication} ")), "{limit_line}");
    assert!(!r.stdout.contains(CLEAR_SCREEN), "no screen clearing without watch");

    // Filtered to the client's counter type, printed twice 10 ms apart as a watch would.
    let r = run(STAT, &["-d", &dir_arg(&dir), "-u", "10", "--count", "2", "type=^1001$"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let screens: Vec<&str> = r.stdout.split(CLEAR_SCREEN).collect();
    assert_eq!(screens.len(), 3, "cleared twice: {:?}", r.stdout);
    for screen in &screens[1..] {
        let lines: Vec<&str> = screen.lines().collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[2], format!("{counter_id:3} : {:>20} - tools test counter", "1,234,567"));
    }
    client.close();
    driver.close().unwrap();
}

#[test]
fn aeron_errors_shows_an_error_our_driver_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut driver = launch(&dir);
    let r = run(ERRORS, &["-d", &dir_arg(&dir)]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "\n0 distinct errors observed.\n"), "{}", r.stderr);

    let mut client = RawClient::connect(&dir);
    for _ in 0..2 {
        let bad = client.add_publication("aeron:udp?endpoint=bad:xx", 1001, false);
        let (_, message) = client.expect_error(bad);
        assert!(message.contains("bad:xx"), "{message}");
    }
    let r = run(ERRORS, &["-d", &dir_arg(&dir)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("***\n2 observations from "), "{}", r.stdout);
    let first_line_end = r.stdout[4..].find('\n').unwrap() + 4;
    assert!(r.stdout[..first_line_end].ends_with(" for:"), "{}", r.stdout);
    assert!(r.stdout.contains("bad:xx"), "{}", r.stdout);
    assert!(r.stdout.ends_with("\n\n1 distinct errors observed.\n"), "{}", r.stdout);
    client.close();
    driver.close().unwrap();
}

#[test]
fn aeron_loss_shows_the_loss_our_receiver_reported() {
    let mut p = udp_pair::pair_with_loss(ThreadingMode::Shared, Some("rate=0.2|seed=7|recv-msg-mask=0x2"));
    let port = udp_pair::free_port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let (publication, mut image, _) = udp_pair::connect(&mut p, &channel, 1002);
    udp_pair::exchange(&publication, &mut image, 2_000, 200);
    let sub_dir = p.sub_driver.aeron_dir().clone();
    let pub_dir = p.pub_driver.aeron_dir().clone();

    let r = run(LOSS, &["-d", &dir_arg(&sub_dir)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], LOSS_HEADER);
    assert_eq!(lines.len(), 3, "one image, one row: {lines:?}");
    assert_eq!(lines[2], "1 entries read");
    let fields: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(fields.len(), 8, "{}", lines[1]);
    let count: i64 = fields[0].parse().unwrap();
    let bytes: i64 = fields[1].parse().unwrap();
    assert!(count > 0 && bytes > 0, "{}", lines[1]);
    assert!(fields[2].ends_with("+0000") && fields[3] >= fields[2], "{}", lines[1]);
    fields[4].parse::<i32>().unwrap();
    assert_eq!((fields[5], fields[6]), ("1002", channel.as_str()));
    assert!(fields[7].starts_with("127.0.0.1:"), "{}", lines[1]);

    // The publisher side received nothing, so lost nothing.
    let r = run(LOSS, &["-d", &dir_arg(&pub_dir)]);
    assert_eq!((r.code, r.stdout), (0, format!("{LOSS_HEADER}\n0 entries read\n")), "{}", r.stderr);
    p.pub_driver.close().unwrap();
    p.sub_driver.close().unwrap();
}

/// A child process killed when dropped, so a failing assertion leaves no driver behind.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn aeron_driver_tool_describes_our_driver_prints_its_pid_and_terminates_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut driver = KillOnDrop(
        std::process::Command::new(AERONMD)
            .env("AERON_DIR", &dir)
            .env("AERON_THREADING_MODE", "SHARED")
            .env("AERON_SHARED_IDLE_STRATEGY", "sleep-ns")
            .env("AERON_DRIVER_TERMINATION_VALIDATOR", "allow")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn aeronmd"),
    );
    let pid = driver.0.id();
    // Ready when its cnc.dat carries its pid.
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid_text = loop {
        let r = run(DRIVER_TOOL, &["-d", &dir_arg(&dir), "-t", "100", "-P"]);
        if r.code == 0 {
            break r.stdout;
        }
        assert!(Instant::now() < deadline, "aeronmd never came up: {}", r.stderr);
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(pid_text, format!("{pid}\n"));
    assert_eq!(run(DRIVER_TOOL, &["-d", &dir_arg(&dir), "pid"]).stdout, pid_text, "Java's spelling");

    let r = run(DRIVER_TOOL, &["-d", &dir_arg(&dir)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0], format!("Command 'n Control cnc_file: {}", dir.join("cnc.dat").display()));
    assert_eq!(
        lines[1],
        format!("Version: {}, PID: {pid}", (2 << 8)),
        "CnC version 0.2.0 as the integer Aeron C prints"
    );
    assert!(lines[2].contains(" (start: ") && lines[2].contains(", activity: "), "{}", lines[2]);
    let age: i64 =
        lines[3].strip_prefix("Heartbeat age: ").unwrap().strip_suffix(" ms").unwrap().parse().unwrap();
    assert!((0..30_000).contains(&age), "{age}");

    let r = run(DRIVER_TOOL, &["-d", &dir_arg(&dir), "-T"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = driver.0.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            panic!("aeronmd still running 30 s after -T");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    // The driver marked its cnc.dat as shut down on the way out.
    let r = run(DRIVER_TOOL, &["-d", &dir_arg(&dir), "-t", "0"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[2].ends_with(", activity: 1969-12-31 23:59:59.999+0000)"), "{}", lines[2]);
    assert_eq!(lines[3], "Heartbeat: the driver has shut down");
}

#[test]
fn each_tool_answers_version() {
    for (tool, name) in [
        (STAT, "aeron-stat"),
        (ERRORS, "aeron-errors"),
        (LOSS, "aeron-loss"),
        (DRIVER_TOOL, "aeron-driver-tool"),
        (AERONMD, "aeronmd"),
    ] {
        let r = run(tool, &["--version"]);
        assert_eq!(r.code, 0, "{tool}");
        assert_eq!(
            r.stdout,
            format!("{name} (aeronrs {}) for Aeron 1.48.0 media drivers\n", env!("CARGO_PKG_VERSION")),
            "{tool}"
        );
    }
}

// ---- (c) no driver, and help ----

#[test]
fn without_a_driver_each_tool_says_so_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = dir_arg(tmp.path());
    for tool in [STAT, ERRORS, LOSS, DRIVER_TOOL] {
        let r = run(tool, &["-d", &empty, "-t", "50"]);
        assert_eq!(r.code, 1, "{tool}");
        assert_eq!(r.stdout, "", "{tool}");
        assert!(
            r.stderr.contains(&format!("no Aeron media driver found in {empty}: "))
                && r.stderr.contains("cnc.dat"),
            "{tool}: {}",
            r.stderr
        );
    }
    // A cnc.dat a driver created but never initialised (version 0), and one of another
    // major version.
    let cnc = tmp.path().join("cnc.dat");
    std::fs::write(&cnc, vec![0u8; 8192]).unwrap();
    let r = run(STAT, &["-d", &empty, "-t", "50"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not initialised"), "{}", r.stderr);
    let mut bytes = vec![0u8; 8192];
    bytes[..4].copy_from_slice(&((1i32 << 16) | (2 << 8)).to_le_bytes());
    std::fs::write(&cnc, bytes).unwrap();
    let r = run(ERRORS, &["-d", &empty, "-t", "50"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("CnC version not compatible"), "{}", r.stderr);
    // A real cnc.dat but no loss report beside it.
    if let Some(dir) = vector_dir("cnc-fresh.dat.gz", None) {
        let r = run(LOSS, &["-d", &dir_arg(dir.path())]);
        assert_eq!(r.code, 1);
        assert!(r.stderr.contains("no loss report at"), "{}", r.stderr);
    }
    // Bad options are errors too, not panics.
    let r = run(STAT, &["-u", "never"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("invalid update interval"), "{}", r.stderr);
}

#[test]
fn each_tool_has_help() {
    for (tool, name) in [
        (STAT, "aeron-stat"),
        (ERRORS, "aeron-errors"),
        (LOSS, "aeron-loss"),
        (DRIVER_TOOL, "aeron-driver-tool"),
    ] {
        for flag in ["--help", "-h"] {
            let r = run(tool, &[flag]);
            assert_eq!(r.code, 0, "{tool}");
            assert!(r.stdout.starts_with(&format!("Usage: {name} [options]")), "{}", r.stdout);
            assert!(r.stdout.contains("-d, --dir <dir>"), "{}", r.stdout);
        }
    }
    assert!(run(STAT, &["-h"]).stdout.contains("type=<pattern>"));
}

// ---- (d) Java's media driver ----

#[test]
fn the_tools_read_a_java_media_driver() {
    let Some(classpath) = java_procs::interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("java-aeron");
    let mut driver = java_procs::java_driver(&classpath, &dir);
    let r = run(STAT, &["-d", &dir_arg(&dir), "-w", "false"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "", "the Java driver heartbeats");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].contains(" - Aeron Stat (CnC v0.2.0), pid "), "{}", lines[0]);
    assert_eq!(lines[2], "  0 :                    0 - Bytes sent");
    assert!(lines.iter().any(|l| l.starts_with(" 15 : ") && l.contains(" - Errors")), "{lines:?}");
    // The interop jar pins its own Aeron release; any version's counter 34 has this label.
    assert!(
        lines.iter().any(|l| l.starts_with(" 34 : ") && l.contains(" - Aeron software: version=")),
        "{lines:?}"
    );
    let r = run(ERRORS, &["-d", &dir_arg(&dir)]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "\n0 distinct errors observed.\n"), "{}", r.stderr);
    driver.stop();
}
