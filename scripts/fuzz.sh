#!/usr/bin/env bash
# Fuzzes routesync's Jazzer fuzz tests (src/test/java/**/*FuzzTest.java) for real, each for a
# bounded time, and prints one line per target: executions, corpus size, and any finding.
#
#   scripts/fuzz.sh [SECONDS] [Class#method ...]
#
#   SECONDS   fuzzing time per target (default 60); each run also pays ~30-60 s of JVM start,
#             Jazzer's instrumentation and a replay of the target's inputs.
#   targets   default: all of TARGETS below.
#
# Environment: FUZZ_MAVEN_ARGS  extra Maven flags, e.g. "-o" for offline (default none);
#              FUZZ_SEED        libFuzzer's -seed (default: random); CI fixes it, so CI and a local
#                               run with that seed start from the same mutations (they can still
#                               part: the coverage that guides them depends on identity hash
#                               codes, so every finding prints its input, base64, to replay)
#              FUZZ_RUNS        libFuzzer's -runs: stop after this many inputs (SECONDS stays the
#                               ceiling), so a run's length does not depend on the machine's speed
#              FUZZ_HEAP        the test JVM's heap (default 512m: a YAML or JSON bomb that needs
#                               more shows as an OutOfMemoryError finding, not a slow machine).
#
# A normal `mvn verify` only replays each target's committed inputs (regression mode), from
# src/test/resources/<package>/<Class>Inputs/<method>/. Here JAZZER_FUZZ=1 makes Jazzer mutate them
# under coverage guidance; the inputs it finds interesting accumulate in .cifuzz-corpus/ (not
# committed), so repeated local runs go deeper.
#
# A finding is an input on which the target threw (an assertion of its invariants, or an
# unexpected exception), ran longer than 15 s, or ran out of heap. Jazzer writes it as
# crash-<sha1> (or timeout-/oom-) into the target's Inputs directory, so the next `mvn verify`
# replays it and fails until the bug is fixed: commit it with the fix. Findings make this script
# exit 1. A run that could not fuzz at all (no "Done N runs" line: a build problem, a run killed at
# its outer time limit) is reported loudly as NOT RUN and exits 1 only with FUZZ_STRICT=1, so an
# infrastructure hiccup does not read as a bug.
set -uo pipefail
cd "$(dirname "$0")/.."

TARGETS=(
  dev.routesync.kube.translate.TranslatorsFuzzTest#endpointSlices
  dev.routesync.kube.translate.TranslatorsFuzzTest#endpoints
  dev.routesync.serve.HttpApiFuzzTest#requestTarget
  dev.routesync.serve.RegistryRequestsFuzzTest#requestMessage
  dev.routesync.kube.LabelSelectorsFuzzTest#labelSelector
  dev.routesync.lint.ManifestReaderFuzzTest#manifests
  dev.routesync.kube.decode.FastDecodeFuzzTest#watchEvents
  dev.routesync.kube.decode.FastDecodeFuzzTest#endpointSliceLists
)

seconds=${1:-60}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "usage: scripts/fuzz.sh [SECONDS] [Class#method ...]" >&2
  exit 2
fi
shift || true
if (($# > 0)); then
  TARGETS=("$@")
fi
# shellcheck disable=SC2206 # word splitting of the extra flags is the point
maven=(mvn -B ${FUZZ_MAVEN_ARGS:-})
heap=${FUZZ_HEAP:-512m}
logs=target/fuzz
mkdir -p "$logs"

echo "== fuzz: ${#TARGETS[@]} targets, ${seconds}s each, heap $heap; logs in $logs/"
if ! "${maven[@]}" -q test-compile > "$logs/build.log" 2>&1; then
  tail -n 40 "$logs/build.log" >&2
  echo "!!! fuzz: the build failed; nothing fuzzed" >&2
  exit 1
fi

findings=0
not_run=0
summary=()
for target in "${TARGETS[@]}"; do
  log="$logs/${target##*.}.log"
  log=${log//#/-}
  started=$(date +%s)
  # -max_total_time and -timeout are passed to libFuzzer after the annotation's own flags, so they
  # win. JUnit's timeout would end the whole fuzzing run (one test invocation) at 120 s, so it is
  # off here; Jazzer's per-input -timeout stands in for it, and the outer `timeout` (and the test
  # watchdog) bound a run that hangs outside an input.
  JAZZER_FUZZ=1 timeout --kill-after=30s $((seconds + 300))s \
    nice -n 10 "${maven[@]}" surefire:test \
    -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.hooks=true \
    -Djunit.jupiter.execution.timeout.mode=disabled \
    -Dsurefire.watchdog.seconds=$((seconds + 240)) \
    -Djazzer.internal.arg.0=fuzz \
    -Djazzer.internal.arg.1=-max_total_time="$seconds" \
    -Djazzer.internal.arg.2=-timeout=15 \
    ${FUZZ_SEED:+-Djazzer.internal.arg.3=-seed=$FUZZ_SEED} \
    ${FUZZ_RUNS:+-Djazzer.internal.arg.4=-runs=$FUZZ_RUNS} \
    -DargLine="-Xmx$heap" \
    > "$log" 2>&1
  status=$?
  elapsed=$(($(date +%s) - started))
  done_line=$(grep -aE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
  runs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1/' <<< "$done_line")
  fuzzed=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2/' <<< "$done_line")
  corpus=$(grep -aoE 'corp: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
  artifact=$(grep -aoE 'Test unit written to [^ ]+' "$log" | tail -n 1 | cut -d' ' -f5)
  if [[ -n $artifact ]]; then
    findings=$((findings + 1))
    line="FINDING   $target: ${runs:-?} runs in ${fuzzed:-?} s; input $artifact"
    echo "$line"
    # What the target threw, in a few lines (the log has the rest).
    grep -aA6 -m1 -E 'FuzzTestFindingException|== Java Exception' "$log" | sed 's/^/    /'
    # The input itself, so a finding on a machine whose files are gone (CI) can be replayed: the
    # coverage that guides the mutations depends on identity hash codes, so the same seed does not
    # always reach the same input elsewhere.
    if [[ -f $artifact ]]; then
      echo "    input ($(wc -c < "$artifact") bytes), to replay: echo '$(head -c 8192 "$artifact" | base64 -w0)' | base64 -d > $(basename "$artifact")"
    fi
  elif [[ -n $done_line ]]; then
    rate=$((runs / (fuzzed > 0 ? fuzzed : 1)))
    line="ok        $target: $runs runs in $fuzzed s ($rate/s), corpus ${corpus:-?}, no finding"
    echo "$line"
  else
    not_run=$((not_run + 1))
    line="NOT RUN   $target: exit $status after ${elapsed}s, no fuzzing statistics (see $log)"
    echo "!!! $line" >&2
    tail -n 20 "$log" | sed 's/^/    /' >&2
  fi
  summary+=("$line")
done

echo "== fuzz summary (${seconds}s per target):"
printf '   %s\n' "${summary[@]}"
echo "fuzz: $((${#TARGETS[@]} - findings - not_run)) passed, $findings failed, $not_run skipped"
if ((findings > 0)); then
  echo "!!! fuzz: $findings finding(s): commit each input above with its fix" >&2
  exit 1
fi
if ((not_run > 0)); then
  echo "!!! fuzz: $not_run target(s) did not fuzz (infrastructure, not a finding)" >&2
  [[ ${FUZZ_STRICT:-} == 1 ]] && exit 1
fi
exit 0
