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
print(f"{'benchmark':<22} {'aeronrs-java':>14} {'Java Aeron':>14} {'ratio':>8}")
def line(name, ours, theirs, unit, better):
    print(f"{name:<22} {ours:>14.3f} {theirs:>14.3f} {ours / theirs:>7.2f}x  ({unit}, {better} is better)")
for name, unit, better in (("Throughput", "msgs/us", "higher"), ("EmptyPoll", "ns", "lower")):
    ours, theirs = rows.get("aeronrs" + name), rows.get("java" + name)
    if ours and theirs:
        line(name, ours["score"], theirs["score"], unit, better)
ours, theirs = rows.get("aeronrsRoundTrip"), rows.get("javaRoundTrip")
if ours and theirs:
    line("RoundTrip mean", ours["score"], theirs["score"], "us", "lower")
    for p in ("50.0", "90.0", "99.0", "99.9"):
        line(f"RoundTrip p{p.rstrip('0').rstrip('.')}", ours["scorePercentiles"][p], theirs["scorePercentiles"][p], "us", "lower")
PY
