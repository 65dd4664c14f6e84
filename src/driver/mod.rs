//! Layer 5: the media driver (`spec/driver.md`).
#![forbid(unsafe_code)]

pub mod agent_config;
pub(crate) mod agent_proxy;
pub mod conductor;
pub(crate) mod congestion;
pub mod context;
pub(crate) mod directory;
pub(crate) mod duty_cycle_tracker;
pub mod flow_control;
pub(crate) mod image_status;
pub mod loss;
pub mod media;
pub(crate) mod media_driver;
pub mod network_config;
pub mod network_publication;
pub(crate) mod position_counters;
pub mod publication_image;
pub(crate) mod re_resolution_check;
pub mod receiver;
pub mod sender;
pub mod system_counters;
pub mod termination;

pub use context::{DriverContext, ThreadingMode};
pub use media_driver::MediaDriver;
