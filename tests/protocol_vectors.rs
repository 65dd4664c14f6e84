//! Real Aeron 1.48 UDP captures (`vectors/udp-*.pcap`): every frame parses, every field
//! equals what the independent decoder wrote into `*.frames.txt`, and our writers
//! re-encode each frame to the captured bytes.
mod common;

use std::collections::BTreeMap;

use aeronrs::protocol::header::{HDR_TYPE_DATA, HDR_TYPE_PAD};
use aeronrs::protocol::{DataFlyweight, DataFrames, Frame, FrameHeader, parse_frame};

/// One UDP datagram from a capture.
struct Datagram {
    src_port: u16,
    dst_port: u16,
    payload: Vec<u8>,
}

fn u16_be(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn u32_le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A minimal classic-pcap reader: 24-byte global header, 16-byte record headers, then the
/// link layer (Ethernet, BSD loopback or Linux cooked), IPv4 and UDP.
fn read_pcap(bytes: &[u8]) -> Vec<Datagram> {
    assert!(matches!(u32_le(bytes, 0), 0xa1b2_c3d4 | 0xa1b2_3c4d), "little-endian classic pcap expected");
    let link_type = u32_le(bytes, 20);
    let link_header = match link_type {
        0 => 4,    // BSD loopback: 4-byte address family
        1 => 14,   // Ethernet
        113 => 16, // Linux cooked capture
        other => panic!("unsupported pcap link type {other}"),
    };
    let mut datagrams = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let captured = u32_le(bytes, at + 8) as usize;
        let original = u32_le(bytes, at + 12) as usize;
        assert_eq!(captured, original, "packet truncated by the capture");
        let packet = &bytes[at + 16..at + 16 + captured];
        at += 16 + captured;
        if link_type == 1 {
            assert_eq!(u16_be(packet, 12), 0x0800, "IPv4 ethertype");
        }
        let ip = &packet[link_header..];
        assert_eq!(ip[0] >> 4, 4, "IPv4");
        assert_eq!(ip[9], 17, "UDP");
        let udp = &ip[usize::from(ip[0] & 0x0f) * 4..];
        let udp_length = usize::from(u16_be(udp, 4));
        datagrams.push(Datagram {
            src_port: u16_be(udp, 0),
            dst_port: u16_be(udp, 2),
            payload: udp[8..udp_length].to_vec(),
        });
    }
    datagrams
}

/// `key=value` fields of each `pkt=` line of a frames.txt file, in order.
fn read_frames_txt(text: &str) -> Vec<BTreeMap<String, String>> {
    text.lines()
        .filter(|line| line.starts_with("pkt="))
        .map(|line| {
            line.split_whitespace()
                .map(|field| {
                    let (k, v) = field.split_once('=').expect("key=value");
                    (k.to_string(), v.to_string())
                })
                .collect()
        })
        .collect()
}

fn data_fields(f: &DataFlyweight<'_>) -> Vec<(&'static str, String)> {
    let kind = match (f.is_padding(), f.is_heartbeat(), f.is_end_of_stream()) {
        (true, ..) => "pad",
        (false, true, true) => "heartbeat+eos",
        (false, true, false) => "heartbeat",
        (false, false, _) => "data",
    };
    let mut fields = vec![
        ("session_id", f.session_id().to_string()),
        ("stream_id", f.stream_id().to_string()),
        ("term_id", f.term_id().to_string()),
        ("term_offset", f.term_offset().to_string()),
        ("reserved_value", format!("{:#018x}", f.reserved_value())),
        ("kind", kind.to_string()),
    ];
    if kind == "data" {
        fields.push(("payload_length", f.payload().len().to_string()));
    }
    fields
}

/// Our reading of a frame as frames.txt spells it, plus the frame's bytes re-encoded by our
/// writer and the captured bytes they must equal.
fn describe(
    datagram: &[u8],
    offset: usize,
    frame: Frame<'_>,
) -> (Vec<(&'static str, String)>, Vec<u8>, Vec<u8>) {
    let mut out = vec![0u8; 2048];
    let captured = |length: usize| datagram[offset..offset + length].to_vec();
    let (type_name, mut fields, written, expected) = match frame {
        Frame::Data(f) => {
            let header = f.to_header();
            let (written, expected) = if f.is_padding() || f.is_heartbeat() {
                (header.encode(&mut out).unwrap(), captured(32))
            } else {
                let length = header.encode_frame(f.payload(), &mut out).unwrap();
                (length, captured(length))
            };
            let name = if f.is_padding() { "PAD" } else { "DATA" };
            (name, data_fields(&f), written, expected)
        }
        Frame::Setup(f) => {
            let fields = vec![
                ("session_id", f.session_id().to_string()),
                ("stream_id", f.stream_id().to_string()),
                ("term_offset", f.term_offset().to_string()),
                ("initial_term_id", f.initial_term_id().to_string()),
                ("active_term_id", f.active_term_id().to_string()),
                ("term_length", f.term_length().to_string()),
                ("mtu", f.mtu().to_string()),
                ("ttl", f.ttl().to_string()),
            ];
            ("SETUP", fields, f.to_setup().encode(&mut out).unwrap(), datagram.to_vec())
        }
        Frame::StatusMessage(f) => {
            let mut kind = String::from("sm");
            if f.is_send_setup() {
                kind.push_str("+send_setup");
            }
            if f.is_end_of_stream() {
                kind.push_str("+eos");
            }
            assert_eq!(f.group_tag(), Ok(None), "no gtag in these runs");
            let fields = vec![
                ("session_id", f.session_id().to_string()),
                ("stream_id", f.stream_id().to_string()),
                ("term_id", f.consumption_term_id().to_string()),
                ("term_offset", f.consumption_term_offset().to_string()),
                ("receiver_window", f.receiver_window().to_string()),
                ("receiver_id", f.receiver_id().to_string()),
                ("kind", kind),
            ];
            ("SM", fields, f.to_status_message().encode(&mut out).unwrap(), datagram.to_vec())
        }
        Frame::Nak(f) => {
            let fields = vec![
                ("session_id", f.session_id().to_string()),
                ("stream_id", f.stream_id().to_string()),
                ("term_id", f.term_id().to_string()),
                ("term_offset", f.term_offset().to_string()),
                ("length", f.length().to_string()),
            ];
            ("NAK", fields, f.to_nak().encode(&mut out).unwrap(), datagram.to_vec())
        }
        Frame::Rttm(f) => {
            let kind = if f.is_reply_requested() { "rttm-request" } else { "rttm-reply" };
            let fields = vec![
                ("session_id", f.session_id().to_string()),
                ("stream_id", f.stream_id().to_string()),
                ("echo_timestamp_ns", f.echo_timestamp_ns().to_string()),
                ("reception_delta_ns", f.reception_delta_ns().to_string()),
                ("receiver_id", f.receiver_id().to_string()),
                ("kind", kind.to_string()),
            ];
            ("RTTM", fields, f.to_rttm().encode(&mut out).unwrap(), datagram.to_vec())
        }
        other => panic!("frame type not expected in these captures: {other:?}"),
    };
    let header = FrameHeader::parse(&datagram[offset..]).unwrap();
    fields.extend([
        ("type", type_name.to_string()),
        ("type_id", header.frame_type().to_string()),
        ("flags", format!("{:#04x}", header.flags())),
        ("version", header.version().to_string()),
        ("frame_length", header.frame_length().to_string()),
    ]);
    out.truncate(written);
    (fields, out, expected)
}

/// Every frame of every datagram, with its offset in the datagram.
fn frames_of(datagram: &[u8]) -> Vec<(usize, Frame<'_>)> {
    let header = FrameHeader::parse(datagram).expect("common header");
    if matches!(header.frame_type(), HDR_TYPE_DATA | HDR_TYPE_PAD) {
        let mut offset = 0;
        DataFrames::new(datagram)
            .map(|f| {
                let f = f.expect("valid DATA frame");
                let at = offset;
                offset += (f.frame_length() as usize).div_ceil(32) * 32;
                (at, Frame::Data(f))
            })
            .collect()
    } else {
        vec![(0, parse_frame(datagram).expect("valid control frame"))]
    }
}

/// Checks a capture against its frames.txt; returns frame counts by `kind`/type and the
/// parsed datagrams for capture-specific checks.
fn check_capture(name: &str) -> Option<(BTreeMap<String, usize>, Vec<Datagram>)> {
    let datagrams = read_pcap(&common::read_vector(&format!("{name}.pcap"))?);
    let lines = read_frames_txt(&common::read_vector_text(&format!("{name}.frames.txt"))?);
    let mut line = lines.iter();
    let mut kinds = BTreeMap::new();
    for (index, datagram) in datagrams.iter().enumerate() {
        for (frame_index, (offset, frame)) in frames_of(&datagram.payload).into_iter().enumerate() {
            let expected = line.next().unwrap_or_else(|| panic!("{name}: more frames than frames.txt lists"));
            let at = format!("{name} pkt {} frame {frame_index}", index + 1);
            assert_eq!(expected["pkt"], (index + 1).to_string(), "{at}");
            assert_eq!(expected["frame_index"], frame_index.to_string(), "{at}");
            assert_eq!(expected["src_port"], datagram.src_port.to_string(), "{at}");
            assert_eq!(expected["dst_port"], datagram.dst_port.to_string(), "{at}");
            assert_eq!(expected["udp_payload_length"], datagram.payload.len().to_string(), "{at}");

            let (fields, written, captured) = describe(&datagram.payload, offset, frame);
            for (key, value) in &fields {
                assert_eq!(expected.get(*key), Some(value), "{at}: field {key}");
            }
            let ours: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
            for key in expected.keys() {
                let known = ["pkt", "t", "src_port", "dst_port", "udp_payload_length", "frame_index"];
                let informational = ["retransmit", "content"];
                assert!(
                    ours.contains(&key.as_str())
                        || known.contains(&key.as_str())
                        || informational.contains(&key.as_str()),
                    "{at}: frames.txt field {key} not checked"
                );
            }
            assert_eq!(written, captured, "{at}: re-encoded bytes differ from the capture");
            let kind = expected.get("kind").cloned().unwrap_or_else(|| expected["type"].clone());
            *kinds.entry(kind).or_default() += 1;
        }
    }
    assert!(line.next().is_none(), "{name}: frames.txt lists frames the capture lacks");
    Some((kinds, datagrams))
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

#[test]
fn udp_session_capture() {
    let Some((kinds, datagrams)) = check_capture("udp-session") else { return };
    assert_eq!(datagrams.len(), 108);
    assert_eq!(
        kinds,
        counts(&[
            ("SETUP", 1),
            ("sm", 12),
            ("sm+eos", 5),
            ("data", 75),
            ("pad", 1),
            ("heartbeat", 11),
            ("heartbeat+eos", 14)
        ])
    );
    let Ok(Frame::Setup(setup)) = parse_frame(&datagrams[0].payload) else { panic!("pkt 1 is SETUP") };
    assert_eq!(
        (setup.session_id(), setup.stream_id(), setup.term_length(), setup.mtu()),
        (394850090, 1002, 65536, 1408)
    );
    assert_eq!((setup.initial_term_id(), setup.active_term_id(), setup.flags()), (1476212330, 1476212330, 0));

    // pkt 4: M0..M10 in one 1056-byte datagram; M10 carries the reserved value.
    let frames: Vec<_> = DataFrames::new(&datagrams[3].payload).map(Result::unwrap).collect();
    assert_eq!(frames.len(), 11);
    assert_eq!(frames[10].reserved_value(), 0x0123_4567_89ab_cdef);
    assert_eq!(frames[10].term_offset(), 992);

    // pkt 65: F56 plus the 32-byte header of a 192-byte PAD.
    let frames: Vec<_> = DataFrames::new(&datagrams[64].payload).map(Result::unwrap).collect();
    assert_eq!(datagrams[64].payload.len(), 1088);
    assert_eq!((frames[0].frame_length(), frames[0].term_offset()), (1032, 64288));
    assert!(frames[1].is_padding());
    assert_eq!((frames[1].frame_length(), frames[1].term_offset()), (192, 65344));
}

#[test]
fn udp_loss_capture() {
    let Some((kinds, datagrams)) = check_capture("udp-loss") else { return };
    assert_eq!(datagrams.len(), 139);
    assert_eq!(
        kinds,
        counts(&[
            ("SETUP", 1),
            ("sm", 15),
            ("sm+eos", 5),
            ("data", 90),
            ("pad", 1),
            ("heartbeat", 11),
            ("heartbeat+eos", 14),
            ("NAK", 13)
        ])
    );
    let Ok(Frame::Nak(nak)) = parse_frame(&datagrams[34].payload) else { panic!("pkt 35 is a NAK") };
    assert_eq!((nak.term_id(), nak.term_offset(), nak.length()), (-2003285294, 15712, 1056));
    assert_eq!((nak.session_id(), nak.stream_id(), nak.flags()), (1606141585, 1002, 0));
}

#[test]
fn udp_rttm_capture() {
    let Some((kinds, datagrams)) = check_capture("udp-rttm") else { return };
    assert_eq!(datagrams.len(), 76);
    assert_eq!(
        kinds,
        counts(&[
            ("SETUP", 1),
            ("sm", 13),
            ("sm+eos", 5),
            ("data", 14),
            ("heartbeat", 11),
            ("heartbeat+eos", 14),
            ("rttm-request", 15),
            ("rttm-reply", 13)
        ])
    );
    let Ok(Frame::Rttm(request)) = parse_frame(&datagrams[2].payload) else { panic!("pkt 3 is RTTM") };
    let Ok(Frame::Rttm(reply)) = parse_frame(&datagrams[4].payload) else { panic!("pkt 5 is RTTM") };
    assert!(request.is_reply_requested() && !reply.is_reply_requested());
    assert_eq!(reply.echo_timestamp_ns(), request.echo_timestamp_ns());
    assert_eq!(reply.receiver_id(), 9034009517472226646);
    // The sender's reply is exactly what our reply constructor writes.
    let mut ours = [0u8; 40];
    aeronrs::protocol::Rttm::reply_to(&request.to_rttm()).encode(&mut ours).unwrap();
    assert_eq!(&ours[..], &datagrams[4].payload[..]);
}
