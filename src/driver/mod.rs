//! Layer 5: the media driver (`spec/driver.md`).
#![forbid(unsafe_code)]

pub mod congestion;
pub mod context;
pub mod flow_control;
pub mod loss;
pub mod media;
