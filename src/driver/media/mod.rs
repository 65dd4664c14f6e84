//! UDP media: transports (sockets), address resolution, the transport poller and the
//! loss-injection interceptors that the sender and receiver agents are built from.
#![forbid(unsafe_code)]

pub mod interface_address;
pub mod loss_injection;
pub mod socket_address;
pub mod transport_poller;
pub mod udp_transport;
