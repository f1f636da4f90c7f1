#!/usr/bin/env bash
# CI's stand-in for `docker build` + `docker run` (Docker cannot run on the build machines):
# makes the container's Java runtime with the same script the Dockerfile uses
# (scripts/jlink-runtime.sh) from the image's jar, then runs the agent on it with the image's JVM
# flags:
#   0. the image's jar (target/routesync.jar) holds only the agent: under 40 MB, no mock API server,
#      mockwebserver, okhttp or BouncyCastle, no demo classes, and no class in it refers to a class
#      that minimization or the exclusions took out (jdeps);
#   1. `routesync --version` prints `routesync <project version>`, and `routesync demo` is refused
#      with one line that names routesync-demo.jar, exit 2;
#   2. the TLS provider for the API server (SunEC) is in the runtime;
#   3. `routesync demo` from target/routesync-demo.jar serves the routing table on its Unix socket
#      (Netty epoll, the mock API server, the whole agent), then SIGTERM makes it exit 0 within 15 s
#      and remove the socket;
#   4. the CDS archive the image ships (scripts/cds-archive.sh) maps on this runtime, the agent's
#      classes come from it, and restart to serving with it is reported (not checked: noisy CI).
# Run after `mvn package` (needs both jars). Prints PASS/FAIL lines; exits non-zero on the first
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=target/routesync.jar
DEMO_JAR=target/routesync-demo.jar
JRE=target/jre
# The image's jar must stay under this (issue: the image holds only what the agent runs).
MAX_JAR_BYTES=40000000
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
[[ -f $DEMO_JAR ]] || fail "$DEMO_JAR missing: run 'mvn -B package -DskipTests' first"
# curl reads the HTTP API; without it, the agent's own `get services` (gRPC) on the same runtime.
query() {
  if command -v curl > /dev/null; then
    curl -s --max-time 2 --unix-socket "$1" http://localhost/v1/services
  else
    "$JRE/bin/java" -jar "$DEMO_JAR" get services -o json --socket "$1"
  fi
}

# 0. What the image's jar holds.
jar_bytes=$(stat -c %s "$JAR")
((jar_bytes < MAX_JAR_BYTES)) || fail "$JAR is $jar_bytes bytes, over $MAX_JAR_BYTES"
entries=$(unzip -Z1 "$JAR")
for forbidden in io/fabric8/mockwebserver/ io/fabric8/kubernetes/client/server/mock/ okhttp3/ \
  org/bouncycastle/ dev/routesync/demo/ dev/routesync/app/DemoCommand; do
  if grep -q "^$forbidden" <<< "$entries"; then
    fail "$JAR carries $forbidden (only $DEMO_JAR may)"
  fi
done
classes=$(grep -c '\.class$' <<< "$entries")
pass "$JAR: $jar_bytes bytes, $classes classes; no mock API server, okhttp, BouncyCastle or demo"
# A class the jar refers to and lacks. A fat jar refers to optional dependencies it does not carry
# (Netty's BouncyCastle and brotli support, vertx-web's auth modules, logback's servlet classes):
# those packages are absent, and their users check before loading them. What must never be missing
# is a class of a package the jar does carry (minimization cut too deep) or any class of ours,
# Envoy's, fabric8's or protobuf's (a demo class, a message the xDS server builds). Reviewed
# exceptions: Netty's org.jetbrains.annotations.Async* (annotations, in no jetbrains-annotations
# release it ships with), and tools.jackson.core.JsonTokenId (a constants interface: javac leaves
# its Class entry in the parsers' constant pools, no instruction loads it).
packages=$(sed -nE '/\.class$/{s#^META-INF/versions/[0-9]+/##;s#/[^/]*$##;s#/#.#g;p}' <<< "$entries" | sort -u)
missing=$(jdeps --multi-release 17 --missing-deps "$JAR" 2> /dev/null | awk '/not found/ {print $1, $3}')
broken=$(while read -r from to; do
  [[ -n $to ]] || continue
  case $to in
    org.jetbrains.annotations.Async* | tools.jackson.core.JsonTokenId) continue ;;
    dev.routesync.* | io.envoyproxy.* | io.fabric8.* | com.google.protobuf.*) echo "$from -> $to" ;;
    *) grep -qxF "${to%.*}" <<< "$packages" && echo "$from -> $to" ;;
  esac
done <<< "$missing" | sort -u)
[[ -z $broken ]] || fail "classes in $JAR refer to classes it lacks:"$'\n'"$(head -n 20 <<< "$broken")"
pass "every class $JAR refers to is in it, or in an optional dependency it does not carry"

scripts/jlink-runtime.sh "$JAR" "$JRE" > /dev/null || fail "jlink-runtime.sh could not make the runtime"
pass "jlinked runtime in $JRE ($(du -sh "$JRE" | cut -f1)): $(cat "$JRE/routesync-modules.txt")"
java=$JRE/bin/java

# 1. --version
version=$("$java" "${JVM_FLAGS[@]}" -jar "$JAR" --version 2>&1) || fail "--version exited $?: $version"
[[ $version == "$EXPECTED_VERSION" ]] || fail "--version printed '$version', expected '$EXPECTED_VERSION'"
pass "--version: $version"
rc=0
refused=$("$java" "${JVM_FLAGS[@]}" -jar "$JAR" demo --socket /nonexistent/rs.sock 2>&1) || rc=$?
[[ $rc -eq 2 ]] || fail "routesync demo in $JAR exited $rc, expected 2: $refused"
[[ $refused == *routesync-demo.jar* && $(wc -l <<< "$refused") -eq 1 ]] \
  || fail "routesync demo in $JAR printed '$refused', expected one line naming routesync-demo.jar"
pass "demo refused by $JAR (exit 2): $refused"

# 2. TLS to the API server needs the EC provider, which is service-loaded (jdeps cannot see it).
if "$java" -XshowSettings:security:providers -version 2>&1 | grep -q 'Provider name: SunEC'; then
  pass "SunEC provider present (ECDHE for TLS to the API server)"
else
  fail "SunEC provider missing from the runtime (jdk.crypto.ec)"
fi

# 3. demo (the demo's jar, on the image's runtime): serve, answer, drain on SIGTERM.
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

"$java" "${JVM_FLAGS[@]}" -jar "$DEMO_JAR" demo --socket "$sock" --admin-port 0 > "$log" 2>&1 &
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
