#!/usr/bin/env bash
# Cold start and relist at cluster scale, whole process (dev.routesync.bench.ScaleRun): the agent
# jar as a child with -Xmx256m against a paged CRUD mock of N Services x 25 endpoints, with the
# drift detector on (NODE_NAME set, 110 pods on the node) as the DaemonSet runs it.
#
#   benchmarks/scale-run.sh [sizes...]      (default: 0 10000 40000; 0 is the empty baseline)
#
# Env: AGENT_JARS (comma-separated, default target/routesync.jar: give a before,after pair to
# compare), XMX (default 256m), DRIFT (default on; off: no node name, the detector off), MVN_ARGS
# (e.g. "-o -Dmaven.repo.local=..."). The mock is seeded in bulk (seconds, not minutes); a drift-on
# run waits 32 s more (the detector's grace) to check the node is reported clean. Runs under flock
# /tmp/jmh.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(0 10000 40000)
if [[ ! -f target/routesync.jar ]]; then
  mvn -B -q ${MVN_ARGS:-} install -DskipTests
fi
if [[ ! -f benchmarks/target/benchmarks.jar ]]; then
  (cd benchmarks && mvn -B -q ${MVN_ARGS:-} package)
fi
for n in "${sizes[@]}"; do
  uptime
  flock /tmp/jmh.lock java -Xmx12g -cp benchmarks/target/benchmarks.jar dev.routesync.bench.ScaleRun \
    --jar "${AGENT_JARS:-target/routesync.jar}" --services "$n" --xmx "${XMX:-256m}" \
    $([[ "${DRIFT:-on}" == off ]] && echo --no-drift) \
    | grep -E '^(populated|agent|ready|drift|relist|RESULT)'
done
uptime
