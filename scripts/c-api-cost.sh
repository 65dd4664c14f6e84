#!/usr/bin/env bash
# What the C layer adds per call, measured where nothing else interferes: one thread offers
# 256 messages to an IPC publication and polls them back through a fragment assembler, in
# C (examples-c/offer_poll_cost.c on libaeronrs.so) and in Rust (its twin,
# examples/offer_poll_cost.rs), one after the other against one standalone driver. No other
# core is on the data path, so run-to-run spread is a few percent where the two-process
# samples of scripts/perf-c.sh swing by 2x.
#
#   scripts/c-api-cost.sh [repeats (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # quiet_driver, median, ratio

repeats=${1:-3}
bash scripts/examples-c.sh >/dev/null
cargo build --release --bin aeronmd --example offer_poll_cost 2>/dev/null
quiet_driver c-api-cost

# "round 3: ... offer X ns/msg, poll Y ns/msg" (the last, steady round) -> X Y
last_round() { awk '/^round/ { o = $(NF - 4); p = $(NF - 1) } END { print o, p }' "$1"; }

stream=2000
for ((r = 1; r <= repeats; r++)); do
  for side in c rust; do
    bin=target/examples-c/offer_poll_cost
    [ "$side" = rust ] && bin=target/release/examples/offer_poll_cost
    # A stream of its own per run: an earlier run's publication lingers until its client
    # times out, and would be another image of the same stream.
    timeout 120 "$bin" -p "$dir" -s "$stream" >"$work/$side-$r.log"
    stream=$((stream + 1))
    read -r offer poll < <(last_round "$work/$side-$r.log")
    echo "$side: offer $offer ns/msg, poll $poll ns/msg"
    echo "$offer" >>"$work/offer.$side"
    echo "$poll" >>"$work/poll.$side"
  done
done

echo
echo "One thread, aeron:ipc?term-length=64m, 32 B, 20 M messages per round; medians of $repeats runs"
printf '%-28s %10s %10s %8s\n' "" C Rust C/Rust
for name in offer poll; do
  c=$(median "$work/$name.c")
  rust=$(median "$work/$name.rust")
  printf '%-28s %10s %10s %8s\n' "$name, ns per message" "$c" "$rust" "$(ratio "$c" "$rust" 3)"
done
