//! Layer 3: UDP wire frames as bounds-checked flyweights (`spec/wire-protocol.md`).
#![forbid(unsafe_code)]

pub mod header;
