//! Layer 3: UDP wire frames as bounds-checked flyweights (`spec/wire-protocol.md`).
//!
//! Each frame type has a read-only `*Flyweight` that parses untrusted bytes (never
//! panicking, never allocating) and a plain value type whose `encode` writes the exact
//! little-endian bytes of the spec. [`parse_frame`] dispatches a datagram by type.
#![forbid(unsafe_code)]

pub mod data;
pub(crate) mod error_frame;
pub(crate) mod frame;
pub(crate) mod frame_error;
pub mod header;
mod le;
pub mod nak;
pub mod resolution;
pub(crate) mod response_setup;
pub(crate) mod rttm;
pub mod setup;
pub mod status_message;

pub use data::{DataFlyweight, DataHeader};
pub use error_frame::{ErrorFrame, ErrorFrameFlyweight};
pub use frame::{DataFrames, Frame, parse_frame};
pub use frame_error::FrameError;
pub use header::FrameHeader;
pub use nak::{Nak, NakFlyweight};
pub use resolution::{
    ResolutionEntry, ResolutionEntryFlyweight, ResolutionFlyweight, encode_resolution_frame,
};
pub use response_setup::{ResponseSetup, ResponseSetupFlyweight};
pub use rttm::{Rttm, RttmFlyweight};
pub use setup::{Setup, SetupFlyweight};
pub use status_message::{StatusMessage, StatusMessageFlyweight};
