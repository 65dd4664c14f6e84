//! Segment roll-over across many segments while live reader processes follow the writer
//! processes from segment to segment; replay from the start once every writer is gone; a
//! reader started at a saved (segment, offset) position reads exactly the rest.

mod mapped_bus_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use aeronrs::mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter, Position, StartAt};
use mapped_bus_support as support;

const TEST: &str = "readers_follow_writers_across_segments_and_replay_later";
const WRITERS: u32 = 2;
const READERS: usize = 2;
const PER_WRITER: u64 = 5_000;
const TIME_LIMIT: Duration = Duration::from_secs(120);

fn config(mode: &str) -> MappedBusConfig {
    match mode {
        // 16 KiB segments: a few hundred records each, so tens of roll-overs.
        "fixed" => MappedBusConfig::fixed_size(16 * 1024, 40),
        _ => MappedBusConfig::variable_length(16 * 1024),
    }
}

fn child(role: &str) {
    let mode = support::env_string("BUS_MODE");
    let path = PathBuf::from(support::env_string("BUS_PATH"));
    match role {
        "writer" => {
            let id = support::env_u64("BUS_WRITER_ID") as u32;
            let mut writer = MappedBusWriter::open(&path, &config(&mode)).unwrap();
            support::write_records(&mut writer, id, PER_WRITER);
            writer.flush().unwrap();
            println!("\nWRITER_DONE id={id} segment={}", writer.segment_index());
        }
        "reader" => {
            let mut reader = MappedBusReader::open(&path, &config(&mode), StartAt::Live).unwrap();
            println!("\nREADER_OPEN");
            let summary = support::read_all(&mut reader, WRITERS, PER_WRITER, TIME_LIMIT);
            println!("\nREADER_DONE digest={} segment={}", summary.digest, summary.last.segment);
        }
        other => panic!("unknown role {other}"),
    }
}

/// Replays the whole bus, checking it as `read_all` does, and returns every record's
/// position with its writer and sequence number.
fn replay(path: &PathBuf, mode: &str) -> Vec<(Position, u32, u64)> {
    let mut reader = MappedBusReader::open(path, &config(mode), StartAt::Replay).unwrap();
    let deadline = Instant::now() + TIME_LIMIT;
    let total = (u64::from(WRITERS) * PER_WRITER) as usize;
    let mut records = Vec::with_capacity(total);
    while records.len() < total {
        match reader.poll().unwrap() {
            Some(record) => {
                let (writer, seq) = support::check_payload(record.payload().unwrap());
                records.push((record.position, writer, seq));
            }
            None => assert!(Instant::now() < deadline, "replay stalled at {:?}", reader.position()),
        }
    }
    assert!(reader.poll().unwrap().is_none());
    assert!(reader.has_recovered());
    records
}

#[test]
fn readers_follow_writers_across_segments_and_replay_later() {
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
        drop(MappedBusWriter::open(&path, &config(mode)).unwrap());

        // Live readers first, each confirmed open (at the empty bus's end) before writing.
        let mut readers = Vec::new();
        for r in 0..READERS {
            let mut child = support::spawn_child(TEST, "reader", &vars(vec![]));
            let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
            let mut line = String::new();
            while !line.contains("READER_OPEN") {
                line.clear();
                assert!(
                    std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() > 0,
                    "reader {r} exited"
                );
            }
            child.stdout = None;
            readers.push((format!("reader {r}"), child, stdout));
        }
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let child =
                    support::spawn_child(TEST, "writer", &vars(vec![("BUS_WRITER_ID", w.to_string())]));
                (format!("writer {w}"), child)
            })
            .collect();
        support::wait_all(writers, TIME_LIMIT);
        let mut live_digests = Vec::new();
        for (name, mut child, mut stdout) in readers {
            let status = child.wait().unwrap();
            let mut out = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
            assert!(status.success(), "{name} failed: {out}");
            assert!(
                support::reported(&out, "READER_DONE", "segment") >= 3,
                "{name} followed at least 3 segments"
            );
            live_digests.push(support::reported(&out, "READER_DONE", "digest"));
        }

        // Every writer is gone: replay from the start.
        let records = replay(&path, mode);
        let mut digest = support::Fnv::default();
        for (position, writer, seq) in &records {
            for word in [position.segment, position.offset, u64::from(*writer), *seq] {
                digest.add(word);
            }
        }
        assert!(live_digests.iter().all(|&d| d == digest.0), "{mode}: live readers and replay differ");
        let last_segment = records.last().unwrap().0.segment;
        assert!(last_segment >= 3, "{mode}: only {} segments", last_segment + 1);
        for segment in 0..=last_segment {
            let name = if segment == 0 { "bus".to_string() } else { format!("bus.{segment}") };
            assert_eq!(std::fs::metadata(dir.path().join(name)).unwrap().len(), 16 * 1024);
        }

        // Start at a saved position: the first record of segment 2.
        let start = records.iter().position(|(p, _, _)| p.segment == 2).unwrap();
        let mut reader =
            MappedBusReader::open(&path, &config(mode), StartAt::Position(records[start].0)).unwrap();
        for expected in &records[start..] {
            let record = reader.poll().unwrap().expect("record");
            let (writer, seq) = support::check_payload(record.payload().unwrap());
            assert_eq!((record.position, writer, seq), *expected);
        }
        assert!(reader.poll().unwrap().is_none());
    }
}

/// With `prefault` (the default) a writer's thread creates the next segment before the
/// writer reaches it. Writers and live readers that open the bus meanwhile must still start
/// in the segment being appended to, not in the empty one prepared ahead of it; and the
/// writer that rolls over uses the prepared file, so every record is read once, in order.
#[test]
fn a_segment_prepared_ahead_is_not_where_newcomers_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let config = MappedBusConfig::fixed_size(16 * 1024, 40);
    let mut first = MappedBusWriter::open(&path, &config).unwrap();
    assert!(matches!(first.write(b"a").unwrap(), aeronrs::mappedbus::WriteOutcome::Committed(_)));
    let next = dir.path().join("bus.1");
    let deadline = Instant::now() + TIME_LIMIT;
    while !next.exists() {
        assert!(Instant::now() < deadline, "segment 1 was never prepared");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Opened while segment 0 has room and segment 1 exists, empty.
    let mut second = MappedBusWriter::open(&path, &config).unwrap();
    assert_eq!(second.segment_index(), 0, "the second writer appends to segment 0 too");
    let mut live = MappedBusReader::open(&path, &config, StartAt::Live).unwrap();
    assert_eq!(live.position().segment, 0, "a live reader starts where records are appended");
    let mut sent = Vec::new();
    for i in 0..1000u32 {
        let writer = if i % 2 == 0 { &mut first } else { &mut second };
        let text = format!("m{i}");
        assert!(matches!(
            writer.write(text.as_bytes()).unwrap(),
            aeronrs::mappedbus::WriteOutcome::Committed(_)
        ));
        sent.push(text);
    }
    assert!(first.segment_index() >= 2, "rolled over into the prepared segments");
    let mut got = Vec::new();
    while got.len() < sent.len() {
        assert!(Instant::now() < deadline, "live reader stopped at {} records", got.len());
        if let Some(record) = live.poll().unwrap() {
            got.push(String::from_utf8(record.body[..record.metadata as usize].to_vec()).unwrap());
        }
    }
    assert_eq!(got, sent, "every record once, in write order (one thread wrote them)");
    assert!(live.poll().unwrap().is_none());
}
