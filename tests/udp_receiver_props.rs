//! Property tests of the receiver's datagram handling (`receiver_harness`): arbitrary and
//! mutated datagrams never panic, never write outside the image, never move the high-water
//! mark past the window; well-formed ones are rebuilt byte for byte.

use aeronrs::driver::media::receiver_harness::{
    INITIAL_TERM_ID, ReceiverHarness, SESSION_ID, STREAM_ID, TERM_LENGTH,
};
use aeronrs::driver::system_counters::SystemCounterId;
use aeronrs::protocol::data::DataHeader;
use proptest::prelude::*;

/// A well-formed datagram of one DATA frame for the harness's image.
fn frame(term_offset: i32, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; (payload.len() + 32).next_multiple_of(32)];
    DataHeader::data(SESSION_ID, STREAM_ID, INITIAL_TERM_ID, term_offset, payload.len())
        .encode_frame(payload, &mut out)
        .unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_datagrams_are_dropped_or_used_safely(datagrams in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 1..20)) {
        let mut h = ReceiverHarness::new().unwrap();
        for (k, d) in datagrams.iter().enumerate() {
            let _ = h.on_datagram(d, k as i64 * 1_000_000);
            h.send_pending(k as i64 * 1_000_000);
            prop_assert!(h.hwm() <= 32 * 1024);
        }
    }

    #[test]
    fn mutated_frames_never_corrupt_the_image(offset in 0i32..2048, payload in prop::collection::vec(any::<u8>(), 0..300), flips in prop::collection::vec((0usize..340, any::<u8>()), 1..4)) {
        let mut h = ReceiverHarness::new().unwrap();
        let aligned = offset * 32;
        let mut d = frame(aligned, &payload);
        let original = d.clone();
        for (at, value) in flips {
            let i = at % d.len();
            d[i] = value;
        }
        let invalid_before = h.system_counter(SystemCounterId::InvalidPackets);
        h.on_datagram(&d, 0).unwrap();
        let term = h.log().term(0);
        let written = term.get_i32_acquire(aligned as usize);
        if written != 0 {
            // Whatever was accepted fits the term and is exactly what came in.
            let length = d.len();
            prop_assert!(aligned as usize + length <= term.capacity());
            let mut copy = vec![0u8; length];
            term.load_bytes(aligned as usize, &mut copy);
            prop_assert_eq!(copy, d.clone());
        } else {
            // Only a mutation, or a frame reaching past the window (half a term beyond the
            // initial position: an over-run, dropped), stops a well-formed frame from being
            // rebuilt.
            let over_run = aligned as usize + d.len() > TERM_LENGTH / 2;
            prop_assert!(d != original || over_run, "a well-formed frame within the window was dropped");
        }
        if d == original {
            prop_assert_eq!(h.system_counter(SystemCounterId::InvalidPackets), invalid_before);
        }
        prop_assert!(h.hwm() <= 32 * 1024);
    }
}

#[test]
fn well_formed_frames_are_rebuilt_and_bad_ones_counted() {
    let mut h = ReceiverHarness::new().unwrap();
    let d = frame(1024, b"hello aeron");
    h.on_datagram(&d, 0).unwrap();
    let mut copy = vec![0u8; d.len()];
    h.log().term(0).load_bytes(1024, &mut copy);
    assert_eq!(copy, d);
    assert_eq!(h.hwm(), 1024 + d.len() as i64);
    let mut bad = frame(2048, b"x");
    bad[0..4].copy_from_slice(&1000i32.to_le_bytes());
    h.on_datagram(&bad, 0).unwrap();
    h.on_datagram(&[0u8; 5], 0).unwrap();
    assert_eq!(h.system_counter(SystemCounterId::InvalidPackets), 2);
    assert_eq!(h.log().term(0).get_i32_acquire(2048), 0);
    // Beyond the window (half a term past the last SM position): an over-run, dropped.
    h.on_datagram(&frame(40_000, b"far"), 0).unwrap();
    assert_eq!(h.system_counter(SystemCounterId::FlowControlOverRuns), 1);
    assert_eq!(h.log().term(0).get_i32_acquire(40_000), 0);
}
