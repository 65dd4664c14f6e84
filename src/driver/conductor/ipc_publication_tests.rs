//! Unit tests of the conductor's IPC publication: its limit, the cleaning behind it, and
//! draining after the last reference.

use super::*;
use crate::concurrent::AtomicBuffer;
use crate::driver::conductor::params::PublicationParams;
use crate::driver::context::DriverContext;

const TERM: usize = 65536;

fn publication(values: &AtomicBuffer) -> IpcPublication {
    let ctx = DriverContext { ipc_term_buffer_length: TERM, ..DriverContext::default() };
    let params = PublicationParams::for_ipc(&ctx, 1, |_| None, |_| None).unwrap();
    let log = LogBuffers::alloc(TERM, 4096).unwrap();
    log::initialise_tails(log.metadata(), 100, 100, 0).unwrap();
    let config = IpcPublicationConfig {
        registration_id: 5,
        session_id: 6,
        stream_id: 1,
        channel: IPC_CHANNEL.to_string(),
        is_exclusive: false,
        initial_term_id: 100,
        params,
        unblock_timeout_ns: 1_000,
    };
    IpcPublication::new(config, log, "x".into(), Position::new(values, 0), Position::new(values, 1), 0)
}

#[test]
fn limit_follows_the_slowest_subscriber_and_space_behind_it_is_cleaned() {
    let values = AtomicBuffer::alloc(8 * 128);
    let mut p = publication(&values);
    assert_eq!(p.update_pub_pos_and_lmt(), 0, "no subscriber: nothing to do");
    p.add_subscriber(10, Position::new(&values, 2), true, 0);
    p.add_subscriber(11, Position::new(&values, 3), true, 0);
    assert!(log::is_connected(p.log.metadata()));
    assert_eq!(p.update_pub_pos_and_lmt(), 1);
    assert_eq!(values.get_i64(128), TERM as i64 / 2, "limit = slowest + window");

    // 1024 bytes published and read by both subscribers.
    let term = p.log.term(0).clone();
    term.fill_bytes(0, 1024, 0xAB);
    p.log.metadata().put_i64(0, log::pack_tail(100, 1024));
    values.put_i64(2 * 128, 1024);
    values.put_i64(3 * 128, 512);
    assert_eq!(p.update_pub_pos_and_lmt(), 0, "below the trip gain: limit unchanged");
    assert_eq!(values.get_i64(0), 1024, "pub-pos sampled");
    values.put_i64(3 * 128, 1024 * 8);
    values.put_i64(2 * 128, 1024 * 8);
    p.log.metadata().put_i64(0, log::pack_tail(100, 8192));
    assert_eq!(p.update_pub_pos_and_lmt(), 1);
    assert_eq!(values.get_i64(128), 8192 + TERM as i64 / 2);
    assert!((0..1024).all(|i| term.get_u8(i) == 0), "consumed space zeroed");
    assert_eq!(p.join_position(), 8192);

    // The last subscriber leaving disconnects; the limit is pulled back to consumption.
    assert!(p.remove_subscriber(10).is_some());
    assert!(log::is_connected(p.log.metadata()));
    assert!(p.remove_subscriber(11).is_some());
    assert!(!log::is_connected(p.log.metadata()));
    assert!(p.remove_subscriber(11).is_none());
    p.update_pub_pos_and_lmt();
    assert_eq!(values.get_i64(128), 8192, "no subscribers: held at the consumer position");
}

#[test]
fn last_reference_starts_draining_at_the_producer_position() {
    let values = AtomicBuffer::alloc(8 * 128);
    let mut p = publication(&values);
    p.incref();
    p.log.metadata().put_i64(0, log::pack_tail(100, 256));
    values.put_i64(128, 4096);
    p.decref();
    assert_eq!(p.state, PublicationState::Active, "one reference left");
    p.decref();
    assert_eq!(p.state, PublicationState::Draining);
    assert_eq!(values.get_i64(128), 256, "limit lowered to the producer position");
    assert_eq!(log::end_of_stream_position(p.log.metadata()), 256);
    assert!(p.is_drained(), "no subscribers to wait for");
    assert!(!p.is_accepting_subscriptions());
}
