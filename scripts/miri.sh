#!/usr/bin/env bash
# Runs the ring buffer, AtomicBuffer, claimed/published range, exclusive tail and C handle helper (ffi::handles) unit tests under Miri (undefined
# behaviour, out-of-bounds and data-race checks). Tests that map files are ignored under
# cfg(miri); multi-threaded tests run with small message counts.
# Needs: rustup component add miri rust-src --toolchain nightly (done once; `cargo +nightly
# miri setup` builds Miri's sysroot on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:-}"
cargo +nightly miri test --lib -- concurrent::ring_buffer concurrent::atomic_buffer concurrent::byte_copy concurrent::byte_range concurrent::exclusive_tail concurrent::caller_synchronized ffi::handles "$@"
