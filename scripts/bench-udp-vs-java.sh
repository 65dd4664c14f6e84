#!/usr/bin/env bash
# UDP loopback benchmarks, aeronrs beside Java Aeron (the aeron-all jar of interop/java), on
# this machine, one after the other, then a table of both and the ratio.
#
#   scripts/bench-udp-vs-java.sh [seconds per throughput run (10)] [round trips (100000)] [repeats (3)]
#
# Throughput: Java's EmbeddedThroughput sample (one embedded driver, a publisher and a
# subscriber thread, busy-spinning, on aeron:udp?endpoint=localhost:20121) and ours shaped
# the same (benches/ipc_throughput.rs with --channel), 64-byte and 1 KiB messages, each
# driver with its default settings except the threading mode. msgs/s = messages received per
# second, averaged over each run's reports after the first two.
#
# Latency: a standalone driver (Java's io.aeron.driver.MediaDriver / our aeronmd) and two
# more processes, Ping and Pong (Java's samples / our C samples examples-c/ping and pong on
# libaeronrs), which busy-spin, exchanging 32-byte messages over
# aeron:udp?endpoint=localhost:20123 and :20124; round-trip percentiles from Ping.
#
# Each is run in three driver set-ups (MODES, default "dedicated shared shared-sleep"):
#   dedicated - every setting at its default (conductor, sender and receiver threads with
#               the default idle strategies). On a 2-CPU machine the two spinning processes
#               and three driver threads compete for the CPUs: this is the "defaults"
#               measurement (Aeron's backoff yields and starves there; ours parks).
#   shared    - the driver's agents on one thread (SHARED), else defaults.
#   shared-sleep - SHARED, and both drivers sleep 1 µs when idle (Agrona's
#               SleepingIdleStrategy / our sleep-ns): no yields on either side, so neither
#               driver is starved by the spinners and the protocol stacks are compared.
# DEFAULTS_ROUND_TRIPS (default 5000) is the number of Java round trips in the modes where
# its driver backs off by yielding (milliseconds per round trip here); every run is
# time-bounded (RUN_TIMEOUT seconds, default 300).
# BENCH_NICE=-10 runs everything at that nice level (root only).
set -euo pipefail
cd "$(dirname "$0")/.."

run_seconds=${1:-10}
round_trips=${2:-100000}
repeats=${3:-3}
modes=${MODES:-dedicated shared shared-sleep}
run_timeout=${RUN_TIMEOUT:-300}
work=$(mktemp -d)
shm=/dev/shm
[ -d "$shm" ] || shm=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work" "$shm"/aeronrs-bench-udp-*
}
trap cleanup EXIT

# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh
java_setup

# --- Our side: the throughput benchmark, aeronmd and the C samples, built once ----------
cargo bench --bench ipc_throughput --no-run 2>"$work/build.log" || { cat "$work/build.log"; exit 1; }
throughput_exe=$(ls -t target/release/deps/ipc_throughput-* | grep -v '\.d$' | head -1)
cargo build --release --bin aeronmd 2>>"$work/build.log" || { cat "$work/build.log"; exit 1; }
[ -x target/examples-c/ping ] && [ -x target/examples-c/pong ] || bash scripts/examples-c.sh >"$work/examples.log"

nice_prefix=()
if [ -n "${BENCH_NICE:-}" ]; then nice_prefix=(nice -n "$BENCH_NICE"); fi

# Stops the process $1 with SIGINT, then SIGKILL after 5 s.
stop() {
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# Mode name -> our environment and Java's properties.
mode_env() {
  case $1 in
    dedicated) echo AERON_THREADING_MODE=DEDICATED ;;
    shared) echo AERON_THREADING_MODE=SHARED ;;
    shared-sleep) echo AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=sleep-ns \
      AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1us ;;
  esac
}
mode_java() {
  case $1 in
    dedicated) echo -Daeron.threading.mode=DEDICATED ;;
    shared) echo -Daeron.threading.mode=SHARED ;;
    shared-sleep) echo -Daeron.threading.mode=SHARED \
      -Daeron.shared.idle.strategy=org.agrona.concurrent.SleepingIdleStrategy ;;
  esac
}
mode_threading() { [ "$1" = dedicated ] && echo dedicated || echo shared; }

throughput_ours() { # <mode> <length> <log>
  starting "$3" "aeronrs throughput, UDP, $2 B, $1"
  # shellcheck disable=SC2046 # one word per setting
  env $(mode_env "$1") "${nice_prefix[@]}" timeout "$run_timeout" "$throughput_exe" --bench --concurrent \
    --seconds "$run_seconds" --message-length "$2" --threading-mode "$(mode_threading "$1")" \
    --channel 'aeron:udp?endpoint=localhost:20121' | tee "$3" >&2
}

throughput_java() { # <mode> <length> <log>
  starting "$3" "Java EmbeddedThroughput, UDP, $2 B, $1"
  # shellcheck disable=SC2046 # one word per property
  java_for "$shm/aeronrs-bench-udp-java-$$" io.aeron.samples.EmbeddedThroughput $(mode_java "$1") \
    -Daeron.sample.messageLength="$2" -Daeron.sample.messages=1000000000
  # It streams until SIGINT; JVM start and driver set-up take the first report or two.
  "${nice_prefix[@]}" timeout -s INT "$((run_seconds + 2))" "${java_command[@]}" </dev/null | tee "$3" >&2 || true
}

# Our aeronmd + C pong + C ping. Writes the ping log.
ping_pong_ours() { # <mode> <round trips> <log>
  starting "$3" "aeronrs aeronmd + C ping/pong, UDP, $1"
  local dir="$shm/aeronrs-bench-udp-ours-$$"
  # shellcheck disable=SC2046 # one word per setting
  env $(mode_env "$1") AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true \
    "${nice_prefix[@]}" target/release/aeronmd >"$work/aeronmd.log" 2>&1 &
  local driver=$!
  pids+=("$driver")
  wait_for "$work/aeronmd.log" "driver started"
  "${nice_prefix[@]}" target/examples-c/pong -p "$dir" >"$work/pong.log" 2>&1 &
  local pong=$!
  pids+=("$pong")
  wait_for "$work/pong.log" "Publication channel status"
  "${nice_prefix[@]}" timeout "$run_timeout" target/examples-c/ping -p "$dir" -L 32 \
    -w "$(($2 / 10))" -m "$2" >"$3" 2>&1 || note "ping: timed out or failed"
  grep "round trips" "$3" >&2 || true
  stop "$pong"
  stop "$driver"
}

# Java's MediaDriver + Pong + Ping samples. Writes the ping log.
ping_pong_java() { # <mode> <round trips> <log>
  starting "$3" "Java MediaDriver + Ping/Pong, UDP, $1"
  local dir="$shm/aeronrs-bench-udp-java-pp-$$"
  # shellcheck disable=SC2046 # one word per property
  java_for "$dir" io.aeron.driver.MediaDriver $(mode_java "$1")
  "${nice_prefix[@]}" "${java_command[@]}" >"$work/java-driver.log" 2>&1 &
  local driver=$!
  pids+=("$driver")
  for _ in $(seq 200); do [ -s "$dir/cnc.dat" ] && break; sleep 0.1; done
  local samples=(-Daeron.sample.messageLength=32 -Daeron.sample.embeddedMediaDriver=false)
  java_for "$dir" io.aeron.samples.Pong "${samples[@]}"
  "${nice_prefix[@]}" "${java_command[@]}" >"$work/java-pong.log" 2>&1 &
  local pong=$!
  pids+=("$pong")
  java_for "$dir" io.aeron.samples.Ping "${samples[@]}" -Daeron.sample.messages="$2" \
    -Daeron.sample.warmup.iterations=1 -Daeron.sample.warmup.messages="$(($2 / 10))"
  # "n" answers its "Execute again?" prompt.
  echo n | "${nice_prefix[@]}" timeout "$run_timeout" "${java_command[@]}" >"$3" 2>&1 || note "Java Ping: timed out or failed"
  stop "$pong"
  stop "$driver"
}

# C ping's "N round trips in Xs: p50 N ns, p90 N ns, p99 N ns, p99.9 N ns, max N ns" -> µs.
c_percentiles() {
  awk '/round trips in/ {
      for (i = 1; i <= NF; i++) { v = $(i + 1); gsub(/,/, "", v); if ($i == "p50") a = v; if ($i == "p99") b = v; if ($i == "p99.9") c = v; if ($i == "max") d = v }
      printf "%.3f %.3f %.3f %.3f\n", a / 1000, b / 1000, c / 1000, d / 1000; found = 1 }
    END { if (!found) print "- - - -" }' "$1"
}

for ((r = 1; r <= repeats; r++)); do
  for mode in $modes; do
    for length in 64 1024; do
      throughput_ours "$mode" "$length" "$work/tp-ours-$mode-$length-$r.log"
      throughput_java "$mode" "$length" "$work/tp-java-$mode-$length-$r.log"
      read -r msgs mbs < <(rate "$work/tp-ours-$mode-$length-$r.log")
      echo "$msgs" >>"$work/tp-$mode-$length-msgs.ours"
      echo "$mbs" >>"$work/tp-$mode-$length-mbs.ours"
      read -r msgs mbs < <(rate_per_sec_lines "$work/tp-java-$mode-$length-$r.log")
      echo "$msgs" >>"$work/tp-$mode-$length-msgs.java"
      echo "$mbs" >>"$work/tp-$mode-$length-mbs.java"
    done
    ping_pong_ours "$mode" "$round_trips" "$work/pp-ours-$mode-$r.log"
    read -r p50 p99 p999 max < <(c_percentiles "$work/pp-ours-$mode-$r.log")
    printf '%s\n' "$p50" >>"$work/pp-$mode-p50.ours"
    printf '%s\n' "$p99" >>"$work/pp-$mode-p99.ours"
    printf '%s\n' "$p999" >>"$work/pp-$mode-p99.9.ours"
    printf '%s\n' "$max" >>"$work/pp-$mode-max.ours"
    # Java's yielding backoff takes milliseconds per round trip here: fewer of them.
    java_trips=$round_trips
    [ "$mode" != shared-sleep ] && java_trips=${DEFAULTS_ROUND_TRIPS:-5000}
    ping_pong_java "$mode" "$java_trips" "$work/pp-java-$mode-$r.log"
    read -r p50 p99 p999 max < <(percentiles "$work/pp-java-$mode-$r.log")
    printf '%s\n' "${p50:--}" >>"$work/pp-$mode-p50.java"
    printf '%s\n' "${p99:--}" >>"$work/pp-$mode-p99.java"
    printf '%s\n' "${p999:--}" >>"$work/pp-$mode-p99.9.java"
    printf '%s\n' "${max:--}" >>"$work/pp-$mode-max.java"
  done
done

echo
echo "UDP loopback, aeronrs vs Java Aeron $aeron_version, $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "medians of $repeats run(s); $run_seconds s per throughput run; $round_trips round trips per latency run (Java, except shared-sleep: ${DEFAULTS_ROUND_TRIPS:-5000})"
for mode in $modes; do
  echo
  case $mode in
    dedicated) echo "== driver threading DEDICATED: every setting at its default" ;;
    shared) echo "== driver threading SHARED, else defaults" ;;
    shared-sleep) echo "== driver threading SHARED, sleeping 1 µs when idle (no yields on either side)" ;;
  esac
  printf '%-34s %12s %12s %9s %12s %12s %9s\n' "throughput (EmbeddedThroughput)" aeronrs Java ours/Java \
    "aeronrs best" "Java best" ours/Java
  for length in 64 1024; do
    for unit in msgs mbs; do
      label="$length B, $([ $unit = msgs ] && echo msgs/s || echo MB/s)"
      f="$work/tp-$mode-$length-$unit"
      ours=$(median "$f.ours")
      java=$(median "$f.java")
      printf '%-34s %12s %12s %9s %12s %12s %9s\n' "  $label" "$ours" "$java" "$(ratio "$ours" "$java")" \
        "$(highest "$f.ours")" "$(highest "$f.java")" "$(ratio "$(highest "$f.ours")" "$(highest "$f.java")")"
    done
  done
  printf '%-34s %12s %12s %9s %12s %12s %9s\n' "round trip, 32 B, µs (Ping/Pong)" aeronrs Java ours/Java \
    "aeronrs best" "Java best" ours/Java
  for name in p50 p99 p99.9 max; do
    f="$work/pp-$mode-$name"
    ours=$(median "$f.ours")
    java=$(median "$f.java")
    printf '%-34s %12s %12s %9s %12s %12s %9s\n' "  $name" "$ours" "$java" "$(ratio "$ours" "$java")" \
      "$(lowest "$f.ours")" "$(lowest "$f.java")" "$(ratio "$(lowest "$f.ours")" "$(lowest "$f.java")")"
  done
  echo "  each run: throughput 64 B msgs/s ours $(runs "$work/tp-$mode-64-msgs.ours") | Java $(runs "$work/tp-$mode-64-msgs.java")"
  echo "            throughput 1 KiB msgs/s ours $(runs "$work/tp-$mode-1024-msgs.ours") | Java $(runs "$work/tp-$mode-1024-msgs.java")"
  echo "            round trip p50 µs ours $(runs "$work/pp-$mode-p50.ours") | Java $(runs "$work/pp-$mode-p50.java")"
done
echo
printf 'load average (1 min) before each run:'
for log in "$work"/*.log.load; do
  printf ' %s=%s' "$(basename "$log" .log.load)" "$(cut -d' ' -f1 "$log")"
done
echo
echo "throughput: ours/Java > 1 means ours is faster; latency: ours/Java < 1 means ours is lower."
