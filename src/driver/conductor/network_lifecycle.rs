//! Timer work for network publications (`spec/driver.md` §4.2): their state machines, what
//! clients hear about spies, telling the sender to stop, and freeing a publication (log,
//! counters, send endpoint reference) once the sender let go of it.
#![forbid(unsafe_code)]

use crate::driver::agent_proxy::SenderCommand;
use crate::driver::conductor::ipc_publication::IPC_CHANNEL;
use crate::driver::conductor::network_publication::NetworkPublicationEvent;
use crate::driver::conductor::subscriber_positions::TetherEvent;
use crate::driver::conductor::{Conductor, EndOfLifeLog};
use crate::driver::system_counters::SystemCounterId;

impl Conductor {
    pub(crate) fn check_network_publications(&mut self) {
        let mut i = self.network_publications.len();
        while i > 0 {
            i -= 1;
            let unblocked = self.system.position(SystemCounterId::UnblockedPublications).clone();
            let mut events = Vec::new();
            self.network_publications[i].on_time_event(self.now_ns, &unblocked, |_, e| events.push(e));
            for event in events {
                self.on_network_publication_event(i, event);
            }
            if self.network_publications[i].sender_released {
                let mut publication = self.network_publications.swap_remove(i);
                publication.free_counters(&mut self.counters, self.now_ms);
                self.release_send_endpoint(publication.identity.endpoint_id);
                let length = publication.log.buffer().capacity();
                self.end_of_life.push_back(EndOfLifeLog {
                    path: publication.log_file_name.clone().into(),
                    log: Some(publication.log),
                    length,
                });
            }
        }
    }

    fn on_network_publication_event(&mut self, index: usize, event: NetworkPublicationEvent) {
        let p = &self.network_publications[index];
        let (registration_id, session_id, stream_id) = (p.registration_id(), p.session_id(), p.stream_id());
        match event {
            NetworkPublicationEvent::Tether(TetherEvent::Unavailable { subscription_registration_id }) => {
                self.proxy.on_unavailable_image(
                    registration_id,
                    subscription_registration_id,
                    stream_id,
                    IPC_CHANNEL,
                );
            }
            NetworkPublicationEvent::Tether(TetherEvent::Rejoined {
                subscription_registration_id,
                counter_id,
            }) => {
                self.proxy.on_available_image(
                    registration_id,
                    session_id,
                    stream_id,
                    subscription_registration_id,
                    counter_id,
                    &p.log_file_name,
                    IPC_CHANNEL,
                );
            }
            NetworkPublicationEvent::SpiesFinished => {
                let spies: Vec<i64> = p.spies.iter().map(|s| s.subscription_registration_id).collect();
                for link in self.spy_subscriptions.iter().filter(|l| spies.contains(&l.registration_id)) {
                    self.proxy.on_unavailable_image(
                        registration_id,
                        link.registration_id,
                        stream_id,
                        &link.channel,
                    );
                }
                let publication = &mut self.network_publications[index];
                publication.spies.free_all(&mut self.counters, self.now_ms);
            }
            NetworkPublicationEvent::Cleanup => {
                self.sender_proxy.send(SenderCommand::RemovePublication { registration_id });
            }
        }
    }

    /// The sender removed its half of a publication.
    pub(crate) fn on_publication_released(&mut self, registration_id: i64) {
        if let Some(p) = self.network_publications.iter_mut().find(|p| p.registration_id() == registration_id)
        {
            p.sender_released = true;
        }
    }
}
