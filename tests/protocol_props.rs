//! Property tests of the wire frames: encode → parse → encode is the identity for every
//! frame type, and no byte sequence makes a parser panic.
use std::net::IpAddr;

use aeronrs::protocol::header::{HDR_TYPE_DATA, HDR_TYPE_PAD};
use aeronrs::protocol::{
    DataFlyweight, DataFrames, DataHeader, ErrorFrame, ErrorFrameFlyweight, Frame, Nak, NakFlyweight,
    ResolutionEntry, ResolutionFlyweight, ResponseSetup, ResponseSetupFlyweight, Rttm, RttmFlyweight, Setup,
    SetupFlyweight, StatusMessage, StatusMessageFlyweight, encode_resolution_frame, parse_frame,
};
use proptest::prelude::*;

fn data_header() -> impl Strategy<Value = (DataHeader, Vec<u8>)> {
    (
        any::<u8>(),
        any::<i32>(),
        any::<i32>(),
        any::<i32>(),
        any::<i32>(),
        any::<i64>(),
        prop::collection::vec(any::<u8>(), 0..200),
    )
        .prop_map(|(flags, term_offset, session_id, stream_id, term_id, reserved_value, payload)| {
            let header = DataHeader {
                flags,
                reserved_value,
                ..DataHeader::data(session_id, stream_id, term_id, term_offset, payload.len())
            };
            (header, payload)
        })
}

fn resolution_entry() -> impl Strategy<Value = (u8, u16, i32, IpAddr, Vec<u8>)> {
    (any::<u8>(), any::<u16>(), any::<i32>(), any::<IpAddr>(), prop::collection::vec(any::<u8>(), 0..40))
}

proptest! {
    #[test]
    fn data_frames_round_trip((header, payload) in data_header()) {
        let mut buf = vec![0u8; 32 + payload.len()];
        let length = header.encode_frame(&payload, &mut buf).unwrap();
        let view = DataFlyweight::parse(&buf[..length]).unwrap();
        prop_assert_eq!(view.to_header(), header);
        prop_assert_eq!(view.payload(), &payload[..]);
    }

    #[test]
    fn heartbeats_and_pads_round_trip(
        session in any::<i32>(), stream in any::<i32>(), term_id in any::<i32>(),
        term_offset in any::<i32>(), eos in any::<bool>(), pad_length in 32i32..=i32::MAX,
    ) {
        let mut buf = [0u8; 32];
        for header in [
            DataHeader::heartbeat(session, stream, term_id, term_offset, eos),
            DataHeader::pad(session, stream, term_id, term_offset, pad_length),
        ] {
            header.encode(&mut buf).unwrap();
            let view = DataFlyweight::parse(&buf).unwrap();
            prop_assert_eq!(view.to_header(), header);
            prop_assert!(view.payload().is_empty());
        }
    }

    #[test]
    fn fixed_frames_round_trip(
        flags in any::<u8>(), a in any::<i32>(), b in any::<i32>(), c in any::<i32>(),
        d in any::<i32>(), e in any::<i32>(), f in any::<i32>(), g in any::<i32>(), h in any::<i32>(),
        x in any::<i64>(), y in any::<i64>(), z in any::<i64>(), tag in any::<Option<i64>>(),
    ) {
        let mut buf = [0u8; 64];
        let nak = Nak { flags, session_id: a, stream_id: b, term_id: c, term_offset: d, length: e };
        let n = nak.encode(&mut buf).unwrap();
        prop_assert_eq!(NakFlyweight::parse(&buf[..n]).unwrap().to_nak(), nak);

        let setup = Setup {
            flags, term_offset: a, session_id: b, stream_id: c, initial_term_id: d,
            active_term_id: e, term_length: f, mtu: g, ttl: h,
        };
        let n = setup.encode(&mut buf).unwrap();
        prop_assert_eq!(SetupFlyweight::parse(&buf[..n]).unwrap().to_setup(), setup);

        let sm = StatusMessage {
            flags, session_id: a, stream_id: b, consumption_term_id: c, consumption_term_offset: d,
            receiver_window: e, receiver_id: x, group_tag: tag,
        };
        let n = sm.encode(&mut buf).unwrap();
        prop_assert_eq!(StatusMessageFlyweight::parse(&buf[..n]).unwrap().to_status_message(), sm);

        let rttm = Rttm {
            flags, session_id: a, stream_id: b, echo_timestamp_ns: x, reception_delta_ns: y, receiver_id: z,
        };
        let n = rttm.encode(&mut buf).unwrap();
        prop_assert_eq!(RttmFlyweight::parse(&buf[..n]).unwrap().to_rttm(), rttm);

        let rsp = ResponseSetup { flags, session_id: a, stream_id: b, response_session_id: c };
        let n = rsp.encode(&mut buf).unwrap();
        prop_assert_eq!(ResponseSetupFlyweight::parse(&buf[..n]).unwrap().to_response_setup(), rsp);
    }

    #[test]
    fn error_frames_round_trip(
        flags in any::<u8>(), session in any::<i32>(), stream in any::<i32>(), receiver in any::<i64>(),
        tag in any::<i64>(), code in any::<i32>(), message in prop::collection::vec(any::<u8>(), 0..=1023),
    ) {
        let frame = ErrorFrame {
            flags, session_id: session, stream_id: stream, receiver_id: receiver, group_tag: tag,
            error_code: code, message: &message,
        };
        let mut buf = vec![0u8; 40 + message.len()];
        let n = frame.encode(&mut buf).unwrap();
        prop_assert_eq!(n, 40 + message.len());
        prop_assert_eq!(ErrorFrameFlyweight::parse(&buf).unwrap().to_error_frame(), frame);
    }

    #[test]
    fn resolution_frames_round_trip(raw in prop::collection::vec(resolution_entry(), 0..6)) {
        let entries: Vec<_> = raw
            .iter()
            .map(|(flags, udp_port, age_in_ms, address, name)| ResolutionEntry {
                flags: *flags, udp_port: *udp_port, age_in_ms: *age_in_ms, address: *address, name,
            })
            .collect();
        let mut buf = vec![0u8; 8 + 6 * 72];
        let n = encode_resolution_frame(&entries, &mut buf).unwrap();
        let view = ResolutionFlyweight::parse(&buf[..n]).unwrap();
        let parsed: Vec<_> = view.entries().map(|e| e.to_entry()).collect();
        prop_assert_eq!(parsed, entries);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        exercise(&bytes);
    }

    /// Valid frames with one byte changed and cut at any length: errors, never panics.
    #[test]
    fn mutated_frames_never_panic(
        (header, payload) in data_header(), index in any::<prop::sample::Index>(), value in any::<u8>(),
        cut in any::<prop::sample::Index>(), frame_type in 0u16..12,
    ) {
        let mut buf = vec![0u8; 32 + payload.len()];
        header.encode_frame(&payload, &mut buf).unwrap();
        buf[6..8].copy_from_slice(&frame_type.to_le_bytes());
        let at = index.index(buf.len());
        buf[at] = value;
        exercise(&buf[..cut.index(buf.len() + 1)]);
    }
}

/// Runs every parser over `bytes` and reads every field of whatever parses.
fn exercise(bytes: &[u8]) {
    if let Ok(frame) = parse_frame(bytes) {
        let _ = format!("{frame:?}");
        match frame {
            Frame::Data(f) => {
                let _ = (f.to_header(), f.payload().len(), f.is_heartbeat());
                assert!(matches!(f.frame_type(), HDR_TYPE_DATA | HDR_TYPE_PAD));
            }
            Frame::StatusMessage(f) => {
                let _ = (f.to_status_message(), f.group_tag());
            }
            Frame::Error(f) => {
                assert!(f.message().len() <= 1023);
                let _ = (f.to_error_frame(), f.message_str());
            }
            Frame::Resolution(f) => {
                let total: usize = f.entries().map(|e| e.entry_length()).sum();
                assert_eq!(total + 8, f.frame_length() as usize);
                for entry in f.entries() {
                    let _ = (entry.to_entry(), entry.address_bytes(), entry.is_self());
                }
            }
            _ => {}
        }
    }
    for frame in DataFrames::new(bytes).flatten() {
        let _ = frame.to_header();
    }
    let _ = (
        NakFlyweight::parse(bytes).map(|f| f.to_nak()),
        SetupFlyweight::parse(bytes).map(|f| f.to_setup()),
        RttmFlyweight::parse(bytes).map(|f| f.to_rttm()),
        ResponseSetupFlyweight::parse(bytes).map(|f| f.to_response_setup()),
        ErrorFrameFlyweight::parse(bytes).map(|f| f.to_error_frame()),
        StatusMessageFlyweight::parse(bytes).map(|f| f.group_tag()),
        ResolutionFlyweight::parse(bytes).map(|f| f.entries().count()),
    );
}
