#!/usr/bin/env bash
# The Java library (bindings/java, aeronrs-java over libaeronrs.so through FFM): builds the
# release library and aeronmd, then `mvn test` with a JDK >= 22 (scripts/java-ffm-home.sh),
# which compiles the library and its JMH benchmarks and runs the JUnit tests: pub/sub
# across threads and processes (embedded driver and aeronmd), fragmentation, claims, back
# pressure, killed publishers, typed errors, ring buffers, the mapped bus, no allocation
# per message, and interop with Java Aeron (io.aeron:aeron-client).
# Offline once the Maven dependencies are in ~/.m2 (MAVEN_OFFLINE=1 adds -o).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! JAVA_HOME=$(bash scripts/java-ffm-home.sh); then
  echo "java-tests: no JDK 22 or later found (install openjdk-25-jdk, or set JAVA_FFM_HOME)" >&2
  exit 1
fi
export JAVA_HOME
echo "java-tests: JDK $JAVA_HOME"

profile="${AERONRS_PROFILE:-release}"
cargo build --profile "$profile" --lib --bin aeronmd

offline=()
[ "${MAVEN_OFFLINE:-}" = "1" ] && offline=(-o)
(cd bindings/java && mvn -B "${offline[@]}" test \
  "-Daeronrs.library=$root/target/$profile/libaeronrs.so" "-Daeronrs.aeronmd=$root/target/$profile/aeronmd")
