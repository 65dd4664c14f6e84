#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time (default 15 s each; FUZZ_SECONDS to change).
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-15}"
targets=$(cargo +nightly fuzz list)
cargo +nightly fuzz build >/dev/null 2>&1 || cargo +nightly fuzz build
for target in $targets; do
  printf '%-20s ' "$target"
  log=$(mktemp)
  if cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "ok: ${runs:-?} runs in ${seconds}s, no crash"
  else
    echo "FAILED"; tail -40 "$log"; exit 1
  fi
  rm -f "$log"
done
