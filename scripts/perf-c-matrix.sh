#!/usr/bin/env bash
# Which side of the round trip makes the C samples' difference: every pairing of the C and
# Rust ping with the C and Rust pong (examples-c/ on libaeronrs.so, examples/ twins),
# interleaved against one standalone driver, then the mean99 of each pairing per phase of
# the machine. This VM's two vCPUs alternate between a fast phase (round trip ~130 ns) and
# a slow one (~450 ns) for seconds to minutes; a pairing's runs are sorted into the phase
# they ran in (mean99 below or above SLOW_NS), so phases never mix in one figure.
#
#   scripts/perf-c-matrix.sh [repeats (40)]
#
# Set-up as scripts/perf-c.sh: aeronmd SHARED sleeping 1 ms, aeron:ipc with 64 MiB terms,
# 32 B, WARM_UP (100 000) + MESSAGES (300 000) round trips per run, each run with a fresh pong.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # build_c_samples, quiet_driver, wait_for

repeats=${1:-40}
slow_ns=${SLOW_NS:-300}
build_c_samples
cargo build --release --bin aeronmd --example ping --example pong 2>/dev/null
channel="aeron:ipc?term-length=64m"
bin_of() { if [ "$1" = c ]; then echo target/examples-c; else echo target/release/examples; fi; }

quiet_driver perf-c-matrix

for ((r = 1; r <= repeats; r++)); do
  for pair in "rust rust" "rust c" "c rust" "c c"; do
    read -r ping pong <<<"$pair"
    "$(bin_of "$pong")/pong" -p "$dir" -c "$channel" -C "$channel" >"$work/pong.log" 2>&1 &
    pong_pid=$!
    pids+=("$pong_pid")
    wait_for "$work/pong.log" "Publication channel status"
    # A bound per run: a sample that stalls costs one run, not the whole matrix.
    timeout 60 "$(bin_of "$ping")/ping" -p "$dir" -c "$channel" -C "$channel" -L 32 \
      -w "${WARM_UP:-100000}" -m "${MESSAGES:-300000}" >"$work/ping.log" || echo "run $r: $ping ping / $pong pong failed" >&2
    kill -INT "$pong_pid"
    wait "$pong_pid" || true
    mean99=$(awk '/round trips in/ { for (i = 1; i < NF; i++) if ($i == "mean99") print $(i + 1) }' "$work/ping.log")
    [ -n "$mean99" ] && echo "$ping $pong $mean99" >>"$work/runs"
  done
done

echo
echo "mean99 round trip (ns) of each ping/pong pairing, our aeronmd, $channel, 32 B; $repeats repeats"
awk -v slow="$slow_ns" '
  { phase = ($3 >= slow) ? "slow" : "fast"; key = phase " " $1 " ping, " $2 " pong"; sum[key] += $3; n[key]++ }
  END { for (k in sum) printf "%-32s runs %4d  mean99 %8.1f\n", k, n[k], sum[k] / n[k] }' "$work/runs" | sort
echo "(phase: mean99 below $slow_ns ns = fast, else slow; compare pairings within one phase)"
