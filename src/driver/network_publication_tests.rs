//! Unit tests of the sender's half of a network publication, over a loopback socket pair:
//! the frames it sends are read back and checked byte for byte.

use std::net::UdpSocket;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::*;
use crate::concurrent::counters::CountersManager;
use crate::driver::agent_proxy::{CommandQueue, command_queue};
use crate::driver::flow_control::{MinMulticastFlowControl, UnicastFlowControl};
use crate::driver::media::send_channel_endpoint::SendEndpointSettings;
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::media::udp_transport::SocketBuffers;
use crate::logbuffer::HeaderWriter;
use crate::protocol::nak::Nak;
use crate::protocol::status_message::StatusMessage;

const TERM: usize = 65536;
const INITIAL_TERM_ID: i32 = 1476212330;
const MS: i64 = 1_000_000;

struct Fixture {
    publication: NetworkPublication,
    endpoint: SendChannelEndpoint,
    receiver: UdpSocket,
    log: LogBuffers,
    values: AtomicBuffer,
    counters: SystemCounters,
    conductor: CommandQueue<ConductorCommand>,
}

fn fixture() -> Fixture {
    fixture_with(Box::new(UnicastFlowControl::unicast()))
}

fn fixture_with(flow_control: Box<dyn FlowControl>) -> Fixture {
    fixture_of(flow_control, Role::Plain)
}

/// What the publication is in the request/response pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    /// `response-correlation-id=<id>`: asks for RSP_SETUP.
    Request(i64),
    /// `control-mode=response|response-correlation-id=<id>`, bound to a control address.
    Response(i64),
}

fn fixture_of(flow_control: Box<dyn FlowControl>, role: Role) -> Fixture {
    let values = AtomicBuffer::alloc(64 * 128);
    let mut manager = CountersManager::new(AtomicBuffer::alloc(64 * 512), values.clone(), 0).unwrap();
    let counters = SystemCounters::allocate(&mut manager, 0).unwrap();
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let text = match role {
        Role::Response(_) => "aeron:udp?control=127.0.0.1:0|control-mode=response".to_string(),
        _ => format!("aeron:udp?endpoint={}|interface=127.0.0.1", receiver.local_addr().unwrap()),
    };
    let channel = UdpChannel::parse(&text).unwrap();
    let settings = SendEndpointSettings {
        buffers: SocketBuffers::default(),
        connect: true,
        default_multicast_ttl: 0,
        num_destinations: None,
        mtu_length: 1408,
        media: crate::driver::media::media_plugin::Media::default(),
        bind: None,
    };
    let endpoint = SendChannelEndpoint::open(1, &channel, settings).unwrap();
    let log = LogBuffers::alloc(TERM, 4096).unwrap();
    log::initialise_tails(log.metadata(), INITIAL_TERM_ID, INITIAL_TERM_ID, 0).unwrap();
    let (to_conductor, conductor) = command_queue(Position::new(&values, 60));
    let config = NetworkPublicationConfig {
        registration_id: 2,
        endpoint_id: 1,
        session_id: 394850090,
        stream_id: 1002,
        initial_term_id: INITIAL_TERM_ID,
        mtu_length: 1408,
        signal_eos: true,
        spies_simulate_connection: false,
        response_correlation_id: match role {
            Role::Plain => -1,
            Role::Request(id) | Role::Response(id) => id,
        },
        is_response: matches!(role, Role::Response(_)),
        connection_timeout_ns: 5_000 * MS,
        max_messages_per_send: 2,
        has_group_semantics: false,
        multicast_ttl: 0,
    };
    let positions = SenderPositions {
        snd_pos: Position::new(&values, 50),
        snd_lmt: Position::new(&values, 51),
        snd_bpe: Position::new(&values, 52),
    };
    let publication = NetworkPublication::new(
        config,
        &log,
        positions,
        flow_control,
        RetransmitHandler::new(0, 10 * MS as u64, false, 16),
        Arc::new(NetworkPublicationStatus::default()),
        counters.clone(),
        to_conductor,
        0,
    );
    Fixture { publication, endpoint, receiver, log, values, counters, conductor }
}

impl Fixture {
    fn send(&mut self, now_ns: i64) -> Result<usize> {
        self.publication.send(now_ns, &self.endpoint)
    }

    fn on_nak(&mut self, bytes: &[u8], now_ns: i64) {
        self.publication.on_nak(&NakFlyweight::parse(bytes).unwrap(), None, &self.endpoint, now_ns).unwrap();
    }

    fn next_datagram(&self) -> Vec<u8> {
        let mut buffer = vec![0u8; 65536];
        let n = self.receiver.recv(&mut buffer).expect("a datagram within 5 s");
        buffer.truncate(n);
        buffer
    }

    fn snd_pos(&self) -> i64 {
        self.values.get_i64(50 * 128)
    }

    fn snd_lmt(&self) -> i64 {
        self.values.get_i64(51 * 128)
    }

    /// Appends a frame of `payload_length` at `offset` as a publisher would.
    fn frame(&self, offset: usize, payload_length: usize) {
        let term = self.log.term(0);
        HeaderWriter::new(394850090, 1002).write(term, offset, (payload_length + 32) as i32, INITIAL_TERM_ID);
        term.put_i32_release(offset, (payload_length + 32) as i32);
    }

    fn status_message(&mut self, offset: i32, window: i32, flags: u8, now_ns: i64) {
        self.status_message_of_length(36, None, offset, window, flags, now_ns);
    }

    /// An SM of frame length `length` (36, 44 with `group_tag`, anything else malformed).
    fn status_message_of_length(
        &mut self,
        length: usize,
        group_tag: Option<i64>,
        offset: i32,
        window: i32,
        flags: u8,
        now_ns: i64,
    ) {
        let sm = StatusMessage {
            flags,
            session_id: 394850090,
            stream_id: 1002,
            consumption_term_id: INITIAL_TERM_ID,
            consumption_term_offset: offset,
            receiver_window: window,
            receiver_id: 99,
            group_tag,
        };
        let mut bytes = [0u8; 64];
        sm.encode(&mut bytes).unwrap();
        bytes[0..4].copy_from_slice(&(length as i32).to_le_bytes());
        let view = StatusMessageFlyweight::parse(&bytes[..length]).unwrap();
        if flags & crate::protocol::status_message::SM_SEND_SETUP_FLAG != 0 {
            let source = self.receiver.local_addr().unwrap();
            self.publication.on_setup_elicited(&view, source, now_ns);
        } else {
            self.publication.on_status_message(&view, true, now_ns);
        }
    }
}

fn i32_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

#[test]
fn setup_until_a_status_message_then_data_up_to_the_window() {
    let mut f = fixture();
    // Before any SM: a SETUP (udp-session.pcap pkt 1 layout), no data, no heartbeat.
    assert_eq!(f.send(MS).unwrap(), 0);
    let setup = f.next_datagram();
    assert_eq!(setup.len(), 40);
    assert_eq!(&setup[0..8], &[40, 0, 0, 0, 0, 0, 5, 0]);
    assert_eq!(
        (i32_at(&setup, 12), i32_at(&setup, 16), i32_at(&setup, 20)),
        (394850090, 1002, INITIAL_TERM_ID)
    );
    assert_eq!((i32_at(&setup, 28), i32_at(&setup, 32)), (TERM as i32, 1408));
    assert_eq!(f.send(50 * MS).unwrap(), 0, "the next SETUP waits 100 ms");
    assert_eq!(f.send(102 * MS).unwrap(), 0);
    assert_eq!(f.next_datagram().len(), 40);

    // An SM with window 2112: the sender limit is the window edge and the publication is
    // connected (log flag set).
    f.status_message(0, 2112, 0, 110 * MS);
    assert_eq!(f.snd_lmt(), 2112);
    assert!(log::is_connected(f.log.metadata()));
    assert!(f.publication.status().has_receivers.load(Ordering::Acquire));

    // Three 1056-byte frames: two fit the window, one datagram each (MTU 1408).
    for k in 0..3 {
        f.frame(k * 1056, 1000);
    }
    assert_eq!(f.send(120 * MS).unwrap(), 2112);
    assert_eq!(f.next_datagram().len(), 1056);
    let second = f.next_datagram();
    assert_eq!((second.len(), i32_at(&second, 8)), (1056, 1056));
    assert_eq!(f.snd_pos(), 2112);
    // Window used up: nothing sent, one flow-control limit counted (snd-bpe and system 18).
    assert_eq!(f.send(121 * MS).unwrap(), 0);
    assert_eq!(f.values.get_i64(52 * 128), 1);
    assert_eq!(f.counters.value(SystemCounterId::SenderFlowControlLimits), 1);
    f.status_message(2112, 2112, 0, 130 * MS);
    assert_eq!(f.send(131 * MS).unwrap(), 1056);
    assert_eq!(i32_at(&f.next_datagram(), 8), 2112);
    assert_eq!(f.snd_pos(), 3168);
}

#[test]
fn heartbeats_when_idle_and_eos_once_the_stream_ended() {
    let mut f = fixture();
    f.send(MS).unwrap();
    f.next_datagram();
    f.status_message(0, 32768, 0, 2 * MS);
    f.frame(0, 64);
    assert_eq!(f.send(3 * MS).unwrap(), 96);
    f.next_datagram();
    assert_eq!(f.send(50 * MS).unwrap(), 0, "no heartbeat within 100 ms of data");
    assert_eq!(f.send(104 * MS).unwrap(), 32);
    let heartbeat = f.next_datagram();
    assert_eq!(&heartbeat[0..8], &[0, 0, 0, 0, 0, 0xC0, 1, 0]);
    assert_eq!((i32_at(&heartbeat, 8), i32_at(&heartbeat, 20)), (96, INITIAL_TERM_ID));
    assert_eq!(f.counters.value(SystemCounterId::HeartbeatsSent), 1);
    f.publication.status().is_end_of_stream.store(true, Ordering::Release);
    assert_eq!(f.send(205 * MS).unwrap(), 32);
    assert_eq!(f.next_datagram()[5], 0xE0, "EOS heartbeat");
    // A setup elicitation at end of stream is not answered.
    f.status_message(0, 0, crate::protocol::status_message::SM_SEND_SETUP_FLAG, 206 * MS);
    assert_eq!(f.send(207 * MS).unwrap(), 0);
}

#[test]
fn naks_are_resent_once_then_linger() {
    let mut f = fixture();
    f.send(MS).unwrap();
    f.next_datagram();
    f.status_message(0, 32768, 0, 2 * MS);
    for k in 0..4 {
        f.frame(k * 1056, 1000);
    }
    f.send(3 * MS).unwrap();
    f.send(3 * MS).unwrap();
    for _ in 0..4 {
        f.next_datagram();
    }
    let nak = |offset, length| {
        let mut bytes = [0u8; 28];
        Nak::new(394850090, 1002, INITIAL_TERM_ID, offset, length).encode(&mut bytes).unwrap();
        bytes
    };
    let bytes = nak(1056, 2112);
    f.on_nak(&bytes, 4 * MS);
    assert_eq!(i32_at(&f.next_datagram(), 8), 1056);
    assert_eq!(i32_at(&f.next_datagram(), 8), 2112);
    assert_eq!(f.counters.value(SystemCounterId::RetransmitsSent), 1);
    assert_eq!(f.counters.value(SystemCounterId::RetransmittedBytes), 2112);
    // Within the 10 ms linger the same NAK is ignored; an offset beyond the term is invalid.
    f.on_nak(&bytes, 8 * MS);
    assert_eq!(f.counters.value(SystemCounterId::RetransmitsSent), 1);
    let bad = nak(TERM as i32, 32);
    f.on_nak(&bad, 9 * MS);
    assert_eq!(f.counters.value(SystemCounterId::InvalidPackets), 1);
}

#[test]
fn receivers_time_out_and_an_eos_status_message_ends_them() {
    let mut f = fixture();
    f.send(MS).unwrap();
    f.status_message(0, 32768, 0, 2 * MS);
    let status = Arc::clone(f.publication.status());
    assert!(status.has_receivers.load(Ordering::Acquire));
    f.send(4_000 * MS).unwrap();
    assert!(status.has_receivers.load(Ordering::Acquire), "within the 5 s connection timeout");
    f.send(5_003 * MS).unwrap();
    assert!(!status.has_receivers.load(Ordering::Acquire), "timed out");
    f.status_message(0, 32768, 0, 5_010 * MS);
    assert!(status.has_receivers.load(Ordering::Acquire));
    f.status_message(0, 32768, crate::protocol::status_message::SM_EOS_FLAG, 5_020 * MS);
    assert!(!status.has_receivers.load(Ordering::Acquire));
    assert!(status.has_received_unicast_eos.load(Ordering::Acquire));
}

#[test]
fn tagged_flow_control_gates_connection_and_logs_a_malformed_tag_once() {
    let fc = MinMulticastFlowControl::tagged(42, 1, 1_000 * MS, None);
    let mut f = fixture_with(Box::new(fc));
    let status = Arc::clone(f.publication.status());
    f.send(MS).unwrap();
    // 4 optional bytes: a live receiver, but not a member of group 42.
    f.status_message_of_length(40, None, 0, 32768, 0, 2 * MS);
    assert!(status.has_receivers.load(Ordering::Acquire));
    assert!(!status.has_required_receivers.load(Ordering::Acquire));
    assert!(!log::is_connected(f.log.metadata()));
    match f.conductor.next() {
        Some(ConductorCommand::Error(e)) => {
            assert_eq!((e.code(), e.message()), (libc::EINVAL, MALFORMED_GROUP_TAG_MESSAGE));
        }
        _ => panic!("one error for the conductor's log"),
    }
    // More malformed SMs and setup elicitations: no more reports.
    f.status_message_of_length(48, None, 0, 32768, 0, 3 * MS);
    let setup = crate::protocol::status_message::SM_SEND_SETUP_FLAG;
    f.status_message_of_length(40, None, 0, 0, setup, 3 * MS);
    assert!(f.conductor.next().is_none());
    // The group's tag: required receivers, connected, limit from the member.
    f.status_message_of_length(44, Some(42), 1024, 32768, 0, 4 * MS);
    assert!(status.has_required_receivers.load(Ordering::Acquire));
    assert!(log::is_connected(f.log.metadata()));
    assert_eq!(f.snd_lmt(), 1024 + 32768);
    // Untagged SMs keep the publication's receiver alive; the member goes silent for
    // more than the 1 s flow-control timeout and idle takes the group below its size.
    f.status_message_of_length(36, None, 0, 32768, 0, 1_000 * MS);
    f.send(1_005 * MS).unwrap();
    assert!(status.has_receivers.load(Ordering::Acquire));
    assert!(!status.has_required_receivers.load(Ordering::Acquire));
    assert!(f.conductor.next().is_none());
}

#[test]
fn a_request_publication_asks_for_rsp_setup_and_hands_it_to_the_conductor() {
    let mut f = fixture_of(Box::new(UnicastFlowControl::unicast()), Role::Request(4242));
    f.send(MS).unwrap();
    let setup = f.next_datagram();
    assert_eq!((setup.len(), setup[5], setup[6]), (40, SETUP_SEND_RESPONSE_SETUP_FLAG, 5));
    let frame = crate::protocol::ResponseSetup::new(394850090, 1002, -77);
    let mut bytes = [0u8; 20];
    frame.encode(&mut bytes).unwrap();
    f.publication.on_response_setup(&ResponseSetupFlyweight::parse(&bytes).unwrap());
    match f.conductor.next() {
        Some(ConductorCommand::ResponseSetup { response_correlation_id, response_session_id }) => {
            assert_eq!((response_correlation_id, response_session_id), (4242, -77));
        }
        _ => panic!("no ResponseSetup for the conductor"),
    }
    // A publication that asked for no response channel passes nothing on.
    let plain = fixture();
    plain.publication.on_response_setup(&ResponseSetupFlyweight::parse(&bytes).unwrap());
    assert!(plain.conductor.next().is_none());
}

#[test]
fn a_response_publication_sends_only_to_the_subscription_that_asked() {
    let mut f = fixture_of(Box::new(UnicastFlowControl::unicast()), Role::Response(9));
    f.receiver.set_nonblocking(true).unwrap();
    f.frame(0, 100);
    // Nobody asked yet: no SETUP, no data, anywhere.
    assert_eq!(f.send(MS).unwrap(), 0);
    assert_eq!(f.send(200 * MS).unwrap(), 0);
    // The response subscription asks for SETUP from `f.receiver`: SETUP goes there, without
    // the SEND_RESPONSE_SETUP flag (a response publication asks for no response).
    f.receiver.set_nonblocking(false).unwrap();
    f.status_message(0, 65536, crate::protocol::status_message::SM_SEND_SETUP_FLAG, 300 * MS);
    f.send(301 * MS).unwrap();
    let setup = f.next_datagram();
    assert_eq!((setup.len(), setup[5], setup[6]), (40, 0, 5));
    assert!(f.conductor.next().is_none());
    // Its first status message connects it: the conductor hears of it once, and the data
    // follows to the same address.
    f.status_message(0, 65536, 0, 302 * MS);
    match f.conductor.next() {
        Some(ConductorCommand::ResponseConnected { response_correlation_id }) => {
            assert_eq!(response_correlation_id, 9)
        }
        _ => panic!("no ResponseConnected for the conductor"),
    }
    f.status_message(0, 65536, 0, 303 * MS);
    assert!(f.conductor.next().is_none(), "only the first receiver is reported");
    assert_eq!(f.send(304 * MS).unwrap(), 160, "one aligned frame");
    assert_eq!(f.next_datagram().len(), 160);
}
