//! Effects of driver settings seen on the wire (issue 18 item 7, named by
//! `settings_walk.rs`): test sockets play a publication's receivers or an image's sender,
//! and what the driver sends them (status messages, NAKs, retransmits, sender limits)
//! shows each setting; every assertion would fail with the default value.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/recording_media.rs"]
mod recording_media;
#[path = "support/settings_effects_support.rs"]
mod settings_effects_support;

use std::path::Path;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver};
use aeronrs::logbuffer::LogBuffers;
use aeronrs::logbuffer::descriptor as d;
use raw_client::{RawClient, test_context, wait_until};
use settings_effects_support::{add_publication, add_subscription, free_port, wait_within};

const RETRANSMITS_SENT: i32 = 11;

/// `(rb, tb)` of the UDP socket bound to 127.0.0.1:`port`, from `ss -uamn` (its `skmem`
/// line: `rb` is SO_RCVBUF, `tb` SO_SNDBUF, both as the kernel doubled them).
fn socket_buffers(port: u16) -> Option<(u64, u64)> {
    let out = std::process::Command::new("ss").args(["-uamn"]).output().expect("ss (iproute2) runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.split_whitespace().nth(3) == Some(format!("127.0.0.1:{port}").as_str()) {
            let skmem = lines.next()?;
            let field = |key: &str| {
                skmem.split([',', '(', ')']).find_map(|f| f.trim().strip_prefix(key)?.parse::<u64>().ok())
            };
            return Some((field("rb")?, field("tb")?));
        }
    }
    None
}

/// A receiving driver answers a SETUP from a test socket with status messages showing its
/// initial window and receiver group tag, sent every `AERON_RCV_STATUS_MESSAGE_TIMEOUT`,
/// from a socket with the configured buffer sizes; sessions over the stream's and the
/// endpoint's image limits are refused.
#[test]
fn status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings() {
    use aeronrs::protocol::setup::Setup;
    use aeronrs::protocol::status_message::StatusMessageFlyweight;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.rcv_initial_window_length = 64 * 1024;
    ctx.network.receiver_group_tag = Some(77);
    ctx.status_message_timeout_ns = 20_000_000;
    ctx.socket_so_rcvbuf = 64 * 1024;
    ctx.socket_so_sndbuf = 96 * 1024;
    ctx.stream_session_limit = 1;
    ctx.network.max_images_per_endpoint = 2;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 5);

    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let setup = Setup {
        flags: 0,
        term_offset: 0,
        session_id: 4242,
        stream_id: 5,
        initial_term_id: 9,
        active_term_id: 9,
        // Half a term (512 KiB) is above either window, so the window is the setting's.
        term_length: 1024 * 1024,
        mtu: 1408,
        ttl: 0,
    };
    let mut frame = [0u8; 40];
    setup.encode(&mut frame).unwrap();
    // Setups go on until the first SM; then 40 more SMs come in 0.8 s (8 s at the default
    // 200 ms, past this wait's bound).
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut status_messages = 0;
    let mut buffer = [0u8; 1500];
    while status_messages < 41 {
        assert!(Instant::now() < deadline, "{status_messages} status messages in 6 s");
        if status_messages == 0 {
            sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
        }
        let Ok(length) = sender.recv(&mut buffer) else { continue };
        let Ok(sm) = StatusMessageFlyweight::parse(&buffer[..length]) else { continue };
        assert_eq!((sm.session_id(), sm.stream_id()), (4242, 5));
        assert_eq!(sm.receiver_window(), 64 * 1024, "AERON_RCV_INITIAL_WINDOW_LENGTH");
        assert_eq!(sm.group_tag().unwrap(), Some(77), "AERON_RECEIVER_GROUP_TAG");
        assert_eq!(sm.frame_length(), 44, "the group tag extends the SM");
        status_messages += 1;
    }
    // Linux reports twice what was set.
    assert_eq!(socket_buffers(port), Some((128 * 1024, 192 * 1024)), "AERON_SOCKET_SO_RCVBUF, _SNDBUF");

    // AERON_DRIVER_STREAM_SESSION_LIMIT = 1: a second session of stream 5 is refused.
    let send_setup = |session_id: i32, stream_id: i32, port: u16| {
        let mut frame = [0u8; 40];
        Setup { session_id, stream_id, ..setup }.encode(&mut frame).unwrap();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    };
    send_setup(4243, 5, port);
    wait_until("the session limit refusal", || {
        client
            .cnc
            .errors()
            .iter()
            .any(|e| e.contains("session-id=4243") && e.contains("stream session limit of 1"))
    });
    // AERONRS_MAX_IMAGES_PER_ENDPOINT = 2: a third image on another endpoint is refused,
    // one stream each (under the session limit).
    let other_port = free_port();
    for stream_id in [6, 7, 8] {
        add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{other_port}"), stream_id);
    }
    for stream_id in [6, 7] {
        send_setup(5000 + stream_id, stream_id, other_port);
        client.expect("the image", |r| matches!(r, Response::AvailableImage(i) if i.stream_id == stream_id));
    }
    send_setup(5008, 8, other_port);
    wait_until("the endpoint limit refusal", || {
        client
            .cnc
            .errors()
            .iter()
            .any(|e| e.contains("session-id=5008") && e.contains("endpoint image limit of 2"))
    });
}

/// Peer addresses of the connected UDP sockets, from `ss -uan`.
fn connected_peers() -> Vec<String> {
    let out = std::process::Command::new("ss").args(["-uan"]).output().expect("ss (iproute2) runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("ESTAB"))
        .filter_map(|l| l.split_whitespace().nth(4).map(str::to_string))
        .collect()
}

/// The SETUP a publication's sender sends to `receiver`, and where it came from.
fn receive_setup(receiver: &std::net::UdpSocket) -> (aeronrs::protocol::setup::Setup, std::net::SocketAddr) {
    use aeronrs::protocol::setup::SetupFlyweight;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut buffer = [0u8; 1500];
    loop {
        assert!(Instant::now() < deadline, "no SETUP");
        let Ok((length, from)) = receiver.recv_from(&mut buffer) else { continue };
        if let Ok(setup) = SetupFlyweight::parse(&buffer[..length]) {
            let s = aeronrs::protocol::setup::Setup {
                flags: setup.flags(),
                term_offset: setup.term_offset(),
                session_id: setup.session_id(),
                stream_id: setup.stream_id(),
                initial_term_id: setup.initial_term_id(),
                active_term_id: setup.active_term_id(),
                term_length: setup.term_length(),
                mtu: setup.mtu(),
                ttl: setup.ttl(),
            };
            return (s, from);
        }
    }
}

/// `AERON_DRIVER_CONNECT=false`: the send socket of a unicast publication is not
/// connected to its endpoint (the default driver's is); and the publication, connected by
/// one status message from a test socket, is no longer connected once
/// `AERON_PUBLICATION_CONNECTION_TIMEOUT` (300 ms) passes without another (within 4 s, the
/// default being 5 s).
#[test]
fn unconnected_send_sockets_and_the_connection_timeout_follow_the_settings() {
    use aeronrs::protocol::status_message::StatusMessage;

    let tmp = tempfile::tempdir().unwrap();
    let (default_dir, dir) = (tmp.path().join("default"), tmp.path().join("aeron"));
    let _default_driver = MediaDriver::launch(test_context(&default_dir)).unwrap();
    let mut ctx = test_context(&dir);
    ctx.network.connect_enabled = false;
    ctx.publication_connection_timeout_ns = 300_000_000;
    ctx.timer_interval_ns = 10_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();

    let mut clients = [RawClient::connect(&default_dir), RawClient::connect(&dir)];
    let mut readies = Vec::new();
    let mut receivers = Vec::new();
    for client in &mut clients {
        let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        receiver.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let endpoint = receiver.local_addr().unwrap();
        readies.push(add_publication(client, &format!("aeron:udp?endpoint={endpoint}"), 9, false));
        receivers.push(receiver);
    }
    let (setup, sender) = receive_setup(&receivers[1]);
    receive_setup(&receivers[0]);
    let peers = connected_peers();
    let endpoints: Vec<String> = receivers.iter().map(|r| r.local_addr().unwrap().to_string()).collect();
    assert!(peers.contains(&endpoints[0]), "the default driver connects: {peers:?}");
    assert!(!peers.contains(&endpoints[1]), "AERON_DRIVER_CONNECT=false: {peers:?}");

    let sm = StatusMessage {
        flags: 0,
        session_id: setup.session_id,
        stream_id: setup.stream_id,
        consumption_term_id: setup.active_term_id,
        consumption_term_offset: setup.term_offset,
        receiver_window: 64 * 1024,
        receiver_id: 1,
        group_tag: None,
    };
    let mut frame = [0u8; 64];
    let length = sm.encode(&mut frame).unwrap();
    let log = LogBuffers::map_existing(Path::new(&readies[1].log_file)).unwrap();
    let m = log.metadata();
    wait_until("connected by the status message", || {
        receivers[1].send_to(&frame[..length], sender).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        d::is_connected(m)
    });
    wait_within(Duration::from_secs(4), "the publication no longer connected", || !d::is_connected(m));
}

/// A test socket in the role of a sender: a SETUP for `(session_id, stream_id)`, then
/// frames at term offsets 0 and 2048, leaving the gap [1024, 2048). Returns when the
/// second frame was about to be sent.
fn send_stream_with_gap(sender: &std::net::UdpSocket, port: u16, session_id: i32, stream_id: i32) -> Instant {
    send_stream(sender, port, session_id, stream_id, &[0, 2048])
}

/// As [`send_stream_with_gap`], with 1024-byte frames at `offsets`.
fn send_stream(
    sender: &std::net::UdpSocket,
    port: u16,
    session_id: i32,
    stream_id: i32,
    offsets: &[i32],
) -> Instant {
    use aeronrs::protocol::data::DataHeader;
    use aeronrs::protocol::setup::Setup;
    let setup = Setup {
        flags: 0,
        term_offset: 0,
        session_id,
        stream_id,
        initial_term_id: 9,
        active_term_id: 9,
        term_length: 64 * 1024,
        mtu: 1408,
        ttl: 0,
    };
    let mut frame = vec![0u8; 1024];
    setup.encode(&mut frame).unwrap();
    sender.send_to(&frame[..40], ("127.0.0.1", port)).unwrap();
    let mut buffer = [0u8; 1500];
    // The first status message says the image is there.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no status message for session {session_id}");
        let Ok(length) = sender.recv(&mut buffer) else {
            sender.send_to(&frame[..40], ("127.0.0.1", port)).unwrap();
            continue;
        };
        if aeronrs::protocol::status_message::StatusMessageFlyweight::parse(&buffer[..length])
            .is_ok_and(|sm| sm.session_id() == session_id)
        {
            break;
        }
    }
    // Taken before the last frame leaves: nothing the driver does on it can come sooner.
    let mut last_sent = Instant::now();
    for &offset in offsets {
        DataHeader::data(session_id, stream_id, 9, offset, 1024 - 32)
            .encode_frame(&[5u8; 992], &mut frame)
            .unwrap();
        last_sent = Instant::now();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    }
    last_sent
}

/// The NAKs for `session_id` reaching `sender` until `count` came: (when, offset, length).
fn receive_naks(sender: &std::net::UdpSocket, session_id: i32, count: usize) -> Vec<(Instant, i32, i32)> {
    use aeronrs::protocol::nak::NakFlyweight;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut naks = Vec::new();
    let mut buffer = [0u8; 1500];
    while naks.len() < count {
        assert!(Instant::now() < deadline, "NAKs so far: {naks:?}");
        let Ok(length) = sender.recv(&mut buffer) else { continue };
        if let Ok(nak) = NakFlyweight::parse(&buffer[..length]) {
            if nak.session_id() == session_id {
                naks.push((Instant::now(), nak.term_offset(), nak.length()));
            }
        }
    }
    naks
}

/// A receiver NAKs a gap `AERON_NAK_UNICAST_DELAY` (300 ms) after it saw it, never sooner
/// (the default is 100 µs), and NAKs it again `AERON_NAK_UNICAST_RETRY_DELAY_RATIO` (2)
/// times that later (the default 100 would make it 30 s); with `AERON_RELIABLE_STREAM=false`
/// a receiver never NAKs and pads the gap instead.
#[test]
fn naks_follow_the_delay_and_ratio_and_unreliable_streams_pad_gaps() {
    let tmp = tempfile::tempdir().unwrap();
    let (reliable_dir, unreliable_dir) = (tmp.path().join("reliable"), tmp.path().join("unreliable"));
    let mut ctx = test_context(&reliable_dir);
    ctx.nak_unicast_delay_ns = 300_000_000;
    ctx.nak_unicast_retry_delay_ratio = 2;
    let _reliable = MediaDriver::launch(ctx).unwrap();
    let _unreliable =
        MediaDriver::launch(DriverContext { reliable_stream: false, ..test_context(&unreliable_dir) })
            .unwrap();

    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let mut client = RawClient::connect(&reliable_dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 12);
    let gap_sent = send_stream_with_gap(&sender, port, 777, 12);
    let naks = receive_naks(&sender, 777, 2);
    assert_eq!((naks[0].1, naks[0].2), (1024, 1024), "the gap");
    assert_eq!((naks[1].1, naks[1].2), (1024, 1024), "the gap again");
    assert!(naks[0].0 - gap_sent >= Duration::from_millis(300), "first NAK after {:?}", naks[0].0 - gap_sent);
    // Timed from the driver's sending of the first NAK, which came after the 300 ms.
    let again = naks[1].0 - gap_sent;
    assert!(again >= Duration::from_millis(900), "NAK again {again:?} after the gap");

    let mut client = RawClient::connect(&unreliable_dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 13);
    send_stream_with_gap(&sender, port, 778, 13);
    let record =
        client.expect("the image", |r| matches!(r, Response::AvailableImage(i) if i.session_id == 778));
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    let log = LogBuffers::map_existing(Path::new(image.log_file_name_str().unwrap())).unwrap();
    wait_until("the gap padded", || log.term(0).get_i32_acquire(1024) == 1024);
    assert_eq!(log.term(0).get_u16(1024 + 6), 0, "a PAD frame over the gap");
    let mut buffer = [0u8; 1500];
    while let Ok(length) = sender.recv(&mut buffer) {
        assert!(
            aeronrs::protocol::nak::NakFlyweight::parse(&buffer[..length]).is_err(),
            "an unreliable stream NAKed"
        );
    }
}

/// A sender retransmits a NAKed range `AERON_RETRANSMIT_UNICAST_DELAY` (300 ms) after the
/// NAK, never sooner (the default is at once), and ignores NAKs of it for
/// `AERON_RETRANSMIT_UNICAST_LINGER` (10 s) after; a test socket plays the receiver.
#[test]
fn retransmits_follow_the_delay_and_linger() {
    use aeronrs::protocol::data::DataFlyweight;
    use aeronrs::protocol::nak::Nak;
    use aeronrs::protocol::status_message::StatusMessage;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.retransmit_unicast_delay_ns = 300_000_000;
    ctx.retransmit_unicast_linger_ns = 10_000_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let endpoint = receiver.local_addr().unwrap();
    let ready = add_publication(&mut client, &format!("aeron:udp?endpoint={endpoint}"), 14, false);
    let (setup, sender) = receive_setup(&receiver);
    let sm = StatusMessage {
        flags: 0,
        session_id: setup.session_id,
        stream_id: setup.stream_id,
        consumption_term_id: setup.active_term_id,
        consumption_term_offset: 0,
        receiver_window: 64 * 1024,
        receiver_id: 1,
        group_tag: None,
    };
    let mut frame = [0u8; 64];
    let length = sm.encode(&mut frame).unwrap();
    let publication = log_client::TestPublication::map(
        &ready.log_file,
        &client.cnc.counters_values,
        ready.limit_counter_id,
    );
    wait_until("connected", || {
        receiver.send_to(&frame[..length], sender).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        publication.is_connected()
    });
    assert!(publication.offer(&[3u8; 100]) > 0);
    let mut buffer = [0u8; 1500];
    // When data at `offset` came (heartbeats have frame length 0), and the data offsets
    // that came before it.
    let mut data_at = |offset: i32| {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut before = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "no data frame at term offset {offset}");
            let Ok(length) = receiver.recv(&mut buffer) else { continue };
            match DataFlyweight::parse(&buffer[..length]) {
                Ok(d) if d.frame_length() > 0 && d.term_offset() == offset => {
                    return (Instant::now(), before);
                }
                Ok(d) if d.frame_length() > 0 => before.push(d.term_offset()),
                _ => {}
            }
        }
    };
    data_at(0);
    let mut nak_frame = [0u8; 32];
    let mut send_nak = |term_offset: i32| {
        // Each frame: 32 + 100 bytes, aligned to 32.
        let nak = Nak::new(setup.session_id, setup.stream_id, setup.active_term_id, term_offset, 160);
        let nak_length = nak.encode(&mut nak_frame).unwrap();
        // Before it leaves: the driver cannot act on it sooner.
        let sent = Instant::now();
        receiver.send_to(&nak_frame[..nak_length], sender).unwrap();
        sent
    };
    let naked = send_nak(0);
    let (retransmitted, _) = data_at(0);
    assert!(
        retransmitted - naked >= Duration::from_millis(300),
        "retransmitted after {:?}",
        retransmitted - naked
    );

    // Past the default 10 ms linger, but within the 10 s one, the range NAKed again is not
    // resent: data offered once its resend would have been due comes with none before it.
    std::thread::sleep(Duration::from_millis(50));
    send_nak(0);
    let past_the_retransmit_delay = Duration::from_millis(400);
    std::thread::sleep(past_the_retransmit_delay);
    assert!(publication.offer(&[3u8; 100]) > 0);
    let (_, before) = data_at(160);
    assert!(before.is_empty(), "AERON_RETRANSMIT_UNICAST_LINGER: resent again ({before:?})");
    assert_eq!(client.cnc.system_counter(RETRANSMITS_SENT), 1);
}

/// Type ids of the sender limit and flow control receivers counters.
const SENDER_LIMIT_TYPE_ID: i32 = 9;
const FC_RECEIVERS_TYPE_ID: i32 = 17;
const STATUS_MESSAGES_RECEIVED: i32 = 8;

/// The value of the first allocated counter of `type_id` (one publication per driver here).
fn counter_of_type(client: &RawClient, type_id: i32) -> Option<i64> {
    (0..1024)
        .find(|&id| client.cnc.counter_state(id) == 1 && client.cnc.counter_type_id(id) == type_id)
        .map(|id| client.cnc.counter_value(id))
}

/// Two receivers (receiver ids 1 and 2) of one publication played by one test socket,
/// sending status messages for consumption position 0 with their own windows to `sender`.
struct TwoReceivers {
    sockets: [std::net::UdpSocket; 2],
    frames: [Vec<u8>; 2],
    sender: std::net::SocketAddr,
}

impl TwoReceivers {
    /// Receiver 1 has window 48 KiB and `first_tag`, receiver 2 32 KiB and no group tag.
    fn new(
        first: std::net::UdpSocket,
        sender: std::net::SocketAddr,
        (session_id, stream_id, term_id): (i32, i32, i32),
        first_tag: Option<i64>,
    ) -> Self {
        use aeronrs::protocol::status_message::StatusMessage;
        let frame = |receiver_id: i64, window: i32, group_tag: Option<i64>| {
            let sm = StatusMessage {
                flags: 0,
                session_id,
                stream_id,
                consumption_term_id: term_id,
                consumption_term_offset: 0,
                receiver_window: window,
                receiver_id,
                group_tag,
            };
            let mut frame = vec![0u8; 64];
            let length = sm.encode(&mut frame).unwrap();
            frame.truncate(length);
            frame
        };
        // A connected send socket hears only its endpoint: both receivers use its address,
        // told apart by their receiver ids.
        let second = first.try_clone().unwrap();
        Self {
            sockets: [first, second],
            frames: [frame(1, 48 * 1024, first_tag), frame(2, 32 * 1024, None)],
            sender,
        }
    }

    /// Receiver `which` sends status messages until `done`.
    fn send_until(&self, which: usize, what: &str, mut done: impl FnMut() -> bool) {
        wait_until(what, || {
            self.sockets[which].send_to(&self.frames[which], self.sender).unwrap();
            std::thread::sleep(Duration::from_millis(2));
            done()
        });
    }

    /// Receiver `which` sends until the sender has handled two more status messages: the
    /// first of them wholly before the counter moves past it.
    fn send_two_handled(&self, which: usize, client: &RawClient) {
        let before = client.cnc.system_counter(STATUS_MESSAGES_RECEIVED);
        self.send_until(which, "two status messages handled", || {
            client.cnc.system_counter(STATUS_MESSAGES_RECEIVED) >= before + 2
        });
    }
}

/// `AERON_UNICAST_FLOWCONTROL_SUPPLIER=min` gives a unicast publication min flow control
/// (an `fc-receivers` counter, the sender limit of the slowest receiver) with
/// `AERON_FLOW_CONTROL_GROUP_MIN_SIZE` (2: no progress with one receiver) and
/// `AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT` (300 ms: a quiet receiver dropped
/// within 4 s, the default being 5 s); `AERON_MULTICAST_FLOWCONTROL_SUPPLIER=min` or
/// `tagged` gives a dynamic MDC publication that instead of the default max, tagged
/// counting only the receivers of `AERON_FLOW_CONTROL_GROUP_TAG`.
#[test]
fn flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("unicast");
    let mut ctx = test_context(&dir);
    ctx.unicast_flow_control_supplier = "min".to_string();
    ctx.network.flow_control_group_min_size = 2;
    ctx.network.flow_control_receiver_timeout_ns = 300_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let first = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    first.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let endpoint = first.local_addr().unwrap();
    add_publication(&mut client, &format!("aeron:udp?endpoint={endpoint}"), 15, false);
    let (setup, sender) = receive_setup(&first);
    let receivers =
        TwoReceivers::new(first, sender, (setup.session_id, setup.stream_id, setup.active_term_id), None);
    receivers
        .send_until(0, "one receiver counted", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1));
    receivers.send_two_handled(0, &client);
    assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(0), "one receiver of a group of 2");
    receivers
        .send_until(1, "two receivers counted", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(2));
    receivers.send_two_handled(0, &client);
    assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(32 * 1024), "the slower window");
    let deadline = Instant::now() + Duration::from_secs(4);
    receivers.send_until(0, "the quiet receiver dropped", || {
        assert!(Instant::now() < deadline, "the quiet receiver still counted after 4 s");
        counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1)
    });

    // Dynamic MDC: min (both receivers counted, the slower window) or tagged with
    // `AERON_FLOW_CONTROL_GROUP_TAG` 99 (only receiver 1, tagged 99, counted).
    for (supplier, tagged) in [("min", false), ("tagged", true)] {
        let dir = tmp.path().join(supplier);
        let mut ctx = test_context(&dir);
        ctx.multicast_flow_control_supplier = supplier.to_string();
        ctx.network.flow_control_group_tag = 99;
        let _driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        let control = format!("127.0.0.1:{}", free_port());
        let ready = add_publication(
            &mut client,
            &format!("aeron:udp?control={control}|control-mode=dynamic"),
            16,
            false,
        );
        let log = LogBuffers::map_existing(Path::new(&ready.log_file)).unwrap();
        let receivers = TwoReceivers::new(
            std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
            control.parse().unwrap(),
            (ready.session_id, 16, d::initial_term_id(log.metadata())),
            Some(99),
        );
        receivers
            .send_until(0, "one MDC receiver", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1));
        receivers.send_two_handled(1, &client);
        receivers.send_two_handled(0, &client);
        let (count, limit) = if tagged { (1, 48 * 1024) } else { (2, 32 * 1024) };
        assert_eq!(
            counter_of_type(&client, FC_RECEIVERS_TYPE_ID),
            Some(count),
            "{supplier}: receivers counted"
        );
        assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(limit), "{supplier}: sender limit");
    }
}

/// `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS` and `..._MULTI_GAP_LOSS_ARGS` say
/// which frames the `fixed-loss` and `multi-gap-loss` interceptors drop (none without
/// them): the receiver NAKs the frame dropped, of a stream a test socket sent whole.
#[test]
fn loss_interceptors_drop_the_frames_their_args_name() {
    let tmp = tempfile::tempdir().unwrap();
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    for (interceptor, stream_id, dropped) in [("fixed-loss", 20, 0), ("multi-gap-loss", 21, 1024)] {
        let dir = tmp.path().join(interceptor);
        let mut ctx = test_context(&dir);
        ctx.udp_channel_incoming_interceptors = Some(interceptor.to_string());
        ctx.udp_channel_fixed_loss_args = Some("term-id=9|term-offset=0|length=1024".to_string());
        ctx.udp_channel_multi_gap_loss_args =
            Some("term-id=9|gap-radix=1024|gap-length=1024|total-gaps=1".to_string());
        let _driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        let port = free_port();
        add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), stream_id);
        send_stream(&sender, port, 900 + stream_id, stream_id, &[0, 1024, 2048, 3072, 4096]);
        let naks = receive_naks(&sender, 900 + stream_id, 1);
        assert_eq!(naks[0].1, dropped, "{interceptor}: the NAKed offset");
        if interceptor == "fixed-loss" {
            assert_eq!(naks[0].2, 1024, "fixed-loss: the NAKed length");
        }
    }
}

/// `AERON_RECEIVER_GROUP_CONSIDERATION=true` treats a unicast image as multicast: its NAK
/// delay is the multicast back-off (under the 1 ms `AERON_NAK_MULTICAST_MAX_BACKOFF`), not
/// the 60 s unicast delay also set, so a NAK comes within the 20 s wait.
#[test]
fn group_consideration_gives_unicast_images_the_multicast_nak_delay() {
    use aeronrs::driver::network_config::InferableBoolean;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.network.receiver_group_consideration = InferableBoolean::ForceTrue;
    ctx.nak_unicast_delay_ns = 60_000_000_000;
    ctx.nak_multicast_max_backoff_ns = 1_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 22);
    send_stream_with_gap(&sender, port, 922, 22);
    let naks = receive_naks(&sender, 922, 1);
    assert_eq!((naks[0].1, naks[0].2), (1024, 1024), "the gap");
}

/// `AERON_NAK_MULTICAST_MAX_BACKOFF` (200 ms): an image treated as multicast waits a fresh
/// random back-off below it before each NAK of a gap, for the default group of 10 mostly
/// near it (below a fifth of it once in 70 draws); of five waits at least one is then over
/// 50 ms, which the 10 ms default could never give. Only a lower bound: a slow machine
/// lengthens waits, it cannot shorten the longest.
#[test]
fn multicast_nak_back_off_follows_its_maximum() {
    use aeronrs::driver::network_config::InferableBoolean;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.network.receiver_group_consideration = InferableBoolean::ForceTrue;
    ctx.nak_multicast_max_backoff_ns = 200_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 23);
    let gap_sent = send_stream_with_gap(&sender, port, 923, 23);
    let naks = receive_naks(&sender, 923, 5);
    let mut previous = gap_sent;
    let waits: Vec<Duration> = naks
        .iter()
        .map(|(at, offset, length)| {
            assert_eq!((*offset, *length), (1024, 1024), "the gap");
            let wait = *at - previous;
            previous = *at;
            wait
        })
        .collect();
    let longest = waits.iter().max().copied().unwrap_or_default();
    assert!(longest > Duration::from_millis(50), "NAK waits {waits:?}");
}

/// `AERON_NAK_MULTICAST_GROUP_SIZE` (2^31 − 1): the larger the group, the nearer to the
/// maximum back-off (100 ms here) an image treated as multicast draws its wait before the
/// first NAK of a gap. With this group a draw under 50 ms happens about once in 77,000;
/// with the default group of 10 about one draw in 6 is, so of 40 fresh gaps one at least
/// would be NAKed sooner (99.9 %). Each wait is timed from before the frame that makes the
/// gap is sent, so a slow machine can only lengthen it. The 64-byte frames keep every gap
/// well within the receiver window of the image nobody reads.
#[test]
fn multicast_nak_back_off_follows_the_group_size() {
    use aeronrs::driver::network_config::InferableBoolean;
    use aeronrs::protocol::data::DataHeader;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.network.receiver_group_consideration = InferableBoolean::ForceTrue;
    ctx.nak_multicast_max_backoff_ns = 100_000_000;
    ctx.nak_multicast_group_size = i32::MAX as u32;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let port = free_port();
    let (session_id, stream_id) = (924, 24);
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), stream_id);
    send_stream(&sender, port, session_id, stream_id, &[0]);
    let mut frame = [0u8; 64];
    let mut send_frame = |offset: i32| {
        DataHeader::data(session_id, stream_id, 9, offset, 32).encode_frame(&[5u8; 32], &mut frame).unwrap();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    };
    let mut waits = Vec::new();
    for k in 0..40 {
        // One gap at a time: [gap, gap + 64) opened by the frame after it, then filled.
        let gap = 1024 + 128 * k;
        let opened = Instant::now();
        send_frame(gap + 64);
        let nak = wait_for_nak_of(&sender, session_id, gap);
        waits.push(nak - opened);
        send_frame(gap);
    }
    let shortest = waits.iter().min().copied().unwrap_or_default();
    assert!(shortest >= Duration::from_millis(50), "first-NAK waits {waits:?}");
}

/// When the first NAK of the gap at `offset` of `session_id` reached `sender` (NAKs of
/// earlier gaps, still in flight, are passed over).
fn wait_for_nak_of(sender: &std::net::UdpSocket, session_id: i32, offset: i32) -> Instant {
    use aeronrs::protocol::nak::NakFlyweight;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut buffer = [0u8; 1500];
    loop {
        assert!(Instant::now() < deadline, "no NAK of the gap at {offset}");
        let Ok(length) = sender.recv(&mut buffer) else { continue };
        if NakFlyweight::parse(&buffer[..length])
            .is_ok_and(|n| n.session_id() == session_id && n.term_offset() == offset)
        {
            return Instant::now();
        }
    }
}

/// `AERON_MAX_RESEND` (1) bounds the resends a publication with group semantics keeps in
/// hand (unicast keeps one, as upstream): with a 1 s retransmit delay holding the first, a
/// NAK for another range overflows.
#[test]
fn max_resend_bounds_the_resends_of_a_multi_destination_publication() {
    use aeronrs::protocol::nak::Nak;
    const RETRANSMIT_OVERFLOW: i32 = 37;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.max_resend = 1;
    ctx.retransmit_unicast_delay_ns = 1_000_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let control = format!("127.0.0.1:{}", free_port());
    let ready =
        add_publication(&mut client, &format!("aeron:udp?control={control}|control-mode=dynamic"), 23, false);
    let log = LogBuffers::map_existing(Path::new(&ready.log_file)).unwrap();
    let term_id = d::initial_term_id(log.metadata());
    let receivers = TwoReceivers::new(
        std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
        control.parse().unwrap(),
        (ready.session_id, 23, term_id),
        None,
    );
    receivers.send_two_handled(0, &client);
    let mut frame = [0u8; 32];
    for term_offset in [0, 160] {
        let length = Nak::new(ready.session_id, 23, term_id, term_offset, 160).encode(&mut frame).unwrap();
        receivers.sockets[0].send_to(&frame[..length], receivers.sender).unwrap();
    }
    wait_until("the second resend overflows", || client.cnc.system_counter(RETRANSMIT_OVERFLOW) == 1);
}

/// `AERON_REJOIN_STREAM=false`: a session whose image went (here after the 500 ms image
/// liveness timeout) gets no new one from a later SETUP, while a new session does. The
/// receiver handles datagrams from one socket in order and the conductor builds images in
/// order, so an image of the old session would come before that of the new one.
#[test]
fn a_session_does_not_rejoin_a_stream_that_forbids_it() {
    use aeronrs::protocol::setup::Setup;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.rejoin_stream = false;
    ctx.image_liveness_timeout_ns = 500_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 25);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let send_setup = |session_id: i32| {
        let setup = Setup {
            flags: 0,
            term_offset: 0,
            session_id,
            stream_id: 25,
            initial_term_id: 9,
            active_term_id: 9,
            term_length: 64 * 1024,
            mtu: 1408,
            ttl: 0,
        };
        let mut frame = [0u8; 40];
        setup.encode(&mut frame).unwrap();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    };
    let image_of = |session_id: i32| move |r: &Response<'_>| matches!(r, Response::AvailableImage(i) if i.session_id == session_id);
    send_setup(31);
    client.expect("the first image", image_of(31));
    client.expect("the first image gone", |r| matches!(r, Response::UnavailableImage(_)));
    // A second session's image: the receiver has handled every command the conductor sent
    // it when the first image went, the rejoin decision among them.
    send_setup(32);
    client.expect("the second session's image", image_of(32));
    send_setup(31);
    send_setup(33);
    let record = client.expect("an image", |r| image_of(31)(r) || image_of(33)(r));
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    assert_eq!(image.session_id, 33, "session 31 rejoined");
}

/// `AERON_RECEIVER_IO_VECTOR_CAPACITY` (5) and `AERON_SENDER_IO_VECTOR_CAPACITY` (3) are
/// how many datagrams the receiver and the sender ask their transports for at a time, and
/// `AERON_SOCKET_MULTICAST_TTL` (7) the TTL a multicast publication's transport is opened
/// with: what a media plug-in is asked (the driver's own sockets apply the same spec).
#[test]
fn io_vector_capacities_and_the_multicast_ttl_reach_the_transports() {
    use aeronrs::driver::media::media_plugin::{MediaPlugin, MediaPluginSupplier, TransportAffinity};
    use aeronrs::protocol::status_message::StatusMessage;
    use std::sync::Arc;

    let media = Arc::new(recording_media::RecordingMedia::default());
    let record = media.record.clone();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.network.receiver_io_vector_capacity = 5;
    ctx.network.sender_io_vector_capacity = 3;
    ctx.socket_multicast_ttl = 7;
    let supplied = media.clone();
    ctx.media_plugin_supplier =
        Some(MediaPluginSupplier(Arc::new(move || Ok(supplied.clone() as Arc<dyn MediaPlugin>))));
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);

    // The receiver reads a SETUP; the sender a status message.
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 26);
    let test_socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    test_socket.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    send_stream(&test_socket, port, 926, 26, &[]);
    let endpoint = test_socket.local_addr().unwrap();
    add_publication(&mut client, &format!("aeron:udp?endpoint={endpoint}"), 27, false);
    let (setup, sender) = receive_setup(&test_socket);
    let sm = StatusMessage {
        flags: 0,
        session_id: setup.session_id,
        stream_id: 27,
        consumption_term_id: setup.active_term_id,
        consumption_term_offset: 0,
        receiver_window: 64 * 1024,
        receiver_id: 1,
        group_tag: None,
    };
    let mut frame = [0u8; 64];
    let length = sm.encode(&mut frame).unwrap();
    wait_until("the sender reads with its capacity", || {
        test_socket.send_to(&frame[..length], sender).unwrap();
        std::thread::sleep(Duration::from_millis(2));
        record.lock().unwrap().receives.contains(&(TransportAffinity::Sender, 3))
    });
    let group = format!("239.255.{}.{}:{}", port >> 8, (port as u8) | 1, port);
    add_publication(&mut client, &format!("aeron:udp?endpoint={group}|interface=127.0.0.1"), 28, false);
    let record = record.lock().unwrap();
    assert!(record.receives.contains(&(TransportAffinity::Receiver, 5)), "{record:?}");
    assert!(!record.receives.iter().any(|&(a, v)| a != TransportAffinity::Conductor && v == 2), "{record:?}");
    assert_eq!(record.opened.last().map(|o| o.1), Some(7), "{record:?}");
}

/// `AERON_CUBICCONGESTIONCONTROL_TCPMODE`: cubic's window after the start (counted as a
/// loss) climbs back to its maximum over K = ∛(w_max·β/C), 7.2 s for 744 MTUs, getting
/// within the last MTU only after 5.8 s; TCP mode's floor (growing by a third of an MTU per
/// 100 µs RTT) gets it there within 50 ms, so it is there within 3 s.
#[test]
fn cubic_tcp_mode_restores_the_window_at_once() {
    use aeronrs::protocol::setup::Setup;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.congestion_control_supplier = "cubic".to_string();
    ctx.cubic_tcp_mode = true;
    ctx.rcv_initial_window_length = 1024 * 1024;
    ctx.socket_so_rcvbuf = 2 * 1024 * 1024;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 29);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let setup = Setup {
        flags: 0,
        term_offset: 0,
        session_id: 929,
        stream_id: 29,
        initial_term_id: 9,
        active_term_id: 9,
        // Half a term is above the 1 MiB window, so the window is 744 MTUs.
        term_length: 4 * 1024 * 1024,
        mtu: 1408,
        ttl: 0,
    };
    let mut frame = [0u8; 40];
    setup.encode(&mut frame).unwrap();
    let setup_sent = Instant::now();
    sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    client.expect("the image", |r| matches!(r, Response::AvailableImage(i) if i.session_id == 929));
    let max_window = 744 * 1408;
    let mut window = 0;
    wait_within(Duration::from_secs(3), "the window at its maximum", || {
        window = (0..64)
            .find(|&id| {
                client.cnc.counter_state(id) == 1
                    && client.cnc.counter_label(id).starts_with("rcv-cc-cubic-wnd")
            })
            .map_or(0, |id| client.cnc.counter_value(id));
        window >= max_window
    });
    assert!(setup_sent.elapsed() < Duration::from_secs(3), "window {window}");
}

/// `AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND` (5, the default 2): the most DATA
/// datagrams a publication sends in one duty cycle; `AERON_SEND_TO_STATUS_POLL_RATIO` (2,
/// the default 6): how many sending cycles per poll for status messages. Counted by the
/// recording media plug-in under an invoker-mode driver with 40 frames waiting.
#[test]
fn duty_cycles_send_and_poll_as_configured() {
    use aeronrs::driver::media::media_plugin::{MediaPlugin, MediaPluginSupplier};
    use aeronrs::protocol::status_message::StatusMessage;
    use std::sync::Arc;

    let media = Arc::new(recording_media::RecordingMedia::default());
    let record = media.record.clone();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.threading_mode = aeronrs::driver::ThreadingMode::Invoker;
    ctx.network.network_publication_max_messages_per_send = 5;
    ctx.send_to_status_poll_ratio = 2;
    // No control poll for lack of one in 5 s (half of it): only the ratio's.
    ctx.status_message_timeout_ns = 10_000_000_000;
    ctx.term_buffer_length = 1024 * 1024;
    let supplied = media.clone();
    ctx.media_plugin_supplier =
        Some(MediaPluginSupplier(Arc::new(move || Ok(supplied.clone() as Arc<dyn MediaPlugin>))));
    let mut driver = MediaDriver::init(ctx).unwrap();
    driver.start(true).unwrap();
    let mut client = RawClient::connect(&dir);
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_nonblocking(true).unwrap();
    let endpoint = receiver.local_addr().unwrap();
    let id = client.add_publication(&format!("aeron:udp?endpoint={endpoint}"), 31, false);
    let mut drive = |client: &mut RawClient| {
        driver.do_work().unwrap();
        client.poll();
        std::thread::sleep(Duration::from_millis(1));
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let ready = loop {
        assert!(Instant::now() < deadline, "no publication");
        drive(&mut client);
        let found = client.received.iter().find_map(|r| match r.response() {
            Response::PublicationReady(p) if p.correlation_id == id => {
                Some((p.log_file_name_str().unwrap().to_string(), p.position_limit_counter_id))
            }
            _ => None,
        });
        if let Some(found) = found {
            break found;
        }
    };
    // Connected by status messages answering the SETUP.
    let publication = log_client::TestPublication::map(&ready.0, &client.cnc.counters_values, ready.1);
    let mut buffer = [0u8; 1500];
    let mut sm = None;
    while !publication.is_connected() {
        assert!(Instant::now() < deadline, "not connected");
        drive(&mut client);
        while let Ok((length, from)) = receiver.recv_from(&mut buffer) {
            if let Ok(setup) = aeronrs::protocol::setup::SetupFlyweight::parse(&buffer[..length]) {
                let message = StatusMessage {
                    flags: 0,
                    session_id: setup.session_id(),
                    stream_id: 31,
                    consumption_term_id: setup.active_term_id(),
                    consumption_term_offset: 0,
                    receiver_window: 64 * 1024,
                    receiver_id: 1,
                    group_tag: None,
                };
                let mut frame = [0u8; 64];
                let n = message.encode(&mut frame).unwrap();
                sm = Some((frame, n, from));
            }
        }
        if let Some((frame, n, from)) = sm {
            receiver.send_to(&frame[..n], from).unwrap();
        }
    }
    let sent_before = record.lock().unwrap().data_sent;
    for _ in 0..40 {
        assert!(publication.offer(&[1u8; 1300]) > 0);
    }
    // (DATA datagrams, control polls) of each duty cycle until all 40 went (within the
    // 64 KiB window the status message gives).
    let mut per_cycle = Vec::new();
    while record.lock().unwrap().data_sent < sent_before + 40 {
        assert!(Instant::now() < deadline, "sent {:?}", &per_cycle[..per_cycle.len().min(40)]);
        let before = {
            let record = record.lock().unwrap();
            (record.data_sent, record.sender_receives)
        };
        if let Some((frame, n, from)) = sm {
            receiver.send_to(&frame[..n], from).unwrap();
        }
        driver.do_work().unwrap();
        let record = record.lock().unwrap();
        per_cycle.push((record.data_sent - before.0, record.sender_receives - before.1));
    }
    assert_eq!(per_cycle.iter().map(|c| c.0).max(), Some(5), "DATA datagrams per duty cycle: {per_cycle:?}");
    // A cycle that sent polls for status messages every second cycle (the default every
    // sixth): 8 sending cycles, about 4 polls.
    let sending: Vec<usize> = per_cycle.iter().filter(|c| c.0 > 0).map(|c| c.1).collect();
    let polls: usize = sending.iter().sum();
    assert!(
        polls * 2 + 1 >= sending.len(),
        "{polls} control polls in {} sending cycles: {per_cycle:?}",
        sending.len()
    );
}
