//! The to-driver ring buffer inside `cnc.dat` files written by real Aeron 1.48 (C driver)
//! opens as a `ManyToOneRingBuffer` and reads as the vectors README says.
mod common;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};

/// cnc.dat: the to-driver buffer starts at 128 and is 1 MiB + 768 bytes long.
const TO_DRIVER_OFFSET: usize = 128;
const TO_DRIVER_LENGTH: usize = 1_049_344;

fn to_driver_buffer(cnc: &[u8]) -> ManyToOneRingBuffer {
    assert_eq!(i32::from_le_bytes(cnc[4..8].try_into().unwrap()), TO_DRIVER_LENGTH as i32);
    let buffer = AtomicBuffer::alloc(cnc.len());
    buffer.store_bytes(0, cnc);
    ManyToOneRingBuffer::new(buffer.view(TO_DRIVER_OFFSET, TO_DRIVER_LENGTH).unwrap()).unwrap()
}

#[test]
fn fresh_driver_to_driver_buffer() {
    let Some(cnc) = common::read_vector("cnc-fresh.dat.gz") else { return };
    let rb = to_driver_buffer(&cnc);
    assert_eq!(rb.capacity(), 1_048_576);
    assert_eq!(rb.max_msg_length(), 131_072);
    assert_eq!((rb.producer_position(), rb.consumer_position(), rb.size()), (0, 0, 0));
    let start_timestamp = i64::from_le_bytes(cnc[32..40].try_into().unwrap());
    assert_eq!(rb.consumer_heartbeat_time(), start_timestamp, "driver heartbeat = start time");
    assert_eq!(rb.next_correlation_id(), 1, "the driver took id 0");
    assert!(!rb.unblock());
    assert_eq!(rb.read(|_, _| panic!("no commands in a fresh cnc"), usize::MAX).unwrap(), 0);
}

#[test]
fn to_driver_buffer_after_four_clients() {
    let Some(cnc) = common::read_vector("cnc-with-clients.dat.gz") else { return };
    let rb = to_driver_buffer(&cnc);
    assert_eq!((rb.producer_position(), rb.consumer_position()), (256, 256));
    // The driver zeroed what it consumed.
    assert!(rb.buffer().load_vec(0, rb.capacity()).iter().all(|&b| b == 0));
    assert_eq!(rb.next_correlation_id(), 10);
    // A command written now lands where the next Aeron client's would.
    assert!(rb.write(1, &[7; 20]).unwrap());
    assert_eq!(rb.buffer().get_i32(256), 28);
    assert_eq!(rb.producer_position(), 256 + 32);
}
