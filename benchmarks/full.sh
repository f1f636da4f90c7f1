#!/usr/bin/env bash
# The full run whose figures the README reports: every benchmark with its own defaults, one after
# the other on an otherwise idle machine. About 21 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
stamp=$(date -u +%Y-%m-%d)
# Flush cost with allocation per flush and CPU per flush beside the wall-clock score (issue 12:
# its README row reports all three; CPU time still means something on a loaded machine).
echo "== FlushCostBenchmark"
java -jar target/benchmarks.jar FlushCostBenchmark -prof gc -prof dev.routesync.bench.CpuTimeProfiler \
  -rf json -rff "results/$stamp-FlushCostBenchmark.json"
for name in CoalescingBenchmark ReadsNeverWaitBenchmark MemoryBenchmark \
    ServingFloorBenchmark EndToEndChurnBenchmark SeparateFeedEndToEndBenchmark; do
  echo "== $name"
  java -jar target/benchmarks.jar "$name" -rf json -rff "results/$stamp-$name.json"
done
# With allocation per event (-prof gc): its README row reports both.
echo "== DriftDetectorBenchmark"
java -jar target/benchmarks.jar DriftDetectorBenchmark -prof gc \
  -rf json -rff "results/$stamp-DriftDetectorBenchmark.json"
# One changed Service pushed to 10 / 100 / 1,000 ADS streams, shared encoding cache vs per stream;
# allocation per push (-prof gc) beside the time.
echo "== XdsPushBenchmark"
java -jar target/benchmarks.jar 'XdsPushBenchmark.push' -prof gc \
  -rf json -rff "results/$stamp-XdsPushBenchmark.json"
# Its control, the ACKs alone (the cache plays no part).
java -jar target/benchmarks.jar 'XdsPushBenchmark.ack' -p cache=shared -p endpoints=5 -prof gc \
  -rf json -rff "results/$stamp-XdsPushBenchmark-ack.json"
# Watch and ADS fan-out to 10 / 100 / 500 subscribers at 1,000 changes/s, Watch with shared
# encodings vs per stream; CPU per delivered message and receipt latency (about 2.5 minutes).
echo "== FanOutBenchmark"
java -jar target/benchmarks.jar FanOutBenchmark -rf json -rff "results/$stamp-FanOutBenchmark.json"
# Whole-process CPU per event against the seed's Python watcher, twice (about 3 min).
echo "== process-cpu"
./process-cpu.sh --runs 2 | tee "results/$stamp-process-cpu.txt"
