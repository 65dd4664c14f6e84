//! Layer 6: the monitoring tools behind `src/bin/aeron-stat`, `aeron-errors`, `aeron-loss`
//! and `aeron-driver-tool`. They read any Aeron 1.48 driver's files (ours, Aeron C's,
//! Java's) and print them as Aeron's `AeronStat`, `ErrorStat`, `LossStat` and `DriverTool`
//! do. The binaries only
//! parse `std::env::args`, call `run_*` here and turn an error into a message and exit 1.
#![forbid(unsafe_code)]

pub mod cli;
pub mod driver_tool;
pub mod errors;
pub mod loss;
pub(crate) mod pattern;
pub mod stat;

pub use cli::Invocation;

/// Whether the command line asks for the version (`--version` or `-V`).
pub fn wants_version(args: impl IntoIterator<Item = String>) -> bool {
    args.into_iter().any(|a| a == "--version" || a == "-V")
}

/// What `--version` prints: the tool, this library's version and the Aeron release whose
/// files and protocol it reads.
pub fn version_text(tool: &str) -> String {
    format!("{tool} (aeronrs {}) for Aeron 1.48.0 media drivers", env!("CARGO_PKG_VERSION"))
}
