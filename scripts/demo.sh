#!/usr/bin/env bash
# The README's first command. Builds only what the demo needs, in the release profile the
# numbers are meant for: libaeronrs and examples/embedded_demo.rs (a few minutes from a
# fresh clone on two cores), then examples-c/embedded_demo.c against include/ and
# libaeronrs.so with the C compiler. Runs the demo from Rust, then the same demo from C.
# Arguments, passed to both: [messages] [pings].
# Building everything (every test and bench, each linked with fat LTO) is the test
# command's job: bash .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"

cargo build --release --lib --example embedded_demo
echo
"$target/release/examples/embedded_demo" "$@"

cc="${CC:-cc}"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo
  echo "demo: no C compiler ($cc), so the C demo is skipped; apt-get install gcc, then run this again"
  exit 0
fi
lib_dir="$(cd "$target/release" && pwd)"
c_demo="$target/release/embedded_demo_c"
build_c=("$cc" -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I include examples-c/embedded_demo.c
  -L "$lib_dir" -laeronrs -lpthread -Wl,-rpath,"$lib_dir" -o "$c_demo")
echo
echo "The same demo from C, built as a C program written for Aeron builds (only include/ and libaeronrs):"
echo "  ${build_c[*]}"
"${build_c[@]}"
echo
"$c_demo" "$@"
