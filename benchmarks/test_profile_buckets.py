"""Tests of profile_buckets.py on synthetic collapsed stacks: the first matching rule wins, and
every sample lands in exactly one bucket.

    python3 -m unittest benchmarks/test_profile_buckets.py
"""

import contextlib
import gzip
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_buckets as pb  # noqa: E402


class CollapsedFile:
    """Writes "frame;frame;... count" lines to a temporary file (gzipped if the name ends .gz)."""

    def __init__(self, test, stacks, name="stacks.collapsed"):
        tmp = tempfile.TemporaryDirectory()
        test.addCleanup(tmp.cleanup)
        self.path = os.path.join(tmp.name, name)
        text = "".join(f"{';'.join(frames)} {n}\n" for frames, n in stacks)
        with (gzip.open if name.endswith(".gz") else open)(self.path, "wt") as f:
            f.write(text)


class ProcessRulesTest(unittest.TestCase):
    def test_first_rule_any_frame_matches_wins(self):
        stacks = [
            # Micrometer called from our code: metrics comes before ours.
            (["[vert.x-eventloop-thread-0]", "dev/routesync/sync/Coalescer.mark",
              "io/micrometer/core/instrument/Timer.record"], 3),
            # Jackson called from fabric8's watch: decode comes before fabric8.
            (["[OkHttp]", "io/fabric8/kubernetes/client/dsl/Watch.onMessage",
              "tools/jackson/databind/ObjectMapper.readValue"], 5),
            # Our table under a GC allocation slow path: GC comes first.
            (["[main]", "dev/routesync/table/RoutingTable.apply", "OptoRuntime::new_array_C"], 7),
            (["[main]", "java/lang/Thread.run", "dev/routesync/kube/ServiceCache.event",
              "java/util/HashMap.get"], 11),
            (["[main]", "Interpreter"], 13),
        ]
        t = pb.tally(CollapsedFile(self, stacks).path, pb.PROCESS)
        self.assertEqual(t.buckets["metrics (Micrometer, Vert.x metrics)"], 3)
        self.assertEqual(t.buckets["decode (Jackson, fabric8 deserializers)"], 5)
        self.assertEqual(t.buckets["GC (VM Thread: SerialGC collects there)"], 7)
        self.assertEqual(t.buckets["ours: kube/ (cache, translation)"], 11)
        self.assertEqual(t.buckets["interpreter/VM/native"], 13)
        self.assertEqual(t.total, 39)
        self.assertEqual(sum(t.buckets.values()), t.total)
        # The deepest frame of the bucket's own kind, not the JDK leaf under it.
        self.assertEqual(t.leaves["ours: kube/ (cache, translation)"],
                         {"dev/routesync/kube/ServiceCache.event": 11})


class EndToEndRulesTest(unittest.TestCase):
    def test_innermost_known_frame_wins_and_benchmark_is_set_aside(self):
        stacks = [
            # HashMap.get called by RoutingTable is ours (the JDK frame is neutral).
            (["[kube-events]", "io/vertx/core/impl/Ctx.run", "dev/routesync/table/RoutingTable.apply",
              "java/util/HashMap.get"], 2),
            # Jackson called by fabric8's watch is decode; our handler called by fabric8 is ours.
            (["[kube-events]", "dev/routesync/kube/ServiceCache.event",
              "io/fabric8/kubernetes/client/dsl/Watch.onMessage", "com/fasterxml/jackson/core/JsonParser.next"], 3),
            (["[kube-events]", "io/fabric8/kubernetes/client/informers/impl/Store.update",
              "dev/routesync/kube/ServiceCache.event"], 5),
            # A Micrometer counter called by our code: metrics, counted in "ours, inclusive".
            (["[kube-events]", "dev/routesync/sync/Coalescer.mark", "io/micrometer/core/Counter.increment"], 7),
            # Thread names come before frames; a benchmark frame before the agent's.
            (["[GC Thread#0]", "dev/routesync/table/RoutingTable.apply"], 11),
            (["[kube-events]", "org/openjdk/jmh/runner/Handler.run", "dev/routesync/table/RoutingTable.apply"], 13),
            # A Vert.x thread that never runs an agent frame is the mock API server's.
            (["[vert.x-eventloop-thread-1]", "io/netty/channel/nio/NioEventLoop.run"], 17),
            (["[kube-events]", "java/lang/Thread.run"], 19),
        ]
        t = pb.tally(CollapsedFile(self, stacks).path, pb.ENDTOEND)
        self.assertEqual(t.buckets["ours: dev.routesync.table"], 2)
        self.assertEqual(t.buckets[pb.DECODE], 3)
        self.assertEqual(t.buckets["ours: dev.routesync.kube"], 5)
        self.assertEqual(t.buckets[pb.METRICS], 7)
        self.assertEqual(t.buckets["GC (GC threads)"], 11)
        self.assertEqual(t.buckets[pb.SENDER], 13 + 17)
        self.assertEqual(t.buckets[pb.OTHER], 19)
        self.assertEqual(t.inclusive, 2 + 5 + 7)
        self.assertEqual(t.total, sum(n for _, n in stacks))
        self.assertEqual(sum(t.buckets.values()), t.total)


class AllocRulesTest(unittest.TestCase):
    def test_first_rule_wins_and_unless_excludes(self):
        stacks = [
            (["io/vertx/core/http/Conn.handle", "dev/routesync/kube/ObjectStore.put", "byte[]"], 1 << 20),
            # Ours under fabric8 is not "ours other" (unless fabric8) but the next rule that matches.
            (["io/fabric8/kubernetes/client/http/Body.read", "dev/routesync/kube/ServiceCache.event",
              "byte[]"], 3 << 20),
            (["dev/routesync/sync/Coalescer.mark", "java.util.ArrayList"], 1 << 19),
            (["tools/jackson/databind/ObjectMapper.readValue", "io/netty/buffer/Buf.alloc", "byte[]"], 1 << 18),
            (["Interpreter", "java.lang.String"], 1 << 17),
        ]
        t = pb.tally(CollapsedFile(self, stacks, "alloc.collapsed.gz").path, pb.ALLOC)
        self.assertEqual(t.buckets, {
            "ours: store + translation": 1 << 20,
            "fabric8 HTTP client (body buffering)": 3 << 20,
            "ours other": 1 << 19,
            "decode (Jackson/fabric8 deserializers)": 1 << 18,
            "other (JVM, GC, ...)": 1 << 17,
        })
        self.assertEqual(t.leaf_frames["byte[]"], (1 << 20) + (3 << 20) + (1 << 18))
        self.assertEqual(t.total, sum(n for _, n in stacks))


class CommandLineTest(unittest.TestCase):
    def test_each_rule_set_prints_a_table(self):
        path = CollapsedFile(self, [(["[kube-events]", "dev/routesync/kube/ObjectStore.put"], 4)]).path
        for rules, first in (("endtoend", "samples: 4 in all"), ("process", "4 samples"),
                             ("alloc", "sampled allocation")):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                pb.main([path, "--rules", rules, "--top", "3"])
            self.assertTrue(out.getvalue().startswith(first), out.getvalue())


if __name__ == "__main__":
    unittest.main()
