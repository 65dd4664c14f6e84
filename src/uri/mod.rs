//! Layer 4: channel URIs (`spec/channel-uri.md`): parsing and canonical printing of
//! `aeron:udp?…`, `aeron:ipc?…` and `aeron-spy:aeron:…`, typed parameter access with
//! validation, and a string builder for the C API.
#![forbid(unsafe_code)]

pub(crate) mod channel_params;
pub(crate) mod channel_uri;
pub(crate) mod endpoint;
pub(crate) mod flow_control_param;
pub mod keys;
pub mod string_builder;
pub mod value_parse;

pub use channel_params::{
    CongestionControl, ControlMode, InferableBoolean, InitialPosition, SessionIdParam, Tags, TimestampOffset,
};
pub use channel_uri::{ChannelUri, Media};
pub use endpoint::{HostPort, InterfaceAddress};
pub use flow_control_param::{FlowControlParam, FlowControlStrategy};
pub use string_builder::UriStringBuilder;
