//! Layer 2: the Agrona-style shared-memory structures, all built on `AtomicBuffer`.

pub(crate) mod atomic_buffer;
pub(crate) mod atomic_word;
pub mod broadcast;
pub(crate) mod byte_copy;
pub mod byte_range;
pub(crate) mod caller_synchronized;
pub mod counters;
pub mod error_log;
pub(crate) mod exclusive_tail;
pub mod foreign_shared;
pub mod mapped_file;
pub mod mapping_registry;
pub(crate) mod opaque_pointer;
pub mod ring_buffer;

pub use atomic_buffer::AtomicBuffer;
pub use atomic_word::{AtomicI32Word, AtomicI64Word};
pub use byte_range::{ClaimedRange, OwnedClaimedRange, PublishedRange};
pub use exclusive_tail::ExclusiveTail;
pub use foreign_shared::ForeignShared;
