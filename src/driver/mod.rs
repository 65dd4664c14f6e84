//! Layer 5: the media driver (`spec/driver.md`).
#![forbid(unsafe_code)]

pub mod agent_config;
pub mod agent_proxy;
pub mod conductor;
pub mod congestion;
pub mod context;
pub mod directory;
pub mod duty_cycle_tracker;
pub mod flow_control;
pub mod image_status;
pub mod loss;
pub mod media;
pub mod media_driver;
pub mod network_config;
pub mod network_publication;
pub mod position_counters;
pub mod publication_image;
pub mod receiver;
pub mod sender;
pub mod system_counters;
pub mod termination;

pub use context::{DriverContext, ThreadingMode};
pub use media_driver::MediaDriver;
