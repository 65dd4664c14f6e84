//! Layer 5: the media driver (`spec/driver.md`).
#![forbid(unsafe_code)]

pub mod agent_config;
pub mod conductor;
pub mod congestion;
pub mod context;
pub mod directory;
pub mod flow_control;
pub mod loss;
pub mod media;
pub mod media_driver;
pub mod network_config;
pub mod position_counters;
pub mod system_counters;
pub mod termination;

pub use context::{DriverContext, ThreadingMode};
pub use media_driver::MediaDriver;
