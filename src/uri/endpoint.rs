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

/// A `host[:port]` text split into its parts, brackets removed: the shape the URI checks
/// here and the driver's resolution (`driver::media::socket_address`) both read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressText<'a> {
    pub host: &'a str,
    /// The port text after `:`, if any.
    pub port: Option<&'a str>,
    /// The host was bracketed: resolve as IPv6.
    pub ipv6: bool,
    /// The IPv6 scope after `%` inside the brackets: an interface name or index.
    pub scope: Option<&'a str>,
}

impl<'a> AddressText<'a> {
    /// Splits `text`; the error is the reason, for the caller to put in its own message.
    pub fn parse(text: &'a str) -> std::result::Result<Self, &'static str> {
        let (host, port, ipv6, scope) = if let Some(rest) = text.strip_prefix('[') {
            let (inner, after) = rest.split_once(']').ok_or("'[' of an IPv6 address without ']'")?;
            let (host, scope) = match inner.split_once('%') {
                Some((host, scope)) => (host, Some(scope)),
                None => (inner, None),
            };
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':').ok_or("expected ':' after ']'")?),
            };
            (host, port, true, scope)
        } else {
            match text.split_once(':') {
                Some((_, port)) if port.contains(':') => {
                    return Err("an IPv6 address must be written in brackets: [addr]:port");
                }
                Some((host, port)) => (host, Some(port), false, None),
                None => (text, None, false, None),
            }
        };
        if host.is_empty() {
            return Err("empty host");
        }
        Ok(Self { host, port, ipv6, scope })
    }

    /// The host as written inside the brackets, scope included.
    fn host_as_written(&self) -> String {
        match self.scope {
            Some(scope) => format!("{}%{scope}", self.host),
            None => self.host.to_string(),
        }
    }
}

/// Splits `text` (`value` of parameter `key`, or its address part).
fn split_host<'v>(key: &str, value: &str, text: &'v str) -> Result<AddressText<'v>> {
    AddressText::parse(text).map_err(|why| invalid(key, value, why))
}

fn write_host(f: &mut fmt::Formatter<'_>, host: &str) -> fmt::Result {
    if host.contains(':') { write!(f, "[{host}]") } else { f.write_str(host) }
}

impl HostPort {
    /// Parses `value` of parameter `key`; a missing port is an error naming `key`.
    pub fn parse(key: &str, value: &str) -> Result<Self> {
        let text = split_host(key, value, value)?;
        let port = text.port.ok_or_else(|| invalid(key, value, "missing port (expected host:port)"))?;
        Ok(Self { host: text.host_as_written(), port: parse_port(key, value, port)? })
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
        let text = split_host(key, value, address)?;
        let port = text.port.map(|p| parse_port(key, value, p)).transpose()?;
        let max_prefix = if text.host.parse::<std::net::Ipv4Addr>().is_ok() { 32 } else { 128 };
        let prefix_length = prefix
            .map(|p| {
                parse_decimal_u64(p).filter(|&n| n <= max_prefix).map(|n| n as u8).ok_or_else(|| {
                    invalid(key, value, format_args!("prefix length '{p}' is not in 0..{max_prefix}"))
                })
            })
            .transpose()?;
        Ok(Self { host: text.host_as_written(), port, prefix_length })
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
