#!/usr/bin/env bash
# Restart to serving: how long a restarted agent takes, from process start, to answer its
# persisted table on the Unix socket while the API server is away (a warm start).
#
#   scripts/restart-to-serving.sh [--runs N] [--busy N] [--java PATH] [-- EXTRA JVM FLAGS]
#
#   --runs N   restarts to time (default 5)
#   --busy N   run N busy loops (sh -c 'while :; do :; done') beside the agent; always killed
#   --java P   the java to run (default: java on PATH; check-runtime.sh passes its jlinked one)
#   -- ...     JVM flags added after the image's (e.g. -XX:SharedArchiveFile=target/routesync.jsa)
#
# First the demo (DEMO_JAR: target/routesync-demo.jar if present, else target/routesync.jar) runs
# with --state-file F until it serves, and is SIGTERMed: F holds its table. Then, N times,
# `java <the image's JAVA_TOOL_OPTIONS> -jar AGENT_JAR agent --state-file F ...` starts with a
# kubeconfig whose API server is a closed loopback port, and the socket is polled every ~10 ms
# (curl GET /v1/services) until the persisted Services are answered. Prints each run's
# milliseconds from just before the exec to that answer, and the median; and the CPU the agent's
# process had used by then (user + system, from /proc: what a loaded machine does not change much).
# Environment: AGENT_JAR (default target/routesync.jar), DEMO_JAR, TIMEOUT_S (default 30).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
busy=0
java=java
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --busy) busy=$2; shift 2 ;;
    --java) java=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "restart-to-serving: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

AGENT_JAR=${AGENT_JAR:-target/routesync.jar}
if [[ -z ${DEMO_JAR:-} ]]; then
  DEMO_JAR=target/routesync-demo.jar
  [[ -f $DEMO_JAR ]] || DEMO_JAR=target/routesync.jar
fi
TIMEOUT_S=${TIMEOUT_S:-30}
for jar in "$AGENT_JAR" "$DEMO_JAR"; do
  [[ -f $jar ]] || { echo "restart-to-serving: $jar missing: run 'mvn -B package -DskipTests'" >&2; exit 1; }
done
command -v curl > /dev/null || { echo "restart-to-serving: needs curl" >&2; exit 1; }
read -ra JVM_FLAGS <<< "$(scripts/image-env.sh JAVA_TOOL_OPTIONS)"
export MALLOC_ARENA_MAX
MALLOC_ARENA_MAX=$(scripts/image-env.sh MALLOC_ARENA_MAX)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/routesync-restart.XXXXXX")
state=$tmp/state/table.bin
sock=$tmp/rs.sock
pid=
busy_pids=()
cleanup() {
  for p in "${busy_pids[@]}"; do
    { kill -KILL "$p" && wait "$p"; } 2> /dev/null || true
  done
  if [[ -n $pid ]] && kill -0 "$pid" 2> /dev/null; then kill -KILL "$pid" 2> /dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }
services() { curl -s --max-time 1 --unix-socket "$sock" http://localhost/v1/services 2> /dev/null || true; }
stop() { # SIGTERM, wait for the drain (it writes the state file)
  kill -TERM "$pid" 2> /dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  pid=
}

# 1. The persisted table: the demo's (namespace shop), written at its graceful stop.
"$java" "${JVM_FLAGS[@]}" -jar "$DEMO_JAR" demo --state-file "$state" --socket "$sock" \
  --admin-port 0 > "$tmp/demo.log" 2>&1 &
pid=$!
deadline=$(($(now_ms) + TIMEOUT_S * 1000))
until [[ $(services) == *'"shop"'* ]]; do
  if ! kill -0 "$pid" 2> /dev/null || (($(now_ms) > deadline)); then
    tail -n 30 "$tmp/demo.log" >&2
    echo "restart-to-serving: the demo did not serve within ${TIMEOUT_S}s" >&2
    exit 1
  fi
  sleep 0.1
done
stop
[[ -s $state ]] || { echo "restart-to-serving: the demo left no state file at $state" >&2; exit 1; }

# 2. An API server that is not there (scripts/away.kubeconfig).
cp scripts/away.kubeconfig "$tmp/kubeconfig"

for _ in $(seq 1 "$busy"); do
  sh -c 'while :; do :; done' &
  busy_pids+=($!)
done

echo "restart-to-serving: agent $AGENT_JAR, java $java, flags: ${JVM_FLAGS[*]} ${extra[*]}"
echo "restart-to-serving: busy loops beside it: $busy"
times=()
cpus=()
for run in $(seq 1 "$runs"); do
  start=$(now_ms)
  "$java" "${JVM_FLAGS[@]}" "${extra[@]}" -jar "$AGENT_JAR" agent --state-file "$state" \
    --socket "$sock" --admin-port 0 --kubeconfig "$tmp/kubeconfig" > "$tmp/agent-$run.log" 2>&1 &
  pid=$!
  deadline=$((start + TIMEOUT_S * 1000))
  while :; do
    if [[ -S $sock && $(services) == *'"shop"'* ]]; then
      break
    fi
    if ! kill -0 "$pid" 2> /dev/null || (($(now_ms) > deadline)); then
      tail -n 30 "$tmp/agent-$run.log" >&2
      echo "restart-to-serving: run $run did not serve the persisted table within ${TIMEOUT_S}s" >&2
      exit 1
    fi
    sleep 0.01
  done
  ms=$(($(now_ms) - start))
  # utime and stime, fields 14 and 15 of /proc/PID/stat (after the parenthesised name), in ticks.
  cpu=$(sed 's/^.*) //' "/proc/$pid/stat" | awk -v hz="$(getconf CLK_TCK)" '{print int(($12 + $13) * 1000 / hz)}')
  times+=("$ms")
  cpus+=("$cpu")
  echo "run $run: ${ms} ms (CPU ${cpu} ms)"
  stop
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
echo "restart-to-serving: median $(median "${times[@]}") ms over $runs runs (${times[*]}), CPU median $(median "${cpus[@]}") ms (${cpus[*]}), busy loops: $busy"
