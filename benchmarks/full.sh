#!/usr/bin/env bash
# The full run whose figures the README reports: every benchmark with its own defaults, one after
# the other on an otherwise idle machine. About 18 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
stamp=$(date -u +%Y-%m-%d)
for name in FlushCostBenchmark CoalescingBenchmark ReadsNeverWaitBenchmark MemoryBenchmark \
    ServingFloorBenchmark EndToEndChurnBenchmark; do
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
java -jar target/benchmarks.jar XdsPushBenchmark -prof gc \
  -rf json -rff "results/$stamp-XdsPushBenchmark.json"
