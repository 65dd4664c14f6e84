//! `struct sockaddr_storage` to and from `SocketAddr`, for the C plug-in interfaces
//! (name resolvers, port managers, transport bindings, interceptors) that pass addresses
//! as Aeron does.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

/// `addr` in a zeroed `sockaddr_storage` (`sockaddr_in` or `sockaddr_in6`, network order).
pub(crate) fn to_storage(addr: &SocketAddr) -> libc::sockaddr_storage {
    // SAFETY: sockaddr_storage is plain old data; all zeroes is a valid (AF_UNSPEC) value.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    match addr {
        SocketAddr::V4(v4) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: v4.port().to_be(),
                sin_addr: libc::in_addr { s_addr: u32::from(*v4.ip()).to_be() },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is large and aligned enough for any sockaddr type.
            unsafe { std::ptr::write((&raw mut storage).cast::<libc::sockaddr_in>(), sin) };
        }
        SocketAddr::V6(v6) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: v6.port().to_be(),
                sin6_flowinfo: v6.flowinfo(),
                sin6_addr: libc::in6_addr { s6_addr: v6.ip().octets() },
                sin6_scope_id: v6.scope_id(),
            };
            // SAFETY: as above.
            unsafe { std::ptr::write((&raw mut storage).cast::<libc::sockaddr_in6>(), sin6) };
        }
    }
    storage
}

/// The address in `storage`, or `None` for a family other than IPv4 and IPv6.
pub(crate) fn from_storage(storage: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match i32::from(storage.ss_family) {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in; storage is aligned.
            let sin = unsafe { &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
            let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            Some(SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(sin.sin_port))))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6; storage is aligned.
            let sin6 = unsafe { &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>() };
            let ip = Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            Some(SocketAddr::V6(SocketAddrV6::new(
                ip,
                u16::from_be(sin6.sin6_port),
                sin6.sin6_flowinfo,
                sin6.sin6_scope_id,
            )))
        }
        _ => None,
    }
}

/// The length of the sockaddr in `storage` for system calls (0 for another family).
pub(crate) fn storage_length(storage: &libc::sockaddr_storage) -> libc::socklen_t {
    match i32::from(storage.ss_family) {
        libc::AF_INET => std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        libc::AF_INET6 => std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_both_families() {
        for text in ["127.0.0.1:40123", "0.0.0.0:0", "[::1]:7", "[fe80::1%2]:9"] {
            let addr: SocketAddr = text.parse().unwrap();
            let storage = to_storage(&addr);
            assert_eq!(from_storage(&storage), Some(addr), "{text}");
        }
        let v4 = to_storage(&"10.1.2.3:258".parse().unwrap());
        // SAFETY: an IPv4 storage, as written above.
        let sin = unsafe { &*(&raw const v4).cast::<libc::sockaddr_in>() };
        assert_eq!(sin.sin_port, 258u16.to_be(), "network order");
        assert_eq!(storage_length(&v4) as usize, std::mem::size_of::<libc::sockaddr_in>());
        // SAFETY: zeroes are a valid sockaddr_storage.
        let unspecified: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        assert_eq!(from_storage(&unspecified), None);
    }
}
