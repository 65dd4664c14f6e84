//! What a writer and a reader keep mapped as they move across many segments, and what
//! ends up in the files: a writer maps its current segment and (through its preparer) the
//! next one and the last few it left, never every segment it passed; a reader following it
//! reads every record once and in order; the files hold exactly the records after the
//! writer released its mappings and flushed the segments it left by path.

use std::path::Path;
use std::time::{Duration, Instant};

use aeronrs::mappedbus::{
    MappedBusConfig, MappedBusReader, MappedBusWriter, Position, StartAt, WriteOutcome,
};

/// 64 KiB segments of 12-byte records: (65536 - 8) / 20 = 3276 records each.
const SEGMENT_LENGTH: usize = 64 * 1024;
const RECORD_SIZE: usize = 12;
const PER_SEGMENT: u64 = ((SEGMENT_LENGTH - 8) / (8 + RECORD_SIZE)) as u64;
const SEGMENTS: u64 = 40;
const RECORDS: u64 = PER_SEGMENT * SEGMENTS + 100;
const MESSAGE_TYPE: i32 = 5;
/// Current segment, the prepared next one, two left behind waiting for release and the one
/// being released.
const MAX_MAPPINGS_PER_USER: usize = 5;
const TIME_LIMIT: Duration = Duration::from_secs(60);

fn config() -> MappedBusConfig {
    MappedBusConfig::fixed_size(SEGMENT_LENGTH, RECORD_SIZE)
}

fn body(seq: u64) -> [u8; RECORD_SIZE] {
    let mut body = [0u8; RECORD_SIZE];
    body[..8].copy_from_slice(&seq.to_le_bytes());
    body[8..].copy_from_slice(&(seq as u32 ^ 0xA5A5_A5A5).to_le_bytes());
    body
}

/// Mappings in this process of files in `dir` (each line of /proc/self/maps is one).
fn mappings_in(dir: &Path) -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let prefix = format!("{}/", dir.display());
    maps.lines().filter(|line| line.split_whitespace().nth(5).is_some_and(|p| p.starts_with(&prefix))).count()
}

fn wait_for_mappings(dir: &Path, at_most: usize, what: &str) {
    let deadline = Instant::now() + TIME_LIMIT;
    loop {
        let count = mappings_in(dir);
        if count <= at_most {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: still {count} mappings (at most {at_most} expected)");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn write_all(writer: &mut MappedBusWriter, dir: &Path) {
    let mut segment = writer.segment_index();
    let mut most = 0;
    for seq in 0..RECORDS {
        let outcome = writer.write_typed(MESSAGE_TYPE, &body(seq)).unwrap();
        assert!(matches!(outcome, WriteOutcome::Committed(_)), "{seq}: {outcome:?}");
        if writer.segment_index() != segment {
            segment = writer.segment_index();
            most = most.max(mappings_in(dir));
        }
    }
    assert_eq!(segment, SEGMENTS, "rolled over once per full segment");
    assert!(most <= MAX_MAPPINGS_PER_USER, "the writer mapped {most} segments at once");
}

fn read_all(reader: &mut MappedBusReader, dir: &Path, max_mappings: usize) {
    let deadline = Instant::now() + TIME_LIMIT;
    let mut expected = 0u64;
    let mut segment = reader.position().segment;
    let mut most = 0;
    while expected < RECORDS {
        match reader.poll().unwrap() {
            Some(record) => {
                assert_eq!(record.metadata, MESSAGE_TYPE);
                assert_eq!(
                    record.body,
                    &body(expected)[..],
                    "record {expected} lost, changed or out of order"
                );
                assert_eq!(
                    record.position,
                    Position { segment: expected / PER_SEGMENT, offset: 8 + (expected % PER_SEGMENT) * 20 },
                    "record {expected}"
                );
                expected += 1;
            }
            None => {
                assert!(Instant::now() < deadline, "read {expected} of {RECORDS} records");
                std::thread::yield_now();
            }
        }
        if reader.position().segment != segment {
            segment = reader.position().segment;
            most = most.max(mappings_in(dir));
        }
    }
    assert!(most <= max_mappings, "{most} segments mapped at once (at most {max_mappings} expected)");
}

#[test]
fn writer_and_reader_map_a_bounded_number_of_segments_across_forty_roll_overs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config()).unwrap();
    write_all(&mut writer, dir.path());
    wait_for_mappings(dir.path(), 2, "the writer's left segments are released");
    writer.flush().unwrap();
    drop(writer);
    wait_for_mappings(dir.path(), 0, "a closed writer maps nothing");

    let mut reader = MappedBusReader::open(&path, &config(), StartAt::Replay).unwrap();
    read_all(&mut reader, dir.path(), MAX_MAPPINGS_PER_USER);
    wait_for_mappings(dir.path(), 2, "the reader's left segments are released");
}

#[test]
fn a_live_reader_follows_the_writer_and_the_files_hold_exactly_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config()).unwrap();
    let mut reader = MappedBusReader::open(&path, &config(), StartAt::Live).unwrap();
    let reader_dir = dir.path().to_path_buf();
    let reading = std::thread::spawn(move || read_all(&mut reader, &reader_dir, 2 * MAX_MAPPINGS_PER_USER));
    for seq in 0..RECORDS {
        assert!(matches!(writer.write_typed(MESSAGE_TYPE, &body(seq)).unwrap(), WriteOutcome::Committed(_)));
    }
    reading.join().unwrap();
    // A left segment removed (by retention, say) has nothing left to flush: skipped.
    std::fs::remove_file(dir.path().join("bus.3")).unwrap();
    writer.flush().unwrap();
    writer.flush().unwrap();
    drop(writer);
    wait_for_mappings(dir.path(), 0, "closed writer and reader map nothing");

    // The bytes, read through the files: every record as written, nothing else.
    for segment in (0..=SEGMENTS).filter(|&s| s != 3) {
        let name = if segment == 0 { "bus".to_string() } else { format!("bus.{segment}") };
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        assert_eq!(bytes.len(), SEGMENT_LENGTH);
        let records = (RECORDS - segment * PER_SEGMENT).min(PER_SEGMENT);
        let mut expected = vec![0u8; SEGMENT_LENGTH];
        let limit = if records == PER_SEGMENT { 8 + (PER_SEGMENT + 1) * 20 } else { 8 + records * 20 };
        expected[..8].copy_from_slice(&(limit as i64).to_le_bytes());
        for k in 0..records {
            let at = 8 + k as usize * 20;
            expected[at..at + 4].copy_from_slice(&1i32.to_le_bytes());
            expected[at + 4..at + 8].copy_from_slice(&MESSAGE_TYPE.to_le_bytes());
            expected[at + 8..at + 20].copy_from_slice(&body(segment * PER_SEGMENT + k));
        }
        assert!(bytes == expected, "segment {segment} differs from the records written");
    }
}
