#!/usr/bin/env bash
# The C API from other languages, through our standalone driver (target/release/aeronmd)
# (the Go binding has its own step, scripts/go-tests.sh):
#   - Java FFM (interop/java-ffm, JDK >= 22, java.lang.foreign): the example and a self test
#     publishing and subscribing through libaeronrs.so, then a real Java Aeron client
#     (io.aeron:aeron-all from interop/java) verifying what the FFM publisher sends.
# JAVA_FFM_HOME overrides the JDK used for FFM (default: the Temurin 25 JDK); `java` on PATH
# runs the Java Aeron subscriber, as the Rust interop tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

cargo build --release --lib --bin aeronmd

echo "==> Java FFM (interop/java-ffm)"
jdk=${JAVA_FFM_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
classes=interop/java-ffm/target/classes
rm -rf "$classes" && mkdir -p "$classes"
"$jdk/bin/javac" -Xlint:all,-restricted -Werror -d "$classes" interop/java-ffm/src/aeronrs/ffm/*.java
ffm_java=("$jdk/bin/java" --enable-native-access=ALL-UNNAMED "-Daeronrs.lib=$root/target/release/libaeronrs.so"
  -cp "$classes")

# The Java Aeron peer (built once with Maven, as the Rust interop tests build it).
interop_jar=interop/java/target/aeronrs-interop-0.1.0.jar
if [ ! -f "$interop_jar" ] || [ ! -d interop/java/target/dependency ]; then
  (cd interop/java && mvn -q -B package -DskipTests)
fi

work=$(mktemp -d /tmp/aeronrs-interop-langs-XXXXXX)
dir="$work/aeron"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "interop-langs: $*" >&2
  for log in "$work"/*.log; do echo "--- $log"; tail -20 "$log"; done >&2
  exit 1
}
wait_for() {
  local file=$1 seconds=$2 text=$3
  for _ in $(seq $((seconds * 10))); do
    grep -q -- "$text" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no '$text' in $file after ${seconds}s"
}

AERON_DIR="$dir" AERON_DIR_DELETE_ON_SHUTDOWN=true target/release/aeronmd >"$work/aeronmd.log" 2>&1 &
pids+=($!)
wait_for "$work/aeronmd.log" 20 "driver started"

timeout 60 "${ffm_java[@]}" aeronrs.ffm.FfmExample "$dir" >"$work/example.log" 2>&1 || fail "FfmExample failed"
grep -q "received <<Hello from Java FFM 2>>" "$work/example.log" || fail "FfmExample received nothing"
timeout 120 "${ffm_java[@]}" aeronrs.ffm.FfmInteropCheck selftest "$dir" >"$work/selftest.log" 2>&1 ||
  fail "FFM self test failed"
cat "$work/selftest.log"

echo "==> Java Aeron client receives what the FFM publisher sends"
count=100000
length=200
java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
  -XX:+UseSerialGC -Xmx256m "-Daeron.dir=$dir" -cp "$interop_jar:interop/java/target/dependency/*" \
  aeronrs.interop.Interop sub aeron:ipc 3001 "$count" "$length" >"$work/java-sub.log" 2>&1 &
java_sub=$!
pids+=("$java_sub")
wait_for "$work/java-sub.log" 60 "READY"
timeout 180 "${ffm_java[@]}" aeronrs.ffm.FfmInteropCheck pub "$dir" aeron:ipc 3001 "$count" "$length" \
  >"$work/ffm-pub.log" 2>&1 || fail "FFM publisher failed"
timeout 120 tail --pid="$java_sub" -f /dev/null || fail "Java subscriber did not finish"
wait "$java_sub" || fail "Java subscriber rejected what it received"
grep -q "DONE $count" "$work/java-sub.log" || fail "Java subscriber did not receive $count messages"
echo "Java Aeron subscriber verified $count messages of $length bytes from the FFM publisher"

echo "interop-langs: all passed"
