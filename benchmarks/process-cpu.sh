#!/usr/bin/env bash
# Whole-process CPU per watch event: the agent (the built jar, --source endpoints) against two
# peers on one separate-process feed: the official JavaScript client's informer
# (benchmarks/js-informer, issue 23) and the seed's Python EndpointWatcher on the official Python
# client (issue 12, target 0). See ProcessCpuRun's javadoc for what runs and what is measured.
#
#   benchmarks/process-cpu.sh [--runs N] [--profile] [ProcessCpuRun options, e.g. --rate 300]
#
#   --runs N     repeat the whole comparison N times (default 2), each in fresh processes
#   --profile    also profile the agent over the measured bursts with async-profiler (perf_events
#                "cpu" mode when the kernel allows it, else set --profile-event itimer), and
#                bucket the samples (benchmarks/profile_buckets.py --rules process)
#
# Leave a peer out with --no-js true or --no-python true. Without node and npm the JS peer is left
# out, loudly.
#
# Each run's output goes to benchmarks/target/process-cpu/<time>-run<N>/ (summary.txt, the
# processes' logs, agent.collapsed and buckets.txt with --profile). Wrap it in `flock
# /tmp/jmh.lock` on a shared machine. Default: two runs of about 1.5 min each.
# BENCH_JAR: a copy of benchmarks.jar to run (so a rebuild cannot change it mid-run).
# Builds what is missing with MVN_ARGS (e.g. MVN_ARGS="-o -Dmaven.repo.local=...").
set -euo pipefail
cd "$(dirname "$0")/.."

runs=2
profile=false
pass=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --profile) profile=true; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done

# The design under comparison runs on Debian's python3-kubernetes (the official client, 22.6).
python=/usr/bin/python3
if ! "$python" -c 'import kubernetes' 2> /dev/null; then
  echo "process-cpu: installing python3-kubernetes (apt)"
  apt-get install -y --no-install-recommends python3-kubernetes > /dev/null \
    || { apt-get update > /dev/null && apt-get install -y --no-install-recommends python3-kubernetes > /dev/null; }
fi

# The informer runs on @kubernetes/client-node as pinned in benchmarks/js-informer/package-lock.json.
if command -v node > /dev/null && command -v npm > /dev/null; then
  if [[ ! -d benchmarks/js-informer/node_modules/@kubernetes/client-node ]]; then
    echo "process-cpu: installing the JS informer's client (npm ci)"
    npm ci --prefix benchmarks/js-informer --ignore-scripts --no-audit --no-fund > /dev/null
  fi
else
  echo "!!! process-cpu: node/npm NOT FOUND: the JS informer peer is LEFT OUT !!!" >&2
  pass+=(--no-js true)
fi

if [[ ! -f target/routesync.jar ]]; then
  mvn -B -q ${MVN_ARGS:-} install -DskipTests
fi
if [[ ! -f benchmarks/target/benchmarks.jar ]]; then
  (cd benchmarks && mvn -B -q ${MVN_ARGS:-} package)
fi

profiler=()
if $profile; then
  repo=$(sed -n 's/.*-Dmaven.repo.local=\([^ ]*\).*/\1/p' <<< "${MVN_ARGS:-}")
  repo=${repo:-$HOME/.m2/repository}
  jar=$(ls "$repo"/tools/profiler/async-profiler/4.*/async-profiler-4.*.jar 2> /dev/null | tail -1)
  [[ -n $jar ]] || { echo "process-cpu: no tools.profiler:async-profiler 4.x in $repo" >&2; exit 1; }
  mkdir -p benchmarks/target/async-profiler
  unzip -o -q "$jar" 'linux-x64/libasyncProfiler.so' -d benchmarks/target/async-profiler
  profiler=(--profile "$PWD/benchmarks/target/async-profiler/linux-x64/libasyncProfiler.so")
fi

# The agent runs with the image's JVM flags (the Dockerfile's JAVA_TOOL_OPTIONS) unless given
# --agent-jvm.
if [[ " ${pass[*]} " != *" --agent-jvm "* ]]; then
  pass+=(--agent-jvm "$(scripts/image-env.sh JAVA_TOOL_OPTIONS)")
fi

for run in $(seq 1 "$runs"); do
  out=benchmarks/target/process-cpu/$(date -u +%Y%m%dT%H%M%SZ)-run$run
  mkdir -p "$out"
  echo "== process-cpu run $run of $runs: uptime before: $(uptime)" | tee "$out/summary.txt"
  java -cp "${BENCH_JAR:-benchmarks/target/benchmarks.jar}" dev.routesync.bench.ProcessCpuRun --out "$out" \
    "${profiler[@]}" "${pass[@]}" 2>&1 | grep -v "SO_KEEPALIVE" | tee -a "$out/summary.txt"
  echo "== uptime after: $(uptime)" | tee -a "$out/summary.txt"
  if $profile && [[ -f $out/agent.collapsed ]]; then
    python3 benchmarks/profile_buckets.py --rules process "$out/agent.collapsed" | tee "$out/buckets.txt"
  fi
done
