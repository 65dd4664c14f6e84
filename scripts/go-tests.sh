#!/usr/bin/env bash
# The Go binding (bindings/go): stages the library as a pkg-config package, builds aeronmd,
# then gofmt, go vet, go test -race and go test under cgocheck2 (pub/sub across goroutines
# and processes through an embedded driver and aeronmd, a C publisher, ring buffers, the
# mapped bus, ...), and one short pass of each benchmark so they keep working. Needs
# Go >= 1.21 (`go` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${AERONRS_PROFILE:-release}"
bash scripts/build-c-package.sh
cargo build --profile "$profile" --bin aeronmd
export PKG_CONFIG_PATH="$PWD/target/dist/lib/pkgconfig"
# The tests load libaeronrs.so from the staged package (pkg-config gives no rpath).
export CGO_LDFLAGS="-Wl,-rpath,$PWD/target/dist/lib"
export AERONMD="$PWD/target/$profile/aeronmd"

cd bindings/go
go version
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt: not formatted: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -race -count=1 -timeout 5m ./...
# cgocheck2 checks every store of a pointer for Go pointers kept in C memory.
GOEXPERIMENT=cgocheck2 go test -count=1 -timeout 5m ./...
WARM_UP=200 go test -count=1 -run '^$' -bench . -benchtime 2000x -timeout 5m ./...
