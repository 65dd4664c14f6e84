//! `DestinationTracker`: the receivers a multi-destination-cast send endpoint sends every
//! datagram to (Aeron C `aeron_udp_destination_tracker.c`, Java `DestinationTracker`).
//!
//! * **dynamic** (`control-mode=dynamic`): a receiver becomes a destination when its first
//!   status message reaches the `control` address, at the address it came from, and is
//!   dropped after 5 s without one (`AERON_UDP_DESTINATION_TRACKER_DESTINATION_TIMEOUT_NS`).
//!   Known destinations are matched by receiver id and port, or — before one of theirs
//!   arrived — by address and port.
//! * **manual** (`control-mode=manual`): destinations come and go only by command (by
//!   channel, i.e. address, or by the ADD_DESTINATION's registration id) and never time out.
//!
//! Sends start one destination further each time so no receiver always goes first. The
//! `mdc-num-dest` counter shows the count. Beyond Aeron, forged status messages cannot grow
//! the set without bound: at most [`MAX_DYNAMIC_DESTINATIONS`] receivers are tracked
//! dynamically, since every one of them multiplies what each send costs. Adding allocates
//! only up to that bound; sending never does.
#![forbid(unsafe_code)]

use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::Arc;

use super::udp_channel::same_address;
use super::udp_transport::UdpTransport;
use crate::driver::position_counters::Position;
use crate::util::error::Result;

/// A dynamic destination that has sent nothing for this long is dropped (Aeron: 5 s).
pub const DESTINATION_TIMEOUT_NS: i64 = 5_000_000_000;
/// The most receivers a dynamic endpoint tracks.
pub const MAX_DYNAMIC_DESTINATIONS: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub address: SocketAddr,
    /// Known once a status message from it arrived.
    pub receiver_id: Option<i64>,
    /// The ADD_DESTINATION's correlation id (manual), −1 for discovered ones.
    pub registration_id: i64,
    pub time_of_last_activity_ns: i64,
    /// A manual destination's `endpoint` text: resolved again when it goes quiet.
    pub endpoint_name: Option<Arc<str>>,
}

#[derive(Debug)]
pub struct DestinationTracker {
    is_manual: bool,
    destinations: Vec<Destination>,
    round_robin_index: Cell<usize>,
    /// How many destinations were ever added: publications send SETUP when it moves.
    additions: u64,
    num_destinations: Option<Position>,
}

impl DestinationTracker {
    pub fn new(is_manual: bool, num_destinations: Option<Position>) -> Self {
        let tracker = Self {
            is_manual,
            destinations: Vec::with_capacity(if is_manual { 4 } else { 16 }),
            round_robin_index: Cell::new(0),
            additions: 0,
            num_destinations,
        };
        tracker.publish_count();
        tracker
    }

    /// Shows the count in `counter` (`mdc-num-dest`) from now on.
    pub fn set_num_destinations_counter(&mut self, counter: Position) {
        self.num_destinations = Some(counter);
        self.publish_count();
    }

    pub fn is_manual(&self) -> bool {
        self.is_manual
    }

    pub fn destinations(&self) -> &[Destination] {
        &self.destinations
    }

    pub fn len(&self) -> usize {
        self.destinations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.destinations.is_empty()
    }

    /// How many destinations were ever added.
    pub fn additions(&self) -> u64 {
        self.additions
    }

    fn publish_count(&self) {
        if let Some(counter) = &self.num_destinations {
            // Release: readers of the counter see a count of destinations already in place.
            counter.set_release(self.destinations.len() as i64);
        }
    }

    fn push(&mut self, destination: Destination) {
        self.destinations.push(destination);
        self.additions += 1;
        self.publish_count();
    }

    /// Whether a frame from `source` (with `receiver_id`, if the frame carries one) came
    /// from `destination`.
    fn is_match(destination: &Destination, receiver_id: Option<i64>, source: &SocketAddr) -> bool {
        match (destination.receiver_id, receiver_id) {
            (Some(known), Some(id)) => known == id && destination.address.port() == source.port(),
            _ => same_address(&destination.address, source),
        }
    }

    /// A status message from `source`: refreshes the destination it came from; a dynamic
    /// tracker adds an unknown receiver. Returns `false` when a new receiver was refused
    /// because the dynamic set is full.
    pub fn on_status_message(&mut self, receiver_id: i64, source: SocketAddr, now_ns: i64) -> bool {
        let known = self.destinations.iter_mut().find(|d| Self::is_match(d, Some(receiver_id), &source));
        if let Some(destination) = known {
            destination.receiver_id.get_or_insert(receiver_id);
            destination.time_of_last_activity_ns = now_ns;
            return true;
        }
        if self.is_manual {
            return true;
        }
        if self.destinations.len() >= MAX_DYNAMIC_DESTINATIONS {
            return false;
        }
        self.push(Destination {
            address: source,
            receiver_id: Some(receiver_id),
            registration_id: -1,
            time_of_last_activity_ns: now_ns,
            endpoint_name: None,
        });
        true
    }

    /// A destination added by command (manual mode only; ignored otherwise, as Aeron), at
    /// `address`, what its `endpoint_name` resolved to.
    pub fn add_manual(
        &mut self,
        address: SocketAddr,
        registration_id: i64,
        endpoint_name: Option<Arc<str>>,
        now_ns: i64,
    ) {
        if self.is_manual {
            self.push(Destination {
                address,
                receiver_id: None,
                registration_id,
                time_of_last_activity_ns: now_ns,
                endpoint_name,
            });
        }
    }

    /// Each manual destination quiet for [`DESTINATION_TIMEOUT_NS`] (no status message) is
    /// handed to `re_resolve` with its name and address, and counts as active again, so it
    /// is asked about once per timeout (Aeron's `checkForReResolution`). Allocation-free.
    pub fn check_for_re_resolution(&mut self, now_ns: i64, mut re_resolve: impl FnMut(Arc<str>, SocketAddr)) {
        if !self.is_manual {
            return;
        }
        for destination in &mut self.destinations {
            if let Some(name) = &destination.endpoint_name
                && now_ns > destination.time_of_last_activity_ns + DESTINATION_TIMEOUT_NS
            {
                destination.time_of_last_activity_ns = now_ns;
                re_resolve(Arc::clone(name), destination.address);
            }
        }
    }

    /// Every manual destination named `endpoint_name` goes to `address` from now on; how
    /// many there were.
    pub fn update_address(&mut self, endpoint_name: &str, address: SocketAddr) -> usize {
        let mut updated = 0;
        for destination in &mut self.destinations {
            if destination.endpoint_name.as_deref() == Some(endpoint_name) {
                destination.address = address;
                // A receiver id learnt at the old address belongs to another receiver.
                destination.receiver_id = None;
                updated += 1;
            }
        }
        updated
    }

    /// Removes the destination at `address`; whether there was one.
    pub fn remove_by_address(&mut self, address: &SocketAddr) -> bool {
        self.remove_where(|d| same_address(&d.address, address))
    }

    /// Removes the destination added by ADD_DESTINATION `registration_id`; whether there was one.
    pub fn remove_by_registration_id(&mut self, registration_id: i64) -> bool {
        self.remove_where(|d| d.registration_id == registration_id)
    }

    fn remove_where(&mut self, matches: impl Fn(&Destination) -> bool) -> bool {
        let Some(index) = self.destinations.iter().position(matches) else { return false };
        self.destinations.swap_remove(index);
        self.publish_count();
        true
    }

    /// Drops dynamic destinations silent for [`DESTINATION_TIMEOUT_NS`]; how many went.
    pub fn remove_inactive(&mut self, now_ns: i64) -> usize {
        if self.is_manual {
            return 0;
        }
        let before = self.destinations.len();
        self.destinations.retain(|d| now_ns <= d.time_of_last_activity_ns + DESTINATION_TIMEOUT_NS);
        let removed = before - self.destinations.len();
        if removed > 0 {
            self.publish_count();
        }
        removed
    }

    /// The destination a NAK from `source` came from, so its resend goes only there.
    pub fn find_for_nak(&self, source: &SocketAddr) -> Option<SocketAddr> {
        self.destinations.iter().find(|d| same_address(&d.address, source)).map(|d| d.address)
    }

    /// The registration id of the destination an ERR frame came from (−1 when unknown or
    /// discovered).
    pub fn find_registration_id(&self, receiver_id: i64, source: &SocketAddr) -> i64 {
        self.destinations
            .iter()
            .find(|d| Self::is_match(d, Some(receiver_id), source))
            .map_or(-1, |d| d.registration_id)
    }

    /// Sends `datagrams` to every destination through `transport` (one batch each),
    /// starting one further each call. Returns the fewest datagrams any destination took
    /// (all of them with no destinations).
    pub fn send_batch(&self, transport: &UdpTransport, datagrams: &[&[u8]]) -> Result<usize> {
        let count = self.destinations.len();
        if count == 0 {
            return Ok(datagrams.len());
        }
        let start = self.round_robin_index.get() % count;
        self.round_robin_index.set(start + 1);
        let mut fewest = datagrams.len();
        for k in 0..count {
            let destination = &self.destinations[(start + k) % count];
            fewest = fewest.min(transport.send_batch(datagrams, Some(destination.address))?);
        }
        Ok(fewest)
    }

    /// Sends `datagram` to every destination through `transport`, starting one further
    /// each call. Returns the fewest bytes any destination took (the datagram's length
    /// with no destinations: nothing was held back).
    pub fn send(&self, transport: &UdpTransport, datagram: &[u8]) -> Result<usize> {
        let count = self.destinations.len();
        if count == 0 {
            return Ok(datagram.len());
        }
        let start = self.round_robin_index.get() % count;
        self.round_robin_index.set(start + 1);
        let mut fewest = datagram.len();
        for k in 0..count {
            let destination = &self.destinations[(start + k) % count];
            fewest = fewest.min(transport.send_to(datagram, destination.address)?);
        }
        Ok(fewest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::media::udp_transport::SocketBuffers;

    fn addr(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn quiet_named_manual_destinations_are_re_resolved_once_per_timeout_and_follow_their_name() {
        let mut t = DestinationTracker::new(true, None);
        let name: Arc<str> = Arc::from("server0:4000");
        t.add_manual(addr("10.0.0.2:4000"), 1, Some(Arc::clone(&name)), 0);
        t.add_manual(addr("10.0.0.3:4000"), 2, None, 0);
        let mut asked = Vec::new();
        t.check_for_re_resolution(DESTINATION_TIMEOUT_NS, |n, a| asked.push((n, a)));
        assert!(asked.is_empty(), "not quiet for longer than the timeout yet");
        assert!(t.on_status_message(9, addr("10.0.0.2:4000"), DESTINATION_TIMEOUT_NS));
        t.check_for_re_resolution(DESTINATION_TIMEOUT_NS + 1, |n, a| asked.push((n, a)));
        assert!(asked.is_empty(), "a status message keeps it active");
        let quiet = 2 * DESTINATION_TIMEOUT_NS + 1;
        t.check_for_re_resolution(quiet, |n, a| asked.push((n, a)));
        assert_eq!(asked, vec![(Arc::clone(&name), addr("10.0.0.2:4000"))], "only the named one");
        t.check_for_re_resolution(quiet + 1, |n, a| asked.push((n, a)));
        assert_eq!(asked.len(), 1, "asked once per timeout");

        assert_eq!(t.update_address("server0:4000", addr("10.0.0.4:4000")), 1);
        assert_eq!(t.update_address("other:4000", addr("10.0.0.5:4000")), 0);
        let moved = &t.destinations()[0];
        assert_eq!(
            (moved.address, moved.receiver_id, moved.registration_id),
            (addr("10.0.0.4:4000"), None, 1)
        );
        assert_eq!(t.destinations()[1].address, addr("10.0.0.3:4000"));
        assert_eq!(t.find_for_nak(&addr("10.0.0.4:4000")), Some(addr("10.0.0.4:4000")));
    }

    #[test]
    fn dynamic_receivers_join_by_status_message_and_time_out() {
        let mut t = DestinationTracker::new(false, None);
        assert!(t.on_status_message(7, addr("10.0.0.2:4000"), 0));
        assert!(t.on_status_message(8, addr("10.0.0.3:4000"), 10));
        assert_eq!(t.len(), 2);
        assert_eq!(t.additions(), 2);
        // The same receiver id from the same port is the same destination.
        assert!(t.on_status_message(7, addr("10.0.0.2:4000"), DESTINATION_TIMEOUT_NS));
        assert_eq!(t.len(), 2);
        assert_eq!(t.remove_inactive(DESTINATION_TIMEOUT_NS + 10), 0, "expiry is exclusive");
        assert_eq!(t.remove_inactive(DESTINATION_TIMEOUT_NS + 11), 1);
        assert_eq!(t.destinations()[0].receiver_id, Some(7));
        assert_eq!(t.find_registration_id(7, &addr("10.0.0.2:4000")), -1);
    }

    #[test]
    fn manual_destinations_come_and_go_by_command_only() {
        let mut t = DestinationTracker::new(true, None);
        t.add_manual(addr("10.0.0.2:4000"), 100, None, 0);
        t.add_manual(addr("10.0.0.3:4001"), 101, None, 0);
        assert!(t.on_status_message(5, addr("10.0.0.9:4000"), 1), "unknown receivers are ignored");
        assert_eq!(t.len(), 2);
        // The receiver's status messages give its id to the destination it came from.
        t.on_status_message(5, addr("10.0.0.2:4000"), 2);
        assert_eq!(t.destinations()[0].receiver_id, Some(5));
        assert_eq!(t.find_registration_id(5, &addr("10.0.0.2:4000")), 100);
        assert_eq!(t.remove_inactive(i64::MAX / 2), 0, "manual destinations never time out");
        assert_eq!(t.find_for_nak(&addr("10.0.0.3:4001")), Some(addr("10.0.0.3:4001")));
        assert_eq!(t.find_for_nak(&addr("10.0.0.3:4002")), None);
        assert!(t.remove_by_registration_id(101));
        assert!(!t.remove_by_registration_id(101));
        assert!(t.remove_by_address(&addr("10.0.0.2:4000")));
        assert!(t.is_empty());
        let mut dynamic = DestinationTracker::new(false, None);
        dynamic.add_manual(addr("10.0.0.2:4000"), 1, None, 0);
        assert!(dynamic.is_empty(), "only manual endpoints take destinations by command");
    }

    #[test]
    fn the_dynamic_set_is_bounded() {
        let mut t = DestinationTracker::new(false, None);
        for i in 0..MAX_DYNAMIC_DESTINATIONS {
            assert!(t.on_status_message(
                i as i64,
                SocketAddr::from(([10, 1, (i >> 8) as u8, i as u8], 4000)),
                0
            ));
        }
        assert!(!t.on_status_message(-1, addr("10.9.9.9:4000"), 0));
        assert_eq!(t.len(), MAX_DYNAMIC_DESTINATIONS);
    }

    #[test]
    fn sends_reach_every_destination() {
        let rx: Vec<UdpTransport> = (0..3)
            .map(|_| UdpTransport::bind(addr("127.0.0.1:0"), SocketBuffers::default()).unwrap())
            .collect();
        let tx = UdpTransport::bind(addr("127.0.0.1:0"), SocketBuffers::default()).unwrap();
        let mut t = DestinationTracker::new(true, None);
        assert_eq!(t.send(&tx, b"nobody").unwrap(), 6);
        for (i, r) in rx.iter().enumerate() {
            t.add_manual(r.local_addr(), i as i64, None, 0);
        }
        for _ in 0..4 {
            assert_eq!(t.send(&tx, b"frame").unwrap(), 5);
        }
        let mut buf = [0u8; 16];
        for r in &rx {
            let mut got = 0;
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while got < 4 && std::time::Instant::now() < deadline {
                match r.recv_from(&mut buf).unwrap() {
                    Some((n, _)) => {
                        assert_eq!(&buf[..n], b"frame");
                        got += 1;
                    }
                    None => std::thread::yield_now(),
                }
            }
            assert_eq!(got, 4);
        }
    }
}
