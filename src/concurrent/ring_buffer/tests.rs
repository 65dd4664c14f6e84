//! Behaviour both ring buffers share, run against each (`both!`), asserting exact bytes at
//! exact offsets. Kind-specific cases (unblock, pre-zeroing) are at the bottom of each kind's file.

use super::descriptor::*;
use super::*;
use crate::util::error::Error;

pub(super) const CAPACITY: usize = 1024;

/// How the two kinds differ in what a test can observe.
pub(super) struct Kind<R> {
    pub make: fn(AtomicBuffer) -> Result<R>,
    /// The consumer zeroes consumed space (many-to-one).
    pub zeroes: bool,
    /// Extra room a claim needs beyond its record (one-to-one keeps a spare header).
    pub spare: usize,
    pub min_capacity: usize,
}

pub(super) fn mpsc() -> Kind<ManyToOneRingBuffer> {
    Kind { make: ManyToOneRingBuffer::new, zeroes: true, spare: 0, min_capacity: 8 }
}

pub(super) fn spsc() -> Kind<OneToOneRingBuffer> {
    Kind { make: OneToOneRingBuffer::new, zeroes: false, spare: 8, min_capacity: 16 }
}

impl<R: RingBuffer> Kind<R> {
    pub fn new_rb(&self) -> R {
        (self.make)(AtomicBuffer::alloc(CAPACITY + TRAILER_LENGTH)).unwrap()
    }
}

/// Puts head, head cache and tail where a test wants them.
pub(super) fn set_positions(rb: &impl RingBuffer, head: i64, tail: i64) {
    let b = rb.buffer();
    b.put_i64(CAPACITY + HEAD_POSITION_OFFSET, head);
    b.put_i64(CAPACITY + HEAD_CACHE_POSITION_OFFSET, head);
    b.put_i64(CAPACITY + TAIL_POSITION_OFFSET, tail);
}

/// All messages a read delivers, with their type ids.
pub(super) fn drain(rb: &impl RingBuffer, limit: usize) -> (usize, Vec<(i32, Vec<u8>)>) {
    let mut got = Vec::new();
    let n = rb.read(|t, p| got.push((t, p.to_vec())), limit).unwrap();
    (n, got)
}

pub(super) fn header(rb: &impl RingBuffer, index: usize) -> (i32, i32) {
    (rb.buffer().get_i32(index), rb.buffer().get_i32(index + 4))
}

fn assert_err(err: Error, code: i32, text: &str) {
    assert_eq!(err.code(), code, "{err}");
    assert!(err.message().contains(text), "expected '{text}' in '{err}'");
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod one_to_one_kind { $( #[test] fn $name() { super::$name(super::spsc()) } )* }
        mod many_to_one_kind { $( #[test] fn $name() { super::$name(super::mpsc()) } )* }
    };
}

both!(
    write_then_read_exact_bytes,
    trailer_words_at_exact_offsets,
    capacity_validation,
    bad_messages_are_distinct_errors,
    full_buffer_is_not_an_error,
    wrap_inserts_padding_record,
    wrap_without_room_at_start_pads_and_reports_full,
    exact_fit_at_end_needs_no_padding,
    claim_commit_publishes_in_place,
    record_claim_is_the_payload_and_commits_or_aborts,
    claim_abort_leaves_padding_the_reader_skips,
    commit_and_abort_reject_what_is_not_claimed,
    controlled_read_actions,
    message_count_limits,
    read_inside_handler_is_refused,
    handler_panic_still_consumes,
    corrupt_length_is_an_error,
    zero_length_payload_and_max_length,
);

fn write_then_read_exact_bytes<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert!(rb.write(7, b"abc").unwrap());
    assert_eq!(header(&rb, 0), (11, 7));
    // SAFETY: a test's private buffer; no other thread touches it.
    assert_eq!(unsafe { rb.buffer().published_slice(8, 3) }, b"abc");
    assert_eq!(rb.producer_position(), 16);
    assert_eq!(rb.consumer_position(), 0);
    assert_eq!(rb.size(), 16);
    assert!(rb.write(9, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap());
    assert_eq!(header(&rb, 16), (17, 9));
    assert_eq!(rb.producer_position(), 16 + 24);

    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!(n, 2);
    assert_eq!(got, vec![(7, b"abc".to_vec()), (9, vec![1, 2, 3, 4, 5, 6, 7, 8, 9])]);
    assert_eq!(rb.consumer_position(), 40);
    assert_eq!(rb.size(), 0);
    if kind.zeroes {
        // SAFETY: a test's private buffer; no other thread touches it.
        assert!(unsafe { rb.buffer().published_slice(0, 40) }.iter().all(|&b| b == 0));
    } else {
        assert_eq!(header(&rb, 0), (11, 7));
    }
    assert_eq!(drain(&rb, usize::MAX).0, 0);
}

fn trailer_words_at_exact_offsets<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert_eq!(rb.capacity(), CAPACITY);
    assert_eq!(rb.buffer().capacity(), CAPACITY + 768);
    assert!(rb.write(1, &[0; 24]).unwrap());
    assert_eq!(rb.next_correlation_id(), 0);
    assert_eq!(rb.next_correlation_id(), 1);
    rb.set_consumer_heartbeat_time(1_795_962_602_375);
    assert_eq!(rb.consumer_heartbeat_time(), 1_795_962_602_375);
    drain(&rb, usize::MAX);
    let b = rb.buffer();
    assert_eq!(b.get_i64(CAPACITY + 128), 32, "tail");
    assert_eq!(b.get_i64(CAPACITY + 384), 32, "head");
    assert_eq!(b.get_i64(CAPACITY + 512), 2, "correlation counter");
    assert_eq!(b.get_i64(CAPACITY + 640), 1_795_962_602_375, "consumer heartbeat");
    // Everything else in the trailer, the head cache included (never needed yet), is zero.
    for i in (CAPACITY..CAPACITY + 768).step_by(8) {
        if ![128, 384, 512, 640].contains(&(i - CAPACITY)) {
            assert_eq!(b.get_i64(i), 0, "trailer word at {}", i - CAPACITY);
        }
    }
}

fn capacity_validation<R: RingBuffer + std::fmt::Debug>(kind: Kind<R>) {
    let make = |len| (kind.make)(AtomicBuffer::alloc(len)).unwrap_err();
    assert_err(make(767), libc::EINVAL, "smaller than its 768-byte trailer");
    assert_err(make(768), libc::EINVAL, "capacity is 0");
    assert_err(make(768 + 1000), libc::EINVAL, "not a power of two");
    assert_err(make(768 + kind.min_capacity / 2), libc::EINVAL, "below the minimum");
    let smallest = (kind.make)(AtomicBuffer::alloc(768 + kind.min_capacity)).unwrap();
    assert_eq!(smallest.max_msg_length(), 0);
    assert_eq!(kind.new_rb().max_msg_length(), 128);
}

fn bad_messages_are_distinct_errors<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert_err(rb.write(0, b"x").unwrap_err(), libc::EINVAL, "type id must be >= 1");
    assert_err(rb.write(-1, b"x").unwrap_err(), libc::EINVAL, "type id must be >= 1");
    assert_err(rb.try_claim(0, 1).unwrap_err(), libc::EINVAL, "type id must be >= 1");
    assert_err(rb.write(1, &[0; 129]).unwrap_err(), libc::EINVAL, "exceeds max_msg_length 128");
    assert_err(rb.try_claim(1, 129).unwrap_err(), libc::EINVAL, "exceeds max_msg_length 128");
    assert_eq!(rb.producer_position(), 0, "rejected messages claim nothing");
}

fn full_buffer_is_not_an_error<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    let mut written = 0;
    while rb.write(3, &[0xAB; 24]).unwrap() {
        written += 1;
    }
    // 32-byte records: many-to-one fills all 1024 bytes; one-to-one keeps a spare header.
    assert_eq!(written, (CAPACITY - kind.spare) / 32);
    assert_eq!(rb.try_claim(3, 24).unwrap(), None);
    assert_eq!(rb.producer_position(), 32 * written as i64);
    assert_eq!(rb.size(), 32 * written);
    assert_eq!(drain(&rb, 1).0, 1);
    assert!(rb.write(3, &[0xAB; 24]).unwrap(), "room again after one read");
}

fn wrap_inserts_padding_record<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    set_positions(&rb, 1008, 1008);
    assert!(rb.write(5, &[0x11; 24]).unwrap());
    assert_eq!(header(&rb, 1008), (16, PADDING_MSG_TYPE_ID));
    assert_eq!(header(&rb, 0), (32, 5));
    assert_eq!(rb.producer_position(), 1008 + 16 + 32);
    // A read never wraps: the first pass consumes only the padding.
    assert_eq!(drain(&rb, usize::MAX).0, 0);
    assert_eq!(rb.consumer_position(), 1024);
    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!((n, got), (1, vec![(5, vec![0x11; 24])]));
    assert_eq!(rb.consumer_position(), 1056);
}

fn wrap_without_room_at_start_pads_and_reports_full<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    // Head index 16 (+ one-to-one's spare header): enough room in total, too little at 0.
    let head = 16 + kind.spare as i64;
    set_positions(&rb, head, 1008);
    assert!(CAPACITY as i64 - (1008 - head) >= 32 + kind.spare as i64);
    assert!(!rb.write(5, &[0x11; 24]).unwrap());
    // Java: the tail still moves over a padding record to the end of the buffer.
    assert_eq!(header(&rb, 1008), (16, PADDING_MSG_TYPE_ID));
    assert_eq!(rb.producer_position(), 1024);
    assert_eq!(header(&rb, 0), (0, 0), "nothing written at the start");
    assert_eq!(rb.buffer().get_i64(CAPACITY + HEAD_CACHE_POSITION_OFFSET), head);
}

fn exact_fit_at_end_needs_no_padding<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    set_positions(&rb, 992, 992);
    assert!(rb.write(6, &[0x22; 24]).unwrap());
    assert_eq!(header(&rb, 992), (32, 6));
    assert_eq!(rb.producer_position(), 1024);
    assert_eq!(header(&rb, 0), (0, 0));
    assert_eq!(drain(&rb, usize::MAX), (1, vec![(6, vec![0x22; 24])]));
    assert!(rb.write(6, b"next").unwrap());
    assert_eq!(header(&rb, 0), (12, 6));
}

fn claim_commit_publishes_in_place<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    let index = rb.try_claim(4, 5).unwrap().unwrap();
    assert_eq!(index, 8);
    assert_eq!(header(&rb, 0), (-13, 4), "claimed: negative length");
    assert!(rb.write(2, b"later").unwrap());
    assert_eq!(drain(&rb, usize::MAX).0, 0, "the reader waits at the claim");
    // SAFETY: a test's private buffer; no other thread touches it.
    unsafe { rb.buffer().put_bytes(index, b"hello") }
    rb.commit(index).unwrap();
    assert_eq!(header(&rb, 0), (13, 4));
    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!(n, 2);
    assert_eq!(got, vec![(4, b"hello".to_vec()), (2, b"later".to_vec())]);
}

fn record_claim_is_the_payload_and_commits_or_aborts<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    let mut claim = rb.try_claim_record(4, 5).unwrap().unwrap();
    assert_eq!(claim.index(), 8);
    assert_eq!(claim.payload().len(), 5, "exactly the payload");
    assert_eq!(header(&rb, 0), (-13, 4), "claimed: negative length");
    claim.payload().put_bytes(0, b"hello");
    let mut second = rb.try_claim_record(2, 3).unwrap().unwrap();
    assert_eq!(second.index(), 16 + 8, "after the first record (13 bytes, 8-aligned)");
    second.payload().as_mut_slice().copy_from_slice(b"bye");
    claim.commit().unwrap();
    second.abort().unwrap();
    assert_eq!(header(&rb, 0), (13, 4));
    assert_eq!(header(&rb, 16), (11, PADDING_MSG_TYPE_ID));
    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!((n, got), (1, vec![(4, b"hello".to_vec())]));
}

fn claim_abort_leaves_padding_the_reader_skips<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    let index = rb.try_claim(4, 20).unwrap().unwrap();
    assert!(rb.write(2, b"after").unwrap());
    rb.abort(index).unwrap();
    assert_eq!(header(&rb, 0), (28, PADDING_MSG_TYPE_ID));
    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!((n, got), (1, vec![(2, b"after".to_vec())]));
    assert_eq!(rb.consumer_position(), 32 + 16);
}

fn commit_and_abort_reject_what_is_not_claimed<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    for bad in [0, 4, 7, 12, CAPACITY + 1, usize::MAX] {
        assert_err(rb.commit(bad).unwrap_err(), libc::EINVAL, "invalid claim index");
        assert_err(rb.abort(bad).unwrap_err(), libc::EINVAL, "invalid claim index");
    }
    assert_err(rb.commit(8).unwrap_err(), libc::EPERM, "was never claimed");
    let a = rb.try_claim(1, 8).unwrap().unwrap();
    rb.commit(a).unwrap();
    assert_err(rb.commit(a).unwrap_err(), libc::EPERM, "was already committed");
    assert_err(rb.abort(a).unwrap_err(), libc::EPERM, "was already committed");
    let b = rb.try_claim(1, 8).unwrap().unwrap();
    rb.abort(b).unwrap();
    assert_err(rb.abort(b).unwrap_err(), libc::EPERM, "was already aborted");
    assert_err(rb.commit(b).unwrap_err(), libc::EPERM, "was already aborted");
    // The last record index the format allows is accepted as an index.
    assert_err(rb.commit(CAPACITY).unwrap_err(), libc::EPERM, "was never claimed");
}

fn controlled_read_actions<R: RingBuffer>(kind: Kind<R>) {
    use ControlledReadAction::*;
    let rb = kind.new_rb();
    for i in 1..=6u8 {
        assert!(rb.write(i32::from(i), &[i; 8]).unwrap());
    }
    // Every record is 16 bytes. Abort on the third: two consumed, head after them.
    let mut seen = Vec::new();
    let n = rb
        .controlled_read(
            |t, _| {
                seen.push(t);
                if t == 3 { Abort } else { Continue }
            },
            usize::MAX,
        )
        .unwrap();
    assert_eq!((n, seen.as_slice()), (2, &[1, 2, 3][..]));
    assert_eq!(rb.consumer_position(), 32);
    assert_eq!(header(&rb, 32), (16, 3), "aborted record still there");

    // Commit publishes the head at once; Break stops after the message.
    let mut heads = Vec::new();
    let n = rb
        .controlled_read(
            |t, _| {
                heads.push(rb.consumer_position());
                match t {
                    3 => Commit,
                    4 => Break,
                    _ => Continue,
                }
            },
            usize::MAX,
        )
        .unwrap();
    assert_eq!((n, heads.as_slice()), (2, &[32, 48][..]));
    assert_eq!(rb.consumer_position(), 64);
    if kind.zeroes {
        assert_eq!(header(&rb, 32), (0, 0), "committed space is zeroed");
    }
    let n = rb.controlled_read(|_, _| Continue, usize::MAX).unwrap();
    assert_eq!(n, 2);
    assert_eq!(rb.consumer_position(), 96);
}

fn message_count_limits<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    let index = rb.try_claim(1, 0).unwrap().unwrap();
    rb.abort(index).unwrap();
    for i in 1..=5 {
        assert!(rb.write(i, &[]).unwrap());
    }
    assert_eq!(drain(&rb, 0).0, 0);
    assert_eq!(rb.consumer_position(), 0);
    let (n, got) = drain(&rb, 2);
    assert_eq!(n, 2);
    assert_eq!(got.iter().map(|m| m.0).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(rb.consumer_position(), 24, "padding is skipped without counting");
    let n = rb.controlled_read(|_, _| ControlledReadAction::Continue, 2).unwrap();
    assert_eq!(n, 2);
    assert_eq!(drain(&rb, 10).0, 1);
    assert_eq!(rb.consumer_position(), 48);
}

fn read_inside_handler_is_refused<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert!(rb.write(1, b"a").unwrap());
    let mut inner = None;
    rb.read(|_, _| inner = Some(rb.read(|_, _| {}, 1)), 1).unwrap();
    assert_err(inner.unwrap().unwrap_err(), libc::EPERM, "inside a read handler");
    assert!(rb.write(1, b"b").unwrap());
    assert_eq!(drain(&rb, 1).0, 1, "reading works again after the handler returned");
}

fn handler_panic_still_consumes<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    for t in 1..=3 {
        assert!(rb.write(t, b"x").unwrap());
    }
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rb.read(|t, _| assert_ne!(t, 2, "poison message"), usize::MAX)
    }));
    assert!(caught.is_err());
    assert_eq!(rb.consumer_position(), 32, "messages 1 and 2 are consumed");
    assert_eq!(drain(&rb, usize::MAX).1, vec![(3, b"x".to_vec())]);
}

fn corrupt_length_is_an_error<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert!(rb.write(1, b"ok").unwrap());
    rb.buffer().put_i32(16, 4096);
    rb.buffer().put_i32(20, 1);
    let mut got = 0;
    assert_err(rb.read(|_, _| got += 1, usize::MAX).unwrap_err(), libc::EPERM, "corrupt");
    assert_eq!((got, rb.consumer_position()), (1, 16), "the good record before it is consumed");
    rb.buffer().put_i32(16, 5);
    assert!(rb.controlled_read(|_, _| ControlledReadAction::Continue, 1).is_err());
}

fn zero_length_payload_and_max_length<R: RingBuffer>(kind: Kind<R>) {
    let rb = kind.new_rb();
    assert!(rb.write(1, &[]).unwrap());
    assert!(rb.write(2, &[0x5A; 128]).unwrap());
    assert_eq!(header(&rb, 0), (8, 1));
    assert_eq!(header(&rb, 8), (136, 2));
    assert_eq!(rb.producer_position(), 8 + 136);
    let (n, got) = drain(&rb, usize::MAX);
    assert_eq!(n, 2);
    assert_eq!(got, vec![(1, vec![]), (2, vec![0x5A; 128])]);
}

#[test]
#[cfg_attr(miri, ignore = "miri cannot mmap files")]
fn mapped_file_is_shared_between_handles() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rb.dat");
    let producer = ManyToOneRingBuffer::create_mapped(&path, 4096).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096 + 768);
    let consumer = ManyToOneRingBuffer::open_mapped(&path).unwrap();
    assert!(producer.write(42, b"over the file").unwrap());
    assert_eq!(drain(&consumer, usize::MAX).1, vec![(42, b"over the file".to_vec())]);
    assert_eq!(producer.consumer_position(), 24);
    let spsc = OneToOneRingBuffer::create_mapped(&dir.path().join("o2o.dat"), 64).unwrap();
    assert_eq!(spsc.max_msg_length(), 8);
    assert!(OneToOneRingBuffer::create_mapped(&dir.path().join("bad"), 100).is_err());
    std::fs::write(dir.path().join("short"), [0u8; 700]).unwrap();
    assert!(ManyToOneRingBuffer::open_mapped(&dir.path().join("short")).is_err());
}

#[test]
fn heap_constructors_validate_capacity() {
    assert_eq!(ManyToOneRingBuffer::with_capacity(8).unwrap().max_msg_length(), 0);
    assert!(OneToOneRingBuffer::with_capacity(8).is_err());
    assert!(ManyToOneRingBuffer::with_capacity(0).is_err());
    assert!(ManyToOneRingBuffer::with_capacity(48).is_err());
    assert_eq!(OneToOneRingBuffer::with_capacity(1 << 20).unwrap().max_msg_length(), 131_072);
}

#[test]
fn action_values_match_c_and_java() {
    assert_eq!(ControlledReadAction::Abort as i32, 0);
    assert_eq!(ControlledReadAction::Break as i32, 1);
    assert_eq!(ControlledReadAction::Commit as i32, 2);
    assert_eq!(ControlledReadAction::Continue as i32, 3);
    for v in 0..4 {
        assert_eq!(ControlledReadAction::from_i32(v).map(|a| a as i32), Some(v));
    }
    assert_eq!(ControlledReadAction::from_i32(4), None);
    assert_eq!(ControlledReadAction::from_i32(-1), None);
}
