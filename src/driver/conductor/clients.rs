//! What the driver knows of each client (`spec/driver.md` §4.5, §6.2): its heartbeat
//! counter, the publication handles and counters it holds, how it ended.
#![forbid(unsafe_code)]

use crate::driver::position_counters::Position;

/// A client's handle on a publication: the ADD's correlation id, and the registration id
/// of the publication it shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicationLink {
    pub registration_id: i64,
    pub publication_registration_id: i64,
}

/// A counter a client added (ADD_COUNTER); freed with the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterLink {
    pub registration_id: i64,
    pub counter_id: i32,
}

#[derive(Debug)]
pub struct AeronClient {
    pub client_id: i64,
    pub heartbeat: Position,
    pub client_liveness_timeout_ms: i64,
    pub closed_by_command: bool,
    pub reached_end_of_life: bool,
    pub publication_links: Vec<PublicationLink>,
    pub counter_links: Vec<CounterLink>,
}

impl AeronClient {
    /// A client first seen now: its heartbeat counter starts at `now_ms`.
    pub fn new(client_id: i64, heartbeat: Position, client_liveness_timeout_ms: i64, now_ms: i64) -> Self {
        heartbeat.set_release(now_ms);
        Self {
            client_id,
            heartbeat,
            client_liveness_timeout_ms,
            closed_by_command: false,
            reached_end_of_life: false,
            publication_links: Vec::new(),
            counter_links: Vec::new(),
        }
    }

    /// Dead once its heartbeat (written by the client, or 0 after CLIENT_CLOSE) is older than
    /// the liveness timeout.
    pub fn has_timed_out(&self, now_ms: i64) -> bool {
        now_ms > self.heartbeat.get_acquire() + self.client_liveness_timeout_ms
    }

    /// CLIENT_CLOSE: ends the client at the next timer check without counting a timeout.
    pub fn close_by_command(&mut self) {
        self.closed_by_command = true;
        self.heartbeat.set_release(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    #[test]
    fn liveness_follows_the_heartbeat_counter() {
        let values = AtomicBuffer::alloc(4 * 128);
        let mut client = AeronClient::new(7, Position::new(&values, 2), 10_000, 1_000_000);
        assert_eq!(values.get_i64(256), 1_000_000);
        assert!(!client.has_timed_out(1_010_000));
        assert!(client.has_timed_out(1_010_001));
        values.put_i64_release(256, 1_020_000);
        assert!(!client.has_timed_out(1_025_000));
        client.close_by_command();
        assert!(client.closed_by_command);
        assert!(client.has_timed_out(1_025_000));
    }
}
