//! Layer 1: clocks, bit math, the error type, configuration parsing, idle strategies,
//! agents, and the OS calls std lacks.

pub mod agent;
pub(crate) mod bits;
pub mod clock;
pub mod config;
pub mod error;
pub mod fileutil;
pub mod format;
pub mod idle_strategy;
pub(crate) mod parse_util;
pub mod properties;
pub mod rand48;
pub mod settings;
pub mod strutil;
pub mod sys;
