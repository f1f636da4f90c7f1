#!/usr/bin/env bash
# Whole-process cost against the real control plane: the agent (its default configuration, the
# image's JVM flags) beside client-go's informer, the JS informer and the seed's Python watcher,
# all watching one kube-apiserver, each through a byte-counting relay, while real Deployment
# rollouts churn it; or, with --scale, each alone on 100 x 1,000 hand-made endpoints
# (benchmarks/control_plane_cpu.py says what is measured). Brings the control plane up when it is
# not (scripts/control-plane.sh; building it costs about 8 minutes on a cold cache), builds the
# client-go peer when its sources are newer than its binary, installs the JS and Python clients.
#
#   benchmarks/control-plane-cpu.sh [--runs N] [control_plane_cpu.py options]
#   benchmarks/control-plane-cpu.sh --runs 1 --services 20 --replicas 10 --rounds 6
#   benchmarks/control-plane-cpu.sh --runs 1 --scale --services 100 --endpoints-per-service 1000
#   benchmarks/control-plane-cpu.sh --java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java \
#     --agent-jvm-extra='-XX:+UseCompactObjectHeaders'   (with '=': the value starts with '-')
#
# Each run's summary goes to benchmarks/target/control-plane-cpu/<time>-run<N>/summary.txt, with
# every process's log beside it. Exits 1 when a run failed as a whole (a peer that dies or is never
# exact is reported in the summary, not an exit code: this is a measurement, not a gate).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1
jar=target/routesync.jar
pass=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --jar) jar=$2; pass+=("$1" "$2"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done

if ! /usr/bin/python3 -c 'import kubernetes, yaml' 2> /dev/null; then
  echo "control-plane-cpu: installing python3-kubernetes (apt)"
  apt-get install -y --no-install-recommends python3-kubernetes python3-yaml > /dev/null \
    || { apt-get update > /dev/null \
      && apt-get install -y --no-install-recommends python3-kubernetes python3-yaml > /dev/null; }
fi
if [[ ! -d benchmarks/js-informer/node_modules/@kubernetes/client-node ]]; then
  npm ci --prefix benchmarks/js-informer --ignore-scripts --no-audit --no-fund > /dev/null
fi
# The client-go peer: rebuilt only when a source, go.mod or go.sum is newer than the binary (a cold
# build from the control plane's module cache takes about 2 minutes on 2 cores).
peer=benchmarks/target/client-go-watcher
if [[ ! -x $peer ]] || [[ -n $(find benchmarks/client-go -newer "$peer" -type f) ]]; then
  echo "control-plane-cpu: building $peer"
  mkdir -p benchmarks/target
  (cd benchmarks/client-go && go build -trimpath -o "../target/client-go-watcher.tmp" . \
    && mv ../target/client-go-watcher.tmp ../target/client-go-watcher)
fi
[[ -f $jar ]] || mvn -B -q ${MVN_ARGS:-} package -DskipTests
scripts/control-plane.sh up
eval "$(scripts/control-plane.sh env)"

status=0
for run in $(seq 1 "$runs"); do
  out=benchmarks/target/control-plane-cpu/$(date -u +%Y%m%dT%H%M%SZ)-run$run
  echo "== control-plane-cpu run $run of $runs"
  # In the background and waited for, so that a TERM (timeout, CI) reaches the harness, which then
  # stops its watchers and deletes its namespace before it exits.
  /usr/bin/python3 benchmarks/control_plane_cpu.py --out "$out" "${pass[@]}" &
  child=$!
  trap 'kill -TERM $child 2> /dev/null; wait $child; exit 143' TERM INT
  wait $child || status=1
  trap - TERM INT
done
exit $status
