//! Golden bytes: every frame type written by our encoders compared byte by byte with bytes
//! written out by hand from the offsets and values of `spec/wire-protocol.md`, and bad
//! inputs mapped to their specific errors.
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use aeronrs::protocol::data::DataHeader;
use aeronrs::protocol::resolution::RES_SELF_FLAG;
use aeronrs::protocol::setup::SETUP_GROUP_FLAG;
use aeronrs::protocol::status_message::{SM_EOS_FLAG, SM_SEND_SETUP_FLAG};
use aeronrs::protocol::{
    ErrorFrame, Frame, FrameError, Nak, ResolutionEntry, ResponseSetup, Rttm, Setup, StatusMessage,
    encode_resolution_frame, parse_frame,
};

/// Hex text to bytes; whitespace and `|` separate fields for readability.
fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
    assert_eq!(digits.len() % 2, 0, "odd number of hex digits in {text:?}");
    digits.chunks(2).map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap()).collect()
}

fn encoded(encode: impl FnOnce(&mut [u8]) -> Result<usize, FrameError>) -> Vec<u8> {
    let mut buf = vec![0xEEu8; 256];
    let length = encode(&mut buf).expect("encode");
    buf.truncate(length);
    buf
}

/// (name, bytes we write, the spec's bytes by hand).
fn golden_table() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let data = DataHeader {
        reserved_value: 0x0123_4567_89AB_CDEF,
        ..DataHeader::data(0x1122_3344, 1001, i32::MAX, 64, 3)
    };
    let v4 = ResolutionEntry {
        flags: RES_SELF_FLAG,
        udp_port: 8080,
        age_in_ms: 333,
        address: IpAddr::V4(Ipv4Addr::LOCALHOST),
        name: b"test",
    };
    let v6 = ResolutionEntry {
        flags: 0,
        udp_port: 9872,
        age_in_ms: 100,
        address: IpAddr::V6(Ipv6Addr::LOCALHOST),
        name: b"ABCDEFHG",
    };
    let sm = StatusMessage {
        flags: SM_SEND_SETUP_FLAG,
        session_id: 1,
        stream_id: 2,
        consumption_term_id: 3,
        consumption_term_offset: 4,
        receiver_window: 32768,
        receiver_id: 0x0102_0304_0506_0708,
        group_tag: None,
    };
    vec![
        (
            "DATA with payload",
            encoded(|b| data.encode_frame(b"abc", b)),
            // len 35 | ver | flags BEGIN|END | type 1 | term offset 64 | session | stream 1001
            // | term id | reserved | payload
            hex("23000000 00 c0 0100 | 40000000 44332211 e9030000 ffffff7f | efcdab8967452301 | 616263"),
        ),
        (
            "heartbeat with EOS",
            encoded(|b| DataHeader::heartbeat(5, 6, 7, 4224, true).encode(b)),
            hex("00000000 00 e0 0100 | 80100000 05000000 06000000 07000000 | 0000000000000000"),
        ),
        (
            "PAD header",
            encoded(|b| DataHeader::pad(5, 6, 7, 65344, 192).encode(b)),
            hex("c0000000 00 c0 0000 | 40ff0000 05000000 06000000 07000000 | 0000000000000000"),
        ),
        (
            "NAK",
            encoded(|b| Nak::new(0x0A0B_0C0D, 1002, -3, 15712, 1056).encode(b)),
            hex("1c000000 00 00 0200 | 0d0c0b0a ea030000 fdffffff 603d0000 20040000"),
        ),
        (
            "SM",
            encoded(|b| sm.encode(b)),
            hex("24000000 00 80 0300 | 01000000 02000000 03000000 04000000 00800000 | 0807060504030201"),
        ),
        (
            "SM with group tag",
            encoded(|b| StatusMessage { flags: SM_EOS_FLAG, group_tag: Some(-2), ..sm }.encode(b)),
            hex("2c000000 00 40 0300 | 01000000 02000000 03000000 04000000 00800000 | 0807060504030201 \
                 | feffffffffffffff"),
        ),
        (
            "ERR",
            encoded(|b| ErrorFrame::new(1, 2, 3, Some(4), 13, b"no").encode(b)),
            // len 42 | flags HAS_GROUP_TAG | type 4 | session | stream | receiver id | group tag
            // | code 13 | message length 2 | "no"
            hex("2a000000 00 08 0400 | 01000000 02000000 | 0300000000000000 0400000000000000 \
                 | 0d000000 02000000 6e6f"),
        ),
        (
            "SETUP",
            encoded(|b| {
                Setup {
                    flags: SETUP_GROUP_FLAG,
                    term_offset: 256,
                    session_id: 0x0102_0304,
                    stream_id: 1002,
                    initial_term_id: -2,
                    active_term_id: -1,
                    term_length: 65536,
                    mtu: 1408,
                    ttl: 8,
                }
                .encode(b)
            }),
            hex("28000000 00 40 0500 | 00010000 04030201 ea030000 feffffff ffffffff \
                 | 00000100 80050000 08000000"),
        ),
        (
            "RTTM request",
            encoded(|b| Rttm::request(-1, 2, 1000, 9).encode(b)),
            hex("28000000 00 80 0600 | ffffffff 02000000 | e803000000000000 0000000000000000 \
                 | 0900000000000000"),
        ),
        (
            "RSP_SETUP",
            encoded(|b| ResponseSetup::new(1, 2, 3).encode(b)),
            hex("14000000 00 00 0b00 | 01000000 02000000 03000000"),
        ),
        (
            "RES with IPv4 and IPv6 entries",
            encoded(|b| encode_resolution_frame(&[v4, v6], b)),
            // header: len 8 + 24 + 40 = 72, type 7
            // IPv4: type 1 | SELF | port 8080 | age 333 | 127.0.0.1 | name length 4 | "test" | 6 pad
            // IPv6: type 2 | 0 | port 9872 | age 100 | ::1 | name length 8 | "ABCDEFHG" | 6 pad
            hex("48000000 00 00 0700 \
                 | 01 80 901f 4d010000 7f000001 0400 74657374 000000000000 \
                 | 02 00 9026 64000000 00000000000000000000000000000001 0800 4142434445464847 000000000000"),
        ),
    ]
}

#[test]
fn encoders_write_the_spec_bytes() {
    for (name, ours, expected) in golden_table() {
        assert_eq!(ours, expected, "{name}");
    }
}

#[test]
fn golden_bytes_parse_back_to_the_same_frames() {
    for (name, _, expected) in golden_table() {
        let frame = parse_frame(&expected).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut again = vec![0u8; expected.len()];
        let length = match frame {
            Frame::Data(f) if f.is_padding() || f.is_heartbeat() => f.to_header().encode(&mut again),
            Frame::Data(f) => f.to_header().encode_frame(f.payload(), &mut again),
            Frame::Nak(f) => f.to_nak().encode(&mut again),
            Frame::StatusMessage(f) => f.to_status_message().encode(&mut again),
            Frame::Error(f) => f.to_error_frame().encode(&mut again),
            Frame::Setup(f) => f.to_setup().encode(&mut again),
            Frame::Rttm(f) => f.to_rttm().encode(&mut again),
            Frame::Resolution(f) => {
                let entries: Vec<_> = f.entries().map(|e| e.to_entry()).collect();
                encode_resolution_frame(&entries, &mut again)
            }
            Frame::ResponseSetup(f) => f.to_response_setup().encode(&mut again),
            Frame::Other(h) => panic!("{name}: unexpected type {}", h.frame_type()),
        }
        .unwrap();
        assert_eq!(length, expected.len(), "{name}");
        assert_eq!(again, expected, "{name}");
    }
}

#[test]
fn golden_fields_read_back() {
    let setup =
        hex("28000000 00 40 0500 00010000 04030201 ea030000 feffffff ffffffff 00000100 80050000 08000000");
    let Ok(Frame::Setup(setup)) = parse_frame(&setup) else { panic!("SETUP") };
    assert_eq!((setup.term_offset(), setup.session_id(), setup.stream_id()), (256, 0x0102_0304, 1002));
    assert_eq!((setup.initial_term_id(), setup.active_term_id()), (-2, -1));
    assert_eq!((setup.term_length(), setup.mtu(), setup.ttl()), (65536, 1408, 8));
    assert!(setup.is_group() && !setup.is_send_response_setup());

    let err =
        hex("2a000000 00 08 0400 01000000 02000000 0300000000000000 0400000000000000 0d000000 02000000 6e6f");
    let Ok(Frame::Error(err)) = parse_frame(&err) else { panic!("ERR") };
    assert_eq!((err.receiver_id(), err.group_tag(), err.error_code()), (3, Some(4), 13));
    assert_eq!(err.message(), b"no");
}

#[test]
fn bad_inputs_give_specific_errors() {
    let setup = golden_table().into_iter().find(|(n, ..)| *n == "SETUP").unwrap().2;
    let with = |offset: usize, bytes: &[u8]| {
        let mut frame = setup.clone();
        frame[offset..offset + bytes.len()].copy_from_slice(bytes);
        frame
    };
    let cases: Vec<(&str, Vec<u8>, FrameError)> = vec![
        ("empty", vec![], FrameError::Truncated { frame: "frame", needed: 8, available: 0 }),
        (
            "truncated SETUP",
            setup[..39].to_vec(),
            FrameError::Truncated { frame: "SETUP", needed: 40, available: 39 },
        ),
        ("version 1", with(4, &[1]), FrameError::UnsupportedVersion { frame: "frame", version: 1 }),
        (
            "frame length beyond datagram",
            with(0, &[41]),
            FrameError::FrameLengthExceedsBuffer { frame: "SETUP", frame_length: 41, available: 40 },
        ),
        (
            "negative frame length",
            with(0, &[0xff, 0xff, 0xff, 0xff]),
            FrameError::FrameLengthTooShort { frame: "SETUP", frame_length: -1, min: 40 },
        ),
        (
            "NAK shorter than 28",
            hex("1c000000 00 00 0200 0d0c0b0a ea030000 fdffffff 603d0000 200400"),
            FrameError::Truncated { frame: "NAK", needed: 28, available: 27 },
        ),
        (
            "SM frame length 35",
            hex("23000000 00 00 0300 01000000 02000000 03000000 04000000 00800000 0807060504030201"),
            FrameError::FrameLengthTooShort { frame: "SM", frame_length: 35, min: 36 },
        ),
        (
            "DATA frame length beyond datagram",
            hex("40000000 00 c0 0100 00000000 01000000 02000000 03000000 0000000000000000 00"),
            FrameError::FrameLengthExceedsBuffer { frame: "DATA", frame_length: 64, available: 33 },
        ),
        (
            "DATA frame length inside the header",
            hex("10000000 00 c0 0100 00000000 01000000 02000000 03000000 0000000000000000"),
            FrameError::FrameLengthTooShort { frame: "DATA", frame_length: 16, min: 32 },
        ),
        (
            "ERR message longer than frame",
            hex(
                "2a000000 00 00 0400 01000000 02000000 0300000000000000 0000000000000000 0d000000 03000000 6e6f",
            ),
            FrameError::InvalidField { frame: "ERR", field: "error message length", value: 3 },
        ),
        (
            "RES entry of unknown type",
            hex("18000000 00 00 0700 03 00 901f 4d010000 7f000001 0000 0000"),
            FrameError::InvalidField { frame: "RES", field: "resolution type", value: 3 },
        ),
        (
            "RES entry name past the frame",
            hex("18000000 00 00 0700 01 00 901f 4d010000 7f000001 0900 0000"),
            FrameError::Truncated { frame: "RES", needed: 24, available: 16 },
        ),
    ];
    for (name, bytes, expected) in cases {
        assert_eq!(parse_frame(&bytes), Err(expected), "{name}");
    }
}
