package dev.routesync.testing;

import dev.routesync.Agent;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.drift.DriftSettings;
import dev.routesync.kube.WatchSettings;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.micrometer.core.instrument.Counter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real {@link Agent} against an API server URL, with short timings so tests converge fast, and a
 * record of every table version it published (to check invariants across all of them).
 */
public final class AgentHarness implements AutoCloseable {

  /** Test timings: fast debounce, fast relist and reconnect. */
  public static final CoalescerSettings FAST =
      new CoalescerSettings(Duration.ofMillis(20), Duration.ofMillis(200), 5000);

  private final Agent agent;
  private final Path dir;
  private final List<RoutingTable> published = new CopyOnWriteArrayList<>();
  private TcpProxy cutOnClose;
  private volatile boolean killed;

  private AgentHarness(Agent agent, Path dir) {
    this.agent = agent;
    this.dir = dir;
    agent.onPublish(published::add);
  }

  public static AgentHarness start(String apiUrl) throws Exception {
    return start(apiUrl, Source.ENDPOINTSLICES, FAST, Duration.ofMillis(300), 0);
  }

  public static AgentHarness start(
      String apiUrl,
      Source source,
      CoalescerSettings coalescer,
      Duration relistAfter,
      int adminPort)
      throws Exception {
    return start(apiUrl, source, coalescer, relistAfter, Duration.ZERO, adminPort);
  }

  public static AgentHarness start(
      String apiUrl,
      Source source,
      CoalescerSettings coalescer,
      Duration relistAfter,
      Duration resync,
      int adminPort)
      throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig config = config(dir, source, coalescer, relistAfter, resync, adminPort);
    Config kubeConfig = kubeConfig(apiUrl);
    Agent agent = Agent.start(config, kubeConfig).await(20, TimeUnit.SECONDS);
    AgentHarness harness = new AgentHarness(agent, dir);
    agent.initialSync().await(20, TimeUnit.SECONDS);
    return harness;
  }

  /** Starts an agent with an admin port and these connection limits on its socket. */
  public static AgentHarness start(String apiUrl, int adminPort, ConnectionLimits limits)
      throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig base =
        config(dir, Source.ENDPOINTSLICES, FAST, Duration.ofSeconds(10), Duration.ZERO, adminPort);
    AgentConfig config = base.withLimits(limits);
    Agent agent = Agent.start(config, kubeConfig(apiUrl)).await(20, TimeUnit.SECONDS);
    AgentHarness harness = new AgentHarness(agent, dir);
    agent.initialSync().await(20, TimeUnit.SECONDS);
    return harness;
  }

  /**
   * Starts an agent on node {@code nodeName} with the drift detector on (the other harnesses turn
   * it off), {@code grace}, and an admin port.
   */
  public static AgentHarness startWithDrift(
      String apiUrl, String nodeName, Duration grace, int adminPort) throws Exception {
    return startWith(
        apiUrl,
        config -> config.withNodeName(nodeName).withDrift(new DriftSettings(true, grace)),
        adminPort);
  }

  /** Starts an agent with the harness's configuration as {@code change} changes it. */
  public static AgentHarness startWith(
      String apiUrl, java.util.function.UnaryOperator<AgentConfig> change, int adminPort)
      throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig config =
        change.apply(
            config(
                dir,
                Source.ENDPOINTSLICES,
                FAST,
                Duration.ofSeconds(10),
                Duration.ZERO,
                adminPort));
    Agent agent = Agent.start(config, kubeConfig(apiUrl)).await(20, TimeUnit.SECONDS);
    AgentHarness harness = new AgentHarness(agent, dir);
    agent.initialSync().await(20, TimeUnit.SECONDS);
    return harness;
  }

  /**
   * Starts an agent with these coalescer timings and the harness's configuration as {@code change}
   * changes it, without waiting for its initial sync.
   */
  public static AgentHarness launchWith(
      String apiUrl,
      CoalescerSettings coalescer,
      java.util.function.UnaryOperator<AgentConfig> change)
      throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig config =
        change.apply(
            config(
                dir, Source.ENDPOINTSLICES, coalescer, Duration.ofSeconds(10), Duration.ZERO, 0));
    Agent agent = Agent.start(config, kubeConfig(apiUrl)).await(20, TimeUnit.SECONDS);
    return new AgentHarness(agent, dir);
  }

  /**
   * Starts an agent with the harness's configuration as {@code change} changes it, without waiting
   * for its initial sync (the API server may be away).
   */
  public static AgentHarness launchWith(
      String apiUrl, java.util.function.UnaryOperator<AgentConfig> change) throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig config =
        change.apply(
            config(dir, Source.ENDPOINTSLICES, FAST, Duration.ofSeconds(10), Duration.ZERO, 0));
    Agent agent = Agent.start(config, kubeConfig(apiUrl)).await(20, TimeUnit.SECONDS);
    return new AgentHarness(agent, dir);
  }

  /** Starts an agent without waiting for its initial sync (the API server may be away). */
  public static AgentHarness launch(String apiUrl, Duration relistAfter) throws Exception {
    Path dir = Files.createTempDirectory("rs");
    AgentConfig config = config(dir, Source.ENDPOINTSLICES, FAST, relistAfter, Duration.ZERO, 0);
    Agent agent = Agent.start(config, kubeConfig(apiUrl)).await(20, TimeUnit.SECONDS);
    return new AgentHarness(agent, dir);
  }

  public void awaitInitialSync() throws Exception {
    agent.initialSync().await(20, TimeUnit.SECONDS);
  }

  /** Seconds the agent reports its watch has been down (0 while connected). */
  public double disconnectedSeconds() {
    return agent.registry().get("routesync.api.disconnected").gauge().value();
  }

  public boolean connected() {
    return agent.registry().get("routesync.api.connected").gauge().value() == 1;
  }

  private static AgentConfig config(
      Path dir,
      Source source,
      CoalescerSettings coalescer,
      Duration relistAfter,
      Duration resync,
      int adminPort) {
    WatchSettings watch =
        new WatchSettings(
            List.of(),
            "mesh-managed=true",
            relistAfter,
            resync,
            Duration.ofMillis(50),
            Duration.ofMillis(400),
            Duration.ofMillis(25));
    // The drift detector is off here: tests of the table need no Pods and Services watches.
    return new AgentConfig(
            source,
            Optional.empty(),
            watch,
            coalescer,
            dir.resolve("rs.sock"),
            "127.0.0.1",
            adminPort,
            "node-a")
        .withDrift(new DriftSettings(false, DriftSettings.DEFAULT_GRACE));
  }

  private static Config kubeConfig(String apiUrl) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(apiUrl)
        .withRequestTimeout(5000)
        .withConnectionTimeout(2000)
        .build();
  }

  public Agent agent() {
    return agent;
  }

  public Path socket() {
    return agent.config().socket();
  }

  public RoutingTable table() {
    return agent.table().current();
  }

  /** Every version published since the harness attached, oldest first. */
  public List<RoutingTable> published() {
    return List.copyOf(published);
  }

  public Optional<ServiceEndpoints> service(String namespace, String name) {
    return table().get(new ServiceKey(namespace, name));
  }

  /** The IPs currently published for a service; empty when the service is absent. */
  public List<String> ips(String namespace, String name) {
    return service(namespace, name)
        .map(s -> s.endpoints().stream().map(Endpoint::ip).collect(Collectors.toList()))
        .orElse(List.of());
  }

  /**
   * The sum of every counter {@code name} with these tags: a lookup that leaves a tag out (such as
   * {@code kind}, one counter per watch) matches several, and picking the first found made a test
   * read the Services watch's 0 for the slice watch's 1 once the registry's order changed.
   */
  public double counter(String name, String... tags) {
    return agent.registry().find(name).tags(tags).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  /**
   * Cuts {@code proxy} before stopping the agent, so the mock server sees an abrupt drop rather
   * than a clean watch close (see MockCluster#url).
   */
  public AgentHarness cutOnClose(TcpProxy proxy) {
    this.cutOnClose = proxy;
    return this;
  }

  /**
   * Stops the agent the way SIGKILL would, as far as one JVM can: its Vert.x (event loops, servers,
   * connections) is closed at once, with no drain and none of what the agent does on SIGTERM; then
   * its fabric8 client's threads, which a dead process would not have, so that its informers do not
   * go on reconnecting. {@link #close} then only cleans up.
   *
   * <p>Drop its API connections first (a proxy's cut): closing Vert.x closes a websocket watch with
   * a close handshake, which waits 10 s for an answer a proxy that swallows it never sends.
   */
  public void kill() throws Exception {
    killed = true;
    // A flush the state writer had scheduled must not write the file after the test corrupted
    // it: the restarted agent would find it intact.
    agent.crash();
  }

  @Override
  public void close() throws Exception {
    if (cutOnClose != null) {
      cutOnClose.cut();
    }
    if (!killed) {
      agent.stop().await(20, TimeUnit.SECONDS);
    }
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(dir);
  }
}
