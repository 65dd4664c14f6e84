//! aeronrs: the Aeron messaging stack (media driver, client, Agrona-style shared-memory
//! structures) and a Mappedbus-style persistent bus, byte-compatible with Aeron 1.48 and
//! exported through Aeron's C API.
//!
//! # The Rust API
//! What Rust users build on is re-exported here at the crate root: the client ([`Aeron`],
//! [`Context`], [`Publication`], [`ExclusivePublication`], [`Subscription`], [`Image`],
//! [`Counter`], [`BufferClaim`], [`Header`], [`FragmentAssembler`]), the embedded media
//! driver ([`MediaDriver`], [`DriverContext`]), the standalone ring buffers
//! ([`OneToOneRingBuffer`], [`ManyToOneRingBuffer`]), the persistent bus ([`MappedBusWriter`],
//! [`MappedBusReader`]), channel URIs ([`ChannelUri`], [`UriStringBuilder`]) and idle
//! strategies ([`IdleStrategy`]). C, C++, Go and Java programs use the C API instead
//! (`include/aeronc.h`, `include/aeronmd.h`, `include/aeronrs.h`).
//!
//! The modules marked hidden in these docs (the codecs, log-buffer internals, the driver's
//! agents, the C exports) are the layers the library is built from; they stay reachable for
//! this project's own tests, benchmarks, fuzz targets and tools, and are not a stable API.
//!
//! ```
//! use aeronrs::{Aeron, Context, DriverContext, Header, IdleStrategy, MediaDriver, ThreadingMode};
//! use std::time::Duration;
//!
//! # fn main() -> aeronrs::Result<()> {
//! let dir = std::env::temp_dir().join(format!("aeronrs-doc-{}", std::process::id()));
//! let mut driver = MediaDriver::launch(DriverContext {
//!     aeron_dir: dir.clone(),
//!     dir_delete_on_start: true,
//!     dir_delete_on_shutdown: true,
//!     threading_mode: ThreadingMode::Shared,
//!     shared_idle_strategy: IdleStrategy::Sleep(Duration::from_micros(100)),
//!     ..DriverContext::default()
//! })?;
//!
//! let mut ctx = Context::default();
//! ctx.set_aeron_dir(&dir);
//! let aeron = Aeron::connect(ctx)?;
//! let mut subscription = aeron.add_subscription("aeron:ipc", 10)?;
//! let publication = aeron.add_publication("aeron:ipc", 10)?;
//! while !publication.is_connected() {
//!     std::thread::yield_now();
//! }
//! while publication.offer(b"hello")? < 0 {
//!     std::thread::yield_now();
//! }
//! let mut received = Vec::new();
//! while received.is_empty() {
//!     subscription.poll(|message: &[u8], _: &Header| received.extend_from_slice(message), 10);
//! }
//! assert_eq!(received, b"hello");
//!
//! aeron.close();
//! driver.close()?;
//! # Ok(())
//! # }
//! ```
//!
//! Layers, bottom up (each uses only the ones below it; see `DESIGN.md`):
//! `util` → `concurrent` → `protocol`, `command` → `logbuffer`, `cnc`, `uri` →
//! `client`, `driver`, `mappedbus` → `tools`, `ffi`.

pub mod util;

pub mod concurrent;

#[doc(hidden)]
pub mod command;
#[doc(hidden)]
pub mod protocol;

pub mod cnc;
#[doc(hidden)]
pub mod logbuffer;
pub mod uri;

pub mod client;
pub mod driver;
pub mod mappedbus;

#[doc(hidden)]
pub mod tools;

// The C boundary's docs are for its maintainers (`cargo doc --document-private-items`), so they
// link to the private helpers every export goes through.
#[doc(hidden)]
#[allow(rustdoc::private_intra_doc_links)]
pub mod ffi;

pub use client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, BufferClaim, CLOSED, Context, ControlledPollAction, Counter,
    ExclusivePublication, FragmentAssembler, Header, Image, MAX_POSITION_EXCEEDED, NOT_CONNECTED,
    PUBLICATION_ERROR, Publication, Subscription,
};
pub use concurrent::ring_buffer::{ManyToOneRingBuffer, OneToOneRingBuffer};
pub use driver::{DriverContext, MediaDriver, ThreadingMode};
pub use mappedbus::{MappedBusConfig, MappedBusReader, MappedBusWriter};
pub use uri::{ChannelUri, UriStringBuilder};
pub use util::error::{Error, Result};
pub use util::idle_strategy::IdleStrategy;
