#!/usr/bin/env bash
# The C API from other languages, through our standalone driver (target/release/aeronmd):
#   - Go (interop/go): a cgo package over aeronc.h; `go vet` and `go test` start their own
#     drivers.
# Java (bindings/java, FFM) has its own runner: scripts/java-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib --bin aeronmd

echo "==> Go (interop/go)"
(cd interop/go && go vet ./... && go test -count=1 ./...)

echo "interop-langs: all passed"
