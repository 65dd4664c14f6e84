#!/usr/bin/env bash
# Scale and cost of the driver, ours beside Java Aeron's (issue 19 item 3): connect time, the
# time to add publications and subscriptions as their number grows, and the driver's CPU and
# memory when idle, empty and with many idle IPC streams; every driver setting at its
# default. See benches/scale.rs for what each figure is.
#
#   scripts/bench-scale.sh [stream counts (default "1000 4000")]
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-"1000 4000"}
cargo build -q --release --bin aeronmd
if [ ! -d interop/java/target/dependency ]; then
  (cd interop/java && mvn -q -B package -DskipTests)
fi
for n in $counts; do
  for driver in ours java; do
    cargo bench -q --bench scale -- --bench --driver "$driver" --streams "$n" --idle-seconds 10
  done
done
