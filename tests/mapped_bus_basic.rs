//! Single-process behaviour of the bus: both record modes, start positions, claims, the
//! rollback paths (including a writer that died before writing its header), segment ends,
//! and the errors for files that are not bus files.

use std::path::Path;
use std::time::Duration;

use aeronrs::concurrent::mapped_file;
use aeronrs::mappedbus::{
    MappedBusConfig, MappedBusReader, MappedBusWriter, Position, StartAt, WriteOutcome,
};

fn committed(outcome: WriteOutcome) -> Position {
    match outcome {
        WriteOutcome::Committed(p) => p,
        WriteOutcome::RolledBack(p) => panic!("rolled back at {p:?}"),
    }
}

/// Polls until a record arrives (bounded, so a bug fails instead of hanging).
fn next_payload(reader: &mut MappedBusReader) -> (Position, Vec<u8>) {
    for _ in 0..1_000_000 {
        if let Some(record) = reader.poll().unwrap() {
            return (record.position, record.payload().unwrap().to_vec());
        }
        std::thread::yield_now();
    }
    panic!("no record at {:?}", reader.position());
}

fn read_i64(path: &Path, offset: usize) -> i64 {
    let bytes = std::fs::read(path).unwrap();
    i64::from_le_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

#[test]
fn variable_length_round_trip_with_exact_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let config = MappedBusConfig::variable_length(4096);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
    assert!(reader.poll().unwrap().is_none());
    let payloads: [&[u8]; 4] = [b"", b"a", b"12345678", b"123456789"];
    let offsets: Vec<u64> = payloads.iter().map(|p| committed(writer.write(p).unwrap()).offset).collect();
    assert_eq!(offsets, vec![8, 16, 32, 48], "8-byte header, records padded to 8");
    assert_eq!(read_i64(&path, 0), 72);
    // Header word of the 9-byte record: status 1, length 9.
    assert_eq!(read_i64(&path, 48).to_le_bytes(), [1, 0, 0, 0, 9, 0, 0, 0]);
    for (payload, offset) in payloads.iter().zip(&offsets) {
        let record = reader.poll().unwrap().unwrap();
        assert_eq!(record.position, Position { segment: 0, offset: *offset });
        assert_eq!(record.metadata as usize, payload.len());
        assert_eq!(record.body, *payload);
    }
    assert!(reader.poll().unwrap().is_none());
    assert!(writer.write_typed(1, b"x").is_err(), "typed messages need fixed-size records");
    writer.flush().unwrap();
}

#[test]
fn start_positions_live_replay_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let config = MappedBusConfig::fixed_size(4096, 8);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let positions: Vec<Position> = (0..5u8).map(|i| committed(writer.write(&[i]).unwrap())).collect();

    let mut live = MappedBusReader::open(&path, &config, StartAt::Live).unwrap();
    assert!(live.has_recovered());
    assert!(live.poll().unwrap().is_none());
    let mut replay = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
    assert!(!replay.has_recovered());
    let mut saved = MappedBusReader::open(&path, &config, StartAt::Position(positions[3])).unwrap();

    committed(writer.write(&[5]).unwrap());
    assert_eq!(next_payload(&mut live).1, vec![5]);
    for i in 0..6u8 {
        assert_eq!(next_payload(&mut replay).1, vec![i]);
    }
    assert!(replay.has_recovered());
    for i in 3..6u8 {
        assert_eq!(next_payload(&mut saved).1, vec![i]);
    }
    let bad = Position { segment: 0, offset: 9 };
    assert!(MappedBusReader::open(&path, &config, StartAt::Position(bad)).is_err());
    let missing = Position { segment: 7, offset: 8 };
    assert!(MappedBusReader::open(&path, &config, StartAt::Position(missing)).is_err());
}

#[test]
fn typed_messages_and_claims_in_fixed_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let config = MappedBusConfig::fixed_size(4096, 12);
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut claim = writer.try_claim_typed(42).unwrap();
    assert_eq!(claim.body_mut().len(), 12);
    claim.body_mut().copy_from_slice(&[7; 12]);
    committed(claim.commit().unwrap());
    drop(writer.try_claim(5).unwrap()); // dropped uncommitted: rolled back at once
    committed(writer.write_typed(43, &[1, 2]).unwrap());
    assert!(writer.write_typed(44, &[0; 13]).is_err());
    assert!(writer.write(&[0; 13]).is_err(), "a record larger than the record size is refused");

    let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
    let first = reader.poll().unwrap().unwrap();
    assert_eq!((first.metadata, first.body), (42, &[7u8; 12][..]));
    let second = reader.poll().unwrap().unwrap();
    assert_eq!(second.position.offset, 48, "the rolled-back record at 28 is skipped");
    assert_eq!((second.metadata, &second.body[..2]), (43, &[1u8, 2][..]));
    assert!(reader.poll().unwrap().is_none());
    assert!(reader.has_recovered());
}

#[test]
fn reader_rolls_back_a_stalled_record_and_the_writer_is_told() {
    for config in [MappedBusConfig::fixed_size(4096, 16), MappedBusConfig::variable_length(4096)] {
        let config = config.with_rollback_timeout(Duration::from_millis(1));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let mut stalled = MappedBusWriter::open(&path, &config).unwrap();
        let mut other = MappedBusWriter::open(&path, &config).unwrap();
        let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();

        let mut claim = stalled.try_claim(4).unwrap();
        claim.body_mut().copy_from_slice(b"late");
        committed(other.write(b"after").unwrap());
        // The reader waits out the timeout, rolls the claim back, then reads what follows.
        let (position, payload) = next_payload(&mut reader);
        assert_eq!(payload, b"after");
        assert!(position.offset > 8);
        assert!(matches!(claim.commit().unwrap(), WriteOutcome::RolledBack(p) if p.offset == 8));
        assert_eq!(read_i64(&path, 8) as i32, 2, "status rolled back");

        // A reader opened later skips it by its status, even with a timeout it never reaches.
        let patient = config.clone().with_rollback_timeout(Duration::from_secs(3600));
        let mut later = MappedBusReader::open(&path, &patient, StartAt::Replay).unwrap();
        assert_eq!(next_payload(&mut later).1, b"after");
    }
}

#[test]
fn variable_mode_recovers_from_a_writer_that_died_before_its_header() {
    let config = MappedBusConfig::variable_length(4096).with_rollback_timeout(Duration::from_millis(1));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    committed(writer.write(b"first").unwrap()); // 8..24
    // A writer allocated 40 bytes at 24 and died before writing anything.
    let segment = mapped_file::map_existing(&path).unwrap();
    assert_eq!(segment.get_and_add_i64(0, 40), 24);
    let after = committed(writer.write(b"second").unwrap());
    assert_eq!(after.offset, 64);

    let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
    assert_eq!(next_payload(&mut reader).1, b"first");
    let (position, payload) = next_payload(&mut reader);
    assert_eq!((position.offset, payload.as_slice()), (64, &b"second"[..]));
    // The dead space became five 8-byte rolled-back records (status 2, length 0).
    for offset in (24..64).step_by(8) {
        assert_eq!(segment.get_i64(offset), 2, "word at {offset}");
    }
    // A writer whose header word a reader filled before the writer wrote it gives the rest
    // of that space up (one rolled-back record) and allocates again.
    let next = segment.get_i64(0) as usize;
    assert_eq!(next, 80);
    segment.put_i64(next, 2);
    let retried = committed(writer.write(b"third payload!!").unwrap());
    assert_eq!(retried.offset, 80 + 24);
    assert_eq!(segment.get_i64(88).to_le_bytes(), [2, 0, 0, 0, 8, 0, 0, 0], "rest of the lost 24 bytes");
    let patient = config.with_rollback_timeout(Duration::from_secs(3600));
    let mut later = MappedBusReader::open(&path, &patient, StartAt::Position(position)).unwrap();
    assert_eq!(next_payload(&mut later).1, b"second");
    let (position, payload) = next_payload(&mut later);
    assert_eq!((position.offset, payload.as_slice()), (104, &b"third payload!!"[..]));
}

#[test]
fn variable_mode_segment_end_marker_and_dead_straddler() {
    let config = MappedBusConfig::variable_length(64).with_rollback_timeout(Duration::from_millis(1));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config).unwrap();
    let mut reader = MappedBusReader::open(&path, &config, StartAt::Replay).unwrap();
    committed(writer.write(&[1; 20]).unwrap()); // 8..40
    // 24 bytes left; a 24-byte payload needs 32: the writer marks 40 and rolls over.
    let p = committed(writer.write(&[2; 24]).unwrap());
    assert_eq!((p.segment, p.offset), (1, 8));
    let first = std::fs::read(&path).unwrap();
    assert_eq!(&first[40..48], &[3, 0, 0, 0, 0, 0, 0, 0], "end-of-segment status");
    assert_eq!(next_payload(&mut reader).1, vec![1; 20]);
    assert_eq!(next_payload(&mut reader).1, vec![2; 24]);

    // In segment 1 a writer straddles the end and dies before marking it.
    let seg1 = mapped_file::map_existing(&dir.path().join("bus.1")).unwrap();
    assert_eq!(seg1.get_and_add_i64(0, 48), 40);
    // The next writer finds the segment full and moves on to segment 2.
    let p = committed(writer.write(&[3; 4]).unwrap());
    assert_eq!((p.segment, p.offset), (2, 8));
    // The reader waits out the timeout at 40, fills to the end, and follows.
    let (position, payload) = next_payload(&mut reader);
    assert_eq!((position.segment, payload), (2, vec![3; 4]));
    assert_eq!(seg1.get_i64(40), 2);
    assert_eq!(seg1.get_i64(48), 2);
    assert_eq!(seg1.get_i64(56), 2);
}

#[test]
fn oversized_records_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &MappedBusConfig::variable_length(4096)).unwrap();
    let err = writer.write(&vec![0; 4081]).unwrap_err();
    assert_eq!(err.code(), libc::EINVAL);
    assert!(err.message().contains("exceeds the largest record"), "{err}");
    committed(writer.write(&vec![0; 4080]).unwrap());
    let err = MappedBusWriter::open(dir.path().join("other"), &MappedBusConfig::fixed_size(4096, 4084))
        .err()
        .unwrap();
    assert!(err.message().contains("does not fit a segment"), "{err}");
}

#[test]
fn files_that_are_not_bus_files_give_clear_errors_and_stay_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let config = MappedBusConfig::fixed_size(4096, 12);
    let variable = MappedBusConfig::variable_length(4096);

    let wrong_size = dir.path().join("wrong_size");
    std::fs::write(&wrong_size, vec![0u8; 5000]).unwrap();
    let err = MappedBusWriter::open(&wrong_size, &config).err().unwrap();
    assert!(err.message().contains("has length 5000, expected 4096"), "{err}");
    assert!(MappedBusReader::open(&wrong_size, &config, StartAt::Replay).is_err());

    for (name, limit) in
        [("negative", -1i64), ("inside_header", 4), ("far_past_end", 1 << 40), ("off_grid", 30)]
    {
        let path = dir.path().join(name);
        let mut bytes = vec![0u8; 4096];
        bytes[..8].copy_from_slice(&limit.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let err = MappedBusWriter::open(&path, &config).err().unwrap();
        assert!(err.message().contains("is not a mapped bus segment"), "{name}: {err}");
        assert!(MappedBusReader::open(&path, &config, StartAt::Replay).is_err(), "{name}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}: left untouched");
    }

    let unknown_status = dir.path().join("unknown_status");
    let mut bytes = vec![0u8; 4096];
    bytes[..8].copy_from_slice(&28i64.to_le_bytes());
    bytes[8..12].copy_from_slice(&9i32.to_le_bytes());
    std::fs::write(&unknown_status, &bytes).unwrap();
    let mut reader = MappedBusReader::open(&unknown_status, &config, StartAt::Replay).unwrap();
    let err = reader.poll().unwrap_err();
    assert!(err.message().contains("record at offset 8: unknown status 9"), "{err}");
    assert!(reader.poll().is_err(), "the reader stays at the bad record");

    let past_end = dir.path().join("past_end");
    let mut bytes = vec![0u8; 4096];
    bytes[..8].copy_from_slice(&24i64.to_le_bytes());
    bytes[8..16].copy_from_slice(&[1, 0, 0, 0, 0xF9, 0x0F, 0, 0]); // length 4089
    std::fs::write(&past_end, &bytes).unwrap();
    let mut reader = MappedBusReader::open(&past_end, &variable, StartAt::Replay).unwrap();
    let err = reader.poll().unwrap_err();
    assert!(err.message().contains("length 4089 runs past the segment end"), "{err}");
    bytes[12..16].copy_from_slice(&(-8i32).to_le_bytes());
    std::fs::write(&past_end, &bytes).unwrap();
    let mut reader = MappedBusReader::open(&past_end, &variable, StartAt::Replay).unwrap();
    assert!(reader.poll().unwrap_err().message().contains("length -8"));
}

#[test]
fn writers_racing_to_create_the_bus_agree_on_it() {
    const WRITERS: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let config = MappedBusConfig::fixed_size(4096, 12);
    let barrier = std::sync::Barrier::new(WRITERS);
    let mut offsets: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|i| {
                let (path, config, barrier) = (&path, &config, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    let mut writer = MappedBusWriter::open(path, config).unwrap();
                    committed(writer.write(&[i as u8]).unwrap()).offset
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    offsets.sort_unstable();
    let expected: Vec<u64> = (0..WRITERS as u64).map(|k| 8 + 20 * k).collect();
    assert_eq!(offsets, expected, "one limit initialisation, no record lost or doubled");
    assert_eq!(read_i64(&path, 0), 8 + 20 * WRITERS as i64);
}
