//! Layer 3: the client ↔ driver control protocol (`spec/control-protocol.md`): every command
//! a client writes into the to-driver ring buffer and every response the driver broadcasts to
//! clients, as plain structs with exact-layout encoders and bounds-checked, zero-copy
//! decoders, plus the [`Command`] and [`Response`] enums that dispatch on the record type id.
//!
//! The driver conductor decodes straight from ring-buffer records
//! (`AtomicBuffer::published_slice`); the client conductor from the copy its broadcast
//! receiver makes. Encoders write into a claimed record (`ControlMessage::encode_into`).
#![forbid(unsafe_code)]

pub mod codec;
pub mod control_protocol_events;
mod message_enum;

pub mod correlated_message;
pub mod counter_message;
pub mod destination_message;
pub mod publication_message;
pub mod reject_image;
pub mod remove_message;
pub mod static_counter_message;
pub mod subscription_message;
pub mod terminate_driver;

pub mod client_command;

pub mod client_timeout;
pub mod counter_update;
pub mod error_response;
pub mod image_buffers_ready;
pub mod image_message;
pub mod operation_succeeded;
pub mod publication_buffers_ready;
pub mod publication_error;
pub mod subscription_ready;

pub mod driver_response;

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
