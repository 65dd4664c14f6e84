//! Our driver against the real Aeron 1.48 UDP session (`udp-session.*` vectors): the C
//! sender's datagrams from the capture, replayed into our receiving driver, rebuild an image
//! log byte-identical to the C receiver's (`udp-image.logbuffer`), with the same metadata;
//! our status messages have the C receiver's layout. And our sender, facing a test socket
//! in the role of the receiver, sends SETUP, data and heartbeats laid out as the C sender's.

mod common;
#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::logbuffer::LogBuffers;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::util::idle_strategy::IdleStrategy;
use log_client::{TestImage, TestPublication};
use raw_client::RawClient;

const SESSION_ID: i32 = 394850090;
const STREAM_ID: i32 = 1002;
const INITIAL_TERM_ID: i32 = 1476212330;
const TERM: usize = 65536;

/// UDP payloads of a classic pcap (Ethernet + IPv4 + UDP before each), with destination port.
fn datagrams(pcap: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let captured = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let packet = &pcap[at + 16..at + 16 + captured];
        out.push((u16::from_be_bytes([packet[36], packet[37]]), packet[42..].to_vec()));
        at += 16 + captured;
    }
    out
}

fn i32_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

fn driver(dir: &std::path::Path) -> MediaDriver {
    let sleep = IdleStrategy::Sleep(Duration::from_micros(100));
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Shared,
        shared_idle_strategy: sleep,
        term_buffer_length: TERM,
        ..DriverContext::default()
    })
    .unwrap()
}

fn recv(socket: &UdpSocket, buffer: &mut [u8]) -> Option<usize> {
    socket.recv(buffer).ok()
}

#[test]
fn c_senders_datagrams_rebuild_the_c_receivers_image() {
    let Some(pcap) = common::read_vector("udp-session.pcap") else { return };
    let Some(expected) = common::read_vector("udp-image.logbuffer") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut driver = driver(&tmp.path().join("aeron"));
    let mut client = RawClient::connect(&tmp.path().join("aeron"));
    let port = UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let sub_id = client.add_subscription(&channel, STREAM_ID);
    client.expect_correlated(sub_id);
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.connect(("127.0.0.1", port)).unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();

    let to_receiver: Vec<Vec<u8>> =
        datagrams(&pcap).into_iter().filter(|(p, _)| *p == 20121).map(|(_, d)| d).collect();
    let setup = &to_receiver[0];
    assert_eq!(setup[6], 5, "the capture starts with SETUP");
    sender.send(setup).unwrap();
    let record = client.expect("image", |r| matches!(r, Response::AvailableImage(_)));
    let Response::AvailableImage(ready) = record.response() else { unreachable!() };
    assert_eq!((ready.session_id, ready.stream_id), (SESSION_ID, STREAM_ID));
    assert_eq!(
        ready.source_identity_str().unwrap(),
        format!("127.0.0.1:{}", sender.local_addr().unwrap().port())
    );
    let mut image = TestImage::map(
        ready.log_file_name_str().unwrap(),
        &client.cnc.counters_values,
        ready.subscriber_position_id,
    );

    // The first status message: position 0, window 32768 (64 KiB term), as pkt 2.
    let mut buffer = [0u8; 128];
    let length = loop {
        if let Some(n) = recv(&sender, &mut buffer) {
            break n;
        }
    };
    let sm = &buffer[..length];
    assert_eq!(length, 36);
    assert_eq!(&sm[4..8], &[0, 0, 3, 0], "version 0, flags 0, type SM");
    assert_eq!((i32_at(sm, 8), i32_at(sm, 12)), (SESSION_ID, STREAM_ID));
    assert_eq!((i32_at(sm, 16), i32_at(sm, 20), i32_at(sm, 24)), (INITIAL_TERM_ID, 0, 32768));

    // Replay the data, keeping within the window as the C receiver's SMs kept the sender.
    // The subscriber reads up to 65536 only, as in the capture.
    let deadline = Instant::now() + Duration::from_secs(30);
    for datagram in to_receiver.iter().skip(1).filter(|d| d[6] <= 1 && i32_at(d, 0) != 0) {
        let end = d::compute_position(i32_at(datagram, 20), i32_at(datagram, 8), 16, INITIAL_TERM_ID)
            + datagram.len() as i64;
        loop {
            assert!(Instant::now() < deadline, "no progress at position {end}");
            sender.send(datagram).unwrap();
            std::thread::sleep(Duration::from_micros(200));
            if image.position() < 65536 {
                image.poll(1000);
            }
            let hwm_reached = (0..20).any(|_| {
                let hwm = rcv_hwm(&client, ready.correlation_id);
                hwm >= end || {
                    std::thread::sleep(Duration::from_micros(200));
                    false
                }
            });
            if hwm_reached {
                break;
            }
        }
    }
    let log = LogBuffers::map_existing(std::path::Path::new(ready.log_file_name_str().unwrap())).unwrap();
    let mut ours = vec![0u8; 2 * TERM];
    log.term(0).load_bytes(0, &mut ours[..TERM]);
    log.term(1).load_bytes(0, &mut ours[TERM..]);
    assert!(ours[..2 * TERM] == expected[..2 * TERM], "terms 0 and 1 differ from udp-image.logbuffer");
    // Metadata fields the driver writes for an image (vectors §7).
    let (m, e) = (log.metadata(), &expected[3 * TERM..]);
    assert_eq!(d::initial_term_id(m), INITIAL_TERM_ID);
    assert_eq!((d::mtu_length(m), d::term_length(m), d::page_size(m)), (1408, TERM as i32, 4096));
    assert_eq!(d::receiver_window_length(m), 131072);
    let mut flags = [0u8; 8];
    m.load_bytes(488, &mut flags);
    assert_eq!(flags, e[488..496], "group, response, rejoin, reliable, sparse, eos, ssc, tether");
    let mut header = [0u8; 32];
    m.load_bytes(320, &mut header);
    assert_eq!(header, e[320..352], "default frame header");
    assert_eq!(d::end_of_stream_position(m), i64::MAX);
    drop(client);
    driver.close().unwrap();
}

/// The receiver hwm counter of the image `correlation_id` (registration id of `rcv-hwm`).
fn rcv_hwm(client: &RawClient, correlation_id: i64) -> i64 {
    (0..200)
        .find(|&id| {
            client.cnc.counter_state(id) == 1
                && client.cnc.counter_type_id(id) == 3
                && client.cnc.counter_registration_id(id) == correlation_id
        })
        .map_or(-1, |id| client.cnc.counter_value(id))
}

#[test]
fn our_sender_lays_out_frames_as_the_c_sender() {
    let tmp = tempfile::tempdir().unwrap();
    let mut driver = driver(&tmp.path().join("aeron"));
    let mut client = RawClient::connect(&tmp.path().join("aeron"));
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    let channel = format!("aeron:udp?endpoint={}", receiver.local_addr().unwrap());
    let pub_id = client.add_publication(&channel, STREAM_ID, false);
    let record = client.expect_correlated(pub_id);
    let Response::PublicationReady(ready) = record.response() else { panic!("{:?}", record.response()) };
    let session_id = ready.session_id;
    let publication = TestPublication::map(
        ready.log_file_name_str().unwrap(),
        &client.cnc.counters_values,
        ready.position_limit_counter_id,
    );
    let initial_term_id = d::initial_term_id(publication.log.metadata());
    let mut buffer = vec![0u8; 65536];

    // SETUP every 100 ms until a status message: 40 bytes, as pkt 1.
    let (n, from) = receiver.recv_from(&mut buffer).unwrap();
    let setup = &buffer[..n];
    assert_eq!(n, 40);
    assert_eq!(&setup[0..8], &[40, 0, 0, 0, 0, 0, 5, 0]);
    assert_eq!((i32_at(setup, 8), i32_at(setup, 12), i32_at(setup, 16)), (0, session_id, STREAM_ID));
    assert_eq!((i32_at(setup, 20), i32_at(setup, 24)), (initial_term_id, initial_term_id));
    assert_eq!((i32_at(setup, 28), i32_at(setup, 32), i32_at(setup, 36)), (TERM as i32, 1408, 0));

    // Answer with a status message: position 0, window 32768, as pkt 2.
    let mut sm = [0u8; 36];
    sm[0..8].copy_from_slice(&[36, 0, 0, 0, 0, 0, 3, 0]);
    sm[8..12].copy_from_slice(&session_id.to_le_bytes());
    sm[12..16].copy_from_slice(&STREAM_ID.to_le_bytes());
    sm[16..20].copy_from_slice(&initial_term_id.to_le_bytes());
    sm[24..28].copy_from_slice(&32768i32.to_le_bytes());
    sm[28..36].copy_from_slice(&7817558738737205717i64.to_le_bytes());
    receiver.send_to(&sm, from).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !publication.is_connected() {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(1));
    }

    // M0..M10 of the vector sequence: the datagrams carry exactly the publication's frames.
    let lengths = [0usize, 1, 7, 31, 32, 33, 64, 95, 96, 200, 24];
    for (i, &length) in lengths.iter().enumerate() {
        let payload: Vec<u8> = (0..length).map(|j| ((16 * i + j) & 0xFF) as u8).collect();
        assert!(publication.offer(&payload) > 0);
    }
    let end = publication.position() as usize;
    assert_eq!(end, 1056, "as the vector table");
    let mut rebuilt = vec![0u8; end];
    let mut received = 0;
    while received < end {
        let n = receiver.recv(&mut buffer).unwrap();
        let datagram = &buffer[..n];
        if i32_at(datagram, 0) == 0 {
            continue; // a heartbeat
        }
        let offset = i32_at(datagram, 8) as usize;
        rebuilt[offset..offset + n].copy_from_slice(datagram);
        received = received.max(offset + n);
    }
    let mut log_bytes = vec![0u8; end];
    publication.log.term(0).load_bytes(0, &mut log_bytes);
    assert!(rebuilt == log_bytes, "datagrams are the term bytes");

    // Idle: a heartbeat at the position (32-byte DATA header, length 0, flags 0xC0), as pkt 3.
    let heartbeat = loop {
        let n = receiver.recv(&mut buffer).unwrap();
        if n == 32 && i32_at(&buffer, 0) == 0 {
            break buffer[..32].to_vec();
        }
    };
    assert_eq!(&heartbeat[4..8], &[0, 0xC0, 1, 0]);
    assert_eq!(
        (i32_at(&heartbeat, 8), i32_at(&heartbeat, 12), i32_at(&heartbeat, 16)),
        (1056, session_id, STREAM_ID)
    );
    assert_eq!(i32_at(&heartbeat, 20), initial_term_id);
    assert_eq!(&heartbeat[24..32], &[0; 8]);

    // Closing: EOS heartbeats (flags 0xE0) at the end position, as pkt 86.
    let remove = client.remove_publication(pub_id);
    client.expect_correlated(remove);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < deadline, "no EOS heartbeat");
        let n = receiver.recv(&mut buffer).unwrap();
        if n == 32 && buffer[5] == 0xE0 {
            assert_eq!(i32_at(&buffer, 8), 1056);
            break;
        }
    }
    drop(client);
    driver.close().unwrap();
}
