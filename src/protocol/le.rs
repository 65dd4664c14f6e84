//! Little-endian field access on fixed-size header arrays.
//!
//! Views hold their validated header as `&[u8; N]`, so every access below uses a constant
//! offset inside a known-length array: an out-of-range offset is a bug in this module (it
//! would panic in every test), never a consequence of network input.
#![forbid(unsafe_code)]

#[inline]
fn field<const N: usize, const M: usize>(bytes: &[u8; N], offset: usize) -> [u8; M] {
    let mut out = [0u8; M];
    out.copy_from_slice(&bytes[offset..offset + M]);
    out
}

#[inline]
pub(crate) fn get_u16<const N: usize>(bytes: &[u8; N], offset: usize) -> u16 {
    u16::from_le_bytes(field(bytes, offset))
}

#[inline]
pub(crate) fn get_i32<const N: usize>(bytes: &[u8; N], offset: usize) -> i32 {
    i32::from_le_bytes(field(bytes, offset))
}

#[inline]
pub(crate) fn get_i64<const N: usize>(bytes: &[u8; N], offset: usize) -> i64 {
    i64::from_le_bytes(field(bytes, offset))
}

#[inline]
pub(crate) fn put_u16<const N: usize>(bytes: &mut [u8; N], offset: usize, value: u16) {
    bytes[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
}

#[inline]
pub(crate) fn put_i16<const N: usize>(bytes: &mut [u8; N], offset: usize, value: i16) {
    bytes[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
}

#[inline]
pub(crate) fn put_i32<const N: usize>(bytes: &mut [u8; N], offset: usize, value: i32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

#[inline]
pub(crate) fn put_i64<const N: usize>(bytes: &mut [u8; N], offset: usize, value: i64) {
    bytes[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_little_endian() {
        let mut bytes = [0u8; 16];
        put_i32(&mut bytes, 0, 0x0102_0304);
        put_u16(&mut bytes, 4, 0xA0B0);
        put_i16(&mut bytes, 6, -2);
        put_i64(&mut bytes, 8, 0x0123_4567_89AB_CDEF);
        assert_eq!(
            bytes,
            [4, 3, 2, 1, 0xB0, 0xA0, 0xFE, 0xFF, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01]
        );
        assert_eq!(get_i32(&bytes, 0), 0x0102_0304);
        assert_eq!(get_u16(&bytes, 4), 0xA0B0);
        assert_eq!(i16::from_le_bytes([bytes[6], bytes[7]]), -2);
        assert_eq!(get_i64(&bytes, 8), 0x0123_4567_89AB_CDEF);
    }
}
