#!/usr/bin/env bash
# JMH: aeronrs-java against Java Aeron's client (io.aeron:aeron-client 1.47.4) on the same
# embedded aeronrs driver, in one run: 32-byte IPC throughput (one thread offering and
# polling in bursts) and IPC round trip (ping, pong thread, back). Prints each figure and
# the ratio aeronrs-java / Java Aeron. Benchmarks spin: run on an otherwise idle machine.
#   BENCH_JMH_ARGS   extra JMH arguments (default: none; e.g. "-wi 5 -i 10 -f 2")
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! JAVA_HOME=$(bash scripts/java-ffm-home.sh); then
  echo "bench-java: no JDK 22 or later found (install openjdk-25-jdk, or set JAVA_FFM_HOME)" >&2
  exit 1
fi
export JAVA_HOME

cargo build --release --lib --bin aeronmd
(cd bindings/java && mvn -q -B package -DskipTests)

results=$(mktemp /tmp/aeronrs-bench-java-XXXXXX.json)
trap 'rm -f "$results"' EXIT
# shellcheck disable=SC2086 # BENCH_JMH_ARGS is a list of arguments
"$JAVA_HOME/bin/java" -jar bindings/java/benchmarks/target/benchmarks.jar IpcBenchmark \
  -jvmArgsAppend "-Daeronrs.library=$root/target/release/libaeronrs.so" \
  -rf json -rff "$results" ${BENCH_JMH_ARGS:-}

python3 - "$results" <<'PY'
import json, sys
rows = {r["benchmark"].rsplit(".", 1)[1]: r["primaryMetric"] for r in json.load(open(sys.argv[1]))}
print()
print(f"{'benchmark':<12} {'aeronrs-java':>16} {'Java Aeron':>16} {'ratio':>8}")
for name, unit, better in (("Throughput", "msgs/us", "higher"), ("RoundTrip", "us", "lower")):
    ours, theirs = rows.get("aeronrs" + name), rows.get("java" + name)
    if ours and theirs:
        ratio = ours["score"] / theirs["score"]
        print(f"{name:<12} {ours['score']:>9.3f} ±{ours['scoreError']:.3f} {theirs['score']:>9.3f} ±{theirs['scoreError']:.3f} "
              f"{ratio:>7.2f}x  ({unit}, {better} is better)")
PY
