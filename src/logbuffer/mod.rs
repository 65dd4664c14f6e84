//! Layer 4: log buffers, the shared-memory data plane between publishers, the driver and
//! subscribers (`spec/log-buffer.md`).
#![forbid(unsafe_code)]

pub(crate) mod buffer_builder;
pub(crate) mod buffer_claim;
pub(crate) mod controlled_fragment_assembler;
pub mod descriptor;
pub(crate) mod exclusive_term_appender;
pub(crate) mod fragment_assembler;
pub mod frame_descriptor;
pub(crate) mod header;
pub(crate) mod header_writer;
pub(crate) mod log_buffers;
pub(crate) mod log_metadata;
pub(crate) mod term_appender;
pub(crate) mod term_gap_filler;
pub mod term_gap_scanner;
pub mod term_reader;
pub mod term_rebuilder;
pub mod term_scanner;
pub mod term_unblocker;

pub use buffer_claim::BufferClaim;
pub use controlled_fragment_assembler::ControlledFragmentAssembler;
pub use exclusive_term_appender::ExclusiveTermAppender;
pub use fragment_assembler::FragmentAssembler;
pub use header::Header;
pub use header_writer::HeaderWriter;
pub use log_buffers::LogBuffers;
pub use term_appender::{AppendOutcome, TermAppender};
pub use term_reader::{ControlledPollAction, ReadOutcome};
