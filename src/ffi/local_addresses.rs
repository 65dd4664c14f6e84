//! What the C API reports of a UDP channel's bound sockets (`aeron_*_local_sockaddrs`,
//! `aeron_subscription_resolved_endpoint`, `aeron_subscription_try_resolve_channel_endpoint_port`),
//! with Aeron's C client's conventions: addresses are copied NUL-terminated (truncated to
//! the buffer), the count returned is of all addresses found even when fewer fit, and a
//! rewritten URI follows the C client's parameter order.

use std::ffi::{c_char, c_int};

use crate::ffi::publication::aeron_iovec_t;
use crate::ffi::util::strutil::write_c_string;
use crate::util::error::{Error, Result};

/// The argument checks of the address queries, as Aeron's: a vector is required and must
/// have room for at least one address (also for IPC, which has none).
pub(crate) fn check_address_vec(address_vec: *const aeron_iovec_t, address_vec_len: usize) -> Result<()> {
    if address_vec.is_null() {
        return Err(Error::invalid_argument("address_vec must not be NULL"));
    }
    if address_vec_len < 1 {
        return Err(Error::invalid_argument(format!("address_vec_len ({address_vec_len}) < 1")));
    }
    Ok(())
}

/// Copies the first `address_vec_len` of `addresses` into the vector's buffers (each
/// NUL-terminated, truncated to its `iov_len`) and returns how many addresses there are.
///
/// # Safety
/// `address_vec` non-NULL and valid for `address_vec_len` entries, each `iov_base` valid
/// for `iov_len` bytes.
pub(crate) unsafe fn write_addresses(
    addresses: &[String],
    address_vec: *const aeron_iovec_t,
    address_vec_len: usize,
) -> Result<c_int> {
    for (index, address) in addresses.iter().take(address_vec_len).enumerate() {
        // SAFETY: index < address_vec_len, the vector's length (contract).
        let entry = unsafe { address_vec.add(index).read() };
        if entry.iov_len == 0 {
            continue;
        }
        if entry.iov_base.is_null() {
            return Err(Error::invalid_argument(format!("address_vec[{index}].iov_base must not be NULL")));
        }
        // SAFETY: iov_base holds iov_len bytes (contract).
        unsafe { write_c_string(address.as_bytes(), entry.iov_base.cast(), entry.iov_len) };
    }
    Ok(c_int::try_from(addresses.len()).unwrap_or(c_int::MAX))
}

/// Writes `parts` one after another into `buffer` (`buffer_len` bytes) as successive
/// `snprintf`s would: a part that does not fit is truncated (NUL-terminated), later parts
/// are skipped, and the result counts the bytes up to and including the first part that
/// did not fit, so a result >= `buffer_len` means the text was truncated.
///
/// # Safety
/// `buffer` valid for `buffer_len` bytes.
pub(crate) unsafe fn write_parts(parts: &[String], buffer: *mut c_char, buffer_len: usize) -> c_int {
    let mut offset = 0usize;
    for part in parts {
        if offset >= buffer_len {
            break;
        }
        // SAFETY: offset < buffer_len, so the rest of the buffer is buffer_len - offset bytes.
        unsafe { write_c_string(part.as_bytes(), buffer.add(offset), buffer_len - offset) };
        offset += part.len();
    }
    c_int::try_from(offset).unwrap_or(c_int::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::local_socket_addresses::c_print_order;
    use crate::uri::ChannelUri;

    fn written(parts: &[String], length: usize) -> (c_int, String) {
        let mut buffer = vec![0x55 as c_char; length + 1];
        // SAFETY: the buffer holds length (+1 guard) bytes.
        let result = unsafe { write_parts(parts, buffer.as_mut_ptr(), length) };
        assert_eq!(buffer[length], 0x55, "nothing past the buffer");
        let text: Vec<u8> = buffer.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        (result, String::from_utf8(text).unwrap())
    }

    #[test]
    fn truncates_per_part_like_snprintf() {
        let parts = c_print_order(&ChannelUri::parse("aeron:udp?endpoint=10.0.0.1:5|mtu=1408").unwrap());
        assert_eq!(written(&parts, 64), (38, "aeron:udp?endpoint=10.0.0.1:5|mtu=1408".into()));
        // "aeron:udp" fits, "?endpoint=10.0.0.1:5" overflows: counted, "|mtu" never written.
        assert_eq!(written(&parts, 20), (29, "aeron:udp?endpoint=".into()));
        assert_eq!(written(&parts, 4), (9, "aer".into()));
        assert_eq!(written(&parts, 0).0, 0, "nothing fits, nothing counted (as the C client)");
    }

    #[test]
    fn copies_addresses_nul_terminated_and_counts_them_all() {
        let addresses = vec!["127.0.0.1:40123".to_string(), "[::1]:5".to_string()];
        let (mut first, mut second) = ([0x55u8; 8], [0x55u8; 32]);
        let vec = [
            aeron_iovec_t { iov_base: first.as_mut_ptr(), iov_len: first.len() },
            aeron_iovec_t { iov_base: second.as_mut_ptr(), iov_len: second.len() },
        ];
        // SAFETY: both entries are valid buffers of their lengths.
        assert_eq!(unsafe { write_addresses(&addresses, vec.as_ptr(), 1) }.unwrap(), 2);
        assert_eq!(&first, b"127.0.0\0", "truncated to 7 bytes and a NUL");
        assert_eq!(second[0], 0x55, "beyond address_vec_len: untouched");
        // SAFETY: as above.
        assert_eq!(unsafe { write_addresses(&addresses, vec.as_ptr(), 2) }.unwrap(), 2);
        assert_eq!(&second[..8], b"[::1]:5\0");
        let null = [aeron_iovec_t { iov_base: std::ptr::null_mut(), iov_len: 4 }];
        // SAFETY: the entry's NULL base is refused before any write.
        assert!(unsafe { write_addresses(&addresses, null.as_ptr(), 1) }.is_err());
        assert!(check_address_vec(std::ptr::null(), 1).is_err());
        assert!(check_address_vec(vec.as_ptr(), 0).is_err());
    }
}
