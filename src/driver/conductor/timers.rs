//! What the conductor does every timer interval (`spec/driver.md` §3 step 2, §4-6): driver
//! heartbeat, client liveness, publication life cycles, blocked command buffer; plus
//! freeing the logs of ended publications and the final clean-up at shutdown.
#![forbid(unsafe_code)]

use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::driver::conductor::{Conductor, EndOfLifeLog};
use crate::driver::position_counters::free_counter;
use crate::driver::system_counters::SystemCounterId;

impl Conductor {
    pub(crate) fn on_timer(&mut self, to_driver: &ManyToOneRingBuffer) {
        // Clients read the driver's liveness from here (`spec/cnc.md` §6).
        to_driver.set_consumer_heartbeat_time(self.now_ms);
        self.check_clients();
        self.check_ipc_publications();
        self.check_network_publications();
        self.check_images();
        self.close_unused_send_endpoints();
        self.close_unused_receive_endpoints();
        self.check_for_blocked_commands(to_driver);
    }

    /// Removes clients whose heartbeat is older than the liveness timeout, with everything
    /// they held (`spec/driver.md` §6.2).
    fn check_clients(&mut self) {
        let mut i = self.clients.len();
        while i > 0 {
            i -= 1;
            if !self.clients[i].has_timed_out(self.now_ms) {
                continue;
            }
            let client = self.clients.swap_remove(i);
            if !client.closed_by_command {
                self.system.increment(SystemCounterId::ClientTimeouts);
                self.proxy.on_client_timeout(client.client_id);
            }
            self.proxy.on_unavailable_counter(client.client_id, client.heartbeat.counter_id());
            for link in &client.publication_links {
                self.release_publication(link.publication_registration_id);
            }
            for link in &client.counter_links {
                self.proxy.on_unavailable_counter(link.registration_id, link.counter_id);
                free_counter(&mut self.counters, link.counter_id, self.now_ms);
            }
            while let Some(index) =
                self.ipc_subscriptions.iter().position(|l| l.client_id == client.client_id)
            {
                let link = self.ipc_subscriptions.swap_remove(index);
                self.unlink_subscription(&link);
            }
            self.remove_client_network_subscriptions(client.client_id);
            free_counter(&mut self.counters, client.heartbeat.counter_id(), self.now_ms);
        }
    }

    fn check_ipc_publications(&mut self) {
        let mut i = self.ipc_publications.len();
        while i > 0 {
            i -= 1;
            let unblocked = self.system.position(SystemCounterId::UnblockedPublications);
            self.ipc_publications[i].on_time_event(self.now_ns, &mut self.proxy, unblocked);
            if self.ipc_publications[i].has_reached_end_of_life() {
                let mut publication = self.ipc_publications.swap_remove(i);
                let registration_id = publication.registration_id();
                for link in &mut self.ipc_subscriptions {
                    link.linked_publications.retain(|&id| id != registration_id);
                }
                publication.free_counters(&mut self.counters, self.now_ms);
                let length = publication.log.buffer().capacity();
                self.end_of_life.push_back(EndOfLifeLog {
                    path: publication.log_file_name.clone().into(),
                    log: Some(publication.log),
                    length,
                });
            }
        }
    }

    /// A client that died between claiming and committing a command blocks the buffer;
    /// after the client liveness timeout without progress the claim is padded over
    /// (`spec/driver.md` §5.2, counter 20).
    fn check_for_blocked_commands(&mut self, to_driver: &ManyToOneRingBuffer) {
        let consumer = to_driver.consumer_position();
        if consumer == self.last_command_consumer_position && to_driver.producer_position() > consumer {
            let deadline =
                self.time_of_last_command_position_change_ns + self.ctx.client_liveness_timeout_ns as i64;
            if self.now_ns > deadline && to_driver.unblock() {
                self.system.increment(SystemCounterId::UnblockedCommands);
            }
        } else {
            self.time_of_last_command_position_change_ns = self.now_ns;
            self.last_command_consumer_position = consumer;
        }
    }

    /// Unmaps and deletes up to `resource_free_limit` ended logs; a failed delete counts in
    /// system counter 17 and is retried later.
    pub(crate) fn free_end_of_life_logs(&mut self) -> i32 {
        let mut freed = 0;
        let limit = self.ctx.resource_free_limit as usize;
        for _ in 0..limit.min(self.end_of_life.len()) {
            let Some(mut entry) = self.end_of_life.pop_front() else { break };
            if entry.log.take().is_some() {
                self.add_mapped_bytes(-(entry.length as i64));
            }
            match std::fs::remove_file(&entry.path) {
                Ok(()) => freed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => freed += 1,
                Err(_) => {
                    self.system.increment(SystemCounterId::FreeFails);
                    self.end_of_life.push_back(entry);
                }
            }
        }
        freed
    }

    /// Driver shutdown: frees every counter the conductor allocated and deletes every log.
    pub(crate) fn close_all(&mut self) {
        for mut publication in std::mem::take(&mut self.ipc_publications) {
            publication.free_counters(&mut self.counters, self.now_ms);
            let length = publication.log.buffer().capacity();
            self.end_of_life.push_back(EndOfLifeLog {
                path: publication.log_file_name.clone().into(),
                log: Some(publication.log),
                length,
            });
        }
        self.ipc_subscriptions.clear();
        for mut publication in std::mem::take(&mut self.network_publications) {
            publication.free_counters(&mut self.counters, self.now_ms);
            let length = publication.log.buffer().capacity();
            self.end_of_life.push_back(EndOfLifeLog {
                path: publication.log_file_name.clone().into(),
                log: Some(publication.log),
                length,
            });
        }
        for mut image in std::mem::take(&mut self.images) {
            image.free_counters(&mut self.counters, self.now_ms);
            let length = image.log.buffer().capacity();
            self.end_of_life.push_back(EndOfLifeLog {
                path: image.log_file_name.clone().into(),
                log: Some(image.log),
                length,
            });
        }
        self.network_subscriptions.clear();
        self.spy_subscriptions.clear();
        for endpoint in self.send_endpoints.drain() {
            endpoint.free_counters(&mut self.counters, self.now_ms);
        }
        for endpoint in self.receive_endpoints.drain() {
            endpoint.free_counters(&mut self.counters, self.now_ms);
        }
        for client in std::mem::take(&mut self.clients) {
            for link in &client.counter_links {
                free_counter(&mut self.counters, link.counter_id, self.now_ms);
            }
            free_counter(&mut self.counters, client.heartbeat.counter_id(), self.now_ms);
        }
        let mut attempts = self.end_of_life.len();
        while attempts > 0 && !self.end_of_life.is_empty() {
            self.free_end_of_life_logs();
            attempts -= 1;
        }
        self.flush_proxy_failures();
    }
}
