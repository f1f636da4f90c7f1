#!/usr/bin/env python3
"""Groups an async-profiler collapsed-stack file (one "frame;frame;... count" line per stack; a
.gz file is read as is) into buckets by ordered rules, and prints each bucket's share.

    python3 benchmarks/profile_buckets.py <file.collapsed[.gz]> [--rules SET] [--top N]

Rule sets (--rules):
  endtoend  (default; benchmarks/profile.sh) EndToEndChurnBenchmark's CPU profile, thread-rooted
            (threads=true): the benchmark's own sender, mock API server and grpc-java subscriber
            set aside, then the agent's CPU by library or dev.routesync package; ours / decode.
  process   (benchmarks/process-cpu.sh, ProcessCpuRun's agent.collapsed) the agent process alone:
            GC, JIT, logging, metrics, decode, our code by stage, fabric8, Netty, Vert.x.
  alloc     (ScaleRun --profile-relist's relist-alloc-<n>.collapsed, async-profiler event=alloc
            with `total`: bytes per stack) a relist's allocation by who allocated; then the top
            allocated types (leaf frames) and inclusive frames.

A rule set is data: stages of rules tried in order, and the first rule that matches names the
bucket. A stage looks at some of a stack's frames in one of four ways:
  "thread"     the thread's name (the first frame without its brackets);
  "stack"      every frame; the first RULE that any frame matches wins (rule order decides), so in
               the process set a Micrometer timer called from our code is "metrics";
  "outermost"  the frames below the thread, root first; the first FRAME that a rule matches wins;
  "innermost"  the same from the leaf up, so in the endtoend set HashMap.get called by
               RoutingTable is ours (table) and Jackson called by fabric8's watch is decode; JDK,
               kernel and native frames match no rule and go to whoever called them.
A rule's bucket may name a group of its pattern (\\1); a rule with `unless` does not match a stack
that has a frame matching `unless`. A stack no stage places goes to the set's default bucket.

Tests (synthetic stacks: first match wins, totals), from the repository's root:
    python3 -m unittest benchmarks/test_profile_buckets.py
"""

import argparse
import gzip
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class Rule:
    """Frames matching `pattern` (re.search) go to `bucket`, unless a frame matches `unless`."""

    bucket: str
    pattern: str
    unless: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "_re", re.compile(self.pattern))
        object.__setattr__(self, "_unless", re.compile(self.unless) if self.unless else None)

    def match(self, frame: str) -> Optional[str]:
        """The bucket if `frame` matches (the pattern's groups filled in), else None."""
        m = self._re.search(frame)
        if not m:
            return None
        return m.expand(self.bucket) if "\\" in self.bucket else self.bucket

    def excluded_by(self, frames: Sequence[str]) -> bool:
        return self._unless is not None and any(self._unless.search(f) for f in frames)


@dataclass(frozen=True)
class Stage:
    """Rules looking at some of a stack's frames ("thread", "stack", "outermost", "innermost")."""

    frames: str
    rules: Tuple[Rule, ...]

    def __post_init__(self):
        if self.frames not in ("thread", "stack", "outermost", "innermost"):
            raise ValueError(self.frames)

    def frame_bucket(self, frame: str) -> Optional[str]:
        """The bucket of the first rule matching this one frame (`unless` not applied)."""
        for rule in self.rules:
            bucket = rule.match(frame)
            if bucket:
                return bucket
        return None

    def bucket(self, frames: List[str]) -> Tuple[Optional[str], Optional[str]]:
        """(bucket, the deciding frame) or (None, None)."""
        if self.frames == "thread":
            thread = frames[0].strip("[]")
            return self.frame_bucket(thread), None
        if self.frames == "stack":
            for rule in self.rules:
                if rule.excluded_by(frames):
                    continue
                for frame in frames:
                    bucket = rule.match(frame)
                    if bucket:
                        return bucket, frame
            return None, None
        body = frames[1:] if self.frames == "outermost" else reversed(frames[1:])
        for frame in body:
            bucket = self.frame_bucket(frame)
            if bucket:
                return bucket, frame
        return None, None

    def leaf(self, bucket: str, frames: List[str]) -> Optional[str]:
        """The deepest frame this stage puts in `bucket` (the thread frame counts in "stack")."""
        scope = frames if self.frames == "stack" else frames[1:]
        for frame in reversed(scope):
            if self.frame_bucket(frame) == bucket:
                return frame
        return None


@dataclass(frozen=True)
class ThreadGroup:
    """Every stack of some threads goes to `bucket`, before any stage: the threads that ever run a
    frame matching `ran`, and those named `named` that never run a frame matching `unless_ran`."""

    bucket: str
    ran: str
    named: str
    unless_ran: str


@dataclass(frozen=True)
class RuleSet:
    name: str
    stages: Tuple[Stage, ...]
    default: str
    report: Callable[["Tally", str, int], None]
    default_top: int
    thread_groups: Tuple[ThreadGroup, ...] = ()
    # Stacks in a bucket matching `inclusive_buckets` that have a frame below the thread matching
    # `inclusive_from` count in Tally.inclusive.
    inclusive_from: Optional[str] = None
    inclusive_buckets: Optional[str] = None
    # Per-bucket leaves: "stage" (the deepest frame the leaf stage puts in the bucket, else the
    # stack's leaf), or None (not collected).
    leaves: Optional[str] = "stage"
    # Also count each stack's leaf frame and every distinct frame (allocation: types, callers).
    frame_totals: bool = False

    def declared_buckets(self) -> List[str]:
        names = [g.bucket for g in self.thread_groups]
        names += [r.bucket for s in self.stages for r in s.rules if "\\" not in r.bucket]
        names.append(self.default)
        return list(dict.fromkeys(names))

    def classify(self, frames: List[str], thread_buckets: Dict[str, str]) -> str:
        if frames[0] in thread_buckets:
            return thread_buckets[frames[0]]
        for stage in self.stages:
            bucket, _ = stage.bucket(frames)
            if bucket:
                return bucket
        return self.default

    def leaf(self, bucket: str, frames: List[str]) -> str:
        # The last stage that looks at frames (not the thread) names where inside a bucket it went.
        stage = next(s for s in reversed(self.stages) if s.frames != "thread")
        return stage.leaf(bucket, frames) or frames[-1]


@dataclass
class Tally:
    total: int = 0
    buckets: Counter = field(default_factory=Counter)
    leaves: Dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    inclusive: int = 0
    leaf_frames: Counter = field(default_factory=Counter)
    all_frames: Counter = field(default_factory=Counter)


def read_collapsed(path: str) -> Iterator[Tuple[List[str], int]]:
    """(frames, count) per line; lines without a stack are skipped."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            stack, _, count = line.rstrip().rpartition(" ")
            if not stack:
                continue
            yield stack.split(";"), int(count)


def thread_buckets(path: str, groups: Sequence[ThreadGroup]) -> Dict[str, str]:
    """Thread frame -> bucket for the rule set's thread groups (one pass over the file)."""
    if not groups:
        return {}
    compiled = [(g, re.compile(g.ran), re.compile(g.named), re.compile(g.unless_ran)) for g in groups]
    ran, named, other = defaultdict(set), defaultdict(set), defaultdict(set)
    for frames, _ in read_collapsed(path):
        thread = frames[0]
        for i, (_, ran_re, named_re, unless_re) in enumerate(compiled):
            if any(ran_re.search(f) for f in frames):
                ran[i].add(thread)
            if any(unless_re.search(f) for f in frames):
                other[i].add(thread)
            if named_re.search(thread):
                named[i].add(thread)
    result = {}
    for i, (group, *_) in reversed(list(enumerate(compiled))):  # the first group wins
        for thread in ran[i] | (named[i] - other[i]):
            result[thread] = group.bucket
    return result


def tally(path: str, rules: RuleSet, leaves: bool = True) -> Tally:
    t = Tally()
    by_thread = thread_buckets(path, rules.thread_groups)
    inclusive_re = re.compile(rules.inclusive_from) if rules.inclusive_from else None
    inclusive_buckets = re.compile(rules.inclusive_buckets) if rules.inclusive_buckets else None
    for frames, n in read_collapsed(path):
        bucket = rules.classify(frames, by_thread)
        t.total += n
        t.buckets[bucket] += n
        if inclusive_re and inclusive_buckets.search(bucket):
            if any(inclusive_re.search(f) for f in frames[1:]):
                t.inclusive += n
        if leaves and rules.leaves == "stage":
            t.leaves[bucket][rules.leaf(bucket, frames)] += n
        if rules.frame_totals:
            t.leaf_frames[frames[-1]] += n
            for frame in dict.fromkeys(frames):
                t.all_frames[frame] += n
    return t


# ---- printing ----


def print_rows(rows, fmt: str, total: int, scale: float = 1.0, **extra) -> None:
    """One line per (name, value): `fmt` sees name, n, v (n / scale) and pct (share of total)."""
    for name, n in rows:
        print(fmt.format(name=name, n=n, v=n / scale, pct=100.0 * n / total, **extra))


def report_process(t: Tally, path: str, top: int) -> None:
    if t.total == 0:
        print("no samples")
        return
    print(f"{t.total} samples ({path})")
    order = PROCESS.declared_buckets()
    print_rows([(b, t.buckets[b]) for b in order if t.buckets[b]], "  {name:45s} {n:7d}  {pct:5.1f}%", t.total)
    for name in order:
        if t.buckets[name] and name.startswith(("ours", "metrics", "logging")):
            print(f"\n{name}: deepest frames")
            print_rows(t.leaves[name].most_common(top), "  {pct:5.2f}%  {name}", t.total)


def report_endtoend(t: Tally, path: str, top: int) -> None:
    if t.total == 0:
        print("no samples")
        return
    bench_buckets = (SENDER, SUBSCRIBER)
    bench = sum(t.buckets[b] for b in bench_buckets)
    agent = t.total - bench
    ours = sum(v for k, v in t.buckets.items() if k.startswith("ours:"))
    decode = t.buckets[DECODE]
    print(f"samples: {t.total} in all, {agent} of the agent (without the benchmark's {bench})")
    print(f"{'bucket':48} {'samples':>8} {'% agent':>8} {'% all':>7}")
    order = sorted(t.buckets.items(), key=lambda kv: (kv[0] in bench_buckets, -kv[1]))
    for name, n in order:
        share = "" if name in bench_buckets else f"{100.0 * n / agent:7.1f}%"
        print(f"{name:48} {n:8d} {share:>8} {100.0 * n / t.total:6.1f}%")
    print(f"{'ours (all dev.routesync packages)':48} {ours:8d} {100.0 * ours / agent:7.1f}%")
    print(f"{'ours, inclusive (+ metrics/logging/protobuf)':48} {t.inclusive:8d} {100.0 * t.inclusive / agent:7.1f}%")
    if decode:
        print(f"ours / decode = {ours / decode:.2f}x; ours inclusive / decode = {t.inclusive / decode:.2f}x"
              f"; target <= 0.25x")
        fabric8 = decode + t.buckets[INFORMER] + t.buckets[FABRIC8_IO]
        print(f"ours / all fabric8 (decode + informer + plumbing) = {ours / fabric8:.2f}x")
    if top:
        for name, _ in order:
            print(f"\n-- {name}: hottest innermost frames")
            print_rows(t.leaves[name].most_common(top), "  {n:7d}  {name}", t.total)


MIB = 2**20


def report_alloc(t: Tally, path: str, top: int) -> None:
    if t.total == 0:
        print("no samples")
        return
    print("sampled allocation: %.1f MiB" % (t.total / MIB))
    row = "{name:42s} {v:8.1f} MiB {pct:5.1f}%"
    print_rows(t.buckets.most_common(), row, t.total, MIB)
    print("--- top allocated types (leaf frames)")
    frame_row = "{v:8.1f} MiB {pct:5.1f}%  {name}"
    print_rows(t.leaf_frames.most_common(top), frame_row, t.total, MIB)
    print("--- top inclusive frames")
    ours_and_theirs = ("fabric8", "jackson", "routesync", "vertx/core/http", "Buffer")
    heavy = [(k, v) for k, v in t.all_frames.most_common(60) if any(x in k for x in ours_and_theirs)]
    print_rows(heavy, frame_row, t.total, MIB)


# ---- rule sets ----

PROCESS = RuleSet(
    name="process",
    stages=(Stage("stack", (
        Rule("GC (VM Thread: SerialGC collects there)",
             r"^\[(GC Thread|VM Thread|G1 |Concurrent)|GenCollectedHeap|DefNewGeneration|"
             r"TenuredGeneration|SerialHeap|MarkSweep|G1CollectedHeap|VM_GenCollect|"
             r"VM_CollectFor|CollectedHeap::|MemAllocator::allocate_outside_tlab|"
             r"OptoRuntime::new_array|OptoRuntime::new_instance|InstanceKlass::allocate"),
        Rule("JIT compiler threads", r"^\[(C1 CompilerThre|C2 CompilerThre)|CompileBroker::"),
        Rule("logging (logback/slf4j)", r"^(ch/qos/logback|org/slf4j)/"),
        Rule("metrics (Micrometer, Vert.x metrics)", r"^(io/micrometer|io/vertx/micrometer|io/prometheus)/"),
        Rule("decode (Jackson, fabric8 deserializers)",
             r"^(tools/jackson|com/fasterxml/jackson)/|^io/fabric8/kubernetes/(model|api/model|"
             r"client/utils/Serialization|internal/KubernetesDeserializer)"),
        Rule("ours: kube/ (cache, translation)", r"^dev/routesync/kube/"),
        Rule("ours: sync/ table/ (coalesce, publish)", r"^dev/routesync/(sync|table)/"),
        Rule("ours: serve/ xds/ (Watch, encode)", r"^dev/routesync/(serve|xds|api)/"),
        Rule("ours: other", r"^dev/routesync/"),
        Rule("fabric8 informer/watch", r"^io/fabric8/"),
        Rule("Netty I/O", r"^io/netty/"),
        Rule("Vert.x core", r"^io/vertx/"),
        Rule("other Java", r"^(java|jdk|sun)/"),
    )),),
    # Every stack has a frame, so this is where a stack matching nothing above goes.
    default="interpreter/VM/native",
    report=report_process,
    default_top=12,
)

DECODE = "fabric8/Jackson decode"
INFORMER = "fabric8 informer bookkeeping"
FABRIC8_IO = "fabric8 watch/HTTP plumbing"
METRICS = "Micrometer & Vert.x metrics"
LOGGING = "logging"
PROTOBUF = "protobuf"
IO = "Netty/Vert.x I/O (incl. Vert.x gRPC)"
SENDER = "benchmark: sender + mock API server"
SUBSCRIBER = "benchmark: grpc-java subscriber"
OTHER = "JDK only (parking, class loading, ...)"

# 1. The benchmark's own work is set aside first: its sender (the JMH worker thread, JSON encoding
#    of the feed, and every thread that ever runs a mock-API-server frame: the mock's own Vert.x
#    event loop writes the feed's websocket frames but runs a mock frame only when a connection
#    opens, which may fall outside the profiled span, so every Vert.x thread that never runs an
#    agent frame counts as the mock's) and its grpc-java subscriber. Not the agent.
# 2. JVM threads by name: GC threads -> GC, compiler threads -> JIT, other VM threads -> JVM.
# 3. A stack that runs a benchmark frame is the benchmark's (the outermost one says whose).
# 4. The innermost frame of a known library or of our code; pcollections and fabric8's model
#    classes (getters and builders) are neutral and go to whoever called them.
# "ours, inclusive" also counts metrics, logging and protobuf work reached from a dev.routesync
# frame (what our code makes the process do, except I/O).
ENDTOEND = RuleSet(
    name="endtoend",
    thread_groups=(ThreadGroup(SENDER, ran=r"io/fabric8/mockwebserver/", named=r"^\[vert\.x-",
                               unless_ran=r"dev/routesync/|io/fabric8/kubernetes/client/"),),
    stages=(
        Stage("thread", (
            Rule(SENDER, r"jmh-worker|\.churn-"),
            Rule(SUBSCRIBER, r"^(epollEventLoopGroup|grpc-default-executor|grpc-)"),
            Rule("GC (GC threads)", r"^(GC Thread|G1 |GC )"),
            Rule("JIT (compiler threads)", r"^(C1 CompilerThre|C2 CompilerThre|Sweeper)"),
            Rule("JVM other (VM thread, safepoints, ...)",
                 r"^(VM Thread|VM Periodic|Monitor Deflati|Service Thread|Common-Cleaner|Signal Dispatch"
                 r"|Notification|Finalizer|Reference Handl)"),
        )),
        Stage("outermost", (
            Rule(SUBSCRIBER, r"^io/grpc/"),
            Rule(SENDER, r"^(dev/routesync/bench/|dev/routesync/testing/|io/fabric8/mockwebserver/|org/openjdk/jmh/)"),
        )),
        Stage("innermost", (
            Rule(PROTOBUF, r"^dev/routesync/api/v1/"),  # generated protobuf messages
            Rule(r"ours: dev.routesync.\1", r"^dev/routesync/(?!bench/|testing/)(\w+)"),
            Rule(DECODE, r"^(tools/jackson/|com/fasterxml/jackson/)"),
            Rule(DECODE, r"^io/fabric8/kubernetes/client/utils/(Serialization|KubernetesSerialization)"),
            Rule(DECODE, r"^io/fabric8/kubernetes/(internal|model)/"),
            Rule(INFORMER, r"^io/fabric8/kubernetes/client/informers/"),
            Rule(INFORMER, r"^io/fabric8/kubernetes/client/utils/internal/SerialExecutor"),
            Rule(FABRIC8_IO, r"^io/fabric8/kubernetes/client/"),
            Rule(METRICS, r"^(io/micrometer/|io/vertx/micrometer/|io/prometheus/)"),
            Rule(LOGGING, r"^(ch/qos/logback/|org/slf4j/|org/apache/logging/|java/util/logging/)"),
            Rule(PROTOBUF, r"^com/google/protobuf/"),
            Rule(IO, r"^(io/netty/|io/vertx/)"),
        )),
    ),
    default=OTHER,
    inclusive_from=r"^dev/routesync/(?!bench/|testing/)\w",
    inclusive_buckets=r"^ours: |^(" + "|".join(re.escape(b) for b in (METRICS, LOGGING, PROTOBUF)) + ")$",
    report=report_endtoend,
    default_top=0,
)

# Allocation stacks have no thread frame; a stack goes to the first rule any of its frames matches.
ALLOC = RuleSet(
    name="alloc",
    stages=(Stage("stack", (
        Rule("ours: store + translation", r"dev/routesync/kube/ObjectStore|dev/routesync/kube/translate"),
        Rule("ours other", r"dev/routesync", unless=r"fabric8"),
        Rule("decode (Jackson/fabric8 deserializers)", r"KubernetesDeserializer|tools/jackson"),
        Rule("fabric8 HTTP client (body buffering)",
             r"io/fabric8/kubernetes/client/http|io/fabric8/kubernetes/client/vertx"),
        Rule("fabric8 other", r"io/fabric8"),
        Rule("netty/vertx I/O", r"io/netty|io/vertx"),
    )),),
    default="other (JVM, GC, ...)",
    report=report_alloc,
    default_top=15,
    leaves=None,
    frame_totals=True,
)

RULE_SETS = {r.name: r for r in (ENDTOEND, PROCESS, ALLOC)}


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collapsed", help="async-profiler collapsed stacks (.gz read as is)")
    parser.add_argument("--rules", choices=list(RULE_SETS), default=ENDTOEND.name)
    parser.add_argument("--top", type=int, help="frames listed per bucket (endtoend: 0, none; process: 12; "
                                                "alloc: allocated types, 15)")
    args = parser.parse_args(argv)
    rules = RULE_SETS[args.rules]
    top = rules.default_top if args.top is None else args.top
    t = tally(args.collapsed, rules, leaves=top > 0)
    rules.report(t, args.collapsed, top)


if __name__ == "__main__":
    main()
