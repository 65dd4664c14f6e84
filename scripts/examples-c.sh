#!/usr/bin/env bash
# Builds examples-c/ against the staged package (find_package(aeronrs)) and smoke-runs every
# sample over IPC against our standalone driver (target/release/aeronmd; AERONRS_PROFILE picks another profile) in its own
# AERON_DIR: basic publisher -> basic subscriber, ping <-> pong, streaming publisher ->
# rate subscriber, and aeron_stat. Every step is time bounded; the driver and any sample
# still running are stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${AERONRS_PROFILE:-release}"
bash scripts/build-c-package.sh
cargo build --profile "$profile" --bin aeronmd --example ping --example pong --example streaming_publisher \
  --example rate_subscriber --example offer_poll_cost
cmake -S examples-c -B target/examples-c -DCMAKE_PREFIX_PATH="$PWD/target/dist" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build target/examples-c -j2

bin=target/examples-c
work=$(mktemp -d /tmp/aeronrs-examples-XXXXXX)
dir="$work/aeron"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "examples-c: $*" >&2
  for log in "$work"/*.log; do echo "--- $log"; tail -20 "$log"; done >&2
  exit 1
}

# Waits up to $2 seconds for file $1 to contain $3.
wait_for() {
  local file=$1 seconds=$2 text=$3
  for _ in $(seq $((seconds * 10))); do
    grep -q -- "$text" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no '$text' in $file after ${seconds}s"
}

# Interrupts a background sample and waits for it to exit cleanly.
stop() {
  local pid=$1 name=$2
  kill -INT "$pid"
  timeout 20 tail --pid="$pid" -f /dev/null || fail "$name did not stop on SIGINT"
  wait "$pid" || fail "$name exited with an error"
}

AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true "target/$profile/aeronmd" >"$work/aeronmd.log" 2>&1 &
pids+=($!)
wait_for "$work/aeronmd.log" 20 "driver started"

echo "examples-c: version"
"$bin/basic_publisher" -v | grep -q "major 1 minor 48" || fail "basic_publisher -v"

echo "examples-c: basic_publisher -> basic_subscriber"
"$bin/basic_subscriber" -p "$dir" -c aeron:ipc -s 1001 >"$work/subscriber.log" 2>&1 &
sub=$!
pids+=("$sub")
wait_for "$work/subscriber.log" 20 "Subscription channel status"
timeout 60 "$bin/basic_publisher" -p "$dir" -c aeron:ipc -s 1001 -m 3 >"$work/publisher.log" 2>&1 ||
  fail "basic_publisher failed"
wait_for "$work/subscriber.log" 20 "<<Hello World! 2>>"
grep -q "yay!" "$work/publisher.log" || fail "basic_publisher offered nothing"
stop "$sub" basic_subscriber

cost_stream=1020
# The C samples, then their Rust twins (examples/*.rs, what scripts/perf-c.sh compares).
for samples in "$bin" "target/$profile/examples"; do
  kind=C
  [ "$samples" = "$bin" ] || kind=Rust
  echo "examples-c: ping <-> pong ($kind)"
  "$samples/pong" -p "$dir" -c aeron:ipc -C aeron:ipc >"$work/pong.log" 2>&1 &
  pong=$!
  pids+=("$pong")
  wait_for "$work/pong.log" 20 "Publication channel status"
  timeout 120 "$samples/ping" -p "$dir" -c aeron:ipc -C aeron:ipc -m 20000 -w 2000 >"$work/ping.log" 2>&1 ||
    fail "ping ($kind) failed"
  grep -q "^20000 round trips" "$work/ping.log" || fail "ping ($kind) did not report 20000 round trips"
  grep "round trips" "$work/ping.log"
  stop "$pong" "pong ($kind)"

  echo "examples-c: streaming_publisher -> rate_subscriber ($kind)"
  "$samples/rate_subscriber" -p "$dir" -c aeron:ipc >"$work/rate.log" 2>&1 &
  rate=$!
  pids+=("$rate")
  wait_for "$work/rate.log" 20 "Subscription channel status"
  timeout 120 "$samples/streaming_publisher" -p "$dir" -c aeron:ipc -m 2000000 -L 32 >"$work/streaming.log" 2>&1 ||
    fail "streaming_publisher ($kind) failed"
  grep "^Total:" "$work/streaming.log" || fail "streaming_publisher ($kind) did not report totals"
  wait_for "$work/rate.log" 20 "totals 2000000 messages"
  stop "$rate" "rate_subscriber ($kind)"

  echo "examples-c: offer_poll_cost ($kind)"
  timeout 60 "$samples/offer_poll_cost" -p "$dir" -m 100000 -s "$cost_stream" >"$work/cost.log" 2>&1 ||
    fail "offer_poll_cost ($kind) failed"
  grep -q "^round 3: 99840 messages of 32 bytes: offer" "$work/cost.log" || fail "offer_poll_cost ($kind) output"
  cost_stream=$((cost_stream + 1))
done

echo "examples-c: embedded_demo (the demo from C, its own embedded driver)"
timeout 120 "$bin/embedded_demo" 200000 2000 >"$work/demo.log" 2>&1 || fail "embedded_demo failed"
grep -q "200000 messages of 32 bytes" "$work/demo.log" || fail "embedded_demo throughput line"
grep -q "p50 .* p99.9 .* max" "$work/demo.log" || fail "embedded_demo round-trip percentiles"

echo "examples-c: aeron_stat"
timeout 20 "$bin/aeron_stat" -d "$dir" -w false >"$work/stat.log" 2>&1 || fail "aeron_stat failed"
grep -q "Aeron Stat (CnC v0.2.0)" "$work/stat.log" || fail "aeron_stat header"
grep -q "Bytes sent" "$work/stat.log" || fail "aeron_stat printed no system counters"

echo "examples-c: all samples ran"
