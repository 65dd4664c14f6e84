#!/usr/bin/env bash
# The Go binding (bindings/go, cgo over libaeronrs.so) beside the C samples (examples-c/ on
# the same library), against one standalone driver: IPC round trip percentiles (ping/pong)
# and streaming throughput (streaming_publisher -> rate_subscriber) with 32-byte messages
# over aeron:ipc with 64 MiB terms, alternating C and Go each repeat.
#
#   scripts/bench-go.sh [repeats (5)]
#
# MESSAGES (200 000) measured round trips after WARM_UP (20 000); STREAM_MESSAGES
# (5 000 000) streamed. Both sides busy-spin; the driver sleeps 1 ms when idle (over IPC it
# is not on the data path). Go's streaming is measured twice: one Offer (one cgo call) per
# message, and OfferBatch handing 64 messages to C per call. The Go figures are `go test
# -bench` of bindings/go/bench_test.go: its pong is a child process, as the C pong is.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # build_c_samples, quiet_driver, wait_for, median, ratio

repeats=${1:-5}
messages=${MESSAGES:-200000}
warm_up=${WARM_UP:-20000}
stream_messages=${STREAM_MESSAGES:-5000000}
build_c_samples
cargo build --release --bin aeronmd 2>/dev/null
channel="aeron:ipc?term-length=64m"
c_bin=target/examples-c
export PKG_CONFIG_PATH="$PWD/target/dist/lib/pkgconfig"
export CGO_LDFLAGS="-Wl,-rpath,$PWD/target/dist/lib"
go_bench="$PWD/target/go-bench.test"
(cd bindings/go && go test -c -o "$go_bench")

quiet_driver bench-go

c_ping_pong() { # <log>
  "$c_bin/pong" -p "$dir" -c "$channel" -C "$channel" >"$work/pong.log" 2>&1 &
  local pong=$!
  pids+=("$pong")
  wait_for "$work/pong.log" "Publication channel status"
  "$c_bin/ping" -p "$dir" -c "$channel" -C "$channel" -L 32 -w "$warm_up" -m "$messages" >"$1"
  kill -INT "$pong"
  wait "$pong" || true
}

c_streaming() { # <log>
  "$c_bin/rate_subscriber" -p "$dir" -c "$channel" -f 1024 >"$work/rate.log" 2>&1 &
  local rate=$!
  pids+=("$rate")
  wait_for "$work/rate.log" "Subscription channel status"
  "$c_bin/streaming_publisher" -p "$dir" -c "$channel" -L 32 -m "$stream_messages" >"$1"
  kill -INT "$rate"
  wait "$rate" || true
}

go_bench() { # <benchmark> <count> <log>
  (cd bindings/go && AERON_DIR="$dir" WARM_UP="$warm_up" "$go_bench" -test.run '^$' \
    -test.bench "^$1\$" -test.benchtime "${2}x") >"$3"
}

# "N round trips in Xs: p50 N ns, p90 N ns, p99 N ns, p99.9 N ns, ..." -> "p50 p99 p99.9".
c_round_trip() {
  awk '/round trips in/ {
      for (i = 1; i <= NF; i++) { v = $(i + 1); gsub(/,/, "", v); if ($i == "p50") a = v; if ($i == "p99") c = v; if ($i == "p99.9") d = v }
      print a, c, d }' "$1"
}
# "BenchmarkIPCRoundTrip-2  N  ns/op  M max-ns  A p50-ns  B p99-ns  C p99.9-ns" -> "A B C".
go_metric() { # <log> <unit>...
  local log=$1
  shift
  awk -v units="$*" 'BEGIN { n = split(units, u, " ") }
    /^Benchmark/ { out = ""; for (k = 1; k <= n; k++) for (i = 2; i <= NF; i++) if ($i == u[k]) out = out (k > 1 ? " " : "") $(i - 1); print out }' "$log"
}
c_rate() { awk '/^Total:/ { print $3 + 0 }' "$1"; }

for ((r = 1; r <= repeats; r++)); do
  order="c go"
  ((r % 2 == 0)) && order="go c"
  for side in $order; do
    log="$work/rtt-$side-$r.log"
    if [ "$side" = c ]; then
      c_ping_pong "$log"
      read -r p50 p99 p999 < <(c_round_trip "$log")
    else
      go_bench BenchmarkIPCRoundTrip "$messages" "$log"
      read -r p50 p99 p999 < <(go_metric "$log" p50-ns p99-ns p99.9-ns)
    fi
    note "round trip $side: p50 $p50 p99 $p99 p99.9 $p999 ns"
    echo "$p50" >>"$work/p50.$side"
    echo "$p99" >>"$work/p99.$side"
    echo "$p999" >>"$work/p99.9.$side"
  done
  for side in $order; do
    log="$work/stream-$side-$r.log"
    if [ "$side" = c ]; then
      c_streaming "$log"
      rate=$(c_rate "$log")
    else
      go_bench BenchmarkIPCThroughput "$stream_messages" "$log"
      rate=$(go_metric "$log" msgs/s)
    fi
    note "streaming $side: $rate msgs/s"
    echo "$rate" >>"$work/rate.$side"
  done
  go_bench BenchmarkIPCThroughputBatch "$stream_messages" "$work/batch-$r.log"
  rate=$(go_metric "$work/batch-$r.log" msgs/s)
  note "streaming go, OfferBatch of 64: $rate msgs/s"
  echo "$rate" >>"$work/rate.batch"
done

echo
echo "Go binding vs C samples (libaeronrs.so), our aeronmd, $channel, 32 B; medians of $repeats runs"
printf '%-30s %14s %14s %8s\n' "" C Go Go/C
for name in p50 p99 p99.9; do
  c=$(median "$work/$name.c")
  g=$(median "$work/$name.go")
  printf '%-30s %14s %14s %8s\n' "round trip $name, ns" "$c" "$g" "$(ratio "$g" "$c")"
done
c=$(median "$work/rate.c")
g=$(median "$work/rate.go")
printf '%-30s %14.0f %14.0f %8s\n' "streaming, msgs/s" "$c" "$g" "$(ratio "$g" "$c")"
g=$(median "$work/rate.batch")
printf '%-30s %14s %14.0f %8s\n' "streaming, OfferBatch, msgs/s" "" "$g" "$(ratio "$g" "$c")"
echo "each run: p50 C $(runs "$work/p50.c") | Go $(runs "$work/p50.go")"
echo "          msgs/s C $(runs "$work/rate.c") | Go $(runs "$work/rate.go")"
