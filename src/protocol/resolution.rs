//! RES (0x07): driver name resolution, an 8-byte header followed by entries mapping a
//! name to an IPv4/IPv6 address and port (`spec/wire-protocol.md` §10).
#![forbid(unsafe_code)]

use std::net::IpAddr;

use crate::protocol::frame_error::FrameError;
use crate::protocol::header::{self, FLAGS_OFFSET, FRAME_HEADER_LENGTH, FRAME_LENGTH_OFFSET, HDR_TYPE_RES};
use crate::protocol::le;
use crate::util::bits::align;

const NAME: &str = "RES";

pub const RES_TYPE_NAME_TO_IP4_MD: i8 = 1;
pub const RES_TYPE_NAME_TO_IP6_MD: i8 = 2;
/// The entry describes the sending driver itself.
pub const RES_SELF_FLAG: u8 = 0x80;
pub const RES_ADDRESS_LENGTH_IP4: usize = 4;
pub const RES_ADDRESS_LENGTH_IP6: usize = 16;

pub const RES_ENTRY_TYPE_OFFSET: usize = 0;
pub const RES_ENTRY_FLAGS_OFFSET: usize = 1;
pub const RES_ENTRY_UDP_PORT_OFFSET: usize = 2;
pub const RES_ENTRY_AGE_OFFSET: usize = 4;
pub const RES_ENTRY_ADDRESS_OFFSET: usize = 8;
/// Entries are padded to 8-byte multiples.
pub const RES_ENTRY_ALIGNMENT: usize = 8;
/// Longest name a writer puts into an entry (Java's resolver rejects longer ones).
pub const MAX_RESOLUTION_NAME_LENGTH: usize = 512;

/// Read-only view of a RES frame whose entries have all been validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolutionFlyweight<'a> {
    header: &'a [u8; FRAME_HEADER_LENGTH],
    entries: &'a [u8],
}

impl<'a> ResolutionFlyweight<'a> {
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let header = header::parse_header::<FRAME_HEADER_LENGTH>(buffer, NAME, |t| t == HDR_TYPE_RES)?;
        let frame_length = header::check_frame_length(
            NAME,
            le::get_i32(header, FRAME_LENGTH_OFFSET),
            FRAME_HEADER_LENGTH,
            buffer.len(),
        )?;
        let entries = &buffer[FRAME_HEADER_LENGTH..frame_length];
        let mut rest = entries;
        while !rest.is_empty() {
            let entry = ResolutionEntryFlyweight::parse(rest)?;
            rest = &rest[entry.entry_length()..];
        }
        Ok(Self { header, entries })
    }

    pub fn frame_length(&self) -> i32 {
        le::get_i32(self.header, FRAME_LENGTH_OFFSET)
    }

    pub fn flags(&self) -> u8 {
        self.header[FLAGS_OFFSET]
    }

    pub fn entries(&self) -> ResolutionEntries<'a> {
        ResolutionEntries { rest: self.entries }
    }
}

/// Iterator over the entries of a parsed RES frame.
#[derive(Debug, Clone)]
pub struct ResolutionEntries<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for ResolutionEntries<'a> {
    type Item = ResolutionEntryFlyweight<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        // The frame was validated when parsed; a failure here would end the iteration.
        let entry = ResolutionEntryFlyweight::parse(self.rest).ok()?;
        self.rest = &self.rest[entry.entry_length()..];
        Some(entry)
    }
}

/// One validated resolution entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolutionEntryFlyweight<'a> {
    head: &'a [u8; RES_ENTRY_ADDRESS_OFFSET],
    address: IpAddr,
    address_bytes: &'a [u8],
    name: &'a [u8],
    entry_length: usize,
}

impl<'a> ResolutionEntryFlyweight<'a> {
    /// Parses the entry at the start of `buffer`; the whole aligned entry must fit.
    pub fn parse(buffer: &'a [u8]) -> Result<Self, FrameError> {
        let truncated = |needed| FrameError::Truncated { frame: NAME, needed, available: buffer.len() };
        let res_type = *buffer.first().ok_or(truncated(1))? as i8;
        let address_length = match res_type {
            RES_TYPE_NAME_TO_IP4_MD => RES_ADDRESS_LENGTH_IP4,
            RES_TYPE_NAME_TO_IP6_MD => RES_ADDRESS_LENGTH_IP6,
            other => {
                return Err(FrameError::InvalidField {
                    frame: NAME,
                    field: "resolution type",
                    value: i64::from(other),
                });
            }
        };
        let name_offset = RES_ENTRY_ADDRESS_OFFSET + address_length + 2;
        let (head, rest) = buffer
            .get(..name_offset)
            .and_then(|fixed| fixed.split_first_chunk::<RES_ENTRY_ADDRESS_OFFSET>())
            .ok_or(truncated(name_offset))?;
        let (address_bytes, name_length) = rest.split_at(address_length);
        let address = match <[u8; RES_ADDRESS_LENGTH_IP4]>::try_from(address_bytes) {
            Ok(v4) => IpAddr::from(v4),
            Err(_) => {
                let mut v6 = [0u8; RES_ADDRESS_LENGTH_IP6];
                v6.copy_from_slice(address_bytes);
                IpAddr::from(v6)
            }
        };
        let name_length = i16::from_le_bytes([name_length[0], name_length[1]]);
        let name_end = usize::try_from(name_length).map(|n| name_offset + n).map_err(|_| {
            FrameError::InvalidField { frame: NAME, field: "name length", value: i64::from(name_length) }
        })?;
        let entry_length = align(name_end, RES_ENTRY_ALIGNMENT);
        if buffer.len() < entry_length {
            return Err(truncated(entry_length));
        }
        Ok(Self { head, address, address_bytes, name: &buffer[name_offset..name_end], entry_length })
    }

    /// `RES_TYPE_NAME_TO_IP4_MD` or `RES_TYPE_NAME_TO_IP6_MD`.
    pub fn res_type(&self) -> i8 {
        self.head[RES_ENTRY_TYPE_OFFSET] as i8
    }

    pub fn flags(&self) -> u8 {
        self.head[RES_ENTRY_FLAGS_OFFSET]
    }

    pub fn is_self(&self) -> bool {
        self.flags() & RES_SELF_FLAG != 0
    }

    /// Port in host order (the field is little-endian like every other).
    pub fn udp_port(&self) -> u16 {
        le::get_u16(self.head, RES_ENTRY_UDP_PORT_OFFSET)
    }

    pub fn age_in_ms(&self) -> i32 {
        le::get_i32(self.head, RES_ENTRY_AGE_OFFSET)
    }

    /// Address bytes in network order (4 or 16).
    pub fn address_bytes(&self) -> &'a [u8] {
        self.address_bytes
    }

    pub fn address(&self) -> IpAddr {
        self.address
    }

    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// Bytes this entry occupies, padding included.
    pub fn entry_length(&self) -> usize {
        self.entry_length
    }

    pub fn to_entry(&self) -> ResolutionEntry<'a> {
        ResolutionEntry {
            flags: self.flags(),
            udp_port: self.udp_port(),
            age_in_ms: self.age_in_ms(),
            address: self.address,
            name: self.name,
        }
    }
}

/// Field values of one resolution entry; the address family decides the resolution type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResolutionEntry<'a> {
    pub flags: u8,
    pub udp_port: u16,
    pub age_in_ms: i32,
    pub address: IpAddr,
    /// At most `MAX_RESOLUTION_NAME_LENGTH` bytes.
    pub name: &'a [u8],
}

impl ResolutionEntry<'_> {
    fn address_length(&self) -> usize {
        if self.address.is_ipv4() { RES_ADDRESS_LENGTH_IP4 } else { RES_ADDRESS_LENGTH_IP6 }
    }

    /// Aligned length: IPv4 `align(14 + name, 8)`, IPv6 `align(26 + name, 8)`.
    pub fn encoded_length(&self) -> usize {
        align(RES_ENTRY_ADDRESS_OFFSET + self.address_length() + 2 + self.name.len(), RES_ENTRY_ALIGNMENT)
    }

    /// Writes the entry with zeroed padding; returns its aligned length.
    pub fn encode(&self, buffer: &mut [u8]) -> Result<usize, FrameError> {
        if self.name.len() > MAX_RESOLUTION_NAME_LENGTH {
            return Err(FrameError::InvalidField {
                frame: NAME,
                field: "name length",
                value: self.name.len() as i64,
            });
        }
        let length = self.encoded_length();
        let available = buffer.len();
        let out = buffer.get_mut(..length).ok_or(FrameError::BufferTooShort {
            frame: NAME,
            needed: length,
            available,
        })?;
        out.fill(0);
        let (v4, v6);
        let (res_type, address): (i8, &[u8]) = match self.address {
            IpAddr::V4(address) => {
                v4 = address.octets();
                (RES_TYPE_NAME_TO_IP4_MD, &v4)
            }
            IpAddr::V6(address) => {
                v6 = address.octets();
                (RES_TYPE_NAME_TO_IP6_MD, &v6)
            }
        };
        let mut fixed = [0u8; RES_ENTRY_ADDRESS_OFFSET];
        fixed[RES_ENTRY_TYPE_OFFSET] = res_type as u8;
        fixed[RES_ENTRY_FLAGS_OFFSET] = self.flags;
        le::put_u16(&mut fixed, RES_ENTRY_UDP_PORT_OFFSET, self.udp_port);
        le::put_i32(&mut fixed, RES_ENTRY_AGE_OFFSET, self.age_in_ms);
        out[..RES_ENTRY_ADDRESS_OFFSET].copy_from_slice(&fixed);
        let name_length_offset = RES_ENTRY_ADDRESS_OFFSET + address.len();
        out[RES_ENTRY_ADDRESS_OFFSET..name_length_offset].copy_from_slice(address);
        let mut name_length = [0u8; 2];
        le::put_i16(&mut name_length, 0, self.name.len() as i16);
        out[name_length_offset..name_length_offset + 2].copy_from_slice(&name_length);
        out[name_length_offset + 2..name_length_offset + 2 + self.name.len()].copy_from_slice(self.name);
        Ok(length)
    }
}

/// Writes a RES frame holding `entries`; returns the frame length.
pub fn encode_resolution_frame(
    entries: &[ResolutionEntry<'_>],
    buffer: &mut [u8],
) -> Result<usize, FrameError> {
    let mut offset = FRAME_HEADER_LENGTH;
    header::output::<FRAME_HEADER_LENGTH>(buffer, NAME)?;
    for entry in entries {
        let available = buffer.len();
        let rest = buffer.get_mut(offset..).ok_or(FrameError::BufferTooShort {
            frame: NAME,
            needed: offset,
            available,
        })?;
        let written = entry.encode(rest).map_err(|err| match err {
            FrameError::BufferTooShort { needed, .. } => {
                FrameError::BufferTooShort { frame: NAME, needed: offset + needed, available }
            }
            other => other,
        })?;
        offset += written;
    }
    let frame_length = i32::try_from(offset).map_err(|_| FrameError::InvalidField {
        frame: NAME,
        field: "frame length",
        value: offset as i64,
    })?;
    let out = header::output::<FRAME_HEADER_LENGTH>(buffer, NAME)?;
    header::write_header(out, frame_length, 0, HDR_TYPE_RES);
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn entries() -> [ResolutionEntry<'static>; 2] {
        [
            ResolutionEntry {
                flags: RES_SELF_FLAG,
                udp_port: 9872,
                age_in_ms: 100,
                address: IpAddr::V6(Ipv6Addr::LOCALHOST),
                name: b"ABCDEFHG",
            },
            ResolutionEntry {
                flags: 0,
                udp_port: 8080,
                age_in_ms: 333,
                address: IpAddr::V4(Ipv4Addr::LOCALHOST),
                name: b"test",
            },
        ]
    }

    #[test]
    fn entry_lengths_are_aligned() {
        let [v6, v4] = entries();
        assert_eq!(v6.encoded_length(), 40); // align(26 + 8, 8)
        assert_eq!(v4.encoded_length(), 24); // align(14 + 4, 8)
    }

    #[test]
    fn frame_round_trips() {
        let mut buf = [0xFFu8; 80];
        assert_eq!(encode_resolution_frame(&entries(), &mut buf), Ok(72));
        let view = ResolutionFlyweight::parse(&buf[..72]).unwrap();
        assert_eq!(view.frame_length(), 72);
        let parsed: Vec<_> = view.entries().map(|e| e.to_entry()).collect();
        assert_eq!(parsed, entries());
        let first = view.entries().next().unwrap();
        assert!(first.is_self());
        assert_eq!(first.res_type(), RES_TYPE_NAME_TO_IP6_MD);
        assert_eq!(first.address_bytes(), &Ipv6Addr::LOCALHOST.octets());
        assert_eq!(buf[72 - 2..72], [0, 0], "padding is zeroed");
    }

    #[test]
    fn rejects_bad_entries() {
        let mut buf = [0u8; 72];
        encode_resolution_frame(&entries(), &mut buf).unwrap();
        // The last entry's aligned length no longer fits a shortened frame.
        buf[0] = 70;
        assert_eq!(
            ResolutionFlyweight::parse(&buf),
            Err(FrameError::Truncated { frame: "RES", needed: 24, available: 22 })
        );
        buf[0] = 72;
        buf[8] = 3;
        assert_eq!(
            ResolutionFlyweight::parse(&buf),
            Err(FrameError::InvalidField { frame: "RES", field: "resolution type", value: 3 })
        );
        buf[8] = 2;
        buf[8 + 24..8 + 26].copy_from_slice(&(-1i16).to_le_bytes());
        assert_eq!(
            ResolutionFlyweight::parse(&buf),
            Err(FrameError::InvalidField { frame: "RES", field: "name length", value: -1 })
        );
    }

    #[test]
    fn writer_rejects_small_buffers_and_long_names() {
        assert_eq!(
            encode_resolution_frame(&entries(), &mut [0u8; 60]),
            Err(FrameError::BufferTooShort { frame: "RES", needed: 72, available: 60 })
        );
        let long = [b'n'; MAX_RESOLUTION_NAME_LENGTH + 1];
        let entry = ResolutionEntry { name: &long, ..entries()[1] };
        assert_eq!(
            encode_resolution_frame(&[entry], &mut [0u8; 1024]),
            Err(FrameError::InvalidField { frame: "RES", field: "name length", value: 513 })
        );
    }
}
