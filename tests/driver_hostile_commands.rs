//! A corrupt to-driver command buffer (a record no client could have written) costs the
//! driver one skip, not its service: the record and whatever was claimed after it are
//! discarded up to the producers' position, counted (*Unblocked Commands*), logged once,
//! and every client after it is answered within a second.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::concurrent::ring_buffer::RingBuffer;
use aeronrs::concurrent::ring_buffer::descriptor::{TAIL_POSITION_OFFSET, TRAILER_LENGTH};
use aeronrs::driver::{DriverContext, MediaDriver};
use raw_client::{RawClient, test_context};

const UNBLOCKED_COMMANDS: i32 = 20;
const ERRORS: i32 = 15;

fn context(dir: &std::path::Path) -> DriverContext {
    // A dead claim (negative length) is padded over after the client liveness timeout.
    DriverContext { client_liveness_timeout_ns: 300_000_000, ..test_context(dir) }
}

/// Writes `length` as a committed record header at the buffer's head, and moves the tail
/// by `claimed` bytes as a producer's claim would.
fn forge(client: &RawClient, length: i32, claimed: i64) {
    let buffer = &client.cnc.to_driver;
    let capacity = buffer.capacity() - TRAILER_LENGTH;
    let head = client.to_driver.consumer_position();
    let index = (head as usize) & (capacity - 1);
    if claimed > 0 {
        let tail = capacity + TAIL_POSITION_OFFSET;
        buffer.put_i64_release(tail, buffer.get_i64_acquire(tail) + claimed);
    }
    buffer.put_i32(index + 4, 0x01);
    buffer.put_i32_release(index, length);
}

/// A client arriving after the damage adds a publication and is answered in time.
fn served_within_a_second(dir: &std::path::Path) {
    let start = Instant::now();
    let mut late = RawClient::connect(dir);
    let id = late.add_publication("aeron:ipc", 1001, false);
    let record = late.expect_correlated(id);
    assert!(matches!(record.response(), Response::PublicationReady(_)), "{:?}", record.response());
    assert!(start.elapsed() < Duration::from_secs(1), "answered after {:?}", start.elapsed());
}

/// `unblocked`: the *Unblocked Commands* expected (the skip, and a dead claim's padding).
fn recovers_from(length: i32, claimed: i64, what: &str, unblocked: i64) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let driver = MediaDriver::launch(context(&dir)).unwrap();
    let mut first = RawClient::connect(&dir);
    let id = first.add_counter(1400, &[], "before the damage");
    assert!(matches!(first.expect_correlated(id).response(), Response::CounterReady(_)));
    forge(&first, length, claimed);
    raw_client::wait_until(&format!("{what}: skipped"), || {
        first.cnc.errors().iter().any(|e| e.contains("ring buffer corrupt"))
    });
    served_within_a_second(&dir);
    // Logged once, however long the damage had been there.
    let errors = first.cnc.errors();
    let corrupt: Vec<&String> = errors.iter().filter(|e| e.contains("ring buffer corrupt")).collect();
    assert_eq!(corrupt.len(), 1, "{what}: {errors:?}");
    assert!(corrupt[0].contains("skipped"), "{what}: {}", corrupt[0]);
    assert_eq!(first.cnc.system_counter(ERRORS), 1, "{what}: one error, once");
    assert_eq!(first.cnc.system_counter(UNBLOCKED_COMMANDS), unblocked, "{what}");
    drop(driver);
}

#[test]
fn a_length_beyond_the_buffer() {
    recovers_from(0x4000_0000, 0, "length 2^30 at the head, nothing claimed after it", 1);
}

#[test]
fn a_length_beyond_the_buffer_with_claims_after_it() {
    recovers_from(0x4000_0000, 256, "length 2^30, 256 bytes claimed by producers", 1);
}

#[test]
fn a_length_shorter_than_a_header() {
    recovers_from(5, 64, "length 5", 1);
}

#[test]
fn a_record_that_runs_past_the_tail() {
    recovers_from(64, 0, "a 64-byte record where nothing was claimed", 1);
    recovers_from(512, 64, "a 512-byte record where 64 bytes were claimed", 1);
}

#[test]
fn a_dead_claim_with_a_negative_length_beyond_the_buffer() {
    // Padded over after the liveness timeout as any dead claim, the padding is then a
    // record longer than the buffer: skipped.
    recovers_from(-0x4000_0000, 64, "length -2^30, 64 bytes claimed", 2);
}
