//! Counters: a values buffer (128-byte records) and a metadata buffer (512-byte records)
//! shared by the driver, which allocates, and every process, which reads
//! (`spec/counters.md`).

pub mod descriptor;
pub(crate) mod manager;
pub(crate) mod reader;
pub mod system_counters;
pub mod type_ids;

pub use descriptor::append_to_label;
pub use manager::CountersManager;
pub use reader::{CounterRecord, CountersReader};
