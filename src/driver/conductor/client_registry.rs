//! The clients the driver knows (`spec/driver.md` §4.5, §6.2): one record per client id,
//! made on the client's first ADD_* command; the publication handles and counters it
//! holds are found through it and only it may drop them; it leaves when its heartbeat is
//! older than the liveness timeout (or it said CLIENT_CLOSE), with everything it held.
#![forbid(unsafe_code)]

use crate::driver::conductor::clients::{AeronClient, CounterLink, PublicationLink};

#[derive(Debug, Default)]
pub(crate) struct ClientRegistry {
    clients: Vec<AeronClient>,
}

impl ClientRegistry {
    pub(crate) fn contains(&self, client_id: i64) -> bool {
        self.clients.iter().any(|c| c.client_id == client_id)
    }

    fn find_mut(&mut self, client_id: i64) -> Option<&mut AeronClient> {
        self.clients.iter_mut().rev().find(|c| c.client_id == client_id)
    }

    /// A client seen for the first time.
    pub(crate) fn add(&mut self, client: AeronClient) {
        self.clients.push(client);
    }

    /// Legacy keepalive: refreshes the heartbeat of a known client.
    pub(crate) fn keepalive(&mut self, client_id: i64, now_ms: i64) {
        if let Some(client) = self.find_mut(client_id) {
            client.heartbeat.set_release(now_ms);
        }
    }

    /// CLIENT_CLOSE: the client ends at the next timer check, without a timeout.
    pub(crate) fn close_by_command(&mut self, client_id: i64) {
        if let Some(client) = self.find_mut(client_id) {
            client.close_by_command();
        }
    }

    /// A publication handle the client now holds.
    pub(crate) fn add_publication_link(&mut self, client_id: i64, link: PublicationLink) {
        if let Some(client) = self.find_mut(client_id) {
            client.publication_links.push(link);
        }
    }

    /// A counter the client added.
    pub(crate) fn add_counter_link(&mut self, client_id: i64, link: CounterLink) {
        if let Some(client) = self.find_mut(client_id) {
            client.counter_links.push(link);
        }
    }

    /// Takes out the client's handle `registration_id`; `None` if the client does not hold it.
    pub(crate) fn take_publication_link(
        &mut self,
        client_id: i64,
        registration_id: i64,
    ) -> Option<PublicationLink> {
        let links = &mut self.find_mut(client_id)?.publication_links;
        let index = links.iter().position(|l| l.registration_id == registration_id)?;
        Some(links.swap_remove(index))
    }

    /// Takes out the client's counter `registration_id`; `None` if the client did not add it.
    pub(crate) fn take_counter_link(&mut self, client_id: i64, registration_id: i64) -> Option<CounterLink> {
        let links = &mut self.find_mut(client_id)?.counter_links;
        let index = links.iter().position(|l| l.registration_id == registration_id)?;
        Some(links.swap_remove(index))
    }

    /// Takes out every client whose heartbeat is older than its liveness timeout, last
    /// registered first.
    pub(crate) fn remove_timed_out(&mut self, now_ms: i64) -> Vec<AeronClient> {
        let mut removed = Vec::new();
        for index in (0..self.clients.len()).rev() {
            if self.clients[index].has_timed_out(now_ms) {
                removed.push(self.clients.swap_remove(index));
            }
        }
        removed
    }

    /// Takes out every client (the driver is closing).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = AeronClient> + '_ {
        self.clients.drain(..)
    }
}
