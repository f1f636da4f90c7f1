#!/usr/bin/env bash
# CPU profile of EndToEndChurnBenchmark at 5,000 events/s with async-profiler, then the CPU split
# into buckets (fabric8/Jackson decode, informer bookkeeping, ours by package, metrics, logging,
# protobuf, Netty/Vert.x I/O, GC, JIT, the benchmark's own sender and subscriber).
#
#   benchmarks/profile.sh [label] [extra JMH args...]      e.g. benchmarks/profile.sh after
#
# Writes results/<date>-EndToEnd-5000-<label>-flame.html (async-profiler's flame graph),
# results/<date>-EndToEnd-5000-<label>.collapsed (thread-rooted collapsed stacks; ~30 MB, not
# committed: re-bucket it with profile_buckets.py --top 12, whose default rule set, endtoend, is
# this run's) and results/<date>-EndToEnd-5000-<label>-buckets.txt (profile_buckets.py's table;
# the load average before and after is appended). About 2-4 min: two 10 s warm-ups (one left C2 still compiling: JIT a third of the CPU)
# and one 10 s measured iteration; frames are annotated (_[j] compiled, _[i] inlined, _[0]
# interpreted, _[1] C1).
#
# Sampling: event=cpu (perf_events' cpu-clock where perf_event_paranoid allows it, as here with 2:
# user-space stacks only; async-profiler falls back to itimer otherwise) every 200 us of CPU, so a
# 10 s run on 2 cores gives ~10-40k samples: a 5% share is then +-0.3% (one binomial sigma).
# Only the measured iteration is profiled (JMH starts the profiler after warm-up).
# Needs benchmarks/target/benchmarks.jar and the async-profiler jar (tools.profiler:async-profiler
# on Maven Central), which it fetches into the local Maven repository when it is missing.
set -euo pipefail
cd "$(dirname "$0")"
label=${1:-run}
shift || true
jar=target/benchmarks.jar
ap_jar=${ASYNC_PROFILER_JAR:-$HOME/.m2/repository/tools/profiler/async-profiler/4.2/async-profiler-4.2.jar}
interval=${PROFILE_INTERVAL_NS:-200000}
if [[ ! -f $ap_jar ]]; then
  mvn -B -q dependency:get -Dartifact=tools.profiler:async-profiler:4.2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unzip -q -o "$ap_jar" linux-x64/libasyncProfiler.so -d "$work"
lib=$work/linux-x64/libasyncProfiler.so
stem=results/$(date -u +%Y-%m-%d)-EndToEnd-5000-$label
mkdir -p results "$work/out"
load_before=$(uptime)
java -jar "$jar" EndToEndChurnBenchmark -f 1 -wi 2 -i 1 -p rate=5000 -p seconds=10 "$@" \
  -prof "async:libPath=$lib;event=cpu;interval=$interval;threads=true;ann=true;output=collapsed,flamegraph;dir=$work/out" \
  | tee "$work/jmh.txt"
load_after=$(uptime)
collapsed=$(find "$work/out" -name 'collapsed-cpu.csv' | head -1)
flame=$(find "$work/out" -name 'flame-cpu-forward.html' | head -1)
cp "$collapsed" "$stem.collapsed"
cp "$flame" "$stem-flame.html"
{
  # The measured iteration's figures (JMH echoes each line again; the first pair is the warm-up's).
  grep -E '^(Iteration +1: )?(end-to-end|agent-side)' "$work/jmh.txt" | awk '!seen[$0]++' | tail -2 || true
  python3 profile_buckets.py "$stem.collapsed"
  echo "load before: $load_before"
  echo "load after:  $load_after"
} | tee "$stem-buckets.txt"
