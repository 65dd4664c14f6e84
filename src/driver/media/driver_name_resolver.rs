//! The driver name resolver (`AERON_NAME_RESOLVER_SUPPLIER=driver`, or any driver given a
//! `AERON_DRIVER_RESOLVER_INTERFACE`): drivers tell each other their names over UDP in RES
//! frames (`spec/wire-protocol.md` §10, Aeron C `aeron_driver_name_resolver.c`, Java
//! `DriverNameResolver`), so a channel can name a driver (`endpoint=node-b:20121`) instead
//! of its host.
//!
//! * Its socket is bound to `AERON_DRIVER_RESOLVER_INTERFACE` (`host[:port][/prefix]`,
//!   matched to a local interface as a channel's `interface` is).
//! * Every second it sends its *self* entry (its name, bound address and port, the self
//!   flag) to each neighbour and to the bootstrap neighbour
//!   (`AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR`, a comma-separated list of `host:port`, the
//!   first that resolves is used, resolved again every 10 s) unless it is a neighbour.
//! * Every two seconds it sends every cached entry, with its age, to each neighbour.
//! * Every entry heard is cached by name and address type, aged by what the sender said,
//!   and its address becomes a neighbour; entries and neighbours not heard of for 10 s are
//!   dropped. A self entry with a wildcard address stands for the datagram's source.
//! * `resolve` answers from the cache, its own name with its own address, anything else
//!   as the default resolver does.
//!
//! Counters: `Resolver neighbors: bound <addr>[ bootstrap <addr>]` (type 15) and
//! `Resolver cache entries: name=<name>` (type 16).
//!
//! Bounded under hostile input (beyond Aeron, which grows without limit): at most
//! [`MAX_CACHE_ENTRIES`] cache entries and [`MAX_NEIGHBORS`] neighbours, names of at most
//! [`MAX_RESOLUTION_NAME_LENGTH`] bytes. A forged RES flood can then hold at most about
//! 1024 × 512 bytes of names, and the periodic gossip at most 1024 entries per neighbour
//! to 1024 neighbours; entries beyond the caps are dropped and counted as invalid packets.
//!
//! The conductor calls [`NameResolver::do_work`] every duty cycle; the work itself runs
//! every 10 ms, as Aeron's.
#![forbid(unsafe_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use super::interface_address::find_unicast_interface;
use super::name_resolver::{DefaultNameResolver, NameResolver, resolve_host_and_port_with};
use super::socket_address::format_source_identity;
use super::udp_transport::{SocketBuffers, UdpTransport};
use crate::concurrent::counters::CountersManager;
use crate::concurrent::counters::descriptor::{metadata_offset, store_label};
use crate::concurrent::counters::type_ids::{
    NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID, NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID,
};
use crate::concurrent::error_log::DistinctErrorLog;
use crate::driver::position_counters::{Position, free_counter};
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::protocol::header::{FRAME_HEADER_LENGTH, FrameHeader, HDR_TYPE_RES};
use crate::protocol::resolution::{
    MAX_RESOLUTION_NAME_LENGTH, RES_SELF_FLAG, ResolutionEntry, ResolutionFlyweight, encode_resolution_frame,
};
use crate::util::error::{Error, Result};

/// How often the resolver works (ms).
pub const DUTY_CYCLE_MS: i64 = 10;
/// How often the self entry is sent.
pub const SELF_RESOLUTION_INTERVAL_MS: i64 = 1_000;
/// How often the cache is sent to the neighbours.
pub const NEIGHBOR_RESOLUTION_INTERVAL_MS: i64 = 2_000;
/// Entries and neighbours not heard of for this long are dropped; the bootstrap
/// neighbour is resolved again this often.
pub const TIMEOUT_MS: i64 = 10_000;
/// Most bootstrap neighbours in the list (Aeron's limit).
pub const MAX_BOOTSTRAP_NEIGHBORS: usize = 20;
/// Most cached entries (aeronrs bound, see the module notes).
pub const MAX_CACHE_ENTRIES: usize = 1024;
/// Most neighbours (aeronrs bound).
pub const MAX_NEIGHBORS: usize = 1024;
/// Datagrams read per work cycle.
const DATAGRAMS_PER_POLL: usize = 16;
/// Largest UDP payload (receive buffer).
const MAX_UDP_PAYLOAD_LENGTH: usize = 65_504;

/// What the resolver is made from.
pub struct DriverNameResolverParams<'a> {
    pub name: &'a str,
    pub interface: &'a str,
    pub bootstrap_neighbor: Option<&'a str>,
    /// Largest RES frame sent (the driver's MTU).
    pub mtu_length: usize,
    pub buffers: SocketBuffers,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CacheEntry {
    name: Vec<u8>,
    address: IpAddr,
    port: u16,
    time_of_last_activity_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Neighbor {
    address: SocketAddr,
    time_of_last_activity_ms: i64,
}

pub struct DriverNameResolver {
    name: String,
    transport: UdpTransport,
    local_address: SocketAddr,
    bootstrap_neighbors: Vec<String>,
    bootstrap_address: Option<SocketAddr>,
    cache: Vec<CacheEntry>,
    neighbors: Vec<Neighbor>,
    work_deadline_ms: i64,
    self_resolutions_deadline_ms: i64,
    neighbor_resolutions_deadline_ms: i64,
    bootstrap_resolve_deadline_ms: i64,
    mtu_length: usize,
    counters: SystemCounters,
    error_log: Arc<DistinctErrorLog>,
    neighbors_counter: Position,
    cache_entries_counter: Position,
    /// Relabels the neighbours counter when the bootstrap address moves.
    relabel: Box<dyn FnMut(&str) + Send>,
    buffer: Vec<u8>,
}

fn is_wildcard(address: &IpAddr) -> bool {
    address.is_unspecified()
}

impl DriverNameResolver {
    /// Binds the socket, resolves the bootstrap neighbour and allocates the counters.
    pub fn new(
        params: &DriverNameResolverParams<'_>,
        counters_manager: &mut CountersManager,
        counters: SystemCounters,
        error_log: Arc<DistinctErrorLog>,
        now_ms: i64,
    ) -> Result<Self> {
        if params.name.is_empty() {
            return Err(Error::invalid_argument(
                "`resolverName` is required when `resolverInterface` is set (AERON_DRIVER_RESOLVER_NAME)",
            ));
        }
        if params.name.len() > MAX_RESOLUTION_NAME_LENGTH {
            return Err(Error::invalid_argument(format!(
                "AERON_DRIVER_RESOLVER_NAME is {} bytes, at most {MAX_RESOLUTION_NAME_LENGTH}",
                params.name.len()
            )));
        }
        let context = |e: Error| {
            e.context(format_args!(
                "resolver, name={} interface_name={} bootstrap_neighbor={}",
                params.name,
                params.interface,
                params.bootstrap_neighbor.unwrap_or("(null)")
            ))
        };
        let any_v4 = SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0));
        let local = find_unicast_interface(&any_v4, Some(params.interface)).map_err(context)?;
        let bootstrap_neighbors: Vec<String> = match params.bootstrap_neighbor {
            Some(list) => list.split(',').map(str::to_string).collect(),
            None => Vec::new(),
        };
        if bootstrap_neighbors.len() > MAX_BOOTSTRAP_NEIGHBORS {
            return Err(Error::invalid_argument(format!(
                "AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR: {} neighbours, at most {MAX_BOOTSTRAP_NEIGHBORS}",
                bootstrap_neighbors.len()
            )));
        }
        let bootstrap_address = if bootstrap_neighbors.is_empty() {
            None
        } else {
            Some(resolve_bootstrap(&bootstrap_neighbors).map_err(context)?)
        };
        let transport = UdpTransport::bind(local.address, params.buffers).map_err(context)?;
        let local_address = transport.local_addr();
        let label = neighbors_label(&local_address, bootstrap_address.as_ref());
        let neighbors_id =
            counters_manager.allocate(NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID, &[], &label, now_ms)?;
        let cache_label = format!("Resolver cache entries: name={}", params.name);
        let cache_id = match counters_manager.allocate(
            NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID,
            &[],
            &cache_label,
            now_ms,
        ) {
            Ok(id) => id,
            Err(e) => {
                free_counter(counters_manager, neighbors_id, now_ms);
                return Err(e);
            }
        };
        let values = counters_manager.reader().values_buffer().clone();
        let labels = counters_manager.reader().metadata_buffer().clone();
        // The counter stays allocated while the driver runs: its record is ours to relabel.
        let relabel = Box::new(move |label: &str| {
            store_label(&labels, metadata_offset(neighbors_id), label.as_bytes());
        });
        Ok(Self {
            name: params.name.to_string(),
            transport,
            local_address,
            bootstrap_neighbors,
            bootstrap_address,
            cache: Vec::new(),
            neighbors: Vec::new(),
            work_deadline_ms: 0,
            self_resolutions_deadline_ms: 0,
            neighbor_resolutions_deadline_ms: now_ms + NEIGHBOR_RESOLUTION_INTERVAL_MS,
            bootstrap_resolve_deadline_ms: now_ms + TIMEOUT_MS,
            mtu_length: params.mtu_length.max(FRAME_HEADER_LENGTH + 64),
            counters,
            error_log,
            neighbors_counter: Position::new(&values, neighbors_id),
            cache_entries_counter: Position::new(&values, cache_id),
            relabel,
            buffer: vec![0u8; MAX_UDP_PAYLOAD_LENGTH],
        })
    }

    /// The address the resolver's socket is bound to.
    pub fn local_address(&self) -> SocketAddr {
        self.local_address
    }

    pub fn neighbor_count(&self) -> usize {
        self.neighbors.len()
    }

    pub fn cache_entry_count(&self) -> usize {
        self.cache.len()
    }

    fn log(&self, error: &Error, now_ms: i64) {
        if self.error_log.record(now_ms, error.code(), &error.to_string()).is_err() {
            eprintln!("unrecordable error {error}");
        }
        self.counters.increment(SystemCounterId::Errors);
    }

    /// Handles one received datagram.
    fn on_datagram(&mut self, length: usize, source: SocketAddr, now_ms: i64) {
        let datagram = &self.buffer[..length];
        let valid = FrameHeader::parse(datagram).is_ok_and(|h| h.frame_type() == HDR_TYPE_RES);
        let Some(frame) = valid.then(|| ResolutionFlyweight::parse(datagram).ok()).flatten() else {
            self.counters.increment(SystemCounterId::InvalidPackets);
            return;
        };
        let entries: Vec<(Vec<u8>, IpAddr, u16, i32, bool)> = frame
            .entries()
            .map(|e| (e.name().to_vec(), e.address(), e.udp_port(), e.age_in_ms(), e.is_self()))
            .collect();
        for (name, mut address, mut port, age_in_ms, is_self) in entries {
            if is_self && is_wildcard(&address) {
                address = source.ip();
                port = source.port();
            }
            if port == self.local_address.port() && name == self.name.as_bytes() {
                continue; // our own entry, gossiped back
            }
            if name.len() > MAX_RESOLUTION_NAME_LENGTH {
                self.counters.increment(SystemCounterId::InvalidPackets);
                continue;
            }
            let time_of_last_activity_ms = now_ms - i64::from(age_in_ms);
            if !self.cache_add_or_update(name, address, port, time_of_last_activity_ms)
                || !self.add_neighbor(SocketAddr::new(address, port), is_self, time_of_last_activity_ms)
            {
                self.counters.increment(SystemCounterId::InvalidPackets);
            }
        }
    }

    /// False when the entry is new and the cache is full.
    fn cache_add_or_update(&mut self, name: Vec<u8>, address: IpAddr, port: u16, time_ms: i64) -> bool {
        let full = self.cache.len() >= MAX_CACHE_ENTRIES;
        let same_type = |e: &CacheEntry| e.address.is_ipv4() == address.is_ipv4();
        match self.cache.iter_mut().find(|e| e.name == name && same_type(e)) {
            Some(entry) => {
                entry.address = address;
                entry.port = port;
                entry.time_of_last_activity_ms = time_ms;
            }
            None if full => return false,
            None => {
                self.cache.push(CacheEntry { name, address, port, time_of_last_activity_ms: time_ms });
                // Release: the count is a statistic readers may poll from other processes.
                self.cache_entries_counter.set_release(self.cache.len() as i64);
            }
        }
        true
    }

    /// False when the neighbour is new and the set is full.
    fn add_neighbor(&mut self, address: SocketAddr, is_self: bool, time_ms: i64) -> bool {
        let full = self.neighbors.len() >= MAX_NEIGHBORS;
        match self.neighbors.iter_mut().find(|n| n.address == address) {
            Some(neighbor) => {
                if is_self {
                    neighbor.time_of_last_activity_ms = time_ms;
                }
            }
            None if full => return false,
            None => {
                self.neighbors.push(Neighbor { address, time_of_last_activity_ms: time_ms });
                // Release: as the cache count.
                self.neighbors_counter.set_release(self.neighbors.len() as i64);
            }
        }
        true
    }

    fn poll(&mut self, now_ms: i64) -> i32 {
        let mut work = 0;
        for _ in 0..DATAGRAMS_PER_POLL {
            match self.transport.recv_from(&mut self.buffer) {
                Ok(Some((length, source))) => {
                    self.on_datagram(length, source, now_ms);
                    work += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    self.log(
                        &e.context(format_args!("Failed to poll in driver name resolver: {}", self.name)),
                        now_ms,
                    );
                    break;
                }
            }
        }
        work
    }

    fn timeout_old_entries(&mut self, now_ms: i64) -> i32 {
        let (cache_before, neighbors_before) = (self.cache.len(), self.neighbors.len());
        self.cache.retain(|e| e.time_of_last_activity_ms + TIMEOUT_MS > now_ms);
        self.neighbors.retain(|n| n.time_of_last_activity_ms + TIMEOUT_MS > now_ms);
        if self.cache.len() != cache_before {
            self.cache_entries_counter.set_release(self.cache.len() as i64);
        }
        if self.neighbors.len() != neighbors_before {
            self.neighbors_counter.set_release(self.neighbors.len() as i64);
        }
        (cache_before - self.cache.len() + neighbors_before - self.neighbors.len()) as i32
    }

    fn send(&self, frame: &[u8], to: SocketAddr, now_ms: i64, what: &str) -> bool {
        match self.transport.send_to(frame, to) {
            Ok(sent) => {
                if sent < frame.len() {
                    self.counters.increment(SystemCounterId::ShortSends);
                }
                true
            }
            Err(e) => {
                let to = format_source_identity(&to);
                self.log(
                    &e.context(format_args!("Failed to send {what} resolutions to neighbor: {to}")),
                    now_ms,
                );
                false
            }
        }
    }

    fn send_self_resolutions(&mut self, now_ms: i64) -> i32 {
        if self.bootstrap_neighbors.is_empty() && self.neighbors.is_empty() {
            return 0;
        }
        let entry = ResolutionEntry {
            flags: RES_SELF_FLAG,
            udp_port: self.local_address.port(),
            age_in_ms: 0,
            address: self.local_address.ip(),
            name: self.name.as_bytes(),
        };
        let mut frame = [0u8; FRAME_HEADER_LENGTH + MAX_RESOLUTION_NAME_LENGTH + 32];
        let Ok(length) = encode_resolution_frame(&[entry], &mut frame) else { return 0 };
        let frame = &frame[..length];
        let mut work = 0;
        for neighbor in &self.neighbors {
            work += i32::from(self.send(frame, neighbor.address, now_ms, "self"));
        }
        if self.bootstrap_neighbors.is_empty() {
            return work;
        }
        if now_ms > self.bootstrap_resolve_deadline_ms {
            match resolve_bootstrap(&self.bootstrap_neighbors) {
                Ok(address) => {
                    self.bootstrap_resolve_deadline_ms = now_ms + TIMEOUT_MS;
                    if Some(address) != self.bootstrap_address {
                        self.bootstrap_address = Some(address);
                        (self.relabel)(&neighbors_label(&self.local_address, Some(&address)));
                    }
                }
                Err(e) => {
                    self.log(&e.context("failed to resolve bootstrap neighbor"), now_ms);
                    return work;
                }
            }
        }
        if let Some(bootstrap) = self.bootstrap_address
            && !self.neighbors.iter().any(|n| n.address == bootstrap)
        {
            work += i32::from(self.send(frame, bootstrap, now_ms, "bootstrap"));
        }
        work
    }

    fn send_neighbor_resolutions(&mut self, now_ms: i64) -> i32 {
        let mut work = 0;
        let mut frame = vec![0u8; self.mtu_length];
        let mut start = 0;
        while start < self.cache.len() {
            let mut entries = Vec::new();
            let mut length = FRAME_HEADER_LENGTH;
            for e in &self.cache[start..] {
                let entry = ResolutionEntry {
                    flags: 0,
                    udp_port: e.port,
                    age_in_ms: (now_ms - e.time_of_last_activity_ms).clamp(0, i64::from(i32::MAX)) as i32,
                    address: e.address,
                    name: &e.name,
                };
                if length + entry.encoded_length() > self.mtu_length && !entries.is_empty() {
                    break;
                }
                length += entry.encoded_length();
                entries.push(entry);
            }
            start += entries.len();
            let Ok(length) = encode_resolution_frame(&entries, &mut frame) else { break };
            for neighbor in &self.neighbors {
                work += i32::from(self.send(&frame[..length], neighbor.address, now_ms, "neighbor"));
            }
        }
        work
    }
}

/// The first of `neighbors` that resolves (`bootstrap_neighbor` in errors).
fn resolve_bootstrap(neighbors: &[String]) -> Result<SocketAddr> {
    let mut last = None;
    for neighbor in neighbors {
        match resolve_host_and_port_with(&mut DefaultNameResolver, "bootstrap_neighbor", neighbor, false) {
            Ok(address) => return Ok(address),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::invalid_argument("no bootstrap neighbor")))
}

fn neighbors_label(local: &SocketAddr, bootstrap: Option<&SocketAddr>) -> String {
    let mut label = format!("Resolver neighbors: bound {}", format_source_identity(local));
    if let Some(bootstrap) = bootstrap {
        label.push_str(&format!(" bootstrap {}", format_source_identity(bootstrap)));
    }
    label
}

impl NameResolver for DriverNameResolver {
    fn lookup(&mut self, _name: &str, _uri_param_name: &str, _is_re_lookup: bool) -> Result<Option<String>> {
        Ok(None)
    }

    fn resolve(
        &mut self,
        host: &str,
        uri_param_name: &str,
        is_re_resolution: bool,
        ipv6: bool,
    ) -> Result<IpAddr> {
        let cached = self.cache.iter().find(|e| e.name == host.as_bytes() && e.address.is_ipv6() == ipv6);
        match cached {
            Some(entry) => Ok(entry.address),
            None if host == self.name => Ok(self.local_address.ip()),
            None => DefaultNameResolver.resolve(host, uri_param_name, is_re_resolution, ipv6),
        }
    }

    fn do_work(&mut self, now_ms: i64) -> Result<i32> {
        if now_ms <= self.work_deadline_ms {
            return Ok(0);
        }
        let mut work = self.poll(now_ms);
        work += self.timeout_old_entries(now_ms);
        if now_ms > self.self_resolutions_deadline_ms {
            work += self.send_self_resolutions(now_ms);
            self.self_resolutions_deadline_ms = now_ms + SELF_RESOLUTION_INTERVAL_MS;
        }
        if now_ms > self.neighbor_resolutions_deadline_ms {
            work += self.send_neighbor_resolutions(now_ms);
            self.neighbor_resolutions_deadline_ms = now_ms + NEIGHBOR_RESOLUTION_INTERVAL_MS;
        }
        self.work_deadline_ms = now_ms + DUTY_CYCLE_MS;
        Ok(work)
    }
}

#[cfg(test)]
#[path = "driver_name_resolver_tests.rs"]
mod tests;
