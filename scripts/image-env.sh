#!/usr/bin/env bash
# Prints the value of one `ENV NAME="value"` (or `ENV NAME=value`) line of the Dockerfile, so the
# scripts that run the agent as the image does (check-runtime.sh, soak-memory.sh) read the image's
# JVM flags from the one place they are written:
#
#   scripts/image-env.sh JAVA_TOOL_OPTIONS
#
# Exits 1 when the Dockerfile has no such line.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ne 1 || ! $1 =~ ^[A-Z_][A-Z0-9_]*$ ]]; then
  echo "usage: $0 NAME" >&2
  exit 2
fi
value=$(sed -n -e "s/^ENV $1=\"\\([^\"]*\\)\"\$/\\1/p" -e "s/^ENV $1=\\([^\" ]*\\)\$/\\1/p" Dockerfile)
if [[ -z $value ]]; then
  echo "image-env: no 'ENV $1=...' line in the Dockerfile" >&2
  exit 1
fi
echo "$value"
