//! Shared by the multi-process bus tests: re-executing the test binary as a child in a role,
//! waiting for children within a time bound, and self-checking record payloads.
#![allow(dead_code)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::mappedbus::{MappedBusReader, MappedBusWriter, Position, WriteOutcome};

/// Set in a child: the role it plays (the test function checks it first).
pub const ROLE_VAR: &str = "AERONRS_BUS_TEST_ROLE";

/// The role this process was started in, if it is a child.
pub fn child_role() -> Option<String> {
    std::env::var(ROLE_VAR).ok()
}

/// A numeric setting passed to a child.
pub fn env_u64(name: &str) -> u64 {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set")).parse().unwrap()
}

pub fn env_string(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"))
}

/// Re-runs this test binary as a child running only `test` in `role`, stdout piped.
pub fn spawn_child(test: &str, role: &str, vars: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("test binary path");
    let mut command = Command::new(exe);
    command
        .args(["--exact", &exact_test_name(test), "--nocapture", "--test-threads=1"])
        .env(ROLE_VAR, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in vars {
        command.env(name, value);
    }
    command.spawn().expect("spawn child test process")
}

/// Waits for every child to exit successfully within `limit` and returns their stdout;
/// kills them all and fails the test otherwise.
pub fn wait_all(mut children: Vec<(String, Child)>, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut outputs = vec![None; children.len()];
    while outputs.iter().any(Option::is_none) {
        for (i, (name, child)) in children.iter_mut().enumerate() {
            if outputs[i].is_some() {
                continue;
            }
            if let Some(status) = child.try_wait().unwrap() {
                let mut out = String::new();
                child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
                assert!(status.success(), "child {name} failed ({status}); stdout:\n{out}");
                outputs[i] = Some(out);
            }
        }
        if Instant::now() > deadline {
            for (_, child) in &mut children {
                let _ = child.kill();
                let _ = child.wait();
            }
            panic!("children did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    outputs.into_iter().map(Option::unwrap).collect()
}

/// The value after `key=` in the line of `output` holding `prefix`.
pub fn reported(output: &str, prefix: &str, key: &str) -> u64 {
    // The test harness may have printed "test name ... " on the same line first.
    let line = output
        .lines()
        .find_map(|l| l.find(prefix).map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no {prefix} in:\n{output}"));
    let field = line.split_whitespace().find_map(|w| w.strip_prefix(key).and_then(|w| w.strip_prefix('=')));
    field.unwrap_or_else(|| panic!("no {key} in {line}")).parse().unwrap()
}

/// Payload of record `seq` of writer `writer`: writer id, sequence, then a pattern that
/// depends on both, 12 to 40 bytes long.
pub fn payload(writer: u32, seq: u64, buf: &mut [u8; 40]) -> usize {
    let length = 12 + ((seq * 13 + u64::from(writer)) % 29) as usize;
    buf[..4].copy_from_slice(&writer.to_le_bytes());
    buf[4..12].copy_from_slice(&seq.to_le_bytes());
    for (i, b) in buf[12..length].iter_mut().enumerate() {
        *b = (u64::from(writer) * 31 + seq * 7 + i as u64) as u8;
    }
    length
}

/// Decodes and checks a payload made by [`payload`]; panics on a torn or foreign record.
pub fn check_payload(bytes: &[u8]) -> (u32, u64) {
    assert!(bytes.len() >= 12, "payload of {} bytes", bytes.len());
    let writer = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    let seq = u64::from_le_bytes(bytes[4..12].try_into().unwrap());
    let mut expected = [0u8; 40];
    let length = payload(writer, seq, &mut expected);
    assert_eq!(bytes, &expected[..length], "record of writer {writer} seq {seq} is not intact");
    (writer, seq)
}

/// Writes `count` records as `writer`, writing a record again whenever a reader rolled it
/// back (only possible if this process stalls past the timeout). Returns the rollbacks.
pub fn write_records(bus: &mut MappedBusWriter, writer: u32, count: u64) -> u64 {
    let mut buf = [0u8; 40];
    let mut rolled_back = 0;
    for seq in 0..count {
        let length = payload(writer, seq, &mut buf);
        while let WriteOutcome::RolledBack(_) = bus.write(&buf[..length]).unwrap() {
            rolled_back += 1;
        }
        // On a 2-core machine writers would otherwise run in whole time slices; giving the
        // core up now and then makes their records interleave in the file.
        if seq % 64 == 63 {
            std::thread::yield_now();
        }
    }
    rolled_back
}

/// What a reader saw: how many records, and a digest of (position, writer, seq) in order
/// that is equal for two readers exactly when they saw the same records in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadSummary {
    pub count: u64,
    pub digest: u64,
    pub last: Position,
    /// How often consecutive records came from different writers (how interleaved).
    pub writer_switches: u64,
}

/// Reads until `writers * per_writer` records arrived, checking each is intact, that
/// positions strictly increase (file order) and that every writer's sequence numbers come
/// as 0, 1, 2, ... (each exactly once). Idles by sleeping briefly.
pub fn read_all(reader: &mut MappedBusReader, writers: u32, per_writer: u64, limit: Duration) -> ReadSummary {
    let deadline = Instant::now() + limit;
    let mut next_seq = vec![0u64; writers as usize];
    let total = u64::from(writers) * per_writer;
    let mut digest = Fnv::default();
    let mut last: Option<Position> = None;
    let mut count = 0;
    let mut idle = 0u32;
    let mut previous_writer = None;
    let mut writer_switches = 0;
    while count < total {
        let Some(record) = reader.poll().unwrap() else {
            idle += 1;
            if idle > 16 {
                assert!(Instant::now() < deadline, "read {count} of {total} records before the deadline");
                std::thread::sleep(Duration::from_micros(50));
            } else {
                std::thread::yield_now();
            }
            continue;
        };
        idle = 0;
        let (writer, seq) = check_payload(record.payload().expect("byte message"));
        assert!(writer < writers, "unknown writer {writer}");
        assert_eq!(seq, next_seq[writer as usize], "writer {writer}: records lost, repeated or reordered");
        next_seq[writer as usize] += 1;
        if let Some(previous) = last {
            assert!(record.position > previous, "{:?} after {previous:?}: not file order", record.position);
        }
        last = Some(record.position);
        if previous_writer.is_some_and(|w| w != writer) {
            writer_switches += 1;
        }
        previous_writer = Some(writer);
        for word in [record.position.segment, record.position.offset, u64::from(writer), seq] {
            digest.add(word);
        }
        count += 1;
    }
    ReadSummary { count, digest: digest.0, last: last.unwrap_or_default(), writer_switches }
}

/// FNV-1a over 64-bit words.
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn add(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
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
