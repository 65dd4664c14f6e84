//! Resolving the `host:port` texts of UDP channels (`endpoint`, `control`) into socket
//! addresses the way Aeron's C driver does (`aeron_host_and_port_parse_and_resolve`):
//!
//! * `[v6addr]:port` (optionally `[v6addr%scope]:port`) is IPv6: a literal, or else a name
//!   looked up for IPv6 addresses only;
//! * anything else, `host:port`, is IPv4: a dotted literal, or a name looked up for IPv4
//!   addresses only. An IPv6 literal must therefore be bracketed.
//! * The port is decimal and below 65535 (the C driver rejects 65535); 0 means ephemeral.
//!
//! Resolution may block on DNS: the conductor calls this when a channel is added, never
//! the sender or receiver duty cycle.
#![forbid(unsafe_code)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6, ToSocketAddrs};

use crate::util::error::{AeronErrorCode, Error, Result};

pub use crate::uri::endpoint::AddressText;

fn invalid(key: &str, value: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid_argument(format!("{key}={value}: {why}"))
}

impl<'a> AddressText<'a> {
    /// Splits `text`, which is `value` of URI parameter `key` or its address part (errors
    /// name `key=value`).
    pub fn split(key: &str, value: &str, text: &'a str) -> Result<Self> {
        Self::parse(text).map_err(|why| invalid(key, value, why))
    }
}

/// Parses a port: decimal, below 65535 (as the C driver's `aeron_udp_port_resolver`).
pub fn parse_port(key: &str, value: &str, port: &str) -> Result<u16> {
    let number: u32 = port.parse().map_err(|_| invalid(key, value, format_args!("port invalid: {port}")))?;
    if number >= u32::from(u16::MAX) {
        return Err(invalid(key, value, format_args!("port out of range: {port}")));
    }
    Ok(number as u16)
}

/// Resolves `host` for one family: a literal of that family, else a name lookup that
/// keeps the first address of that family.
pub fn resolve_host(key: &str, value: &str, host: &str, ipv6: bool) -> Result<IpAddr> {
    if ipv6 {
        if let Ok(ip) = host.parse::<Ipv6Addr>() {
            return Ok(ip.into());
        }
    } else if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return Ok(ip.into());
    }
    // A name that does not resolve is UNKNOWN_HOST, as Aeron C's lookup reports it.
    let unknown = |why: std::fmt::Arguments<'_>| {
        Error::aeron(
            AeronErrorCode::UnknownHost,
            format!("{key}={value}: unable to resolve host=({host}): {why}"),
        )
    };
    let found = (host, 0u16)
        .to_socket_addrs()
        .map_err(|e| unknown(format_args!("{e}")))?
        .map(|a| a.ip())
        .find(|ip| ip.is_ipv6() == ipv6);
    found.ok_or_else(|| unknown(format_args!("no {} address", if ipv6 { "IPv6" } else { "IPv4" })))
}

/// The numeric scope id of an IPv6 `%scope`: a number or an interface name.
pub fn resolve_scope(key: &str, value: &str, scope: &str) -> Result<u32> {
    if let Ok(index) = scope.parse::<u32>() {
        return Ok(index);
    }
    let interfaces = crate::util::sys::interface_addresses()
        .map_err(|e| Error::io(&e, format_args!("{key}={value}: list interfaces")))?;
    interfaces
        .iter()
        .find(|i| i.name == scope && i.index != 0)
        .map(|i| i.index)
        .ok_or_else(|| invalid(key, value, format_args!("unknown IPv6 scope interface '{scope}'")))
}

/// Builds the socket address for a resolved host, port and optional scope.
pub fn socket_address(
    key: &str,
    value: &str,
    ip: IpAddr,
    port: u16,
    scope: Option<&str>,
) -> Result<SocketAddr> {
    Ok(match ip {
        IpAddr::V4(_) => SocketAddr::new(ip, port),
        IpAddr::V6(v6) => {
            let scope_id = scope.map(|s| resolve_scope(key, value, s)).transpose()?.unwrap_or(0);
            SocketAddr::V6(SocketAddrV6::new(v6, port, 0, scope_id))
        }
    })
}

/// Resolves the `host:port` value of URI parameter `key` (port required) with the default
/// name resolver.
pub fn resolve_host_and_port(key: &str, value: &str) -> Result<SocketAddr> {
    super::name_resolver::resolve_host_and_port_with(
        &mut super::name_resolver::DefaultNameResolver,
        key,
        value,
        false,
    )
}

/// The wildcard address of `addr`'s family with port 0 (Aeron's default local address).
pub fn wildcard_for(addr: &SocketAddr) -> SocketAddr {
    match addr {
        SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        SocketAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
    }
}

/// The source identity Aeron reports for a sender (images, loss report):
/// `a.b.c.d:port` or `[v6]:port`.
pub fn format_source_identity(addr: &SocketAddr) -> String {
    match addr {
        SocketAddr::V4(v4) => format!("{}:{}", v4.ip(), v4.port()),
        SocketAddr::V6(v6) => format!("[{}]:{}", v6.ip(), v6.port()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_of_both_families() {
        assert_eq!(
            resolve_host_and_port("endpoint", "127.0.0.1:20121").unwrap(),
            "127.0.0.1:20121".parse::<SocketAddr>().unwrap()
        );
        assert_eq!(resolve_host_and_port("endpoint", "[::1]:40456").unwrap(), "[::1]:40456".parse().unwrap());
        assert_eq!(resolve_host_and_port("endpoint", "[::1%1]:7").unwrap(), "[::1%1]:7".parse().unwrap());
        assert_eq!(resolve_host_and_port("endpoint", "0.0.0.0:0").unwrap(), "0.0.0.0:0".parse().unwrap());
    }

    #[test]
    fn names_resolve_to_ipv4_unless_bracketed() {
        let v4 = resolve_host_and_port("endpoint", "localhost:5000").unwrap();
        assert_eq!(v4, "127.0.0.1:5000".parse().unwrap());
        // `[localhost]` asks for IPv6; hosts without an IPv6 localhost entry report no
        // address rather than falling back to IPv4.
        match resolve_host_and_port("endpoint", "[localhost]:5000") {
            Ok(addr) => assert!(addr.is_ipv6()),
            Err(e) => assert!(e.message().contains("no IPv6 address"), "{e}"),
        }
    }

    #[test]
    fn errors_name_the_parameter_and_reason() {
        let cases = [
            ("bad:xx", "port invalid: xx"),
            ("127.0.0.1:65535", "port out of range: 65535"),
            ("127.0.0.1", "missing port"),
            ("::1:80", "must be written in brackets"),
            ("[::1:80", "without ']'"),
            ("[::1]80", "expected ':' after ']'"),
            (":80", "empty host"),
            ("[::1%nosuchif0]:80", "unknown IPv6 scope interface"),
        ];
        for (value, why) in cases {
            let err = resolve_host_and_port("endpoint", value).unwrap_err();
            assert_eq!(err.code(), libc::EINVAL);
            assert!(err.message().starts_with(&format!("endpoint={value}: ")), "{err}");
            assert!(err.message().contains(why), "{value}: {err}");
        }
        let unknown = resolve_host_and_port("control", "no-such-host.invalid:80").unwrap_err();
        assert!(unknown.message().contains("unable to resolve host=(no-such-host.invalid)"), "{unknown}");
    }

    #[test]
    fn source_identity_and_wildcards() {
        assert_eq!(format_source_identity(&"127.0.0.1:20122".parse().unwrap()), "127.0.0.1:20122");
        assert_eq!(format_source_identity(&"[::1]:20122".parse().unwrap()), "[::1]:20122");
        assert_eq!(wildcard_for(&"10.1.1.1:9".parse().unwrap()), "0.0.0.0:0".parse().unwrap());
        assert_eq!(wildcard_for(&"[::1]:9".parse().unwrap()), "[::]:0".parse().unwrap());
    }
}
