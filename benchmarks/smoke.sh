#!/usr/bin/env bash
# A short run of every benchmark, writing JMH JSON under benchmarks/results/. It proves they run;
# it is not a timing gate (2 noisy cores). Needs benchmarks/target/benchmarks.jar.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
jar=target/benchmarks.jar
short=(-f 1 -wi 1 -i 1 -w 1s -r 1s)

run() {
  local name=$1
  shift
  echo "== smoke: $name"
  java -jar "$jar" "$name" "$@" -rf json -rff "results/smoke-$name.json"
}

run FlushCostBenchmark "${short[@]}" -p n=1000,10000 -p k=1,100
# The flush's flatness in table size, as the ratio gate reads it: flushes into 1,000 and 100,000
# Services timed in pairs, so that load changing during the run weighs on both sizes alike.
run FlushRatioBenchmark -f 1 -wi 3 -w 1s -i 3 -r 1s
run TableMapBenchmark "${short[@]}" -p map=tree,champ -p n=1000
# 10,000 services and a short warm-up: the ratio gate below checks its gain (>= 20x).
run CoalescingBenchmark -f 1 -wi 3 -w 1s -i 3 -r 1s -p services=10000
run ReadsNeverWaitBenchmark "${short[@]}"
run MemoryBenchmark
# Only the interleaved pairs, which the ratio gate reads: Resolve and the no-op back to back under
# the same load (the sequential resolve and noop methods once read 2.03x under a concurrent run,
# both ~10x slower than idle). Warmed up for 3 s: cold, Resolve (more code to compile) measured
# 1.8x the no-op against 1.4x warm, too near the gate's 2x. Four 1 s iterations, so the gate's
# median over them shrugs off one bad second; still shorter than the two methods' 10 s were.
run ServingFloorBenchmark.interleaved -f 1 -wi 3 -w 1s -i 4 -r 1s
run EndToEndChurnBenchmark -f 1 -wi 0 -i 1 -p rate=0,1000 -p seconds=1
run SeparateFeedEndToEndBenchmark -f 1 -wi 0 -i 1 -p rate=0,1000 -p seconds=1 -p changes=50 -p warm=false
run DriftDetectorBenchmark "${short[@]}" -p services=1000
run RecordEqualityBenchmark -wi 1 -i 1 -w 1s -r 1s
run XdsPushBenchmark.push "${short[@]}" -p streams=10 -p endpoints=5
run FanOutBenchmark -p subscribers=10 -p seconds=1
# The whole-process CPU comparison, small (200 objects, bursts of 300), the agent with the image's
# JVM flags; the JS informer beside it when node and npm are here (its client installed as
# process-cpu.sh installs it), the Python loop when its client is.
echo "== smoke: ProcessCpuRun"
no_python=true
/usr/bin/python3 -c 'import kubernetes' 2> /dev/null && no_python=false
no_js=true
if command -v node > /dev/null && command -v npm > /dev/null; then
  if [[ ! -d js-informer/node_modules/@kubernetes/client-node ]]; then
    npm ci --prefix js-informer --ignore-scripts --no-audit --no-fund > /dev/null
  fi
  no_js=false
fi
(cd .. && java -cp benchmarks/target/benchmarks.jar dev.routesync.bench.ProcessCpuRun --objects 200 \
  --warmup 300 --bursts 1 --burst 300 --no-python "$no_python" --no-js "$no_js" \
  --agent-jvm "$(scripts/image-env.sh JAVA_TOOL_OPTIONS)" | grep -v SO_KEEPALIVE)
echo "smoke: every benchmark ran; results in benchmarks/results/"
# The regression gate: only ratios that stay put on a noisy machine, never an absolute time
# (RatioGate's javadoc gives the bounds and why). A broken ratio fails CI.
java -cp "$jar" dev.routesync.bench.RatioGate results/smoke-CoalescingBenchmark.json \
  results/smoke-ServingFloorBenchmark.interleaved.json results/smoke-MemoryBenchmark.json \
  results/smoke-FlushRatioBenchmark.json
