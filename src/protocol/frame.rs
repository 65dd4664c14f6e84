//! Dispatch of a received datagram to the flyweight of its frame type, and iteration over
//! the DATA/PAD frames a data datagram carries (`spec/wire-protocol.md` §1-3).
#![forbid(unsafe_code)]

use crate::protocol::data::DataFlyweight;
use crate::protocol::error_frame::ErrorFrameFlyweight;
use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{
    FRAME_ALIGNMENT, FrameHeader, HDR_TYPE_DATA, HDR_TYPE_ERR, HDR_TYPE_NAK, HDR_TYPE_PAD, HDR_TYPE_RES,
    HDR_TYPE_RSP_SETUP, HDR_TYPE_RTTM, HDR_TYPE_SETUP, HDR_TYPE_SM,
};
use crate::protocol::nak::NakFlyweight;
use crate::protocol::resolution::ResolutionFlyweight;
use crate::protocol::response_setup::ResponseSetupFlyweight;
use crate::protocol::rttm::RttmFlyweight;
use crate::protocol::setup::SetupFlyweight;
use crate::protocol::status_message::StatusMessageFlyweight;
use crate::util::bits::align;

/// A validated frame, by type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// DATA, PAD or heartbeat: the first frame of a data datagram (see [`DataFrames`]).
    Data(DataFlyweight<'a>),
    Nak(NakFlyweight<'a>),
    StatusMessage(StatusMessageFlyweight<'a>),
    Error(ErrorFrameFlyweight<'a>),
    Setup(SetupFlyweight<'a>),
    Rttm(RttmFlyweight<'a>),
    Resolution(ResolutionFlyweight<'a>),
    ResponseSetup(ResponseSetupFlyweight<'a>),
    /// A valid common header of a type the open-source drivers ignore (ATS, EXT, unknown).
    Other(FrameHeader<'a>),
}

/// Parses the frame at the start of `datagram`: common header first (length ≥ 8, version 0),
/// then every check of the frame's type. Unknown types are `Frame::Other`, which Aeron
/// ignores rather than counting as invalid.
pub fn parse_frame(datagram: &[u8]) -> Result<Frame<'_>, FrameError> {
    let header = FrameHeader::parse(datagram)?;
    Ok(match header.frame_type() {
        HDR_TYPE_DATA | HDR_TYPE_PAD => Frame::Data(DataFlyweight::parse(datagram)?),
        HDR_TYPE_NAK => Frame::Nak(NakFlyweight::parse(datagram)?),
        HDR_TYPE_SM => Frame::StatusMessage(StatusMessageFlyweight::parse(datagram)?),
        HDR_TYPE_ERR => Frame::Error(ErrorFrameFlyweight::parse(datagram)?),
        HDR_TYPE_SETUP => Frame::Setup(SetupFlyweight::parse(datagram)?),
        HDR_TYPE_RTTM => Frame::Rttm(RttmFlyweight::parse(datagram)?),
        HDR_TYPE_RES => Frame::Resolution(ResolutionFlyweight::parse(datagram)?),
        HDR_TYPE_RSP_SETUP => Frame::ResponseSetup(ResponseSetupFlyweight::parse(datagram)?),
        _ => Frame::Other(header),
    })
}

/// The frames of a data datagram: consecutive DATA frames, each starting at the previous
/// one's offset + `align(frame_length, 32)`. Iteration ends at the end of the datagram,
/// after a PAD frame (its header ends the datagram) or a heartbeat, or after the first
/// invalid frame (yielded as `Err`).
#[derive(Debug, Clone)]
pub struct DataFrames<'a> {
    rest: &'a [u8],
}

impl<'a> DataFrames<'a> {
    pub fn new(datagram: &'a [u8]) -> Self {
        Self { rest: datagram }
    }
}

impl<'a> Iterator for DataFrames<'a> {
    type Item = Result<DataFlyweight<'a>, FrameError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let frame = match DataFlyweight::parse(self.rest) {
            Ok(frame) => frame,
            Err(err) => {
                self.rest = &[];
                return Some(Err(err));
            }
        };
        let consumed = if frame.is_padding() || frame.is_heartbeat() {
            self.rest.len()
        } else {
            // DATA frame lengths were checked to be in [32, rest.len()].
            align(frame.frame_length() as usize, FRAME_ALIGNMENT).min(self.rest.len())
        };
        self.rest = &self.rest[consumed..];
        Some(Ok(frame))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::data::DataHeader;
    use crate::protocol::nak::Nak;

    #[test]
    fn dispatches_by_type() {
        let mut buf = [0u8; 64];
        let n = Nak::new(1, 2, 3, 4, 5).encode(&mut buf).unwrap();
        assert!(matches!(parse_frame(&buf[..n]), Ok(Frame::Nak(nak)) if nak.length() == 5));

        buf[..8].copy_from_slice(&[8, 0, 0, 0, 0, 0, 0x09, 0]);
        assert!(matches!(parse_frame(&buf[..8]), Ok(Frame::Other(h)) if h.frame_type() == 9));
        assert_eq!(
            parse_frame(&buf[..3]),
            Err(FrameError::Truncated { frame: "frame", needed: 8, available: 3 })
        );
    }

    #[test]
    fn iterates_aligned_frames_up_to_pad() {
        let mut datagram = [0u8; 32 + 64 + 32 + 32];
        DataHeader::data(1, 2, 3, 0, 0).encode(&mut datagram).unwrap();
        DataHeader::data(1, 2, 3, 32, 1).encode_frame(&[7], &mut datagram[32..]).unwrap();
        DataHeader::pad(1, 2, 3, 96, 160).encode(&mut datagram[96..]).unwrap();
        let frames: Vec<_> = DataFrames::new(&datagram).map(|f| f.unwrap().term_offset()).collect();
        assert_eq!(frames, [0, 32, 96], "PAD ends the datagram");
    }

    #[test]
    fn yields_error_then_stops() {
        let mut datagram = [0u8; 64];
        DataHeader::data(1, 2, 3, 0, 0).encode(&mut datagram).unwrap();
        datagram[32 + 4] = 1; // second frame: bad version
        let results: Vec<_> = DataFrames::new(&datagram).collect();
        assert_eq!(results.len(), 2);
        assert_eq!(results[1], Err(FrameError::UnsupportedVersion { frame: "DATA", version: 1 }));
    }
}
