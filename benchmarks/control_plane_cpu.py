#!/usr/bin/env python3
"""Whole-process cost of the agent and three peers watching the real control plane.

The mock-fed comparison (ProcessCpuRun) scripts its writes; here the Deployment, ReplicaSet,
Endpoints and EndpointSlice controllers write what every watcher reads, as in a cluster. Four
processes watch one kube-apiserver, each through a TCP relay of its own (below):

  - the agent: the built jar in its default configuration (--source endpointslices, drift
    detector on, --node-name one of the cluster's Nodes, a state file of its own) with the image's
    JVM flags (scripts/image-env.sh JAVA_TOOL_OPTIONS) and MALLOC_ARENA_MAX=2, as the image runs;
  - client-go's SharedInformerFactory over EndpointSlices in protobuf, as kube-proxy reads them
    (client-go/main.go);
  - the official JavaScript client's informer over Endpoints (js-informer/informer.mjs);
  - the seed's EndpointWatcher on the official Python client (python/seed_endpoint_watcher.py).

Rollout mode (default): --services opted-in Services with a Deployment of --replicas each. The
watchers start one after another; each is timed from its process start until its table equals
the API server's ready set (wall, CPU, bytes received). Then one rolling restart of every
Deployment as warm-up and --rounds measured ones; over them, from just before the first restart
until every rollout is complete and every watcher is exact and quiet for --settle seconds, each
process's utime + stime (/proc/PID/stat) and the bytes the API server sent it. CPU per event
divides by the Endpoints events the Python watcher counted (the EndpointSlice source sees about
as many).

Scale mode (--scale): --services selector-less Services of --endpoints-per-service endpoints
each, written by hand as EndpointSlices of --slice-size (addresses in 198.18.0.0/15; the real
server refuses loopback) plus, for the two Endpoints watchers, Endpoints objects the mirroring
controller is told to skip. Each watcher then runs alone: time, CPU and RSS to an exact table,
RSS after 10 s more; a process that dies (the agent with the image's 96 MiB heap is expected to)
is reported with the reason from its log.

Why a relay: the API server's cost of a watcher is mostly what it must serialize and send, so the
bytes each one is sent count as much as its own CPU. The relay passes TLS through untouched; the
watcher's kubeconfig copy points at it (the server certificate covers 127.0.0.1, and
tls-server-name keeps validation working when the original server is named otherwise).

Needs a running control plane (this reads scripts/control-plane.sh env's variables), Debian's
python3-kubernetes, node with js-informer's node_modules, and the client-go binary;
benchmarks/control-plane-cpu.sh arranges all of them.
"""

import argparse
import hashlib
import http.client
import ipaddress
import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TICK = os.sysconf("SC_CLK_TCK")
PEERS = ("agent", "client-go", "js", "python")
LABELS = {"agent": "routesync agent", "client-go": "client-go informer",
          "js": "JS informer", "python": "Python seed watcher"}


class Failed(Exception):
    """A wait that ran out of time or a process that died; the message says which and why."""


# ---- processes ---------------------------------------------------------------------------------

def cpu_ms(pid):
    """utime + stime of a process, in milliseconds (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // TICK


def rss_mib(pid):
    """Resident set of a process; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def wait_until(predicate, budget, what, poll=0.2):
    """Polls predicate until true; raises Failed after budget seconds, so no wait is endless."""
    deadline = time.monotonic() + budget
    while not predicate():
        if time.monotonic() > deadline:
            raise Failed(f"timed out after {budget} s waiting for {what}")
        time.sleep(poll)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_reason(path, lines=400):
    """Why a process ended, from its log: an OutOfMemoryError line if there is one (the image's
    -XX:+ExitOnOutOfMemoryError prints it last), else the last non-empty line."""
    try:
        with open(path, errors="replace") as log:
            tail = [line.strip() for line in log.readlines()[-lines:] if line.strip()]
    except OSError:
        return "no log"
    for line in tail:
        if "OutOfMemoryError" in line:
            return line[:200]
    return tail[-1][:200] if tail else "empty log"


# ---- the relay ---------------------------------------------------------------------------------

class Relay:
    """A TCP relay on 127.0.0.1 in front of one watcher, counting the bytes the API server sends
    it. TLS passes through untouched, so the watcher still validates the server's certificate and
    presents its own; only the byte counts are seen here."""

    def __init__(self, upstream):
        self.upstream = upstream
        self._down = 0
        self._open = []
        self._lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def down(self):
        """Bytes sent by the API server so far (TLS records, as on the wire)."""
        with self._lock:
            return self._down

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                self.listener.close()  # here, once no thread waits on it any more
                return
            try:
                server = socket.create_connection(self.upstream, timeout=10)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            pair = [client, server, 2]  # the two sockets, and how many pumps still use them
            with self._lock:
                self._open.append(pair)
            threading.Thread(target=self._pump, args=(server, client, True, pair),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(client, server, False, pair),
                             daemon=True).start()

    def _pump(self, source, sink, counted, pair):
        """Copies one direction until either side ends. Ending is shutdown(), which wakes the
        other pump; only the last pump closes the sockets. Closing a socket another thread still
        reads frees its descriptor number for reuse while that read can still land on it: a relay
        closed that way once swallowed the next peer's answers on its stdout pipe."""
        try:
            while True:
                data = source.recv(262144)
                if not data:
                    break
                sink.sendall(data)
                if counted:
                    with self._lock:
                        self._down += len(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        with self._lock:
            pair[2] -= 1
            last = pair[2] == 0
            if last:
                self._open.remove(pair)
        if last:
            source.close()
            sink.close()

    def close(self):
        """Stops accepting (shutdown wakes the accept) and ends every open connection."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        with self._lock:
            pairs = list(self._open)
        for client, server, _ in pairs:
            for end in (client, server):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def relayed_kubeconfig(kubeconfig, relay, path):
    """A copy of kubeconfig whose clusters point at the relay. The API server's certificate names
    127.0.0.1 (an IP SAN), which the relay's address matches; for a server reached by another
    name, tls-server-name keeps the certificate check on that name."""
    with open(kubeconfig) as source:
        config = yaml.safe_load(source)
    for cluster in config["clusters"]:
        host = urllib.parse.urlsplit(cluster["cluster"]["server"]).hostname
        cluster["cluster"]["server"] = f"https://127.0.0.1:{relay.port}"
        if host != "127.0.0.1":
            cluster["cluster"]["tls-server-name"] = host
    with open(path, "w") as out:
        yaml.safe_dump(config, out)
    return path


def api_server_address(kubeconfig):
    with open(kubeconfig) as source:
        config = yaml.safe_load(source)
    url = urllib.parse.urlsplit(config["clusters"][0]["cluster"]["server"])
    return url.hostname, url.port or 443


# ---- the watchers ------------------------------------------------------------------------------

def table_digest(table):
    """sha256 over "ns/name ip:port,ip:port\\n" per Service, sorted: what every peer prints."""
    lines = "".join(f"{key} {','.join(table[key])}\n" for key in sorted(table))
    return hashlib.sha256(lines.encode()).hexdigest()


class Peer:
    """One watcher process behind its relay. Subclasses say how to start it and read its table
    digest; this keeps the bookkeeping every figure needs (start time, pid, bytes, exit)."""

    def __init__(self, name, out):
        self.name = name
        self.log_path = os.path.join(out, f"{name}.log")
        self.relay = None
        self.proc = None
        self.started = None

    def launch(self, argv, env=None, **popen):
        self.started = time.monotonic()
        self.proc = subprocess.Popen(argv, env=env, **popen)

    def alive(self):
        return self.proc.poll() is None

    def exit_reason(self):
        return f"exited with {self.proc.returncode}: {log_reason(self.log_path)}"

    def check_alive(self):
        if not self.alive():
            raise Failed(f"{self.name} {self.exit_reason()}")

    def cpu(self):
        return cpu_ms(self.proc.pid)

    def rss(self):
        return rss_mib(self.proc.pid)

    def digest(self, namespace):
        """The digest of its table's Services in namespace, or None while it has none yet."""
        raise NotImplementedError

    def stop(self):
        if self.proc is not None and self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.relay is not None:
            self.relay.close()


class LinePeer(Peer):
    """A peer speaking the harness's line protocol on stdin/stdout (the Python seed watcher, the
    JS informer and the client-go program): "report" -> "REPORT events last_ns entries writes",
    "digest" -> "DIGEST sha256". A reader thread queues its lines, so an answer that never comes
    is a timeout here and not a blocked harness."""

    def __init__(self, name, out, argv):
        super().__init__(name, out)
        self.argv = argv
        self.lines = queue.Queue()

    def start(self, kubeconfig):
        self.launch(self.argv + [kubeconfig], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=open(self.log_path, "w"), text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, command, prefix, budget=60):
        self.check_alive()
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except OSError:
            raise Failed(f"{self.name} {self.exit_reason()}")
        deadline = time.monotonic() + budget
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pipes = self.pipes()
                self.dump_stacks()
                raise Failed(f"{self.name} did not answer {command!r} in {budget} s ({pipes};"
                             f" its threads' stacks, where it can print them: {self.log_path})")
            if line is None:
                self.proc.wait(10)
                raise Failed(f"{self.name} {self.exit_reason()}")
            if prefix in line:  # anywhere: a peer's lines from two threads may interleave
                return line[line.index(prefix):].split()[1:]

    def pipes(self):
        """Whether the harness's ends of the peer's stdin and stdout are still the peer's pipes
        (a descriptor closed twice elsewhere in the harness could have been reused)."""
        try:
            ours = [os.readlink(f"/proc/self/fd/{f.fileno()}") for f in (self.proc.stdin,
                                                                         self.proc.stdout)]
            theirs = [os.readlink(f"/proc/{self.proc.pid}/fd/{n}") for n in (0, 1)]
            return f"harness stdin/stdout ends {ours}, peer's fd 0/1 {theirs}"
        except (OSError, ValueError) as error:
            return f"pipes unknown: {error}"

    def dump_stacks(self):
        """Asks a hung peer for its threads' stacks in its log: Python's faulthandler (started
        with -X faulthandler) on SIGABRT, Go's runtime on SIGQUIT; Node has no such signal."""
        signals = {"python": signal.SIGABRT, "client-go": signal.SIGQUIT}
        if self.name in signals and self.alive():
            self.proc.send_signal(signals[self.name])
            time.sleep(1)

    def report(self):
        events, last_ns, entries = self.ask("report", "REPORT")[:3]
        return int(events), int(last_ns), int(entries)

    def digest(self, namespace):
        return self.ask(f"digest {namespace}", "DIGEST")[0]


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over the agent's Unix socket, kept alive between the harness's queries."""

    def __init__(self, path, timeout=60):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def ready_ip_ports(service):
    """The sorted ip:port of one Service of the agent's JSON (proto JSON leaves a false "ready"
    out; the table also holds not-ready endpoints, marked so)."""
    addresses = set()
    for endpoint in service.get("endpoints", []):
        if endpoint.get("ready", False):
            for port in endpoint.get("ports", []):
                addresses.add(f"{endpoint['ip']}:{port['port']}")
    return sorted(addresses)


class Agent(Peer):
    """The agent jar as the image runs it, on a socket and admin port of its own."""

    def __init__(self, out, java, jvm_flags, jar, source, node):
        super().__init__("agent", out)
        self.out = out
        self.java, self.jvm_flags, self.jar, self.source, self.node = java, jvm_flags, jar, source, node
        self.admin_port = free_port()
        self.socket = os.path.join(out, "rs.sock")
        self.names = None  # the Services to fetch one by one (scale mode), else None: the list

    def start(self, kubeconfig):
        state = os.path.join(self.out, "agent-state.bin")
        for stale in (self.socket, state):  # a cold start: no warm table, no dead socket file
            if os.path.exists(stale):
                os.remove(stale)
        env = dict(os.environ, MALLOC_ARENA_MAX="2")
        env.pop("JAVA_TOOL_OPTIONS", None)  # the flags are on the command line, once
        self.launch(
            [self.java, *self.jvm_flags, "-jar", self.jar, "agent", "--kubeconfig", kubeconfig,
             "--source", self.source, "--node-name", self.node, "--state-file", state,
             "--socket", self.socket, "--admin-host", "127.0.0.1",
             "--admin-port", str(self.admin_port)],
            env=env, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT)

    def ready(self):
        try:
            url = f"http://127.0.0.1:{self.admin_port}/readyz"
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status == 200
        except OSError:
            return False

    def get(self, path):
        """GET on its socket: (status, parsed JSON body)."""
        connection = UnixHTTPConnection(self.socket)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        except (OSError, http.client.HTTPException) as error:
            raise Failed(f"agent: GET {path}: {error}") from error
        finally:
            connection.close()

    def table(self, namespace, names=None):
        """ns/name -> sorted ip:port of its ready endpoints in namespace. With names, one GET per
        Service: a single answer of 100,000 endpoints is rendered whole in the agent's heap, and
        at the scale test's size that answer, not the watch, could be what exhausts it."""
        self.check_alive()
        if names is None:
            services = self.get(f"/v1/services?namespace={namespace}")[1].get("services", [])
        else:
            services = []
            for name in names:
                status, body = self.get(f"/v1/services/{namespace}/{name}")
                if status == 200:
                    services.append(body.get("service", body))
        return {f"{s['namespace']}/{s['name']}": ready_ip_ports(s) for s in services}

    def digest(self, namespace):
        self.check_alive()
        if not self.ready():
            return None
        return table_digest(self.table(namespace, self.names))


def make_peer(name, args, out):
    if name == "agent":
        jvm = args.agent_jvm.split() + args.agent_jvm_extra.split()
        return Agent(out, args.java, jvm, args.jar, args.source, args.node_name)
    argv = {
        "client-go": [args.client_go],
        "js": [args.node, os.path.join(HERE, "js-informer", "informer.mjs")],
        "python": ["/usr/bin/python3", "-X", "faulthandler",
                   os.path.join(HERE, "python", "seed_endpoint_watcher.py")],
    }[name]
    return LinePeer(name, out, argv)


# ---- the cluster -------------------------------------------------------------------------------

class Kubectl:
    def __init__(self, binary, kubeconfig):
        self.base = [binary, f"--kubeconfig={kubeconfig}"]

    def __call__(self, *args, stdin=None, timeout=300):
        try:
            done = subprocess.run(self.base + list(args), input=stdin, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failed(f"kubectl {' '.join(args[:4])} took more than {timeout} s")
        if done.returncode != 0:
            raise Failed(f"kubectl {' '.join(args[:4])} failed: {done.stderr.strip()[:500]}")
        return done.stdout

    def json(self, *args):
        return json.loads(self(*args, "-o", "json"))


def rollout_manifests(namespace, services, replicas):
    """Opted-in Services, each selecting a Deployment whose rolling restarts are the churn."""
    items = []
    for i in range(services):
        name = f"svc-{i:03d}"
        items.append({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "labels": {"mesh-managed": "true"}},
            "spec": {"selector": {"app": name},
                     "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
        })
        items.append({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "strategy": {"type": "RollingUpdate",
                             "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"terminationGracePeriodSeconds": 1, "containers": [{
                        "name": "app", "image": f"registry.example/{name}:1",
                        "ports": [{"name": "http", "containerPort": 8080}]}]},
                },
            },
        })
    return items


SCALE_BASE = int(ipaddress.IPv4Address("198.18.0.0"))
SCALE_ADDRESSES = 2 ** 17  # 198.18.0.0/15


def scale_address(service, index, per_service):
    """Endpoint index of a Service -> an address in 198.18.0.0/15, unique within the Service
    (150,000 endpoints outnumber the /15, so Services may share addresses; tables are per
    Service)."""
    return str(ipaddress.IPv4Address(SCALE_BASE + (service * per_service + index) % SCALE_ADDRESSES))


def scale_ready(index):
    """Every 50th endpoint is not ready, so each watcher's ready filter is exercised."""
    return index % 50 != 49


def scale_manifests(namespace, services, per_service, slice_size):
    """Selector-less Services, their hand-made EndpointSlices and Endpoints for the Endpoints
    watchers. The Endpoints carry endpointslice.kubernetes.io/skip-mirror so the mirroring
    controller does not write a second set of slices from them."""
    port = {"name": "http", "port": 8080, "protocol": "TCP"}
    items = []
    for s in range(services):
        name = f"scale-{s:03d}"
        meta = {"name": name, "namespace": namespace, "labels": {"mesh-managed": "true"}}
        items.append({"apiVersion": "v1", "kind": "Service", "metadata": meta,
                      "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 8080}]}})
        ips = [scale_address(s, i, per_service) for i in range(per_service)]
        for first in range(0, per_service, slice_size):
            items.append({
                "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": f"{name}-{first // slice_size:03d}", "namespace": namespace,
                             "labels": {"mesh-managed": "true",
                                        "kubernetes.io/service-name": name,
                                        "endpointslice.kubernetes.io/managed-by": "bench"}},
                "addressType": "IPv4", "ports": [port],
                "endpoints": [{"addresses": [ips[i]], "conditions": {"ready": scale_ready(i)}}
                              for i in range(first, min(first + slice_size, per_service))],
            })
        items.append({
            "apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"mesh-managed": "true",
                                    "endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{
                "addresses": [{"ip": ip} for i, ip in enumerate(ips) if scale_ready(i)],
                "notReadyAddresses": [{"ip": ip} for i, ip in enumerate(ips) if not scale_ready(i)],
                "ports": [port]}],
        })
    return items


def create_all(kubectl, items, chunk=200, parallel=3):
    """kubectl create (not apply: no last-applied annotation to double what watchers are sent)
    in chunks, a few at once: 1,600 objects take about half a minute this way."""
    chunks = [items[i:i + chunk] for i in range(0, len(items), chunk)]

    def create(part):
        kubectl("create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List",
                                                       "items": part}), timeout=600)

    with ThreadPoolExecutor(parallel) as pool:
        list(pool.map(create, chunks))


def ready_set(kubectl, namespace):
    """ns/name -> sorted ip:port of the ready addresses in the API server's opted-in Endpoints of
    namespace. The watchers see every namespace, but the control plane may be shared (another run
    churning its own), so exactness is judged on this run's namespace alone."""
    table = {}
    for ep in kubectl.json("-n", namespace, "get", "endpoints", "-l", "mesh-managed=true")["items"]:
        addresses = set()
        for subset in ep.get("subsets") or []:
            for address in subset.get("addresses") or []:
                for port in subset.get("ports") or []:
                    addresses.add(f"{address['ip']}:{port['port']}")
        table[f"{ep['metadata']['namespace']}/{ep['metadata']['name']}"] = sorted(addresses)
    return table


def rollouts_done(kubectl, namespace):
    deployments = kubectl.json("-n", namespace, "get", "deployments")["items"]
    for d in deployments:
        want, status = d["spec"]["replicas"], d.get("status", {})
        if (d["metadata"]["generation"] != status.get("observedGeneration")
                or status.get("updatedReplicas", 0) != want
                or status.get("availableReplicas", 0) != want
                or status.get("replicas", 0) != want):
            return False
    # No old or terminating Pod left either.
    pods = kubectl.json("-n", namespace, "get", "pods")["items"]
    return len(pods) == sum(d["spec"]["replicas"] for d in deployments)


# ---- measuring ---------------------------------------------------------------------------------

def start_to_exact(peer, kubeconfig, upstream, namespace, truth, budget, poll):
    """Starts peer behind a new relay and polls until its digest is the truth's. Returns the wall
    and CPU from process start to that moment, RSS and bytes received then; raises Failed when it
    dies or runs out of time."""
    peer.relay = Relay(upstream)
    config = relayed_kubeconfig(kubeconfig, peer.relay,
                                os.path.join(os.path.dirname(peer.log_path),
                                             f"kubeconfig-{peer.name}"))
    peer.start(config)
    wait_until(lambda: peer.digest(namespace) == truth, budget, f"{peer.name}'s table to be exact",
               poll)
    return {"wall": time.monotonic() - peer.started, "cpu": peer.cpu(), "rss": peer.rss(),
            "bytes": peer.relay.down}


def mib(count):
    return count / 2 ** 20


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "n/a"


def startup_lines(peers, exact):
    """The start-to-exact table: one line per peer, or why it has no figures."""
    lines = [f"{'start -> exact table':24}{'wall s':>8}{'CPU ms':>8}{'RSS MiB':>9}{'recv MiB':>10}"]
    for peer in peers:
        got = exact.get(peer.name)
        if isinstance(got, dict):
            lines.append(f"{LABELS[peer.name]:24}{got['wall']:>8.1f}{got['cpu']:>8}"
                         f"{got['rss']:>9.1f}{mib(got['bytes']):>10.2f}")
        else:
            lines.append(f"{LABELS[peer.name]:24}  FAILED: {got}")
    return lines


def ratio_line(title, figures):
    agent = figures.get("agent")
    return f"{title}: " + ", ".join(
        f"agent/{other} {ratio(agent, figures.get(other))}"
        for other in ("client-go", "js", "python") if other in figures)


def run_rollouts(args, kubectl, kubeconfig, upstream, peers, namespace):
    """Rollout mode: see the module's docstring. Returns the summary lines."""
    create_all(kubectl, rollout_manifests(namespace, args.services, args.replicas))
    wait_until(lambda: rollouts_done(kubectl, namespace), 300, "the first rollout", poll=1)
    truth = table_digest(ready_set(kubectl, namespace))
    exact = {}
    for peer in peers:
        try:
            exact[peer.name] = start_to_exact(peer, kubeconfig, upstream, namespace, truth,
                                              args.exact_budget or 120, 0.2)
        except Failed as failure:
            exact[peer.name] = str(failure)
    running = [p for p in peers if isinstance(exact[p.name], dict)]

    def quiet_rollout(rounds):
        """Restarts every Deployment rounds times, then waits until every table is the ready set
        and --settle seconds more for the tail (old pods' last updates). No "no event for N s"
        test: another run on a shared control plane may never let the watchers go quiet."""
        for _ in range(rounds):
            kubectl("-n", namespace, "rollout", "restart", "deployment")
            wait_until(lambda: rollouts_done(kubectl, namespace), 600, "a rolling restart", 1)
        now = table_digest(ready_set(kubectl, namespace))
        for peer in running:
            wait_until(lambda: peer.digest(namespace) == now, 60, f"{peer.name} to converge")
        time.sleep(args.settle)
        return now

    python = next((p for p in running if p.name == "python"), None)
    quiet_rollout(1)  # warm-up: the JITs compile, every watcher sees a full rollout once
    events_before = python.report()[0] if python else 0
    cpu_before = {p.name: p.cpu() for p in running}
    bytes_before = {p.name: p.relay.down for p in running}
    started = time.monotonic()
    truth_digest = quiet_rollout(args.rounds)
    wall = time.monotonic() - started
    cpu = {p.name: p.cpu() - cpu_before[p.name] for p in running}
    sent = {p.name: p.relay.down - bytes_before[p.name] for p in running}
    events = python.report()[0] - events_before if python else 0
    lines = [
        f"{args.services} Services x {args.replicas} pods, {args.rounds} rolling restarts measured"
        f" (after one warm-up); agent --source {args.source} --node-name {args.node_name},"
        f" {drift_label()}",
        f"window: {wall:.1f} s; Endpoints events (as the Python watcher counted them): {events}",
        f"{'measured rounds':24}{'CPU ms':>8}{'us/event':>10}{'RSS MiB':>9}{'recv KiB':>10}"
        f"{'exact':>7}",
    ]
    for peer in peers:
        if peer not in running:
            lines.append(f"{LABELS[peer.name]:24}  not measured: {exact[peer.name]}")
            continue
        exact_now = peer.digest(namespace) == truth_digest
        lines.append(f"{LABELS[peer.name]:24}{cpu[peer.name]:>8}"
                     f"{1000 * cpu[peer.name] / max(events, 1):>10.0f}{peer.rss():>9.1f}"
                     f"{sent[peer.name] / 1024:>10.1f}{str(exact_now):>7}")
    lines += [""] + startup_lines(peers, exact) + [
        "",
        ratio_line("CPU over the rounds", cpu),
        ratio_line("CPU start -> exact",
                   {k: v["cpu"] for k, v in exact.items() if isinstance(v, dict)}),
        ratio_line("bytes received over the rounds", sent),
        ratio_line("bytes received start -> exact",
                   {k: v["bytes"] for k, v in exact.items() if isinstance(v, dict)}),
    ]
    return lines


def progress(peer):
    """How far a failed peer got: seconds since its start and bytes it was sent."""
    if peer.started is None or peer.relay is None:
        return ""
    return (f" after {time.monotonic() - peer.started:.1f} s,"
            f" {mib(peer.relay.down):.2f} MiB received")


def run_scale(args, kubectl, kubeconfig, upstream, peers, namespace):
    """Scale mode: see the module's docstring. Each watcher alone, then stopped. Returns the
    summary lines."""
    items = scale_manifests(namespace, args.services, args.endpoints_per_service, args.slice_size)
    written = time.monotonic()
    create_all(kubectl, items)
    write_s = time.monotonic() - written
    truth = ready_set(kubectl, namespace)
    ours = sum(len(v) for v in truth.values())
    lines = [
        f"scale: {args.services} Services x {args.endpoints_per_service} endpoints"
        f" ({args.services * args.endpoints_per_service:,}; slices of {args.slice_size}, every"
        f" 50th not ready: {ours:,} ready), written in {write_s:.0f} s; each watcher alone;"
        f" agent --source {args.source} --node-name {args.node_name}",
        f"{'start -> exact table':24}{'wall s':>8}{'CPU ms':>8}{'RSS MiB':>9}{'recv MiB':>10}"
        f"{f'RSS +{args.scale_settle:g}s':>10}{f'CPU +{args.scale_settle:g}s':>10}",
    ]
    figures = {}
    for peer in peers:
        if isinstance(peer, Agent):
            peer.names = [key.split("/", 1)[1] for key in truth]
        try:
            got = start_to_exact(peer, kubeconfig, upstream, namespace, table_digest(truth),
                                 args.exact_budget or 300, 1.0)
            time.sleep(args.scale_settle)
            peer.check_alive()
            figures[peer.name] = got
            lines.append(f"{LABELS[peer.name]:24}{got['wall']:>8.1f}{got['cpu']:>8}"
                         f"{got['rss']:>9.1f}{mib(got['bytes']):>10.2f}{peer.rss():>10.1f}"
                         f"{peer.cpu():>10}")
        except Failed as failure:
            lines.append(f"{LABELS[peer.name]:24}  FAILED{progress(peer)}: {failure}")
        finally:
            peer.stop()
    lines += ["", ratio_line("CPU start -> exact", {k: v["cpu"] for k, v in figures.items()}),
              ratio_line("bytes start -> exact", {k: v["bytes"] for k, v in figures.items()})]
    return lines


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--services", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=10, help="pods per Service (rollouts)")
    parser.add_argument("--rounds", type=int, default=6, help="measured rolling restarts")
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--scale", action="store_true", help="the scale test instead of rollouts")
    parser.add_argument("--endpoints-per-service", type=int, default=1000)
    parser.add_argument("--slice-size", type=int, default=100)
    parser.add_argument("--scale-settle", type=float, default=10.0)
    parser.add_argument("--exact-budget", type=float, default=None,
                        help="seconds a watcher may take from start to an exact table"
                             " (default: 120, 300 with --scale)")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help="which watchers, in start order (default: %(default)s)")
    parser.add_argument("--source", default="endpointslices", choices=["endpoints", "endpointslices"])
    parser.add_argument("--node-name", default="", help="default: the first of the cluster's Nodes")
    parser.add_argument("--jar", default=os.path.join(ROOT, "target", "routesync.jar"))
    parser.add_argument("--java", default="java")
    parser.add_argument("--agent-jvm", default=None,
                        help="default: the Dockerfile's JAVA_TOOL_OPTIONS (scripts/image-env.sh)")
    parser.add_argument("--agent-jvm-extra", default="",
                        help="appended to --agent-jvm; write --agent-jvm-extra='-XX:...' (with"
                             " '=', as the value starts with '-')")
    parser.add_argument("--client-go", default=os.path.join(HERE, "target", "client-go-watcher"))
    parser.add_argument("--node", default="node")
    parser.add_argument("--out", default=os.path.join(HERE, "target", "control-plane-cpu"))
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a watcher failed or ended inexact (CI's smoke)")
    args = parser.parse_args()
    if args.agent_jvm is None:
        args.agent_jvm = subprocess.run([os.path.join(ROOT, "scripts", "image-env.sh"),
                                         "JAVA_TOOL_OPTIONS"], capture_output=True, text=True,
                                        check=True).stdout.strip()
    unknown = set(args.peers.split(",")) - set(PEERS)
    if unknown:
        parser.error(f"unknown peers: {', '.join(sorted(unknown))}")
    return args


def broken(line):
    """A summary line that reports a watcher that failed, was never measured or is inexact."""
    return "FAILED" in line or "not measured" in line or line.rstrip().endswith("False")


def others_opted_in(kubectl, namespace):
    """Opted-in EndpointSlices in other namespaces: every watcher sees them too (a shared control
    plane), so the summary says how many there were."""
    listed = kubectl.json("get", "endpointslices", "-A", "-l", "mesh-managed=true")["items"]
    return sum(1 for s in listed if s["metadata"]["namespace"] != namespace)


def on_sigterm(signum, frame):
    """timeout(1) or CI ending the run: unwind through the finally blocks, so no watcher, relay
    or namespace outlives the harness."""
    raise Failed(f"terminated by signal {signum}")


def java_version(java):
    done = subprocess.run([java, "-version"], capture_output=True, text=True)
    return done.stderr.splitlines()[0] if done.stderr else "?"



def drift_label():
    """The agent's drift detector as the run has it: the agent reads ROUTESYNC_DRIFT_DETECTOR from
    the environment it inherits, so a run with it false must not be labelled as the default."""
    value = os.environ.get("ROUTESYNC_DRIFT_DETECTOR", "").strip().lower()
    if value == "false":
        return "drift detector OFF (ROUTESYNC_DRIFT_DETECTOR)"
    return "drift detector on (default)"

def main():
    args = parse_args()
    signal.signal(signal.SIGTERM, on_sigterm)
    kubeconfig = os.environ["KUBECONFIG"]
    kubectl = Kubectl(os.path.join(os.environ["ROUTESYNC_E2E_BIN"], "kubectl"), kubeconfig)
    upstream = api_server_address(kubeconfig)
    if not args.node_name:
        args.node_name = sorted(n.split("/", 1)[1] for n in
                                kubectl("get", "nodes", "-o", "name").split())[0]
    os.makedirs(args.out, exist_ok=True)
    namespace = f"bench-cpu-{int(time.time())}"
    kubectl("create", "namespace", namespace)
    wait_until(lambda: "default" in kubectl("-n", namespace, "get", "serviceaccounts"), 30,
               "the namespace's default ServiceAccount")
    peers = [make_peer(name, args, args.out) for name in args.peers.split(",")]
    load_before = uptime()
    others = others_opted_in(kubectl, namespace)
    version = json.loads(kubectl("version", "-o", "json"))["serverVersion"]["gitVersion"]
    status = 0
    try:
        run = run_scale if args.scale else run_rollouts
        body = run(args, kubectl, kubeconfig, upstream, peers, namespace)
    except Failed as failure:
        body, status = [f"FAILED: {failure}"], 1
    finally:
        for peer in peers:
            if peer.proc is not None:
                peer.stop()
        try:
            kubectl("delete", "namespace", namespace, "--wait=false")
        except Failed as failure:
            print(f"cleanup: {failure}")
    summary = [f"kube-apiserver {version}; agent {java_version(args.java)}, JVM flags:"
               f" {' '.join(args.agent_jvm.split() + args.agent_jvm_extra.split())},"
               f" MALLOC_ARENA_MAX=2",
               f"other opted-in EndpointSlices in the cluster (every watcher sees them): {others}",
               f"load before: {load_before}"] + body + [f"load after:  {uptime()}"]
    print("\n".join(summary), flush=True)
    if args.strict and status == 0 and any(broken(line) for line in body):
        print("control-plane-cpu: --strict: a watcher failed or is not exact", flush=True)
        status = 1
    with open(os.path.join(args.out, "summary.txt"), "w") as out:
        out.write("\n".join(summary) + "\n")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
