#!/usr/bin/env bash
# Runs every test: formatting, lints, header drift, all Rust tests, the C tests (CTest).
# The README's test command; .ci/run calls it after installing what a fresh machine lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Each step prints the seconds since the run began, so a slow CI run shows where time went.
started=$SECONDS
step() { printf '\n==> [%4ds] %s\n' "$((SECONDS - started))" "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --all-targets --features receiver-harness -- -D warnings

# build.rs regenerated the header for clippy's build, as for any build.
step "header drift: include/ must equal what is committed"
git diff --exit-code -- include/ || { echo "include/aeronrs.h changed: commit the regenerated header"; exit 1; }

step "cargo test (profile ci: optimised, debug assertions on)"
cargo test --profile ci --all-targets --features receiver-harness

step "cargo doc: the crate-level example runs, the docs build without warnings"
cargo test --profile ci --doc
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib

# The C, Go and Java steps link the library and aeronmd built with the profile the Rust tests
# just used (optimised, debug assertions and overflow checks on) rather than build release's
# fat-LTO artefacts once more; the README's first command builds and runs those.
export AERONRS_PROFILE="${AERONRS_PROFILE:-ci}"

step "C tests (CTest, shared and static library; find_package(aeron) and pkg-config aeron consumers)"
bash scripts/c-tests.sh

step "C samples (examples-c) built through find_package(aeronrs), run against aeronmd"
bash scripts/examples-c.sh

step "Go binding (bindings/go, cgo): gofmt, go vet, go test -race"
bash scripts/go-tests.sh

if bash scripts/java-ffm-home.sh >/dev/null; then
  step "Java: bindings/java (aeronrs-java over FFM), its JUnit tests; its JMH benchmarks compile"
  bash scripts/java-tests.sh
elif [ "${CI:-}" = "true" ]; then
  echo "a JDK 22 or later is required in CI (bindings/java)" >&2
  exit 1
else
  step "Java: skipped (no JDK 22 or later; see scripts/java-ffm-home.sh)"
fi

if cargo +nightly fuzz --version >/dev/null 2>&1; then
  step "fuzz: every cargo-fuzz target for ${FUZZ_SECONDS:-15} s"
  bash scripts/fuzz.sh
elif [ "${CI:-}" = "true" ]; then
  echo "cargo-fuzz with a nightly toolchain is required in CI" >&2
  exit 1
else
  step "fuzz: skipped (cargo +nightly fuzz is not installed; see scripts/fuzz.sh)"
fi

if [ -x scripts/miri.sh ] && cargo +nightly miri --version >/dev/null 2>&1; then
  step "miri (concurrent/, logbuffer/ and ffi::handles unit tests)"
  bash scripts/miri.sh
elif [ "${CI:-}" = "true" ]; then
  echo "cargo +nightly miri is required in CI (scripts/miri.sh)" >&2
  exit 1
else
  step "miri: skipped (cargo +nightly miri is not installed on this machine)"
fi

printf '\nall test steps passed in %d s\n' "$((SECONDS - started))"
