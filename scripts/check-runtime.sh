#!/usr/bin/env bash
# CI's stand-in for `docker build` + `docker run` (Docker cannot run on the build machines):
# makes the container's Java runtime with the same script the Dockerfile uses
# (scripts/jlink-runtime.sh), then runs the agent on it with the image's JVM flags:
#   1. `routesync --version` prints `routesync <project version>`;
#   2. the TLS provider for the API server (SunEC) is in the runtime;
#   3. `routesync demo` serves the routing table on its Unix socket (Netty epoll, the mock API
#      server, the whole agent), then SIGTERM makes it exit 0 within 15 s and remove the socket;
#   4. the CDS archive the image ships (scripts/cds-archive.sh) maps on this runtime, the agent's
#      classes come from it, and restart to serving with it is reported (not checked: noisy CI).
# Run after `mvn package` (needs target/routesync.jar). Prints PASS/FAIL lines; exits non-zero on
# the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=target/routesync.jar
JRE=target/jre
# The image's JVM flags (the Dockerfile's JAVA_TOOL_OPTIONS), so a flag the runtime rejects fails
# here. Given on the command line: JAVA_TOOL_OPTIONS would add a "Picked up" line to --version.
read -ra JVM_FLAGS <<< "$(scripts/image-env.sh JAVA_TOOL_OPTIONS)"
[[ ${#JVM_FLAGS[@]} -gt 0 ]] || { echo "check-runtime: FAIL: no JAVA_TOOL_OPTIONS in the Dockerfile" >&2; exit 1; }
export MALLOC_ARENA_MAX
MALLOC_ARENA_MAX=$(scripts/image-env.sh MALLOC_ARENA_MAX)
EXPECTED_VERSION="routesync $(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n 1)"

pass() { echo "check-runtime: PASS: $*"; }
fail() {
  echo "check-runtime: FAIL: $*" >&2
  exit 1
}

[[ -f $JAR ]] || fail "$JAR missing: run 'mvn -B package -DskipTests' first"
# curl reads the HTTP API; without it, the agent's own `get services` (gRPC) on the same runtime.
query() {
  if command -v curl > /dev/null; then
    curl -s --max-time 2 --unix-socket "$1" http://localhost/v1/services
  else
    "$JRE/bin/java" -jar "$JAR" get services -o json --socket "$1"
  fi
}

scripts/jlink-runtime.sh "$JAR" "$JRE" > /dev/null || fail "jlink-runtime.sh could not make the runtime"
pass "jlinked runtime in $JRE ($(du -sh "$JRE" | cut -f1)): $(cat "$JRE/routesync-modules.txt")"
java=$JRE/bin/java

# 1. --version
version=$("$java" "${JVM_FLAGS[@]}" -jar "$JAR" --version 2>&1) || fail "--version exited $?: $version"
[[ $version == "$EXPECTED_VERSION" ]] || fail "--version printed '$version', expected '$EXPECTED_VERSION'"
pass "--version: $version"

# 2. TLS to the API server needs the EC provider, which is service-loaded (jdeps cannot see it).
if "$java" -XshowSettings:security:providers -version 2>&1 | grep -q 'Provider name: SunEC'; then
  pass "SunEC provider present (ECDHE for TLS to the API server)"
else
  fail "SunEC provider missing from the runtime (jdk.crypto.ec)"
fi

# 3. demo: serve, answer, drain on SIGTERM.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/routesync-check.XXXXXX")
sock=$tmp/rs.sock
log=$tmp/demo.log
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2> /dev/null; then
    kill -KILL "$pid" 2> /dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
show_log() {
  echo "---- demo log ($log) ----" >&2
  tail -n 40 "$log" >&2 || true
  echo "----" >&2
}

"$java" "${JVM_FLAGS[@]}" -jar "$JAR" demo --socket "$sock" --admin-port 0 > "$log" 2>&1 &
pid=$!

body=
for _ in $(seq 1 60); do # 60 x 0.5 s = 30 s at most
  if ! kill -0 "$pid" 2> /dev/null; then
    show_log
    fail "demo exited before serving"
  fi
  if [[ -S $sock ]]; then
    body=$(query "$sock" 2> /dev/null || true)
    [[ $body == *'"shop"'* ]] && break
  fi
  sleep 0.5
done
if [[ $body != *'"shop"'* ]]; then
  show_log
  fail "demo did not serve namespace shop on $sock within 30 s (last answer: ${body:0:200})"
fi
pass "demo serves on the jlinked runtime: GET /v1/services -> ${body:0:120}..."

kill -TERM "$pid"
for _ in $(seq 1 30); do # 30 x 0.5 s = 15 s at most
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.5
done
if kill -0 "$pid" 2> /dev/null; then
  show_log
  fail "demo still running 15 s after SIGTERM"
fi
rc=0
wait "$pid" || rc=$?
pid=
if [[ $rc -ne 0 ]]; then
  show_log
  fail "demo exited $rc after SIGTERM, expected 0"
fi
[[ ! -e $sock ]] || fail "socket $sock still exists after the drain"
pass "SIGTERM: demo drained, exited 0, removed its socket"

# 4. CDS: the archive the image ships (scripts/cds-archive.sh, as the Dockerfile's cds stage makes
# it), proven used: with -Xshare:on the JVM fails rather than run without it, and the agent's own
# classes must come from its top layer. Then restart to serving, reported, not judged (noisy CI).
CDS_AGENT_JAR=${AGENT_JAR:-$JAR}
CDS_DEMO_JAR=${DEMO_JAR:-target/routesync-demo.jar}
[[ -f $CDS_DEMO_JAR ]] || CDS_DEMO_JAR=$JAR
ARCHIVE=target/routesync.jsa
scripts/cds-archive.sh "$java" "$CDS_AGENT_JAR" "$CDS_DEMO_JAR" "$ARCHIVE" \
  || fail "cds-archive.sh could not make the CDS archive"
cds_log=$tmp/cds-classes.log
"$java" "${JVM_FLAGS[@]}" -XX:SharedArchiveFile="$ARCHIVE" -Xshare:on -Xlog:class+load=info:file="$cds_log" \
  -jar "$CDS_AGENT_JAR" agent --help > /dev/null 2>&1 \
  || fail "-Xshare:on -XX:SharedArchiveFile=$ARCHIVE: the JVM cannot map the archive"
grep -q 'dev.routesync.app.AgentCommand source: shared objects file (top)' "$cds_log" \
  || fail "the agent's classes do not come from the archive's top layer ($cds_log)"
pass "CDS archive $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1)) is used: $(grep -c 'source: shared objects file (top)' "$cds_log") classes from its top layer"
if restart=$(AGENT_JAR=$CDS_AGENT_JAR DEMO_JAR=$CDS_DEMO_JAR scripts/restart-to-serving.sh --runs 1 \
  --java "$java" -- -XX:SharedArchiveFile="$ARCHIVE" -Xshare:auto 2>&1); then
  echo "check-runtime: INFO: restart to serving with the archive: $(tail -n 1 <<< "$restart")"
else
  echo "check-runtime: INFO: restart-to-serving.sh failed (not a check): $(tail -n 3 <<< "$restart")"
fi
echo "check-runtime: PASS: all checks"
