package dev.routesync.bench;

import dev.routesync.table.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Why the hot records write their equals out. Each arriving EndpointSlice's translation is compared
 * with the one held, which compares every endpoint's ports; the image runs C1 only ({@code
 * -XX:TieredStopAtLevel=1}), and C1 calls a record's generated equals (an invokedynamic
 * bootstrapped by {@code ObjectMethods}) through its chain of method handles instead of inlining
 * it.
 *
 * <p>One comparison of two equal lists of 50 ports (25 endpoints of two ports: what one translation
 * check compares), built apart so no element is the same instance, with names and protocols shared
 * as the translators' interned ones are. {@code generated*} is a record shaped like {@link Port}
 * with the compiler's equals (the baseline, kept here and not in the product); {@code written*} is
 * {@link Port} itself. Each pair runs under C1 only (the image) and under the default tiered
 * compiler (C2).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RecordEqualityBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RecordEqualityBenchmark {

  /** The baseline: {@link Port}'s shape with the compiler's generated equals and hashCode. */
  record GeneratedPort(String name, int port, String protocol) {}

  private static final int PORTS = 50;

  private List<GeneratedPort> generated;
  private List<GeneratedPort> generatedCopy;
  private List<Port> written;
  private List<Port> writtenCopy;

  @Setup
  public void setUp() {
    List<GeneratedPort> g = new ArrayList<>();
    List<GeneratedPort> gc = new ArrayList<>();
    List<Port> w = new ArrayList<>();
    List<Port> wc = new ArrayList<>();
    for (int i = 0; i < PORTS; i++) {
      String name = (i % 2 == 0 ? "http" : "grpc").intern();
      int port = 8080 + i % 2;
      g.add(new GeneratedPort(name, port, "TCP"));
      gc.add(new GeneratedPort(name, port, "TCP"));
      w.add(new Port(name, port, "TCP"));
      wc.add(new Port(name, port, "TCP"));
    }
    generated = List.copyOf(g);
    generatedCopy = List.copyOf(gc);
    written = List.copyOf(w);
    writtenCopy = List.copyOf(wc);
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = "-XX:TieredStopAtLevel=1")
  public boolean generatedC1() {
    return generated.equals(generatedCopy);
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = "-XX:TieredStopAtLevel=1")
  public boolean writtenC1() {
    return written.equals(writtenCopy);
  }

  @Benchmark
  @Fork(1)
  public boolean generatedC2() {
    return generated.equals(generatedCopy);
  }

  @Benchmark
  @Fork(1)
  public boolean writtenC2() {
    return written.equals(writtenCopy);
  }
}
