//! Fixed-size mode writes exactly the bytes Mappedbus writes: a hand-written expectation of
//! a small file (limit, headers, bodies, the untouched rest), from the Mappedbus layout:
//! `limit` i64 at 0, records from 8, each `status i32 | metadata i32 | body[record_size]`,
//! stride `8 + record_size`, commit status 1, rollback 2, file length rounded up to 4096.

use aeronrs::mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter, StartAt, WriteOutcome};

/// Mappedbus's own test shape: file size 1000, record size 12 (a 3-int PriceUpdate).
fn config() -> MappedBusConfig {
    MappedBusConfig::fixed_size(1000, 12)
}

#[test]
fn fixed_size_file_matches_mappedbus_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config()).unwrap();

    // Record 0: typed message, type 7, PriceUpdate{source 1, price 2, quantity 3}.
    let price_update = [1i32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    assert!(matches!(writer.write_typed(7, &price_update).unwrap(), WriteOutcome::Committed(_)));
    // Record 1: byte message of 4 bytes; the other 8 body bytes stay zero.
    assert!(matches!(writer.write(&[0xAA, 0xBB, 0xCC, 0xDD]).unwrap(), WriteOutcome::Committed(_)));
    // Record 2: allocated, then given up by its writer: status 2, metadata still written.
    let claim = writer.try_claim(3).unwrap();
    claim.abort();
    // Record 3: a full-size byte message.
    assert!(matches!(writer.write(&[9u8; 12]).unwrap(), WriteOutcome::Committed(_)));
    drop(writer);

    #[rustfmt::skip]
    let expected_prefix: [u8; 88] = [
        // limit = 8 + 4 * 20 = 88
        88, 0, 0, 0, 0, 0, 0, 0,
        // record 0 @8: status 1, type 7, body 1,2,3 as i32
        1, 0, 0, 0,   7, 0, 0, 0,
        1, 0, 0, 0,   2, 0, 0, 0,   3, 0, 0, 0,
        // record 1 @28: status 1, length 4, body AA BB CC DD then zeros
        1, 0, 0, 0,   4, 0, 0, 0,
        0xAA, 0xBB, 0xCC, 0xDD,   0, 0, 0, 0,   0, 0, 0, 0,
        // record 2 @48: status 2 (rolled back), length 3, body never written
        2, 0, 0, 0,   3, 0, 0, 0,
        0, 0, 0, 0,   0, 0, 0, 0,   0, 0, 0, 0,
        // record 3 @68: status 1, length 12, body 9 x 12
        1, 0, 0, 0,   12, 0, 0, 0,
        9, 9, 9, 9,   9, 9, 9, 9,   9, 9, 9, 9,
    ];
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 4096, "Mappedbus rounds a 1000-byte file up to 4096");
    assert_eq!(&bytes[..88], &expected_prefix[..]);
    assert!(bytes[88..].iter().all(|&b| b == 0), "nothing written past the last record");
}

#[test]
fn fixed_size_file_fills_like_mappedbus_then_rolls_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut writer = MappedBusWriter::open(&path, &config()).unwrap();
    // (1000 - 8) / 20 = 49 records fit in segment 0 (the last ends at 988).
    for i in 0..49u8 {
        let WriteOutcome::Committed(p) = writer.write(&[i]).unwrap() else { panic!("rolled back") };
        assert_eq!((p.segment, p.offset), (0, 8 + 20 * u64::from(i)));
    }
    let WriteOutcome::Committed(p) = writer.write(&[49]).unwrap() else { panic!("rolled back") };
    assert_eq!((p.segment, p.offset), (1, 8), "the 50th record goes to the next segment");
    drop(writer);

    let first = std::fs::read(&path).unwrap();
    // The failed allocation pushed limit past the end; Mappedbus's writer does the same
    // before throwing EOFException. Nothing else was written at 988.
    assert_eq!(i64::from_le_bytes(first[..8].try_into().unwrap()), 988 + 20);
    assert!(first[988..].iter().all(|&b| b == 0));
    let second = std::fs::read(dir.path().join("bus.1")).unwrap();
    assert_eq!(&second[..20], &[28, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 49, 0, 0, 0]);

    let mut reader = MappedBusReader::open(&path, &config(), StartAt::Replay).unwrap();
    for i in 0..50u8 {
        let record = reader.poll().unwrap().expect("record");
        assert_eq!(record.payload(), Some(&[i][..]));
        assert_eq!(record.body.len(), 12);
    }
    assert!(reader.poll().unwrap().is_none());
    assert!(reader.has_recovered());
}

#[test]
fn reads_a_file_laid_out_by_hand_as_mappedbus_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus");
    let mut bytes = vec![0u8; 4096];
    bytes[..8].copy_from_slice(&68i64.to_le_bytes());
    // @8 committed type 3; @28 rolled back; @48 committed byte message "hi".
    bytes[8..28].copy_from_slice(&[1, 0, 0, 0, 3, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    bytes[28..36].copy_from_slice(&[2, 0, 0, 0, 12, 0, 0, 0]);
    bytes[48..58].copy_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, b'h', b'i']);
    std::fs::write(&path, &bytes).unwrap();

    let mut reader = MappedBusReader::open(&path, &config(), StartAt::Replay).unwrap();
    assert!(!reader.has_recovered());
    let first = reader.poll().unwrap().unwrap();
    assert_eq!((first.position.offset, first.metadata), (8, 3));
    assert_eq!(first.body, &[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    let second = reader.poll().unwrap().unwrap();
    assert_eq!((second.position.offset, second.payload()), (48, Some(&b"hi"[..])));
    assert!(reader.poll().unwrap().is_none());
    assert!(reader.has_recovered());
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "reading changed nothing");
}
