#!/usr/bin/env bash
# A change's effect on the IPC and UDP figures: a few cells of the benchmark matrix
# (benches/matrix.rs) run by two builds of it, alternating (the first side swapped every
# repeat), and each side's median. Build the two executables first, e.g. for a commit REV:
#
#   git worktree add --detach /tmp/before REV && (cd /tmp/before && cargo bench --bench matrix --no-run)
#   cargo bench --bench matrix --no-run
#   scripts/bench-before-after.sh /tmp/before/target/release/deps/matrix-<hash> \
#     target/release/deps/matrix-<hash> [repeats (3)] [seconds per cell (3)]   (CELLS=<regex>: some cells)
#
# Settings as scripts/bench-matrix.sh: one embedded driver per run, SHARED, sleeping 1 µs.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh # median, ratio, load

before=$1 after=$2 repeats=${3:-3} seconds=${4:-3}
work=$(mktemp -d /tmp/aeronrs-before-after-XXXXXX)
trap 'rm -rf "$work"' EXIT
settings=(AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=sleep-ns AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1us)
cells=(
  "ipc-base|--transport ipc"
  "ipc-exclusive|--transport ipc --exclusive"
  "ipc-length-1024|--transport ipc --length 1024"
  "ipc-ping-pong|--transport ipc --ping-pong --exclusive"
  "udp-base|--transport udp"
  "udp-length-1024|--transport udp --length 1024"
)
# CELLS=<regex> keeps only the cells whose name matches.
if [ -n "${CELLS:-}" ]; then
  kept=()
  for cell in "${cells[@]}"; do [[ ${cell%%|*} =~ $CELLS ]] && kept+=("$cell"); done
  cells=("${kept[@]}")
fi

# run <side> <exe> <name> <args>: appends "msgs/s p50_us p99_us" of one run to $work/<name>.<side>.
run() {
  local side=$1 exe=$2 name=$3 args
  read -r -a args <<<"$4"
  env "${settings[@]}" timeout $((seconds + 120)) "$exe" --bench --name "$name" --seconds "$seconds" "${args[@]}" \
    >"$work/run.log" 2>&1 || { echo "$side $name failed: $(tail -3 "$work/run.log")" >&2; return; }
  awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         print v["msgs_per_s"], v["p50_us"], v["p99_us"] }' "$work/run.log" >>"$work/$name.$side"
}

for ((r = 1; r <= repeats; r++)); do
  order="before after"
  ((r % 2 == 0)) && order="after before"
  for cell in "${cells[@]}"; do
    for side in $order; do
      exe=$before
      [ "$side" = after ] && exe=$after
      run "$side" "$exe" "${cell%%|*}" "${cell#*|}"
    done
  done
  echo "repeat $r done (load $(load))" >&2
done

column() { awk -v c="$2" '{ print $c }' "$1" >"$1.$2"; median "$1.$2"; }
printf '%-18s %14s %14s %7s   %s\n' cell "before" "after" "a/b" "runs (msgs/s, or p50 µs for ping-pong)"
for cell in "${cells[@]}"; do
  name=${cell%%|*}
  [ -s "$work/$name.before" ] && [ -s "$work/$name.after" ] || { echo "$name: no result"; continue; }
  c=1
  [[ $name == *ping-pong ]] && c=2
  b=$(column "$work/$name.before" $c)
  a=$(column "$work/$name.after" $c)
  printf '%-18s %14s %14s %7s   before %s | after %s\n' "$name" "$b" "$a" "$(ratio "$a" "$b")" \
    "$(paste -sd' ' "$work/$name.before.$c")" "$(paste -sd' ' "$work/$name.after.$c")"
  if [[ $name == *ping-pong ]]; then
    printf '%-18s %14s %14s %7s\n' "  p99 µs" "$(column "$work/$name.before" 3)" "$(column "$work/$name.after" 3)" ""
  fi
done
