//! `AERON_CONDUCTOR_CPU_AFFINITY`, `AERON_SENDER_CPU_AFFINITY` and
//! `AERON_RECEIVER_CPU_AFFINITY` pin the driver's agent threads, embedded and in `aeronmd`,
//! as Aeron's affinity on-start function does: seen in `/proc/<pid>/task/<tid>/status`. A
//! CPU that cannot be used is a warning in the error log and the driver runs on.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::cnc::CncFile;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use raw_client::test_context;

const WAIT: Duration = Duration::from_secs(20);

/// The CPUs this process may run on, from `Cpus_allowed_list` (e.g. `0-1,4`).
fn allowed_cpus(status: &str) -> Vec<usize> {
    let list =
        status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("Cpus_allowed_list").trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// Thread name → allowed CPUs, for every thread of `pid`.
fn thread_cpus(pid: u32) -> Vec<(String, Vec<usize>)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(|t| {
            let path = t.ok()?.path();
            let name = std::fs::read_to_string(path.join("comm")).ok()?.trim().to_string();
            let status = std::fs::read_to_string(path.join("status")).ok()?;
            Some((name, allowed_cpus(&status)))
        })
        .collect()
}

/// Two CPUs this process may use (the same one twice on a one-CPU box).
fn two_cpus() -> (usize, usize) {
    let cpus = allowed_cpus(&std::fs::read_to_string("/proc/self/status").unwrap());
    (cpus[0], *cpus.last().unwrap())
}

/// Waits until the threads of `pid` named as `expected` says are each pinned to its CPU.
fn wait_for_pinned(pid: u32, expected: &[(&str, usize)]) {
    let deadline = Instant::now() + WAIT;
    loop {
        let threads = thread_cpus(pid);
        let pinned = |(name, cpu): &(&str, usize)| threads.iter().any(|(n, c)| n == name && c == &[*cpu]);
        if expected.iter().all(pinned) {
            return;
        }
        assert!(Instant::now() < deadline, "threads {threads:?}, expected {expected:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn embedded_driver_pins_each_agent_thread() {
    let (first, last) = two_cpus();
    let tmp = tempfile::tempdir().unwrap();
    for (mode, expected) in [
        (ThreadingMode::Dedicated, vec![("conductor", first), ("sender", last), ("receiver", first)]),
        // Thread names are cut at 15 bytes, as Linux keeps them.
        (ThreadingMode::SharedNetwork, vec![("conductor", first), ("[sender, receiv", last)]),
        (ThreadingMode::Shared, vec![("[conductor, sen", first)]),
    ] {
        let dir = tmp.path().join(format!("{mode:?}"));
        let mut ctx = DriverContext { threading_mode: mode, ..test_context(&dir) };
        ctx.agents.conductor_cpu_affinity = first as i32;
        ctx.agents.sender_cpu_affinity = last as i32;
        ctx.agents.receiver_cpu_affinity = first as i32;
        let driver = MediaDriver::launch(ctx).unwrap();
        wait_for_pinned(std::process::id(), &expected);
        drop(driver);
    }
}

#[test]
fn a_cpu_that_cannot_be_used_is_a_warning_and_the_driver_runs_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = DriverContext { threading_mode: ThreadingMode::Dedicated, ..test_context(&dir) };
    ctx.agents.conductor_cpu_affinity = 255; // in range for the setting, absent on this box
    let _driver = MediaDriver::launch(ctx).unwrap();
    let cnc = CncFile::map_existing(&dir.join("cnc.dat")).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let mut warned = false;
        aeronrs::concurrent::error_log::read(cnc.error_log_buffer().unwrap(), 0, |e| {
            warned |= String::from_utf8_lossy(e.encoded_error)
                .contains("WARNING: unable to apply affinity 255 to conductor");
        })
        .unwrap();
        if warned {
            break;
        }
        assert!(Instant::now() < deadline, "no affinity warning in the error log");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Still serving.
    let mut client = raw_client::RawClient::connect(&dir);
    let id = client.add_publication("aeron:ipc", 7, false);
    client.expect_correlated(id);
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn aeronmd_pins_its_agent_threads_from_the_environment() {
    let (first, last) = two_cpus();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let child = Command::new(env!("CARGO_BIN_EXE_aeronmd"))
        .env("AERON_DIR", &dir)
        .env("AERON_DIR_DELETE_ON_SHUTDOWN", "true")
        .env("AERON_THREADING_MODE", "DEDICATED")
        .env("AERON_CONDUCTOR_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_SENDER_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_RECEIVER_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_CONDUCTOR_CPU_AFFINITY", first.to_string())
        .env("AERON_SENDER_CPU_AFFINITY", last.to_string())
        .env("AERON_RECEIVER_CPU_AFFINITY", last.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let child = KillOnDrop(child);
    wait_for_pinned(child.0.id(), &[("conductor", first), ("sender", last), ("receiver", last)]);
    assert!(Path::new(&dir).join("cnc.dat").exists());
}
