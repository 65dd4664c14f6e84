//! Log buffer behaviour across terms: padding and rotation at the end of a term, position
//! arithmetic for every term length, fragmented messages up to the max message length,
//! rebuilding from out-of-order and duplicated datagrams, and the unblocker's cases.
use aeronrs::concurrent::AtomicBuffer;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::logbuffer::term_unblocker::{UnblockStatus, unblock, unblock_log};
use aeronrs::logbuffer::{
    AppendOutcome, ExclusiveTermAppender, FragmentAssembler, Header, HeaderWriter, LogBuffers, TermAppender,
    term_gap_scanner, term_reader, term_rebuilder,
};
use proptest::prelude::*;

const SESSION: i32 = 77;
const STREAM: i32 = 1001;

fn appenders(log: &LogBuffers) -> Vec<TermAppender> {
    (0..3).map(|i| TermAppender::new(log.term(i).clone(), log.metadata().clone(), i).unwrap()).collect()
}

/// Offer as a concurrent publication does: returns (new position, admin actions seen).
fn offer(log: &LogBuffers, appenders: &[TermAppender], message: &[u8], max_payload: usize) -> (i64, usize) {
    let meta = log.metadata();
    let initial = d::initial_term_id(meta);
    let bits = d::position_bits_to_shift(log.term_length());
    let header = HeaderWriter::new(SESSION, STREAM);
    let mut admin = 0;
    loop {
        let term_count = d::active_term_count(meta);
        let index = d::index_by_term_count(term_count.into());
        let term_id = d::term_id(d::raw_tail_volatile(meta, index));
        match appenders[index].append(&header, message, max_payload, None, term_id).unwrap() {
            AppendOutcome::Appended { term_id, resulting_offset, .. } => {
                return (d::compute_position(term_id, resulting_offset, bits, initial), admin);
            }
            _ => {
                d::rotate_log(meta, term_count, term_id);
                admin += 1;
            }
        }
    }
}

fn new_log(initial_term_id: i32) -> LogBuffers {
    let log = LogBuffers::alloc(65536, 4096).unwrap();
    d::initialise_tails(log.metadata(), initial_term_id, initial_term_id, 0).unwrap();
    d::set_initial_term_id(log.metadata(), initial_term_id);
    d::fill_default_frame_header(log.metadata(), SESSION, STREAM, initial_term_id);
    log
}

#[test]
fn crossing_a_term_boundary_pads_rotates_and_continues() {
    let log = new_log(-5);
    let appenders = appenders(&log);
    let message = [0xAB; 1000];
    let mut admin_total = 0;
    let mut position = 0;
    // 62 × 1056 = 65472 fits; the 63rd trips the term with 64 bytes of padding.
    for _ in 0..63 {
        let (p, admin) = offer(&log, &appenders, &message, 1376);
        position = p;
        admin_total += admin;
    }
    assert_eq!(admin_total, 1);
    assert_eq!(position, 65536 + 1056);
    let term0 = log.term(0);
    assert_eq!(term0.get_i32(65472), 64, "PAD covers the rest of term 0");
    assert_eq!(term0.get_u16(65472 + 6), 0);
    assert_eq!(term0.get_u8(65472 + 5), 0xC0);
    assert_eq!(term0.get_i32(65472 + 8), 65472);
    assert_eq!(term0.get_i32(65472 + 20), -5);
    assert!(term0.load_vec(65472 + 32, 32).iter().all(|&b| b == 0));
    assert_eq!(d::active_term_count(log.metadata()), 1);
    assert_eq!(d::raw_tail(log.metadata(), 0), d::pack_tail(-5, 65472 + 1056));
    assert_eq!(d::raw_tail(log.metadata(), 1), d::pack_tail(-4, 1056));
    assert_eq!(log.term(1).get_i32(20), -4, "the retried message opens term -4 at offset 0");

    // The reader passes the padding and then continues in the next partition.
    let mut header = Header::new(-5, 16);
    let mut count = 0;
    let outcome = term_reader::read(term0, 0, 1000, &mut header, |_, _| count += 1);
    assert_eq!((outcome.offset, count), (65536, 62));
    let outcome =
        term_reader::read(log.term(1), 0, 1000, &mut header, |_, h| assert_eq!(h.position(), 66592));
    assert_eq!(outcome.fragments_read, 1);
}

#[test]
fn exclusive_appender_crosses_terms_with_local_state() {
    let log = new_log(0);
    let mut appenders: Vec<ExclusiveTermAppender> = (0..3)
        .map(|i| ExclusiveTermAppender::new(log.term(i).clone(), log.metadata().clone(), i).unwrap())
        .collect();
    let header = HeaderWriter::new(SESSION, STREAM);
    let (mut term_id, mut term_offset, mut term_count) = (0, 0, 0);
    let mut trips = 0;
    for i in 0..200u32 {
        loop {
            let index = d::index_by_term_count(term_count.into());
            match appenders[index]
                .append(&header, term_id, term_offset, &i.to_le_bytes().repeat(250), 1376, None)
                .unwrap()
            {
                AppendOutcome::Appended { resulting_offset, .. } => {
                    term_offset = resulting_offset;
                    break;
                }
                AppendOutcome::Tripped { .. } => {
                    d::rotate_log_exclusive(log.metadata(), term_count, term_id);
                    trips += 1;
                    term_count += 1;
                    term_id += 1;
                    term_offset = 0;
                }
                AppendOutcome::Failed { .. } => panic!("a single writer never fails"),
            }
        }
    }
    // 200 × 1056 bytes: 62 per term, so terms 0..3 and three trips.
    assert_eq!(trips, 3);
    assert_eq!(d::active_term_count(log.metadata()), 3);
    assert_eq!(term_offset, (200 - 3 * 62) * 1056);
    assert_eq!(d::raw_tail(log.metadata(), 0), d::pack_tail(3, term_offset));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn positions_round_trip_for_every_term_length(
        bits in 16u32..=30,
        initial_term_id in any::<i32>(),
        term_count in 0i32..=i32::MAX,
        slot in any::<u32>(),
    ) {
        let term_length = 1usize << bits;
        prop_assert!(d::check_term_length(term_length).is_ok());
        prop_assert_eq!(d::position_bits_to_shift(term_length), bits);
        let term_offset = ((slot as usize * 32) & (term_length - 1)) as i32;
        let term_id = initial_term_id.wrapping_add(term_count);
        let position = d::compute_position(term_id, term_offset, bits, initial_term_id);
        prop_assert!(position >= 0);
        prop_assert!(position < d::max_possible_position(term_length));
        prop_assert_eq!(d::compute_term_id_from_position(position, bits, initial_term_id), term_id);
        prop_assert_eq!(d::compute_term_offset_from_position(position, bits), term_offset);
        prop_assert_eq!(d::index_by_position(position, bits), (term_count % 3) as usize);
        prop_assert_eq!(d::index_by_term(initial_term_id, term_id), (term_count % 3) as usize);
        let raw = d::pack_tail(term_id, term_offset);
        prop_assert_eq!(d::term_id(raw), term_id);
        prop_assert_eq!(d::term_offset(raw, term_length), term_offset);
        prop_assert_eq!(d::compute_term_begin_position(term_id, bits, initial_term_id), position - i64::from(term_offset));
    }
}

#[test]
fn fragmented_messages_up_to_max_length_reassemble_exactly() {
    let log = new_log(3);
    let appenders = appenders(&log);
    let max = d::compute_max_message_length(65536);
    assert_eq!(max, 8192);
    let lengths = [1377, 2752, 2753, 4000, max - 1, max];
    let messages: Vec<Vec<u8>> =
        lengths.iter().enumerate().map(|(m, &n)| (0..n).map(|j| (j * 31 + m) as u8).collect()).collect();
    let mut ends = Vec::new();
    for m in &messages {
        ends.push(offer(&log, &appenders, m, 1376).0);
    }
    let err = appenders[0]
        .append(&HeaderWriter::new(SESSION, STREAM), &vec![0; max + 1], 1376, None, 3)
        .unwrap_err();
    assert_eq!(err.code(), libc::EINVAL);
    assert_eq!(err.message(), format!("length={} > max_message_length={max}", max + 1));

    let mut got: Vec<(Vec<u8>, i64)> = Vec::new();
    let mut assembler = FragmentAssembler::with_initial_buffer_length(
        |p: &[u8], h: &Header| got.push((p.to_vec(), h.position())),
        64,
    );
    let mut header = Header::new(3, 16);
    let mut offset = 0;
    loop {
        let outcome =
            term_reader::read(log.term(0), offset, 3, &mut header, |p, h| assembler.on_fragment(p, h));
        if outcome.offset == offset {
            break;
        }
        offset = outcome.offset;
    }
    drop(assembler);
    assert_eq!(got.len(), messages.len());
    for ((payload, position), (message, end)) in got.iter().zip(messages.iter().zip(&ends)) {
        assert!(payload == message, "message of {} bytes reassembled exactly", message.len());
        assert_eq!(position, end);
    }
}

/// Frames of a term written by our appender, cut into single-frame datagrams.
fn frames_of(log: &LogBuffers, count: usize) -> Vec<(usize, Vec<u8>)> {
    let term = log.term(0);
    let mut out = Vec::new();
    let mut offset = 0;
    for _ in 0..count {
        let aligned = (term.get_i32(offset) as usize).div_ceil(32) * 32;
        out.push((offset, term.load_vec(offset, aligned).to_vec()));
        offset += aligned;
    }
    out
}

#[test]
fn rebuilder_and_gap_scanner_with_out_of_order_and_duplicate_frames() {
    let source = new_log(0);
    let appenders = appenders(&source);
    for k in 0..8usize {
        offer(&source, &appenders, &vec![k as u8; 100 + 40 * k], 1376);
    }
    let frames = frames_of(&source, 8);
    let image = AtomicBuffer::alloc(65536);
    let hwm = frames[7].0 + frames[7].1.len();
    let gaps = |image: &AtomicBuffer| {
        let mut found = Vec::new();
        let end = term_gap_scanner::scan_for_gap(image, 0, 0, hwm, |t, o, l| found.push((t, o, l)));
        (end, found)
    };
    for &i in &[0usize, 3, 3, 7, 1] {
        assert!(term_rebuilder::insert(&image, frames[i].0, &frames[i].1).is_ok());
    }
    // 0 and 1 present, 2 missing up to 3, then 4..6 missing up to 7.
    let (end, found) = gaps(&image);
    assert_eq!(end, frames[2].0);
    assert_eq!(found, vec![(0, frames[2].0, frames[3].0 - frames[2].0)]);
    assert!(!term_rebuilder::insert(&image, frames[0].0, &frames[1].1).unwrap(), "duplicate ignored");
    for &i in &[2usize, 5, 0, 2] {
        term_rebuilder::insert(&image, frames[i].0, &frames[i].1).unwrap();
    }
    let (end, found) = gaps(&image);
    assert_eq!(end, frames[4].0);
    assert_eq!(found, vec![(0, frames[4].0, frames[5].0 - frames[4].0)]);
    for &i in &[6usize, 4, 6] {
        term_rebuilder::insert(&image, frames[i].0, &frames[i].1).unwrap();
    }
    let (end, found) = gaps(&image);
    assert_eq!((end, found.len()), (hwm, 0));
    assert_eq!(image.load_vec(0, hwm), source.term(0).load_vec(0, hwm));
}

fn unblocker_log() -> (LogBuffers, Vec<TermAppender>) {
    let log = new_log(100);
    let appenders = appenders(&log);
    (log, appenders)
}

#[test]
fn unblocker_turns_a_claimed_frame_into_padding() {
    let (log, appenders) = unblocker_log();
    let header = HeaderWriter::new(SESSION, STREAM);
    offer(&log, &appenders, b"before", 1376);
    // The publisher "dies" holding the claim: it neither commits nor aborts.
    let (_, _claim) = appenders[0].claim(&header, 100, 100);
    offer(&log, &appenders, b"after", 1376);
    let tail = d::term_offset(d::raw_tail(log.metadata(), 0), 65536) as usize;
    assert_eq!(log.term(0).get_i32(64), -132);
    assert_eq!(unblock(log.metadata(), log.term(0), 64, tail, 100), UnblockStatus::Unblocked);
    let mut bytes = [0u8; 32];
    log.term(0).load_bytes(64, &mut bytes);
    let h = Header::from_bytes(&bytes, 100, 16).unwrap();
    assert_eq!((h.frame_length(), h.frame_type(), h.flags(), h.term_offset()), (132, 0, 0xC0, 64));
    assert_eq!((h.session_id(), h.stream_id(), h.term_id()), (SESSION, STREAM, 100));
    let mut seen = Vec::new();
    term_reader::read(log.term(0), 0, 10, &mut Header::new(100, 16), |p, _| seen.push(p.to_vec()));
    assert_eq!(seen, vec![b"before".to_vec(), b"after".to_vec()]);
    assert_eq!(unblock(log.metadata(), log.term(0), 64, tail, 100), UnblockStatus::NoAction);
}

#[test]
fn unblocker_pads_a_zero_gap_before_a_later_frame() {
    let (log, appenders) = unblocker_log();
    offer(&log, &appenders, b"x", 1376);
    // A publisher took [64, 192) with get-and-add and died before writing its header.
    log.metadata().get_and_add_i64(0, 128);
    offer(&log, &appenders, b"y", 1376);
    let tail = d::term_offset(d::raw_tail(log.metadata(), 0), 65536) as usize;
    assert_eq!(unblock(log.metadata(), log.term(0), 64, tail, 100), UnblockStatus::Unblocked);
    assert_eq!(log.term(0).get_i32(64), 128);
    assert_eq!(log.term(0).get_u16(64 + 6), 0);
    // A zero region that is not followed by a frame below the tail is left alone.
    let log2 = new_log(100);
    log2.metadata().get_and_add_i64(0, 256);
    assert_eq!(unblock(log2.metadata(), log2.term(0), 0, 256, 100), UnblockStatus::NoAction);
}

#[test]
fn unblocker_pads_to_the_end_and_the_log_unblocker_rotates() {
    let (log, appenders) = unblocker_log();
    let message = [1u8; 1000];
    for _ in 0..62 {
        offer(&log, &appenders, &message, 1376);
    }
    // The next publisher claims past the end and dies before padding.
    log.metadata().get_and_add_i64(0, 1056);
    assert_eq!(d::active_term_count(log.metadata()), 0);
    assert!(unblock_log(&log, 65472));
    assert_eq!(log.term(0).get_i32(65472), 64);
    assert_eq!(log.term(0).get_u16(65472 + 6), 0);
    assert_eq!(d::active_term_count(log.metadata()), 1, "rotated after padding to the end");
    assert_eq!(d::raw_tail(log.metadata(), 1), d::pack_tail(101, 0));
    let (position, admin) = offer(&log, &appenders, &message, 1376);
    assert_eq!((position, admin), (65536 + 1056, 0));
}

#[test]
fn log_unblocker_rotates_for_a_publisher_that_died_before_rotating() {
    let (log, appenders) = unblocker_log();
    let header = HeaderWriter::new(SESSION, STREAM);
    for _ in 0..62 {
        offer(&log, &appenders, &[2u8; 1000], 1376);
    }
    // This publisher trips the term (writing the padding) and dies before rotating.
    let outcome = appenders[0].append(&header, &[3u8; 1000], 1376, None, 100).unwrap();
    assert_eq!(outcome, AppendOutcome::Tripped { term_id: 100, term_offset: 65472 });
    assert_eq!(d::active_term_count(log.metadata()), 0);
    // Consumers passed the padding and wait at the start of term 1.
    assert!(unblock_log(&log, 65536));
    assert_eq!(d::active_term_count(log.metadata()), 1);
    assert!(!unblock_log(&log, 0), "a consumed frame needs no action");
}
