//! Layer 6: the monitoring tools behind `src/bin/aeron-stat`, `aeron-errors` and
//! `aeron-loss`. They read any Aeron 1.48 driver's files (ours, Aeron C's, Java's) and
//! print them as Aeron's `AeronStat`, `ErrorStat` and `LossStat` do. The binaries only
//! parse `std::env::args`, call `run_*` here and turn an error into a message and exit 1.
#![forbid(unsafe_code)]

pub mod cli;
pub mod errors;
pub mod loss;
pub mod pattern;
pub mod stat;

pub use cli::Invocation;
