#!/usr/bin/env bash
# Runs every concurrent/ unit test, the C handle helpers' (ffi::handles) and logbuffer/'s under
# Miri (undefined behaviour, out-of-bounds and data-race checks). Tests that map files are
# ignored under cfg(miri); multi-threaded tests run with small message counts.
# logbuffer/'s tests are single-threaded and run without Miri's weak-memory emulation: it
# aborts (an internal error of Miri, not a finding) when a byte-sized atomic store overlaps
# an earlier wider one, which frame headers do by design (the length word is written as an
# i32, the flags byte beside it as a u8); data races and UB are still checked.
# Needs: rustup component add miri rust-src --toolchain nightly (done once; `cargo +nightly
# miri setup` builds Miri's sysroot on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:-}"
cargo +nightly miri test --lib -- concurrent:: ffi::handles "$@"
MIRIFLAGS="$MIRIFLAGS -Zmiri-disable-weak-memory-emulation" cargo +nightly miri test --lib -- logbuffer:: "$@"
