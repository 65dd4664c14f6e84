//! Fuzzes the driver conductor with arbitrary bytes in the to-driver command buffer, not
//! only valid commands: an embedded driver (invoker mode, small buffers, its own directory)
//! gets the input written into its command ring as if producers had claimed and written
//! it, then runs some duty cycles. It must never panic or hang, and it must still answer a
//! well-formed command afterwards (a corrupt region is skipped, a bad command refused).
//!
//! Input: `[head offset u16 LE][bytes]`: the bytes land from that (aligned) offset of the
//! ring, and the producers' tail is moved past them.
#![no_main]

use std::time::Duration;

use aeronrs::cnc::CncFile;
use aeronrs::concurrent::ring_buffer::descriptor::{HEAD_POSITION_OFFSET, TAIL_POSITION_OFFSET, TRAILER_LENGTH};
use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::idle_strategy::IdleStrategy;
use libfuzzer_sys::fuzz_target;

fn context(dir: &std::path::Path) -> DriverContext {
    DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_start: true,
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Invoker,
        shared_idle_strategy: IdleStrategy::Sleep(Duration::from_micros(1)),
        to_driver_buffer_length: 64 * 1024 + TRAILER_LENGTH,
        to_clients_buffer_length: 64 * 1024 + 128,
        counters_values_buffer_length: 64 * 1024,
        error_buffer_length: 64 * 1024,
        ipc_term_buffer_length: 64 * 1024,
        term_buffer_length: 64 * 1024,
        term_buffer_sparse_file: true,
        ..DriverContext::default()
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 2 {
        return;
    }
    let dir = std::env::temp_dir().join(format!("aeronrs-fuzz-conductor-{}", std::process::id()));
    let mut driver = MediaDriver::launch(context(&dir)).expect("driver");
    let cnc = CncFile::map_existing(&dir.join("cnc.dat")).expect("cnc");
    let ring = cnc.to_driver_buffer().clone();
    let capacity = ring.capacity() - TRAILER_LENGTH;
    let start = (usize::from(u16::from_le_bytes([input[0], input[1]])) * 8) % capacity;
    let bytes = &input[2..];
    let length = bytes.len().min(capacity);
    for (i, b) in bytes[..length].iter().enumerate() {
        ring.put_u8((start + i) % capacity, *b);
    }
    // As if producers had claimed [start, start + length) and the consumer were at start.
    ring.put_i64(capacity + HEAD_POSITION_OFFSET, start as i64);
    let tail = start as i64 + (length as i64 + 7) / 8 * 8;
    ring.put_i64_release(capacity + TAIL_POSITION_OFFSET, tail);
    for _ in 0..16 {
        driver.do_work().expect("duty cycle");
    }
    // Still serving: a well-formed keepalive-free command gets its answer, or at least the
    // buffer takes it and the conductor consumes it.
    let to_driver = ManyToOneRingBuffer::new(ring.clone()).expect("ring");
    let mut body = [0u8; 24];
    body[0..8].copy_from_slice(&7i64.to_le_bytes());
    body[8..16].copy_from_slice(&8i64.to_le_bytes());
    body[16..24].copy_from_slice(&4242i64.to_le_bytes());
    if to_driver.write(0x03, &body).expect("write") {
        let before = to_driver.consumer_position();
        for _ in 0..64 {
            driver.do_work().expect("duty cycle");
            if to_driver.consumer_position() > before {
                break;
            }
        }
        assert!(to_driver.consumer_position() > before, "the conductor stopped consuming commands");
    }
    driver.close().expect("close");
});
