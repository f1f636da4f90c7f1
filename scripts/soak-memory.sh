#!/usr/bin/env bash
# Memory soak: the agent, with the image's JVM flags, inside a memory cgroup limited like the
# DaemonSet's container (256 MiB), holding 1,000 sidecar connections with one Watch each while its
# table churns. Reports the agent's peak RSS and the cgroup's peak usage against the limit, and
# FAILS if the kernel OOM-killed the agent (or the agent died, or a stream failed).
#
#   sudo scripts/soak-memory.sh [options]
#
#   --minutes N        how long the streams stay open and the table churns (default 3)
#   --connections N    sidecars, one Unix-socket connection and one Watch each (default 1000)
#   --services N       mesh-managed Services in the API server (default 100) ...
#   --endpoints N      ... of N endpoints each (default 10)
#   --churn-every MS   one slice rewritten every MS ms (default 50: 20 writes/s)
#   --limit BYTES      the cgroup's memory limit (default 268435456 = 256Mi, the DaemonSet's)
#   --jvm-flags "..."  the agent's JVM flags (default: the Dockerfile's JAVA_TOOL_OPTIONS)
#   --old-flags        the flags before the memory layout: -XX:MaxRAMPercentage=75 only (with
#                      glibc's default arenas unless MALLOC_ARENA_MAX is set)
#   --nmt              add -XX:NativeMemoryTracking=summary and print the JVM's breakdown (jcmd)
#   --runtime R        jlink (default: the image's runtime, made with scripts/jlink-runtime.sh into
#                      target/jre) or system (the `java` on PATH)
#
# What runs where:
#   - the load (one JVM, outside the cgroup, niced): fabric8's CRUD mock API server seeded with the
#     Services, a churn loop, and the sidecars (grpc-java, one channel = one connection each). All
#     streams open at once, as when every sidecar reconnects to a restarted agent, and once more
#     halfway through (src/test/java/dev/routesync/soak/WatchSoakLoad.java);
#   - the agent (`routesync agent`, the production command, niced), started inside the cgroup
#     before its JVM exists, so the JVM sees the limit as it would in a container. The mock runs in
#     the load's process, not the agent's: `routesync demo` would charge its mock to the agent.
# Every 2 s it samples VmRSS/VmHWM and threads (/proc/<pid>), and the cgroup's usage, peak,
# failcnt and OOM kills; the samples go to target/soak/<time>/samples.tsv.
#
# Needs root and a writable memory cgroup: cgroup v1 (/sys/fs/cgroup/memory) or v2 (the memory
# controller enabled in /sys/fs/cgroup). No systemd needed. Builds with Maven when the jar or the
# test classes are missing (MVN_ARGS=-o for offline). Not part of `mvn verify` or .ci/run: one run
# takes the minutes asked for plus about a minute, and two cores' worth of CPU (docs/install.md,
# "Memory budget", has the budget).
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=3
connections=1000
services=100
endpoints=10
churn_every=50
limit=268435456
jvm_flags=
use_nmt=false
runtime=jlink
old_flags="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"

while [[ $# -gt 0 ]]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --services) services=$2; shift 2 ;;
    --endpoints) endpoints=$2; shift 2 ;;
    --churn-every) churn_every=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --jvm-flags) jvm_flags=$2; shift 2 ;;
    --old-flags) jvm_flags=$old_flags; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-0}; shift ;;
    --nmt) use_nmt=true; shift ;;
    --runtime) runtime=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak-memory: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "soak-memory: $*"; }
fail() {
  echo "soak-memory: FAIL: $*" >&2
  exit 1
}

# The image's flags and malloc setting, from the one place they are written: the Dockerfile's ENV.
if [[ -z $jvm_flags ]]; then
  jvm_flags=$(scripts/image-env.sh JAVA_TOOL_OPTIONS)
fi
malloc_arena_max=${MALLOC_ARENA_MAX:-$(scripts/image-env.sh MALLOC_ARENA_MAX)}
if $use_nmt; then
  jvm_flags="$jvm_flags -XX:NativeMemoryTracking=summary"
fi

[[ $(id -u) == 0 ]] || fail "needs root (to make a memory cgroup)"
[[ $minutes =~ ^[0-9]+$ && $minutes -ge 1 ]] || fail "--minutes must be a whole number >= 1"
if (($(ulimit -n) < connections + 512)); then
  ulimit -n $((connections + 1024)) 2> /dev/null \
    || fail "ulimit -n is $(ulimit -n): too low for $connections connections (raise it)"
fi

# ---- build ---------------------------------------------------------------------------------
jar=target/routesync.jar
cp_file=target/soak-classpath.txt
if [[ ! -f $jar || ! -f target/test-classes/dev/routesync/soak/WatchSoakLoad.class ]]; then
  say "building (mvn package -DskipTests)"
  mvn -B -q ${MVN_ARGS:-} package -DskipTests
fi
if [[ ! -f $cp_file || pom.xml -nt $cp_file ]]; then
  mvn -B -q ${MVN_ARGS:-} dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cp_file" > /dev/null
fi
case $runtime in
  jlink)
    if [[ ! -x target/jre/bin/java || $jar -nt target/jre/routesync-modules.txt ]]; then
      scripts/jlink-runtime.sh "$jar" target/jre > /dev/null
    fi
    agent_java=target/jre/bin/java
    ;;
  system) agent_java=$(command -v java) ;;
  *) fail "--runtime must be jlink or system" ;;
esac
jcmd_bin=$(dirname "$(readlink -f "$(command -v java)")")/jcmd

# ---- the cgroup ------------------------------------------------------------------------------
name=rs-soak-$$
if [[ -w /sys/fs/cgroup/memory ]]; then
  cg_version=1
  cg=/sys/fs/cgroup/memory/$name
  mkdir "$cg"
  echo "$limit" > "$cg/memory.limit_in_bytes"
  echo 0 > "$cg/memory.swappiness" 2> /dev/null || true
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control; then
  cg_version=2
  cg=/sys/fs/cgroup/$name
  mkdir "$cg"
  echo "$limit" > "$cg/memory.max"
  echo 0 > "$cg/memory.swap.max" 2> /dev/null || true
else
  fail "no writable memory cgroup (v1 /sys/fs/cgroup/memory, or v2 with the memory controller)"
fi
cg_usage() { if [[ $cg_version == 1 ]]; then cat "$cg/memory.usage_in_bytes"; else cat "$cg/memory.current"; fi; }
cg_peak() {
  if [[ $cg_version == 1 ]]; then cat "$cg/memory.max_usage_in_bytes"
  elif [[ -f $cg/memory.peak ]]; then cat "$cg/memory.peak"
  else echo "$peak_seen"; fi
}
cg_failcnt() { if [[ $cg_version == 1 ]]; then cat "$cg/memory.failcnt"; else awk '$1=="max"{print $2}' "$cg/memory.events"; fi; }
cg_oom_kills() {
  if [[ $cg_version == 1 ]]; then awk '$1=="oom_kill"{print $2} END{}' "$cg/memory.oom_control" | grep . || echo 0
  else awk '$1=="oom_kill"{print $2}' "$cg/memory.events"; fi
}
# Anonymous memory (what cannot be reclaimed; the page cache of the jar can).
cg_anon() {
  if [[ $cg_version == 1 ]]; then awk '$1=="rss"{print $2}' "$cg/memory.stat"
  else awk '$1=="anon"{print $2}' "$cg/memory.stat"; fi
}

out=target/soak/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
tmp=$(mktemp -d /tmp/rs-soak.XXXXXX)
socket=$tmp/routesync.sock
load_pid=
agent_pid=
cleanup() {
  for pid in $agent_pid $load_pid; do
    if kill -0 "$pid" 2> /dev/null; then kill -KILL "$pid" 2> /dev/null || true; fi
  done
  wait 2> /dev/null || true
  rm -rf "$tmp"
  rmdir "$cg" 2> /dev/null || true
}
trap cleanup EXIT

mib() { awk -v b="$1" 'BEGIN{printf "%.1f MiB", b/1048576}'; }

say "agent: $agent_java, JAVA_TOOL_OPTIONS=\"$jvm_flags\" MALLOC_ARENA_MAX=$malloc_arena_max"
say "cgroup v$cg_version $cg, limit $(mib "$limit"); $connections connections, $services Services x $endpoints endpoints, a slice write every $churn_every ms, $minutes min"

# ---- the load, then the agent ----------------------------------------------------------------
nice -n 10 java -Xmx1g -cp "target/test-classes:target/classes:$(cat "$cp_file")" \
  dev.routesync.soak.WatchSoakLoad --socket "$socket" --kubeconfig-out "$tmp/kubeconfig" \
  --connections "$connections" --services "$services" --endpoints "$endpoints" \
  --churn-every "$churn_every" --duration $((minutes * 60)) > "$out/load.log" 2>&1 &
load_pid=$!
for _ in $(seq 1 120); do
  [[ -f $tmp/kubeconfig ]] && break
  kill -0 "$load_pid" 2> /dev/null || { cat "$out/load.log" >&2; fail "the load exited early"; }
  sleep 0.5
done
[[ -f $tmp/kubeconfig ]] || fail "the load wrote no kubeconfig within 60 s"

# The shell joins the cgroup, then becomes the JVM: the JVM reads its limit at start.
# Every load connection comes from this script's uid, and one uid holds at most three quarters of
# --max-connections (the rest stays for other uids): raise the cap so the whole load is admitted.
max_connections=$(( (connections * 4 + 2) / 3 ))
if (( max_connections < 1024 )); then max_connections=1024; fi
# The GC log (collector, heap size, every collection) goes beside the samples.
MALLOC_ARENA_MAX=$malloc_arena_max JAVA_TOOL_OPTIONS="$jvm_flags -Xlog:gc,gc+init:file=$out/gc.log" nice -n 5 sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' \
  sh "$cg" "$agent_java" -jar "$jar" agent --kubeconfig "$tmp/kubeconfig" --socket "$socket" \
  --admin-port 0 --node-name soak-node --state-file "$tmp/state/table.bin" \
  --max-connections "$max_connections" > "$out/agent.log" 2>&1 &
agent_pid=$!

# ---- sample until the load ends --------------------------------------------------------------
printf 'seconds\trss_kib\thwm_kib\tthreads\tcg_usage\tcg_peak\tcg_anon\tfailcnt\toom_kills\n' > "$out/samples.tsv"
peak_seen=0
max_anon=0
max_hwm=0
max_threads=0
nmt_best=0
start=$(date +%s)
next_nmt=$((start + 45))
while kill -0 "$load_pid" 2> /dev/null; do
  if ! kill -0 "$agent_pid" 2> /dev/null || grep -q '^State:.*Z' "/proc/$agent_pid/status" 2> /dev/null; then
    break # the agent died (a zombie until we wait for it)
  fi
  status=/proc/$agent_pid/status
  rss=$(awk '/^VmRSS/{print $2}' "$status" 2> /dev/null || echo 0)
  hwm=$(awk '/^VmHWM/{print $2}' "$status" 2> /dev/null || echo 0)
  threads=$(awk '/^Threads/{print $2}' "$status" 2> /dev/null || echo 0)
  usage=$(cg_usage)
  ((usage > peak_seen)) && peak_seen=$usage
  ((threads > max_threads)) && max_threads=$threads
  ((${hwm:-0} > max_hwm)) && max_hwm=$hwm
  anon=$(cg_anon)
  ((anon > max_anon)) && max_anon=$anon
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $(($(date +%s) - start)) "${rss:-0}" "${hwm:-0}" \
    "${threads:-0}" "$usage" "$(cg_peak)" "$anon" "$(cg_failcnt)" "$(cg_oom_kills)" >> "$out/samples.tsv"
  if $use_nmt && (($(date +%s) >= next_nmt)) && [[ -x $jcmd_bin ]]; then
    next_nmt=$(($(date +%s) + 45))
    snapshot=$("$jcmd_bin" "$agent_pid" VM.native_memory summary scale=KB 2> /dev/null || true)
    committed=$(sed -n 's/^Total: reserved=[0-9]*KB, committed=\([0-9]*\)KB.*/\1/p' <<< "$snapshot")
    if [[ -n $committed ]] && ((committed > nmt_best)); then
      nmt_best=$committed
      echo "$snapshot" > "$out/nmt-peak.txt"
    fi
  fi
  sleep 2
done

hwm=$(awk '/^VmHWM/{print $2}' "/proc/$agent_pid/status" 2> /dev/null || true)
((${hwm:-0} > max_hwm)) && max_hwm=$hwm
hwm=$max_hwm # a killed agent has no VmHWM left: the last sample's
threads_by_name=$(for t in /proc/"$agent_pid"/task/*/comm; do cat "$t"; done 2> /dev/null \
  | sed 's/[-#]*[0-9]*$//' | sort | uniq -c | sort -rn | awk '{printf "%s %s, ", $1, $2}')
if $use_nmt && [[ -x $jcmd_bin ]] && kill -0 "$agent_pid" 2> /dev/null; then
  "$jcmd_bin" "$agent_pid" VM.native_memory summary scale=KB > "$out/nmt-end.txt" 2> /dev/null || true
fi

load_rc=0
agent_alive=false
if kill -0 "$agent_pid" 2> /dev/null && [[ -z $(awk '$1=="State:" && $2=="Z"' "/proc/$agent_pid/status" 2> /dev/null) ]]; then
  agent_alive=true
  kill -TERM "$agent_pid"
else
  kill -TERM "$load_pid" 2> /dev/null || true # nothing left to measure
fi
wait "$load_pid" || load_rc=$?
load_pid=
agent_rc=0
wait "$agent_pid" || agent_rc=$?
agent_pid=
oom_kills=$(cg_oom_kills)
peak=$(cg_peak)

echo
say "results in $out"
grep -E 'storm|RESULT' "$out/load.log" | sed 's/^/  /'
say "agent peak RSS (VmHWM): $(mib $((hwm * 1024))) of the $(mib "$limit") limit"
say "cgroup peak usage: $(mib "$peak") (anonymous memory at most $(mib "$max_anon"), the rest page cache; failcnt $(cg_failcnt); OOM kills $oom_kills)"
say "threads: $max_threads at most; at the end: ${threads_by_name%, }"
if [[ -f $out/nmt-peak.txt ]]; then
  say "NMT at the largest committed total (KB):"
  grep -E '^Total|^-  *[A-Z]' "$out/nmt-peak.txt" | sed 's/^/  /'
fi
if ((oom_kills > 0)) || [[ $agent_rc == 137 ]]; then
  tail -n 5 "$out/agent.log" >&2
  fail "the kernel OOM-killed the agent (oom_kill=$oom_kills, exit $agent_rc)"
fi
if ! $agent_alive; then
  tail -n 20 "$out/agent.log" >&2
  fail "the agent died during the soak (exit $agent_rc)"
fi
[[ $agent_rc == 0 ]] || fail "the agent exited $agent_rc after SIGTERM (expected 0)"
[[ $load_rc == 0 ]] || fail "the load reported failed streams (see $out/load.log)"
say "PASS: peak RSS $(mib $((hwm * 1024))), cgroup peak $(mib "$peak"), under $(mib "$limit"), no OOM kill"
