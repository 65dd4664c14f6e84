//! ON_PUBLICATION_ERROR body: a receiver sent an ERR frame to a network publication
//! (`spec/control-protocol.md` §6.9).
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::codec::{
    ControlMessage, MessageReader, MessageWriter, SIZE_OF_I16, SIZE_OF_I32, SIZE_OF_I64, string_length,
    text_lossy,
};
use crate::util::error::{AeronErrorCode, Result};

pub const REGISTRATION_ID_OFFSET: usize = 0;
pub const DESTINATION_REGISTRATION_ID_OFFSET: usize = REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const SESSION_ID_OFFSET: usize = DESTINATION_REGISTRATION_ID_OFFSET + SIZE_OF_I64;
pub const STREAM_ID_OFFSET: usize = SESSION_ID_OFFSET + SIZE_OF_I32;
pub const RECEIVER_ID_OFFSET: usize = STREAM_ID_OFFSET + SIZE_OF_I32;
pub const GROUP_TAG_OFFSET: usize = RECEIVER_ID_OFFSET + SIZE_OF_I64;
pub const ADDRESS_TYPE_OFFSET: usize = GROUP_TAG_OFFSET + SIZE_OF_I64;
pub const SOURCE_PORT_OFFSET: usize = ADDRESS_TYPE_OFFSET + SIZE_OF_I16;
pub const SOURCE_ADDRESS_OFFSET: usize = SOURCE_PORT_OFFSET + SIZE_OF_I16;
/// Room for an IPv6 address; an IPv4 address fills the first 4 bytes.
pub const SOURCE_ADDRESS_LENGTH: usize = 16;
pub const ERROR_CODE_OFFSET: usize = SOURCE_ADDRESS_OFFSET + SOURCE_ADDRESS_LENGTH;
pub const ERROR_MESSAGE_LENGTH_OFFSET: usize = ERROR_CODE_OFFSET + SIZE_OF_I32;
pub const ERROR_MESSAGE_OFFSET: usize = ERROR_MESSAGE_LENGTH_OFFSET + SIZE_OF_I32;
/// Aeron: the fixed part is 68 bytes; total = 68 + message length.
pub const PUBLICATION_ERROR_MIN_LENGTH: usize = ERROR_MESSAGE_OFFSET;

/// `address type` values (aeronc.h `AERON_RESPONSE_ADDRESS_TYPE_*`); 0 = unknown.
pub const ADDRESS_TYPE_IPV4: i16 = 1;
pub const ADDRESS_TYPE_IPV6: i16 = 2;

/// A receiver reported an error for a network publication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicationError<'a> {
    /// Registration id of the publication.
    pub registration_id: i64,
    /// The MDC destination that reported it; -1 if none.
    pub destination_registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub receiver_id: i64,
    /// -1 when the ERR frame carried no group tag.
    pub group_tag: i64,
    /// `ADDRESS_TYPE_IPV4`, `ADDRESS_TYPE_IPV6` or 0.
    pub address_type: i16,
    /// Host order.
    pub source_port: u16,
    /// Network byte order.
    pub source_address: [u8; SOURCE_ADDRESS_LENGTH],
    /// Kept raw: a receiver may send any code (see [`PublicationError::error_code`]).
    pub error_code_value: i32,
    pub error_message: &'a [u8],
}

impl<'a> PublicationError<'a> {
    /// The address fields for `source` (all zero for `None`).
    pub fn source_fields(source: Option<SocketAddr>) -> (i16, u16, [u8; SOURCE_ADDRESS_LENGTH]) {
        let mut address = [0u8; SOURCE_ADDRESS_LENGTH];
        match source {
            Some(SocketAddr::V4(v4)) => {
                address[..4].copy_from_slice(&v4.ip().octets());
                (ADDRESS_TYPE_IPV4, v4.port(), address)
            }
            Some(SocketAddr::V6(v6)) => {
                address.copy_from_slice(&v6.ip().octets());
                (ADDRESS_TYPE_IPV6, v6.port(), address)
            }
            None => (0, 0, address),
        }
    }

    /// The receiver's address, or `None` for an unknown address type.
    pub fn source(&self) -> Option<SocketAddr> {
        let ip = match self.address_type {
            ADDRESS_TYPE_IPV4 => {
                let [a, b, c, d, ..] = self.source_address;
                IpAddr::V4(Ipv4Addr::new(a, b, c, d))
            }
            ADDRESS_TYPE_IPV6 => IpAddr::V6(Ipv6Addr::from(self.source_address)),
            _ => return None,
        };
        Some(SocketAddr::new(ip, self.source_port))
    }

    pub fn error_code(&self) -> Option<AeronErrorCode> {
        AeronErrorCode::from_i32(self.error_code_value)
    }

    pub fn error_message_lossy(&self) -> Cow<'a, str> {
        text_lossy(self.error_message)
    }
}

impl<'a> ControlMessage<'a> for PublicationError<'a> {
    const NAME: &'static str = "publication error";

    fn encoded_length(&self) -> usize {
        ERROR_MESSAGE_OFFSET + self.error_message.len()
    }

    fn encode(&self, dst: &mut [u8]) -> Result<usize> {
        let message_length = string_length(Self::NAME, "error message", self.error_message)?;
        let length = self.encoded_length();
        let mut writer = MessageWriter::new(dst, Self::NAME, length)?;
        writer.i64(REGISTRATION_ID_OFFSET, self.registration_id);
        writer.i64(DESTINATION_REGISTRATION_ID_OFFSET, self.destination_registration_id);
        writer.i32(SESSION_ID_OFFSET, self.session_id);
        writer.i32(STREAM_ID_OFFSET, self.stream_id);
        writer.i64(RECEIVER_ID_OFFSET, self.receiver_id);
        writer.i64(GROUP_TAG_OFFSET, self.group_tag);
        writer.i16(ADDRESS_TYPE_OFFSET, self.address_type);
        writer.u16(SOURCE_PORT_OFFSET, self.source_port);
        writer.bytes(SOURCE_ADDRESS_OFFSET, &self.source_address);
        writer.i32(ERROR_CODE_OFFSET, self.error_code_value);
        writer.string(ERROR_MESSAGE_LENGTH_OFFSET, self.error_message, message_length);
        Ok(length)
    }

    fn decode(src: &'a [u8]) -> Result<Self> {
        let reader = MessageReader::new(src, Self::NAME, PUBLICATION_ERROR_MIN_LENGTH)?;
        let mut source_address = [0u8; SOURCE_ADDRESS_LENGTH];
        source_address.copy_from_slice(reader.bytes(
            SOURCE_ADDRESS_OFFSET,
            SOURCE_ADDRESS_LENGTH,
            "source address",
        )?);
        Ok(Self {
            registration_id: reader.i64(REGISTRATION_ID_OFFSET, "registration id")?,
            destination_registration_id: reader
                .i64(DESTINATION_REGISTRATION_ID_OFFSET, "destination registration id")?,
            session_id: reader.i32(SESSION_ID_OFFSET, "session id")?,
            stream_id: reader.i32(STREAM_ID_OFFSET, "stream id")?,
            receiver_id: reader.i64(RECEIVER_ID_OFFSET, "receiver id")?,
            group_tag: reader.i64(GROUP_TAG_OFFSET, "group tag")?,
            address_type: reader.i16(ADDRESS_TYPE_OFFSET, "address type")?,
            source_port: reader.u16(SOURCE_PORT_OFFSET, "source port")?,
            source_address,
            error_code_value: reader.i32(ERROR_CODE_OFFSET, "error code")?,
            error_message: reader.string(ERROR_MESSAGE_LENGTH_OFFSET, "error message")?.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PublicationError<'static> {
        let (address_type, source_port, source_address) =
            PublicationError::source_fields(Some("127.0.0.1:20121".parse().unwrap()));
        PublicationError {
            registration_id: 2,
            destination_registration_id: -1,
            session_id: 3,
            stream_id: 1002,
            receiver_id: 0x0102_0304_0506_0708,
            group_tag: -1,
            address_type,
            source_port,
            source_address,
            error_code_value: AeronErrorCode::ImageRejected as i32,
            error_message: b"no",
        }
    }

    #[test]
    fn exact_bytes() {
        let msg = sample();
        assert_eq!(msg.encoded_length(), 70);
        let mut dst = [0xEEu8; 70];
        assert_eq!(msg.encode(&mut dst).unwrap(), 70);
        #[rustfmt::skip]
        let expected: [u8; 70] = [
            2, 0, 0, 0, 0, 0, 0, 0,                         // @0 registration id
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // @8 destination registration id -1
            3, 0, 0, 0,                                     // @16 session id
            0xEA, 0x03, 0, 0,                               // @20 stream id 1002
            8, 7, 6, 5, 4, 3, 2, 1,                         // @24 receiver id
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // @32 group tag -1
            1, 0,                                           // @40 address type IPv4
            0x99, 0x4E,                                     // @42 port 20121 (host order, LE)
            127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // @44 address, network order
            13, 0, 0, 0,                                    // @60 error code IMAGE_REJECTED
            2, 0, 0, 0,                                     // @64 message length
            b'n', b'o',                                     // @68 message
        ];
        assert_eq!(dst, expected);
        let decoded = PublicationError::decode(&dst).unwrap();
        assert_eq!(decoded, msg);
        assert_eq!(decoded.source(), Some("127.0.0.1:20121".parse().unwrap()));
        assert_eq!(decoded.error_code(), Some(AeronErrorCode::ImageRejected));
        assert_eq!(decoded.error_message_lossy(), "no");
    }

    #[test]
    fn ipv6_and_unknown_sources() {
        let v6: SocketAddr = "[fe80::1]:40000".parse().unwrap();
        let (address_type, source_port, source_address) = PublicationError::source_fields(Some(v6));
        assert_eq!(address_type, ADDRESS_TYPE_IPV6);
        assert_eq!(source_address[0], 0xFE);
        assert_eq!(source_address[15], 1);
        let msg = PublicationError { address_type, source_port, source_address, ..sample() };
        assert_eq!(msg.source(), Some(v6));
        let (t, p, a) = PublicationError::source_fields(None);
        let unknown = PublicationError { address_type: t, source_port: p, source_address: a, ..sample() };
        assert_eq!((t, p, a), (0, 0, [0; 16]));
        assert_eq!(unknown.source(), None);
    }

    #[test]
    fn malformed_inputs_name_the_field() {
        let mut dst = [0u8; 70];
        sample().encode(&mut dst).unwrap();
        assert_eq!(
            PublicationError::decode(&dst[..67]).unwrap_err().message(),
            "publication error: length 67 is below the minimum of 68"
        );
        assert_eq!(
            PublicationError::decode(&dst[..69]).unwrap_err().message(),
            "publication error: error message (2 bytes at offset 68) runs past the end of the 69-byte message"
        );
        dst[64..68].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(
            PublicationError::decode(&dst).unwrap_err().message(),
            "publication error: error message length -1 is negative"
        );
    }
}
