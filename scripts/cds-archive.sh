#!/usr/bin/env bash
# Builds the agent's class-data-sharing archive (AppCDS, a dynamic archive on top of the runtime's
# base archive) from a training run, so that a restarted agent maps its classes instead of loading,
# parsing and verifying them from the jar. The Dockerfile's cds stage and CI
# (scripts/check-runtime.sh) both call this script, so the archive CI proves is made the way the
# image's is.
#
#   scripts/cds-archive.sh JAVA AGENT_JAR DEMO_JAR ARCHIVE
#
# The training run is a warm start, the path the archive is for: the demo (DEMO_JAR) serves and is
# SIGTERMed, leaving a state file; then the agent (AGENT_JAR) starts from that file with the image's
# JVM flags (the Dockerfile's JAVA_TOOL_OPTIONS) and -XX:ArchiveClassesAtExit=ARCHIVE, its API
# server away (a closed loopback port), serves the table, answers it, and is SIGTERMed; the JVM
# writes the archive as it exits.
#
# The archive is valid only for the same runtime (JAVA, and its base archive: jlink-runtime.sh makes
# one), the same jar at the same path (its size and mtime are checked) and compatible flags; the
# image runs it with -Xshare:auto, so a mismatch loses the speed, not the agent.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 4 ]]; then
  echo "usage: $0 JAVA AGENT_JAR DEMO_JAR ARCHIVE" >&2
  exit 2
fi
java=$1
agent_jar=$2
demo_jar=$3
archive=$4
timeout_s=${TIMEOUT_S:-60}

for jar in "$agent_jar" "$demo_jar"; do
  [[ -f $jar ]] || { echo "cds-archive: no such jar: $jar" >&2; exit 1; }
done
home=$(dirname "$(dirname "$java")")
if [[ ! -f $home/lib/server/classes.jsa ]]; then
  # A dynamic archive needs the runtime's base archive (jlink --generate-cds-archive makes it).
  echo "cds-archive: FAIL: $home/lib/server/classes.jsa missing: the runtime has no base CDS archive" >&2
  exit 1
fi
read -ra JVM_FLAGS <<< "$(scripts/image-env.sh JAVA_TOOL_OPTIONS)"
export MALLOC_ARENA_MAX
MALLOC_ARENA_MAX=$(scripts/image-env.sh MALLOC_ARENA_MAX)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/routesync-cds.XXXXXX")
sock=$tmp/rs.sock
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2> /dev/null; then kill -KILL "$pid" 2> /dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# curl where there is one; else the agent's own client on the same runtime (slower, same answer).
query() {
  if command -v curl > /dev/null; then
    curl -s --max-time 2 --unix-socket "$sock" http://localhost/v1/services 2> /dev/null || true
  else
    "$java" -jar "$agent_jar" get services -o json --socket "$sock" 2> /dev/null || true
  fi
}
# Waits until the socket answers namespace shop (the demo's table), or fails with the log.
await_serving() {
  local log=$1 waited=0
  until [[ -S $sock && $(query) == *'"shop"'* ]]; do
    if ! kill -0 "$pid" 2> /dev/null || ((waited >= timeout_s * 10)); then
      tail -n 30 "$log" >&2
      echo "cds-archive: FAIL: $2 did not serve namespace shop within ${timeout_s}s" >&2
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}
stop() { # SIGTERM and the drain; the training JVM writes the archive after it
  kill -TERM "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=
  [[ $rc -eq 0 ]] || { tail -n 30 "$1" >&2; echo "cds-archive: FAIL: $2 exited $rc after SIGTERM" >&2; exit 1; }
}

"$java" "${JVM_FLAGS[@]}" -jar "$demo_jar" demo --state-file "$tmp/state/table.bin" \
  --socket "$sock" --admin-port 0 > "$tmp/demo.log" 2>&1 &
pid=$!
await_serving "$tmp/demo.log" demo
stop "$tmp/demo.log" demo

cp scripts/away.kubeconfig "$tmp/kubeconfig"

rm -f "$archive"
# picocli's classes are class-file version 49, which CDS does not archive: one warning each, hence
# -Xlog:cds=off (they load from the jar at run time, as before).
"$java" "${JVM_FLAGS[@]}" -XX:ArchiveClassesAtExit="$archive" -Xlog:cds=off -Xlog:cds+dynamic=info \
  -jar "$agent_jar" agent --state-file "$tmp/state/table.bin" --socket "$sock" --admin-port 0 \
  --kubeconfig "$tmp/kubeconfig" > "$tmp/agent.log" 2>&1 &
pid=$!
await_serving "$tmp/agent.log" "the agent (training run)"
query > /dev/null # one more answer, on a warm connection path
stop "$tmp/agent.log" "the agent (training run)"
if [[ ! -s $archive ]]; then
  tail -n 30 "$tmp/agent.log" >&2
  echo "cds-archive: FAIL: the training run wrote no archive at $archive" >&2
  exit 1
fi
echo "cds-archive: $archive ($(du -h "$archive" | cut -f1)) from a warm start of $agent_jar"
