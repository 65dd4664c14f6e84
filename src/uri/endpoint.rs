//! Address texts of URI parameters, checked for shape but not resolved:
//! `host:port` (`endpoint`, `control`, `response-endpoint`) and `host[:port][/prefix]`
//! (`interface`). IPv6 literals go in brackets: `[::1]:40456`.
#![forbid(unsafe_code)]

use std::fmt;
use std::net::IpAddr;

use crate::uri::value_parse::{invalid, parse_decimal_u64};
use crate::util::error::Result;

/// `host:port`, port required (0 = ephemeral). The host is kept as written, without the
/// brackets of an IPv6 literal; resolution is the driver's job.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPort {
    pub host: String,
    pub port: u16,
}

/// `host[:port][/prefix length]`: a local interface selector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InterfaceAddress {
    pub host: String,
    pub port: Option<u16>,
    pub prefix_length: Option<u8>,
}

fn parse_port(key: &str, value: &str, port: &str) -> Result<u16> {
    parse_decimal_u64(port)
        .and_then(|p| u16::try_from(p).ok())
        .ok_or_else(|| invalid(key, value, format_args!("port '{port}' is not in 0..65535")))
}

/// Splits `host[:port]`, handling `[ipv6]`; returns the host without brackets.
fn split_host<'v>(key: &str, value: &'v str, text: &'v str) -> Result<(&'v str, Option<&'v str>)> {
    let (host, port) = if let Some(bracketed) = text.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| invalid(key, value, "'[' of an IPv6 address without ']'"))?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or_else(|| invalid(key, value, "expected ':' after ']'"))?),
        };
        (host, port)
    } else {
        match text.split_once(':') {
            Some((_, port)) if port.contains(':') => {
                return Err(invalid(key, value, "an IPv6 address must be written in brackets: [addr]:port"));
            }
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    if host.is_empty() {
        return Err(invalid(key, value, "empty host"));
    }
    Ok((host, port))
}

fn write_host(f: &mut fmt::Formatter<'_>, host: &str) -> fmt::Result {
    if host.contains(':') { write!(f, "[{host}]") } else { f.write_str(host) }
}

impl HostPort {
    /// Parses `value` of parameter `key`; a missing port is an error naming `key`.
    pub fn parse(key: &str, value: &str) -> Result<Self> {
        let (host, port) = split_host(key, value, value)?;
        let port = port.ok_or_else(|| invalid(key, value, "missing port (expected host:port)"))?;
        Ok(Self { host: host.to_string(), port: parse_port(key, value, port)? })
    }

    /// The host as an IP address literal, if it is one.
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.split('%').next().and_then(|h| h.parse().ok())
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_host(f, &self.host)?;
        write!(f, ":{}", self.port)
    }
}

impl InterfaceAddress {
    pub fn parse(key: &str, value: &str) -> Result<Self> {
        let (address, prefix) = match value.rsplit_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (value, None),
        };
        let (host, port) = split_host(key, value, address)?;
        let port = port.map(|p| parse_port(key, value, p)).transpose()?;
        let max_prefix = if host.parse::<std::net::Ipv4Addr>().is_ok() { 32 } else { 128 };
        let prefix_length = prefix
            .map(|p| {
                parse_decimal_u64(p).filter(|&n| n <= max_prefix).map(|n| n as u8).ok_or_else(|| {
                    invalid(key, value, format_args!("prefix length '{p}' is not in 0..{max_prefix}"))
                })
            })
            .transpose()?;
        Ok(Self { host: host.to_string(), port, prefix_length })
    }
}

impl fmt::Display for InterfaceAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_host(f, &self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        if let Some(prefix) = self.prefix_length {
            write!(f, "/{prefix}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_forms() {
        let ep = HostPort::parse("endpoint", "127.0.0.1:20121").unwrap();
        assert_eq!((ep.host.as_str(), ep.port), ("127.0.0.1", 20121));
        assert_eq!(ep.ip(), Some("127.0.0.1".parse().unwrap()));
        let v6 = HostPort::parse("endpoint", "[ff02::1]:40456").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("ff02::1", 40456));
        assert_eq!(v6.to_string(), "[ff02::1]:40456");
        let named = HostPort::parse("control", "localhost:0").unwrap();
        assert_eq!(named.ip(), None);
        assert_eq!(named.to_string(), "localhost:0");
    }

    #[test]
    fn host_port_errors_name_the_parameter() {
        let cases = [
            ("127.0.0.1", "missing port"),
            ("[::1]", "missing port"),
            ("bad:xx", "port 'xx' is not in 0..65535"),
            ("host:65536", "port '65536'"),
            (":80", "empty host"),
            ("::1:80", "brackets"),
            ("[::1:80", "without ']'"),
            ("[::1]80", "expected ':' after ']'"),
        ];
        for (value, why) in cases {
            let err = HostPort::parse("endpoint", value).unwrap_err();
            assert!(err.message().starts_with(&format!("invalid endpoint={value}: ")), "{err}");
            assert!(err.message().contains(why), "{value}: {err}");
        }
    }

    #[test]
    fn interface_forms() {
        let any = InterfaceAddress::parse("interface", "0.0.0.0/0").unwrap();
        assert_eq!((any.port, any.prefix_length), (None, Some(0)));
        let full = InterfaceAddress::parse("interface", "192.168.1.0:40456/24").unwrap();
        assert_eq!(
            (full.host.as_str(), full.port, full.prefix_length),
            ("192.168.1.0", Some(40456), Some(24))
        );
        assert_eq!(full.to_string(), "192.168.1.0:40456/24");
        let v6 = InterfaceAddress::parse("interface", "[0::]/0").unwrap();
        assert_eq!(v6.to_string(), "[0::]/0");
        assert_eq!(InterfaceAddress::parse("interface", "eth0").unwrap().to_string(), "eth0");
        assert!(InterfaceAddress::parse("interface", "10.0.0.1/33").is_err());
        assert!(InterfaceAddress::parse("interface", "[::1]/129").is_err());
        assert!(InterfaceAddress::parse("interface", "10.0.0.1:x").is_err());
    }
}
