//! Fuzzes the receiver's handling of datagrams (`driver::media::receiver_harness`): a
//! receive endpoint subscribed to stream 1001 with an image for session 7 gets a sequence
//! of arbitrary datagrams. Handling must never panic or write outside the image's log, and
//! the high-water mark may only move inside the window.
//!
//! Input: records of `[flags u8][length u16 LE][bytes]`. Flag 1 points the datagram at the
//! image (session 7, stream 1001, term id 100 written into a data header), so the fuzzer
//! reaches the rebuild path; flag 2 runs the receiver's periodic sends afterwards.
#![no_main]

use std::cell::RefCell;

use aeronrs::driver::media::receiver_harness::{INITIAL_TERM_ID, ReceiverHarness, SESSION_ID, STREAM_ID};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static HARNESS: RefCell<Option<ReceiverHarness>> = const { RefCell::new(None) };
}

fuzz_target!(|input: &[u8]| {
    HARNESS.with(|cell| {
        let mut slot = cell.borrow_mut();
        // A fresh image per input so inputs do not depend on each other.
        *slot = Some(ReceiverHarness::new().expect("harness"));
        let harness = slot.as_mut().expect("just set");
        let mut rest = input;
        let mut now_ns = 1_000_000i64;
        while rest.len() >= 3 {
            let flags = rest[0];
            let length = usize::from(u16::from_le_bytes([rest[1], rest[2]])).min(rest.len() - 3);
            let mut datagram = rest[3..3 + length].to_vec();
            rest = &rest[3 + length..];
            if flags & 1 != 0 && datagram.len() >= 24 {
                datagram[12..16].copy_from_slice(&SESSION_ID.to_le_bytes());
                datagram[16..20].copy_from_slice(&STREAM_ID.to_le_bytes());
                datagram[20..24].copy_from_slice(&INITIAL_TERM_ID.to_le_bytes());
            }
            let _ = harness.on_datagram(&datagram, now_ns);
            if flags & 2 != 0 {
                harness.send_pending(now_ns);
            }
            now_ns += 1_000_000;
            // The window: half a term past the last status message position (0 here).
            assert!(harness.hwm() <= 32 * 1024, "hwm {} outside the window", harness.hwm());
        }
    });
});
