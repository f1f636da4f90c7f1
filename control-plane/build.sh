#!/usr/bin/env bash
# Builds bin/k8s-bundle (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and
# fake-kubelet in one binary) at the versions pinned in go.mod, with the version stamps the release
# binaries carry, so `kubectl version` and the API server's /version report the pinned gitVersion.
# Usage: build.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")"
out=${1:?usage: build.sh OUT_DIR}
k8s=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
major=${k8s#v}; major=${major%%.*}
minor=${k8s#v*.}; minor=${minor%%.*}
stamp() {
  local pkg=$1
  printf -- '-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean -X %s.buildDate=1970-01-01T00:00:00Z ' \
    "$pkg" "$k8s" "$pkg" "$major" "$pkg" "$minor" "$pkg" "$pkg"
}
ldflags="-s -w $(stamp k8s.io/component-base/version) $(stamp k8s.io/client-go/pkg/version)"
ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=${etcd}"
mkdir -p "$out"
# CGO off: a static binary, and no C toolchain needed.
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/k8s-bundle.tmp.$$" ./cmd/k8s-bundle
mv "$out/k8s-bundle.tmp.$$" "$out/k8s-bundle"
for c in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl fake-kubelet; do
  ln -sf k8s-bundle "$out/$c"
done
echo "built $out/k8s-bundle: kubernetes $k8s, etcd $etcd"
