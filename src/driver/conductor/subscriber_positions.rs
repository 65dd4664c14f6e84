//! The subscriber positions (`sub-pos` counters) that read one network publication (spies)
//! or one publication image, with their tether states (`spec/driver.md` §4.4,
//! `spec/channel-uri.md` §4): resting untethered subscribers do not hold the stream back;
//! and the one way a subscription of any kind is linked to what it reads.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::driver::conductor::client_proxy::ClientProxy;
use crate::driver::conductor::ipc_publication::{SubscriberPosition, TetherState};
use crate::driver::conductor::params::SubscriptionParams;
use crate::driver::position_counters::{Position, allocate_subscriber_position, free_counter};
use crate::util::error::Result;

/// A subscription as the stream sources it reads see it.
pub struct Subscriber<'a> {
    pub registration_id: i64,
    pub client_id: i64,
    pub channel: &'a str,
    pub is_tether: bool,
}

impl<'a> Subscriber<'a> {
    pub fn new(registration_id: i64, client_id: i64, channel: &'a str, params: &SubscriptionParams) -> Self {
        Self { registration_id, client_id, channel, is_tether: params.is_tether }
    }
}

/// What clients are told a stream source is (ON_AVAILABLE_IMAGE), and where a new
/// subscriber joins it.
pub struct SourceStream<'a> {
    /// The source's registration (or correlation) id: the image's id for clients, and the
    /// `sub-pos` counter's reference id.
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub join_position: i64,
    pub log_file_name: &'a str,
    pub source_identity: &'a str,
}

/// What a subscription reads: an IPC publication, a network publication a spy reads, or
/// an image.
pub trait StreamSource {
    fn stream(&self) -> SourceStream<'_>;
    /// Takes a subscriber whose position counter already holds the join position.
    fn add_subscriber_position(&mut self, subscriber: &Subscriber<'_>, position: Position, now_ns: i64);
}

/// Links `subscriber` to `source`: a `sub-pos` counter at the source's join position, then
/// ON_AVAILABLE_IMAGE (`spec/control-protocol.md` §6.4).
pub fn link_subscriber(
    counters: &mut CountersManager,
    proxy: &mut ClientProxy,
    subscriber: &Subscriber<'_>,
    source: &mut impl StreamSource,
    (now_ms, now_ns): (i64, i64),
) -> Result<()> {
    let position = allocate_linked_position(counters, subscriber, &source.stream(), now_ms)?;
    let counter_id = position.counter_id();
    source.add_subscriber_position(subscriber, position, now_ns);
    let stream = source.stream();
    proxy.on_available_image(
        stream.registration_id,
        stream.session_id,
        stream.stream_id,
        subscriber.registration_id,
        counter_id,
        stream.log_file_name,
        stream.source_identity,
    );
    Ok(())
}

/// Allocates the `sub-pos` counter of `subscriber` on `source`, owned by the subscribing
/// client and referring to the source, holding the join position.
fn allocate_linked_position(
    counters: &mut CountersManager,
    subscriber: &Subscriber<'_>,
    source: &SourceStream<'_>,
    now_ms: i64,
) -> Result<Position> {
    let position = allocate_subscriber_position(
        counters,
        subscriber.registration_id,
        source.session_id,
        source.stream_id,
        subscriber.channel,
        source.join_position,
        now_ms,
    )?;
    counters.set_counter_owner_id(position.counter_id(), subscriber.client_id)?;
    counters.set_counter_reference_id(position.counter_id(), source.registration_id)?;
    // Release: a client reading the counter id from the response that follows sees the join
    // position, never the stale value of a reused counter.
    position.set_release(source.join_position);
    Ok(position)
}

/// Something clients must hear about after an untethered subscriber moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TetherEvent {
    /// Fell behind for too long: ON_UNAVAILABLE_IMAGE.
    Unavailable { subscription_registration_id: i64 },
    /// Rested long enough: rejoined at the join position, ON_AVAILABLE_IMAGE.
    Rejoined { subscription_registration_id: i64, counter_id: i32 },
}

/// Untethered timeouts in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UntetheredTimeouts {
    pub window_limit_ns: i64,
    pub resting_ns: i64,
}

#[derive(Debug, Default)]
pub struct SubscriberPositions {
    entries: Vec<SubscriberPosition>,
    resting: usize,
}

impl SubscriberPositions {
    pub fn add(
        &mut self,
        subscription_registration_id: i64,
        position: Position,
        is_tether: bool,
        now_ns: i64,
    ) {
        self.entries.push(SubscriberPosition {
            subscription_registration_id,
            position,
            is_tether,
            state: TetherState::Active,
            time_of_last_update_ns: now_ns,
        });
    }

    /// Unlinks a subscription; its counter is returned for the caller to free.
    pub fn remove(&mut self, subscription_registration_id: i64) -> Option<Position> {
        let index = self
            .entries
            .iter()
            .position(|s| s.subscription_registration_id == subscription_registration_id)?;
        let removed = self.entries.swap_remove(index);
        if removed.state == TetherState::Resting {
            self.resting -= 1;
        }
        Some(removed.position)
    }

    pub fn is_linked(&self, subscription_registration_id: i64) -> bool {
        self.entries.iter().any(|s| s.subscription_registration_id == subscription_registration_id)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &SubscriberPosition> {
        self.entries.iter()
    }

    /// Whether any subscriber's position counts (not resting).
    #[inline]
    pub fn has_working_positions(&self) -> bool {
        self.entries.len() > self.resting
    }

    /// (min, max) of the counting positions, starting from (`min`, `max`).
    #[inline]
    pub fn min_max(&self, mut min: i64, mut max: i64) -> (i64, i64) {
        for s in self.entries.iter().filter(|s| s.state != TetherState::Resting) {
            // Acquire: pairs with the subscriber's release of its position.
            let p = s.position.get_acquire();
            min = min.min(p);
            max = max.max(p);
        }
        (min, max)
    }

    /// Frees every counter (end of life, shutdown).
    pub fn free_all(&mut self, counters: &mut CountersManager, now_ms: i64) {
        for s in self.entries.drain(..) {
            free_counter(counters, s.position.counter_id(), now_ms);
        }
        self.resting = 0;
    }

    /// Moves untethered subscribers through ACTIVE → LINGER → RESTING → ACTIVE: one at or
    /// below `window_limit` for the window-limit timeout lingers, then rests, and after the
    /// resting timeout rejoins at `join_position`. Tethered ones just stay fresh.
    pub fn check_untethered(
        &mut self,
        now_ns: i64,
        window_limit: i64,
        join_position: i64,
        timeouts: UntetheredTimeouts,
        mut on_event: impl FnMut(TetherEvent),
    ) {
        for s in &mut self.entries {
            if s.is_tether {
                s.time_of_last_update_ns = now_ns;
                continue;
            }
            let id = s.subscription_registration_id;
            match s.state {
                TetherState::Active => {
                    if s.position.get_acquire() > window_limit {
                        s.time_of_last_update_ns = now_ns;
                    } else if now_ns > s.time_of_last_update_ns + timeouts.window_limit_ns {
                        on_event(TetherEvent::Unavailable { subscription_registration_id: id });
                        s.state = TetherState::Linger;
                        s.time_of_last_update_ns = now_ns;
                    }
                }
                TetherState::Linger => {
                    if now_ns > s.time_of_last_update_ns + timeouts.window_limit_ns {
                        s.state = TetherState::Resting;
                        s.time_of_last_update_ns = now_ns;
                        self.resting += 1;
                    }
                }
                TetherState::Resting => {
                    if now_ns > s.time_of_last_update_ns + timeouts.resting_ns {
                        s.position.set_release(join_position);
                        on_event(TetherEvent::Rejoined {
                            subscription_registration_id: id,
                            counter_id: s.position.counter_id(),
                        });
                        s.state = TetherState::Active;
                        s.time_of_last_update_ns = now_ns;
                        self.resting -= 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    #[test]
    fn untethered_subscriber_lingers_rests_and_rejoins() {
        let values = AtomicBuffer::alloc(4 * 128);
        let mut subs = SubscriberPositions::default();
        subs.add(1, Position::new(&values, 0), true, 0);
        subs.add(2, Position::new(&values, 1), false, 0);
        values.put_i64(0, 100_000);
        values.put_i64(128, 10);
        assert_eq!(subs.min_max(i64::MAX, 0), (10, 100_000));
        let timeouts = UntetheredTimeouts { window_limit_ns: 50, resting_ns: 80 };
        let mut events = Vec::new();
        subs.check_untethered(40, 1000, 7777, timeouts, |e| events.push(e));
        assert!(events.is_empty(), "not behind long enough yet");
        subs.check_untethered(51, 1000, 7777, timeouts, |e| events.push(e));
        assert_eq!(events, vec![TetherEvent::Unavailable { subscription_registration_id: 2 }]);
        subs.check_untethered(102, 1000, 7777, timeouts, |e| events.push(e));
        assert!(!subs.has_working_positions() || subs.min_max(i64::MAX, 0) == (100_000, 100_000));
        assert_eq!(subs.min_max(i64::MAX, 0), (100_000, 100_000), "resting positions do not count");
        subs.check_untethered(183, 1000, 7777, timeouts, |e| events.push(e));
        assert_eq!(events[1], TetherEvent::Rejoined { subscription_registration_id: 2, counter_id: 1 });
        assert_eq!(values.get_i64(128), 7777);
        assert!(subs.remove(2).is_some() && subs.remove(2).is_none());
        assert!(subs.is_linked(1) && subs.has_working_positions());
    }
}
