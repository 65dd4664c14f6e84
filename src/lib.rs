//! aeronrs: the Aeron messaging stack (media driver, client, Agrona-style shared-memory
//! structures) and a Mappedbus-style persistent bus, byte-compatible with Aeron 1.48 and
//! exported through Aeron's C API.
//!
//! Layers, bottom up (each uses only the ones below it; see `DESIGN.md`):
//! `util` → `concurrent` → `protocol`, `command` → `logbuffer`, `cnc`, `uri` →
//! `client`, `driver`, `mappedbus` → `tools`, `ffi`.

pub mod util;

pub mod concurrent;

pub mod command;
pub mod protocol;

pub mod cnc;
pub mod logbuffer;
pub mod uri;

pub mod client;
pub mod driver;
pub mod mappedbus;

pub mod tools;

pub mod ffi;

pub use util::error::{Error, Result};
