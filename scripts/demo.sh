#!/usr/bin/env bash
# Builds everything (library, header, C package) and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-c-package.sh
cargo build --release --all-targets
if [ -f examples/embedded_demo.rs ]; then
  cargo run --release --example embedded_demo -- "$@"
else
  echo "The embedded-driver demo arrives with the IPC driver (issue 4); running the ring buffer benchmark instead."
  cargo bench --bench ring_buffer -- "$@"
fi
