#!/usr/bin/env bash
# Whole-process CPU per watch event against the real control plane: the agent beside the seed's
# Python watcher, both watching one kube-apiserver while real Deployment rollouts churn it
# (benchmarks/control_plane_cpu.py says what is measured). Brings the control plane up when it is
# not (scripts/control-plane.sh; building it costs about 8 minutes on a cold cache).
#
#   benchmarks/control-plane-cpu.sh [--runs N] [control_plane_cpu.py options, e.g. --services 20]
#
# Each run's summary goes to benchmarks/target/control-plane-cpu/<time>-run<N>/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=2
pass=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done

if ! /usr/bin/python3 -c 'import kubernetes' 2> /dev/null; then
  echo "control-plane-cpu: installing python3-kubernetes (apt)"
  apt-get install -y --no-install-recommends python3-kubernetes > /dev/null \
    || { apt-get update > /dev/null && apt-get install -y --no-install-recommends python3-kubernetes > /dev/null; }
fi
[[ -f target/routesync.jar ]] || mvn -B -q ${MVN_ARGS:-} package -DskipTests
scripts/control-plane.sh up
eval "$(scripts/control-plane.sh env)"

for run in $(seq 1 "$runs"); do
  out=benchmarks/target/control-plane-cpu/$(date -u +%Y%m%dT%H%M%SZ)-run$run
  echo "== control-plane-cpu run $run of $runs: uptime before: $(uptime)"
  /usr/bin/python3 benchmarks/control_plane_cpu.py --out "$out" "${pass[@]}"
  echo "== uptime after: $(uptime)"
done
