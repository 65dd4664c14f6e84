//! Utility functions libaeron exports beyond `aeronc.h` that Aeron's own C samples and
//! tools call (idle strategies, the agent runner, clocks and sleeps, allocation, parsing,
//! formatting, mapped files, error log reading), with upstream's names and signatures so
//! those programs link against libaeronrs alone.

pub mod agent;
pub mod alloc;
pub mod clock;
pub mod error_log;
pub mod fileutil;
pub mod idle_strategy;
pub mod parse;
pub mod properties;
pub mod semantic_version;
pub mod strutil;
