//! Layer 5: the Aeron client — connect to a media driver through its CnC, add
//! publications, subscriptions and counters through the client conductor, and move data
//! through mapped log buffers without the driver on the data path (`DESIGN.md`).
//!
//! The data paths (`Publication::offer`/`try_claim`, `ExclusivePublication::offer`,
//! `Subscription::poll`, `Image::poll`) neither allocate, lock nor make system calls. The
//! control paths go through the conductor, behind one mutex.
#![forbid(unsafe_code)]

pub(crate) mod aeron;
pub(crate) mod async_add;
mod client_conductor;
pub(crate) mod client_handlers;
mod conductor_handle;
mod conductor_responses;
pub mod context;
pub(crate) mod counter;
pub(crate) mod destination;
mod driver_connect;
mod driver_proxy;
pub(crate) mod driver_termination;
pub(crate) mod exclusive_publication;
mod heartbeat;
pub(crate) mod image;
pub(crate) mod local_socket_addresses;
pub(crate) mod publication;
pub(crate) mod publication_accessors;
pub(crate) mod publication_core;
pub(crate) mod publication_error_frame;
pub(crate) mod resource_linger;
pub(crate) mod subscription;

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
