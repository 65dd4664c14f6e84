//! A writer process killed with SIGKILL between allocating a record and committing it: live
//! reader processes roll the record back after the timeout and go on with the records after
//! it; a reader opened later finds it rolled back and skips it without waiting.

mod mapped_bus_support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use aeronrs::mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter, StartAt, WriteOutcome};
use mapped_bus_support as support;

const TEST: &str = "writer_killed_between_allocate_and_commit_is_rolled_back";
const BEFORE: usize = 10;
const AFTER: usize = 100;
const READERS: usize = 2;

fn config(mode: &str, timeout: Duration) -> MappedBusConfig {
    let config = match mode {
        "fixed" => MappedBusConfig::fixed_size(64 * 1024, 32),
        _ => MappedBusConfig::variable_length(64 * 1024),
    };
    config.with_rollback_timeout(timeout)
}

/// What readers must read, in this order: the victim's records before its claim, then the
/// survivor's records after it.
fn expected() -> Vec<Vec<u8>> {
    let before = (0..BEFORE).map(|i| format!("before-{i}").into_bytes());
    before.chain((0..AFTER).map(|i| format!("after-{i}").into_bytes())).collect()
}

/// Reads `expected()` exactly, within a time bound.
fn read_expected(reader: &mut MappedBusReader, limit: Duration) {
    let deadline = Instant::now() + limit;
    for want in expected() {
        loop {
            if let Some(record) = reader.poll().unwrap() {
                assert_eq!(record.payload().unwrap(), &want[..], "at {:?}", record.position);
                break;
            }
            assert!(Instant::now() < deadline, "stalled at {:?} waiting for {want:?}", reader.position());
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

fn committed(outcome: WriteOutcome) {
    assert!(matches!(outcome, WriteOutcome::Committed(_)), "{outcome:?}");
}

fn child(role: &str) {
    let mode = support::env_string("BUS_MODE");
    let path = PathBuf::from(support::env_string("BUS_PATH"));
    match role {
        "victim" => {
            let mut writer = MappedBusWriter::open(&path, &config(&mode, Duration::from_secs(2))).unwrap();
            for i in 0..BEFORE {
                committed(writer.write(format!("before-{i}").as_bytes()).unwrap());
            }
            let mut claim = writer.try_claim(16).unwrap();
            claim.body_mut()[..8].copy_from_slice(b"never-co");
            let position = claim.position();
            println!("\nCLAIMED segment={} offset={}", position.segment, position.offset);
            // Hold the claim until the parent kills this process.
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        "reader" => {
            let mut reader =
                MappedBusReader::open(&path, &config(&mode, Duration::from_millis(200)), StartAt::Replay)
                    .unwrap();
            read_expected(&mut reader, Duration::from_secs(60));
            println!("\nREADER_DONE count={}", BEFORE + AFTER);
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn writer_killed_between_allocate_and_commit_is_rolled_back() {
    if let Some(role) = support::child_role() {
        return child(&role);
    }
    for mode in ["fixed", "variable"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let vars = [("BUS_MODE", mode.to_string()), ("BUS_PATH", path.display().to_string())];
        // Create the bus first so the readers' and the victim's opens cannot race the
        // creation (they would agree anyway; this keeps the test about the crash).
        drop(MappedBusWriter::open(&path, &config(mode, Duration::from_secs(2))).unwrap());
        let readers: Vec<_> = (0..READERS)
            .map(|r| (format!("reader {r}"), support::spawn_child(TEST, "reader", &vars)))
            .collect();

        let mut victim = support::spawn_child(TEST, "victim", &vars);
        let mut lines = BufReader::new(victim.stdout.take().unwrap()).lines();
        let claimed = loop {
            let line = lines.next().expect("victim exited before claiming").unwrap();
            if line.starts_with("CLAIMED") {
                break line;
            }
        };
        let offset = support::reported(&claimed, "CLAIMED", "offset") as usize;
        assert_eq!(support::reported(&claimed, "CLAIMED", "segment"), 0);
        victim.kill().unwrap(); // SIGKILL
        victim.wait().unwrap();

        let mut survivor = MappedBusWriter::open(&path, &config(mode, Duration::from_secs(2))).unwrap();
        for i in 0..AFTER {
            committed(survivor.write(format!("after-{i}").as_bytes()).unwrap());
        }
        for out in support::wait_all(readers, Duration::from_secs(90)) {
            assert_eq!(support::reported(&out, "READER_DONE", "count") as usize, BEFORE + AFTER);
        }

        let bytes = std::fs::read(&path).unwrap();
        let status = i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap());
        assert_eq!(status, 2, "{mode}: the killed writer's record is rolled back in the file");
        assert_eq!(
            &bytes[offset + 8..offset + 16],
            b"never-co",
            "{mode}: its partial body is still there, unread"
        );

        // A later reader with a timeout it could never reach in this test skips the record
        // by its status.
        let patient = config(mode, Duration::from_secs(3600));
        let mut later = MappedBusReader::open(&path, &patient, StartAt::Replay).unwrap();
        read_expected(&mut later, Duration::from_secs(30));
        assert!(later.poll().unwrap().is_none());
        assert!(later.has_recovered());
    }
}
