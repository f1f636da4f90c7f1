#!/usr/bin/env python3
"""Buckets an async-profiler collapsed-stack file (one "frame;frame;... count" line per stack,
recorded with the `threads` option so the first frame names the thread) into where the agent's
CPU goes: GC, JIT, logging, metrics, decode, our code by stage, fabric8's informer, Netty, Vert.x.

    benchmarks/profile-buckets.py <file.collapsed> [--top N]

A stack goes to the FIRST bucket in RULES that any of its frames (or its thread) matches, so the
order says what wins: a Micrometer timer called from our code is "metrics", Jackson called from
fabric8's watch is "decode", our handler called from fabric8's informer is ours. Prints samples
and shares, then the heaviest frames of the "other" buckets and of our code (self time at the
leaf), so a new cost shows up by name.
"""
import re
import sys
from collections import Counter

RULES = [
    ("GC (VM Thread: SerialGC collects there)", re.compile(r"^\[(GC Thread|VM Thread|G1 |Concurrent)|GenCollectedHeap|DefNewGeneration|"
                      r"TenuredGeneration|SerialHeap|MarkSweep|G1CollectedHeap|VM_GenCollect|"
                      r"VM_CollectFor|CollectedHeap::|MemAllocator::allocate_outside_tlab|"
                      r"OptoRuntime::new_array|OptoRuntime::new_instance|InstanceKlass::allocate")),
    ("JIT compiler threads", re.compile(r"^\[(C1 CompilerThre|C2 CompilerThre)|CompileBroker::")),
    ("logging (logback/slf4j)", re.compile(r"^(ch/qos/logback|org/slf4j)/")),
    ("metrics (Micrometer, Vert.x metrics)", re.compile(r"^(io/micrometer|io/vertx/micrometer|io/prometheus)/")),
    ("decode (Jackson, fabric8 deserializers)", re.compile(
        r"^(tools/jackson|com/fasterxml/jackson)/|^io/fabric8/kubernetes/(model|api/model|client/utils/Serialization|"
        r"internal/KubernetesDeserializer)")),
    ("ours: kube/ (cache, translation)", re.compile(r"^dev/routesync/kube/")),
    ("ours: sync/ table/ (coalesce, publish)", re.compile(r"^dev/routesync/(sync|table)/")),
    ("ours: serve/ xds/ (Watch, encode)", re.compile(r"^dev/routesync/(serve|xds|api)/")),
    ("ours: other", re.compile(r"^dev/routesync/")),
    ("fabric8 informer/watch", re.compile(r"^io/fabric8/")),
    ("Netty I/O", re.compile(r"^io/netty/")),
    ("Vert.x core", re.compile(r"^io/vertx/")),
    ("other Java", re.compile(r"^(java|jdk|sun)/")),
    ("interpreter/VM/native", re.compile(r".")),
]


def main() -> None:
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 12
    buckets = Counter()
    leaves = {name: Counter() for name, _ in RULES}
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            frames = stack.split(";")
            total += n
            for name, rule in RULES:
                if any(rule.search(frame) for frame in frames):
                    buckets[name] += n
                    # The deepest frame of this bucket's own kind: where inside it the time went.
                    own = [fr for fr in frames if rule.search(fr)]
                    leaves[name][own[-1] if own else frames[-1]] += n
                    break
    if total == 0:
        print("no samples")
        return
    print(f"{total} samples ({path})")
    for name, _ in RULES:
        if buckets[name]:
            print(f"  {name:45s} {buckets[name]:7d}  {100.0 * buckets[name] / total:5.1f}%")
    for name, _ in RULES:
        if not buckets[name] or not (name.startswith("ours") or name.startswith("metrics")
                                     or name.startswith("logging")):
            continue
        print(f"\n{name}: deepest frames")
        for frame, n in leaves[name].most_common(top):
            print(f"  {100.0 * n / total:5.2f}%  {frame}")


if __name__ == "__main__":
    main()
