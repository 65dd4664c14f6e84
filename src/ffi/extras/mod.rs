//! `aeronrs_*` functions: what aeronrs offers beyond Aeron's C API.

pub mod error;
pub mod image_log;
pub mod mapped_bus;
pub mod poll_batch;
pub mod poll_batch_idle;
pub mod ring_buffer;
