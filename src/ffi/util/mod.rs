//! Utility functions libaeron exports beyond `aeronc.h` that Aeron's own C samples and
//! tools call (idle strategies, the agent runner, clocks and sleeps, threads, allocation,
//! parsing, formatting, mapped files and raw logs, the distinct error log, `cnc.dat`
//! loading), with upstream's names, signatures and struct layouts, so those programs link
//! against libaeronrs alone. The headers that declare them are Aeron's utility headers in
//! `include/` (`aeron_agent.h`, `util/`, `concurrent/`, ...); what those headers define
//! inline is not exported.

pub mod agent;
pub mod alloc;
pub mod bitutil;
pub mod clock;
pub mod cnc_descriptor;
pub mod error_log;
pub mod fileutil;
pub mod idle_strategy;
pub mod parse;
pub mod properties;
pub mod semantic_version;
pub mod strutil;
pub mod thread;
