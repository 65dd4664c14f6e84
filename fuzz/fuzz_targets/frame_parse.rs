//! Fuzzes the wire-frame parsers with arbitrary datagrams: parsing must never panic, and
//! whatever parses must re-encode (through our writers) to the bytes it was read from.
#![no_main]

use aeronrs::protocol::{DataFrames, Frame, FrameHeader, encode_resolution_frame, parse_frame};
use libfuzzer_sys::fuzz_target;

/// Re-encodes `frame` into a fresh buffer; returns the bytes written.
fn re_encode(frame: &Frame<'_>) -> Option<Vec<u8>> {
    let mut out = vec![0u8; 70_000];
    let length = match frame {
        Frame::Data(f) if f.is_padding() || f.is_heartbeat() => f.to_header().encode(&mut out),
        Frame::Data(f) => f.to_header().encode_frame(f.payload(), &mut out),
        Frame::Nak(f) => f.to_nak().encode(&mut out),
        Frame::StatusMessage(f) => {
            f.group_tag().ok()?;
            f.to_status_message().encode(&mut out)
        }
        Frame::Error(f) => f.to_error_frame().encode(&mut out),
        Frame::Setup(f) => f.to_setup().encode(&mut out),
        Frame::Rttm(f) => f.to_rttm().encode(&mut out),
        Frame::Resolution(f) => {
            let entries: Vec<_> = f.entries().map(|e| e.to_entry()).collect();
            encode_resolution_frame(&entries, &mut out)
        }
        Frame::ResponseSetup(f) => f.to_response_setup().encode(&mut out),
        Frame::Other(_) => return None,
    };
    // Writers refuse what the spec forbids (e.g. RES names over 512 bytes) but parsers
    // accept; that is not a bug.
    let length = length.ok()?;
    out.truncate(length);
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    if let Ok(frame) = parse_frame(data) {
        if let Some(bytes) = re_encode(&frame) {
            let again = parse_frame(&bytes).expect("our own encoding parses");
            assert_eq!(re_encode(&again).as_deref(), Some(&bytes[..]), "encode is stable");
            // Where the input's frame length is exactly what the writer produces, the bytes
            // must be identical, except RES entry padding, which readers ignore.
            let header = FrameHeader::parse(data).expect("parsed frames have a header");
            let exact = usize::try_from(header.frame_length()).is_ok_and(|n| n == bytes.len());
            let is_pad_or_heartbeat = matches!(frame, Frame::Data(f) if f.is_padding() || f.is_heartbeat());
            if (exact || is_pad_or_heartbeat) && !matches!(frame, Frame::Resolution(_)) {
                assert_eq!(&data[..bytes.len()], &bytes[..], "re-encoded bytes differ");
            }
        }
    }
    for frame in DataFrames::new(data).flatten() {
        let _ = (frame.to_header(), frame.payload().len());
    }
});
