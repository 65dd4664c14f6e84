#!/usr/bin/env bash
# Issue 5's performance check of the C API: each C sample (examples-c/, on libaeronrs.so)
# beside its Rust twin (examples/ping.rs, pong.rs, streaming_publisher.rs,
# rate_subscriber.rs: the same loop and output on the Rust client API), against the same
# standalone driver, one after the other, then the medians and the ratio C/Rust. Equal
# figures mean the C layer adds no measurable cost.
#
#   scripts/perf-c.sh [repeats (21)]   (scripts/perf-c-matrix.sh: which side makes a difference)
#
# Set-up: aeronmd in SHARED mode sleeping 1 ms when idle (over IPC the driver is not on the
# data path), aeron:ipc with 64 MiB terms, 32-byte messages. Ping/pong busy-spin, WARM_UP
# (100 000) warm-up and MESSAGES (500 000) measured round trips; the streaming publisher
# sends STREAM_MESSAGES (20 000 000) messages to a rate subscriber polling 1024 fragments
# at a time (its rate is the publisher's "Total:" line). Many short repeats rather than a
# few long ones: this VM changes speed every few seconds to minutes, and only the two runs
# of one repeat are sure to share it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # build_c_samples, quiet_driver, wait_for, median, ratio

repeats=${1:-21}
# The C samples against the library as it is now (the staged package is rebuilt on change).
build_c_samples
cargo build --release --bin aeronmd --example ping --example pong --example streaming_publisher \
  --example rate_subscriber 2>/dev/null
channel="aeron:ipc?term-length=64m"
c_bin=target/examples-c
rust_bin=target/release/examples

quiet_driver perf-c

# "N round trips in Xs: p50 N ns, p90 N ns, p99 N ns, p99.9 N ns, max N ns, mean99 N ns"
# -> values in ns. mean99 (the mean of the lowest 99 %) resolves differences below this
# VM's 10 ns clock tick, which the percentiles cannot.
round_trip_fields() {
  awk '/round trips in/ {
      for (i = 1; i <= NF; i++) { v = $(i + 1); gsub(/,/, "", v); if ($i == "p50") a = v; if ($i == "p90") b = v; if ($i == "p99") c = v; if ($i == "p99.9") d = v; if ($i == "mean99") e = v }
      print a, b, c, d, e }' "$1"
}
# "Total: 52ms, 3.801e+07 msgs/sec, ..." -> msgs/s.
total_rate() { awk '/^Total:/ { print $3 + 0 }' "$1"; }

ping_pong() { # <c|rust> <log>
  local bin=$c_bin
  [ "$1" = rust ] && bin=$rust_bin
  "$bin/pong" -p "$dir" -c "$channel" -C "$channel" >"$work/pong.log" 2>&1 &
  local pong=$!
  pids+=("$pong")
  wait_for "$work/pong.log" "Publication channel status"
  "$bin/ping" -p "$dir" -c "$channel" -C "$channel" -L 32 -w "${WARM_UP:-100000}" -m "${MESSAGES:-500000}" >"$2"
  kill -INT "$pong"
  wait "$pong" || true
  grep "round trips" "$2" | sed "s/^/$1 ping: /"
}

streaming() { # <c|rust> <log>
  local bin=$c_bin
  [ "$1" = rust ] && bin=$rust_bin
  "$bin/rate_subscriber" -p "$dir" -c "$channel" -f 1024 >"$work/rate.log" 2>&1 &
  local rate=$!
  pids+=("$rate")
  wait_for "$work/rate.log" "Subscription channel status"
  "$bin/streaming_publisher" -p "$dir" -c "$channel" -L 32 -m "${STREAM_MESSAGES:-20000000}" >"$2"
  kill -INT "$rate"
  wait "$rate" || true
  grep "^Total:" "$2" | sed "s/^/$1 streaming publisher: /"
}

# Alternating C and Rust, the first side swapped every repeat (C Rust, Rust C, ...), so a
# slow phase of the machine and any first/second bias hit both alike; the two runs of each
# kind are back to back, so a repeat's pair mostly shares the machine's phase.
for ((r = 1; r <= repeats; r++)); do
  order="c rust"
  ((r % 2 == 0)) && order="rust c"
  for side in $order; do
    ping_pong "$side" "$work/ping-$side-$r.log"
    read -r p50 p90 p99 p999 mean99 < <(round_trip_fields "$work/ping-$side-$r.log")
    echo "$p50" >>"$work/p50.$side"
    echo "$p90" >>"$work/p90.$side"
    echo "$p99" >>"$work/p99.$side"
    echo "$p999" >>"$work/p99.9.$side"
    echo "$mean99" >>"$work/mean99.$side"
  done
  for side in $order; do
    streaming "$side" "$work/stream-$side-$r.log"
    total_rate "$work/stream-$side-$r.log" >>"$work/rate.$side"
  done
done

echo
echo "C samples (libaeronrs.so) vs their Rust twins, our aeronmd, $channel, 32 B; medians of $repeats runs"
printf '%-32s %14s %14s %8s\n' "" C Rust C/Rust
for name in p50 p90 p99 p99.9 mean99; do
  c=$(median "$work/$name.c")
  rust=$(median "$work/$name.rust")
  printf '%-32s %14s %14s %8s\n' "round trip $name, ns" "$c" "$rust" "$(ratio "$c" "$rust" 3)"
done
c=$(median "$work/rate.c")
rust=$(median "$work/rate.rust")
printf '%-32s %14.0f %14.0f %8s\n' "streaming publisher, msgs/s" "$c" "$rust" "$(ratio "$c" "$rust" 3)"
echo "each run: p50 C $(paste -sd' ' "$work/p50.c") | Rust $(paste -sd' ' "$work/p50.rust")"
echo "          mean99 C $(paste -sd' ' "$work/mean99.c") | Rust $(paste -sd' ' "$work/mean99.rust")"
echo "          msgs/s C $(paste -sd' ' "$work/rate.c") | Rust $(paste -sd' ' "$work/rate.rust")"
# Each repeat runs its C and Rust samples back to back, so a repeat's two runs share the
# machine's phase (this VM switches between a fast and a slow one for tens of seconds):
# the median of the per-repeat ratios is steadier than the ratio of medians.
paired() { paste "$work/$1.c" "$work/$1.rust" | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' >"$work/$1.ratio"; }
paired mean99
paired rate
echo "per-repeat C/Rust: mean99 $(paste -sd' ' "$work/mean99.ratio") -> median $(median "$work/mean99.ratio")"
echo "                   msgs/s $(paste -sd' ' "$work/rate.ratio") -> median $(median "$work/rate.ratio")"
# The round trip per phase of the machine: a repeat whose two mean99 are both below SLOW_NS
# (300) ran in the fast phase, both above in the slow one; a repeat that straddles is left out.
for phase in fast slow; do
  paste "$work/mean99.c" "$work/mean99.rust" | awk -v slow="${SLOW_NS:-300}" -v phase="$phase" '
    (phase == "fast" && $1 < slow && $2 < slow) || (phase == "slow" && $1 >= slow && $2 >= slow) {
      printf "%.4f\n", $1 / $2 }' >"$work/mean99.$phase.ratio"
  echo "mean99 C/Rust in the $phase phase: median $(median "$work/mean99.$phase.ratio") of $(wc -l <"$work/mean99.$phase.ratio") repeats"
done
echo "latency: C/Rust < 1.05 and rate: C/Rust > 0.95 means within 5%."
