#!/usr/bin/env bash
# Issue 19 item 1's targets: UDP loopback throughput of this driver beside the driver as it
# was before batched UDP I/O (commit 30f3794: one datagram per send and per receive system
# call), with the same client programs and settings. Each run is the C samples of
# examples-c (linked to this library) streaming over aeron:udp 127.0.0.1 through one
# standalone aeronmd:
#
#   before   aeronmd built at BASELINE_REV (default 30f3794), or BASELINE_AERONMD=<path>
#   offload  this aeronmd as it starts by default: recvmmsg/sendmmsg, UDP_SEGMENT, UDP_GRO
#   mmsg     this aeronmd with offload off (AERONRS_UDP_GSO_ENABLED=false, _GRO_=false)
#   plain    this aeronmd with nothing batched (AERONRS_UDP_MMSG_ENABLED=false as well)
#
#   scripts/bench-udp-batching.sh [repeats (5)]   (MESSAGES_32, MESSAGES_1K: messages per run)
#
# Driver settings for every side: SHARED threading with its default idle strategy, every
# other setting at its default (16 MiB terms, 128 KiB receiver window and socket buffers).
# The rate is the streaming publisher's "Total:" line: over UDP its publication limit follows
# the receiver's status messages, so over a whole run it is the delivered rate. The sides
# alternate within each repeat (the order rotating every repeat), so the machine's slow and
# fast phases hit all of them alike; the script prints the median of each side and the
# ratios the issue names (offload/before >= 3 and mmsg/before >= 2 at 32 B, 1 KiB >= 1.5).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # build_c_samples, wait_for, median, ratio, bench_cleanup

repeats=${1:-5}
baseline_rev=${BASELINE_REV:-30f3794}
pids=()
work=$(mktemp -d /tmp/aeronrs-udp-batching-XXXXXX)
baseline_tree=
cleanup() {
  if [ -n "$baseline_tree" ]; then git worktree remove --force "$baseline_tree" 2>/dev/null || true; fi
  bench_cleanup
}
trap cleanup EXIT

build_c_samples
cargo build --release --bin aeronmd 2>/dev/null
now_aeronmd=$PWD/target/release/aeronmd
if [ -n "${BASELINE_AERONMD:-}" ]; then
  before_aeronmd=$BASELINE_AERONMD
else
  # The baseline's own tree and target directory, removed on exit.
  baseline_tree=$work/baseline
  git worktree add --detach "$baseline_tree" "$baseline_rev" >/dev/null 2>&1
  echo "building aeronmd at $baseline_rev (release) ..." >&2
  (cd "$baseline_tree" && cargo build --release --bin aeronmd 2>/dev/null)
  before_aeronmd=$baseline_tree/target/release/aeronmd
fi

c_bin=target/examples-c
channel="aeron:udp?endpoint=127.0.0.1:24325"

# run <side> <length> <messages> <log>: one driver, subscriber and publisher; the driver stops after.
run() {
  local side=$1 length=$2 messages=$3 log=$4 dir="$work/aeron-$1" driver=$now_aeronmd
  local -a env=(AERON_DIR="$dir" AERON_DIR_DELETE_ON_START=true AERON_DIR_DELETE_ON_SHUTDOWN=true
    AERON_THREADING_MODE=SHARED)
  case $side in
    before) driver=$before_aeronmd ;;
    offload) ;;
    mmsg) env+=(AERONRS_UDP_GSO_ENABLED=false AERONRS_UDP_GRO_ENABLED=false) ;;
    plain) env+=(AERONRS_UDP_GSO_ENABLED=false AERONRS_UDP_GRO_ENABLED=false AERONRS_UDP_MMSG_ENABLED=false) ;;
  esac
  env "${env[@]}" "$driver" >"$work/aeronmd-$side.log" 2>&1 &
  local driver_pid=$!
  pids+=("$driver_pid")
  wait_for "$work/aeronmd-$side.log" "driver started"
  "$c_bin/rate_subscriber" -p "$dir" -c "$channel" -f 1024 >"$work/rate.log" 2>&1 &
  local rate=$!
  pids+=("$rate")
  wait_for "$work/rate.log" "Subscription channel status"
  "$c_bin/streaming_publisher" -p "$dir" -c "$channel" -L "$length" -m "$messages" >"$log"
  kill -INT "$rate"
  wait "$rate" || true
  kill -TERM "$driver_pid"
  wait "$driver_pid" || true
}

sides=(before offload mmsg plain)
for ((r = 1; r <= repeats; r++)); do
  # Rotate the order each repeat.
  order=("${sides[@]:r % 4}" "${sides[@]:0:r % 4}")
  for length in 32 1024; do
    messages=${MESSAGES_32:-20000000}
    [ "$length" = 1024 ] && messages=${MESSAGES_1K:-2000000}
    for side in "${order[@]}"; do
      run "$side" "$length" "$messages" "$work/$side-$length-$r.log"
      total=$(awk '/^Total:/ { print $3 + 0 }' "$work/$side-$length-$r.log")
      echo "$total" >>"$work/rate.$side.$length"
      echo "repeat $r, $length B, $side: $total msgs/s (load $(load))" >&2
    done
  done
done

echo
echo "UDP loopback, C samples streaming_publisher -> rate_subscriber, SHARED driver; medians of $repeats runs"
printf '%-8s %16s %16s\n' side "32 B msgs/s" "1 KiB msgs/s"
for side in "${sides[@]}"; do
  printf '%-8s %16.0f %16.0f\n' "$side" "$(median "$work/rate.$side.32")" "$(median "$work/rate.$side.1024")"
done
for length in 32 1024; do
  before=$(median "$work/rate.before.$length")
  echo "$length B: offload/before $(ratio "$(median "$work/rate.offload.$length")" "$before")," \
    "mmsg/before $(ratio "$(median "$work/rate.mmsg.$length")" "$before")," \
    "plain/before $(ratio "$(median "$work/rate.plain.$length")" "$before")"
  for side in "${sides[@]}"; do echo "  $side runs: $(runs "$work/rate.$side.$length")"; done
done
