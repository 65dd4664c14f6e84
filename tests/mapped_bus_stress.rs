//! Several writer processes and several reader processes on one bus at once, millions of
//! records in both record modes: every committed record is read exactly once by every
//! reader, in file order, intact; all readers (and a replay afterwards) see the same
//! sequence. Segments are small enough that the writers roll over many times meanwhile.

mod mapped_bus_support;

use std::path::PathBuf;
use std::time::Duration;

use aeronrs::mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter, StartAt};
use mapped_bus_support as support;

const TEST: &str = "writer_and_reader_processes_read_every_record_once_in_order";
const WRITERS: u32 = 4;
const READERS: usize = 3;
const TIME_LIMIT: Duration = Duration::from_secs(240);

fn config(mode: &str) -> MappedBusConfig {
    match mode {
        // 40-byte bodies hold the largest test payload; 1 MiB segments.
        "fixed" => MappedBusConfig::fixed_size(1 << 20, 40),
        _ => MappedBusConfig::variable_length(1 << 20),
    }
}

fn per_writer(mode: &str) -> u64 {
    if mode == "fixed" { 500_000 } else { 750_000 }
}

fn child(role: &str) {
    let mode = support::env_string("BUS_MODE");
    let path = PathBuf::from(support::env_string("BUS_PATH"));
    let config = config(&mode);
    match role {
        "writer" => {
            let id = support::env_u64("BUS_WRITER_ID") as u32;
            let mut writer = MappedBusWriter::open(&path, &config).unwrap();
            let rolled_back = support::write_records(&mut writer, id, per_writer(&mode));
            println!("WRITER_DONE id={id} rolled_back={rolled_back}");
        }
        "reader" => {
            let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
            let summary = support::read_all(&mut reader, WRITERS, per_writer(&mode), TIME_LIMIT);
            println!("READER_DONE count={} digest={}", summary.count, summary.digest);
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn writer_and_reader_processes_read_every_record_once_in_order() {
    if let Some(role) = support::child_role() {
        return child(&role);
    }
    for mode in ["variable", "fixed"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let vars = |extra: Vec<(&'static str, String)>| {
            let mut vars = vec![("BUS_MODE", mode.to_string()), ("BUS_PATH", path.display().to_string())];
            vars.extend(extra);
            vars
        };
        let mut children = Vec::new();
        for r in 0..READERS {
            children.push((format!("reader {r}"), support::spawn_child(TEST, "reader", &vars(vec![]))));
        }
        for w in 0..WRITERS {
            let child = support::spawn_child(TEST, "writer", &vars(vec![("BUS_WRITER_ID", w.to_string())]));
            children.push((format!("writer {w}"), child));
        }
        let outputs = support::wait_all(children, TIME_LIMIT);

        let total = u64::from(WRITERS) * per_writer(mode);
        let digests: Vec<u64> = outputs[..READERS]
            .iter()
            .map(|out| {
                assert_eq!(support::reported(out, "READER_DONE", "count"), total);
                support::reported(out, "READER_DONE", "digest")
            })
            .collect();
        assert!(
            digests.iter().all(|&d| d == digests[0]),
            "{mode}: readers saw different sequences: {digests:?}"
        );
        let rolled_back: u64 =
            outputs[READERS..].iter().map(|out| support::reported(out, "WRITER_DONE", "rolled_back")).sum();

        // With every writer gone, a replay sees the same records once more.
        let mut replay = MappedBusReader::open(&path, &config(mode), StartAt::Replay).unwrap();
        let summary = support::read_all(&mut replay, WRITERS, per_writer(mode), TIME_LIMIT);
        assert_eq!(summary.digest, digests[0], "{mode}: replay differs from the live readers");
        assert!(replay.poll().unwrap().is_none(), "{mode}: no record beyond the written ones");
        assert!(summary.last.segment >= 3, "{mode}: the writers rolled over several segments");
        println!(
            "{mode}: {total} records, {} segments, {} writer switches, {rolled_back} rewritten after a rollback",
            summary.last.segment + 1,
            summary.writer_switches
        );
    }
}
