#!/usr/bin/env bash
# Builds the minimal Java runtime for routesync: the modules jdeps finds in the all-in-one jar,
# plus the ones only reached through service loading or reflection, which jdeps cannot see.
# The Dockerfile's jlink stage and CI (scripts/check-runtime.sh) both call this script, so the
# runtime CI proves is the runtime the image ships.
#
#   scripts/jlink-runtime.sh JAR OUTDIR
#
# Uses the JDK in $JAVA_HOME, else the one `java` on PATH belongs to. Needs a full JDK (jdeps,
# jlink and its jmods/). Prints the module list on stdout's last line, and writes it to
# OUTDIR/routesync-modules.txt.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 JAR OUTDIR" >&2
  exit 2
fi
jar=$1
out=$2

# Always present, whatever jdeps reports:
#   jdk.crypto.ec   - the SunEC provider: ECDHE/ECDSA for TLS to the API server (service-loaded).
#   jdk.unsupported - sun.misc.Unsafe, used by Netty (reflectively, so not always visible).
#   jdk.management  - the JVM's process/GC metrics read by Micrometer via com.sun.management.
EXTRA_MODULES=jdk.crypto.ec,jdk.unsupported,jdk.management

if [[ ! -f $jar ]]; then
  echo "jlink-runtime: no such jar: $jar (run 'mvn -B package -DskipTests' first)" >&2
  exit 1
fi

if [[ -n ${JAVA_HOME:-} ]]; then
  jdk=$JAVA_HOME
else
  java_bin=$(command -v java) || { echo "jlink-runtime: no java on PATH and JAVA_HOME unset" >&2; exit 1; }
  jdk=$(dirname "$(dirname "$(readlink -f "$java_bin")")")
fi
for tool in java jdeps jlink; do
  if [[ ! -x $jdk/bin/$tool ]]; then
    echo "jlink-runtime: FAIL: $jdk/bin/$tool not found: a full JDK 17 is needed (set JAVA_HOME)" >&2
    exit 1
  fi
done
if [[ ! -d $jdk/jmods ]]; then
  echo "jlink-runtime: FAIL: $jdk/jmods not found: jlink needs the JDK's jmods (install the full JDK)" >&2
  exit 1
fi
feature=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java.specification.version = //p')
if [[ $feature != 17 ]]; then
  echo "jlink-runtime: FAIL: $jdk is Java $feature; the runtime must be made from a JDK 17" >&2
  exit 1
fi

# jlink refuses an existing output directory. Only ever delete one this script made.
if [[ -e $out ]]; then
  if [[ -f $out/routesync-modules.txt ]]; then
    rm -rf "$out"
  else
    echo "jlink-runtime: $out exists and is not a runtime made by this script; refusing to delete it" >&2
    exit 1
  fi
fi

# The jar is shaded (every dependency inside), so it is its own class path. It is a multi-release
# jar, hence --multi-release; a fat jar refers to optional dependencies it does not carry, hence
# --ignore-missing-deps.
echo "jlink-runtime: jdeps on $jar (JDK $jdk)" >&2
found=$("$jdk/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar" | tail -n 1)
if [[ ! $found =~ ^[a-z][a-z0-9.,]*$ ]]; then
  echo "jlink-runtime: FAIL: unexpected jdeps output: $found" >&2
  exit 1
fi
modules=$(printf '%s,%s\n' "$found" "$EXTRA_MODULES" | tr ',' '\n' | sort -u | paste -sd, -)
echo "jlink-runtime: jdeps found: $found" >&2
echo "jlink-runtime: jlink --add-modules $modules" >&2

"$jdk/bin/jlink" \
  --module-path "$jdk/jmods" \
  --add-modules "$modules" \
  --strip-debug \
  --no-man-pages \
  --no-header-files \
  --compress=2 \
  --generate-cds-archive \
  --output "$out"
echo "$modules" > "$out/routesync-modules.txt"
echo "$modules"
