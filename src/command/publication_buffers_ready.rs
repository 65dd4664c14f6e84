//! ON_PUBLICATION_READY / ON_EXCLUSIVE_PUBLICATION_READY body (`spec/control-protocol.md` §6.2).
#![forbid(unsafe_code)]

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I32, SIZE_OF_I64, string_length, text,
};
use crate::util::error::Result;

pub const CORRELATION_ID_OFFSET: usize = 0;
pub const REGISTRATION_ID_OFFSET: usize = CORRELATION_ID_OFFSET + SIZE_OF_I64;
pub const SESSION_ID_OFFSET: usize = REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const STREAM_ID_OFFSET: usize = SESSION_ID_OFFSET + SIZE_OF_I32;
pub const PUBLICATION_LIMIT_COUNTER_ID_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const CHANNEL_STATUS_INDICATOR_ID_OFFSET: usize = PUBLICATION_LIMIT_COUNTER_ID_OFFSET + SIZE_OF_I32;
pub const LOG_FILE_NAME_LENGTH_OFFSET: usize = CHANNEL_STATUS_INDICATOR_ID_OFFSET + SIZE_OF_I32;
pub const LOG_FILE_NAME_OFFSET: usize = LOG_FILE_NAME_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 36 bytes; total = 36 + log file name length.
pub const PUBLICATION_BUFFERS_READY_MIN_LENGTH: usize = LOG_FILE_NAME_OFFSET;

/// The driver created (or shared) a publication; its log buffer is ready to map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicationBuffersReady<'a> {
    /// Correlation id of the ADD command (= the registration id of this handle).
    pub correlation_id: i64,
    /// Registration id of the underlying publication: for a shared publication, the
    /// correlation id of the ADD that first created it.
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    /// `pub-lmt` counter id.
    pub position_limit_counter_id: i32,
    /// `snd-channel` counter id; -1 for IPC.
    pub channel_status_indicator_id: i32,
    /// Absolute path of the `.logbuffer` file.
    pub log_file_name: &'a [u8],
}

impl<'a> PublicationBuffersReady<'a> {
    /// The log file path as text.
    pub fn log_file_name_str(&self) -> Result<&'a str> {
        text(Self::NAME, "log file name", self.log_file_name)
    }
}

impl<'a> ControlMessage<'a> for PublicationBuffersReady<'a> {
    const NAME: &'static str = "publication buffers ready";

    fn encoded_length(&self) -> usize {
        LOG_FILE_NAME_OFFSET + self.log_file_name.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let name_length = string_length(Self::NAME, "log file name", self.log_file_name)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        writer.i64(CORRELATION_ID_OFFSET, self.correlation_id);
        writer.i64(REGISTRATION_ID_OFFSET, self.registration_id);
        writer.i32(SESSION_ID_OFFSET, self.session_id);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.i32(PUBLICATION_LIMIT_COUNTER_ID_OFFSET, self.position_limit_counter_id);
        writer.i32(CHANNEL_STATUS_INDICATOR_ID_OFFSET, self.channel_status_indicator_id);
        writer.string(LOG_FILE_NAME_LENGTH_OFFSET, self.log_file_name, name_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, PUBLICATION_BUFFERS_READY_MIN_LENGTH)?;
        Ok(Self {
            correlation_id: reader.i64(CORRELATION_ID_OFFSET, "correlation id")?,
            registration_id: reader.i64(REGISTRATION_ID_OFFSET, "registration id")?,
            session_id: reader.i32(SESSION_ID_OFFSET, "session id")?,
            stream_id: reader.i32(STREAM_ID_OFFSET, "stream id")?,
            position_limit_counter_id: reader
                .i32(PUBLICATION_LIMIT_COUNTER_ID_OFFSET, "publication limit counter id")?,
            channel_status_indicator_id: reader
                .i32(CHANNEL_STATUS_INDICATOR_ID_OFFSET, "channel status indicator id")?,
            log_file_name: reader.string(LOG_FILE_NAME_LENGTH_OFFSET, "log file name")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let msg = PublicationBuffersReady {
            correlation_id: 6,
            registration_id: 5,
            session_id: -2,
            stream_id: 1001,
            position_limit_counter_id: 46,
            channel_status_indicator_id: -1,
            log_file_name: b"/d/6.log",
        };
        assert_eq!(msg.encoded_length(), 44);
        let mut dst = [0xEEu8; 44];
        assert_eq!(msg.encode(&mut dst).unwrap(), 44);
        #[rustfmt::skip]
        let expected: [u8; 44] = [
            6, 0, 0, 0, 0, 0, 0, 0,     // @0 correlation id
            5, 0, 0, 0, 0, 0, 0, 0,     // @8 registration id
            0xFE, 0xFF, 0xFF, 0xFF,     // @16 session id -2
            0xE9, 0x03, 0, 0,           // @20 stream id 1001
            46, 0, 0, 0,                // @24 pub-lmt counter id
            0xFF, 0xFF, 0xFF, 0xFF,     // @28 channel status indicator -1
            8, 0, 0, 0,                 // @32 log file name length
            b'/', b'd', b'/', b'6', b'.', b'l', b'o', b'g', // @36 log file name
        ];
        assert_eq!(dst, expected);
        let decoded = PublicationBuffersReady::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.log_file_name_str().unwrap(), "/d/6.log");
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        assert_eq!(
            PublicationBuffersReady::decode(&[0u8; 35]).unwrap_err().message(),
            "publication buffers ready: length 35 is below the minimum of 36"
        );
        let mut dst = [0u8; 40];
        dst[32] = 5;
        assert_eq!(
            PublicationBuffersReady::decode(&dst).unwrap_err().message(),
            "publication buffers ready: log file name (5 bytes at offset 36) runs past the end of the 40-byte message"
        );
        dst[32..36].copy_from_slice(&(-9i32).to_le_bytes());
        assert_eq!(
            PublicationBuffersReady::decode(&dst).unwrap_err().message(),
            "publication buffers ready: log file name length -9 is negative"
        );
    }
}
