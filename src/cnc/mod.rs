//! Layer 4: `cnc.dat`, the command-and-control file shared by a media driver and its
//! clients (`spec/cnc.md`): header, the five sections, readiness and driver liveness.
#![forbid(unsafe_code)]

pub(crate) mod aeron_dir;
pub(crate) mod cnc_file;
pub(crate) mod descriptor;

pub use aeron_dir::{await_cnc, cnc_path, default_aeron_dir, is_driver_active, is_driver_active_logged};
pub use cnc_file::{CncConfig, CncFile, is_retryable};
pub use descriptor::{CNC_FILE, CNC_VERSION, CncLayout};
