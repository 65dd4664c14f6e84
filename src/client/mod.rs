//! Layer 5: the Aeron client — connect to a media driver through its CnC, add
//! publications, subscriptions and counters through the client conductor, and move data
//! through mapped log buffers without the driver on the data path (`DESIGN.md`).
//!
//! The data paths (`Publication::offer`/`try_claim`, `ExclusivePublication::offer`,
//! `Subscription::poll`, `Image::poll`) neither allocate, lock nor make system calls. The
//! control paths go through the conductor, behind one mutex.
#![forbid(unsafe_code)]

pub mod aeron;
pub mod async_add;
mod client_conductor;
mod client_handlers;
mod conductor_handle;
mod conductor_responses;
pub mod context;
pub mod counter;
pub mod destination;
mod driver_connect;
mod driver_proxy;
pub mod driver_termination;
pub mod exclusive_publication;
mod heartbeat;
pub mod image;
pub mod local_socket_addresses;
pub mod publication;
pub mod publication_core;
pub mod publication_error_frame;
pub mod subscription;

pub use crate::logbuffer::{BufferClaim, ControlledPollAction, FragmentAssembler, Header};
pub use aeron::Aeron;
pub use async_add::{
    AsyncAddCounter, AsyncAddExclusivePublication, AsyncAddPublication, AsyncAddSubscription,
};
pub use context::Context;
pub use counter::Counter;
pub use destination::AsyncDestination;
pub use exclusive_publication::ExclusivePublication;
pub use image::Image;
pub use publication::Publication;
pub use publication_core::{
    ADMIN_ACTION, BACK_PRESSURED, CLOSED, ERROR as PUBLICATION_ERROR, MAX_POSITION_EXCEEDED, NOT_CONNECTED,
};
pub use publication_error_frame::{PublicationErrorFrame, PublicationErrorFrameHandler};
pub use subscription::{Subscription, SubscriptionView};
