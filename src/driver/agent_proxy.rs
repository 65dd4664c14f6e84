//! How the driver's agents hand work to each other (Aeron's sender, receiver and conductor
//! proxies, `spec/driver.md` §1): each agent owns an unbounded command queue and drains a
//! few commands per duty cycle. Commands carry whole objects — the sender's half of a
//! publication, the receiver's half of an image, a bound endpoint — so each is owned by
//! exactly one agent at a time.
//!
//! Commands are rare (resources come and go); the data path never uses these queues. A
//! send only fails once the receiving agent has stopped (driver shutdown), which is counted
//! in the proxy's *Failed offers* system counter (2, 3, 4) and otherwise ignored.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

use crate::driver::media::receive_channel_endpoint::ReceiveChannelEndpoint;
use crate::driver::media::receive_destination::ReceiveDestination;
use crate::driver::media::send_channel_endpoint::SendChannelEndpoint;
use crate::driver::network_publication::NetworkPublication;
use crate::driver::position_counters::Position;
use crate::driver::publication_image::PublicationImage;
use crate::util::error::Error;

/// Commands drained per duty cycle (Aeron `AERON_COMMAND_DRAIN_LIMIT`).
pub const COMMAND_DRAIN_LIMIT: usize = 10;

/// Work for the sender.
pub enum SenderCommand {
    AddEndpoint(Box<SendChannelEndpoint>),
    /// Stop polling the endpoint; answered with [`ConductorCommand::SendEndpointReleased`].
    RemoveEndpoint {
        endpoint_id: i64,
    },
    AddPublication(Box<NetworkPublication>),
    /// A destination of a manual multi-destination endpoint, named by its ADD_DESTINATION.
    AddDestination {
        endpoint_id: i64,
        address: SocketAddr,
        registration_id: i64,
        /// The destination's `endpoint` text, resolved again when it goes quiet.
        endpoint_name: std::sync::Arc<str>,
    },
    RemoveDestination {
        endpoint_id: i64,
        address: SocketAddr,
    },
    RemoveDestinationById {
        endpoint_id: i64,
        registration_id: i64,
    },
    /// Stop sending; answered with [`ConductorCommand::PublicationReleased`].
    RemovePublication {
        registration_id: i64,
    },
    /// `endpoint_name` (the endpoint's own `endpoint`, or a manual destination's) now
    /// resolves to `address`.
    ResolutionChange {
        endpoint_id: i64,
        endpoint_name: std::sync::Arc<str>,
        address: SocketAddr,
    },
}

/// Work for the receiver.
pub enum ReceiverCommand {
    AddEndpoint(Box<ReceiveChannelEndpoint>),
    /// Answered with [`ConductorCommand::ReceiveEndpointReleased`].
    RemoveEndpoint {
        endpoint_id: i64,
    },
    /// Interest in a stream (all sessions, or one when `session_id` is given).
    AddSubscription {
        endpoint_id: i64,
        stream_id: i32,
        session_id: Option<i32>,
    },
    RemoveSubscription {
        endpoint_id: i64,
        stream_id: i32,
        session_id: Option<i32>,
    },
    AddImage {
        endpoint_id: i64,
        image: Box<PublicationImage>,
    },
    /// Answered with [`ConductorCommand::ImageReleased`].
    RemoveImage {
        endpoint_id: i64,
        correlation_id: i64,
        session_id: i32,
        stream_id: i32,
    },
    /// The session may create an image again (rejoin).
    RemoveCoolDown {
        endpoint_id: i64,
        session_id: i32,
        stream_id: i32,
    },
    /// A subscriber rejected the image: drop its data, answer its sender with ERR frames.
    RejectImage {
        endpoint_id: i64,
        correlation_id: i64,
        reason: Vec<u8>,
    },
    /// A receive destination of a multi-destination subscription's endpoint.
    AddDestination {
        endpoint_id: i64,
        destination: Box<ReceiveDestination>,
    },
    /// Answered with [`ConductorCommand::ReceiveDestinationReleased`].
    RemoveDestination {
        endpoint_id: i64,
        canonical_form: String,
    },
    /// Ask the destinations' `control` addresses again for a SETUP of one session (a
    /// response subscription whose request publication heard RSP_SETUP again).
    RequestSetup {
        endpoint_id: i64,
        stream_id: i32,
        session_id: i32,
    },
    /// The `control` name of destination `destination_id` now resolves to `address`.
    ResolutionChange {
        endpoint_id: i64,
        destination_id: i64,
        address: SocketAddr,
    },
    /// The conductor did not create the image a SETUP asked for.
    RemoveInitInProgress {
        endpoint_id: i64,
        session_id: i32,
        stream_id: i32,
        /// Why, when it failed: an Aeron error code and text the sender gets in an ERR frame.
        refusal: Option<(i32, Vec<u8>)>,
    },
}

/// What a SETUP frame told the receiver: the conductor builds an image from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateImageRequest {
    pub endpoint_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub initial_term_id: i32,
    pub active_term_id: i32,
    pub term_offset: i32,
    pub term_length: i32,
    pub mtu_length: i32,
    pub flags: u8,
    /// The receive destination the SETUP came through.
    pub destination_id: i64,
    /// Where SMs and NAKs go: the destination's control address, else the sender's.
    pub control_address: SocketAddr,
    pub source_address: SocketAddr,
}

/// An ERR frame a publication's receiver sent, for ON_PUBLICATION_ERROR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicationErrorReport {
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub receiver_id: i64,
    /// The multi-destination destination it came from, −1 if none.
    pub destination_registration_id: i64,
    pub group_tag: Option<i64>,
    pub source: SocketAddr,
    pub error_code: i32,
    pub message: Vec<u8>,
}

/// Work for the conductor from the sender and receiver.
pub enum ConductorCommand {
    CreateImage(CreateImageRequest),
    PublicationReleased {
        registration_id: i64,
    },
    SendEndpointReleased {
        endpoint_id: i64,
    },
    ImageReleased {
        correlation_id: i64,
    },
    ReceiveEndpointReleased {
        endpoint_id: i64,
    },
    /// The receiver closed a removed destination (or found none with that form).
    ReceiveDestinationReleased {
        endpoint_id: i64,
        destination_id: Option<i64>,
    },
    PublicationError(Box<PublicationErrorReport>),
    /// A request publication heard RSP_SETUP: the response subscription registered as
    /// `response_correlation_id` is to take the session `response_session_id`.
    ResponseSetup {
        response_correlation_id: i64,
        response_session_id: i32,
    },
    /// A response publication has its first receiver: the request image whose correlation
    /// id is `response_correlation_id` stops sending RSP_SETUP.
    ResponseConnected {
        response_correlation_id: i64,
    },
    /// A unicast endpoint's receiver went quiet: resolve `endpoint_name` again and tell
    /// the sender if it no longer resolves to `existing`.
    ReResolveEndpoint {
        endpoint_id: i64,
        endpoint_name: std::sync::Arc<str>,
        existing: SocketAddr,
    },
    /// A receive destination with a `control` address heard nothing for 5 s: resolve
    /// `control_name` again and tell the receiver if it no longer resolves to `existing`.
    ReResolveControl {
        endpoint_id: i64,
        destination_id: i64,
        control_name: std::sync::Arc<str>,
        existing: SocketAddr,
    },
    /// An error in the sender or receiver, for the distinct error log.
    Error(Error),
}

/// The sending side of an agent's command queue.
pub struct Proxy<T> {
    tx: Sender<T>,
    fails: Position,
}

impl<T> Clone for Proxy<T> {
    fn clone(&self) -> Self {
        Self { tx: self.tx.clone(), fails: self.fails.clone() }
    }
}

impl<T> Proxy<T> {
    /// Queues `command`; counts a failed offer when the agent is gone.
    pub fn send(&self, command: T) {
        if self.tx.send(command).is_err() {
            self.fails.add(1);
        }
    }
}

/// The draining side of an agent's command queue.
pub struct CommandQueue<T> {
    rx: Receiver<T>,
}

impl<T> CommandQueue<T> {
    /// The next queued command, if any.
    #[inline]
    pub fn next(&self) -> Option<T> {
        self.rx.try_recv().ok()
    }

    /// Calls `on_command` for up to `limit` queued commands; returns how many.
    #[inline]
    pub fn drain(&self, limit: usize, mut on_command: impl FnMut(T)) -> usize {
        let mut count = 0;
        while count < limit {
            match self.rx.try_recv() {
                Ok(command) => {
                    on_command(command);
                    count += 1;
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        count
    }
}

/// A queue and its proxy; `fails` is the proxy's failed-offers counter.
pub fn command_queue<T>(fails: Position) -> (Proxy<T>, CommandQueue<T>) {
    let (tx, rx) = mpsc::channel();
    (Proxy { tx, fails }, CommandQueue { rx })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;

    #[test]
    fn drains_up_to_the_limit_and_counts_failed_offers() {
        let values = AtomicBuffer::alloc(128);
        let (proxy, queue) = command_queue::<i32>(Position::new(&values, 0));
        for i in 0..15 {
            proxy.clone().send(i);
        }
        let mut seen = Vec::new();
        assert_eq!(queue.drain(COMMAND_DRAIN_LIMIT, |c| seen.push(c)), 10);
        assert_eq!(queue.drain(COMMAND_DRAIN_LIMIT, |c| seen.push(c)), 5);
        assert_eq!(seen, (0..15).collect::<Vec<_>>());
        assert_eq!(queue.drain(COMMAND_DRAIN_LIMIT, |c| seen.push(c)), 0);
        drop(queue);
        proxy.send(99);
        assert_eq!(values.get_i64(0), 1);
    }
}
