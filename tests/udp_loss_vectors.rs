//! The loss components against the real Aeron 1.48 run with loss (`udp-loss.*` vectors):
//! the loss report file byte for byte, the receiver's NAKs when the capture is replayed
//! through our interceptor, rebuilder and loss detector, and the sender's answers to the
//! captured NAKs (linger, dedupe, resent bytes).

mod common;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::driver::flow_control::UnicastFlowControl;
use aeronrs::driver::loss::loss_report::{LossEntry, LossReport, read_loss_report};
use aeronrs::driver::loss::resend::resend_from_term;
use aeronrs::driver::loss::retransmit_handler::{NakOutcome, RetransmitHandler};
use aeronrs::driver::loss::{FeedbackDelay, Gap, LossDetector, TermGeometry};
use aeronrs::driver::media::loss_injection::{IncomingInterceptors, InterceptorArgs};
use aeronrs::logbuffer::descriptor::{compute_position, index_by_term};
use aeronrs::logbuffer::term_rebuilder::insert;
use aeronrs::protocol::nak::Nak;

const SESSION_ID: i32 = 1606141585;
const STREAM_ID: i32 = 1002;
const INITIAL_TERM_ID: i32 = -2003285294;
const TERM_LENGTH: usize = 65536;
const GEOMETRY: TermGeometry = TermGeometry { initial_term_id: INITIAL_TERM_ID, position_bits_to_shift: 16 };

/// A captured datagram with its time in ns since the first packet.
struct Packet {
    number: usize,
    time_ns: i64,
    dst_port: u16,
    payload: Vec<u8>,
}

/// Classic little-endian pcap, Ethernet + IPv4 + UDP headers (42 bytes) before each payload.
fn packets(pcap: &[u8]) -> Vec<Packet> {
    let mut out: Vec<Packet> = Vec::new();
    let (mut at, mut first_us) = (24, None);
    while at + 16 <= pcap.len() {
        let word = |o: usize| u32::from_le_bytes(pcap[at + o..at + o + 4].try_into().unwrap());
        let micros = i64::from(word(0)) * 1_000_000 + i64::from(word(4));
        let first = *first_us.get_or_insert(micros);
        let captured = word(8) as usize;
        let packet = &pcap[at + 16..at + 16 + captured];
        out.push(Packet {
            number: out.len() + 1,
            time_ns: (micros - first) * 1000,
            dst_port: u16::from_be_bytes([packet[36], packet[37]]),
            payload: packet[42..].to_vec(),
        });
        at += 16 + captured;
    }
    out
}

fn i32_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

fn frame_type(payload: &[u8]) -> u16 {
    u16::from_le_bytes([payload[6], payload[7]])
}

fn naks_in(packets: &[Packet]) -> Vec<(usize, i64, Gap)> {
    packets
        .iter()
        .filter(|p| p.dst_port == 20122 && frame_type(&p.payload) == 2)
        .map(|p| {
            let gap = Gap {
                term_id: i32_at(&p.payload, 16),
                term_offset: i32_at(&p.payload, 20),
                length: i32_at(&p.payload, 24),
            };
            (p.number, p.time_ns, gap)
        })
        .collect()
}

#[test]
fn loss_report_is_byte_identical_to_the_c_drivers() {
    let Some(expected) = common::read_vector("udp-loss.loss-report.dat.gz") else { return };
    assert_eq!(expected.len(), 1 << 20);
    let mut report = LossReport::new(AtomicBuffer::alloc(1 << 20));
    // One observation per NAK of the capture (13, totalling 16 × 1056 bytes); only the first
    // and last timestamps survive in the file, so the ones between are arbitrary.
    let lengths = [1056, 1056, 2112, 2112, 2112, 1056, 1056, 1056, 1056, 1056, 1056, 1056, 1056];
    let entry = report
        .create_entry(
            lengths[0],
            1795962617371,
            SESSION_ID,
            STREAM_ID,
            "aeron:udp?endpoint=127.0.0.1:20121",
            "127.0.0.1:20122",
        )
        .unwrap();
    for (i, &length) in lengths.iter().enumerate().skip(1) {
        let timestamp = if i == lengths.len() - 1 { 1795962617415 } else { 1795962617371 + i as i64 };
        report.record_observation(entry, length, timestamp);
    }
    let mut written = vec![0u8; 1 << 20];
    report.buffer().load_bytes(0, &mut written);
    let first_difference = written.iter().zip(&expected).position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "loss-report.dat differs from the vector");

    // Reading the vector gives the decoded facts.
    let vector = AtomicBuffer::alloc(1 << 20);
    vector.store_bytes(0, &expected);
    let mut entries = Vec::new();
    assert_eq!(read_loss_report(&vector, |e| entries.push(e)), 1);
    assert_eq!(
        entries[0],
        LossEntry {
            observation_count: 13,
            total_bytes_lost: 16896,
            first_observation_ms: 1795962617371,
            last_observation_ms: 1795962617415,
            session_id: SESSION_ID,
            stream_id: STREAM_ID,
            channel: "aeron:udp?endpoint=127.0.0.1:20121".to_string(),
            source: "127.0.0.1:20122".to_string(),
        }
    );
}

/// The subscriber side replayed: every datagram sent to the subscriber goes through the
/// `loss` interceptor configured as in the run (`rate=0.2|seed=7|recv-msg-mask=0x2`); what
/// passes is rebuilt into the image terms; at every captured packet's time the loss
/// detector scans (as the conductor's duty cycle would) with the default unicast delays.
/// The NAKs it emits are the 13 NAKs of the capture, in order.
#[test]
fn replayed_receiver_naks_exactly_what_the_c_driver_naked() {
    let Some(pcap) = common::read_vector("udp-loss.pcap") else { return };
    let packets = packets(&pcap);
    let args = InterceptorArgs { loss: Some("rate=0.2|seed=7|recv-msg-mask=0x2"), ..Default::default() };
    let mut chain = IncomingInterceptors::parse("loss", &args).unwrap().unwrap().new_chain();
    let terms: Vec<AtomicBuffer> = (0..3).map(|_| AtomicBuffer::alloc(TERM_LENGTH)).collect();
    let mut detector = LossDetector::new(FeedbackDelay::unicast(100_000, 100));
    let (mut hwm, mut rebuild) = (0i64, 0i64);
    let mut naks = Vec::new();
    for p in &packets {
        let d = &p.payload;
        if p.dst_port == 20121 && frame_type(d) <= 1 && !chain.should_drop(d) {
            let (term_offset, term_id) = (i32_at(d, 8), i32_at(d, 20));
            let position = compute_position(term_id, term_offset, 16, INITIAL_TERM_ID);
            let is_heartbeat = d.len() == 32 && i32_at(d, 0) == 0;
            if !is_heartbeat {
                insert(&terms[index_by_term(INITIAL_TERM_ID, term_id)], term_offset as usize, d).unwrap();
            }
            hwm = hwm.max(position + if is_heartbeat { 0 } else { d.len() as i64 });
        }
        if rebuild < hwm {
            let term = &terms[index_by_term(INITIAL_TERM_ID, INITIAL_TERM_ID + (rebuild >> 16) as i32)];
            let outcome = detector.scan(term, rebuild, hwm, GEOMETRY, p.time_ns, |gap| naks.push(gap));
            rebuild = (rebuild & !0xFFFF) + i64::from(outcome.rebuild_offset);
        }
    }
    let captured: Vec<Gap> = naks_in(&packets).into_iter().map(|n| n.2).collect();
    assert_eq!(captured.len(), 13);
    assert_eq!(naks, captured);
    assert_eq!(naks.iter().map(|g| i64::from(g.length)).sum::<i64>(), 16896, "the loss report's total");
    assert_eq!(hwm, 65536 + 4224, "the run's end position");
    assert_eq!(rebuild, hwm, "the image was rebuilt completely");
}

/// The publisher side replayed: each captured NAK goes to a unicast retransmit handler
/// (no delay, 10 ms linger, as configured in the run). The sender's clock for an answered
/// NAK is taken as the time of the retransmission that answered it, for the unanswered
/// one as its arrival. 12 NAKs are answered and 1 (pkt 97) falls in the linger; the resent
/// datagrams, built from the rebuilt image log, equal the captured retransmissions.
#[test]
fn replayed_sender_answers_naks_like_the_c_driver() {
    let (Some(pcap), Some(log)) =
        (common::read_vector("udp-loss.pcap"), common::read_vector("udp-loss-image.logbuffer"))
    else {
        return;
    };
    let packets = packets(&pcap);
    let term = AtomicBuffer::alloc(TERM_LENGTH);
    term.store_bytes(0, &log[..TERM_LENGTH]);
    let retransmissions: Vec<&Packet> = {
        let mut seen = std::collections::HashSet::new();
        packets
            .iter()
            .filter(|p| p.dst_port == 20121 && frame_type(&p.payload) == 1 && p.payload.len() > 32)
            .filter(|p| !seen.insert((i32_at(&p.payload, 20), i32_at(&p.payload, 8))))
            .collect()
    };
    assert_eq!(retransmissions.len(), 15);
    let fc = UnicastFlowControl::unicast();
    let mut handler = RetransmitHandler::new(0, 10_000_000, false, 16);
    let mut resent: Vec<Vec<u8>> = Vec::new();
    let mut outcomes = Vec::new();
    for (number, time_ns, gap) in naks_in(&packets) {
        let answer =
            packets.iter().find(|p| p.number > number && p.dst_port == 20121 && p.payload.len() > 32);
        let answered_by_retransmission = answer.is_some_and(|a| {
            retransmissions.iter().any(|r| r.number == a.number) && a.time_ns - time_ns < 1_000_000
        });
        let now = if answered_by_retransmission { answer.unwrap().time_ns } else { time_ns };
        handler.process_timeouts(now, |_, _, _, _| unreachable!("no retransmit delay")).unwrap();
        let nak = Nak::new(SESSION_ID, STREAM_ID, gap.term_id, gap.term_offset, gap.length);
        let outcome = handler
            .on_nak(&nak, None, TERM_LENGTH, 1408, &fc, now, |_, offset, length, _| {
                resend_from_term(&term, offset as usize, length, 1408, |batch| {
                    resent.extend(batch.iter().map(|d| d.to_vec()));
                    Ok(batch.len())
                })
                .map(|_| ())
            })
            .unwrap();
        outcomes.push((number, outcome));
    }
    let duplicates: Vec<usize> =
        outcomes.iter().filter(|o| o.1 == NakOutcome::Duplicate).map(|o| o.0).collect();
    assert_eq!(duplicates, vec![97]);
    assert_eq!(
        outcomes.iter().filter(|o| matches!(o.1, NakOutcome::Resent(_))).count(),
        12,
        "Retransmits sent = 12"
    );
    assert_eq!(resent.len(), 15);
    for (ours, theirs) in resent.iter().zip(&retransmissions) {
        assert_eq!(ours, &theirs.payload, "retransmission pkt {}", theirs.number);
    }
}
