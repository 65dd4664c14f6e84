//! Unit tests of the receiver's half of an image: what it writes into the log, what it
//! drops and counts, and the SM/NAK/RTTM frames it sends (read back from a loopback socket).

use std::net::UdpSocket;
use std::time::Duration;

use super::*;
use crate::concurrent::counters::CountersManager;
use crate::driver::media::udp_transport::SocketBuffers;
use crate::protocol::data::DataHeader;

const TERM: usize = 65536;
const INITIAL_TERM_ID: i32 = 100;
const SESSION: i32 = 7;
const STREAM: i32 = 1001;
const MS: i64 = 1_000_000;

struct Fixture {
    image: PublicationImage,
    log: LogBuffers,
    status: Arc<ImageStatus>,
    values: AtomicBuffer,
    counters: SystemCounters,
    transport: UdpTransport,
    sender: UdpSocket,
}

fn fixture(is_reliable: bool) -> Fixture {
    let values = AtomicBuffer::alloc(64 * 128);
    let mut manager = CountersManager::new(AtomicBuffer::alloc(64 * 512), values.clone(), 0).unwrap();
    let counters = SystemCounters::allocate(&mut manager, 0).unwrap();
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let transport = UdpTransport::bind("127.0.0.1:0".parse().unwrap(), SocketBuffers::default()).unwrap();
    let log = LogBuffers::alloc(TERM, 4096).unwrap();
    log::fill_default_frame_header(log.metadata(), SESSION, STREAM, INITIAL_TERM_ID);
    log::set_end_of_stream_position(log.metadata(), i64::MAX);
    let status = Arc::new(ImageStatus::new(0, 32768, 0));
    let image = PublicationImage::new(
        PublicationImageConfig {
            correlation_id: 9,
            session_id: SESSION,
            stream_id: STREAM,
            initial_term_id: INITIAL_TERM_ID,
            is_reliable,
            source: FrameSource {
                destination_id: 1,
                control_address: sender.local_addr().unwrap(),
                address: sender.local_addr().unwrap(),
            },
            pinned_source: Some(sender.local_addr().unwrap()),
            initial_position: 0,
            sm_timeout_ns: 200 * MS,
            liveness_timeout_ns: 10_000 * MS,
            max_receiver_window_length: 32768,
        },
        &log,
        Position::new(&values, 50),
        Arc::clone(&status),
        counters.clone(),
        0,
    );
    Fixture { image, log, status, values, counters, transport, sender }
}

fn data(term_offset: i32, payload_length: usize) -> Vec<u8> {
    let mut out = vec![0u8; (payload_length + 32).next_multiple_of(32)];
    DataHeader::data(SESSION, STREAM, INITIAL_TERM_ID, term_offset, payload_length)
        .encode_frame(&vec![0x5A; payload_length], &mut out)
        .unwrap();
    out
}

fn heartbeat(term_offset: i32, eos: bool) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    DataHeader::heartbeat(SESSION, STREAM, INITIAL_TERM_ID, term_offset, eos).encode(&mut out).unwrap();
    out
}

impl Fixture {
    fn hwm(&self) -> i64 {
        self.values.get_i64(50 * 128)
    }

    fn insert(&mut self, datagram: &[u8], now_ns: i64) -> InsertOutcome {
        let heartbeat = datagram.len() == 32 && datagram[0..4] == [0; 4];
        let (term_id, offset) = (
            i32::from_le_bytes(datagram[20..24].try_into().unwrap()),
            i32::from_le_bytes(datagram[8..12].try_into().unwrap()),
        );
        let address = self.sender.local_addr().unwrap();
        let source = FrameSource { destination_id: 1, control_address: address, address };
        self.image.insert_packet(term_id, offset, datagram, heartbeat, &source, now_ns).unwrap()
    }

    fn next_datagram(&self) -> Vec<u8> {
        let mut buffer = vec![0u8; 2048];
        let n = self.sender.recv(&mut buffer).expect("a frame within 5 s");
        buffer.truncate(n);
        buffer
    }
}

fn i32_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

#[test]
fn data_is_rebuilt_within_the_window_and_the_rest_counted() {
    let mut f = fixture(true);
    let frame = data(1024, 100);
    assert_eq!(f.insert(&frame, MS), InsertOutcome::Accepted);
    let mut copy = vec![0u8; frame.len()];
    f.log.term(0).load_bytes(1024, &mut copy);
    assert_eq!(copy, frame);
    assert_eq!(f.hwm(), 1024 + 160);
    assert_eq!(f.status.time_of_last_packet_ns.load(Ordering::Acquire), MS);
    // Beyond the last SM position + half a term: an over-run, dropped.
    assert_eq!(f.insert(&data(32768, 100), 2 * MS), InsertOutcome::Dropped);
    assert_eq!(f.counters.value(SystemCounterId::FlowControlOverRuns), 1);
    assert_eq!(f.log.term(0).get_i32(32768), 0);
    // A heartbeat moves the hwm; a second insert at the same place changes nothing.
    assert_eq!(f.insert(&heartbeat(4096, false), 3 * MS), InsertOutcome::Accepted);
    assert_eq!((f.hwm(), f.counters.value(SystemCounterId::HeartbeatsReceived)), (4096, 1));
    let mut other = data(1024, 100);
    other[40] = 0xFF;
    f.insert(&other, 4 * MS);
    assert_eq!(f.log.term(0).get_u8(1024 + 40), 0x5A, "the first copy stays");
}

#[test]
fn end_of_stream_heartbeat_sets_the_end_position() {
    let mut f = fixture(true);
    f.insert(&data(0, 64), MS);
    f.insert(&heartbeat(96, true), 2 * MS);
    assert_eq!(log::end_of_stream_position(f.log.metadata()), 96);
    assert!(f.status.is_end_of_stream.load(Ordering::Acquire));
}

#[test]
fn status_messages_on_schedule_and_on_timeout() {
    let mut f = fixture(true);
    f.insert(&data(0, 64), MS);
    // Nothing scheduled yet, but the SM deadline (0) has passed: the initial SM goes out.
    assert_eq!(f.image.send_pending_status_message(2 * MS, &f.transport, 42, None).unwrap(), 1);
    let sm = f.next_datagram();
    assert_eq!(sm.len(), 36);
    assert_eq!(&sm[0..8], &[36, 0, 0, 0, 0, 0, 3, 0]);
    assert_eq!(
        (i32_at(&sm, 8), i32_at(&sm, 12), i32_at(&sm, 16), i32_at(&sm, 20)),
        (SESSION, STREAM, INITIAL_TERM_ID, 0)
    );
    assert_eq!(i32_at(&sm, 24), 32768);
    assert_eq!(i64::from_le_bytes(sm[28..36].try_into().unwrap()), 42);
    assert_eq!(
        f.image.send_pending_status_message(3 * MS, &f.transport, 42, None).unwrap(),
        0,
        "nothing new"
    );
    // The conductor schedules one: it goes out at once, with the group tag when set.
    f.status.schedule_status_message(0, 65536 + 96, 32768);
    assert_eq!(f.image.send_pending_status_message(4 * MS, &f.transport, 42, Some(5)).unwrap(), 1);
    let sm = f.next_datagram();
    assert_eq!((sm.len(), i32_at(&sm, 0)), (44, 44));
    assert_eq!((i32_at(&sm, 16), i32_at(&sm, 20)), (INITIAL_TERM_ID + 1, 96));
    assert_eq!(i64::from_le_bytes(sm[36..44].try_into().unwrap()), 5);
    // Draining: the same SM again after the 200 ms timeout, now with the EOS flag.
    f.status.is_sending_eos_sm.store(true, Ordering::Release);
    assert_eq!(f.image.send_pending_status_message(100 * MS, &f.transport, 42, None).unwrap(), 0);
    assert_eq!(f.image.send_pending_status_message(205 * MS, &f.transport, 42, None).unwrap(), 1);
    assert_eq!(f.next_datagram()[5], 0x40);
    assert_eq!(f.counters.value(SystemCounterId::StatusMessagesSent), 3);
    assert_eq!(log::active_transport_count(f.log.metadata()), 1);
}

#[test]
fn reported_gaps_are_naked_once_or_padded_for_unreliable_images() {
    let mut f = fixture(true);
    f.insert(&data(0, 64), MS);
    f.status.report_loss(0, INITIAL_TERM_ID, 96, 1056);
    assert_eq!(f.image.send_pending_loss(2 * MS, &f.transport).unwrap(), 1);
    let nak = f.next_datagram();
    assert_eq!(nak.len(), 28);
    assert_eq!(&nak[0..8], &[28, 0, 0, 0, 0, 0, 2, 0]);
    assert_eq!((i32_at(&nak, 16), i32_at(&nak, 20), i32_at(&nak, 24)), (INITIAL_TERM_ID, 96, 1056));
    assert_eq!(f.image.send_pending_loss(3 * MS, &f.transport).unwrap(), 0, "once per report");
    assert_eq!(f.counters.value(SystemCounterId::NakMessagesSent), 1);

    let mut u = fixture(false);
    u.insert(&data(0, 64), MS);
    u.status.report_loss(0, INITIAL_TERM_ID, 96, 1056);
    u.image.send_pending_loss(2 * MS, &u.transport).unwrap();
    assert_eq!(u.log.term(0).get_i32(96), 1056, "a padding frame covers the gap");
    assert_eq!(u.log.term(0).get_u16(96 + 6), 0, "type PAD");
    assert_eq!(u.counters.value(SystemCounterId::LossGapFills), 1);
}

#[test]
fn rtt_requests_when_asked_and_samples_from_replies() {
    let mut f = fixture(true);
    f.insert(&data(0, 64), MS);
    assert_eq!(f.image.initiate_rttm(2 * MS, &f.transport, 42).unwrap(), 0);
    f.status.rttm_requested.store(true, Ordering::Release);
    assert_eq!(f.image.initiate_rttm(3 * MS, &f.transport, 42).unwrap(), 1);
    let rttm = f.next_datagram();
    assert_eq!(&rttm[0..8], &[40, 0, 0, 0, 0, 0x80, 6, 0]);
    assert_eq!(i64::from_le_bytes(rttm[16..24].try_into().unwrap()), 3 * MS);
    f.image.on_rttm_reply(3 * MS, 0, 3 * MS + 250_000);
    assert_eq!(f.status.take_rtt_sample(), Some(250_000));
}

#[test]
fn a_rejected_image_drops_data_and_sends_error_frames_each_sm_timeout() {
    let mut f = fixture(true);
    assert_eq!(f.insert(&data(0, 64), MS), InsertOutcome::Accepted);
    assert_eq!(f.image.send_pending_status_message(2 * MS, &f.transport, 42, None).unwrap(), 1);
    assert_eq!(f.next_datagram().len(), 36, "an SM while accepted");
    let mut reason = b"not wanted".to_vec();
    reason.extend_from_slice(b"\0ignored after the NUL");
    f.image.reject(reason);
    f.image.reject(b"a second reason is ignored".to_vec());
    assert!(f.image.is_rejected());
    // Data and heartbeats are dropped and leave no trace: the image goes quiet.
    assert_eq!(f.insert(&data(96, 64), 3 * MS), InsertOutcome::Dropped);
    assert_eq!(f.insert(&heartbeat(192, false), 4 * MS), InsertOutcome::Dropped);
    assert_eq!(f.log.term(0).get_i32(96), 0);
    assert_eq!(f.hwm(), 96);
    assert_eq!(f.status.time_of_last_packet_ns.load(Ordering::Acquire), MS);
    // Even a newly scheduled SM waits for the SM timeout (202 ms), and then an ERR goes.
    f.status.schedule_status_message(0, 96, 32768);
    assert_eq!(f.image.send_pending_status_message(100 * MS, &f.transport, 42, Some(5)).unwrap(), 0);
    assert_eq!(f.image.send_pending_status_message(203 * MS, &f.transport, 42, Some(5)).unwrap(), 1);
    let err = f.next_datagram();
    assert_eq!(err.len(), 50);
    assert_eq!(&err[0..8], &[50, 0, 0, 0, 0, 0x08, 4, 0], "length, version, HAS_GROUP_TAG, type ERR");
    assert_eq!((i32_at(&err, 8), i32_at(&err, 12)), (SESSION, STREAM));
    assert_eq!(i64::from_le_bytes(err[16..24].try_into().unwrap()), 42, "receiver id");
    assert_eq!(i64::from_le_bytes(err[24..32].try_into().unwrap()), 5, "group tag");
    assert_eq!((i32_at(&err, 32), i32_at(&err, 36)), (13, 10), "IMAGE_REJECTED, message length");
    assert_eq!(&err[40..], b"not wanted");
    assert_eq!(f.image.send_pending_status_message(300 * MS, &f.transport, 42, None).unwrap(), 0);
    assert_eq!(f.image.send_pending_status_message(404 * MS, &f.transport, 42, None).unwrap(), 1);
    let err = f.next_datagram();
    assert_eq!((err.len(), err[5]), (50, 0), "no group tag: no flag");
    assert_eq!(f.counters.value(SystemCounterId::ErrorFramesSent), 2);
    assert_eq!(f.counters.value(SystemCounterId::StatusMessagesSent), 1, "no SMs once rejected");
}

#[test]
fn a_unicast_image_takes_frames_only_from_its_sender() {
    let mut f = fixture(true);
    let forger = std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let forged = FrameSource { destination_id: 1, control_address: forger, address: forger };
    // Data far ahead (within the window) and a heartbeat, both from another socket.
    let datagram = data(16384, 100);
    let outcome = f.image.insert_packet(INITIAL_TERM_ID, 16384, &datagram, false, &forged, MS).unwrap();
    assert_eq!(outcome, InsertOutcome::Dropped);
    let hb = heartbeat(32768, true);
    assert_eq!(
        f.image.insert_packet(INITIAL_TERM_ID, 32768, &hb, true, &forged, MS).unwrap(),
        InsertOutcome::Dropped
    );
    assert_eq!(f.counters.value(SystemCounterId::InvalidPackets), 2);
    assert_eq!(f.hwm(), 0, "the high-water mark did not move");
    assert_eq!(f.log.term(0).get_i32(16384), 0, "nothing written");
    assert!(!f.status.is_end_of_stream.load(Ordering::Acquire), "a forged EOS ends nothing");
    // The real sender's frames are taken as before.
    assert_eq!(f.insert(&data(0, 100), 2 * MS), InsertOutcome::Accepted);
    assert_eq!(f.hwm(), 160);
}

#[test]
fn a_response_session_is_announced_in_rsp_setup_each_sm_timeout_until_cleared() {
    let mut f = fixture(true);
    // Nothing to announce: the first SM timeout sends the status message only.
    assert_eq!(f.image.send_pending_status_message(MS, &f.transport, 5, None).unwrap(), 1);
    assert_eq!(f.next_datagram()[6], 0x03, "SM");
    f.status.set_response_session_id(Some(-123));
    assert_eq!(f.image.send_pending_status_message(2 * MS, &f.transport, 5, None).unwrap(), 0, "not yet due");
    // Due: RSP_SETUP (spec/wire-protocol.md §9) then the repeated SM.
    assert_eq!(f.image.send_pending_status_message(202 * MS, &f.transport, 5, None).unwrap(), 2);
    let rsp = f.next_datagram();
    assert_eq!(rsp.len(), 20);
    assert_eq!(&rsp[0..8], &[20, 0, 0, 0, 0, 0, 0x0B, 0]);
    assert_eq!((i32_at(&rsp, 8), i32_at(&rsp, 12), i32_at(&rsp, 16)), (SESSION, STREAM, -123));
    assert_eq!(f.next_datagram()[6], 0x03, "SM");
    // Cleared (the response publication connected): SMs only.
    f.status.set_response_session_id(None);
    assert_eq!(f.image.send_pending_status_message(403 * MS, &f.transport, 5, None).unwrap(), 1);
    assert_eq!(f.next_datagram()[6], 0x03, "SM");
}
