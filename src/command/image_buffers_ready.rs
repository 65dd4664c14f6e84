//! ON_AVAILABLE_IMAGE body (`spec/control-protocol.md` §6.4).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, aligned_string_field_length,
    string_length, text,
};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
pub const SESSION_ID_OFFSET: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const STREAM_ID_OFFSET: usize = SESSION_ID_OFFSET + SIZE_OF_I32;
pub const SUBSCRIPTION_REGISTRATION_ID_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const SUBSCRIBER_POSITION_ID_OFFSET: usize = SUBSCRIPTION_REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const LOG_FILE_NAME_LENGTH_OFFSET: usize = SUBSCRIBER_POSITION_ID_OFFSET + SIZE_OF_I32;
/// Smallest valid body: empty log file name and source identity (36 bytes); in general
/// `36 + align(log file name length, 4) + source identity length`.
pub const IMAGE_BUFFERS_READY_MIN_LENGTH: usize = LOG_FILE_NAME_LENGTH_OFFSET + 2 * SIZE_OF_I32;

/// An image (a publication's stream as seen by one subscription) is ready to map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageBuffersReady<'a> {
    /// Image correlation id: the publication's registration id for IPC, the image's own id
    /// for a network image.
    pub correlation_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub subscription_registration_id: i64,
    /// `sub-pos` counter id.
    pub subscriber_position_id: i32,
    /// Path of the log buffer to map.
    pub log_file_name: &'a [u8],
    /// `aeron:ipc`, or the sender's `ip:port` / `[ipv6]:port`.
    pub source_identity: &'a [u8],
}

impl<'a> ImageBuffersReady<'a> {
    /// The log file path as text.
    pub fn log_file_name_str(&self) -> Result<&'a str> {
        text(Self::NAME, "log file name", self.log_file_name)
    }

    /// The source identity as text.
    pub fn source_identity_str(&self) -> Result<&'a str> {
        text(Self::NAME, "source identity", self.source_identity)
    }

    /// Offset of the source identity's length prefix.
    fn source_identity_length_offset(&self) -> usize {
        LOG_FILE_NAME_LENGTH_OFFSET + aligned_string_field_length(self.log_file_name.len())
    }
}

impl<'a> ControlMessage<'a> for ImageBuffersReady<'a> {
    const NAME: &'static str = "image buffers ready";

    fn encoded_length(&self) -> usize {
        (self.source_identity_length_offset() + SIZE_OF_I32).saturating_add(self.source_identity.len())
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let name_length = string_length(Self::NAME, "log file name", self.log_file_name)?;
        let identity_length = string_length(Self::NAME, "source identity", self.source_identity)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        writer.i32(SESSION_ID_OFFSET, self.session_id);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.i64(SUBSCRIPTION_REGISTRATION_ID_OFFSET, self.subscription_registration_id);
        writer.i32(SUBSCRIBER_POSITION_ID_OFFSET, self.subscriber_position_id);
        // Aeron: the source identity's length prefix starts at the next 4-byte boundary.
        let identity_offset =
            writer.aligned_string(LOG_FILE_NAME_LENGTH_OFFSET, self.log_file_name, name_length);
        writer.string(identity_offset, self.source_identity, identity_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, IMAGE_BUFFERS_READY_MIN_LENGTH)?;
        let (log_file_name, _) = reader.string(LOG_FILE_NAME_LENGTH_OFFSET, "log file name")?;
        let identity_offset = LOG_FILE_NAME_LENGTH_OFFSET + aligned_string_field_length(log_file_name.len());
        Ok(Self {
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
            session_id: reader.i32(SESSION_ID_OFFSET, "session id")?,
            stream_id: reader.i32(STREAM_ID_OFFSET, "stream id")?,
            subscription_registration_id: reader
                .i64(SUBSCRIPTION_REGISTRATION_ID_OFFSET, "subscription registration id")?,
            subscriber_position_id: reader.i32(SUBSCRIBER_POSITION_ID_OFFSET, "subscriber position id")?,
            log_file_name,
            source_identity: reader.string(identity_offset, "source identity")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ImageBuffersReady<'static> {
        ImageBuffersReady {
            correlation_id: 9,
            session_id: 7,
            stream_id: 1002,
            subscription_registration_id: 4,
            subscriber_position_id: 58,
            log_file_name: b"/i/9.lb",
            source_identity: b"1.2.3.4:5",
        }
    }

    #[test]
    fn exact_bytes_with_log_file_name_padding() {
        let msg = sample();
        assert_eq!(msg.encoded_length(), 36 + 8 + 9);
        let mut dst = [0xEEu8; 53];
        assert_eq!(msg.encode(&mut dst).unwrap(), 53);
        #[rustfmt::skip]
        let expected: [u8; 53] = [
            9, 0, 0, 0, 0, 0, 0, 0,                 // @0 image correlation id
            7, 0, 0, 0,                             // @8 session id
            0xEA, 0x03, 0, 0,                       // @12 stream id 1002
            4, 0, 0, 0, 0, 0, 0, 0,                 // @16 subscription registration id
            58, 0, 0, 0,                            // @24 sub-pos counter id
            7, 0, 0, 0,                             // @28 log file name length
            b'/', b'i', b'/', b'9', b'.', b'l', b'b', // @32 log file name
            0,                                      // @39 padding to align(7, 4) = 8
            9, 0, 0, 0,                             // @40 source identity length
            b'1', b'.', b'2', b'.', b'3', b'.', b'4', b':', b'5', // @44 source identity
        ];
        assert_eq!(dst, expected);
        let decoded = ImageBuffersReady::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.log_file_name_str().unwrap(), "/i/9.lb");
        assert_eq!(decoded.source_identity_str().unwrap(), "1.2.3.4:5");
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        let mut dst = [0u8; 53];
        sample().encode(&mut dst).unwrap();
        assert_eq!(
            ImageBuffersReady::decode(&dst[..35]).unwrap_err().message(),
            "image buffers ready: length 35 is below the minimum of 36"
        );
        assert_eq!(
            ImageBuffersReady::decode(&dst[..52]).unwrap_err().message(),
            "image buffers ready: source identity (9 bytes at offset 44) runs past the end of the 52-byte message"
        );
        assert_eq!(
            ImageBuffersReady::decode(&dst[..43]).unwrap_err().message(),
            "image buffers ready: source identity (4 bytes at offset 40) runs past the end of the 43-byte message"
        );
        let mut bad = dst;
        bad[28..32].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            ImageBuffersReady::decode(&bad).unwrap_err().message(),
            "image buffers ready: log file name length -1 is negative"
        );
        bad[28..32].copy_from_slice(&i32::MAX.to_le_bytes());
        assert_eq!(
            ImageBuffersReady::decode(&bad).unwrap_err().message(),
            "image buffers ready: log file name (2147483647 bytes at offset 32) runs past the end of the 53-byte message"
        );
        dst[40..44].copy_from_slice(&(-2i32).to_le_bytes());
        assert_eq!(
            ImageBuffersReady::decode(&dst).unwrap_err().message(),
            "image buffers ready: source identity length -2 is negative"
        );
    }
}
