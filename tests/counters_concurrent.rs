//! Readers scanning counters while the manager allocates and frees them in another thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::counters::descriptor::{COUNTER_LENGTH, METADATA_LENGTH};
use aeronrs::concurrent::counters::{CounterRecord, CountersManager, CountersReader};

const COUNTERS: usize = 1024;

fn buffers() -> (AtomicBuffer, AtomicBuffer) {
    (AtomicBuffer::alloc(COUNTERS * METADATA_LENGTH), AtomicBuffer::alloc(COUNTERS * COUNTER_LENGTH))
}

fn expected_type(id: i32) -> i32 {
    1000 + id % 50
}

fn expected_key(id: i32) -> i64 {
    i64::from(id) * 1_000_003 + 17
}

fn expected_label(id: i32) -> String {
    format!("counter {id:05} key {:012}", expected_key(id))
}

/// Runs `readers` threads calling `check` on every allocated counter they see, until the
/// manager closure returns. Returns how many records the readers checked.
fn with_readers(
    reader: CountersReader,
    readers: usize,
    check: fn(&CounterRecord),
    manage: impl FnOnce(),
) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> = (0..readers)
        .map(|_| {
            let (reader, stop) = (reader.clone(), stop.clone());
            thread::spawn(move || {
                let mut checked = 0u64;
                while !stop.load(Ordering::Acquire) {
                    let mut last_id = -1;
                    reader.for_each_counter(|c| {
                        assert!(c.id > last_id, "ids ascend");
                        last_id = c.id;
                        check(c);
                        checked += 1;
                    });
                    thread::yield_now();
                }
                checked
            })
        })
        .collect();
    manage();
    stop.store(true, Ordering::Release);
    handles.into_iter().map(|h| h.join().unwrap()).sum()
}

#[test]
fn readers_see_complete_metadata_while_counters_are_allocated_and_freed() {
    let (metadata, values) = buffers();
    // No id is ever reused (deadline far beyond the test's logical clock), so everything a
    // reader sees after state ALLOCATED must be exactly what was published with it.
    let mut manager = CountersManager::new(metadata, values, i64::MAX / 2).unwrap();
    let reader = manager.reader().clone();
    let checked = with_readers(
        reader.clone(),
        2,
        |c| {
            assert_eq!(c.type_id, expected_type(c.id), "type of {}", c.id);
            assert_eq!(c.label(), expected_label(c.id), "label of {}", c.id);
            let key = i64::from_le_bytes(c.key()[..8].try_into().unwrap());
            // The key is zeroed when the counter is freed, possibly during the snapshot.
            assert!(key == expected_key(c.id) || key == 0, "key of {}: {key}", c.id);
            assert!(c.key()[8..].iter().all(|&b| b == 0));
        },
        || {
            for id in 0..COUNTERS as i32 {
                let got = manager
                    .allocate(expected_type(id), &expected_key(id).to_le_bytes(), &expected_label(id), 0)
                    .unwrap();
                assert_eq!(got, id);
                manager.set_counter_registration_id(id, i64::from(id)).unwrap();
                if id % 3 == 2 {
                    manager.free(id - 1, 0).unwrap();
                }
                if id % 64 == 0 {
                    thread::yield_now();
                }
            }
        },
    );
    assert!(manager.allocate(1, &[], "full", 0).is_err());
    // After the manager is done: every id not freed is allocated, with its registration id.
    let live: Vec<i32> = reader.counters().iter().map(|c| c.id).collect();
    assert_eq!(live, (0..COUNTERS as i32).filter(|id| id % 3 != 1).collect::<Vec<_>>());
    assert_eq!(reader.find_by_type_id_and_registration_id(expected_type(900), 900), Some(900));
    eprintln!("readers checked {checked} records");
}

#[test]
fn readers_never_see_malformed_records_while_ids_are_reused() {
    let (metadata, values) = buffers();
    let mut manager = CountersManager::new(metadata, values, 5).unwrap();
    let reader = manager.reader().clone();
    let checked = with_readers(
        reader,
        2,
        |c| {
            // Reuse may change a record between the reader's loads, but every label ever
            // written has this exact shape and length, so no byte can be out of place.
            let label = c.label();
            assert_eq!(label.len(), 22, "label {label:?}");
            assert!(label.starts_with("reused gen "), "label {label:?}");
            assert!(label[11..].bytes().all(|b| b.is_ascii_digit()), "label {label:?}");
            assert_eq!(c.type_id, 7);
        },
        || {
            let mut live = std::collections::VecDeque::new();
            for now_ms in 0..200_000i64 {
                if live.len() < COUNTERS / 2 {
                    let id = manager.allocate(
                        7,
                        &now_ms.to_le_bytes(),
                        &format!("reused gen {now_ms:011}"),
                        now_ms,
                    );
                    live.push_back(id.unwrap());
                } else {
                    manager.free(live.pop_front().unwrap(), now_ms).unwrap();
                }
                if now_ms % 1024 == 0 {
                    thread::yield_now();
                }
            }
            assert!(manager.high_water_mark_id() < COUNTERS as i32, "ids were reused");
        },
    );
    eprintln!("readers checked {checked} records");
}
