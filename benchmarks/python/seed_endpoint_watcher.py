# The seed's design under comparison (benchmarks/.../ProcessCpuRun.java): its EndpointWatcher and
# ServiceRegistry, copied as written from the seed document "Integrate service mesh with Kubernetes
# endpoints" (/work/shared/seeds/000_d21799b9f410fc6e.txt, "Code Walkthrough", its two blocks, the
# listing's line numbers dropped). It runs on the official Kubernetes Python client, Debian's
# python3-kubernetes (22.6 on Debian 12): benchmarks/process-cpu.sh installs it when missing.
#
# Everything below the "harness" line is not the seed's: it loads the kubeconfig the benchmark
# writes, counts events (a subclass of the seed's registry, so the seed's code runs unchanged),
# restarts run() when the server ends a watch (the seed's own loop resumes from _last_version), and
# answers the benchmark's commands on stdin from a second thread that sleeps in readline() between
# them (it takes the GIL only for a command).

# ---- the seed, block 1 ----------------------------------------------------------------------
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Address:
    ip: str
    port: int

@dataclass
class RegistryEntry:
    service_name: str
    namespace: str
    addresses: set[Address] = field(default_factory=set)

class ServiceRegistry:
    def __init__(self) -> None:
        self._entries: dict[str, RegistryEntry] = {}

    def _key(self, namespace: str, name: str) -> str:
        return f"{namespace}/{name}"

    def reconcile(self, namespace: str, name: str, desired: set[Address]) -> None:
        key = self._key(namespace, name)
        entry = self._entries.get(key) or RegistryEntry(name, namespace)
        if entry.addresses == desired:
            return  # already in sync; no write, no mesh churn
        entry.addresses = desired
        self._entries[key] = entry

    def drop(self, namespace: str, name: str) -> None:
        self._entries.pop(self._key(namespace, name), None)

# ---- the seed, block 2 ----------------------------------------------------------------------
from kubernetes import client, watch

class EndpointWatcher:
    def __init__(self, registry: ServiceRegistry, selector: str = "mesh-managed=true") -> None:
        self._registry = registry
        self._selector = selector
        self._api = client.CoreV1Api()
        self._last_version: str | None = None

    def _ready_addresses(self, ep: client.V1Endpoints) -> set[Address]:
        result: set[Address] = set()
        for subset in ep.subsets or []:
            ports = [p.port for p in subset.ports or []]
            for addr in subset.addresses or []:
                for port in ports:
                    result.add(Address(ip=addr.ip, port=port))
        return result

    def run(self) -> None:
        w = watch.Watch()
        kwargs = {"label_selector": self._selector}
        if self._last_version:
            kwargs["resource_version"] = self._last_version
        for event in w.stream(self._api.list_endpoints_for_all_namespaces, **kwargs):
            ep = event["object"]
            ns, name = ep.metadata.namespace, ep.metadata.name
            self._last_version = ep.metadata.resource_version
            if event["type"] == "DELETED":
                self._registry.drop(ns, name)
            else:
                self._registry.reconcile(ns, name, self._ready_addresses(ep))

# ---- harness (not the seed's) ---------------------------------------------------------------
import hashlib
import os
import sys
import threading
import time

from kubernetes import config


class CountingRegistry(ServiceRegistry):
    """The seed's registry, counting the events it is handed, when the last one was, and the
    writes that changed it."""

    def __init__(self) -> None:
        super().__init__()
        self.events = 0
        self.writes = 0
        self.last_ns = 0

    def _held(self, namespace, name):
        entry = self._entries.get(self._key(namespace, name))
        return None if entry is None else entry.addresses

    def reconcile(self, namespace, name, desired):
        before = self._held(namespace, name)  # reconcile replaces the set, never mutates it
        super().reconcile(namespace, name, desired)
        if self._held(namespace, name) is not before:
            self.writes += 1
        self.events += 1
        self.last_ns = time.monotonic_ns()  # CLOCK_MONOTONIC, as Java's System.nanoTime()

    def drop(self, namespace, name):
        if self._held(namespace, name) is not None:
            self.writes += 1
        super().drop(namespace, name)
        self.events += 1
        self.last_ns = time.monotonic_ns()


def digest(registry: ServiceRegistry, namespace: str = "") -> str:
    """sha256 over "ns/name ip:port,ip:port\\n" per entry, keys and addresses sorted as text; only
    the entries of namespace when one is given (the cluster may hold others' opted-in Services)."""
    lines = []
    keys = [k for k in registry._entries if not namespace or k.startswith(f"{namespace}/")]
    for key in sorted(keys):
        addresses = sorted(f"{a.ip}:{a.port}" for a in registry._entries[key].addresses)
        lines.append(f"{key} {','.join(addresses)}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def control(registry: CountingRegistry) -> None:
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "report":
            print(
                f"REPORT {registry.events} {registry.last_ns} {len(registry._entries)}"
                f" {registry.writes}",
                flush=True,
            )
        elif words[0] == "digest":
            print(f"DIGEST {digest(registry, *words[1:2])}", flush=True)
        elif words[0] == "quit":
            break
    os._exit(0)


if __name__ == "__main__":
    config.load_kube_config(config_file=sys.argv[1])
    registry = CountingRegistry()
    watcher = EndpointWatcher(registry)
    # Before the control thread starts: print() writes the text and its newline separately, so a
    # first answer printed meanwhile could land inside this line ("STARTEDDIGEST ...").
    print("STARTED", flush=True)
    threading.Thread(target=control, args=(registry,), daemon=True).start()
    while True:
        try:
            watcher.run()
        except Exception as error:  # a dropped stream: resume, as the seed's design says
            print(f"watch ended: {error!r}", file=sys.stderr, flush=True)
            time.sleep(0.1)
