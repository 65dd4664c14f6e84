//! UDP media: transports (sockets), address resolution, the transport poller and the
//! loss-injection interceptors that the sender and receiver agents are built from.
#![forbid(unsafe_code)]

pub mod csv_table_name_resolver;
pub mod data_datagram;
pub mod data_packet_dispatcher;
pub mod destination_tracker;
pub mod driver_name_resolver;
pub mod interface_address;
pub mod loss_injection;
pub mod media_plugin;
pub mod name_resolver;
pub mod port_manager;
pub mod receive_channel_endpoint;
pub mod receive_destination;
#[cfg(feature = "receiver-harness")]
pub mod receiver_harness;
pub mod send_channel_endpoint;
pub mod socket_address;
pub mod timestamps;
pub mod transport_poller;
pub mod udp_channel;
pub mod udp_transport;
