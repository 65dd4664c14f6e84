#!/usr/bin/env bash
# The UDP driver's user-space instructions per message, per agent, counted with callgrind:
# repeatable to a few percent on a busy machine, where the wall-clock comparison
# (scripts/bench-udp-batching.sh) is not. Each side is one standalone aeronmd (SHARED
# threading) run under `valgrind --tool=callgrind` while the C samples stream
# `streaming_publisher -L <length> -m <messages>` → `rate_subscriber` over
# aeron:udp?endpoint=127.0.0.1:24325, as scripts/bench-udp-batching.sh runs them:
#
#   before   BASELINE_AERONMD (an aeronmd built at 30f3794, say), when given
#   offload  target/release/aeronmd (or AERONMD) as it starts by default
#   mmsg     the same with AERONRS_UDP_GSO_ENABLED=false AERONRS_UDP_GRO_ENABLED=false
#   plain    the same with AERONRS_UDP_MMSG_ENABLED=false as well
#
#   scripts/bench-udp-instructions.sh [length (32)] [messages (500000)]
#
# Under callgrind the driver is the slow party, so its datagrams are full (an MTU of
# frames); the figures are per message and per data datagram (the calls that sent data:
# send, sendto, sendmsg, sendmmsg messages are counted as calls). The kernel's share is not
# in them: the system calls per message are printed beside, from the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
length=${1:-32}
messages=${2:-500000}
bash scripts/build-c-package.sh >/dev/null
cmake -S examples-c -B target/examples-c -DCMAKE_PREFIX_PATH="$PWD/target/dist" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build target/examples-c -j2 >/dev/null
cargo build --release --bin aeronmd 2>/dev/null
aeronmd=$(realpath "${AERONMD:-target/release/aeronmd}")
work=$(mktemp -d /tmp/aeronrs-udp-instructions-XXXXXX)
[ -n "${KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
channel="aeron:udp?endpoint=127.0.0.1:24325"

run() { # run <side> <aeronmd> [VAR=value...]
  local side=$1 driver=$2 dir="$work/aeron-$1"
  shift 2
  env AERON_DIR="$dir" AERON_DIR_DELETE_ON_START=true AERON_DIR_DELETE_ON_SHUTDOWN=true \
    AERON_THREADING_MODE=SHARED "$@" \
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$side" "$driver" >"$work/driver-$side.log" 2>&1 &
  local driver_pid=$!
  for _ in $(seq 600); do grep -q "driver started" "$work/driver-$side.log" 2>/dev/null && break; sleep 0.1; done
  target/examples-c/rate_subscriber -p "$dir" -c "$channel" -f 1024 >"$work/rate.log" 2>&1 &
  local rate=$!
  for _ in $(seq 600); do grep -q "Subscription channel status" "$work/rate.log" 2>/dev/null && break; sleep 0.1; done
  target/examples-c/streaming_publisher -p "$dir" -c "$channel" -L "$length" -m "$messages" >/dev/null
  kill -INT "$rate"
  wait "$rate" || true
  kill -TERM "$driver_pid"
  wait "$driver_pid" || true
  python3 - "$work/callgrind.$side" "$side" "$messages" <<'EOF'
import re, sys
raw, side, messages = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Costs by function name (the code a function inlined from other files included): self
# cost, plus what its calls cost (callgrind records each call's inclusive cost).
names, inclusive, calls = {}, {}, {}
fn = callee = None
after_calls = False
for line in open(raw):
    m = re.match(r'(c?fn)=\((\d+)\)(?: (.*))?', line.rstrip('\n'))
    if m:
        if m.group(3) is not None:
            names[m.group(2)] = m.group(3)
        if m.group(1) == 'fn':
            fn = names.get(m.group(2))
        else:
            callee = names.get(m.group(2))
        continue
    if line.startswith('calls='):
        calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
        after_calls = True
        continue
    if line[:1].isdigit() or line[:1] in '+-*':
        parts = line.split()
        if len(parts) >= 2 and fn is not None:
            cost = int(parts[1])
            # A cost line right after calls= is the call's inclusive cost, else self cost.
            if not (after_calls and callee == fn):
                inclusive[fn] = inclusive.get(fn, 0) + cost
        after_calls = False
agents = {'sender': 'sender::Sender as', 'receiver': 'receiver::Receiver as',
          'conductor': 'conductor::DriverConductor as', 'total': 'util::agent::CompositeAgent as'}
cost = dict.fromkeys(agents, 0)
for name, value in inclusive.items():
    for agent, key in agents.items():
        if key in name and name.endswith('Agent>::do_work'):
            cost[agent] = max(cost[agent], value)
sends = sum(calls.get(f, 0) for f in ('send', 'sendto', 'sendmsg', 'sendmmsg'))
receives = sum(calls.get(f, 0) for f in ('recvfrom', 'recvmsg', 'recvmmsg'))
per = lambda n: n / messages
print(f"{side:8} {per(cost['total']):8.1f} {per(cost['sender']):8.1f} {per(cost['receiver']):8.1f} "
      f"{per(cost['conductor']):9.1f} {cost['sender'] / max(sends, 1):10.0f} "
      f"{cost['receiver'] / max(receives, 1):10.0f} {per(sends + receives):8.4f}")
EOF
}

echo "UDP driver, user-space instructions (callgrind Ir) per $length B message over $messages messages"
printf '%-8s %8s %8s %8s %9s %10s %10s %8s\n' side total sender receiver conductor "snd/call" "rcv/call" "calls"
if [ -n "${BASELINE_AERONMD:-}" ]; then run before "$BASELINE_AERONMD"; fi
run offload "$aeronmd"
run mmsg "$aeronmd" AERONRS_UDP_GSO_ENABLED=false AERONRS_UDP_GRO_ENABLED=false
run plain "$aeronmd" AERONRS_UDP_GSO_ENABLED=false AERONRS_UDP_GRO_ENABLED=false AERONRS_UDP_MMSG_ENABLED=false
echo "(sender/receiver/conductor: each agent's do_work, inclusive; snd/call and rcv/call: the"
echo " sender's instructions per send call and the receiver's per receive call; calls: socket"
echo " send and receive calls per message)"
