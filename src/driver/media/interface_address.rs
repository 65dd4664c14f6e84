//! The `interface=host[:port][/prefix]` parameter: which local address a unicast channel
//! binds, or which interface a multicast channel joins its group on (Aeron C
//! `aeron_interface_parse_and_resolve`, `aeron_find_interface`,
//! `aeron_find_unicast_interface`, `aeron_find_multicast_interface`).
//!
//! * No `interface`: the wildcard address of the endpoint's family, port 0.
//! * A wildcard host (`0.0.0.0`, `[::]`): used as written, with its port.
//! * Otherwise the host (IPv4 unless bracketed) and prefix length (default: all bits)
//!   select a local interface whose address matches under that prefix: among interfaces
//!   that are up, the first loopback match is taken, and a multicast-capable match with a
//!   longer netmask replaces it. The channel binds that interface's address with the
//!   port from the text (0 if absent). No match is an error.
#![forbid(unsafe_code)]

use std::net::{IpAddr, SocketAddr};

use super::socket_address::{AddressText, parse_port, resolve_host, socket_address, wildcard_for};
use crate::util::error::{Error, Result};
use crate::util::sys::{IFF_LOOPBACK, IFF_MULTICAST, IFF_UP, InterfaceAddress, interface_addresses};

/// An `interface` value resolved but not yet matched to a local interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterfaceSelector {
    /// Host and port from the text (port 0 when absent).
    pub address: SocketAddr,
    /// Significant leading bits of the host: 32 / 128 when absent.
    pub prefix_length: u8,
}

/// The local address a unicast channel binds, and the interface index it belongs to
/// (0 when not matched to one interface, e.g. the wildcard).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalInterface {
    pub address: SocketAddr,
    pub index: u32,
}

impl InterfaceSelector {
    /// Parses and resolves the `interface` value (named `key` in errors).
    pub fn parse(key: &str, value: &str) -> Result<Self> {
        let (address_text, prefix) = match value.rsplit_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (value, None),
        };
        let text = AddressText::split(key, value, address_text)?;
        let port = text.port.map(|p| parse_port(key, value, p)).transpose()?.unwrap_or(0);
        let ip = resolve_host(key, value, text.host, text.ipv6)?;
        let max = if ip.is_ipv6() { 128 } else { 32 };
        let prefix_length = match prefix {
            None => max,
            Some(p) => p.parse::<u8>().ok().filter(|&n| n <= max).ok_or_else(|| {
                Error::invalid_argument(format!("{key}={value}: prefix length '{p}' is not in 0..={max}"))
            })?,
        };
        Ok(Self { address: socket_address(key, value, ip, port, text.scope)?, prefix_length })
    }
}

/// Whether `a` and `b` are the same family and agree in their first `prefix_length` bits.
pub fn prefix_matches(a: IpAddr, b: IpAddr, prefix_length: u8) -> bool {
    match (a, b) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix_length.min(32))).unwrap_or(0);
            u32::from(a) & mask == u32::from(b) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix_length.min(128))).unwrap_or(0);
            u128::from(a) & mask == u128::from(b) & mask
        }
        _ => false,
    }
}

/// Number of leading one bits of a netmask.
fn netmask_prefix_length(netmask: Option<IpAddr>) -> u32 {
    match netmask {
        Some(IpAddr::V4(m)) => u32::from(m).count_ones(),
        Some(IpAddr::V6(m)) => u128::from(m).count_ones(),
        None => 0,
    }
}

/// Picks the interface address for `selector` among `candidates` (Aeron's rule above).
pub fn select_interface<'a>(
    selector: &InterfaceSelector,
    candidates: &'a [InterfaceAddress],
) -> Option<&'a InterfaceAddress> {
    let mut chosen: Option<&InterfaceAddress> = None;
    let mut chosen_prefix = 0u32;
    let mut found = false;
    for candidate in candidates {
        if candidate.flags & IFF_UP == 0
            || !prefix_matches(selector.address.ip(), candidate.addr, selector.prefix_length)
        {
            continue;
        }
        if candidate.flags & IFF_LOOPBACK != 0 && !found {
            chosen = Some(candidate);
            found = true;
        } else if candidate.flags & IFF_MULTICAST != 0 {
            let prefix = netmask_prefix_length(candidate.netmask);
            if prefix > chosen_prefix {
                chosen = Some(candidate);
                chosen_prefix = prefix;
            }
            found = true;
        }
    }
    chosen
}

/// Matches `selector` against this host's interfaces.
pub fn find_interface(key: &str, value: &str, selector: &InterfaceSelector) -> Result<LocalInterface> {
    let candidates =
        interface_addresses().map_err(|e| Error::io(&e, format_args!("{key}={value}: getifaddrs")))?;
    let chosen = select_interface(selector, &candidates).ok_or_else(|| {
        Error::invalid_argument(format!("{key}={value}: could not find matching interface"))
    })?;
    let address = match chosen.addr {
        IpAddr::V4(ip) => SocketAddr::from((ip, selector.address.port())),
        IpAddr::V6(ip) => {
            SocketAddr::V6(std::net::SocketAddrV6::new(ip, selector.address.port(), 0, chosen.index))
        }
    };
    Ok(LocalInterface { address, index: chosen.index })
}

/// The local address a unicast channel to `endpoint` binds, given its `interface` value.
pub fn find_unicast_interface(endpoint: &SocketAddr, interface: Option<&str>) -> Result<LocalInterface> {
    const KEY: &str = "interface";
    let Some(value) = interface else {
        return Ok(LocalInterface { address: wildcard_for(endpoint), index: 0 });
    };
    let selector = InterfaceSelector::parse(KEY, value)?;
    if selector.address.ip().is_unspecified() {
        return Ok(LocalInterface { address: selector.address, index: 0 });
    }
    find_interface(KEY, value, &selector)
}

/// The local interface a multicast channel to `group` joins and sends from, given its
/// `interface` value (Aeron C `aeron_find_multicast_interface`): by default the best
/// multicast-capable interface of the group's family (`0.0.0.0/0` or `[0::]/0`).
pub fn find_multicast_interface(group: &SocketAddr, interface: Option<&str>) -> Result<LocalInterface> {
    const KEY: &str = "interface";
    let value = interface.unwrap_or(if group.is_ipv6() { "[0::]/0" } else { "0.0.0.0/0" });
    let selector = InterfaceSelector::parse(KEY, value)?;
    if selector.address.is_ipv6() != group.is_ipv6() {
        return Err(Error::invalid_argument(format!(
            "{KEY}={value}: not of the multicast group's address family (endpoint={group})"
        )));
    }
    find_interface(KEY, value, &selector)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(name: &str, addr: &str, netmask: &str, flags: u32, index: u32) -> InterfaceAddress {
        InterfaceAddress {
            name: name.to_string(),
            index,
            addr: addr.parse().unwrap(),
            netmask: Some(netmask.parse().unwrap()),
            flags,
        }
    }

    #[test]
    fn parses_host_port_and_prefix() {
        let s = InterfaceSelector::parse("interface", "192.168.1.0:40456/24").unwrap();
        assert_eq!((s.address, s.prefix_length), ("192.168.1.0:40456".parse().unwrap(), 24));
        let s = InterfaceSelector::parse("interface", "127.0.0.1").unwrap();
        assert_eq!((s.address, s.prefix_length), ("127.0.0.1:0".parse().unwrap(), 32));
        let s = InterfaceSelector::parse("interface", "[::1]/64").unwrap();
        assert_eq!((s.address, s.prefix_length), ("[::1]:0".parse().unwrap(), 64));
        let s = InterfaceSelector::parse("interface", "[0::]/0").unwrap();
        assert_eq!((s.address, s.prefix_length), ("[::]:0".parse().unwrap(), 0));
        for bad in ["10.0.0.1/33", "[::1]/129", "10.0.0.1:x", "10.0.0.1/x"] {
            let err = InterfaceSelector::parse("interface", bad).unwrap_err();
            assert!(err.message().starts_with(&format!("interface={bad}: ")), "{err}");
        }
    }

    #[test]
    fn prefix_match_per_family() {
        let a: IpAddr = "192.168.1.77".parse().unwrap();
        assert!(prefix_matches(a, "192.168.1.0".parse().unwrap(), 24));
        assert!(!prefix_matches(a, "192.168.2.0".parse().unwrap(), 24));
        assert!(prefix_matches(a, "10.0.0.0".parse().unwrap(), 0));
        assert!(!prefix_matches(a, "::1".parse().unwrap(), 0));
        assert!(prefix_matches("fe80::1".parse().unwrap(), "fe80::2".parse().unwrap(), 64));
        assert!(!prefix_matches("fe80::1".parse().unwrap(), "fe80::2".parse().unwrap(), 128));
    }

    #[test]
    fn selection_prefers_loopback_then_longest_multicast_netmask() {
        let up_mc = IFF_UP | IFF_MULTICAST;
        let candidates = [
            iface("lo", "127.0.0.1", "255.0.0.0", IFF_UP | IFF_LOOPBACK, 1),
            iface("eth0", "10.1.2.3", "255.255.0.0", up_mc, 2),
            iface("eth1", "10.1.9.9", "255.255.255.0", up_mc, 3),
            iface("eth2", "10.1.5.5", "255.255.255.252", IFF_MULTICAST, 4),
        ];
        let pick = |text: &str| {
            let s = InterfaceSelector::parse("interface", text).unwrap();
            select_interface(&s, &candidates).map(|c| c.name.as_str())
        };
        assert_eq!(pick("127.0.0.1"), Some("lo"));
        assert_eq!(pick("10.1.2.3"), Some("eth0"));
        // Both eth0 and eth1 match 10.1.0.0/16; eth1's /24 netmask is longer. eth2 is down.
        assert_eq!(pick("10.1.0.0/16"), Some("eth1"));
        // 0.0.0.0/0 matches all: loopback first, then replaced by the longest multicast mask.
        assert_eq!(pick("0.0.0.0/0"), Some("eth1"));
        assert_eq!(pick("10.9.9.9"), None);
    }

    #[test]
    fn unicast_interface_on_this_host() {
        let endpoint: SocketAddr = "127.0.0.1:20121".parse().unwrap();
        let none = find_unicast_interface(&endpoint, None).unwrap();
        assert_eq!(none, LocalInterface { address: "0.0.0.0:0".parse().unwrap(), index: 0 });
        let v6: SocketAddr = "[::1]:1".parse().unwrap();
        assert_eq!(find_unicast_interface(&v6, None).unwrap().address, "[::]:0".parse().unwrap());
        let wildcard = find_unicast_interface(&endpoint, Some("0.0.0.0:4000")).unwrap();
        assert_eq!(wildcard.address, "0.0.0.0:4000".parse().unwrap());
        // As in udp-session.pcap: interface=127.0.0.1:20122 binds 127.0.0.1:20122 on lo.
        let lo = find_unicast_interface(&endpoint, Some("127.0.0.1:20122")).unwrap();
        assert_eq!(lo.address, "127.0.0.1:20122".parse().unwrap());
        assert!(lo.index > 0);
        let lo_net = find_unicast_interface(&endpoint, Some("127.0.0.0/8")).unwrap();
        assert!(lo_net.address.ip().is_loopback());
        let err = find_unicast_interface(&endpoint, Some("203.0.113.77")).unwrap_err();
        assert!(err.message().contains("could not find matching interface"), "{err}");
    }

    #[test]
    fn multicast_interface_on_this_host() {
        let group: SocketAddr = "239.1.2.3:40456".parse().unwrap();
        let lo = find_multicast_interface(&group, Some("127.0.0.1")).unwrap();
        assert_eq!(lo.address, "127.0.0.1:0".parse().unwrap());
        assert!(lo.index > 0);
        // The default picks some interface of the group's family.
        assert!(find_multicast_interface(&group, None).unwrap().address.is_ipv4());
        let err = find_multicast_interface(&group, Some("[::1]")).unwrap_err();
        assert!(err.message().contains("address family"), "{err}");
        let err = find_multicast_interface(&group, Some("203.0.113.77")).unwrap_err();
        assert!(err.message().contains("could not find matching interface"), "{err}");
    }
}
