//! Layer 3: the client ↔ driver control protocol (`spec/control-protocol.md`): every command
//! a client writes into the to-driver ring buffer and every response the driver broadcasts to
//! clients, as plain structs with exact-layout encoders and bounds-checked, zero-copy
//! decoders, plus the [`Command`] and [`Response`] enums that dispatch on the record type id.
//!
//! The driver conductor decodes straight from ring-buffer records
//! (a `PublishedRange`); the client conductor from the copy its broadcast
//! receiver makes. Encoders write into a claimed record (`ControlMessage::encode` into a
//! `ClaimedRange`).
#![forbid(unsafe_code)]

pub(crate) mod codec;
pub mod control_protocol_events;
mod message_enum;

pub(crate) mod correlated_message;
pub(crate) mod counter_message;
pub(crate) mod destination_message;
pub(crate) mod publication_message;
pub mod reject_image;
pub(crate) mod remove_message;
pub(crate) mod static_counter_message;
pub(crate) mod subscription_message;
pub(crate) mod terminate_driver;

pub(crate) mod client_command;

pub(crate) mod client_timeout;
pub(crate) mod counter_update;
pub(crate) mod error_response;
pub(crate) mod image_buffers_ready;
pub(crate) mod image_message;
pub(crate) mod operation_succeeded;
pub(crate) mod publication_buffers_ready;
pub(crate) mod publication_error;
pub(crate) mod subscription_ready;

pub(crate) mod driver_response;

pub use client_command::Command;
pub use client_timeout::ClientTimeout;
pub use codec::ControlMessage;
pub use correlated_message::CorrelatedMessage;
pub use counter_message::CounterMessage;
pub use counter_update::CounterUpdate;
pub use destination_message::{DestinationByIdMessage, DestinationMessage};
pub use driver_response::Response;
pub use error_response::ErrorResponse;
pub use image_buffers_ready::ImageBuffersReady;
pub use image_message::ImageMessage;
pub use operation_succeeded::OperationSucceeded;
pub use publication_buffers_ready::PublicationBuffersReady;
pub use publication_error::PublicationError;
pub use publication_message::PublicationMessage;
pub use reject_image::RejectImageMessage;
pub use remove_message::RemoveMessage;
pub use static_counter_message::StaticCounterMessage;
pub use subscription_message::SubscriptionMessage;
pub use subscription_ready::SubscriptionReady;
pub use terminate_driver::TerminateDriverMessage;
