package dev.routesync.bench;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableWriter;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.GraphLayout;
import org.openjdk.jol.vm.VM;

/**
 * Retained heap size of a routing table, per endpoint: 10,000 services of 25 endpoints each
 * (250,000 endpoints), measured with JOL as everything reachable from the {@link RoutingTable}
 * (endpoints, their strings and port lists, the per-service records and keys, the persistent tree,
 * the delta log). The target is at most 120 bytes per endpoint: every node runs a copy of
 * the agent, and each copy holds every opted-in endpoint of the cluster.
 *
 * <p>The table is built the way the agent builds it: one EndpointSlice per service, translated into
 * {@link Endpoint}s that share the slice's port list, sorted by IP, published through {@link
 * TableWriter#publish} in batches of 5,000 (the default {@code --max-batch}). Every string is a
 * fresh instance with its own {@code byte[]}, as the JSON decoder creates one per value: zones (3
 * values) and node names (50 values) are equal but not identical across endpoints, pod names
 * ({@code <service>-<replicaset hash>-<suffix>}) and IPs (scattered over a /14) are distinct. No
 * sharing happens by accident, so the figure is what the agent really retains.
 *
 * <p>Output: the JMH score is only the time of the JOL heap walk (meaningless); the result is the
 * auxiliary counter {@code bytesPerEndpoint} (and {@code totalBytes}, {@code endpoints}), in the
 * {@code #} unit. The forked JVM also prints the VM's object layout (compressed oops and class
 * pointers change every figure), {@link Endpoint}'s field layout, the classes that dominate (JOL's
 * footprint, with bytes per endpoint), the same bytes attributed to what the endpoints hold (read
 * from {@link Endpoint}'s private fields: its accessors make text on each call, which no table
 * retains), and what the remaining candidate changes would save. A run takes about a minute. The
 * layout is deterministic, so one fork and one iteration (the defaults here) are enough. Keep them:
 * JMH treats {@code EVENTS} counters as totals and adds them up over iterations and forks in its
 * final table, so {@code -i 2} shows twice the bytes there (the per-iteration lines and the printed
 * report stay right).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar MemoryBenchmark
 * </pre>
 *
 * <p>The same report without JMH (JOL needs these properties on JDK 17 to lay out the table's
 * records, {@code ServiceEndpoints}, {@code ServiceKey} and {@code Port}; {@link Endpoint} is a
 * plain class since it became compact):
 *
 * <pre>
 * java -Djdk.attach.allowAttachSelf=true -Djol.magicFieldOffset=true \
 *     -cp benchmarks/target/benchmarks.jar dev.routesync.bench.MemoryBenchmark
 * </pre>
 *
 * <p>Why the whole graph counts: before {@link Endpoint} became compact, the translator handed the
 * table the very IP and pod-name strings of the watch cache's decoded EndpointSlices; shared with
 * the cache right after a sync, but a relist (after an outage, or the 10-minute anti-entropy
 * resync) decodes every slice anew while {@code RoutingTable.apply} keeps the old entry of every
 * service whose endpoints are equal, old strings included, so the table alone retained them. Now it
 * keeps no decoded string but the rare pod name kept whole: an IPv4 address is an int, pod names
 * are an interned prefix and a packed suffix, zones and nodes are interned.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "-Xms2g",
      "-Xmx2g",
      // JOL attaches its agent to itself; JDK 9+ refuse a self-attach unless told otherwise.
      "-Djdk.attach.allowAttachSelf=true",
      // Without the agent, JOL can only lay out records (ServiceEndpoints, ServiceKey, Port) with
      // this.
      "-Djol.magicFieldOffset=true",
      // JDK 21+ warn about dynamically loaded agents; JDK 17 does not know the flag.
      "-XX:+IgnoreUnrecognizedVMOptions",
      "-XX:+EnableDynamicAgentLoading"
    })
public class MemoryBenchmark {

  static final int SERVICES = 10_000;
  static final int ENDPOINTS_PER_SERVICE = 25;
  static final int NAMESPACES = 100;
  static final int NODES = 50;
  static final int MAX_BATCH = 5_000;
  static final double TARGET_BYTES_PER_ENDPOINT = 120;

  private static final String[] ZONES = {"europe-west1-b", "europe-west1-c", "europe-west1-d"};
  private static final String[] APPS =
      ("cart checkout payments orders inventory search catalog pricing shipping accounts auth"
              + " billing reviews recommendations notifications ledger gateway profile media"
              + " analytics")
          .split(" ");
  private static final String[] ROLES = {"api", "worker", "grpc", "web", "backend"};

  /** The alphabet Kubernetes uses for generated name suffixes (no vowels, no look-alikes). */
  private static final String SAFE = "bcdfghjklmnpqrstvwxz2456789";

  private RoutingTable table;

  /** What JMH prints next to the (meaningless) walk time. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Footprint {
    public double bytesPerEndpoint;
    public long totalBytes;
    public long endpoints;
  }

  @Setup(Level.Trial)
  public void setUp() {
    table = buildTable();
  }

  @Benchmark
  public long retainedSize(Footprint footprint) {
    long total = GraphLayout.parseInstance(table).totalSize();
    footprint.totalBytes = total;
    footprint.endpoints = table.endpointCount();
    footprint.bytesPerEndpoint = (double) total / table.endpointCount();
    return total;
  }

  @TearDown(Level.Trial)
  public void printReport() {
    System.out.println();
    System.out.print(report(table));
  }

  public static void main(String[] args) {
    System.out.print(report(buildTable()));
  }

  /** 10,000 services x 25 endpoints, built and published as the agent does it. */
  static RoutingTable buildTable() {
    Random random = new Random(42);
    String[] nodes = new String[NODES];
    for (int n = 0; n < NODES; n++) {
      nodes[n] =
          String.format(Locale.ROOT, "gke-prod-default-pool-%08x-", random.nextInt())
              + generated(random, 4);
    }
    TableWriter writer =
        new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    Map<ServiceKey, List<Endpoint>> batch = new HashMap<>();
    int address = 0;
    for (int s = 0; s < SERVICES; s++) {
      int app = s / NAMESPACES;
      String name = APPS[app % APPS.length] + "-" + ROLES[app / APPS.length % ROLES.length];
      ServiceKey key = new ServiceKey(decoded("team-" + s % NAMESPACES), decoded(name));
      // One slice per service (25 endpoints fit in one), decoded strings throughout, translated
      // by the agent's own translator: what the table holds is exactly what the agent would keep.
      List<EndpointPort> ports = new ArrayList<>();
      ports.add(
          new EndpointPortBuilder()
              .withName(decoded("http"))
              .withPort(8080)
              .withProtocol(decoded("TCP"))
              .build());
      if (s % 3 == 0) {
        ports.add(
            new EndpointPortBuilder()
                .withName(decoded("metrics"))
                .withPort(9090)
                .withProtocol(decoded("TCP"))
                .build());
      }
      String replicaSet = name + "-" + generated(random, 10) + "-";
      List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> sliceEndpoints =
          new ArrayList<>();
      for (int e = 0; e < ENDPOINTS_PER_SERVICE; e++) {
        // A bijection on [0, 2^18): distinct, scattered addresses in 10.64.0.0/14.
        int host = (address++ * 0x9E3B) & 0x3FFFF;
        String ip = "10." + (64 + (host >> 16)) + "." + ((host >> 8) & 255) + "." + (host & 255);
        int node = random.nextInt(NODES);
        sliceEndpoints.add(
            new EndpointBuilder()
                .withAddresses(ip)
                .withZone(decoded(ZONES[node % ZONES.length]))
                .withNodeName(decoded(nodes[node]))
                .withTargetRef(
                    new ObjectReferenceBuilder()
                        .withKind(decoded("Pod"))
                        .withName(replicaSet + generated(random, 5))
                        .build())
                .withNewConditions()
                .withReady(true)
                .withServing(true)
                .withTerminating(false)
                .endConditions()
                .build());
      }
      EndpointSlice slice =
          new EndpointSliceBuilder()
              .withNewMetadata()
              .withNamespace(key.namespace())
              .withName(decoded(name + "-" + generated(random, 5)))
              .addToLabels("kubernetes.io/service-name", key.name())
              .endMetadata()
              .withAddressType(decoded("IPv4"))
              .withPorts(ports)
              .withEndpoints(sliceEndpoints)
              .build();
      List<Endpoint> endpoints =
          new ArrayList<>(SliceTranslator.translate(List.of(slice)).endpoints());
      endpoints.sort(null);
      batch.put(key, endpoints);
      if (batch.size() == MAX_BATCH) {
        writer.publish(states(batch), List.of());
        batch = new HashMap<>();
      }
    }
    writer.publish(states(batch), List.of());
    RoutingTable table = writer.current();
    if (table.endpointCount() != (long) SERVICES * ENDPOINTS_PER_SERVICE) {
      throw new IllegalStateException("expected 250,000 distinct endpoints, got " + table);
    }
    return table;
  }

  /**
   * A copy of {@code text} with its own {@code byte[]}, as a JSON decoder creates one per value.
   * ({@code new String(String)} would share the argument's array, hiding the real cost.)
   */
  private static String decoded(String text) {
    return new String(text.toCharArray());
  }

  private static String generated(Random random, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(SAFE.charAt(random.nextInt(SAFE.length())));
    }
    return out.toString();
  }

  /** The footprint, by class and by endpoint field, and what candidate changes would save. */
  static String report(RoutingTable table) {
    long endpointCount = table.endpointCount();
    GraphLayout whole = GraphLayout.parseInstance(table);
    long total = whole.totalSize();
    StringBuilder out = new StringBuilder();
    out.append(VM.current().details()).append('\n');
    out.append(ClassLayout.parseClass(Endpoint.class).toPrintable()).append('\n');
    out.append(
        String.format(
            Locale.ROOT,
            "%s: %,d bytes retained, %,d endpoints: %.1f bytes/endpoint (target <= %.0f)%n%n",
            table,
            total,
            endpointCount,
            (double) total / endpointCount,
            TARGET_BYTES_PER_ENDPOINT));

    out.append("By class (JOL footprint, largest first):\n");
    out.append(
        String.format(
            Locale.ROOT, "%10s %8s %12s %10s  %s%n", "COUNT", "AVG", "SUM", "B/ENDPOINT", "CLASS"));
    List<Class<?>> classes = new ArrayList<>(whole.getClasses());
    classes.sort(
        Comparator.comparingLong((Class<?> c) -> whole.getClassSizes().count(c)).reversed());
    for (Class<?> type : classes) {
      long count = whole.getClassCounts().count(type);
      long size = whole.getClassSizes().count(type);
      if ((double) size / endpointCount < 0.05) {
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "%,10d %8d %,12d %10.1f  %s%n",
              count,
              size / count,
              size,
              (double) size / endpointCount,
              type.getName()));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%,10d %8s %,12d %10.1f  (total; classes under 0.05 B/endpoint not listed)%n%n",
            whole.totalCount(),
            "",
            total,
            (double) total / endpointCount));

    // The same bytes, attributed to what holds them. Every role's objects are disjoint. The
    // endpoint's text is read from its fields: ip() and pod() would make new strings.
    List<ServiceEndpoints> services = new ArrayList<>(table.services());
    List<Endpoint> endpoints = new ArrayList<>();
    services.forEach(service -> endpoints.addAll(service.endpoints()));
    Map<String, Long> roles = new LinkedHashMap<>();
    long endpointShallow = endpoints.size() * VM.current().sizeOf(endpoints.get(0));
    roles.put("Endpoint objects (shallow)", endpointShallow);
    roles.put("IPv6 text (ipText; null for IPv4)", deepSize(endpoints, field("ipText")));
    long pods = deepSize(endpoints, field("podText"));
    roles.put("pod text (interned prefixes, and names kept whole)", pods);
    long zones = deepSize(endpoints, Endpoint::zone);
    roles.put("zone strings", zones);
    long nodes = deepSize(endpoints, Endpoint::node);
    roles.put("node strings", nodes);
    roles.put("port lists (one per slice)", deepSize(endpoints, Endpoint::ports));
    long allEndpoints = deepSize(endpoints, Function.identity());
    long allServices = deepSize(services, Function.identity());
    roles.put(
        "per service: ServiceEndpoints, endpoint list, ServiceKey", allServices - allEndpoints);
    roles.put("tree nodes, delta log, table", total - allServices);
    out.append("By role:\n");
    long attributed = 0;
    for (Map.Entry<String, Long> role : roles.entrySet()) {
      attributed += role.getValue();
      out.append(line(role.getKey(), role.getValue(), endpointCount));
    }
    out.append(line("total", attributed, endpointCount)).append('\n');

    // Savings, from the measured sizes and JOL's layout of the candidate shapes.
    long portLists = roles.get("port lists (one per slice)");
    long sharedPorts =
        portLists - deepSize(distinctValues(endpoints, Endpoint::ports), Function.identity());
    long oneTextSlot =
        endpoints.size()
            * (VM.current().sizeOf(endpoints.get(0))
                - ClassLayout.parseClass(OneTextSlot.class).instanceSize());
    out.append("Candidate changes in src/main (estimated from the sizes above):\n");
    out.append(
        line("share equal port lists between slices (intern them)", -sharedPorts, endpointCount));
    out.append(
        line(
            "IPv6 text and pod text in one slot, flags in the suffix's spare bits",
            -oneTextSlot,
            endpointCount));
    long after = total - sharedPorts - oneTextSlot;
    out.append(line("after both", after, endpointCount));
    return out.toString();
  }

  /**
   * The shape of a 40-byte Endpoint (JOL sizes it; nothing creates one): IPv4 in the int; 7-bit
   * ASCII suffix characters (8 x 7 = 56 bits) with the flags in the long's top byte; and one
   * reference for the pod text, or for a holder of the IPv6 text and the pod text (IPv6 is rare, so
   * its endpoints would pay the holder).
   */
  @SuppressWarnings("unused")
  private static final class OneTextSlot {
    int ipv4;
    long podSuffixAndFlags;
    Object ports;
    Object zone;
    Object node;
    Object podTextOrIpv6;
  }

  /** A private field of {@link Endpoint}, read reflectively (benchmark only). */
  private static Function<Endpoint, Object> field(String name) {
    try {
      java.lang.reflect.Field field = Endpoint.class.getDeclaredField(name);
      field.setAccessible(true);
      return endpoint -> {
        try {
          return field.get(endpoint);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      };
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("Endpoint has no field " + name, e);
    }
  }

  private static String line(String label, long bytes, long endpoints) {
    return String.format(
        Locale.ROOT, "  %-72s %,12d  %7.1f B/endpoint%n", label, bytes, (double) bytes / endpoints);
  }

  /** Bytes reachable from the values (each object counted once), without the holding array. */
  private static <T> long deepSize(Collection<T> items, Function<? super T, ?> value) {
    Object[] roots = items.stream().map(value).toArray();
    return GraphLayout.parseInstance((Object) roots).totalSize() - VM.current().sizeOf(roots);
  }

  /** One instance per distinct value, as an interning pool would keep. */
  private static <T> Collection<Object> distinctValues(
      Collection<T> items, Function<? super T, ?> value) {
    Map<Object, Object> pool = new HashMap<>();
    for (T item : items) {
      Object v = value.apply(item);
      pool.putIfAbsent(v, v);
    }
    return pool.values();
  }
}
