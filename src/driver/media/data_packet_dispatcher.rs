//! `DataPacketDispatcher`: which image a datagram on a receive endpoint is for, and what
//! to do about sessions without one (`spec/wire-protocol.md` §4-5, Aeron C
//! `aeron_data_packet_dispatcher.c`).
//!
//! Per subscribed stream it tracks each session's state: an active image, *pending setup*
//! (data arrived, an SM asking for SETUP went out; expires after 1 s), *init in progress*
//! (a SETUP arrived, the conductor is building the image), or *cool down* (the image went
//! away; cleared at once when the subscription allows rejoin, otherwise the session stays
//! ignored). Images whose subscription went away stop getting data but stay here, still
//! sending status messages, until the conductor removes them.
//!
//! Streams are kept sorted by stream id and each stream's sessions by session id, so the
//! per-datagram look-up is a binary search: a receive endpoint with hundreds of streams pays
//! a handful of comparisons per datagram rather than a walk over all of them, and one with a
//! single stream pays one. Nothing is allocated per packet; a new session (rare, and on the
//! setup path) is inserted in place.
#![forbid(unsafe_code)]

use std::net::IpAddr;

use crate::driver::publication_image::{FrameSource, PublicationImage};

/// A session of a subscribed stream, by state.
pub enum SessionState {
    Active(Box<PublicationImage>),
    PendingSetup { since_ns: i64 },
    InitInProgress,
    CoolDown,
}

pub struct SessionEntry {
    pub session_id: i32,
    pub state: SessionState,
    /// Where the SETUP that is making (or made) the image came from: the per-source limit
    /// counts by its address, and a failed image is explained there.
    pub origin: Option<FrameSource>,
}

/// Interest in one stream id: all sessions, or only some.
pub struct StreamInterest {
    pub stream_id: i32,
    pub is_all_sessions: bool,
    pub subscribed_sessions: Vec<i32>,
    /// Sorted by session id (the look-ups binary-search it).
    sessions: Vec<SessionEntry>,
}

impl StreamInterest {
    fn new(stream_id: i32, is_all_sessions: bool) -> Self {
        Self { stream_id, is_all_sessions, subscribed_sessions: Vec::new(), sessions: Vec::new() }
    }

    /// Whether a new session may get an image.
    pub fn wants_session(&self, session_id: i32) -> bool {
        self.is_all_sessions || self.subscribed_sessions.contains(&session_id)
    }

    pub fn session(&mut self, session_id: i32) -> Option<&mut SessionEntry> {
        let index = self.sessions.binary_search_by_key(&session_id, |s| s.session_id).ok()?;
        self.sessions.get_mut(index)
    }

    pub fn set_state(&mut self, session_id: i32, state: SessionState) {
        match self.sessions.binary_search_by_key(&session_id, |s| s.session_id) {
            Ok(index) => self.sessions[index].state = state,
            Err(index) => self.sessions.insert(index, SessionEntry { session_id, state, origin: None }),
        }
    }

    /// A SETUP from `origin` is having its image built.
    pub fn set_building(&mut self, session_id: i32, origin: FrameSource) {
        self.set_state(session_id, SessionState::InitInProgress);
        if let Some(entry) = self.session(session_id) {
            entry.origin = Some(origin);
        }
    }

    pub fn image_count(&self) -> usize {
        self.sessions.iter().filter(|s| matches!(s.state, SessionState::Active(_))).count()
    }
}

#[derive(Default)]
pub struct DataPacketDispatcher {
    streams: Vec<StreamInterest>,
    /// Images of streams no longer subscribed: no data, but SMs until removed. Boxed because
    /// images move between here and the session states without being copied.
    #[allow(clippy::vec_box)]
    detached: Vec<Box<PublicationImage>>,
}

impl DataPacketDispatcher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn stream(&mut self, stream_id: i32) -> Option<&mut StreamInterest> {
        let index = self.stream_index(stream_id).ok()?;
        self.streams.get_mut(index)
    }

    /// Where `stream_id` is, or where it would go to keep the streams sorted.
    fn stream_index(&self, stream_id: i32) -> std::result::Result<usize, usize> {
        self.streams.binary_search_by_key(&stream_id, |s| s.stream_id)
    }

    pub fn has_subscriptions(&self) -> bool {
        !self.streams.is_empty()
    }

    /// Images this endpoint has or is building, in all and from `source_ip`.
    pub fn image_load(&self, source_ip: IpAddr) -> (usize, usize) {
        let mut all = self.detached.len();
        let mut from_source = 0;
        for entry in self.streams.iter().flat_map(|s| &s.sessions) {
            if matches!(entry.state, SessionState::Active(_) | SessionState::InitInProgress) {
                all += 1;
                from_source += usize::from(entry.origin.is_some_and(|o| o.address.ip() == source_ip));
            }
        }
        (all, from_source)
    }

    /// Subscription to every session of `stream_id` (or only `session_id`).
    pub fn add_subscription(&mut self, stream_id: i32, session_id: Option<i32>) {
        let is_all = session_id.is_none();
        let index = match self.stream_index(stream_id) {
            Ok(index) => index,
            Err(index) => {
                self.streams.insert(index, StreamInterest::new(stream_id, is_all));
                index
            }
        };
        let stream = &mut self.streams[index];
        match session_id {
            None => stream.is_all_sessions = true,
            Some(id) if !stream.subscribed_sessions.contains(&id) => stream.subscribed_sessions.push(id),
            Some(_) => {}
        }
    }

    /// Drops interest; images of sessions no longer wanted are detached.
    pub fn remove_subscription(&mut self, stream_id: i32, session_id: Option<i32>) {
        let Ok(index) = self.stream_index(stream_id) else { return };
        let stream = &mut self.streams[index];
        match session_id {
            None => stream.is_all_sessions = false,
            Some(id) => stream.subscribed_sessions.retain(|&s| s != id),
        }
        let mut kept = Vec::with_capacity(stream.sessions.len());
        for entry in stream.sessions.drain(..) {
            let wanted = stream.is_all_sessions || stream.subscribed_sessions.contains(&entry.session_id);
            match entry.state {
                SessionState::Active(image) if !wanted => self.detached.push(image),
                _ if wanted => kept.push(entry),
                _ => {}
            }
        }
        stream.sessions = kept;
        if !stream.is_all_sessions && stream.subscribed_sessions.is_empty() {
            // Shifting keeps the order the look-ups' binary search needs.
            self.streams.remove(index);
        }
    }

    /// The conductor built the image for a SETUP: it replaces *init in progress*.
    pub fn add_image(&mut self, image: Box<PublicationImage>) {
        let session_id = image.session_id();
        match self.stream(image.stream_id()) {
            Some(stream) if stream.wants_session(session_id) => {
                stream.set_state(session_id, SessionState::Active(image));
            }
            _ => self.detached.push(image),
        }
    }

    /// Removes the image with `correlation_id`; its session cools down.
    pub fn remove_image(&mut self, correlation_id: i64, session_id: i32, stream_id: i32) -> bool {
        if let Some(i) = self.detached.iter().position(|img| img.correlation_id() == correlation_id) {
            self.detached.swap_remove(i);
            return true;
        }
        if let Some(stream) = self.stream(stream_id) {
            if let Some(entry) = stream.session(session_id) {
                if matches!(&entry.state, SessionState::Active(img) if img.correlation_id() == correlation_id)
                {
                    entry.state = SessionState::CoolDown;
                    return true;
                }
            }
        }
        false
    }

    /// Clears `session_id`'s state if it is `matches`.
    pub fn remove_state(&mut self, session_id: i32, stream_id: i32, matches: impl Fn(&SessionState) -> bool) {
        if let Some(stream) = self.stream(stream_id) {
            stream.sessions.retain(|s| s.session_id != session_id || !matches(&s.state));
        }
    }

    /// Pending setups older than `timeout_ns` expire, so the next data may elicit again.
    pub fn expire_pending_setups(&mut self, now_ns: i64, timeout_ns: i64) {
        for stream in &mut self.streams {
            stream.sessions.retain(
                |s| !matches!(s.state, SessionState::PendingSetup { since_ns } if now_ns > since_ns + timeout_ns),
            );
        }
    }

    /// Every image, subscribed or detached.
    pub fn for_each_image(&mut self, mut f: impl FnMut(&mut PublicationImage)) {
        for stream in &mut self.streams {
            for entry in &mut stream.sessions {
                if let SessionState::Active(image) = &mut entry.state {
                    f(image);
                }
            }
        }
        for image in &mut self.detached {
            f(image);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(d: &mut DataPacketDispatcher, stream_id: i32) -> Vec<(i32, &'static str)> {
        let stream = d.stream(stream_id).unwrap();
        stream
            .sessions
            .iter()
            .map(|s| {
                let name = match s.state {
                    SessionState::Active(_) => "active",
                    SessionState::PendingSetup { .. } => "pending",
                    SessionState::InitInProgress => "init",
                    SessionState::CoolDown => "cool",
                };
                (s.session_id, name)
            })
            .collect()
    }

    #[test]
    fn interest_by_stream_and_session() {
        let mut d = DataPacketDispatcher::new();
        assert!(!d.has_subscriptions());
        d.add_subscription(10, Some(5));
        assert!(d.stream(10).unwrap().wants_session(5));
        assert!(!d.stream(10).unwrap().wants_session(6));
        d.add_subscription(10, None);
        assert!(d.stream(10).unwrap().wants_session(6));
        d.remove_subscription(10, None);
        assert!(d.stream(10).unwrap().wants_session(5), "the session subscription remains");
        assert!(!d.stream(10).unwrap().wants_session(6));
        d.remove_subscription(10, Some(5));
        assert!(d.stream(10).is_none());
        d.remove_subscription(99, None);
    }

    #[test]
    fn session_states_expire_and_clear() {
        let mut d = DataPacketDispatcher::new();
        d.add_subscription(10, None);
        let s = d.stream(10).unwrap();
        s.set_state(1, SessionState::PendingSetup { since_ns: 100 });
        s.set_state(2, SessionState::InitInProgress);
        s.set_state(3, SessionState::CoolDown);
        d.expire_pending_setups(100 + 1_000_000_000, 1_000_000_000);
        assert_eq!(states(&mut d, 10), vec![(1, "pending"), (2, "init"), (3, "cool")]);
        d.expire_pending_setups(101 + 1_000_000_000, 1_000_000_000);
        assert_eq!(states(&mut d, 10), vec![(2, "init"), (3, "cool")]);
        d.remove_state(3, 10, |s| matches!(s, SessionState::InitInProgress));
        assert_eq!(states(&mut d, 10), vec![(2, "init"), (3, "cool")], "state must match");
        d.remove_state(3, 10, |s| matches!(s, SessionState::CoolDown));
        assert_eq!(states(&mut d, 10), vec![(2, "init")]);
        assert!(!d.remove_image(77, 2, 10));
    }

    #[test]
    fn many_streams_and_sessions_in_any_order_are_found() {
        let mut d = DataPacketDispatcher::new();
        // Stream ids added out of order, negative ones included.
        let ids: Vec<i32> = (0..300).map(|i| (i * 7919) % 601 - 300).collect();
        for &id in &ids {
            d.add_subscription(id, None);
        }
        for &id in &ids {
            assert_eq!(d.stream(id).map(|s| s.stream_id), Some(id));
        }
        assert!(d.stream(301).is_none());
        let s = d.stream(ids[0]).unwrap();
        for session in [9, -4, 7, 1000, i32::MIN, i32::MAX, 0] {
            s.set_state(session, SessionState::CoolDown);
        }
        s.set_state(7, SessionState::InitInProgress);
        assert_eq!(
            states(&mut d, ids[0]),
            vec![
                (i32::MIN, "cool"),
                (-4, "cool"),
                (0, "cool"),
                (7, "init"),
                (9, "cool"),
                (1000, "cool"),
                (i32::MAX, "cool")
            ]
        );
        for &id in ids.iter().step_by(2) {
            d.remove_subscription(id, None);
        }
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(d.stream(id).is_some(), i % 2 == 1, "stream {id}");
        }
    }
}
