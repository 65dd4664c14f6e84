#!/usr/bin/env bash
# Builds the release library and stages it as a CMake/pkg-config package in target/dist.
# AERONRS_PROFILE picks another cargo profile (scripts/test-all.sh uses `ci`, the profile its
# Rust tests already built, instead of paying for release's fat LTO once more).
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${AERONRS_PROFILE:-release}"
cargo build --profile "$profile" --lib
cmake -S cmake -B target/cmake-package -DAERONRS_LIB_DIR="$PWD/target/$profile" \
  -DCMAKE_INSTALL_PREFIX="$PWD/target/dist" >/dev/null
cmake --install target/cmake-package >/dev/null
echo "staged aeronrs package in target/dist"
