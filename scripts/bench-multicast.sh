#!/usr/bin/env bash
# UDP multicast across simulated hosts, aeronrs beside Java Aeron (the aeron-all jar of
# interop/java), one side after the other on this machine, then one table of both and the
# ratio, also written to a file.
#
#   sudo scripts/bench-multicast.sh [output file (target/bench-multicast.txt)]
#
# Hosts: Linux network namespaces aeronrs-bench-mc-<pid>-h0..h3, each with one veth to a
# bridge living in its own namespace aeronrs-bench-mc-<pid>-br (the topology and the kernel
# quirks of tests/support/netns.rs: snooping off on the bridge so multicast floods to every
# port, no generated IPv6 addresses and nodad, a 224.0.0.0/4 route per host). Nothing is
# added to the machine's own namespace; a trap removes every namespace (and every process
# in them) on exit, failure and interrupt included. Needs root.
#
# Throughput: host h0 runs a driver and a streaming publisher to the group, hosts h1 (then
# h1..h3) a driver and a rate subscriber each, 64-byte and 1 KiB messages. Ours: aeronmd on
# every host with the C samples examples-c/streaming_publisher and rate_subscriber on
# libaeronrs.so (the C samples because they are what bench-udp-vs-java.sh measures against
# Java's samples when driver and application are separate processes, as here; they keep
# Aeron's C samples' loops and options). Java: io.aeron.driver.MediaDriver on every host
# with io.aeron.samples.StreamingPublisher and RateSubscriber. Both publishers offer for
# RUN_SECONDS + 2 s (the extra 2 s cover the JVM's start) and are then interrupted; each
# subscriber prints its rate every second, and a receiver's rate is the mean of its
# reports from the third one with messages to the one before its last (the first is a
# partial second, the second warm-up, the last a partial second). The table gives the
# median over receivers and repeats.
#
# Round trip: Ping on h0 and Pong on h1, each with its host's driver, over two multicast
# groups (ping, pong), 32-byte messages, exclusive publications: ours examples-c/ping and
# pong, Java's io.aeron.samples.Ping and Pong. Ours prints exact percentiles; Java's are
# read from its HdrHistogram table (first row at or above the percentile: p99 is the
# 99.06 % row, p99.9 the 99.90 % row). Median over repeats.
#
# Both drivers get the same settings (MODE, default shared-sleep):
#   shared-sleep - SHARED threading, sleeping 1 µs when idle (ours sleep-ns 1us, Java
#                  Agrona's SleepingIdleStrategy, whose default period is 1 µs);
#   shared       - SHARED threading, default idle strategy (backoff);
#   dedicated    - every threading setting at its default.
# and explicitly in every mode: term length 16 MiB, SO_RCVBUF 2 MiB (SO_RCVBUF; Aeron's
# default of 128 KiB equals the receiver window, so on a box with more busy threads than
# CPUs one window arriving while the receiving driver waits for a CPU overflows the socket,
# and the run measures loss recovery), initial receiver window 128 KiB (RCV_WINDOW; Aeron's
# default), SO_SNDBUF the system's default (0), MTU 1408, non-sparse term files. Flow
# control min (FC; FC=default leaves it to the driver's multicast default, max; FC=max,
# FC=tagged,g:... as the channel's fc=): with max the sender follows the fastest receiver,
# and on this box a receiver whose subscriber or driver waits for a CPU long enough falls
# more than half a term behind; its driver then drops everything as over-run (as Aeron's:
# over-runs do not move the high-water mark, so no gap is seen and no NAK sent) and stays
# stuck until its image times out, so the figures measure who got starved. With min every
# receiver gets the whole stream at the pace of the slowest, which is well defined. The
# applications busy-spin on both sides (Aeron's samples do).
#
# With FC=min the channel carries g:/<receivers> (min group size): the stream starts only
# once every receiver is there (see port_channel).
#
# Environment: REPEATS (3; ours and Java alternate which goes first per repeat),
# RUN_SECONDS (10), ROUND_TRIPS (100000, warm-up a tenth of that), RECEIVERS ("1 3"),
# LENGTHS ("64 1024"), MODE, FC, SO_RCVBUF, RCV_WINDOW, RUN_TIMEOUT (300: bound on every
# process of a run), LOGS (a directory to keep every run's logs and counters in).
# A run that fails or times out (a process that does not start, exits early or hangs, an
# Aeron client reporting a fatal error, a receiver without a steady second) is shown as "-"
# in the per-run lines with its reason under the table, and the script exits non-zero; a
# cell's figure is the median of its runs that succeeded ("-" when none did), next to how
# many did. Counters of every driver (aeron-stat, also for Java's CnC) and the
# CPU time of every process are kept per run and summarised under the table.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "bench-multicast: needs root (network namespaces, veth pairs and a bridge): run it with sudo" >&2
  exit 2
fi
for tool in ip java timeout cmake; do
  command -v "$tool" >/dev/null || { echo "bench-multicast: needs $tool" >&2; exit 2; }
done
command_line="$0${*:+ $*}"
out=${1:-}
[ -n "$out" ] && out=$(realpath -m -- "$out")
cd "$(dirname "$0")/.."
[ -n "$out" ] || out=$PWD/target/bench-multicast.txt

repeats=${REPEATS:-3}
run_seconds=${RUN_SECONDS:-10}
round_trips=${ROUND_TRIPS:-100000}
receivers_list=${RECEIVERS:-1 3}
lengths=${LENGTHS:-64 1024}
mode=${MODE:-shared-sleep}
fc=${FC-min}
[ "$fc" = default ] && fc=
so_rcvbuf=${SO_RCVBUF:-2m}
rcv_window=${RCV_WINDOW:-128k}
run_timeout=${RUN_TIMEOUT:-300}
case $mode in shared-sleep | shared | dedicated) ;; *) echo "MODE=$mode: shared-sleep, shared or dedicated" >&2; exit 2 ;; esac
max_receivers=0
for n in $receivers_list; do [ "$n" -gt "$max_receivers" ] && max_receivers=$n; done
[ "$max_receivers" -ge 1 ] && [ "$max_receivers" -le 8 ] || { echo "RECEIVERS: 1 to 8 receiving hosts" >&2; exit 2; }

prefix="aeronrs-bench-mc-$$"
bridge_ns="$prefix-br"
subnet=10.231.$(($$ % 250))
shm=/dev/shm
[ -d "$shm" ] || shm=/tmp
work=$(mktemp -d /tmp/aeronrs-bench-mc-XXXXXX)
namespaces=()
pids=()

# Kills what runs in our namespaces, deletes them, removes the Aeron directories.
cleanup() {
  local ns pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do
    for _ in $(seq 100); do
      pid=$(ip netns pids "$ns" 2>/dev/null) || break
      [ -z "$pid" ] && break
      # shellcheck disable=SC2086 # one pid per word
      kill -KILL $pid 2>/dev/null || true
      sleep 0.1
    done
    ip netns del "$ns" 2>/dev/null || echo "bench-multicast: could not delete namespace $ns" >&2
  done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${LOGS:-}" ]; then mkdir -p "$LOGS" && cp -r "$work"/. "$LOGS"/ && echo "bench-multicast: logs in $LOGS" >&2; fi
  rm -rf "$work" "$shm/$prefix"-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Namespaces of runs that are gone (killed before their trap ran).
for ns in $(ip netns list | awk '{ print $1 }' | grep '^aeronrs-bench-mc-' || true); do
  owner=$(echo "$ns" | cut -d- -f4)
  if ! kill -0 "$owner" 2>/dev/null; then
    echo "bench-multicast: removing $ns, left by process $owner that is gone" >&2
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns del "$ns" || true
  fi
done

# shellcheck source=lib/bench-common.sh
source scripts/lib/bench-common.sh
java_setup

# --- Our side, built once ------------------------------------------------------------------
cargo build --release --bin aeronmd --bin aeron-stat 2>"$work/build.log" || { cat "$work/build.log"; exit 1; }
build_c_samples

# --- The simulated hosts ---------------------------------------------------------------------
step() { # <what> <ip args...>: one set-up step, failing with what it was
  local what=$1
  shift
  ip "$@" 2>"$work/ip.err" || { echo "bench-multicast: $what: ip $*: $(cat "$work/ip.err")" >&2; exit 1; }
}
add_namespace() {
  step "creating namespace $1" netns add "$1"
  namespaces+=("$1")
}
host_ns() { echo "$prefix-h$1"; }
host_ip() { echo "$subnet.$(($1 + 1))"; }

build_network() { # <hosts>
  add_namespace "$bridge_ns"
  step "creating the bridge" -n "$bridge_ns" link add br0 mtu 1500 type bridge
  # Snooping off: the bridge floods multicast to every port like a hub (with it on, it
  # forwards a group only to ports it saw IGMP reports from, once a querier is around).
  step "configuring the bridge" -n "$bridge_ns" link set br0 type bridge mcast_snooping 0 stp_state 0 forward_delay 0
  step "no IPv6 addresses on the bridge" -n "$bridge_ns" link set br0 addrgenmode none
  ip -n "$bridge_ns" -d link show dev br0 | grep -q "mcast_snooping 0" ||
    { echo "bench-multicast: the bridge still snoops multicast" >&2; exit 1; }
  local i ns
  for ((i = 0; i < $1; i++)); do
    ns=$(host_ns "$i")
    add_namespace "$ns"
    step "host $i: lo up" -n "$ns" link set lo up
    step "host $i: veth pair" link add veth0 netns "$ns" mtu 1500 type veth peer name "h$i" netns "$bridge_ns" mtu 1500
    step "host $i: bridge port" -n "$bridge_ns" link set "h$i" master br0
    step "host $i: no IPv6 on the port" -n "$bridge_ns" link set "h$i" addrgenmode none
    step "host $i: port up" -n "$bridge_ns" link set "h$i" up
    # Addresses added with nodad, never generated: a generated one is tentative for DAD.
    step "host $i: no generated IPv6" -n "$ns" link set veth0 addrgenmode none
    step "host $i: veth up" -n "$ns" link set veth0 up
    step "host $i: IPv4 address" -n "$ns" addr add "$(host_ip "$i")/24" dev veth0
    step "host $i: link-local IPv6" -n "$ns" addr add "fe80::$((i + 1))/64" dev veth0 nodad
    step "host $i: multicast route" -n "$ns" route add 224.0.0.0/4 dev veth0
    step "host $i: IPv6 multicast route" -n "$ns" -6 route add ff00::/8 dev veth0
  done
  step "bridge up" -n "$bridge_ns" link set br0 up
  for ((i = 0; i < $1; i++)); do
    ns=$(host_ns "$i")
    for _ in $(seq 100); do
      ip -n "$ns" -o link show dev veth0 | grep -q "LOWER_UP" &&
        ip -n "$bridge_ns" -d -o link show dev "h$i" | grep -q "state forwarding" && continue 2
      sleep 0.1
    done
    echo "bench-multicast: host $i's link did not come up" >&2
    exit 1
  done
}
build_network "$((max_receivers + 1))"
# The kernel caps SO_RCVBUF at net.core.rmem_max without an error: say so if it does.
bytes_of() { # 2m -> 2097152
  awk -v s="$1" 'BEGIN { n = s + 0; u = tolower(substr(s, length(s)))
    if (u == "k") n *= 1024; else if (u == "m") n *= 1048576; else if (u == "g") n *= 1073741824; printf "%d\n", n }'
}
rmem_max=$(ip netns exec "$(host_ns 0)" cat /proc/sys/net/core/rmem_max)
rcvbuf_note="net.core.rmem_max $rmem_max"
[ "$(bytes_of "$so_rcvbuf")" -le "$rmem_max" ] || rcvbuf_note="CLAMPED by the kernel to net.core.rmem_max $rmem_max"

# fc=min waits for the whole group: g:/<receivers> (as Aeron's min and tagged strategies
# read it), so the stream starts once every receiver has sent a status message. Without
# it the first receiver to have its image ready starts the stream, and the others, still
# mapping their logs (48 MiB each here), join megabytes behind and begin with a NAK storm.
port_channel() { # <group> <port> <receivers>
  local flow=$fc
  [ "$flow" = min ] && flow="min,g:/$3"
  echo "aeron:udp?endpoint=$1:$2|interface=$subnet.0/24${flow:+|fc=$flow}"
}
data_channel_for() { port_channel 239.255.90.1 40456 "$1"; }
ping_channel=$(port_channel 239.255.90.3 40457 1)
pong_channel=$(port_channel 239.255.90.5 40458 1)

# --- Both drivers' settings ------------------------------------------------------------------
ours_env=(AERON_TERM_BUFFER_LENGTH=16m AERON_SOCKET_SO_RCVBUF="$so_rcvbuf" AERON_SOCKET_SO_SNDBUF=0
  AERON_MTU_LENGTH=1408 AERON_RCV_INITIAL_WINDOW_LENGTH="$rcv_window" AERON_TERM_BUFFER_SPARSE_FILE=false)
java_props=(-Daeron.term.buffer.length=16m -Daeron.socket.so_rcvbuf="$so_rcvbuf" -Daeron.socket.so_sndbuf=0
  -Daeron.mtu.length=1408 -Daeron.rcv.initial.window.length="$rcv_window" -Daeron.term.buffer.sparse.file=false)
case $mode in
  shared-sleep)
    ours_env+=(AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=sleep-ns AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1us)
    java_props+=(-Daeron.threading.mode=SHARED -Daeron.shared.idle.strategy=org.agrona.concurrent.SleepingIdleStrategy)
    mode_text="SHARED threading, sleeping 1 µs when idle (ours sleep-ns 1us, Java SleepingIdleStrategy)" ;;
  shared)
    ours_env+=(AERON_THREADING_MODE=SHARED)
    java_props+=(-Daeron.threading.mode=SHARED)
    mode_text="SHARED threading, default idle strategy (backoff)" ;;
  dedicated)
    ours_env+=(AERON_THREADING_MODE=DEDICATED)
    java_props+=(-Daeron.threading.mode=DEDICATED)
    mode_text="DEDICATED threading, default idle strategies" ;;
esac

# --- Processes in hosts ----------------------------------------------------------------------
# Every process runs under timeout (run_timeout s, then SIGKILL 5 s later), started in its
# host with `ip netns exec`, which execs: $! is timeout's pid, and a signal to it is passed
# on to the program.
started=
in_host() { # <host> <log> <command...>: starts it in the background; its pid in $started
  local host=$1 log=$2
  shift 2
  ip netns exec "$(host_ns "$host")" timeout -k 5 "$run_timeout" "$@" </dev/null >"$log" 2>&1 &
  started=$!
  pids+=("$started")
}
# The program under each timeout pid (its only child), looked up once.
declare -A program_of=()
# Sets $stats to "user-ticks system-ticks" of the program under timeout pid $1 (all its
# threads; "- -" if gone) and $thread_stats to one "tid voluntary involuntary" per thread
# (context switches). Builtins only, in this shell, but for the first lookup: the box is
# busy, and forks are slow there.
stats=
thread_stats=()
proc_stats() {
  local child stat fields f key value _ voluntary involuntary tid
  [ -n "${program_of[$1]:-}" ] || program_of[$1]=$(pgrep -P "$1" | head -1 || true)
  child=${program_of[$1]}
  stats="- -"
  thread_stats=()
  [ -n "$child" ] && read -r stat 2>/dev/null <"/proc/$child/stat" || return 0
  # Fields after the ")" closing the command name: utime and stime are the 12th and 13th.
  read -ra fields <<<"${stat##*) }"
  stats="${fields[11]} ${fields[12]}"
  for f in "/proc/$child/task"/*/status; do
    voluntary=0
    involuntary=0
    while read -r key value _; do
      case $key in
        voluntary_ctxt_switches:) voluntary=$value ;;
        nonvoluntary_ctxt_switches:) involuntary=$value ;;
      esac
    done 2>/dev/null <"$f" || continue
    tid=${f%/status}
    thread_stats+=("${tid##*/} $voluntary $involuntary")
  done
}
clock_ticks=$(getconf CLK_TCK)
# Processes whose CPU time a run measures: "role host pid" (timeout's pid).
watched=()
watch() { watched+=("$1 $2 $3"); }
# "role host user-ticks system-ticks" of every watched process, each followed by its
# threads' "thread role-host tid voluntary involuntary", after a "clock" line with the
# time, into file $1.
cpu_snapshot() {
  local entry thread role host pid lines=()
  lines+=("clock - $EPOCHREALTIME")
  for entry in "${watched[@]}"; do
    read -r role host pid <<<"$entry"
    proc_stats "$pid"
    lines+=("$role $host $stats")
    for thread in "${thread_stats[@]}"; do lines+=("thread $role-$host $thread"); done
  done
  printf '%s\n' "${lines[@]}" >"$1"
}
# What role $3 on host $4 took between snapshots $1 and $2: "cpu-seconds system-share
# voluntary/s involuntary/s" ("-" if unknown).
stat_delta() {
  [ -e "$1" ] && [ -e "$2" ] || { echo -; return; }
  awk -v role="$3" -v host="$4" -v hz="$clock_ticks" 'FNR == 1 { f++ } $1 == "clock" { t[f] = $3 }
    $1 == role && $2 == host { u[f] = $3; s[f] = $4 }
    # Context switches of the threads in both snapshots (threads come and go).
    $1 == "thread" && $2 == role "-" host { if (f == 1) { v1[$3] = $4; n1[$3] = $5 } else if ($3 in v1) { v += $4 - v1[$3]; n += $5 - n1[$3] } }
    END {
      if (u[1] == "" || u[2] == "" || u[1] == "-" || u[2] == "-" || t[2] <= t[1]) { print "-"; exit }
      c = u[2] - u[1] + s[2] - s[1]; d = t[2] - t[1]
      printf "%.2f %.2f %.0f %.0f\n", c / hz, (c > 0 ? (s[2] - s[1]) / c : 0), v / d, n / d
    }' "$1" "$2"
}
# The CPU seconds role $3 on host $4 took between snapshots $1 and $2 ("-" if unknown).
cpu_delta() { stat_delta "$@" | cut -d' ' -f1; }
# Interrupts timeout pid $1 (passed on to the program), SIGKILL after 5 s; returns its status.
stop() {
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  local rc=0
  wait "$1" 2>/dev/null || rc=$?
  return "$rc"
}
# The first line of logs $@ where an Aeron client reports a fatal error, e.g. its conductor
# thread starved past the client's service interval (then a sample may hang, or count on).
client_error() {
  { grep -h -m1 -E 'service interval exceeded|FATAL|Exception|ERROR' "$@" 2>/dev/null || true; } | head -1 | cut -c1-200
}
# Waits for timeout pid $1 to end, stopping it at once when client_error finds something
# in logs $2...; sets $ended_by to its exit status or "client error: <line>".
ended_by=
wait_watching() {
  local pid=$1 error rc=0
  shift
  while kill -0 "$pid" 2>/dev/null; do
    error=$(client_error "$@")
    if [ -n "$error" ]; then
      stop "$pid" || true
      ended_by="client error: $error"
      return 0
    fi
    sleep 0.5
  done
  wait "$pid" || rc=$?
  ended_by=$rc
}
# Waits up to $3 s for file $1 to contain $2 while pid $4 lives.
await() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

failed=()
failure() { # <run id> <reason>: notes a failed run
  failed+=("$1: $2")
  note "FAILED $1: $2"
}

driver_pid=()
driver_dir=()
# Starts a driver of side $1 on hosts 0..$2 for run $3; 1 when one did not start (failure noted).
start_drivers() {
  local side=$1 last=$2 run=$3 h dir log
  driver_pid=()
  driver_dir=()
  watched=()
  for ((h = 0; h <= last; h++)); do
    dir="$shm/$prefix-h$h-$run"
    log="$work/$run-driver-h$h.log"
    driver_dir[h]=$dir
    if [ "$side" = ours ]; then
      in_host "$h" "$log" env "${ours_env[@]}" AERON_DIR="$dir" AERON_DIR_DELETE_ON_START=true \
        AERON_DIR_DELETE_ON_SHUTDOWN=true target/release/aeronmd
    else
      java_for "$dir" io.aeron.driver.MediaDriver "${java_props[@]}"
      in_host "$h" "$log" "${java_command[@]}"
    fi
    driver_pid[h]=$started
    watch driver "h$h" "$started"
  done
  for ((h = 0; h <= last; h++)); do
    local ready=
    for _ in $(seq 300); do
      kill -0 "${driver_pid[h]}" 2>/dev/null || break
      if [ "$side" = ours ]; then
        grep -q "driver started" "$work/$run-driver-h$h.log" && { ready=1; break; }
      else
        [ -s "${driver_dir[h]}/cnc.dat" ] && target/release/aeron-stat -d "${driver_dir[h]}" -w false >/dev/null 2>&1 &&
          { ready=1; break; }
      fi
      sleep 0.1
    done
    if [ -z "$ready" ]; then
      failure "$run" "driver on h$h did not start: $(tail -3 "$work/$run-driver-h$h.log" | tr '\n' ' ')"
      return 1
    fi
  done
}
# Saves every driver's counters, then stops the drivers.
stop_drivers() { # <run>
  local h
  for h in "${!driver_pid[@]}"; do
    target/release/aeron-stat -d "${driver_dir[h]}" -w false >"$work/$1-stat-h$h.txt" 2>&1 || true
  done
  for h in "${!driver_pid[@]}"; do stop "${driver_pid[h]}" || true; done
  rm -rf "$shm/$prefix"-*
}

# --- Throughput --------------------------------------------------------------------------------
# Rate-reporter lines of one receiver (ours "1000ms, 1.2e+06 msgs/sec, 7.7e+07 bytes/sec,
# totals N messages N MB payloads", Java's "1.2e+06 msgs/sec, 7.7e+07 payload bytes/sec,
# totals N messages N MB") -> "msgs/s MB/s", the mean of the reports from the third with
# messages to the one before the last with new messages; "- -" without such a report.
receiver_rate() {
  awk '
    /msgs\/sec,/ {
      n++
      for (i = 2; i <= NF; i++) {
        if ($i == "msgs/sec,") m[n] = $(i - 1) + 0
        if ($i == "bytes/sec,") b[n] = ($(i - 1) == "payload" ? $(i - 2) : $(i - 1)) + 0
        if ($(i - 1) == "totals") t[n] = $i + 0
      }
    }
    END {
      first = 0; last = 0; previous = 0
      for (i = 1; i <= n; i++) {
        if (t[i] > 0 && first == 0) first = i
        if (t[i] > previous) last = i
        previous = t[i]
      }
      k = 0
      for (i = first + 2; first > 0 && i < last; i++) { k++; sm += m[i]; sb += b[i] }
      if (k == 0) { print "- -"; exit }
      printf "%.0f %.2f\n", sm / k, sb / k / 1e6
    }' "$1"
}

throughput_run() { # <side> <receivers> <length> <repeat>
  local side=$1 receivers=$2 length=$3 r=$4
  local run="tp-$side-$receivers-$length-$r" h ok=1 data_channel
  data_channel=$(data_channel_for "$receivers")
  starting "$work/$run" "$side: throughput, 1 publisher -> $receivers receiver(s), $length B"
  start_drivers "$side" "$receivers" "$run" || { stop_drivers "$run"; return; }
  local sub_pid=()
  for ((h = 1; h <= receivers; h++)); do
    if [ "$side" = ours ]; then
      in_host "$h" "$work/$run-sub-h$h.log" target/examples-c/rate_subscriber -p "${driver_dir[h]}" \
        -c "$data_channel" -s 1001
    else
      java_for "${driver_dir[h]}" io.aeron.samples.RateSubscriber -Daeron.sample.channel="$data_channel" \
        -Daeron.sample.streamId=1001
      in_host "$h" "$work/$run-sub-h$h.log" "${java_command[@]}"
    fi
    sub_pid[h]=$started
    watch subscriber "h$h" "$started"
  done
  for ((h = 1; h <= receivers; h++)); do
    # Ours says when its subscription is added; Java's starts its reporter then.
    local ready="Subscription channel status"
    [ "$side" = java ] && ready="msgs/sec"
    if ! await "$work/$run-sub-h$h.log" "$ready" 60 "${sub_pid[h]}"; then
      failure "$run" "subscriber on h$h not ready: $(tail -3 "$work/$run-sub-h$h.log" | tr '\n' ' ')"
      ok=
    fi
  done
  if [ -n "$ok" ]; then
    local pub_log="$work/$run-pub.log" pub_rc=0 seconds=$((run_seconds + 2)) pub
    if [ "$side" = ours ]; then
      ip netns exec "$(host_ns 0)" timeout -s INT -k 5 "$seconds" target/examples-c/streaming_publisher \
        -p "${driver_dir[0]}" -c "$data_channel" -s 1001 -L "$length" -m 1000000000000 </dev/null >"$pub_log" 2>&1 &
    else
      java_for "${driver_dir[0]}" io.aeron.samples.StreamingPublisher -Daeron.sample.channel="$data_channel" \
        -Daeron.sample.streamId=1001 -Daeron.sample.messageLength="$length" -Daeron.sample.messages=1000000000000
      ip netns exec "$(host_ns 0)" timeout -s INT -k 5 "$seconds" "${java_command[@]}" </dev/null >"$pub_log" 2>&1 &
    fi
    pub=$!
    pids+=("$pub")
    # Once a second from the third on: where the sending driver's positions stand (what
    # limits it). The CPU window runs from the third second to the last: steady state,
    # after start-up and the JVM's first compilations.
    local i last=$((seconds - 1)) start wait_ms
    start=$(date +%s%3N)
    for ((i = 3; i <= last; i++)); do
      # Until i seconds after the start (at once if the last round took longer).
      wait_ms=$((start + i * 1000 - $(date +%s%3N)))
      [ "$wait_ms" -le 0 ] || sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
      kill -0 "$pub" 2>/dev/null || break
      [ "$i" -eq 3 ] && window_mark "$run" 0 "$receivers"
      [ "$i" -eq "$last" ] && window_mark "$run" 1 "$receivers"
      target/release/aeron-stat -d "${driver_dir[0]}" -w false >"$work/$run-mid-h0-$i.txt" 2>&1 || true
    done
    wait "$pub" || pub_rc=$?
    # 124: interrupted at the end of its time, as intended.
    if [ "$pub_rc" -ne 124 ]; then
      failure "$run" "publisher exited with status $pub_rc before its time: $(tail -3 "$pub_log" | tr '\n' ' ')"
      ok=
    fi
    # The reports covering the end.
    sleep 1.5
  fi
  for ((h = 1; h <= receivers; h++)); do stop "${sub_pid[h]}" || true; done
  stop_drivers "$run"
  [ -n "$ok" ] || return 0
  local error
  for ((h = 1; h <= receivers; h++)); do
    error=$(client_error "$work/$run-sub-h$h.log")
    [ -z "$error" ] || { failure "$run" "subscriber on h$h: $error"; return 0; }
  done
  error=$(client_error "$work/$run-pub.log")
  [ -z "$error" ] || { failure "$run" "publisher: $error"; return 0; }
  local rates=() msgs mbs
  for ((h = 1; h <= receivers; h++)); do
    read -r msgs mbs < <(receiver_rate "$work/$run-sub-h$h.log")
    if [ "$msgs" = - ]; then
      failure "$run" "receiver h$h reported no steady second: $(grep -c 'msgs/sec' "$work/$run-sub-h$h.log") reports"
      return 0
    fi
    rates+=("$msgs $mbs")
  done
  local cell="tp-$receivers-$length" cpu per all_msgs=() all_mbs=() snd=() rcv=()
  for h in "${!rates[@]}"; do
    read -r msgs mbs <<<"${rates[h]}"
    all_msgs+=("$msgs")
    all_mbs+=("$mbs")
  done
  record "$cell-msgs" "$side" "$r" "${all_msgs[@]}"
  record "$cell-mbs" "$side" "$r" "${all_mbs[@]}"
  # Driver CPU per message over the CPU window: messages = how far the sender's (snd-pos)
  # or receiver's (rcv-pos) position moved, over the frame length (header + message,
  # aligned to 32 bytes).
  local frame=$(((32 + length + 31) / 32 * 32)) moved
  for ((h = 0; h <= receivers; h++)); do
    cpu=$(cpu_delta "$work/$run.cpu0" "$work/$run.cpu1" driver "h$h")
    moved=$(position_moved "$work/$run-p0-h$h.txt" "$work/$run-p1-h$h.txt")
    per=$(per_message_us "$cpu" "$((moved / frame))")
    [ "$per" = - ] && continue
    if [ "$h" -eq 0 ]; then snd+=("$per"); else rcv+=("$per"); fi
  done
  [ ${#snd[@]} -eq 0 ] || record "$cell-sndcpu" "$side" "$r" "${snd[@]}"
  [ ${#rcv[@]} -eq 0 ] || record "$cell-rcvcpu" "$side" "$r" "${rcv[@]}"
  note "   receivers msgs/s MB/s: $(printf '[%s] ' "${rates[@]}")"
}
# The CPU snapshot $2 (0 or 1) of run $1 with every driver's counters (hosts 0..$3).
window_mark() {
  local h
  cpu_snapshot "$work/$1.cpu$2"
  for ((h = 0; h <= $3; h++)); do
    target/release/aeron-stat -d "${driver_dir[h]}" -w false >"$work/$1-p$2-h$h.txt" 2>&1 || true
  done
}
# How far the first snd-pos or rcv-pos moved between two aeron-stat outputs (0 if unknown).
position_moved() {
  [ -e "$1" ] && [ -e "$2" ] || { echo 0; return; }
  awk 'FNR == 1 { f++ } { line = $0; sub(/^ *[0-9]+ *: */, "", line); split(line, parts, " - "); gsub(/,/, "", parts[1])
      if ((parts[2] ~ /^snd-pos:/ || parts[2] ~ /^rcv-pos:/) && p[f] == "") p[f] = parts[1] }
    END { if (p[1] == "" || p[2] == "") print 0; else print p[2] - p[1] }' "$1" "$2"
}
# <cpu seconds> <messages> -> µs per message, 3 decimals ("-" when either is missing).
per_message_us() {
  awk -v c="$1" -v n="$2" 'BEGIN { if (c == "-" || n + 0 == 0) print "-"; else printf "%.3f\n", c * 1e6 / n }'
}

# record <name> <side> <repeat> <values...>: the values into $work/<name>.<side> (one a
# line: every receiver of every run), and "<repeat> <their median>" into
# $work/<name>.<side>.runs (one a run: what the paired ratio and the per-run list use).
record() {
  local name=$1 side=$2 r=$3
  shift 3
  printf '%s\n' "$@" >>"$work/$name.$side"
  echo "$r $(printf '%s\n' "$@" | median /dev/stdin)" >>"$work/$name.$side.runs"
}

# --- Round trip --------------------------------------------------------------------------------
# An HdrHistogram percentile table (µs) -> "p50 p90 p99 p99.9".
hdr_percentiles() {
  awk '
    NF >= 3 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ {
      if (a == "" && $2 >= 0.5) a = $1
      if (b == "" && $2 >= 0.9) b = $1
      if (c == "" && $2 >= 0.99) c = $1
      if (d == "" && $2 >= 0.999) d = $1
    }
    END { if (d == "") print "- - - -"; else printf "%s %s %s %s\n", a, b, c, d }' "$1"
}
# The C ping's "N round trips in Xs: p50 N ns, p90 N ns, p99 N ns, p99.9 N ns, ..." -> µs.
c_percentiles() {
  awk '/round trips in/ {
      for (i = 1; i < NF; i++) { v = $(i + 1) + 0; if ($i == "p50") a = v; if ($i == "p90") b = v; if ($i == "p99") c = v; if ($i == "p99.9") d = v }
      printf "%.3f %.3f %.3f %.3f\n", a / 1000, b / 1000, c / 1000, d / 1000; found = 1 }
    END { if (!found) print "- - - -" }' "$1"
}

ping_pong_run() { # <side> <repeat>
  local side=$1 r=$2 run="pp-$1-$2"
  starting "$work/$run" "$side: round trip, ping h0 <-> pong h1, 32 B, $round_trips round trips"
  start_drivers "$side" 1 "$run" || { stop_drivers "$run"; return; }
  local ping_log="$work/$run-ping.log" pong_log="$work/$run-pong.log" ping_rc=0 pong
  if [ "$side" = ours ]; then
    in_host 1 "$pong_log" target/examples-c/pong -p "${driver_dir[1]}" -c "$ping_channel" -C "$pong_channel"
    pong=$started
    watch pong h1 "$pong"
    if await "$pong_log" "Publication channel status" 60 "$pong"; then
      cpu_snapshot "$work/$run.cpu0"
      ip netns exec "$(host_ns 0)" timeout -k 5 "$run_timeout" target/examples-c/ping -p "${driver_dir[0]}" \
        -c "$ping_channel" -C "$pong_channel" -L 32 -m "$round_trips" -w "$((round_trips / 10))" \
        </dev/null >"$ping_log" 2>&1 &
      pids+=($!)
      wait_watching $! "$ping_log" "$pong_log"
      ping_rc=$ended_by
    else
      ping_rc="pong not ready: $(tail -3 "$pong_log" | tr '\n' ' ')"
    fi
  else
    local samples=(-Daeron.sample.ping.channel="$ping_channel" -Daeron.sample.pong.channel="$pong_channel"
      -Daeron.sample.messageLength=32 -Daeron.sample.exclusive.publications=true)
    java_for "${driver_dir[1]}" io.aeron.samples.Pong "${samples[@]}"
    in_host 1 "$pong_log" "${java_command[@]}"
    pong=$started
    watch pong h1 "$pong"
    # Pong is ready when its publication's limit counter shows in its driver.
    for _ in $(seq 600); do
      target/release/aeron-stat -d "${driver_dir[1]}" -w false 2>/dev/null | grep -q "pub-lmt" && break
      kill -0 "$pong" 2>/dev/null || break
      sleep 0.1
    done
    java_for "${driver_dir[0]}" io.aeron.samples.Ping "${samples[@]}" -Daeron.sample.messages="$round_trips" \
      -Daeron.sample.warmup.iterations=1 -Daeron.sample.warmup.messages="$((round_trips / 10))"
    cpu_snapshot "$work/$run.cpu0"
    # "n" answers its "Execute again?" prompt.
    ip netns exec "$(host_ns 0)" timeout -k 5 "$run_timeout" "${java_command[@]}" <<<n >"$ping_log" 2>&1 &
    pids+=($!)
    wait_watching $! "$ping_log" "$pong_log"
    ping_rc=$ended_by
  fi
  [ -e "$work/$run.cpu0" ] && cpu_snapshot "$work/$run.cpu1"
  stop "$pong" || true
  stop_drivers "$run"
  local p50 p90 p99 p999
  if [ "$side" = ours ]; then
    read -r p50 p90 p99 p999 < <(c_percentiles "$ping_log")
  else
    read -r p50 p90 p99 p999 < <(hdr_percentiles "$ping_log")
  fi
  if [ "$ping_rc" != 0 ] || [ "$p50" = - ]; then
    case $ping_rc in
      0) ping_rc="no percentiles: $(tail -3 "$ping_log" | tr '\n' ' ')" ;;
      124) ping_rc="timed out after ${run_timeout}s: $(tail -3 "$ping_log" | tr '\n' ' ')" ;;
      [0-9]*) ping_rc="exit status $ping_rc: $(tail -3 "$ping_log" | tr '\n' ' ')" ;;
    esac
    failure "$run" "ping: $ping_rc"
    return 0
  fi
  local d0 d1 per
  d0=$(cpu_delta "$work/$run.cpu0" "$work/$run.cpu1" driver h0)
  d1=$(cpu_delta "$work/$run.cpu0" "$work/$run.cpu1" driver h1)
  per=$(per_message_us "$(awk -v a="$d0" -v b="$d1" 'BEGIN { if (a == "-" || b == "-") print "-"; else print a + b }')" \
    "$((round_trips + round_trips / 10))")
  [ "$per" = - ] || record pp-drvcpu "$side" "$r" "$per"
  note "   p50 $p50 p90 $p90 p99 $p99 p99.9 $p999 µs; drivers ${per} µs CPU per round trip"
  record pp-p50 "$side" "$r" "$p50"
  record pp-p90 "$side" "$r" "$p90"
  record pp-p99 "$side" "$r" "$p99"
  record pp-p99.9 "$side" "$r" "$p999"
}

# --- The runs: ours and Java alternate, the first side swapping each repeat ------------------
for ((r = 1; r <= repeats; r++)); do
  sides="ours java"
  [ $((r % 2)) -eq 0 ] && sides="java ours"
  for receivers in $receivers_list; do
    for length in $lengths; do
      for side in $sides; do throughput_run "$side" "$receivers" "$length" "$r"; done
    done
  done
  for side in $sides; do ping_pong_run "$side" "$r"; done
done

# --- The table ---------------------------------------------------------------------------------
# A cell's median over the runs that succeeded ("-" when none did).
cell_value() { if [ -s "$1" ]; then median "$1" | fmt_value; else echo -; fi; }
# Table precision: whole numbers from 1000, else 2 or 3 decimals.
fmt_value() {
  awk '{ v = $1 + 0; a = v < 0 ? -v : v
    if ($1 == "-") print "-"; else if (a >= 1000) printf "%.0f\n", v; else if (a >= 10) printf "%.2f\n", v; else printf "%.3f\n", v }'
}
# The median over repeats of ours/Java within each repeat (both sides ran back to back, so
# a slow phase of the machine hits both): files <name>.ours.runs and <name>.java.runs.
paired() {
  [ -s "$1.ours.runs" ] && [ -s "$1.java.runs" ] || { echo -; return; }
  join <(sort -k1,1 "$1.ours.runs") <(sort -k1,1 "$1.java.runs") |
    awk '$3 + 0 != 0 { printf "%.4f\n", $2 / $3 }' | median /dev/stdin | awk '{ printf "%.2f\n", $1 }'
}
# "ours-ok/java-ok" runs of a cell.
runs_ok() {
  local o=0 j=0
  [ -s "$1.ours.runs" ] && o=$(wc -l <"$1.ours.runs")
  [ -s "$1.java.runs" ] && j=$(wc -l <"$1.java.runs")
  echo "$o/$j of $repeats"
}
row() { printf '%-46s %12s %12s %9s %9s %12s\n' "$@"; }
# One value per repeat, in order, "-" for a failed run.
values() {
  local r out=() v
  for ((r = 1; r <= repeats; r++)); do
    v=$( { awk -v r="$r" '$1 == r { print $2 }' "$1" 2>/dev/null || true; } | head -1)
    out+=("${v:--}")
  done
  echo "${out[*]}"
}
report() {
  local receivers length unit ours java label name side f
  echo "UDP multicast across simulated hosts (network namespaces on one bridge), aeronrs vs Java Aeron $aeron_version"
  echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), Linux $(uname -r)"
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src scripts examples-c || echo ' + uncommitted changes')"
  echo "command: REPEATS=$repeats RUN_SECONDS=$run_seconds ROUND_TRIPS=$round_trips RECEIVERS='$receivers_list'" \
    "LENGTHS='$lengths' MODE=$mode FC=$fc SO_RCVBUF=$so_rcvbuf RCV_WINDOW=$rcv_window $command_line"
  echo "drivers: one per host; $mode_text;"
  echo "  term length 16 MiB, SO_RCVBUF $so_rcvbuf ($rcvbuf_note), SO_SNDBUF system default,"
  echo "  MTU 1408, initial receiver window $rcv_window, non-sparse terms; flow control ${fc:-the multicast default (max)}"
  echo "ours: aeronmd + examples-c streaming_publisher, rate_subscriber, ping, pong (libaeronrs.so); Java: MediaDriver + io.aeron.samples.*"
  echo "channels: $(data_channel_for N) (throughput, N receivers),"
  echo "  ping/pong $ping_channel / $pong_channel"
  echo "throughput: h0 publishes for $((run_seconds + 2)) s to h1..hN; per receiver the mean of its steady 1 s reports;"
  echo "  median over receivers and $repeats repeat(s). Round trip: ping h0, pong h1, 32 B, $round_trips round trips"
  echo "  after $((round_trips / 10)) warm-up; median of repeats. Driver CPU (utime+stime, all threads) per message: from"
  echo "  the 3rd s of publishing to the last, over the messages its snd-pos / rcv-pos moved by; per round trip: the ping run."
  echo
  row "cell" aeronrs Java ours/Java paired "runs ok o/J"
  for receivers in $receivers_list; do
    for length in $lengths; do
      for unit in msgs mbs sndcpu rcvcpu; do
        case $unit in
          msgs) label="msgs/s" ;;
          mbs) label="MB/s" ;;
          sndcpu) label="  sending driver CPU µs/msg" ;;
          rcvcpu) label="  receiving driver CPU µs/msg" ;;
        esac
        [ "${label:0:1}" = " " ] || label="throughput, $receivers rcv, $length B, $label"
        f="$work/tp-$receivers-$length-$unit"
        ours=$(cell_value "$f.ours")
        java=$(cell_value "$f.java")
        row "$label" "$ours" "$java" "$(ratio "$ours" "$java")" "$(paired "$f")" "$(runs_ok "$f")"
      done
    done
  done
  for name in p50 p90 p99 p99.9 drvcpu; do
    label="round trip, 32 B, $name µs"
    [ "$name" = drvcpu ] && label="  both drivers CPU µs/round trip"
    f="$work/pp-$name"
    ours=$(cell_value "$f.ours")
    java=$(cell_value "$f.java")
    row "$label" "$ours" "$java" "$(ratio "$ours" "$java")" "$(paired "$f")" "$(runs_ok "$f")"
  done
  echo "throughput: ours/Java > 1 means ours is faster; round trip and CPU: ours/Java < 1 means ours is lower."
  echo "aeronrs, Java: medians over the runs that succeeded (throughput: over every receiver of them); paired: the"
  echo "median over repeats of ours/Java within a repeat; runs ok: runs that succeeded, ours/Java (FAILED below)."
  echo
  echo "each run, in repeat order (throughput: the median of its receivers; '-' = failed):"
  for receivers in $receivers_list; do
    for length in $lengths; do
      echo "  $receivers rcv $length B msgs/s  ours $(values "$work/tp-$receivers-$length-msgs.ours.runs") | Java $(values "$work/tp-$receivers-$length-msgs.java.runs")"
    done
  done
  for name in p50 p99; do
    echo "  round trip $name µs  ours $(values "$work/pp-$name.ours.runs") | Java $(values "$work/pp-$name.java.runs")"
  done
  echo
  echo "CPU seconds over the publishing window / ping run, per process (median over runs; h0 publishes or pings):"
  for receivers in $receivers_list; do
    for length in $lengths; do
      for side in ours java; do
        echo "  $receivers rcv $length B $side: $(cpu_summary "tp-$side-$receivers-$length-")"
      done
    done
  done
  for side in ours java; do echo "  round trip $side: $(cpu_summary "pp-$side-")"; done
  echo
  echo "driver counters at the end of each run (median over runs; h0 / sum over h1..hN):"
  for receivers in $receivers_list; do
    for length in $lengths; do
      for side in ours java; do
        echo "  $receivers rcv $length B $side: $(counter_summary "tp-$side-$receivers-$length-" "$receivers")"
      done
    done
  done
  echo
  echo "sending driver, sampled once a second while publishing: backlog = pub-pos - snd-pos (written, not yet sent;"
  echo "at the 8 MiB term window the publisher is back-pressured), window = snd-lmt - snd-pos (what flow control still"
  echo "allows; under 2 KiB the sender waits for status messages, above it the sender itself is behind):"
  for receivers in $receivers_list; do
    for length in $lengths; do
      for side in ours java; do
        echo "  $receivers rcv $length B $side: $(position_summary "tp-$side-$receivers-$length-")"
      done
    done
  done
  echo
  printf 'load average (1 min) before each run:'
  for f in "$work"/*.load; do printf ' %s=%s' "$(basename "$f" .load)" "$(cut -d' ' -f1 "$f")"; done
  echo
  if [ ${#failed[@]} -gt 0 ]; then
    echo
    echo "FAILED runs (their cells are '-'):"
    printf '  %s\n' "${failed[@]}"
  fi
}
# Medians over the runs matching $1 of each process's CPU seconds in its window, the system
# (kernel) share of them and its voluntary / involuntary context switches per second.
cpu_summary() {
  local f run role host d lines=()
  for f in "$work/$1"*.cpu0; do
    [ -e "$f" ] || continue
    run=${f%.cpu0}
    [ -e "$run.cpu1" ] || continue
    while read -r role host _; do
      [ "$role" = clock ] || [ "$role" = thread ] && continue
      d=$(stat_delta "$f" "$run.cpu1" "$role" "$host")
      [ "$d" = - ] || lines+=("$host $role $d")
    done <"$f"
  done
  [ ${#lines[@]} -gt 0 ] || { echo -; return; }
  printf '%s\n' "${lines[@]}" | awk '
    function med(k, j,   m, i, l, x, a) {
      m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i, j]
      for (i = 1; i <= m; i++) for (l = i + 1; l <= m; l++) if (a[l] < a[i]) { x = a[i]; a[i] = a[l]; a[l] = x }
      return a[int((m + 1) / 2)]
    }
    { k = $1 " " $2; n[k]++; for (j = 3; j <= 6; j++) v[k, n[k], j] = $j }
    END { for (k in n) printf "%s %.2f s (%.0f%% sys, %d vol/s, %d invol/s)\n", k, med(k, 3), 100 * med(k, 4), med(k, 5), med(k, 6) }' |
    sort | awk '{ $1 = $2 " " $1; $2 = ""; sub(/  /, " "); printf "%s%s", (NR > 1 ? "; " : ""), $0 } END { print "" }'
}
# "backlog KiB window KiB" of an aeron-stat output with one network publication.
mid_positions() {
  awk '{ line = $0; sub(/^ *[0-9]+ *: */, "", line); split(line, parts, " - "); gsub(/,/, "", parts[1])
      if (parts[2] ~ /^pub-pos/) p = parts[1]; if (parts[2] ~ /^snd-pos/) s = parts[1]; if (parts[2] ~ /^snd-lmt/) l = parts[1] }
    END { if (s == "") print "- -"; else printf "%.0f %.0f\n", (p - s) / 1024, (l - s) / 1024 }' "$1"
}
position_summary() {
  local f backlog window samples=()
  for f in "$work/$1"*-mid-h0-*.txt; do
    [ -e "$f" ] || continue
    read -r backlog window < <(mid_positions "$f")
    [ "$backlog" = - ] || samples+=("$backlog $window")
  done
  [ ${#samples[@]} -gt 0 ] || { echo -; return; }
  local n full shut
  n=${#samples[@]}
  full=$(printf '%s\n' "${samples[@]}" | awk '$1 >= 8000 { k++ } END { print k + 0 }')
  shut=$(printf '%s\n' "${samples[@]}" | awk '$2 < 2 { k++ } END { print k + 0 }')
  echo "$n samples: backlog median $(printf '%s\n' "${samples[@]}" | cut -d' ' -f1 | median /dev/stdin) KiB" \
    "(at the 8 MiB term window in $((100 * full / n))%), window median" \
    "$(printf '%s\n' "${samples[@]}" | cut -d' ' -f2 | median /dev/stdin) KiB (under 2 KiB in $((100 * shut / n))%)"
}
# Selected system counters of the runs matching $1 (h0, and summed over h1..h$2).
counter_summary() {
  local files=("$work/$1"*-stat-h0.txt)
  [ -e "${files[0]}" ] || { echo -; return; }
  local name h0 rx out=
  for name in "NAKs sent" "NAKs received" "Retransmits sent" "Short sends" \
    "Sender flow control limits, i.e. back-pressure events" "Flow control under runs" "Flow control over runs" \
    "Loss gap fills" "Status Messages sent" "Status Messages received"; do
    h0=$(counter_median "$1" "$name" 0 0)
    rx=$(counter_median "$1" "$name" 1 "$2")
    out+="${name%%,*} $h0/$rx, "
  done
  echo "${out%, }"
}
counter_median() { # <run pattern> <counter label> <first host> <last host>: median over runs of the sum
  local f run sum h values=()
  for f in "$work/$1"*-stat-h0.txt; do
    run=${f%-stat-h0.txt}
    sum=0
    for ((h = $3; h <= $4; h++)); do
      sum=$((sum + $(counter_of "$run-stat-h$h.txt" "$2")))
    done
    values+=("$sum")
  done
  printf '%s\n' "${values[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
counter_of() { # <aeron-stat output> <label>: its value (0 if absent)
  awk -v label="$2" '{ line = $0; sub(/^ *[0-9]+ *: */, "", line); split(line, parts, " - ")
      if (parts[2] == label) { gsub(/,/, "", parts[1]); print parts[1] + 0; found = 1; exit } }
    END { if (!found) print 0 }' "$1" 2>/dev/null || echo 0
}

mkdir -p "$(dirname "$out")"
report | tee "$out"
echo "written to $out" >&2
[ ${#failed[@]} -eq 0 ] || exit 1
