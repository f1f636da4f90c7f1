#!/usr/bin/env bash
# A small real Kubernetes cluster on 127.0.0.1 for the end-to-end tier: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and a stand-in kubelet (three Nodes in two zones), built
# from source at the versions pinned in control-plane/go.mod. See docs/testing.md.
#
#   scripts/control-plane.sh up       build what is missing, start everything, wait until it serves
#   scripts/control-plane.sh down     stop everything (no process, no listening port is left)
#   scripts/control-plane.sh env      print the exports that point kubectl and the tests at it
#   scripts/control-plane.sh status   say what runs
#   scripts/control-plane.sh restart COMPONENT    kill -9 one component and start it again
#   scripts/control-plane.sh stop COMPONENT / start COMPONENT   the same in two steps
#
# Environment: CONTROL_PLANE_DIR (state: certificates, etcd data, logs; default
# control-plane/.run), CONTROL_PLANE_CACHE (built binaries, by version; default
# control-plane/.cache), CONTROL_PLANE_NODES (3), CONTROL_PLANE_ZONES (2), and the ports
# CONTROL_PLANE_ETCD_PORT (12379), CONTROL_PLANE_API_PORT (16443).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/control-plane"
run=${CONTROL_PLANE_DIR:-$module/.run}
cache=${CONTROL_PLANE_CACHE:-$module/.cache}
nodes=${CONTROL_PLANE_NODES:-3}
zones=${CONTROL_PLANE_ZONES:-2}
# Below Linux's ephemeral range (32768-60999): a port in it can be taken by any outgoing
# connection, as the API server's own connection to etcd once took the controller manager's port.
etcd_port=${CONTROL_PLANE_ETCD_PORT:-12379}
etcd_peer_port=$((etcd_port + 1))
api_port=${CONTROL_PLANE_API_PORT:-16443}
kcm_port=$((api_port + 1))
sched_port=$((api_port + 2))
components=(etcd kube-apiserver kube-controller-manager kube-scheduler fake-kubelet)

log() { printf 'control-plane: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# The cache key: everything the binary is built from. A change to go.mod, go.sum or a source file
# builds anew; an unchanged tree reuses the binary.
build_key() {
  (cd "$module" && cat go.mod go.sum build.sh $(find cmd internal -name '*.go' | sort)) | sha256sum | cut -c1-16
}

bin_dir() {
  local k8s
  k8s=$(sed -n 's/^\tk8s.io\/kubernetes \(v[^ ]*\)$/\1/p' "$module/go.mod")
  echo "$cache/$k8s-$(build_key)"
}

ensure_built() {
  local dir
  dir=$(bin_dir)
  if [[ -x "$dir/k8s-bundle" ]]; then
    return
  fi
  command -v go > /dev/null || die "Go is needed to build the control plane (go not on PATH)"
  # One build at a time per cache: checkouts sharing a cache would otherwise write one binary
  # together. The second waits, then finds the first one's binary.
  mkdir -p "$cache"
  exec 9> "$cache/.build.lock"
  flock 9
  if [[ ! -x "$dir/k8s-bundle" ]]; then
    log "building $dir (cold: about 8 minutes on 2 cores; docs/testing.md)"
    local start=$SECONDS
    "$module/build.sh" "$dir"
    log "built in $((SECONDS - start)) s"
  fi
  flock -u 9
}

pid_alive() { [[ -f "$run/$1.pid" ]] && kill -0 "$(cat "$run/$1.pid")" 2> /dev/null; }

# Waits until URL answers 200 with the admin client certificate, or fails after $2 seconds. The
# controller manager and scheduler serve a self-signed certificate of their own: $3 is then the
# curl flag that accepts it (they listen on loopback only).
wait_https() {
  local url=$1 budget=$2 deadline=$((SECONDS + $2))
  local trust=(--cacert "$run/pki/ca.crt")
  [[ ${3:-} == --insecure ]] && trust=(--insecure)
  until curl -sf --max-time 2 "${trust[@]}" --cert "$run/pki/admin.crt" \
    --key "$run/pki/admin.key" "$url" > /dev/null 2>&1; do
    ((SECONDS < deadline)) || die "no answer from $url within ${budget}s (logs: $run/logs)"
    sleep 0.2
  done
}

# --- certificates: RSA throughout (the JVM needs no extra crypto provider) -----------------------
cert() { # name subject [extensions]
  local name=$1 subj=$2 ext=${3:-}
  openssl genrsa -out "$run/pki/$name.key" 2048 2> /dev/null
  openssl req -new -key "$run/pki/$name.key" -subj "$subj" -out "$run/pki/$name.csr" 2> /dev/null
  local extfile="$run/pki/$name.ext"
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' "$ext" > "$extfile"
  openssl x509 -req -in "$run/pki/$name.csr" -CA "$run/pki/ca.crt" -CAkey "$run/pki/ca.key" \
    -CAcreateserial -days 3650 -sha256 -extfile "$extfile" -out "$run/pki/$name.crt" 2> /dev/null
  rm -f "$run/pki/$name.csr" "$extfile"
}

kubeconfig() { # file user cert-name
  cat > "$1" << EOF
apiVersion: v1
kind: Config
clusters:
- name: routesync-e2e
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $run/pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $run/pki/$3.crt
    client-key: $run/pki/$3.key
contexts:
- name: routesync-e2e
  context: {cluster: routesync-e2e, user: $2}
current-context: routesync-e2e
EOF
}

ensure_pki() {
  [[ -f "$run/pki/done" ]] && return
  command -v openssl > /dev/null || die "openssl is needed for the certificates"
  rm -rf "$run/pki" && mkdir -p "$run/pki" && chmod 700 "$run/pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$run/pki/ca.key" -out "$run/pki/ca.crt" \
    -days 3650 -subj "/CN=routesync-e2e-ca" 2> /dev/null
  cert apiserver "/CN=kube-apiserver" \
    "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin "/O=system:masters/CN=routesync-e2e-admin" "extendedKeyUsage=clientAuth"
  cert controller-manager "/CN=system:kube-controller-manager" "extendedKeyUsage=clientAuth"
  cert scheduler "/CN=system:kube-scheduler" "extendedKeyUsage=clientAuth"
  openssl genrsa -out "$run/pki/sa.key" 2048 2> /dev/null
  openssl rsa -in "$run/pki/sa.key" -pubout -out "$run/pki/sa.pub" 2> /dev/null
  touch "$run/pki/done"
}

# Written at every start: they name the API server's port, which the environment may change.
write_kubeconfigs() {
  kubeconfig "$run/admin.kubeconfig" admin admin
  kubeconfig "$run/controller-manager.kubeconfig" system:kube-controller-manager controller-manager
  kubeconfig "$run/scheduler.kubeconfig" system:kube-scheduler scheduler
}

# --- components ---------------------------------------------------------------------------------
args_for() {
  case $1 in
    etcd)
      echo --name=e2e --data-dir="$run/etcd" \
        --listen-client-urls=http://127.0.0.1:$etcd_port --advertise-client-urls=http://127.0.0.1:$etcd_port \
        --listen-peer-urls=http://127.0.0.1:$etcd_peer_port --initial-advertise-peer-urls=http://127.0.0.1:$etcd_peer_port \
        --initial-cluster=e2e=http://127.0.0.1:$etcd_peer_port --listen-metrics-urls= \
        --quota-backend-bytes=2147483648 --unsafe-no-fsync=true --log-level=warn
      ;;
    kube-apiserver)
      echo --etcd-servers=http://127.0.0.1:$etcd_port \
        --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port=$api_port \
        --tls-cert-file="$run/pki/apiserver.crt" --tls-private-key-file="$run/pki/apiserver.key" \
        --client-ca-file="$run/pki/ca.crt" \
        --service-account-key-file="$run/pki/sa.pub" --service-account-signing-key-file="$run/pki/sa.key" \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --authorization-mode=Node,RBAC --allow-privileged=true \
        --service-cluster-ip-range=198.19.0.0/17 --endpoint-reconciler-type=none --v=1
      ;;
    kube-controller-manager)
      echo --kubeconfig="$run/controller-manager.kubeconfig" \
        --authentication-kubeconfig="$run/controller-manager.kubeconfig" \
        --authorization-kubeconfig="$run/controller-manager.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port=$kcm_port --leader-elect=false \
        --service-account-private-key-file="$run/pki/sa.key" --root-ca-file="$run/pki/ca.crt" \
        --use-service-account-credentials=true \
        --controllers=endpointslice-controller,endpointslice-mirroring-controller,endpoints-controller,deployment-controller,replicaset-controller,serviceaccount-controller,serviceaccount-token-controller,garbage-collector-controller,namespace-controller,root-ca-certificate-publisher-controller \
        --kube-api-qps=200 --kube-api-burst=400 --v=1
      ;;
    kube-scheduler)
      echo --kubeconfig="$run/scheduler.kubeconfig" \
        --authentication-kubeconfig="$run/scheduler.kubeconfig" \
        --authorization-kubeconfig="$run/scheduler.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port=$sched_port --leader-elect=false \
        --kube-api-qps=200 --kube-api-burst=400 --v=1
      ;;
    fake-kubelet)
      echo --kubeconfig="$run/admin.kubeconfig" --nodes="$nodes" --zones="$zones"
      ;;
    *) die "unknown component $1 (one of: ${components[*]})" ;;
  esac
}

start_component() {
  local c=$1 dir
  dir=$(bin_dir)
  pid_alive "$c" && return
  mkdir -p "$run/logs"
  # setsid: the component outlives this script and no terminal signal reaches it.
  # shellcheck disable=SC2046
  setsid "$dir/$c" $(args_for "$c") >> "$run/logs/$c.log" 2>&1 < /dev/null &
  echo $! > "$run/$c.pid"
}

wait_ready() {
  case $1 in
    etcd)
      local deadline=$((SECONDS + 30))
      until curl -sf --max-time 2 "http://127.0.0.1:$etcd_port/health" | grep -q '"health":"true"'; do
        ((SECONDS < deadline)) || die "etcd not healthy within 30s ($run/logs/etcd.log)"
        sleep 0.2
      done
      ;;
    kube-apiserver) wait_https "https://127.0.0.1:$api_port/readyz" 60 ;;
    kube-controller-manager) wait_https "https://127.0.0.1:$kcm_port/healthz" 60 --insecure ;;
    kube-scheduler) wait_https "https://127.0.0.1:$sched_port/healthz" 60 --insecure ;;
    fake-kubelet)
      local deadline=$((SECONDS + 30))
      until [[ $(kubectl_ get nodes -l node.routesync.dev/fake=true \
        -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2> /dev/null |
        grep -c True) -ge $nodes ]]; do
        ((SECONDS < deadline)) || die "Nodes not Ready within 30s ($run/logs/fake-kubelet.log)"
        sleep 0.2
      done
      ;;
  esac
}

stop_component() {
  local c=$1 signal=${2:-TERM}
  [[ -f "$run/$c.pid" ]] || return 0
  local pid
  pid=$(cat "$run/$c.pid")
  if kill -0 "$pid" 2> /dev/null; then
    kill -"$signal" "$pid" 2> /dev/null || true
    local deadline=$((SECONDS + 20))
    while kill -0 "$pid" 2> /dev/null; do
      if ((SECONDS >= deadline)); then
        kill -KILL "$pid" 2> /dev/null || true
      fi
      sleep 0.1
    done
  fi
  rm -f "$run/$c.pid"
}

kubectl_() { "$(bin_dir)/kubectl" --kubeconfig="$run/admin.kubeconfig" "$@"; }

up() {
  local start=$SECONDS
  ensure_built
  mkdir -p "$run"
  ensure_pki
  write_kubeconfigs
  for c in "${components[@]}"; do
    start_component "$c"
    wait_ready "$c"
  done
  # Every ServiceAccount the tests use needs its namespace's default account first: wait for it.
  local deadline=$((SECONDS + 30))
  until kubectl_ -n default get serviceaccount default > /dev/null 2>&1; do
    ((SECONDS < deadline)) || die "the serviceaccount controller made no default ServiceAccount"
    sleep 0.2
  done
  log "serving $(kubectl_ version -o json 2> /dev/null | sed -n 's/.*"gitVersion": "\([^"]*\)".*/\1/p' | tail -1) on https://127.0.0.1:$api_port (up in $((SECONDS - start)) s)"
}

down() {
  local c
  for ((i = ${#components[@]} - 1; i >= 0; i--)); do
    stop_component "${components[$i]}"
  done
}

env_() {
  # The script's own settings too: a test that stops or restarts a component, from any checkout,
  # then acts on this control plane.
  echo "export CONTROL_PLANE_DIR=$run CONTROL_PLANE_CACHE=$cache"
  echo "export CONTROL_PLANE_ETCD_PORT=$etcd_port CONTROL_PLANE_API_PORT=$api_port"
  echo "export CONTROL_PLANE_NODES=$nodes CONTROL_PLANE_ZONES=$zones"
  echo "export KUBECONFIG=$run/admin.kubeconfig"
  echo "export PATH=$(bin_dir):\$PATH"
  echo "export ROUTESYNC_E2E_DIR=$run"
  echo "export ROUTESYNC_E2E_BIN=$(bin_dir)"
  echo "export ROUTESYNC_E2E_ETCD=http://127.0.0.1:$etcd_port"
}

status() {
  for c in "${components[@]}"; do
    if pid_alive "$c"; then echo "$c running (pid $(cat "$run/$c.pid"))"; else echo "$c stopped"; fi
  done
}

case ${1:-} in
  up) up ;;
  down) down ;;
  env) env_ ;;
  status) status ;;
  build) ensure_built ;;
  stop) stop_component "${2:?component}" "${3:-TERM}" ;;
  start) start_component "${2:?component}" && wait_ready "$2" ;;
  restart) stop_component "${2:?component}" KILL && start_component "$2" && wait_ready "$2" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
