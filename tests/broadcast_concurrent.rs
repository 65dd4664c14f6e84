//! One broadcast transmitter thread and several receiver threads. Every record a receiver
//! hands out must be exactly what was sent (never torn); records it cannot keep up with
//! must be reported as lapped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::broadcast::copy_receiver::LAPPED_MESSAGE;
use aeronrs::concurrent::broadcast::descriptor::TRAILER_LENGTH;
use aeronrs::concurrent::broadcast::{BroadcastReceiver, BroadcastTransmitter, CopyBroadcastReceiver};

const END_TYPE_ID: i32 = 99;

/// Payload of message `seq`: the sequence number, then bytes derived from it; lengths
/// vary so records straddle the wrap point in every way.
fn fill_message(seq: u64, out: &mut Vec<u8>) -> i32 {
    let length = 8 + (seq % 40) as usize * 3;
    out.clear();
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend((8..length).map(|j| (seq as usize).wrapping_mul(31).wrapping_add(j) as u8));
    1 + (seq % 3) as i32
}

fn check_message(msg_type_id: i32, payload: &[u8], expected: &mut Vec<u8>) -> u64 {
    assert!(payload.len() >= 8, "payload too short: {}", payload.len());
    let seq = u64::from_le_bytes(payload[..8].try_into().unwrap());
    let expected_type = fill_message(seq, expected);
    assert_eq!(msg_type_id, expected_type, "type of message {seq}");
    assert_eq!(payload, &expected[..], "bytes of message {seq}");
    seq
}

#[derive(Default)]
struct ReceiverStats {
    received: u64,
    lapped: u64,
}

/// Counts a receiver as finished even when it panics, so the transmitter stops announcing
/// the end and the panic surfaces through `join`.
struct FinishedGuard<'a>(&'a AtomicUsize);

impl Drop for FinishedGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

fn run_receiver(
    mut receiver: CopyBroadcastReceiver,
    finished: &AtomicUsize,
    progress: Option<&AtomicU64>,
    stop: &AtomicBool,
) -> ReceiverStats {
    let _guard = FinishedGuard(finished);
    let mut stats = ReceiverStats::default();
    let mut expected = Vec::new();
    let mut last_seq: Option<u64> = None;
    let mut done = false;
    while !done && !stop.load(Ordering::Relaxed) {
        let result = receiver.receive(|msg_type_id, payload| {
            if msg_type_id == END_TYPE_ID {
                done = true;
                return;
            }
            let seq = check_message(msg_type_id, payload, &mut expected);
            if let Some(last) = last_seq {
                assert!(seq > last, "sequence went backwards: {last} then {seq}");
            }
            last_seq = Some(seq);
            stats.received += 1;
            if let Some(p) = progress {
                p.store(seq + 1, Ordering::Release);
            }
        });
        match result {
            Ok(0) => thread::yield_now(),
            Ok(_) => {}
            Err(e) => {
                assert_eq!(e.message(), LAPPED_MESSAGE);
                stats.lapped += 1;
            }
        }
    }
    stats
}

fn run(capacity: usize, messages: u64, receivers: usize, flow_controlled: bool) -> Vec<ReceiverStats> {
    let buffer = AtomicBuffer::alloc(capacity + TRAILER_LENGTH);
    let mut transmitter = BroadcastTransmitter::new(buffer.clone()).unwrap();
    let finished = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let progress: Arc<Vec<AtomicU64>> = Arc::new((0..receivers).map(|_| AtomicU64::new(0)).collect());

    // Receivers join at `latest` = 0 before anything is sent, so they see message 0 first.
    let handles: Vec<_> = (0..receivers)
        .map(|i| {
            let receiver = CopyBroadcastReceiver::new(BroadcastReceiver::new(buffer.clone()).unwrap());
            let (finished, progress, stop) = (finished.clone(), progress.clone(), stop.clone());
            thread::spawn(move || {
                let p = flow_controlled.then(|| &progress[i]);
                run_receiver(receiver, &finished, p, &stop)
            })
        })
        .collect();

    let mut payload = Vec::new();
    // Flow control keeps the transmitter within half a buffer of the slowest receiver
    // (at most 200 bytes a record).
    let window = (capacity / 2 / 200) as u64;
    for seq in 0..messages {
        if flow_controlled {
            while progress.iter().map(|p| p.load(Ordering::Acquire)).min().unwrap() + window <= seq {
                if finished.load(Ordering::Acquire) > 0 {
                    break; // a receiver died: stop waiting, join reports its panic
                }
                thread::yield_now();
            }
        }
        let msg_type_id = fill_message(seq, &mut payload);
        transmitter.transmit(msg_type_id, &payload).unwrap();
        if (seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) == 0 {
            // Two cores: let receivers run between bursts of random length (1 in 32 on
            // average) so they mix receives, laps and copies racing with overwrites.
            thread::yield_now();
        }
    }
    // Keep announcing the end until every receiver has seen it: a receiver lapped at the
    // last moment drops one record, so a single end marker might be missed.
    while finished.load(Ordering::Acquire) < receivers {
        transmitter.transmit(END_TYPE_ID, b"end").unwrap();
        thread::yield_now();
    }
    stop.store(true, Ordering::Relaxed);
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn lapped_receivers_see_intact_messages_or_a_lap_error() {
    let messages = 1_000_000;
    let stats = run(2048, messages, 3, false);
    for s in &stats {
        eprintln!("receiver: {} received intact, {} lap errors", s.received, s.lapped);
    }
    for s in &stats {
        assert!(s.received <= messages);
        // Each message was either received intact or lost to a lap; a lap loses at least one.
        assert!(s.received == messages || s.lapped > 0, "lost messages without a lap error");
    }
}

#[test]
fn receivers_that_keep_up_get_every_message_in_order() {
    let messages = 100_000;
    let stats = run(64 * 1024, messages, 3, true);
    for s in &stats {
        assert_eq!(s.lapped, 0);
        assert_eq!(s.received, messages);
    }
}
