#!/usr/bin/env bash
# IPC benchmarks: ours (benches/ipc_throughput.rs, benches/ipc_ping_pong.rs, our media driver
# embedded) beside Java Aeron's embedded samples from the aeron-all jar of interop/java
# (EmbeddedIpcThroughput, EmbeddedExclusiveIpcThroughput, EmbeddedPingPong over aeron:ipc),
# run one after the other on this machine with the same settings (32-byte messages, 64 MiB IPC
# terms, 10 fragments per poll, busy-spinning application threads), then a table of both
# and the ratio. Each side runs alone; the load average before each run is printed, since
# other processes on the machine skew the figures.
#
#   scripts/bench-ipc-vs-java.sh [seconds per throughput run (10)] [round trips (1000000)] [repeats (3)]
#
# BENCH_NICE=-10 runs both sides at that nice level (root only), to keep other work on a
# shared machine from preempting the busy-spinning threads.
# BENCH_DRIVER_IDLE=sleep makes both drivers of the throughput runs sleep 1 ms when idle
# instead of their default backoff (spin, yield, then park), so the driver thread takes
# almost no CPU from the publisher and subscriber threads on a small machine.
#
# Throughput = messages received per second, averaged over each run's reports after the
# first two (JIT warm-up, page faults). The table gives the median and the best of the
# repeats (the best run is the one least disturbed by other work on the machine). Latency percentiles are read the same way from both
# sides' HdrHistogram percentile tables: the first row at or above the percentile (so p99 is
# the value at the 99.0625% tick, p99.9 at 99.9023%); ours also prints exact percentiles.
#
# Also run, for a fair thread count on small machines: Java's Ping and Pong samples against
# a separate Java driver in SHARED mode ("Java Ping/Pong"). EmbeddedPingPong's driver spins
# a sender and a receiver thread (NoOp idle) beside the ping and pong threads, which on a
# 2-CPU machine takes CPU time from them; our embedded driver runs only its conductor.
set -euo pipefail
cd "$(dirname "$0")/.."

run_seconds=${1:-10}
pings=${2:-1000000}
repeats=${3:-3}
skip_reports=2
work=$(mktemp -d)
shm=/dev/shm
[ -d "$shm" ] || shm=$(mktemp -d)
trap 'rm -rf "$work" "$shm"/aeronrs-bench-java-*' EXIT

# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh
java_setup
java_options+=(-Daeron.sample.messageLength=32)

# --- Our side: the benchmark executables, built once (bench profile: fat LTO) -----------
cargo bench --bench ipc_throughput --bench ipc_ping_pong --no-run 2>"$work/build.log" ||
  { cat "$work/build.log"; exit 1; }
bench_exe() { # the newest executable of a bench target
  ls -t target/release/deps/"$1"-* | grep -v '\.d$' | head -1
}
throughput_exe=$(bench_exe ipc_throughput)
ping_pong_exe=$(bench_exe ipc_ping_pong)

nice_prefix=()
if [ -n "${BENCH_NICE:-}" ]; then nice_prefix=(nice -n "$BENCH_NICE"); fi

throughput_ours() { # <exclusive|concurrent> <log>
  starting "$2" "aeronrs ipc_throughput --$1"
  env "${driver_idle_env[@]}" "${nice_prefix[@]}" "$throughput_exe" --bench "--$1" --seconds "$run_seconds" | tee "$2" >&2
}

throughput_java() { # <class> <log>
  starting "$2" "Java $1"
  java_for "$shm/aeronrs-bench-java-$$" "io.aeron.samples.$1" "${driver_idle_java[@]}"
  # The samples run until SIGINT; JVM start and driver set-up take the first report or two.
  "${nice_prefix[@]}" timeout -s INT "$((run_seconds + 2))" "${java_command[@]}" | tee "$2" >&2 || true
}

ping_pong_ours() { # <log>
  starting "$1" "aeronrs ipc_ping_pong"
  "${nice_prefix[@]}" "$ping_pong_exe" --bench --messages "$pings" | tee "$1" >&2
}

ping_pong_java_embedded() { # <log>
  starting "$1" "Java EmbeddedPingPong"
  java_for "$shm/aeronrs-bench-java-$$" io.aeron.samples.EmbeddedPingPong \
    -Daeron.sample.ping.channel=aeron:ipc -Daeron.sample.pong.channel=aeron:ipc \
    -Daeron.sample.messages="$pings" -Daeron.sample.exclusive.publications=true \
    -Daeron.term.buffer.sparse.file=false -Daeron.pre.touch.mapped.memory=true
  # "n" answers its "Execute again?" prompt.
  echo n | "${nice_prefix[@]}" "${java_command[@]}" | tee "$1" >&2
}

ping_pong_java_separate() { # <log>
  starting "$1" "Java Ping + Pong, separate SHARED driver"
  local dir="$shm/aeronrs-bench-java-pp-$$"
  local samples=(-Daeron.sample.ping.channel=aeron:ipc -Daeron.sample.pong.channel=aeron:ipc
    -Daeron.sample.messages="$pings" -Daeron.sample.exclusive.publications=true
    -Daeron.pre.touch.mapped.memory=true)
  # The interop driver (SHARED, 1 ms sleeping idle) stops when its stdin closes: a fifo we
  # hold open until the end.
  mkfifo "$work/driver.stdin"
  java_for "$dir" aeronrs.interop.Interop -Daeron.term.buffer.sparse.file=false
  "${nice_prefix[@]}" "${java_command[@]}" driver <"$work/driver.stdin" >"$work/driver.log" &
  local driver=$!
  exec 3>"$work/driver.stdin"
  until grep -q READY "$work/driver.log"; do sleep 0.1; done
  java_for "$dir" io.aeron.samples.Pong "${samples[@]}"
  "${nice_prefix[@]}" "${java_command[@]}" >"$work/pong.log" &
  local pong=$!
  java_for "$dir" io.aeron.samples.Ping "${samples[@]}"
  echo n | "${nice_prefix[@]}" "${java_command[@]}" | tee "$1" >&2
  kill -TERM "$pong" 2>/dev/null || true
  wait "$pong" || true
  exec 3>&-
  wait "$driver" || true
  rm -f "$work/driver.stdin"
}

# Each repeat runs every benchmark once, ours and Java's alternating, so slow phases of a
# shared machine hit both; the table shows medians over the repeats.
for ((r = 1; r <= repeats; r++)); do
  throughput_ours concurrent "$work/ours-concurrent-$r.log"
  throughput_java EmbeddedIpcThroughput "$work/java-concurrent-$r.log"
  throughput_ours exclusive "$work/ours-exclusive-$r.log"
  throughput_java EmbeddedExclusiveIpcThroughput "$work/java-exclusive-$r.log"
  ping_pong_ours "$work/ours-pp-$r.log"
  ping_pong_java_embedded "$work/java-pp-$r.log"
  ping_pong_java_separate "$work/java-pp2-$r.log"
  # One value per line per metric and side: <metric>.<side>
  for side in ours java; do
    for kind in concurrent exclusive; do
      read -r msgs mbs < <(rate "$work/$side-$kind-$r.log")
      echo "$msgs" >>"$work/$kind-msgs.$side"
      echo "$mbs" >>"$work/$kind-mbs.$side"
    done
  done
  for side in ours java java2; do
    log="$work/$side-pp-$r.log"
    [ "$side" = java2 ] && log="$work/java-pp2-$r.log"
    read -r p50 p99 p999 max < <(percentiles "$log")
    echo "$p50" >>"$work/p50.$side"
    echo "$p99" >>"$work/p99.$side"
    echo "$p999" >>"$work/p99.9.$side"
    echo "$max" >>"$work/max.$side"
  done
done

echo
echo "IPC, aeronrs vs Java Aeron $aeron_version (samples from aeron-all), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "medians of $repeats run(s) per benchmark; $run_seconds s per throughput run, $pings round trips per latency run"
echo "throughput drivers idle: ${BENCH_DRIVER_IDLE:-default (backoff)}; nice: ${BENCH_NICE:-0}"
echo
printf '%-34s %12s %12s %9s %12s %12s %9s\n' "throughput, 32 B messages" "aeronrs" "Java" "ours/Java" \
  "aeronrs best" "Java best" "ours/Java"
for kind in concurrent exclusive; do
  for unit in msgs mbs; do
    label="$kind publication, $([ $unit = msgs ] && echo msgs/s || echo MB/s)"
    ours=$(median "$work/$kind-$unit.ours")
    java=$(median "$work/$kind-$unit.java")
    ours_best=$(highest "$work/$kind-$unit.ours")
    java_best=$(highest "$work/$kind-$unit.java")
    printf '%-34s %12s %12s %9s %12s %12s %9s\n' "  $label" "$ours" "$java" "$(ratio "$ours" "$java")" \
      "$ours_best" "$java_best" "$(ratio "$ours_best" "$java_best")"
  done
done
echo
printf '%-34s %12s %12s %9s %12s %9s\n' "round trip, 32 B, exclusive, µs" aeronrs "Java embed." ours/Java \
  "Java Pi/Po" ours/Java
for best in median lowest; do
  [ $best = lowest ] && echo "  best run of each:"
  for name in p50 p99 p99.9 max; do
    ours=$($best "$work/$name.ours")
    java=$($best "$work/$name.java")
    java2=$($best "$work/$name.java2")
    printf '%-34s %12s %12s %9s %12s %9s\n' "  $name" "$ours" "$java" "$(ratio "$ours" "$java")" \
      "$java2" "$(ratio "$ours" "$java2")"
  done
done
echo
echo "each run:"
for kind in concurrent exclusive; do
  printf '  %-30s ours %s | Java %s\n' "$kind msgs/s" "$(runs "$work/$kind-msgs.ours")" "$(runs "$work/$kind-msgs.java")"
done
for name in p50 p99 p99.9 max; do
  printf '  %-30s ours %s | Java embedded %s | Java Ping/Pong %s\n' "round trip $name µs" \
    "$(runs "$work/$name.ours")" "$(runs "$work/$name.java")" "$(runs "$work/$name.java2")"
done
echo
printf 'load average (1 min) before each run:'
for log in "$work"/*.log.load; do
  name=$(basename "$log" .log.load)
  printf ' %s=%s' "$name" "$(cut -d' ' -f1 "$log")"
done
echo
echo "load average after the runs: $(load)"
echo "throughput: ours/Java > 1 means ours is faster; latency: ours/Java < 1 means ours is lower."
echo "Java Pi/Po = Java's Ping and Pong samples with a separate SHARED-mode Java driver (see the top of this script)."
grep -h '^aeronrs round trip' "$work"/ours-pp-*.log | sed 's/^/exact percentiles of ours: /'
