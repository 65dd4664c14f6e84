//! Port managers (Aeron's `aeron_port_manager_t`): the conductor asks one for the address
//! to bind before it opens a transport — the sender's for send channel endpoints (the
//! control group of a multicast channel, else the local control address), the receiver's
//! for receive destinations (the endpoint address) — and frees that address when the
//! endpoint or destination is gone. A port manager supplied in code replaces the built-in
//! wildcard port manager, which hands out ports of `AERON_SENDER_WILDCARD_PORT_RANGE` /
//! `AERON_RECEIVER_WILDCARD_PORT_RANGE` for port 0, as Aeron's does:
//!
//! * a range of `0 0` leaves port 0 to the OS;
//! * an address with a port is used as given, and that port is not handed out while it is
//!   in use;
//! * port 0 gets the next free port of the range, searching from after the last one handed
//!   out and wrapping to the low end; a full range is an error. The sender manages only
//!   channels with an explicit `control` address (a unicast publication's local port stays
//!   the OS's choice).
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use super::udp_channel::UdpChannel;
use crate::driver::network_config::PortRange;
use crate::util::error::{Error, Result};

/// A port manager; called on the conductor's thread only.
pub trait PortManager: Send {
    /// The address to bind for `channel`, which names `bind`.
    fn get_managed_port(&mut self, channel: &UdpChannel, bind: SocketAddr) -> Result<SocketAddr>;
    /// `bind` (an address `get_managed_port` returned) is no longer bound.
    fn free_managed_port(&mut self, bind: SocketAddr);
}

/// Makes the port manager supplied in code for a driver (a context setting, called once
/// when the driver is created).
#[derive(Clone)]
pub struct PortManagerSupplier(pub Arc<dyn Fn() -> Box<dyn PortManager> + Send + Sync>);

impl fmt::Debug for PortManagerSupplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PortManagerSupplier")
    }
}

/// The built-in port manager (see the module notes).
#[derive(Debug)]
pub struct WildcardPortManager {
    range: PortRange,
    is_sender: bool,
    next_port: u16,
    /// Ports in use and how many times each was taken.
    in_use: HashMap<u16, u32>,
}

impl WildcardPortManager {
    pub fn new(range: PortRange, is_sender: bool) -> Self {
        Self { range, is_sender, next_port: range.low, in_use: HashMap::new() }
    }

    fn is_os_wildcard(&self) -> bool {
        self.range.low == 0 && self.range.high == 0
    }

    fn is_free(&self, port: u16) -> bool {
        port != 0 && !self.in_use.contains_key(&port)
    }

    /// The next free port from `next_port` to the top, then from the bottom.
    fn find_open_port(&self) -> Option<u16> {
        let PortRange { low, high } = self.range;
        (self.next_port.max(low)..=high).chain(low..=self.next_port.min(high)).find(|&p| self.is_free(p))
    }

    fn allocate_open_port(&mut self) -> Result<u16> {
        let port = self.find_open_port().ok_or_else(|| {
            Error::invalid_argument(format!(
                "no available ports in range {} {}",
                self.range.low, self.range.high
            ))
        })?;
        self.next_port = if port >= self.range.high { self.range.low } else { port + 1 };
        *self.in_use.entry(port).or_insert(0) += 1;
        Ok(port)
    }
}

impl PortManager for WildcardPortManager {
    fn get_managed_port(&mut self, channel: &UdpChannel, bind: SocketAddr) -> Result<SocketAddr> {
        if bind.port() != 0 {
            *self.in_use.entry(bind.port()).or_insert(0) += 1;
            return Ok(bind);
        }
        if self.is_os_wildcard() || (self.is_sender && !channel.has_explicit_control) {
            return Ok(bind);
        }
        let mut managed = bind;
        managed.set_port(self.allocate_open_port()?);
        Ok(managed)
    }

    fn free_managed_port(&mut self, bind: SocketAddr) {
        // As Aeron: the port is free again, however many times it was taken.
        self.in_use.remove(&bind.port());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn hands_out_the_range_round_robin_and_reuses_freed_ports() {
        let channel = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:0").unwrap();
        let mut m = WildcardPortManager::new(PortRange { low: 4000, high: 4002 }, false);
        let get = |m: &mut WildcardPortManager| m.get_managed_port(&channel, addr("127.0.0.1:0"));
        assert_eq!(get(&mut m).unwrap(), addr("127.0.0.1:4000"));
        assert_eq!(get(&mut m).unwrap(), addr("127.0.0.1:4001"));
        // A port given explicitly is not handed out while in use.
        assert_eq!(m.get_managed_port(&channel, addr("127.0.0.1:4002")).unwrap(), addr("127.0.0.1:4002"));
        let err = get(&mut m).unwrap_err();
        assert!(err.message().contains("no available ports in range 4000 4002"), "{err}");
        m.free_managed_port(addr("127.0.0.1:4001"));
        assert_eq!(get(&mut m).unwrap(), addr("127.0.0.1:4001"));
        m.free_managed_port(addr("127.0.0.1:4000"));
        m.free_managed_port(addr("127.0.0.1:4002"));
        // After 4001 the search goes on from 4002, then wraps to 4000.
        assert_eq!(get(&mut m).unwrap(), addr("127.0.0.1:4002"));
        assert_eq!(get(&mut m).unwrap(), addr("127.0.0.1:4000"));
    }

    #[test]
    fn os_wildcard_and_sender_channels_without_control_keep_port_zero() {
        let unicast = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:5000").unwrap();
        let dynamic = UdpChannel::parse("aeron:udp?control=127.0.0.1:0|control-mode=dynamic").unwrap();
        let mut os = WildcardPortManager::new(PortRange::default(), false);
        assert_eq!(os.get_managed_port(&unicast, addr("0.0.0.0:0")).unwrap(), addr("0.0.0.0:0"));
        let mut sender = WildcardPortManager::new(PortRange { low: 6000, high: 6000 }, true);
        assert_eq!(sender.get_managed_port(&unicast, addr("0.0.0.0:0")).unwrap(), addr("0.0.0.0:0"));
        assert_eq!(sender.get_managed_port(&dynamic, addr("127.0.0.1:0")).unwrap(), addr("127.0.0.1:6000"));
    }
}
