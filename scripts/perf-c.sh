#!/usr/bin/env bash
# Issue 5's performance check of the C API: the C samples against our driver, set up as the
# Rust benchmarks set up theirs (benches/ipc_ping_pong.rs, benches/ipc_throughput.rs):
# aeronmd in SHARED mode sleeping 1 ms when idle, aeron:ipc with 64 MiB terms, 32-byte
# messages; ping/pong busy-spin, 100 000 warm-up and 1 000 000 measured round trips; the
# streaming publisher sends 20 000 000 messages to a rate subscriber polling 1024 fragments
# at a time. Compare with `cargo bench --bench ipc_ping_pong --bench ipc_throughput`.
# MESSAGES / WARM_UP / STREAM_MESSAGES override the counts.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x target/examples-c/ping ] || bash scripts/examples-c.sh
channel="aeron:ipc?term-length=64m"
bin=target/examples-c
work=$(mktemp -d /tmp/aeronrs-perf-c-XXXXXX)
dir="$work/aeron"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
wait_for() {
  for _ in $(seq 200); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1" >&2; exit 1
}

AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true AERON_TERM_BUFFER_SPARSE_FILE=true AERON_THREADING_MODE=SHARED \
  AERON_SHARED_IDLE_STRATEGY=sleeping AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1ms \
  target/release/aeronmd >"$work/aeronmd.log" 2>&1 &
pids+=($!)
wait_for "$work/aeronmd.log" "driver started"

echo "C ping/pong, 32 B, exclusive publications, busy-spinning processes, our media driver"
"$bin/pong" -p "$dir" -c "$channel" -C "$channel" >"$work/pong.log" 2>&1 &
pong=$!
pids+=("$pong")
wait_for "$work/pong.log" "Publication channel status"
"$bin/ping" -p "$dir" -c "$channel" -C "$channel" -L 32 -w "${WARM_UP:-100000}" -m "${MESSAGES:-1000000}" |
  grep "round trips"
kill -INT "$pong"
wait "$pong"

echo "C streaming publisher -> rate subscriber, 32 B, our media driver"
"$bin/rate_subscriber" -p "$dir" -c "$channel" -f 1024 >"$work/rate.log" 2>&1 &
rate=$!
pids+=("$rate")
wait_for "$work/rate.log" "Subscription channel status"
"$bin/streaming_publisher" -p "$dir" -c "$channel" -L 32 -m "${STREAM_MESSAGES:-20000000}" | grep "^Total:"
kill -INT "$rate"
wait "$rate"
