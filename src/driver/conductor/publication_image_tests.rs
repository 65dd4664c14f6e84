//! Unit tests of the conductor's half of an image: rebuild tracking, loss reports, status
//! message scheduling and the life cycle.

use super::*;
use crate::concurrent::AtomicBuffer;
use crate::driver::congestion::StaticWindowCongestionControl;
use crate::driver::loss::FeedbackDelay;

const TERM: usize = 65536;
const INITIAL_TERM_ID: i32 = 100;
const MS: i64 = 1_000_000;

struct Fixture {
    image: ImageEntry,
    values: AtomicBuffer,
    report: LossReport,
}

fn fixture() -> Fixture {
    let values = AtomicBuffer::alloc(64 * 128);
    let log = LogBuffers::alloc(TERM, 4096).unwrap();
    let identity = ImageIdentity {
        setup_flags: 0,
        correlation_id: 9,
        session_id: 7,
        stream_id: 1001,
        endpoint_id: 1,
        channel: "aeron:udp?endpoint=127.0.0.1:20121".to_string(),
        source_address: "127.0.0.1:20122".parse().unwrap(),
        source_identity: "127.0.0.1:20122".to_string(),
        initial_term_id: INITIAL_TERM_ID,
    };
    let settings = ImageSettings {
        liveness_timeout_ns: 10_000 * MS,
        sm_timeout_ns: 200 * MS,
        untethered: UntetheredTimeouts { window_limit_ns: 5_000 * MS, resting_ns: 10_000 * MS },
    };
    let image = ImageEntry::new(
        identity,
        settings,
        log,
        "x".to_string(),
        Position::new(&values, 1),
        Position::new(&values, 2),
        Arc::new(ImageStatus::new(0, 32768, 0)),
        LossDetector::new(FeedbackDelay::unicast(100_000, 100)),
        Box::new(StaticWindowCongestionControl::new(128 * 1024, TERM)),
        0,
        0,
    );
    Fixture { image, values, report: LossReport::new(AtomicBuffer::alloc(4096)) }
}

impl Fixture {
    fn frame(&self, offset: usize) {
        self.image.log.term(0).put_i32_release(offset, 1032);
    }

    fn set_hwm(&self, hwm: i64) {
        self.values.put_i64(128, hwm);
    }

    fn rcv_pos(&self) -> i64 {
        self.values.get_i64(2 * 128)
    }

    fn set_subscriber(&self, position: i64) {
        self.values.put_i64(3 * 128, position);
    }
}

#[test]
fn rebuild_position_follows_contiguous_data_and_gaps_are_reported() {
    let mut f = fixture();
    assert_eq!(f.image.track_rebuild(MS, 1, &mut f.report), 0, "no subscriber: nothing to do");
    f.image.subscribers.add(11, Position::new(&f.values, 3), true, 0);
    f.frame(0);
    f.frame(1056);
    f.frame(3168);
    f.set_hwm(4224);
    f.image.track_rebuild(2 * MS, 1, &mut f.report);
    assert_eq!(f.rcv_pos(), 2112, "up to the gap at 2112");
    assert_eq!(f.image.status.pending_loss(-1), None, "not before the 100 µs delay");
    f.image.track_rebuild(2 * MS + 100_000, 1, &mut f.report);
    let loss = f.image.status.pending_loss(-1).unwrap();
    assert_eq!((loss.term_id, loss.term_offset, loss.length), (INITIAL_TERM_ID, 2112, 1056));
    let mut entries = Vec::new();
    crate::driver::loss::read_loss_report(f.report.buffer(), |e| entries.push(e));
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].total_bytes_lost, entries[0].source.as_str()), (1056, "127.0.0.1:20122"));
    f.frame(2112);
    f.image.track_rebuild(3 * MS, 2, &mut f.report);
    assert_eq!(f.rcv_pos(), 4224);
}

#[test]
fn status_messages_are_scheduled_after_a_quarter_window_of_consumption() {
    let mut f = fixture();
    f.image.subscribers.add(11, Position::new(&f.values, 3), true, 0);
    f.set_subscriber(8192);
    assert_eq!(f.image.track_rebuild(MS, 1, &mut f.report), 0, "8192 is not beyond a quarter of 32768");
    f.set_subscriber(8224);
    assert_eq!(f.image.track_rebuild(2 * MS, 1, &mut f.report), 1);
    let sm = f.image.status.scheduled_status_message().unwrap();
    assert_eq!((sm.change_number, sm.position, sm.window_length), (0, 8224, 32768));
}

#[test]
fn life_cycle_drains_then_lingers_then_ends() {
    let mut f = fixture();
    f.image.subscribers.add(11, Position::new(&f.values, 3), true, 0);
    let mut events = Vec::new();
    f.image.on_time_event(5_000 * MS, |_, e| events.push(e));
    assert_eq!(f.image.state, ImageState::Active);
    // No packet for the 10 s liveness timeout: draining, with EOS status messages.
    f.image.on_time_event(10_001 * MS, |_, e| events.push(e));
    assert_eq!(f.image.state, ImageState::Draining);
    assert!(f.image.status.is_sending_eos_sm.load(Ordering::Acquire));
    // Drained (the subscriber is at rcv-pos) but not 5 SM timeouts (1 s) yet.
    f.image.on_time_event(10_500 * MS, |_, e| events.push(e));
    assert_eq!(f.image.state, ImageState::Draining);
    f.image.on_time_event(11_002 * MS, |_, e| events.push(e));
    assert_eq!((f.image.state, events.as_slice()), (ImageState::Linger, &[ImageEvent::Linger][..]));
    f.image.subscribers.remove(11);
    f.image.on_time_event(11_100 * MS, |_, e| events.push(e));
    assert_eq!(f.image.state, ImageState::Done);
    assert!(!f.image.has_reached_end_of_life(), "until the receiver released it");
    f.image.receiver_released = true;
    assert!(f.image.has_reached_end_of_life());
}

#[test]
fn end_of_stream_drains_once_everything_was_rebuilt() {
    let mut f = fixture();
    f.image.subscribers.add(11, Position::new(&f.values, 3), true, 0);
    f.image.status.is_end_of_stream.store(true, Ordering::Release);
    f.set_hwm(1056);
    f.image.on_time_event(MS, |_, _| {});
    assert_eq!(f.image.state, ImageState::Active, "rcv-pos has not reached the hwm");
    f.frame(0);
    f.image.track_rebuild(2 * MS, 1, &mut f.report);
    f.image.on_time_event(3 * MS, |_, _| {});
    assert_eq!(f.image.state, ImageState::Draining);
}
