//! What the conductor does every timer interval (`spec/driver.md` §3 step 2, §4-6): driver
//! heartbeat, client liveness, publication and image life cycles, unused endpoints, a
//! blocked command buffer; plus the final clean-up at shutdown.
#![forbid(unsafe_code)]

use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::driver::conductor::Conductor;
use crate::driver::position_counters::free_counter;
use crate::driver::system_counters::SystemCounterId;

/// Watches the command buffer for a claim no one commits: a client that died between
/// claiming and committing a command blocks every client behind it.
#[derive(Debug)]
pub(crate) struct CommandBufferWatch {
    last_consumer_position: i64,
    time_of_last_change_ns: i64,
}

impl CommandBufferWatch {
    pub(crate) fn new(consumer_position: i64, now_ns: i64) -> Self {
        Self { last_consumer_position: consumer_position, time_of_last_change_ns: now_ns }
    }

    /// After `timeout_ns` without progress while commands wait, the claim is padded over
    /// (`spec/driver.md` §5.2); true if it was.
    fn unblock_if_stuck(&mut self, to_driver: &ManyToOneRingBuffer, now_ns: i64, timeout_ns: i64) -> bool {
        let consumer = to_driver.consumer_position();
        if consumer == self.last_consumer_position && to_driver.producer_position() > consumer {
            now_ns > self.time_of_last_change_ns + timeout_ns && to_driver.unblock()
        } else {
            self.time_of_last_change_ns = now_ns;
            self.last_consumer_position = consumer;
            false
        }
    }
}

impl Conductor {
    pub(crate) fn on_timer(&mut self, to_driver: &ManyToOneRingBuffer) {
        // Clients read the driver's liveness from here (`spec/cnc.md` §6).
        to_driver.set_consumer_heartbeat_time(self.now_ms);
        self.check_clients();
        self.check_ipc_publications();
        self.check_network_publications();
        self.check_images();
        let interval_ns = self.ctx.timer_interval_ns as i64;
        self.endpoints.close_unused(self.now_ns, interval_ns, &self.sender_proxy, &self.receiver_proxy);
        let timeout_ns = self.ctx.client_liveness_timeout_ns as i64;
        if self.command_watch.unblock_if_stuck(to_driver, self.now_ns, timeout_ns) {
            // Counter 20.
            self.system.increment(SystemCounterId::UnblockedCommands);
        }
    }

    /// Removes clients whose heartbeat is older than the liveness timeout, with everything
    /// they held (`spec/driver.md` §6.2).
    fn check_clients(&mut self) {
        for client in self.clients.remove_timed_out(self.now_ms) {
            if !client.closed_by_command {
                self.system.increment(SystemCounterId::ClientTimeouts);
                self.proxy.on_client_timeout(client.client_id);
            }
            self.proxy.on_unavailable_counter(client.client_id, client.heartbeat.counter_id());
            for link in &client.publication_links {
                self.publications.release(link.publication_registration_id, self.now_ns);
            }
            for link in &client.counter_links {
                self.proxy.on_unavailable_counter(link.registration_id, link.counter_id);
                free_counter(&mut self.counters, link.counter_id, self.now_ms);
            }
            while let Some(link) = self.subscriptions.ipc.take_of_client(client.client_id) {
                self.unlink_ipc_subscription(&link);
            }
            self.remove_client_network_subscriptions(client.client_id);
            free_counter(&mut self.counters, client.heartbeat.counter_id(), self.now_ms);
        }
    }

    fn check_ipc_publications(&mut self) {
        let (subscriptions, end_of_life) = (&mut self.subscriptions, &mut self.end_of_life);
        let (counters, now_ms) = (&mut self.counters, self.now_ms);
        let unblocked = self.system.position(SystemCounterId::UnblockedPublications);
        self.publications.check_ipc(self.now_ns, &mut self.proxy, unblocked, |publication| {
            subscriptions.forget_ipc_publication(publication.registration_id());
            end_of_life.retire(publication, counters, now_ms);
        });
    }

    /// Driver shutdown: frees every counter the conductor allocated and deletes every log.
    pub(crate) fn close_all(&mut self) {
        let (counters, now_ms) = (&mut self.counters, self.now_ms);
        for publication in self.publications.drain_ipc() {
            self.end_of_life.retire(publication, counters, now_ms);
        }
        self.subscriptions.clear();
        for publication in self.publications.drain_network() {
            self.end_of_life.retire(publication, counters, now_ms);
        }
        for image in self.images.drain() {
            self.end_of_life.retire(image, counters, now_ms);
        }
        self.endpoints.close_all(counters, now_ms);
        for client in self.clients.drain() {
            for link in &client.counter_links {
                free_counter(counters, link.counter_id, now_ms);
            }
            free_counter(counters, client.heartbeat.counter_id(), now_ms);
        }
        self.end_of_life.free_all(self.ctx.resource_free_limit as usize, &self.system);
        self.flush_proxy_failures();
    }
}
