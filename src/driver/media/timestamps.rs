//! Receive and send timestamps written into DATA frames (`spec/channel-uri.md`,
//! `media-rcv-ts-offset`, `channel-rcv-ts-offset`, `channel-snd-ts-offset`), as Aeron's C
//! driver writes them:
//!
//! * **media receive**: the kernel's receive time of the datagram (`SO_TIMESTAMPNS`,
//!   `CLOCK_REALTIME`), written by the receiver before the frame goes into the image;
//! * **channel receive**: the receiver's `CLOCK_REALTIME` when it handles the datagram;
//! * **channel send**: the sender's `CLOCK_REALTIME` when it sends the datagram (fresh for
//!   each retransmission too).
//!
//! Only the first frame of a datagram is stamped, and only when it is a DATA frame with
//! the BEGIN flag and a non-zero length (never a heartbeat, a padding frame or a later
//! fragment). `reserved` writes the data header's reserved value (byte 24); a number is an
//! offset from the start of the payload, written only when all 8 bytes fit in both the
//! datagram and the frame. Values are little-endian nanoseconds since the Unix epoch.
#![forbid(unsafe_code)]

use super::udp_channel::UdpChannel;
use crate::protocol::header::{
    BEGIN_FLAG, DATA_HEADER_LENGTH, FLAGS_OFFSET, FRAME_LENGTH_OFFSET, HDR_TYPE_DATA, RESERVED_VALUE_OFFSET,
    TYPE_OFFSET,
};
use crate::uri::ChannelUri;
use crate::uri::TimestampOffset;
use crate::uri::keys::{
    CHANNEL_RCV_TIMESTAMP_OFFSET, CHANNEL_SND_TIMESTAMP_OFFSET, MEDIA_RCV_TIMESTAMP_OFFSET,
};
use crate::util::error::{Error, Result};

const TIMESTAMP_LENGTH: i64 = 8;

/// A channel's timestamp offsets; `None` = not stamped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelTimestamps {
    pub media_rcv: Option<TimestampOffset>,
    pub channel_rcv: Option<TimestampOffset>,
    pub channel_snd: Option<TimestampOffset>,
}

/// Where a timestamp lands relative to the payload: `reserved` is 8 bytes before it (Aeron
/// compares offsets this way to find overlaps).
fn payload_relative(offset: TimestampOffset) -> i64 {
    match offset {
        TimestampOffset::Reserved => RESERVED_VALUE_OFFSET as i64 - DATA_HEADER_LENGTH as i64,
        TimestampOffset::Offset(n) => i64::from(n),
    }
}

/// How an offset reads in a clash message (Aeron's wording).
pub fn describe(offset: Option<TimestampOffset>) -> String {
    match offset {
        None => "-1 (not specified)".to_string(),
        Some(TimestampOffset::Reserved) => "-8 (reserved)".to_string(),
        Some(TimestampOffset::Offset(n)) => n.to_string(),
    }
}

impl ChannelTimestamps {
    /// The three offsets of `uri`; two that would overwrite each other are an error
    /// (`EINVAL`, as Aeron).
    pub fn parse(uri: &ChannelUri) -> Result<Self> {
        let timestamps = Self {
            media_rcv: uri.media_rcv_timestamp_offset()?,
            channel_rcv: uri.channel_rcv_timestamp_offset()?,
            channel_snd: uri.channel_snd_timestamp_offset()?,
        };
        let pairs = [
            (
                MEDIA_RCV_TIMESTAMP_OFFSET,
                timestamps.media_rcv,
                CHANNEL_RCV_TIMESTAMP_OFFSET,
                timestamps.channel_rcv,
            ),
            (
                MEDIA_RCV_TIMESTAMP_OFFSET,
                timestamps.media_rcv,
                CHANNEL_SND_TIMESTAMP_OFFSET,
                timestamps.channel_snd,
            ),
            (
                CHANNEL_RCV_TIMESTAMP_OFFSET,
                timestamps.channel_rcv,
                CHANNEL_SND_TIMESTAMP_OFFSET,
                timestamps.channel_snd,
            ),
        ];
        for (key_a, a, key_b, b) in pairs {
            if let (Some(a), Some(b)) = (a, b)
                && (payload_relative(a) - payload_relative(b)).abs() < TIMESTAMP_LENGTH
            {
                return Err(Error::invalid_argument(format!("{key_a} and {key_b} overlap")));
            }
        }
        Ok(timestamps)
    }

    pub fn is_receive_stamping(&self) -> bool {
        self.media_rcv.is_some() || self.channel_rcv.is_some()
    }

    /// A channel joining an existing endpoint must want the same stamps from it (the
    /// receive ones for a subscription, the send one for a publication); `EINVAL` naming
    /// the first that differs, as Aeron.
    pub fn check_shared(existing: &UdpChannel, channel: &UdpChannel, receive: bool) -> Result<()> {
        let (a, b) = (&existing.timestamps, &channel.timestamps);
        let pairs: &[(&str, Option<TimestampOffset>, Option<TimestampOffset>)] = if receive {
            &[
                (MEDIA_RCV_TIMESTAMP_OFFSET, a.media_rcv, b.media_rcv),
                (CHANNEL_RCV_TIMESTAMP_OFFSET, a.channel_rcv, b.channel_rcv),
            ]
        } else {
            &[(CHANNEL_SND_TIMESTAMP_OFFSET, a.channel_snd, b.channel_snd)]
        };
        for &(key, existing_offset, offset) in pairs {
            if existing_offset != offset {
                return Err(Error::invalid_argument(format!(
                    "option conflicts with existing {}: {key}={} existingChannel={} channel={}",
                    if receive { "subscription" } else { "publication" },
                    describe(offset),
                    existing.original_uri,
                    channel.original_uri
                )));
            }
        }
        Ok(())
    }
}

/// Writes `timestamp_ns` at `offset` into the first frame of `datagram` if that frame
/// takes timestamps (see the module docs); otherwise leaves it untouched.
#[inline]
pub fn apply_timestamp(datagram: &mut [u8], offset: TimestampOffset, timestamp_ns: i64) {
    if datagram.len() < DATA_HEADER_LENGTH {
        return;
    }
    let frame_type = u16::from_le_bytes([datagram[TYPE_OFFSET], datagram[TYPE_OFFSET + 1]]);
    let mut length = [0u8; 4];
    length.copy_from_slice(&datagram[FRAME_LENGTH_OFFSET..FRAME_LENGTH_OFFSET + 4]);
    let frame_length = i64::from(i32::from_le_bytes(length));
    if frame_type != HDR_TYPE_DATA || datagram[FLAGS_OFFSET] & BEGIN_FLAG == 0 || frame_length == 0 {
        return;
    }
    let at = match offset {
        TimestampOffset::Reserved => RESERVED_VALUE_OFFSET,
        TimestampOffset::Offset(n) => {
            let n = i64::from(n);
            let body_length = (datagram.len() - DATA_HEADER_LENGTH) as i64;
            let frame_body_length = frame_length - DATA_HEADER_LENGTH as i64;
            if n < 0 || n + TIMESTAMP_LENGTH > body_length || n + TIMESTAMP_LENGTH > frame_body_length {
                return;
            }
            DATA_HEADER_LENGTH + n as usize
        }
    };
    datagram[at..at + TIMESTAMP_LENGTH as usize].copy_from_slice(&timestamp_ns.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(length: usize, frame_length: i32, flags: u8, frame_type: u16) -> Vec<u8> {
        let mut d = vec![0u8; length];
        d[0..4].copy_from_slice(&frame_length.to_le_bytes());
        d[FLAGS_OFFSET] = flags;
        d[TYPE_OFFSET..TYPE_OFFSET + 2].copy_from_slice(&frame_type.to_le_bytes());
        d
    }

    fn at(d: &[u8], offset: usize) -> i64 {
        i64::from_le_bytes(d[offset..offset + 8].try_into().unwrap())
    }

    #[test]
    fn stamps_reserved_value_and_payload_offsets_of_a_first_data_frame() {
        let mut d = frame(96, 96, BEGIN_FLAG, HDR_TYPE_DATA);
        apply_timestamp(&mut d, TimestampOffset::Reserved, 0x0102_0304_0506_0708);
        assert_eq!(at(&d, 24), 0x0102_0304_0506_0708);
        apply_timestamp(&mut d, TimestampOffset::Offset(56), 42);
        assert_eq!(at(&d, 88), 42, "the last 8 payload bytes");
        let before = d.clone();
        apply_timestamp(&mut d, TimestampOffset::Offset(57), 7);
        assert_eq!(d, before, "does not fit the frame");
    }

    #[test]
    fn leaves_heartbeats_padding_later_fragments_and_short_frames_alone() {
        for mut d in [
            frame(32, 0, BEGIN_FLAG, HDR_TYPE_DATA),
            frame(64, 64, BEGIN_FLAG, 0),
            frame(64, 64, 0, HDR_TYPE_DATA),
            frame(31, 31, BEGIN_FLAG, HDR_TYPE_DATA),
        ] {
            let before = d.clone();
            apply_timestamp(&mut d, TimestampOffset::Reserved, 9);
            apply_timestamp(&mut d, TimestampOffset::Offset(0), 9);
            assert_eq!(d, before);
        }
        // The frame says 48 bytes but the datagram holds only 40: bounded by both.
        let mut d = frame(40, 48, BEGIN_FLAG, HDR_TYPE_DATA);
        apply_timestamp(&mut d, TimestampOffset::Offset(4), 9);
        assert_eq!(d[32..], [0u8; 8]);
        apply_timestamp(&mut d, TimestampOffset::Offset(0), 9);
        assert_eq!(at(&d, 32), 9);
    }

    #[test]
    fn overlapping_offsets_are_refused() {
        let parse = |text: &str| ChannelTimestamps::parse(&ChannelUri::parse(text).unwrap());
        let ok =
            parse("aeron:udp?endpoint=h:1|media-rcv-ts-offset=reserved|channel-rcv-ts-offset=0").unwrap();
        assert_eq!(ok.media_rcv, Some(TimestampOffset::Reserved));
        assert_eq!(ok.channel_rcv, Some(TimestampOffset::Offset(0)));
        for (text, message) in [
            (
                "media-rcv-ts-offset=0|channel-rcv-ts-offset=7",
                "media-rcv-ts-offset and channel-rcv-ts-offset overlap",
            ),
            (
                "media-rcv-ts-offset=8|channel-snd-ts-offset=1",
                "media-rcv-ts-offset and channel-snd-ts-offset overlap",
            ),
            (
                "channel-rcv-ts-offset=reserved|channel-snd-ts-offset=reserved",
                "channel-rcv-ts-offset and channel-snd-ts-offset overlap",
            ),
        ] {
            let error = parse(&format!("aeron:udp?endpoint=h:1|{text}")).unwrap_err();
            assert_eq!(error.code(), libc::EINVAL);
            assert_eq!(error.message(), message);
        }
    }
}
