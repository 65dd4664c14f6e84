//! Timer work for network publications (`spec/driver.md` §4.2): their state machines, what
//! clients hear about spies, telling the sender to stop, and freeing a publication (log,
//! counters, send endpoint reference) once the sender let go of it.
#![forbid(unsafe_code)]

use crate::driver::agent_proxy::SenderCommand;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::ipc_publication::IPC_CHANNEL;
use crate::driver::conductor::network_publication::NetworkPublicationEvent;
use crate::driver::conductor::subscriber_positions::TetherEvent;
use crate::driver::system_counters::SystemCounterId;

impl Conductor {
    pub(crate) fn check_network_publications(&mut self) {
        for i in (0..self.publications.network_len()).rev() {
            let unblocked = self.system.position(SystemCounterId::UnblockedPublications).clone();
            let mut events = Vec::new();
            self.publications.network_mut(i).on_time_event(self.now_ns, &unblocked, |_, e| events.push(e));
            for event in events {
                self.on_network_publication_event(i, event);
            }
            if let Some(publication) = self.publications.take_released_network(i) {
                self.endpoints.release_send(publication.identity.endpoint_id, self.now_ns);
                self.end_of_life.retire(publication, &mut self.counters, self.now_ms);
            }
        }
    }

    fn on_network_publication_event(&mut self, index: usize, event: NetworkPublicationEvent) {
        let p = self.publications.network(index);
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
                for link in self.subscriptions.spy.iter().filter(|l| spies.contains(&l.registration_id)) {
                    self.proxy.on_unavailable_image(
                        registration_id,
                        link.registration_id,
                        stream_id,
                        &link.channel,
                    );
                }
                let publication = self.publications.network_mut(index);
                publication.spies.free_all(&mut self.counters, self.now_ms);
            }
            NetworkPublicationEvent::Cleanup => {
                self.sender_proxy.send(SenderCommand::RemovePublication { registration_id });
            }
        }
    }
}
