//! The media plug-ins of `aeronmd.h`: UDP channel transport bindings
//! (`aeron_udp_channel_transport_bindings_t`) and outgoing and incoming interceptor
//! chains (`aeron_udp_channel_interceptor_bindings_t`), Aeron's C types and semantics
//! (`include/aeronrs_media.h.in`). With any of them set, every UDP transport of the
//! driver is opened, sent on, received from and closed through the bindings (the set
//! table, else the default one) and the interceptors, where Aeron's driver calls them
//! (`plugin.rs`); without, the driver uses its own sockets directly.
//!
//! Limits, all refused or documented rather than ignored: the poller functions of a
//! bindings table must be the default ones (the driver polls its transports itself);
//! interceptors with publication or image notification functions are refused (there are
//! no upstream publication or image structs to pass); the channel given to transport
//! notifications is opaque and the dispatcher NULL; a transport's `error_log` and
//! `errors_counter` are NULL.

pub mod data_paths;
pub mod default_bindings;
pub mod plugin;
pub mod settings;
pub mod types;
