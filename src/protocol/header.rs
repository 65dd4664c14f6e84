//! Constants of the frame header common to every UDP frame and of the 32-byte data header
//! that also heads every frame in a log buffer term (`spec/wire-protocol.md` §1-3).
#![forbid(unsafe_code)]

/// Aeron wire protocol version byte.
pub const CURRENT_VERSION: u8 = 0;

// Common 8-byte frame header.
pub const FRAME_LENGTH_OFFSET: usize = 0;
pub const VERSION_OFFSET: usize = 4;
pub const FLAGS_OFFSET: usize = 5;
pub const TYPE_OFFSET: usize = 6;
pub const FRAME_HEADER_LENGTH: usize = 8;

// Frame types.
pub const HDR_TYPE_PAD: u16 = 0x00;
pub const HDR_TYPE_DATA: u16 = 0x01;
pub const HDR_TYPE_NAK: u16 = 0x02;
pub const HDR_TYPE_SM: u16 = 0x03;
pub const HDR_TYPE_ERR: u16 = 0x04;
pub const HDR_TYPE_SETUP: u16 = 0x05;
pub const HDR_TYPE_RTTM: u16 = 0x06;
pub const HDR_TYPE_RES: u16 = 0x07;
pub const HDR_TYPE_ATS_DATA: u16 = 0x08;
pub const HDR_TYPE_RSP_SETUP: u16 = 0x0B;
pub const HDR_TYPE_EXT: u16 = 0xFFFF;

// Data header (DATA and PAD frames; every frame in a term).
pub const TERM_OFFSET_FIELD_OFFSET: usize = 8;
pub const SESSION_ID_FIELD_OFFSET: usize = 12;
pub const STREAM_ID_FIELD_OFFSET: usize = 16;
pub const TERM_ID_FIELD_OFFSET: usize = 20;
pub const RESERVED_VALUE_OFFSET: usize = 24;
pub const DATA_HEADER_LENGTH: usize = 32;
/// Payload starts right after the data header.
pub const DATA_OFFSET: usize = DATA_HEADER_LENGTH;

// DATA flags.
pub const BEGIN_FLAG: u8 = 0x80;
pub const END_FLAG: u8 = 0x40;
pub const EOS_FLAG: u8 = 0x20;
pub const UNFRAGMENTED: u8 = BEGIN_FLAG | END_FLAG;

/// Frames in a term start on 32-byte boundaries.
pub const FRAME_ALIGNMENT: usize = 32;

/// Largest UDP payload Aeron sends.
pub const MAX_UDP_PAYLOAD_LENGTH: usize = 65504;

#[cfg(test)]
mod tests {
    use super::*;
    use static_assertions::const_assert_eq;

    const_assert_eq!(DATA_HEADER_LENGTH, 32);
    const_assert_eq!(RESERVED_VALUE_OFFSET + 8, DATA_HEADER_LENGTH);
    const_assert_eq!(UNFRAGMENTED, 0xC0);

    #[test]
    fn data_header_fields_are_contiguous() {
        assert_eq!(TERM_OFFSET_FIELD_OFFSET, FRAME_HEADER_LENGTH);
        assert_eq!(SESSION_ID_FIELD_OFFSET, TERM_OFFSET_FIELD_OFFSET + 4);
        assert_eq!(STREAM_ID_FIELD_OFFSET, SESSION_ID_FIELD_OFFSET + 4);
        assert_eq!(TERM_ID_FIELD_OFFSET, STREAM_ID_FIELD_OFFSET + 4);
        assert_eq!(RESERVED_VALUE_OFFSET, TERM_ID_FIELD_OFFSET + 4);
    }
}
