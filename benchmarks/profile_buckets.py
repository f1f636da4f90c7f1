#!/usr/bin/env python3
"""Splits an async-profiler collapsed-stack file (threads=true, so each stack starts with the
thread's frame) into CPU buckets, and prints each bucket's share and ours / fabric8's decode.

    python3 benchmarks/profile_buckets.py results/<run>.collapsed [--top N]

Rules, in order:
1. The benchmark's own work is set aside first: its sender (the JMH worker thread, JSON encoding
   of the feed, and every thread that ever runs a mock-API-server frame: the mock's own Vert.x
   event loop writes the feed's websocket frames, so every Vert.x thread that never runs an
   agent frame counts as the mock's) and its grpc-java subscriber. Not the agent.
2. JVM threads by name: GC threads -> GC, compiler threads -> JIT, other VM threads -> JVM.
3. In a Java thread the sample belongs to the innermost (leaf-most) frame of a known library or
   of our code; JDK, kernel and native frames, pcollections and fabric8's model classes
   (getters and builders) are neutral and go to whoever called them. So HashMap.get called by
   RoutingTable is ours (table), a Micrometer counter called by our code is metrics, Jackson
   called by fabric8's watch is decode.
"ours" is every dev.routesync package; "ours, inclusive" also counts metrics, logging and protobuf
work reached from a dev.routesync frame (what our code makes the process do, except I/O).
"""

import re
import sys
from collections import Counter, defaultdict

DECODE = "fabric8/Jackson decode"
INFORMER = "fabric8 informer bookkeeping"
FABRIC8_IO = "fabric8 watch/HTTP plumbing"
METRICS = "Micrometer & Vert.x metrics"
LOGGING = "logging"
PROTOBUF = "protobuf"
IO = "Netty/Vert.x I/O (incl. Vert.x gRPC)"
GC = "GC (GC threads)"
JIT = "JIT (compiler threads)"
JVM = "JVM other (VM thread, safepoints, ...)"
OTHER = "JDK only (parking, class loading, ...)"
SENDER = "benchmark: sender + mock API server"
SUBSCRIBER = "benchmark: grpc-java subscriber"

# Innermost match wins; the first pattern that matches a frame names its bucket.
FRAME_RULES = [
    (re.compile(r"^(tools/jackson/|com/fasterxml/jackson/)"), DECODE),
    (re.compile(r"^io/fabric8/kubernetes/client/utils/(Serialization|KubernetesSerialization)"), DECODE),
    (re.compile(r"^io/fabric8/kubernetes/(internal|model)/"), DECODE),
    (re.compile(r"^io/fabric8/kubernetes/client/informers/"), INFORMER),
    (re.compile(r"^io/fabric8/kubernetes/client/utils/internal/SerialExecutor"), INFORMER),
    (re.compile(r"^io/fabric8/kubernetes/client/"), FABRIC8_IO),
    (re.compile(r"^(io/micrometer/|io/vertx/micrometer/|io/prometheus/)"), METRICS),
    (re.compile(r"^(ch/qos/logback/|org/slf4j/|org/apache/logging/|java/util/logging/)"), LOGGING),
    (re.compile(r"^(com/google/protobuf/|dev/routesync/api/v1/)"), PROTOBUF),
    (re.compile(r"^(io/netty/|io/vertx/)"), IO),
]
OURS = re.compile(r"^dev/routesync/(?!bench/|testing/)(\w+)")
BENCH_FRAME = re.compile(r"^(dev/routesync/bench/|dev/routesync/testing/|io/fabric8/mockwebserver/|io/grpc/|org/openjdk/jmh/)")


def thread_bucket(thread):
    if "jmh-worker" in thread or ".churn-" in thread:
        return SENDER
    if thread.startswith(("epollEventLoopGroup", "grpc-default-executor", "grpc-")):
        return SUBSCRIBER
    if thread.startswith(("GC Thread", "G1 ", "GC ")):
        return GC
    if thread.startswith(("C1 CompilerThre", "C2 CompilerThre", "Sweeper")):
        return JIT
    if thread.startswith(("VM Thread", "VM Periodic", "Monitor Deflati", "Service Thread", "Common-Cleaner", "Signal Dispatch", "Notification", "Finalizer", "Reference Handl")):
        return JVM
    return None


def frame_bucket(frame):
    if frame.startswith("dev/routesync/api/v1/"):  # generated protobuf messages
        return PROTOBUF
    m = OURS.match(frame)
    if m:
        return "ours: dev.routesync." + m.group(1)
    for pattern, bucket in FRAME_RULES:
        if pattern.match(frame):
            return bucket
    return None


def classify(frames, mock_threads):
    thread = frames[0].strip("[]")
    if frames[0] in mock_threads:
        return SENDER, False
    bucket = thread_bucket(thread)
    if bucket:
        return bucket, False
    body = frames[1:]
    for frame in body:
        m = BENCH_FRAME.match(frame)
        if m:
            return (SUBSCRIBER if frame.startswith("io/grpc/") else SENDER), False
    inner = None
    for frame in reversed(body):
        inner = frame_bucket(frame)
        if inner:
            break
    reached_from_ours = any(OURS.match(f) for f in body)
    return inner or OTHER, reached_from_ours


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
    buckets = Counter()
    inclusive = 0
    leaves = defaultdict(Counter)
    total = 0
    # The mock API server's threads: any that ran a mock frame, and any Vert.x thread that never
    # ran an agent frame (ours or fabric8's client). The mock's event loop writes the feed but
    # runs a mock frame only when a connection opens, which may fall outside the profiled span.
    mock_threads, agent_threads, vertx_threads = set(), set(), set()
    with open(path) as f:
        for line in f:
            thread = line.split(";", 1)[0]
            if "io/fabric8/mockwebserver/" in line:
                mock_threads.add(thread)
            if "dev/routesync/" in line or "io/fabric8/kubernetes/client/" in line:
                agent_threads.add(thread)
            if thread.startswith("[vert.x-"):
                vertx_threads.add(thread)
    mock_threads |= vertx_threads - agent_threads
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            frames = stack.split(";")
            bucket, from_ours = classify(frames, mock_threads)
            buckets[bucket] += n
            total += n
            if from_ours and bucket not in (IO, OTHER, DECODE, INFORMER, FABRIC8_IO):
                inclusive += n
            if top:
                # The innermost frame of the bucket's own code, for "what is hot in it".
                leaf = next((fr for fr in reversed(frames[1:]) if frame_bucket(fr) == bucket), frames[-1])
                leaves[bucket][leaf] += n
    bench = buckets[SENDER] + buckets[SUBSCRIBER]
    agent = total - bench
    ours = sum(v for k, v in buckets.items() if k.startswith("ours:"))
    decode = buckets[DECODE]
    print(f"samples: {total} in all, {agent} of the agent (without the benchmark's {bench})")
    print(f"{'bucket':48} {'samples':>8} {'% agent':>8} {'% all':>7}")
    order = sorted(buckets.items(), key=lambda kv: (kv[0] in (SENDER, SUBSCRIBER), -kv[1]))
    for name, n in order:
        share = "" if name in (SENDER, SUBSCRIBER) else f"{100.0 * n / agent:7.1f}%"
        print(f"{name:48} {n:8d} {share:>8} {100.0 * n / total:6.1f}%")
    print(f"{'ours (all dev.routesync packages)':48} {ours:8d} {100.0 * ours / agent:7.1f}%")
    print(f"{'ours, inclusive (+ metrics/logging/protobuf)':48} {inclusive:8d} {100.0 * inclusive / agent:7.1f}%")
    if decode:
        print(f"ours / decode = {ours / decode:.2f}x; ours inclusive / decode = {inclusive / decode:.2f}x"
              f"; target <= 0.25x")
        fabric8 = decode + buckets[INFORMER] + buckets[FABRIC8_IO]
        print(f"ours / all fabric8 (decode + informer + plumbing) = {ours / fabric8:.2f}x")
    if top:
        for name, _ in order:
            print(f"\n-- {name}: hottest innermost frames")
            for leaf, n in leaves[name].most_common(top):
                print(f"  {n:7d}  {leaf}")


if __name__ == "__main__":
    main()
