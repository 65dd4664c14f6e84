# Shared by the benchmark scripts (sourced, not run): the Java side (the interop jar's
# aeron-all, started as Aeron's sample scripts start it), a quiet standalone driver, load
# notes and the parsers that turn the output into numbers.

# --- Java: the interop jar (real Aeron), built once --------------------------------------
java_setup() {
  local interop=interop/java
  java_app_jar="$interop/target/aeronrs-interop-0.1.0.jar"
  if [ ! -f "$java_app_jar" ] || [ ! -d "$interop/target/dependency" ]; then
    (cd "$interop" && mvn -q -B package -DskipTests)
  fi
  aeron_jar=$(ls "$interop"/target/dependency/aeron-all-*.jar)
  aeron_version=$(basename "$aeron_jar" .jar | sed 's/aeron-all-//')
  # As Aeron's samples scripts (java-common): JIT and GC settings, unchecked buffer bounds.
  java_options=(
    -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields
    -XX:+UnlockDiagnosticVMOptions -XX:GuaranteedSafepointInterval=300000 -XX:+UseParallelGC
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    -Dagrona.disable.bounds.checks=true
    -Daeron.dir.delete.on.start=true -Daeron.dir.delete.on.shutdown=true
  )
}

java_command=()
java_for() { # java_for <aeron dir> <class> [-D...]: sets java_command
  local dir=$1 class=$2
  shift 2
  java_command=(java "${java_options[@]}" -Daeron.dir="$dir" "$@" -cp "$aeron_jar:$java_app_jar" "$class")
}

# --- A standalone aeronmd off the IPC data path ---------------------------------------------
# quiet_driver <name>: a fresh work directory ($work, Aeron dir $dir), target/release/aeronmd
# there in SHARED mode sleeping 1 ms when idle (over IPC the driver is not on the data path,
# so it should not compete for the 2 cores), waited for. Background processes added to
# $pids and the driver are stopped, and $work removed, on exit.
quiet_driver() {
  work=$(mktemp -d "/tmp/aeronrs-$1-XXXXXX")
  dir="$work/aeron"
  trap bench_cleanup EXIT
  AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true AERON_TERM_BUFFER_SPARSE_FILE=true AERON_THREADING_MODE=SHARED \
    AERON_SHARED_IDLE_STRATEGY=sleeping AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1ms \
    target/release/aeronmd >"$work/aeronmd.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q "driver started" "$work/aeronmd.log" 2>/dev/null && return 0; sleep 0.1; done
  echo "aeronmd did not start: $(cat "$work/aeronmd.log")" >&2
  exit 1
}
bench_cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}

# The staged C package (rebuilt on change) and the C samples built against it, as
# scripts/perf-c.sh and scripts/perf-c-matrix.sh measure them.
build_c_samples() {
  bash scripts/build-c-package.sh >/dev/null
  cmake -S examples-c -B target/examples-c -DCMAKE_PREFIX_PATH="$PWD/target/dist" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build target/examples-c -j2 >/dev/null
}

# Waits up to 20 s for file $1 to contain $2; otherwise says so with the file's tail and exits.
wait_for() {
  for _ in $(seq 200); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1" >&2
  tail -20 "$1" >&2
  exit 1
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
note() { printf '%s\n' "$*" >&2; }
# Notes the load average before a run next to its log, and says what runs.
starting() { # <log> <what>
  load >"$1.load"
  note "== $2 (load average $(load))"
}

skip_reports=${skip_reports:-2}

# "Duration 1000ms - 25,123,456 messages - 803,950,592 payload bytes" lines of a run ->
# "msgs/s MB/s" over the reports after the first $skip_reports.
rate() {
  tr -d , <"$1" | awk -v skip="$skip_reports" '
    /^Duration [0-9]+ms - [0-9]+ messages - [0-9]+ payload bytes/ {
      n++; if (n <= skip) next
      ms += substr($2, 1, length($2) - 2); msgs += $4; bytes += $7
    }
    END { if (ms == 0) { print "- -"; exit } printf "%.0f %.1f\n", msgs * 1000 / ms, bytes / ms / 1000 }'
}

# Java EmbeddedThroughput's "1.633e+05 msgs/sec, 1.045e+07 bytes/sec, totals ..." lines ->
# "msgs/s MB/s" averaged over the reports after the first $skip_reports.
rate_per_sec_lines() {
  awk -v skip="$skip_reports" '
    $2 == "msgs/sec," && $4 == "bytes/sec," {
      n++; if (n <= skip) next
      k++; msgs += $1 + 0; bytes += $3 + 0
    }
    END { if (k == 0) { print "- -"; exit } printf "%.0f %.1f\n", msgs / k, bytes / k / 1e6 }' "$1"
}

# An HdrHistogram percentile table (µs) -> "p50 p99 p99.9 max".
percentiles() {
  awk '
    NF >= 3 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ {
      if (p50 == "" && $2 >= 0.5) p50 = $1
      if (p99 == "" && $2 >= 0.99) p99 = $1
      if (p999 == "" && $2 >= 0.999) p999 = $1
    }
    /^#\[Max/ { gsub(/,/, "", $3); max = $3 }
    END { printf "%s %s %s %s\n", p50, p99, p999, max }' "$1"
}

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Best of the runs (least disturbed by the rest of the machine): highest rate, lowest latency.
highest() { sort -g "$1" | tail -1; }
lowest() { sort -g "$1" | head -1; }
runs() { paste -sd' ' "$1"; }
# a/b with ${3:-2} decimals ("-" when b is 0 or missing).
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.*f", d, a / b }'; }
