#!/usr/bin/env bash
# The full run whose figures benchmarks/README.md reports: every benchmark and every
# whole-process run, one after the other, on an otherwise idle machine, so the ratios and targets
# are side by side in one run. About 45 minutes on 2 cores. Needs the agent jar (target/) and
# benchmarks/target/benchmarks.jar:
#
#   mvn -B install -DskipTests && (cd benchmarks && mvn -B package) && benchmarks/full.sh
#
# Writes results/<date>-full-*.json (JMH), results/<date>-full-*.txt (the whole-process runs'
# output) and results/<date>-full-run.load (each step's start and the load average then: a busy
# machine shows there, and its figures mean less).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
stamp=$(date -u +%Y-%m-%d)-full
load=results/$stamp-run.load
: > "$load"
step() {
  echo "== $1 $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" | tee -a "$load"
}
jmh() {
  local name=$1 out=$2
  shift 2
  java -jar target/benchmarks.jar "$name" "$@" -rf json -rff "results/$stamp-$out.json"
}

# Target 2: flush cost flat in n, three runs. Each run: the paired flushes (n = 1k and 100k timed
# back to back in one JVM, the ratio the target is judged on), then every size in its own forks,
# with allocation per flush (-prof gc) and CPU per flush beside the wall-clock score.
for run in 1 2 3; do
  step "flush$run"
  jmh FlushRatioBenchmark "FlushRatioBenchmark-run$run" -prof gc
  jmh FlushCostBenchmark "FlushCostBenchmark-run$run" -prof gc -prof dev.routesync.bench.CpuTimeProfiler
done
# Targets 1a (memory per endpoint), coalescing, reads with a writer, the serving floor, the
# in-process end-to-end churn: their own defaults.
for name in MemoryBenchmark CoalescingBenchmark ReadsNeverWaitBenchmark ServingFloorBenchmark \
    EndToEndChurnBenchmark; do
  step "$name"
  jmh "$name" "$name"
done
# Target 4: the feed in its own process; 5,000 events/s (4a, 4b), then isolated changes (4c),
# warm (after a 30,000-write burst) and cold.
step "SeparateFeed-5000"
jmh SeparateFeedEndToEndBenchmark SeparateFeedEndToEndBenchmark-5000 -p rate=5000
step "SeparateFeed-isolated"
jmh SeparateFeedEndToEndBenchmark SeparateFeedEndToEndBenchmark-isolated -p rate=0 -p warm=true,false
# The drift detector's cost per event, with allocation per event.
step "DriftDetectorBenchmark"
jmh DriftDetectorBenchmark DriftDetectorBenchmark -prof gc
# One changed Service pushed to 10 / 100 / 1,000 ADS streams, shared encoding cache vs per stream,
# and its control, the ACKs alone.
step "XdsPushBenchmark"
jmh 'XdsPushBenchmark.push' XdsPushBenchmark -prof gc
jmh 'XdsPushBenchmark.ack' XdsPushBenchmark-ack -p cache=shared -p endpoints=5 -prof gc
# Target 5: Watch and ADS fan-out to 10 / 100 / 500 subscribers at 1,000 changes/s.
step "FanOutBenchmark"
jmh FanOutBenchmark FanOutBenchmark
# Target 0: whole-process CPU per event against the seed's Python watcher, after a long warm-up.
step "process-cpu"
./process-cpu.sh --runs 1 --warmup 30000 --bursts 3 | tee "results/$stamp-process-cpu.txt"
# Targets 1b and 6: cold start and relist at 1,000,000 endpoints with -Xmx256m, drift detector on
# (and the empty agent's baseline), then off.
step "scale-run"
./scale-run.sh 0 40000 | tee "results/$stamp-ScaleRun-drift.txt"
step "scale-run-nodrift"
DRIFT=off ./scale-run.sh 40000 | tee "results/$stamp-ScaleRun-nodrift.txt"
(cd .. && for f in scale-run-histogram-40000*.txt; do cp "$f" "benchmarks/results/$stamp-$f"; done)
# Target 3: our CPU per event against fabric8's decode at 5,000 events/s (async-profiler).
step "profile"
./profile.sh full
step "done"
