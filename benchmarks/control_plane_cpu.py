#!/usr/bin/env python3
"""Whole-process CPU per watch event against the real control plane, the agent beside the seed's
Python EndpointWatcher, with the churn coming from real Deployment rollouts.

The mock-fed comparison (ProcessCpuRun) scripts its writes; here the Deployment, ReplicaSet,
Endpoints and EndpointSlice controllers write what both watchers read, as in a cluster. Both
watch the same API server at once:

  - the agent: the built jar as the image runs it (its JVM flags), --source endpoints by default
    so both read the same objects (--source endpointslices to compare the agent's own source);
  - the seed's EndpointWatcher on the official Python client (python/seed_endpoint_watcher.py).

Steps: create --services opted-in Services with a Deployment of --replicas each in a namespace of
its own, start both watchers and wait until both hold every Service, then one rolling restart of
every Deployment as warm-up, then --rounds measured rolling restarts. Over the measured rounds,
from just before the first restart until every rollout is complete and both watchers have been
quiet for --settle seconds, it reads each process's utime + stime from /proc/PID/stat. CPU per
event divides by the Endpoints events the Python watcher counted (both see the same changes; the
EndpointSlice source sees about as many). At the end the Python registry's digest and the agent's
table are compared with the ready set the API server holds.

Needs a running control plane (scripts/control-plane.sh up; this reads its env) and Debian's
python3-kubernetes; benchmarks/control-plane-cpu.sh arranges both. Prints one summary table.
"""

import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

TICK = os.sysconf("SC_CLK_TCK")
AGENT_JVM = (
    "-XX:+UseSerialGC -Xms96m -Xmx96m -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=32m"
    " -XX:MaxDirectMemorySize=16m -Xss512k -XX:ActiveProcessorCount=2 -XX:+ExitOnOutOfMemoryError"
)


def cpu_ms(pid):
    """utime + stime of a process, in milliseconds (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // TICK


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Kubectl:
    def __init__(self, binary, kubeconfig):
        self.base = [binary, f"--kubeconfig={kubeconfig}"]

    def __call__(self, *args, stdin=None, timeout=300):
        done = subprocess.run(
            self.base + list(args), input=stdin, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            sys.exit(f"kubectl {' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def json(self, *args):
        return json.loads(self(*args, "-o", "json"))


def manifests(namespace, services, replicas):
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
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def ready_set(kubectl, namespace):
    """ns/name -> sorted ip:port of the ready addresses in the API server's Endpoints."""
    table = {}
    for ep in kubectl.json("-n", namespace, "get", "endpoints", "-l", "mesh-managed=true")["items"]:
        addresses = set()
        for subset in ep.get("subsets") or []:
            for address in subset.get("addresses") or []:
                for port in subset.get("ports") or []:
                    addresses.add(f"{address['ip']}:{port['port']}")
        table[f"{namespace}/{ep['metadata']['name']}"] = sorted(addresses)
    return table


def digest(table):
    lines = "".join(f"{key} {','.join(table[key])}\n" for key in sorted(table))
    return hashlib.sha256(lines.encode()).hexdigest()


class Watcher:
    """The seed's Python watcher as a child, driven over its stdin commands."""

    def __init__(self, script, kubeconfig, log):
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", script, kubeconfig], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.proc.stdout.readline().strip() == "STARTED"

    def ask(self, command, prefix):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the Python watcher ended")
            if line.startswith(prefix):
                return line.split()[1:]

    def report(self):
        events, last_ns, entries = self.ask("report", "REPORT")
        return int(events), int(last_ns), int(entries)

    def digest(self):
        return self.ask("digest", "DIGEST")[0]

    def stop(self):
        self.proc.kill()
        self.proc.wait(10)


class Agent:
    def __init__(self, java, jar, kubeconfig, workdir, source, log):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.admin_port = probe.getsockname()[1]
        self.socket = os.path.join(workdir, "rs.sock")
        self.proc = subprocess.Popen(
            [java, *AGENT_JVM.split(), "-jar", jar, "agent", "--kubeconfig", kubeconfig,
             "--source", source, "--socket", self.socket, "--admin-host", "127.0.0.1",
             "--admin-port", str(self.admin_port)],
            stdout=log, stderr=subprocess.STDOUT)

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.admin_port}{path}", timeout=5) as r:
            return r.status, r.read().decode()

    def metric(self, name):
        total = 0.0
        for line in self.get("/metrics")[1].splitlines():
            if line.startswith(name + "{") or line.startswith(name + " "):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def table(self, namespace):
        """ns/name -> sorted ip:port, from the agent's HTTP API on its socket."""
        out = subprocess.run(
            ["curl", "-sf", "--max-time", "5", "--unix-socket", self.socket,
             f"http://localhost/v1/services?namespace={namespace}"],
            capture_output=True, text=True, timeout=10)
        table = {}
        for service in json.loads(out.stdout or "{}").get("services", []):
            addresses = set()
            for endpoint in service.get("endpoints", []):
                for port in endpoint.get("ports", []):
                    addresses.add(f"{endpoint['ip']}:{port['port']}")
            table[f"{service['namespace']}/{service['name']}"] = sorted(addresses)
        return table

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


def wait_until(predicate, budget, what):
    deadline = time.monotonic() + budget
    while not predicate():
        if time.monotonic() > deadline:
            sys.exit(f"timed out after {budget} s waiting for {what}")
        time.sleep(0.2)


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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--services", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--source", default="endpoints", choices=["endpoints", "endpointslices"])
    parser.add_argument("--jar", default=os.path.join(here, "..", "target", "routesync.jar"))
    parser.add_argument("--java", default="java")
    parser.add_argument("--out", default=os.path.join(here, "target", "control-plane-cpu"))
    args = parser.parse_args()

    kubeconfig = os.environ["KUBECONFIG"]
    kubectl = Kubectl(os.path.join(os.environ["ROUTESYNC_E2E_BIN"], "kubectl"), kubeconfig)
    os.makedirs(args.out, exist_ok=True)
    namespace = f"bench-cpu-{int(time.time())}"
    kubectl("create", "namespace", namespace)
    wait_until(lambda: "default" in kubectl("-n", namespace, "get", "serviceaccounts"), 30,
               "the namespace's default ServiceAccount")
    agent = watcher = None
    try:
        kubectl("apply", "-f", "-", stdin=manifests(namespace, args.services, args.replicas))
        wait_until(lambda: rollouts_done(kubectl, namespace), 300, "the first rollout")
        log = open(os.path.join(args.out, "agent.log"), "w")
        agent = Agent(args.java, args.jar, kubeconfig, args.out, args.source, log)
        watcher = Watcher(os.path.join(here, "python", "seed_endpoint_watcher.py"), kubeconfig,
                          open(os.path.join(args.out, "watcher.log"), "w"))

        def agent_ready():
            try:
                return agent.get("/readyz")[0] == 200
            except OSError:
                return False

        wait_until(agent_ready, 120, "the agent's first table")
        wait_until(lambda: watcher.report()[2] >= args.services, 120, "the Python registry")

        def quiet_rollout(rounds):
            for _ in range(rounds):
                kubectl("-n", namespace, "rollout", "restart", "deployment")
                wait_until(lambda: rollouts_done(kubectl, namespace), 600, "a rolling restart")
            # Both quiet: no event for --settle seconds, and the agent's table is the ready set.
            truth = ready_set(kubectl, namespace)
            wait_until(lambda: agent.table(namespace) == truth, 60, "the agent to converge")
            wait_until(lambda: (time.monotonic_ns() - watcher.report()[1]) / 1e9 > args.settle,
                       60, "the Python watcher to go quiet")
            return truth

        quiet_rollout(1)  # warm-up: the JIT compiles, both see a full rollout once
        events_before = watcher.report()[0]
        agent_before, python_before = cpu_ms(agent.proc.pid), cpu_ms(watcher.proc.pid)
        started = time.monotonic()
        truth = quiet_rollout(args.rounds)
        wall = time.monotonic() - started
        agent_cpu = cpu_ms(agent.proc.pid) - agent_before
        python_cpu = cpu_ms(watcher.proc.pid) - python_before
        events = watcher.report()[0] - events_before
        exact_python = watcher.digest() == digest(truth)
        exact_agent = agent.table(namespace) == truth
        summary = [
            f"kube-apiserver {json.loads(kubectl('version', '-o', 'json'))['serverVersion']['gitVersion']}; "
            f"{args.services} Services x {args.replicas} pods, {args.rounds} rolling restarts"
            f" measured (after one warm-up), agent --source {args.source}",
            f"window: {wall:.1f} s; Endpoints events (as the Python watcher counted them): {events}",
            f"{'':24}{'CPU ms':>8}{'us/event':>10}{'RSS MiB':>9}{'exact':>7}",
            f"{'routesync agent':24}{agent_cpu:>8}{1000 * agent_cpu / max(events, 1):>10.0f}"
            f"{rss_mib(agent.proc.pid):>9.1f}{str(exact_agent):>7}",
            f"{'Python seed watcher':24}{python_cpu:>8}{1000 * python_cpu / max(events, 1):>10.0f}"
            f"{rss_mib(watcher.proc.pid):>9.1f}{str(exact_python):>7}",
            f"ratio agent/Python: {agent_cpu / max(python_cpu, 1):.2f}x",
        ]
        print("\n".join(summary))
        with open(os.path.join(args.out, "summary.txt"), "w") as out:
            out.write("\n".join(summary) + "\n")
    finally:
        for child in (agent, watcher):
            if child is not None:
                child.stop()
        kubectl("delete", "namespace", namespace, "--wait=false")


if __name__ == "__main__":
    main()
