#!/usr/bin/env bash
# Builds the release library and stages it as a CMake/pkg-config package in target/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --lib
cmake -S cmake -B target/cmake-package -DAERONRS_LIB_DIR="$PWD/target/release" \
  -DCMAKE_INSTALL_PREFIX="$PWD/target/dist" >/dev/null
cmake --install target/cmake-package >/dev/null
echo "staged aeronrs package in target/dist"
