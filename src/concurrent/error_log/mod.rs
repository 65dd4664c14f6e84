//! The distinct error log: the driver records each distinct error once with a count and
//! first/last timestamps; tools read it (`spec/error-log.md`).

pub(crate) mod descriptor;
pub(crate) mod distinct_error_log;
pub(crate) mod error_log_reader;
pub(crate) mod report;

pub use distinct_error_log::DistinctErrorLog;
pub use error_log_reader::{ErrorObservation, error_log_exists, read};
pub use report::format_error_report;
