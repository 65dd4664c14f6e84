#!/usr/bin/env bash
# The benchmark matrix: one axis at a time around a base cell (32-byte messages, one
# concurrent publication, one publisher and one subscriber thread, one stream, no loss),
# for IPC and UDP loopback: message length, publishers, subscribers, streams, exclusive vs
# concurrent publication, UDP loss, and a ping-pong cell per transport. Ours is
# benches/matrix.rs (our driver embedded); Java's is the equivalent sample of the aeron-all
# jar of interop/java where one exists ("n/a" otherwise), ours and Java's alternating which
# runs first from cell to cell.
#
#   scripts/bench-matrix.sh
#     CELL_SECONDS=N  seconds per cell and side (default 10)
#     QUICK=1         2 s per cell, for a check
#     JAVA=0          ours only
#     CELLS=REGEX     only the cells whose name matches (e.g. 'udp-streams')
#     PLOT_ONLY=DIR   no runs: draw the plots again from DIR's results.tsv and .hgrm files
#
# Writes target/bench-matrix/<UTC stamp>/: results.tsv (one row per cell and side),
# logs/ (each run's output; ours ends with the driver's system counters for UDP cells),
# table.md (ours, Java and the ratio), <cell>-<side>.hgrm (ping-pong percentile
# distributions, µs) and PNG plots made with gnuplot (installed with apt-get when missing):
# throughput against message length, round-trip percentile curves, scale curves.
#
# Both drivers run their agents on one thread (SHARED) sleeping 1 µs when idle (ours:
# AERON_SHARED_IDLE_STRATEGY=sleep-ns; Java: SleepingIdleStrategy): on a small machine a
# spinning driver takes the CPU the application threads need, and neither side is then
# starved by the other's backoff. Java equivalents:
#   IPC throughput       EmbeddedIpcThroughput / EmbeddedExclusiveIpcThroughput
#   UDP throughput       EmbeddedThroughput / EmbeddedExclusiveThroughput
#   UDP loss             the same with DebugReceiveChannelEndpointSupplier dropping DATA
#   ping-pong            Java's MediaDriver (same threading) + the Ping and Pong samples
#                        (EmbeddedPingPong fixes DEDICATED with spinning sender and receiver)
#   several publishers, subscribers or streams: no sample (n/a).
# Java throughput = the samples' per-second reports after the first two (one when a cell
# is 3 s or shorter); Java ping-pong round trips/s = 1 / mean round trip.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=${QUICK:-0}
cell_seconds=${CELL_SECONDS:-$([ "$quick" = 1 ] && echo 2 || echo 10)}
java=${JAVA:-1}
filter=${CELLS:-.}
target=${CARGO_TARGET_DIR:-target}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${PLOT_ONLY:-$target/bench-matrix/$stamp}
mkdir -p "$out"
work=$(mktemp -d /tmp/aeronrs-matrix-XXXXXX)
shm=/dev/shm
[ -d "$shm" ] || shm=$work
pids=()

# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work" "$shm"/aeronrs-matrix-java-*
}
trap cleanup EXIT
skip_reports=$([ "$cell_seconds" -le 3 ] && echo 1 || echo 2)

# --- Builds: ours (bench profile), Java's jar, gnuplot ------------------------------------
install_gnuplot() {
  command -v gnuplot >/dev/null && return 0
  apt-get install -y gnuplot-nox >"$work/apt.log" 2>&1 || { apt-get update >>"$work/apt.log" 2>&1 && apt-get install -y gnuplot-nox >>"$work/apt.log" 2>&1; } ||
    note "gnuplot-nox could not be installed: no plots ($(tail -1 "$work/apt.log"))"
}
if [ -z "${PLOT_ONLY:-}" ]; then
cargo bench --bench matrix --no-run 2>"$work/build.log" || { cat "$work/build.log"; exit 1; }
matrix_exe=$(ls -t "$target"/release/deps/matrix-* | grep -v '\.d$' | head -1)
[ "$java" = 1 ] && java_setup
fi
install_gnuplot

ours_env=(AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=sleep-ns AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1us)
java_driver_props=(-Daeron.threading.mode=SHARED -Daeron.shared.idle.strategy=org.agrona.concurrent.SleepingIdleStrategy)

# --- The cells: name, axis, value on it, Java's equivalent, then our arguments ------------
names=() axes=() xs=() javas=() ours_args=()
cell() { # <name> <axis> <x> <java kind|n/a> <our arguments...>
  [[ $1 =~ $filter ]] || return 0
  names+=("$1") axes+=("$2") xs+=("$3") javas+=("$4")
  shift 4
  ours_args+=("$*")
}
for t in ipc udp; do
  cell "$t-base" base 1 "$t-concurrent" --transport "$t"
  for length in 256 1024 4096 65536; do cell "$t-length-$length" length "$length" "$t-concurrent" --transport "$t" --length "$length"; done
  cell "$t-exclusive" publication exclusive "$t-exclusive" --transport "$t" --exclusive
  for n in 2 4; do cell "$t-publishers-$n" publishers "$n" n/a --transport "$t" --publishers "$n"; done
  cell "$t-publishers-4-exclusive" publishers-exclusive 4 n/a --transport "$t" --publishers 4 --exclusive
  for n in 2 4; do cell "$t-subscribers-$n" subscribers "$n" n/a --transport "$t" --subscribers "$n"; done
  # Every stream cell on 1 MiB terms: 256 streams of the default terms would not fit in memory.
  for n in 1 16 256; do cell "$t-streams-$n" streams "$n" n/a --transport "$t" --streams "$n" --term-length 1m; done
  cell "$t-ping-pong" ping-pong 32 "$t-ping" --transport "$t" --ping-pong --exclusive
done
# The stream cells again with each image's window cut to 16 KiB and a 4 MiB receive socket
# buffer, so that every stream's window fits in the socket buffer at once (see docs/benchmarks.md).
for n in 16 256; do
  cell "udp-streams-$n-window-16k" streams-window-16k "$n" n/a --transport udp --streams "$n" --term-length 1m \
    AERON_RCV_INITIAL_WINDOW_LENGTH=16k AERON_SOCKET_SO_RCVBUF=4m
done
for loss in 0.01 0.1; do cell "udp-loss-$loss" loss "$loss" udp-loss --transport udp --loss "$loss"; done

arg_of() { # <arguments> <name> <default>: the value after <name>
  local words
  read -r -a words <<<"$1"
  for ((i = 0; i < ${#words[@]}; i++)); do [ "${words[$i]}" = "$2" ] && { echo "${words[$((i + 1))]}"; return; }; done
  echo "$3"
}

# --- One side of one cell -> "msgs_per_s mb_per_s p50 p99 p99.9" ----------------------------
run_ours() { # <index> <log>
  local name=${names[$1]} words args=() settings=()
  read -r -a words <<<"${ours_args[$1]}"
  # AERON_*=value words are driver settings for this cell, the rest the bench's arguments.
  for w in "${words[@]}"; do if [[ $w == AERON_*=* ]]; then settings+=("$w"); else args+=("$w"); fi; done
  starting "$2" "ours $name"
  env "${ours_env[@]}" "${settings[@]}" timeout $((cell_seconds + 120)) "$matrix_exe" --bench --name "$name" --seconds "$cell_seconds" \
    --hgrm "$out/$name-ours.hgrm" "${args[@]}" >"$2" 2>&1 ||
    note "ours $name failed: $(grep -m1 -A1 'panicked' "$2" | tail -1) (log: $out/logs/$(basename "$2"))"
  [[ ${ours_args[$1]} == *--ping-pong* ]] || rm -f "$out/$name-ours.hgrm"
  awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         print v["msgs_per_s"], v["mb_per_s"], v["p50_us"], v["p99_us"], v["p999_us"]; found = 1 }
       END { if (!found) print "- - - - -" }' "$2"
}

java_throughput() { # <class> <length> <log> [-D...]: EmbeddedIpcThroughput-like samples until SIGINT
  local class=$1 length=$2 log=$3
  shift 3
  java_for "$shm/aeronrs-matrix-java-$$" "io.aeron.samples.$class" "${java_driver_props[@]}" \
    -Daeron.sample.messageLength="$length" -Daeron.sample.messages=100000000000 "$@"
  timeout -s INT "$((cell_seconds + 2))" "${java_command[@]}" </dev/null >"$log" 2>&1 || true
}

java_ping_pong() { # <transport> <name> <log>
  local dir="$shm/aeronrs-matrix-java-pp-$$" channels=() messages
  [ "$1" = ipc ] && channels=(-Daeron.sample.ping.channel=aeron:ipc -Daeron.sample.pong.channel=aeron:ipc)
  messages=$([ "$1" = ipc ] && echo $((200000 * cell_seconds)) || echo $((10000 * cell_seconds)))
  java_for "$dir" io.aeron.driver.MediaDriver "${java_driver_props[@]}"
  "${java_command[@]}" >"$work/java-driver.log" 2>&1 &
  local driver=$!
  pids+=("$driver")
  for _ in $(seq 200); do [ -s "$dir/cnc.dat" ] && break; sleep 0.1; done
  local samples=(-Daeron.sample.messageLength=32 -Daeron.sample.embeddedMediaDriver=false
    -Daeron.sample.exclusive.publications=true -Daeron.pre.touch.mapped.memory=true "${channels[@]}")
  java_for "$dir" io.aeron.samples.Pong "${samples[@]}"
  "${java_command[@]}" >"$work/java-pong.log" 2>&1 &
  local pong=$!
  pids+=("$pong")
  java_for "$dir" io.aeron.samples.Ping "${samples[@]}" -Daeron.sample.messages="$messages" \
    -Daeron.sample.warmup.iterations=1 -Daeron.sample.warmup.messages=$((messages / 5))
  # "n" answers its "Execute again?" prompt.
  echo n | timeout $((cell_seconds * 3 + 60)) "${java_command[@]}" >"$3" 2>&1 || note "Java Ping $2: timed out or failed"
  for pid in "$pong" "$driver"; do
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # The percentile table is an .hgrm file as it stands.
  awk '/^ *Value +Percentile/ { on = 1 } on { print } /^#\[Buckets/ { exit }' "$3" >"$out/$2-java.hgrm"
}

run_java() { # <index> <log>
  local name=${names[$1]} kind=${javas[$1]} length loss
  length=$(arg_of "${ours_args[$1]}" --length 32)
  loss=$(arg_of "${ours_args[$1]}" --loss 0)
  starting "$2" "Java $name ($kind)"
  local udp=(-Daeron.sample.channel=aeron:udp?endpoint=localhost:20121)
  case $kind in
    ipc-concurrent) java_throughput EmbeddedIpcThroughput "$length" "$2" ;;
    ipc-exclusive) java_throughput EmbeddedExclusiveIpcThroughput "$length" "$2" ;;
    udp-concurrent) java_throughput EmbeddedThroughput "$length" "$2" "${udp[@]}" ;;
    udp-exclusive) java_throughput EmbeddedExclusiveThroughput "$length" "$2" "${udp[@]}" ;;
    udp-loss) java_throughput EmbeddedThroughput "$length" "$2" "${udp[@]}" \
      -Daeron.ReceiveChannelEndpoint.supplier=io.aeron.driver.ext.DebugReceiveChannelEndpointSupplier \
      -Daeron.debug.receive.data.loss.rate="$loss" -Daeron.debug.receive.data.loss.seed=7 ;;
    ipc-ping | udp-ping) java_ping_pong "${kind%-ping}" "$name" "$2" ;;
  esac
  case $kind in
    ipc-concurrent | ipc-exclusive) read -r msgs mbs < <(rate "$2"); echo "$msgs $mbs - - -" ;;
    udp-concurrent | udp-exclusive | udp-loss) read -r msgs mbs < <(rate_per_sec_lines "$2"); echo "$msgs $mbs - - -" ;;
    *-ping)
      read -r p50 p99 p999 _ < <(percentiles "$out/$name-java.hgrm")
      awk -v p50="$p50" -v p99="$p99" -v p999="$p999" '/^#\[Mean/ { gsub(/,/, "", $3); m = $3 }
        END { if (m > 0) printf "%.0f %.2f %s %s %s\n", 1e6 / m, 32 / m, p50, p99, p999; else print "- - - - -" }' \
        "$out/$name-java.hgrm" ;;
  esac
}

# --- The sweep -----------------------------------------------------------------------------
tsv="$out/results.tsv"
if [ -z "${PLOT_ONLY:-}" ]; then
mkdir -p "$out/logs"
printf 'cell\taxis\tx\tside\tmsgs_per_s\tmb_per_s\tp50_us\tp99_us\tp999_us\tload1\n' >"$tsv"
record() { # <index> <side> <log> <figures...>
  local i=$1 side=$2 log=$3
  shift 3
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${names[$i]}" "${axes[$i]}" "${xs[$i]}" "$side" "$@" \
    "$(cut -d' ' -f1 "$log.load")" >>"$tsv"
}
note "matrix: ${#names[@]} cells, $cell_seconds s per cell and side, Java: $([ "$java" = 1 ] && echo yes || echo no), into $out"
for i in "${!names[@]}"; do
  sides=(ours)
  if [ "$java" = 1 ] && [ "${javas[$i]}" != n/a ]; then
    if ((i % 2)); then sides=(java ours); else sides=(ours java); fi
  fi
  for side in "${sides[@]}"; do
    log="$work/${names[$i]}-$side.log"
    read -r -a figures < <("run_$side" "$i" "$log")
    record "$i" "$side" "$log" "${figures[@]}"
    cp "$log" "$out/logs/"
    note "  $side ${names[$i]}: ${figures[*]}"
  done
done

# --- The table -----------------------------------------------------------------------------
awk -F'\t' -v java="$java" '
  NR == 1 { next }
  !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
  { msgs[$1, $4] = $5; mbs[$1, $4] = $6; lat[$1, $4] = ($7 == "-" ? "" : $7 " / " $8 " / " $9); p99[$1, $4] = $8 }
  function ratio(a, b) { return (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) ? "" : sprintf("%.2f", a / b) }
  function or_na(v) { return v == "" ? (java == 1 ? "n/a" : "") : v }
  END {
    print "| cell | ours msgs/s | Java msgs/s | ours/Java | ours MB/s | Java MB/s | ours p50 / p99 / p99.9 µs | Java p50 / p99 / p99.9 µs | p99 ours/Java |"
    print "|---|---:|---:|---:|---:|---:|---|---|---:|"
    for (i = 1; i <= n; i++) {
      c = order[i]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, msgs[c, "ours"], or_na(msgs[c, "java"]),
        ratio(msgs[c, "ours"], msgs[c, "java"]), mbs[c, "ours"], or_na(mbs[c, "java"]), lat[c, "ours"],
        lat[c, "java"], ratio(p99[c, "ours"], p99[c, "java"])
    }
  }' "$tsv" >"$out/table.md"
{
  echo
  echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), $cell_seconds s per cell and side, load average after the run $(load)."
  echo "msgs/s: messages each subscriber received per second (ping-pong: round trips per second; Java's = 1 / mean)."
  echo "ours/Java > 1: ours is faster; p99 ours/Java < 1: ours is lower."
} >>"$out/table.md"
cat "$out/table.md"
fi

# --- Plots ---------------------------------------------------------------------------------
command -v gnuplot >/dev/null || exit 0
column() { # <axis regex> <transport> <side>: "x msgs mbs" rows, the base cell as x = 1 / 32 B
  awk -F'\t' -v axis="$1" -v t="$2" -v side="$3" 'NR > 1 && $4 == side && index($1, t "-") == 1 && $5 != "-" {
      if ($2 ~ axis) print $3, $5, $6
      else if ($2 == "base" && axis == "^length$") print 32, $5, $6
      else if ($2 == "base" && axis ~ /publishers|subscribers/) print 1, $5, $6
    }' "$tsv" | sort -g
}
for t in ipc udp; do
  for side in ours java; do
    column '^length$' "$t" "$side" >"$work/length-$t-$side.dat"
    for axis in publishers subscribers streams; do column "^$axis\$" "$t" "$side" >"$work/$axis-$t-$side.dat"; done
  done
done
column '^streams-window-16k$' udp ours >"$work/streams-udp-ours-window-16k.dat"
plot_lines() { # <file prefix> <column>: a gnuplot "plot" command over the non-empty data files
  local list=() f
  for f in "$work/$1"-*.dat; do
    [ -s "$f" ] || continue
    local title
    title=$(basename "$f" .dat | sed "s/^$1-//; s/-/ /")
    list+=("'$f' using 1:$2 with linespoints title '$title'")
  done
  local IFS=,
  if [ ${#list[@]} -gt 0 ]; then echo "plot ${list[*]}"; fi
}
{
  echo "set terminal pngcairo size 900,500 noenhanced"
  echo "set output '$out/throughput-vs-length.png'"
  echo "set multiplot layout 1,2 title 'Throughput against message length (one publisher, one subscriber)'"
  echo "set logscale xy; set grid; set xlabel 'message length, B'; set key left top"
  echo "set ylabel 'msgs/s'"; plot_lines length 2
  echo "set ylabel 'MB/s (payload)'; set key right bottom"; plot_lines length 3
  echo "unset multiplot"
  echo "set output '$out/scale.png'"
  echo "set multiplot layout 1,3 title 'Throughput against threads and streams (32 B, ours)'"
  echo "unset logscale; set logscale y; set key right top; set ylabel 'msgs/s per subscriber'"
  for axis in publishers subscribers streams; do
    [ $axis = streams ] && echo "set logscale x" || echo "unset logscale x"
    echo "set xlabel '$axis'"; plot_lines "$axis" 2
  done
  echo "unset multiplot"
} >"$work/plots.gp"
hgrms=("$out"/*.hgrm)
if [ -e "${hgrms[0]}" ]; then
  curves=()
  for f in "${hgrms[@]}"; do
    awk '$1 ~ /^[0-9.]+$/ && NF == 4 { print $4, $1 }' "$f" >"$work/$(basename "$f" .hgrm).pct"
    curves+=("'$work/$(basename "$f" .hgrm).pct' using 1:2 with lines title '$(basename "$f" .hgrm | sed 's/-ping-pong//')'")
  done
  {
    echo "set output '$out/latency-percentiles.png'"
    echo "set title 'Round-trip latency by percentile (32 B ping-pong)'"
    echo "unset logscale; set logscale xy; set grid; set key left top"
    echo "set xlabel 'percentile, %'; set ylabel 'round trip, µs'"
    echo "set xtics ('50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 10000, '99.999' 100000)"
    echo "plot $(IFS=,; echo "${curves[*]}")"
  } >>"$work/plots.gp"
fi
gnuplot "$work/plots.gp" 2>"$work/gnuplot.log" || { note "gnuplot failed:"; cat "$work/gnuplot.log" >&2; }
ls "$out"
