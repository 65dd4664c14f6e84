//! What a valid DATA datagram is, for an image with a given term length
//! (`spec/wire-protocol.md` §3): before any byte of a datagram goes into an image log,
//! every frame in it is checked, so a malformed or hostile datagram can neither write
//! outside the term nor leave frames a subscriber or the loss detector would misread.
//!
//! * a heartbeat is exactly one 32-byte DATA header with frame length 0, at a term offset
//!   inside the term;
//! * otherwise the first frame's term offset is 32-byte aligned and the datagram fits the
//!   term from there; the frames follow each other at aligned offsets and each one's
//!   header says so (its term offset field); all carry the first frame's session, stream
//!   and term id; DATA frames are at least a header long; a PAD frame is the last thing
//!   in the datagram (only its header travels) and its length stays within the term.
#![forbid(unsafe_code)]

use crate::protocol::DataFlyweight;
use crate::protocol::frame::DataFrames;
use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{
    CURRENT_VERSION, DATA_HEADER_LENGTH, FRAME_ALIGNMENT, FRAME_LENGTH_OFFSET, HDR_TYPE_DATA, HDR_TYPE_PAD,
    SESSION_ID_FIELD_OFFSET, TERM_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET, TYPE_OFFSET, VERSION_OFFSET,
};

const NAME: &str = "DATA";

/// The kinds of valid data datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataDatagram {
    Heartbeat,
    Frames,
}

fn invalid(field: &'static str, value: i64) -> FrameError {
    FrameError::InvalidField { frame: NAME, field, value }
}

/// Checks `datagram` (whose first frame parsed as `first`) against a term of `term_length`.
pub fn validate_data_datagram(
    datagram: &[u8],
    first: &DataFlyweight<'_>,
    term_length: i64,
) -> Result<DataDatagram, FrameError> {
    let term_offset = i64::from(first.term_offset());
    if term_offset < 0 || term_offset % FRAME_ALIGNMENT as i64 != 0 || term_offset >= term_length {
        return Err(invalid("term offset", term_offset));
    }
    if first.is_heartbeat() {
        return if datagram.len() == DATA_HEADER_LENGTH {
            Ok(DataDatagram::Heartbeat)
        } else {
            Err(invalid("heartbeat datagram length", datagram.len() as i64))
        };
    }
    if term_offset + datagram.len() as i64 > term_length {
        return Err(invalid("datagram length beyond the term", datagram.len() as i64));
    }
    if frames_are_well_formed(datagram, term_offset, term_length) {
        return Ok(DataDatagram::Frames);
    }
    // Something is off: the frame by frame walk says what.
    walk_frames(datagram, first, term_offset, term_length)
}

/// The frames of `datagram` (not a heartbeat; its first frame at the aligned
/// `term_offset`, and fitting the term) checked one by one, naming the first fault.
fn walk_frames(
    datagram: &[u8],
    first: &DataFlyweight<'_>,
    term_offset: i64,
    term_length: i64,
) -> Result<DataDatagram, FrameError> {
    let mut expected_offset = term_offset;
    let mut consumed = 0usize;
    for frame in DataFrames::new(datagram) {
        let frame = frame?;
        if frame.session_id() != first.session_id()
            || frame.stream_id() != first.stream_id()
            || frame.term_id() != first.term_id()
        {
            return Err(invalid("frame of another stream in the datagram", i64::from(frame.session_id())));
        }
        if i64::from(frame.term_offset()) != expected_offset {
            return Err(invalid("frame term offset", i64::from(frame.term_offset())));
        }
        let frame_length = i64::from(frame.frame_length());
        if frame.is_padding() {
            if consumed + DATA_HEADER_LENGTH != datagram.len() || expected_offset + frame_length > term_length
            {
                return Err(invalid("padding frame length", frame_length));
            }
            return Ok(DataDatagram::Frames);
        }
        if frame_length < DATA_HEADER_LENGTH as i64 {
            return Err(invalid("frame length", frame_length));
        }
        let aligned = (frame_length as usize).next_multiple_of(FRAME_ALIGNMENT);
        consumed += aligned.min(datagram.len() - consumed);
        expected_offset += aligned as i64;
    }
    Ok(DataDatagram::Frames)
}

/// The per-datagram check every received datagram pays, in one pass over the frame
/// headers with no per-frame parsing: whether every frame of `datagram` (which starts at
/// `term_offset`, aligned and inside a term of `term_length`, and fits it) is what
/// [`validate_data_datagram`]'s walk accepts — a version 0 DATA frame of at least a header
/// at the next aligned offset, naming the first frame's session, stream and term, or a
/// trailing PAD header whose frame stays in the term. `false` means "not shown valid here"
/// (a heartbeat among frames, a short header, any field off), for the walk to judge.
#[inline]
fn frames_are_well_formed(datagram: &[u8], term_offset: i64, term_length: i64) -> bool {
    // Session, stream and term id: the bytes every frame of the datagram must share.
    const IDS: std::ops::Range<usize> = SESSION_ID_FIELD_OFFSET..TERM_ID_FIELD_OFFSET + 4;
    let Some(first) = datagram.first_chunk::<DATA_HEADER_LENGTH>() else { return false };
    let ids = &first[IDS];
    let mut at = 0usize;
    let mut expected_offset = term_offset;
    while at < datagram.len() {
        let Some(header) = datagram[at..].first_chunk::<DATA_HEADER_LENGTH>() else { return false };
        let word = |offset: usize| i32::from_le_bytes([0, 1, 2, 3].map(|i| header[offset + i]));
        let frame_type = u16::from_le_bytes([header[TYPE_OFFSET], header[TYPE_OFFSET + 1]]);
        if header[VERSION_OFFSET] != CURRENT_VERSION
            || header[IDS] != *ids
            || i64::from(word(TERM_OFFSET_FIELD_OFFSET)) != expected_offset
        {
            return false;
        }
        let frame_length = word(FRAME_LENGTH_OFFSET);
        let rest = datagram.len() - at;
        if frame_type == HDR_TYPE_PAD {
            // Only a PAD's header travels, and it ends the datagram.
            return rest == DATA_HEADER_LENGTH
                && frame_length >= DATA_HEADER_LENGTH as i32
                && expected_offset + i64::from(frame_length) <= term_length;
        }
        if frame_type != HDR_TYPE_DATA
            || frame_length < DATA_HEADER_LENGTH as i32
            || frame_length as usize > rest
        {
            return false;
        }
        let aligned = (frame_length as usize).next_multiple_of(FRAME_ALIGNMENT);
        at += aligned.min(rest);
        expected_offset += aligned as i64;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::data::DataHeader;

    const TERM: i64 = 65536;

    fn check(datagram: &[u8]) -> Result<DataDatagram, FrameError> {
        let first = DataFlyweight::parse(datagram)?;
        validate_data_datagram(datagram, &first, TERM)
    }

    /// `lengths` consecutive DATA frames from `offset` (aligned), as a sender would pack them.
    fn frames(offset: i32, lengths: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut at = offset;
        for &payload in lengths {
            let mut frame = vec![0u8; (payload + 32).next_multiple_of(32)];
            DataHeader::data(7, 1001, 5, at, payload).encode_frame(&vec![0xAB; payload], &mut frame).unwrap();
            at += frame.len() as i32;
            out.extend_from_slice(&frame);
        }
        out
    }

    #[test]
    fn accepts_what_senders_send() {
        // udp-session.pcap pkt 4: M0..M10, 11 frames of payload 0..200 in one datagram.
        let d = frames(0, &[0, 1, 7, 31, 32, 33, 64, 95, 96, 200, 24]);
        assert_eq!(d.len(), 1056);
        assert_eq!(check(&d), Ok(DataDatagram::Frames));
        // pkt 65: F56 then the 32-byte header of a 192-byte PAD.
        let mut d = frames(64288, &[1000]);
        let mut pad = [0u8; 32];
        DataHeader::pad(7, 1001, 5, 65344, 192).encode(&mut pad).unwrap();
        d.extend_from_slice(&pad);
        assert_eq!(check(&d), Ok(DataDatagram::Frames));
        let mut hb = [0u8; 32];
        DataHeader::heartbeat(7, 1001, 5, 4224, true).encode(&mut hb).unwrap();
        assert_eq!(check(&hb), Ok(DataDatagram::Heartbeat));
    }

    #[test]
    fn the_one_pass_check_accepts_exactly_what_the_walk_accepts() {
        let mut pad_ended = frames(64288, &[1000]);
        let mut pad = [0u8; 32];
        DataHeader::pad(7, 1001, 5, 65344, 192).encode(&mut pad).unwrap();
        pad_ended.extend_from_slice(&pad);
        let valid =
            [frames(0, &[0, 1, 7, 31, 32, 33, 64, 95, 96, 200, 24]), frames(1024, &[100, 100]), pad_ended];
        // Every byte of each valid datagram set to values that matter to some check.
        for datagram in &valid {
            for at in 0..datagram.len() {
                for value in [0u8, 1, 4, 0x1F, 0x20, 0x40, 0x80, 0xFF] {
                    let mut d = datagram.clone();
                    d[at] = value;
                    let Ok(first) = DataFlyweight::parse(&d) else { continue };
                    let offset = i64::from(first.term_offset());
                    if first.is_heartbeat()
                        || offset % 32 != 0
                        || !(0..TERM - d.len() as i64).contains(&offset)
                    {
                        continue;
                    }
                    let walked = walk_frames(&d, &first, offset, TERM).is_ok();
                    assert_eq!(frames_are_well_formed(&d, offset, TERM), walked, "byte {at} = {value:#x}");
                }
            }
            for cut in 1..datagram.len() {
                let d = &datagram[..cut];
                let Ok(first) = DataFlyweight::parse(d) else { continue };
                let offset = i64::from(first.term_offset());
                let walked = walk_frames(d, &first, offset, TERM).is_ok();
                assert_eq!(frames_are_well_formed(d, offset, TERM), walked, "cut at {cut}");
            }
        }
    }

    #[test]
    fn rejects_what_could_corrupt_the_image() {
        let good = frames(1024, &[100, 100]);
        let mut bad = good.clone();
        bad[8..12].copy_from_slice(&1000i32.to_le_bytes());
        assert!(check(&bad).is_err(), "misaligned term offset");
        assert!(check(&frames(65536 - 128, &[100, 100])).is_err(), "runs past the term end");
        let mut bad = good.clone();
        bad[160 + 12..160 + 16].copy_from_slice(&8i32.to_le_bytes());
        assert!(check(&bad).is_err(), "second frame of another session");
        let mut bad = good.clone();
        bad[160 + 8..160 + 12].copy_from_slice(&0i32.to_le_bytes());
        assert!(check(&bad).is_err(), "second frame claims another offset");
        let mut bad = good.clone();
        bad[160..164].copy_from_slice(&4i32.to_le_bytes());
        assert!(check(&bad).is_err(), "second frame shorter than a header");
        let mut bad = good.clone();
        bad[160..164].copy_from_slice(&500i32.to_le_bytes());
        assert!(check(&bad).is_err(), "second frame longer than the datagram");
        let mut pad = frames(64, &[0]);
        DataHeader::pad(7, 1001, 5, 64, 65536).encode(&mut pad).unwrap();
        assert!(check(&pad).is_err(), "padding past the term end");
        let mut hb = vec![0u8; 64];
        DataHeader::heartbeat(7, 1001, 5, 0, false).encode(&mut hb).unwrap();
        assert!(check(&hb).is_err(), "heartbeat with trailing bytes");
        DataHeader::heartbeat(7, 1001, 5, 65536, false).encode(&mut hb).unwrap();
        assert!(check(&hb[..32]).is_err(), "heartbeat beyond the term");
    }
}
