#!/usr/bin/env bash
# Aeron C's own programs on Aeron's own headers, linked once to Aeron's libaeron.so and
# once to our libaeronrs.so, run alternating against one driver over IPC:
#   - round trip: cping/cpong, 32 B (p50, p99 in µs);
#   - throughput: streaming_publisher -> rate_subscriber, 32 B (msgs/s);
#   - one thread: examples-c/offer_poll_cost.c (ns per offer and per poll of a batch);
#   - with CALLGRIND=1 also instructions per call under valgrind's callgrind: per offer and
#     poll of offer_poll_cost, and per call of scripts/lib/call_cost.c (the one-message
#     offer + poll cping and cpong make, and empty polls).
# Each figure is the median over the runs, with ours/libaeron. The objects of each program
# are linked twice, so both sides run the same compiled code and differ only in library.
#
#   AERON_C_DIR=<Aeron build dir> scripts/compare-libaeron.sh [repeats (3)]
#
# AERON_C_DIR is a CMake build directory of real-logic/aeron configured with
# -DAERON_BUILD_SAMPLES=ON -DLINK_SAMPLES_CLIENT_SHARED=ON (docs/benchmarks.md has the
# commands); the targets this needs are built there if missing. Without it the script
# says so and exits 0. DRIVER=aeron runs that build's aeronmd instead of ours (over IPC
# the driver is not on the data path). MESSAGES (1000000) sets the round trips per run,
# THROUGHPUT_MESSAGES (100000000) the messages per throughput run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${AERON_C_DIR:-}" ]; then
  echo "compare-libaeron: skipped: set AERON_C_DIR to a CMake build directory of real-logic/aeron" \
    "(with AERON_BUILD_SAMPLES=ON) to compare libaeronrs.so with its libaeron.so"
  exit 0
fi
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # median, ratio, percentiles, load

repeats=${1:-3}
messages=${MESSAGES:-1000000}
throughput_messages=${THROUGHPUT_MESSAGES:-100000000}
aeron_build=$(cd "$AERON_C_DIR" && pwd)
cache="$aeron_build/CMakeCache.txt"
[ -f "$cache" ] || { echo "no CMakeCache.txt in $aeron_build: not a CMake build directory" >&2; exit 1; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
aeron_src=$(cache_value CMAKE_HOME_DIRECTORY)
aeron_headers="$aeron_src/aeron-client/src/main/c"
samples="$aeron_build/aeron-samples/src/main/c/CMakeFiles"
programs=(cping cpong streaming_publisher rate_subscriber)

missing=no
for f in "$aeron_build/lib/libaeron.so" "$aeron_build/lib/libhdr_histogram_static.a" "$aeron_build/binaries/aeronmd"; do
  [ -f "$f" ] || missing=yes
done
for p in "${programs[@]}"; do
  [ -f "$samples/$p.dir/$p.c.o" ] || missing=yes
done
if [ "$missing" = yes ]; then
  echo "building Aeron's aeron, aeronmd and samples in $aeron_build" >&2
  "$(cache_value CMAKE_COMMAND)" --build "$aeron_build" -j2 --target aeron aeronmd "${programs[@]}" >&2
fi
libaeron="$aeron_build/lib/libaeron.so"

cargo build --release --lib --bin aeronmd 2>/dev/null
ours="$PWD/target/release/libaeronrs.so"

work=$(mktemp -d /tmp/aeronrs-compare-libaeron-XXXXXX)
dir="$work/aeron"
pids=()
trap bench_cleanup EXIT

# Every program twice: bin/libaeron/<p> and bin/aeronrs/<p>, from the same objects.
sides=(libaeron aeronrs)
library() { if [ "$1" = libaeron ]; then echo "$libaeron"; else echo "$ours"; fi; }
mkdir -p "$work/obj" "$work/bin/libaeron" "$work/bin/aeronrs"
compile() { # <source> <object>: on Aeron's headers (ours lack nothing the samples use)
  cc -O3 -DNDEBUG -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$aeron_headers" \
    -include aeronc.h -include aeron_agent.h -c "$1" -o "$2"
}
compile examples-c/offer_poll_cost.c "$work/obj/offer_poll_cost.o"
compile examples-c/sample_util.c "$work/obj/sample_util.o"
compile scripts/lib/call_cost.c "$work/obj/call_cost.o"
for side in "${sides[@]}"; do
  lib=$(library "$side")
  link=(-Wl,-rpath,"$(dirname "$lib")" "$lib" -lm -lpthread -ldl)
  for p in "${programs[@]}"; do
    cc -o "$work/bin/$side/$p" "$samples/$p.dir/$p.c.o" "$samples/$p.dir/sample_util.c.o" \
      "$aeron_build/lib/libhdr_histogram_static.a" "${link[@]}"
  done
  cc -o "$work/bin/$side/offer_poll_cost" "$work/obj/offer_poll_cost.o" "$work/obj/sample_util.o" "${link[@]}"
  cc -o "$work/bin/$side/call_cost" "$work/obj/call_cost.o" "${link[@]}"
done

# One driver for every run, sleeping 1 ms when idle so it does not compete for the cores.
driver=${DRIVER:-aeronrs}
aeronmd="$PWD/target/release/aeronmd"
[ "$driver" = aeron ] && aeronmd="$aeron_build/binaries/aeronmd"
AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true AERON_TERM_BUFFER_SPARSE_FILE=true \
  AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=sleeping AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1ms \
  "$aeronmd" >"$work/aeronmd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -f "$dir/cnc.dat" ] && break; sleep 0.1; done
[ -f "$dir/cnc.dat" ] || { echo "aeronmd did not start: $(cat "$work/aeronmd.log")" >&2; exit 1; }
sleep 0.5

# A stream of its own per run: an earlier run's publication lingers until its client
# times out, and would be another image of the same stream.
stream=3000
next_stream() { stream=$((stream + 10)); }

ping_pong() { # <side> <log>
  local bin="$work/bin/$1"
  next_stream
  "$bin/cpong" -p "$dir" -c aeron:ipc -C aeron:ipc -s "$stream" -S $((stream + 1)) >"$2.pong" 2>&1 &
  local pong=$!
  timeout 300 "$bin/cping" -p "$dir" -c aeron:ipc -C aeron:ipc -s "$stream" -S $((stream + 1)) \
    -m "$messages" -w 100000 >"$2" 2>&1 || true
  kill -INT "$pong" 2>/dev/null || true
  wait "$pong" 2>/dev/null || true
}

# rate_subscriber's "1000ms, 1.234e+07 msgs/sec, ..." reports -> msgs/s over the reports
# with messages, less the first and the last (partial: start-up, the publisher finishing).
subscriber_rate() {
  awk '$3 == "msgs/sec," && $2 + 0 > 0 { ms[++n] = $1 + 0; r[n] = $2 + 0 }
    END {
      first = n >= 3 ? 2 : 1; last = n >= 3 ? n - 1 : n
      for (i = first; i <= last; i++) { s += r[i] * ms[i]; t += ms[i] }
      if (t == 0) print "-"; else printf "%.0f\n", s / t
    }' "$1"
}
throughput() { # <side> <log>
  local bin="$work/bin/$1"
  next_stream
  "$bin/rate_subscriber" -p "$dir" -c aeron:ipc -s "$stream" >"$2.sub" 2>&1 &
  local subscriber=$!
  sleep 0.5
  timeout 300 "$bin/streaming_publisher" -p "$dir" -c aeron:ipc -s "$stream" -L 32 \
    -m "$throughput_messages" >"$2" 2>&1 || true
  sleep 1.5
  kill -INT "$subscriber" 2>/dev/null || true
  wait "$subscriber" 2>/dev/null || true
}

# offer_poll_cost's last round: "offer X ns/msg, poll Y ns/msg" -> X Y
last_round() { awk '/^round/ { o = $(NF - 4); p = $(NF - 1) } END { print o, p }' "$1"; }

for ((r = 1; r <= repeats; r++)); do
  for side in "${sides[@]}"; do
    log="$work/$side.$r"
    starting "$log.ping" "$side: cping/cpong, run $r"
    ping_pong "$side" "$log.ping"
    read -r p50 p99 _ _ < <(percentiles "$log.ping")
    echo "$p50" >>"$work/p50.$side"
    echo "$p99" >>"$work/p99.$side"
    starting "$log.rate" "$side: streaming_publisher -> rate_subscriber, run $r"
    throughput "$side" "$log.rate"
    subscriber_rate "$log.rate.sub" >>"$work/rate.$side"
    starting "$log.cost" "$side: offer_poll_cost, run $r"
    next_stream
    timeout 300 "$work/bin/$side/offer_poll_cost" -p "$dir" -s "$stream" >"$log.cost"
    read -r offer poll < <(last_round "$log.cost")
    echo "$offer" >>"$work/offer.$side"
    echo "$poll" >>"$work/poll.$side"
    note "   p50 $p50 µs, p99 $p99 µs, $(tail -n 1 "$work/rate.$side") msgs/s, offer $offer ns, poll $poll ns"
  done
done

row() { # <label> <file stem>: medians of both sides and ours/libaeron
  local a b
  a=$(median "$work/$2.libaeron")
  b=$(median "$work/$2.aeronrs")
  printf '%-46s %12s %12s %10s\n' "$1" "$a" "$b" "$(ratio "$b" "$a" 3)"
}
echo
echo "Aeron $(basename "$aeron_src") samples on Aeron's headers over aeron:ipc, 32 B; driver: $driver;" \
  "medians of $repeats alternating runs"
printf '%-46s %12s %12s %10s\n' "" libaeron aeronrs aeronrs/libaeron
row "cping/cpong round trip p50, µs" p50
row "cping/cpong round trip p99, µs" p99
row "streaming_publisher -> rate_subscriber, msgs/s" rate
row "offer_poll_cost offer, ns per message" offer
row "offer_poll_cost poll, ns per message" poll
# This VM's round trips fall into a fast and a slow phase (where the host puts the vCPUs):
# compare runs of the same phase.
for side in "${sides[@]}"; do
  printf '%-46s %s\n' "round trip p50 of each run, $side" "$(runs "$work/p50.$side")"
done
for side in "${sides[@]}"; do
  printf '%-46s %s\n' "msgs/s of each run, $side" "$(runs "$work/rate.$side")"
done

[ "${CALLGRIND:-0}" = 1 ] || exit 0
command -v valgrind >/dev/null || { echo "CALLGRIND=1: valgrind is not installed" >&2; exit 1; }

# Inclusive instructions per call of each exported function <callee> called from <caller>,
# from callgrind_annotate's call tree: "<caller> <callee> <Ir per call>" lines.
per_call() {
  callgrind_annotate --inclusive=yes --tree=calling "$1" 2>/dev/null | awk '
    /^ *[0-9,]+ .* \*  / { caller = $0; sub(/ \[.*/, "", caller); sub(/.*:/, "", caller); sub(/\..*/, "", caller); next }
    /^$/ { caller = "" }
    caller != "" && / >   .*:aeron_[a-z_]+ \([0-9,]+x\)/ {
      ir = $1; gsub(/,/, "", ir)
      calls = $0; sub(/.*\(/, "", calls); sub(/x\).*/, "", calls); gsub(/,/, "", calls)
      callee = $0; sub(/ \([0-9,]+x\).*/, "", callee); sub(/.*:/, "", callee)
      printf "%s %s %.1f\n", caller, callee, ir / calls
    }'
}
n=100000
cost_messages=262144
for side in "${sides[@]}"; do
  note "== $side: callgrind"
  next_stream
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.call_cost.$side" \
    "$work/bin/$side/call_cost" "$dir" "$stream" "$n" >/dev/null 2>&1
  per_call "$work/cg.call_cost.$side" >"$work/ir.$side"
  next_stream
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.offer_poll_cost.$side" \
    "$work/bin/$side/offer_poll_cost" -p "$dir" -s "$stream" -m "$cost_messages" >/dev/null 2>&1
  # Three rounds of cost_messages: inclusive cost / messages.
  # Inlined code is listed again under its own source file with the export's name: the
  # export's own line is the largest.
  callgrind_annotate --inclusive=yes "$work/cg.offer_poll_cost.$side" 2>/dev/null | awk -v m=$((3 * cost_messages)) '
    / [^ ]*:aeron_(publication_offer|subscription_poll)( |$)/ {
      ir = $1; gsub(/,/, "", ir); f = $0; sub(/ \[.*/, "", f); sub(/.*:/, "", f)
      if (ir + 0 > max[f] + 0) max[f] = ir
    }
    END { for (f in max) printf "main %s_batch %.1f\n", f, max[f] / m }' >>"$work/ir.$side"
done
echo
echo "Instructions per call under callgrind (inclusive: the handler and assembler are included)"
printf '%-60s %10s %10s %10s\n' "" libaeron aeronrs aeronrs/libaeron
for what in \
  "exclusive_offer_image_poll aeron_exclusive_publication_offer|exclusive offer, 32 B (cpong's and cping's offer)" \
  "exclusive_offer_image_poll aeron_image_poll|image poll of one message (cping's and cpong's poll)" \
  "image_empty_polls aeron_image_poll|image poll, nothing to read" \
  "offer_subscription_poll aeron_publication_offer|concurrent offer, 32 B" \
  "offer_subscription_poll aeron_subscription_poll|subscription poll of one message" \
  "subscription_empty_polls aeron_subscription_poll|subscription poll, nothing to read" \
  "main aeron_publication_offer_batch|offer_poll_cost offer, per message" \
  "main aeron_subscription_poll_batch|offer_poll_cost poll of 256, per message"; do
  key=${what%%|*}
  a=$(awk -v k="$key" '$1 " " $2 == k { print $3 }' "$work/ir.libaeron")
  b=$(awk -v k="$key" '$1 " " $2 == k { print $3 }' "$work/ir.aeronrs")
  printf '%-60s %10s %10s %10s\n' "${what#*|}" "${a:--}" "${b:--}" "$(ratio "${b:-0}" "${a:-0}" 3)"
done
